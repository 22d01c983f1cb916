"""balle2020 Algorithm 1 (distributed DP-SGD with random check-ins, fixed window) (seed 004_8fba9d9eabe1335c.txt).

Behaviour (as described): every client performs an ([m], p0)-check-in; at step j the server picks one uniformly
random client among those checked in at j and requests its privatized gradient, else adds a dummy gradient; clients
checked in but not selected do not participate.  Claims checked: m steps, each client's record used at most once,
one client per non-empty step, uniform selection (simulation with rigorous tolerance); the exact output law of the
released bits (dynamic program) equals brute force over all check-in patterns (two independent exact routes).
"""
from __future__ import annotations

import math
from fractions import Fraction as F

import numpy as np
import pytest

from reference.simulate import checkins as C
from reference.verify import checkins_exact as X


def test_algorithm_1_structure():
    n, m, trials = 30, 8, 3000
    sel, counts = C.fixed_window_schedule(n, m, F(3, 4), np.random.default_rng(2), trials)
    assert sel.shape == (trials, m)
    for t in range(trials):
        used = sel[t][sel[t] >= 0]
        assert len(set(used.tolist())) == len(used)  # a record is used at most once
        assert np.all((sel[t] == -1) == (counts[t] == 0))  # dummy iff nobody checked in
    # uniform selection among the checked-in clients: P(client 0 selected) = E[1/(1 + Bin(n-1, p0/m))] p0
    r = F(3, 4) / m
    exact = sum(math.comb(n - 1, k) * r ** k * (1 - r) ** (n - 1 - k) * F(1, k + 1) for k in range(n)) * F(3, 4)
    tol = math.sqrt(math.log(2e9) / (2 * trials))
    assert abs(np.mean(np.any(sel == 0, axis=1)) - float(exact)) <= tol


@pytest.mark.parametrize("n,m,p0,dummy", [(2, 2, F(1), 0), (3, 2, F(1, 2), 1), (2, 3, F(1), "half")])
def test_algorithm_1_exact_law_two_routes(n, m, p0, dummy):
    for b1 in (0, 1):
        for k in range(n):
            bits = [b1] + [1] * k + [0] * (n - 1 - k)
            a = X.fixed_window_masses(n, m, p0, F(2), b1, k, dummy)
            b = X.fixed_window_masses_bruteforce(n, m, p0, F(2), bits, dummy)
            assert a == b and sum(a) == 1
