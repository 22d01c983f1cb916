"""Errata of Whitehouse, Ramdas, Rogers, Wu (whitehouse2022, arXiv version; seed 000_8d85c89f0d15dfff.txt) found by
the proof-tests, one check per entry (the W22-* checks already in proofs/test_errata.py are not repeated here).

Each function returns True when the disagreement between the printed text and what holds is demonstrated, by exact
enumeration (Fraction losses, 110-digit probabilities) or by reading the seed.  ``proofs/test_errata.py`` merges
:data:`CHECKS`.
"""
from __future__ import annotations

import functools
from fractions import Fraction as F

import mpmath



def _at110(fn):
    @functools.wraps(fn)
    def wrapped():
        with mpmath.workdps(110):
            return fn()
    return wrapped


@_at110
def check_lemma2_conditioning():
    """Proof of Lemma 2: 'P(A and not B) <= P(A | not B) <= delta''.  An adaptive (eps_n, delta_n)-RR adversary with
    eps = 1/2, delta' = 3/10, delta'' = 69/100 (delta = 0.99) has P(A | not B) = 0.3798 > delta', while
    P(A and not B) <= delta' and P(A) <= delta' + delta'' (the lemma) hold."""
    from test_whitehouse2022_lem2 import conditioning_counterexample

    a_nb, not_b, a = conditioning_counterexample()
    dp = mpmath.mpf(3) / 10
    return a_nb / not_b > dp and a_nb <= dp and a <= mpmath.mpf(99) / 100


@_at110
def check_thm7_eq13():
    """Proof of Theorem 7, eqs. (11)-(13): D_lambda(prod P'_n || prod Q'_n) = sum_{n<=N(x)} D_lambda(P'_n || Q'_n) equates
    a number with a path-dependent sum.  Two adaptive RR steps (eps_2 = 2 after an up, 1/2 after a down), lambda = 3:
    the left side lies strictly between the two paths' right sides."""
    from test_whitehouse2022_thm7 import eq13_two_step

    lhs, rhs = eq13_two_step()
    return rhs["down"] < lhs < rhs["up"]


def check_fact5_label():
    """Section 5 cites 'Ville's inequality (Fact 5)'; the seed has no Fact 5: Ville's inequality is Lemma 5."""
    from seedtext import probe

    return probe("w22_ville_cited_as_fact5") == 1 and probe("w22_lemma5_is_ville") == 1 and probe("w22_fact5") == 1


@_at110
def check_intro_rate():
    """Section 1: 'all privacy parameters the same and small, roughly eps = O(sqrt(n eps_m))'.  Eq. (2) gives
    eps / (sqrt(n) eps_m) -> sqrt(2 log(1/delta')) while eps / sqrt(n eps_m) -> 0 as eps_m -> 0: the rate is sqrt(n) eps_m."""
    n, L = 10**4, mpmath.log(10**6)
    eq2 = lambda e: mpmath.sqrt(2 * L * n) * e + n * e * mpmath.tanh(e / 2)
    e_small, e_big = mpmath.mpf(10) ** -9, mpmath.mpf(10) ** -3
    right_rate = abs(eq2(e_small) / (mpmath.sqrt(n) * e_small) - mpmath.sqrt(2 * L)) < mpmath.mpf(10) ** -3
    printed_ratio_small = eq2(e_small) / mpmath.sqrt(n * e_small)
    printed_ratio_big = eq2(e_big) / mpmath.sqrt(n * e_big)
    return right_rate and printed_ratio_small < printed_ratio_big / 100


def check_def5_arity():
    """Def. 5 types u_n on (eps_{1:n-1}, delta_{1:n-1}) and names the bound U-bar_n, but Theorem 2 (and the proof)
    evaluate u_n(eps_{1:n}, delta_{1:n}) =: U_n: two histories equal up to n-1 with different eps_n get different bounds."""
    from reference.accountants.whitehouse2023 import Odometer

    a, b = Odometer("1e-6", rho=1), Odometer("1e-6", rho=1)
    for o, last in ((a, F(1, 10)), (b, F(1, 2))):
        o.record(F(1, 10))
        o.record(last)
    from seedtext import probe

    printed_arity = probe("w22_def5_arity_n_minus_1") >= 1
    return printed_arity and a.bounds()["mixture"] != b.bounds()["mixture"]


CHECKS = {
    "W22-LEM2-PROOF-CONDITIONING": check_lemma2_conditioning,
    "W22-THM7-PROOF-EQ13": check_thm7_eq13,
    "W22-FACT5-LABEL": check_fact5_label,
    "W22-INTRO-RATE": check_intro_rate,
    "W22-DEF5-ARITY": check_def5_arity,
}
