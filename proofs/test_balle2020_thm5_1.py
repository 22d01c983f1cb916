"""balle2020 Theorem 5.1 (amplification via shuffling) (seed 004_8fba9d9eabe1335c.txt; arXiv 2007.06605; formula
stripped, re-derived: catalog id balle2020_thm5_1_eps, "re-derived from the described proof").

Statement (our words; constants are our reconstruction).  Shuffling n adaptive eps0-DP local randomizers is
(eps, delta)-DP with

    eps = (e^eps0 - 1) sqrt(2 e^(3 eps0) log(1/delta) / n) + e^(3 eps0) (e^eps0 - 1)^2 / (2n);

(eps0, delta0) clause: eps' = the bound at 8 eps0, delta' = delta + n (e^eps' + 1) delta1.  Text claims
(Figure 2 / introduction): the bound is vacuous (no amplification) once it crosses eps = eps0; for typical values
it needs about an order of magnitude fewer users than [19, Theorem 7] for the same eps.

Ground truth: exact privacy curve of the shuffled randomized-response histogram (checkins_exact.shuffle_masses,
cross-checked by brute force); negative control: half the bound is caught.
"""
from __future__ import annotations

from fractions import Fraction as F

import mpmath
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from reference.bounds import balle2020 as B
from reference.verify import checkins_exact as X
from test_balle2020_thm3_2 import eps0_of, violated, within


@given(st.integers(1, 8), st.sampled_from([F(11, 10), F(3, 2), F(3), F(20)]), st.sampled_from([F(1, 2), F(1, 100), F(1, 10**6)]))
@example(2, F(3), F(1, 2))
@settings(deadline=None, max_examples=15)
def test_theorem_5_1_dominates_exact_shuffled_rr_small(n, E, delta):
    """delta_exact(eps_bound) <= delta for every number k of ones among the other n - 1 clients; brute force route."""
    eb = B.thm5_1_eps(eps0_of(E), n, delta)
    er = B.thm5_1_eps_refined(eps0_of(E), n, delta)
    assert er <= eb
    for k in range(n):
        pair = X.shuffle_masses(n, E, k)
        assert within(pair, er, delta)
    bits = [1] + [0] * (n - 1)
    assert X.shuffle_masses_bruteforce(n, E, bits) == [x / X.shuffle_masses(n, E, 0).den for x in X.shuffle_masses(n, E, 0).P]


@pytest.mark.parametrize("n,E,delta", [(1000, F(11, 10), F(1, 10**6)), (2000, F(3, 2), F(1, 10**30)), (500, F(2), F(1, 10**3))])
def test_theorem_5_1_dominates_exact_shuffled_rr_large(n, E, delta):
    for k in (0, n - 1):
        assert within(X.shuffle_masses(n, E, k), B.thm5_1_eps(eps0_of(E), n, delta), delta)


def test_theorem_5_1_approximate_clause_shape():
    """(eps0, delta0) clause: eps' = thm5_1_eps(8 eps0) and delta' = delta + n (e^eps' + 1) delta1 (110 digits)."""
    e0, n, d, d1 = F(1, 20), 10**6, F(1, 10**6), F(1, 10**12)
    ep = B.thm5_1_approx_eps(e0, n, d)
    assert ep == B.thm5_1_eps(8 * e0, n, d)
    dp = B.thm5_1_approx_delta(e0, 0, n, d, d1)
    naive = mpmath.mpf(d.numerator) / d.denominator + n * (mpmath.exp(ep) + 1) * mpmath.mpf(d1.numerator) / d1.denominator
    assert naive <= dp <= naive * (1 + mpmath.mpf(10) ** -40)


def test_figure_2_order_of_magnitude_fewer_users():
    """Introduction / Figure 2 (reconstructed claim): for eps0 <= 1/4 our bound at n users is below [19, Thm 7]'s
    (as recalled) at 10 n users, i.e. an order of magnitude fewer users suffice for the same eps."""
    for e0 in (F(1, 20), F(1, 10), F(1, 4)):  # at eps0 = 0.49 the factor is 9.9, just under 10
        for n in (10**3, 10**4, 10**5, 10**6):
            assert B.thm5_1_eps(e0, n, F(1, 10**6)) < B.erlingsson2019_thm7_eps(e0, 10 * n, F(1, 10**6))


def test_figure_2_no_amplification_line():
    """The bound amplifies (eps < eps0) exactly from thm5_1_min_n on (exact threshold, monotone in n)."""
    for e0, d in ((F(1, 2), F(1, 10**6)), (F(2), F(1, 10**6))):
        n0 = B.thm5_1_min_n(e0, d)
        assert B.amplifies(B.thm5_1_eps(e0, n0, d), e0) and not B.amplifies(B.thm5_1_eps(e0, n0 - 1, d), e0)


def test_negative_control_half_the_bound_is_caught():
    E, n, delta = F(11, 10), 1000, F(1, 10**30)
    pair = X.shuffle_masses(n, E, 0)
    eb = B.thm5_1_eps(eps0_of(E), n, delta)
    assert within(pair, eb, delta) and violated(pair, eb / 2, delta)


def test_bad_inputs_name_the_parameter():
    with pytest.raises(ValueError, match="n"):
        B.thm5_1_eps(1, 0, "1e-6")
    with pytest.raises(ValueError, match="eps0"):
        B.thm5_1_eps(0, 10, "1e-6")
