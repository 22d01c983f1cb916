"""Lemma 6 of whitehouse2022 (seed 000_8d85c89f0d15dfff.txt; arXiv version, Appendix C), quoting Bun and Steinke (2016)
Proposition 3.3.

Statement (our words): if A is eps-DP conditioned on B, then E(L(x, x') | B(x)) <= eps(B(x))^2 / 2.
The proof of Lemma 9 also uses the stronger content of Bun-Steinke Prop. 3.3, E(e^{lambda L} | B) <= e^{lambda(lambda+1) eps^2/2}.

Second routes: the exact expected loss of eps-RR, eps tanh(eps/2), which is the largest expected loss of any
eps-DP pair; random finite eps-DP pairs (rational w = e^eps, exact DP check) with their expected loss and moment
generating function at 110 digits; a conditional two-step example.
"""
from __future__ import annotations

from fractions import Fraction as F

import mpmath
import pytest
from hypothesis import example, given, strategies as st

from reference.bounds import whitehouse2023 as W
from test_whitehouse2022_definitions import is_dp_w, q2m, rr_law_w


def clip_to_dp(pw, qw, w: F):
    """A pure (log w)-DP pair from weights: Q = normalised qw, P(y) proportional to Q(y) * clamp(ratio, 1/w', w')."""
    k = min(len(pw), len(qw))
    Q = {i: F(qw[i], sum(qw[:k])) for i in range(k)}
    r = [min(max(F(pw[i], qw[i]), 1 / w), w) for i in range(k)]
    Z = sum(Q[i] * r[i] for i in range(k))
    P = {i: Q[i] * r[i] / Z for i in range(k)}
    return P, Q


@given(st.fractions(min_value=0, max_value=1000))
@example(F(0))
@example(F(1000))
@example(F(1, 10**6))
def test_rr_expected_loss_is_at_most_eps_squared_over_2(e):
    """E L = eps tanh(eps/2) <= eps^2/2 (library values rounded up/nearest; naive second route)."""
    ee = q2m(e)
    naive = ee * (mpmath.exp(ee) - 1) / (mpmath.exp(ee) + 1) if ee < 500 else ee * mpmath.tanh(ee / 2)
    got = W.rr_expected_loss(e)
    assert abs(got - naive) <= mpmath.mpf(10) ** -45 * max(1, naive) + mpmath.mpf(10) ** -60
    assert naive <= W.expected_loss_bound(e)
    assert W.expected_loss_bound(e) >= ee**2 / 2


@given(st.lists(st.integers(1, 50), min_size=2, max_size=5), st.lists(st.integers(1, 50), min_size=2, max_size=5),
       st.fractions(min_value=F(11, 10), max_value=30, max_denominator=20))
def test_any_eps_dp_pair_has_expected_loss_at_most_rr_and_eps2_over_2(pw, qw, w):
    """Pure (log w)-DP pair: E_P[L] <= eps tanh(eps/2) <= eps^2/2 (eps = log w)."""
    P, Q = clip_to_dp(pw, qw, w)
    if not is_dp_w(P, Q, w, F(0)):
        return  # normalisation can push a ratio past w; skip those draws
    e = mpmath.log(q2m(w))
    mean = sum(q2m(p) * mpmath.log(q2m(p) / q2m(Q[y])) for y, p in P.items())
    assert mean <= e * mpmath.tanh(e / 2) * (1 + mpmath.mpf(10) ** -100) + mpmath.mpf(10) ** -100
    assert e * mpmath.tanh(e / 2) <= e**2 / 2


@given(st.lists(st.integers(1, 50), min_size=2, max_size=5), st.lists(st.integers(1, 50), min_size=2, max_size=5),
       st.fractions(min_value=F(11, 10), max_value=30, max_denominator=20), st.fractions(min_value=0, max_value=50))
def test_bun_steinke_mgf_bound_used_in_lemma9(pw, qw, w, lam):
    """eps-DP => E_P e^{lambda L} <= e^{lambda (lambda+1) eps^2/2} for lambda >= 0."""
    P, Q = clip_to_dp(pw, qw, w)
    if not is_dp_w(P, Q, w, F(0)):
        return
    e, ll = mpmath.log(q2m(w)), q2m(lam)
    mgf = sum(q2m(p) * (q2m(p) / q2m(Q[y])) ** ll for y, p in P.items())
    assert mpmath.log(mgf) <= ll * (ll + 1) * e**2 / 2 + mpmath.mpf(10) ** -90


def test_conditional_version_on_two_step_rr():
    """E(L_2 | A_1 = z) = eps_2(z) tanh(eps_2(z)/2) <= eps_2(z)^2/2 for each first output z (w(z) = e^{eps_2(z)} rational)."""
    w_of = {0: F(3), 1: F(3, 2)}
    for z, w in w_of.items():
        P, Q = rr_law_w(w, F(0), 1), rr_law_w(w, F(0), 0)
        mean = sum(q2m(p) * mpmath.log(q2m(p) / q2m(Q[y])) for y, p in P.items() if p)
        e = mpmath.log(q2m(w))
        assert abs(mean - e * mpmath.tanh(e / 2)) < mpmath.mpf(10) ** -100
        assert mean <= e**2 / 2


def test_lemma6_bad_inputs():
    with pytest.raises(ValueError, match="eps"):
        W.expected_loss_bound(-1)
