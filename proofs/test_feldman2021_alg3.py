"""feldman2021 Algorithm 3 (seed 002_485f6b48c71ae221.txt; Feldman and Zrnic, arXiv 2008.11193): behaviour claims.

Algorithm 3 (adaptive composition with individual privacy filtering), as described in the seed: at every step t,
for all points i compute the individual parameter rho_t^(i); the active set is
``S_t = {i : F_{alpha,B}(rho_1^(i), ..., rho_t^(i)) = CONT}``; for i not in S_t set rho_t^(i) := 0; run A_t on S_t.
For Gaussian noisy gradient descent (Example 2.8 / the NumPy demo ``reference.simulate.individual``) the individual
parameter is ``alpha ||gbar_ti||^2 / (2 sigma^2)`` with gbar the clipped per-example gradient, so the rule is

    i in S_t  <=>  sum_{j < t, i in S_j} ||gbar_ji||^2 + ||gbar_ti||^2  <=  2 sigma^2 B / alpha.

Claims checked: (1) the demo's active sets are exactly this rule, recomputed here from the recorded
gradients with Fractions (independent route); (2) the budget invariant (no point ever exceeds B);
(3) a point is active for at least floor(2 sigma^2 B / (alpha C^2)) steps (worst-case count, Section 2.2);
(4) the seed's remark that a refused point may be re-admitted later (the filter is queried every step).
"""
from __future__ import annotations

from fractions import Fraction as F

import numpy as np
import pytest

from reference.simulate import individual as I
from reference.bounds.feldman2021 import prop2_9_worst_case_queries


def exact_sq(v) -> F:
    return sum((F(float(x)) ** 2 for x in np.asarray(v).ravel()), F(0))


@pytest.fixture(scope="module")
def run():
    return I.run_individual_filter(60, 3, 40, sigma="4", lr="0.3", seed=5, accounting="exact", baseline=False,
                                   keep_history=True)


def test_algorithm3_active_sets_follow_the_filter_rule(run):
    """i in S_t  <=>  spent_i + ||gbar_ti||^2 <= 2 sigma^2 B/alpha (spent_i over i's earlier active steps), exact."""
    act, G = run.history["active"], run.history["clipped"]
    K = run.threshold
    p = run.params
    assert K == 2 * p["sigma"] ** 2 * p["B"] / p["alpha"]
    T, n = act.shape
    spent = [F(0)] * n
    for t in range(T):
        for i in range(n):
            g = exact_sq(G[t, i])
            assert bool(act[t, i]) == (spent[i] + g <= K), (t, i)
            if act[t, i]:
                spent[i] += g
    assert max(spent) <= K  # the budget invariant of Theorem 4.5
    assert I.check_budget_invariant(run) == []


def test_algorithm3_worst_case_steps_all_active(run):
    """Every point is active in the first floor(2 sigma^2 B/(alpha C^2)) steps (each step costs <= alpha C^2/(2 sigma^2))."""
    p = run.params
    k = prop2_9_worst_case_queries(p["alpha"], p["sigma"], p["B"], p["clip"])
    assert k == run.worst_case_steps and 0 < k < p["steps"]
    assert np.all(run.history["active"][:k])
    assert run.active_counts[-1] < p["n"]  # and some are eventually dropped


def test_algorithm3_readmission(run):
    """The filter is queried afresh every step: a point refused at t (large gradient) may be active again later."""
    act = run.history["active"]
    assert any((not act[t, i]) and act[t + 1:, i].any() for i in range(act.shape[1]) for t in range(act.shape[0]))


def test_bad_inputs_name_the_parameter():
    with pytest.raises(ValueError, match="sigma"):
        I.run_individual_filter(10, 2, 5, sigma="0")
    with pytest.raises(ValueError, match="alpha"):
        I.run_individual_filter(10, 2, 5, alpha="1")
