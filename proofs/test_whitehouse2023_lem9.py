"""whitehouse2023 (seed 001_019b6f2aef040984.txt, ICML 2023) Lemma 9 = whitehouse2022 (seed 000) Lemma 2: the DP filter for pDP steps.

Statement: Theorem 2 (the (eps, delta)-DP filter) holds when each A_n is (eps_n, delta_n)-pDP conditioned
on A_{1:n-1}.  Same statement and the same proof text in both versions (Appendix D here, Appendix C there),
including: the definition of f and the choice b = sqrt(2 log(1/delta') y*) (typeset ambiguously in the ICML
text; errata W22-LEM2-F), the display exp(-b^2/a) = exp(-2 y* log(1/delta')/y*) = delta' (the exponent must be
-b^2/(2a); errata W22-LEM2-B), y* of eq. (15) (errata W22-EQ6-YSTAR) and the step P(A) <= P(A | B^c) + P(B)
<= delta' + P(B) (see the whitehouse2022 module's conditioning counterexample).
Tests star-imported from the whitehouse2022 module, plus the exponent display as printed in whitehouse2023.
"""
from test_whitehouse2022_lem2 import *  # noqa: F401,F403

import mpmath

from reference.bounds import whitehouse2023 as W


def test_printed_exponent_display_gives_delta_prime_squared():
    """As printed: exp(-b^2/a) = exp(-2 y* L / y*) = delta'^2, not delta'; the corrected exp(-b^2/(2a)) = delta'."""
    for e, dp in (("1", "1e-6"), ("0.1", "0.25")):
        a, b = W.lemma2_a(e, dp), W.lemma2_b(e, dp)
        d = mpmath.mpf(dp)
        assert abs(mpmath.exp(-b * b / a) - d * d) <= d * d * mpmath.mpf(10) ** -40
        assert abs(mpmath.exp(-b * b / (2 * a)) - d) <= d * mpmath.mpf(10) ** -40
        assert abs(d * d - d) > d / 2
