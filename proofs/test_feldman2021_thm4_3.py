"""feldman2021 Theorem 4.3 (seed 002_485f6b48c71ae221.txt; Feldman and Zrnic, arXiv 2008.11193; formulas stripped).

Statement (our words, reconstructed from the proof).  The filter

    F_{alpha,B}(rho_1, ..., rho_t) = HALT  if  sum_{j<=t} rho_j > B,  CONT otherwise

is a valid Renyi privacy filter (Definition 4.1): Algorithm 2 run with it outputs a transcript of random length
with D^<->_alpha(A(S) || A(S')) <= B.  Proof route: the stopping round T is a bounded stopping time, so by optional
stopping E[M_T] <= M_0 = 1 for the supermartingale of Theorem 3.1, and sum_{j<=T} rho_j <= B on every path.

Routes: an independent exact enumeration with the filter applied with exact moments (this module,
``test_feldman2021_thm3_1.enumerate_composition``), the library's ``check_adaptive_composition(rdp_filter=...)``
and the stateful ``RenyiFilter``; closed forms for the stop index (naive prefix sums) and for a homogeneous
workload (floor(B/rho)); a negative control (the filter checked before adding the step) is caught.
"""
from __future__ import annotations

from fractions import Fraction as F

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from reference.bounds import feldman2021 as FZ
from reference.verify import feldman2021 as FZV
from reference.accountants import feldman2021 as FZA
from reference.precision import compare_exp_rational
from test_feldman2021_thm3_1 import P_VALUES, enumerate_composition, moment, table_strategy, within_budget

BUDGETS = st.sampled_from([F(1, 100), F(1, 10), F(1, 2), F(1), F(3)])


def exact_filter(a, B):
    """CONT iff prod_t s_t <= exp((alpha-1) B), i.e. sum_t rho_t <= B, decided exactly."""
    return lambda prod, s: compare_exp_rational((a - 1) * B, prod * s) >= 0


@given(st.lists(P_VALUES, min_size=1, max_size=6), st.sampled_from([2, 3, 5]), BUDGETS)
@example([F(3, 4)], 2, F(1, 100))
@example([1 - F(1, 10**6), F(11, 20)], 3, F(3))
@settings(deadline=None)
def test_theorem_4_3_filtered_output_is_rdp(table, a, B):
    """Theorem 4.3: with adaptive stopping by F_{alpha,B}, D^<->_alpha(joint) <= B; the path sums stay <= B and
    the proof's stopped supermartingale E[M_T] <= 1."""
    law = table_strategy(table)
    res, max_prod, _ = enumerate_composition(law, [(1, 0)], a, 8, admit=exact_filter(a, B),
                                             param=lambda h: max(moment(law(h, 1), law(h, 0), a), moment(law(h, 0), law(h, 1), a)))
    r = res[(1, 0)]
    assert within_budget(max_prod, a, B)
    assert within_budget(r["m"], a, B)
    assert r["sm_de"] <= 1 and r["sm_ed"] <= 1


@given(st.lists(P_VALUES, min_size=1, max_size=4), st.sampled_from([2, 3]), BUDGETS)
@settings(deadline=None, max_examples=15)
def test_theorem_4_3_library_filter_agrees(table, a, B):
    """Second route: the library's RenyiFilter inside its exact checker also ends within B (it offers a certified
    rational upper bound of rho_t to the rule, so it may stop earlier than the exact filter, never later)."""
    law = table_strategy(table)
    lib = FZV.check_adaptive_composition(lambda h: (law(h, 1), law(h, 0)), a, 8, rdp_filter=FZA.RenyiFilter(a, B))
    res, _, _ = enumerate_composition(law, [(1, 0)], a, 8, admit=exact_filter(a, B))
    assert lib.holds_for_budget(B)
    assert lib.max_len <= 8


@given(st.lists(st.fractions(min_value=0, max_value=5, max_denominator=1000), min_size=1, max_size=30),
       st.fractions(min_value=F(1, 10**6), max_value=20, max_denominator=10**6))
@example([F(1, 10)] * 10 + [F(1, 10**9)], F(1))
@example([F(0)] * 5, F(1, 10**6))
def test_theorem_4_3_stop_index_is_first_prefix_over_budget(rhos, B):
    """F_{alpha,B} halts at the first t with sum_{j<=t} rho_j > B: naive prefix sums vs renyi_filter_stop_index and
    the stateful RenyiFilter (try_run commits exactly the admitted prefix)."""
    k = next((t for t in range(len(rhos)) if sum(rhos[: t + 1]) > B), len(rhos))
    assert FZ.renyi_filter_stop_index(rhos, B) == k
    flt = FZA.RenyiFilter(2, B)
    ran = 0
    for r in rhos:
        if not flt.try_run(r):
            break
        ran += 1
    assert ran == k and flt.spent == sum(rhos[:k]) <= B


@given(st.fractions(min_value=F(1, 10**6), max_value=10, max_denominator=10**6),
       st.fractions(min_value=F(1, 10**6), max_value=10**3, max_denominator=10**6))
@example(F(1, 10), F(1))
@example(F(1, 3), F(1))
@example(F(1, 10**6), F(10**3))
def test_theorem_4_3_homogeneous_rounds(rho, B):
    """Homogeneous workload: floor(B/rho) rounds, k rho <= B < (k+1) rho (same count as fixed RDP composition)."""
    k = FZ.renyi_filter_rounds(rho, B)
    assert k * rho <= B < (k + 1) * rho
    if k <= 2000:  # naive route on the explicit workload (the closed form also covers 10^9 rounds)
        assert FZ.renyi_filter_stop_index([rho] * (k + 2), B) == k


def test_negative_control_filter_checked_before_the_step_is_caught():
    """A filter that admits while the budget spent *before* the step is within B runs one step too many."""
    law = table_strategy([F(3, 4)])
    a = 2
    s = moment((F(3, 4), F(1, 4)), (F(1, 4), F(3, 4)), a)
    B = F(1)  # one step of RR(3/4) at alpha = 2 costs log(7/3) ~ 0.85: one step fits, two do not
    good = enumerate_composition(law, [(1, 0)], a, 6, admit=exact_filter(a, B))[0][(1, 0)]["m"]
    bad_rule = lambda prod, s_: compare_exp_rational((a - 1) * B, prod) >= 0
    bad = enumerate_composition(law, [(1, 0)], a, 6, admit=bad_rule)[0][(1, 0)]["m"]
    assert s == F(7, 3) and within_budget(good, a, B) and not within_budget(bad, a, B)


def test_bad_inputs_name_the_parameter():
    with pytest.raises(ValueError, match="B"):
        FZ.renyi_filter_stop_index([F(1)], 0)
    with pytest.raises(ValueError, match="rho"):
        FZ.renyi_filter_stop_index([F(-1)], 1)
    with pytest.raises(ValueError, match="alpha"):
        FZA.RenyiFilter(1, 1)
