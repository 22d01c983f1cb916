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
  ``rogers_filter_as_printed``: eq. (12) as printed (errata R16-EQ12-LOG).

Every count is an exact decision (see each function), so orderings such as
``filter <= optimal`` are tested as orderings.
"""
from __future__ import annotations

from fractions import Fraction

from .precision import Domain, check, mpf_to_fraction

__all__ = ["optimal_rounds_homogeneous", "rounds_comparison", "ROUND_RULES"]

#: Keys of :func:`rounds_comparison`, in display order, with a label and a citation.
ROUND_RULES = (
    ("basic", "basic composition", "rogers2016 Theorem 2.9"),
    ("advanced", "advanced composition (k fixed)", "whitehouse2022 eq. (2)"),
    ("optimal", "optimal composition (k fixed)", "kairouz2015 Theorem 3.3"),
    ("whitehouse_filter", "Whitehouse et al. filter", "whitehouse2022 Theorem 1"),
    ("feldman_zrnic_filter", "Feldman-Zrnic DP filter", "feldman2021 Remark 4.4 + Fact 2.4"),
    ("rogers_filter", "Rogers et al. filter (corrected)", "rogers2016 Theorem 5.1"),
    ("rogers_filter_as_printed", "Rogers et al. filter (as printed)", "rogers2016 eq. (12) as printed"),
)

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
    exact decisions (:func:`_kov_at_most`).  ``floor(eps/eps0)`` rounds always qualify (their
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
    from .report import advcomp_rounds_homogeneous, basic_rounds_homogeneous
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
    if d * 3 <= 1:  # delta <= 1/3 < 1/e: Theorem 4.3's condition holds for delta_g/2 as well
        out["rogers_filter"] = advanced_filter_rounds_homogeneous(e0, 0, e, d)
        out["rogers_filter_as_printed"] = advanced_filter_rounds_homogeneous(e0, 0, e, d, printed=True)
    else:
        out["rogers_filter"] = out["rogers_filter_as_printed"] = None
    return out
