"""whitehouse2023 (seed 001_019b6f2aef040984.txt, ICML 2023) Lemma 5 (optional stopping, quoted from Durrett): E[X_tau] <= E[X_0].

Statement (our words).  For a nonnegative supermartingale X and any stopping time
tau, possibly infinite (X_infinity = lim X_n exists a.s.),

    E[X_tau] <= E[X_0].

New as a numbered lemma in whitehouse2023 (used for eq. (11)).  Checked by exact
dynamic programming on the likelihood-ratio martingale of randomized response
(E[X_{tau ^ H}] = 1 for every horizon H, so by Fatou E[X_tau] <= 1), on a
supermartingale with a strict drop, and a negative control: for the signed
simple random walk (a martingale that is NOT nonnegative) and tau = first
hitting time of +1, E[S_tau; tau <= H] = P(tau <= H) -> 1 > 0 = E[S_0].
"""
from __future__ import annotations

from fractions import Fraction as F

import pytest


def stopped_mean(p_up, up, down, c, H):
    """E[X_{tau ^ H}] for X_n = up^k down^(n-k) (k up-moves, prob p_up each), tau = inf{n: X_n >= c}; exact Fractions."""
    level = {0: F(1)}   # k -> probability (not yet stopped), n implicit
    done = F(0)
    for n in range(H):
        nxt = {}
        for k, pr in level.items():
            for dk, w in ((1, p_up), (0, 1 - p_up)):
                k2 = k + dk
                x = up ** k2 * down ** (n + 1 - k2)
                if x >= c:
                    done += pr * w * x
                else:
                    nxt[k2] = nxt.get(k2, 0) + pr * w
        level = nxt
    tail = sum((pr * up ** k * down ** (H - k) for k, pr in level.items()), F(0))
    return done + tail, done


@pytest.mark.parametrize("H", [1, 10, 60])
@pytest.mark.parametrize("c", [F(2), F(10)])
def test_likelihood_ratio_martingale(H, c):
    """X_n = prod Q/P of RR_{log 3} (p = 3/4): E[X_{tau ^ H}] = 1 and E[X_tau; tau <= H] <= 1 = E[X_0]."""
    p = F(3, 4)
    total, stopped = stopped_mean(p, (1 - p) / p, p / (1 - p), c, H)
    assert total == 1
    assert stopped <= 1


@pytest.mark.parametrize("H", [5, 40])
def test_strict_supermartingale(H):
    """A strict supermartingale (E[X_{n+1}|F_n] = (9/10) X_n): E[X_{tau ^ H}] <= 1."""
    total, stopped = stopped_mean(F(1, 2), F(3, 2), F(3, 10), F(5), H)
    assert total <= 1 and stopped <= 1


def test_negative_control_signed_random_walk():
    """S_n = +-1 steps (not nonnegative), tau = first hit of +1: E[S_tau 1{tau<=H}] = P(tau<=H) > 0.9 at H = 1001."""
    H = 1001
    level = {0: F(1)}
    hit = F(0)
    for _ in range(H):
        nxt = {}
        for s, pr in level.items():
            for ds in (1, -1):
                s2 = s + ds
                if s2 == 1:
                    hit += pr / 2
                else:
                    nxt[s2] = nxt.get(s2, 0) + pr / 2
        level = nxt
    assert hit > F(9, 10)   # -> 1 as H -> infinity, while E[S_0] = 0
