"""Build hook: stamps the version and the git commit into the built package.

An installed wheel has no git checkout beside it, so the commit that produced a number
(which every ``--json`` output, the report and the figures name) can only be known if the
build wrote it down.  ``pyproject.toml`` points setuptools' ``build_py`` and ``sdist``
commands at the classes below (``[tool.setuptools] cmdclass``):

* :class:`BuildPy` writes ``reference/_build_info.py`` into the build directory (never into
  the source tree) when the source is a git checkout; building from an sdist, it keeps the
  file the sdist carries;
* :class:`Sdist` writes the same file into the sdist, so a wheel built from it (where no
  ``.git`` exists) still names the commit.

An editable install writes nothing: it runs from the checkout, where
:func:`reference.report.build_info` asks git itself.  No step here can fail a build: without
git, or outside a checkout, nothing is stamped and the installed package says ``"unknown"``.
"""
from __future__ import annotations

import re
import subprocess
from pathlib import Path

from setuptools.command.build_py import build_py as _build_py
from setuptools.command.sdist import sdist as _sdist

#: Where the stamp goes, relative to the root of the built tree (``build/lib`` or the sdist's folder).
STAMP = Path("reference") / "_build_info.py"
_HEX = re.compile(r"[0-9a-f]{4,64}")
_VERSION = re.compile(r'^__version__\s*=\s*"([^"]+)"', re.M)


def _git(root: Path, *args: str) -> str | None:
    """Output of ``git -C root args`` (stripped), or None when git is missing or fails; never raises."""
    try:
        p = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError, ValueError):
        return None
    return p.stdout.strip() if p.returncode == 0 else None


def git_info(root: str | Path) -> dict | None:
    """The commit of the git checkout at ``root``: ``{"commit", "commit_full", "dirty"}``, or None.

    Contract: None unless ``root`` itself holds ``.git`` and git answers with hexadecimal
    hashes (a source tree inside some other repository is not named).  ``dirty`` is True when
    a tracked file differs from the commit (untracked files are ignored: the build's own
    ``build/`` and ``*.egg-info`` are untracked), None when git cannot tell.
    """
    root = Path(root)
    if not (root / ".git").exists():
        return None
    full = _git(root, "rev-parse", "HEAD")
    short = _git(root, "rev-parse", "--short", "HEAD")
    if not (full and short and _HEX.fullmatch(full) and _HEX.fullmatch(short)):
        return None
    status = _git(root, "status", "--porcelain", "--untracked-files=no")
    return {"commit": short, "commit_full": full, "dirty": None if status is None else bool(status)}


def package_version(root: str | Path) -> str:
    """``__version__`` as written in ``root/reference/__init__.py`` (the source of truth the package reports)."""
    text = (Path(root) / "reference" / "__init__.py").read_text(encoding="utf-8")
    m = _VERSION.search(text)
    if not m:
        raise ValueError(f"root: no __version__ = \"...\" line in {Path(root) / 'reference' / '__init__.py'}")
    return m.group(1)


def render_stamp(version: str, info: dict) -> str:
    """The text of ``reference/_build_info.py`` for ``version`` and ``info`` (as :func:`git_info` returns)."""
    return ("# Written when this package was built (build_stamp.py); not in the source tree.\n"
            f"VERSION = {version!r}\n"
            f"COMMIT = {info['commit']!r}\n"
            f"COMMIT_FULL = {info['commit_full']!r}\n"
            f"DIRTY = {info['dirty']!r}\n")


def write_stamp(target: str | Path, root: str | Path) -> Path | None:
    """Write ``target/reference/_build_info.py`` from the git checkout at ``root``; returns its path.

    Contract: returns None and writes nothing when ``root`` is not a git checkout (see
    :func:`git_info`) or ``target/reference`` does not exist; otherwise the file holds the
    version of ``root``'s package and the checkout's commit.  Never raises for a missing git.
    """
    info = git_info(root)
    pkg = Path(target) / STAMP.parent
    if info is None or not pkg.is_dir():
        return None
    path = Path(target) / STAMP
    path.unlink(missing_ok=True)  # a hard link into the source tree (sdist) must not be written through
    path.write_text(render_stamp(package_version(root), info), encoding="utf-8")
    return path


def _source_root() -> Path:
    return Path(__file__).resolve().parent


class BuildPy(_build_py):
    """setuptools' ``build_py``, then the stamp into the build directory (not for an editable install)."""

    def run(self):
        super().run()
        if getattr(self, "editable_mode", False):
            return
        write_stamp(self.build_lib, _source_root())


class Sdist(_sdist):
    """setuptools' ``sdist``, with the stamp in the release tree (a wheel built from it keeps it)."""

    def make_release_tree(self, base_dir, files):
        super().make_release_tree(base_dir, files)
        write_stamp(base_dir, _source_root())
