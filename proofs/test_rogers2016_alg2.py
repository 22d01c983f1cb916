"""rogers2016 (seed 003_05a378efbd63455f.txt) Algorithm 2, AdaptParamComp(A, k, b), and eq. (1).

Behaviour claims: each round the adversary chooses (eps_i, delta_i) and M_i from the history; the privacy loss of a
view is Loss(v) = log(P[V^0 = v]/P[V^1 = v]) = sum_i Loss_i(v_{<=i}) (eq. (1)); footnote 3: stopping at round k' is
the same as eps_i = delta_i = 0 for all later rounds.

Routes: the b = 1 game enumerated separately (no use of the per-round loss) against e^{-Loss} times the b = 0
probability; exact loss laws of a stopping adversary and of the same adversary padded with (0, 0) rounds.
"""
from __future__ import annotations

import math
from fractions import Fraction as F

from hypothesis import example, given
from hypothesis import strategies as st

from reference.simulate import rogers2016_games as G
from test_rogers2016_definitions import codes_st, table_adversary


@given(codes_st, st.integers(1, 4))
@example([2, 4, 7], 4)
def test_eq1_loss_is_the_log_likelihood_ratio_of_the_views(codes, k):
    """Eq. (1): for every view v, P[V^1 = v] = P[V^0 = v] e^{-Loss(v)} with Loss(v) = sum_i Loss_i (adaptive eps_i, delta_i,
    swaps); views with Loss = +inf have P[V^1 = v] = 0 (exact intervals)."""
    adv = table_adversary(codes, k)
    p0 = {p.transcript.outputs: p for p in G.enumerate_views(adv, k, 0)}
    p1 = {p.transcript.outputs: p for p in G.enumerate_views(adv, k, 1)}
    c = G.iv_context(200)
    for v, p in p0.items():
        L = p.loss
        assert L == sum(r.loss for r in p.transcript) if L != math.inf else True
        if L == math.inf:
            assert v not in p1
            continue
        q = p1[v]
        assert q.loss == L
        diff = q.prob - p.prob * c.exp(c.mpf(-L.numerator) / L.denominator)
        assert diff.a <= 0 <= diff.b


@given(codes_st, st.integers(1, 4), st.integers(1, 3))
def test_footnote3_stopping_equals_zero_parameters(codes, k, pad):
    """Footnote 3: an adversary that stops after round k' and the same adversary that plays (eps, delta) = (0, 0) for
    `pad` more rounds induce the same law of Loss (exact)."""
    stop = table_adversary(codes, k, swaps=False)
    def padded_choose(t):
        if len(t) >= k:
            return (F(0), F(0)) if len(t) < k + pad else None
        return stop.choose(G.Transcript(t))

    padded = G.FunctionAdversary(padded_choose)
    def loss_law(adv, kk):
        out = {}
        c = G.iv_context(200)
        for p in G.enumerate_views(adv, kk, 0):
            out[p.loss] = out.get(p.loss, c.mpf(0)) + p.prob
        return out

    a, b = loss_law(stop, k), loss_law(padded, k + pad)
    assert set(a) == set(b)
    for L in a:
        d = a[L] - b[L]
        assert d.a <= 0 <= d.b
