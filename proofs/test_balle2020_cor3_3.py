"""balle2020 Corollary 3.3 (seed 004_8fba9d9eabe1335c.txt; formula stripped, re-derived along Remark 2: catalog ids
balle2020_cor3_3_eps / balle2020_cor3_3_delta).

Statement (our words; reconstruction).  Run Algorithm 1 with p0 = m/n, k = n/m times adaptively (n updates in
total) and compose with advanced composition (Dwork-Rothblum-Vadhan 2010): each run is (eps_r, delta_rep)-DP with
eps_r = Theorem 3.2 at p0 = m/n, and the whole is (eps, delta)-DP with

    eps = sqrt(2 k log(1/delta_comp)) eps_r + k eps_r (e^eps_r - 1),     delta = k delta_rep + delta_comp,

of order O~(e^(1.5 eps0)/sqrt(n)) for eps0 > 1 (Table 1's entry for random check-ins, reconstructed).

Ground truth: the exact law of k independent runs (checkins_exact.composed_masses) against (eps, delta); the
advanced-composition formula against a 110-digit naive evaluation; the asymptotic order as n grows.
"""
from __future__ import annotations

from fractions import Fraction as F

import mpmath
import pytest

from reference.bounds import balle2020 as B
from reference.verify import checkins_exact as X
from test_balle2020_thm3_2 import eps0_of, within


@pytest.mark.parametrize("n,m,E", [(4, 2, F(2)), (6, 3, F(2)), (6, 2, F(3, 2))])
def test_corollary_3_3_dominates_exact_repetitions(n, m, E):
    single = X.Pair(X.fixed_window_masses(n, m, F(m, n), E, 1, 0, 0), X.fixed_window_masses(n, m, F(m, n), E, 0, 0, 0))
    rep = X.composed_masses(single, n // m)
    for dr, dc in ((F(1, 100), F(1, 100)), (F(1, 10), F(1, 20))):
        assert within(rep, B.cor3_3_eps(eps0_of(E), n, m, dr, dc), B.cor3_3_delta(n, m, dr, dc))


def test_corollary_3_3_formula_vs_naive():
    e0, n, m, dr, dc = F(1, 2), 10**6, 10**3, F(1, 10**9), F(1, 10**7)
    er = B.thm3_2_eps(e0, m, F(m, n), dr)
    k = n // m
    naive = mpmath.sqrt(2 * k * mpmath.log(10**7)) * er + k * er * (mpmath.exp(er) - 1)
    v = B.cor3_3_eps(e0, n, m, dr, dc)
    assert naive * (1 - mpmath.mpf(10) ** -30) <= v <= naive * (1 + mpmath.mpf(10) ** -30)
    exact = k * dr + dc
    assert B.cor3_3_delta(n, m, dr, dc) >= mpmath.mpf(exact.numerator) / exact.denominator


def test_corollary_3_3_order_one_over_sqrt_n():
    """eps sqrt(n) stays bounded as n grows (m fixed fraction not needed: m fixed), i.e. O~(1/sqrt(n))."""
    e0, m, dr, dc = F(2), 100, F(1, 10**9), F(1, 10**9)
    vals = [B.cor3_3_eps(e0, n, m, dr, dc) * mpmath.sqrt(n) for n in (10**5, 10**7, 10**9)]
    assert vals[2] <= vals[1] * F(101, 100) and vals[1] <= vals[0] * F(11, 10)


def test_bad_inputs_name_the_parameter():
    with pytest.raises(ValueError, match="m"):
        B.cor3_3_eps(1, 10, 3, "1e-6", "1e-6")  # m must divide n
