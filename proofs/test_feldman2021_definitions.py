"""feldman2021 Definitions 2.1-2.6 and the Renyi divergence display (seed 002_485f6b48c71ae221.txt; Feldman and
Zrnic, arXiv 2008.11193; formulas stripped, reconstructed from the standard definitions they cite).

* Definition 2.1 (DP, removal neighbours): P(A(S) in E) <= e^eps P(A(S^{-i}) in E) + delta and symmetrically,
  for all S, i, E.
* Renyi divergence (display before Definition 2.2): D_alpha(P||Q) = log(sum P^alpha Q^(1-alpha))/(alpha-1);
  alpha = 1 "by continuity" is the KL divergence; D^<->_alpha = max of both directions.
* Definition 2.2 (RDP): D^<->_alpha(A(S)||A(S^{-i})) <= eps for all S, i.
* Definition 2.3 (zCDP): (alpha, alpha rho)-RDP for all alpha > 1.
* Definition 2.5 (individual RDP for a point x): the RDP inequality for all S containing x and its removal.
  RDP holds iff individual RDP holds for every point.
* Definition 2.6 (per-instance): the inequality at one fixed S only (so its value is <= Definition 2.5's).

Routes: enumeration of all events with exact comparisons, naive 110-digit mpmath sums, exact rational moments.
"""
from __future__ import annotations

import itertools
from fractions import Fraction as F

import mpmath
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from reference.bounds import feldman2021 as FZ
from reference.bounds.classical import rr_zcdp_rho
from reference.precision import compare_exp_rational, mpf_to_fraction


def q2m(q):
    return mpmath.mpf(q.numerator) / q.denominator


@st.composite
def dist_pair(draw):
    k = draw(st.integers(2, 4))
    w1 = [draw(st.integers(1, 60)) for _ in range(k)]
    w2 = [draw(st.integers(1, 60)) for _ in range(k)]
    return [F(w, sum(w1)) for w in w1], [F(w, sum(w2)) for w in w2]


def is_dp_by_events(P, Q, eps: F, delta: F) -> bool:
    """Definition 2.1 by enumeration of every event E (exact): P(E) <= e^eps Q(E) + delta, both directions."""
    k = len(P)
    for A, B in ((P, Q), (Q, P)):
        for r in range(1, k + 1):
            for E in itertools.combinations(range(k), r):
                pe, qe = sum(A[i] for i in E), sum(B[i] for i in E)
                if pe - delta > 0 and (qe == 0 or compare_exp_rational(eps, (pe - delta) / qe) < 0):
                    return False
    return True


@given(st.fractions(min_value=F(51, 100), max_value=F(99, 100), max_denominator=100))
@example(F(3, 4))
def test_definition_2_1_randomized_response_is_exactly_log_ratio_dp(p):
    """Definition 2.1: RR(p) is (eps, 0)-DP iff e^eps >= p/(1-p) (all events enumerated, exact)."""
    P, Q = (p, 1 - p), (1 - p, p)
    e_up = mpf_to_fraction(mpmath.log(q2m(p / (1 - p)))) + F(1, 10**30)
    e_lo = e_up - F(1, 10**20)
    assert is_dp_by_events(P, Q, e_up, F(0)) and not is_dp_by_events(P, Q, e_lo, F(0))


@given(dist_pair(), st.sampled_from([F(2), F(3), F(3, 2), F(11, 10), F(7)]))
@example(([F(1, 10**6), 1 - F(1, 10**6)], [1 - F(1, 10**6), F(1, 10**6)]), F(7))
def test_renyi_divergence_display_vs_naive_sum(pq, alpha):
    """D_alpha(P||Q) = log(sum_x P^alpha Q^(1-alpha))/(alpha-1): the library's UP-rounded value is >= the naive
    110-digit sum and within 1e-40 relative; the lower-rounded one is <= it."""
    P, Q = pq
    a = q2m(alpha)
    naive = mpmath.log(sum(q2m(p) ** a * q2m(q) ** (1 - a) for p, q in zip(P, Q))) / (a - 1)
    up, lo = FZ.renyi_divergence(P, Q, alpha), FZ.renyi_divergence_lower(P, Q, alpha)
    tol = mpmath.mpf(10) ** -45 * (1 + abs(naive))
    assert lo - tol <= naive <= up + tol and up - lo <= 2 * mpmath.mpf(10) ** -40 * (1 + abs(naive))
    assert FZ.renyi_divergence_sym(P, Q, alpha) == max(up, FZ.renyi_divergence(Q, P, alpha))


@given(dist_pair())
def test_renyi_divergence_order_one_is_kl_by_continuity(pq):
    """alpha -> 1: KL(P||Q) <= D_{1+h}(P||Q) (monotone in alpha) and D_{1+h} -> KL (h = 1e-12)."""
    P, Q = pq
    kl = sum(q2m(p) * mpmath.log(q2m(p) / q2m(q)) for p, q in zip(P, Q))
    d = FZ.renyi_divergence(P, Q, 1 + F(1, 10**12), dps=30)
    assert kl <= d + mpmath.mpf(10) ** -28 and d - kl <= mpmath.mpf(10) ** -9


def _mech(S):
    """Bernoulli mechanism: P(1) = 1/2 + (number of ones in S)/8 (datasets are tuples of bits, |S| <= 3)."""
    p = F(1, 2) + F(sum(S), 8)
    return (p, 1 - p)


DATASETS = [S for r in range(0, 4) for S in itertools.product((0, 1), repeat=r)]


def _worst_pair_moment(a):
    return max(max(FZ.renyi_moment(_mech(S), _mech(T), a), FZ.renyi_moment(_mech(T), _mech(S), a))
               for S, T, _ in FZ.removal_pairs(DATASETS))


@pytest.mark.parametrize("a", [2, 3, 5])
def test_definition_2_2_rdp_exact_threshold(a):
    """Definition 2.2: is_rdp(alpha, eps) holds at eps = log(max moment)/(alpha-1) rounded up, fails just below."""
    m = _worst_pair_moment(a)
    eps = mpf_to_fraction(mpmath.log(q2m(m)) / (a - 1))
    assert FZ.is_rdp(_mech, DATASETS, a, eps + F(1, 10**40))
    assert not FZ.is_rdp(_mech, DATASETS, a, eps - F(1, 10**40))


def test_definition_2_3_zcdp_of_randomized_response():
    """Definition 2.3: RR(3/4) is rho-zCDP with rho = eps tanh(eps/2) (eps = log 3) on a grid of orders incl. near 1;
    a rho 1% smaller is refuted near alpha = 1 (the sup of D_alpha/alpha is the KL limit)."""
    rr = lambda S: (F(3, 4), F(1, 4)) if S and S[0] == 1 else (F(1, 4), F(3, 4))
    mech2 = lambda S: rr(S) if len(S) == 1 else rr((0,))  # S = (1,) vs its removal () answered as bit 0
    rho = mpf_to_fraction(rr_zcdp_rho(mpmath.log(3))) + F(1, 10**30)
    grid = [F(1001, 1000), F(3, 2), F(2), F(5), F(20)]
    assert FZ.is_zcdp_on_grid(mech2, [(1,)], rho, grid)
    assert not FZ.is_zcdp_on_grid(mech2, [(1,)], rho * F(99, 100), grid)


def test_definitions_2_5_and_2_6_individual_and_per_instance():
    """Definition 2.5: individual RDP of x = sup over S containing x; max over x equals the RDP level (Def. 2.2);
    Definition 2.6 (fixed S) is never above Definition 2.5's value for the same point."""
    a = 2
    lvl = {x: FZ.individual_rdp(_mech, DATASETS, x, a) for x in (0, 1)}
    assert lvl[0] == 0  # removing a zero never changes the output law
    eps = mpf_to_fraction(max(lvl.values()))
    assert FZ.is_rdp(_mech, DATASETS, a, eps) and FZ.is_individual_rdp(_mech, DATASETS, 1, a, eps)
    assert not FZ.is_individual_rdp(_mech, DATASETS, 1, a, eps - F(1, 10**30))
    for S in DATASETS:
        for i in range(len(S)):
            assert FZ.per_instance_rdp(_mech, S, i, a) <= lvl[S[i]]


def test_bad_inputs_name_the_parameter():
    with pytest.raises(ValueError, match="alpha"):
        FZ.renyi_divergence([F(1, 2), F(1, 2)], [F(1, 2), F(1, 2)], 1)
    with pytest.raises(ValueError, match="P"):
        FZ.renyi_divergence([F(1, 2), F(1, 3)], [F(1, 2), F(1, 2)], 2)
    with pytest.raises(ValueError, match="eps"):
        FZ.is_rdp(_mech, DATASETS, 2, -1)
