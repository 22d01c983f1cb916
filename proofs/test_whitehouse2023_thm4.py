"""whitehouse2023 (seed 001_019b6f2aef040984.txt, ICML 2023) Theorem 4 = whitehouse2022 (seed 000) Theorem 3: the linear boundary.

Statement: for a martingale with M_0 = 0 and sigma_n^2-sub-Gaussian increments (predictable sigma_n),
V_n = sum sigma_m^2 and any a, b > 0,  P(exists n: M_n >= b/2 + b V_n/(2a)) <= exp(-b^2/(2a)).
Identical statement and proof (via Ville's inequality, Lemma 4 here / Lemma 5 there); whitehouse2023
states sub-Gaussianity one-sidedly (lam >= 0), which suffices for this proof (only lam = b/a > 0 is used).
Tests star-imported from the whitehouse2022 module, plus a check that the one-sided hypothesis is enough.
"""
from test_whitehouse2022_thm3 import *  # noqa: F401,F403

import mpmath


def test_one_sided_hypothesis_suffices_for_the_linear_boundary():
    """The proof only uses E e^{(b/a) dM} <= e^{(b/a)^2 sigma^2/2}: with the one-sided, left-heavy increment of the
    Theorem 5 module the exponential process exp((b/a) M - (b/a)^2 V/2) is still a supermartingale (factor <= 1)."""
    from test_whitehouse2023_thm5 import mgf, one_sided_variance_proxy_upper
    with mpmath.workdps(30):
        s2 = one_sided_variance_proxy_upper()
        for lam in (mpmath.mpf("0.01"), mpmath.mpf("0.3"), mpmath.mpf(2), mpmath.mpf(25)):
            assert mgf(lam) * mpmath.exp(-lam * lam * s2 / 2) <= 1
