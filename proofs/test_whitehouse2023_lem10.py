"""whitehouse2023 (seed 001_019b6f2aef040984.txt, ICML 2023) Lemma 10 = whitehouse2022 (seed 000) Lemma 6 (Bun-Steinke Prop. 3.3).

Statement: if A is eps-DP conditioned on B then E(L(x, x') | B(x)) <= eps(B(x))^2/2.  Same statement;
tests star-imported from the whitehouse2022 module (RR is the worst case: eps tanh(eps/2) <= eps^2/2; random
eps-DP pairs; the conditional two-step version), plus that the ICML catalog id is the same function.
"""
from test_whitehouse2022_lem6 import *  # noqa: F401,F403


def test_icml_id_is_the_arxiv_function():
    from reference import catalog
    a, b = catalog.get("whitehouse2022_lem6_bound"), catalog.get("whitehouse2023_lem10_bound")
    assert a.func is b.func and a(eps="1e3") == b(eps="1e3")
