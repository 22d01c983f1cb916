"""balle2020 Remark 4 (seed 004_8fba9d9eabe1335c.txt): in the sliding-window protocol, increasing the window m
increases privacy, but also the number of clients that never participate (their check-in falls before the start or
after the end) and the per-step probability of an empty slot (dummy update): m trades accuracy for privacy.

Checks: Theorem 4.3's eps decreases in m; the per-step empty probability (1 - p0/m)^m increases in m; the expected
number of non-participating clients, computed exactly from the windows, increases in m.
"""
from __future__ import annotations

from fractions import Fraction as F

from hypothesis import given
from hypothesis import strategies as st

from reference.bounds import balle2020 as B


def non_participating(n, m, p0, T=None):
    """E[# clients whose check-in (if any) is outside the served steps m..m+T-1], or who abstain (exact)."""
    T = n - m + 1 if T is None else T
    served = set(range(m, m + T))
    tot = F(0)
    for i in range(1, n + 1):
        inside = sum(1 for t in range(i, i + m) if t in served)
        tot += (1 - p0) + p0 * F(m - inside, m)
    return tot


@given(st.integers(1, 300), st.fractions(min_value=F(1, 100), max_value=1, max_denominator=100))
def test_remark_4_privacy_and_empty_slots_increase_with_m(m, p0):
    assert B.thm4_3_eps(1, m + 1, p0, F(1, 10**6)) < B.thm4_3_eps(1, m, p0, F(1, 10**6))
    assert (1 - p0 / m) ** m <= (1 - p0 / (m + 1)) ** (m + 1)


def test_remark_4_more_clients_left_out_with_larger_m():
    n = 40  # server steps m..n (the default T = n - m + 1 of Section 4.2)
    vals = [non_participating(n, m, F(1, 2)) for m in range(1, 15)]
    assert all(a <= b for a, b in zip(vals, vals[1:])) and vals[-1] > vals[0]
