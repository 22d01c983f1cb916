"""Which code made a number: the version and the git commit, in every JSON output of the report and the CLI.

:func:`provenance` names the running code and where it is installed; :func:`build_info` keeps the
fields that name the code.  The commit comes from the git checkout the package runs from, else
from the stamp written into a built wheel (``build_stamp.py``), else it is ``"unknown"``.
"""
from __future__ import annotations

import functools
import re
import subprocess
from pathlib import Path

from .. import __version__

__all__ = ["COMMIT_SOURCES", "build_info", "clear_provenance_cache", "git_commit", "provenance"]

#: The folder that holds the ``reference`` package: a git checkout when run from the repository.
_SOURCE_ROOT = Path(__file__).resolve().parents[2]
_HEX = re.compile(r"[0-9a-f]{4,64}")
#: Values of ``"commit_source"``: where the commit in :func:`build_info` came from.
COMMIT_SOURCES = ("git checkout", "stamped at build", "unknown")


def _git(*args: str) -> str | None:
    """Output of ``git -C <source root> args`` (stripped), or None when git is missing or fails; never raises."""
    try:
        p = subprocess.run(["git", "-C", str(_SOURCE_ROOT), *args], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError, ValueError):
        return None
    return p.stdout.strip() if p.returncode == 0 else None


@functools.lru_cache(maxsize=None)
def _checkout() -> dict | None:
    """``{"commit", "commit_full", "dirty"}`` of the git checkout the package runs from, or None.

    Asks git only when the package's parent directory is itself a git checkout (an installed
    wheel has none, and a repository that merely contains a virtual environment must not be
    named).  ``dirty``: a tracked file differs from the commit (None when git cannot tell).
    """
    if not (_SOURCE_ROOT / ".git").exists():
        return None
    full, short = _git("rev-parse", "HEAD"), _git("rev-parse", "--short", "HEAD")
    if not (full and short and _HEX.fullmatch(full) and _HEX.fullmatch(short)):
        return None
    status = _git("status", "--porcelain", "--untracked-files=no")
    return {"commit": short, "commit_full": full, "dirty": None if status is None else bool(status)}


@functools.lru_cache(maxsize=None)
def _stamped() -> dict | None:
    """``{"commit", "commit_full", "dirty"}`` written into the package when it was built, or None.

    The build hook (``build_stamp.py`` in the repository) writes ``reference/_build_info.py``
    into a wheel; a source checkout has no such file.  A stamp of another version than the
    running code (a stale file) or one without hexadecimal hashes is ignored.
    """
    try:
        from .. import _build_info as b  # type: ignore[attr-defined]
    except ImportError:
        return None
    commit, full, dirty = getattr(b, "COMMIT", None), getattr(b, "COMMIT_FULL", None), getattr(b, "DIRTY", None)
    if getattr(b, "VERSION", None) != __version__ or not all(
            isinstance(c, str) and _HEX.fullmatch(c) for c in (commit, full)):
        return None
    return {"commit": commit, "commit_full": full, "dirty": dirty if isinstance(dirty, bool) else None}


def clear_provenance_cache() -> None:
    """Forget the cached answers of git and of the build stamp (the next call asks again)."""
    _checkout.cache_clear()
    _stamped.cache_clear()


def git_commit() -> str:
    """The short git commit of the checkout this package runs from, or ``"unknown"``; never raises.

    Only a live ``git rev-parse --short HEAD`` of the checkout: see :func:`build_info` for
    the commit an installed wheel was built from.
    """
    c = _checkout()
    return c["commit"] if c else "unknown"


def provenance() -> dict:
    """Which code is running: version, commit, where the commit came from, and where the package lives.

    Returns ``{"version", "commit", "commit_full", "commit_source", "dirty", "package_path",
    "data_path"}``.  Contract: ``commit`` is the short hash of the git checkout the package
    runs from (``commit_source`` ``"git checkout"``: an editable install or the repository
    itself); else the one stamped into the package when it was built (``"stamped at
    build"``: an installed wheel); else ``"unknown"`` (``commit_full`` None).  ``dirty``:
    tracked files differed from that commit (None when unknown).  ``package_path`` is the
    folder of the ``reference`` package that is imported, ``data_path`` the folder its data
    files (catalog audits, errata, golden vectors) are read from.  Never raises; git is asked
    once per process.
    """
    pkg = Path(__file__).resolve().parents[1]
    for source, info in (("git checkout", _checkout()), ("stamped at build", _stamped())):
        if info:
            break
    else:
        source, info = "unknown", {"commit": "unknown", "commit_full": None, "dirty": None}
    return {"version": __version__, "commit": info["commit"], "commit_full": info["commit_full"],
            "commit_source": source, "dirty": info["dirty"], "package_path": str(pkg),
            "data_path": str(pkg / "data")}


def build_info() -> dict:
    """``{"version", "commit", "commit_source", "dirty"}`` of the running code: in every JSON output.

    The fields of :func:`provenance` that name the code (not where it is installed): the
    package version and the git commit (``"unknown"`` when neither a checkout nor the
    build's stamp tells it).
    """
    p = provenance()
    return {k: p[k] for k in ("version", "commit", "commit_source", "dirty")}
