"""The build stamp: an installed wheel names the commit it was built from (``build_stamp.py``).

The hook is called directly (no network, no wheel build): it writes ``reference/_build_info.py``
into a build directory, and :func:`reference.report.provenance` reads that file when the
package runs outside a git checkout, while a checkout keeps asking git.
"""
from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest

import reference
from reference import report as rpt

ROOT = Path(__file__).resolve().parents[1]

pytest.importorskip("setuptools", reason="the build hook subclasses setuptools' commands")


def _load(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def hook():
    return _load(ROOT / "build_stamp.py", "build_stamp")


def _git_head(root: Path) -> tuple[str, str] | None:
    try:
        full = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True, timeout=30)
        short = subprocess.run(["git", "-C", str(root), "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                               timeout=30)
    except OSError:
        return None
    if full.returncode or short.returncode or not (ROOT / ".git").exists():
        return None
    return short.stdout.strip(), full.stdout.strip()


def test_the_build_hook_is_the_one_pyproject_names():
    py = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert re.search(r'cmdclass\s*=\s*\{build_py\s*=\s*"build_stamp\.BuildPy",\s*sdist\s*=\s*"build_stamp\.Sdist"\}', py)
    assert "include build_stamp.py" in (ROOT / "MANIFEST.in").read_text(encoding="utf-8")  # the sdist carries the hook
    assert "reference/_build_info.py" in (ROOT / ".gitignore").read_text(encoding="utf-8")


def test_write_stamp_records_the_version_and_the_checkouts_head(hook, tmp_path):
    (tmp_path / "reference").mkdir()
    head = _git_head(ROOT)
    path = hook.write_stamp(tmp_path, ROOT)
    if head is None:  # not a git checkout (an unpacked sdist): nothing is stamped
        assert path is None and not (tmp_path / "reference" / "_build_info.py").exists()
        return
    assert path == tmp_path / "reference" / "_build_info.py"
    stamp = _load(path, "stamp_under_test")
    assert stamp.VERSION == reference.__version__
    assert (stamp.COMMIT, stamp.COMMIT_FULL) == head
    assert stamp.DIRTY in (True, False)


def test_write_stamp_writes_nothing_outside_a_checkout(hook, tmp_path):
    src = tmp_path / "src"
    (src / "reference").mkdir(parents=True)
    (src / "reference" / "__init__.py").write_text('__version__ = "9.9"\n', encoding="utf-8")
    out = tmp_path / "out"
    (out / "reference").mkdir(parents=True)
    assert hook.git_info(src) is None
    assert hook.write_stamp(out, src) is None
    assert list((out / "reference").iterdir()) == []


def test_build_py_stamps_the_build_directory_not_the_source(hook, tmp_path, monkeypatch):
    """setuptools' ``build_py`` with the hook, run on the real package into a temporary build directory."""
    from setuptools.dist import Distribution

    if _git_head(ROOT) is None:
        pytest.skip("the source is not a git checkout: there is no commit to stamp")
    monkeypatch.chdir(ROOT)
    dist = Distribution({"name": "fullyadaptive", "packages": ["reference"], "script_name": "setup.py"})
    cmd = hook.BuildPy(dist)
    cmd.build_lib = str(tmp_path)
    cmd.ensure_finalized()
    cmd.run()
    built = tmp_path / "reference" / "_build_info.py"
    assert built.is_file() and (tmp_path / "reference" / "__init__.py").is_file()
    assert _load(built, "built_stamp").COMMIT == _git_head(ROOT)[0]
    assert not (ROOT / "reference" / "_build_info.py").exists()


def test_build_py_in_editable_mode_stamps_nothing(hook, tmp_path, monkeypatch):
    from setuptools.dist import Distribution

    monkeypatch.chdir(ROOT)
    dist = Distribution({"name": "fullyadaptive", "packages": ["reference"], "script_name": "setup.py"})
    cmd = hook.BuildPy(dist)
    cmd.build_lib = str(tmp_path)
    cmd.editable_mode = True
    cmd.ensure_finalized()
    cmd.run()
    assert not (tmp_path / "reference" / "_build_info.py").exists()


def _as_installed(monkeypatch, tmp_path, text: str | None):
    """Run provenance() as an installed wheel would: no .git beside the package, the stamp ``text`` (or none)."""
    monkeypatch.setattr("reference.report.version._SOURCE_ROOT", tmp_path)  # no .git there
    if text is None:
        monkeypatch.setitem(sys.modules, "reference._build_info", None)  # import raises ImportError
    else:
        path = tmp_path / "_build_info.py"
        path.write_text(text, encoding="utf-8")
        monkeypatch.setitem(sys.modules, "reference._build_info", _load(path, "reference._build_info"))
    rpt.clear_provenance_cache()


def test_an_installed_package_reports_the_stamped_commit(hook, tmp_path, monkeypatch):
    info = {"commit": "abc1234", "commit_full": "abc1234" + "0" * 33, "dirty": False}
    try:
        _as_installed(monkeypatch, tmp_path, hook.render_stamp(reference.__version__, info))
        p = rpt.provenance()
        assert (p["commit"], p["commit_full"], p["commit_source"], p["dirty"]) == (
            "abc1234", "abc1234" + "0" * 33, "stamped at build", False)
        assert rpt.build_info() == {"version": reference.__version__, "commit": "abc1234",
                                    "commit_source": "stamped at build", "dirty": False}
        assert rpt.git_commit() == "unknown"  # git is not asked outside a checkout
    finally:
        rpt.clear_provenance_cache()


@pytest.mark.parametrize("text", [
    None,  # no stamp: built without git, or not built at all
    'VERSION = "0.0.0-stale"\nCOMMIT = "abc1234"\nCOMMIT_FULL = "abc1234abc1234"\nDIRTY = False\n',
    f'VERSION = "{reference.__version__}"\nCOMMIT = "not a hash"\nCOMMIT_FULL = "x"\nDIRTY = False\n',
], ids=["absent", "other-version", "not-hex"])
def test_without_a_usable_stamp_the_commit_is_unknown(tmp_path, monkeypatch, text):
    try:
        _as_installed(monkeypatch, tmp_path, text)
        p = rpt.provenance()
        assert (p["commit"], p["commit_full"], p["commit_source"], p["dirty"]) == ("unknown", None, "unknown", None)
    finally:
        rpt.clear_provenance_cache()


def test_a_checkout_prefers_git_to_a_stamp(hook, tmp_path, monkeypatch):
    head = _git_head(ROOT)
    if head is None:
        pytest.skip("the source is not a git checkout")
    path = tmp_path / "_build_info.py"
    path.write_text(hook.render_stamp(reference.__version__, {"commit": "abc1234", "commit_full": "abc1234" * 5,
                                                              "dirty": False}), encoding="utf-8")
    monkeypatch.setitem(sys.modules, "reference._build_info", _load(path, "reference._build_info"))
    rpt.clear_provenance_cache()
    try:
        p = rpt.provenance()
        assert (p["commit"], p["commit_full"], p["commit_source"]) == (*head, "git checkout")
    finally:
        rpt.clear_provenance_cache()
