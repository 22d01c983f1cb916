"""The API reference (``docs/``) builds without a single warning, and documents every public module.

The build is Sphinx with autodoc, warnings as errors (``-W --keep-going``), into a
temporary directory; it needs the ``docs`` extra (``python -m pip install '.[docs]'``) and
is skipped, with that reason, only when Sphinx is not installed.  The coverage check needs
nothing beyond the package: the facade ``fullyadaptive`` and every public module of ``reference``
(no ``_private`` part, no ``__main__``) must appear in an ``automodule`` directive of some page.
"""
from __future__ import annotations

import importlib.util
import pkgutil
import re
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
PAGES = ("index", *(f"papers/{p}" for p in PAPER_PAGES), *(f"subsystems/{p}" for p in SUBSYSTEM_PAGES))

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


@pytest.mark.skipif(importlib.util.find_spec("sphinx") is None,
                    reason="Sphinx is not installed: python -m pip install '.[docs]' to build the API reference")
def test_docs_build_without_warnings(tmp_path):
    out = tmp_path / "html"
    cmd = [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html",
           "-d", str(tmp_path / "doctrees"), str(DOCS), str(out)]
    t0 = time.monotonic()
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=600)
    elapsed = time.monotonic() - t0
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
