"""whitehouse2023 (seed 001_019b6f2aef040984.txt, ICML 2023) Appendix F: an algorithm that is (eps, delta)-DP but not (eps, delta)-pDP.

Claim (our words).  Let A be (eps, delta)-randomized response (Definition 7) and
B(b) = 1 if A(b) in {1, top}, else 0.  B is (eps, delta)-DP (post-processing), but
on {B(1) = 1}

    L_B(1, 0) = log(P(B(1)=1)/P(B(0)=1)) = log((delta + (1-delta) e^eps/(1+e^eps)) / ((1-delta)/(1+e^eps)))
              = log((delta + e^eps)/(1 - delta)) > eps,

and P(B(1) = 1) = (1-delta) e^eps/(1+e^eps) + delta > delta, so B is not (eps, delta)-pDP.

New in whitehouse2023 (no Appendix F in whitehouse2022).  Checked exactly with
rational w = e^eps (every inequality decided in Fractions) and against the
library's randomized-response law.
"""
from __future__ import annotations

from fractions import Fraction as F

import mpmath
from hypothesis import example, given
from hypothesis import strategies as st

from reference.bounds import whitehouse2023 as W

w_st = st.fractions(min_value=F(1001, 1000), max_value=1000, max_denominator=1000)   # w = e^eps > 1
d_st = st.fractions(min_value=F(1, 10**12), max_value=F(999, 1000), max_denominator=10**12)


def laws(w, d):
    """(eps, delta)-RR with e^eps = w: P(A(1) = .), P(A(0) = .)."""
    A1 = {1: (1 - d) * w / (1 + w), 0: (1 - d) / (1 + w), "T": d, "B": F(0)}
    A0 = {0: (1 - d) * w / (1 + w), 1: (1 - d) / (1 + w), "B": d, "T": F(0)}
    return A1, A0


@given(w_st, d_st)
@example(F(1001, 1000), F(1, 10**12))
@example(F(1000), F(999, 1000))
def test_post_processing_is_eps_delta_dp(w, d):
    """B is (eps, delta)-DP: for every event G of {0, 1}, P(B(b) in G) <= w P(B(1-b) in G) + delta (exact)."""
    A1, A0 = laws(w, d)
    B1 = {1: A1[1] + A1["T"], 0: A1[0] + A1["B"]}
    B0 = {1: A0[1] + A0["T"], 0: A0[0] + A0["B"]}
    for X, Y in ((B1, B0), (B0, B1)):
        for G in ((), (0,), (1,), (0, 1)):
            assert sum(X[g] for g in G) <= w * sum(Y[g] for g in G) + d


@given(w_st, d_st)
@example(F(1001, 1000), F(1, 10**12))
def test_loss_on_b_equals_one_is_printed_value_and_exceeds_eps(w, d):
    """P(B(1)=1)/P(B(0)=1) = (delta + e^eps)/(1 - delta) exactly, and this ratio exceeds e^eps."""
    A1, A0 = laws(w, d)
    ratio = (A1[1] + A1["T"]) / (A0[1] + A0["T"])
    assert ratio == (d + w) / (1 - d)
    assert ratio > w


@given(w_st, d_st)
def test_not_pdp(w, d):
    """P(|L_B| > eps) >= P(B(1) = 1) = (1-delta) e^eps/(1+e^eps) + delta > delta (exact)."""
    A1, _ = laws(w, d)
    pb1 = A1[1] + A1["T"]
    assert pb1 == (1 - d) * w / (1 + w) + d
    assert pb1 > d


def test_library_rr_law_matches():
    """The library's (eps, delta)-RR law gives the same P(B(1) = 1) (eps = 1, delta = 1/100; 40 digits)."""
    out = W.rr_output_distribution(1, "0.01", 1)
    with mpmath.workdps(60):
        e = mpmath.e
        expected = mpmath.mpf(99) / 100 * e / (1 + e) + mpmath.mpf(1) / 100
        assert abs(out[1] + out["top"] - expected) <= mpmath.mpf(10) ** -45
