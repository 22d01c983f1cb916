"""The falsifier's step-by-step attack on the block DP-SGD filter (reference.falsify.block_probe) and its controls.

The valid block filter must survive an analyst that plays single off-grid steps over the filter
object's own states (switching and stopping inside blocks); the planted rules must be refuted
(certified lower end > delta).  Second routes: the attack's state graph is checked against the
rule's statement (every state's spent <= B*, the open block's steps left below its length), and
the actual analyst's value on dominated steps never exceeds the menu's own certified value at B*.
"""
from __future__ import annotations

from fractions import Fraction as F

import pytest

from reference.accountants.dpsgd_game import DPSGDGameFilter
from reference.falsify import falsify
from reference.falsify.block_probe import (BLOCK_FILTER, LongerBlockFilter, NoDominanceCheckFilter, _order,
                                           _transitions, attack_states)
from reference.falsify.dpsgd_probe import ATTACK_STEPS

EPS, DELTA, MENU, BITS, BLOCK = BLOCK_FILTER


@pytest.fixture(scope="module")
def valid():
    return falsify("DPSGD-BLOCK-FILTER")[0]


def test_the_valid_block_filter_survives_the_step_by_step_analyst(valid):
    assert valid.claim.expected == "valid" and not valid.found and valid.agrees
    w, s = valid.worst, valid.space
    assert F(w["value_lower"]) <= DELTA and s["certified_safe"] and F(s["value_upper_max"]) <= DELTA
    f = DPSGDGameFilter(EPS, DELTA, MENU, BITS, block=BLOCK)
    assert F(w["value_lower"]) <= F(f.certificate["game_value_at_budget_upper"])
    # the attack really plays inside blocks: its longest path is longer than the number of blocks
    assert s["depth"] > f.budget and s["blocks"] == list(f.blocks)


def test_the_state_graph_follows_the_rule():
    f = DPSGDGameFilter(EPS, DELTA, MENU, BITS, block=BLOCK)
    f.try_run(*[str(x) for x in ATTACK_STEPS[0]])
    before = (f._game_state(), f.n, f.history)
    steps = [tuple(F(x) for x in st) for st in ATTACK_STEPS]
    graph, start = _transitions(f, steps)
    assert (f._game_state(), f.n, f.history) == before          # the object is left as it was
    for (spent, (j, left)), out in graph.items():
        assert 0 <= spent <= f.budget
        assert left == 0 or 0 <= left < f.blocks[j]
        for i, (spent2, (j2, left2)) in out:
            if spent2 == spent:      # a free step: inside the open block, dominated by its item, one step used
                assert j2 == j and left2 == left - 1 and MENU[j].dominates(*steps[i])
            else:                    # a block opened at an item dominating the step
                assert spent2 == spent + f.costs[j2] and left2 == f.blocks[j2] - 1 and MENU[j2].dominates(*steps[i])
    order, depth = _order(graph, start)
    assert order is not None and order[-1] == start and depth >= 1


def test_a_rule_admitting_free_steps_forever_is_a_counterexample():
    class Forever(DPSGDGameFilter):
        def _decide(self, q, sigma, scale, commit, raise_):
            return True                                 # admits and never changes state

    f = Forever(EPS, DELTA, MENU, BITS, block=BLOCK)
    a = attack_states(f, lower=False)
    assert a["cycle"] and not a["upper"]


@pytest.mark.parametrize("claim, cls", [("NC-BLOCK-NO-DOMINANCE", NoDominanceCheckFilter),
                                        ("NC-BLOCK-LONGER", LongerBlockFilter)])
def test_planted_block_rules_are_refuted(claim, cls):
    r = falsify(claim)[0]
    assert r.claim.control and r.found and r.agrees
    assert F(r.counterexample["probability_lower"]) > DELTA
    assert type(cls(EPS, DELTA, MENU, BITS, block=BLOCK)).__name__ == r.counterexample["target"]
