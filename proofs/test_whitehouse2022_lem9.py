"""Lemma 9 of whitehouse2022 (seed 000_8d85c89f0d15dfff.txt; arXiv version, Appendix E).

Statement (our words): Theorem 6 (mixed DP / zCDP filter with the stopping rule of Theorem 1) holds when the DP
condition is replaced by P(L_n > eps_n | F_{n-1}) <= delta_n.  Proof: with delta_n = 0 both kinds of step satisfy
E(e^{lambda L_n} | F_{n-1}) <= e^{lambda(lambda+1) eps_n^2/2} (Lemma 6 / Bun-Steinke Prop. 3.3 for the pDP steps),
so with M_n = sum_{m<=n} (L_m - eps_m^2/2), X_n = exp((b/a) M_n - b^2 V_n/(2a^2)) is a nonnegative supermartingale
and P(exists n: M_n > b/2 + b V_n/(2a)) <= exp(-b^2/(2a)); then as in Lemma 2.

Second routes: the one-step supermartingale factor for randomized response (closed form) and for the Gaussian
mechanism (mpmath.quad); exact enumeration of M_n's crossing on an adaptive composition mixing both step types.
"""
from __future__ import annotations

from fractions import Fraction as F

import mpmath
import pytest
from hypothesis import example, given, strategies as st

from reference.bounds import whitehouse2023 as W
from test_whitehouse2022_definitions import q2m, rr_enumerate


@given(st.fractions(min_value=F(1, 1000), max_value=30), st.fractions(min_value=0, max_value=100))
@example(F(30), F(100))
@example(F(1, 1000), F(0))
def test_supermartingale_factor_for_dp_steps(e, lam):
    """eps-RR: E exp(lambda (L - eps^2/2) - lambda^2 eps^2/2) <= 1 for lambda = b/a >= 0."""
    ee, ll = q2m(e), q2m(lam)
    p = 1 / (1 + mpmath.exp(-ee))
    m = p * mpmath.exp(ll * ee) + (1 - p) * mpmath.exp(-ll * ee)
    assert mpmath.log(m) - ll * ee**2 / 2 - ll**2 * ee**2 / 2 <= mpmath.mpf(10) ** -100


@given(st.fractions(min_value=F(1, 100), max_value=3), st.fractions(min_value=0, max_value=10))
def test_supermartingale_factor_for_zcdp_steps_gaussian(e, lam):
    """Gaussian mechanism (L ~ N(eps^2/2, eps^2), exactly (eps^2/2)-zCDP): the factor is 1 (a martingale), by mpmath.quad."""
    with mpmath.workdps(40):
        ee, ll = q2m(e), q2m(lam)
        f = lambda x: mpmath.npdf(x, ee**2 / 2, ee) * mpmath.exp(ll * (x - ee**2 / 2) - ll**2 * ee**2 / 2)
        c = ee**2 / 2 + ll * ee**2
        val = mpmath.quad(f, [c - 40 * ee, c, c + 40 * ee])
        assert abs(val - 1) < mpmath.mpf(10) ** -25


MIXED = {
    # ('dp', eps) steps are eps-RR; ('zcdp', eps) steps are realised by eps-RR as well (an (eps^2/2)-zCDP mechanism)
    "alternate": lambda loss, V, S, n: F(1, 4) if n % 2 else F(1, 10),
    "chase": lambda loss, V, S, n: F(3, 10) if loss > 0 else F(1, 10),
}


@pytest.mark.parametrize("name", sorted(MIXED))
@pytest.mark.parametrize("a, b", [(F(1, 2), F(1)), (F(1, 4), F(1, 2))])
def test_crossing_of_the_uncentred_process(name, a, b):
    """P(exists n <= 40: M_n > b/2 + b V_n/(2a)), M_n = L_{1:n} - V_n/2, <= exp(-b^2/(2a)) (exact enumeration)."""
    res = rr_enumerate(MIXED[name], 40, bound=lambda V, S, n, d: q2m(b / 2 + b * V / (2 * a) + V / 2))
    assert res["crossed"] <= mpmath.exp(-q2m(b * b / (2 * a)))


def test_filter_version_with_optimised_a_b():
    """With a = y*, b = sqrt(2 L y*) the crossing event contains {exists n <= N: L_{1:n} > eps}: its probability <= delta'."""
    eps, dp = F(1), F(1, 5)
    res = rr_enumerate(MIXED["chase"], 60, admit=lambda V, S, n: W.filter_admits(V, eps, dp),
                       bound=lambda V, S, n, d: q2m(eps))
    assert res["crossed"] <= q2m(dp)
