"""Tests of the command line (``fullyadaptive list | eval | report | version``), the report and the README table."""
from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import mpmath
import pytest

import reference
from reference import report as rpt
from reference.catalog import entries
from reference.cli import main
from reference.precision import directed_decimal, mpf_to_fraction, to_exact
from reference.cli.readme_table import (
    END,
    START,
    catalog_table,
    errata_table,
    render,
    replace_table,
)
from reference.bounds.whitehouse2023 import advanced_composition_eps, filter_rounds_homogeneous, y_star

ROOT = Path(__file__).resolve().parents[1]
ID_RE = re.compile(r"^[a-z]+[0-9]{4}[a-z]*_[a-z0-9_]+$")
ENTRIES = entries()
MPF_ENTRIES = [e for e in ENTRIES if e.returns == "mpf"]
INT_ENTRIES = [e for e in ENTRIES if e.returns == "int"]


def run(capsys, *argv):
    rc = main(list(argv))
    out, err = capsys.readouterr()
    return rc, out, err


def _value(x) -> Fraction | None:
    """Exact value of an mpf (None for +-inf)."""
    if isinstance(x, mpmath.mpf) and not mpmath.isfinite(x):
        return None
    return mpf_to_fraction(mpmath.mpf(x))


# --------------------------------------------------------------------------
# list
# --------------------------------------------------------------------------

def test_list_table_names_every_entry(capsys):
    rc, out, err = run(capsys, "list")
    assert rc == 0 and not err
    for e in ENTRIES:
        assert e.id in out
    assert out.splitlines()[0].split()[:4] == ["id", "result", "direction", "provenance"]


def test_list_json_schema_and_ids(capsys):
    rc, out, _ = run(capsys, "list", "--json")
    assert rc == 0
    top = json.loads(out)
    assert top["version"] == reference.__version__ and top["commit"]
    data = top["entries"]
    assert isinstance(data, list) and len(data) == len(ENTRIES) > 0
    ids = [d["id"] for d in data]
    assert len(ids) == len(set(ids)), "ids must be unique"
    for d in data:
        for key in ("id", "paper", "source", "result", "parameters", "direction", "summary", "validity"):
            assert key in d, (d.get("id"), key)
        assert ID_RE.match(d["id"]), d["id"]
        assert d["direction"] in ("upper", "lower", "exact")
        assert d["summary"]
        for p in d["parameters"]:
            assert {"name", "domain"} <= set(p)


def test_list_paper_filter(capsys):
    rc, out, _ = run(capsys, "list", "--json", "--paper", "howard2021")
    assert rc == 0
    data = json.loads(out)["entries"]
    assert data and all(d["paper_key"] == "howard2021" for d in data)
    rc, out, err = run(capsys, "list", "--paper", "nosuchpaper")
    assert rc == 2 and "nosuchpaper" in err and "Traceback" not in err


# --------------------------------------------------------------------------
# eval
# --------------------------------------------------------------------------

def test_eval_ystar_matches_library(capsys):
    rc, out, err = run(capsys, "eval", "whitehouse2022_eq6_ystar", "--digits", "20")
    assert rc == 0 and not err
    ref = y_star("1", "1e-6", dps=50)  # the CLI computes at max(--dps 50, 20 + 5)
    assert out.strip() == directed_decimal(ref, 20, "exact")
    exact = _value(y_star("1", "1e-6", dps=100))
    assert abs(to_exact(out.strip(), "out") - exact) <= exact * Fraction(1, 10**19)


def test_eval_explicit_parameters_and_sequences(capsys):
    rc, out, _ = run(capsys, "eval", "whitehouse2022_eq2_eps", "eps=0.1,0.2,0.05", "delta_prime=1e-9", "--digits", "30")
    assert rc == 0
    assert out.strip() == directed_decimal(advanced_composition_eps(["0.1", "0.2", "0.05"], "1e-9", dps=50), 30, "upper")


@pytest.mark.parametrize("entry", MPF_ENTRIES, ids=lambda e: e.id)
def test_eval_rounds_in_the_entry_direction(capsys, entry):
    rc, out, err = run(capsys, "eval", entry.id, "--digits", "12", "--json")
    assert rc == 0, err
    d = json.loads(out)
    assert d["id"] == entry.id and d["direction"] == entry.direction and d["digits"] == 12
    assert set(d["parameters"]) == {p.name for p in entry.params}
    assert d["citation"]["result"] == entry.result
    kwargs, _, _ = rpt.prepare_arguments(entry, {})
    v100 = rpt.evaluate_entry(entry, kwargs, digits=95)  # rounded in the entry's direction at 100 digits
    printed = d["value"]
    if printed in ("inf", "-inf"):
        assert _value(v100) is None
        return
    p = to_exact(printed, "value")
    v = _value(v100)
    # p >= v100 >= exact for an upper bound; p <= v100 <= exact for a lower bound.
    if entry.direction == "upper":
        assert p >= v
    elif entry.direction == "lower":
        assert p <= v
    else:
        assert abs(p - v) <= abs(v) * Fraction(1, 10**11)
    assert len(printed.split("e")[0].replace("-", "").replace(".", "").lstrip("0")) <= 12


@pytest.mark.parametrize("entry", INT_ENTRIES, ids=lambda e: e.id)
def test_eval_int_entries(capsys, entry):
    rc, out, _ = run(capsys, "eval", entry.id)
    assert rc == 0
    kwargs, _, _ = rpt.prepare_arguments(entry, {})
    assert out.strip() == str(entry.func(**kwargs))
    rc, out, _ = run(capsys, "eval", entry.id, "--json")
    assert json.loads(out)["value"] == entry.func(**kwargs)


def test_eval_int_entry_with_parameters(capsys):
    rc, out, _ = run(capsys, "eval", "whitehouse2022_thm1_rounds_homogeneous", "eps0=0.001")
    assert rc == 0
    assert int(out) == filter_rounds_homogeneous("0.001", "0", "1", "1e-6", "0")


def test_upper_bound_printed_rounded_up(capsys):
    # 1e-9 + 1e-9 + 1e-6 is not a binary fraction: the certified upper value is above it, so is the print.
    rc, out, _ = run(capsys, "eval", "whitehouse2022_eq2_delta", "--digits", "4")
    assert rc == 0 and to_exact(out.strip(), "out") >= Fraction(1002, 10**9)


@pytest.mark.parametrize("argv, needle", [
    (["eval", "whitehouse2099_nothing"], "whitehouse2099_nothing"),
    (["eval", "whitehouse2022_eq6_ystar", "bogus=1"], "bogus"),
    (["eval", "whitehouse2022_eq6_ystar", "eps=-1"], "eps"),
    (["eval", "whitehouse2022_eq6_ystar", "delta_prime=2"], "delta_prime"),
    (["eval", "whitehouse2022_eq6_ystar", "eps=abc"], "eps"),
    (["eval", "whitehouse2022_eq2_eps", "eps=0.1,-0.2"], "eps[1]"),
    (["eval", "whitehouse2022_lem4", "n_records=2.5"], "n_records"),
    (["eval", "whitehouse2022_eq6_ystar", "eps"], "name=value"),
    (["eval", "whitehouse2022_eq6_ystar", "--digits", "0"], "--digits"),
    (["eval", "whitehouse2022_eq6_ystar", "--dps", "-5"], "--dps"),
    (["eval", "whitehouse2022_eq6_ystar", "--dps", "10001"], "--dps"),
    (["eval", "whitehouse2022_eq2_eps", "eps=0.1,,0.2"], "eps[1]"),
    (["eval", "whitehouse2022_eq2_eps", "eps=0.1,0.2,"], "eps[2]"),
    (["eval", "whitehouse2022_thm6_stop_index", "steps=dp:0.1:0,,zcdp:0.005"], "steps[1]"),
    (["eval", "whitehouse2022_eq6_ystar", "--max-seconds", "0"], "--max-seconds"),
    (["eval", "whitehouse2022_eq6_ystar", "--max-seconds", "nan"], "--max-seconds"),
    (["eval", "whitehouse2022_eq6_ystar", "--digits", "many"], "--digits"),
])
def test_eval_errors_exit_2_without_traceback(capsys, argv, needle):
    rc, out, err = run(capsys, *argv)
    assert rc == 2
    assert needle in err
    assert "Traceback" not in err and not out
    assert len(err.strip().splitlines()) == 1


def test_eval_out_of_domain_names_the_domain(capsys):
    rc, _, err = run(capsys, "eval", "whitehouse2022_eq6_ystar", "eps=0")
    assert rc == 2 and "eps must lie in (0, inf)" in err


# --------------------------------------------------------------------------
# report
# --------------------------------------------------------------------------

@pytest.fixture(scope="module")
def report_dir(tmp_path_factory):
    """The default report, run once; its stdout (the summary) is kept in ``summary.txt`` beside it."""
    import contextlib
    import io
    import os

    d = tmp_path_factory.mktemp("report")
    cwd = os.getcwd()
    os.chdir(d)
    buf = io.StringIO()
    try:
        with contextlib.redirect_stdout(buf):
            assert main(["report", "--quiet"]) == 0
    finally:
        os.chdir(cwd)
    (d / "summary.txt").write_text(buf.getvalue())
    return d / "fullyadaptive-report"


def test_report_writes_files(report_dir):
    assert (report_dir / "report.md").is_file()
    assert (report_dir / "report.json").is_file()
    md = (report_dir / "report.md").read_text()
    rep = json.loads((report_dir / "report.json").read_text())
    r = rep["rounds"]
    for key in ("filter", "advanced_composition", "basic_composition"):
        assert f"**{r[key]}**" in md
    assert "## Errata" in md and "## Odometers" in md and "## Catalog" in md and "## Exact verification" in md
    v = rep["verification"]
    assert v["targets"] and all(t["verdict"] == "pass" for t in v["targets"]), v["targets"]
    assert v["negative_controls"] and all(c["verdict"] == "FAIL" for c in v["negative_controls"])
    assert {c["id"] for c in rep["catalog"]} == {e.id for e in ENTRIES}
    assert all(c.get("value") is not None for c in rep["catalog"]), [c for c in rep["catalog"] if c.get("error")]


def test_report_rounds_at_the_paper_setting(report_dir):
    rep = json.loads((report_dir / "report.json").read_text())
    r = rep["rounds"]
    s = rpt.DEFAULTS
    assert r["filter"] == filter_rounds_homogeneous(s["eps0"], s["delta0"], s["eps_target"], s["delta_prime"], s["delta_second"])
    assert r["basic_composition"] == 100
    # eps^2/2 >= eps tanh(eps/2): the filter admits at most as many rounds as advanced composition
    assert r["filter"] <= r["advanced_composition"]
    assert r["filter"] >= 0.9 * r["advanced_composition"]
    assert r["filter"] > 3 * r["basic_composition"] and r["advanced_composition"] > 3 * r["basic_composition"]
    # independent check of the O(1) helper with the public O(k) function
    K = r["advanced_composition"]
    assert advanced_composition_eps([s["eps0"]] * K, s["delta_prime"]) <= 1
    assert advanced_composition_eps([s["eps0"]] * (K + 1), s["delta_prime"]) > 1
    for row in r["sweep"]:
        assert row["filter"] <= row["advanced_composition"]


def test_report_odometers(report_dir):
    rep = json.loads((report_dir / "report.json").read_text())
    rows = {row["n"]: row for row in rep["odometers"]["rows"]}
    assert set(rows) == set(rpt.DEFAULTS["rounds"])
    # the filter odometer tuned at eps = 1 is tangent to f at V = y*, i.e. near n = 349
    assert to_exact(rows[349]["filter"], "f") <= 1
    for row in rows.values():
        for k in ("filter", "mixture", "stitched", "rogers_quoted"):
            assert to_exact(row[k], k) > 0


def test_report_json_and_out_with_progress_lines(tmp_path, capsys, monkeypatch):
    """--json prints the full JSON report; off a terminal, progress comes as periodic one-line messages."""
    from reference.report import progress

    monkeypatch.setattr(progress, "START_S", 0.0)
    monkeypatch.setenv(progress.INTERVAL_ENV, "0.05")
    out = tmp_path / "x" / "y"
    rc, stdout, err = run(capsys, "report", "--out", str(out), "--json", "--no-verify")
    assert rc == 0
    rep = json.loads(stdout)
    assert rep["verification"] is None
    assert rep["rounds"] == json.loads((out / "report.json").read_text())["rounds"]
    assert rep["version"] == reference.__version__ and rep["commit"]
    lines = err.splitlines()
    prog = [ln for ln in lines if ln.startswith("fullyadaptive report: ")]
    assert len(prog) >= 2, err  # periodic lines, not one bar
    assert any(" catalog " in ln and "/" in ln for ln in prog), err
    assert "\r" not in err  # no bar redrawn in place when stderr is not a terminal
    assert lines[-1].startswith("wrote ")
    rc, stdout, err = run(capsys, "report", "--out", str(out), "--json", "--no-verify", "--quiet")
    assert rc == 0 and err == ""


@pytest.mark.parametrize("k", [1, 2, 3, 17, 100])
@pytest.mark.parametrize("eps0", ["0.01", "0.3", "2"])
def test_advcomp_homogeneous_helper_matches_public_function(k, eps0):
    assert rpt.advcomp_eps_homogeneous(eps0, k, "1e-6") == advanced_composition_eps([eps0] * k, "1e-6")


def test_advcomp_rounds_edge_cases():
    assert rpt.advcomp_rounds_homogeneous("5", "1", "1e-6") == 0
    assert rpt.basic_rounds_homogeneous("0.3", "1") == 3
    assert rpt.basic_rounds_homogeneous("1/3", "1") == 3


def test_errata_absent_or_in_either_shape(tmp_path):
    assert rpt.load_errata(tmp_path / "missing.json") == (None, None)
    rep = rpt.build_report({"errata_path": tmp_path / "missing.json", "eps0_sweep": (), "verify": False})
    assert "No errata file" in rpt.render_markdown(rep)
    item = {"id": "X-1", "seed": ["a.txt"], "location": "eq. (9)", "printed": "a|b", "corrected": "c",
            "check": "proofs/x.py::t", "consequence": "typo; result unaffected"}
    (tmp_path / "list.json").write_text(json.dumps([item]))
    (tmp_path / "obj.json").write_text(json.dumps({"schema": "s", "entries": [item]}))
    for name in ("list.json", "obj.json"):
        items, problem = rpt.load_errata(tmp_path / name)
        assert problem is None and items == [item]
    (tmp_path / "bad.json").write_text("{not json")
    items, problem = rpt.load_errata(tmp_path / "bad.json")
    assert items is None and problem
    md = rpt.render_markdown({**rep, "errata": [item], "errata_problem": None})
    assert "### X-1" in md and "a\\|b" in md and "eq. (9)" in md


# --------------------------------------------------------------------------
# version, python -m reference, README
# --------------------------------------------------------------------------

def test_version(capsys):
    """First line the version; then the commit and which source it came from, the package and data folders."""
    rc, out, _ = run(capsys, "version")
    lines = out.splitlines()
    assert rc == 0 and lines[0] == f"fullyadaptive {reference.__version__}"
    p = rpt.provenance()
    assert lines[1].startswith(f"commit: {p['commit_full'] or p['commit']}")
    assert lines[2:] == [f"package: {Path(reference.__file__).resolve().parent}",
                         f"data: {Path(reference.__file__).resolve().parent / 'data'}"]


def test_version_json_names_the_installed_package_and_its_data():
    import reference.report as r

    d = json.loads(main_out(["version", "--json"]))
    pkg = Path(reference.__file__).resolve().parent
    assert d["package_path"] == str(pkg) and d["data_path"] == str(pkg / "data")
    assert (Path(d["data_path"]) / "vectors" / "catalog_values.json").is_file()
    assert d["commit_source"] in r.COMMIT_SOURCES
    if d["commit_source"] == "unknown":
        assert d["commit"] == "unknown" and d["commit_full"] is None and d["dirty"] is None
    else:
        assert d["commit_full"].startswith(d["commit"]) and re.fullmatch(r"[0-9a-f]{40,64}", d["commit_full"])


def main_out(argv) -> str:
    import contextlib
    import io

    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        assert main(list(argv)) == 0
    return buf.getvalue()


def test_python_dash_m_reference_version():
    p = subprocess.run([sys.executable, "-m", "reference", "version"], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert p.returncode == 0, p.stderr
    assert p.stdout.splitlines()[0] == f"fullyadaptive {reference.__version__}"


def test_python_dash_m_reference_error_exit_code():
    p = subprocess.run([sys.executable, "-m", "reference", "eval", "nope"], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert p.returncode == 2 and "Traceback" not in p.stderr


def test_no_subcommand_exits_2(capsys):
    assert main([]) == 2


README = ROOT / "README.md"


def test_readme_catalog_table_is_up_to_date():
    text = README.read_text(encoding="utf-8")
    assert START in text and END in text
    assert render(text) == text, "README generated tables are stale: run python -m reference.cli.readme_table"
    assert catalog_table().count("\n") == len(ENTRIES) + 2


def test_readme_has_the_two_commands():
    text = README.read_text(encoding="utf-8")
    assert "python -m pip install . && fullyadaptive report" in text
    assert "python -m pip install '.[test]' && python -m pytest" in text


# --------------------------------------------------------------------------
# derive
# --------------------------------------------------------------------------

def test_derive_lists_and_prints_every_derivation(capsys):
    import symbolic

    rc, out, _ = run(capsys, "derive", "--list")
    assert rc == 0
    names = list(symbolic.derivations())
    assert names and all(n in out for n in names)
    for n in names:
        rc, text, _ = run(capsys, "derive", n)
        assert rc == 0 and "=>" in text
        rc, tex, _ = run(capsys, "derive", n, "--latex")
        assert rc == 0 and tex.startswith("%")


def test_derive_bare_name_and_unknown_name(capsys):
    rc, out, _ = run(capsys, "derive", "y_star")
    assert rc == 0 and "sqrt(L + epsilon)" in out
    rc, _, err = run(capsys, "derive", "no_such_derivation")
    assert rc == 2 and "unknown derivation" in err


def test_readme_errata_table_lists_every_ledger_entry():
    ledger = json.loads((ROOT / "reference" / "data" / "errata.json").read_text())
    table = errata_table()
    assert table.count("\n") == len(ledger["entries"]) + 2
    for e in ledger["entries"]:
        assert f"`{e['id']}`" in table


# --------------------------------------------------------------------------
# simulation subcommands
# --------------------------------------------------------------------------

def test_individual_filter_command_runs_and_reports(capsys):
    rc, out, _ = run(capsys, "individual-filter", "--n", "200", "--steps", "40", "--seed", "3")
    assert rc == 0
    assert "Algorithm 3" in out and "-RDP" in out and "active points by step" in out
    rc, out, _ = run(capsys, "individual-filter", "--n", "100", "--steps", "20", "--json")
    data = json.loads(out)
    assert len(data["active_counts"]) == 20 and data["active_counts"][0] == 100


def test_individual_filter_command_rejects_bad_input(capsys):
    rc, _, err = run(capsys, "individual-filter", "--sigma", "-1")
    assert rc == 2 and "sigma" in err


def test_report_compares_every_filter_with_the_optimal_composition(report_dir, monkeypatch):
    """Every row is recomputed here, except the game filter at eps0 = 0.001 (a 20 s, 0.7 GB sweep): that one
    value is the record's, which ``tests/test_report_recorded.py`` recomputes (slow), and is checked
    against the optimal count here; the game's far-row branch that it runs is in ``proofs/test_game.py``."""
    from reference.bounds import game_filter
    from reference.bounds.baselines import ROUND_RULES, rounds_comparison
    from reference.report.recorded import item_key, load_record

    rep = json.loads((report_dir / "report.json").read_text())
    s = rep["settings"]
    heavy = {"0.001"}
    for row in rep["rounds"]["sweep"]:
        if row["eps0"] in heavy:
            continue
        assert row["comparison"] == rounds_comparison(row["eps0"], s["eps_target"], s["delta_prime"])
        assert set(row["comparison"]) == {k for k, _, _ in ROUND_RULES}

    def too_large(*_a, **_k):
        raise game_filter.GameTooLarge("left out here: the record's value is checked instead")

    monkeypatch.setattr(game_filter, "game_filter_rounds", too_large)
    items = load_record()
    for row in rep["rounds"]["sweep"]:
        if row["eps0"] not in heavy:
            continue
        live = rounds_comparison(row["eps0"], s["eps_target"], s["delta_prime"])
        assert live["game_filter"] is None and set(live) == set(row["comparison"]) == {k for k, _, _ in ROUND_RULES}
        assert {k: v for k, v in row["comparison"].items() if k != "game_filter"} == {
            k: v for k, v in live.items() if k != "game_filter"}
        g = row["comparison"]["game_filter"]
        assert g is not None and live["whitehouse_filter"] <= g <= live["optimal"]
        key = item_key("rounds_comparison", {"eps0": row["eps0"], "eps": s["eps_target"], "delta": s["delta_prime"]})
        if items is not None:  # a usable record: the report printed its value (else it computed the game itself)
            assert key in rep["recorded"]["items"] and items[key]["game_filter"] == g
    assert "optimal composition" in (report_dir / "report.md").read_text()


def test_checkins_command_runs_and_reports(capsys):
    rc, out, _ = run(capsys, "checkins", "--n", "200", "--m", "20", "--seed", "1")
    assert rc == 0 and "dummy updates" in out and "balle2020_thm3_2_eps" in out
    rc, out, _ = run(capsys, "checkins", "--protocol", "averaged", "--n", "100", "--m", "10", "--json")
    assert rc == 0 and isinstance(json.loads(out), dict)
    rc, _, err = run(capsys, "checkins", "--n", "-3")
    assert rc == 2 and "n must" in err


def test_report_shows_where_amplification_bounds_stop_amplifying(report_dir):
    from reference.bounds import balle2020 as B

    rep = json.loads((report_dir / "report.json").read_text())
    a = rep["amplification"]
    assert a["rows"]
    flags = []
    for row in a["rows"]:
        v = row["shuffling_thm5_1"]
        exact = B.amplifies(B.thm5_1_eps(row["eps0"], row["n"], a["delta"]), row["eps0"])
        assert v["amplifies"] == exact
        flags.append(exact)
    assert True in flags and False in flags  # the default grid shows both regimes
    md = (report_dir / "report.md").read_text()
    assert "Amplification by random check-ins and shuffling" in md and "(**no**)" in md


# --------------------------------------------------------------------------
# releases: version and commit, LICENSE, CITATION.cff, CHANGELOG, README
# --------------------------------------------------------------------------

def _assert_build_info(d):
    assert d["version"] == reference.__version__
    assert isinstance(d["commit"], str) and d["commit"]


@pytest.mark.parametrize("argv", [
    ["eval", "whitehouse2022_eq6_ystar", "--json"],
    ["eval", "whitehouse2022_thm1_rounds_homogeneous", "--json"],
    ["list", "--json", "--paper", "whitehouse2022"],
    ["describe", "whitehouse2022_eq6_ystar", "--json"],
    ["version", "--json"],
    ["verify", "--target", "W22_thm1_filter", "--adversary", "homogeneous", "--rounds", "30", "--json"],
    ["individual-filter", "--n", "50", "--steps", "5", "--json"],
    ["checkins", "--n", "100", "--m", "10", "--json"],
    ["check-martingales", "--quick", "--paths", "200", "--steps", "20", "--mc-samples", "500", "--json"],
], ids=lambda a: a[0])
def test_every_json_output_names_version_and_commit(capsys, argv):
    rc, out, err = run(capsys, *argv)
    assert rc in (0, 1), err
    _assert_build_info(json.loads(out))


def test_report_json_names_version_and_commit(report_dir):
    rep = json.loads((report_dir / "report.json").read_text())
    _assert_build_info(rep)
    md = (report_dir / "report.md").read_text()
    assert f"fullyadaptive {reference.__version__} (commit {rep['commit']})" in md


def test_git_commit_is_a_short_hash_or_unknown_and_never_raises(monkeypatch):
    import subprocess as sp

    c = rpt.git_commit()
    assert c == "unknown" or re.fullmatch(r"[0-9a-f]{4,40}", c)

    def boom(*a, **k):
        raise OSError("no git here")

    rpt.clear_provenance_cache()
    monkeypatch.setattr(sp, "run", boom)
    try:
        assert rpt.git_commit() == "unknown"
        # a source checkout carries no build stamp: without git nothing names the commit
        assert rpt.build_info() == {"version": reference.__version__, "commit": "unknown", "commit_source": "unknown",
                                    "dirty": None}
    finally:
        rpt.clear_provenance_cache()


def test_license_is_mit_and_declared_for_the_wheel():
    text = (ROOT / "LICENSE").read_text()
    assert text.startswith("MIT License") and "the fullyadaptive authors" in text
    py = (ROOT / "pyproject.toml").read_text()
    assert re.search(r'license-files\s*=\s*\[\s*"LICENSE"', py), "pyproject must ship LICENSE in the wheel and sdist"


def test_citation_cff_is_valid_cff_1_2_0():
    yaml = pytest.importorskip("yaml", reason="PyYAML parses CITATION.cff")
    d = yaml.safe_load((ROOT / "CITATION.cff").read_text())
    # the required keys and the types of the CFF 1.2.0 schema (citation-file-format/schema.json)
    assert d["cff-version"] == "1.2.0"
    assert {"authors", "cff-version", "message", "title"} <= set(d)
    allowed = {"abstract", "authors", "cff-version", "commit", "contact", "date-released", "doi", "identifiers",
               "keywords", "license", "license-url", "message", "preferred-citation", "references", "repository",
               "repository-artifact", "repository-code", "title", "type", "url", "version"}
    assert set(d) <= allowed, set(d) - allowed
    assert d["type"] in ("software", "dataset") and d["license"] == "MIT"
    assert str(d["version"]) == reference.__version__
    assert all(isinstance(a, dict) and ("name" in a or "family-names" in a) for a in d["authors"])
    for ref in d.get("references", []):
        assert {"authors", "title", "type"} <= set(ref)
        assert all("family-names" in a or "name" in a for a in ref["authors"])
        assert all(i["type"] in ("doi", "url", "swh", "other") and i["value"] for i in ref.get("identifiers", []))


def test_changelog_has_an_unreleased_section_listing_the_changes():
    text = (ROOT / "CHANGELOG.md").read_text()
    assert "Keep a Changelog" in text
    unreleased = text.split("## [Unreleased]", 1)[1].split("\n## [", 1)[0]
    for needle in ("layout by role", "validity", "falsifier", "describe", "--max-seconds", "LICENSE", "CITATION.cff"):
        assert needle.lower() in unreleased.lower(), needle


def test_readme_states_python_versions_durations_and_seed_variable():
    text = README.read_text(encoding="utf-8")
    assert "Python >= 3.10" in text or "Python 3.10" in text
    assert "FULLYADAPTIVE_SEEDS" in text
    cmd = text.split("## Command line", 1)[1].split("\n## ", 1)[0]
    assert "fullyadaptive describe" in cmd and "--max-seconds" in cmd and "--full" in cmd
    assert re.search(r"about \d+ (s|seconds|minutes?)", text)
    assert "## Citing" in text and "CITATION.cff" in text


def test_default_hypothesis_profile_is_the_ci_profile():
    """Local runs and CI draw the same examples: derandomized, same max_examples (conftest.py)."""
    import os

    from hypothesis import settings

    if os.environ.get("HYPOTHESIS_PROFILE", "ci") != "ci":
        pytest.skip("another hypothesis profile was chosen explicitly")
    ci = settings.get_profile("ci")
    assert settings.default.derandomize and ci.derandomize
    assert settings.default.max_examples == ci.max_examples


@pytest.mark.slow
def test_wheel_ships_the_license(tmp_path):
    import zipfile

    p = subprocess.run([sys.executable, "-m", "pip", "wheel", str(ROOT), "-w", str(tmp_path), "--no-deps", "-q"],
                       capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr
    whl = next(tmp_path.glob("fullyadaptive-*.whl"))
    names = zipfile.ZipFile(whl).namelist()
    assert any(n.endswith(".dist-info/licenses/LICENSE") or n.endswith(".dist-info/LICENSE") for n in names), names


# --------------------------------------------------------------------------
# report: the headline first, atomic files
# --------------------------------------------------------------------------

def test_report_prints_a_short_summary_by_default(report_dir):
    text = (report_dir.parent / "summary.txt").read_text()
    lines = text.splitlines()
    assert 5 <= len(lines) <= 40, len(lines)
    rep = json.loads((report_dir / "report.json").read_text())
    assert str(rep["rounds"]["filter"]) in text and "optimal" in text  # the rounds table
    assert "Exact verifier: PASS" in text  # the verifier's verdict line
    counts = rep["validity_counts"]
    assert sum(counts.values()) == len(ENTRIES)
    assert "validity: " + ", ".join(f"{n} {k}" for k, n in counts.items()) in text
    assert str(report_dir / "report.md") in text or "fullyadaptive-report/report.md" in text
    assert "## Catalog" not in text


def test_report_full_prints_the_markdown(tmp_path, capsys):
    rc, out, _ = run(capsys, "report", "--full", "--no-verify", "--quiet", "--out", str(tmp_path))
    assert rc == 0
    assert out == (tmp_path / "report.md").read_text()
    assert "## Catalog" in out and "| validity |" in out


def test_report_files_are_replaced_atomically(tmp_path, monkeypatch, report_dir):
    rep = json.loads((report_dir / "report.json").read_text())
    d = tmp_path / "r"
    calls = []
    real_replace = os.replace

    def spy(src, dst):
        calls.append((Path(src), Path(dst)))
        return real_replace(src, dst)

    monkeypatch.setattr(os, "replace", spy)
    md, js = rpt.write_report(rep, d)
    assert [c[1] for c in calls] == [md, js]
    assert all(src.parent == dst.parent and src != dst for src, dst in calls)  # a temporary name in the same directory
    monkeypatch.undo()
    before = {p.name: p.read_bytes() for p in d.iterdir()}

    def interrupted(fd):
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "fsync", interrupted)
    with pytest.raises(KeyboardInterrupt):
        rpt.write_report({**rep, "generated_by": "changed"}, d)
    monkeypatch.undo()
    assert {p.name: p.read_bytes() for p in d.iterdir()} == before  # old files intact, no temporary left


@pytest.mark.skipif(os.name != "posix", reason="file modes and the umask are POSIX")
@pytest.mark.parametrize("mask", [0o022, 0o077, 0o002, 0o027])
def test_report_and_figure_files_get_the_mode_the_umask_gives(tmp_path, report_dir, mask):
    """Written to a mkstemp file (0600) and renamed into place, they still end with 0o666 & ~umask, as open() gives."""
    import stat

    rep = json.loads((report_dir / "report.json").read_text())
    old = os.umask(mask)
    try:
        assert rpt.new_file_mode() == 0o666 & ~mask
        md, js = rpt.write_report(rep, tmp_path / "r")
        figs = []
        if importlib.util.find_spec("matplotlib") is not None:
            from reference.report import figures as F

            figs = [p for _, p in F.draw(["fig1a_gap"], tmp_path / "f", fmt="svg")]
    finally:
        os.umask(old)
    for p in (md, js, *figs):
        assert stat.S_IMODE(p.stat().st_mode) == 0o666 & ~mask, (p, oct(p.stat().st_mode), oct(mask))


def test_the_session_report_is_readable_as_the_umask_allows(report_dir):
    import stat

    for name in ("report.md", "report.json"):
        assert stat.S_IMODE((report_dir / name).stat().st_mode) == rpt.new_file_mode(), name


def test_report_refuses_an_empty_out(capsys):
    rc, out, err = run(capsys, "report", "--out", "", "--no-verify")
    assert rc == 2 and not out
    assert err.startswith("fullyadaptive report: error: ") and "--out" in err and len(err.splitlines()) == 1
    with pytest.raises(ValueError):
        rpt.write_report({}, "")


# --------------------------------------------------------------------------
# errors, Ctrl-C, time guard
# --------------------------------------------------------------------------

@pytest.mark.parametrize("argv", [
    ["list", "--paper", "nosuchpaper"],
    ["eval", "nosuchid"],
    ["eval", "whitehouse2022_eq6_ystar", "--digits", "q"],
    ["describe", "nosuchid"],
    ["derive", "no_such_derivation"],
    ["report", "--out", ""],
    ["verify", "--target", "nonsense", "--no-progress"],
    ["individual-filter", "--sigma", "-1"],
    ["checkins", "--n", "-3"],
    ["check-martingales", "--delta", "2"],
    ["figures", "--only", "nonsense"],
    ["version", "--bogus"],
], ids=lambda a: "_".join(a[:2]))
def test_one_error_prefix_for_every_subcommand(capsys, argv):
    rc, out, err = run(capsys, *argv)
    assert rc == 2 and not out
    assert err.startswith(f"fullyadaptive {argv[0]}: error: "), err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


def _interrupt(args):
    raise KeyboardInterrupt


def test_ctrl_c_in_every_subcommand_is_one_line_and_status_130(capsys, monkeypatch):
    import reference.cli.app as cli  # where main looks build_parser up

    names = list(cli.subcommands())
    assert {"list", "eval", "describe", "report", "derive", "verify", "checkins", "individual-filter",
            "check-martingales", "figures", "version"} <= set(names)
    real = cli.build_parser

    def patched():
        p = real()
        for sp in cli.subcommands(p).values():
            sp.set_defaults(func=_interrupt)
        return p

    def positionals(sp):  # a value for every required positional (the func is replaced: any value will do)
        out = []
        for a in sp._actions:
            if not a.option_strings and a.nargs in (None, "+", 1):
                out.append(next(iter(a.choices)) if a.choices else "whitehouse2022_eq6_ystar")
            elif a.option_strings and a.required:
                out += [a.option_strings[0], next(iter(a.choices)) if a.choices else "0.5"]
        return out

    monkeypatch.setattr(cli, "build_parser", patched)
    subs = cli.subcommands(real())
    for name in names:
        rc, out, err = run(capsys, name, *positionals(subs[name]))
        assert rc == 130, name
        assert err.strip() == f"fullyadaptive {name}: interrupted (Ctrl-C); nothing more was written", err
        assert "Traceback" not in err


#: The child of the Ctrl-C test: the real ``fullyadaptive report``, except that the catalog stage, once under way
#: (ten entries evaluated), prints a marker on stderr and sleeps, so the SIGINT lands at a known point of the run
#: (a pure-Python sleep inside the report, never a finalizer or a C call) instead of wherever a timer left it.
_SIGINT_CHILD = """
import signal, sys, time
# a shell's Ctrl-C: the default handler, unblocked (a test runner's worker may pass SIGINT on ignored or blocked)
signal.signal(signal.SIGINT, signal.default_int_handler)
signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
import reference.report.build as rpt  # where the report's catalog stage looks evaluate_entry up
from reference.cli import main
real, seen = rpt.evaluate_entry, []
def evaluate_entry(*a, **k):
    seen.append(1)
    if len(seen) == 10:
        sys.stderr.write("SIGINT-TEST: ready\\n")
        sys.stderr.flush()
        time.sleep(300)
    return real(*a, **k)
rpt.evaluate_entry = evaluate_entry
sys.exit(main(["report", "--out", sys.argv[1]]))
"""


def test_sigint_during_a_real_report_exits_130_without_traceback(tmp_path):
    """Ctrl-C in the middle of the report's catalog stage: status 130, one line on stderr, no file written.

    The signal is sent only after the child says it is ready (a marker line), never after a sleep, so a loaded
    machine cannot move it to another point of the run."""
    import signal

    env = {**os.environ, "FULLYADAPTIVE_PROGRESS_INTERVAL": "0.2"}
    p = subprocess.Popen([sys.executable, "-c", _SIGINT_CHILD, str(tmp_path)], cwd=ROOT, env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        seen = []
        while True:  # every stderr line up to the marker (progress lines may come first)
            line = p.stderr.readline()
            if not line or line.startswith("SIGINT-TEST: ready"):
                break
            seen.append(line)
        assert line.startswith("SIGINT-TEST: ready"), "".join(seen)
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=120)
    finally:
        if p.poll() is None:
            p.kill()
    assert p.returncode == 130, err
    assert "Traceback" not in err and err.strip().splitlines()[-1].startswith("fullyadaptive report: interrupted")
    assert not list(tmp_path.iterdir())  # nothing half-written


def test_eval_max_seconds_stops_a_long_evaluation(capsys):
    import time

    t0 = time.monotonic()
    rc, out, err = run(capsys, "eval", "kairouz2015_thm3_3_eps", "k=10000000", "--max-seconds", "0.5")
    elapsed = time.monotonic() - t0
    assert rc == 2 and not out
    assert err.startswith("fullyadaptive eval: error: ") and "--max-seconds 0.5" in err
    assert len(err.strip().splitlines()) == 1
    assert elapsed < 30
    rc, out, _ = run(capsys, "eval", "whitehouse2022_eq6_ystar", "--max-seconds", "60", "--digits", "20")
    assert rc == 0 and out.strip() == directed_decimal(y_star("1", "1e-6", dps=50), 20, "exact")
    rc, out, _ = run(capsys, "eval", "whitehouse2022_thm1_rounds_homogeneous", "--max-seconds", "60", "--json")
    assert rc == 0 and json.loads(out)["value"] == 349
    rc, _, err = run(capsys, "eval", "whitehouse2022_eq6_ystar", "eps=-1", "--max-seconds", "60")
    assert rc == 2 and "eps" in err and len(err.strip().splitlines()) == 1


# --------------------------------------------------------------------------
# help and discovery
# --------------------------------------------------------------------------

def test_every_subcommand_and_option_has_a_description_and_default():
    import argparse

    from reference.cli import HelpFormatter, subcommands

    fmt = HelpFormatter("x")
    missing = []
    for name, sp in subcommands().items():
        if not (sp.description or "").strip():
            missing.append(f"{name}: no description")
        for a in sp._actions:
            if isinstance(a, argparse._HelpAction):
                continue
            if not (a.help or "").strip():
                missing.append(f"{name} {a.dest}: no help")
            elif a.option_strings and "default" not in fmt._get_help_string(a).lower():
                missing.append(f"{name} {a.option_strings[0]}: no default stated")
    assert not missing, missing


def test_verify_help_lists_targets_and_adversaries(capsys):
    from reference.cli.verify import names
    from reference.verify.targets import NEGATIVE_CONTROLS, TARGETS

    rc, out, _ = run(capsys, "verify", "--help")
    assert rc == 0
    n = names()
    assert n["targets"] == list(TARGETS) and n["negative_controls"] == list(NEGATIVE_CONTROLS)
    assert {"homogeneous", "loss_chasing", "stopping_time", "delta_spender"} <= set(n["adversaries"])
    flat = " ".join(out.split())
    for name in n["targets"] + n["adversaries"] + n["negative_controls"]:
        assert name in flat, name


def test_checkins_help_explains_every_option(capsys):
    rc, out, _ = run(capsys, "checkins", "--help")
    assert rc == 0
    for opt in ("--protocol", "--task", "--randomizer", "--n", "--m", "--p0", "--eps0", "--sigma", "--clip", "--d",
                "--delta", "--T", "--seed", "--json"):
        assert opt in out
    assert out.count("default") >= 14


def test_every_catalog_parameter_has_a_doc():
    missing = [f"{e.id}.{p.name}" for e in ENTRIES for p in e.params if not p.doc.strip()]
    assert not missing, f"{len(missing)} parameters without a doc string: {missing}"


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: e.id)
def test_describe_every_entry_and_run_its_example(capsys, entry):
    import shlex

    rc, out, err = run(capsys, "describe", entry.id)
    assert rc == 0, err
    for p in entry.params:
        assert p.name in out and str(p.domain) in out
    assert f"validity    {entry.validity}" in out and entry.direction in out and entry.provenance in out
    assert entry.result in out
    if entry.erratum:
        assert entry.erratum in out
    example = out.split("example:\n", 1)[1].strip().splitlines()[0]
    argv = shlex.split(example)
    assert argv[:3] == ["fullyadaptive", "eval", entry.id]
    rc, value, err = run(capsys, *argv[1:])
    assert rc == 0 and value.strip(), err


# --------------------------------------------------------------------------
# validity in the command line
# --------------------------------------------------------------------------

def test_list_shows_the_validity_column(capsys):
    rc, out, _ = run(capsys, "list")
    lines = out.splitlines()
    assert lines[0].split()[4] == "validity"
    for e in ENTRIES:
        row = next(ln for ln in lines if ln.startswith(e.id + " "))
        assert f"  {e.validity}  " in row


@pytest.mark.parametrize("validity, restriction, erratum", [
    ("false as printed", "", "X-FALSE"),
    ("valid under a restriction", "only for eps <= 1", "X-RESTRICT"),
    ("unverified", "", None),
])
def test_eval_warns_about_a_claim_that_is_not_valid(capsys, monkeypatch, validity, restriction, erratum):
    import dataclasses

    from reference import catalog

    e = catalog.get("whitehouse2022_eq6_ystar")
    fake = dataclasses.replace(e, validity=validity, restriction=restriction, erratum=erratum,
                               direction="exact" if validity == "false as printed" else e.direction)
    monkeypatch.setitem(catalog.CATALOG, e.id, fake)
    rc, out, err = run(capsys, "eval", e.id, "--json")
    assert rc == 0
    d = json.loads(out)
    assert (d["validity"], d["restriction"], d["erratum"]) == (validity, restriction, erratum)
    assert len(err.strip().splitlines()) == 1
    assert err.startswith(f"fullyadaptive eval: warning: {e.id} is {validity}")
    if erratum:
        assert erratum in err
    if restriction:
        assert restriction in err
    rc, out, err = run(capsys, "describe", e.id)
    assert f"validity    {validity}" in out and (erratum is None or erratum in out)


@pytest.mark.parametrize("entry", [e for e in ENTRIES if e.validity != "valid"] or [None],
                         ids=lambda e: "none" if e is None else e.id)
def test_eval_of_every_catalog_entry_not_valid_warns(capsys, entry):
    if entry is None:
        pytest.skip("every catalog entry is valid today")
    rc, out, err = run(capsys, "eval", entry.id)
    assert entry.validity in err and (not entry.erratum or entry.erratum in err)
    rc, out, err = run(capsys, "eval", entry.id, "--json")
    d = json.loads(out)
    assert d["validity"] == entry.validity and d["erratum"] == entry.erratum


def test_eval_of_a_valid_entry_prints_no_warning(capsys):
    rc, out, err = run(capsys, "eval", "whitehouse2022_eq6_ystar")
    assert rc == 0 and err == ""


# --------------------------------------------------------------------------
# figures (optional: matplotlib)
# --------------------------------------------------------------------------

def test_figure_data_come_from_the_catalog():
    from reference.bounds.baselines import rounds_comparison
    from reference.catalog import get
    from reference.report import figures as F

    d = F.fig1a_gap_data(points=5)
    gap = get("whitehouse2022_fig1a_gap")
    assert d["gap"] == [float(gap.func(f"{x:.4g}")) for x in d["x"]]
    assert all(0 <= g <= q * (1 + 1e-9) for g, q in zip(d["gap"], d["quartic"]))  # 0 <= gap <= eps^4/24
    r = F.rounds_vs_eps0_data(eps0s=("0.01", "0.1"))
    for i, e0 in enumerate(("0.01", "0.1")):
        assert {s["key"]: s["y"][i] for s in r["series"]} == rounds_comparison(e0, r["params"]["eps"], r["params"]["delta"])
    o = F.fig1b_odometers_data(points=4)
    assert o["params"]["delta_prime"] == "1e-6" and len(o["filter"]) == len(o["mixture"]) == len(o["stitched"]) == 4


def test_new_figure_data_against_second_routes():
    """Figure 3b's point-wise curve against the float formula (and below every odometer, as the paper's figure
    shows); the Renyi-order figure's chosen order and count against the catalog; the verifier figure reads the
    report's verifier results."""
    import math

    from reference.bounds.calibrated import calibrated_renyi_rounds, rr_calibrated_alpha
    from reference.report import figures as F

    d = F.fig3b_pointwise_data(points=7)
    for v, pw in zip(d["x"], d["pointwise"]):
        ref = math.sqrt(2 * v * math.log(1e6)) + v / 2
        assert ref <= pw * (1 + 1e-12) and pw <= ref * (1 + 1e-12)
    for k in ("filter", "mixture", "stitched"):
        assert all(o >= pw * (1 - 1e-12) for o, pw in zip(d[k], d["pointwise"])), k
    r = F.renyi_alpha_data(points=4)
    assert r["k_star"] == calibrated_renyi_rounds("0.01", "1", "1e-6") == 490
    assert r["alpha_star_exact"] == str(rr_calibrated_alpha("0.01", "1", "1e-6"))
    assert all(0 <= y <= r["optimal"] for y in r["y"]) and r["optimal"] == 562
    ver = {"targets": [{"target": "t", "kind": "filter", "allowed": "1/10", "achieved_hi": "0.0432"}],
           "negative_controls": [{"control": "c", "allowed": "0.001", "achieved_lo": "0.285"}]}
    v = F.verifier_delta_data(ver)
    assert v["targets"] == [{"target": "t", "kind": "filter", "allowed": 0.1, "achieved": 0.0432}]
    assert v["controls"] == [{"target": "c", "allowed": 0.001, "achieved": 0.285}]


def test_report_embeds_the_figures_as_svg(tmp_path):
    pytest.importorskip("matplotlib", reason="matplotlib is not installed (the [plots] extra)")
    from reference import report as rpt

    rep = rpt.build_report({"verify": False})
    md, _ = rpt.write_report(rep, tmp_path, figures=True)
    svgs = sorted(p.name for p in (tmp_path / "figures").iterdir())
    assert len(svgs) == 6 and all(n.endswith(".svg") for n in svgs)  # no verifier figure without the verifier
    text = md.read_text()
    for n in svgs:
        assert f"(figures/{n})" in text
        assert (tmp_path / "figures" / n).read_text().lstrip().startswith("<?xml")
    md2, _ = rpt.write_report(rep, tmp_path / "plain")
    assert "## Figures" not in md2.read_text()


def test_figures_skip_with_one_line_without_matplotlib(capsys, monkeypatch, tmp_path):
    from reference.report import figures as F

    monkeypatch.setattr(F, "have_matplotlib", lambda: False)
    rc, out, err = run(capsys, "figures", "--out", str(tmp_path / "f"))
    assert rc == 0 and not out
    assert err.startswith("fullyadaptive figures: skipped: matplotlib is not installed") and len(err.splitlines()) == 1
    assert not (tmp_path / "f").exists()
    rc, _, err = run(capsys, "figures", "--out", "")
    assert rc == 2 and err.startswith("fullyadaptive figures: error: ")


def test_figures_are_drawn_with_their_parameters(capsys, tmp_path):
    pytest.importorskip("matplotlib", reason="matplotlib is not installed (the [plots] extra)")
    from reference.report import figures as F

    rc, out, err = run(capsys, "figures", "--out", str(tmp_path))
    assert rc == 0, err
    for name, (_, _, fname) in F.FIGURES.items():
        p = tmp_path / fname
        assert p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", name
        assert f"{name}: {p}" in out
    assert not [p for p in tmp_path.iterdir() if p.suffix == ".tmp"]


def test_progress_status_line_on_a_terminal_is_redrawn_and_erased():
    import io
    import time

    from reference.report.progress import Progress

    buf = io.StringIO()
    p = Progress("fullyadaptive x", start=0.15, stream=buf, tty=True)
    p.stage("work", 4)
    p.update(2, "item")
    time.sleep(0.5)
    p.close()
    text = buf.getvalue()
    assert text.startswith("\rfullyadaptive x: work 2/4 (50%) item, ") and "\n" not in text
    assert text.endswith("\r") and text.rstrip("\r").endswith(" ")  # erased at the end
    quiet = io.StringIO()
    with Progress("fullyadaptive x", enabled=False, start=0.0, stream=quiet):
        time.sleep(0.1)
    assert quiet.getvalue() == ""


# --------------------------------------------------------------------------
# benchmarks/bench_closed_forms.py: a quick default with progress lines, --full for the long run
# --------------------------------------------------------------------------

def _load_bench():
    import importlib.util

    spec = importlib.util.spec_from_file_location("bench_closed_forms", ROOT / "benchmarks" / "bench_closed_forms.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_bench_closed_forms_quick_default_prints_progress_lines(capsys, monkeypatch):
    from reference.catalog import get

    b = _load_bench()
    few = [get("whitehouse2022_eq6_ystar"), get("whitehouse2022_eq2_eps"), get("kairouz2015_thm3_3_eps")]
    monkeypatch.setattr(b, "entries", lambda: few)
    monkeypatch.setattr(b, "PROGRESS_EVERY_S", 0.0)
    monkeypatch.setattr(b, "QUICK_BUDGET_S", 0.01)
    assert b.main(["--steps", "300"]) == 0
    out, err = capsys.readouterr()
    assert "quick run; --full for the long one" in out and "total " in out
    assert "bench_closed_forms: entries 1/3" in err and "bench_closed_forms: filter steps" in err
    assert b.is_numerical_procedure(get("kairouz2015_thm3_3_eps"))  # an inverse is timed against 1 s
    assert not b.is_numerical_procedure(get("whitehouse2022_eq6_ystar"))


# --------------------------------------------------------------------------
# one parameter vocabulary (catalog.VOCABULARY)
# --------------------------------------------------------------------------

@pytest.mark.parametrize("entry", [e for e in entries() if e.aliases()], ids=lambda e: e.id)
def test_shared_parameter_names_give_the_same_value(capsys, entry):
    """Every shared name (delta for delta_prime / delta_hat / delta_tilde / delta_g ..., eps for eps_g / eps_target)
    evaluates the entry exactly as its paper's own name does, from Python and from the command line."""
    from reference.catalog import VOCABULARY

    for shared, name in entry.aliases().items():
        assert VOCABULARY[name] == shared and shared not in {p.name for p in entry.params}
        d = entry.defaults()
        if name not in d:
            continue
        kw = {k: v for k, v in d.items() if k != name}
        assert entry(**kw, **{shared: d[name]}) == entry(**kw, **{name: d[name]})
        rc1, out1, _ = run(capsys, "eval", entry.id, f"{name}={d[name]}")
        rc2, out2, _ = run(capsys, "eval", entry.id, f"{shared}={d[name]}")
        assert (rc1, out1) == (rc2, out2) and rc1 == 0
        rc, _, err = run(capsys, "eval", entry.id, f"{name}={d[name]}", f"{shared}={d[name]}")
        assert rc == 2 and "given twice" in err


def test_shared_names_are_refused_where_ambiguous():
    """An entry with delta' and delta'' (the Whitehouse filter) accepts no bare 'delta' for delta'."""
    from reference.catalog import get

    e = get("whitehouse2022_thm1_rounds_homogeneous")
    assert {p.name for p in e.params} >= {"delta_prime", "delta_second"} and "delta" not in e.aliases()


def test_describe_and_eval_show_a_checked_restriction(capsys):
    """A restricted entry says how its restriction is enforced; eval outside it is an error naming the erratum, never a
    number; a former id resolves to its renamed entry."""
    rc, out, _ = run(capsys, "describe", "rogers2016_thm3_6_odometer")
    assert rc == 0 and "checked     delta must have every element equal to 0, refused otherwise" in out
    rc, out, err = run(capsys, "eval", "rogers2016_thm3_6_odometer", "delta=0.1,0,0")
    assert rc == 2 and not out and "R16-LEM3-5-LOSS" in err and len(err.strip().splitlines()) == 1
    rc, out, _ = run(capsys, "describe", "whitehouse2022_thm2_filter")
    assert rc == 0 and "not checkable from the arguments" in out
    rc, out, err = run(capsys, "eval", "whitehouse2022_lem4", "--json")
    assert rc == 0 and json.loads(out)["id"] == "whitehouse2022_lem4_as_printed" and "false as printed" in err
