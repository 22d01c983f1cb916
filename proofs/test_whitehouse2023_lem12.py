"""whitehouse2023 (seed 001_019b6f2aef040984.txt, ICML 2023) Lemma 12 = whitehouse2022 (seed 000) Lemma 7 (Kairouz, Oh, Viswanath 2015).

Statement: if A is (eps, delta)-DP and R is (eps, delta)-randomized response, then for neighbours x_0, x_1 there is a
kernel nu(., r) with P(A(x_b) in .) = E nu(., R(b)) for b in {0, 1} (footnote 7's averaged measure).
Same statement; tests star-imported from the whitehouse2022 module (exact rational kernels found by LP).
"""
from test_whitehouse2022_lem7 import *  # noqa: F401,F403
