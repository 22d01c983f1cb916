"""rogers2016 (seed 003_05a378efbd63455f.txt) Lemma 4.4 (quoted from Dwork-Rothblum 2016).

For the martingale (11), mu_i = E[Loss~_i | V~_{<i}] <= eps_i (e^{eps_i} - 1)/2: the mean privacy loss (a KL divergence)
of an (eps, 0)-DP step is at most eps (e^eps - 1)/2, a factor 2 below DRV10's eps (e^eps - 1).

Routes: KL(T(RR_eps(0)) || T(RR_eps(1))) for random post-processings T (every (eps, 0)-DP pair is one, Theorem 2.7),
at 110 digits; the exact maximum eps tanh(eps/2) of randomized response (whitehouse2023.rr_expected_loss); eps up to 1000.
"""
from __future__ import annotations

from fractions import Fraction as F

import mpmath
from hypothesis import example, given
from hypothesis import strategies as st

from reference.bounds import rogers2016 as R
from reference.bounds import whitehouse2023 as W

mp = lambda q: mpmath.mpf(q.numerator) / q.denominator


@given(st.fractions(0, 1000, max_denominator=1000), st.lists(st.integers(1, 9), min_size=2, max_size=4),
       st.lists(st.integers(0, 9), min_size=4, max_size=4))
@example(F(1000), [1, 1], [1, 0, 0, 0])
@example(F(0), [1, 1], [1, 2, 3, 4])
def test_kl_of_any_pure_dp_pair_is_at_most_the_bound(eps, top, bot):
    """Lemma 4.4: KL(P || Q) <= eps (e^eps - 1)/2 for P = T(RR_eps(0)), Q = T(RR_eps(1)), T random (110 digits)."""
    m = len(top)
    bot = bot[:m] if sum(bot[:m]) else [1] * m
    A = [mpmath.mpf(x) / sum(top) for x in top]
    B = [mpmath.mpf(x) / sum(bot) for x in bot]
    E = mp(eps)
    s, s1 = 1 / (1 + mpmath.exp(-E)), 1 / (1 + mpmath.exp(E))  # s1 = 1 - s without cancellation
    P = [s * a + s1 * b for a, b in zip(A, B)]
    Q = [s1 * a + s * b for a, b in zip(A, B)]
    kl = sum(p * mpmath.log(p / q) for p, q in zip(P, Q) if p > 0)
    bound = R.expected_loss_bound(eps)
    assert kl <= bound * (1 + mpmath.mpf(10) ** -100) + mpmath.mpf(10) ** -100
    assert kl <= E * mpmath.tanh(E / 2) * (1 + mpmath.mpf(10) ** -90) + mpmath.mpf(10) ** -100


@given(st.fractions(0, 1000, max_denominator=10**6))
@example(F(1, 10**6))
@example(F(1000))
def test_rr_attains_eps_tanh_and_the_chain_of_bounds(eps):
    """RR: mu = eps tanh(eps/2) <= eps^2/2 <= eps (e^eps - 1)/2 <= eps (e^eps - 1) (DRV10), library values rounded up."""
    E = mp(eps)
    mu = E * (1 / (1 + mpmath.exp(-E)) - 1 / (1 + mpmath.exp(E)))
    assert abs(W.rr_expected_loss(eps) - mu) <= mpmath.mpf(10) ** -45 * (mu + mpmath.mpf(10) ** -300)
    assert mu <= E * E / 2 * (1 + mpmath.mpf(10) ** -100)
    assert E * E / 2 <= E * mpmath.expm1(E) / 2 <= R.expected_loss_bound(eps) <= E * mpmath.expm1(E) / 2 * (1 + mpmath.mpf(10) ** -45)
