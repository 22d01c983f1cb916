"""balle2020 Lemma A.1 (seed 004_8fba9d9eabe1335c.txt; statement stripped, proof skeleton survives; re-derived:
catalog id balle2020_lema_1_eps).

Statement (our words; reconstruction).  Let A be eps0-LDP.  M(x) returns A(x) with probability q and a sample
from an arbitrary distribution omega (a mixture of A's outputs on other records) with probability 1 - q.  For
q, q' <= q_bar and all events S:

    P(M(x) in S) <= (1 + q_bar (e^eps0 - 1)) P(M'(x') in S),   i.e. eps = log(1 + q_bar (e^eps0 - 1)).

Route: random finite eps0-LDP mechanisms with exact rationals, every event enumerated; tightness instance; a
halved bound is violated by that instance (negative control).
"""
from __future__ import annotations

import itertools
import random
from fractions import Fraction as F

import mpmath
from hypothesis import given, settings
from hypothesis import strategies as st

from reference.bounds import balle2020 as B
from test_balle2020_thm3_2 import eps0_of


def random_ldp(r, E, rows, k):
    base = [F(r.randint(1, 20)) for _ in range(k)]
    out = []
    for _ in range(rows):
        row = [b * (1 + F(r.randint(0, 100), 100) * (E - 1) / (E + 1)) for b in base]
        tot = sum(row)
        out.append([x / tot for x in row])
    return out


@given(st.integers(0, 10**9), st.sampled_from([F(2), F(4), F(10)]))
@settings(deadline=None, max_examples=20)
def test_lemma_a1_all_events(seed, E):
    r = random.Random(seed)
    A = random_ldp(r, E, 4, 3)
    assert all(a / b <= E for x in A for y in A for a, b in zip(x, y))  # eps0-LDP with eps0 = log E
    qbar = F(r.randint(1, 100), 100)
    q, qp = qbar * F(r.randint(0, 10), 10), qbar * F(r.randint(0, 10), 10)
    w = [F(r.randint(0, 5)) for _ in range(2)]
    if not any(w):
        w[0] = F(1)
    omega = [sum(wi * A[2 + i][o] for i, wi in enumerate(w)) / sum(w) for o in range(3)]
    P = [q * A[0][o] + (1 - q) * omega[o] for o in range(3)]
    Q = [qp * A[1][o] + (1 - qp) * omega[o] for o in range(3)]
    bound = 1 + qbar * (E - 1)
    for k in (1, 2, 3):
        for S in itertools.combinations(range(3), k):
            assert sum(P[i] for i in S) <= bound * sum(Q[i] for i in S)
    e = B.lemma_a1_eps(qbar, eps0_of(E))
    assert mpmath.log(mpmath.mpf(bound.numerator) / bound.denominator) <= e


def test_lemma_a1_tight_and_negative_control():
    """q = q' = q_bar, omega = A(x'), A = RR with E = 4: ratio exactly 1 + q_bar (E - 1); half the bound fails."""
    A0, A1 = [F(4, 5), F(1, 5)], [F(1, 5), F(4, 5)]
    qbar = F(1, 5)
    P = [qbar * A0[o] + (1 - qbar) * A1[o] for o in range(2)]
    assert max(p / x for p, x in zip(P, A1)) == 1 + qbar * 3
    assert mpmath.log(mpmath.mpf(8) / 5) > B.lemma_a1_eps(qbar, eps0_of(4)) / 2
