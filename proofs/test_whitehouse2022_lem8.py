"""Lemma 8 of whitehouse2022 (seed 000_8d85c89f0d15dfff.txt; arXiv version, Appendix D).

Statement (our words): if A is (eps, delta)-pDP conditioned on B and A' is a randomized post-processing of (A, B)
(eq. (7): P(A'(x) in . | A(x') = y, B(x') = z) = mu(., y | z) for all x, x'), then the pair (A, A') is
(eps, delta)-pDP conditioned on B; the joint loss equals the loss of A.  The text adds that A' alone need not be
(eps, delta)-pDP (no contradiction with Lemma 1).

Second route: exact rational joint laws for A = (log w, delta)-RR and a random kernel mu, for both inputs.
"""
from __future__ import annotations

from fractions import Fraction as F

from hypothesis import given, strategies as st

from test_whitehouse2022_definitions import pdp_mass_w, rr_law_w

RR_OUT = (0, 1, "top", "bot")


def kernel_from(ints):
    """A random post-processing kernel mu(s | r) on 3 outputs, rational."""
    mu = {}
    for i, r in enumerate(RR_OUT):
        row = ints[3 * i: 3 * i + 3]
        mu[r] = {s: F(row[s], sum(row)) for s in range(3)}
    return mu


def joint(w, d, b, mu):
    return {(r, s): p * mu[r][s] for r, p in rr_law_w(w, d, b).items() for s in range(3)}


@given(st.fractions(min_value=1, max_value=20, max_denominator=10), st.fractions(min_value=0, max_value=F(1, 2), max_denominator=1000),
       st.lists(st.integers(1, 9), min_size=12, max_size=12))
def test_joint_release_keeps_the_pdp_parameters(w, d, ints):
    """P(|L_{(A, A')}| > eps) = P(|L_A| > eps) <= delta; the joint likelihood ratio equals A's on every outcome (exact)."""
    mu = kernel_from(ints)
    for b in (0, 1):
        P, Q = joint(w, d, b, mu), joint(w, d, 1 - b, mu)
        PA, QA = rr_law_w(w, d, b), rr_law_w(w, d, 1 - b)
        for (r, s), p in P.items():
            if p and Q[(r, s)]:
                assert p / Q[(r, s)] == PA[r] / QA[r]
        assert pdp_mass_w(P, Q, w) == pdp_mass_w(PA, QA, w) <= d


def test_post_processing_alone_can_break_pdp():
    """Merging bot with output 0 (a post-processing of RR) gives |L| > eps w.p. delta + (1-delta) w/(1+w) > delta."""
    w, d = F(3), F(1, 10)
    merge = {0: "m", "bot": "m", 1: 1, "top": "t"}
    P, Q = {}, {}
    for out, law in ((P, rr_law_w(w, d, 0)), (Q, rr_law_w(w, d, 1))):
        for r, p in law.items():
            out[merge[r]] = out.get(merge[r], F(0)) + p
    assert pdp_mass_w(P, Q, w) == d + (1 - d) * w / (1 + w) > d
