"""rogers2016 (seed 003_05a378efbd63455f.txt) Algorithm 4, SimulatedComp(A, k, b), and its modification with delta_i = 0.

Behaviour claims: each round draws Z_i = RR_{eps_i,delta_i}(b) and coins R_SIM_i, the adversary receives
Y_i = P_i(Z_i; R_SIM_i) with P_i(RR_{eps_i,delta_i}(b); R_SIM_i) ~ M_i(x^{i,b}) (eq. (2)); the view is
W^b = (R_A, R_SIM, Z_1, ..., Z_k).  The modified game (Section 3.2) draws Z~_i = RR_{eps_i}(b) instead and so never
emits the delta outputs 0/1.

Routes: exact law of Y computed from the coin thresholds of P_i against the simulator (Hoeffding at 1e-9); the
pure variant checked to emit no delta output on every simulated round.
"""
from __future__ import annotations

import math
from fractions import Fraction as F

import mpmath
import numpy as np

from reference.simulate import rogers2016_games as G

E, D = F(1, 2), F(1, 5)


class Coarse(G.FixedScheduleAdversary):
    """P_i: the delta output 0 is reported as 'top' when the coin is < 1/2 (a randomized post-processing)."""

    def post(self, t, z, coin):
        return "top" if (z == 0 and coin < 0.5) else z


def test_view_and_outputs_and_exact_law_of_Y():
    """Algorithm 4: W = (R_SIM, Z), Y_i = P_i(Z_i; R_SIM_i); the frequency of Y_1 = top matches
    P[Z = top] + P[Z = 0]/2 = (1 - delta) s + delta/2 (exact, 110 digits) within Hoeffding's 1e-9 tolerance."""
    adv = Coarse([(E, D)] * 3)
    rng = np.random.default_rng(4)
    N = 3000
    hits = 0
    for _ in range(N):
        r = G.simulated_comp(adv, 3, 0, rng)
        assert len(r.coins) == 3 and all(0 <= c < 1 for c in r.coins)
        for rd, c in zip(r.transcript, r.coins):
            assert rd.y == ("top" if rd.z == 0 and c < 0.5 else rd.z)
        hits += r.transcript[0].y == "top"
    s = mpmath.exp(mpmath.mpf(1) / 2) / (1 + mpmath.exp(mpmath.mpf(1) / 2))
    p = (1 - mpmath.mpf(1) / 5) * s + mpmath.mpf(1) / 10
    assert abs(hits / N - float(p)) <= math.sqrt(math.log(2e9) / (2 * N))


def test_modified_game_never_emits_delta_outputs():
    """Section 3.2: SimulatedComp~ draws RR_{eps_i}(b) (delta_i ignored): no round outputs 0 or 1, for b = 0 and b = 1."""
    adv = Coarse([(E, D)] * 5)
    rng = np.random.default_rng(11)
    for b in (0, 1):
        for _ in range(500):
            r = G.simulated_comp(adv, 5, b, rng, pure=True)
            assert all(rd.z in ("top", "bot") for rd in r.transcript)
    # exact: the pure enumeration has no delta output at all
    paths = G.enumerate_views(G.FixedScheduleAdversary([(E, D)] * 4), 4, 0, pure=True)
    assert len(paths) == 16 and all(rd.z in ("top", "bot") for p in paths for rd in p.transcript)
