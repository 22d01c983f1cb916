"""rogers2016 (seed 003_05a378efbd63455f.txt) Algorithm 1, FixedParamComp(A, E = (E_1, ..., E_k), b).

Behaviour claims: the adversary picks neighbouring datasets and M_i in the class E_i of (eps_i, delta_i)-DP
algorithms (parameters fixed before the game); the view is V^b = (R_A, A_1^b, ..., A_k^b).  With M_i = RR (Theorem
2.7) the law of the outcomes is the product over rounds of RR_{eps_i,delta_i}(b xor swap_i).

Routes: the exact enumerator (interval probabilities) against a 110-digit product of Definition 2.6's table;
the seeded simulator against the exact law (Hoeffding at false-alarm 1e-9); the parameters cannot be changed by the
adversary.
"""
from __future__ import annotations

import math
from fractions import Fraction as F

import mpmath
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from reference.simulate import rogers2016_games as G

mp = lambda q: mpmath.mpf(q.numerator) / q.denominator


def rr_prob(e, d, bit, z):
    s = mpmath.exp(mp(e)) / (1 + mpmath.exp(mp(e)))
    D = mp(d)
    law = {0: D, "top": (1 - D) * s, "bot": (1 - D) * (1 - s), 1: 0} if bit == 0 else \
        {1: D, "bot": (1 - D) * s, "top": (1 - D) * (1 - s), 0: 0}
    return law[z]


@given(st.lists(st.tuples(st.sampled_from([F(0), F(1, 7), F(1), F(3)]), st.sampled_from([F(0), F(1, 9)])), min_size=1, max_size=4),
       st.sampled_from([0, 1]))
def test_fixed_param_comp_law_is_the_product_of_rr_laws(sched, b):
    """Algorithm 1: P[V^b = (z_1, ..., z_k)] = prod_i P[RR_{eps_i,delta_i}(b xor swap_i) = z_i] (swaps chosen adaptively)."""
    def choose(t):
        i = len(t)
        return None if i == len(sched) else sched[i] + (bool(t) and t[-1].z == "top",)

    adv = G.FunctionAdversary(choose)
    paths = G.enumerate_views(adv, len(sched), b)
    total = mpmath.mpf(0)
    for p in paths:
        want = mpmath.mpf(1)
        for r in p.transcript:
            want *= rr_prob(r.eps, r.delta, b ^ int(r.swap), r.z)
        a, c = p.prob.a, p.prob.b
        assert mpmath.mpf(a) - mpmath.mpf(10) ** -90 <= want <= mpmath.mpf(c) + mpmath.mpf(10) ** -90
        total += want
    assert abs(total - 1) < mpmath.mpf(10) ** -90


def test_fixed_param_comp_simulation_matches_exact_law_and_parameters_are_fixed():
    """Algorithm 1 simulated with a seeded generator: outcome frequencies agree with the exact law (Hoeffding, 1e-9),
    and an adversary that tries to change a fixed parameter is refused."""
    sched = [("1/2", "1/20"), ("1", 0), ("1/10", "1/100")]
    rng = np.random.default_rng(1)
    N = 3000
    runs = [G.fixed_param_comp([e for e, _ in sched], [d for _, d in sched], 0, rng) for _ in range(N)]
    adv = G.FixedScheduleAdversary(sched)
    paths = G.enumerate_views(adv, 3, 0)
    tol = math.sqrt(math.log(2e9) / (2 * N))
    for pred in (lambda L: L == math.inf, lambda L: L != math.inf and L > 1, lambda L: L != math.inf and L < 0):
        est = sum(pred(r.loss) for r in runs) / N
        lo, hi = G.probability(paths, lambda p: pred(p.loss))
        assert float(lo) - tol <= est <= float(hi) + tol
    cheat = G.FunctionAdversary(lambda t: ("1/2", "1/20") if len(t) == 0 else ("2", 0))
    with pytest.raises(ValueError, match="fixed parameters"):
        G.fixed_param_comp([e for e, _ in sched], [d for _, d in sched], 0, rng, adversary=cheat)
