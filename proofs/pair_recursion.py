"""A second route for reference.bounds.pair_game: the game's recursion over the same discrete laws, at 50 digits.

V(R, l) = max((1 - e^{eps - l h})_+, max over items with c_k <= R of sum_j p_kj V(R - c_k, l + off_k + j) + inf_k),
memoised over (R, l) with no window (every reachable loss kept); the laws' doubles are read exactly.
"""
from __future__ import annotations

from fractions import Fraction

import mpmath


def mp_game_values(eps, h, laws, costs, R_max: int, dps: int = 50) -> list[Fraction]:
    """V(R, 0) for R = 0..R_max, each as an exact rational of its 45-digit decimal (used by the proof-tests)."""
    mp = mpmath.mp.clone()
    mp.dps = dps
    e, g = Fraction(eps), Fraction(h)
    E, G = mp.mpf(e.numerator) / e.denominator, mp.mpf(g.numerator) / g.denominator
    P = [[mp.mpf(float(x)) for x in L.p] for L in laws]
    memo: dict = {}

    def V(R, l):
        if (R, l) in memo:
            return memo[(R, l)]
        best = max(mp.mpf(0), 1 - mp.exp(E - l * G))
        for L, p, c in zip(laws, P, costs):
            if c <= R:
                best = max(best, mp.fsum(pj * V(R - c, l + L.off + j) for j, pj in enumerate(p) if pj) + mp.mpf(L.inf))
        memo[(R, l)] = best
        return best

    return [Fraction(mpmath.nstr(V(R, 0), 45)) for R in range(R_max + 1)]
