"""Throughput of the crossing simulations of reference.martingales: path-steps per second and memory per path.

Usage (emulating a 2-core machine):

    taskset -c 0,1 python benchmarks/bench_martingales.py [--backend numpy|cupy|all] [--paths N] [--steps T]
        [--repeat R] [--gpu-paths N] [--json]

Measures, in one run, for randomized-response loss processes (unit eps = 1/20):

* NumPy, fixed schedule (homogeneous eps = 1/10): exact integer thresholds, 1 boundary and all genuine
  boundaries of the checker (10, one of them two-sided), with 1 thread and with all available threads
  (chunks of 32768 paths, PCG64DXSM);
* NumPy, state-dependent adversaries (loss-chasing, random adaptive), all genuine boundaries;
* CuPy (only if CuPy imports and a CUDA device is visible): the fused Philox kernels, same plans.

``--backend numpy`` measures only NumPy; ``--backend cupy`` only the GPU (exit status 2 if CuPy or a
CUDA device is missing); ``--backend all`` (default) NumPy and, when available, CuPy.

A path-step is one step of one path with every boundary of the plan checked.  The one-off
precomputation of thresholds/tables (certified arithmetic) is timed separately.  Memory per
path: peak traced NumPy allocation of one chunk (tracemalloc) divided by the chunk's paths;
on the GPU the kernels keep a path's state in registers (global memory holds only the tables).
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import shlex
import sys
import time
import tracemalloc
from fractions import Fraction
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

from reference.martingales import cupy_available, default_adversaries, get_backend, make_boundaries, make_plan, simulate  # noqa: E402
from reference.martingales.simulate import CHUNK, _draw_blocks, _kernel_fixed, _kernel_markov  # noqa: E402
from reference.martingales.rng import stream_tag  # noqa: E402


def _memory_per_path(plan) -> float:
    """Peak traced bytes of one chunk of the NumPy kernel / CHUNK."""
    kern = _kernel_fixed if plan.adversary.deterministic else _kernel_markov
    T = min(plan.T, 64)
    tracemalloc.start()
    tracemalloc.reset_peak()
    kern(np, plan, _draw_blocks(np, "pcg", 0, stream_tag("mem"), 0, 0, CHUNK, T))
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak / CHUNK


def _measure(plan, n_paths, backend, repeat, **kw) -> float:
    best = 0.0
    for r in range(repeat):
        res = simulate(plan, n_paths, seed=r, backend=backend, **kw)
        best = max(best, res.path_steps_per_second)
    return best


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--backend", choices=("numpy", "cupy", "all"), default="all",
                    help="which backends to measure (default all: numpy, and cupy when available)")
    ap.add_argument("--paths", type=int, default=8 * CHUNK, help="paths per measurement (default 8 chunks = 262144)")
    ap.add_argument("--steps", type=int, default=1000, help="steps per path (default 1000)")
    ap.add_argument("--repeat", type=int, default=3, help="repetitions; the best is reported (default 3)")
    ap.add_argument("--gpu-paths", type=int, default=1 << 24, help="paths per GPU measurement (default 2^24)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)

    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    T, N = args.steps, args.paths
    delta = Fraction(1, 10)
    V_ref = Fraction(T) * Fraction(1, 10) ** 2
    bounds = make_boundaries(delta, V_ref)
    advs = {a.key: a for a in default_adversaries()}
    out = {"command": " ".join(shlex.quote(x) for x in [sys.executable] + sys.argv),
           "cpus_available": cpus, "python": platform.python_version(), "numpy": np.__version__,
           "paths": N, "steps": T, "results": []}

    def record(name, backend, threads, pss, mem, plan_s):
        row = {"case": name, "backend": backend, "threads": threads, "path_steps_per_s": pss,
               "bytes_per_path": mem, "plan_seconds": plan_s}
        out["results"].append(row)
        if not args.json:
            m = f"{mem:8.0f} B/path" if mem is not None else "    (regs) "
            print(f"{name:44s} {backend:5s} threads={threads:<2d} {pss:10.3e} path-steps/s  {m}  plan {plan_s:.2f} s",
                  flush=True)

    if not args.json:
        print(f"# {out['command']}")
        print(f"# CPUs available: {cpus}; python {out['python']}; numpy {out['numpy']}; {N} paths x {T} steps; best of {args.repeat}")

    nb = len(bounds)
    cases = [("homogeneous eps=1/10, 1 boundary (thm4 mixture)", advs["homogeneous"], bounds[1:2]),
             (f"homogeneous eps=1/10, {nb} boundaries", advs["homogeneous"], bounds),
             (f"alternating 1/5,1/20, {nb} boundaries", advs["alternating"], bounds),
             (f"loss-chasing {{1/20,1/10,1/5}}, {nb} boundaries", advs["loss_chasing"], bounds),
             (f"random adaptive {{1/20,1/10,1/5}}, {nb} boundaries", advs["random_adaptive"], bounds)]
    ok, why = cupy_available()
    out["gpu"] = why
    if args.backend == "cupy" and not ok:
        print(f"bench_martingales: --backend cupy requested but unavailable: {why}", file=sys.stderr)
        return 2
    plans = []
    for name, adv, bs in cases:
        t0 = time.perf_counter()
        plan = make_plan(adv, bs, T)
        plans.append((name, plan, time.perf_counter() - t0))
    if args.backend in ("numpy", "all"):
        for name, plan, ps in plans:
            mem = _memory_per_path(plan)
            for th in sorted({1, cpus}):
                pss = _measure(plan, N, get_backend("numpy", threads=th), args.repeat)
                record(name, "numpy", th, pss, mem, ps)

    if ok and args.backend in ("cupy", "all"):
        be = get_backend("cupy")
        for name, plan, ps in plans:
            simulate(plan, CHUNK, seed=0, backend=be)  # compile + warm up
            pss = _measure(plan, args.gpu_paths, be, args.repeat)
            record(name, "cupy", 1, pss, None, ps)
    elif not args.json and args.backend == "all":
        print(f"# CuPy path not measured: {why}")
    if args.json:
        print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
