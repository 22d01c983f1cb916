"""The per-example DP-SGD filter attacked one example at a time (reference.falsify.individual_probe): the shipped rule
survives an adaptive choice of the example's norms off the grid; the planted rule that rounds scales down is refuted."""
from __future__ import annotations

from fractions import Fraction as F

import pytest

from reference.falsify import individual_probe as P
from reference.falsify.claims import CLAIMS


@pytest.fixture(scope="module")
def runs():
    return {c: P.run_individual_probe(c) for c in ("INDIVIDUAL-DPSGD-GAME", "NC-INDIVIDUAL-SCALE-DOWN")}


def test_the_shipped_rule_is_certified_safe_on_the_attack(runs):
    r = runs["INDIVIDUAL-DPSGD-GAME"]
    assert r["counterexample"] is None
    assert r["space"]["certified_safe"]  # the upper end of every adaptive choice of norms is <= delta
    assert r["space"]["dropped"] == []   # every attack scale was charged (none free, none refused)


def test_the_planted_scale_down_rule_is_refuted(runs):
    r = runs["NC-INDIVIDUAL-SCALE-DOWN"]
    ce = r["counterexample"]
    assert ce is not None and F(ce["probability_lower"]) > F(ce["promised"])
    # its free steps (norms below the first grid scale) are listed, not silently played
    assert any("charged 0" in d for d in r["space"]["dropped"])


def test_one_example_reads_the_filter_own_charges():
    eps, delta, q, sigma, clip, scales, bits = P.INDIVIDUAL_MENU
    good = P._filters()["INDIVIDUAL-DPSGD-GAME"]()
    one = P.OneExample(good)
    c_half, c_one = good.costs
    assert [one.charge(q, sigma, s) for s in P.ATTACK_SCALES] == [c_half, c_half, c_one, c_one, c_one]
    bad = P.OneExample(P._filters()["NC-INDIVIDUAL-SCALE-DOWN"]())
    assert [bad.charge(q, sigma, s) for s in P.ATTACK_SCALES] == [0, 0, c_half, c_half, c_one]
    with pytest.raises(ValueError, match="q ="):
        one.charge(q / 2, sigma, 1)


def test_the_claims_are_registered():
    ids = {c.id: c for c in CLAIMS}
    assert ids["INDIVIDUAL-DPSGD-GAME"].expected == "valid" and ids["NC-INDIVIDUAL-SCALE-DOWN"].expected == "false"
