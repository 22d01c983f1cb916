"""Theorem 4 of whitehouse2022 (seed 000_8d85c89f0d15dfff.txt; arXiv version, Appendix B; the normal-mixture
boundary of Howard et al. 2021).

Statement (our words): with M_0 = 0 and +-dM_n sigma_n^2-subGaussian given F_{n-1} (sigma_n predictable),
V_n = sum sigma_m^2, any rho > 0 and delta > 0:

    P(exists n: M_n >= sqrt(2 (V_n + rho) log((1/delta) sqrt((V_n + rho)/rho)))) <= delta.

Second routes: the boundary is the level set {S: int exp(l S - l^2 V/2) N(0, 1/rho)(dl) = 1/delta} (mpmath.quad and
the SymPy derivation symbolic:whitehouse2023.normal_mixture); the crossing probability on the centred adaptive
randomized-response martingale is computed exactly by enumeration.
"""
from __future__ import annotations

from fractions import Fraction as F

import mpmath
import pytest
from hypothesis import example, given, strategies as st

from reference.bounds import whitehouse2023 as W
from test_whitehouse2022_definitions import q2m
from test_whitehouse2022_thm3 import MARTINGALE_ADVERSARIES, centered_crossing


@given(st.fractions(min_value=0, max_value=10**12), st.fractions(min_value=F(1, 1000), max_value=1000),
       st.sampled_from([F(1, 2), F(1, 10**6), F(1, 10**300)]))
@example(F(10**12), F(1, 1000), F(1, 10**300))
@example(F(0), F(1), F(1, 2))
def test_boundary_is_as_printed(V, rho, d):
    """Library value >= sqrt(2 (V + rho) log(sqrt((V + rho)/rho)/delta)) (printed form at 110 digits), rounded up tightly."""
    v, r, dd = q2m(V), q2m(rho), q2m(d)
    printed = mpmath.sqrt(2 * (v + r) * mpmath.log(mpmath.sqrt((v + r) / r) / dd))
    got = W.mixture_boundary(V, rho, d)
    assert got >= printed * (1 - mpmath.mpf(10) ** -100)
    assert got <= printed * (1 + mpmath.mpf(10) ** -45)


@given(st.fractions(min_value=0, max_value=100), st.fractions(min_value=F(1, 100), max_value=100),
       st.sampled_from([F(1, 10), F(1, 10**6)]))
@example(F(0), F(1, 100), F(1, 10**6))
def test_boundary_is_where_the_gaussian_mixture_reaches_one_over_delta(V, rho, d):
    """int exp(l S - l^2 V/2) sqrt(rho/(2 pi)) exp(-rho l^2/2) dl = 1/delta at S = boundary (mpmath.quad, 30 digits)."""
    S = W.mixture_boundary(V, rho, d)
    with mpmath.workdps(40):
        v, r = q2m(V), q2m(rho)
        dens = lambda l: mpmath.sqrt(r / (2 * mpmath.pi)) * mpmath.exp(l * S - l * l * (v + r) / 2)
        peak, width = S / (v + r), 1 / mpmath.sqrt(v + r)
        integral = mpmath.quad(dens, [peak - 40 * width, peak, peak + 40 * width])
        assert abs(integral * q2m(d) - 1) < mpmath.mpf(10) ** -25


@pytest.mark.parametrize("name", ["homogeneous", "alternating", "loss_chasing", "variance_spender"])
@pytest.mark.parametrize("rho, d", [(F(1, 2), F(3, 10)), (F(1, 10), F(1, 10))])
def test_crossing_probability_on_adaptive_rr_martingale(name, rho, d):
    """P(exists n <= 40: M_n >= mixture boundary(V_n)) <= delta (exact enumeration)."""
    cache = {}

    def bnd(V):
        if V not in cache:
            cache[V] = W.mixture_boundary(V, rho, d, dps=30)
        return cache[V]

    assert centered_crossing(MARTINGALE_ADVERSARIES[name], 40, bnd) <= q2m(d)


def test_negative_control_dropping_the_log_sqrt_term_is_caught():
    """sqrt(2 (V + rho) log(1/delta)) / 2 (a too-small boundary) is crossed with probability > delta."""
    rho, d = F(1, 10), F(1, 10)
    b = lambda V: mpmath.sqrt(2 * (q2m(V) + q2m(rho)) * mpmath.log(1 / q2m(d))) / 2
    assert centered_crossing(MARTINGALE_ADVERSARIES["small_steps"], 100, b) > q2m(d)


def test_theorem4_bad_inputs():
    with pytest.raises(ValueError, match="rho"):
        W.mixture_boundary(1, 0, "0.1")
    with pytest.raises(ValueError, match="delta"):
        W.mixture_boundary(1, 1, 1)
