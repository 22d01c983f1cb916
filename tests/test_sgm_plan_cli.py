"""``plan`` and ``game`` on DP-SGD menus: the DP-SGD game filter's rows and certificate, checked by second routes.

Every count the plan prints is replayed on the stateful filter it names (fed the cycle until its
first refusal); the certificate is the one :func:`reference.bounds.sgm_game.sgm_menu_certificate`
computes directly; the percentages are the exact ratios of the printed integers.  Coarse grids
(2^-3) keep each test to a second or two.
"""
from __future__ import annotations

import json
from fractions import Fraction as F

import pytest

import fullyadaptive as fa
from reference.bounds.sgm_game import charged_index
from reference.bounds.sgm_game import SGMItem, sgm_menu_certificate
from reference.cli import main
from reference.profiles.check import parse_spec
from reference.profiles.sgm_plan import sgm_rows

EPS, DELTA = "8", "1e-3"
A, B = "subsampled-gaussian:q=0.1,sigma=0.5", "subsampled-gaussian:q=0.1,sigma=0.625"
MENU = f"{A};{B}"
ITEMS = (SGMItem(F(1, 10), F(1, 2)), SGMItem(F(1, 10), F(5, 8)))


def _plan_json(capsys, *extra):
    assert main(["plan", "--eps", EPS, "--delta", DELTA, "--bits", "3", "--max-evaluations", "2", "--json", *extra]) == 0
    return json.loads(capsys.readouterr().out)


def _replay_game(row, cycle) -> int:
    acc = row["accountant"]
    f = getattr(fa, acc["class"])(**acc["params"])
    n = 0
    while n < 10 ** 4 and f.try_run(*cycle[n % len(cycle)]):
        n += 1
    return n


def _replay_renyi(row, cycle_items) -> int:
    acc = row["accountant"]
    f = getattr(fa, acc["class"])(**acc["params"])
    n = 0
    while n < 10 ** 4 and f.try_run(F(acc["charges"][str(cycle_items[n % len(cycle_items)])])):
        n += 1
    return n


def test_plan_on_a_menu_matches_the_certificate_and_the_filter(capsys):
    d = _plan_json(capsys, "--workload", A, "--menu", MENU)
    rows = {r["key"]: r for r in d["rows"]}
    assert set(rows) == {"dpsgd_game_filter", "sgm_renyi_filter"} and d["recommended"] == d["rows"][0]["key"]
    g = rows["dpsgd_game_filter"]
    cert = sgm_menu_certificate(F(8), F(1, 1000), ITEMS, bits=3)           # the second route: the bound itself
    c = g["certificate"]
    assert c["budget"] == cert.budget and c["costs"] == list(cert.costs) and c["bits"] == 3
    assert F(c["game_value_at_budget_upper"]) <= F(1, 1000)
    assert c["decided"] == (F(c["game_value_above_budget_lower"]) > F(1, 1000))
    for x, it, cost, k0 in zip(g["items"], ITEMS, cert.costs, cert.extra["k0"]):
        assert x["item"] == str(it) and x["cost"] == cost and x["rounds"] == cert.budget // cost and x["k0"] == k0
        assert x["rounds"] <= k0            # a menu never gives an item more than it gets alone
    assert g["rounds"] == cert.budget // cert.costs[0] == _replay_game(g, [(F(1, 10), F(1, 2))])
    o = d["optimum"]
    for row in d["rows"]:
        assert row["cycles"] == row["rounds"]
        assert row["percent_of_k_star"][1] == pytest.approx(100 * row["cycles"] / o["k_lo"])


def test_a_mixed_cycle_is_what_both_filters_admit():
    """Cycle (A, B, B): the rows' counts are the steps the named filters admit, fed the cycle until the first refusal."""
    rows, _ = sgm_rows(F(8), F(1, 1000), parse_spec(f"{A}+{B}x2"), MENU, bits=3)
    rows = {r["key"]: r for r in rows}
    g, r = rows["dpsgd_game_filter"], rows["sgm_renyi_filter"]
    assert _replay_game(g, [(F(1, 10), F(1, 2)), (F(1, 10), F(5, 8)), (F(1, 10), F(5, 8))]) == g["rounds"]
    assert _replay_renyi(r, [ITEMS[0], ITEMS[1], ITEMS[1]]) == r["rounds"]
    assert r["rounds"] > 0 and g["rounds"] > r["rounds"]       # the game filter's certificate is the tighter one here


def test_plan_text_without_menu_uses_the_workloads_items(capsys):
    assert main(["plan", "--eps", EPS, "--delta", DELTA, "--workload", A, "--bits", "3", "--max-evaluations", "2"]) == 0
    out = capsys.readouterr().out
    assert "DP-SGD game filter" in out and "Renyi filter (RDP of the subsampled Gaussian)" in out
    assert "certified B* = " in out and f"subsampled-gaussian:q=1/10,sigma=1/2: cost 1, " in out
    assert "no shipped filter" not in out


def test_a_step_between_menu_items_is_charged_at_the_dominating_one():
    """sigma = 0.55 lies between the items: it is charged at sigma = 0.5 (which dominates it), never at 0.625.
    Negative control: the cheaper, non-dominating charge would admit more steps than the plan counts."""
    cycle = parse_spec("subsampled-gaussian:q=0.1,sigma=0.55")
    rows, _ = sgm_rows(F(8), F(1, 1000), cycle, MENU, bits=3)
    g = next(r for r in rows if r["key"] == "dpsgd_game_filter")
    costs = g["certificate"]["costs"]
    assert charged_index(ITEMS, costs, F(1, 10), F(11, 20)) == 0
    assert g["rounds"] == g["certificate"]["budget"] // costs[0] == _replay_game(g, [(F(1, 10), F(11, 20))])
    assert g["certificate"]["budget"] // costs[1] > g["rounds"]      # what rounding sigma up would have admitted
    r = next(r for r in rows if r["key"] == "sgm_renyi_filter")
    assert _replay_renyi(r, [SGMItem(F(1, 10), F(11, 20))]) == r["rounds"]


@pytest.mark.parametrize("args,msg", [
    (["--menu", f"{A};"], "empty item"),
    (["--menu", "subsampled-gaussian:q=2,sigma=1"], "menu[0].q must lie in (0, 1]"),
    (["--menu", "subsampled-gaussian:q=0.1,noise=1"], "q=, sigma=, scale="),
    (["--menu", "subsampled-gaussian:q=0.1,sigma=0.6"], "no item dominates the workload step"),
    (["--bits", "0"], "bits must be an integer in [1, 30]"),
])
def test_bad_menus_exit_2_with_one_line(capsys, args, msg):
    assert main(["plan", "--eps", EPS, "--delta", DELTA, "--workload", A, "--max-evaluations", "2", *args]) == 2
    err = capsys.readouterr().err
    assert msg in err and err.count("\n") == 1 and err.startswith("fullyadaptive plan: error:")


def test_a_menu_needs_a_subsampled_gaussian_workload(capsys):
    assert main(["plan", "--eps", EPS, "--delta", DELTA, "--workload", "rr:0.1", "--menu", A]) == 2
    assert "needs a workload of subsampled-gaussian steps" in capsys.readouterr().err
    assert main(["plan", "--eps", EPS, "--delta", DELTA, "--workload", "rr:0.1", "--bits", "3"]) == 2
    assert "--bits is the DP-SGD game's grid" in capsys.readouterr().err


def test_game_menu_prints_the_certificate(capsys):
    assert main(["game", "--eps", EPS, "--delta", DELTA, "--menu", MENU, "--bits", "3", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    cert = sgm_menu_certificate(F(8), F(1, 1000), ITEMS, bits=3)
    assert d["budget"] == cert.budget and d["costs"] == list(cert.costs) and d["k0"] == cert.extra["k0"]
    assert d["rounds"] == [cert.budget // c for c in cert.costs]
    assert F(d["game_value_at_budget_upper"]) <= F(1, 1000)
    assert main(["game", "--eps", EPS, "--delta", DELTA, "--menu", MENU, "--bits", "3", "--costs", "3,1"]) == 0
    out = capsys.readouterr().out
    given = sgm_menu_certificate(F(8), F(1, 1000), ITEMS, bits=3, costs=(3, 1))
    assert f"budget B* = {given.budget} units" in out and "cost 3," in out and "<= delta" in out


@pytest.mark.parametrize("args,msg", [
    (["--grid", "0.1"], "--grid and --eps-max belong to the pure-DP game"),
    (["--menu", "sgm:q=2,sigma=1"], "menu[0].q must lie in (0, 1]"),
    (["--menu", "subsampled-gaussian:q=0.1"], "must give q and sigma"),
    (["--bits", "31"], "bits must be an integer in [1, 30]"),
    (["--costs", "1"], "one entry per menu item"),
    (["--costs", "1,0"], "costs[1]"),
    (["--max-seconds", "0.001"], "stopped at the time limit"),
    (["--max-memory", "1K"], "more than max_bytes"),
])
def test_game_menu_refusals_exit_2(capsys, args, msg):
    assert main(["game", "--eps", EPS, "--delta", DELTA, "--menu", MENU, "--bits", "3", *args]) == 2
    err = capsys.readouterr().err
    assert msg in err and err.count("\n") == 1


def test_game_without_grid_or_menu_is_refused(capsys):
    assert main(["game", "--eps", EPS, "--delta", DELTA]) == 2
    assert "--grid is required" in capsys.readouterr().err
    assert main(["game", "--eps", EPS, "--delta", DELTA, "--grid", "0.1", "--bits", "3"]) == 2
    assert "--menu" in capsys.readouterr().err


def test_plan_budgets_keep_the_other_rows(capsys):
    """--max-memory too small for the game's rows, or no time left: the game row is printed as not computed (exit 0),
    the Renyi row and the certified ends of k* are kept."""
    for extra, why in ((["--max-memory", "1K", "--max-evaluations", "2"], "more than max_bytes"),
                       (["--max-seconds", "0.001"], "time limit")):
        assert main(["plan", "--eps", EPS, "--delta", DELTA, "--workload", A, "--bits", "3", "--json", *extra]) == 0
        d = json.loads(capsys.readouterr().out)
        rows = {r["key"]: r for r in d["rows"]}
        g = rows["dpsgd_game_filter"]
        assert g["rounds"] is None and why in g["not_computed"] and d["rows"][-1] is g
        assert rows["sgm_renyi_filter"]["rounds"] > 0 and d["recommended"] == "sgm_renyi_filter"
