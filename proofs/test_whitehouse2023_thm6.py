"""whitehouse2023 (seed 001_019b6f2aef040984.txt, ICML 2023) Theorem 6 = whitehouse2022 (seed 000) Theorem 5: the stitched boundary.

Statement: if M_0 = 0 and both dM_n and -dM_n are sigma_n^2-sub-Gaussian given F_{n-1}, V_n = sum sigma_m^2,
v0 > 0, delta in (0, 1):
    P(exists n: M_n >= 1.7 sqrt(V_n (log log(2 V_n/v0) + 0.72 log(5.2/delta))) and V_n >= v0) <= delta.
Same statement (whitehouse2023 writes "and V_n >= v0" for ", V_n >= v0"); tests star-imported from the
whitehouse2022 module (constants 1.7, 0.72, 5.2 against Howard et al. 2021 Theorem 1 with eta = 2, s = 1.4).
"""
from test_whitehouse2022_thm5 import *  # noqa: F401,F403


def test_icml_id_is_the_arxiv_function():
    """whitehouse2023_thm6_boundary is the same function as whitehouse2022_thm5_boundary (identical values at extremes)."""
    from reference import catalog
    a, b = catalog.get("whitehouse2022_thm5_boundary"), catalog.get("whitehouse2023_thm6_boundary")
    assert a.func is b.func
    for kw in ({"V": "1e9", "v0": "1e-9", "delta": "1e-300"}, {"V": "0.5", "v0": "1", "delta": "0.5"}):
        assert a(**kw) == b(**kw)
