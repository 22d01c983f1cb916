"""'Fact 5' of whitehouse2022 (seed 000_8d85c89f0d15dfff.txt; arXiv version, Section 5): the text says Ville's inequality
('Fact 5'; it is Lemma 5 in this version, ledger W22-FACT5-LABEL) holds with exact equality for continuous-path
martingales, and that in discrete time the only slack comes from overshoot at the stopping time.

Checked: for Brownian motion B and the linear boundary a + b t (the continuous analogue of Theorem 3),
P(exists t: B_t >= a + b t) = e^{-2ab} exactly, i.e. Ville's bound for X_t = exp(2b B_t - 2 b^2 t) at level e^{2ab}
is attained; second route: the finite-horizon first-passage formula
P(max_{t<=T} (B_t - b t) >= a) = Phi((-a - bT)/sqrt T) + e^{-2ab} Phi((-a + bT)/sqrt T) as T grows.
In discrete time: the lattice walk without overshoot attains Ville in the limit, a threshold off the lattice
(overshoot) leaves a strict gap.
"""
from __future__ import annotations

from fractions import Fraction as F

import mpmath
import pytest
from hypothesis import example, given, strategies as st

from test_whitehouse2022_definitions import q2m
from test_whitehouse2022_lem5 import ADVERSARIES, ville_crossing


def first_passage(a, b, T):
    """P(max_{t <= T} (B_t - b t) >= a) for standard Brownian motion (reflection principle with drift)."""
    return mpmath.ncdf((-a - b * T) / mpmath.sqrt(T)) + mpmath.exp(-2 * a * b) * mpmath.ncdf((-a + b * T) / mpmath.sqrt(T))


def ville_gap(a, b, T):
    """e^{-2ab} - P(max_{t <= T} (B_t - b t) >= a) = e^{-2ab} Phi(-(bT - a)/sqrt T) - Phi(-(bT + a)/sqrt T), computed directly.

    The gap is about e^{-(b^2 T + 2ab + a^2/T)/2}: at T = 10^3 and b = 12/17 it is ~1e-113, below the
    110-digit precision of first_passage itself (~e^{-2ab}), so comparing first_passage at two
    horizons compares rounding noise.  The gap is a difference of two terms with the same
    exponential factor whose prefactors differ by a relative 2a/(bT) (a loss of at most ~8 digits
    here), so it keeps ~100 significant digits however small it is.
    """
    return mpmath.exp(-2 * a * b) * mpmath.ncdf(-(b * T - a) / mpmath.sqrt(T)) - mpmath.ncdf(-(b * T + a) / mpmath.sqrt(T))


@given(st.fractions(min_value=F(1, 10), max_value=5), st.fractions(min_value=F(1, 10), max_value=5))
@example(F(1, 2), F(1))
@example(F(74938492, 63492650), F(12, 17))  # first_passage(10^3) and (10^6) differ by ~1e-113 < 110 digits: flaky before
@example(F(5), F(5))  # the gap at 10^6 is ~1e-5428702
@example(F(1, 10), F(1, 10))  # slowest approach: the gap at 10^6 is still ~1e-2180
def test_brownian_linear_boundary_attains_ville(a, b):
    """sup_T P(max_{t<=T} B_t - b t >= a) = e^{-2ab} = Ville's bound (increasing in T, limit equality).

    Monotonicity is checked on the gap e^{-2ab} - P (decreasing and positive), which is resolved at
    the working precision at every horizon, instead of on P, whose increments fall below it.
    """
    aa, bb = q2m(a), q2m(b)
    ville = mpmath.exp(-2 * aa * bb)
    Ts = [mpmath.mpf(T) for T in (1, 10, 10**3, 10**6)]
    gaps = [ville_gap(aa, bb, T) for T in Ts]
    assert all(g > 0 for g in gaps)
    assert all(x > y for x, y in zip(gaps, gaps[1:]))  # P(T) = ville - gap(T) strictly increasing in T
    for T, g in zip(Ts[:2], gaps[:2]):  # the two routes agree where first_passage still resolves the gap
        assert abs(first_passage(aa, bb, T) + g - ville) <= ville * mpmath.mpf(10) ** -100
    assert abs(first_passage(aa, bb, mpmath.mpf(10) ** 8) - ville) < mpmath.mpf(10) ** -20
    with mpmath.workdps(160):  # precision ladder: the gap is stable when the precision is raised
        g2 = ville_gap(q2m(a), q2m(b), Ts[2])
    assert abs(g2 - gaps[2]) <= abs(g2) * mpmath.mpf(10) ** -90


def test_theorem3_is_exact_for_brownian_motion():
    """Theorem 3's boundary b'/2 + b' V/(2a') for B_V has crossing probability exactly exp(-b'^2/(2a')) = e^{-2 (b'/2)(b'/(2a'))}."""
    for a_, b_ in ((F(1, 2), F(1)), (F(3), F(2))):
        inter, slope = q2m(b_) / 2, q2m(b_) / (2 * q2m(a_))
        assert abs(first_passage(inter, slope, mpmath.mpf(10) ** 9) - mpmath.exp(-q2m(b_ * b_ / (2 * a_)))) < mpmath.mpf(10) ** -20


def test_discrete_time_overshoot_leaves_a_gap():
    """Threshold e^{2.1} between lattice points e^{2} and e^{2.25}: hitting it means reaching e^{2.25}, so the limit is e^{-2.25} < e^{-2.1}."""
    p = ville_crossing(ADVERSARIES["homogeneous"], 160, F(21, 10))
    assert p <= mpmath.exp(-q2m(F(9, 4))) < mpmath.exp(-q2m(F(21, 10)))
