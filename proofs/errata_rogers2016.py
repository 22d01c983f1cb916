"""Errata of Rogers, Roth, Ullman, Vadhan (rogers2016, seed 003_05a378efbd63455f.txt): one exact check per entry.

Each function returns True when the disagreement between the printed text and what is
true / what the proof yields is demonstrated (exact rationals, exact comparisons with e^q,
or interval-certified values).  ``proofs/test_errata.py`` merges :data:`CHECKS`.
"""
from __future__ import annotations

import itertools
import math
from fractions import Fraction as F

import mpmath

from reference.bounds import rogers2016 as R
from reference.simulate import rogers2016_games as G
from reference.bounds import whitehouse2023 as W
from reference.precision import compare_exp_rational, mpf_to_fraction


def _q(x) -> F:
    return mpf_to_fraction(x)


def _at100(fn):
    """Run a check with test-side mpmath arithmetic at 100 digits (the library never reads the global precision)."""
    import functools

    @functools.wraps(fn)
    def wrapped():
        with mpmath.workdps(100):
            return fn()

    return wrapped


@_at100
def check_lemma2_3_pdp():
    """Lemma 2.3, second claim: an exact (1/10, 1/1000)-DP pair whose point-wise bad mass at 2 eps is 1/100 > 2 delta/e^eps.

    P = (1/100, 99/100), Q = (51/6250, 6199/6250).  DP (both directions, every event) is decided exactly by
    :func:`reference.bounds.rogers2016.is_dp`; the binding event is A: 1/100 <= e^{1/10} * 51/6250 + 1/1000 = 0.010018...
    L(A) = log(625/510) > 2 eps = 1/5 since e^{1/5} = 1.2214 < 625/510 = 1.2255.  So the point-wise bad mass at
    2 eps is 1/100, above the printed 2 e^{-1/10}/1000 = 0.00181 and below the corrected
    delta (e^{2 eps} + 1)/(e^eps (e^eps - 1)) = 0.01000...
    """
    e, d = F(1, 10), F(1, 1000)
    P = {"A": F(1, 100), "B": F(99, 100)}
    Q = {"A": F(51, 6250), "B": F(6199, 6250)}
    assert R.is_dp(P, Q, e, d)
    assert compare_exp_rational(2 * e, P["A"] / Q["A"]) < 0  # L(A) > 2 eps
    bad = R.pointwise_bad_mass(P, Q, 2 * e)
    return bad == F(1, 100) and bad > _q(R.dp_to_pdp_delta_as_printed(e, d)) and bad <= _q(R.dp_to_pdp_delta(e, d))


@_at100
def check_thm3_6_delta():
    """Theorem 3.6 (filter): the printed threshold delta'_g is not a parameter of COMP_{eps_g, delta_g}; it must be delta_g.

    Read with a free delta'_g = 3 delta_g (eps_g = 1, delta_g = 3/100), one round of RR_{1/2, 1/20} is admitted and
    P[|Loss| > eps_g] = 1/20 > delta_g (exact enumeration); with delta'_g = delta_g the round is refused.
    """
    eg, dg = F(1), F(3, 100)
    adv = G.FixedScheduleAdversary([(F(1, 2), F(1, 20))])
    printed = G.enumerate_views(adv, 1, 0, lambda e, d: R.basic_filter_as_printed(e, d, eg, dg, 3 * dg))
    lo, _ = G.probability(printed, lambda p: p.loss == math.inf or abs(p.loss) > eg)
    corrected = G.enumerate_views(adv, 1, 0, lambda e, d: R.basic_filter(e, d, eg, dg))
    _, hi = G.probability(corrected, lambda p: p.loss == math.inf or abs(p.loss) > eg)
    return _q(lo) > dg and _q(hi) <= dg


@_at100
def check_eq12_log():
    """Eq. (12): Theorem 4.3 at delta = delta_g/2 puts log(2/delta_g) inside the square root; the print has it outside.

    (a) At eps_i = 1/10 (x 10 rounds), eps_g = 1, delta_g = 1e-6: Theorem 4.3 (U^2 = 4V, beta = eps_g^2/(28.04 L),
    delta = delta_g/2) plus sum eps(e^eps - 1)/2 equals the derived K, and the printed K's square-root part is the
    derived one times sqrt(log(2/delta_g)) = 3.809...  (b) Scaling: the printed K at the EMPTY history is
    eps_g sqrt(2/(28.04 L)) log(2/delta_g), which exceeds eps_g whenever 2 log(2/delta_g)^2 > 28.04 log(1/delta_g),
    e.g. at delta_g = 1e-6 for every eps_g: the printed filter halts before round 1, contradicting the remark that
    it matches Theorem 2.10's eps sqrt(8 k log(1/delta_g)) asymptotically.
    """
    es, eg, dg = [F(1, 10)] * 10, F(1), F(1, 10**6)
    V = sum(x * x for x in es)
    L = mpmath.log(10**6)
    beta = _q(mpmath.mpf(1) / (mpmath.mpf(2804) / 100 * L))  # an exact rational within 1e-100 of eps_g^2/(28.04 L)
    M = sum(R.expected_loss_bound(x, dps=80) for x in es)
    K = R.advanced_filter_K(es, eg, dg, dps=60)
    Kp = R.advanced_filter_K_as_printed(es, eg, dg, dps=60)
    via_thm4_3 = M + R.martingale_bound(4 * V, beta, dg / 2, dps=60)
    a = abs(K - via_thm4_3) < mpmath.mpf(10) ** -40 * K
    ratio = (Kp - M) / (K - M)
    b = abs(ratio - mpmath.sqrt(mpmath.log(2 * 10**6))) < mpmath.mpf(10) ** -40 and ratio > 3
    c = all(R.advanced_filter_as_printed([0], [0], x, dg) == R.HALT and R.advanced_filter([0], [0], x, dg) == R.CONT
            for x in (F(1, 100), F(1), F(100)))
    return a and b and c


@_at100
def check_thm5_1_half():
    """Theorem 5.1: statement has sum eps_j (e^eps_j - 1)/2, the proof's last line sum eps_i (e^eps_i - 1).

    Lemma 4.4 gives mu_i <= eps_i (e^eps_i - 1)/2, so the statement is what the proof yields; the last line is a
    factor 2 looser.  At eps = 1/2: 0.1621... vs 0.3243..., and the exact maximal mean (RR, eps tanh(eps/2) = 0.1224...)
    is below both.
    """
    e = F(1, 2)
    stmt = R.expected_loss_bound(e, dps=60)
    proof_line = 2 * stmt
    exact = W.rr_expected_loss(e, dps=60)
    return exact <= stmt < proof_line and abs(proof_line - stmt) > mpmath.mpf("0.16")


@_at100
def check_thm6_5_union():
    """Theorem 6.5: the union bound over D_n does not give log(4 log2(n)/delta_g) unless n is a power of 2.

    The proof needs, for every V in [1/n^2, 1], a beta in the grid with V/2 <= beta <= V, so the grid needs
    m >= ceil(log2 n^2) points (each point covers [beta, 2 beta], the first must be 1/n^2); the printed
    D_n = {1/n^2, ..., 1/2, 1} has one more.  Theorem 4.3 is applied at delta_g/(2 log2 n^2) per point
    (that is what log(2 log2(n^2)/delta_g) = log(4 log2(n)/delta_g) means), so the failure probability is
    m delta_g/(2 log2 n^2) > delta_g/2.  n = 3: m = 4 (three doubling intervals from 1/9 reach only 8/9 < 1)
    and 4/(2 log2 9) = 0.631 > 1/2.  n = 4 with the printed D_n: 5 points, 5/8 > 1/2.  The corrected odometer
    uses log(2 m/delta_g) and differs from the printed one at n = 3 but not at n = 4 (power of 2, grid without 1).
    """
    n = 3
    grid = R.beta_grid(F(1, n * n))
    three_fail = F(1, 9) * 2**3 < 1  # 3 points cover at most [1/9, 8/9]
    m = len(grid)
    over = 2**m > n * n and 2 ** (m - 1) < n * n  # m/(2 log2 n^2) > 1/2 <=> 2^m > n^2; and the grid is minimal
    printed_Dn_4 = [F(2**j, 16) for j in range(5)]  # {1/16, 1/8, 1/4, 1/2, 1}
    over4 = len(printed_Dn_4) > 4  # log2(16) = 4 points budgeted
    es, z = ["0.1"] * 10, [0] * 10
    diff3 = R.advanced_odometer(es, z, "1e-6", 3) > R.advanced_odometer_as_printed(es, z, "1e-6", 3)
    same4 = R.advanced_odometer(es, z, "1e-6", 4) == R.advanced_odometer_as_printed(es, z, "1e-6", 4)
    return three_fail and m == 4 and over and over4 and diff3 and same4


@_at100
def check_thm6_5_proof_sum():
    """Theorem 6.5 proof: the displays bound |M_k| by sum_{j=1}^k sqrt(...) (k identical terms), not by sqrt(...).

    With eps_i = 1/10 for k = 10 rounds (V = 1/10, n = 100, delta_g = 1e-6) the display is 10 times the square-root
    term of eq. (17); the statement (17) has one term, which is what Lemma 6.4 at the grid beta yields.
    """
    es, z = ["0.1"] * 10, [0] * 10
    M = sum(R.expected_loss_bound("0.1", dps=60) for _ in es)
    sq = R.advanced_odometer_as_printed(es, z, "1e-6", 100, dps=60) - M
    display = 10 * sq
    # the one-term statement is what Lemma 6.4 yields at the grid beta = 1/16 <= V = 1/10 (ratio 1.6 <= 2)
    d_union = _q(mpmath.mpf(10) ** -6 / (2 * mpmath.log(100) / mpmath.log(2)))
    lem = R.lemma6_4_odometer(es, z, d_union, F(1, 16), dps=60) - M
    return sq >= lem * (1 - mpmath.mpf(10) ** -40) and display > 9 * sq > 0


@_at100
def check_alg5_ej():
    """Algorithm 5: the printed compensator eps (e^j - 1)/(e^j + 1) depends on the round index j.

    The proof of Theorem 6.1 needs sum_j (X_j - mu_n/n) = M_t/n, i.e. the compensator eps tanh(eps/2) = E[X_j].
    With e^j: E[X_1 - eps tanh(1/2)] = eps (tanh(eps/2) - tanh(1/2)) < 0 at eps = 1/10, so the printed sum is not
    the martingale of eq. (15).  (The test also writes sqrt(t ...) for round i.)
    """
    e = mpmath.mpf(1) / 10
    drift = e * (mpmath.tanh(e / 2) - mpmath.tanh(mpmath.mpf(1) / 2))
    exact_mean = W.rr_expected_loss(F(1, 10), dps=40)
    return drift < -mpmath.mpf("0.04") and abs(exact_mean - e * mpmath.tanh(e / 2)) < mpmath.mpf(10) ** -30


@_at100
def check_lemma6_3_proof_eq():
    """Lemma 6.3 proof: "P[exists j: A_j] = sum_j P[A_j | no A_l, l < j]" is false (only <= holds), so it gives no lower bound.

    Symmetric walk (gamma = 1/2), checkpoints t = 2, 4, A_1 = {M_2 >= 2}, A_2 = {M_4 >= 2}: by exact enumeration of the
    16 paths P[A_1 or A_2] = 3/8 while P[A_1] + P[A_2 | not A_1] = 1/4 + 1/6 = 5/12.
    """
    paths = list(itertools.product((1, -1), repeat=4))
    pr = F(1, 16)
    A1 = {p for p in paths if sum(p[:2]) >= 2}
    A2 = {p for p in paths if sum(p) >= 2}
    union = pr * len(A1 | A2)
    notA1 = [p for p in paths if p not in A1]
    cond = F(sum(1 for p in notA1 if p in A2), len(notA1))
    return union == F(3, 8) and pr * len(A1) + cond == F(5, 12) and union < pr * len(A1) + cond


@_at100
def check_sec6_tv_remark():
    """Section 6 remark before Theorem 6.5: "eps_i < 1/(10 n) ... statistical distance at most e^{eps_i n} - 1 < 0.1" is false.

    At eps_i n = 999/10000 < 1/10: e^{0.0999} > 11/10 (exact comparison), so e^{eps_i n} - 1 > 0.1; the supremum over
    eps_i < 1/(10n) is e^{1/10} - 1 = 0.10517.  The conclusion survives: the exact worst statistical distance of an
    (n eps_i)-DP pair is tanh(n eps_i/2) < 0.05.
    """
    fails = compare_exp_rational(F(999, 10000), F(11, 10)) > 0
    sup = mpmath.expm1(mpmath.mpf(1) / 10)
    tv = mpmath.tanh(mpmath.mpf(1) / 20)
    return fails and sup > mpmath.mpf("0.105") and tv < mpmath.mpf("0.05")


@_at100
def check_thm6_1_sigma():
    """Proof of Theorem 6.1: "sigma_n = 1 - mu_n^2" where eq. (14)-(15) define sigma^2 = 1 - mu^2.

    For every n, 0 < mu_n = tanh(1/(2n)) < 1, so 1 - mu_n^2 lies in (0, 1) and differs from its square root: at n = 1,
    sqrt(1 - tanh(1/2)^2) = 0.8868... while 1 - tanh(1/2)^2 = 0.7864...  Both are 1 - O(1/n^2), so the proof is unaffected.
    """
    mu = mpmath.tanh(mpmath.mpf(1) / 2)
    s2 = 1 - mu * mu
    ok_n = all(0 < 1 - mpmath.tanh(mpmath.mpf(1) / (2 * n)) ** 2 < 1 for n in (1, 10, 10**6))
    return abs(mpmath.sqrt(s2) - s2) > mpmath.mpf("0.1") and ok_n


def check_lemma3_5_loss():
    """One (0, 1/10)-DP round (x^0 -> a; x^1 -> a w.p. 9/10, b w.p. 1/10): every Lemma 3.5 odometer says COMP <= 0.033 but
    |Loss| = log(10/9) with probability one; the shipped odometers refuse delta_i > 0; the DP conclusion (hockey-stick) holds."""
    from reference.accountants import BasicOdometer
    P, Q = {"a": F(1)}, {"a": F(9, 10), "b": F(1, 10)}
    assert R.is_dp(P, Q, 0, F(1, 10))                         # exactly (0, 1/10)-DP
    loss = F(10, 9)                                           # the likelihood ratio under x^0, with probability 1
    basic = _q(R.basic_odometer([0], [F(1, 10)], F(1, 5), lemma3_5_as_printed=True))    # = 0
    adv = _q(R.advanced_odometer([0], [F(1, 10)], F(1, 5), 200, lemma3_5_as_printed=True))
    crossed = compare_exp_rational(basic, loss) < 0 and compare_exp_rational(adv, loss) < 0
    refused = []
    for shipped in (lambda: BasicOdometer(F(1, 5)).record(0, F(1, 10)), lambda: R.basic_odometer([0], [F(1, 10)], F(1, 5)),
                    lambda: R.advanced_odometer([0], [F(1, 10)], F(1, 5), 200),
                    lambda: R.lemma6_4_odometer([0], [F(1, 10)], F(1, 5), F(1, 100))):
        try:
            shipped()
            refused.append(False)
        except ValueError as exc:
            refused.append("R16-LEM3-5-LOSS" in str(exc))
    refused = all(refused)
    # DP conclusion: sum (P - e^0 Q)_+ = 1 - 9/10 = 1/10 <= delta
    hockey = sum(max(F(0), P.get(k, F(0)) - Q.get(k, F(0))) for k in ("a", "b"))
    return crossed and refused and hockey == F(1, 10) and 1 > F(1, 5) + F(1, 10)


CHECKS = {
    "R16-LEM3-5-LOSS": check_lemma3_5_loss,
    "R16-LEM2-3-PDP": check_lemma2_3_pdp,
    "R16-THM3-6-DELTA": check_thm3_6_delta,
    "R16-EQ12-LOG": check_eq12_log,
    "R16-THM5-1-HALF": check_thm5_1_half,
    "R16-THM6-5-UNION": check_thm6_5_union,
    "R16-THM6-5-PROOF-SUM": check_thm6_5_proof_sum,
    "R16-ALG5-EJ": check_alg5_ej,
    "R16-LEM6-3-PROOF-EQ": check_lemma6_3_proof_eq,
    "R16-SEC6-TV-REMARK": check_sec6_tv_remark,
    "R16-THM6-1-SIGMA": check_thm6_1_sigma,
}
