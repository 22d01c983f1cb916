"""feldman2021 Theorem 1.1 (seed 002_485f6b48c71ae221.txt; Feldman and Zrnic, arXiv 2008.11193; formulas stripped).

Statement (our words, reconstructed from the prose and from Theorem 3.1, of which it is the special case of one
pair of neighbouring datasets).  Fix alpha > 1 and B > 0.  If step t, A_t(a^(t-1), .), is (alpha, rho_t)-RDP
where rho_t is an arbitrary function of the earlier outputs a^(t-1), and

    sum_t rho_t <= B   almost surely,

then the adaptive composition of A_1, ..., A_k is (alpha, B)-RDP.  When all rho_t are fixed in advance it
recovers the usual RDP composition (Mironov 2017): the parameters add up, and for a product of
randomized responses the sum is attained exactly.

Routes: exact enumeration of adaptive randomized-response compositions (this directory's
test_feldman2021_thm3_1 helpers, independent of the library), the library's exact checker, and the
closed-form Renyi divergence of randomized response (Mironov 2017, Table II; ``reference.bounds.classical.rr_rdp``)
evaluated at 110 digits with mpmath.
"""
from __future__ import annotations

from fractions import Fraction as F

import mpmath
from hypothesis import example, given, settings
from hypothesis import strategies as st

from reference.bounds import feldman2021 as FZ
from reference.verify import feldman2021 as FZV
from reference.bounds.classical import rr_rdp
from test_feldman2021_thm3_1 import P_VALUES, enumerate_composition, moment, rr, within_budget


def _budget_spender(a, B, menu):
    """An adversary that picks, at each step, the largest RR in ``menu`` whose parameter still fits the budget
    given the realized transcript (so sum rho_t <= B holds on every path by construction), else stops."""
    prod_cache = {}

    def _choose(h, cache):
        if h in cache:
            return cache[h]
        prod = F(1)
        for t in range(len(h)):
            prod *= _choose(h[:t], cache)[1]
        # adaptive menu order: after a 1, prefer the strongest step; after a 0, the weakest
        order = menu if (h and h[-1] == 1) else list(reversed(menu))
        pick = (None, F(1))
        for p in order:
            s = max(moment(rr(p), rr(1 - p), a), moment(rr(1 - p), rr(p), a))
            if within_budget(prod * s, a, B):
                pick = (p, s)
                break
        cache[h] = pick
        return pick

    def law(h, d):
        p = _choose(h, prod_cache)[0]
        return rr(p) if d == 1 else rr(1 - p)

    def stop(h):
        return _choose(h, prod_cache)[0] is None

    return law, stop


@given(st.lists(P_VALUES, min_size=1, max_size=4, unique=True), st.sampled_from([2, 3, 5]),
       st.sampled_from([F(1, 10), F(1, 2), F(1), F(3)]))
@example([F(3, 4), F(3, 5)], 2, F(1))
@example([1 - F(1, 10**6)], 3, F(3))
@settings(deadline=None)
def test_theorem_1_1_budget_respected_almost_surely_implies_rdp(menu, a, B):
    """Theorem 1.1: sum_t rho_t <= B on every transcript  =>  D^<->_alpha(A(S)||A(S')) <= B (decided exactly)."""
    law, stop = _budget_spender(a, B, sorted(menu))
    res, max_prod, _ = enumerate_composition(law, [(1, 0)], a, 8, stop=stop,
                                             param=lambda h: moment(law(h, 1), law(h, 0), a))
    assert within_budget(max_prod, a, B)  # the hypothesis: sum rho_t <= B almost surely
    assert within_budget(res[(1, 0)]["m"], a, B)  # the conclusion


@given(st.lists(P_VALUES, min_size=1, max_size=5), st.sampled_from([2, 3, 4]))
@example([F(3, 4)] * 5, 2)
@settings(deadline=None)
def test_theorem_1_1_recovers_fixed_composition_exactly(ps, a):
    """Fixed parameters: RDP composition is additive, D_alpha(prod_t RR(p_t)) = sum_t D_alpha(RR(p_t)), checked
    exactly (moments multiply) and against the closed form of Mironov 2017 Table II at 110 digits."""
    law = lambda h, d: rr(ps[len(h)]) if d == 1 else rr(1 - ps[len(h)])
    res, max_prod, _ = enumerate_composition(law, [(1, 0)], a, len(ps))
    assert res[(1, 0)]["m"] == max_prod  # equality: the theorem is tight for non-adaptive RR
    total = sum(mpmath.log(mpmath.mpf(moment(rr(p), rr(1 - p), a).numerator) / moment(rr(p), rr(1 - p), a).denominator)
                for p in ps) / (a - 1)
    closed = sum(rr_rdp(a, mpmath.log(mpmath.mpf(p.numerator) / (1 - p).numerator * (1 - p).denominator / p.denominator))
                 for p in ps if p != F(1, 2))
    assert abs(total - closed) <= mpmath.mpf(10) ** -40 * (1 + abs(total))


def test_theorem_1_1_via_library_checker():
    """Second route: the library's exact checker on the same adaptive adversary agrees and holds."""
    law, stop = _budget_spender(3, F(1), [F(3, 5), F(3, 4), F(9, 10)])
    lib = FZV.check_adaptive_composition(lambda h: None if stop(h) else (law(h, 1), law(h, 0)), 3, 8)
    assert lib.holds and lib.holds_for_budget(1)
