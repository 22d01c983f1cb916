"""whitehouse2023 (seed 001_019b6f2aef040984.txt, ICML 2023) Lemma 2 = whitehouse2022 (seed 000) Lemma 1: DP <-> pDP (Kasiviswanathan-Smith).

Statement: (eps, delta)-pDP implies (eps, delta)-DP; conversely (eps, delta)-DP implies
(2 eps, 2 delta/(eps e^eps))-pDP.  Same wording in both versions (whitehouse2023 adds a remark on
Guingona et al. 2023).  The converse as printed is false (errata W22-LEM1-DP-TO-PDP, whose seeds
include 001); the tests are those of the whitehouse2022 module, star-imported (no duplicated code),
plus a check that the ICML catalog ids are the same functions.
"""
from test_whitehouse2022_lem1 import *  # noqa: F401,F403

from reference import catalog


def test_icml_catalog_ids_are_the_arxiv_functions():
    """whitehouse2023_lem2_dp_to_pdp_{eps,delta} evaluate exactly as whitehouse2022_lem1_dp_to_pdp_{eps,delta}."""
    for part in ("eps", "delta"):
        a, b = catalog.get(f"whitehouse2022_lem1_dp_to_pdp_{part}"), catalog.get(f"whitehouse2023_lem2_dp_to_pdp_{part}")
        assert a.func is b.func
        kw = {"eps": "0.7", "delta": "1e-300"} if part == "delta" else {"eps": "0.7"}
        assert a(**kw) == b(**kw)
