"""balle2020 Lemma A.2 (seed 004_8fba9d9eabe1335c.txt; statement stripped, proof start survives; re-derived:
catalog ids balle2020_lema_2_eps, balle2020_lema_2_eq2_eps).

Statement (our words; reconstruction).  If mechanism i is log(1 + c_i (e^eps0 - 1))-DP (c_i fixed), their adaptive
composition is (eps, delta)-DP with

    eps = (e^eps0 - 1) sqrt(2 C2 log(1/delta)) + C2 (e^eps0 - 1)^2 / 2,   C2 = sum_i c_i^2.

Proof steps: heterogeneous advanced composition (Kairouz-Oh-Viswanath 2015, eq. (2)):
sqrt(2 L sum eps_i^2) + sum eps_i tanh(eps_i/2), then log(1 + x) <= x.

Ground truth: the exact hockey-stick curve of the product of randomized responses with eps_i (the worst case of
eps_i-DP mechanisms, KOV 2015), by enumeration of the 2^k sign patterns of the privacy loss (exact rationals with
e^eps_i = 1 + c_i (E - 1)); eq. (2) <= the closed form.
"""
from __future__ import annotations

import itertools
import math
from fractions import Fraction as F

import mpmath
from hypothesis import example, given, settings
from hypothesis import strategies as st

from reference.bounds import balle2020 as B
from reference.verify import checkins_exact as X
from test_balle2020_thm3_2 import eps0_of, within


def product_rr_pair(Es):
    """Product of RR's with e^eps_i = Es[i]: outcome classes by the set of 'truthful' answers (exact)."""
    P, Q = [], []
    for signs in itertools.product((0, 1), repeat=len(Es)):
        p = math.prod((E / (1 + E) if s else 1 / (1 + E)) for E, s in zip(Es, signs))
        q = math.prod((1 / (1 + E) if s else E / (1 + E)) for E, s in zip(Es, signs))
        P.append(p)
        Q.append(q)
    return X.Pair(P, Q)


@given(st.lists(st.fractions(min_value=F(1, 20), max_value=1, max_denominator=20), min_size=1, max_size=9),
       st.sampled_from([F(2), F(3), F(10)]), st.sampled_from([F(1, 10), F(1, 1000), F(1, 10**6)]))
@example([F(1)] * 9, F(10), F(1, 10**6))
@settings(deadline=None, max_examples=15)
def test_lemma_a2_dominates_exact_heterogeneous_composition(cs, E, delta):
    Es = [1 + c * (E - 1) for c in cs]
    pair = product_rr_pair(Es)
    e0 = eps0_of(E)
    assert within(pair, B.lemma_a2_eq2_eps(cs, e0, delta), delta)
    assert B.lemma_a2_eq2_eps(cs, e0, delta) <= B.lemma_a2_eps(cs, e0, delta)


def test_lemma_a2_closed_form_vs_naive():
    cs, e0, d = [F(1, 10)] * 5 + [F(1, 3)], F(1), F(1, 10**6)
    E1 = mpmath.e - 1
    C2 = sum((mpmath.mpf(c.numerator) / c.denominator) ** 2 for c in cs)
    naive = E1 * mpmath.sqrt(2 * C2 * mpmath.log(10**6)) + C2 * E1 ** 2 / 2
    v = B.lemma_a2_eps(cs, e0, d)
    assert naive <= v <= naive * (1 + mpmath.mpf(10) ** -40)
