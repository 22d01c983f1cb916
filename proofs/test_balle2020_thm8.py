"""balle2020 cites Erlingsson et al. 2019 [19, Theorem 8] (amplification by swapping), of which the proof of
Theorem 3.2 uses a variant called amplification by probable replacement (seed 004_8fba9d9eabe1335c.txt, proof sketch
of Theorem 3.2; statements stripped).  Not implemented as such in the library.

Check of the variant as the seed describes it: a step that releases the randomizer on client 1's record with
(posterior) probability q and on another record otherwise is log(1 + q_bar (e^eps0 - 1))-DP (Lemma A.1 form), and
the posterior stays below p0/m / (1 - (j-1)(p0/m)(1 - e^-eps0)); combined, a one-client Algorithm 1 run's exact
per-step conditional laws are within these factors (exact rationals, all prefixes).
"""
from __future__ import annotations

import itertools
import math
from fractions import Fraction as F

import pytest


@pytest.mark.parametrize("m,p0,E", [(3, F(1), F(3)), (4, F(1, 2), F(2))])
def test_probable_replacement_step_ratio(m, p0, E):
    p, q = E / (1 + E), 1 / (1 + E)  # RR(1) = 1 w.p. p; the dummy/other record is 0: RR(0) = 1 w.p. q
    for j in range(1, m + 1):
        qbar = (p0 / m) / (1 - (j - 1) * (p0 / m) * (1 - 1 / E))
        for y in itertools.product((0, 1), repeat=j - 1):
            def lik(l, yy):
                return math.prod(((p if yy[i] else 1 - p) if l == i + 1 else (q if yy[i] else 1 - q)) for i in range(len(yy)))
            den = (1 - p0) * lik(0, y) + sum(p0 / m * lik(l, y) for l in range(1, m + 1))
            post = (p0 / m) * lik(j, y) / den  # P(J = j | y_<j) for the dataset where client 1 holds 1
            assert post <= qbar
            # conditional law of y_j under "client 1 holds 1" vs "holds 0" (the latter: all RR(0))
            for yj in (0, 1):
                num1 = (1 - p0) * lik(0, y + (yj,)) + sum(p0 / m * lik(l, y + (yj,)) for l in range(1, m + 1))
                c1 = num1 / den
                c0 = q if yj else 1 - q
                assert c1 / c0 <= 1 + qbar * (E - 1) and c0 / c1 <= 1 + qbar * (E - 1)
