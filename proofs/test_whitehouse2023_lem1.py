"""whitehouse2023 (seed 001_019b6f2aef040984.txt, ICML 2023) Lemma 1 (quoted from Bun and Steinke 2016): DP <-> approximate zCDP.

Statement (our words).
(a) If A is (eps, delta)-DP then A is delta-approximate (eps^2/2)-zCDP: a mixture
    decomposition A(x) = (1-delta) P' + delta P'', A(x') = (1-delta) Q' + delta Q''
    exists with D_lam(P' || Q'), D_lam(Q' || P') <= (eps^2/2) lam for every lam >= 1.
(b) If A is delta-approximate rho-zCDP then for every delta' in (0, 1) A is
        (rho + 2 sqrt(rho log(1/delta')),  delta + (1 - delta) delta')-DP.
    The epsilon is min_{alpha > 1} [rho alpha + log(1/delta')/(alpha - 1)], attained at
    alpha* = 1 + sqrt(log(1/delta')/rho) (the Renyi-order optimisation).

New in whitehouse2023 (no counterpart in whitehouse2022, which composes zCDP steps
directly in Theorem 6).  Library: reference.bounds.whitehouse2023.dp_to_zcdp_rho,
zcdp_to_dp_eps, zcdp_to_dp_delta (catalog whitehouse2023_lem1_*).

Second routes: closed-form Renyi divergences of randomized response, random
finite eps-DP pairs built as post-processings of RR (every eps-DP pair is one,
Kairouz et al.), the exact Gaussian hockey-stick divergence (Phi) and its
mpmath.quad integral, the exact binomial privacy-loss law of k-fold RR, a naive
minimisation over alpha and the SymPy derivation ``whitehouse2023.zcdp_to_dp``.
"""
from __future__ import annotations

from fractions import Fraction as F

import mpmath
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from reference.bounds import whitehouse2023 as W
from reference.precision import mpf_to_fraction

MP = mpmath.mpf


def q2m(q):
    q = F(q)
    return MP(q.numerator) / q.denominator


def rr_renyi(eps, lam):
    """D_lam(RR_eps(1) || RR_eps(0)) = log(p e^{eps(lam-1)} + q e^{-eps(lam-1)})/(lam-1), p = e^eps/(1+e^eps).

    Written as eps(lam-1) + log(p + q e^{-2 eps (lam-1)}) - ... to avoid overflow; symmetric in the two directions.
    """
    e, s = MP(eps), MP(lam) - 1
    p = 1 / (1 + mpmath.exp(-e))
    q = 1 / (1 + mpmath.exp(e))
    return (e * s + mpmath.log(p + q * mpmath.exp(-2 * e * s))) / s


def renyi_finite(P, Q, lam):
    lam = MP(lam)
    return mpmath.log(sum(p ** lam * q ** (1 - lam) for p, q in zip(P, Q) if p > 0)) / (lam - 1)


eps_st = st.one_of(st.sampled_from(["1e-8", "1e-3", "0.5", "1", "5", "30"]),
                   st.decimals(min_value="0.0001", max_value="20", places=4).map(str))
lam_st = st.one_of(st.sampled_from(["1.000000001", "1.5", "2", "1000"]),
                   st.decimals(min_value="1.001", max_value="500", places=3).map(str))


# ---------------------------------------------------------------------------
# (a) (eps, delta)-DP  =>  delta-approximate eps^2/2-zCDP
# ---------------------------------------------------------------------------

@given(eps_st, lam_st)
@example("30", "1000")
@example("1e-8", "1.000000001")
def test_a_pure_part_of_rr_is_half_eps_squared_zcdp(eps, lam):
    """D_lam(RR_eps(b) || RR_eps(1-b)) <= (eps^2/2) lam for all lam >= 1 (RR is the worst eps-DP pair)."""
    rho = W.dp_to_zcdp_rho(eps)
    assert rho >= q2m(F(eps)) ** 2 / 2
    assert rr_renyi(eps, lam) <= rho * MP(lam)


@given(eps_st, lam_st)
@example("1", "1.000000001")
def test_rr_zcdp_constant_is_eps_tanh(eps, lam):
    """Sharper: D_lam(RR_eps) <= lam eps tanh(eps/2) <= lam eps^2/2, and D_lam/lam -> eps tanh(eps/2) as lam -> 1.

    (This is the rho_n the Theorem 1 enumeration uses for randomized-response steps.)
    """
    e = q2m(F(eps))
    sharp = e * mpmath.tanh(e / 2)
    assert rr_renyi(eps, lam) <= sharp * MP(lam)
    assert sharp <= e ** 2 / 2
    near1 = rr_renyi(eps, MP(1) + MP(10) ** -40)
    assert near1 <= sharp * (1 + MP(10) ** -40) and near1 >= sharp * (1 - MP(10) ** -30)


@settings(max_examples=20)
@given(st.integers(min_value=0, max_value=10**6), eps_st, lam_st, st.integers(min_value=2, max_value=6))
def test_a_random_pure_dp_pairs(seed, eps, lam, k):
    """Every eps-DP pair (P, Q) on k points (a post-processing of RR_eps by a random kernel) has D_lam <= eps^2/2 lam, both ways."""
    import random
    rnd = random.Random(seed)
    K1 = [MP(rnd.random()) for _ in range(k)]
    K0 = [MP(rnd.random()) for _ in range(k)]
    K1 = [x / sum(K1) for x in K1]
    K0 = [x / sum(K0) for x in K0]
    e = q2m(F(eps))
    p = 1 / (1 + mpmath.exp(-e))
    P = [p * a + (1 - p) * b for a, b in zip(K1, K0)]
    Q = [(1 - p) * a + p * b for a, b in zip(K1, K0)]
    # sanity: (P, Q) is eps-DP pointwise
    assert all(abs(mpmath.log(a / b)) <= e * (1 + MP(10) ** -50) for a, b in zip(P, Q))
    rho = W.dp_to_zcdp_rho(eps)
    for A, B in ((P, Q), (Q, P)):
        assert renyi_finite(A, B, lam) <= rho * MP(lam)


@pytest.mark.parametrize("p,d", [(F(3, 4), F(1, 10)), (F(9, 10), F(1, 10**9)), (F(2, 3), F(1, 2))])
def test_a_approximate_decomposition_of_eps_delta_rr(p, d):
    """(eps, delta)-RR = (1-delta) RR_eps + delta (point mass on T / B), exactly, and the pure parts are eps^2/2-zCDP."""
    Px = {1: (1 - d) * p, 0: (1 - d) * (1 - p), "T": d, "B": F(0)}
    Qx = {1: (1 - d) * (1 - p), 0: (1 - d) * p, "T": F(0), "B": d}
    Pp, Qp = {1: p, 0: 1 - p}, {1: 1 - p, 0: p}
    Ppp, Qpp = {"T": F(1)}, {"B": F(1)}
    for y in Px:
        assert Px[y] == (1 - d) * Pp.get(y, 0) + d * Ppp.get(y, 0)
        assert Qx[y] == (1 - d) * Qp.get(y, 0) + d * Qpp.get(y, 0)
    eps = mpmath.log(q2m(p) / q2m(1 - p))
    rho = W.dp_to_zcdp_rho(mpmath.nstr(eps, 60))
    for lam in ("1.0001", "2", "50"):
        assert renyi_finite([q2m(Pp[1]), q2m(Pp[0])], [q2m(Qp[1]), q2m(Qp[0])], lam) <= rho * MP(lam)


# ---------------------------------------------------------------------------
# (b) delta-approximate rho-zCDP  =>  (rho + 2 sqrt(rho log(1/delta')), delta + (1-delta) delta')-DP
# ---------------------------------------------------------------------------

rho_st = st.one_of(st.sampled_from(["1e-12", "1e-4", "0.5", "1", "100", "1000000"]),
                   st.decimals(min_value="0.00001", max_value="50", places=5).map(str))
dp_st = st.one_of(st.sampled_from(["1e-300", "1e-100", "1e-6", "0.01", "0.5", "0.999"]),
                  st.decimals(min_value="0.000001", max_value="0.9", places=6).map(str))


@given(rho_st, dp_st, st.decimals(min_value="1.0001", max_value="1000", places=4))
@example("1e-12", "1e-300", "2")
@example("1000000", "0.999", "1.0001")
def test_b_eps_is_the_minimum_over_renyi_orders(rho, dp, alpha):
    """rho + 2 sqrt(rho L) = min_{alpha>1} rho alpha + L/(alpha - 1): <= every alpha, == at alpha* = 1 + sqrt(L/rho)."""
    eps = W.zcdp_to_dp_eps(rho, dp)
    r, L = q2m(F(rho)), -mpmath.log(q2m(F(dp)))
    a = q2m(F(alpha))
    assert eps <= r * a + L / (a - 1) + r * MP(10) ** -45   # library rounds up by < 1 ulp at 50 digits
    astar = 1 + mpmath.sqrt(L / r)
    at = r * astar + L / (astar - 1)
    assert eps >= at                                            # rounded up: never below the true value
    assert eps - at <= at * MP(10) ** -45


def test_b_symbolic_derivation_agrees():
    """The SymPy derivation (optimise rho alpha + L/(alpha-1) over alpha) equals the library formula."""
    import sympy as sp
    from symbolic.whitehouse2023 import L as Ls, rho as rs, zcdp_to_dp
    expr = zcdp_to_dp().result
    for r, dp in ((F(1, 2), F(1, 10**6)), (F(3), F(1, 100))):
        v = sp.N(expr.subs({rs: sp.Rational(r.numerator, r.denominator), Ls: -sp.log(sp.Rational(dp.numerator, dp.denominator))}), 60)
        lib = W.zcdp_to_dp_eps(r, dp)
        assert lib >= MP(str(v)) - MP(10) ** -55 and lib - MP(str(v)) <= MP(10) ** -45


def gauss_hockey(mu, eps):
    """sup_G N(mu,1)(G) - e^eps N(0,1)(G) = Phi(mu/2 - eps/mu) - e^eps Phi(-mu/2 - eps/mu)."""
    return mpmath.ncdf(mu / 2 - eps / mu) - mpmath.exp(eps) * mpmath.ncdf(-mu / 2 - eps / mu)


@given(rho_st, dp_st)
@example("1e-12", "1e-300")
@example("1000000", "1e-300")
@example("0.5", "0.999")
def test_b_gaussian_mechanism_exact(rho, dp):
    """N(mu, 1) vs N(0, 1) is rho = mu^2/2 zCDP; its exact hockey-stick at eps = rho + 2 sqrt(rho L) is <= delta'."""
    eps = W.zcdp_to_dp_eps(rho, dp, dps=60)
    mu = mpmath.sqrt(2 * q2m(F(rho)))
    h = gauss_hockey(mu, eps)
    assert h <= q2m(F(dp))
    assert h >= 0


@settings(max_examples=8)
@given(st.sampled_from(["0.01", "0.5", "2"]), st.sampled_from(["1e-3", "0.1"]))
def test_b_gaussian_closed_form_equals_quad(rho, dp):
    """Second route for the Gaussian hockey-stick: integrate (phi_mu - e^eps phi_0)_+ with mpmath.quad."""
    with mpmath.workdps(30):
        eps = W.zcdp_to_dp_eps(rho, dp, dps=40)
        mu = mpmath.sqrt(2 * q2m(F(rho)))
        y0 = eps / mu + mu / 2     # phi_mu > e^eps phi_0  iff  y > y0
        integral = mpmath.quad(lambda y: mpmath.npdf(y, mu) - mpmath.exp(eps) * mpmath.npdf(y, 0), [y0, y0 + 10, mpmath.inf])
        assert abs(integral - gauss_hockey(mu, eps)) <= MP(10) ** -20
        assert integral <= q2m(F(dp)) + MP(10) ** -20


@given(rho_st, dp_st, st.sampled_from(["0", "1e-300", "1e-9", "0.01", "0.5", "1"]))
@example("0.5", "1e-6", "0.5")
def test_b_approximate_gaussian_mixture_meets_the_delta(rho, dp, delta):
    """A(x) = (1-delta) N(mu,1) + delta pt(+inf-ish atom), A(x') = (1-delta) N(0,1) + delta pt(other atom):
    exact hockey-stick = delta + (1-delta) H_gauss <= delta + (1-delta) delta' (the printed DP delta)."""
    d = F(delta)
    eps = W.zcdp_to_dp_eps(rho, dp, dps=60)
    mu = mpmath.sqrt(2 * q2m(F(rho)))
    h = q2m(d) + (1 - q2m(d)) * gauss_hockey(mu, eps)
    bound = W.zcdp_to_dp_delta(delta, dp, dps=60)
    assert h <= bound
    assert bound >= q2m(d + (1 - d) * F(dp))
    assert bound <= q2m(d + F(dp)) * (1 + MP(10) ** -45)   # never more than the delta + delta' of Theorem 2


@pytest.mark.parametrize("k,p,dp", [(1, F(3, 4), F(1, 10)), (10, F(3, 5), F(1, 100)), (200, F(11, 20), F(1, 10**6)),
                                    (1000, F(51, 100), F(1, 10**9))])
def test_b_k_fold_randomized_response_exact(k, p, dp):
    """k-fold RR_eps is k eps tanh(eps/2)-zCDP; its exact hockey-stick (binomial loss law) at the Lemma 1 eps is <= delta'."""
    with mpmath.workdps(60):
        e = mpmath.log(q2m(p) / q2m(1 - p))
        rho = mpmath.nstr(k * e * mpmath.tanh(e / 2) * (1 + MP(10) ** -40), 55)   # a valid (slightly larger) rho
        eps = W.zcdp_to_dp_eps(rho, dp, dps=55)
        P = q2m(p)
        total = MP(0)
        for j in range(k + 1):   # j "agree" outputs: loss (2j - k) eps
            loss = (2 * j - k) * e
            if loss > eps:
                pj = mpmath.binomial(k, j) * P ** j * (1 - P) ** (k - j)
                total += pj * (1 - mpmath.exp(eps - loss))
        assert total <= q2m(dp)


def test_bad_inputs_name_the_parameter():
    with pytest.raises(ValueError, match="rho"):
        W.zcdp_to_dp_eps(-1, "1e-6")
    with pytest.raises(ValueError, match="delta_prime"):
        W.zcdp_to_dp_eps(1, 0)
    with pytest.raises(ValueError, match="delta_prime"):
        W.zcdp_to_dp_delta(0, 1)
    with pytest.raises(ValueError, match="delta"):
        W.zcdp_to_dp_delta(2, "0.5")
    with pytest.raises(ValueError, match="eps"):
        W.dp_to_zcdp_rho(-1)


def test_rho_zero_is_pure_dp():
    """rho = 0 gives eps = 0 and the DP delta = delta + (1-delta) delta' exactly."""
    assert W.zcdp_to_dp_eps(0, "1e-6") == 0
    assert mpf_to_fraction(W.zcdp_to_dp_delta(F(1, 10), F(1, 10))) >= F(19, 100)
