"""Orderings that must hold between the filters of the seeds and the classical yardsticks.

On a homogeneous workload of eps0-randomized-response steps, any valid (eps, delta)
rule admits at most as many rounds as the optimal composition (Kairouz, Oh, Viswanath:
k-fold eps0-RR is the worst case and its exact delta(eps) is what optimal composition
computes), and basic composition is always valid.  These are theorems, so they are
tested as orderings over random parameters, together with the orderings the formulas
imply (the filter's lower-order term V/2 is at least advanced composition's).
"""
from fractions import Fraction as F

import pytest
from hypothesis import example, given, settings, strategies as st

from reference.bounds import baselines as B
from reference.bounds.classical import kov_delta
from reference.precision import mpf_to_fraction

eps0_st = st.fractions(min_value=F(1, 500), max_value=F(1, 2), max_denominator=1000)
eps_st = st.fractions(min_value=F(1, 10), max_value=3, max_denominator=100)
delta_st = st.sampled_from([F(1, 10), F(1, 1000), F(1, 10**6), F(1, 10**10)])
GAME_HORIZON = 1000  # the game filter's sweep is computed in the comparison below up to this many units


@given(eps0_st, eps_st, delta_st)
@example(F(1, 100), F(1), F(1, 10**6))
@example(F(1, 2), F(1, 10), F(1, 10))
@settings(max_examples=30)
def test_every_rule_admits_at_most_the_optimal_rounds(eps0, eps, delta):
    """Every rule, the game filter where its sweep is short (up to GAME_HORIZON units of eps0^2: a finer grid takes
    rounds_comparison's too-large branch here, seconds to minutes saved per example; the game's own bound against
    the optimum at fine grids is in ``proofs/test_game.py``)."""
    from unittest import mock

    from reference.bounds import game_filter as G

    real = G.game_filter_rounds

    def game_or_too_large(e0, e, d):
        if G.kov_count_lower(e, d, e0) > GAME_HORIZON:
            raise G.GameTooLarge(f"left out here: more than {GAME_HORIZON} units")
        return real(e0, e, d)

    with mock.patch.object(G, "game_filter_rounds", game_or_too_large):
        r = B.rounds_comparison(eps0, eps, delta)
    opt = r["optimal"]
    if G.kov_count_lower(eps, delta, eps0) <= GAME_HORIZON:
        assert r["game_filter"] is not None and r["whitehouse_filter"] <= r["game_filter"] <= opt
    else:
        assert r["game_filter"] is None
    assert r["basic"] <= opt
    assert r["advanced"] <= opt
    assert r["whitehouse_filter"] <= r["advanced"] <= opt
    assert r["feldman_zrnic_filter"] <= opt
    if r["rogers_filter"] is not None:
        assert r["rogers_filter_as_printed"] <= r["rogers_filter"] <= opt


@given(eps0_st, eps_st, delta_st)
@settings(max_examples=20)
def test_optimal_rounds_is_the_exact_threshold(eps0, eps, delta):
    """Second route: the KOV delta at the returned k is <= delta and at k + 1 it is > delta (60 digits)."""
    k = B.optimal_rounds_homogeneous(eps0, eps, delta)
    if k > 0:
        assert mpf_to_fraction(kov_delta(eps0, 0, k, eps, dps=60)) <= delta
    assert mpf_to_fraction(kov_delta(eps0, 0, k + 1, eps, dps=60)) > delta


def test_the_paper_setting():
    """eps0 = 0.01, (eps, delta) = (1, 1e-6): the filters of Whitehouse et al. and Feldman-Zrnic coincide
    with advanced composition here; the corrected Rogers et al. filter admits fewer; eq. (12) as printed admits none."""
    r = B.rounds_comparison("0.01", "1", "1e-6")
    assert r["whitehouse_filter"] == r["feldman_zrnic_filter"] == r["advanced"]
    assert 0 == r["rogers_filter_as_printed"] < r["rogers_filter"] < r["whitehouse_filter"] < r["optimal"]
    assert r["basic"] == 100


@pytest.mark.parametrize("bad", [dict(eps0=0), dict(eps=-1), dict(delta=1), dict(delta="0")])
def test_bad_inputs_name_the_parameter(bad):
    kw = dict(eps0="0.01", eps="1", delta="1e-6") | bad
    with pytest.raises(ValueError, match=next(iter(bad))):
        B.rounds_comparison(**kw)
