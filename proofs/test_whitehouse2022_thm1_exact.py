"""Theorem 1 (whitehouse2022) / Theorem 2 (whitehouse2023), checked exactly on adaptive randomized response.

Claim: if A_n is (eps_n, delta_n)-DP conditioned on A_{1:n-1} and the
interaction stops at N = inf{n: eps < sqrt(2 log(1/delta') V_{n+1}) + V_{n+1}/2 or ...},
then A_{1:N} is (eps, delta' + delta'')-DP.  By Lemma 3 conditional randomized
response is the worst case, so for Markov adversaries the hockey-stick
divergence of the stopped transcript, computed exactly by enumeration, must
be <= delta'.  A deliberately broken filter must be caught.
"""
from fractions import Fraction as F

import mpmath
import pytest

from adaptive_rr import alternating, hockey_stick, homogeneous, loss_chasing, odometer_crossing, variance_spender
from reference.bounds import whitehouse2023 as W

EPS, DP = F(1), F(1, 5)
DPM = mpmath.mpf(1) / 5
ADVERSARIES = {
    "homogeneous": homogeneous(F(1, 10)),
    "alternating": alternating(F(1, 5), F(1, 20)),
    "loss_chasing": loss_chasing(F(1, 5), F(1, 10), F(1, 10)),
    "variance_spender": variance_spender(F(1, 20), F(3, 10), F(1, 10)),
}


def admit(V, n):
    return W.filter_admits(V, EPS, DP)


def broken_drift_only(V, n):
    """Negative control: keeps only the drift term V/2 <= eps (drops the concentration term)."""
    return V / 2 <= EPS


@pytest.mark.parametrize("name", sorted(ADVERSARIES))
def test_filter_is_eps_delta_dp_on_adaptive_rr(name):
    """sup_G P(A_{1:N}(x) in G) - e^eps P(A_{1:N}(x') in G) <= delta' (delta_n = 0, delta'' = 0)."""
    d = hockey_stick(ADVERSARIES[name], admit, 400, EPS)
    assert d <= DPM
    assert d >= 0


def test_negative_control_broken_filter_is_caught():
    d = hockey_stick(ADVERSARIES["alternating"], broken_drift_only, 400, EPS)
    assert d > DPM  # the exact verifier rejects the broken rule


@pytest.mark.parametrize("name", sorted(ADVERSARIES))
def test_filter_odometer_time_uniform_on_adaptive_rr(name):
    """Theorem 2 (whitehouse2022), filter odometer: P(exists n: L_n > u^F(V_n)) <= delta' (pure DP steps)."""
    ys = W.y_star(EPS, DP, dps=30)
    L = mpmath.log(5)
    u = lambda V: mpmath.sqrt(2 * ys * L) / 2 + mpmath.sqrt(2 * L) / (2 * mpmath.sqrt(ys)) * (mpmath.mpf(V.numerator) / V.denominator) \
        + mpmath.mpf(V.numerator) / V.denominator / 2
    p = odometer_crossing(ADVERSARIES[name], 60, u)
    assert p <= DPM


def test_odometer_negative_control_fixed_time_advanced_composition():
    """Rogers et al. show advanced composition at realized V is not an odometer; a drift-free boundary is caught."""
    L = mpmath.log(5)
    naive = lambda V: mpmath.sqrt(2 * L * mpmath.mpf(V.numerator) / V.denominator) / 4  # deliberately shrunk
    assert odometer_crossing(ADVERSARIES["homogeneous"], 60, naive) > DPM
