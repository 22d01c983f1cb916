"""Lemma 3 of whitehouse2022 (seed 000_8d85c89f0d15dfff.txt; arXiv version, Section 4, proof in Appendix D):
reduction to conditional randomized response.

Statement (our words): if A is (eps, delta)-DP conditioned on B (Definition 1), x_0, x_1 are neighbours, B'(b) = B(x_b)
and R is (eps, delta)-RR conditioned on B' (Definition 6), then there is a kernel nu(., r | z) with
P(A(x_b) in . | B'(b')) = E(nu(., R(b) | B'(b')) | B'(b')) for all b, b' (footnote 4's averaged measure).

The proof applies Lemma 7 separately on each event {B' = z}.  Second route: a two-stage mechanism whose second
stage has privacy parameters (eps(z), delta(z)) chosen from the first output z; for each z the kernel is found by
an exact rational LP (test_whitehouse2022_lem7.rr_kernel) and the identity is verified exactly, for both b'.
"""
from __future__ import annotations

from fractions import Fraction as F

from test_whitehouse2022_definitions import hockey_exact, is_dp_w, rr_law_w
from test_whitehouse2022_lem7 import rr_kernel, verify_kernel

# First stage B: any mechanism on {u, v}; second stage A | B = z: a 3-output pair, conditionally (log w(z), d(z))-DP.
B_LAW = {0: {"u": F(2, 3), "v": F(1, 3)}, 1: {"u": F(1, 2), "v": F(1, 2)}}
A_GIVEN = {"u": ({0: F(1, 2), 1: F(1, 4), 2: F(1, 4)}, {0: F(1, 4), 1: F(1, 2), 2: F(1, 4)}),
           "v": ({0: F(7, 10), 1: F(1, 5), 2: F(1, 10)}, {0: F(13, 20), 1: F(1, 5), 2: F(3, 20)})}
PARAMS = {"u": (F(2), F(0)), "v": (F(7, 6), F(1, 20))}


def test_conditional_parameters_make_A_conditionally_dp():
    """Definition 1 for the example: given z, A(x_0), A(x_1) are (eps(z), delta(z))-DP (exact, every event)."""
    for z, (P0, P1) in A_GIVEN.items():
        w, d = PARAMS[z]
        assert is_dp_w(P0, P1, w, d)
        assert max(hockey_exact(P0, P1, w), hockey_exact(P1, P0, w)) <= d


def test_conditional_kernel_exists_and_reproduces_both_conditional_laws():
    """For each z: P(A(x_b) in . | B'(b') = z) = sum_r P(R(b) = r | z) nu(., r | z) exactly, for b, b' in {0, 1}."""
    for z, (P0, P1) in A_GIVEN.items():
        w, d = PARAMS[z]
        nu = rr_kernel(P0, P1, w, d)
        assert nu is not None and verify_kernel(nu, P0, P1, w, d)
        for b_prime in (0, 1):  # the conditional law given B'(b') = z does not depend on b' (it is the same z)
            assert B_LAW[b_prime][z] > 0
            for b, Pb in ((0, P0), (1, P1)):
                law = rr_law_w(w, d, b)
                assert all(sum(law[r] * nu[r][y] for r in law) == Pb[y] for y in Pb)


def test_joint_law_is_reproduced_by_rr_post_processing():
    """Averaging over B: P((B(x_b), A(x_b)) = (z, y)) = P(B(x_b) = z) sum_r P(R(b) = r | z) nu(y, r | z) (exact)."""
    kernels = {z: rr_kernel(*A_GIVEN[z], *PARAMS[z]) for z in A_GIVEN}
    for b in (0, 1):
        for z in A_GIVEN:
            law = rr_law_w(*PARAMS[z], b)
            for y, p in A_GIVEN[z][b].items():
                assert B_LAW[b][z] * p == B_LAW[b][z] * sum(law[r] * kernels[z][r][y] for r in law)


def test_negative_control_too_small_conditional_eps_has_no_kernel():
    """With eps(u) lowered to log(3/2) (A | B = u is not (log 3/2, 0)-DP) no kernel exists for z = u."""
    assert rr_kernel(*A_GIVEN["u"], F(3, 2), F(0)) is None
