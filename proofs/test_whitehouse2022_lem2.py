"""Lemma 2 of whitehouse2022 (seed 000_8d85c89f0d15dfff.txt; arXiv version) and its proof (Section 4, Appendix C).

Statement (our words): Theorem 1's filter N = inf{n: eps < sqrt(2 log(1/delta') V_{n+1}) + V_{n+1}/2 or
delta'' < sum_{m<=n+1} delta_m} is an (eps, delta' + delta'')-filter when every A_n is (eps_n, delta_n)-pDP
conditioned on A_{1:n-1}.  The proof shows more: P(exists n <= N: L_{1:n} > eps) <= delta' + delta''.

Proof steps checked: the choice a = y*, b = sqrt(2 L y*) (L = log(1/delta')) gives exp(-b^2/(2a)) = delta' and
b/2 + b V/(2a) + V/2 <= eps for V <= y*, with equality at y*; the sketch's
L_{1:n} <= sqrt(2 V_n L) + V_n/2 <= eps for n <= N; the union bound P(B) <= E sum_{n<=N} delta_n <= delta''.
The step P(A and not B) <= P(A | not B) <= delta' is not right as printed: an adversary that spends delta'' on
the paths that went down makes P(A | not B) > delta' (ledger W22-LEM2-PROOF-CONDITIONING); P(A and not B) <= delta'
does hold, and so does the lemma.

Second routes: exact enumeration of adaptive conditional (eps_n, delta_n)-randomized response (by Definition 6
it is (eps_n, delta_n)-pDP) with Fraction losses; mpmath.findroot for y*; 200-digit evaluation of f.
"""
from __future__ import annotations

from fractions import Fraction as F

import mpmath
import pytest
from hypothesis import example, given, strategies as st

from reference.bounds import whitehouse2023 as W
from reference.precision import mpf_to_fraction
from test_whitehouse2022_definitions import INF, hockey_of_stopped, q2m, rr_enumerate

EPS, DP, DPP = F(1), F(1, 5), F(1, 10)

eps_st = st.fractions(min_value=F(1, 1000), max_value=1000)
dp_st = st.sampled_from([F(1, 2), F(1, 10), F(1, 10**6), F(1, 10**50), F(1, 10**300)])


def ystar_by_root(e: F, dp: F) -> mpmath.mpf:
    """Second route: y* = s^2 where s >= 0 solves s^2/2 + sqrt(2L) s - eps = 0 (mpmath.findroot, 110 digits)."""
    L, ee = -mpmath.log(q2m(dp)), q2m(e)
    s = mpmath.findroot(lambda s: s * s / 2 + mpmath.sqrt(2 * L) * s - ee, mpmath.sqrt(ee) / 2)
    return s * s


def admit_filter(eps=EPS, dp=DP, dpp=DPP):
    return lambda V, S, n: S <= dpp and W.filter_admits(V, eps, dp)


ADAPTIVE = {
    "loss_dependent_delta": lambda loss, V, S, n: (F(1, 5), F(1, 50)) if loss > 0 else (F(1, 10), F(0)),
    "delta_first": lambda loss, V, S, n: (F(1, 10), F(1, 30)) if n < 3 else (F(3, 20), F(0)),
    "alternating": lambda loss, V, S, n: (F(1, 4), F(1, 100)) if n % 2 == 0 else (F(1, 20), F(0)),
    "chasing": lambda loss, V, S, n: (F(1, 5), F(0)) if loss >= 0 else (F(1, 20), F(1, 40)),
}


@given(eps_st, dp_st)
@example(F(1), F(1, 10**6))
@example(F(1000), F(1, 10**300))
@example(F(1, 1000), F(1, 2))
def test_proof_choice_of_a_b_gives_delta_prime_and_eps(e, dp):
    """a = y*, b = sqrt(2 L y*): exp(-b^2/(2a)) = delta' and b/2 + b y*/(2a) + y*/2 = eps (y* by root finding)."""
    ys = ystar_by_root(e, dp)
    a, b = W.lemma2_a(e, dp), W.lemma2_b(e, dp)
    assert abs(a / ys - 1) < mpmath.mpf(10) ** -45
    L = -mpmath.log(q2m(dp))
    assert abs(b / mpmath.sqrt(2 * L * ys) - 1) < mpmath.mpf(10) ** -45
    p = W.linear_boundary_crossing_probability(mpf_to_fraction(a), mpf_to_fraction(b))
    assert abs(p / q2m(dp) - 1) < mpmath.mpf(10) ** -40
    at = b / 2 + b * ys / (2 * a) + ys / 2
    assert abs(at - q2m(e)) <= mpmath.mpf(10) ** -40 * q2m(e)


@given(eps_st, dp_st, st.fractions(min_value=0, max_value=1))
@example(F(1), F(1, 10**6), F(1))
@example(F(1000), F(1, 10**300), F(0))
def test_proof_chain_boundary_plus_drift_below_eps_up_to_ystar(e, dp, t):
    """For V = t y* <= y*: b/2 + b V/(2a) + V/2 <= sqrt(2 L y*) + y*/2 = eps (the displayed chain), at 110 digits."""
    ys = ystar_by_root(e, dp)
    L = -mpmath.log(q2m(dp))
    a, b = ys, mpmath.sqrt(2 * L * ys)
    V = q2m(t) * ys
    lhs = b / 2 + b * V / (2 * a) + V / 2
    assert lhs <= q2m(e) * (1 + mpmath.mpf(10) ** -90)
    assert abs(mpmath.sqrt(2 * L * ys) + ys / 2 - q2m(e)) <= mpmath.mpf(10) ** -90 * q2m(e)


@given(st.lists(st.fractions(min_value=0, max_value=2, max_denominator=500), min_size=1, max_size=30), dp_st,
       st.fractions(min_value=F(1, 100), max_value=50))
def test_sketch_bound_holds_for_every_n_before_N(es, dp, e):
    """For all n <= N: sqrt(2 V_n log(1/delta')) + V_n/2 <= eps (and V_n <= y*), checked at 200 digits."""
    N = W.filter_stop_index(es, [0] * len(es), e, dp, 0)
    L = -mpmath.log(q2m(dp))
    ys = ystar_by_root(e, dp)
    V = F(0)
    with mpmath.workdps(200):
        for x in es[:N]:
            V += x * x
            assert mpmath.sqrt(2 * q2m(V) * L) + q2m(V) / 2 <= q2m(e)
            assert q2m(V) <= ys * (1 + mpmath.mpf(10) ** -100)


@pytest.mark.parametrize("name", sorted(ADAPTIVE))
def test_exact_adaptive_pdp_composition_loss_exceeds_eps_w_p_at_most_delta(name):
    """(eps_n, delta_n)-RR steps, adaptive eps_n and delta_n: P(exists n <= N: L_{1:n} > eps) <= delta' + delta''."""
    res = rr_enumerate(ADAPTIVE[name], 80, admit=admit_filter(), bound=lambda V, S, n, drift: q2m(EPS))
    assert res["crossed"] <= q2m(DP + DPP)
    # the pDP-type bound implies the DP one: the stopped transcript's hockey-stick divergence
    assert hockey_of_stopped(rr_enumerate(ADAPTIVE[name], 80, admit=admit_filter()), EPS) <= res["crossed"] + mpmath.mpf(10) ** -90


@pytest.mark.parametrize("name", sorted(ADAPTIVE))
def test_union_bound_part_flag_probability_at_most_delta_second(name):
    """P(B) = P(exists n <= N: L_n > eps_n) <= E sum_{n<=N} delta_n <= delta'' (exact; every admitted path spends <= delta'')."""
    res = rr_enumerate(ADAPTIVE[name], 80, admit=admit_filter())
    assert res["flag"] <= q2m(DPP)
    assert max(key[2] for key in res["stopped"]) <= DPP
    assert abs(sum(res["stopped"].values()) + res["flag"] - 1) < mpmath.mpf(10) ** -90


def test_negative_control_filter_without_delta_budget_is_caught():
    """Dropping the delta'' condition lets the flags pile up: the crossing probability exceeds delta' + delta''."""
    strat = lambda loss, V, S, n: (F(1, 10), F(1, 20))
    res = rr_enumerate(strat, 80, admit=lambda V, S, n: W.filter_admits(V, EPS, DP), bound=lambda V, S, n, d: q2m(EPS))
    assert res["crossed"] > q2m(DP + DPP)


# ---- the conditioning step of the proof (Appendix C) ---------------------------------------------

def conditioning_counterexample(eps=F(1, 2), dp=F(3, 10), dpp=F(69, 100), c=F(169917, 1000000), horizon=40):
    """Adversary: steps of eps_n = c (delta_n = 0); right after the first step whose loss went down, one step with
    eps_n = 0, delta_n = delta'' (its flag fires w.p. delta'').  Returns exact-to-110-digit P(A and not B), P(not B),
    P(A), with A = {exists n <= N: L_{1:n} > eps}, B = {some flag fired} (A contains B: a flag has loss +inf).
    """
    level = {(F(0), F(0), F(0), False, False): mpmath.mpf(1)}
    a_nb = not_b = flagged = mpmath.mpf(0)
    for _ in range(horizon):
        nxt: dict = {}
        for (loss, V, S, crossed, went_down), p in level.items():
            e, d = (F(0), dpp) if (went_down and S == 0) else (c, F(0))
            if S + d > dpp or not W.filter_admits(V + e * e, eps, dp):
                not_b += p
                a_nb += p if crossed else 0
                continue
            w = mpmath.exp(q2m(e))
            flagged += p * q2m(d)
            for dl, pr, down in ((e, (1 - q2m(d)) * w / (1 + w), False), (-e, (1 - q2m(d)) / (1 + w), True)):
                k = (loss + dl, V + e * e, S + d, crossed or loss + dl > eps, down and e > 0)
                nxt[k] = nxt.get(k, 0) + p * pr
        level = nxt
        if not level:
            break
    assert not level
    return a_nb, not_b, a_nb + flagged


def test_proof_step_conditional_on_no_flag_exceeds_delta_prime():
    """Printed step: P(A | not B) <= delta' 'from the delta_n = 0 analysis'.  Here P(A | not B) = 0.3798 > delta' = 0.3."""
    a_nb, not_b, _ = conditioning_counterexample()
    assert a_nb / not_b > q2m(F(3, 10)) * (1 + mpmath.mpf(1) / 10)


def test_corrected_step_and_lemma_hold_on_the_same_adversary():
    """What the proof needs and what holds: P(A and not B) <= delta' and P(A) <= delta' + delta''."""
    a_nb, not_b, a = conditioning_counterexample()
    assert a_nb <= q2m(F(3, 10))
    assert a <= q2m(F(3, 10) + F(69, 100))
