"""Theorem 5 of whitehouse2022 (seed 000_8d85c89f0d15dfff.txt; arXiv version, Appendix B; a simplified case of the
stitching bound, Howard et al. 2021 Theorem 1).

Statement (our words): with M_0 = 0 and +-dM_n sigma_n^2-subGaussian (sigma_n predictable), V_n = sum sigma_m^2,
v0 > 0 and delta in (0, 1):

    P(exists n: M_n >= 1.7 sqrt(V_n (log log(2 V_n/v0) + 0.72 log(5.2/delta))), V_n >= v0) <= delta.

The constants come from Howard et al.'s boundary k1 sqrt(v l(v)) with eta = 2, s = 1.4:
k1 sqrt(s) = 1.6985... <= 1.7, 1/s = 0.714... <= 0.72, zeta(1.4)/log(2)^1.4 = 5.1878... <= 5.2.
Checked: those three numbers (zeta by a direct sum with rigorous tail bounds, a route independent of mpmath.zeta),
that the printed boundary dominates Howard et al.'s wherever V >= v0, the 'infinite before v0' convention, the
monotonicity in v0 claimed in Section 5, and the crossing probability on the centred adaptive randomized-response
martingale (exact enumeration).
"""
from __future__ import annotations

from fractions import Fraction as F

import mpmath
import pytest
from hypothesis import example, given, strategies as st

from reference.bounds import whitehouse2023 as W
from test_whitehouse2022_definitions import q2m
from test_whitehouse2022_thm3 import MARTINGALE_ADVERSARIES, centered_crossing


def zeta_bracket(s, N=2000):
    """Rigorous bracket of zeta(s), s > 1: sum_{n<N} n^-s + [N^{1-s}/(s-1), N^{1-s}/(s-1) + N^-s] (integral test)."""
    head = mpmath.fsum(mpmath.mpf(n) ** -s for n in range(1, N))
    tail_lo = mpmath.mpf(N) ** (1 - s) / (s - 1)
    return head + tail_lo, head + tail_lo + mpmath.mpf(N) ** -s


def test_constants_17_072_52_are_rounded_up_from_eta_2_s_14():
    """1.7 >= (2^(1/4) + 2^(-1/4))/sqrt(2) * sqrt(1.4); 0.72 >= 1/1.4; 5.2 >= zeta(1.4)/log(2)^1.4."""
    s = mpmath.mpf(7) / 5
    k1 = (mpmath.mpf(2) ** (mpmath.mpf(1) / 4) + mpmath.mpf(2) ** (-mpmath.mpf(1) / 4)) / mpmath.sqrt(2)
    assert mpmath.mpf("1.698") < k1 * mpmath.sqrt(s) <= mpmath.mpf("1.7")
    assert 1 / s <= mpmath.mpf("0.72")
    lo, hi = zeta_bracket(s)
    assert lo <= mpmath.zeta(s) <= hi
    c_hi = hi / mpmath.log(2) ** s
    assert mpmath.mpf("5.18") < lo / mpmath.log(2) ** s and c_hi <= mpmath.mpf("5.2")


def test_symbolic_stitching_constants():
    """symbolic:whitehouse2023.stitching_constants gives the same three numbers (SymPy, 30 digits)."""
    import sympy as sp
    from symbolic import whitehouse2023 as S

    k, inv_s, c = [mpmath.mpf(sp.N(t, 40)) for t in S.stitching_constants().result]
    assert k <= mpmath.mpf("1.7") and inv_s <= mpmath.mpf("0.72") and c <= mpmath.mpf("5.2")
    assert abs(c - mpmath.zeta(mpmath.mpf(7) / 5) / mpmath.log(2) ** (mpmath.mpf(7) / 5)) < mpmath.mpf(10) ** -30


@given(st.fractions(min_value=F(1, 100), max_value=10**9), st.fractions(min_value=F(1, 1000), max_value=10),
       st.sampled_from([F(1, 2), F(1, 10**6), F(1, 10**300)]))
@example(F(1, 100), F(1, 100), F(1, 2))
@example(F(10**9), F(1, 1000), F(1, 10**300))
def test_printed_boundary_dominates_howard_et_al(V, v0, d):
    """For V >= v0: 1.7 sqrt(V (loglog(2V/v0) + 0.72 log(5.2/delta))) >= k1 sqrt(V l(V)) (eta = 2, s = 1.4); inf for V < v0."""
    if V < v0:
        assert W.stitched_boundary(V, v0, d) == mpmath.inf
        return
    printed = W.stitched_boundary(V, v0, d)
    v, m, dd = q2m(V), q2m(v0), q2m(d)
    naive = mpmath.mpf("1.7") * mpmath.sqrt(v * (mpmath.log(mpmath.log(2 * v / m)) + mpmath.mpf("0.72") * mpmath.log(mpmath.mpf("5.2") / dd)))
    assert printed >= naive * (1 - mpmath.mpf(10) ** -100) and printed <= naive * (1 + mpmath.mpf(10) ** -45)
    s = mpmath.mpf(7) / 5
    k1 = (mpmath.mpf(2) ** (mpmath.mpf(1) / 4) + mpmath.mpf(2) ** (-mpmath.mpf(1) / 4)) / mpmath.sqrt(2)
    ell = s * mpmath.log(mpmath.log(2 * v / m) / mpmath.log(2)) + mpmath.log(mpmath.zeta(s) / dd)
    assert printed >= k1 * mpmath.sqrt(v * ell)


@given(st.fractions(min_value=F(1, 100), max_value=10**6), st.fractions(min_value=F(1, 1000), max_value=1),
       st.fractions(min_value=1, max_value=100))
def test_larger_v0_gives_a_tighter_boundary_once_valid(V, v0, k):
    """Section 5: for V >= k v0 >= v0 the boundary with k v0 is <= the one with v0 (log log(2V/v0) decreases in v0)."""
    if V < k * v0:
        return
    assert W.stitched_boundary(V, k * v0, "1e-6") <= W.stitched_boundary(V, v0, "1e-6")


@pytest.mark.parametrize("name", ["homogeneous", "alternating", "loss_chasing", "variance_spender"])
@pytest.mark.parametrize("v0, d", [(F(1, 100), F(1, 2)), (F(1, 10), F(9, 10))])
def test_crossing_probability_on_adaptive_rr_martingale(name, v0, d):
    """P(exists n <= 40: V_n >= v0 and M_n >= stitched boundary(V_n)) <= delta (exact enumeration)."""
    cache = {}

    def bnd(V):
        if V not in cache:
            cache[V] = W.stitched_boundary(V, v0, d, dps=30)
        return cache[V]

    assert centered_crossing(MARTINGALE_ADVERSARIES[name], 40, bnd) <= q2m(d)


def test_negative_control_a_third_of_the_boundary_is_caught():
    """One third of the stitched boundary is crossed with probability > delta = 1/2."""
    v0, d = F(1, 100), F(1, 2)
    b = lambda V: W.stitched_boundary(V, v0, d, dps=30) / 3
    assert centered_crossing(MARTINGALE_ADVERSARIES["small_steps"], 100, b) > q2m(d)


def test_theorem5_bad_inputs():
    with pytest.raises(ValueError, match="v0"):
        W.stitched_boundary(1, 0, "0.1")
    with pytest.raises(ValueError, match="delta"):
        W.stitched_boundary(1, 1, 0)
