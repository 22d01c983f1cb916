"""``fullyadaptive plan`` replayed: every row's count is what the filter it names admits when fed the cycle.

The planner counts each filter's rounds with its own arithmetic (run-length sums, bisection, and for
the game filter a quotient and a remainder walk over the cycle's charges).  The second route here is
the shipped stateful filter itself: the row's ``accountant`` (class and exact parameters) is built,
fed the cycle step by step (``try_run``: the filter's own exact decision) until it refuses, and the
admitted count must equal the row's ``rounds`` exactly.  Workloads: heterogeneous pure-DP cycles
(a large step before a small one is where a remainder walk can skip a step the filter would refuse),
a homogeneous one, and cycles with Gaussian steps.
"""
from __future__ import annotations

import json
from fractions import Fraction as F

import pytest

import fullyadaptive as fa
from reference.bounds.planner import FILTERS, Step, parse_workload, plan
from reference.cli import main

TARGET = (1, "1e-6")
WORKLOADS = ["rr:0.05;rr:0.01", "rr:0.02;rr:0.01;rr:0.03", "rr:0.01*3;rr:0.025;rr:0.1", "rr:0.01",
             "rr:0.01*3;gaussian:sigma=40", "gaussian:sigma=20"]


def _feed(f, step: Step) -> bool:
    """One step of the cycle through the filter's public API (exact decision, committed iff admitted)."""
    if isinstance(f, fa.GaussianDPFilter):
        return f.try_run_dp(step.value) if step.kind == "dp" else f.try_run_gdp(step.value)
    assert step.kind == "dp", f"{type(f).__name__} was recommended for a {step.kind} step"
    return f.try_run(step.value)


def replay(row: dict, cycle) -> int:
    """Steps the row's filter admits when fed the repeated cycle until its first refusal."""
    acc = row["accountant"]
    f = getattr(fa, acc["class"])(**acc["params"])
    n, cap = 0, 4 * row["rounds"] + 4 * len(cycle) + 8  # a filter admitting far more than planned fails below
    while n < cap and _feed(f, cycle[n % len(cycle)]):
        n += 1
    return n


@pytest.mark.parametrize("workload", WORKLOADS)
def test_every_planned_row_is_what_its_filter_admits(workload):
    p = plan(*TARGET, workload)
    cycle = parse_workload(workload)
    assert p["rows"] and p["recommended"] == p["rows"][0]["key"]
    dp_only = all(s.kind == "dp" for s in cycle)
    for row in p["rows"]:
        assert row["filter"] == FILTERS[row["key"]][0], row["key"]
        if row["accountant"] is None:  # only the calibrated filters lack a Gaussian step, and only then
            assert not dp_only and row["key"] in ("calibrated_zcdp_filter", "calibrated_renyi_filter"), row["key"]
            continue
        assert row["accountant"]["class"] == FILTERS[row["key"]][1]
        assert replay(row, cycle) == row["rounds"], (workload, row["key"])
    rec = next(r for r in p["rows"] if r["key"] == p["recommended"])
    assert rec["accountant"] is not None or not dp_only


def test_a_remainder_walk_that_skips_a_large_step_is_caught():
    """Negative control: on rr:0.05;rr:0.01 the game filter's charges are (25, 1) units; a count that skips the refused
    25-unit step and admits the next 1-unit one is one step more than the filter admits, so the replay tells them apart."""
    p = plan(*TARGET, "rr:0.05;rr:0.01")
    row = next(r for r in p["rows"] if r["key"] == "game_filter")
    f = fa.GameFilter(**row["accountant"]["params"])
    charges = [f.charge(F(1, 20)), f.charge(F(1, 100))]
    assert charges == [25, 1] and f.budget == row["certificate"]["budget"]
    q, rem = divmod(f.budget, sum(charges))
    skipping = q * 2 + sum(1 for c in charges if c <= rem)  # the slip: a refused step does not end the walk
    stopping = q * 2
    for c in charges:
        if c > rem:
            break
        rem -= c
        stopping += 1
    assert skipping == stopping + 1
    assert replay(row, parse_workload("rr:0.05;rr:0.01")) == row["rounds"] == stopping


def test_the_cli_json_rows_replay_too(capsys):
    """The rows ``fullyadaptive plan --json`` prints (check syntax) carry the same accountant and the same count."""
    assert main(["plan", "--eps", "1", "--delta", "1e-6", "--workload", "rr:0.05+rr:0.01", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    cycle = parse_workload("rr:0.05;rr:0.01")
    got = {r["key"]: r for r in d["rows"]}
    assert set(got) == set(FILTERS)
    for key, row in got.items():
        assert replay(row, cycle) == row["rounds"], key
    assert got["game_filter"]["rounds"] == 42 and got["game_filter"]["accountant"]["params"]["grid"] == "1/100"
