#!/usr/bin/env python3
"""Demonstration: Poisson-sampled DP-SGD on the seeded logistic-regression data, three accountings at one (eps, delta).

Every example is held to the same target (eps, delta) (default (4, 1e-3); q = 0.1, sigma = 1,
clip C = 1, the data of :func:`reference.simulate.individual.make_dataset`, n = 1000, d = 10):

(a) worst case: every example charged as if its gradient had norm C at every step; all
    examples train for k0 steps, k0 the single-item count of the exact game at scale 1
    (:func:`reference.bounds.sgm_game.sgm_single_item_rounds`), then training stops;
(b) the Renyi individual filter (feldman2021 Algorithm 3 with the Renyi filter of Theorem 4.3):
    example i at scale s (its clipped norm over C, rounded up to the same grid as (c)) is charged
    the sampled-Gaussian RDP at one order alpha (mironov2019 Section 3.3, certified upper end,
    :func:`reference.profiles.subsampled_gaussian.sgm_rdp`) against the budget
    eps - log(1/delta)/(alpha - 1) (feldman2021 Fact 2.4), alpha chosen to maximise the worst-case
    count; float sums with charges rounded up (a demonstration, not a certificate);
(c) the certified game individual filter
    (:class:`reference.accountants.individual_game.IndividualDPSGDGameFilter`).

At every step of (b) and (c) all examples' gradients are computed at the current iterate, the
filter admits some, Poisson sampling at rate q runs among the admitted ones only, and the noisy
sum (noise sigma C) divided by the public constant q n updates the model.  (b) and (c) run
``--steps`` steps (default 6 k0).  Prints a table: example-steps admitted, steps with at least one
admitted example, final training loss and test accuracy; ``--figure PATH`` saves the training
loss per step (matplotlib, Agg).  Usage::

    PYTHONPATH=$PWD python benchmarks/demo_individual_dpsgd.py [--eps 4] [--delta 1e-3] [--bits 6] [--figure out.png]
"""
from __future__ import annotations

import argparse
import math
import platform
import time
from fractions import Fraction

import numpy as np

from reference.accountants.individual_game import IndividualDPSGDGameFilter
from reference.bounds.sgm_game import SGMItem, sgm_single_item_rounds
from reference.profiles.subsampled_gaussian import sgm_rdp
from reference.simulate.individual import _clip, _loss_acc, _per_example_grads, _sq_norm_upper, make_dataset


def _norm_up(G: np.ndarray) -> np.ndarray:
    """Rigorous float upper bounds of the rows' l2 norms (squared norms bounded above, square root one ulp up)."""
    return np.nextafter(np.sqrt(_sq_norm_upper(G)), np.inf)


class RenyiIndividual:
    """feldman2021 Algorithm 3 with one Renyi order: charges per grid scale, rounded up; budget rounded down (floats)."""

    def __init__(self, eps, delta, q, sigma, clip, n, scales, alphas=range(2, 65)):
        e, d = Fraction(eps), Fraction(delta)
        top = []
        for a in alphas:
            b = float(e) - math.log(1 / float(d)) / (a - 1)
            if b > 0:
                top.append((b / float(sgm_rdp(q, sigma, a, dps=20)), a, b))
        _, self.alpha, b = max(top)
        self.budget = math.nextafter(b, -math.inf)
        self.charge = np.array([0.0] + [math.nextafter(float(sgm_rdp(q, Fraction(sigma) / s, self.alpha, dps=20)), math.inf)
                                        for s in scales])
        self.thr = np.array([0.0] + [float(s * Fraction(clip)) for s in scales])   # a demonstration: nearest doubles
        self.spent = np.zeros(n)

    def try_run(self, norms):
        idx = np.minimum(np.searchsorted(self.thr, norms, side="left"), len(self.thr) - 1)
        new = np.nextafter(self.spent + self.charge[idx], np.inf)
        mask = new <= self.budget
        self.spent = np.where(mask, new, self.spent)
        return mask


def train(X, y, Xt, yt, steps, q, sigma, clip, lr, seed, accountant=None):
    rng = np.random.default_rng(seed)
    n, d = X.shape
    w = np.zeros(d)
    losses, admitted, live = [], 0, 0
    for _ in range(steps):
        G = _clip(_per_example_grads(w, X, y), clip)
        mask = np.ones(n, dtype=bool) if accountant is None else accountant.try_run(_norm_up(G))
        k = int(mask.sum())
        admitted += k
        live += k > 0
        sampled = mask & (rng.random(n) < q)
        noisy = G[sampled].sum(axis=0) + rng.normal(0.0, sigma * clip, d)
        w = w - lr * noisy / (q * n)
        losses.append(_loss_acc(w, X, y)[0])
    return w, losses, admitted, live


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--eps", default="4")
    ap.add_argument("--delta", default="1e-3")
    ap.add_argument("--q", default="0.1")
    ap.add_argument("--sigma", default="1")
    ap.add_argument("--clip", default="1")
    ap.add_argument("--lr", type=float, default=0.5)
    ap.add_argument("--bits", type=int, default=6)
    ap.add_argument("--n", type=int, default=1000)
    ap.add_argument("--steps", type=int, default=None, help="steps of (b) and (c) (default 6 k0)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--figure", default=None)
    a = ap.parse_args(argv)
    print(f"python {platform.python_version()}, numpy {np.__version__}; grid 2^-{a.bits}")
    q, sigma, clip = Fraction(a.q), Fraction(a.sigma), Fraction(a.clip)
    X, y, Xt, yt, _ = make_dataset(a.n, 10, seed=a.seed)
    t0 = time.process_time()
    k0 = sgm_single_item_rounds(a.eps, a.delta, SGMItem(q, sigma), bits=a.bits)
    game = IndividualDPSGDGameFilter(a.eps, a.delta, q, sigma, clip, a.n, bits=a.bits)
    renyi = RenyiIndividual(a.eps, a.delta, q, sigma, clip, a.n, game.scales)
    print(f"accounting set-up {time.process_time() - t0:.1f} CPU s: worst-case k0 = {k0}; game B* = {game.budget}, "
          f"costs {list(game.costs)} at scales {[str(s) for s in game.scales]}; Renyi order {renyi.alpha}, "
          f"worst-case Renyi steps {int(renyi.budget // renyi.charge[-1])}")
    steps = a.steps or 6 * k0
    rows, curves = [], {}
    for name, acc, T in (("(a) worst case", None, k0), ("(b) Renyi individual", renyi, steps),
                         ("(c) game individual (certified)", game, steps)):
        w, losses, adm, live = train(X, y, Xt, yt, T, float(q), float(sigma), float(clip), a.lr, a.seed + 1, acc)
        loss, _ = _loss_acc(w, X, y)
        _, acc_t = _loss_acc(w, Xt, yt)
        rows.append((name, adm, live, loss, acc_t))
        curves[name] = losses
    print(f"{'accounting':34} {'example-steps':>14} {'live steps':>10} {'train loss':>11} {'test acc':>9}")
    for name, adm, live, loss, acc_t in rows:
        print(f"{name:34} {adm:>14} {live:>10} {loss:>11.4f} {acc_t:>9.3f}")
    if a.figure:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(6, 3.5))
        for name, ls in curves.items():
            ax.plot(range(1, len(ls) + 1), ls, label=name)
        ax.set_xlabel("step")
        ax.set_ylabel("training loss")
        ax.set_title(f"DP-SGD, each example ({a.eps}, {a.delta})-DP")
        ax.legend()
        fig.tight_layout()
        fig.savefig(a.figure, dpi=120)
        print(f"wrote {a.figure}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
