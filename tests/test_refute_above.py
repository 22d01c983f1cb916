"""B* + 1 refuted by a homogeneous run (reference.profiles.sgm_plan.refute_above): an actual analyst, certified.

Second route: the PLD bracket of the same run, computed here; the refuting value lies inside it
(a lower end, never the upper one), and the run is one the filter with budget B* + 1 admits.
"""
from __future__ import annotations

from fractions import Fraction as F

from reference.bounds.sgm_game import SGMItem, sgm_menu_certificate
from reference.precision import mpf_to_fraction
from reference.profiles.sgm_plan import menu_certificate, refute_above
from reference.profiles.sgm_pld import sgm_pld_delta_bracket

EPS, DELTA = F(8), F(1, 1000)
ITEM = SGMItem(F(1, 10), F(1, 2))


def test_a_single_item_block_budget_is_refuted_one_block_up():
    c = menu_certificate(EPS, DELTA, [str(ITEM)], bits=6, block=2)
    assert c.decided and c.lower_above > DELTA
    n = (c.budget + 1) * c.blocks[0]
    assert str(n) in c.extra["refuted_by"] and "homogeneous run" in c.extra["refuted_by"]
    b = sgm_pld_delta_bracket(ITEM.q, ITEM.sigma, n, EPS)
    assert mpf_to_fraction(b.lo) == c.lower_above <= mpf_to_fraction(b.hi)
    # and B* itself is within the certified count: the same run one block shorter is below delta at its upper end
    assert c.upper_at_budget <= DELTA


def test_nothing_changes_when_no_item_gains_a_step():
    c = sgm_menu_certificate(EPS, DELTA, [ITEM, SGMItem(F(1, 10), F(5, 8))], bits=6)
    before = (c.lower_above, c.decided)
    gains = [((c.budget + 1) // k) > (c.budget // k) for k in c.costs]
    out = refute_above(c)
    if not any(gains):
        assert (out.lower_above, out.decided) == before and "refuted_by" not in out.extra
    else:
        assert out.lower_above >= before[0]
