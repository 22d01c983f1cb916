"""whitehouse2023 (seed 001_019b6f2aef040984.txt, ICML 2023) Lemma 8: the stopped likelihoods are (1 - delta)-mixtures of the pure parts.

Statement (our words).  With P, Q the likelihoods of the stopped transcript
(eqs. (3), (4)) and P', Q' the products of the per-step pure parts (eq. (8)),
there are likelihoods P'', Q'' with

    P = (1 - delta) P' + delta P'',   Q = (1 - delta) Q' + delta Q''.

Proof idea: expanding prod_n [(1-delta_n) P'_n + delta_n P''_n] over subsets S of
{1..N} gives weights w_S; w_emptyset = prod_{n<=N} (1 - delta_n) >= 1 - sum_{n<=N} delta_n
>= 1 - delta.

New in whitehouse2023.  Checked EXACTLY (Fractions) on every stopped transcript of
adaptive (eps, delta)-randomized response with rational keep probabilities and
delta_n changing every step.
"""
from __future__ import annotations

import itertools
from fractions import Fraction as F

import pytest

from test_whitehouse2023_thm1 import RHO, enumerate_stopped, step_laws, strat_chasing, strat_table

DELTA = F(1, 25)
CASES = {
    "table5": strat_table(5, d_choices=(F(0), F(1, 100), F(3, 200))),
    "table6": strat_table(6, d_choices=(F(1, 1000), F(1, 60))),
    "chasing": strat_chasing(F(1, 90)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_w_empty_at_least_one_minus_delta(name):
    """w_emptyset = prod_{n<=N} (1 - delta_n) >= 1 - sum_{n<=N} delta_n >= 1 - delta on every stopped path (exact)."""
    for r in enumerate_stopped(CASES[name], RHO, DELTA, horizon=5):
        assert r["w0"] >= 1 - r["delta_sum"] >= 1 - DELTA


@pytest.mark.parametrize("name", sorted(CASES))
def test_subset_expansion_of_the_likelihood(name):
    """P(A_{1:N}) = sum_{S subset {1..N}} w_S f_S(A_{1:N}) with f_emptyset = P' (exact, every path)."""
    strat = CASES[name]
    for r in enumerate_stopped(strat, RHO, DELTA, horizon=4):
        path = r["path"]
        steps = [strat(path[:i]) for i in range(len(path))]
        total = F(0)
        for mask in itertools.product((0, 1), repeat=len(path)):
            w, f = F(1), F(1)
            for (p, d), y, inS in zip(steps, path, mask):
                sP, _, sPp, _ = step_laws(p, d)
                if inS:
                    w *= d
                    f *= F(1) if y == "T" else F(0)          # P''_n = point mass on T
                else:
                    w *= 1 - d
                    f *= sPp.get(y, F(0))
            total += w * f
        assert total == r["P"]


@pytest.mark.parametrize("name", sorted(CASES))
def test_mixture_decomposition_exact(name):
    """P'' := (P - (1-delta) P')/delta and Q'' likewise are nonnegative and sum to 1 over stopped transcripts (exact)."""
    paths = enumerate_stopped(CASES[name], RHO, DELTA, horizon=5)
    sPpp = sQpp = F(0)
    for r in paths:
        pp = r["Pp"] or F(0)
        qp = r["Qp"] or F(0)
        Ppp = (r["P"] - (1 - DELTA) * pp) / DELTA
        Qpp = (r["Q"] - (1 - DELTA) * qp) / DELTA
        assert Ppp >= 0 and Qpp >= 0
        sPpp += Ppp
        sQpp += Qpp
    assert sPpp == 1 and sQpp == 1


def test_negative_control_budget_overrun_breaks_decomposition():
    """If sum delta_n > delta (no delta budget), (1 - delta) P' exceeds P on some path: the bound is needed."""
    strat = strat_table(5, d_choices=(F(1, 10),))
    paths = enumerate_stopped(strat, RHO, F(1), horizon=3)     # delta budget 1: never binding
    assert any(r["Pp"] is not None and r["P"] < (1 - DELTA) * r["Pp"] for r in paths)
