"""Tests of the command line (``fullyadaptive list | eval | report | version``), the report and the README table."""
from __future__ import annotations

import json
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
    data = json.loads(out)
    assert isinstance(data, list) and len(data) == len(ENTRIES) > 0
    ids = [d["id"] for d in data]
    assert len(ids) == len(set(ids)), "ids must be unique"
    for d in data:
        for key in ("id", "paper", "source", "result", "parameters", "direction", "summary"):
            assert key in d, (d.get("id"), key)
        assert ID_RE.match(d["id"]), d["id"]
        assert d["direction"] in ("upper", "lower", "exact")
        assert d["summary"]
        for p in d["parameters"]:
            assert {"name", "domain"} <= set(p)


def test_list_paper_filter(capsys):
    rc, out, _ = run(capsys, "list", "--json", "--paper", "howard2021")
    assert rc == 0
    data = json.loads(out)
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
    d = tmp_path_factory.mktemp("report")
    import os

    cwd = os.getcwd()
    os.chdir(d)
    try:
        assert main(["report", "--quiet"]) == 0
    finally:
        os.chdir(cwd)
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


def test_report_json_and_out(tmp_path, capsys):
    out = tmp_path / "x" / "y"
    rc, stdout, _ = run(capsys, "report", "--out", str(out), "--json", "--quiet", "--no-verify")
    assert rc == 0
    assert json.loads(stdout)["verification"] is None
    assert json.loads(stdout)["rounds"] == json.loads((out / "report.json").read_text())["rounds"]


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
    rc, out, _ = run(capsys, "version")
    assert rc == 0 and out.strip() == f"fullyadaptive {reference.__version__}"


def test_python_dash_m_reference_version():
    p = subprocess.run([sys.executable, "-m", "reference", "version"], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == f"fullyadaptive {reference.__version__}"


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


def test_report_compares_every_filter_with_the_optimal_composition(report_dir):
    from reference.bounds.baselines import ROUND_RULES, rounds_comparison

    rep = json.loads((report_dir / "report.json").read_text())
    s = rep["settings"]
    for row in rep["rounds"]["sweep"]:
        assert row["comparison"] == rounds_comparison(row["eps0"], s["eps_target"], s["delta_prime"])
        assert set(row["comparison"]) == {k for k, _, _ in ROUND_RULES}
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
