"""whitehouse2023 (seed 001_019b6f2aef040984.txt, ICML 2023) Lemma 4 = whitehouse2022 (seed 000) Lemma 5: Ville's inequality.

Statement: for a nonnegative supermartingale X and delta in (0, 1), P(exists n: X_n >= E X_0 / delta) <= delta.
Same statement (referred to as "Fact 4" in Section 4.2 of whitehouse2023, "Fact 5" in whitehouse2022).
Tests star-imported from the whitehouse2022 module (exact crossing probabilities, near-equality, negative control).
"""
from test_whitehouse2022_lem5 import *  # noqa: F401,F403
