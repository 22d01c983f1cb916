"""Budgets of ``check``, ``plan`` and ``game``: every legal input answers within a stated memory and time limit.

Refusals (exit status 2, one line naming the limit) are shown to come BEFORE any heavy work by
patching the engines to fail if called; deadlines by slow stand-ins killed at ``--max-seconds``,
whose answer must still contain the true value (computed here by a second route).
"""
from __future__ import annotations

import json
import time
from fractions import Fraction as F

import mpmath
import pytest

import reference.bounds.game as G
import reference.profiles.check as C
from reference.bounds.game_filter import GameTooLarge, game_budget, game_size, kov_count, kov_count_lower
from reference.cli import main
from reference.cli.common import parse_memory, run_in_child


def _engine_forbidden(monkeypatch):
    """Make every sweep of the game engine fail loudly: a refusal must come before it."""
    def boom(*a, **k):
        raise AssertionError("the game engine ran although the input should have been refused first")

    monkeypatch.setattr(G, "threshold_game", boom)
    monkeypatch.setattr(G, "_sweep", boom)


def _one_line_error(err: str, cmd: str) -> str:
    lines = err.strip().splitlines()
    assert lines and lines[-1].startswith(f"fullyadaptive {cmd}: error: "), err
    return lines[-1]


# --------------------------------------------------------------------------
# game: memory and time, refused up front
# --------------------------------------------------------------------------

@pytest.mark.parametrize("grid", ["1e-9", "1e-6", "1e-4"])
def test_game_too_fine_a_grid_is_refused_before_any_sweep(capsys, monkeypatch, grid):
    """grid 1e-9 exited 4 (MemoryError) and 1e-6 ran minutes at a GB: now status 2 at once, naming MAX_BUDGET."""
    _engine_forbidden(monkeypatch)
    assert main(["game", "--eps", "1", "--delta", "1e-6", "--grid", grid]) == 2
    line = _one_line_error(capsys.readouterr().err, "game")
    assert "MAX_BUDGET = 131072" in line and "too fine" in line


def test_game_over_max_memory_is_refused_with_the_estimate(capsys, monkeypatch):
    _engine_forbidden(monkeypatch)
    assert main(["game", "--eps", "1", "--delta", "1e-6", "--grid", "1e-3", "--max-memory", "1M"]) == 2
    line = _one_line_error(capsys.readouterr().err, "game")
    assert "--max-memory 1.0 MiB" in line and "needs at least" in line


def test_game_hopeless_time_is_refused_up_front(capsys, monkeypatch):
    _engine_forbidden(monkeypatch)
    assert main(["game", "--eps", "1", "--delta", "1e-6", "--grid", "1e-3", "--max-seconds", "1"]) == 2
    assert "--max-seconds 1" in _one_line_error(capsys.readouterr().err, "game")


def test_game_stops_at_its_deadline(capsys):
    """A game that passes the up-front estimate but not the limit is stopped by the sweep's deadline: status 2."""
    t0 = time.monotonic()
    assert main(["game", "--eps", "1", "--delta", "1e-6", "--grid", "0.003", "--max-seconds", "0.3"]) == 2
    assert time.monotonic() - t0 < 30  # the full game takes several seconds; stopped well before it
    assert "stopped at the time limit --max-seconds 0.3" in _one_line_error(capsys.readouterr().err, "game")


def test_game_deadline_in_the_engine():
    with pytest.raises(G.GameTimeout):
        G.threshold_game(1, F(1, 1000), [1], [1], 4096, deadline=time.monotonic() - 1)
    t = G.threshold_game(1, F(1, 100), [1], [1], 300, deadline=time.monotonic() + 600)  # negative control
    assert t.R_max == 300


@pytest.mark.parametrize("bad", [["--max-memory", "2X"], ["--max-memory", "0"], ["--max-seconds", "-1"],
                                 ["--max-seconds", "nan"]])
def test_game_budget_options_are_checked(capsys, bad):
    assert main(["game", "--eps", "1", "--delta", "1e-6", "--grid", "0.01", *bad]) == 2
    assert bad[0] in _one_line_error(capsys.readouterr().err, "game")


def test_parse_memory_units():
    assert parse_memory("2G") == 2 * 2 ** 30 and parse_memory("500M") == 500 * 2 ** 20
    assert parse_memory("1.5GiB") == 3 * 2 ** 29 and parse_memory("4096") == 4096


def test_game_size_is_the_engines_own_count_and_the_cap_is_sharp():
    """threshold_game_size agrees with the sweep's allocation; max_bytes one below it is refused, at it accepted."""
    args = (1, F(1, 100), [1, 2, 3], [1, 4, 9], 500)
    size = G.threshold_game_size(*args)
    t = G.threshold_game(*args, max_bytes=size["bytes"])
    assert t.cells == size["bytes"] // 8 and t.window[1] - t.window[0] + 1 == size["window"]
    with pytest.raises(G.GameMemoryError):
        G.threshold_game(*args, max_bytes=size["bytes"] - 1)


def test_kov_count_lower_is_below_the_games_count_and_refuses_early(monkeypatch):
    """The certified lower bound used to refuse is below the optimal count (second route: the one-item game)."""
    n, _ = kov_count(1, F(1, 10 ** 6), F(1, 100))
    assert 100 <= kov_count_lower(1, F(1, 10 ** 6), F(1, 100)) <= n
    s = game_size(1, F(1, 10 ** 6), F(1, 100))
    assert s["horizon_min"] <= n + 1 and not s["too_fine"]
    gb = game_budget(1, F(1, 10 ** 6), F(1, 100))  # the run itself needs at least the estimate (a lower bound)
    assert gb.R_max == n + 1 and gb.cells >= s["bytes"] // 8
    _engine_forbidden(monkeypatch)
    with pytest.raises(GameTooLarge, match="certified lower bound"):
        game_budget(1, F(1, 10 ** 6), F(1, 10 ** 4))


@pytest.mark.parametrize("x", [1300, 1386, 1387, 1500, 10 ** 9])
def test_hoeffding_exit_floor_stays_an_upper_bound(x):
    """Far tails return 2^-2000 instead of a billion-digit rational, and that is still >= exp(-x)."""
    var = F(1, 2 * x)  # a = 1, drift = 0: the exponent (a - drift)^2 / (2 var) is x
    got = G.hoeffding_exit(F(1), var, F(0))
    assert len(str(got.denominator)) < 700
    with mpmath.workprec(200):
        assert mpmath.mpf(got.numerator) / got.denominator >= mpmath.exp(-mpmath.mpf(x))


# --------------------------------------------------------------------------
# plan: a row that cannot be computed is reported, the others kept; the time limit holds
# --------------------------------------------------------------------------

def test_plan_reports_the_game_row_as_not_computed_and_keeps_the_others(monkeypatch):
    """rr:1e-9 exited 4 (MemoryError in the game row): now the row says why and the filters' rows are kept."""
    from reference.bounds.planner import plan, render_plan

    _engine_forbidden(monkeypatch)
    p = plan(1, F(1, 10 ** 6), "rr:1e-9")
    rows = {r["key"]: r for r in p["rows"]}
    assert rows["game_filter"]["rounds"] is None and "MAX_BUDGET" in rows["game_filter"]["not_computed"]
    assert rows["whitehouse_filter"]["rounds"] >= 10 ** 9 - 1 and p["recommended"] != "game_filter"
    assert p["rows"][-1]["key"] == "game_filter"
    assert p["optimal"] is None and p["optimal_source"].startswith("not computed")
    assert "not computed: grid = 1/1000000000 is too fine" in render_plan(p)


def test_plan_command_on_the_reported_input_prints_the_other_rows(capsys, monkeypatch):
    """``plan --workload rr:1e-9`` exited 4: now status 0, the game row not computed with its reason, the rest printed."""
    _engine_forbidden(monkeypatch)
    assert main(["plan", "--eps", "1", "--delta", "1e-6", "--workload", "rr:1e-9", "--max-seconds", "2"]) == 0
    cap = capsys.readouterr()
    game = next(x for x in cap.out.splitlines() if x.startswith("game-certified filter"))
    assert "not computed" in game and "MAX_BUDGET" in game
    assert sum(x.startswith(("Gaussian-DP filter", "Whitehouse et al. filter")) for x in cap.out.splitlines()) == 2
    assert "internal error" not in cap.err


def test_plan_game_row_over_max_memory_is_not_computed(capsys, monkeypatch):
    _engine_forbidden(monkeypatch)
    assert main(["plan", "--eps", "1", "--delta", "1e-6", "--workload", "rr:0.01", "--max-memory", "64K"]) == 0
    out = capsys.readouterr().out
    line = next(x for x in out.splitlines() if x.startswith("game-certified filter"))
    assert "not computed" in line and "max_bytes = 65536" in line
    assert any(x.startswith("Whitehouse et al. filter") and "not computed" not in x for x in out.splitlines())


def test_plan_max_seconds_stops_a_slow_bracket(capsys, monkeypatch):
    """--max-seconds was not honoured (a subsampled-Gaussian plan ran 200 s): a bracket that would never end is
    killed at the limit and the plan still prints, with certified (here trivial) ends of k*."""
    def never(*a, **k):
        time.sleep(600)

    monkeypatch.setattr(C, "profile", never)
    t0 = time.monotonic()
    rc = main(["plan", "--eps", "1", "--delta", "1e-6", "--workload", "subsampled-gaussian:q=0.01,sigma=1.1x100",
               "--max-seconds", "1", "--json"])
    assert time.monotonic() - t0 < 30
    assert rc == 0
    cap = capsys.readouterr()
    o = json.loads(cap.out)["optimum"]
    assert o["k_lo"] == 0 and o["k_hi"] is None and "max_seconds" in o["stopped"]


def test_plan_max_seconds_is_checked(capsys):
    assert main(["plan", "--eps", "1", "--delta", "1e-6", "--workload", "rr:0.01", "--max-seconds", "0"]) == 2
    assert "--max-seconds" in _one_line_error(capsys.readouterr().err, "plan")


# --------------------------------------------------------------------------
# check: the time limit keeps the best certified bracket
# --------------------------------------------------------------------------

def _true_delta_rr_gauss(eps, e0, n, mu) -> mpmath.mpf:
    """delta(eps) of n-fold RR_e0 composed with the mu-Gaussian: sum over the RR loss of the Gaussian's delta
    (E_P[(1 - e^(eps - L))_+] with L = L_rr + L_gauss independent), at 60 digits: a route that shares no code."""
    with mpmath.workdps(60):
        e0, eps, mu = mpmath.mpf(e0), mpmath.mpf(eps), mpmath.mpf(mu)
        p = mpmath.exp(e0) / (1 + mpmath.exp(e0))
        tot = mpmath.mpf(0)
        for j in range(n + 1):
            x = eps - e0 * (2 * j - n)
            dg = mpmath.ncdf(-x / mu + mu / 2) - mpmath.exp(x) * mpmath.ncdf(-x / mu - mu / 2)
            tot += mpmath.binomial(n, j) * p ** j * (1 - p) ** (n - j) * dg
        return tot


def test_check_deadline_keeps_the_bracket_it_has_and_it_contains_the_truth(capsys, monkeypatch):
    """The eps bracket never ends (a stand-in for a slow route); killed at --max-seconds, the verdict uses the
    certified delta bracket already computed and the trivial eps bracket: exit 3, and both contain the truth."""
    real = C._group_bracket

    def slow_eps(steps, quantity, at, dps):
        if quantity == "eps":
            time.sleep(600)
        return real(steps, quantity, at, dps)

    spec = "rr:0.1x10+gaussian:sigma=5"
    truth = _true_delta_rr_gauss(1, "0.1", 10, "0.2")
    claim = mpmath.nstr(truth, 3)
    monkeypatch.setattr(C, "_group_bracket", slow_eps)
    t0 = time.monotonic()
    rc = main(["check", spec, "--eps", "1", "--delta", claim, "--max-seconds", "4", "--json"])
    assert time.monotonic() - t0 < 40
    cap = capsys.readouterr()
    assert rc == 3, cap.err
    v = json.loads(cap.out)
    assert v["status"] == "undecided" and "time limit" in v["stopped"]
    d = v["delta_at_claimed_eps"]
    with mpmath.workdps(60):
        assert mpmath.mpf(d["lower"]) <= truth <= mpmath.mpf(d["upper"])
    assert F(d["upper"]) < 1  # the computed bracket, not the trivial one
    e = v["eps_at_claimed_delta"]
    assert e["lower"] == "0" and e["upper"] == "inf"
    assert "time limit" in cap.err
    # second route: without the limit (and without the stand-in) the same claim is undecided too, inside the bracket
    monkeypatch.setattr(C, "_group_bracket", real)
    assert main(["check", spec, "--eps", "1", "--delta", claim, "--json"]) == 3
    full = json.loads(capsys.readouterr().out)
    assert full["stopped"] is None
    assert F(full["delta_at_claimed_eps"]["lower"]) == F(d["lower"])


def test_check_slow_sgm_input_answers_undecided_at_the_limit(capsys):
    """The reported slow input (minutes without a limit) answers at --max-seconds, exit 3, with the brackets it has by
    then (the trivial one, or the closed forms' when they came in time: tests/test_partial_brackets.py)."""
    t0 = time.monotonic()
    rc = main(["check", "subsampled-gaussian:q=1e-9,sigma=0.3x1000000", "--eps", "1", "--delta", "1e-5",
               "--max-seconds", "1"])
    assert time.monotonic() - t0 < 30
    cap = capsys.readouterr()
    assert rc == 3, cap.err
    assert "time limit" in cap.out and "(--max-seconds 1)" in cap.err


def test_check_deadline_in_the_library():
    """check(deadline) past: no bracket is started; known brackets are used as given."""
    v = C.check("gaussian:sigma=2", 1, "1e-6", deadline=0.0)
    assert v.status == "undecided" and v.stopped and v.delta_bracket.hi == 1 and not mpmath.isfinite(v.eps_bracket.hi)
    full = C.check("gaussian:sigma=2", 1, "1e-6")
    v = C.check("gaussian:sigma=2", 1, "1e-6", deadline=0.0, known=(full.delta_bracket, None))
    assert v.status == full.status and v.stopped  # the known delta bracket decides by itself
    seen = []
    C.check("gaussian:sigma=2", 1, "1e-6", report=seen.append)
    assert [b.quantity for b in seen] == ["delta", "eps"]


def test_worker_errors_keep_their_type_and_partials_survive_the_kill():
    def fails(report):
        report(1)
        raise ValueError("bad input x")

    with pytest.raises(ValueError, match="bad input x"):
        run_in_child(fails, seconds=30)

    def slow(report):
        report("first")
        time.sleep(600)

    assert run_in_child(slow, seconds=1) == (False, None, ["first"])
    assert run_in_child(lambda a, report: a + 1, (41,), seconds=30) == (True, 42, [])


# --------------------------------------------------------------------------
# JSON specs nested too deep
# --------------------------------------------------------------------------

@pytest.mark.parametrize("cmd", ["check", "plan"])
def test_deeply_nested_json_is_refused_before_parsing(capsys, monkeypatch, tmp_path, cmd):
    """A JSON composition nested 100,000 deep exited 4 (RecursionError): now status 2 naming the depth limit."""
    deep = "[" * 100_000 + "]" * 100_000
    path = tmp_path / "deep.json"
    path.write_text(deep)

    def forbidden(*a, **k):
        raise AssertionError("json.loads ran on input nested beyond the limit")

    monkeypatch.setattr(C.json, "loads", forbidden)
    for spec in (deep, str(path)):
        args = (["check", spec, "--eps", "1", "--delta", "1e-5"] if cmd == "check"
                else ["plan", "--workload", spec, "--eps", "1", "--delta", "1e-5"])
        assert main(args) == 2
        assert "MAX_JSON_DEPTH = 64" in _one_line_error(capsys.readouterr().err, cmd)


def test_json_depth_limit_is_sharp_and_skips_strings():
    ok = "[" * 64 + "]" * 64
    assert C._json_depth_at_most(ok, 64) and not C._json_depth_at_most("[" + ok + "]", 64)
    assert C._json_depth_at_most('[{"x": "[[[[[[[[\\"[[["}]', 2)
    assert C.parse_spec('[{"mechanism": "rr", "eps": "0.1", "count": 3}]')[0].count == 3
