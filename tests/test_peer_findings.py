"""The record of peer defects (``reference/data/peer_findings.json``, :mod:`reference.profiles.findings`).

Default run (cheap): the record's schema and ids; every confirmed anti-conservative finding's
recorded value lies below both recorded certified lower ends (its bracket and its second route),
compared exactly; the certified bracket recomputed where that is cheap still excludes the recorded
value (the expensive ones are ``slow``); the runner's three outcomes on toy calls, with a negative
control (a value inside the bracket is not a finding).  A peer's reproduction is re-run only where
the peer is installed and the recorded call took a few CPU seconds (skipped otherwise, with the
reason).  No test depends on a peer's digits except as recorded data compared with a certified end.
"""
from __future__ import annotations

import math
import re
from fractions import Fraction

import pytest

from reference.profiles import findings as F
from reference.profiles.peers import PEERS, installed

REC = F.load()
FINDINGS = REC["findings"]
ANTI = [f for f in FINDINGS if f["kind"] == "anti-conservative" and f["status"] == "confirmed"]
#: recomputing a bracket that took at most this many CPU seconds when recorded runs by default
CHEAP_BRACKET_S = 4.0
#: re-running a peer call that took at most this many CPU seconds when recorded runs by default
FAST_PEER_S = 10.0


def test_schema_and_ids():
    assert REC["schema"] == 1
    ids = [f["id"] for f in FINDINGS]
    assert len(ids) == len(set(ids)), "duplicate ids"
    assert all(re.fullmatch(r"F[0-9]+", i) for i in ids), ids
    assert len(ANTI) >= 1
    for f in FINDINGS:
        assert f["peer"] in PEERS and f["version"], f["id"]
        assert f["kind"] in F.KINDS and f["status"] in F.STATUSES, f["id"]
        compile(f["call"], f["id"], "exec")  # the reproduction is pasteable Python
        assert f["summary"] and "\n" not in f["summary"], f["id"]
        assert f["cap_s"] > 0 and f["peer_cpu_s"] >= 0, f["id"]
        lo, hi = Fraction(f["certified"]["lower"]), Fraction(f["certified"]["upper"])
        assert 0 <= lo <= hi, f["id"]
        assert f["certified"]["source"] and f["second_route"]["kind"], f["id"]
        if f["status"] == "timeout":
            assert f["kind"] == "timeout" and f["peer_value"] is None and f["peer_killed_by"], f["id"]
            assert f["peer_wall_s"] >= f["cap_s"] or f["peer_cpu_s"] >= f["cap_s"] - 1, f["id"]
        if f["kind"] == "timeout" and f["status"] == "dismissed":  # it answered under the cap, not below the bracket
            assert f["peer_cpu_s"] < f["cap_s"] and Fraction(float(f["peer_value"])) >= lo, f["id"]
        if f["status"] == "crash":
            assert f["status"] == "crash" and f["peer_value"] is None and f["peer_error"], f["id"]


@pytest.mark.parametrize("f", ANTI, ids=[f["id"] for f in ANTI])
def test_recorded_value_below_both_certified_lower_ends(f):
    v = Fraction(float(f["peer_value"]))
    assert v < Fraction(f["certified"]["lower"])
    sr = f["second_route"]
    assert sr["excludes_peer_value"] is True and v < Fraction(sr["lower"]) <= Fraction(sr["upper"])
    # the finer bracket is a bracket of the same quantity: it overlaps the first one
    assert Fraction(sr["lower"]) <= Fraction(f["certified"]["upper"])
    assert Fraction(f["certified"]["lower"]) <= Fraction(sr["upper"])


def _bracket_param(f):
    slow = f["certified"]["cpu_s"] > CHEAP_BRACKET_S
    return pytest.param(f, id=f["id"], marks=(pytest.mark.slow,) if slow else ())


@pytest.mark.parametrize("f", [_bracket_param(f) for f in ANTI])
def test_recomputed_bracket_still_excludes_the_peer_value(f):
    r = F.recheck(f, run_peer=False)
    assert r["still_holds"] is True
    assert Fraction(r["bracket"]["lower"]) > Fraction(float(f["peer_value"]))


def test_recheck_holds_below_the_bracket_and_not_inside_it():
    # a cheap recorded bracket (the q = 0.1, k = 100 workload), with made-up peer values on both sides of its lower end
    base = min(FINDINGS, key=lambda f: f["certified"]["cpu_s"])
    lo, hi = Fraction(base["certified"]["lower"]), Fraction(base["certified"]["upper"])
    made = dict(base, kind="anti-conservative", status="confirmed")
    below = float(lo) * (1 - 1e-6)
    assert F.recheck(dict(made, peer_value=below), run_peer=False)["still_holds"] is True
    # negative control: a value inside the certified bracket is not a defect
    assert F.recheck(dict(made, peer_value=float((lo + hi) / 2)), run_peer=False)["still_holds"] is False


def _peer_param(f):
    return pytest.param(f, id=f["id"])


@pytest.mark.parametrize("f", [_peer_param(f) for f in FINDINGS])
def test_reproduction_against_the_installed_peer(f):
    if installed(f["peer"]) is None:
        pytest.skip(f"{f['peer']} is not installed")
    if f["kind"] == "timeout" or f["status"] == "dismissed" or f["peer_cpu_s"] > FAST_PEER_S:
        pytest.skip(f"the recorded call is not fast ({f['kind']}, {f['peer_cpu_s']} CPU s)")
    if installed(f["peer"]) != f["version"]:
        pytest.skip(f"recorded with {f['peer']} {f['version']}, installed {installed(f['peer'])}")
    r = F.recheck(f, bracket=False, cap_s=60)
    assert r["still_holds"] is True, r


def test_run_call_outcomes():
    ok = F.run_call("print(repr(float(2) / 3))", 60)
    assert ok["outcome"] == "value" and float(ok["stdout_last"]) == 2 / 3 and ok["cpu_s"] >= 0
    bad = F.run_call("raise ValueError('no such order')", 60)
    assert bad["outcome"] == "crash" and bad["error"] == "ValueError: no such order"
    slow = F.run_call("import time\ntime.sleep(30)", 1, wall_cap_s=1)
    assert slow["outcome"] == "timeout" and slow["killed_by"] == "wall cap" and 1 <= slow["wall_s"] < 30
    busy = F.run_call("while True:\n    pass", 1, wall_cap_s=120)  # the cap is on CPU time, not on the load
    assert busy["outcome"] == "timeout" and busy["killed_by"] == "cpu cap" and busy["cpu_s"] >= 0.5
    for cap in (0, -1, math.inf, math.nan, True, "60"):
        with pytest.raises(ValueError, match="cap_s"):
            F.run_call("pass", cap)


def test_call_snippets_are_exact_and_refuse_other_peers():
    code = F.call_snippet("dp_accounting", "pld", "subsampled-gaussian:q=0.00001,sigma=0.5x1000000", "1e-9",
                          value_discretization_interval=2e-5)
    assert "PoissonSampledDpEvent(1e-05, dpa.GaussianDpEvent(0.5)), 1000000)" in code
    assert "value_discretization_interval=2e-05" in code and "get_epsilon(1e-09)" in code
    two = F.call_snippet("prv_accountant", "prv", "subsampled-gaussian:q=1/3,sigma=1x10+subsampled-gaussian:q=0.5,sigma=2x5", "1e-5")
    assert f"PoissonSubsampledGaussianMechanism({1 / 3!r}, 1.0)" in two and "max_self_compositions=[10, 5]" in two
    assert F.peer_value("prv_accountant", "1.0 2.0 3.5") == 3.5
    with pytest.raises(ValueError, match="peer/variant"):
        F.call_snippet("autodp", "rdp", "subsampled-gaussian:q=0.1,sigma=1x10", "1e-5")
    with pytest.raises(ValueError, match="spec"):
        F.call_snippet("dp_accounting", "pld", "gaussian:sigma=1x10", "1e-5")


def test_cli_refuses_an_unknown_finding_id(capsys):
    from reference.cli.app import main

    assert main(["crosscheck", "--findings", "F999"]) == 2
    assert "--findings" in capsys.readouterr().err


def test_cli_reruns_a_fast_finding(capsys):
    from reference.cli.app import main

    fast = [f for f in FINDINGS if f["status"] == "crash" and f["peer_cpu_s"] <= FAST_PEER_S
            and installed(f["peer"]) == f["version"]]
    if not fast:
        pytest.skip("no recorded crash of an installed peer version is fast to re-run")
    f = fast[0]
    assert main(["crosscheck", "--findings", f["id"], "--no-bracket"]) == 0
    out = capsys.readouterr().out
    assert f["id"] in out and "still holds" in out and "now crash" in out
