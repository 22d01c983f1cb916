"""balle2020 Remark 2 (seed 004_8fba9d9eabe1335c.txt): one run gives m updates (not n); with m = n (p0 = 1) the
amplification is 1/sqrt(n); repeating the protocol n/m times (Corollary 3.3) recovers ~1/sqrt(n) amplification even
when the server is rate limited (m < n).  Reconstructed (factors stripped).

Checks: Algorithm 1 makes exactly m updates per run (simulation of the schedule); eps(m = n, p0 = 1) sqrt(n) is
constant in n to leading order; Corollary 3.3's eps sqrt(n) is bounded in n for fixed m.
"""
from __future__ import annotations

from fractions import Fraction as F

import mpmath
import numpy as np

from reference.bounds import balle2020 as B
from reference.simulate import checkins as C


def test_remark_2_one_run_gives_m_updates():
    sel, counts = C.fixed_window_schedule(50, 7, F(1, 2), np.random.default_rng(0), trials=200)
    assert sel.shape == (200, 7) and counts.shape == (200, 7)


def test_remark_2_one_over_sqrt_n_at_m_equal_n():
    e0, d = F(1), F(1, 10**6)
    vals = [B.thm3_2_eps(e0, n, 1, d) * mpmath.sqrt(n) for n in (10**4, 10**6, 10**8)]
    assert vals[0] >= vals[1] >= vals[2] and vals[0] / vals[2] <= mpmath.mpf("1.02")


def test_remark_2_repetitions_recover_one_over_sqrt_n():
    e0, m, d = F(1), 10, F(1, 10**9)
    vals = [B.cor3_3_eps(e0, n, m, d, d) * mpmath.sqrt(n) for n in (10**4, 10**6, 10**8)]
    assert max(vals) / min(vals) <= mpmath.mpf("1.1")
