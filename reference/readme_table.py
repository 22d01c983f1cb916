"""The README's table of catalog ids, generated from the catalog.

The README holds the table between ``<!-- catalog:start -->`` and
``<!-- catalog:end -->``; ``tests/test_cli.py`` checks it is up to date.
After adding or changing an entry, regenerate it with::

    python -m reference.readme_table          # rewrites README.md in place
    python -m reference.readme_table --check  # exit 1 if README.md is stale
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .catalog import entries

START = "<!-- catalog:start -->"
END = "<!-- catalog:end -->"

__all__ = ["START", "END", "catalog_table", "replace_table", "main"]


def _cell(s) -> str:
    return ("" if s is None else str(s)).replace("|", "\\|").replace("\n", " ")


def catalog_table() -> str:
    """Markdown table: one row per catalog entry (id, paper key, result, direction, provenance, function)."""
    lines = [
        "| id | paper | result | direction | provenance | function |",
        "|---|---|---|---|---|---|",
    ]
    for e in entries():
        fn = f"{e.func.__module__.split('.')[-1]}.{e.func.__qualname__}"
        result = e.result + (f", eq. {e.equation}" if e.equation and e.equation not in e.result else "")
        lines.append(f"| `{e.id}` | {_cell(e.paper)} | {_cell(result)} | {e.direction} | {_cell(e.provenance)} | `{fn}` |")
    return "\n".join(lines) + "\n"


def replace_table(text: str, table: str | None = None) -> str:
    """``text`` with the part between the markers replaced by ``table`` (default: the current catalog)."""
    i, j = text.find(START), text.find(END)
    if i < 0 or j < 0 or j < i:
        raise ValueError(f"README must contain {START} followed by {END}")
    table = catalog_table() if table is None else table
    return text[: i + len(START)] + "\n" + table + text[j:]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m reference.readme_table", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("readme", nargs="?", default=str(Path(__file__).resolve().parents[1] / "README.md"))
    ap.add_argument("--check", action="store_true", help="do not write; exit 1 if the table is stale")
    args = ap.parse_args(argv)
    p = Path(args.readme)
    old = p.read_text(encoding="utf-8")
    new = replace_table(old)
    if args.check:
        if new != old:
            print(f"{p}: catalog table is out of date; run python -m reference.readme_table", file=sys.stderr)
            return 1
        return 0
    if new != old:
        p.write_text(new, encoding="utf-8")
        print(f"updated {p}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
