"""Verifier targets of the conversion-calibrated filters, the Gaussian-DP filter and the natural privacy-curve filter.

Adapters for :func:`reference.verify.engine.verify` (registered in
``reference.verify.targets.TARGETS`` / ``NEGATIVE_CONTROLS``).  Each drives the SHIPPED
object: the engine's exact multiset of past eps (``stat == "counts"``) is written into the
object's state and its public ``can_run`` decides.

* :class:`CalibratedRenyiTarget` -- :class:`reference.accountants.feldman2021.CalibratedRenyiFilter`;
* :class:`CalibratedZCDPTarget` -- :class:`reference.accountants.feldman2021.CalibratedZCDPFilter`;
* :class:`GDPFilterTarget` -- :class:`reference.accountants.smith2022.GaussianDPFilter` on eps-DP
  steps (each charged mu(eps) rounded up);
* negative controls: :class:`UncalibratedRenyiTarget` (the Renyi budget read as the DP epsilon:
  the conversion's log terms dropped), :class:`NaiveGDPTarget` (an eps-DP step charged mu = eps/2),
  and :class:`NaturalCurveFilter` with :func:`natural_curve_adversary`: the natural privacy-curve
  filter (compose the exact curves of the steps admitted so far, stop when the composition would
  cross the target), which this module refutes with a certified three-step counterexample.
"""
from __future__ import annotations

from fractions import Fraction

import numpy as np

from ..accountants.feldman2021 import CalibratedRenyiFilter, CalibratedZCDPFilter
from ..accountants.smith2022 import GaussianDPFilter
from ..bounds.calibrated import calibrated_renyi_admits
from ..bounds.classical import hetero_optimal_delta
from ..catalog import cites
from ..precision import Domain, check, mpf_to_fraction
from .engine import FunctionAdversary, Target

__all__ = ["CalibratedRenyiTarget", "CalibratedZCDPTarget", "GDPFilterTarget", "UncalibratedRenyiTarget",
           "NaiveGDPTarget", "NaturalCurveFilter", "natural_curve_adversary", "NATURAL_CURVE_EXAMPLE"]


class _CountsFilter(Target):
    kind, stat, supports_delta = "filter", "counts", False

    def bind(self, menu):
        """``_by_eps``: the argument of the shipped object's ``can_run`` for each menu step (its eps)."""
        self._by_eps = {e: e for e, _ in menu}

    def admits(self, state, e, d):
        o = self.obj
        o._counts = dict(state.eps_counts())
        return self._can(o, e)

    def _can(self, o, e):
        return o.can_run(e)


@cites("feldman2021", "Theorem 4.3 (calibrated by CKS20 Prop. 12)")
class CalibratedRenyiTarget(_CountsFilter):
    """feldman2021 Theorem 4.3 + canonne2020 Prop. 12: the shipped CalibratedRenyiFilter(eps, delta, alpha); claim (eps, delta)-DP."""

    def __init__(self, eps=1, delta=Fraction(1, 10), alpha=None, eps0=Fraction(1, 10), name="F21_calibrated_renyi_filter"):
        self.obj = (CalibratedRenyiFilter.for_workload(eps0, eps, delta) if alpha is None
                    else CalibratedRenyiFilter(eps, delta, alpha))
        self.eps, self.delta = self.obj.eps, self.obj.delta
        self.name = name
        self.description = f"CalibratedRenyiFilter(eps={self.eps}, delta={self.delta}, alpha={self.obj.alpha})"


@cites("feldman2021", "Remark 4.4 (calibrated by CKS20 Prop. 12)")
class CalibratedZCDPTarget(_CountsFilter):
    """feldman2021 Remark 4.4 + canonne2020 Prop. 12: the shipped CalibratedZCDPFilter(eps, delta); claim (eps, delta)-DP."""

    def __init__(self, eps=1, delta=Fraction(1, 10), name="F21_calibrated_zcdp_filter"):
        self.obj = CalibratedZCDPFilter(eps, delta)
        self.eps, self.delta = self.obj.eps, self.obj.delta
        self.name = name
        self.description = f"CalibratedZCDPFilter(eps={self.eps}, delta={self.delta}), rho*={float(self.obj.budget):.6g}"


@cites("smith2022", "main theorem (the GDP filter)")
class GDPFilterTarget(Target):
    """smith2022: the shipped GaussianDPFilter(eps, delta) on eps-DP steps (charged mu(eps) rounded up); claim (eps, delta)-DP."""

    kind, stat, supports_delta = "filter", "counts", False

    def __init__(self, eps=1, delta=Fraction(1, 10), name="S22_gdp_filter"):
        self.obj = GaussianDPFilter(eps, delta)
        self.eps, self.delta = self.obj.eps, self.obj.delta
        self.name = name
        self.description = f"GaussianDPFilter(eps={self.eps}, delta={self.delta}) on eps-DP steps"

    def bind(self, menu):
        """``_by_eps``: the charge mu(eps) (rounded up) of each menu step, the argument of ``can_run``/``can_run_gdp``."""
        self._by_eps = {e: self.obj._dp(e) for e, _ in menu}

    def admits(self, state, e, d):
        o = self.obj
        o._S = sum((c * o._dp(x) ** 2 for x, c in state.eps_counts().items()), Fraction(0))
        return o.can_run_dp(e)


@cites("feldman2021", "Theorem 4.3 (negative control: conversion dropped)")
class UncalibratedRenyiTarget(Target):
    """Negative control: the Renyi filter at order alpha with budget B = eps (the RDP bound read as the DP epsilon), claimed (eps, delta)-DP."""

    kind, stat, supports_delta = "filter", "counts", False

    def __init__(self, eps=1, delta=Fraction(1, 1000), alpha=8, name="NEG_uncalibrated_renyi_filter"):
        self.eps = check("eps", eps, Domain.positive())
        self.delta = check("delta", delta, Domain.open_unit())
        self.alpha = check("alpha", alpha, Domain.interval(1, None))
        self.name = name
        self.description = f"sum D_alpha(RR) <= eps (alpha={self.alpha}) claimed (eps={self.eps}, {self.delta})-DP"

    def admits(self, state, e, d):
        c = dict(state.eps_counts())
        c[e] = c.get(e, 0) + 1
        return calibrated_renyi_admits(self.alpha, self.eps, tuple(sorted(c.items())))


@cites("smith2022", "main theorem (negative control: eps-DP step charged mu = eps/2)")
class NaiveGDPTarget(Target):
    """Negative control: the GDP filter with each eps-DP step charged mu = eps/2 (below the true mu(eps) ~ 1.25 eps)."""

    kind, stat, supports_delta = "filter", "counts", False

    def __init__(self, eps=1, delta=Fraction(1, 1000), name="NEG_naive_gdp_filter"):
        self.obj = GaussianDPFilter(eps, delta)
        self.eps, self.delta = self.obj.eps, self.obj.delta
        self.name = name
        self.description = f"GaussianDPFilter with mu(eps) replaced by eps/2, claimed (eps={self.eps}, {self.delta})-DP"

    def admits(self, state, e, d):
        o = self.obj
        o._S = sum((c * (x / 2) ** 2 for x, c in state.eps_counts().items()), Fraction(0))
        return o.can_run_gdp(e / 2)


@cites("dong2022", "Corollary 3.3 (the natural privacy-curve filter: refuted)")
class NaturalCurveFilter(Target):
    """The natural privacy-curve filter: admit step t iff the exact composed curve of eps_1..eps_t (RR steps, as if fixed in advance) meets the target.

    Rule: admit iff ``delta_{eps_1..eps_t}(eps) <= delta``, the optimal (Murtagh-Vadhan) composition of
    the realized steps at the target eps (equivalently: the composed trade-off curve stays above
    f_{eps, delta}), decided with a certified upper bound at 30 digits (so it admits no more than the
    exact rule).  It is NOT a valid fully adaptive filter: :data:`NATURAL_CURVE_EXAMPLE`.
    """

    kind, stat, supports_delta = "filter", "counts", False

    def __init__(self, eps=1, delta=Fraction(3, 40), name="NEG_natural_curve_filter"):
        self.eps = check("eps", eps, Domain.positive())
        self.delta = check("delta", delta, Domain.open_unit())
        self.name = name
        self.description = f"natural curve filter: composed RR curve at eps={self.eps} <= delta={self.delta}"

    def admits(self, state, e, d):
        seq = [x for x, c in state.eps_counts().items() for _ in range(c)] + [e]
        up = mpf_to_fraction(hetero_optimal_delta(seq, [0] * len(seq), self.eps, dps=30))
        return up <= self.delta


#: The certified counterexample to the natural privacy-curve filter (target eps = 1, delta = 3/40):
#: step 1 is 1/10-RR; after a "+" output the analyst runs 11/10-RR and stops; after a "-" output
#: 4/5-RR, then 2/5-RR (after "-+") or 3/10-RR (after "--").  Every realized sequence composes
#: (non-adaptively, exact curve) to delta(1) <= 0.07488 < 3/40, so the natural filter admits every
#: step, but the adaptive transcript's hockey-stick divergence at eps = 1 is 0.09007 > 3/40
#: (certified by the exact verifier; ``proofs/test_smith2022_natural_curve_filter.py``).
NATURAL_CURVE_EXAMPLE = {
    "eps": Fraction(1), "delta": Fraction(3, 40),
    "first": Fraction(1, 10),
    "after": {"+": Fraction(11, 10), "-": Fraction(4, 5), "-+": Fraction(2, 5), "--": Fraction(3, 10)},
}


def natural_curve_adversary(example: dict = NATURAL_CURVE_EXAMPLE) -> FunctionAdversary:
    """The adaptive analyst of :data:`NATURAL_CURVE_EXAMPLE` as an engine adversary (menu of its five eps values).

    It reads the branch from the realized loss and the multiset of past steps (counts are tracked).
    """
    first, after = example["first"], example["after"]
    menu = [first, after["+"], after["-"], after["-+"], after["--"]]
    idx = {e: i for i, e in enumerate(menu)}

    def fn(view, k):
        st = view.state
        out = np.full(k.shape, -1, dtype=np.int64)
        n = st.n
        if n == 0:
            out[:] = idx[first]
        elif n == 1:
            out[:] = np.where(k > 0, idx[after["+"]], idx[after["-"]])
        elif n == 2 and st.eps_counts().get(after["-"], 0) == 1:
            up = int((-first + after["-"]) / view.u)
            out[:] = np.where(k == up, idx[after["-+"]], idx[after["--"]])
        return out

    return FunctionAdversary(menu, fn, name="natural_curve_counterexample")
