"""Rounds admitted on a homogeneous workload: every filter of the seeds against the classical yardsticks.

For a workload of ``eps0``-DP steps (``delta0 = 0``) and a target ``(eps, delta)``,
:func:`rounds_comparison` gives the number of steps each rule admits:

* ``basic``: basic composition, ``floor(eps/eps0)`` (rogers2016 Theorem 2.9);
* ``optimal``: the exact optimal composition of Kairouz, Oh, Viswanath 2015
  (Theorem 3.3): the largest ``k`` whose k-fold composition is ``(eps, delta)``-DP.
  No valid rule, adaptive or not, can admit more rounds of eps0-randomized response;
* ``advanced``: advanced composition, whitehouse2022 eq. (2), with ``k`` fixed in advance;
* ``whitehouse_filter``: the privacy filter of whitehouse2022 Theorem 1 (delta' = delta);
* ``feldman_zrnic_filter``: the (eps, delta)-DP filter built from the Renyi filter
  (feldman2021, zCDP route);
* ``rogers_filter``: the advanced filter of rogers2016 Theorem 5.1 (eq. (12), corrected);
  ``rogers_filter_as_printed``: eq. (12) as printed (errata R16-EQ12-LOG);
* ``calibrated_renyi_filter``: the Renyi filter at an order fixed in advance for the anticipated
  eps0 (feldman2021 Theorem 4.3, RR charges, budget from canonne2020 Prop. 12;
  :mod:`reference.bounds.calibrated`);
* ``calibrated_zcdp_filter``: the zCDP filter (feldman2021 Remark 4.4) with the budget of
  canonne2020 Prop. 12 optimised over alpha and RR's exact zCDP charge eps0 tanh(eps0/2);
* ``gdp_filter``: the Gaussian-DP filter of smith2022 with eps0-DP steps charged
  mu(eps0) = 2 Phi^{-1}(e^eps0/(1+e^eps0)) (:mod:`reference.bounds.smith2022`).

:func:`percent_of_optimal` and :func:`best_filter` summarise a row against ``optimal``.

Every count is an exact decision (see each function), so orderings such as
``filter <= optimal`` are tested as orderings.
"""
from __future__ import annotations

import math
from fractions import Fraction

import mpmath

from ..precision import DEFAULT_DPS, Domain, certified, check, mpf_to_fraction, sign_of

__all__ = ["optimal_rounds_homogeneous", "rounds_comparison", "ROUND_RULES", "advcomp_eps_homogeneous",
           "advcomp_admits_homogeneous", "advcomp_rounds_homogeneous", "basic_rounds_homogeneous",
           "FILTER_KEYS", "percent_of_optimal", "best_filter"]

#: Keys of :func:`rounds_comparison`, in display order, with a label and a citation.
ROUND_RULES = (
    ("basic", "basic composition", "rogers2016 Theorem 2.9"),
    ("advanced", "advanced composition (k fixed)", "whitehouse2022 eq. (2)"),
    ("optimal", "optimal composition (k fixed)", "kairouz2015 Theorem 3.3"),
    ("whitehouse_filter", "Whitehouse et al. filter", "whitehouse2022 Theorem 1"),
    ("feldman_zrnic_filter", "Feldman-Zrnic DP filter", "feldman2021 Remark 4.4 + Fact 2.4"),
    ("rogers_filter", "Rogers et al. filter (corrected)", "rogers2016 Theorem 5.1"),
    ("rogers_filter_as_printed", "Rogers et al. filter (as printed)", "rogers2016 eq. (12) as printed"),
    ("calibrated_renyi_filter", "calibrated Renyi filter (alpha fixed in advance)",
     "feldman2021 Theorem 4.3 + canonne2020 Prop. 12"),
    ("calibrated_zcdp_filter", "calibrated zCDP filter", "feldman2021 Remark 4.4 + canonne2020 Prop. 12"),
    ("gdp_filter", "Gaussian-DP filter", "smith2022"),
    ("game_filter", "game-certified filter (grid eps0)", "whitehouse2022 Lemma 3 + kairouz2015 Thm 3.3 (exact game)"),
)

#: The keys of :data:`ROUND_RULES` that are valid fully adaptive filters (the as-printed Rogers rule is not).
FILTER_KEYS = ("whitehouse_filter", "feldman_zrnic_filter", "rogers_filter", "calibrated_renyi_filter",
               "calibrated_zcdp_filter", "gdp_filter", "game_filter")

_P = Domain.positive()
_U = Domain.open_unit()


def _kov_at_most(eps0: Fraction, k: int, eps: Fraction, delta: Fraction) -> bool:
    """kairouz2015 Theorem 3.3: is the optimal delta of k-fold eps0-RR at eps at most ``delta``?

    Decided with certified upper bounds at 30, 60, 120 and 240 digits: admitted as soon as an
    upper bound is <= delta.  If the bound still exceeds delta at 240 digits the answer is
    "no"; this can only be wrong when delta(k) agrees with delta to about 235 digits, and then
    it errs towards fewer rounds.
    """
    from .classical import kov_delta

    for dps in (30, 60, 120, 240):
        up = mpf_to_fraction(kov_delta(eps0, 0, k, eps, dps=dps))
        if up <= delta:
            return True
        if (up - delta) > delta * Fraction(1, 10 ** (dps - 5)):
            return False
    return False


def optimal_rounds_homogeneous(eps0, eps, delta) -> int:
    """kairouz2015 Theorem 3.3: the largest k such that k-fold eps0-randomized response is (eps, delta)-DP.

    The optimal delta(eps) grows with k, so the answer is found by doubling and bisection on
    exact decisions (``_kov_at_most``).  ``floor(eps/eps0)`` rounds always qualify (their
    delta is 0).  Preconditions: eps0 > 0, eps > 0, 0 < delta < 1.  Returns an int.
    """
    e0 = check("eps0", eps0, _P)
    e = check("eps", eps, _P)
    d = check("delta", delta, _U)
    lo = max(int(e // e0), 0)  # admitted (delta = 0 there), or 0
    if lo == 0 and not _kov_at_most(e0, 1, e, d):
        return 0
    lo = max(lo, 1)
    step = max(lo, 1)
    hi = lo + step
    while _kov_at_most(e0, hi, e, d):
        lo, step = hi, 2 * step
        hi = lo + step
    while hi - lo > 1:  # invariant: lo admitted, hi refused
        mid = (lo + hi) // 2
        if _kov_at_most(e0, mid, e, d):
            lo = mid
        else:
            hi = mid
    return lo


def rounds_comparison(eps0, eps, delta) -> dict:
    """Rounds of eps0-DP steps admitted under target (eps, delta) by each rule of :data:`ROUND_RULES`.

    Returns ``{key: int}``; the Rogers et al. filters need delta <= 1/e (else ``None``).
    Preconditions: eps0 > 0, eps > 0, 0 < delta < 1 (exact parsing).
    """
    from .feldman2021 import dp_filter_rounds_homogeneous
    from .rogers2016 import advanced_filter_rounds_homogeneous
    from .whitehouse2023 import filter_rounds_homogeneous

    e0 = check("eps0", eps0, _P)
    e = check("eps", eps, _P)
    d = check("delta", delta, _U)
    out = {
        "basic": basic_rounds_homogeneous(e0, e),
        "advanced": advcomp_rounds_homogeneous(e0, e, d),
        "optimal": optimal_rounds_homogeneous(e0, e, d),
        "whitehouse_filter": filter_rounds_homogeneous(e0, 0, e, d, 0),
        "feldman_zrnic_filter": dp_filter_rounds_homogeneous(e0, e, d),
    }
    from .calibrated import calibrated_renyi_rounds, calibrated_zcdp_rounds
    from .smith2022 import gdp_filter_rounds_dp

    out["calibrated_renyi_filter"] = calibrated_renyi_rounds(e0, e, d)
    out["calibrated_zcdp_filter"] = calibrated_zcdp_rounds(e0, e, d)
    out["gdp_filter"] = gdp_filter_rounds_dp(e0, e, d)
    from .game_filter import GameTooLarge, game_filter_rounds

    try:
        out["game_filter"] = game_filter_rounds(e0, e, d)
    except GameTooLarge:  # more than MAX_BUDGET units: the game sweep would take minutes
        out["game_filter"] = None
    if d * 3 <= 1:  # delta <= 1/3 < 1/e: Theorem 4.3's condition holds for delta_g/2 as well
        out["rogers_filter"] = advanced_filter_rounds_homogeneous(e0, 0, e, d)
        out["rogers_filter_as_printed"] = advanced_filter_rounds_homogeneous(e0, 0, e, d, printed=True)
    else:
        out["rogers_filter"] = out["rogers_filter_as_printed"] = None
    return out


def percent_of_optimal(rounds, optimal) -> Fraction | None:
    """100 * rounds / optimal as an exact ``Fraction`` (``None`` when either is missing or optimal is 0)."""
    if rounds is None or not optimal:
        return None
    return Fraction(100 * int(rounds), int(optimal))


def best_filter(comparison: dict) -> tuple[str, int] | None:
    """The valid fully adaptive filter of a :func:`rounds_comparison` row admitting the most rounds: ``(key, rounds)``.

    Ties go to the earlier key of :data:`FILTER_KEYS`.  This is a *report* of the row; which filter
    an analyst runs must be fixed before the interaction (see ``fullyadaptive plan``).
    """
    best = None
    for k in FILTER_KEYS:
        v = comparison.get(k)
        if v is not None and (best is None or v > best[1]):
            best = (k, v)
    return best


# --------------------------------------------------------------------------
# Round counts of the fixed-in-advance rules (advanced and basic composition)
# --------------------------------------------------------------------------

def _tanh_half(c, e):
    return 1 - 2 / (c.exp(e) + 1)


def _advcomp_homogeneous(c, dp, e0, k):
    """sqrt(2 log(1/delta') k eps0^2) + k eps0 tanh(eps0/2): eq. (2) with k equal steps."""
    return c.sqrt(2 * (-c.log(dp)) * k * e0 * e0) + k * e0 * _tanh_half(c, e0)


def advcomp_eps_homogeneous(eps0, k, delta_prime, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """Eq. (2) (whitehouse2022) for ``k`` steps of the same ``eps0``, rounded up.

    Equals ``advanced_composition_eps([eps0] * k, delta_prime)`` but costs O(1)
    in ``k``.  Preconditions: eps0 >= 0, integer k >= 1, delta' in (0, 1).
    """
    e0 = check("eps0", eps0, Domain.nonnegative())
    kk = check("k", k, Domain.integers_from(1))
    dp = check("delta_prime", delta_prime, Domain.open_unit())
    return certified(_advcomp_homogeneous, (dp, e0, kk), "upper", dps)


def advcomp_admits_homogeneous(eps0, k, eps, delta_prime) -> bool:
    """Exact test of ``advanced composition of k eps0-DP steps <= eps`` (no rounding error)."""
    e0 = check("eps0", eps0, Domain.nonnegative())
    kk = check("k", k, Domain.integers_from(0))
    et = check("eps", eps, Domain.positive())
    dp = check("delta_prime", delta_prime, Domain.open_unit())
    if kk == 0 or e0 == 0:
        return True
    s = sign_of(lambda c, et, dp, e0, kk: et - _advcomp_homogeneous(c, dp, e0, kk), (et, dp, e0, kk))
    return s >= 0


def advcomp_rounds_homogeneous(eps0, eps, delta_prime) -> int:
    """Largest k with ``advanced_composition_eps([eps0] * k, delta') <= eps`` (exponential + binary search)."""
    e0 = check("eps0", eps0, Domain.positive())
    et = check("eps", eps, Domain.positive())
    dp = check("delta_prime", delta_prime, Domain.open_unit())
    if not advcomp_admits_homogeneous(e0, 1, et, dp):
        return 0
    lo, hi = 1, 2
    while advcomp_admits_homogeneous(e0, hi, et, dp):  # the sum grows at least like k eps0 tanh(eps0/2)
        lo, hi = hi, 2 * hi
    while hi - lo > 1:  # invariant: lo admitted, hi refused
        mid = (lo + hi) // 2
        if advcomp_admits_homogeneous(e0, mid, et, dp):
            lo = mid
        else:
            hi = mid
    return lo


def basic_rounds_homogeneous(eps0, eps) -> int:
    """Basic composition: ``floor(eps / eps0)`` rounds (exact)."""
    e0 = check("eps0", eps0, Domain.positive())
    et = check("eps", eps, Domain.positive())
    return math.floor(et / e0)
