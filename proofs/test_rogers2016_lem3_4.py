"""rogers2016 (seed 003_05a378efbd63455f.txt) Lemma 3.4.

For every adversary A, P(R_A, R_SIM, Z_1..Z_k) = (R_A, P_1(Z_1; R_SIM_1), ..., P_k(Z_k; R_SIM_k)) (eq. (3)) makes
P(SimulatedComp(A, k, b)) and AdaptParamComp(A, k, b) identically distributed; conditioning on R_A, randomized
adversaries reduce to deterministic ones (the privacy loss of a view (r, a) is that of A_r).

Exact check: M_i is a 3-outcome (eps_i, 0)-DP mechanism given directly by its law,
M(x^0) = (s, (1-s)/2, (1-s)/2), M(x^1) = (1-s, s/2, s/2), s = e^eps/(1+e^eps), with eps_i chosen adaptively from the
previous outputs.  Its post-processing of RR is T(top) = 0, T(bot) = uniform{1, 2}.  The law of the composed outputs
computed from M directly equals the law of P(Z; R_SIM) computed from RR and T (110 digits), for b = 0, 1.  The simulator
with that P_i agrees with the exact law (Hoeffding, 1e-9).  A randomized adversary (a fair coin choosing between two
deterministic ones) has Loss((r, a)) = Loss_{A_r}(a) exactly.
"""
from __future__ import annotations

import itertools
import math
from fractions import Fraction as F

import mpmath
import numpy as np

from reference.simulate import rogers2016_games as G

mp = lambda q: mpmath.mpf(q.numerator) / q.denominator


def eps_of(prev):
    """eps_i chosen from the previous outputs (adaptive): 1/2 after an output 0, 1/5 otherwise."""
    return F(1, 2) if (prev and prev[-1] == 0) else F(1, 5)


def law_direct(k, b):
    out = {}
    for ys in itertools.product((0, 1, 2), repeat=k):
        p = mpmath.mpf(1)
        for i, y in enumerate(ys):
            e = mp(eps_of(ys[:i]))
            s = mpmath.exp(e) / (1 + mpmath.exp(e))
            q = s if b == 0 else 1 - s
            p *= q if y == 0 else (1 - q) / 2
        out[ys] = p
    return out


def law_via_rr(k, b):
    out = {}
    for ys in itertools.product((0, 1, 2), repeat=k):
        p = mpmath.mpf(1)
        for i, y in enumerate(ys):
            e = mp(eps_of(ys[:i]))
            s = mpmath.exp(e) / (1 + mpmath.exp(e))
            ptop = s if b == 0 else 1 - s  # RR_eps(b) = top
            T = {"top": {0: 1, 1: 0, 2: 0}, "bot": {0: 0, 1: mpmath.mpf(1) / 2, 2: mpmath.mpf(1) / 2}}
            p *= ptop * T["top"][y] + (1 - ptop) * T["bot"][y]
        out[ys] = p
    return out


def test_post_processed_simulation_has_the_law_of_adapt_param_comp():
    """Lemma 3.4: P(SimulatedComp(A, k, b)) ~ AdaptParamComp(A, k, b), exactly (110 digits) for b = 0, 1."""
    for b in (0, 1):
        a, c = law_direct(4, b), law_via_rr(4, b)
        assert all(abs(a[y] - c[y]) < mpmath.mpf(10) ** -100 for y in a)
        assert abs(sum(a.values()) - 1) < mpmath.mpf(10) ** -100


def test_library_simulator_with_post_processing_matches_the_exact_law():
    """The seeded SimulatedComp with P_i = T (coin-driven) reproduces the exact law of the first two outputs (Hoeffding 1e-9)."""
    def choose(t):
        if len(t) == 2:
            return None
        return (eps_of(tuple(r.y for r in t)), 0)

    adv = G.FunctionAdversary(choose, post=lambda t, z, coin: 0 if z == "top" else (1 if coin < 0.5 else 2))
    rng = np.random.default_rng(34)
    N = 4000
    counts = {}
    for _ in range(N):
        r = G.simulated_comp(adv, 2, 0, rng)
        counts[r.view] = counts.get(r.view, 0) + 1
    exact = law_direct(2, 0)
    tol = math.sqrt(math.log(2e9 * 9) / (2 * N))
    for ys, p in exact.items():
        assert abs(counts.get(ys, 0) / N - float(p)) <= tol


def test_randomized_adversary_loss_is_the_deterministic_loss():
    """Lemma 3.4 remark: with R_A in the view, Loss((r, a)) = log(P[V^0 = (r, a)]/P[V^1 = (r, a)]) = Loss_{A_r}(a) (exact)."""
    advs = [G.FixedScheduleAdversary([(F(1, 3), F(0))] * 3),
            G.FunctionAdversary(lambda t: None if len(t) == 3 else (F(1) if t and t[-1].z == "top" else F(1, 10), F(1, 20)))]
    for r, adv in enumerate(advs):
        p0 = {p.transcript.outputs: p for p in G.enumerate_views(adv, 3, 0)}
        p1 = {p.transcript.outputs: p for p in G.enumerate_views(adv, 3, 1)}
        c = G.iv_context(200)
        for v, p in p0.items():
            if p.loss == math.inf:
                continue
            joint_ratio = (p.prob / 2) / (p1[v].prob / 2)  # the coin r has probability 1/2 under both b
            d = joint_ratio - c.exp(c.mpf(p.loss.numerator) / p.loss.denominator)
            assert d.a <= 0 <= d.b
