"""What the proof-tests read from the seed texts, with a recorded index for clones that lack them.

The seeds (the papers' extracted text) live beside the repository, in ``../shared/seeds``
(or ``$FULLYADAPTIVE_SEEDS``); they are not redistributed with the project. The few
facts the tests need from them are recorded in ``reference/data/seed_index.json``:

* the numbered labels each seed prints ("Theorem 2.10", "Lemma A.1", ...), for the
  completeness checks of the audit and of the version map;
* the number of matches of a few named probes (a misprinted cross-reference, a
  formula's typeset form), for the errata that are about the printed text itself;
* each seed's SHA-256, so a changed seed is noticed.

When the seed texts are present every value is computed from them and
``proofs/test_seed_index.py`` checks the recorded index against them; otherwise the
recorded index is used. Regenerate it with ``python proofs/seedtext.py --write``.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SEEDS = Path(os.environ.get("FULLYADAPTIVE_SEEDS", ROOT.parent / "shared" / "seeds"))
INDEX_PATH = ROOT / "reference" / "data" / "seed_index.json"

SEED_FILES = ("000_8d85c89f0d15dfff.txt", "001_019b6f2aef040984.txt", "002_485f6b48c71ae221.txt",
              "003_05a378efbd63455f.txt", "004_8fba9d9eabe1335c.txt")

# "Theorem 2.10", "Lemma A.1", "Algorithm S"; the seeds sometimes print a no-break space after the kind
LABEL = re.compile(r"\b(Theorem|Lemma|Corollary|Proposition|Definition|Fact|Example|Remark|Algorithm)[ \u00a0]"
                   r"([0-9]+(?:\.[0-9]+)*|[A-Z](?:\.[0-9]+)*)\b")

#: name -> (seed file, regular expression); the index records how often each matches.
PROBES: dict[str, tuple[str, str]] = {
    "w22_ville_cited_as_fact5": ("000_8d85c89f0d15dfff.txt", r"Ville.s inequality \(Fact 5\)"),
    "w22_lemma5_is_ville": ("000_8d85c89f0d15dfff.txt", r"Lemma 5 \(Ville.s Inequality"),
    "w22_fact5": ("000_8d85c89f0d15dfff.txt", r"\bFact 5\b"),
    "w22_def5_arity_n_minus_1": ("000_8d85c89f0d15dfff.txt",
                                 r"u_n : \\mathbb\{R\}_\{\\geq 0\}\^\{n-1\} \\times \\mathbb\{R\}_\{\\geq 0\}\^\{n-1\}"),
}


def available() -> bool:
    """True when every seed text is present (then values come from the texts themselves)."""
    return all((SEEDS / s).is_file() for s in SEED_FILES)


def _text(seed: str) -> str:
    return (SEEDS / seed).read_text(errors="replace")


def _compute(seed: str) -> dict:
    raw = (SEEDS / seed).read_bytes()
    text = raw.decode("utf-8", errors="replace")
    return {"sha256": hashlib.sha256(raw).hexdigest(),
            "labels": sorted({f"{k} {n}" for k, n in LABEL.findall(text)}),
            "probes": {name: len(re.findall(rx, text)) for name, (s, rx) in PROBES.items() if s == seed}}


def compute_index() -> dict:
    """The index computed from the seed texts (they must be present)."""
    return {"generated_by": "python proofs/seedtext.py --write", "seeds": {s: _compute(s) for s in SEED_FILES}}


def recorded_index() -> dict:
    return json.loads(INDEX_PATH.read_text())


def _entry(seed: str) -> dict:
    if (SEEDS / seed).is_file():
        return _compute(seed)
    return recorded_index()["seeds"][seed]


def labels(seed: str) -> set[str]:
    """The numbered labels printed in ``seed`` (from its text when present, else from the recorded index)."""
    return set(_entry(seed)["labels"])


def probe(name: str) -> int:
    """How often probe ``name`` of :data:`PROBES` matches its seed's text."""
    seed = PROBES[name][0]
    return _entry(seed)["probes"][name]


if __name__ == "__main__":
    if "--write" not in sys.argv[1:]:
        print(json.dumps(compute_index(), indent=2, ensure_ascii=False))
    elif not available():
        sys.exit(f"seed texts not found in {SEEDS}")
    else:
        INDEX_PATH.write_text(json.dumps(compute_index(), indent=2, ensure_ascii=False) + "\n")
        print(f"wrote {INDEX_PATH}")
