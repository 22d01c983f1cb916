"""feldman2021 Proposition 2.9 (seed 002_485f6b48c71ae221.txt; formulas stripped, re-derived from the proof idea).

Statement (our words, reconstructed).  Queries q_t with |q_t| <= 1 arrive non-adaptively.  Let
``S_t = {i : sum_{j<=t} q_j(X_i)^2 <= 2 sigma^2 B / alpha}`` and ``a_t = sum_{i in S_t} q_t(X_i) + N(0, sigma^2)``.
Then (a_1, ..., a_k) is (alpha, B)-RDP: point i shifts the report vector by (q_t(X_i) 1[i in S_t])_t, of squared
l2 norm <= 2 sigma^2 B/alpha ("l2-sensitivity of the entire output").  Moreover (accuracy clause, stripped; our
re-derivation) when m points are inactive at time t, |a_t - sum_i q_t(X_i)| <= m + sigma sqrt(2 log(2/beta)) with
probability >= 1 - beta.  Text claims: every point is active for at least floor(2 sigma^2 B/alpha) steps; with
binary indicators the number of *positive* reports per individual, not the number of reports, is what is bounded.

Routes: active sets recomputed here with Fractions, the Gaussian vector divergence as a sum of per-coordinate
1-d divergences (additivity of Renyi divergence over independent coordinates, exact), the Gaussian tail by erfc.
"""
from __future__ import annotations

import math
from fractions import Fraction as F

import mpmath
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from reference.bounds import feldman2021 as FZ
from test_feldman2021_definitions import q2m

QS = st.lists(st.lists(st.fractions(min_value=-1, max_value=1, max_denominator=20), min_size=4, max_size=4),
              min_size=1, max_size=30)


def active_sets(qs, alpha, sigma, B):
    K = 2 * sigma * sigma * B / alpha
    cum = [F(0)] * len(qs[0])
    out = []
    for row in qs:
        cum = [c + q * q for c, q in zip(cum, row)]
        out.append({i for i, c in enumerate(cum) if c <= K})
    return out


@given(QS, st.sampled_from([F(2), F(8), F(101, 100)]), st.sampled_from([F(1, 2), F(1), F(3)]), st.sampled_from([F(1, 10), F(1), F(5)]))
@example([[F(1)] * 4] * 30, F(2), F(1), F(1))
@settings(deadline=None)
def test_proposition_2_9_privacy(qs, alpha, sigma, B):
    """For every i: alpha sum_t (q_t(X_i) 1[i in S_t])^2 / (2 sigma^2) <= B (the vector Gaussian divergence, exact),
    and the library's active sets equal this module's."""
    mine = active_sets(qs, alpha, sigma, B)
    assert [set(s) for s in FZ.prop2_9_active_sets(qs, alpha, sigma, B)] == mine
    for i in range(4):
        # removing X_i leaves the other points' activity unchanged (it depends on their own values only)
        shift = [row[i] if i in S else F(0) for row, S in zip(qs, mine)]
        div = sum(alpha * v * v / (2 * sigma * sigma) for v in shift)  # sum of per-coordinate D_alpha
        assert div <= B
        assert all(mine[t] >= mine[t + 1] for t in range(len(mine) - 1))  # active sets shrink


@given(st.sampled_from([F(2), F(8)]), st.sampled_from([F(1), F(3), F(20)]), st.sampled_from([F(1, 10), F(1), F(5)]))
def test_proposition_2_9_every_point_active_for_the_worst_case_count(alpha, sigma, B):
    """With |q| <= 1 every point is active in the first floor(2 sigma^2 B/alpha) steps (the classical count)."""
    k = FZ.prop2_9_worst_case_queries(alpha, sigma, B)
    assert k == math.floor(2 * sigma * sigma * B / alpha)
    qs = [[F(1), F(-1), F(1, 2), F(0)]] * (k + 2)
    S = active_sets(qs, alpha, sigma, B)
    assert all(S[t] == {0, 1, 2, 3} for t in range(k))
    assert 0 not in S[k] and 3 in S[k + 1]


def test_proposition_2_9_sparse_indicators():
    """Binary indicators: a point with few positives stays active in every report (the count of positive
    reports, not of reports, is limited by 2 sigma^2 B/alpha)."""
    alpha, sigma, B = F(2), F(2), F(1)  # threshold 4
    T = 200
    qs = [[F(1) if t % 50 == 0 else F(0), F(1) if t % 3 == 0 else F(0)] for t in range(T)]
    S = active_sets(qs, alpha, sigma, B)
    assert all(0 in s for s in S)  # 4 positives in 200 reports: always active
    assert sum(1 for s in S if 1 in s) < T and sum(qs[t][1] for t in range(T) if 1 in S[t]) <= 4


@given(st.fractions(min_value=F(1, 10), max_value=100, max_denominator=10),
       st.sampled_from([F(1, 2), F(1, 20), F(1, 10**6), F(1, 10**300)]), st.integers(0, 10**6))
@example(F(1), F(1, 10**300), 0)
def test_proposition_2_9_accuracy_tail(sigma, beta, m):
    """P(|N(0, sigma^2)| > sigma sqrt(2 log(2/beta))) = erfc(sqrt(log(2/beta))) <= beta, so the library's
    m + sigma sqrt(2 log(2/beta)) bounds the error w.p. >= 1 - beta (one-sided, 110 digits)."""
    b = q2m(beta)
    t = mpmath.sqrt(2 * mpmath.log(2 / b))
    assert mpmath.erfc(t / mpmath.sqrt(2)) <= b
    assert FZ.prop2_9_accuracy(sigma, beta, m) >= m + q2m(sigma) * t * (1 - mpmath.mpf(10) ** -45)


def test_bad_inputs_name_the_parameter():
    with pytest.raises(ValueError, match="beta"):
        FZ.prop2_9_accuracy(1, 0, 0)
    with pytest.raises(ValueError, match="sigma"):
        FZ.prop2_9_threshold(2, 0, 1)
