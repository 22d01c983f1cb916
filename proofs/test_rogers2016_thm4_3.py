"""rogers2016 (seed 003_05a378efbd63455f.txt) Theorem 4.3 (Lemma 4.1 + Lemma 4.2).

For the martingale (9) with predictable ranges (Lemma 4.2), every fixed k >= 1, beta > 0 and delta <= 1/e,
    P[|M_k| >= sqrt((U_k^2/4 + beta)(2 + log(U_k^2/(4 beta) + 1)) log(1/delta))] <= delta.

Routes: the identity with Lemma 4.1 at B^2 = U_k^2/4 (the symbolic derivation ``symbolic:rogers2016.theorem4_3`` and the
library); the privacy-loss martingale (11) of adaptive RR by exact enumeration of all paths (30 digits, conservative threshold: a path counts if |M_k| >= radius - 1e-20);
the homogeneous case at k up to 2000 through the exact binomial law.  Negative control: a radius without the log
factor and with beta -> 0 (i.e. sqrt(2 (U^2/4) log(1/delta)) times 0.6) is exceeded with probability > delta.
"""
from __future__ import annotations

import itertools
from fractions import Fraction as F

import mpmath
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

import symbolic.rogers2016 as S
from reference.bounds import rogers2016 as R

mp = lambda q: mpmath.mpf(q.numerator) / q.denominator


def radius(U2, beta, d):
    return mpmath.sqrt((U2 / 4 + beta) * (2 + mpmath.log(U2 / (4 * beta) + 1)) * mpmath.log(1 / d))


@given(st.sampled_from([F(0), F(1, 10**6), F(4), F(10**6)]), st.sampled_from([F(1, 10**6), F(1), F(30)]),
       st.sampled_from([F(1, 10**300), F(1, 1000), F(1, 3)]))
@example(F(10**6), F(1, 10**6), F(1, 10**300))
def test_theorem4_3_is_lemma4_1_at_B2_quarter_U2(U2, beta, d):
    """Theorem 4.3 radius = Lemma 4.1 radius at B^2 = U^2/4 (library both ways, and the SymPy derivation evaluated)."""
    a = R.martingale_bound(U2, beta, d)
    b = R.self_normalized_bound(U2 / 4, beta, d)
    assert abs(a - b) <= mpmath.mpf(10) ** -45 * a
    expr = S.theorem4_3().result
    val = expr.subs({S.U2: U2, S.beta: beta, S.delta: d}).evalf(60)
    assert abs(mpmath.mpf(str(val)) - radius(mp(U2), mp(beta), mp(d))) <= mpmath.mpf(10) ** -50 * (1 + radius(mp(U2), mp(beta), mp(d)))


def _tail(k, rule, beta, d, shrink=1):
    """P[|M_k| >= shrink * radius(U_k^2)] for adaptive RR (eps_i = rule(#tops so far)), all 2^k paths, conservative."""
    with mpmath.workdps(30):
        return _tail30(k, rule, beta, d, shrink)


def _tail30(k, rule, beta, d, shrink):
    tot = mpmath.mpf(0)
    for xs in itertools.product((1, -1), repeat=k):
        p, M, U2, tops = mpmath.mpf(1), mpmath.mpf(0), mpmath.mpf(0), 0
        for x in xs:
            e = mp(rule(tops))
            s = 1 / (1 + mpmath.exp(-e))
            p *= s if x == 1 else 1 - s
            M += x * e - e * (2 * s - 1)
            U2 += 4 * e * e
            tops += x == 1
        if U2 and abs(M) >= shrink * radius(U2, mp(beta), mp(d)) - mpmath.mpf(10) ** -20:
            tot += p
    return tot


@pytest.mark.parametrize("beta", [F(1, 20), F(1)])
@pytest.mark.parametrize("d", [F(1, 3), F(1, 20)])
def test_privacy_loss_martingale_tail_exact(beta, d):
    """Theorem 4.3 on the martingale (11): eps_i = 1/2 or 1 depending on the number of tops; P <= delta (10 rounds, all paths)."""
    rule = lambda tops: F(1) if tops % 2 else F(1, 2)
    assert _tail(10, rule, beta, d) <= mp(d)


@pytest.mark.parametrize("k", [50, 500, 2000])
def test_homogeneous_long_horizon_binomial(k):
    """Theorem 4.3 for k rounds of RR_eps (eps = 1/sqrt k): the exact binomial tail of |M_k| is <= delta = 1/1000."""
    e = 1 / mpmath.sqrt(k)
    s = 1 / (1 + mpmath.exp(-e))
    mu = e * (2 * s - 1)
    U2 = 4 * k * e * e
    r = radius(U2, mpmath.mpf(1) / 10, mpmath.mpf(1) / 1000) - mpmath.mpf(10) ** -90
    tail = mpmath.mpf(0)
    for j in range(k + 1):  # j tops: M = (2j - k) e - k mu
        M = (2 * j - k) * e - k * mu
        if abs(M) >= r:
            tail += mpmath.binomial(k, j) * s**j * (1 - s) ** (k - j)
    assert tail <= mpmath.mpf(1) / 1000


def test_negative_control_shrunk_radius_is_caught():
    """A radius shrunk by 0.3 is exceeded with probability > delta = 1/3 on the same martingale."""
    rule = lambda tops: F(1, 2)
    assert _tail(10, rule, F(1), F(1, 3), shrink=mpmath.mpf(3) / 10) > mpmath.mpf(1) / 3
