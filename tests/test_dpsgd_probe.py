"""The falsifier's attack on the DP-SGD game filter (reference.falsify.dpsgd_probe) and its two planted controls.

The valid filter must survive an adaptive analyst on actual subsampled-Gaussian steps off its
menu grid (certified lower end <= delta, and here the certified upper end too); the planted
rules must be refuted by the same attack (a certified lower end > delta).  Second routes: each
charge the attack reads from the filter is checked against the domination rule
(:meth:`reference.bounds.sgm_game.SGMItem.dominates`), and an actual analyst's value on dominated
steps never exceeds the menu's own certified game value at B*.
"""
from __future__ import annotations

from fractions import Fraction as F

import pytest

from reference.accountants.dpsgd_game import DPSGDGameFilter
from reference.bounds.sgm_game import SGMItem
from reference.falsify import falsify, get_claim
from reference.falsify.dpsgd_probe import (ATTACK_STEPS, BUDGET_EXTRA, DPSGD_MENU, BudgetAboveFilter,
                                           SigmaRoundedUpFilter, _first_refuted_budget, attack)

EPS, DELTA, MENU, BITS = DPSGD_MENU


@pytest.fixture(scope="module")
def valid():
    return falsify("DPSGD-GAME-FILTER")[0]


def test_the_valid_filter_survives_the_off_grid_analyst(valid):
    assert valid.claim.expected == "valid" and not valid.found and valid.agrees
    w, s = valid.worst, valid.space
    assert F(w["value_lower"]) <= DELTA                         # no actual analyst beats delta
    assert s["certified_safe"] and F(s["value_upper_max"]) <= DELTA   # and none on these steps can (upper end)
    assert s["budget"] == s["certified_budget"] and not s["dropped"]
    f = DPSGDGameFilter(EPS, DELTA, MENU, BITS)
    # an actual analyst on dominated steps is one on the menu: below the menu's certified value at B*
    assert F(w["value_lower"]) <= F(f.certificate["game_value_at_budget_upper"])


def test_every_attack_charge_is_at_a_dominating_item():
    f = DPSGDGameFilter(EPS, DELTA, MENU, BITS)
    for q, s, c in ATTACK_STEPS:
        k = f.charged_item(q, s, c)
        assert MENU[k].dominates(q, s, c)
        assert all(f.costs[k] <= f.costs[j] for j, it in enumerate(MENU) if it.dominates(q, s, c))
    # the steps are off the menu's grid except the items themselves
    assert sum(1 for q, s, c in ATTACK_STEPS if SGMItem(q, s, c) in MENU) == 2


def test_charging_at_a_noisier_item_is_refuted():
    """NC-DPSGD-CHARGE-SIGMA-UP: sigma = 51/100 charged as the sigma = 5/8 item (which does not dominate it)."""
    bad = SigmaRoundedUpFilter(EPS, DELTA, MENU, BITS)
    k = bad.charged_item(F(1, 10), F(51, 100))
    assert k == 1 and not MENU[k].dominates(F(1, 10), F(51, 100))
    r = falsify("NC-DPSGD-CHARGE-SIGMA-UP")[0]
    assert r.claim.control and r.found and r.agrees
    assert F(r.counterexample["probability_lower"]) > DELTA


def test_a_budget_above_b_star_is_refuted_and_b_star_plus_one_is_not_at_this_grid():
    """NC-DPSGD-BUDGET-ABOVE.  B* + 1 is NOT refuted at the default grid 2^-6: the lower end of the game converges at
    first order in the grid width (its value at B* + 1 is about 0.00085 < delta = 0.001 here), and B* + 1 may even
    hold.  The planted budget is therefore B* + BUDGET_EXTRA (= B* + 8), which the attack's lower end does refute;
    the smallest refuted budget at this grid lies strictly between."""
    one = BudgetAboveFilter(EPS, DELTA, MENU, BITS, extra=1)
    a1 = attack(one)
    assert one.budget == one.certified_budget + 1 and max(a1["lower"].values()) <= DELTA      # not refuted
    r = falsify("NC-DPSGD-BUDGET-ABOVE")[0]
    assert r.claim.control and r.found and r.agrees and BUDGET_EXTRA > 1
    assert r.space["budget"] == r.space["certified_budget"] + BUDGET_EXTRA
    assert F(r.counterexample["probability_lower"]) > DELTA
    first = _first_refuted_budget(one)           # one lower table: the smallest refuted budget at this grid
    assert one.certified_budget + 1 < first <= one.certified_budget + BUDGET_EXTRA


def test_the_planted_budget_filter_admits_what_it_says():
    bad = BudgetAboveFilter(EPS, DELTA, MENU, BITS)
    c = bad.charge(F(1, 10), F(5, 8))
    n = 0
    while bad.try_run(F(1, 10), F(5, 8)):
        n += 1
    assert n == bad.budget // c and bad.remaining().budget == bad.budget == bad.certified_budget + BUDGET_EXTRA


def test_the_claims_are_registered_with_their_catalog_entry():
    assert get_claim("DPSGD-GAME-FILTER").catalog_ids == ("zhu2022_dpsgd_game_filter_budget",)
    assert get_claim("NC-DPSGD-CHARGE-SIGMA-UP").expected == get_claim("NC-DPSGD-BUDGET-ABOVE").expected == "false"


def test_the_command_line_prints_the_controls_counterexample(capsys):
    from reference.cli import main

    assert main(["falsify", "NC-DPSGD-CHARGE-SIGMA-UP"]) == 0
    out = capsys.readouterr().out
    assert "certified counterexample" in out and "charged [7, 2, 2, 2, 2, 2]" in out and "> promised 0.001" in out
