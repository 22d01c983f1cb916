"""whitehouse2023 (seed 001_019b6f2aef040984.txt, ICML 2023) Lemma 11 = whitehouse2022 (seed 000) Lemma 3: reduction to conditional randomized response.

Statement: if A is (eps, delta)-DP conditioned on B, x_0 ~ x_1, B'(b) = B(x_b) and R is (eps, delta)-RR conditioned
on B', there is a kernel nu(., r | z) with P(A(x_b) in . | B'(b')) = E(nu(., R(b) | B'(b')) | B'(b')) (footnote 6).
Same statement and proof (now in Appendix D; footnote 4 there is footnote 6 here).  Tests star-imported from the
whitehouse2022 module (exact rational kernels for a two-stage mechanism, with a negative control).
"""
from test_whitehouse2022_lem3 import *  # noqa: F401,F403
