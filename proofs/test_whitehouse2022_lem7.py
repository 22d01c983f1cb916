"""Lemma 7 of whitehouse2022 (seed 000_8d85c89f0d15dfff.txt; arXiv version, Appendix D), quoting Kairouz, Oh and
Viswanath (2015): every (eps, delta)-DP algorithm is a post-processing of (eps, delta)-randomized response.

Statement (our words): if A is (eps, delta)-DP and R is (eps, delta)-RR (Definition 6), for neighbours x_0, x_1 there
is a kernel nu with P(A(x_b) in .) = E nu(., R(b)) = sum_r P(R(b) = r) nu(., r) (footnote 6), b in {0, 1}.

Second route: for finite mechanisms with rational probabilities and rational w = e^eps the kernel is found by an
exact rational linear program (a phase-1 simplex on Fractions, :func:`exact_lp.feasible_point`) and the identity is verified in exact arithmetic;
a mechanism that is not (eps, delta)-DP admits no kernel (negative control).
"""
from __future__ import annotations

from fractions import Fraction as F

from hypothesis import example, given, strategies as st

from exact_lp import feasible_point
from test_whitehouse2022_definitions import hockey_exact, rr_law_w

RR_OUT = (0, 1, "top", "bot")


def rr_kernel(P0: dict, P1: dict, w: F, delta: F):
    """Exact kernel nu[r][y] with sum_r P(R(b) = r) nu[r][y] = P_b(y) for b = 0, 1, or None if none exists."""
    ys = sorted(set(P0) | set(P1), key=str)
    var = [(r, y) for r in RR_OUT for y in ys]
    idx = {v: i for i, v in enumerate(var)}
    rows, rhs = [], []
    for b, Pb in ((0, P0), (1, P1)):
        law = rr_law_w(w, delta, b)
        for y in ys:
            row = [F(0)] * len(var)
            for r in RR_OUT:
                row[idx[(r, y)]] = law[r]
            rows.append(row)
            rhs.append(Pb.get(y, F(0)))
    for r in RR_OUT:
        row = [F(0)] * len(var)
        for y in ys:
            row[idx[(r, y)]] = F(1)
        rows.append(row)
        rhs.append(F(1))
    x = feasible_point(rows, rhs)
    if x is None:
        return None
    return {r: {y: x[idx[(r, y)]] for y in ys} for r in RR_OUT}


def verify_kernel(nu, P0, P1, w, delta) -> bool:
    """Exact check of footnote 6: nu(., r) are probability vectors and E nu(., R(b)) = P_b."""
    for r in RR_OUT:
        if any(v < 0 for v in nu[r].values()) or sum(nu[r].values()) != 1:
            return False
    for b, Pb in ((0, P0), (1, P1)):
        law = rr_law_w(w, delta, b)
        for y in nu[0]:
            if sum(law[r] * nu[r][y] for r in RR_OUT) != Pb.get(y, F(0)):
                return False
    return True


def dp_pair(pw, qw, w):
    """A finite pair normalised from weights, and the smallest delta making it (log w, delta)-DP."""
    k = min(len(pw), len(qw))
    P0 = {i: F(pw[i], sum(pw[:k])) for i in range(k)}
    P1 = {i: F(qw[i], sum(qw[:k])) for i in range(k)}
    return P0, P1, max(hockey_exact(P0, P1, w), hockey_exact(P1, P0, w))


@given(st.lists(st.integers(1, 30), min_size=2, max_size=3), st.lists(st.integers(1, 30), min_size=2, max_size=3),
       st.fractions(min_value=1, max_value=6, max_denominator=5))
@example([3, 197], [3, 1597], F(2))
@example([1, 1], [1, 1], F(1))
def test_every_dp_pair_is_a_post_processing_of_rr(pw, qw, w):
    """(eps, delta)-DP pair (P_0, P_1) => exists nu: P_b = sum_r P(R(b) = r) nu(., r) (exact LP, exact verification)."""
    P0, P1, d = dp_pair(pw, qw, w)
    if d >= 1:
        return
    nu = rr_kernel(P0, P1, w, d)
    assert nu is not None and verify_kernel(nu, P0, P1, w, d)


def test_negative_control_non_dp_pair_has_no_kernel():
    """P_0 = (1/2, 1/2), P_1 = (1/10, 9/10) is not (log 2, 1/100)-DP, and no kernel exists (LP infeasible)."""
    P0, P1 = {0: F(1, 2), 1: F(1, 2)}, {0: F(1, 10), 1: F(9, 10)}
    assert hockey_exact(P0, P1, F(2)) > F(1, 100)
    assert rr_kernel(P0, P1, F(2), F(1, 100)) is None
