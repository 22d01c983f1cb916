"""rogers2016 (seed 003_05a378efbd63455f.txt) Lemma 4.1 (quoted from de la Pena, Klass, Lai 2004, Corollary 2.2).

If B > 0 and E[exp(lambda A - lambda^2 B^2/2)] <= 1 for all real lambda (8), then for delta <= 1/e and beta > 0,
    P[|A| >= sqrt((B^2 + beta)(2 + log(B^2/beta + 1)) log(1/delta))] <= delta.
Remark: with B constant and beta = B^2 the radius is B sqrt(2 (2 + log 2) log(1/delta)) = O(B sqrt(log(1/delta))).

Routes: (a) A ~ N(0, B^2) satisfies (8) with equality: the exact tail erfc(r/(B sqrt 2)) at 110 digits; (b) a
self-normalized process with RANDOM B: A = sum_i eps_i xi_i (Rademacher xi_i, eps_i chosen from the past), B^2 = sum eps_i^2
satisfies (8) since cosh(x) <= e^{x^2/2}; the tail probability by exact enumeration of all paths with a conservative
threshold (radius minus 1e-20 at 30 digits).  Also the derivation: e^{-x^2/2} at x^2 = 2 log(1/delta) is delta, and x >= sqrt 2 iff delta <= 1/e.
"""
from __future__ import annotations

import itertools
from fractions import Fraction as F

import mpmath
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from reference.bounds import rogers2016 as R

mp = lambda q: mpmath.mpf(q.numerator) / q.denominator


def radius(B2, beta, d):
    return mpmath.sqrt((B2 + beta) * (2 + mpmath.log(B2 / beta + 1)) * mpmath.log(1 / d))


@given(st.sampled_from([F(1, 10**6), F(1, 10), F(1), F(100), F(10**6)]), st.sampled_from([F(1, 10**6), F(1, 10), F(1), F(50)]),
       st.sampled_from([F(1, 10**300), F(1, 10**9), F(1, 10), F(36, 100)]))
@example(F(10**6), F(1, 10**6), F(1, 10**300))
def test_gaussian_case_and_library_formula(B2, beta, d):
    """Lemma 4.1 for A ~ N(0, B^2) (condition (8) with equality): P[|A| >= r] = erfc(r/(B sqrt 2)) <= delta;
    the library radius (rounded up) is >= the 110-digit naive radius and within 1e-45 relative."""
    r = radius(mp(B2), mp(beta), mp(d))
    lib = R.self_normalized_bound(B2, beta, d)
    assert r <= lib <= r * (1 + mpmath.mpf(10) ** -45)
    assert mpmath.erfc(r / mpmath.sqrt(2 * mp(B2))) <= mp(d)


def _paths(k, rule):
    """All +-1 paths of a Rademacher walk with eps_i = rule(previous signs): (A, B^2, probability 2^-k)."""
    for xs in itertools.product((1, -1), repeat=k):
        A, B2 = F(0), F(0)
        for i, x in enumerate(xs):
            e = rule(xs[:i])
            A += e * x
            B2 += e * e
        yield A, B2


RULES = {
    "constant": lambda prev: F(1, 2),
    "grow-after-up": lambda prev: F(1) if prev and prev[-1] == 1 else F(1, 4),
    "stop-when-ahead": lambda prev: F(0) if sum(prev) >= 2 else F(1, 2),
}


@pytest.mark.parametrize("name", sorted(RULES))
@pytest.mark.parametrize("beta", [F(1, 10), F(1), F(4)])
@pytest.mark.parametrize("d", [F(1, 3), F(1, 10)])
def test_self_normalized_process_with_random_B(name, beta, d):
    """Lemma 4.1 with random B^2 = sum eps_i^2: P[|A| >= r(B^2)] <= delta, by exact enumeration of 2^10 paths
    (30 digits, conservative: a path counts if |A| >= r - 1e-20)."""
    k = 10
    with mpmath.workdps(30):
        bad = sum(1 for A, B2 in _paths(k, RULES[name]) if B2 > 0 and mp(abs(A)) >= radius(mp(B2), mp(beta), mp(d)) - mpmath.mpf(10) ** -20)
    assert F(bad, 2**k) <= d


def test_condition_8_for_rademacher_steps():
    """(8) for one Rademacher step of size e: E[exp(lam e xi - lam^2 e^2/2)] = cosh(lam e) e^{-lam^2 e^2/2} <= 1."""
    for x in (mpmath.mpf(10) ** -8, mpmath.mpf(1) / 3, 1, 5, 40):
        assert mpmath.cosh(x) * mpmath.exp(-x * x / 2) <= 1


@given(st.sampled_from([F(1, 100), F(1), F(10**4)]), st.sampled_from([F(1, 10**300), F(1, 10**6), F(1, 3)]))
def test_remark_beta_equal_B2(B2, d):
    """Remark after Lemma 4.1: beta = B^2 gives radius B sqrt(2 (2 + log 2) log(1/delta)) (library, 1e-45 relative)."""
    want = mpmath.sqrt(mp(B2) * 2 * (2 + mpmath.log(2)) * mpmath.log(1 / mp(d)))
    lib = R.self_normalized_bound(B2, B2, d)
    assert want <= lib <= want * (1 + mpmath.mpf(10) ** -45)


def test_delta_domain_is_enforced():
    """delta <= 1/e (x >= sqrt 2 in de la Pena et al.) is decided exactly; 0.36788 > 1/e is refused."""
    R.self_normalized_bound(1, 1, "0.36787")
    with pytest.raises(ValueError, match="delta"):
        R.self_normalized_bound(1, 1, "0.36788")
    x2 = 2 * mpmath.log(mpmath.e)
    assert abs(mpmath.exp(-x2 / 2) - 1 / mpmath.e) < mpmath.mpf(10) ** -100 and x2 >= 2
