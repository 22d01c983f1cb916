"""Tests of reference.bounds.feldman2021 (Feldman and Zrnic, Individual Privacy Accounting via a Renyi Filter).

Every result is checked against a second route that shares no code with it:
naive mpmath sums at 110 digits, mpmath.quad for Gaussians, exact enumeration
of adaptive transcripts with Fractions, and the Whitehouse et al. filters.
"""
from __future__ import annotations

import itertools
import json
import pickle
import random
import threading
from fractions import Fraction as F

import mpmath
import pytest
from hypothesis import example, given, note, settings
from hypothesis import strategies as st

from reference.bounds import feldman2021 as FZ
from reference.verify import feldman2021 as FZV
from reference.accountants import feldman2021 as FZA
from reference.catalog import CATALOG
from reference.bounds.classical import gaussian_rdp, rdp_to_dp_eps
from reference.cli import main as cli_main
from reference.accountants.whitehouse2023 import DPFilter, ZCDPFilter
from reference.precision import compare_exp_rational, mpf_to_fraction, to_exact
from reference.bounds.whitehouse2023 import filter_admits, filter_rounds_homogeneous, zcdp_to_dp_eps

MP = mpmath.MPContext()
MP.dps = 110


def mpq(q) -> mpmath.mpf:
    q = to_exact(q, "q")
    return MP.mpf(q.numerator) / q.denominator


def naive_renyi(P, Q, alpha):
    """log(sum p^a q^(1-a))/(a-1) at 110 digits, straight from the definition."""
    a = mpq(alpha)
    tot = MP.mpf(0)
    for p, q in zip(P, Q):
        p, q = mpq(p), mpq(q)
        if p == 0:
            continue
        tot += p ** a * q ** (1 - a)
    return MP.log(tot) / (a - 1)


def frac(x) -> F:
    return mpf_to_fraction(x)


# --------------------------------------------------------------------------
# strategies for probability vectors
# --------------------------------------------------------------------------

@st.composite
def dist_pair(draw, k_min=2, k_max=4, full=True):
    k = draw(st.integers(k_min, k_max))
    lo = 1 if full else 0
    w1 = [draw(st.integers(lo, 50)) for _ in range(k)]
    w2 = [draw(st.integers(lo, 50)) for _ in range(k)]
    if sum(w1) == 0:
        w1[0] = 1
    if sum(w2) == 0:
        w2[0] = 1
    return [F(w, sum(w1)) for w in w1], [F(w, sum(w2)) for w in w2]


ALPHAS = st.sampled_from([F(2), F(3), F(5), F(3, 2), F(11, 10), F(7, 2), F(20)])


# ==========================================================================
# Renyi divergence
# ==========================================================================

@given(dist_pair(), ALPHAS)
@example(([F(3, 4), F(1, 4)], [F(1, 4), F(3, 4)]), F(2))  # randomized response, p = 3/4
@example(([F(1, 10**6), 1 - F(1, 10**6)], [1 - F(1, 10**6), F(1, 10**6)]), F(20))  # extreme ratio
@example(([F(1, 3)] * 3, [F(1, 3)] * 3), F(2))  # P == Q: exactly 0 (the naive sum is off by 1e-111)
@settings(deadline=None)
def test_renyi_divergence_brackets_naive_sum(pq, alpha):
    """lower <= naive 110-digit sum of the definition <= upper, and the bracket is 45 digits tight."""
    P, Q = pq
    up = FZ.renyi_divergence(P, Q, alpha)
    lo = FZ.renyi_divergence_lower(P, Q, alpha)
    ref = naive_renyi(P, Q, alpha)
    note(f"{up} {ref}")
    tol = MP.mpf(10) ** -100  # the naive 110-digit route's own rounding error
    assert MP.mpf(lo) - tol <= ref <= MP.mpf(up) + tol
    if P != Q:
        assert MP.mpf(up) - MP.mpf(lo) <= abs(ref) * MP.mpf(10) ** -45 + MP.mpf(10) ** -100


def test_renyi_moment_is_exact_rational():
    P, Q = [F(1, 2), F(1, 3), F(1, 6)], [F(1, 6), F(1, 3), F(1, 2)]
    m = FZ.renyi_moment(P, Q, 3)
    assert m == F(1, 8) / F(1, 36) + F(1, 27) / F(1, 9) + F(1, 216) / F(1, 4)
    assert FZ.renyi_moment([1, 0], [F(1, 2), F(1, 2)], 2) == 2
    assert FZ.renyi_moment([F(1, 2), F(1, 2)], [1, 0], 2) is None


def test_renyi_divergence_edge_cases():
    assert FZ.renyi_divergence(["1/2", "1/2"], ["1/2", "1/2"], 2) == 0
    assert FZ.renyi_divergence(["1/2", "1/2"], [1, 0], "3/2") == mpmath.inf
    assert FZ.renyi_divergence([1, 0], ["1/2", "1/2"], 2) == mpmath.log(2) or \
        abs(FZ.renyi_divergence([1, 0], ["1/2", "1/2"], 2) - mpmath.log(2)) < mpmath.mpf(10) ** -45
    # extreme: delta-sized masses
    P = [F(1, 10**300), 1 - F(1, 10**300)]
    Q = [F(1, 2), F(1, 2)]
    ref = naive_renyi(P, Q, 3)
    assert MP.mpf(FZ.renyi_divergence_lower(P, Q, 3)) <= ref <= MP.mpf(FZ.renyi_divergence(P, Q, 3))


def test_precision_ladder():
    """The same input at 20, 50, 100 digits: every upper value >= the next, all agree to 19 digits."""
    P, Q = ["0.3", "0.7"], ["0.6", "0.4"]
    vals = [FZ.renyi_divergence(P, Q, "5/2", dps=k) for k in (20, 50, 100)]
    assert frac(vals[0]) >= frac(vals[1]) >= frac(vals[2])
    assert abs(frac(vals[0]) - frac(vals[2])) <= frac(vals[2]) * F(1, 10**19)


@given(dist_pair())
@settings(deadline=None, max_examples=20)
def test_renyi_divergence_monotone_in_alpha(pq):
    """D_alpha is non-decreasing in alpha (checked exactly: D_a1 <= upper(D_a2))."""
    P, Q = pq
    for a1, a2 in ((F(3, 2), F(2)), (F(2), F(3)), (F(3), F(10))):
        assert FZ.divergence_at_most(P, Q, a1, frac(FZ.renyi_divergence(P, Q, a2)))


def test_sym_is_max_of_both_directions():
    P, Q = ["0.1", "0.9"], ["0.5", "0.5"]
    assert FZ.renyi_divergence_sym(P, Q, 2) == max(FZ.renyi_divergence(P, Q, 2), FZ.renyi_divergence(Q, P, 2))
    assert FZ.renyi_divergence(P, Q, 2) != FZ.renyi_divergence(Q, P, 2)


def test_divergence_at_most_is_exact():
    P, Q = [F(3, 4), F(1, 4)], [F(1, 4), F(3, 4)]
    for a in (F(2), F(5, 2)):
        up, lo = frac(FZ.renyi_divergence(P, Q, a)), frac(FZ.renyi_divergence_lower(P, Q, a))
        assert FZ.divergence_at_most(P, Q, a, up)
        assert not FZ.divergence_at_most(P, Q, a, lo)
    assert FZ.divergence_at_most(P, P, 3, 0) and not FZ.divergence_at_most(P, P, 3, "-1e-30")
    assert not FZ.divergence_at_most([F(1, 2), F(1, 2)], [1, 0], 2, 10**6)


@pytest.mark.parametrize("call, name", [
    (lambda: FZ.renyi_divergence(["0.5", "0.4"], ["0.5", "0.5"], 2), "P"),
    (lambda: FZ.renyi_divergence(["0.5", "0.5"], ["0.5", "0.25", "0.25"], 2), "Q"),
    (lambda: FZ.renyi_divergence(["0.5", "0.5"], ["1.5", "-0.5"], 2), "Q[0]"),
    (lambda: FZ.renyi_divergence(["0.5", "0.5"], ["0.5", "0.5"], 1), "alpha"),
    (lambda: FZ.renyi_moment(["0.5", "0.5"], ["0.5", "0.5"], "5/2"), "alpha"),
    (lambda: FZ.linear_query_individual_rdp_closed_form(2, 0, 1), "sigma"),
    (lambda: FZ.lipschitz_individual_rdp(2, 1, -1, 1), "lipschitz"),
    (lambda: FZ.prop2_9_accuracy(1, 1), "beta"),
    (lambda: FZ.prop2_9_threshold(2, 1, 0), "B"),
    (lambda: FZ.renyi_filter_rounds(0, 1), "rho"),
    (lambda: FZ.zcdp_filter_dp_eps(1, 0), "delta"),
    (lambda: FZ.dp_filter_rho_budget(0, "1e-6"), "eps"),
    (lambda: FZV.check_adaptive_composition(lambda h: None, 2, -1), "horizon"),
    (lambda: FZV.check_adaptive_composition(lambda h: None, "3/2", 1), "alpha"),
    (lambda: FZV.randomized_response(1), "p"),
])
def test_bad_inputs_name_the_parameter(call, name):
    with pytest.raises(ValueError) as ei:
        call()
    assert name in str(ei.value)


# ==========================================================================
# Definitions 2.2, 2.3, 2.5, 2.6
# ==========================================================================

def rr_count_mechanism(S):
    """Outputs a bit: P(1) = 3/4 if S contains a 1, else 1/4 (a removal changes at most one 'bit')."""
    p = F(3, 4) if 1 in S else F(1, 4)
    return (p, 1 - p)


DATASETS = [S for k in range(0, 4) for S in itertools.product((0, 1), repeat=k)]


def test_rdp_predicate_exact_threshold():
    """Definition 2.2: the mechanism is (alpha, D)-RDP for the RR divergence D and not for anything smaller."""
    P, Q = (F(3, 4), F(1, 4)), (F(1, 4), F(3, 4))
    for a in (F(2), F(7, 2)):
        up, lo = frac(FZ.renyi_divergence(P, Q, a)), frac(FZ.renyi_divergence_lower(P, Q, a))
        assert FZ.is_rdp(rr_count_mechanism, DATASETS, a, up)
        assert not FZ.is_rdp(rr_count_mechanism, DATASETS, a, lo)


def test_zcdp_on_grid():
    """Definition 2.3: RR with eps = log 3 (pure eps-DP) is eps^2/2-zCDP on a grid; eps^2/8 is refuted at alpha = 2."""
    eps2 = frac(mpmath.log(3) ** 2) + F(1, 10**10)
    grid = [2, 3, 5, 10, 50, "3/2"]
    assert FZ.is_zcdp_on_grid(rr_count_mechanism, DATASETS, eps2 / 2, grid)
    assert not FZ.is_zcdp_on_grid(rr_count_mechanism, DATASETS, eps2 / 8, grid)


def test_individual_vs_per_instance():
    """Definitions 2.5 and 2.6: x = 0 has individual RDP 0; x = 1 has the RR divergence, yet per-instance 0 in (1, 1)."""
    D = FZ.renyi_divergence((F(3, 4), F(1, 4)), (F(1, 4), F(3, 4)), 2)
    assert FZ.individual_rdp(rr_count_mechanism, DATASETS, 0, 2) == 0
    assert FZ.individual_rdp(rr_count_mechanism, DATASETS, 1, 2) == D
    assert FZ.per_instance_rdp(rr_count_mechanism, (1, 1), 0, 2) == 0
    assert FZ.per_instance_rdp(rr_count_mechanism, (0, 1), 1, 2) == D
    assert FZ.is_individual_rdp(rr_count_mechanism, DATASETS, 0, 2, 0)
    assert not FZ.is_individual_rdp(rr_count_mechanism, DATASETS, 1, 2, frac(D) / 2)
    with pytest.raises(ValueError, match="i must be"):
        FZ.per_instance_rdp(rr_count_mechanism, (1, 1), 2, 2)
    assert len(FZ.removal_pairs([(1, 2, 3)])) == 3


# ==========================================================================
# Examples 2.7 and 2.8 against quadrature
# ==========================================================================

def quad_gaussian_renyi(alpha, sigma, shift):
    """D_alpha(N(0, s^2) || N(v, s^2)) by mpmath.quad of p^a q^(1-a) (the d-dim case reduces to 1-d by rotation)."""
    with mpmath.workdps(40):
        a, s, v = (mpmath.mpf(mpq(x)) for x in (alpha, sigma, shift))
        f = lambda x: mpmath.npdf(x, 0, s) ** a * mpmath.npdf(x, v, s) ** (1 - a)
        I = mpmath.quad(f, [-mpmath.inf, -10 * s, 0, v, v + 10 * s, mpmath.inf])
        return mpmath.log(I) / (a - 1)


@pytest.mark.parametrize("alpha, sigma, norm", [(2, 1, 1), ("3/2", 2, "0.7"), (8, "20", 1), (5, "0.5", "0.1")])
def test_example_2_7_vs_quadrature(alpha, sigma, norm):
    v = FZ.linear_query_individual_rdp_closed_form(alpha, sigma, norm)
    q = quad_gaussian_renyi(alpha, sigma, norm)
    assert abs(v - q) <= abs(q) * mpmath.mpf(10) ** -25
    assert v == gaussian_rdp(alpha, sigma, norm)


def test_example_2_7_vectors_exact():
    phis = [[0.5, -0.25, 1.0], [0.0, 0.0, 0.0], [3.0]]
    vals = FZ.linear_query_individual_rdp(2, "1/2", phis)
    assert vals == [F(2) * F(1.3125) / F(1, 2), 0, F(2) * 9 / F(1, 2)]
    assert FZ.linear_query_individual_rdp(2, 1, [0.1]) == [F(2) * F(0.1) ** 2 / 2]


def test_example_2_8_vs_quadrature_and_direction():
    """Lipschitz bound: alpha L^2 ||x||^2/(2 sigma^2) equals the Gaussian divergence at the largest shift L||x||."""
    v = FZ.lipschitz_individual_rdp(3, 2, "1.5", "0.4")
    exact = F(3) * F(3, 2) ** 2 * F(2, 5) ** 2 / (2 * 4)
    assert frac(v) >= exact and frac(v) - exact <= exact * F(1, 10**48)
    q = quad_gaussian_renyi(3, 2, F(3, 2) * F(2, 5))
    assert abs(v - q) <= q * mpmath.mpf(10) ** -25


# ==========================================================================
# Proposition 2.9
# ==========================================================================

def test_prop2_9_active_sets_and_privacy():
    """Every point active for the first floor(2 sigma^2 B/alpha) queries; each point's output sensitivity^2 <= threshold."""
    rng = random.Random(7)
    alpha, sigma, B = F(4), F(3, 2), F(1, 2)
    K = 2 * sigma ** 2 * B / alpha  # 9/16
    T, n = 30, 12
    q = [[F(rng.randint(-8, 8), 8) for _ in range(n)] for _ in range(T)]
    q[0][0] = 1  # force a worst-case point
    for t in range(T):
        q[t][1] = F(t % 5 == 0)  # sparse binary indicator
        q[t][2] = 1  # always 1: worst case
    S = FZ.prop2_9_active_sets(q, alpha, sigma, B)
    wc = FZ.prop2_9_worst_case_queries(alpha, sigma, B)
    assert F(frac(FZ.prop2_9_threshold(alpha, sigma, B))) == K
    assert wc == 0  # K = 9/16 < 1: no query is guaranteed to a worst-case point
    assert 2 not in S[0]
    # a more generous budget
    B2 = F(5)
    S = FZ.prop2_9_active_sets(q, alpha, sigma, B2)
    K2 = 2 * sigma ** 2 * B2 / alpha
    wc2 = FZ.prop2_9_worst_case_queries(alpha, sigma, B2)
    assert wc2 == int(K2) == 5
    assert all(S[t] == frozenset(range(n)) for t in range(wc2))
    assert 2 not in S[wc2]  # the always-1 point leaves exactly after wc2 queries
    assert [t for t in range(T) if 1 in S[t]] == list(range(25))  # ones at t = 0, 5, ..., 20 fit (5 <= 5.625); the 6th does not
    for i in range(n):
        sens2 = sum((q[t][i] ** 2 for t in range(T) if i in S[t]), F(0))
        assert sens2 <= K2
        # (alpha, B)-RDP of the Gaussian vector mechanism: alpha ||v||^2/(2 sigma^2) <= B
        assert alpha * sens2 / (2 * sigma ** 2) <= B2
    # monotone active sets
    assert all(S[t + 1] <= S[t] for t in range(T - 1))


def test_prop2_9_sparse_indicators_survive():
    """Binary indicators: a point stays active while its number of ones <= threshold (the seed's sparsity remark)."""
    alpha, sigma, B = F(2), F(1), F(3)  # threshold 3
    T = 20
    q = [[F(1), F(t % 4 == 0), F(0)] for t in range(T)]
    S = FZ.prop2_9_active_sets(q, alpha, sigma, B)
    assert [t for t in range(T) if 0 in S[t]] == [0, 1, 2]
    assert [t for t in range(T) if 1 in S[t]] == list(range(12))  # ones at t = 0, 4, 8 active; t = 12 would be the 4th
    assert all(2 in S[t] for t in range(T))


@pytest.mark.parametrize("sigma, beta, m", [(1, "0.05", 0), ("20", "1e-9", 3), ("0.5", "0.5", 1)])
def test_prop2_9_accuracy_gaussian_tail(sigma, beta, m):
    """P(|N(0, s^2)| > value - m) = erfc((value - m)/(s sqrt 2)) <= beta (exact Gaussian tail at 110 digits)."""
    v = mpq(frac(FZ.prop2_9_accuracy(sigma, beta, m)))
    t = (v - m) / mpq(sigma)
    assert MP.erfc(t / MP.sqrt(2)) <= mpq(beta)


# ==========================================================================
# Theorem 3.1: exact adaptive compositions of discrete mechanisms
# ==========================================================================

def rr(p):
    return FZV.randomized_response(p)


def strat_constant(h):
    return rr(F(3, 4))


def strat_last(h):
    return rr(F(3, 4) if (h and h[-1] == 1) else F(3, 5))


def strat_count(h):
    table = [F(11, 20), F(2, 3), F(4, 5), F(9, 10)]
    return rr(table[min(sum(h), 3)])


def strat_stop(h):
    if len(h) >= 2 and h[-1] == h[-2] == 0:
        return None  # adaptive stopping
    return rr(F(7, 10) if sum(h) % 2 else F(3, 5))


def make_random_strategy(seed, k=3, zeros=False):
    """Adaptive k-ary steps: the conditional laws are rational functions of a hash of the history."""
    def strat(h):
        r = random.Random(hash((seed, h)))
        if r.random() < 0.1 and h:
            return None
        w1 = [r.randint(1, 9) for _ in range(k)]
        w2 = [r.randint(1, 9) for _ in range(k)]
        return ([F(w, sum(w1)) for w in w1], [F(w, sum(w2)) for w in w2])
    return strat


@pytest.mark.parametrize("strategy, horizon", [(strat_constant, 6), (strat_last, 7), (strat_count, 7), (strat_stop, 8),
                                               (make_random_strategy(1), 4), (make_random_strategy(2, k=2), 6)],
                         ids=["constant", "last-output", "count", "adaptive-stop", "ternary-random", "binary-random"])
@pytest.mark.parametrize("alpha", [2, 3, 4])
def test_theorem_3_1_exact(strategy, horizon, alpha):
    """Theorem 3.1: D^<->_alpha(joint transcript) <= B* = max_path sum_t rho_t, and the proof's supermartingale ends <= 1."""
    res = FZV.check_adaptive_composition(strategy, alpha, horizon)
    assert res.holds
    assert res.supermartingale_pq <= 1 and res.supermartingale_qp <= 1
    assert res.holds_for_budget(frac(res.path_bound()) + F(1, 10**40))


@given(st.integers(0, 10**6), st.sampled_from([2, 3]), st.integers(1, 4))
@settings(deadline=None, max_examples=15)
def test_theorem_3_1_random_strategies(seed, alpha, horizon):
    res = FZV.check_adaptive_composition(make_random_strategy(seed), alpha, horizon)
    note(repr(res))
    assert res.holds and res.supermartingale_pq <= 1 and res.supermartingale_qp <= 1


def test_theorem_3_1_tight_for_fixed_parameters():
    """Non-adaptive RR: the joint moment equals prod s_t exactly (RDP composition is additive) and the supermartingale is a martingale."""
    res = FZV.check_adaptive_composition(strat_constant, 3, 5)
    assert res.moment_pq == res.bound_moment == res.min_path_moment
    assert res.supermartingale_pq == 1 and res.paths == 32 and res.max_len == 5
    s = FZ.renyi_moment((F(3, 4), F(1, 4)), (F(1, 4), F(3, 4)), 3)
    assert res.bound_moment == s ** 5


def test_theorem_3_1_needs_the_almost_sure_bound():
    """Negative control: a bound holding on *some* path only (min over paths) is violated by adaptive choices."""
    res = FZV.check_adaptive_composition(strat_count, 2, 6)
    assert res.holds
    assert res.moment_pq > res.min_path_moment


def test_randomized_response_divergence_closed_form():
    """Second route: D_2 of RR(p) = log(p^2/(1-p) + (1-p)^2/p)."""
    p = F(3, 4)
    P, Q = rr(p)
    assert FZ.renyi_moment(P, Q, 2) == p ** 2 / (1 - p) + (1 - p) ** 2 / p


# ==========================================================================
# Theorem 4.3: the Renyi filter (exact transcripts) and its negative control
# ==========================================================================

class BrokenRenyiFilter(FZA.RenyiFilter):
    """Admits one step too many: checks the budget *before* adding the step."""

    def _admits(self, spent, rho):
        return spent <= self.B


@pytest.mark.parametrize("strategy", [strat_constant, strat_last, strat_count, make_random_strategy(5, k=2)],
                         ids=["constant", "last-output", "count", "random"])
@pytest.mark.parametrize("alpha, B", [(2, "1"), (3, "1.5"), (2, "0.3")])
def test_theorem_4_3_filtered_transcripts(strategy, alpha, B):
    flt = FZA.RenyiFilter(alpha, B)
    res = FZV.check_adaptive_composition(strategy, alpha, 9, rdp_filter=flt)
    assert res.holds_for_budget(B)
    assert res.supermartingale_pq <= 1


def test_theorem_4_3_negative_control_broken_filter_is_caught():
    """A filter admitting one step too many exceeds B on the exact joint transcript."""
    alpha, p = 2, F(3, 4)
    s = FZ.renyi_moment(*rr(p), alpha)
    rho_bar = FZV._rho_upper(s, alpha)
    B = 3 * rho_bar  # exactly three steps fit
    good = FZV.check_adaptive_composition(strat_constant, alpha, 8, rdp_filter=FZA.RenyiFilter(alpha, B))
    bad = FZV.check_adaptive_composition(strat_constant, alpha, 8, rdp_filter=BrokenRenyiFilter(alpha, B))
    assert good.max_len == 3 and good.holds_for_budget(B)
    assert bad.max_len == 4 and not bad.holds_for_budget(B)


# ==========================================================================
# Corollary 3.2 and Theorem 4.5 on a small discrete universe
# ==========================================================================

VALUES = {1: F(0), 2: F(1, 2), 3: F(1)}


def bernoulli_sum_mechanism(h, S):
    """P(y = 1) = 1/2 + w(h) sum_{x in S} v_x / 2, w(h) adaptive (1/4 after a 0, else 1/8)."""
    w = F(1, 4) if (not h or h[-1] == 0) else F(1, 8)
    p = F(1, 2) + w * sum(VALUES[x] for x in S) / 2
    return (p, 1 - p)


def test_corollary_3_2_exact():
    res = FZV.check_corollary_3_2(bernoulli_sum_mechanism, (1, 2, 3), 3, 2, 5)
    assert res.holds
    res3 = FZV.check_corollary_3_2(bernoulli_sum_mechanism, (1, 2, 3), 2, 3, 4)
    assert res3.holds


@pytest.mark.parametrize("B", ["0.05", "0.1", "0.2"])
def test_theorem_4_5_individual_filter_exact(B):
    """Algorithm 3: D^<->_alpha(A(S)||A(S\\x)) <= B for every S and x in S; zero-value points never drop."""
    res = FZV.check_individual_filter(bernoulli_sum_mechanism, (1, 2, 3), 3, 2, B, 6)
    assert res.holds_for_budget(B)
    assert res.active_steps[1] == 6  # v = 0: individual loss 0
    assert res.active_steps[3] <= res.active_steps[2] <= res.active_steps[1]


def test_theorem_4_5_negative_control():
    """Admitting a point while its budget *before* the step is within B (one step too many) is caught."""
    def broken(prod, s, B, a):
        return compare_exp_rational((a - 1) * B, prod) >= 0
    caught = [not FZV.check_individual_filter(bernoulli_sum_mechanism, (1, 2, 3), 3, 2, B, 6, admit=broken).holds_for_budget(B)
              for B in ("0.05", "0.1", "0.2")]
    assert all(caught)


# ==========================================================================
# The stateful Renyi filter
# ==========================================================================

@given(st.fractions(min_value=F(1, 1000), max_value=F(5)), st.fractions(min_value=F(1, 100), max_value=F(10)))
@example(F(1, 10), F(1))  # floor(B/rho) exact: 10 rounds, the 10th lands exactly on B
@example(F(1, 3), F(1))
@settings(deadline=None, max_examples=40)
def test_filter_rounds_homogeneous_vs_closed_form(rho, B):
    if B / rho > 600:
        return
    flt = FZA.RenyiFilter(2, B)
    k = 0
    while flt.try_run(rho):
        k += 1
    assert k == FZ.renyi_filter_rounds(rho, B) == (B // rho) == FZ.renyi_filter_stop_index([rho] * (k + 3), B)
    assert flt.spent == k * rho <= B < (k + 1) * rho


def test_filter_run_refusal_and_retry():
    flt = FZA.RenyiFilter("3/2", "1")
    assert flt.run("0.6") == 1
    with pytest.raises(FZA.BudgetExceeded) as ei:
        flt.run("0.5")
    e = ei.value
    assert e.step == 2 and e.requested == (F(1, 2),) and isinstance(e, ValueError)
    assert flt.spent == F(3, 5) and flt.n == 1  # unchanged
    assert flt.can_run("0.4") and flt.run("0.4") == 2
    assert not flt.can_run("1e-300") and flt.can_run(0)
    assert flt.remaining() == {"rho_left": 0, "spent": 1, "B": 1, "alpha": F(3, 2)}
    assert pickle.loads(pickle.dumps(e)).step == 2


def test_filter_gaussian_steps_and_dp_guarantee():
    flt = FZA.RenyiFilter(8, "0.5")
    n = 0
    while flt.try_run_gaussian(20, 1):
        n += 1
    assert n == 50 == FZ.renyi_filter_rounds(F(8, 800), F(1, 2))
    assert abs(frac(gaussian_rdp(8, 20, 1)) - F(8, 800)) <= F(1, 10**50)
    g = flt.dp_guarantee("1e-5")
    assert g["eps"] == rdp_to_dp_eps(8, "0.5", "1e-5") and g["delta"] == F(1, 10**5)


def test_filter_thread_safety():
    flt = FZA.RenyiFilter(2, "10")
    ok = []

    def worker():
        c = 0
        for _ in range(200):
            c += flt.try_run("0.01")
        ok.append(c)

    ths = [threading.Thread(target=worker) for _ in range(8)]
    for t in ths:
        t.start()
    for t in ths:
        t.join()
    assert sum(ok) == 1000 == flt.n and flt.spent == 10


def test_filter_json_round_trip_and_tampering():
    flt = FZA.RenyiFilter("5/2", "1")
    for r in ("0.1", "0.1", "0.25", "1/3"):
        flt.run(r)
    s = flt.to_json()
    g = FZA.RenyiFilter.from_json(s)
    assert g.spent == flt.spent and g.history == flt.history and g.params == flt.params
    assert g.history_runs == [(F(1, 10), 2), (F(1, 4), 1), (F(1, 3), 1)]
    for r in ("0.2", "0.3", "0.01"):
        assert g.can_run(r) == flt.can_run(r)
    d = json.loads(s)
    d["state"]["spent"] = "1/2"
    with pytest.raises(ValueError, match="digest"):
        FZA.RenyiFilter.from_dict(d)
    # an over-budget history with a valid digest is refused as unreachable
    from reference.accountants.base import _digest
    d = json.loads(s)
    d["history"].append(["1", 1])
    d["state"]["spent"] = str(flt.spent + 1)
    d["state"]["n"] = 5
    body = {k: v for k, v in d.items() if k != "digest"}
    d["digest"] = _digest(body)
    with pytest.raises(ValueError, match="not reachable"):
        FZA.RenyiFilter.from_dict(d)
    h = pickle.loads(pickle.dumps(flt))
    assert h.spent == flt.spent and h.run("0.01") == 5


def test_filter_bad_parameters():
    with pytest.raises(ValueError, match="alpha"):
        FZA.RenyiFilter(1, 1)
    with pytest.raises(ValueError, match="B"):
        FZA.RenyiFilter(2, 0)
    with pytest.raises(ValueError, match="rho_t"):
        FZA.RenyiFilter(2, 1).run(-1)
    with pytest.raises(ValueError, match="sigma"):
        FZA.RenyiFilter(2, 1).run_gaussian(0)
    with pytest.raises(ValueError, match="rho"):
        FZA.RenyiZCDPFilter("-1")
    with pytest.raises(ValueError, match="delta"):
        FZA.RenyiDPFilter(1, 1)


# ==========================================================================
# Remark 4.4: the zCDP filter does not depend on alpha
# ==========================================================================

@given(st.lists(st.tuples(st.fractions(min_value=F(1, 10), max_value=F(10)), st.fractions(min_value=0, max_value=F(3))),
                min_size=1, max_size=25))
@settings(deadline=None, max_examples=30)
def test_remark_4_4_decision_independent_of_alpha(steps):
    """Gaussian steps (sigma, Delta): rho_t = Delta^2/(2 sigma^2); the order-alpha Renyi filter with budget alpha rho
    makes the same decisions for every alpha, equal to the zCDP filter and to Whitehouse's ZCDPFilter."""
    rho = F(1)
    alphas = [F(11, 10), F(2), F(8), F(1000)]
    z = FZA.RenyiZCDPFilter(rho)
    w = ZCDPFilter(rho, 0)
    renyi = {a: FZA.RenyiFilter(a, a * rho) for a in alphas}
    for sigma, D in steps:
        r = D * D / (2 * sigma * sigma)
        decisions = {a: renyi[a].can_run(a * D * D / (2 * sigma * sigma)) for a in alphas}  # Example 2.7, exact
        assert all(z.decision_at(a, r) == z.can_run(r) for a in alphas)
        assert set(decisions.values()) == {z.can_run(r)} == {w.can_run(r, 0)}
        if z.try_run(r):
            w.run(r, 0)
            for a in alphas:
                renyi[a].run(a * r)
    assert z.spent == w.rho_spent


def test_remark_4_4_dp_eps_is_the_optimum_of_fact_2_4():
    """rho + 2 sqrt(rho L) = min over alpha of Fact 2.4 at (alpha, alpha rho): <= every alpha, ~= at alpha*."""
    for rho, delta in ((F(1, 16), "1e-5"), (F(2), "1e-9"), (F(1, 10**4), "1e-300")):
        e = FZ.zcdp_filter_dp_eps(rho, delta)
        assert abs(e - zcdp_to_dp_eps(rho, delta)) <= e * mpmath.mpf(10) ** -45
        a_star = frac(FZ.zcdp_best_alpha(rho, delta, dps=60))
        for a in (F(101, 100), F(2), F(10), a_star + F(1, 10**6), a_star):
            assert rdp_to_dp_eps(a, a * rho, delta) >= e
        assert rdp_to_dp_eps(a_star, a_star * rho, delta) - e <= e * mpmath.mpf(10) ** -40
        z = FZA.RenyiZCDPFilter(rho)
        assert z.dp_guarantee(delta)["eps"] == e and z.rdp_at(3) == 3 * rho


# ==========================================================================
# Theorem 4.7 (re-derived): the (eps, delta)-DP filter from the Renyi filter
# ==========================================================================

def test_dp_filter_rho_budget_root():
    """rho* solves rho + 2 sqrt(rho log(1/delta)) = eps (second route: mpmath findroot at 110 digits)."""
    for eps, delta in (("1", "1e-6"), ("0.01", "1e-300"), ("1000", "0.5")):
        r = FZ.dp_filter_rho_budget(eps, delta)
        L = -MP.log(mpq(delta))
        root = MP.findroot(lambda x: x + 2 * MP.sqrt(x * L) - mpq(eps), mpq(frac(r)))
        assert mpq(frac(r)) <= root and root - mpq(frac(r)) <= root * MP.mpf(10) ** -45
        assert abs(FZ.zcdp_filter_dp_eps(frac(r), delta, dps=60) - mpmath.mpf(mpq(eps))) <= mpq(eps) * MP.mpf(10) ** -40


@given(st.lists(st.fractions(min_value=0, max_value=F(1, 2)), min_size=1, max_size=40),
       st.sampled_from([F(1), F(1, 2), F(3)]), st.sampled_from([F(1, 10**6), F(1, 100)]))
@settings(deadline=None, max_examples=25)
def test_dp_filter_matches_whitehouse_theorem_1(eps_steps, eps, delta):
    """Same rule as Whitehouse et al. Theorem 1 with delta'' = 0 (a filter derived independently)."""
    a = FZA.RenyiDPFilter(eps, delta)
    b = DPFilter(eps, delta, 0)
    for e in eps_steps:
        assert a.can_run(e) == b.can_run(e, 0)
        assert a.try_run(e) == b.try_run(e, 0)
    assert a.V == b.V


@pytest.mark.parametrize("eps0, eps, delta", [("0.01", "1", "1e-6"), ("0.1", "0.5", "1e-9"), ("0.001", "2", "1e-5"), ("1", "0.5", "1e-6")])
def test_dp_filter_rounds_homogeneous(eps0, eps, delta):
    k = FZ.dp_filter_rounds_homogeneous(eps0, eps, delta)
    assert k == filter_rounds_homogeneous(eps0, 0, eps, delta, 0)
    e0 = to_exact(eps0, "e")
    rho = FZ.dp_filter_rho_budget(eps, delta, dps=60)
    assert k * e0 * e0 / 2 <= frac(rho) + F(1, 10**50)
    assert (k + 1) * e0 * e0 / 2 > frac(FZ.dp_filter_rho_budget(eps, delta, dps=60)) - F(1, 10**50)
    f = FZA.RenyiDPFilter(eps, delta)
    if k < 3000:
        n = 0
        while f.try_run(eps0):
            n += 1
        assert n == k
    assert FZ.dp_filter_admits(k * e0 * e0, to_exact(eps, "e"), to_exact(delta, "d")) == filter_admits(k * e0 * e0, to_exact(eps, "e"), to_exact(delta, "d"))


def test_dp_filter_state_and_json():
    f = FZA.RenyiDPFilter("3", "1e-6")
    f.run("0.1")
    f.run("0.2")
    g = FZA.RenyiDPFilter.from_json(f.to_json())
    assert g.V == F(1, 20) and g.remaining()["rho_spent"] == F(1, 40)
    assert g.dp_guarantee() == {"eps": 3, "delta": F(1, 10**6)}
    with pytest.raises(FZA.BudgetExceeded, match="refused"):
        g.run("1")


# ==========================================================================
# Catalog entries: registered, cited, evaluable through the CLI in their direction
# ==========================================================================

FZ_IDS = sorted(k for k in CATALOG if k.startswith("feldman2021_") and CATALOG[k].func.__module__ == "reference.bounds.feldman2021")


def test_catalog_ids_registered():
    assert set(FZ_IDS) >= {
        "feldman2021_sec2_renyi_divergence", "feldman2021_sec2_renyi_divergence_sym", "feldman2021_ex2_7_individual_rdp",
        "feldman2021_ex2_8_individual_rdp", "feldman2021_prop2_9_threshold", "feldman2021_prop2_9_worst_case_queries",
        "feldman2021_prop2_9_accuracy", "feldman2021_thm4_3_stop_index", "feldman2021_thm4_3_rounds",
        "feldman2021_rem4_4_dp_eps", "feldman2021_rem4_4_best_alpha", "feldman2021_thm4_7_rho_budget",
        "feldman2021_thm4_7_rounds_homogeneous"}
    for k in FZ_IDS:
        e = CATALOG[k]
        assert e.note and e.provenance and e.func.__doc__.startswith("feldman2021")


@pytest.mark.parametrize("eid", FZ_IDS)
def test_catalog_eval_direction(capsys, eid):
    """Through the CLI at 12 digits vs the function at 60 digits: upper >=, lower <=, exact within 1e-11, int equal."""
    e = CATALOG[eid]
    rc = cli_main(["eval", eid, "--digits", "12", "--json"])
    out, err = capsys.readouterr()
    assert rc == 0, err
    d = json.loads(out)
    kwargs = {p.name: (p.default if p.kind != "integer" else int(p.default)) for p in e.params}
    if e.returns == "int":
        assert int(d["value"]) == e.func(**kwargs)
        return
    v = frac(e.func(**kwargs, dps=60))
    p = to_exact(d["value"], "value")
    if e.direction == "upper":
        assert p >= v
    elif e.direction == "lower":
        assert p <= v
    else:
        assert abs(p - v) <= abs(v) * F(1, 10**11)


def test_classes_carry_citations():
    for cls in (FZA.RenyiFilter, FZA.RenyiZCDPFilter, FZA.RenyiDPFilter):
        assert cls.__citations__ and all(c["paper_key"] == "feldman2021" for c in cls.__citations__)
