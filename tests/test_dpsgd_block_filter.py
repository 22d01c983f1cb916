"""DPSGDGameFilter with blocks: free steps inside an open block, a block per switch, exact replay, save and restore.

The second route is a plain step-by-step simulation of the rule written here from its statement
(open block, steps left, one cost per block), run beside the filter on random sequences; the
block certificate itself is tested in proofs/test_sgm_block_game.py.
"""
from __future__ import annotations

import json
import threading
from fractions import Fraction as F

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reference.accountants import DPSGDGameFilter
from reference.accountants.base import _digest
from reference.bounds.sgm_game import SGMItem

EPS, DELTA, BITS, BLOCK = F(2263, 100), F(1, 1000), 4, 2
MENU = [SGMItem(F(1, 10), F(1, 2)), SGMItem(F(1, 10), F(5, 8))]
#: steps: item 0 itself, item 1 itself, one dominated by both (charged per step at the cheaper per step), one by item 0 only
STEPS = [("1/10", "1/2"), ("1/10", "5/8"), ("1/20", "3/4"), ("1/10", "11/20")]


def make():
    return DPSGDGameFilter(EPS, DELTA, MENU, bits=BITS, block=BLOCK)


@pytest.fixture(scope="module")
def f0():
    return make()


def _simulate(f, seq):
    """The rule from its statement: (admitted flags, spent, open item, steps left)."""
    B, cs, ms = f.budget, f.costs, f.blocks
    spent, j, left, out = 0, None, 0, []
    for q, s in seq:
        q, s = F(q), F(s)
        if left > 0 and MENU[j].dominates(q, s):
            out.append(True)
            left -= 1
            continue
        dom = [k for k, it in enumerate(MENU) if it.dominates(q, s)]
        k = min(dom, key=lambda i: (F(cs[i], ms[i]), i))
        if spent + cs[k] > B:
            out.append(False)
            continue
        spent += cs[k]
        j, left = k, ms[k] - 1
        out.append(True)
    return out, spent, j, left


def test_the_certificate_has_blocks(f0):
    c = f0.certificate
    assert c["blocks"] == list(f0.blocks) and min(f0.blocks) == BLOCK and f0.costs == (1, 1)
    assert F(c["game_value_at_budget_upper"]) <= DELTA


@pytest.mark.parametrize("i", [0, 1])
def test_a_homogeneous_run_gets_its_blocks(f0, i):
    f = make()
    q, s = str(MENU[i].q), str(MENU[i].sigma)
    n = 0
    while f.try_run(q, s):
        n += 1
    assert n == f0.budget * f0.blocks[i] == f0._cert.rounds(i)
    r = f.remaining()
    assert r.remaining == 0 and r.block_left == 0 and r.steps_left == (0, 0)


def test_switching_forfeits_the_open_block(f0):
    f = make()
    assert f.try_run(*STEPS[0])            # opens a block of item 0
    assert f.spent == 1 and f.remaining().block_left == f0.blocks[0] - 1
    assert f.try_run(*STEPS[3])            # dominated by item 0: free
    assert f.spent == 1
    # with the block used up, item 1's step opens a block of item 1 (cheaper per step), charged one unit
    while f.remaining().block_left:
        assert f.try_run(*STEPS[0]) and f.spent == 1
    if f.budget >= 2:
        assert f.try_run(*STEPS[1]) and f.spent == 2
        r = f.remaining()
        assert r.block_item == 1 and r.block_left == f0.blocks[1] - 1
        # a step only item 0 dominates now forfeits item 1's open block and opens one of item 0
        if f.budget >= 3:
            assert f.try_run(*STEPS[0]) and f.spent == 3
            assert f.remaining().block_item == 0 and f.remaining().block_left == f0.blocks[0] - 1


@settings(max_examples=40, deadline=None)
@given(st.lists(st.sampled_from(range(len(STEPS))), min_size=1, max_size=60))
def test_random_sequences_follow_the_rule(f0, seq):
    f = make()
    steps = [STEPS[i] for i in seq]
    want, spent, j, left = _simulate(f0, steps)
    got = [f.try_run(*s) for s in steps]
    assert got == want
    r = f.remaining()
    assert r.spent == spent and r.block_left == left and (r.block_item == (j if left else None))
    assert r.spent <= r.budget
    # replay from the saved history (run-length, closed form per run) reaches the same state
    g = DPSGDGameFilter.from_json(f.to_json())
    assert g.remaining() == r and g.n == f.n
    nxt = [f.try_run(*s) for s in STEPS]
    assert [g.try_run(*s) for s in STEPS] == nxt


def test_a_state_saved_before_blocks_existed_loads_per_step():
    f = DPSGDGameFilter(EPS, DELTA, MENU, bits=BITS)
    f.try_run(*STEPS[0])
    d = json.loads(f.to_json())
    del d["params"]["block"], d["params"]["blocks"]
    d["digest"] = _digest({k: v for k, v in d.items() if k not in ("digest", "hmac")})
    g = DPSGDGameFilter.from_json(json.dumps(d))
    assert g.blocks is None and g.spent == f.spent and g.n == 1


def test_a_tampered_block_length_is_refused(f0):
    f = make()
    f.try_run(*STEPS[0])
    d = json.loads(f.to_json())
    d["params"]["blocks"] = [b + 1 for b in d["params"]["blocks"]]
    d["digest"] = _digest({k: v for k, v in d.items() if k not in ("digest", "hmac")})
    with pytest.raises(ValueError, match="blocks"):
        DPSGDGameFilter.from_json(json.dumps(d))


def test_a_history_past_the_budget_is_refused(f0):
    f = make()
    d = json.loads(f.to_json())
    n = f0.budget * f0.blocks[0] + 1
    d["history"] = [["1/10", "1/2", "1", n]]
    d["state"] = {"n": n, "spent": str(f0.budget + 1)}
    d["digest"] = _digest({k: v for k, v in d.items() if k not in ("digest", "hmac")})
    with pytest.raises(ValueError, match="not reachable"):
        DPSGDGameFilter.from_json(json.dumps(d))


def test_bad_block_is_named():
    with pytest.raises(ValueError, match="block"):
        DPSGDGameFilter(EPS, DELTA, MENU, bits=BITS, block=0)


def test_threads_never_overspend(f0):
    f = make()

    def work(i):
        for _ in range(40):
            f.try_run(*STEPS[i % len(STEPS)])

    ts = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert f.spent <= f.budget
    # the history, replayed, gives the same spending
    assert DPSGDGameFilter.from_json(f.to_json()).spent == f.spent
