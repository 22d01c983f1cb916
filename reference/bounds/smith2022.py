"""Smith and Thakurta, *Fully Adaptive Composition for Gaussian Differential Privacy* (paper key ``smith2022``).

Published statement (arXiv 2210.17520 v1; not a seed): Gaussian DP composes under a fully
adaptive analyst with the same parameters as non-adaptive composition: if each step t is
mu_t-GDP conditionally on the earlier outputs, with mu_t chosen adaptively, and the analyst is
stopped by the filter that admits step t iff ``sum_{j<=t} mu_j^2 <= mu^2``, the whole interaction
is mu-GDP (in the language of Rogers et al., a filter for GDP; main theorem of the paper).

Closed forms here:

* :func:`gdp_filter_admits` -- the filter's rule against a target (eps, delta): admit while
  delta_{sqrt(S)}(eps) <= delta with S = sum mu_j^2 (exact Fractions), i.e. sqrt(S) <= mu*(eps, delta),
  the budget of :func:`reference.bounds.dong2022.gdp_mu`; decided exactly (no rounding of mu*);
* :func:`dp_step_mu` -- the GDP parameter of an eps-DP step, derived here: the smallest mu with
  G_mu <= f_{eps,0} pointwise is ``mu(eps) = 2 Phi^{-1}(e^eps/(1 + e^eps))`` (proof in the docstring,
  symbolic check in :mod:`symbolic.smith2022`, proof-test ``proofs/test_smith2022_dp_to_gdp.py``);
* :func:`gdp_filter_rounds_gaussian`, :func:`gdp_filter_rounds_dp` -- rounds admitted on
  homogeneous workloads (Gaussian steps of one mu0; eps0-DP steps).
"""
from __future__ import annotations

import functools
import math
from fractions import Fraction

import mpmath
from mpmath import libmp

from ..catalog import Param, register
from ..precision import (
    DEFAULT_DPS,
    Domain,
    check,
    check_dps,
    last_true,
    mpf_to_fraction,
    sign_of,
)
from .dong2022 import _delta_formula, _tight_bracket, phi_iv

__all__ = ["gdp_filter_admits", "dp_step_mu", "dp_step_mu_q", "gdp_filter_rounds_gaussian", "gdp_filter_rounds_dp"]

KEY = "smith2022"
P = Domain.positive()
NN = Domain.nonnegative()
U = Domain.open_unit()
_C, _F = libmp.round_ceiling, libmp.round_floor
#: Digits at which an eps-DP step's mu is certified before being rounded UP to a rational charge.
STEP_MU_DPS = 40


def _bits(dps: int) -> int:
    return int(math.ceil(dps * math.log2(10))) + 4


def gdp_filter_admits(S: Fraction, eps: Fraction, delta: Fraction) -> bool:
    """smith2022 (main theorem) + dong2022 Corollary 2.13: exact decision of ``delta_{sqrt(S)}(eps) <= delta``.

    ``S`` is the exact sum of the squared GDP parameters including the candidate step.  Since
    delta_mu(eps) increases strictly in mu, this is ``sqrt(S) <= mu*(eps, delta)`` with no rounding
    of mu* or of sqrt(S) (the enclosure of the curve at sqrt(S) is refined until it excludes delta).
    """
    if S == 0:
        return True
    return sign_of(lambda c, s, e, d: _delta_formula(c, e, c.sqrt(s)) - d, (S, eps, delta)) <= 0


def _mu_formula_admits(x: Fraction, e: Fraction) -> bool:
    """Exact decision of Phi(-x) <= 1/(1 + e^eps), i.e. x >= Phi^{-1}(e^eps/(1 + e^eps))."""
    return sign_of(lambda c, xx, ee: phi_iv(c, -xx) - 1 / (1 + c.exp(ee)), (x, e)) <= 0


@register("smith2022_dp_step_mu", paper=KEY, result="eps-DP => mu-GDP (derived: the smallest mu with G_mu <= f_{eps,0})",
          direction="upper",
          summary="GDP parameter of an eps-DP step: mu(eps) = 2 Phi^{-1}(e^eps/(1+e^eps)) (tight)",
          params=(Param("eps", P, default="0.01", doc="the step's pure DP epsilon > 0"),),
          provenance="derived", validity="valid",
          note="Derived in the docstring from Dong-Roth-Su's trade-off curves (f_{eps,0} = max(0, 1 - e^eps a, "
               "e^-eps (1 - a)) is the curve of eps-DP; G_mu(a) = Phi(Phi^{-1}(1-a) - mu)); checked by proofs/"
               "test_smith2022_dp_to_gdp.py on a grid and against an independent 60-digit route.")
def dp_step_mu(eps, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """smith2022 charge of an eps-DP step (derived from dong2022 Section 2): the smallest mu with eps-DP => mu-GDP, 2 Phi^{-1}(e^eps/(1+e^eps)), rounded UP.

    Proof.  eps-DP is f_{eps,0}-DP with f_{eps,0}(a) = max(0, 1 - e^eps a, e^-eps (1 - a)), a
    piecewise-linear convex curve with its kink on the diagonal at a* = 1/(1 + e^eps), where
    f(a*) = a*.  A mechanism that is f_{eps,0}-DP is mu-GDP iff f_{eps,0} >= G_mu pointwise (the
    randomized response pair *is* f_{eps,0}, so the condition is also necessary).  G_mu is convex,
    symmetric, with G_mu(0) = 1 and G_mu(1) = 0; on [0, a*] it lies below its chord from (0, 1) to
    (a*, G_mu(a*)), and on [a*, 1] below its chord to (1, 0).  If G_mu(a*) <= a*, those chords lie
    below the two linear pieces of f (which join (0,1), (a*, a*), (1, 0)), so G_mu <= f everywhere;
    conversely G_mu(a*) <= f(a*) = a* is necessary.  G_mu(a*) = Phi(Phi^{-1}(1 - a*) - mu) <= a* =
    Phi(-Phi^{-1}(1 - a*)) iff mu >= 2 Phi^{-1}(1 - a*) = 2 Phi^{-1}(e^eps/(1 + e^eps)).  For small eps
    mu(eps) ~ sqrt(pi/2) eps (so mu^2 ~ (pi/2) eps^2, against the zCDP charge eps tanh(eps/2) ~ eps^2/2).

    Contract: every eps-DP mechanism is (returned value)-GDP, and no smaller value works for
    randomized response.  Preconditions: eps > 0.  Rounding: UP (the upper end of a bracket of
    Phi^{-1} decided exactly, doubled).

    >>> from reference.precision import directed_decimal
    >>> directed_decimal(dp_step_mu("1"), 10, "upper")
    '1.232035386'
    """
    e = check("eps", eps, P)
    dps = check_dps(dps)
    bits = _bits(dps)
    # float guess of x = Phi^{-1}(1 - 1/(1 + e^eps)) by bisection of the 80-bit curve
    ctx = mpmath.MPContext()
    ctx.prec = 80
    tail = 1 / (1 + ctx.exp(ctx.mpf(e.numerator) / e.denominator))
    lo, hi = 0.0, 1.0
    while ctx.ncdf(-hi) > tail:
        hi *= 2
    for _ in range(80):
        mid = (lo + hi) / 2
        if ctx.ncdf(-mid) > tail:
            lo = mid
        else:
            hi = mid
    guess = Fraction(hi) if hi > 0 else Fraction(1, 2 ** 60)
    _, good = _tight_bracket(lambda x: _mu_formula_admits(x, e), guess, True, bits + 1)
    raw = libmp.from_rational(2 * good.numerator, good.denominator, bits, _C)
    return mpmath.mp.make_mpf(raw)


@functools.lru_cache(maxsize=4096)
def _dp_step_mu_q(eps: Fraction) -> Fraction:
    return mpf_to_fraction(dp_step_mu(eps, dps=STEP_MU_DPS))


def dp_step_mu_q(eps) -> Fraction:
    """:func:`dp_step_mu` rounded UP to a rational at ``STEP_MU_DPS`` digits (the charge a filter stores for an eps-DP step; memoised)."""
    return _dp_step_mu_q(check("eps", eps, P))


_ST_NOTE = ("Smith and Thakurta, arXiv 2210.17520 v1: the GDP filter sum mu_t^2 <= mu^2 is valid for fully adaptive mu_t "
            "(published statement; the theorem's number was not re-checked). The budget mu* is the largest mu with "
            "delta_mu(eps) <= delta (dong2022 Corollary 2.13), decided exactly at sqrt(S).")


@register("smith2022_filter_rounds_gaussian", paper=KEY, result="main theorem (GDP filter), homogeneous Gaussian workload",
          direction="exact", returns="int",
          summary="rounds of mu0-GDP steps (sigma = sensitivity/mu0) the GDP filter admits at target (eps, delta): "
                  "largest k with delta_{sqrt(k) mu0}(eps) <= delta (= the optimal non-adaptive count)",
          params=(Param("mu0", P, default="1/20", doc="per-step GDP parameter mu0 = sensitivity/sigma > 0"),
                  Param("eps", P, default="1", doc="target epsilon > 0"),
                  Param("delta", U, default="1e-6", doc="target delta in (0, 1)")),
          provenance="derived", validity="valid", note=_ST_NOTE +
          " The optimal non-adaptive count of k Gaussian mechanisms is the same number (k-fold composition of "
          "mu0-GDP is exactly sqrt(k) mu0-GDP, Corollary 3.3, and the Gaussian mechanism attains its curve).")
def gdp_filter_rounds_gaussian(mu0, eps, delta) -> int:
    """smith2022 GDP filter on Gaussian steps: the largest k with delta_{sqrt(k) mu0}(eps) <= delta (exact decisions).

    This is also the optimal non-adaptive count for k Gaussian mechanisms of parameter mu0 (their
    composition is exactly sqrt(k) mu0-GDP and attains the curve), so the filter loses nothing.
    Preconditions: mu0 > 0, eps > 0, 0 < delta < 1.  Returns an int.

    >>> gdp_filter_rounds_gaussian("1/20", "1", "1e-6")
    22
    """
    m0 = check("mu0", mu0, P)
    e = check("eps", eps, P)
    d = check("delta", delta, U)
    from .dong2022 import gdp_mu

    est = int(float(gdp_mu(e, d, dps=15)) ** 2 / float(m0) ** 2)
    return last_true(lambda k: k == 0 or gdp_filter_admits(k * m0 * m0, e, d), est)


@register("smith2022_filter_rounds_dp", paper=KEY, result="main theorem (GDP filter), homogeneous eps0-DP workload",
          direction="exact", returns="int",
          summary="rounds of eps0-DP steps (each charged mu(eps0) = 2 Phi^{-1}(e^eps0/(1+e^eps0)), rounded up) the GDP filter admits",
          params=(Param("eps0", P, default="0.01", doc="per-step epsilon eps0 > 0"),
                  Param("eps", P, default="1", doc="target epsilon > 0"),
                  Param("delta", U, default="1e-6", doc="target delta in (0, 1)")),
          provenance="derived", validity="valid", note=_ST_NOTE + " Steps charged dp_step_mu_q(eps0) (rounded up).")
def gdp_filter_rounds_dp(eps0, eps, delta) -> int:
    """smith2022 GDP filter on eps0-DP steps: the largest k with delta_{sqrt(k) mu(eps0)}(eps) <= delta, mu(eps0) rounded up.

    Preconditions: eps0 > 0, eps > 0, 0 < delta < 1.  Returns an int.

    >>> gdp_filter_rounds_dp("0.01", "1", "1e-6")
    356
    """
    e0 = check("eps0", eps0, P)
    e = check("eps", eps, P)
    d = check("delta", delta, U)
    m0 = dp_step_mu_q(e0)
    from .dong2022 import gdp_mu

    est = int(float(gdp_mu(e, d, dps=15)) ** 2 / float(m0) ** 2)
    return last_true(lambda k: k == 0 or gdp_filter_admits(k * m0 * m0, e, d), est)
