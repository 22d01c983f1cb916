"""The API reference (``docs/``) builds without a single warning, resolves every cross-reference, and documents every public module; the quick start runs.

The build is Sphinx with autodoc, nitpicky and warnings as errors (``-n -W --keep-going``),
into a temporary directory, once per test session (a module-scoped fixture); it needs the
``docs`` extra (also in the ``test`` extra: ``python -m pip install '.[test]'``) and is
skipped, with that reason, only when Sphinx is not installed.  Besides the warnings, the
generated HTML is scanned for role markup (``:func:``, ``:class:``, ...) left as raw text,
which is what a docstring shown verbatim or a role inside a literal looks like.  The
coverage check needs nothing beyond the package: the facade ``fullyadaptive`` and every
public module of ``reference`` (no ``_private`` part, no ``__main__``) must appear in an
``automodule`` directive of some page.  The quick start's Python snippets are executed and
each of its command lines must be accepted by the CLI's parser (the cheap ones are run).
"""
from __future__ import annotations

import importlib.util
import pkgutil
import re
import shlex
import subprocess
import sys
import time
from pathlib import Path

import pytest

import reference

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"

PAPER_PAGES = ("whitehouse2023", "rogers2016", "feldman2021", "balle2020", "classical", "gdp", "calibrated", "game")
SUBSYSTEM_PAGES = ("core", "accountants", "profiles", "verify", "falsify", "martingales", "simulate",
                   "report_cli")
PAGES = ("index", "quickstart", *(f"papers/{p}" for p in PAPER_PAGES), *(f"subsystems/{p}" for p in SUBSYSTEM_PAGES))

_AUTOMODULE = re.compile(r"^\.\. automodule:: (\S+)\s*$", re.M)


def _documented_modules() -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for page in PAGES:
        for mod in _AUTOMODULE.findall((DOCS / f"{page}.rst").read_text(encoding="utf-8")):
            out.setdefault(mod, []).append(page)
    return out


def _public_modules() -> list[str]:
    names = ["fullyadaptive", "reference"]  # the supported import name (a facade: one module) and the layers
    for info in pkgutil.walk_packages(reference.__path__, "reference."):
        parts = info.name.split(".")
        if any(p.startswith("_") for p in parts):  # _compat, _iv, __main__
            continue
        names.append(info.name)
    return sorted(names)


def test_every_page_exists_and_is_in_the_toctree():
    index = (DOCS / "index.rst").read_text(encoding="utf-8")
    for page in PAGES:
        assert (DOCS / f"{page}.rst").is_file(), page
        if page != "index":
            assert re.search(rf"^\s+{re.escape(page)}\s*$", index, re.M), f"{page} is not in the index's toctree"


def test_every_public_module_is_documented_once():
    documented = _documented_modules()
    missing = [m for m in _public_modules() if m not in documented]
    assert not missing, f"public modules on no page of docs/: {missing}"
    twice = {m: pages for m, pages in documented.items() if len(pages) > 1}
    assert not twice, f"modules documented on more than one page: {twice}"
    # the deprecated flat aliases are not documented (importing them warns)
    from reference._compat import MOVED
    assert not set(documented) & set(MOVED), set(documented) & set(MOVED)


def test_quickstart_is_the_first_page_after_the_introduction():
    index = (DOCS / "index.rst").read_text(encoding="utf-8")
    entries = re.findall(r"^   (\S+)\s*$", index[index.index(".. toctree::"):], re.M)
    assert entries and entries[0] == "quickstart", entries[:3]


requires_sphinx = pytest.mark.skipif(
    importlib.util.find_spec("sphinx") is None,
    reason="Sphinx is not installed: python -m pip install '.[docs]' to build the API reference")


@pytest.fixture(scope="module")
def built_docs(tmp_path_factory):
    """One nitpicky Sphinx build for every test of this module: (process, html folder, seconds)."""
    tmp = tmp_path_factory.mktemp("docs")
    out = tmp / "html"
    cmd = [sys.executable, "-m", "sphinx", "-n", "-W", "--keep-going", "-q", "-b", "html",
           "-d", str(tmp / "doctrees"), str(DOCS), str(out)]
    t0 = time.monotonic()
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=600)
    return proc, out, time.monotonic() - t0


@requires_sphinx
def test_docs_build_without_warnings(built_docs):
    """Nitpicky: an unresolved cross-reference (a private helper, a renamed function) is a warning, hence a failure."""
    proc, out, elapsed = built_docs
    assert proc.returncode == 0, (f"sphinx-build failed (rc {proc.returncode}) after {elapsed:.0f} s:\n"
                                  f"{proc.stderr[-8000:]}\n{proc.stdout[-2000:]}")
    assert "WARNING" not in proc.stderr, proc.stderr[-8000:]
    for page in PAGES:
        html = out / f"{page}.html"
        assert html.is_file(), f"{page}.html was not built"
    # autodoc really ran: a documented function of each layer is on its page
    expect = (
        ("papers/whitehouse2023", "reference.bounds.whitehouse2023.y_star"),
        ("papers/whitehouse2023", "reference.accountants.whitehouse2023.DPFilter"),
        ("subsystems/core", "reference.precision.directed_decimal"),
        ("subsystems/verify", "reference.verify.engine.verify"),
    )
    for page, anchor in expect:
        assert f'id="{anchor}"' in (out / f"{page}.html").read_text(encoding="utf-8"), (page, anchor)


# role markup as it reads when Sphinx did not interpret it (a docstring shown verbatim, a role
# inside ``literal`` text, a role written with the wrong quotes)
_RAW_ROLE = re.compile(r":(func|mod|class|meth|data|attr|exc|obj|ref|doc|py:\w+):")


@requires_sphinx
def test_no_role_markup_is_left_as_raw_text(built_docs):
    proc, out, _ = built_docs
    assert proc.returncode == 0, proc.stderr[-4000:]
    found = []
    for html in sorted(out.rglob("*.html")):
        rel = html.relative_to(out).as_posix()
        if rel.startswith(("_modules/", "_sources/")):  # viewcode's highlighted source: code, not prose
            continue
        text = html.read_text(encoding="utf-8")
        found += [f"{rel}: ...{text[max(0, m.start() - 80):m.end() + 40]!r}..." for m in _RAW_ROLE.finditer(text)]
    assert not found, f"{len(found)} raw role(s) in the HTML:\n" + "\n".join(found[:20])


def test_the_docstring_check_reads_roles_as_interpreted_text(monkeypatch):
    """docs/conf.py shows a docstring verbatim only when docutils rejects it; a role at the start of a line is fine."""
    pytest.importorskip("docutils")
    sys.path.insert(0, str(DOCS))
    try:
        import conf
    finally:
        sys.path.remove(str(DOCS))
    clean = ["The filter's budget is", ":func:`cks_rdp_budget` of the target, rounded down.", "",
             "* :class:`DPFilter`: a bullet whose text", "  continues here.", ""]
    assert conf._rst_is_clean(clean)
    assert not conf._rst_is_clean(["the loss has |L| <= eps everywhere", ""])      # |L| is a substitution
    assert not conf._rst_is_clean(["Raises:", "    ValueError: one line", "        and its continuation.",
                                   "    TypeError: another.", ""])                  # unexpected indentation
    lines = ["the value |x| of :func:`f`", ""]
    monkeypatch.setattr(conf, "VERBATIM_DOCSTRINGS", {"pkg.allowed": "a test"})
    conf._docstring_as_rst_or_literal(None, "function", "pkg.allowed", None, None, lines)
    assert lines[0] == "::" and all(":func:" not in ln for ln in lines), lines  # verbatim, roles stripped


# --------------------------------------------------------------------------------------
# the quick start: its Python snippets run, its command lines are accepted

QUICKSTART = DOCS / "quickstart.rst"
_BLOCK = re.compile(r"^\.\. code-block:: (\w+)\n\n((?:(?:    .*)?\n)+)", re.M)


def _blocks(language: str) -> list[str]:
    text = QUICKSTART.read_text(encoding="utf-8")
    out = []
    for lang, body in _BLOCK.findall(text):
        if lang == language:
            out.append("\n".join(ln[4:] for ln in body.splitlines()).strip() + "\n")
    return out


def _commands() -> list[list[str]]:
    cmds = []
    for block in _blocks("console"):
        for line in block.splitlines():
            assert line.startswith("$ fullyadaptive "), f"a console line that is not a fullyadaptive command: {line!r}"
            cmds.append(shlex.split(line[2:])[1:])
    return cmds


def test_quickstart_covers_five_tasks_in_python_and_on_the_command_line():
    text = QUICKSTART.read_text(encoding="utf-8")
    sections = re.split(r"^\d\. .*\n-+\n", text, flags=re.M)[1:]
    assert len(sections) == 5, len(sections)
    for i, sec in enumerate(sections, 1):
        langs = [lang for lang, _ in _BLOCK.findall(sec)]
        assert ("python" in langs or "pycon" in langs) and "console" in langs, (i, langs)
    for block in _blocks("python") + _blocks("pycon"):
        assert "import fullyadaptive" in block, block


def test_quickstart_python_snippets_run(capsys):
    blocks = _blocks("python")
    assert len(blocks) + len(_blocks("pycon")) == 5
    t0 = time.monotonic()
    for i, code in enumerate(blocks, 1):
        try:
            exec(compile(code, f"quickstart.rst python block {i}", "exec"), {"__name__": f"quickstart_{i}"})
        except Exception as e:  # pragma: no cover - the failure message names the block
            pytest.fail(f"quickstart.rst python block {i} failed: {type(e).__name__}: {e}\n{code}")
    out = capsys.readouterr().out
    assert "349" in out and "game_filter 562" in out and "false as printed W22-LEM4-QUOTE" in out, out[-2000:]
    elapsed = time.monotonic() - t0
    assert elapsed < 60, f"the quick start's snippets take {elapsed:.0f} s; they are meant to run in seconds"


def test_quickstart_sessions_are_doctests():
    """The quick start's printed numbers come from a run: its ``pycon`` sessions are doctests (ELLIPSIS only where the
    text says ...)."""
    import doctest

    blocks = _blocks("pycon")
    assert blocks
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    report: list[str] = []
    for i, block in enumerate(blocks, 1):
        test = parser.get_doctest(block, {}, f"quickstart.rst session {i}", str(QUICKSTART), 0)
        assert test.examples
        runner.run(test, out=report.append)
    res = runner.summarize(verbose=False)
    assert res.failed == 0, "the quick start prints something else (run the session and update it):\n" + "".join(report)


# commands cheap enough to run here (a second or less each); the others are only parsed
_RUN = {"eval", "list", "describe", "plan", "falsify"}


@pytest.mark.parametrize("argv", _commands(), ids=lambda a: " ".join(a)[:60])
def test_quickstart_command_is_accepted(argv, capsys):
    from reference.cli import build_parser, main

    try:
        args = build_parser().parse_args(argv)
    except SystemExit as e:  # argparse's usage error
        pytest.fail(f"fullyadaptive {' '.join(argv)} is refused by the parser (exit {e.code}): "
                    f"{capsys.readouterr().err}")
    assert args.command == argv[0]
    if argv[0] in _RUN:
        rc = main(argv)
        captured = capsys.readouterr()
        assert rc == 0, f"fullyadaptive {' '.join(argv)} exited {rc}: {captured.err[-2000:]}"
        assert captured.out.strip()
