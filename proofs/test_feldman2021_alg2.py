"""feldman2021 Algorithm 2 (adaptive composition with Renyi privacy filtering) (seed 002_485f6b48c71ae221.txt).

Algorithm 2 (as described): for t = 1..k, compute rho_t (the step's parameter given the past); if
F(rho_1, ..., rho_t) = HALT then BREAK; else compute a_t = A_t(a^(t-1), S); return the prefix.  The seed's
remark after Lemma 4.2: the analyst may, after a HALT, change the computation at time t retroactively and query
the filter again, which may then allow continuation.

Checks: the stateful ``RenyiFilter`` is queried before the step and leaves its state unchanged on a refusal
(run raises BudgetExceeded, try_run returns False), then admits a smaller step; an adversary that retries
smaller steps after each refusal still ends within B (exact joint divergence, independent enumeration).
"""
from __future__ import annotations

from fractions import Fraction as F

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reference.bounds import feldman2021 as FZ
from reference.accountants import feldman2021 as FZA
from test_feldman2021_thm1_1 import _budget_spender
from test_feldman2021_thm3_1 import enumerate_composition, moment, within_budget


@given(st.lists(st.fractions(min_value=0, max_value=2, max_denominator=50), min_size=1, max_size=20),
       st.fractions(min_value=F(1, 10), max_value=5, max_denominator=50))
def test_algorithm_2_query_before_step_and_retry(rhos, B):
    """A refused step leaves the state unchanged; retrying with rho_t' = remaining budget is admitted."""
    flt = FZA.RenyiFilter(3, B)
    for r in rhos:
        before = (flt.spent, flt.steps if hasattr(flt, "steps") else None)
        if flt.can_run(r):
            assert flt.try_run(r)
        else:
            with pytest.raises(FZA.BudgetExceeded):
                flt.run(r)
            assert not flt.try_run(r)
            assert (flt.spent, flt.steps if hasattr(flt, "steps") else None) == before
            left = flt.remaining()["rho_left"]
            assert left == B - flt.spent and flt.can_run(left) and not flt.can_run(left + F(1, 10**9))
            flt.run(left)  # the retroactive, smaller step
        assert flt.spent <= B


def test_algorithm_2_retrying_adversary_stays_within_budget():
    """An adversary that, after a HALT, substitutes the next smaller step from its menu: exact D^<-> <= B."""
    for a, B in ((2, F(1, 2)), (3, F(1)), (5, F(2))):
        law, stop = _budget_spender(a, B, [F(11, 20), F(3, 5), F(3, 4), F(9, 10)])
        r = enumerate_composition(law, [(1, 0)], a, 8, stop=stop,
                                  param=lambda h: moment(law(h, 1), law(h, 0), a))[0][(1, 0)]
        assert within_budget(r["m"], a, B)
