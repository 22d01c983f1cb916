"""The README's generated tables: the catalog and the errata ledger.

The README holds the catalog table between ``<!-- catalog:start -->`` and
``<!-- catalog:end -->`` and the errata table between ``<!-- errata:start -->`` and
``<!-- errata:end -->``; ``tests/test_cli.py`` checks both are up to date.
After adding or changing an entry or an erratum, regenerate them with::

    python -m reference.cli.readme_table          # rewrites README.md in place
    python -m reference.cli.readme_table --check  # exit 1 if README.md is stale
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..catalog import entries
from ..report.identifiers import function_name

START = "<!-- catalog:start -->"
END = "<!-- catalog:end -->"
ERRATA_START = "<!-- errata:start -->"
ERRATA_END = "<!-- errata:end -->"

__all__ = ["START", "END", "ERRATA_START", "ERRATA_END", "catalog_table", "errata_table", "replace_table",
           "render", "main"]


def _cell(s) -> str:
    return ("" if s is None else str(s)).replace("|", "\\|").replace("\n", " ")


def catalog_table() -> str:
    """Markdown table: one row per catalog entry (id, paper key, result, direction, provenance, function)."""
    lines = [
        "| id | paper | result | direction | provenance | function |",
        "|---|---|---|---|---|---|",
    ]
    for e in entries():
        fn = function_name(e)  # describe accepts it (reference.report.identifiers.resolve)
        result = e.result + (f", eq. {e.equation}" if e.equation and e.equation not in e.result else "")
        lines.append(f"| `{e.id}` | {_cell(e.paper)} | {_cell(result)} | {e.direction} | {_cell(e.provenance)} | `{fn}` |")
    return "\n".join(lines) + "\n"


def errata_table() -> str:
    """Markdown table of the errata ledger (id, location, consequence, printed, corrected)."""
    import json
    from importlib import resources

    ledger = json.loads(resources.files("reference").joinpath("data/errata.json").read_text(encoding="utf-8"))
    lines = [
        "| id | where | consequence | printed | corrected |",
        "|---|---|---|---|---|",
    ]
    for e in ledger["entries"]:
        lines.append(f"| `{e['id']}` | {_cell(e['location'])} | {_cell(e['consequence'])} | "
                     f"{_cell(e['printed'])} | {_cell(e['corrected'])} |")
    return "\n".join(lines) + "\n"


def replace_table(text: str, table: str | None = None, start: str = START, end: str = END) -> str:
    """``text`` with the part between ``start`` and ``end`` replaced by ``table`` (default: the catalog)."""
    i, j = text.find(start), text.find(end)
    if i < 0 or j < 0 or j < i:
        raise ValueError(f"README must contain {start} followed by {end}")
    table = catalog_table() if table is None else table
    return text[: i + len(start)] + "\n" + table + text[j:]


def render(text: str) -> str:
    """``text`` with both generated tables (catalog, errata) brought up to date."""
    text = replace_table(text, catalog_table(), START, END)
    return replace_table(text, errata_table(), ERRATA_START, ERRATA_END)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m reference.cli.readme_table", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("readme", nargs="?", default=str(Path(__file__).resolve().parents[2] / "README.md"))
    ap.add_argument("--check", action="store_true", help="do not write; exit 1 if the table is stale")
    args = ap.parse_args(argv)
    p = Path(args.readme)
    old = p.read_text(encoding="utf-8")
    new = render(old)
    if args.check:
        if new != old:
            print(f"{p}: generated tables are out of date; run python -m reference.cli.readme_table", file=sys.stderr)
            return 1
        return 0
    if new != old:
        p.write_text(new, encoding="utf-8")
        print(f"updated {p}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
