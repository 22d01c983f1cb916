"""``fullyadaptive plan``: every valid filter's rounds on an anticipated workload against the optimal limit."""
from __future__ import annotations

import json
from fractions import Fraction as F

import pytest

from reference.bounds.baselines import ROUND_RULES, best_filter, percent_of_optimal, rounds_comparison
from reference.cli import main
from reference.cli.plan import Step, parse_workload, plan


def test_rr_workload_matches_rounds_comparison_and_recommends_the_game_filter(capsys):
    assert main(["plan", "--eps", "1", "--delta", "1e-6", "--workload", "rr:0.01"]) == 0
    out = capsys.readouterr().out
    assert "% of optimal" in out and "fixed" in out.lower() and "Recommended: game-certified filter" in out
    p = plan(1, "1e-6", "rr:0.01")
    c = rounds_comparison("0.01", 1, "1e-6")
    got = {r["key"]: r["rounds"] for r in p["rows"]}
    for k in ("calibrated_renyi_filter", "calibrated_zcdp_filter", "gdp_filter", "whitehouse_filter", "feldman_zrnic_filter",
              "game_filter"):
        assert got[k] == c[k], k
    assert p["optimal"] == c["optimal"] == 562
    assert got["calibrated_renyi_filter"] == 490
    # the game filter: at least 95% of the optimum (its certificate is re-checked in proofs/test_game.py)
    assert p["recommended"] == "game_filter" and 534 <= got["game_filter"] <= 562
    assert best_filter(c) == ("game_filter", got["game_filter"])
    row = next(r for r in p["rows"] if r["key"] == "game_filter")
    cert = row["certificate"]
    assert cert["budget"] == got["game_filter"] and F(cert["game_value_at_budget_upper"]) <= F(1, 10 ** 6)
    assert cert["decided"] and F(cert["game_value_above_budget_lower"]) > F(1, 10 ** 6)
    assert float(percent_of_optimal(490, 562)) == pytest.approx(87.19, abs=0.01)
    assert {k for k, _, _ in ROUND_RULES} == set(c)


def test_gaussian_workload_gdp_filter_is_100_percent(capsys):
    p = plan(1, "1e-6", "gaussian:sigma=20")
    gdp = next(r for r in p["rows"] if r["key"] == "gdp_filter")
    assert p["recommended"] == "gdp_filter" and gdp["rounds"] == p["optimal"] == 22 and gdp["percent_of_optimal"] == 100.0
    assert all(r["rounds"] <= p["optimal"] for r in p["rows"])
    assert main(["plan", "--eps", "1", "--delta", "1e-6", "--workload", "gaussian:sigma=20", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["recommended"] == "gdp_filter" and d["optimal"] == 22


def test_mixed_workload_and_parsing():
    cyc = parse_workload("rr:0.01*3; gaussian:sigma=40:sensitivity=2, gdp:1/20")
    assert [s.kind for s in cyc] == ["dp", "dp", "dp", "gdp", "gdp"]
    assert cyc[3].value == F(1, 20) and cyc[4].value == F(1, 20)
    p = plan(1, "1e-6", "rr:0.01*3;gaussian:sigma=40")
    assert p["optimal"] is None and {r["key"] for r in p["rows"]} == {"gdp_filter", "calibrated_zcdp_filter",
                                                                     "calibrated_renyi_filter"}
    assert all(r["rounds"] > 0 for r in p["rows"])


@pytest.mark.parametrize("spec,msg", [("foo:1", "kind"), ("rr:-1", "eps"), ("gaussian:mu=2", "sigma"), ("rr:0.1*0", "repeat"),
                                      ("", "non-empty")])
def test_bad_workload_exits_2_naming_the_item(spec, msg, capsys):
    assert main(["plan", "--eps", "1", "--delta", "1e-6", "--workload", spec]) == 2
    err = capsys.readouterr().err
    assert "fullyadaptive plan: error:" in err and msg in err


def test_bad_target_exits_2(capsys):
    assert main(["plan", "--eps", "1", "--delta", "2", "--workload", "rr:0.1"]) == 2
    assert "delta" in capsys.readouterr().err


def test_game_filter_row_on_a_heterogeneous_cycle_matches_the_stateful_filter():
    """The plan's game-filter count on a mixed pure-DP cycle equals running the shipped GameFilter on that cycle
    (same grid, same eps_max) until it refuses; its certificate is part of the row."""
    from reference.accountants import GameFilter

    p = plan(1, "1e-6", "rr:0.01*3; rr:0.025; rr:0.1")
    row = next(r for r in p["rows"] if r["key"] == "game_filter")
    cert = row["certificate"]
    assert cert["grid"] == "1/100" and F(cert["eps_max"]) >= F(1, 10)
    f = GameFilter(1, "1e-6", "0.01", cert["eps_max"])
    assert f.budget == cert["budget"]
    cycle = ["0.01", "0.01", "0.01", "0.025", "0.1"]
    n = 0
    while f.try_run(cycle[n % len(cycle)]):
        n += 1
    assert row["rounds"] == n > 0
    assert [f.charge(x) for x in ("0.01", "0.025", "0.1")] == [1, 9, 100]


def test_mixed_pure_dp_cycle_optimum_against_a_50_digit_enumeration():
    """The plan's optimum on a mixed eps-DP cycle (the certified convolution) against an independent route: the
    hockey-stick of the product of randomized responses enumerated over the counts of +eps outcomes at 50 digits."""
    import mpmath

    p = plan(1, "1e-6", "rr:0.01*3;rr:0.025;rr:0.1")
    n = p["optimal"]
    assert n is not None and "murtagh2016" in p["optimal_source"]
    assert all(r["rounds"] <= n for r in p["rows"])
    cycle = [F(1, 100)] * 3 + [F(1, 40), F(1, 10)]
    mp = mpmath.mp.clone()
    mp.dps = 50

    def delta_at(k):
        counts: dict = {}
        for i in range(k):
            e = cycle[i % len(cycle)]
            counts[e] = counts.get(e, 0) + 1
        items = list(counts.items())
        total = mp.mpf(0)

        def rec(j, loss, prob):
            nonlocal total
            if j == len(items):
                x = 1 - mp.exp(1 - loss)
                if x > 0:
                    total += prob * x
                return
            e, c = items[j]
            E = mp.exp(mp.mpf(e.numerator) / e.denominator)
            pu = E / (1 + E)
            for up in range(c + 1):
                rec(j + 1, loss + (2 * up - c) * mp.mpf(e.numerator) / e.denominator,
                    prob * mp.binomial(c, up) * pu ** up * (1 - pu) ** (c - up))
        rec(0, mp.mpf(0), mp.mpf(1))
        return total

    assert delta_at(n) <= mp.mpf(10) ** -6 < delta_at(n + 1)
