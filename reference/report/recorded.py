"""Recorded results of the report's long computations, used only while the code that made them is unchanged.

Three parts of the report take most of its time: the exact verifier's tables (section (e)),
the falsifier over every claim, and the rounds table's game filter at the finest grid
(eps0 = 0.001: a sweep of 56 034 budgets that holds every row, about 0.7 GB).  Their results
are pure functions of the code and of the arguments, so ``reference/data/report_recorded.json``
keeps them: one item per (computation, exact arguments), the JSON the report would print.

When may the report print an item instead of recomputing it?  Only when

* the record's ``fingerprint`` equals :func:`source_fingerprint` of the running code: the
  SHA-256 of every ``.py`` file and every data file of the ``reference`` package (the record
  itself excepted), so any change of the code or of its data makes the whole record stale;
* its ``items_sha256`` equals the SHA-256 of its items (a damaged or hand-edited record is
  refused);
* the item's arguments are the ones asked for, exactly (other settings are computed).

Otherwise the report computes, as it would without a record.  ``tests/test_report_recorded.py``
recomputes every item and compares it with the record (marked slow: about 80 s), and checks
here that a stale, damaged or missing record is never used.  After changing the code,
regenerate the record with ``python -m reference.report.regenerate`` (about 90 s); until then
the report is correct but slower.  ``fullyadaptive report --recompute`` ignores the record.
(This project, derived: a cache keyed by the code's own hash; the certified values are those
of the modules that compute them.)
"""
from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Callable, Optional

__all__ = ["RECORD_PATH", "FORMAT", "STAMPS", "source_fingerprint", "item_key", "items_sha256", "load_record", "recall",
           "record_items", "write_record"]

PACKAGE = Path(__file__).resolve().parents[1]
RECORD_PATH = PACKAGE / "data" / "report_recorded.json"
FORMAT = "fullyadaptive-report-recorded-1"
#: files a build writes into the installed package (the version and commit stamp of ``build_stamp.py``): they name the
#: code, they do not compute anything, and the checkout has none, so an installed copy keeps the checkout's fingerprint
STAMPS = frozenset({"_build_info.py"})


def source_fingerprint(package: Path = PACKAGE, exclude: Path = RECORD_PATH) -> str:
    """SHA-256 (hex) of every ``.py`` file and every file under ``data/`` of ``package``, by relative path.

    Left out: ``exclude`` (the record itself), ``__pycache__`` and the build's stamp (:data:`STAMPS`).
    """
    h = hashlib.sha256()
    exclude = Path(exclude).resolve()
    for p in sorted(package.rglob("*")):
        rel = p.relative_to(package)
        if "__pycache__" in rel.parts or not p.is_file() or p.resolve() == exclude or rel.as_posix() in STAMPS:
            continue
        if p.suffix == ".py" or rel.parts[0] == "data":
            h.update(rel.as_posix().encode() + b"\0" + p.read_bytes() + b"\0")
    return h.hexdigest()


def item_key(name: str, args: dict) -> str:
    """The record's key of computation ``name`` at ``args`` (canonical JSON: exact strings, sorted keys)."""
    return name + " " + json.dumps(args, sort_keys=True, separators=(",", ":"))


def items_sha256(items: dict) -> str:
    """SHA-256 (hex) of the canonical JSON of ``items``."""
    return hashlib.sha256(json.dumps(items, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode()).hexdigest()


def load_record(path: "str | os.PathLike | None" = None, *, fingerprint: Optional[str] = None) -> Optional[dict]:
    """The record's items ``{key: value}`` when it may be used (module docstring), else ``None``.

    ``fingerprint`` defaults to :func:`source_fingerprint` of the running code.  A missing,
    unreadable, stale or damaged record gives ``None``: the caller computes instead.
    """
    p = RECORD_PATH if path is None else Path(path)
    try:
        rec = json.loads(p.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(rec, dict) or rec.get("format") != FORMAT or not isinstance(rec.get("items"), dict):
        return None
    if rec.get("fingerprint") != (source_fingerprint() if fingerprint is None else fingerprint):
        return None
    if rec.get("items_sha256") != items_sha256(rec["items"]):
        return None
    return rec["items"]


def recall(items: Optional[dict], name: str, args: dict, compute: Callable[[], object], used: Optional[list] = None):
    """The recorded value of ``name`` at ``args`` when ``items`` (from :func:`load_record`) holds it, else ``compute()``.

    A computed value is returned as computed; a recorded one as the JSON the record holds (the
    report's sections are JSON-ready, so both print the same).  ``used`` (a list) receives the
    key of every item taken from the record.
    """
    key = item_key(name, args)
    if items is not None and key in items:
        if used is not None:
            used.append(key)
        return items[key]
    return compute()
