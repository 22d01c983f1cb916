"""whitehouse2023 (seed 001_019b6f2aef040984.txt, ICML 2023) Lemma 6: the exponential process of the approximate-zCDP filter is a supermartingale.

Statement (our words).  For a fixed order lam >= 1 and the pure parts P'_m, Q'_m of
the per-step decompositions, with

    M_n = sum_{m<=n} [ log(P'_m(A_m | F_{m-1}) / Q'_m(A_m | F_{m-1})) - lam rho_m ]   (9)
    X_n = exp((lam - 1) M_n),                                                        (10)

X is a nonnegative P'-supermartingale: E_{P'}[X_{t+1} | F_t] <= X_t, because the
one-step factor is E_{P'}[(P'/Q')^{lam-1}] exp(-lam(lam-1) rho_{t+1})
= exp((lam-1)(D_lam(P'||Q') - lam rho_{t+1})) <= 1.

New in whitehouse2023 (the whitehouse2022 proof of Theorem 7 used a product of
conditional expectations instead).  Checked on randomized response (closed form)
and the Gaussian mechanism (mpmath.quad, where the factor is exactly 1), on
adaptive RR by exact enumeration of E[X_{t+1} | F_t] on every history, with a
negative control (rho_m too small breaks the supermartingale).
"""
from __future__ import annotations

from fractions import Fraction as F

import mpmath
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from test_whitehouse2023_thm1 import KEEPS, q2m, rr_eps, rr_rho, rr_rho_exact

MP = mpmath.mpf


def one_step_factor_rr(p, rho, lam):
    """E_{P'}[(P'/Q')^{lam-1}] exp(-lam(lam-1) rho) for keep-probability-p RR (P' = (p, 1-p), Q' = (1-p, p))."""
    P, lam = q2m(p), MP(lam)
    m = P ** lam * (1 - P) ** (1 - lam) + (1 - P) ** lam * P ** (1 - lam)
    return m * mpmath.exp(-lam * (lam - 1) * rho)


@given(st.fractions(min_value=F(501, 1000), max_value=F(999, 1000), max_denominator=1000),
       st.decimals(min_value="1.0001", max_value="200", places=4).map(str))
@example(F(501, 1000), "1.0001")
@example(F(999, 1000), "200")
def test_one_step_factor_at_most_one_rr(p, lam):
    """E_{P'}[X_{t+1} | F_t] / X_t = E[(P'/Q')^{lam-1}] e^{-lam(lam-1) rho_{t+1}} <= 1 with rho = eps tanh(eps/2) (RR)."""
    # one-sided with 10^-90 of rounding room (110-digit test arithmetic); equality only in the limit lam -> 1
    assert one_step_factor_rr(p, rr_rho_exact(p), lam) <= 1 + MP(10) ** -90


@pytest.mark.parametrize("mu,lam", [("0.3", "1.5"), ("1", "2"), ("2", "3.5")])
def test_one_step_factor_gaussian_is_exactly_one(mu, lam):
    """Gaussian N(mu,1) vs N(0,1), rho = mu^2/2: the factor is exactly 1 (mpmath.quad), so X is a martingale there."""
    with mpmath.workdps(30):
        m, l = MP(mu), MP(lam)
        integ = mpmath.quad(lambda y: mpmath.npdf(y, m) ** l * mpmath.npdf(y, 0) ** (1 - l), [-mpmath.inf, m * l, mpmath.inf])
        factor = integ * mpmath.exp(-l * (l - 1) * m * m / 2)
        assert abs(factor - 1) <= MP(10) ** -20


def test_supermartingale_on_every_history_of_adaptive_rr():
    """E_{P'}[X_{t+1} | F_t] <= X_t on every history of an adaptive RR interaction (eps_{t+1} chosen from the path)."""
    import itertools
    lam = MP(3)
    with mpmath.workdps(50):
        for path in itertools.product((0, 1), repeat=6):
            p = KEEPS[(sum(path) * 7 + len(path)) % len(KEEPS)]    # parameter depends on the history
            r = q2m(rr_rho(p))
            # X_{t+1}/X_t = (P'/Q')^{lam-1} e^{-lam(lam-1) r}; average under P'
            ratio = MP(0)
            for y, w in ((1, q2m(p)), (0, 1 - q2m(p))):
                lr = rr_eps(p) if y == 1 else -rr_eps(p)
                ratio += w * mpmath.exp((lam - 1) * (lr - lam * r))
            assert ratio <= 1


def test_negative_control_rho_too_small_breaks_it():
    """With rho_m = eps^2/8 (a quarter of Lemma 1's value) the factor exceeds 1: the check is sensitive."""
    p = F(3, 4)
    assert one_step_factor_rr(p, rr_eps(p) ** 2 / 8, "1.5") > 1
