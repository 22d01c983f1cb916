"""Conversion-calibrated Renyi and zCDP filters: the budget is the largest one the best certified RDP -> DP conversion maps to the target.

A Renyi filter (feldman2021 Theorem 4.3) of order alpha with budget B makes any run
(alpha, B)-RDP; the improved conversion (canonne2020 Proposition 12 = balle2020hyp Theorem 21)
turns (alpha, tau)-RDP into (eps, delta)-DP with::

    eps = tau + log((alpha - 1)/alpha) - (log delta + log alpha)/(alpha - 1),

so the largest budget whose conversion meets a target (eps, delta) is (:func:`cks_rdp_budget`)::

    B(alpha) = eps - log((alpha - 1)/alpha) + (log delta + log alpha)/(alpha - 1).

Each eps_t-DP step is charged the Renyi divergence of eps_t-randomized response
(mironov2017 Table II, :func:`~reference.bounds.renyi.rr_rdp`): every eps_t-DP mechanism is a
post-processing of RR (whitehouse2022 Lemma 3 / Kairouz-Oh-Viswanath), and Renyi divergence
satisfies the data-processing inequality, so that charge is valid for every eps_t-DP step.

* **Order rule (fixed before the run).**  :func:`rr_calibrated_alpha` picks alpha from the grid
  ``{1 + j/64 : j = 1, 2, ...}`` maximising the number of rounds admitted for an *anticipated*
  homogeneous workload of eps0-DP steps (ties: the smallest alpha).  It depends only on
  (eps0, eps, delta), never on the run, so the filter is F_{alpha, B(alpha)} with alpha fixed in
  advance.  Choosing alpha *after* the run is not covered: the negative control
  ``test_calibrated_renyi_alpha_after_run`` (``proofs/test_feldman2021_calibrated.py``) plants
  that rule (admit if alpha or 2 alpha would) and shows what catches it -- the exact count at a
  non-optimal order (490 steps at 707/64 where the filter admits 0) -- and what does not: the
  exact verifier, since on randomized response the conversion's slack exceeds what an adaptive
  adversary gains from the union of orders.  The shipped
  :class:`reference.accountants.feldman2021.CalibratedRenyiFilter` therefore fixes its order and
  budget at construction.
* **zCDP variant** (feldman2021 Remark 4.4).  The zCDP filter's rule ``sum rho_t <= rho`` does
  not depend on alpha, so its output is (alpha, alpha rho)-RDP for every alpha at once and the
  conversion may be optimised over alpha: the budget is
  ``rho* = max_alpha (eps - log(1 - 1/alpha) + (log delta + log alpha)/(alpha - 1))/alpha``
  (:func:`zcdp_improved_budget`), and eps_t-DP steps are charged eps_t tanh(eps_t/2), the exact zCDP
  parameter of RR (bunsteinke2016, :func:`~reference.bounds.renyi.rr_zcdp_rho`).

Decisions are exact: the sum of irrational per-step charges is compared with the rational budget
(rounded DOWN once) by :func:`reference.precision.sign_of`.
"""
from __future__ import annotations

import functools
import math
from fractions import Fraction
from typing import Iterable, Sequence

import mpmath

from ..catalog import Param, register
from ..precision import (
    DEFAULT_DPS,
    Domain,
    certified,
    check,
    check_dps,
    enclosure,
    last_true,
    mpf_to_fraction,
    sign_of,
)
from ._classical_common import _mp
from .classical import _rr_curve

__all__ = [
    "ALPHA_GRID_DENOMINATOR", "cks_rdp_budget", "cks_rdp_budget_q", "rr_calibrated_alpha", "calibrated_renyi_admits",
    "calibrated_renyi_rounds", "calibrated_renyi_rounds_at", "zcdp_improved_budget", "zcdp_improved_budget_q", "rr_zcdp_admits",
    "calibrated_zcdp_rounds",
]

P = Domain.positive()
NN = Domain.nonnegative()
U = Domain.open_unit()
ALPHA = Domain.interval(1, None)
#: The order grid of the alpha rule: alpha in {1 + j/64 : j >= 1}.
ALPHA_GRID_DENOMINATOR = 64
#: Digits at which budgets are certified before being rounded down to a rational.
BUDGET_DPS = 40

_alpha = Param("alpha", ALPHA, default="32", doc="Renyi order alpha > 1, fixed before the run")
_eps = Param("eps", P, default="1", doc="target epsilon > 0")
_delta = Param("delta", U, default="1e-6", doc="target delta in (0, 1)")
_eps0 = Param("eps0", P, default="0.01", doc="per-step epsilon of the anticipated homogeneous workload")

_CKS_NOTE = ("Canonne, Kamath, Steinke 2020 (arXiv 2004.00010 v4), Proposition 12 = Balle et al. 2020 (arXiv 1905.09982), "
             "Theorem 21, solved for the Renyi budget tau: the conversion of (alpha, tau)-RDP is <= eps iff tau <= B(alpha).")


def _budget_formula(c, a, e, d):
    """B(alpha) = eps - log((alpha-1)/alpha) + (log delta + log alpha)/(alpha - 1)."""
    return e - c.log((a - 1) / a) + (c.log(d) + c.log(a)) / (a - 1)


@register("canonne2020_prop12_rdp_budget", paper="canonne2020", result="Proposition 12 (solved for the Renyi budget)",
          direction="lower",
          summary="largest tau with (alpha, tau)-RDP => (eps, delta)-DP: eps - log(1-1/alpha) + (log delta + log alpha)/(alpha-1)",
          params=(_alpha, _eps, _delta), provenance="derived", validity="valid", note=_CKS_NOTE +
          " May be negative (no budget at that order).")
def cks_rdp_budget(alpha, eps, delta, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """canonne2020 Proposition 12 (v4) solved for tau: the largest Renyi budget at order alpha whose conversion is (eps, delta)-DP.

    Contract: an (alpha, tau)-RDP mechanism with tau <= returned value is (eps, delta)-DP.
    Value: ``eps - log((alpha-1)/alpha) + (log delta + log alpha)/(alpha - 1)`` (may be negative).
    Preconditions: alpha > 1, eps > 0, 0 < delta < 1.  Rounding: DOWN, interval-certified.

    >>> from reference.precision import directed_decimal
    >>> directed_decimal(cks_rdp_budget("32", "1", "1e-6"), 8, "lower")
    '0.69788499'
    """
    a = check("alpha", alpha, ALPHA)
    e = check("eps", eps, P)
    d = check("delta", delta, U)
    return certified(_budget_formula, (a, e, d), "lower", dps)


def cks_rdp_budget_q(alpha: Fraction, eps: Fraction, delta: Fraction) -> Fraction:
    """:func:`cks_rdp_budget` rounded DOWN to a rational at ``BUDGET_DPS`` digits (the budget a filter stores)."""
    return mpf_to_fraction(cks_rdp_budget(alpha, eps, delta, dps=BUDGET_DPS))


def _rounds_at(alpha: Fraction, eps0: Fraction, B: Fraction) -> int:
    """Largest k with k D_alpha(RR_eps0) <= B (exact decisions)."""
    if B < 0:
        return 0
    est = float(B) / max(float(mpmath.mpf(_float_rr(float(alpha), float(eps0)))), 1e-300)
    return last_true(lambda k: k == 0 or calibrated_renyi_admits(alpha, B, ((eps0, k),)), int(est))


def _float_rr(a: float, e: float) -> float:
    ctx = _mp(80)  # this thread's context (building one per call cost ~3 ms, most of the order search)
    a, e = ctx.mpf(a), ctx.mpf(e)
    return float(e - ctx.log((1 + ctx.exp(-e)) / (1 + ctx.exp(-(2 * a - 1) * e))) / (a - 1))


def _float_log(q: Fraction) -> float:
    """log(q) of an exact positive rational as a float, taken from its numerator and denominator.

    ``float(q)`` underflows to 0 below about 1e-308 (``"1e-400"`` is a valid delta), and the log of 0
    would silently turn every candidate order into -inf; ``math.log`` of an int never underflows.
    """
    return math.log(q.numerator) - math.log(q.denominator)


def _float_budget(a: float, e: float, logd: float) -> float:
    """B(alpha) in floats, from log(delta) (never from delta itself, which may underflow a float)."""
    return e - math.log((a - 1) / a) + (logd + math.log(a)) / (a - 1)


def rr_calibrated_alpha(eps0, eps, delta) -> Fraction:
    """The order rule of the calibrated Renyi filter: the alpha in {1 + j/64} maximising the rounds of an anticipated eps0 workload.

    Contract: deterministic in (eps0, eps, delta) only (never in a run), so a filter built with it
    has its order fixed in advance.  Maximises ``floor(B(alpha)/D_alpha(RR_eps0))`` (exact counts,
    :func:`calibrated_renyi_rounds` at that alpha) over the grid points near the continuous
    optimum of B(alpha)/D_alpha(eps0) (a float golden-section search; only the choice, never the
    validity, depends on it); ties go to the smallest alpha.
    Preconditions: eps0 > 0, eps > 0, 0 < delta < 1.  Returns an exact ``Fraction``.
    """
    e0 = check("eps0", eps0, P)
    e = check("eps", eps, P)
    d = check("delta", delta, U)
    ef, logd, e0f = float(e), _float_log(d), float(e0)

    def ratio(u: float) -> float:
        a = 1 + math.exp(u)
        try:
            return _float_budget(a, ef, logd) / _float_rr(a, e0f)
        except (ValueError, ZeroDivisionError, OverflowError):
            return -math.inf

    us = [i / 8 for i in range(-40, 121)]
    vals = [ratio(u) for u in us]
    ib = max(range(len(us)), key=lambda i: vals[i])
    lo, hi = us[max(ib - 1, 0)], us[min(ib + 1, len(us) - 1)]
    g = (math.sqrt(5) - 1) / 2
    for _ in range(100):
        x1, x2 = hi - g * (hi - lo), lo + g * (hi - lo)
        if ratio(x1) >= ratio(x2):
            hi = x2
        else:
            lo = x1
    a_star = 1 + math.exp((lo + hi) / 2)
    D = ALPHA_GRID_DENOMINATOR
    j0 = max(1, round((a_star - 1) * D))
    best = None
    for j in range(max(1, j0 - 3), j0 + 4):
        a = 1 + Fraction(j, D)
        k = _rounds_at(a, e0, cks_rdp_budget_q(a, e, d))
        if best is None or k > best[0]:
            best = (k, a)
    return best[1]


def _sum_formula(runs: Sequence[tuple[Fraction, int]], curve):
    def f(c, a, B):
        s = c.mpf(0)
        for e, k in runs:
            s = s + k * curve(c, a, c.mpf(e.numerator) / e.denominator)
        return s - B
    return f


def calibrated_renyi_admits(alpha: Fraction, B: Fraction, runs: Iterable[tuple[Fraction, int]]) -> bool:
    """feldman2021 Theorem 4.3 with RR charges: exact decision of ``sum_t D_alpha(RR_{eps_t}) <= B``.

    ``runs`` are (eps_t, count) pairs (the run-length encoded steps, including the candidate).
    Exact: the sign is refined until certain (a tie, which would need a transcendental sum to
    equal a rational, raises ``ArithmeticError`` rather than guessing).
    """
    runs = tuple((Fraction(e), int(k)) for e, k in runs if k)
    if not runs:
        return B >= 0
    # fast path: cached 80-bit enclosures of each D_alpha(RR_eps) as rationals; the sum of the counted ends decides
    # whenever the budget lies outside [sum k lo, sum k hi] (exact rational arithmetic: the same decision as below)
    lo = hi = Fraction(0)
    for e, k in runs:
        a, b = _rr_curve_enclosure(Fraction(alpha), e)
        lo += k * a
        hi += k * b
    if hi <= B:
        return True
    if lo > B:
        return False
    return sign_of(_sum_formula(runs, _rr_curve), (alpha, B)) <= 0


@functools.lru_cache(maxsize=4096)
def _rr_curve_enclosure(alpha: Fraction, e: Fraction) -> tuple[Fraction, Fraction]:
    """A rigorous enclosure [lo, hi] of D_alpha(RR_e) about 24 digits tight (interval evaluation of ``_rr_curve``), as rationals."""
    enc = enclosure(lambda c, a, x: _rr_curve(c, a, x), (alpha, e), 24)
    return mpf_to_fraction(enc.lo), mpf_to_fraction(enc.hi)


@register("feldman2021_thm4_3_calibrated_rounds", paper="feldman2021",
          result="Theorem 4.3 with RR charges and the CKS20 Prop. 12 budget (homogeneous workload)",
          direction="exact", returns="int",
          summary="rounds of eps0-DP steps admitted by the calibrated Renyi filter (alpha by the rule, budget B(alpha) rounded down)",
          params=(_eps0, _eps, _delta), provenance="derived", validity="valid",
          note="Valid: Theorem 4.3 (the filter's output is (alpha, B)-RDP), RR is the worst eps-DP pair for every "
               "Renyi divergence (post-processing), and the CKS20 Prop. 12 conversion at the order fixed in advance. "
               "alpha = rr_calibrated_alpha(eps0, eps, delta).")
def calibrated_renyi_rounds(eps0, eps, delta) -> int:
    """feldman2021 Theorem 4.3 calibrated by canonne2020 Prop. 12: rounds of eps0-DP steps the calibrated Renyi filter admits.

    The order is :func:`rr_calibrated_alpha` (eps0, eps, delta) and the budget
    ``cks_rdp_budget_q(alpha, eps, delta)`` (rounded down); the count is the largest k with
    ``k D_alpha(RR_eps0) <= B`` (exact decisions).  Preconditions: eps0 > 0, eps > 0, 0 < delta < 1.

    >>> calibrated_renyi_rounds("0.01", "1", "1e-6")
    490
    """
    e0 = check("eps0", eps0, P)
    e = check("eps", eps, P)
    d = check("delta", delta, U)
    a = rr_calibrated_alpha(e0, e, d)
    return _rounds_at(a, e0, cks_rdp_budget_q(a, e, d))


def calibrated_renyi_rounds_at(alpha, eps0, eps, delta) -> int:
    """feldman2021 Theorem 4.3 calibrated by canonne2020 Prop. 12 at a GIVEN order: rounds of eps0-DP steps admitted.

    Contract: the largest k with ``k D_alpha(RR_eps0) <= cks_rdp_budget_q(alpha, eps, delta)``
    (exact decisions; 0 when the budget is negative).  Every alpha > 1 fixed before the run
    gives a valid (eps, delta)-DP filter; :func:`rr_calibrated_alpha` is the rule that picks
    the best one for an anticipated workload (this function shows what each other order
    would admit, e.g. for a figure).  Preconditions: alpha > 1, eps0 > 0, eps > 0, 0 < delta < 1.

    >>> calibrated_renyi_rounds_at("707/32", "0.01", "1", "1e-6")
    490
    """
    a = check("alpha", alpha, ALPHA)
    e0 = check("eps0", eps0, P)
    e = check("eps", eps, P)
    d = check("delta", delta, U)
    return _rounds_at(a, e0, cks_rdp_budget_q(a, e, d))


# ---------------------------------------------------------------------------
# zCDP variant (feldman2021 Remark 4.4 + the improved conversion optimised over alpha)
# ---------------------------------------------------------------------------

def _rho_formula(c, a, e, d):
    return _budget_formula(c, a, e, d) / a


def _best_rho_alpha(e: float, logd: float) -> Fraction:
    """The order maximising B(alpha)/alpha, found in floats from log(delta) (only tightness depends on it)."""
    def f(u):
        a = 1 + math.exp(u)
        try:
            return _float_budget(a, e, logd) / a
        except (ValueError, ZeroDivisionError, OverflowError):
            return -math.inf
    us = [i / 8 for i in range(-80, 161)]
    ib = max(range(len(us)), key=lambda i: f(us[i]))
    lo, hi = us[max(ib - 1, 0)], us[min(ib + 1, len(us) - 1)]
    g = (math.sqrt(5) - 1) / 2
    for _ in range(200):
        x1, x2 = hi - g * (hi - lo), lo + g * (hi - lo)
        if f(x1) >= f(x2):
            hi = x2
        else:
            lo = x1
    a = 1 + math.exp((lo + hi) / 2)
    return Fraction(a).limit_denominator(2 ** 40) if a > 1 else Fraction(2)


@register("canonne2020_prop12_zcdp_budget", paper="canonne2020",
          result="Proposition 12 with eps_alpha = alpha rho, solved for rho (alpha optimised)", direction="lower",
          summary="largest rho with rho-zCDP => (eps, delta)-DP by CKS20 Prop. 12: max_alpha B(alpha)/alpha",
          params=(_eps, _delta), provenance="derived", validity="valid",
          note=_CKS_NOTE + " Evaluated at an exact rational alpha found numerically; any alpha gives a valid (lower) "
               "budget, so only tightness depends on the optimiser. Used by the calibrated zCDP filter (feldman2021 "
               "Remark 4.4: the rule does not depend on alpha, so the conversion may use the best alpha).")
def zcdp_improved_budget(eps, delta, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """canonne2020 Prop. 12 solved for the zCDP budget: ``max_alpha (eps - log(1-1/alpha) + (log delta + log alpha)/(alpha-1))/alpha``, rounded DOWN.

    Contract: every rho-zCDP mechanism with rho <= returned value is (eps, delta)-DP (the
    conversion at the certified alpha).  Preconditions: eps > 0, 0 < delta < 1.  Rounding: down,
    interval-certified at the exact rational alpha chosen; clipped at 0.

    >>> from reference.precision import directed_decimal
    >>> directed_decimal(zcdp_improved_budget("1", "1e-6"), 8, "lower")
    '0.02435597'
    """
    e = check("eps", eps, P)
    d = check("delta", delta, U)
    dps = check_dps(dps)
    a = _best_rho_alpha(float(e), _float_log(d))
    v = certified(_rho_formula, (a, e, d), "lower", dps)
    return v if v > 0 else mpmath.mpf(0)


def zcdp_improved_budget_q(eps: Fraction, delta: Fraction) -> Fraction:
    """:func:`zcdp_improved_budget` rounded DOWN to a rational at ``BUDGET_DPS`` digits."""
    return mpf_to_fraction(zcdp_improved_budget(eps, delta, dps=BUDGET_DPS))


def _tanh_curve(c, a, e):
    """eps tanh(eps/2) = eps (1 - 2/(e^eps + 1)) (the order argument is unused)."""
    return e * (1 - 2 / (c.exp(e) + 1))


def rr_zcdp_admits(rho: Fraction, runs: Iterable[tuple[Fraction, int]]) -> bool:
    """feldman2021 Remark 4.4 with RR charges: exact decision of ``sum_t eps_t tanh(eps_t/2) <= rho``."""
    runs = tuple((Fraction(e), int(k)) for e, k in runs if k)
    if not runs:
        return rho >= 0
    return sign_of(_sum_formula(runs, _tanh_curve), (Fraction(2), rho)) <= 0


@register("feldman2021_rem4_4_calibrated_rounds", paper="feldman2021",
          result="Remark 4.4 with RR charges and the CKS20 Prop. 12 zCDP budget (homogeneous workload)",
          direction="exact", returns="int",
          summary="rounds of eps0-DP steps admitted by the calibrated zCDP filter: largest k with k eps0 tanh(eps0/2) <= rho*",
          params=(_eps0, _eps, _delta), provenance="derived", validity="valid",
          note="Valid: Remark 4.4 (output (alpha, alpha rho*)-RDP for every alpha), eps-DP => eps tanh(eps/2)-zCDP "
               "(bunsteinke2016_rr_zcdp_rho), CKS20 Prop. 12 at the certified alpha.")
def calibrated_zcdp_rounds(eps0, eps, delta) -> int:
    """feldman2021 Remark 4.4 calibrated by canonne2020 Prop. 12: rounds of eps0-DP steps the calibrated zCDP filter admits.

    Preconditions: eps0 > 0, eps > 0, 0 < delta < 1.  Exact decisions.

    >>> calibrated_zcdp_rounds("0.01", "1", "1e-6")
    487
    """
    e0 = check("eps0", eps0, P)
    e = check("eps", eps, P)
    d = check("delta", delta, U)
    rho = zcdp_improved_budget_q(e, d)
    est = float(rho) / (float(e0) * math.tanh(float(e0) / 2))
    return last_true(lambda k: k == 0 or rr_zcdp_admits(rho, ((e0, k),)), int(est))
