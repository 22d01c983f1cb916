"""balle2020 cites Erlingsson et al. 2019 [19, Theorem 7] (seed 004_8fba9d9eabe1335c.txt, Section 5 and Figure 2):
the previous amplification-by-shuffling bound, "for comparison ... in the case [eps0 < 1/2] results in [..]"
(stripped).  The library's form 12 eps0 sqrt(log(1/delta)/n) (eps0 < 1/2, n >= 1000, delta < 1/100) is an
UNVERIFIED RECOLLECTION (catalog id erlingsson2019_thm7_eps).

Checks: it is not violated by the exact shuffled randomized response (n = 1000, 2000), and it is larger than
Theorem 5.1's reconstruction in its regime (the comparison of Figure 2); the regime is enforced.
"""
from __future__ import annotations

from fractions import Fraction as F

import pytest

from reference.bounds import balle2020 as B
from reference.verify import checkins_exact as X
from test_balle2020_thm3_2 import eps0_of, within


@pytest.mark.parametrize("n,E,delta", [(1000, F(11, 10), F(1, 10**6)), (1000, F(3, 2), F(1, 1000)), (2000, F(3, 2), F(1, 10**6))])
def test_cited_theorem_7_not_violated_by_exact_shuffling(n, E, delta):
    assert within(X.shuffle_masses(n, E, 0), B.erlingsson2019_thm7_eps(eps0_of(E), n, delta), delta)


def test_cited_theorem_7_above_theorem_5_1_and_regime_enforced():
    for e0 in (F(1, 100), F(1, 4), F(49, 100)):
        assert B.thm5_1_eps(e0, 10**4, F(1, 10**6)) < B.erlingsson2019_thm7_eps(e0, 10**4, F(1, 10**6))
    with pytest.raises(ValueError, match="eps0"):
        B.erlingsson2019_thm7_eps(F(1, 2), 10**4, F(1, 10**6))
    with pytest.raises(ValueError, match="n"):
        B.erlingsson2019_thm7_eps(F(1, 4), 999, F(1, 10**6))
