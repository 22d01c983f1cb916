"""The errata ledger (``reference/data/errata.json``) as the report reads it."""
from __future__ import annotations

import json
from pathlib import Path

__all__ = ["ERRATA_PATH", "load_errata"]

#: Where the lead keeps the list of errata (absent until written).
ERRATA_PATH = Path(__file__).resolve().parents[1] / "data" / "errata.json"

_ERRATUM_FIELDS = ("location", "printed", "corrected", "consequence", "check", "seed")


def load_errata(path: Path | str | None = None) -> tuple[list[dict] | None, str | None]:
    """Read the errata list; returns ``(items, problem)``.

    ``items`` is ``None`` when the file is absent or unreadable; ``problem``
    then says why (``None`` when the file simply does not exist yet).
    """
    p = Path(path) if path is not None else ERRATA_PATH
    if not p.exists():
        return None, None
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        return None, f"could not read {p.name}: {exc}"
    if isinstance(data, dict):  # {"schema": ..., "entries": [...]} (or "errata")
        for key in ("entries", "errata"):
            if isinstance(data.get(key), list):
                data = data[key]
                break
    if not isinstance(data, list):
        return None, f"{p.name} holds neither a JSON list nor an object with an 'entries' list"
    return [d if isinstance(d, dict) else {"printed": d} for d in data], None
