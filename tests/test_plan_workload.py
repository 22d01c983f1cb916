"""``fullyadaptive plan`` on a ``check`` spec: the optimum number of cycles k*, exact or certified, beside the filters."""
from __future__ import annotations

import json
from fractions import Fraction as F

import pytest

from reference.bounds.baselines import optimal_rounds_homogeneous
from reference.cli import main
from reference.profiles.check import check, parse_spec
from reference.profiles.workload import optimum_cycles, parse_cycle, plan_workload


def _k_fold(spec: str, k: int) -> str:
    return " + ".join(f"{s.text().rsplit('x', 1)[0] if s.count != 1 else s.text()}x{s.count * k}" for s in parse_spec(spec))


# (spec, eps, delta): one per family, and two mixtures; subsampled Gaussian with a small k*
FAMILIES = [
    ("rr:0.01", "1", "1e-6"),
    ("gaussian:sigma=20,sensitivity=2x5", "1", "1e-6"),
    ("laplace:b=10,sensitivity=1x2", "1", "1e-6"),
    ("subsampled-gaussian:q=0.1,sigma=2x2", "1", "1e-6"),
    ("laplace:b=1,sensitivity=1x2+laplace:b=1,sensitivity=2x2", "10", "1e-6"),
    ("rr:0.01x10+gaussian:sigma=50x2", "1", "1e-6"),
]


@pytest.mark.parametrize("spec,eps,delta", FAMILIES, ids=[f[0].split(":")[0] + str(i) for i, f in enumerate(FAMILIES)])
def test_k_star_ends_are_certified_by_check(spec, eps, delta):
    p = plan_workload(eps, delta, spec)
    o = p["optimum"]
    assert p["syntax"] == "check" and o["stopped"] is None
    assert o["k_hi"] is not None and 0 <= o["k_lo"] <= o["k_hi"]
    # second route: the check command's verdict on the k_lo-fold and (k_hi + 1)-fold compositions
    if o["k_lo"] > 0:
        assert check(_k_fold(spec, o["k_lo"]), eps, delta).status == "valid"
    assert check(_k_fold(spec, o["k_hi"] + 1), eps, delta).status == "invalid"
    # a valid filter never admits more complete cycles than the optimum
    m = sum(s.count for s in parse_spec(spec))
    assert p["steps_per_cycle"] == m
    for r in p["rows"]:
        assert r["cycles"] == r["rounds"] // m and r["cycles"] <= o["k_hi"], r["key"]


def test_exact_families_give_k_star_by_an_independent_route():
    o = optimum_cycles("rr:0.01", 1, "1e-6")
    assert o.exact and o.k_lo == o.k_hi == optimal_rounds_homogeneous("0.01", 1, "1e-6") == 562
    # five Gaussian steps of mu = 1/10 per cycle: k* = floor(n*/5), n* the GDP optimum of single steps (planner, dong2022)
    from reference.bounds.planner import plan
    n_star = plan(1, "1e-6", "gaussian:sigma=10")["optimal"]
    o = optimum_cycles("gaussian:sigma=20,sensitivity=2x5", 1, "1e-6")
    assert o.exact and o.k_lo == n_star // 5
    # one Laplace scale: the catalog's exact k-fold Laplace delta (sommer2019) at 2 k* and 2 (k* + 1) steps
    from reference.catalog import get
    o = optimum_cycles("laplace:b=10x2", 1, "1e-6")
    from reference.precision import mpf_to_fraction
    up, low = get("sommer2019_laplace_kfold_delta"), get("sommer2019_laplace_kfold_delta_lower")
    assert o.exact and o.k_lo >= 1
    assert mpf_to_fraction(up(eps=1, b=10, k=2 * o.k_lo)) <= F(1, 10 ** 6)
    assert mpf_to_fraction(low(eps=1, b=10, k=2 * (o.k_lo + 1))) > F(1, 10 ** 6)


def test_a_mixture_is_a_bracket_and_the_filters_rows_are_reported(capsys):
    assert main(["plan", "--eps", "1", "--delta", "1e-6", "--workload", "rr:0.01x10+gaussian:sigma=50x2", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    o = d["optimum"]
    assert d["steps_per_cycle"] == 12 and not o["exact"] and o["k_lo"] < o["k_hi"] and o["k_star"] is None
    assert {r["key"] for r in d["rows"]} >= {"gdp_filter", "calibrated_renyi_filter"}
    for r in d["rows"]:
        lo, hi = r["percent_of_k_star"]
        assert lo == pytest.approx(100 * r["cycles"] / o["k_hi"]) and hi == pytest.approx(100 * r["cycles"] / o["k_lo"])


def test_subsampled_gaussian_gets_the_dpsgd_rows_and_a_k_star(capsys):
    assert main(["plan", "--eps", "1", "--delta", "1e-6", "--workload", "subsampled-gaussian:q=0.1,sigma=2x2",
                 "--bits", "3", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert {r["key"] for r in d["rows"]} == {"dpsgd_game_filter", "sgm_renyi_filter"} and d["optimum"]["k_lo"] >= 1
    for r in d["rows"]:  # a valid filter never admits more complete cycles than the certified optimum's upper end
        assert d["optimum"]["k_hi"] is None or r["cycles"] <= d["optimum"]["k_hi"]


def test_the_old_syntax_still_works_with_a_note(capsys):
    assert main(["plan", "--eps", "1", "--delta", "1e-6", "--workload", "gaussian:sigma=20:sensitivity=2*3"]) == 0
    cap = capsys.readouterr()
    assert "deprecated" in cap.err and "gaussian:sigma=10,sensitivity=1x3" in cap.err
    assert "Recommended: Gaussian-DP filter" in cap.out
    cyc, syntax = parse_cycle("rr:0.01*3, gdp:1/20")
    assert syntax == "plan (deprecated)" and [s.text() for s in cyc] == ["rr:eps=0.01,delta=0x3",
                                                                        "gaussian:sigma=20,sensitivity=1"]
    # a spec both syntaxes read means the same cycle
    assert parse_cycle("rr:0.01*3;gaussian:sigma=40") == (parse_spec("rr:0.01x3+gaussian:sigma=40"), "check")


@pytest.mark.parametrize("spec,msg", [("laplace:b=0x3", "b must"), ("subsampled-gaussian:q=2,sigma=1", "q must"),
                                      ("laplace:scale=1", "unknown parameter 'scale'"), ("rr:0.01x0", "count"),
                                      ("frobnicate:1", "unknown mechanism")])
def test_a_malformed_check_spec_exits_2_naming_the_problem(capsys, spec, msg):
    assert main(["plan", "--eps", "1", "--delta", "1e-6", "--workload", spec]) == 2
    err = capsys.readouterr().err
    assert err.startswith("fullyadaptive plan: error: workload:") and msg in err


def test_the_search_is_capped_with_a_message_and_stays_certified(capsys):
    o = optimum_cycles("rr:0.01", 1, "1e-6", max_evaluations=4)
    assert "max_evaluations" in o.stopped and len(o.evaluations) == 4
    assert o.k_lo <= 562 and (o.k_hi is None or o.k_hi >= 562)
    assert main(["plan", "--eps", "1", "--delta", "1e-6", "--workload", "rr:0.01", "--max-evaluations", "12"]) == 0
    cap = capsys.readouterr()
    assert "stopped after 12 certified brackets" in cap.err and "k* in [" in cap.out
    with pytest.raises(ValueError, match="max_evaluations"):
        optimum_cycles("rr:0.01", 1, "1e-6", max_evaluations=1)
