"""whitehouse2023 (seed 001_019b6f2aef040984.txt, ICML 2023) Lemma 3: Rogers et al. (2016) Theorem 6.5 as quoted.

Printed (our transcription), with V = V_n, |x| the dataset size, 0 < delta' <= 1/e:
    u^R_n = inf                                                             if n > N,
          = sqrt(2V (log(110 e) + 2 log(log|x| / delta'))) + V/2             if n <= N and V in [1/|x|^2, 1],
          = sqrt(2 (1/|x|^2 + V)(1 + log(1 + |x|^2 V)/2) loglog(4 log2(|x|)/delta')) + V/2   otherwise.
CHANGED from whitehouse2022 Lemma 4 (V/2 inside the roots there, loglog factor placed differently); both
printings differ from Rogers et al.'s own eqs. (17)-(18) (errata W22-LEM4-QUOTE).  The quote is used only as
a comparison curve, and it is FALSE as an odometer (errata W22-LEM4-QUOTE: its crossing probability on plain
randomized-response steps exceeds delta' by orders of magnitude; ``fullyadaptive falsify W23-LEM3-QUOTED``).
Checked: the library's whitehouse2023_lem3_as_printed is the printed formula (independent evaluation at 110 digits, both
branches, branch ends, extremes; rounded to nearest, it is not a bound), the input domain (delta' <= 1/e decided
exactly), and that the shipped Odometer no longer offers it.
"""
from __future__ import annotations

from fractions import Fraction as F

import mpmath
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from reference.bounds import whitehouse2023 as W
from reference.accountants.whitehouse2023 import Odometer


def printed(V, dp, n):
    V, dp = mpmath.mpf(V.numerator) / V.denominator, mpmath.mpf(dp.numerator) / dp.denominator
    if mpmath.mpf(1) / n ** 2 <= V <= 1:
        return mpmath.sqrt(2 * V * (mpmath.log(110 * mpmath.e) + 2 * mpmath.log(mpmath.log(n) / dp))) + V / 2
    return mpmath.sqrt(2 * (mpmath.mpf(1) / n ** 2 + V) * (1 + mpmath.log(1 + n ** 2 * V) / 2)
                       * mpmath.log(mpmath.log(4 * mpmath.log(n, 2) / dp))) + V / 2


@given(st.fractions(min_value=0, max_value=10**6, max_denominator=10**6),
       st.sampled_from([F(1, 10**300), F(1, 10**6), F(1, 10), F(36, 100)]),
       st.sampled_from([2, 3, 100, 10**4, 10**9]))
@example(F(1, 10**8), F(1, 10**6), 10**4)    # branch end 1/|x|^2
@example(F(1), F(1, 10**6), 10**4)           # branch end 1
@example(F(0), F(1, 10**300), 2)
def test_library_is_the_printed_formula(V, dp, n):
    """whitehouse2023_lem3_as_printed(V, delta', |x|) equals the printed two-branch formula (to nearest, <= 1e-45 relative)."""
    lib = W.rogers_odometer_quoted_2023_as_printed(V, dp, n)
    ref = printed(V, dp, n)
    assert abs(lib - ref) <= ref * mpmath.mpf(10) ** -45


def test_delta_prime_domain_is_one_over_e_exactly():
    """delta' <= 1/e is required: 0.367879441171442 (< 1/e) is accepted, 0.3678794411714424 (> 1/e) is refused, naming delta_prime."""
    W.rogers_odometer_quoted_2023_as_printed(F(1, 2), "0.367879441171442", 100)
    with pytest.raises(ValueError, match="delta_prime"):
        W.rogers_odometer_quoted_2023_as_printed(F(1, 2), "0.3678794411714424", 100)
    with pytest.raises(ValueError, match="n_records"):
        W.rogers_odometer_quoted_2023_as_printed(F(1, 2), "1e-6", 1)


def test_not_offered_by_the_odometer():
    """The shipped Odometer refuses the quoted family (false as printed, errata W22-LEM4-QUOTE); the catalog says so."""
    from reference.catalog import get
    with pytest.raises(ValueError, match="W22-LEM4-QUOTE"):
        Odometer("1e-6", "1e-9", n_records=10**4)
    e = get("whitehouse2023_lem3_as_printed")
    assert e.validity == "false as printed" and e.direction == "exact" and e.erratum == "W22-LEM4-QUOTE"


def test_quote_differs_from_whitehouse2022_printing():
    """The ICML and arXiv printings differ (V = 1/2, delta' = 1e-6, |x| = 10^4): the changed pair of the version map."""
    a = W.rogers_odometer_quoted_2022_as_printed(F(1, 2), F(1, 10**6), 10**4)
    b = W.rogers_odometer_quoted_2023_as_printed(F(1, 2), F(1, 10**6), 10**4)
    assert abs(a - b) > mpmath.mpf("0.2")
