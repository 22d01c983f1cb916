"""The Renyi odometer (reference.bounds.feldman2021.renyi_odometer_zcdp) checked exactly on adaptive randomized response.

Claim: if each step is rho_t-zCDP given the past, then
``P(exists t: L_t >= min_{alpha in A} alpha R_t + log(|A|/delta)/(alpha - 1)) <= delta``.
An eps-DP randomized-response step is eps^2/2-zCDP (Bun-Steinke), so R_t = V_t/2 with
V_t = sum eps_s^2.  The crossing probability is computed exactly over the (loss, V) states
(proofs/adaptive_rr.py) for adversaries that pick eps from the realized loss, and compared
with delta.  A negative control (the same rule without the union bound over A, at a quarter
of the log term) must be caught by the same computation.
"""
import functools
from fractions import Fraction as F

import mpmath
import pytest

import adaptive_rr as A
from reference.bounds.feldman2021 import renyi_odometer_zcdp

HORIZON = 40
ADVERSARIES = {
    "homogeneous": A.homogeneous(F(1, 4)),
    "alternating": A.alternating(F(1, 2), F(1, 10)),
    "loss_chasing": A.loss_chasing(F(1, 2), F(1, 10), F(1, 4)),
    "variance_spender": A.variance_spender(F(1, 10), F(1, 2), F(1)),
    "random_adaptive": A.random_adaptive(7, [F(1, 10), F(1, 4), F(1, 2)]),
}


def odometer(delta, grid="1.25,1.5,2,3,4,6,8,12,16,24,32,64,128"):
    @functools.lru_cache(maxsize=None)
    def bound(V):
        return renyi_odometer_zcdp(V / 2, delta, grid, dps=20)
    return bound


@pytest.mark.parametrize("name", sorted(ADVERSARIES))
@pytest.mark.parametrize("delta", [F(1, 10), F(1, 100)])
def test_renyi_odometer_crossing_probability_is_at_most_delta(name, delta):
    horizon = 24 if name == "random_adaptive" else HORIZON  # its (loss, V) states grow like 3^n
    p = A.odometer_crossing(ADVERSARIES[name], horizon, odometer(delta))
    assert p <= mpmath.mpf(delta.numerator) / delta.denominator, (name, p)


def test_negative_control_without_union_bound_is_caught():
    """A single order chosen after the fact (no |A| factor) with a quarter of the log term crosses more than delta."""
    delta = F(1, 10)

    @functools.lru_cache(maxsize=None)
    def broken(V):
        L = mpmath.log(10)
        return min(a * mpmath.mpf(V.numerator) / (2 * V.denominator) + L / (4 * (a - 1))
                   for a in (mpmath.mpf(x) for x in ("1.25", "1.5", "2", "3", "4", "8", "16", "64")))

    worst = max(A.odometer_crossing(ADVERSARIES[n], HORIZON, broken) for n in ("homogeneous", "loss_chasing"))
    assert worst > mpmath.mpf(delta.numerator) / delta.denominator
