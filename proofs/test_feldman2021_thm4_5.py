"""feldman2021 Theorem 4.5 (seed 002_485f6b48c71ae221.txt; Feldman and Zrnic, arXiv 2008.11193; formulas stripped).

Statement (our words, reconstructed).  Adaptive composition with individual privacy filtering (Algorithm 3) is
(alpha, B)-RDP: at step t every point x gets its individual parameter rho_t^(x) (eq. (2)); x is active iff the
Renyi filter of Theorem 4.3 continues on x's own sequence, i.e.

    sum_{j <= t, x active at j} rho_j^(x)  <=  B,

and A_t runs on the active points only.  Then D^<->_alpha(A(S) || A(S \\ x)) <= B for every S and x in S.
Proof claims checked: given the history, the active sets under S and under S \\ x differ only in x, and a
point inactive at step t loses no privacy at step t (the two laws coincide).

Routes: an independent exact enumeration of Algorithm 3 written here (Fractions, exact exp comparisons) and the
library's ``check_individual_filter``; a negative control (admitting on the budget *before* the step) is caught.
"""
from __future__ import annotations

from fractions import Fraction as F

from hypothesis import example, given, settings
from hypothesis import strategies as st

from reference.bounds import feldman2021 as FZ
from reference.verify import feldman2021 as FZV
from reference.precision import compare_exp_rational
from test_feldman2021_cor3_2 import UNIVERSE, individual_moment, make_mech, subsets
from test_feldman2021_thm3_1 import within_budget


def algorithm3(mech, family, a, B, horizon, S, x, admit=None):
    """Exact joint moments of Algorithm 3 run on S and on S \\ x (both directions); also checks the proof claims."""
    if admit is None:
        def admit(prod, s):
            return compare_exp_rational((a - 1) * B, prod * s) >= 0
    T = tuple(z for z in S if z != x)
    m_st = m_ts = F(0)
    stack = [((), F(1), F(1), {z: F(1) for z in UNIVERSE})]
    while stack:
        h, p, q, prods = stack.pop()
        if len(h) == horizon:
            m_st += p ** a / q ** (a - 1)
            m_ts += q ** a / p ** (a - 1)
            continue
        s = {z: individual_moment(mech, h, z, family, a) for z in UNIVERSE}
        # the active set is a function of the history and of each point's own value only
        active = {z for z in UNIVERSE if admit(prods[z], s[z])}
        act_S = tuple(z for z in S if z in active)
        act_T = tuple(z for z in T if z in active)
        assert set(act_S) - {x} == set(act_T)  # proof of Thm 4.5: the active sets differ only in x
        P, Q = mech(h, act_S), mech(h, act_T)
        if x not in active:
            assert P == Q  # an inactive point loses no privacy in this round
        new = {z: prods[z] * s[z] if z in active else prods[z] for z in UNIVERSE}
        for y in (0, 1):
            stack.append((h + (y,), p * P[y], q * Q[y], new))
    return max(m_st, m_ts)


def worst_alg3(mech, a, B, horizon, admit=None):
    fam = subsets(UNIVERSE, 3)
    return max(algorithm3(mech, fam, a, B, horizon, S, x, admit) for S in fam for x in S)


VALS = st.fixed_dictionaries({1: st.just(F(0)), 2: st.fractions(0, 1, max_denominator=8), 3: st.fractions(0, 1, max_denominator=8)})
WTS = st.lists(st.fractions(min_value=F(1, 8), max_value=1, max_denominator=8), min_size=1, max_size=3)
BUDGETS = st.sampled_from([F(1, 100), F(1, 20), F(1, 10), F(1, 5), F(1)])


@given(VALS, WTS, st.sampled_from([2, 3]), BUDGETS, st.integers(1, 5))
@example({1: F(0), 2: F(1, 2), 3: F(1)}, [F(1), F(1, 8)], 2, F(1, 10), 5)
@example({1: F(0), 2: F(1), 3: F(1)}, [F(1)], 3, F(1, 100), 5)
@settings(deadline=None, max_examples=12)
def test_theorem_4_5_algorithm3_is_rdp(values, weights, a, B, horizon):
    """Theorem 4.5: D^<->_alpha(A(S) || A(S\\x)) <= B for all S, x in S (exact: moment <= exp((alpha-1) B))."""
    worst = worst_alg3(make_mech(values, weights), a, B, horizon)
    assert within_budget(worst, a, B)


@given(VALS, WTS, BUDGETS)
@settings(deadline=None, max_examples=8)
def test_theorem_4_5_agrees_with_library(values, weights, B):
    """Second route: reference.verify.feldman2021.check_individual_filter computes the same worst moment."""
    mech = make_mech(values, weights)
    lib = FZV.check_individual_filter(mech, UNIVERSE, 3, 2, B, 4)
    assert lib.worst_moment == worst_alg3(mech, 2, B, 4)
    assert lib.holds_for_budget(B)


def test_negative_control_one_step_too_many_is_caught():
    """Admitting x while its spent budget *before* the step is within B (the step may overshoot) violates B."""
    mech = make_mech({1: F(0), 2: F(1, 2), 3: F(1)}, [F(1), F(1, 8)])
    for B in (F(1, 20), F(1, 10), F(1, 5)):
        def broken(prod, s, B=B):
            return compare_exp_rational(B, prod) >= 0  # alpha = 2: (alpha - 1) B = B
        assert within_budget(worst_alg3(mech, 2, B, 6), 2, B)
        assert not within_budget(worst_alg3(mech, 2, B, 6, admit=broken), 2, B)
