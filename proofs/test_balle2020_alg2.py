"""balle2020 Algorithm 2 (random check-ins with averaged updates) (seed 004_8fba9d9eabe1335c.txt).

Behaviour (as described): same client side as Algorithm 1; the server skips a step nobody checked into and
otherwise averages the noisy gradients of all checked-in clients.  Claims checked: every checked-in client is used
exactly once (no discarding), skipped steps are exactly the empty ones, the per-step counts are data-independent
(their law does not depend on the bits: exact marginal of the output law), and the exact output law (dynamic
program) equals brute force.
"""
from __future__ import annotations

from fractions import Fraction as F

import numpy as np
import pytest

from reference.simulate import checkins as C
from reference.verify import checkins_exact as X


def test_algorithm_2_uses_every_checked_in_client():
    rng = np.random.default_rng(4)
    for _ in range(200):
        groups = C.averaged_schedule(20, 6, F(1), rng)
        allc = np.concatenate(groups)
        assert sorted(allc.tolist()) == list(range(20))  # p0 = 1: everybody, once


@pytest.mark.parametrize("n,m", [(2, 2), (3, 2)])
def test_algorithm_2_counts_are_data_independent_and_routes_agree(n, m):
    E = F(3)
    margs = []
    for bits in ([1] + [0] * (n - 1), [0] * n, [1] * n):
        d = X.averaged_distribution_bruteforce(n, m, E, bits)
        assert d == X.averaged_distribution(n, m, E, bits[0], sum(bits[1:]))
        marg = {}
        for out, pr in d.items():
            key = tuple(k for k, _ in out)
            marg[key] = marg.get(key, 0) + pr
        margs.append(marg)
    assert margs[0] == margs[1] == margs[2]
