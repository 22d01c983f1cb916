"""``fullyadaptive game``: the game filter's certified budget from the command line."""
from __future__ import annotations

import json
from fractions import Fraction as F

from reference.accountants import GameFilter
from reference.cli import main


def test_game_prints_the_budget_and_its_certificate(capsys):
    assert main(["game", "--eps", "1", "--delta", "1e-6", "--grid", "0.01"]) == 0
    out = capsys.readouterr().out
    assert "B* = 549" in out and "of the optimal non-adaptive 562" in out and "> delta" in out


def test_game_json_is_the_filters_certificate(capsys):
    assert main(["game", "--eps", "1", "--delta", "1e-6", "--grid", "0.01", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["budget"] == GameFilter(1, "1e-6", "0.01").budget == 549
    assert F(d["game_value_at_budget_upper"]) <= F(1, 10 ** 6) < F(d["game_value_above_budget_lower"])
    assert d["decided"] and d["engine"] == "game-1" and "commit" in d and d["charges"] == [m * m for m in d["menu"]]


def test_game_eps_max_and_bad_input(capsys):
    assert main(["game", "--eps", "1", "--delta", "1e-6", "--grid", "0.01", "--eps-max", "0.05", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["menu"] == [1, 2, 3, 4, 5] and d["budget"] >= 549  # a smaller menu: the analyst is weaker
    assert main(["game", "--eps", "1", "--delta", "2", "--grid", "0.01"]) == 2
    assert "delta" in capsys.readouterr().err
    assert main(["game", "--eps", "1", "--delta", "1e-400", "--grid", "0.1"]) == 2
    assert "1e-300" in capsys.readouterr().err
