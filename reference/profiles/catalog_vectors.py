"""Golden values of every numeric catalog entry: ``reference/data/vectors/catalog_values.json``.

The privacy-profile vectors (:mod:`reference.profiles.vectors`) grade a peer's delta(eps) or
eps(delta).  This file serves the other half of "check another implementation": someone who
implements one of the catalog's theorems (advanced composition, the filter's y*, a conversion,
an amplification bound, a round count, ...) can compare their value with ours at the entry's
default inputs, without Python.

``python -m reference.profiles.catalog_vectors [--out DIR]`` writes one case per catalog entry
whose value at its defaults is a number (``int``, ``Fraction`` or a real):

* ``entry`` (the catalog id, see ``fullyadaptive describe ID``), ``paper``, ``result``,
  ``validity`` (a ``false as printed`` entry is the printed formula's value, never a bound) and
  ``inputs`` (the defaults, exact decimal strings or integers);
* ``direction``: ``upper`` (the value is an upper bound on the formula, rounded up),
  ``lower`` (rounded down) or ``exact``;
* ``value``: the entry's result printed to 40 significant digits, rounded in ``direction``
  (:func:`reference.precision.directed_decimal`), so an upper bound still is one;
* ``enclosure`` ``[lower, upper]`` (40 digits, rounded outwards) when the library knows a
  certified enclosure of the exact quantity (rational results, results rounded to nearest),
  and ``exact_rational`` (``"p/q"``) when the quantity is an exact rational of at most 200
  characters.

Entries are evaluated at ``dps = 45``.  ``tests/test_vectors.py`` regenerates a sample and
checks that every numeric entry has a case.
"""
from __future__ import annotations

import argparse
import inspect
import json
import math
import sys
from fractions import Fraction
from numbers import Integral
from pathlib import Path

import mpmath

from ..precision import Certified, directed_decimal

SCHEMA = "fullyadaptive-catalog-values"
VERSION = "1.0.0"
NAME = "catalog_values"
DIGITS = 40
DPS = 45
ROOT = Path(__file__).resolve().parents[1] / "data" / "vectors"

__all__ = ["SCHEMA", "VERSION", "NAME", "catalog_case", "numeric_ids", "generate", "load", "main"]


def _value_of(entry):
    kwargs = dict(entry.defaults())
    if "dps" in inspect.signature(entry.func).parameters:
        kwargs["dps"] = DPS
    return kwargs, entry(**kwargs)


def _is_number(v) -> bool:
    if isinstance(v, bool):
        return False
    if isinstance(v, (Integral, Fraction)):
        return True
    return isinstance(v, mpmath.mpf) and bool(mpmath.isfinite(v))


def _text(v) -> str | int:
    return v if isinstance(v, (str, int)) and not isinstance(v, bool) else str(v)


def catalog_case(entry_id: str) -> dict | None:
    """The golden case of one catalog entry at its defaults, or None when its value is not a finite number.

    Deterministic: depends only on the entry and the library (the executor may run it anywhere).
    """
    from ..catalog import get

    e = get(entry_id)
    try:
        _, v = _value_of(e)
    except (ValueError, TypeError, ArithmeticError):
        return None
    if not _is_number(v):
        return None
    direction = e.direction
    case = {"entry": e.id, "paper": e.paper, "result": e.result, "validity": e.validity,
            "inputs": {k: _text(x) for k, x in e.defaults().items()}, "direction": direction}
    if isinstance(v, Integral):
        case["value"] = str(int(v))
        case["enclosure"] = [str(int(v)), str(int(v))]
        case["exact_rational"] = f"{int(v)}/1"
        return case
    case["value"] = directed_decimal(v, DIGITS, direction)
    exact = v if isinstance(v, Fraction) else (v.exact if isinstance(v, Certified) else None)
    if exact is not None:
        case["enclosure"] = [directed_decimal(exact, DIGITS, "lower"), directed_decimal(exact, DIGITS, "upper")]
        r = f"{exact.numerator}/{exact.denominator}"
        if len(r) <= 200:
            case["exact_rational"] = r
    elif isinstance(v, Certified) and v.lower != v.upper:
        case["enclosure"] = [directed_decimal(v.lower, DIGITS, "lower"), directed_decimal(v.upper, DIGITS, "upper")]
    return case


def numeric_ids() -> list[str]:
    """Ids of the catalog entries whose value at their defaults is a finite number (sorted)."""
    from ..catalog import entries

    return sorted(e.id for e in entries() if catalog_case(e.id) is not None)


def generate() -> dict:
    """The catalog-values document (every numeric entry, sorted by id)."""
    from ..catalog import entries

    cases = [c for c in (catalog_case(e.id) for e in sorted(entries(), key=lambda e: e.id)) if c is not None]
    for i, c in enumerate(cases, start=1):
        c["id"] = i
    return {"schema": SCHEMA, "version": VERSION, "generator": "python -m reference.profiles.catalog_vectors",
            "name": NAME, "digits": DIGITS, "dps": DPS,
            "rounding": {"value": "rounded in the entry's direction (upper: towards +inf; lower: towards -inf; "
                                  "exact: to nearest)",
                         "enclosure": "a certified enclosure of the exact quantity, rounded outwards"},
            "numberOfCases": len(cases), "cases": cases}


def dump(doc: dict) -> str:
    return json.dumps(doc, indent=1) + "\n"


def load(folder: Path | None = None) -> dict:
    return json.loads(((folder or ROOT) / f"{NAME}.json").read_text(encoding="utf-8"))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m reference.profiles.catalog_vectors", description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=str(ROOT), help="output folder (default: the packaged reference/data/vectors)")
    a = ap.parse_args(argv)
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    doc = generate()
    (out / f"{NAME}.json").write_text(dump(doc), encoding="utf-8")
    print(f"wrote {out / (NAME + '.json')}: {doc['numberOfCases']} cases", file=sys.stderr)
    return 0


if __name__ == "__main__":
    from reference.profiles.catalog_vectors import main as _main  # the importable module, not __main__

    sys.exit(_main())
