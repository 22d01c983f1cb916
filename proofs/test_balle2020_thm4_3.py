"""balle2020 Theorem 4.3 (random check-ins with sliding windows) (seed 004_8fba9d9eabe1335c.txt; formula stripped,
re-derived: catalog id balle2020_thm4_3_eps).

Statement (our words; reconstruction).  Client i checks into a uniform step of its window {i, ..., i+m-1} with
probability p0; the server runs steps m, m+1, ... with one random checked-in client or a dummy.  With an eps0-DP
randomizer the protocol is (eps, delta)-DP with the same expression as Theorem 3.2 (a client's record can only
be used in the m steps of its window; other steps are 0-DP for it), for any number of server steps:

    eps = p0 (e^eps0 - 1) sqrt(2 e^eps0 log(1/delta)/m) + p0^2 e^eps0 (e^eps0 - 1)^2/(2m).

Ground truth: the exact law of the released bits by enumeration of all check-in patterns
(checkins_exact.sliding_window_distribution), every differing client and every bit vector.
"""
from __future__ import annotations

import itertools
from fractions import Fraction as F

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reference.bounds import balle2020 as B
from reference.verify import checkins_exact as X
from test_balle2020_thm3_2 import eps0_of, within


@pytest.mark.parametrize("n,m,p0,T", [(2, 1, F(1), None), (3, 2, F(1, 2), None), (3, 2, F(1), 3), (4, 2, F(1), None)])
@pytest.mark.parametrize("E,delta", [(F(3, 2), F(1, 10)), (F(3), F(1, 1000))])
def test_theorem_4_3_dominates_exact_sliding_window(n, m, p0, T, E, delta):
    eb = B.thm4_3_eps(eps0_of(E), m, p0, delta)
    for i, rest in itertools.product(range(n), itertools.product((0, 1), repeat=n - 1)):
        b1 = list(rest[:i]) + [1] + list(rest[i:])
        b0 = list(rest[:i]) + [0] + list(rest[i:])
        pair = X.pair_from_dists(X.sliding_window_distribution(n, m, p0, E, b1, T=T),
                                 X.sliding_window_distribution(n, m, p0, E, b0, T=T))
        assert within(pair, eb, delta)


@given(st.fractions(min_value=F(1, 100), max_value=5, max_denominator=100), st.integers(1, 10**6),
       st.fractions(min_value=F(1, 100), max_value=1, max_denominator=100))
def test_theorem_4_3_same_expression_as_theorem_3_2(e0, m, p0):
    """Independent of n and of the number of server steps: the value equals Theorem 3.2's."""
    assert B.thm4_3_eps(e0, m, p0, F(1, 10**6)) == B.thm3_2_eps(e0, m, p0, F(1, 10**6))


def test_theorem_4_3_approximate_clause():
    """(eps0, delta0) clause: eps' = thm4_3_eps(8 eps0); delta' grows with the number T of server steps."""
    e0, d, d1 = F(1, 20), F(1, 10**6), F(1, 10**12)
    assert B.thm4_3_approx_eps(e0, 1000, 1, d) == B.thm4_3_eps(8 * e0, 1000, 1, d)
    assert B.thm4_3_approx_delta(e0, 0, 1000, 1, d, d1, 10) < B.thm4_3_approx_delta(e0, 0, 1000, 1, d, d1, 1000)
