"""Lemma 5 of whitehouse2022 (seed 000_8d85c89f0d15dfff.txt; arXiv version, Appendix B): Ville's inequality (1939).

Statement (our words): for a nonnegative supermartingale (X_n) and delta in (0, 1), P(exists n: X_n >= E X_0/delta) <= delta.

Second route: the likelihood-ratio martingale X_n = prod_m P/Q of an adaptive randomized-response composition,
under Q (input x') where it is a nonnegative martingale with X_0 = 1; the crossing probability is enumerated
exactly (losses are exact Fractions).  On the lattice with a threshold e^{k eps} there is no overshoot and the
probability tends to delta exactly (the discrete counterpart of Fact 5's equality); a halved threshold fails.
"""
from __future__ import annotations

from fractions import Fraction as F

import mpmath
import pytest

from test_whitehouse2022_definitions import q2m, rr_enumerate

ADVERSARIES = {
    "homogeneous": lambda loss, V, S, n: F(1, 4),
    "loss_chasing": lambda loss, V, S, n: F(1, 2) if loss > 0 else F(1, 5),
    "with_deltas": lambda loss, V, S, n: (F(1, 3), F(1, 50)) if n % 3 == 0 else F(1, 6),
}


def ville_crossing(strategy, horizon, level: F):
    """P_Q(exists n <= horizon: X_n >= e^level) with X_n = e^{L_{1:n}} the likelihood ratio (flags under Q: X = 0)."""
    return rr_enumerate(strategy, horizon, measure="Q", bound=lambda V, S, n, d: q2m(level) - mpmath.mpf(10) ** -80)["crossed"]


@pytest.mark.parametrize("name", sorted(ADVERSARIES))
@pytest.mark.parametrize("level", [F(1), F(2)])
def test_ville_on_likelihood_ratio_martingale(name, level):
    """P(exists n: X_n >= 1/delta) <= delta with 1/delta = e^level, E X_0 = 1 (exact, adaptive)."""
    assert ville_crossing(ADVERSARIES[name], 40, level) <= mpmath.exp(-q2m(level))


def test_no_overshoot_lattice_case_approaches_equality():
    """eps_n = 1/4, threshold e^{8/4}: P(hit) = (q/p)^8 = e^{-2} in the limit; finite horizons approach it from below."""
    p40 = ville_crossing(ADVERSARIES["homogeneous"], 40, F(2))
    p160 = ville_crossing(ADVERSARIES["homogeneous"], 160, F(2))
    delta = mpmath.exp(-2)
    assert p40 < p160 <= delta
    assert p160 > delta * (1 - mpmath.mpf(1) / 10)


def test_negative_control_half_delta_is_violated():
    """Ville cannot be improved by a factor 2 here: P(hit e^2) > e^{-2}/2."""
    assert ville_crossing(ADVERSARIES["homogeneous"], 160, F(2)) > mpmath.exp(-2) / 2
