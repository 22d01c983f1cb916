"""benchmarks/mutation.py: how a pytest run is graded, and (slow job) a representative subset of the mutants.

A mutant is killed only when a selected test ran and failed, read from pytest's JUnit XML report: a
collection error, no test run, or pytest's internal and usage errors make it *broken* whatever the
exit status (with ``-x`` and pytest-xdist a real failure can also end with status 2, so the status
alone cannot decide).  The slow tests plant a mutant of each kind of slip in a copy of the committed
tree, plus one that breaks the import and one that changes nothing observable, and check the three
outcomes and the per-module table.
"""
from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _load():
    spec = importlib.util.spec_from_file_location("mutation_benchmark", ROOT / "benchmarks" / "mutation.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


M = _load()


def _xml(*cases: str) -> str:
    body = "".join(cases)
    return f'<?xml version="1.0" encoding="utf-8"?><testsuites><testsuite name="pytest">{body}</testsuite></testsuites>'


PASS = '<testcase classname="tests.test_a" name="test_ok" time="0.1" />'
FAIL = '<testcase classname="tests.test_a" name="test_bad" time="0.1"><failure message="assert 0">x</failure></testcase>'
SETUP = ('<testcase classname="tests.test_a" name="test_fix" time="0.1"><error message="failed on setup with '
         '&quot;RuntimeError&quot;">x</error></testcase>')
COLLECT = '<testcase classname="" name="tests.test_b" time="0"><error message="collection failure">x</error></testcase>'
SKIP = '<testcase classname="tests.test_a" name="test_slow" time="0"><skipped message="slow" /></testcase>'


@pytest.mark.parametrize("rc,xml,verdict", [
    (0, _xml(PASS), "survived"),
    (1, _xml(PASS, FAIL), "killed"),
    (2, _xml(PASS, FAIL), "killed"),          # -x under xdist: a real failure, interrupted
    (1, _xml(SETUP), "killed"),               # an error in a test's setup is the test failing
    (2, _xml(COLLECT), "broken"),             # import / collection error
    (1, _xml(PASS, COLLECT), "broken"),
    (2, _xml(PASS), "broken"),                # a status without a failing test
    (5, _xml(), "broken"),                    # no tests collected
    (0, _xml(SKIP), "broken"),                # nothing ran
    (3, _xml(FAIL), "broken"),                # pytest's internal error
    (4, None, "broken"),                      # usage error, no report
    (1, "<testsuites><unclosed", "broken"),   # unreadable report
])
def test_classify_reads_the_report_not_the_status(rc, xml, verdict):
    assert M.classify(rc, xml)[0] == verdict


def test_table_counts_per_module():
    m1 = M.Mutant("a", "off-by-one", "", "x/one.py", "o", "n", ("t",))
    m2 = M.Mutant("b", "swapped end", "", "x/two.py", "o", "n", ("t",))
    res = [M.Result(m1, "killed", ""), M.Result(m1, "broken", ""), M.Result(m2, "survived", ""),
           M.Result(m2, "equivalent", "")]
    lines = M.table(res).splitlines()
    row = {ln.split()[0]: [int(x) for x in ln.split()[1:]] for ln in lines if ln.startswith(("x/", "total"))}
    assert row["x/one.py"] == [2, 1, 0, 1, 0, 0]
    assert row["x/two.py"] == [2, 0, 1, 0, 0, 1]
    assert row["total"] == [4, 1, 1, 1, 0, 1]


def test_every_mutant_is_well_formed():
    kinds = {"rounding direction", "off-by-one", "dropped term", "swapped end", "regression"}
    names = [m.name for m in M.MUTANTS]
    assert len(names) == len(set(names))
    for m in M.MUTANTS:
        assert m.kind in kinds, m.name
        assert m.old != m.new and m.tests, m.name
        assert all((ROOT / a).exists() for a in m.tests if a.endswith(".py")), m.name


# --------------------------------------------------------------------------
# slow: the benchmark end to end, on a copy of the committed tree
# --------------------------------------------------------------------------

#: One mutant of each kind, across the modules added last (each run is a few seconds).
SUBSET = ("check_tight_from_inexact_bracket|check_total_variation_rounded_down|gdp_rounds_gaussian_one_without_budget|"
          "gdp_filter_sigma_upper_end|pld_eps_upper_one_grid_step_low|check_zcdp_gaussian_rho_is_mu2")


@pytest.mark.slow
def test_every_mutant_applies_to_the_current_tree():
    """Each mutant's old text occurs exactly once in its file (otherwise the benchmark reports it stale)."""
    for m in M.MUTANTS:
        assert (ROOT / m.file).read_text(encoding="utf-8").count(m.old) == 1, m.name


@pytest.mark.slow
def test_benchmark_subset_kills_every_mutant(tmp_path):
    """``python benchmarks/mutation.py -k SUBSET --rev HEAD``: every mutant of the subset killed, exit status 0."""
    p = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "mutation.py"), "-k", SUBSET, "--rev", "HEAD",
                        "--workdir", str(tmp_path)], cwd=ROOT, capture_output=True, text=True, timeout=1800)
    assert p.returncode == 0, p.stdout + p.stderr
    total = next(ln for ln in p.stdout.splitlines() if ln.startswith("total"))
    n, killed, survived, broken, stale, _eq = (int(x) for x in total.split()[1:])
    assert n == killed == len(re.findall(r"\|", SUBSET)) + 1 and survived == broken == stale == 0


@pytest.mark.slow
def test_broken_and_surviving_mutants_are_told_apart(tmp_path):
    """On a copy: a mutant that breaks the import is broken (not killed), one that changes a comment survives, a real
    slip is killed, a missing old text is stale; the working tree is untouched."""
    copy = M.make_copy(str(tmp_path), "HEAD")
    target = "reference/bounds/smith2022.py"
    before = (ROOT / target).read_text(encoding="utf-8")
    sel = ("tests/test_conservative_inputs.py", "-k", "zero_steps")
    muts = [
        M.Mutant("import_error", "regression", "", target, "from __future__ import annotations\n",
                 "from __future__ import annotations\nimport no_such_module_anywhere\n", sel),
        M.Mutant("comment_only", "regression", "", target, "#: Digits at which an eps-DP step's mu",
                 "#: The digits at which an eps-DP step's mu", sel),
        M.Mutant("real_slip", "off-by-one", "", target, "    m0 = dp_step_mu_q(e0)\n    from .dong2022 import gdp_mu\n\n"
                 "    est = int(float(gdp_mu(e, d, dps=15)) ** 2 / float(m0) ** 2)\n    return last_true(lambda k: k == 0 or",
                 "    m0 = dp_step_mu_q(e0)\n    from .dong2022 import gdp_mu\n\n"
                 "    est = int(float(gdp_mu(e, d, dps=15)) ** 2 / float(m0) ** 2)\n    return last_true(lambda k: k <= 1 or", sel),
        M.Mutant("moved", "regression", "", target, "text that is not there", "x", sel),
    ]
    out = []
    res = M.run_mutants(muts, copy, 300, out=out.append)
    assert [r.outcome for r in res] == ["broken", "survived", "killed", "stale"], out
    assert "collection error" in res[0].detail
    assert (ROOT / target).read_text(encoding="utf-8") == before
    committed = subprocess.run(["git", "-C", str(ROOT), "show", f"HEAD:{target}"], capture_output=True, text=True).stdout
    assert (Path(copy) / target).read_text(encoding="utf-8") == committed  # restored after each mutant
    assert M._imports_from_copy(copy) is None
