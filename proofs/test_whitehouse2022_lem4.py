"""Lemma 4 of whitehouse2022 (seed 000_8d85c89f0d15dfff.txt; arXiv version, Section 5): the odometer of Rogers et al.
(2016), Theorem 6.5, as quoted.

As printed (our transcription): for 0 < delta' <= 1/e, with V = sum eps_m^2 and |x| the dataset size,
u^R_n = sqrt(2V(log(110e) + 2 log(log|x|/delta')) + V/2) for V in [1/|x|^2, 1] and
sqrt(2(1/|x|^2 + V)(1 + (1/2) log(1 + |x|^2 V) loglog((4/delta') log2|x|) + V/2)) otherwise; infinite past N.
The quote differs from Rogers et al.'s own statement and is FALSE as an odometer (ledger W22-LEM4-QUOTE; the
source is checked in the rogers2016 modules).  Checked here: the library reproduces the printing, its domain (delta' <= 1/e, decided
exactly), and the Section 5 remarks: explicit dependence on |x| and a jump at the edges of [1/|x|^2, 1].
"""
from __future__ import annotations

from fractions import Fraction as F

import mpmath
import pytest
from hypothesis import example, given, strategies as st

from reference.bounds import whitehouse2023 as W
from test_whitehouse2022_definitions import q2m


def printed(V: F, dp: F, n: int) -> mpmath.mpf:
    v, d = q2m(V), q2m(dp)
    if F(1, n * n) <= V <= 1:
        return mpmath.sqrt(2 * v * (mpmath.log(110 * mpmath.e) + 2 * mpmath.log(mpmath.log(n) / d)) + v / 2)
    return mpmath.sqrt(2 * (mpmath.mpf(1) / n**2 + v) * (1 + mpmath.log(1 + n * n * v) / 2 * mpmath.log(mpmath.log(4 / d * mpmath.log(n, 2))) + v / 2))


@given(st.fractions(min_value=0, max_value=10**6), st.sampled_from([F(1, 3), F(1, 10**6), F(1, 10**300)]),
       st.integers(min_value=2, max_value=10**9))
@example(F(1), F(1, 10**6), 10**4)
@example(F(1, 10**8), F(1, 10**6), 10**4)
def test_library_reproduces_the_printed_quote(V, dp, n):
    """whitehouse2022_lem4_as_printed = the printed piecewise formula (110-digit second route), to nearest: it is not a bound."""
    got, ref = W.rogers_odometer_quoted_2022_as_printed(V, dp, n), printed(V, dp, n)
    assert abs(got - ref) <= ref * mpmath.mpf(10) ** -45


def test_false_as_an_odometer():
    """Errata W22-LEM4-QUOTE: 24 exact 1/4-RR steps, |x| = 2, delta' = 1e-6: P(L_24 > u_24) alone is > 1e-3 (60-digit
    binomial route); the catalog labels the entry false as printed and the falsifier finds it by search."""
    from reference.catalog import get
    from reference.falsify import falsify
    with mpmath.workdps(60):
        e = mpmath.mpf(1) / 4
        p = mpmath.exp(e) / (1 + mpmath.exp(e))
        u = W.rogers_odometer_quoted_2022_as_printed(F(24, 16), F(1, 10**6), 2, dps=40)
        tail = mpmath.fsum(mpmath.binomial(24, k) * p ** k * (1 - p) ** (24 - k) for k in range(25) if (2 * k - 24) * e > u)
    assert tail > mpmath.mpf(10) ** -3
    entry = get("whitehouse2022_lem4_as_printed")
    assert entry.validity == "false as printed" and entry.direction == "exact"
    r = falsify("W22-LEM4-QUOTE")[0]
    assert r.found and F(r.counterexample["probability_lower"]) > F(1, 10**6)


def test_domain_delta_prime_at_most_one_over_e():
    """0 < delta' <= 1/e, decided exactly: 0.3678794411714423 < 1/e is accepted, 0.3678794411714424 > 1/e refused."""
    assert mpmath.isfinite(W.rogers_odometer_quoted_2022_as_printed("0.5", "0.3678794411714423", 100))
    with pytest.raises(ValueError, match="delta_prime"):
        W.rogers_odometer_quoted_2022_as_printed("0.5", "0.3678794411714424", 100)
    with pytest.raises(ValueError, match="n_records"):
        W.rogers_odometer_quoted_2022_as_printed("0.5", "0.1", 1)


def test_section5_remarks_dataset_size_dependence_and_edge_jump():
    """It grows with |x| at fixed V, and it jumps at V = 1 (the two pieces disagree there)."""
    vals = [W.rogers_odometer_quoted_2022_as_printed(F(1, 2), F(1, 10**6), n) for n in (10**2, 10**4, 10**8)]
    assert vals[0] < vals[1] < vals[2]
    left = W.rogers_odometer_quoted_2022_as_printed(1, F(1, 10**6), 10**4)
    right = W.rogers_odometer_quoted_2022_as_printed(F(1) + F(1, 10**30), F(1, 10**6), 10**4)
    assert abs(left - right) > mpmath.mpf("0.1")


def test_printed_quote_differs_from_the_2023_printing():
    """The two versions of the paper print different formulas (ledger W22-LEM4-QUOTE)."""
    assert W.rogers_odometer_quoted_2022_as_printed(F(1, 2), F(1, 10**6), 10**4) != W.rogers_odometer_quoted_2023_as_printed(F(1, 2), F(1, 10**6), 10**4)
