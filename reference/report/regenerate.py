"""Regenerating the report's record of long computations: ``python -m reference.report.regenerate`` (about 90 s).

:func:`record_items` computes every item of :func:`reference.report.build.recorded_computations`;
:func:`write_record` writes them, with the running code's fingerprint, to
``reference/data/report_recorded.json`` (:mod:`reference.report.recorded` says when the report
may use them).
"""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Optional

from .build import recorded_computations
from .files import _write_atomic
from .recorded import FORMAT, RECORD_PATH, item_key, items_sha256, source_fingerprint

__all__ = ["record_items", "write_record"]


def record_items(cfg: Optional[dict] = None) -> dict:
    """Compute every item the report at ``cfg`` (default ``DEFAULTS``) may recall: ``{key: JSON-ready value}``."""
    out = {}
    for name, args, compute in recorded_computations(cfg):
        out[item_key(name, args)] = json.loads(json.dumps(compute()))
    return out


def write_record(path: "str | os.PathLike | None" = None, cfg: Optional[dict] = None) -> Path:
    """Compute :func:`record_items` and write the record (with the running code's fingerprint) atomically."""
    fingerprint = source_fingerprint()
    items = record_items(cfg)
    if source_fingerprint() != fingerprint:
        raise RuntimeError("the code changed while the record was computed: run again")
    rec = {"format": FORMAT, "fingerprint": fingerprint, "items_sha256": items_sha256(items),
           "regenerate": "python -m reference.report.regenerate", "items": items}
    p = RECORD_PATH if path is None else Path(path)
    _write_atomic(p, json.dumps(rec, indent=1, sort_keys=True, ensure_ascii=False) + "\n")
    return p


if __name__ == "__main__":
    print(f"wrote {write_record()}")
