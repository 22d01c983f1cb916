"""rogers2016 (seed 003_05a378efbd63455f.txt) Theorem 2.5 (post-processing, from DMNS06).

If M is (eps, delta)-DP and f is any randomized map then f o M is (eps, delta)-DP:
    M(x) ~_{eps,delta} M(x')  ==>  f(M(x)) ~_{eps,delta} f(M(x')).
The proof of Theorem 3.6 also uses the pure point-wise form: post-processings T of RR_eps satisfy
|log(P[T(RR_eps(0)) = y]/P[T(RR_eps(1)) = y])| <= eps for every y.

Checked exactly on finite laws with random rational stochastic matrices (a randomized f), and against a second
route: the hockey-stick divergence sum_a (P(a) - e^eps Q(a))_+ cannot increase under f (100 digits, one-sided).
"""
from __future__ import annotations

from fractions import Fraction as F

import mpmath
from hypothesis import example, given
from hypothesis import strategies as st

from reference.bounds import rogers2016 as R
from reference.precision import mpf_to_fraction
from test_rogers2016_definitions import laws, minimal_delta

X = mpf_to_fraction


def channels(m_in: int):
    def mk(rows):
        return [[F(w, sum(r)) for w in r] for r in rows]

    return st.integers(1, 4).flatmap(lambda m_out: st.lists(
        st.lists(st.integers(0, 9), min_size=m_out, max_size=m_out).filter(lambda r: sum(r) > 0),
        min_size=m_in, max_size=m_in)).map(mk)


def push(P, T):
    out = {}
    for a, p in P.items():
        for y, t in enumerate(T[a]):
            out[y] = out.get(y, F(0)) + p * t
    return out


@given(laws(3, 3), channels(3), st.fractions(0, 3, max_denominator=20))
@example(({0: F(1, 2), 1: F(1, 2), 2: F(0)}, {0: F(0), 1: F(1, 2), 2: F(1, 2)}), [[F(1)], [F(1)], [F(1)]], F(0))
def test_post_processing_preserves_eps_delta(PQ, T, eps):
    """Theorem 2.5: P ~_{eps,delta} Q  ==>  PT ~_{eps,delta} QT (exact, at delta a hair above the least delta of (P, Q))."""
    P, Q = PQ
    d = min(F(1), X(minimal_delta(P, Q, eps)) + F(1, 10**70))
    assert R.is_dp(P, Q, eps, d)
    assert R.is_dp(push(P, T), push(Q, T), eps, d)
    # second route: the least delta cannot grow (data processing), 100 digits
    assert minimal_delta(push(P, T), push(Q, T), eps) <= minimal_delta(P, Q, eps) + mpmath.mpf(10) ** -90


@given(st.integers(1, 30), st.integers(1, 30), st.lists(st.integers(0, 9), min_size=3, max_size=3).filter(lambda r: sum(r) > 0),
       st.lists(st.integers(0, 9), min_size=3, max_size=3).filter(lambda r: sum(r) > 0))
def test_post_processing_of_rr_is_pointwise_pure(num, den, row_top, row_bot):
    """Proof of Theorem 3.6: for any T, every output y of T(RR_eps(.)) has e^-eps <= P[T(RR(0)) = y]/P[T(RR(1)) = y] <= e^eps.

    Exact with e^eps = r = 1 + num/den rational (RR's probabilities s = r/(1+r) then rational)."""
    r = 1 + F(num, den)
    s = r / (1 + r)
    T = [[F(w, sum(row_top)) for w in row_top], [F(w, sum(row_bot)) for w in row_bot]]
    P = push({0: s, 1: 1 - s}, T)
    Q = push({0: 1 - s, 1: s}, T)
    for y in P:
        if P[y] or Q[y]:
            assert P[y] <= r * Q[y] and Q[y] <= r * P[y]
