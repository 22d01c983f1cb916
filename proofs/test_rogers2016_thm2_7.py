"""rogers2016 (seed 003_05a378efbd63455f.txt) Theorem 2.7 (Kairouz-Oh-Viswanath 2015; Murtagh-Vadhan 2016).

For every (eps, delta)-DP M and neighbours x^0, x^1 there is a randomized T with T(RR_{eps,delta}(b)) ~ M(x^b), b = 0, 1.

Constructive exact check on finite laws: with e^eps = r rational, write the unknown T through the measures
a = delta T(0), b = delta T(1) (masses delta, a <= P, b <= Q) and the residuals P1 = P - a, Q1 = Q - b; then
T(top) = (1+r)/(1-delta) (r P1 - Q1)/(r^2 - 1) and T(bot) = (1+r)/(1-delta) (r Q1 - P1)/(r^2 - 1) solve
P = delta T(0) + (1-delta)(s T(top) + (1-s) T(bot)), Q = delta T(1) + (1-delta)((1-s) T(top) + s T(bot)), s = r/(1+r);
T is a valid channel iff Q1 <= r P1 and P1 <= r Q1.  An exact rational LP (a phase-1 simplex with Fractions and Bland's rule, proofs/exact_lp.py) finds (a, b); the test
then rebuilds T and checks T(RR(b)) = M(x^b) with Fractions.  Negative control: a pair that is not (eps, delta)-DP
has no such T (the LP is infeasible).
"""
from __future__ import annotations

from fractions import Fraction as F

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from exact_lp import feasible_point


def hs(A, B, r):
    return sum(max(F(0), A[i] - r * B[i]) for i in range(len(A)))


def find_T(P, Q, r, d):
    """The channel T of Theorem 2.7 for RR with e^eps = r, delta = d (exact), or None if none exists."""
    m = len(P)
    A, B = [], []
    for i in range(m):  # variables a_0..a_{m-1}, b_0..b_{m-1}
        row = [0] * (2 * m); row[i] = 1; A.append(row); B.append(P[i])  # noqa: E702  a_i <= P_i
        row = [0] * (2 * m); row[m + i] = 1; A.append(row); B.append(Q[i])  # noqa: E702  b_i <= Q_i
        row = [0] * (2 * m); row[i] = r; row[m + i] = -1; A.append(row); B.append(r * P[i] - Q[i])  # noqa: E702  Q1 <= r P1
        row = [0] * (2 * m); row[m + i] = r; row[i] = -1; A.append(row); B.append(r * Q[i] - P[i])  # noqa: E702  P1 <= r Q1
    x = feasible_point([[1] * m + [0] * m, [0] * m + [1] * m], [d, d], A, B, n=2 * m)
    if x is None:
        return None
    av, bv = x[:m], x[m:]
    P1 = [P[i] - av[i] for i in range(m)]
    Q1 = [Q[i] - bv[i] for i in range(m)]
    top = [(1 + r) / (1 - d) * (r * P1[i] - Q1[i]) / (r * r - 1) for i in range(m)]
    bot = [(1 + r) / (1 - d) * (r * Q1[i] - P1[i]) / (r * r - 1) for i in range(m)]
    T0 = [x / d for x in av] if d else [F(1, m)] * m
    T1 = [x / d for x in bv] if d else [F(1, m)] * m
    return {0: T0, 1: T1, "top": top, "bot": bot}


def rr(r, d, bit):
    s = r / (1 + r)
    return {0: d, "top": (1 - d) * s, "bot": (1 - d) * (1 - s), 1: F(0)} if bit == 0 else \
        {0: F(0), "top": (1 - d) * (1 - s), "bot": (1 - d) * s, 1: d}


def pair():
    return st.integers(2, 4).flatmap(lambda m: st.tuples(
        st.lists(st.integers(0, 20), min_size=m, max_size=m).filter(lambda v: sum(v) > 0),
        st.lists(st.integers(0, 20), min_size=m, max_size=m).filter(lambda v: sum(v) > 0))).map(
        lambda t: ([F(w, sum(t[0])) for w in t[0]], [F(w, sum(t[1])) for w in t[1]]))


@given(pair(), st.integers(1, 20), st.integers(1, 10), st.fractions(0, F(1, 2), max_denominator=40))
@example(([F(1, 2), F(1, 2)], [F(1, 2), F(1, 2)]), 1, 1, F(0))
@example(([F(1), F(0)], [F(0), F(1)]), 3, 1, F(1, 2))
def test_every_dp_pair_is_a_post_processing_of_rr(PQ, num, den, d):
    """Theorem 2.7: (P, Q) (eps, delta)-DP  ==>  exists T: T(RR_{eps,delta}(0)) = P and T(RR_{eps,delta}(1)) = Q (exact).

    The pair is made DP by taking delta' = max(delta, least delta at e^eps = r) (exact)."""
    P, Q = PQ
    r = 1 + F(num, den)
    dd = max(d, hs(P, Q, r), hs(Q, P, r))
    if dd >= 1:
        return
    T = find_T(P, Q, r, dd)
    assert T is not None
    for z, row in T.items():
        assert all(x >= 0 for x in row) and sum(row) == 1
    for bit, target in ((0, P), (1, Q)):
        law = rr(r, dd, bit)
        out = [sum(law[z] * T[z][i] for z in T) for i in range(len(P))]
        assert out == list(target)


def test_negative_control_non_dp_pair_has_no_T():
    """A pair that is not (eps, delta)-DP (least delta 1/4 > 1/10 at e^eps = 2) is not a post-processing of RR_{eps,delta}."""
    P, Q = [F(3, 4), F(1, 4)], [F(1, 4), F(3, 4)]
    r, d = F(2), F(1, 10)
    assert hs(P, Q, r) == F(1, 4) > d
    assert find_T(P, Q, r, d) is None
    assert find_T(P, Q, r, F(1, 4)) is not None
