"""Benchmark of the exact verifier (reference.verify.engine): rounds/s and states processed, one run each.

Setting: the whitehouse2022 Theorem 2 filter odometer (shipped ``Odometer``, eps_target = 1,
delta' = 1/10) against the loss- and V-dependent ``LossChasing`` adversary (eps in {u, 2u}, raises
eps when L > V/2) for 10^3 and 10^4 rounds of the unit step u; and the Theorem 1 filter
(``DPFilter``) against the same adversary with u small enough that the filter admits about
10^3 / 10^4 rounds.  Target: 10^3 rounds in 60 s.

Run:  /tmp/venv/bin/python benchmarks/bench_verifier.py [--quick]
"""
from __future__ import annotations

import argparse
import time
from fractions import Fraction as F

from reference.verify.engine import LossChasing, verify
from reference.verify.targets import WhitehouseFilter, WhitehouseOdometer

TARGET_SECONDS_PER_1E3 = 60.0


def bench(label, target, adversary, rounds):
    t0 = time.perf_counter()
    r = verify(target, adversary, rounds)
    dt = time.perf_counter() - t0
    ratio = (TARGET_SECONDS_PER_1E3 * r.max_rounds / 1000) / dt
    print(f"{label:<44} rounds={r.max_rounds:>6}  keys={r.keys:>7}  cells={r.cells:>11,}  time={dt:8.2f}s  "
          f"rounds/s={r.max_rounds / dt:9.1f}  cells/s={r.cells / dt:12,.0f}  "
          f"delta in [{float(r.lo):.6e}, {float(r.hi):.6e}]  rel_err<={r.rel_err:.1e}  "
          f"speed vs target (1e3 rounds/60 s, linear)={ratio:7.1f}x")
    return r, dt


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="only 10^3 rounds")
    args = ap.parse_args(argv)
    sizes = [1000] if args.quick else [1000, 10000]
    for n in sizes:
        u = F(1, round(n ** 0.5))  # V_max = n u^2 ~ 1
        odo = WhitehouseOdometer("filter", F(1, 10), 0, eps_target=1)
        bench(f"odometer thm2 x loss_chasing, n={n}", odo, LossChasing(2 * u, u), n)
    for n in sizes:
        # choose u so that the Theorem 1 filter (eps = 1, delta' = 1/10) admits about n unit steps: y* ~ 0.18
        u = F(1, int((n / F(18, 100)) ** 0.5))
        filt = WhitehouseFilter(1, F(1, 10), 0)
        bench(f"filter thm1 x loss_chasing, n~{n}", filt, LossChasing(2 * u, u), n)


if __name__ == "__main__":
    main()
