"""feldman2021 Definition 4.1 (RDP filter) (seed 002_485f6b48c71ae221.txt; Feldman and Zrnic, arXiv 2008.11193).

Definition (our words, reconstructed).  Fix alpha > 1 and a budget B > 0.  A function F from finite sequences of
positive reals to {HALT, CONT} is a valid Renyi privacy filter if for every sequence of algorithms and every pair
of datasets (S, S'), the output of Algorithm 2 run with F satisfies

    D^<->_alpha( A^(T)(S) || A^(T)(S') ) <= B      (T the random halting round).

The seed adds: without loss of generality F is monotone (if F halts on rho_1..rho_t it halts on every
rho'_1..rho'_t with rho'_j >= rho_j), which lets the filter be used with parameters defined by a set of pairs.

Checks: the sum filter of Theorem 4.3 satisfies the definition on exact adaptive compositions (validity), is
monotone (hypothesis over sequences), and a filter that ignores the budget is not valid (negative control).
"""
from __future__ import annotations

from fractions import Fraction as F

from hypothesis import example, given
from hypothesis import strategies as st

from reference.bounds import feldman2021 as FZ
from test_feldman2021_thm3_1 import enumerate_composition, table_strategy, within_budget
from test_feldman2021_thm4_3 import exact_filter

RHOS = st.lists(st.fractions(min_value=0, max_value=3, max_denominator=100), min_size=1, max_size=12)


def test_definition_4_1_sum_filter_is_valid():
    """Validity: D^<->_alpha(output of Algorithm 2 with F_{alpha,B}) <= B for several adaptive adversaries."""
    for table in ([F(3, 4)], [F(3, 5), F(9, 10)], [F(11, 20), F(4, 5), F(2, 3)]):
        for a, B in ((2, F(1, 2)), (3, F(1)), (4, F(2))):
            law = table_strategy(table)
            r = enumerate_composition(law, [(1, 0)], a, 8, admit=exact_filter(a, B))[0][(1, 0)]
            assert within_budget(r["m"], a, B)


@given(RHOS, st.lists(st.fractions(min_value=0, max_value=1, max_denominator=100), min_size=12, max_size=12),
       st.fractions(min_value=F(1, 100), max_value=5, max_denominator=100))
@example([F(1, 2), F(1, 2)], [F(0)] * 12, F(1))
def test_definition_4_1_sum_filter_is_monotone(rhos, bumps, B):
    """Monotonicity: if F_{alpha,B} halts on (rho_1..rho_t) it halts on every pointwise larger (rho'_1..rho'_t)."""
    larger = [r + b for r, b in zip(rhos, bumps)]
    halts = FZ.renyi_filter_stop_index(rhos, B) < len(rhos)
    halts_larger = FZ.renyi_filter_stop_index(larger, B) < len(larger)
    assert (not halts) or halts_larger
    assert FZ.renyi_filter_stop_index(larger, B) <= FZ.renyi_filter_stop_index(rhos, B)


def test_negative_control_a_filter_that_never_halts_is_not_valid():
    """F = CONT always is not an RDP filter for B: the exact joint divergence exceeds B."""
    law = table_strategy([F(3, 4)])
    r = enumerate_composition(law, [(1, 0)], 2, 6, admit=lambda prod, s: True)[0][(1, 0)]
    assert not within_budget(r["m"], 2, F(1))
