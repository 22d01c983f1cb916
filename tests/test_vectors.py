"""Golden vectors (reference/data/vectors): schema, packaging, and regeneration of a subset compared with the stored files.

The files are written by ``python -m reference.profiles.vectors`` and never edited by hand; this
test recomputes two cases per file (the first and one flagged edge / tiny-delta case, the huge-k
ones left to the generator) and requires the stored strings to be reproduced exactly, so a
change of any profile shows up here.  It also checks the directed rounding of each stored
interval (lower <= upper, the doubles outside the decimals) and that grading a value just
below a certified lower end reports it as anti-conservative.
"""
from __future__ import annotations

import json
import math
from fractions import Fraction

import pytest

from reference.profiles import vectors as V

NAMES = sorted(V.FILES)


def _subset(name):
    cases = V.CASES[name]
    ids = [1]
    for i, (_, flags, *_note) in enumerate(cases, start=1):
        if i != 1 and "huge-k" not in flags and ({"edge", "tiny-delta"} & set(flags)):
            ids.append(i)
            break
    return ids


@pytest.mark.parametrize("name", NAMES)
def test_schema(name):
    jsonschema = pytest.importorskip("jsonschema")
    stored = json.loads((V.ROOT / "schema.json").read_text())
    assert stored == json.loads(V.dump(V.JSON_SCHEMA)), "schema.json is stale: run python -m reference.profiles.vectors"
    doc = V.load(name)
    jsonschema.validate(doc, V.JSON_SCHEMA)
    assert doc["numberOfCases"] == len(doc["cases"]) == len(V.CASES[name])
    assert [c["id"] for c in doc["cases"]] == list(range(1, len(doc["cases"]) + 1))


@pytest.mark.parametrize("name", NAMES)
def test_stored_intervals_are_directed(name):
    for c in V.load(name)["cases"]:
        lo, hi = Fraction(c["lower"]), Fraction(c["upper"])
        assert lo <= hi, c
        assert Fraction(float.fromhex(c["lower_double"])) <= lo
        if c["upper_double"] != "inf":
            assert Fraction(float.fromhex(c["upper_double"])) >= hi
        if c["exact"]:
            assert hi - lo <= hi * Fraction(1, 10 ** 15) or hi == 0, c


@pytest.mark.parametrize("name", NAMES)
def test_regenerated_subset_matches_the_stored_file(name):
    ids = _subset(name)
    fresh = V.generate(name, ids=set(ids))
    stored = {c["id"]: c for c in V.load(name)["cases"]}
    for c in fresh["cases"]:
        assert c == stored[c["id"]], f"{name} case {c['id']} differs from the stored vector: regenerate the vectors"
    meta = {k: v for k, v in fresh.items() if k != "cases"}
    assert meta == {k: v for k, v in V.load(name).items() if k != "cases"}


def test_grading():
    c = V.load("pure_dp_eps")["cases"][0]
    lo = float.fromhex(c["lower_double"])
    assert V.grade(c, lo)[0] == "agree"
    assert V.grade(c, math.nextafter(lo, -math.inf))[0] == "ANTI-CONSERVATIVE"
    assert V.grade(c, float(Fraction(c["upper"])) * 1.1)[0] == "conservative"


def test_vectors_are_package_data():
    text = (V.ROOT.parents[2] / "pyproject.toml").read_text()
    assert '"data/vectors/*.json"' in text


# --------------------------------------------------------------------------
# catalog_values.json: every numeric catalog entry at its defaults
# --------------------------------------------------------------------------

def test_catalog_values_are_current_and_cover_every_numeric_entry():
    """The stored file equals a fresh generation (about 2 s), so it has a case for every entry whose
    default value is a number, and no stale one; regenerate with python -m reference.profiles.catalog_vectors."""
    from reference.catalog import entries
    from reference.profiles import catalog_vectors as CV

    stored = CV.load()
    fresh = CV.generate()
    assert stored == json.loads(CV.dump(fresh)), "catalog_values.json is stale: python -m reference.profiles.catalog_vectors"
    ids = [c["entry"] for c in stored["cases"]]
    assert ids == sorted(ids) == CV.numeric_ids() and len(ids) == stored["numberOfCases"]
    assert len(ids) >= 0.95 * len(entries())


def test_catalog_values_are_directed_and_enclosed():
    """Each value lies on the safe side of its enclosure's far end; an exact rational lies inside its enclosure;
    an upper bound is never below the enclosure's lower end (checked in exact rationals, not floats)."""
    from fractions import Fraction

    from reference.profiles import catalog_vectors as CV

    for c in CV.load()["cases"]:
        v = Fraction(c["value"])
        if "enclosure" in c:
            lo, hi = (Fraction(x) for x in c["enclosure"])
            assert lo <= hi, c["entry"]
            if c["direction"] == "upper":
                assert v >= lo, c["entry"]
            elif c["direction"] == "lower":
                assert v <= hi, c["entry"]
            else:
                assert lo * (1 - Fraction(1, 10 ** 38)) <= v <= hi * (1 + Fraction(1, 10 ** 38)) or lo <= v <= hi, c["entry"]
        if "exact_rational" in c:
            q = Fraction(c["exact_rational"])
            assert lo <= q <= hi, c["entry"]
            if c["direction"] == "upper":
                assert v >= q, c["entry"]
            if c["direction"] == "lower":
                assert v <= q, c["entry"]


def test_catalog_values_do_not_depend_on_the_global_mpmath_precision():
    """The library never reads mpmath's global precision: every numeric entry gives the stored value when the
    caller's mpmath.mp is at 5 digits (once it was not: the PLD bracket converted interval ends through mp.mpf)."""
    import mpmath

    from reference.profiles import catalog_vectors as CV
    from reference.profiles import sgm_pld

    sgm_pld._compose.cache_clear()
    with mpmath.workdps(5):
        low = json.loads(CV.dump(CV.generate()))
    sgm_pld._compose.cache_clear()
    assert low == CV.load()
