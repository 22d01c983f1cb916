"""rogers2016 (seed 003_05a378efbd63455f.txt) Algorithm 3, PrivacyFilterComp(A, k, b; COMP_{eps_g,delta_g}).

Behaviour claims: before round i the filter is asked about (eps_1, delta_1, ..., eps_i, delta_i, 0, 0, ...) (look-ahead:
the round's own parameters are included); on HALT the run stops and A_i, ..., A_k are bot; otherwise the adversary
receives A_i = M_i(x^{i,b}).

Routes: every enumerated view is re-checked against the closed-form filter on its prefixes; the number of rounds run
on a fixed schedule equals the catalog's stop index; stateful filter objects and closed forms give the same runs.
"""
from __future__ import annotations

from fractions import Fraction as F
from functools import partial

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from reference.bounds import rogers2016 as R
from reference.simulate import rogers2016_games as G
from reference.accountants.rogers2016 import AdvancedFilter, BasicFilter
from test_rogers2016_definitions import PARAM_GRID, codes_st, table_adversary


@given(codes_st, st.sampled_from([F(1, 2), F(1), F(2)]), st.sampled_from([F(0), F(1, 50), F(1, 10)]))
def test_filter_is_queried_with_look_ahead_and_halts_for_good(codes, eg, dg):
    """Algorithm 3: a view runs round i iff COMP(eps_1, delta_1, ..., eps_i, delta_i) = CONT, and a halted view's next
    request is refused; no round follows a HALT."""
    adv = table_adversary(codes, 5)
    comp = lambda e, d: R.basic_filter(e, d, eg, dg)
    for p in G.enumerate_views(adv, 5, 0, comp):
        t = p.transcript
        for i in range(1, len(t) + 1):
            assert comp(t.eps[:i], t.delta[:i]) == R.CONT
        if p.halted:
            nxt = adv.choose(t)
            assert comp(t.eps + (nxt[0],), t.delta + (nxt[1],)) == R.HALT


@given(st.lists(st.sampled_from(PARAM_GRID), min_size=1, max_size=12), st.sampled_from([F(1, 2), F(1), F(3)]))
def test_rounds_run_equal_the_stop_index(sched, eg):
    """Algorithm 3 with a fixed schedule: rounds run = basic_filter_stop_index (Theorem 3.6) = the stateful BasicFilter's count;
    the view ends with HALT iff the schedule was cut."""
    dg = F(1, 40)
    adv = G.FixedScheduleAdversary(sched)
    n_idx = R.basic_filter_stop_index([e for e, _ in sched], [d for _, d in sched], eg, dg)
    r1 = G.privacy_filter_comp(adv, len(sched), 0, partial(R.basic_filter, eps_g=eg, delta_g=dg), np.random.default_rng(0))
    r2 = G.privacy_filter_comp(adv, len(sched), 0, BasicFilter(eg, dg), np.random.default_rng(0))
    assert len(r1.transcript) == len(r2.transcript) == n_idx
    assert r1.halted == (n_idx < len(sched)) and (r1.view[-1] == R.HALT) == r1.halted
    assert r1.view == r2.view


def test_advanced_filter_object_and_closed_form_agree_in_the_game():
    adv = G.FixedScheduleAdversary([(F(1, 20), F(0))] * 300)
    a = G.privacy_filter_comp(adv, 300, 0, AdvancedFilter(1, "1e-3"), np.random.default_rng(9))
    b = G.privacy_filter_comp(adv, 300, 0, lambda e, d: R.advanced_filter(e, d, 1, "1e-3"), np.random.default_rng(9))
    assert a.view == b.view and len(a.transcript) == R.advanced_filter_rounds_homogeneous("0.05", 0, 1, "1e-3")
