"""rogers2016 (seed 003_05a378efbd63455f.txt) Algorithm 5, the stopping time adversary A_{eps,delta} with constant C.

Behaviour: every round it runs RR_eps with parameters (eps, 0) on datasets {0, 1}, records X_i = +eps (top) or -eps
(bot) and stops (all later eps_j = 0) the first time sum_{j<=i} (X_j - eps tanh(eps/2)) >= C eps sqrt(i log(log(n)/delta)).
(The print has e^j in the compensator and t for i: ledger R16-ALG5-EJ; rogers_games.StoppingTimeAdversary implements
the corrected test.)  So its stopping event is exactly the crossing event of Lemma 6.3 for the walk with
gamma = e^eps/(1 + e^eps), scaled by eps: sum_j (X_j - eps mu) = eps M_t.

Routes: the Markov law of the adversary (rogers_games.markov_stopped_law) against an independent 40-digit DP of the
walk's crossing probability; the Markov law against full path enumeration; and the consequence of the printed e^j
compensator (drift -eps tanh(1/2)...): the printed adversary practically never stops, so it would prove nothing.
"""
from __future__ import annotations

from fractions import Fraction as F

import mpmath
import pytest

from reference.simulate import rogers2016_games as G


def walk_crossing(eps: F, C: F, d: F, n: int, compensator=None):
    """P[exists i <= n: sum_{j<=i}(X_j - comp_j) >= C eps sqrt(i log(log n/delta))], X_j = +-eps, P[+] = e^eps/(1+e^eps)."""
    with mpmath.workdps(40):
        E = mpmath.mpf(eps.numerator) / eps.denominator
        s = 1 / (1 + mpmath.exp(-E))
        mu = E * mpmath.tanh(E / 2)
        comp = compensator or (lambda j: mu)
        ell = mpmath.log(mpmath.log(n) / (mpmath.mpf(d.numerator) / d.denominator))
        w, crossed, drift = {0: mpmath.mpf(1)}, mpmath.mpf(0), mpmath.mpf(0)
        for i in range(1, n + 1):
            drift += comp(i)
            nw = {}
            for j, p in w.items():
                nw[j + 1] = nw.get(j + 1, 0) + p * s
                nw[j] = nw.get(j, 0) + p * (1 - s)
            thr = mpmath.mpf(C.numerator) / C.denominator * E * mpmath.sqrt(i * ell)
            w = {}
            for j, p in nw.items():
                if (2 * j - i) * E - drift >= thr:
                    crossed += p
                else:
                    w[j] = p
        return crossed


@pytest.mark.parametrize("eps, C, d, n", [(F(1, 10), F(1, 2), F(1, 10), 40), (F(1, 50), F(27, 25), F(1, 10), 100),
                                          (F(1, 5), F(3, 4), F(1, 100), 64)])
def test_stopping_probability_is_the_walk_crossing_probability(eps, C, d, n):
    """Algorithm 5's stopping probability (exact Markov law) = the crossing probability of the walk (independent DP, 1e-30)."""
    adv = G.StoppingTimeAdversary(eps, d, C, n)
    law = G.markov_stopped_law(adv)
    c = G.iv_context(200)
    stop = sum((p for (l, V, m), p in law.items() if adv.stopped(l, m)), c.mpf(0))
    with mpmath.workdps(40):
        assert abs(mpmath.mpf(G._ends(stop)[0]) - walk_crossing(eps, C, d, n)) < mpmath.mpf(10) ** -30
    # it only stops on the boundary, otherwise it runs all k = n rounds; eps_j = eps while running
    assert all(m == n or adv.stopped(l, m) for (l, V, m) in law)
    assert all(V == m * eps * eps for (l, V, m) in law)


def test_markov_law_equals_path_enumeration():
    """The Markov form and the choose() form of Algorithm 5 give the same law (full enumeration, 10 rounds)."""
    adv = G.StoppingTimeAdversary(F(1, 4), F(1, 10), F(1, 2), 10)
    law = G.markov_stopped_law(adv)
    paths = G.enumerate_views(adv, 10, 0)
    c = G.iv_context(200)
    for (l, V, m), p in law.items():
        q = sum((x.prob for x in paths if x.loss == l and len(x.transcript) == m), c.mpf(0))
        assert abs(p - q).b < mpmath.mpf(10) ** -50


def test_printed_compensator_e_to_the_j_makes_the_adversary_useless():
    """With the printed compensator eps (e^j - 1)/(e^j + 1) (R16-ALG5-EJ) the sum drifts down by ~eps per round and the
    stopping probability falls far below delta (here < delta/10), whereas the corrected test stops with probability > delta."""
    eps, C, d, n = F(1, 10), F(1, 2), F(1, 10), 60
    printed = walk_crossing(eps, C, d, n, compensator=lambda j: mpmath.mpf(1) / 10 * mpmath.tanh(mpmath.mpf(j) / 2))
    corrected = walk_crossing(eps, C, d, n)
    assert printed < mpmath.mpf(1) / 100 and corrected > mpmath.mpf(1) / 10
