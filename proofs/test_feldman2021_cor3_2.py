"""feldman2021 Corollary 3.2 (seed 002_485f6b48c71ae221.txt; Feldman and Zrnic, arXiv 2008.11193; formulas stripped).

Statement (our words, reconstructed).  For a data point x let ``rho_t^(x)(a^(t-1))`` be the individual RDP
parameter of step t (eq. (2)): the sup over datasets S containing x of
``D^<->_alpha(A_t(a^(t-1), S) || A_t(a^(t-1), S \\ x))`` (Definition 2.5 conditional on the past).  If for every
input dataset and every individual x,

    sum_t rho_t^(x) <= B   almost surely,

then the adaptive composition (Algorithm 1) is (alpha, B)-RDP.  The seed adds that it also holds for the
per-instance notion (Definition 2.6, the sup taken at the analysed dataset only).

Routes: (1) an independent exact enumeration written here (Fractions; every dataset of a small universe and
every x in it), (2) the library's ``check_corollary_3_2``; they must agree on the worst joint moment.
"""
from __future__ import annotations

import itertools
from fractions import Fraction as F

from hypothesis import example, given, settings
from hypothesis import strategies as st

from reference.bounds import feldman2021 as FZ
from reference.verify import feldman2021 as FZV
from test_feldman2021_thm3_1 import sym_moment, within_budget

UNIVERSE = (1, 2, 3)


def subsets(universe, k):
    return [c for r in range(k + 1) for c in itertools.combinations(universe, r)]


def make_mech(values, weights):
    """Bernoulli sum query: P(y = 1 | h, S) = 1/2 + w(h) sum_{z in S} v_z / 8, w(h) adaptive from ``weights``."""
    def mech(h, S):
        w = weights[(len(h) + 2 * sum(h)) % len(weights)]
        p = F(1, 2) + w * sum(values[z] for z in S) / 8
        return (p, 1 - p)
    return mech


def individual_moment(mech, h, x, family, a):
    """exp((a-1) rho_t^(x)(h)): sup over S in the family containing x (Definition 2.5 / eq. (2))."""
    return max([F(1)] + [sym_moment(mech(h, S), mech(h, tuple(z for z in S if z != x)), a) for S in family if x in S])


def per_instance_moment(mech, h, x, S, a):
    """exp((a-1) rho_t^(x)(h)) for the per-instance notion (Definition 2.6): at the analysed S only."""
    return sym_moment(mech(h, S), mech(h, tuple(z for z in S if z != x)), a)


def worst_joint(mech, family, a, horizon, per_instance=False):
    """max over S, x in S of the joint moment of A(S) vs A(S \\ x), and of the path products of rho^(x)."""
    worst, bound = F(1), F(1)
    for S in family:
        for x in S:
            T = tuple(z for z in S if z != x)
            m_st = m_ts = F(0)
            stack = [((), F(1), F(1), F(1))]
            while stack:
                h, p, q, prod = stack.pop()
                if len(h) == horizon:
                    m_st += p ** a / q ** (a - 1)
                    m_ts += q ** a / p ** (a - 1)
                    bound = max(bound, prod)
                    continue
                s = per_instance_moment(mech, h, x, S, a) if per_instance else individual_moment(mech, h, x, family, a)
                P, Q = mech(h, S), mech(h, T)
                for y in (0, 1):
                    stack.append((h + (y,), p * P[y], q * Q[y], prod * s))
            worst = max(worst, m_st, m_ts)
    return worst, bound


VALS = st.fixed_dictionaries({1: st.just(F(0)), 2: st.fractions(0, 1, max_denominator=8), 3: st.fractions(0, 1, max_denominator=8)})
WTS = st.lists(st.fractions(min_value=F(1, 8), max_value=1, max_denominator=8), min_size=1, max_size=3)


@given(VALS, WTS, st.sampled_from([2, 3]), st.integers(1, 5))
@example({1: F(0), 2: F(1, 2), 3: F(1)}, [F(1), F(1, 8)], 2, 5)
@settings(deadline=None, max_examples=15)
def test_corollary_3_2_individual_budget_implies_rdp(values, weights, a, horizon):
    """Corollary 3.2: for all S and x in S, D^<->_alpha(A(S)||A(S\\x)) <= B* := max_path sum_t rho_t^(x)."""
    mech = make_mech(values, weights)
    family = subsets(UNIVERSE, 3)
    worst, bound = worst_joint(mech, family, a, horizon)
    assert worst <= bound


@given(VALS, WTS, st.sampled_from([2, 3]), st.integers(1, 4))
@settings(deadline=None, max_examples=10)
def test_corollary_3_2_agrees_with_library(values, weights, a, horizon):
    """Second route: reference.verify.feldman2021.check_corollary_3_2 finds the same worst joint moment and bound."""
    mech = make_mech(values, weights)
    worst, bound = worst_joint(mech, subsets(UNIVERSE, 3), a, horizon)
    lib = FZV.check_corollary_3_2(mech, UNIVERSE, 3, a, horizon)
    assert (lib.worst_moment, lib.bound_moment) == (worst, bound) and lib.holds


def test_corollary_3_2_per_instance_variant():
    """Seed after Corollary 3.2: the conclusion also holds with per-instance parameters (Definition 2.6), i.e. for
    every S and x in S the joint moment is at most the path max of the per-instance products."""
    mech = make_mech({1: F(0), 2: F(1, 2), 3: F(1)}, [F(1), F(1, 4)])
    for S in subsets(UNIVERSE, 3):
        if S:
            worst, bound = worst_joint(mech, [S], 3, 5, per_instance=True)
            assert worst <= bound
    # per-instance parameters are never above the individual ones (the sup ranges over more datasets)
    fam = subsets(UNIVERSE, 3)
    for h in [(), (1,), (0, 1)]:
        for S in fam:
            for x in S:
                assert per_instance_moment(mech, h, x, S, 2) <= individual_moment(mech, h, x, fam, 2)


def test_corollary_3_2_with_a_rational_budget():
    """Budget form: B = 1/10; the adaptive weights keep sum_t rho_t^(x) <= B on every path for every x, so the joint
    divergence is <= B (exact decisions)."""
    mech = make_mech({1: F(0), 2: F(1, 2), 3: F(1)}, [F(1, 4), F(1, 8)])
    worst, bound = worst_joint(mech, subsets(UNIVERSE, 3), 2, 4)
    assert within_budget(bound, 2, F(1, 10)) and within_budget(worst, 2, F(1, 10))
