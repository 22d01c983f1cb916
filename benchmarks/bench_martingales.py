"""Throughput of the crossing simulations of reference.martingales: path-steps per second and memory per path.

Usage (emulating a 2-core machine):

    taskset -c 0,1 python benchmarks/bench_martingales.py [--backend numpy|cupy|all] [--paths N] [--steps T]
        [--repeat R] [--gpu-paths N] [--json]

Measures, in one run, for randomized-response loss processes (unit eps = 1/20):

* NumPy, fixed schedule (homogeneous eps = 1/10): exact integer thresholds, 1 boundary and all genuine
  boundaries of the checker (10, one of them two-sided), with 1 thread and with all available threads
  (chunks of 32768 paths, PCG64DXSM);
* state-dependent adversaries (loss-chasing, random adaptive), all genuine boundaries: the compiled
  kernel (numba, when installed) with 1 thread and with all available threads, and the NumPy reference
  kernel with all threads (fewer paths, one repetition: it is only the baseline);
* a summary: each adaptive rate as a ratio to the fixed-schedule run (homogeneous, all genuine
  boundaries) measured in this process with the same threads, against the target of
  1.5e8 path-steps/s on a 2-core machine; the load average before and after;
* CuPy (only if CuPy imports and a CUDA device is visible): the fused Philox kernels, same plans.

``--backend numpy`` measures only NumPy; ``--backend cupy`` only the GPU (exit status 2 if CuPy or a
CUDA device is missing); ``--backend all`` (default) NumPy and, when available, CuPy.

A path-step is one step of one path with every boundary of the plan checked.  The one-off
precomputation of thresholds/tables (certified arithmetic) is timed separately.  Memory per
path: peak traced NumPy allocation of one chunk (tracemalloc) divided by the chunk's paths;
on the GPU the kernels keep a path's state in registers (global memory holds only the tables).
The machine may be shared: compare rates only within one run, and read them with the load
average printed beside them.
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
from reference.martingales.jit import numba_available  # noqa: E402
from reference.martingales.simulate import CHUNK, _draw_blocks, _kernel_fixed, _kernel_markov, _markov_jit  # noqa: E402
from reference.martingales.rng import stream_tag  # noqa: E402

TARGET = 1.5e8  # path-steps/s of the adaptive adversaries on a 2-core machine, every core used


def _memory_per_path(plan, jit=False) -> float:
    """Peak traced bytes of one chunk of the kernel / CHUNK (NumPy allocations only: the compiled kernel's locals are not traced)."""
    kern = _kernel_fixed if plan.adversary.deterministic else (_markov_jit if jit else _kernel_markov)
    T = min(plan.T, 64)
    tracemalloc.start()
    tracemalloc.reset_peak()
    if T < plan.T:
        from dataclasses import replace

        plan = replace(plan, T=T)
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


def _load() -> str:
    try:
        return "load average %.2f %.2f %.2f" % os.getloadavg()
    except OSError:  # pragma: no cover - no getloadavg
        return "load average unavailable"


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

    def record(name, backend, threads, pss, mem, plan_s, kernel, paths=N, repeat=args.repeat):
        row = {"case": name, "backend": backend, "kernel": kernel, "threads": threads, "path_steps_per_s": pss,
               "bytes_per_path": mem, "plan_seconds": plan_s, "paths": paths, "repeat": repeat}
        out["results"].append(row)
        if not args.json:
            m = f"{mem:8.0f} B/path" if mem is not None else "    (regs) "
            extra = f"  ({paths} paths, best of {repeat})" if (paths, repeat) != (N, args.repeat) else ""
            print(f"{name:44s} {backend:5s} {kernel:5s} threads={threads:<2d} {pss:10.3e} path-steps/s  {m}  "
                  f"plan {plan_s:.2f} s{extra}", flush=True)
        return row

    jit_ok, jit_why = numba_available()
    out["numba"] = jit_why
    out["load_before"] = _load()
    if not args.json:
        print(f"# {out['command']}")
        print(f"# CPUs available: {cpus}; python {out['python']}; numpy {out['numpy']}; {jit_why}; "
              f"{N} paths x {T} steps; best of {args.repeat}")
        print(f"# {out['load_before']} (before)")

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
        # Runs (case, kernel, threads), repeated round-robin so that every run sees the same spread of background
        # load; each run's best rate is kept.  The NumPy reference kernel of the adaptive adversaries is the slow
        # baseline: fewer paths, one repetition.
        ref_paths = max(1, min(N, 2 * CHUNK * max(1, cpus)))
        thread_counts = sorted({1, cpus})
        runs = []  # [name, plan, plan seconds, kernel, threads, paths, repeat, best]
        for name, plan, ps in plans:
            if plan.adversary.deterministic:
                runs += [[name, plan, ps, "numpy", th, N, args.repeat, 0.0] for th in thread_counts]
                continue
            if jit_ok:
                simulate(plan, 64, seed=0, jit=True)  # compile (or load the cached machine code) before timing
                runs += [[name, plan, ps, "numba", th, N, args.repeat, 0.0] for th in thread_counts]
            runs.append([name, plan, ps, "numpy", cpus, ref_paths, 1, 0.0])
        for r in range(args.repeat):
            for run in runs:
                name, plan, ps, kernel, th, paths, rep, best = run
                if r < rep:
                    res = simulate(plan, paths, seed=r, backend=get_backend("numpy", threads=th), jit=(kernel == "numba"))
                    run[7] = max(best, res.path_steps_per_second)
        fixed_ref = {}   # threads -> rate of the homogeneous, all-boundaries run
        adaptive = []    # (name, threads, rate, kernel)
        for name, plan, ps, kernel, th, paths, rep, best in runs:
            record(name, "numpy", th, best, _memory_per_path(plan, jit=(kernel == "numba")), ps, kernel, paths, rep)
            if plan.adversary.deterministic and plan.adversary.key == "homogeneous" and len(plan.boundaries) == nb:
                fixed_ref[th] = best
            if not plan.adversary.deterministic:
                adaptive.append((name, th, best, kernel))
        out["load_after"] = _load()
        out["target_path_steps_per_s"] = TARGET
        out["adaptive_vs_fixed"] = []
        if not args.json:
            print(f"# adaptive adversaries vs the fixed-schedule run in this process ({cases[1][0]}, same threads); "
                  f"target >= {TARGET:.1e} path-steps/s using every core ({cpus} CPUs here)")
        for name, th, pss, kernel in adaptive:
            ratio = pss / fixed_ref[th] if fixed_ref.get(th) else float("nan")
            meets = bool(th == cpus and pss >= TARGET)
            out["adaptive_vs_fixed"].append({"case": name, "kernel": kernel, "threads": th, "path_steps_per_s": pss,
                                             "fixed_path_steps_per_s": fixed_ref.get(th), "ratio": ratio,
                                             "meets_target": meets})
            if not args.json:
                verdict = ("meets the target" if meets else "below the target") if th == cpus else "(one thread)"
                print(f"#   {name:44s} {kernel:5s} threads={th:<2d} {pss:10.3e} path-steps/s = {ratio:5.2f} x fixed "
                      f"{fixed_ref.get(th, float('nan')):10.3e}  {verdict}")
        if not args.json:
            if not jit_ok:
                print(f"# compiled kernel not measured: {jit_why} (pip install numba)")
            print(f"# {out['load_after']} (after)")

    if ok and args.backend in ("cupy", "all"):
        be = get_backend("cupy")
        for name, plan, ps in plans:
            simulate(plan, CHUNK, seed=0, backend=be)  # compile + warm up
            pss = _measure(plan, args.gpu_paths, be, args.repeat)
            record(name, "cupy", 1, pss, None, ps, "cuda", args.gpu_paths)
    elif not args.json and args.backend == "all":
        print(f"# CuPy path not measured: {why}")
    if args.json:
        print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
