"""The report's record of long computations (reference.report.recorded): used only while it matches the code.

The slow test recomputes every recorded item and compares it with the record, so every number
the default report prints from the record is checked against the code that it claims made it.
The default tests check the conditions under which the record may be used: the running code's
fingerprint, the items' hash, the exact arguments; and that a record failing any of them is
ignored (the report computes instead).
"""
from __future__ import annotations

import json
import shutil

import pytest

from reference.report import build_report
from reference.report.build import recorded_computations
from reference.report.recorded import (FORMAT, RECORD_PATH, item_key, items_sha256, load_record, recall,
                                       source_fingerprint)

CHEAP = {"verify": False, "eps0_sweep": ("0.1",), "eps0": "0.1", "gaussian_sigmas": ()}


def _write(path, items, fingerprint=None, **over):
    rec = {"format": FORMAT, "fingerprint": source_fingerprint() if fingerprint is None else fingerprint,
           "items_sha256": items_sha256(items), "items": items, **over}
    path.write_text(json.dumps(rec), encoding="utf-8")
    return path


def test_the_shipped_record_is_whole_and_undamaged():
    """Its hash matches its items, and it holds exactly the report's long computations at DEFAULTS."""
    rec = json.loads(RECORD_PATH.read_text(encoding="utf-8"))
    assert rec["format"] == FORMAT
    assert rec["items_sha256"] == items_sha256(rec["items"])
    assert set(rec["items"]) == {item_key(n, a) for n, a, _ in recorded_computations()}


def test_the_shipped_record_is_fresh():
    """The record was made by this very code (its fingerprint), so the README's main command reads it and stays light
    (about 10 s instead of 90 s); a change under reference/ needs python -m reference.report.regenerate (about 100 s)
    and the new record committed with it.  The slow test below checks the values themselves."""
    rec = json.loads(RECORD_PATH.read_text(encoding="utf-8"))
    assert rec["fingerprint"] == source_fingerprint(), "stale record: python -m reference.report.regenerate"


@pytest.mark.slow
def test_every_recorded_item_is_what_the_code_computes():
    """Recompute every item (about 100 s) and compare with the record; the record is fresh (same code)."""
    from reference.report.regenerate import record_items

    rec = json.loads(RECORD_PATH.read_text(encoding="utf-8"))
    assert rec["fingerprint"] == source_fingerprint(), "stale record: python -m reference.report.regenerate"
    live = record_items()
    assert set(live) == set(rec["items"])
    for key, value in live.items():
        assert value == rec["items"][key], key


def test_a_record_is_refused_when_stale_damaged_missing_or_of_another_format(tmp_path):
    items = {item_key("rounds_comparison", {"eps0": "0.1", "eps": "1", "delta": "1e-6"}): {"optimal": 1}}
    good = _write(tmp_path / "good.json", items)
    assert load_record(good) == items
    assert load_record(_write(tmp_path / "stale.json", items, fingerprint="0" * 64)) is None
    damaged = json.loads(good.read_text())
    damaged["items"][next(iter(items))]["optimal"] = 2  # the values changed, the hash did not
    (tmp_path / "damaged.json").write_text(json.dumps(damaged))
    assert load_record(tmp_path / "damaged.json") is None
    assert load_record(tmp_path / "missing.json") is None
    (tmp_path / "garbage.json").write_text("{not json")
    assert load_record(tmp_path / "garbage.json") is None
    assert load_record(_write(tmp_path / "old.json", items, format="another-format")) is None


def test_the_fingerprint_changes_with_any_source_or_data_file(tmp_path):
    pkg = tmp_path / "pkg"
    (pkg / "data").mkdir(parents=True)
    (pkg / "a.py").write_text("x = 1\n")
    (pkg / "data" / "t.json").write_text("{}\n")
    (pkg / "notes.txt").write_text("ignored\n")
    rec = pkg / "data" / "record.json"
    rec.write_text("1")
    f0 = source_fingerprint(pkg, rec)
    rec.write_text("2")  # the record itself is left out
    (pkg / "_build_info.py").write_text("COMMIT = 'abc'\n")  # the build's stamp names the code, computes nothing
    (pkg / "notes.txt").write_text("other\n")  # neither a source nor a data file
    assert source_fingerprint(pkg, rec) == f0
    (pkg / "a.py").write_text("x = 2\n")
    f1 = source_fingerprint(pkg, rec)
    assert f1 != f0
    (pkg / "data" / "t.json").write_text("[]\n")
    assert source_fingerprint(pkg, rec) != f1
    shutil.copy(pkg / "a.py", pkg / "b.py")
    assert source_fingerprint(pkg, rec) not in (f0, f1)


def test_recall_takes_only_the_exact_arguments():
    items = {item_key("x", {"eps0": "0.1"}): "recorded"}
    used: list = []
    assert recall(items, "x", {"eps0": "0.1"}, lambda: "computed", used) == "recorded"
    assert recall(items, "x", {"eps0": "1e-1"}, lambda: "computed", used) == "computed"  # same number, not the key
    assert recall(items, "y", {"eps0": "0.1"}, lambda: "computed", used) == "computed"
    assert recall(None, "x", {"eps0": "0.1"}, lambda: "computed", used) == "computed"
    assert used == [item_key("x", {"eps0": "0.1"})]


def test_the_report_prints_a_usable_record_and_ignores_a_stale_one(tmp_path, monkeypatch):
    """A planted (false) row shows where the record is read; stale, or with recorded=False, the code computes."""
    from reference.bounds.baselines import rounds_comparison
    from reference.report import build

    monkeypatch.setattr(build, "_catalog_rows", lambda digits, progress: [])  # not under test here (seconds)

    live = rounds_comparison("0.1", "1", "1e-6")
    planted = {**live, "optimal": live["optimal"] + 1}
    items = {item_key("rounds_comparison", {"eps0": "0.1", "eps": "1", "delta": "1e-6"}): planted}
    good = _write(tmp_path / "good.json", items)
    stale = _write(tmp_path / "stale.json", items, fingerprint="0" * 64)
    rep = build_report({**CHEAP, "record_path": good})
    assert rep["rounds"]["comparison"] == planted and rep["recorded"]["items"] == list(items)
    for cfg in ({**CHEAP, "record_path": stale}, {**CHEAP, "record_path": good, "recorded": False}):
        rep = build_report(cfg)
        assert rep["rounds"]["comparison"] == live and rep["recorded"] is None
