"""Fully adaptive DP-SGD budgets from the exact game: what share of each item's own optimum a menu keeps.

For each workload row of ``shared/benchmarks/dpsgd_workloads.csv`` (q, sigma, k, delta) the target is
(eps*, delta) with eps* the certified PLD upper end of the k-step run (rounded up to 4 decimals).
The menu is {sigma, 1.25 sigma} at the row's q (``--menu two``) or {0.8 sigma, sigma, 1.25 sigma; 2q at
sigma} (``--menu four``).  Printed per item: its own count k0 at the game's grid (the single-item
game: the non-adaptive count at that grid), its cost, the steps a homogeneous run gets under the
menu's certified budget B*, the share of k0 (and of the row's k for the workload's item), and, for
comparison, the best count of a Renyi filter with its order fixed in advance (orders 1.05..2.95 and
3..256, the project's RDP of the subsampled Gaussian: a yardstick, each item's best order).

    python benchmarks/bench_sgm_game.py --rows W8,W7 --bits 8
    python benchmarks/bench_sgm_game.py --rows W8 --menu four
    python benchmarks/bench_sgm_game.py --rows W1,W2 --bits 10 --per-run 200     # blocks of k/200 steps

With blocks (``--block M`` or ``--per-run N``) the filter charges one unit per block of m_i steps
(:func:`reference.bounds.sgm_game.block_lengths`): the analyst still picks every step adaptively and
may stop anywhere, but switches items only by opening a block; k0 is then the item alone in
blocks of M steps at this grid.

Every count printed is certified by :func:`reference.bounds.sgm_game.sgm_menu_certificate`; the
shares are exact ratios of those integers.  Times are CPU seconds of this process.
"""
from __future__ import annotations

import argparse
import csv
import math
import os
import sys
import time
from fractions import Fraction

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from reference.bounds.calibrated import cks_rdp_budget  # noqa: E402
from reference.bounds.sgm_game import SGMItem, sgm_menu_certificate  # noqa: E402
from reference.profiles.sgm_pld import sgm_pld_eps_bracket  # noqa: E402
from reference.profiles.subsampled_gaussian import sgm_rdp_continuous, sgm_rdp_float  # noqa: E402

CSV = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "..", "shared", "benchmarks",
                   "dpsgd_workloads.csv")


def _rows(path):
    with open(path) as f:
        for r in csv.DictReader(f):
            spec = r["spec"]
            if "+" in spec:
                continue
            body, k = spec.split(":", 1)[1].rsplit("x", 1)
            kv = dict(x.split("=") for x in body.split(","))
            yield r["id"], Fraction(kv["q"]), Fraction(kv["sigma"]), int(k), Fraction(r["delta"])


def renyi_count(q: Fraction, s: Fraction, eps: Fraction, delta: Fraction) -> int:
    """Best floor(B(alpha) / RDP_alpha) over 293 orders fixed in advance: 1.05, 1.10, .., 2.95 (the continuous RDP of
    the subsampled Gaussian) and the integers 3..256 (float RDP); canonne2020 Prop. 12 budget.  A yardstick."""
    best = 0
    orders = [Fraction(20 + i, 20) for i in range(1, 40)] + list(range(3, 257))
    for a in orders:
        B = float(cks_rdp_budget(a, eps, delta, dps=20))
        if B <= 0:
            continue
        r = float(sgm_rdp_continuous(q, s, a, dps=15)) if isinstance(a, Fraction) else sgm_rdp_float(float(q), float(s), a)
        if r > 0:
            best = max(best, math.floor(B / r))
    return best


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", default="W8,W7", help="comma-separated row ids (default W8,W7)")
    ap.add_argument("--bits", type=int, default=8, help="grid 2^-bits of the game (default 8)")
    ap.add_argument("--menu", choices=("two", "four"), default="two")
    ap.add_argument("--block", type=int, default=None,
                    help="charge per block: M steps per block for the item with the fewest blocks (default: per step)")
    ap.add_argument("--per-run", type=int, default=None,
                    help="charge per block, with M = max(1, k // N) for the row's k (about N blocks per run)")
    ap.add_argument("--csv", default=CSV)
    args = ap.parse_args(argv)
    want = set(args.rows.split(","))
    print(f"{'row':4} {'item':44} {'k0':>7} {'cost':>4} {'steps':>7} {'share':>7} {'of row k':>8} {'Renyi':>7} "
          f"{'B*':>8} {'cpu s':>7}")
    for rid, q, s, k, delta in _rows(args.csv):
        if rid not in want:
            continue
        t0 = time.process_time()
        b = sgm_pld_eps_bracket(q, s, k, delta)
        eps = Fraction(math.ceil(float(b.hi) * 10 ** 4), 10 ** 4)
        if args.menu == "two":
            items = [SGMItem(q, s), SGMItem(q, s * Fraction(5, 4))]
        else:
            items = [SGMItem(q, s * Fraction(4, 5)), SGMItem(q, s), SGMItem(q, s * Fraction(5, 4))]
            if 2 * q <= 1:
                items.append(SGMItem(2 * q, s))
        block = args.block if args.per_run is None else max(1, k // args.per_run)
        cert = sgm_menu_certificate(eps, delta, items, bits=args.bits, lower=False, block=block)
        cpu = time.process_time() - t0
        k0 = cert.extra["k0"]
        for i, it in enumerate(items):
            steps = cert.rounds(i)
            share = steps / k0[i] if k0[i] else float("nan")
            of_row = f"{steps / k:8.1%}" if (it.q, it.sigma) == (q, s) else " " * 8
            ren = renyi_count(it.q, it.sigma, eps, delta)
            print(f"{rid:4} {str(it):44} {k0[i]:7d} {cert.costs[i]:4d} {steps:7d} {share:7.1%} {of_row} {ren:7d} "
                  f"{cert.budget:8d} {cpu:7.1f}", flush=True)
        blk = f"; blocks of {list(cert.blocks)} steps, one unit each" if cert.blocks else "; every step charged"
        print(f"     target (eps, delta) = ({eps}, {delta}); grid 2^-{args.bits}; certified B* = {cert.budget}{blk}",
              flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
