"""feldman2021 Algorithm 1 (adaptive composition) (seed 002_485f6b48c71ae221.txt; Feldman and Zrnic, arXiv 2008.11193).

Algorithm 1: for t = 1..k compute a_t = A_t(a_1, ..., a_{t-1}, S); return (a_1, ..., a_k).  Claims checked:

* the joint law of the transcript is the product of the conditional laws (it sums to 1 under each dataset);
* Section 3's chain rule (reconstructed display "Note that, since [..] we have [..]"): the total privacy loss is
  the sum of the per-round losses, ``L^(k)(a) = log P(a)/Q(a) = sum_t log P_t(a_t | a^(t-1)) / Q_t(a_t | a^(t-1))``;
* the standard composition for fixed parameters (Mironov 2017, cited as [25]): RDP parameters add up (exact
  equality for products of randomized responses; see also test_feldman2021_thm1_1).
"""
from __future__ import annotations

import math
from fractions import Fraction as F

from hypothesis import example, given, settings
from hypothesis import strategies as st

from reference.bounds import feldman2021 as FZ
from reference.verify import feldman2021 as FZV
from test_feldman2021_thm3_1 import P_VALUES, moment, table_strategy


def transcripts(law, horizon):
    """Every transcript with its joint probability under both datasets and the per-round ratios."""
    out = []
    stack = [((), F(1), F(1), ())]
    while stack:
        h, p, q, ratios = stack.pop()
        if len(h) == horizon:
            out.append((h, p, q, ratios))
            continue
        P, Q = law(h, 1), law(h, 0)
        for y in (0, 1):
            stack.append((h + (y,), p * P[y], q * Q[y], ratios + (P[y] / Q[y],)))
    return out


@given(st.lists(P_VALUES, min_size=1, max_size=5), st.integers(1, 7))
@example([1 - F(1, 10**6)], 7)
@settings(deadline=None)
def test_algorithm_1_joint_law_and_chain_rule(table, horizon):
    """sum of joint probabilities = 1 under each input; P(a)/Q(a) = prod_t P_t(a_t|.)/Q_t(a_t|.) (exact), i.e.
    L^(k) = sum_t l_t; and the library's checker sees the same number of transcripts."""
    law = table_strategy(table)
    ts = transcripts(law, horizon)
    assert sum(p for _, p, _, _ in ts) == 1 and sum(q for _, _, q, _ in ts) == 1
    for _, p, q, ratios in ts:
        assert p / q == math.prod(ratios, start=F(1))
    lib = FZV.check_adaptive_composition(lambda h: (law(h, 1), law(h, 0)), 2, horizon)
    assert lib.paths == len(ts) == 2 ** horizon and lib.max_len == horizon


@given(st.lists(P_VALUES, min_size=1, max_size=5), st.sampled_from([2, 3, 6]))
@settings(deadline=None)
def test_algorithm_1_fixed_parameters_compose_additively(ps, a):
    """Non-adaptive steps: exp((a-1) D_a(joint)) = prod_t exp((a-1) D_a(step t)) exactly (additive RDP)."""
    law = lambda h, d: (ps[len(h)], 1 - ps[len(h)]) if d == 1 else (1 - ps[len(h)], ps[len(h)])
    joint = sum((p ** a / q ** (a - 1) for _, p, q, _ in transcripts(law, len(ps))), F(0))
    assert joint == math.prod((moment((p, 1 - p), (1 - p, p), a) for p in ps), start=F(1))
