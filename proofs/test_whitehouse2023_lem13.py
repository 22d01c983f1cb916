"""whitehouse2023 (seed 001_019b6f2aef040984.txt, ICML 2023) Lemma 13 = whitehouse2022 (seed 000) Lemma 8: post-processing keeps conditional pDP jointly.

Statement: if A is (eps, delta)-pDP conditioned on B and A' is drawn from a kernel mu(., A(x) | B(x)) that does not
depend on the input (eq. (16) here, eq. (7) there), then (A, A') is (eps, delta)-pDP conditioned on B.  Same
statement; tests star-imported from the whitehouse2022 module (exact joint release, and that A' alone can break pDP).
"""
from test_whitehouse2022_lem8 import *  # noqa: F401,F403
