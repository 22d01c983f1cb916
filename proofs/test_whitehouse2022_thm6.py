"""Theorem 6 of whitehouse2022 (seed 000_8d85c89f0d15dfff.txt; arXiv version, Appendix E): the filter of Theorem 1
for steps that are, by the analyst's choice at each step, conditionally (eps_n, delta_n)-DP or conditionally
(eps_n^2/2)-zCDP (delta_n = 0).

Statement (our words): with N as in Theorem 1 (a zCDP step rho_n counts as eps_n^2 = 2 rho_n, delta_n = 0), A_{1:N} is
(eps, delta' + delta'')-DP.

Second routes: the stopping index equals Theorem 1's with eps_n = sqrt(2 rho_n) (rational rho_n = e^2/2), the class
MixedFilter agrees, and the stopped transcript of an adaptive mixture of (eps_n, delta_n)-RR and
(eps_n^2/2)-zCDP steps (realised by eps_n-RR) has hockey-stick divergence <= delta' + delta'' (exact).
"""
from __future__ import annotations

from fractions import Fraction as F

import mpmath
import pytest
from hypothesis import given, strategies as st

from reference.bounds import whitehouse2023 as W
from reference.accountants.whitehouse2023 import MixedFilter
from test_whitehouse2022_definitions import hockey_of_stopped, q2m, rr_enumerate

step_st = st.tuples(st.sampled_from(["dp", "zcdp"]), st.fractions(min_value=0, max_value=1, max_denominator=200),
                    st.sampled_from([F(0), F(1, 10**9), F(1, 10**300)]))


@given(st.lists(step_st, min_size=1, max_size=30), st.sampled_from([F(1, 10**6), F(1, 10**300)]),
       st.sampled_from([F(0), F(1, 10**8)]))
def test_mixed_stop_index_is_theorem1_with_eps_sqrt_2rho(steps, dp, dpp):
    """N(mixed) = N(Theorem 1) with eps_n^2 = 2 rho_n, delta_n = 0 for zCDP steps; MixedFilter admits the same prefix."""
    lib = [("dp", e, d) if k == "dp" else ("zcdp", e * e / 2) for k, e, d in steps]
    es = [e for _, e, _ in steps]
    ds = [d if k == "dp" else F(0) for k, _, d in steps]
    N = W.mixed_filter_stop_index(lib, 1, dp, dpp)
    assert N == W.filter_stop_index(es, ds, 1, dp, dpp)
    f = MixedFilter(1, dp, dpp)
    ran = 0
    for s in lib:
        if not f.try_run_step(s):
            break
        ran += 1
    assert ran == N


EPS, DP, DPP = F(1), F(1, 5), F(1, 20)
MIXED_ADVERSARIES = {
    # returns (eps_n, delta_n); delta_n = 0 marks a zCDP step realised by eps_n-RR
    "dp_when_ahead": lambda loss, V, S, n: (F(1, 5), F(1, 100)) if loss > 0 else (F(1, 10), F(0)),
    "zcdp_then_dp": lambda loss, V, S, n: (F(3, 20), F(0)) if n < 4 else (F(1, 10), F(1, 80)),
}


@pytest.mark.parametrize("name", sorted(MIXED_ADVERSARIES))
def test_mixed_filter_is_eps_delta_dp(name):
    """sup_G P(A_{1:N}(x) in G) - e^eps P(A_{1:N}(x') in G) <= delta' + delta'' (exact)."""
    res = rr_enumerate(MIXED_ADVERSARIES[name], 80, admit=lambda V, S, n: S <= DPP and W.filter_admits(V, EPS, DP))
    assert hockey_of_stopped(res, EPS) <= q2m(DP + DPP)


def test_negative_control_zcdp_steps_counted_as_rho_not_2rho():
    """Counting a zCDP step as eps_n^2 = rho_n (half its intrinsic time) lets too many steps run: the DP bound fails."""
    strat = lambda loss, V, S, n: F(1, 5)
    res = rr_enumerate(strat, 400, admit=lambda V, S, n: W.filter_admits(V / 8, EPS, DP))
    assert hockey_of_stopped(res, EPS) > q2m(DP)


def test_theorem6_bad_inputs():
    with pytest.raises(ValueError, match="steps"):
        W.mixed_filter_stop_index("renyi:1", 1, "1e-6", 0)
