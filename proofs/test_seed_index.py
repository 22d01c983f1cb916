"""The recorded seed index (reference/data/seed_index.json) is what the seed texts give.

The proof-tests read labels and a few printed forms through :mod:`seedtext`, which uses the
seed texts when they are present and this recorded index otherwise (the texts are not
redistributed). Here, with the texts present, the index must match them exactly; a stale
index is regenerated with ``python proofs/seedtext.py --write``.
"""
import pytest

import seedtext


def test_index_covers_every_seed_and_probe():
    idx = seedtext.recorded_index()["seeds"]
    assert set(idx) == set(seedtext.SEED_FILES)
    for name, (seed, _) in seedtext.PROBES.items():
        assert name in idx[seed]["probes"]
    assert all(idx[s]["labels"] for s in seedtext.SEED_FILES)


@pytest.mark.skipif(not seedtext.available(), reason="seed texts not beside the repository: the recorded index is used")
def test_recorded_index_matches_the_seed_texts():
    assert seedtext.recorded_index()["seeds"] == seedtext.compute_index()["seeds"], \
        "stale: run python proofs/seedtext.py --write"


def test_label_regex_reads_appendix_labels_and_no_break_spaces():
    text = "see Lemma A.1, Theorem\u00a04.7 and Algorithm S; not Lemmas 3"
    assert {f"{k} {n}" for k, n in seedtext.LABEL.findall(text)} == {"Lemma A.1", "Theorem 4.7", "Algorithm S"}
