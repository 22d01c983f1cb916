"""balle2020 Definitions 2.1 and 3.1 (seed 004_8fba9d9eabe1335c.txt; arXiv 2007.06605; formulas stripped).

* Definition 2.1 (DP, replacement neighbours): P(M(D) in S) <= e^eps P(M(D') in S) + delta for all neighbouring
  D, D' and events S; n = 1 gives a local randomizer (local DP).  Route: the hockey-stick computation of
  checkins_exact equals the max over all events (enumeration), and randomized response with e^eps0 = E is exactly
  log(E)-LDP.
* Definition 3.1 (random check-in): with probability p0 the client requests to participate at a step drawn
  uniformly from R, otherwise abstains; R = [m] is an (m, p0)-check-in.  Route: the sampler's empirical law vs the
  exact law, with a rigorous Hoeffding tolerance (failure probability 1e-9 per cell).
"""
from __future__ import annotations

import itertools
import math
from fractions import Fraction as F

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reference.simulate import checkins as C
from reference.verify import checkins_exact as X
from reference.precision import compare_exp_rational, mpf_to_fraction


@given(st.lists(st.integers(0, 30), min_size=2, max_size=5), st.lists(st.integers(0, 30), min_size=2, max_size=5),
       st.fractions(min_value=0, max_value=3, max_denominator=10))
@settings(deadline=None)
def test_definition_2_1_hockey_stick_is_the_max_over_events(w1, w2, eps):
    """max_S [P(S) - e^eps Q(S)] (all events enumerated, exact sets) == the library's hockey stick (certified)."""
    k = min(len(w1), len(w2))
    w1, w2 = w1[:k], w2[:k]
    if not sum(w1) or not sum(w2):
        return
    P = [F(x, sum(w1)) for x in w1]
    Q = [F(x, sum(w2)) for x in w2]
    e = mpmath.exp(mpmath.mpf(eps.numerator) / eps.denominator)
    best = mpmath.mpf(0)
    for r in range(1, k + 1):
        for S in itertools.combinations(range(k), r):
            ps, qs = sum(P[i] for i in S), sum(Q[i] for i in S)
            best = max(best, mpmath.mpf(ps.numerator) / ps.denominator - e * mpmath.mpf(qs.numerator) / qs.denominator)
    hs = X.hockey_stick(X.Pair(P, Q), eps)
    assert best <= hs + mpmath.mpf(10) ** -45 and hs - best <= mpmath.mpf(10) ** -40


@pytest.mark.parametrize("E", [F(1), F(11, 10), F(3), F(1000)])
def test_definition_2_1_randomized_response_is_exactly_log_E_ldp(E):
    """RR with e^eps0 = E: (log E, 0)-DP, and not (eps, 0)-DP for any eps < log E (exact ratio E on one output)."""
    p, q = X.rr_probabilities(E)
    pair = X.Pair([1 - p, p], [1 - q, q])
    e = mpf_to_fraction(mpmath.log(mpmath.mpf(E.numerator) / E.denominator)) + F(1, 10**60)
    assert X.privacy_delta(pair, e) == 0
    if E > 1:
        assert X.privacy_delta(pair, e - F(1, 10**40), direction="lower") > 0
        assert p / q == E and compare_exp_rational(e, E) > 0


def test_definition_3_1_random_checkin_law():
    """Each client: abstain w.p. 1 - p0, else a uniform step of its window (empirical vs exact, Hoeffding)."""
    n, m, p0, trials = 7, 4, F(3, 5), 20000
    slots = C.random_checkin(n, 2, m, p0, np.random.default_rng(1), trials)
    tol = math.sqrt(math.log(2 / 1e-9) / (2 * trials))
    for c in range(n):
        col = slots[:, c]
        assert abs(np.mean(col == -1) - float(1 - p0)) <= tol
        for s in range(2, 2 + m):
            assert abs(np.mean(col == s) - float(p0 / m)) <= tol
        assert set(np.unique(col)) <= {-1, 2, 3, 4, 5}
    # independence across clients: the pair law of clients 0 and 1 factorises (one cell)
    assert abs(np.mean((slots[:, 0] == 2) & (slots[:, 1] == -1)) - float(p0 / m * (1 - p0))) <= tol


def test_bad_inputs_name_the_parameter():
    with pytest.raises(ValueError, match="p0"):
        C.random_checkin(3, 0, 2, 0, np.random.default_rng(0))
    with pytest.raises(ValueError, match="window_len"):
        C.random_checkin(3, 0, 0, 1, np.random.default_rng(0))
