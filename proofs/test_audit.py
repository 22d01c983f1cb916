"""The claim-by-claim audit of the seeds is complete and every piece of evidence it cites exists.

``reference/data/audit_<paper>.json`` lists, for one seed, every printed
statement (numbered results, definitions' constants, conversions, the numbers
in the text) with a status: confirmed by a test or derivation, listed in the
errata ledger, cited from another paper, or not checked (with the reason).
This module makes the audit falsifiable:

* every numbered label printed in the seed ("Theorem 2.10", "Lemma 6", ...)
  has at least one audit claim (labels from the seed text, or from the recorded
  index ``reference/data/seed_index.json`` where the texts are absent: see
  ``proofs/seedtext.py``);
* every evidence item resolves: a test function defined in (or star-imported
  into) the named file, a derivation in :func:`symbolic.derivations`, a ledger
  id, a catalog id;
* an "erratum" claim names its ledger entry, and every ledger entry of the
  paper is referred to by some claim.
"""
from __future__ import annotations

import ast
import json
import re
from functools import lru_cache
from importlib import resources
from pathlib import Path

import pytest

from seedtext import SEED_FILES, labels

ROOT = Path(__file__).resolve().parent.parent
DATA = resources.files("reference").joinpath("data")
LEDGER = json.loads(DATA.joinpath("errata.json").read_text())
LEDGER_IDS = {e["id"] for e in LEDGER["entries"]}

KINDS = {"theorem", "lemma", "corollary", "proposition", "definition", "fact", "example", "remark",
         "algorithm", "equation", "number", "conversion", "figure", "table"}
STATUSES = {"confirmed", "erratum", "cited", "not checked"}

def _audits() -> dict[str, dict]:
    out = {}
    for f in sorted(DATA.iterdir(), key=lambda p: p.name):
        m = re.fullmatch(r"audit_([a-z]+[0-9]{4}[a-z]*)\.json", f.name)
        if m:
            out[m.group(1)] = json.loads(f.read_text())
    return out


AUDITS = _audits()


@lru_cache(maxsize=None)
def _defined_names(path: Path) -> frozenset:
    """Top-level function and class names of a test file, plus those it star-imports from sibling modules."""
    tree = ast.parse(path.read_text())
    names = {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}
    for n in tree.body:
        if isinstance(n, ast.ImportFrom) and n.module and n.level == 0:
            sibling = path.parent / (n.module.replace(".", "/") + ".py")
            if not sibling.exists():
                continue
            if any(a.name == "*" for a in n.names):
                names |= _defined_names(sibling)
            else:
                names |= {a.asname or a.name for a in n.names if a.name in _defined_names(sibling)}
    return frozenset(names)


def _evidence_problem(item: str) -> str | None:
    if item.startswith("errata:"):
        return None if item[7:] in LEDGER_IDS else f"no ledger entry {item[7:]!r}"
    if item.startswith("symbolic:"):
        from symbolic import derivations

        return None if item[9:] in derivations() else f"no derivation {item[9:]!r}"
    if item.startswith("falsify:"):
        from reference.falsify import claim_ids

        return None if item[8:] in claim_ids() else f"no falsifier claim {item[8:]!r}"
    if item.startswith("catalog:"):
        from reference import catalog

        try:
            catalog.get(item[8:])
        except (KeyError, ValueError):
            return f"no catalog id {item[8:]!r}"
        return None
    if "::" in item:
        rel, name = item.split("::", 1)
        name = name.split("[", 1)[0]
        path = ROOT / rel
        if not path.exists():
            return f"no file {rel}"
        cls, _, meth = name.partition("::")
        if cls not in _defined_names(path):
            return f"{rel} does not define {cls!r}"
        return None
    return f"unrecognised evidence {item!r} (expected path::test, symbolic:, errata:, catalog:, falsify:)"


def test_there_is_an_audit_for_every_seed():
    seeds = {a["seed"] for a in AUDITS.values()}
    missing = sorted(set(SEED_FILES) - seeds)
    assert not missing, f"seeds without an audit: {missing}"


@pytest.mark.parametrize("paper", sorted(AUDITS))
def test_claims_are_well_formed(paper):
    audit = AUDITS[paper]
    assert audit["paper"] == paper
    ids = [c["id"] for c in audit["claims"]]
    assert len(ids) == len(set(ids)), "claim ids are unique"
    problems = []
    for c in audit["claims"]:
        where = c.get("id", "?")
        for key in ("id", "location", "kind", "claim", "status"):
            if not c.get(key):
                problems.append(f"{where}: missing {key}")
        if c.get("kind") not in KINDS:
            problems.append(f"{where}: kind {c.get('kind')!r} not in {sorted(KINDS)}")
        st = c.get("status")
        if st not in STATUSES:
            problems.append(f"{where}: status {st!r} not in {sorted(STATUSES)}")
        ev = c.get("evidence", [])
        if st in ("confirmed", "erratum") and not ev:
            problems.append(f"{where}: status {st} needs evidence")
        if st in ("cited", "not checked") and not (ev or c.get("reason")):
            problems.append(f"{where}: status {st} needs evidence or a reason")
        if st == "not checked" and not c.get("reason"):
            problems.append(f"{where}: 'not checked' needs a reason")
        if st == "erratum" and not any(e.startswith("errata:") for e in ev):
            problems.append(f"{where}: an erratum names its ledger entry")
        for item in ev:
            p = _evidence_problem(item)
            if p:
                problems.append(f"{where}: {p}")
    assert not problems, "\n".join(problems)


def _unaudited(printed, locations) -> list[str]:
    """Labels with no claim whose location starts with them ("Lemma 2" is not covered by "Lemma 2.3")."""
    return sorted(lab for lab in printed
                  if not any(re.match(re.escape(lab) + r"(?![0-9.]*[0-9])", loc) for loc in locations))


def test_label_matching_is_exact_about_numbers():
    """Negative control of the completeness check: a prefix of a longer number does not cover a label."""
    assert _unaudited({"Lemma 2", "Theorem 6.5"}, ["Lemma 2.3", "Theorem 6.5, eq. (17)"]) == ["Lemma 2"]
    assert _unaudited({"Lemma 2"}, ["Lemma 2 (proof), choice of b"]) == []
    assert _unaudited({"Lemma A.1"}, ["Lemma A"]) == ["Lemma A.1"]


@pytest.mark.parametrize("paper", sorted(AUDITS))
def test_every_numbered_label_of_the_seed_is_audited(paper):
    audit = AUDITS[paper]
    missing = _unaudited(labels(audit["seed"]), [c["location"] for c in audit["claims"]])
    assert not missing, f"labels printed in {audit['seed']} with no audit claim: {missing}"


@pytest.mark.parametrize("paper", sorted(AUDITS))
def test_every_ledger_entry_of_the_seed_is_referred_to(paper):
    audit = AUDITS[paper]
    referred = {e[7:] for c in audit["claims"] for e in c.get("evidence", []) if e.startswith("errata:")}
    own = {e["id"] for e in LEDGER["entries"] if audit["seed"] in e["seed"]}
    assert own <= referred, f"ledger entries of {audit['seed']} that no claim refers to: {sorted(own - referred)}"
