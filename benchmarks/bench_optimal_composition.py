#!/usr/bin/env python3
"""Benchmark of the exact optimal composition of Kairouz, Oh, Viswanath 2015 (a script, not a test).

Times, at 50 significant digits on one core:

* ``kov_delta(eps0, 0, k, eps)``  -- the certified optimal delta(eps) (kairouz2015_thm3_3_delta);
* ``kov_eps(eps0, 0, k, delta)``  -- its certified inverse eps(delta) (kairouz2015_thm3_3_eps);

for k = 10^3, 10^4, 10^5 (and eps0 in {0.01, 0.1, 1}), with eps taken as the answer of
``kov_eps`` at delta = 1e-6 (so delta(eps) is evaluated where it matters).  Each call is
timed cold (fresh arguments, nothing cached) ``--repeat`` times and the median is printed
with its ratio to the 5 s target (ratio < 1: the target is met).  Exits non-zero on a
missed target only with ``--strict``.

    python benchmarks/bench_optimal_composition.py [--strict] [--repeat 3] [--dps 50] [--ks 1000,10000,100000]
"""
from __future__ import annotations

import argparse
import platform
import statistics
import sys
import time
from pathlib import Path

try:
    import reference  # noqa: F401
except ImportError:  # run from a checkout without installing
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import mpmath  # noqa: E402

from reference.bounds.classical import kov_delta, kov_eps  # noqa: E402
from reference.precision import directed_decimal  # noqa: E402

TARGET_S = 5.0
DELTA = "1e-6"


def _median_time(fn, repeat: int) -> tuple[float, object]:
    times, out = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--dps", type=int, default=50)
    ap.add_argument("--ks", default="1000,10000,100000")
    ap.add_argument("--eps0", default="0.01,0.1,1")
    ap.add_argument("--strict", action="store_true")
    args = ap.parse_args(argv)
    ks = [int(x) for x in args.ks.split(",")]
    eps0s = [x.strip() for x in args.eps0.split(",")]
    print(f"# KOV15 optimal composition, {args.dps} digits, delta = {DELTA}, target {TARGET_S:g} s per call")
    print(f"# python {platform.python_version()}, mpmath {mpmath.__version__} (backend {mpmath.libmp.BACKEND}), "
          f"{platform.machine()}")
    hdr = f"{'k':>7} {'eps0':>5} {'eps(delta)':>28} {'t eps(delta)':>13} {'ratio':>7} {'t delta(eps)':>13} {'ratio':>7}"
    print(hdr)
    print("-" * len(hdr))
    worst = 0.0
    for k in ks:
        for e0 in eps0s:
            t_inv, e = _median_time(lambda: kov_eps(e0, 0, k, DELTA, dps=args.dps), args.repeat)
            t_fwd, d = _median_time(lambda: kov_delta(e0, 0, k, e, dps=args.dps), args.repeat)
            worst = max(worst, t_inv, t_fwd)
            print(f"{k:>7} {e0:>5} {directed_decimal(e, 20, 'upper'):>28} {t_inv:>12.3f}s {t_inv / TARGET_S:>7.3f} "
                  f"{t_fwd:>12.3f}s {t_fwd / TARGET_S:>7.3f}")
    print(f"# worst time {worst:.3f} s, ratio {worst / TARGET_S:.3f} to the {TARGET_S:g} s target "
          f"({'met' if worst < TARGET_S else 'MISSED'})")
    return 1 if (args.strict and worst >= TARGET_S) else 0


if __name__ == "__main__":
    sys.exit(main())
