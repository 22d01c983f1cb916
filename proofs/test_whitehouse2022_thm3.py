"""Theorem 3 of whitehouse2022 (seed 000_8d85c89f0d15dfff.txt; arXiv version, Appendix B; a special case of
Howard et al. 2020), with its proof.

Statement (our words): if M_0 = 0, M is a martingale and, given F_{n-1}, the increment dM_n is sigma_n^2-subGaussian
with sigma_n predictable, then with V_n = sum_{m<=n} sigma_m^2, for all a, b > 0,

    P(exists n: M_n >= b/2 + b V_n/(2a)) <= exp(-b^2/(2a)).

Proof: X_n = exp((b/a) M_n - b^2 V_n/(2a^2)) is a nonnegative supermartingale; Ville (Lemma 5) at level
exp(b^2/(2a)); the event X_n >= exp(b^2/(2a)) is the event M_n >= b/2 + b V_n/(2a).

Second route: the centred privacy-loss martingale of adaptive eps_n-randomized response (increments
L_n - eps_n tanh(eps_n/2), eps_n^2-subGaussian by Hoeffding), crossing probability computed exactly by enumeration.
"""
from __future__ import annotations

from fractions import Fraction as F

import mpmath
import pytest
from hypothesis import example, given, strategies as st

from reference.bounds import whitehouse2023 as W
from reference.precision import mpf_to_fraction
from test_whitehouse2022_definitions import q2m, rr_enumerate

MARTINGALE_ADVERSARIES = {
    "homogeneous": lambda loss, V, S, n: F(1, 5),
    "alternating": lambda loss, V, S, n: F(2, 5) if n % 2 == 0 else F(1, 10),
    "loss_chasing": lambda loss, V, S, n: F(3, 10) if loss > 0 else F(1, 10),
    "variance_spender": lambda loss, V, S, n: F(1, 10) if V < F(1, 5) else F(1, 2),
    "small_steps": lambda loss, V, S, n: F(1, 10),
}
SHAVE = mpmath.mpf(10) ** -60  # crossing at '>= boundary' is counted by testing '> boundary - 1e-60'


def centered_crossing(strategy, horizon, boundary):
    """P(exists n <= horizon: M_n >= boundary(V_n)) for the centred loss M_n = L_{1:n} - sum eps_m tanh(eps_m/2)."""
    return rr_enumerate(strategy, horizon, bound=lambda V, S, n, drift: boundary(V) + drift - SHAVE)["crossed"]


@given(st.fractions(min_value=F(1, 1000), max_value=1000), st.fractions(min_value=F(1, 1000), max_value=1000),
       st.fractions(min_value=0, max_value=10**9))
@example(F(1), F(5), F(10**9))
def test_boundary_and_probability_are_as_printed(a, b, V):
    """Library: b/2 + b V/(2a) exactly (rational) and exp(-b^2/(2a)) rounded up."""
    assert mpf_to_fraction(W.linear_boundary(a, b, V)) >= b / 2 + b * V / (2 * a)
    assert W.linear_boundary(a, b, V) <= q2m(b / 2 + b * V / (2 * a)) * (1 + mpmath.mpf(10) ** -48)
    p = W.linear_boundary_crossing_probability(a, b)
    ref = mpmath.exp(-q2m(b * b / (2 * a)))
    assert p >= ref * (1 - mpmath.mpf(10) ** -100) and p <= ref * (1 + mpmath.mpf(10) ** -45) + mpmath.mpf(10) ** -400


@given(st.fractions(min_value=F(1, 1000), max_value=50), st.fractions(min_value=-200, max_value=200))
@example(F(50), F(200))
@example(F(1, 1000), F(-200))
def test_rr_increments_are_eps_squared_subgaussian(e, lam):
    """E exp(lambda (L - E L)) <= exp(lambda^2 eps^2/2) for eps-RR, every real lambda (Hoeffding; both signs)."""
    ee, ll = q2m(e), q2m(lam)
    p = 1 / (1 + mpmath.exp(-ee))
    mu = ee * (2 * p - 1)
    mgf = p * mpmath.exp(ll * (ee - mu)) + (1 - p) * mpmath.exp(ll * (-ee - mu))
    assert mpmath.log(mgf) <= ll**2 * ee**2 / 2 * (1 + mpmath.mpf(10) ** -100)


@given(st.fractions(min_value=F(1, 100), max_value=10), st.fractions(min_value=F(1, 100), max_value=10),
       st.fractions(min_value=-10, max_value=10), st.fractions(min_value=0, max_value=10))
def test_proof_event_identity(a, b, M, V):
    """log X_n >= b^2/(2a) with X_n = exp((b/a) M - b^2 V/(2a^2))  <=>  M >= b/2 + b V/(2a) (exact rational algebra)."""
    lhs = (b / a) * M - b * b * V / (2 * a * a) >= b * b / (2 * a)
    assert lhs == (M >= b / 2 + b * V / (2 * a))


@pytest.mark.parametrize("name", sorted(MARTINGALE_ADVERSARIES))
@pytest.mark.parametrize("a, b", [(F(1, 2), F(1)), (F(1, 4), F(1, 2))])
def test_crossing_probability_on_adaptive_rr_martingale(name, a, b):
    """P(exists n <= 40: M_n >= b/2 + b V_n/(2a)) <= exp(-b^2/(2a)) (exact enumeration, adaptive sigma_n = eps_n)."""
    p = centered_crossing(MARTINGALE_ADVERSARIES[name], 40, lambda V: q2m(b / 2 + b * V / (2 * a)))
    assert p <= mpmath.exp(-q2m(b * b / (2 * a)))


def test_bound_is_nearly_attained_with_small_steps():
    """With eps_n = 1/10 the walk is close to Brownian motion and the crossing probability is a sizeable part of the bound."""
    a, b = F(1, 2), F(1)
    p = centered_crossing(MARTINGALE_ADVERSARIES["small_steps"], 150, lambda V: q2m(b / 2 + b * V / (2 * a)))
    bound = mpmath.exp(-q2m(b * b / (2 * a)))
    assert bound / 2 < p <= bound


def test_negative_control_halved_boundary_is_caught():
    """Half the boundary is crossed with probability above exp(-b^2/(2a)): the checker can fail."""
    a, b = F(1, 2), F(1)
    p = centered_crossing(MARTINGALE_ADVERSARIES["small_steps"], 100, lambda V: q2m(b / 2 + b * V / (2 * a)) / 2)
    assert p > mpmath.exp(-q2m(b * b / (2 * a)))


def test_theorem3_bad_inputs():
    with pytest.raises(ValueError, match="a"):
        W.linear_boundary(0, 1, 1)
    with pytest.raises(ValueError, match="b"):
        W.linear_boundary_crossing_probability(1, -1)
