"""feldman2021 Remark 4.4 (seed 002_485f6b48c71ae221.txt; Feldman and Zrnic, arXiv 2008.11193; formulas stripped).

Statement (our words, reconstructed).  If step t is rho_t-zCDP given the past (so (alpha, alpha rho_t)-RDP for
every alpha, Definition 2.3), the Renyi filter with parameters (alpha, alpha rho) halts iff

    sum_t alpha rho_t > alpha rho    <=>    sum_t rho_t > rho,

a rule independent of alpha; hence the output is (alpha, alpha rho)-RDP for all alpha > 1, i.e. rho-zCDP.
With Fact 2.4 optimised over alpha this gives (rho + 2 sqrt(rho log(1/delta)), delta)-DP (a derived consequence
used by the library: ``feldman2021_rem4_4_dp_eps``).

Routes: exact transcripts of adaptive randomized response filtered on rational upper bounds of their zCDP
parameters (eps tanh(eps/2), ``reference.bounds.classical.rr_zcdp_rho``), checked at several orders alpha with exact
moments; the zCDP of each step re-checked independently at each order; the optimum over alpha found with
mpmath's findroot on the derivative (second route to the closed form).
"""
from __future__ import annotations

from fractions import Fraction as F

import mpmath
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from reference.bounds import feldman2021 as FZ
from reference.accountants import feldman2021 as FZA
from reference.bounds.classical import rdp_to_dp_eps, rr_zcdp_rho
from reference.precision import certified, compare_exp_rational, mpf_to_fraction
from test_feldman2021_thm3_1 import moment, table_strategy, within_budget

ORDERS = (2, 3, 4, 6, 10)


def rho_up(p: F) -> F:
    """A rational upper bound of the zCDP parameter of RR(p): eps tanh(eps/2), eps = log(p/(1-p))."""
    e = mpf_to_fraction(certified(lambda c, x: c.log(x), (p / (1 - p),), "upper", 40))
    return mpf_to_fraction(rr_zcdp_rho(e, dps=40)) + F(1, 10**35)


@pytest.mark.parametrize("table", [[F(3, 5)], [F(3, 4), F(11, 20)], [F(9, 10), F(3, 5), F(2, 3)]])
@pytest.mark.parametrize("rho", [F(1, 20), F(1, 4), F(1)])
def test_remark_4_4_output_is_rho_zcdp(table, rho):
    """Filter on sum_t rho_t <= rho (alpha-free); then D^<->_alpha(joint) <= alpha rho at every order checked."""
    law = table_strategy(table)
    cache = {}

    def s_of(h):  # the step's rational zCDP parameter (upper bound), a function of the history
        if h not in cache:
            p = max(law(h, 1))
            cache[h] = rho_up(p)
        return cache[h]

    # exact enumeration with the filter's additive state sum_t rho_t
    for a in ORDERS:
        m_pq = F(0)
        stack = [((), F(1), F(1), F(0))]
        while stack:
            h, p, q, spent = stack.pop()
            r = s_of(h) if len(h) < 8 else None
            if r is None or spent + r > rho:
                m_pq += p ** a / q ** (a - 1)
                continue
            P, Q = law(h, 1), law(h, 0)
            for y in (0, 1):
                stack.append((h + (y,), p * P[y], q * Q[y], spent + r))
        assert within_budget(m_pq, a, a * rho), (a, rho)


@given(st.fractions(min_value=F(51, 100), max_value=F(999, 1000), max_denominator=1000))
@example(F(3, 4))
@example(F(999, 1000))
def test_remark_4_4_rr_step_is_zcdp_at_each_order(p):
    """The per-step premise: RR(p) is (alpha, alpha rho)-RDP with rho = eps tanh(eps/2), at each order (exact)."""
    r = rho_up(p)
    for a in ORDERS:
        m = max(moment((p, 1 - p), (1 - p, p), a), moment((1 - p, p), (p, 1 - p), a))
        assert compare_exp_rational((a - 1) * a * r, m) >= 0


@given(st.lists(st.fractions(min_value=0, max_value=1, max_denominator=100), min_size=1, max_size=15),
       st.sampled_from([F(101, 100), F(2), F(8), F(10**3)]))
def test_remark_4_4_rule_does_not_depend_on_alpha(rhos, alpha):
    """decision_at(alpha, rho_t) (the order-alpha filter on alpha rho_t with budget alpha rho) == can_run(rho_t)."""
    z = FZA.RenyiZCDPFilter(1)
    for r in rhos:
        assert z.decision_at(alpha, r) == z.can_run(r) == FZA.RenyiFilter(alpha, alpha).can_run(alpha * (z.spent + r))
        z.try_run(r)


@given(st.fractions(min_value=F(1, 10**4), max_value=10, max_denominator=10**4),
       st.sampled_from([F(1, 10), F(1, 10**5), F(1, 10**30), F(1, 10**300)]))
@example(F(1, 10**4), F(1, 10**300))
@settings(deadline=None)
def test_remark_4_4_dp_conversion_is_the_optimum_over_alpha(rho, delta):
    """(eps, delta)-DP of the zCDP filter: eps = rho + 2 sqrt(rho L) <= alpha rho + L/(alpha-1) for every alpha,
    with equality at the root of the derivative (found numerically by findroot: second route)."""
    e = FZ.zcdp_filter_dp_eps(rho, delta)
    with mpmath.workdps(60):
        L = -mpmath.log(mpmath.mpf(delta.numerator) / delta.denominator)
        r = mpmath.mpf(rho.numerator) / rho.denominator
        a_star = mpmath.findroot(lambda x: r - L / (x - 1) ** 2, 1 + mpmath.sqrt(L / r) * mpmath.mpf("1.1"))
        opt = a_star * r + L / (a_star - 1)
        assert e >= opt * (1 - mpmath.mpf(10) ** -45)  # rounded up, one-sided
        assert e - opt <= opt * mpmath.mpf(10) ** -40
    for a in (F(101, 100), F(2), F(17)):
        assert rdp_to_dp_eps(a, a * rho, delta) >= e
