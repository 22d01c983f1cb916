"""feldman2021 Lemma 4.2 (seed 002_485f6b48c71ae221.txt; Feldman and Zrnic, arXiv 2008.11193; formulas stripped).

Statement (our words, reconstructed).  If F is a valid RDP filter (Definition 4.1) with order alpha and budget B,
then for any sequence of algorithms and any *set* of pairs of datasets, Algorithm 2 run with the parameters
``rho_t = sup over the set of D^<->_alpha(A_t(., S) || A_t(., S'))`` (eq. (1)) satisfies

    D^<->_alpha( A(S) || A(S') ) <= B    for every pair (S, S') in the set.

(Route in the seed: monotonicity; for each fixed pair its own parameters are <= the sup, so the filter would
have halted at least as late on them, and validity for that pair applies.)

Check: three datasets and three pairs with adaptive Bernoulli steps; the sum filter applied to the sup
parameter; each pair's exact joint divergence is <= B (independent exact enumeration, exact decisions).
"""
from __future__ import annotations

from fractions import Fraction as F

from hypothesis import example, given, settings
from hypothesis import strategies as st

from test_feldman2021_thm3_1 import PAIRS3, WEIGHTS, enumerate_composition, family_law, within_budget
from test_feldman2021_thm4_3 import exact_filter


@given(WEIGHTS, st.sampled_from([2, 3, 4]), st.sampled_from([F(1, 50), F(1, 10), F(1, 2), F(2)]))
@example([F(1)], 2, F(1, 10))
@example([F(1, 30), F(1)], 4, F(2))
@settings(deadline=None)
def test_lemma_4_2_every_pair_of_the_set_within_budget(table, a, B):
    """Lemma 4.2: for every (S, S') in the set, D^<->_alpha(Algorithm 2 output) <= B with rho_t = sup over the set."""
    res, max_prod, _ = enumerate_composition(family_law(table), PAIRS3, a, 7, admit=exact_filter(a, B))
    assert within_budget(max_prod, a, B)
    for pair, r in res.items():
        assert within_budget(r["m"], a, B), pair


def test_lemma_4_2_needs_the_sup_over_the_set():
    """Negative control: filtering on the parameter of one pair only ((0,1)) lets the pair (0,2) exceed B."""
    from test_feldman2021_thm3_1 import sym_moment
    law = family_law([F(1, 2)])
    a, B = 2, F(1, 10)
    only01 = lambda h: sym_moment(law(h, 0), law(h, 1), a)
    res, _, _ = enumerate_composition(law, PAIRS3, a, 7, admit=exact_filter(a, B), param=only01)
    assert within_budget(res[(0, 1)]["m"], a, B)
    assert not within_budget(res[(0, 2)]["m"], a, B)
