"""Tests of the supermartingale checker (reference.martingales): every route against a second one.

* statistics: binomial tails and Clopper-Pearson bounds vs brute-force Fraction sums and mpmath betainc;
* one-step condition: the exact route vs an independent high-precision sum / quadrature, and vs the
  Monte Carlo route; every valid process passes, the variance-inflated control fails;
* draws: Philox known answers; the simulated RR step probability vs the exact p (exact binomial test
  at 1e-9); thresholds of fixed schedules vs a 60-digit evaluation of the crossing event;
* crossings: Monte Carlo frequencies vs exact dynamic programming (proofs/adaptive_rr.py and an
  enumeration here); valid boundaries pass; the negative controls are rejected;
* kernels: fixed-schedule and Markov kernels agree path by path; the CUDA source compiled as C++
  reproduces the NumPy Philox route bit for bit; CuPy (when a GPU is present) agrees too; the
  compiled (numba) Markov kernel reproduces the NumPy one path by path, and the fallback without numba;
* reproducibility, CLI, input validation.
"""
from __future__ import annotations

import argparse
import functools
import json
import shutil
import subprocess
from fractions import Fraction as F

import mpmath
import numpy as np
import pytest
from hypothesis import example, given, settings, strategies as st

from proofs import adaptive_rr
from reference.martingales import (
    NEGATIVE_PROCESSES,
    PROCESSES,
    Adversary,
    BackendUnavailable,
    CheckConfig,
    StepLaw,
    binom_tail_enclosure,
    binomial_exceeds,
    clopper_pearson,
    cupy_available,
    default_adversaries,
    get_backend,
    make_boundaries,
    make_plan,
    one_step_exact,
    one_step_mc,
    run_checks,
    simulate,
    x0_exact,
)
from reference.cli.martingales import add_cli, run_cli
from reference.bounds import feldman2021, rogers2016
from reference.martingales.boundaries import RENYI_ALPHAS, Boundary, ceil_certified, floor_certified, renyi_kappa
from reference.martingales.cuda import KERNEL_SOURCE, run_host_harness
from reference.martingales.jit import numba_available
from reference.martingales.processes import default_grid, one_step_exact_state
from reference.martingales.rng import chunk_bitgen, philox4x32_10, philox_draws, stream_tag
from reference.martingales.simulate import (
    CHUNK,
    crossing_masks,
    deterministic_lower_thresholds,
    deterministic_thresholds,
    rr_threshold,
)
from reference.martingales.stats import (
    binom_tail_exact,
    binom_tail_float,
    clopper_pearson_betainc,
    mean_lcb,
    mean_ucb,
)
from reference.martingales._iv import ends, ivctx
from reference.precision import mpf_to_fraction

ALPHA = F(1, 10 ** 9)
GPU, GPU_WHY = cupy_available()
needs_gpu = pytest.mark.skipif(not GPU, reason=f"CuPy/CUDA unavailable: {GPU_WHY}")
NUMBA, NUMBA_WHY = numba_available()
needs_numba = pytest.mark.skipif(not NUMBA, reason=f"numba unavailable: {NUMBA_WHY}")


def hp(dps=60):
    from mpmath.ctx_mp import MPContext

    c = MPContext()
    c.dps = dps
    return c


def mpq(c, q: F):
    return c.mpf(q.numerator) / q.denominator


# ==========================================================================
# statistics
# ==========================================================================

@given(st.integers(1, 60), st.data(), st.sampled_from([F(1, 3), F(1, 10), F(1, 2), F(9, 10), F(1, 1000), F(999, 1000)]))
def test_binomial_tail_enclosure_contains_exact_sum(N, data, p):
    """Second route: the brute-force Fraction sum sum_{j>=K} C(N,j) p^j (1-p)^(N-j)."""
    K = data.draw(st.integers(0, N))
    lo, hi = binom_tail_enclosure(N, K, p)
    exact = binom_tail_exact(N, K, p)
    assert lo <= exact <= hi
    assert hi - lo <= F(1, 10 ** 20) * max(exact, F(1, 10 ** 300)) + F(1, 10 ** 25)


@given(st.integers(1, 40), st.data(), st.sampled_from([F(1, 10), F(1, 20), F(1, 10 ** 3), F(1, 10 ** 9)]))
@settings(max_examples=20, deadline=None)
def test_clopper_pearson_vs_bruteforce_binomial_sum(N, data, alpha):
    """CP ends are certified and tight: P_lo(X >= K) <= alpha < P_{lo'}(X >= K) just above lo (exact Fraction sums)."""
    K = data.draw(st.integers(0, N))
    lo, hi = clopper_pearson(N, K, alpha)
    if K == 0:
        assert lo == 0
    else:
        assert binom_tail_exact(N, K, lo) <= alpha
        assert binom_tail_exact(N, K, lo * (1 + F(1, 10 ** 6))) > alpha
    if K == N:
        assert hi == 1
    else:
        assert 1 - binom_tail_exact(N, K + 1, hi) <= alpha
        assert 1 - binom_tail_exact(N, K + 1, hi - (1 - hi) * F(1, 10 ** 6)) > alpha


@pytest.mark.parametrize("N,K", [(1000, 52), (400, 0), (400, 400), (2000, 1700), (50, 7)])
def test_clopper_pearson_vs_betainc(N, K):
    """Second route: mpmath betainc + bisection (the textbook route; converges for moderate N)."""
    lo, hi = clopper_pearson(N, K, ALPHA)
    blo, bhi = clopper_pearson_betainc(N, K, ALPHA)
    assert float(lo) <= blo * (1 + 1e-12) + 1e-300 and float(hi) >= bhi * (1 - 1e-12)
    assert abs(float(lo) - blo) <= 1e-7 * max(blo, 1e-300) + 1e-300
    assert abs(float(hi) - bhi) <= 1e-7 * bhi


def test_binomial_tail_large_n_vs_float_and_symmetry():
    """N = 10^5: the enclosure agrees with a log-space float sum, and P(X >= K) + P(X <= K-1) = 1."""
    N, p = 100_000, F(1, 20)
    for K in (4800, 5000, 5300, 6000):
        lo, hi = binom_tail_enclosure(N, K, p)
        assert abs(float(lo) - binom_tail_float(N, K, float(p))) <= 1e-9 * float(lo) + 1e-300
        # complement through the other side: P_{1-p}(Bin >= N-K+1) = P_p(Bin <= K-1)
        clo, chi = binom_tail_enclosure(N, N - K + 1, 1 - p)
        assert lo <= 1 - clo and 1 - chi <= hi


def test_binomial_exceeds_is_the_cp_lower_bound_test():
    N = 20000
    for K in (2000, 2100, 2200, 2300, 2400):
        lo, _ = clopper_pearson(N, K, ALPHA)
        rej = binomial_exceeds(N, K, F(1, 10), ALPHA)
        assert rej == (lo > F(1, 10)) or abs(float(lo) - 0.1) < 1e-9


def test_mean_bounds_cover_a_known_mean():
    rng = np.random.default_rng(3)
    z = rng.uniform(0.2, 0.9, 10_000)
    lcb = mean_lcb(z.mean(), z.var(ddof=1), z.size, 0.2, 0.9, 1e-9)
    ucb = mean_ucb(z.mean(), z.var(ddof=1), z.size, 0.2, 0.9, 1e-9)
    assert lcb < 0.55 < ucb and ucb - lcb < 0.05


@pytest.mark.parametrize("bad", [dict(N=0, K=0), dict(N=5, K=6), dict(N=5, K=-1), dict(N=True, K=0)])
def test_stats_bad_inputs(bad):
    with pytest.raises(ValueError, match="N must|K must"):
        binom_tail_enclosure(bad["N"], bad["K"], F(1, 2))


def test_cp_bad_alpha():
    with pytest.raises(ValueError, match="alpha"):
        clopper_pearson(10, 3, 0)


# ==========================================================================
# one-step condition: exact route vs second routes
# ==========================================================================

def _second_route_expectation(process, state, law: StepLaw, dps=60):
    """E[X_n/X_{n-1}] by a naive route at `dps` digits: two-point sum (RR), mpmath quad (Laplace, Gaussian)."""
    c = hp(dps)
    e = mpq(c, law.true_param)
    if law.kind == "rr":
        mu = e * c.tanh(e / 2)
    elif law.kind == "laplace":
        mu = e - 1 + c.exp(-e)
    else:
        mu = e
    sign = -1 if process.measure == "Q" else 1

    def R(l):  # the ratio as the paper writes it, as a function of the loss under the process's measure
        k = process.key
        if k in ("whitehouse_exp", "nc_variance_inflated"):
            lam = mpq(c, state["lam"])
            return c.exp(lam * (l - mu) - lam ** 2 * mpq(c, law.v) / 2)
        if k == "rogers_lem4_2":
            lam = mpq(c, state["lam"])
            return c.exp(lam * (l - mu) - lam ** 2 * mpq(c, law.width) ** 2 / 8)
        if k == "whitehouse_mixture":
            M, V, r = (mpq(c, state[x]) for x in ("M", "V", "rho"))
            V2 = V + mpq(c, law.v)
            M2 = M + l - mu
            return c.sqrt(r / (V2 + r)) * c.exp(M2 ** 2 / (2 * (V2 + r))) / (c.sqrt(r / (V + r)) * c.exp(M ** 2 / (2 * (V + r))))
        if k == "whitehouse2023_lem6_renyi":
            lam = mpq(c, state["lam"])
            return c.exp((lam - 1) * (l - lam * mpq(c, law.zcdp_rho)))
        if k == "feldman2021_thm3_1":
            a = mpq(c, state["alpha"])
            return c.exp(a * l - (a - 1) * mpq(c, law.rdp(state["alpha"])))
        if k == "feldman2021_renyi_odometer_kl":  # rho = KL(P||Q) = the mean loss mu (RR: eps tanh(eps/2))
            a = mpq(c, state["alpha"])
            return c.exp((a - 1) * (l - a * mu))
        raise KeyError(k)

    if law.kind == "rr":
        p = 1 / (1 + c.exp(-e))
        pp, pm = (p, 1 - p) if sign > 0 else (1 - p, p)
        return pp * R(e) + pm * R(-e)
    if law.kind == "laplace":  # under P: atoms +e (1/2), -e (e^-e/2), density of l = e - 2u, u ~ e^-u/2 on (0, e)
        f = lambda l: R(sign * l)  # noqa: E731
        cont = c.quad(lambda u: c.exp(-u) / 2 * f(e - 2 * u), [0, e / 2, e])
        return f(e) / 2 + c.exp(-e) / 2 * f(-e) + cont
    s = c.sqrt(2 * e)
    m = sign * e
    return c.quad(lambda z: c.exp(-z * z / 2) / c.sqrt(2 * c.pi) * R(m + s * z), [-c.inf, -3, 0, 3, c.inf])


SAMPLE_STATES = [
    ("whitehouse_exp", {"lam": F(2)}, StepLaw("rr", F(1, 2))),
    ("whitehouse_exp", {"lam": F(1, 2)}, StepLaw("laplace", F(1))),
    ("whitehouse_exp", {"lam": F(3)}, StepLaw("laplace", F(1, 10))),
    ("whitehouse_exp", {"lam": F(1)}, StepLaw("gaussian", F(1, 4))),
    ("rogers_lem4_2", {"lam": F(-3)}, StepLaw("rr", F(1))),
    ("rogers_lem4_2", {"lam": F(-1, 2)}, StepLaw("laplace", F(2))),
    ("whitehouse_mixture", {"rho": F(1), "M": F(2), "V": F(1, 2)}, StepLaw("rr", F(1))),
    ("whitehouse_mixture", {"rho": F(1, 2), "M": F(-1), "V": F(0)}, StepLaw("laplace", F(1))),
    ("whitehouse_mixture", {"rho": F(2), "M": F(1), "V": F(3)}, StepLaw("gaussian", F(1, 10))),
    ("whitehouse2023_lem6_renyi", {"lam": F(5)}, StepLaw("rr", F(1, 2))),
    ("whitehouse2023_lem6_renyi", {"lam": F(3, 2)}, StepLaw("laplace", F(1))),
    ("feldman2021_thm3_1", {"alpha": F(4)}, StepLaw("rr", F(1, 3))),
    ("feldman2021_thm3_1", {"alpha": F(2)}, StepLaw("laplace", F(3, 2))),
    ("feldman2021_thm3_1", {"alpha": F(3)}, StepLaw("gaussian", F(1, 2))),
    ("feldman2021_renyi_odometer_kl", {"alpha": F(5, 4)}, StepLaw("rr", F(1, 10))),
    ("feldman2021_renyi_odometer_kl", {"alpha": F(128)}, StepLaw("rr", F(2))),
    ("feldman2021_renyi_odometer_kl", {"alpha": F(3)}, StepLaw("laplace", F(1, 2))),
    ("feldman2021_renyi_odometer_kl", {"alpha": F(6)}, StepLaw("gaussian", F(1, 20))),
    ("nc_variance_inflated", {"lam": F(10)}, StepLaw("rr", F(1, 10), F(3, 2))),
]


@pytest.mark.parametrize("key,state,law", SAMPLE_STATES, ids=lambda x: str(x)[:30])
def test_one_step_exact_vs_naive_quadrature(key, state, law):
    """The certified enclosure of 1 - E R contains the value of a naive 60-digit route (sum / mpmath.quad)."""
    proc = PROCESSES.get(key) or NEGATIVE_PROCESSES[key]
    res = one_step_exact_state(proc, state, law)
    naive = _second_route_expectation(proc, state, law)
    m = 1 - naive
    assert res.sign is not None
    lo, hi = res.margin_lo, res.margin_hi
    tol = mpmath.mpf(10) ** -40
    assert mpq(mpmath.mp, lo) - tol <= m <= mpq(mpmath.mp, hi) + tol
    assert res.sign == (0 if (lo == 0 and hi == 0) else (1 if m > 0 else -1))


@pytest.mark.parametrize("e", [F(1, 100), F(1, 3), F(1), F(7)])
@pytest.mark.parametrize("t", [F(-3), F(-1, 2), F(-1, 3), F(1, 5), F(2)])
def test_laplace_mgf_closed_form_vs_riemann_enclosure(e, t):
    """Two certified routes to E exp(t l), Laplace: the closed form (A = 0) and the Riemann enclosure (A treated as nonzero)."""
    law = StepLaw("laplace", e)
    c = ivctx(128)
    closed = law.expect_exp_quadratic_iv(c, c.mpf(0), t, c.mpf(0), True)
    riem = law.expect_exp_quadratic_iv(c, c.mpf(0), c.mpf(t.numerator) / t.denominator, c.mpf(0), False, pieces=256)
    a1, b1 = ends(closed)
    a2, b2 = ends(riem)
    assert a1 <= b2 and a2 <= b1  # the enclosures intersect (both contain the true value)
    assert b1 - a1 <= F(1, 10 ** 25) * abs(b1)


@given(st.fractions(min_value=F(1, 100), max_value=5), st.fractions(min_value=-3, max_value=3))
@example(F(1), F(-1, 2))  # removable singularity of the closed form (1 + 2t = 0)
def test_laplace_mgf_symmetry(e, t):
    """E_P e^{t l} = E_P e^{-(1+t) l} for the symmetric Laplace mechanism (E_P (P/Q)^t = E_Q (P/Q)^(t+1))."""
    law = StepLaw("laplace", e)
    c = ivctx(160)
    a1, b1 = ends(law.expect_exp_quadratic_iv(c, c.mpf(0), t, c.mpf(0), True))
    a2, b2 = ends(law.expect_exp_quadratic_iv(c, c.mpf(0), -1 - t, c.mpf(0), True))
    assert a1 <= b2 and a2 <= b1


pos_st = st.fractions(min_value=F(1, 1000), max_value=50, max_denominator=1000)
eps_st = st.fractions(min_value=F(1, 1000), max_value=1000, max_denominator=1000)


@given(pos_st, eps_st, st.sampled_from(["rr", "laplace"]))
@example(F(50), F(1000), "rr")        # exp(lam^2 eps^2/2) = exp(1.25e9): no overflow in interval arithmetic
@example(F(1, 1000), F(1, 1000), "rr")  # margin ~ lam^2 eps^4/24 ~ 4e-20: needs the precision ladder
@example(F(1, 2), F(1000), "laplace")
@settings(max_examples=25, deadline=None)
def test_hoeffding_and_zcdp_steps_hold_on_random_states(lam, eps, kind):
    """Hoeffding's lemma (whitehouse2022 Thm 3, rogers2016 Lem 4.2 with -lam) and Bun-Steinke (whitehouse2023 Lem 6) at random states."""
    law = StepLaw(kind, eps)
    for key, st_ in (("whitehouse_exp", {"lam": lam}), ("rogers_lem4_2", {"lam": -lam}),
                     ("whitehouse2023_lem6_renyi", {"lam": 1 + lam}), ("feldman2021_thm3_1", {"alpha": 1 + lam}),
                     ("feldman2021_renyi_odometer_kl", {"alpha": 1 + lam})):
        r = one_step_exact_state(PROCESSES[key], st_, law)
        assert r.sign in (0, 1), (key, st_, law, r)


@given(pos_st, st.fractions(min_value=F(21, 20), max_value=3, max_denominator=100))
@settings(max_examples=15, deadline=None)
def test_variance_inflation_fails_for_small_lam_eps(lam, infl):
    """Negative control family: inflating RR's eps (=1/100) by a factor >= 1.05 breaks the condition for lam <= 1."""
    law = StepLaw("rr", F(1, 100), infl)
    r = one_step_exact_state(NEGATIVE_PROCESSES["nc_variance_inflated"], {"lam": min(lam, F(1))}, law)
    assert r.sign == -1


@pytest.mark.parametrize("key", list(PROCESSES))
def test_valid_processes_pass_exactly_and_x0(key):
    """Each seed's (super)martingale: X_0 <= 1 exactly and E[X_n|F] <= X_{n-1} at every grid state (quick grid)."""
    p = PROCESSES[key]
    assert x0_exact(p)[0]
    rep = one_step_exact(p, quick=True)
    assert rep.verdict == "pass", rep.worst_state
    assert rep.margin >= 0 and rep.undecided == 0


def test_gaussian_steps_are_exact_martingale_ties():
    """Gaussian steps make every process an exact martingale (E R = 1), recognised exactly (margin 0, sign 0)."""
    for key in ("whitehouse_exp", "whitehouse_mixture", "whitehouse2023_lem6_renyi", "feldman2021_thm3_1",
                "feldman2021_renyi_odometer_kl"):
        p = PROCESSES[key]
        for state, law in default_grid(p, quick=True):
            if law.kind == "gaussian":
                r = one_step_exact_state(p, state, law)
                assert r.sign == 0 and r.margin_lo == 0, (key, state, law)


def test_negative_control_variance_inflated_fails_exactly():
    p = NEGATIVE_PROCESSES["nc_variance_inflated"]
    rep = one_step_exact(p, quick=True)
    assert rep.verdict == "fail" and rep.margin < 0
    # the failing states are exactly those where the true variance exceeds eps^2 enough: some pass, some fail
    signs = {d["sign"] for d in rep.details}
    assert -1 in signs


@pytest.mark.parametrize("key", list(PROCESSES) + list(NEGATIVE_PROCESSES))
def test_exact_and_monte_carlo_routes_agree(key):
    """Monte Carlo at level 1e-9 rejects exactly when the exact route finds a violation (quick grids, 20k samples)."""
    p = PROCESSES.get(key) or NEGATIVE_PROCESSES[key]
    grid = default_grid(p, quick=True)
    ex = one_step_exact(p, grid)
    mc = one_step_mc(p, get_backend("numpy"), n=20_000, seed=11, grid=grid)
    assert ex.verdict == mc.verdict
    # state by state: no valid state is rejected; every state's point estimate is within its confidence bounds
    for e_, m_ in zip(ex.details, mc.details):
        assert e_["state"] == m_["state"]
        if e_["sign"] is not None and e_["sign"] >= 0:
            assert m_["lcb"] <= 1.0
        if e_["sign"] == -1 and e_["margin_lo"] is not None and float(F(e_["margin_lo"])) < -0.1:
            assert m_["ucb"] is None or m_["ucb"] > 1.0 - 1e-12


def test_one_step_mc_reproducible():
    p = PROCESSES["whitehouse_exp"]
    g = default_grid(p, quick=True)[:4]
    a = one_step_mc(p, get_backend("numpy"), n=5000, seed=5, grid=g)
    b = one_step_mc(p, get_backend("numpy"), n=5000, seed=5, grid=g)
    c = one_step_mc(p, get_backend("numpy"), n=5000, seed=6, grid=g)
    assert a.details == b.details and a.details != c.details


def test_steplaw_validation():
    with pytest.raises(ValueError, match="kind"):
        StepLaw("cauchy", F(1))
    with pytest.raises(ValueError, match="param"):
        StepLaw("rr", F(0))
    with pytest.raises(ValueError, match="inflation"):
        StepLaw("rr", F(1), F(1, 2))


# ==========================================================================
# draws
# ==========================================================================

def test_philox_known_answers():
    """Random123 known-answer vectors of Philox4x32-10."""
    kat = [((0, 0, 0, 0), (0, 0), (0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8)),
           ((0xFFFFFFFF,) * 4, (0xFFFFFFFF,) * 2, (0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD)),
           ((0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344), (0xA4093822, 0x299F31D0),
            (0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1))]
    for ctr, key, want in kat:
        got = philox4x32_10(np, *ctr, *key)
        assert tuple(int(x) for x in got) == want


def test_philox_draw_layout_is_chunk_independent():
    a = philox_draws(np, 42, 7, 0, 100, 0, 32)
    b = philox_draws(np, 42, 7, 37, 20, 16, 16)
    assert (a[16:32, 37:57] == b).all()


@pytest.mark.parametrize("eps", [F(1, 20), F(1, 10), F(1, 5), F(1), F(30)])
@pytest.mark.parametrize("rounding", ["up", "down"])
def test_rr_threshold_is_within_one_ulp_of_p(eps, rounding):
    """thr/2^32 is within 2^-32 of p = e^eps/(1+e^eps), on the stated side (60-digit second route)."""
    t = rr_threshold(eps, rounding) + 1
    c = hp(60)
    p = 1 / (1 + c.exp(-mpq(c, eps)))
    q = c.mpf(t) / 2 ** 32
    if rounding == "up":
        assert q >= p and q - p < c.mpf(2) ** -32
    else:
        assert q <= p and p - q < c.mpf(2) ** -32


@pytest.mark.parametrize("source", ["pcg", "philox"])
@pytest.mark.parametrize("eps", [F(1, 20), F(1, 5)])
def test_simulated_rr_step_matches_exact_p(source, eps):
    """Exact two-sided binomial test at 1e-9: the fraction of + steps in 2^22 draws is consistent with thr/2^32."""
    thr = rr_threshold(eps, "up")
    if source == "pcg":
        u = chunk_bitgen(9, 123, 0).random_raw(2 ** 21).view(np.uint32)
    else:
        u = philox_draws(np, 9, 123, 0, 2 ** 15, 0, 128).ravel()
    n = int(u.size)
    k = int(np.count_nonzero(u <= np.uint32(thr)))
    p = F(thr + 1, 2 ** 32)
    upper_tail_lo = binom_tail_enclosure(n, k, p)[0]           # P(X >= k)
    lower_tail_lo = 1 - binom_tail_enclosure(n, k + 1, p)[1]   # P(X <= k)
    assert upper_tail_lo >= ALPHA / 2 and lower_tail_lo >= ALPHA / 2
    # and the test has power: p shifted by 1/100 is rejected
    assert binomial_exceeds(n, k, p - F(1, 100), ALPHA)


# ==========================================================================
# boundaries and thresholds
# ==========================================================================

def _bound_value(b, V: F, c):
    """b(V) by a route independent of the checker's interval formulas: the public function, or mpmath directly."""
    if not b.finite(V):
        return c.inf
    if b.reference is not None:
        r = b.reference(V)
        return c.inf if r == mpmath.inf else mpq(c, mpf_to_fraction(r))
    d, VV = mpq(c, b.delta_claim), mpq(c, V)
    if b.key == "nc_mixture_half_log":
        r = mpq(c, b.params["rho"])
        return c.sqrt((VV + r) * c.log(c.sqrt((VV + r) / r) / d))
    if b.key == "nc_fixed_time_odometer":
        return c.sqrt(2 * VV * c.log(1 / d)) + VV / 2
    if b.key in ("nc_renyi_odometer_no_union", "nc_renyi_odometer_quarter_log"):
        k, s = (1, 1) if b.key == "nc_renyi_odometer_no_union" else (len(RENYI_ALPHAS), c.mpf(1) / 4)
        return min(mpq(c, a) * VV / 2 + s * c.log(k / d) / (mpq(c, a) - 1) for a in RENYI_ALPHAS)
    if b.key == "nc_rogers_odometer_no_union_quarter_log":
        return _rogers_control_value(b, V, c)
    if b.key in ("test_two_sided", "test_one_sided"):
        return c.sqrt(VV) / 2 + VV / 4 + c.sqrt(2) / 1000
    raise KeyError(b.key)


def _rogers_control_value(b, V: F, c):
    """rogers2016 eqs. (17)/(18) written out in mpmath with F = log(1/delta)/4 and mean term k_U V/2."""
    d, VV, g = mpq(c, b.delta_claim), mpq(c, V), mpq(c, F(1, b.params["n_records"] ** 2))
    Fq = c.log(1 / d) / 4
    dev = (2 * c.sqrt(VV * (1 + c.log(c.sqrt(3))) * Fq) if g <= VV <= 1
           else c.sqrt(2 * (g + VV) * (1 + c.log(1 + VV / g) / 2) * Fq))
    return mpq(c, b.params["k_U"]) * VV / 2 + dev


BS = make_boundaries(F(1, 10), F(2), include_negative=True)


@pytest.mark.parametrize("b", [b for b in BS if b.reference is not None], ids=lambda b: b.key)
@pytest.mark.parametrize("V", [F(1, 100), F(1, 3), F(1), F(5, 2), F(40)])
def test_boundary_formulas_vs_public_functions(b, V):
    """The interval formula and the float mirror agree with reference.bounds.whitehouse2023 (the catalogued functions)."""
    ref = b.reference(V)
    if not b.finite(V):
        assert ref == mpmath.inf
        assert not np.isfinite(b.np(np, np.array([float(V)]))[0])
        return
    lo, hi = ends(b.iv(ivctx(200), V))
    r = mpf_to_fraction(ref)
    assert lo <= r and r - hi <= hi * F(1, 10 ** 45)
    fl = float(b.np(np, np.array([float(V)]))[0])
    assert abs(fl - float(lo)) <= 1e-13 * float(lo)


def test_certified_rounding_helpers():
    assert ceil_certified(lambda c: c.mpf(3)) == 3
    assert floor_certified(lambda c: c.mpf(3)) == 3
    assert ceil_certified(lambda c: c.sqrt(c.mpf(2)) * 10 ** 6) == 1414214
    assert floor_certified(lambda c: -c.sqrt(c.mpf(2))) == -2


@pytest.mark.parametrize("adv", default_adversaries()[:2], ids=lambda a: a.key)
def test_deterministic_thresholds_are_the_minimal_crossing_counts(adv):
    """tau_n is the least P_n with a crossing at step n: checked against a 60-digit evaluation of M_n or L_n vs b(V_n)."""
    T = 40
    bs = make_boundaries(F(1, 10), F(T, 100) * 20, include_negative=True) + [_two_sided_test_boundary()]
    c = hp(60)
    g = adv.unit
    for b in bs:
        tau = deterministic_thresholds(b, adv, T)
        C = J = 0
        mus = c.mpf(0)
        for n in range(1, T + 1):
            k = adv.pattern[(n - 1) % len(adv.pattern)]
            e = adv.eps(k)
            C += adv.levels[k]
            J += adv.levels[k] ** 2
            mus += mpq(c, e) * c.tanh(mpq(c, e) / 2)
            V = g * g * J
            if not b.finite(V):
                assert tau[n - 1] >= 2 ** 31 - 1
                continue
            bv = _bound_value(b, V, c)

            def crossed(P):
                x = mpq(c, g) * (2 * P - C) - (mus if b.target == "M" else 0)
                return x > bv if b.strict else x >= bv
            t = int(tau[n - 1])
            assert crossed(t) and not crossed(t - 1), (b.key, n, t)
            if b.two_sided:  # -L_n crosses iff P_n <= tau_lo_n
                tl = int(deterministic_lower_thresholds(b, adv, T)[n - 1])
                neg = lambda P: -(mpq(c, g) * (2 * P - C)) > bv  # noqa: E731
                assert neg(tl) and not neg(tl + 1), (b.key, n, tl)


# ==========================================================================
# crossings: Monte Carlo vs exact dynamic programming
# ==========================================================================

def _cp_contains(N, k, p_exact, T):
    lo, hi = clopper_pearson(N, k, ALPHA / 2)
    slack = F(T, 2 ** 32)
    return float(lo - slack) <= p_exact <= float(hi + slack)


def test_crossing_frequency_vs_adaptive_rr_exact_dp():
    """Odometers (L target, strict): MC frequency vs proofs/adaptive_rr.odometer_crossing (exact, 60 digits)."""
    T, N = 24, 100_000
    g = F(1, 10)
    bs = [b for b in make_boundaries(F(1, 3), F(1, 2), include_negative=True) if b.target == "L" and not b.two_sided]
    seen = []
    for adv, strat in ((Adversary("hom", "", g, (2,), "fixed", (0,)), adaptive_rr.homogeneous(F(1, 5))),
                       (Adversary("alt", "", g, (4, 1), "fixed", (0, 1)), adaptive_rr.alternating(F(2, 5), F(1, 10)))):
        plan = make_plan(adv, bs, T)
        res = simulate(plan, N, seed=3)
        for b, k in zip(bs, res.crossed):
            with mpmath.workdps(60):
                p_exact = adaptive_rr.odometer_crossing(strat, T, functools.lru_cache(maxsize=None)(
                    lambda V, b=b: _bound_value(b, V, mpmath.mp)))
            assert _cp_contains(N, k, float(p_exact), T), (adv.key, b.key, k / N, float(p_exact))
            seen.append(float(p_exact))
    assert max(seen) > 0.05 and sum(1 for x in seen if x > 0.001) >= 4


def _exact_markov_crossing(adv: Adversary, plan, b, T):
    """Exact P(cross by T) for a Markov adversary by enumeration of (I, level counts, level) states at 50 digits."""
    c = hp(50)
    K = len(adv.levels)
    g = adv.unit
    p = [1 / (1 + c.exp(-mpq(c, adv.eps(k)))) for k in range(K)]
    mu = [mpq(c, adv.eps(k)) * c.tanh(mpq(c, adv.eps(k)) / 2) for k in range(K)]
    bcache = {}

    def bval(J):
        if J not in bcache:
            bcache[J] = _bound_value(b, g * g * J, c)
        return bcache[J]

    level = {(0, (0,) * K, adv.start): c.mpf(1)}
    crossed = c.mpf(0)
    for n in range(T):
        nxt = {}
        for (I, cnt, k), pr in level.items():
            if adv.policy == "random":
                k = int(plan.table[n][1 if I > 0 else 0])
            elif adv.policy == "fixed":
                k = adv.pattern[n % len(adv.pattern)]
            for s, w in ((1, p[k]), (-1, 1 - p[k])):
                I2 = I + s * adv.levels[k]
                cnt2 = tuple(x + (1 if j == k else 0) for j, x in enumerate(cnt))
                J2 = sum(cn * adv.levels[j] ** 2 for j, cn in enumerate(cnt2))
                x = mpq(c, g) * I2 - (sum(cn * mu[j] for j, cn in enumerate(cnt2)) if b.target == "M" else 0)
                bv = bval(J2)
                if ((x > bv) if b.strict else (x >= bv)) or (b.two_sided and -x > bv):
                    crossed += pr * w
                    continue
                k2 = min(max(k + s, 0), K - 1) if adv.policy == "chasing" else k
                key = (I2, cnt2, k2)
                nxt[key] = nxt.get(key, 0) + pr * w
        level = nxt
    return crossed


@pytest.mark.parametrize("policy", ["chasing", "random"])
def test_markov_crossing_frequency_vs_exact_enumeration(policy):
    """Markov adversaries (M and L targets): MC frequency vs an exact enumeration at 50 digits (T = 14)."""
    T, N = 14, 100_000
    g = F(1, 10)
    adv = Adversary(f"test_{policy}", "", g, (1, 2, 4), policy, start=1)
    keys = ("whitehouse2022_thm3_linear", "whitehouse2022_thm2_mixture_odometer", "nc_mixture_half_log",
            "nc_fixed_time_odometer")
    bs = [b for b in make_boundaries(F(2, 5), F(1, 2), include_negative=True) if b.key in keys]
    plan = make_plan(adv, bs, T, seed=4)
    res = simulate(plan, N, seed=4)
    for b, k, a in zip(bs, res.crossed, res.ambiguous):
        assert a == 0
        p_exact = _exact_markov_crossing(adv, plan, b, T)
        assert 0.005 < float(p_exact) < 0.9
        assert _cp_contains(N, k, float(p_exact), T), (b.key, k / N, float(p_exact))


def _two_sided_test_boundary(strict=True, two_sided=True):
    """A two-sided boundary low enough that both |L| sides are crossed often: b(V) = sqrt(V)/2 + V/4."""
    from reference.precision import iv_const

    # + sqrt(2)/1000 keeps b(V)/g irrational (an exactly integral threshold cannot be decided by interval arithmetic)
    return Boundary("test_two_sided" if two_sided else "test_one_sided", "", "test", "L", strict, F(1, 10), {},
                    iv=lambda c, V: c.sqrt(iv_const(c, V)) / 2 + iv_const(c, V) / 4 + c.sqrt(c.mpf(2)) / 1000,
                    np=lambda xp, V: xp.sqrt(V) / 2 + V / 4 + 2 ** 0.5 / 1000, two_sided=two_sided)


def test_boundary_two_sided_needs_L_target():
    with pytest.raises(ValueError, match="two_sided"):
        Boundary("x", "", "", "M", False, F(1, 10), {}, iv=None, np=None, two_sided=True)


@pytest.mark.parametrize("policy", ["fixed", "chasing", "random"])
def test_two_sided_crossing_frequency_vs_exact_enumeration(policy):
    """|L_n| > b(V_n): MC frequency (fixed and Markov kernels, both sides) vs exact enumeration at 50 digits (T = 14)."""
    T, N = 14, 60_000
    g = F(1, 10)
    adv = (Adversary("t2_fixed", "", g, (2, 1), "fixed", (0, 1)) if policy == "fixed"
           else Adversary(f"t2_{policy}", "", g, (1, 2, 4), policy, start=1))
    two, one = _two_sided_test_boundary(), _two_sided_test_boundary(two_sided=False)
    bs = [two, one]
    plan = make_plan(adv, bs, T, seed=4)
    res = simulate(plan, N, seed=4)
    p2 = _exact_markov_crossing(adv, plan, two, T)
    p1 = _exact_markov_crossing(adv, plan, one, T)
    assert float(p2) > float(p1) + 0.02  # the lower side matters here
    for b, k, a, p in zip(bs, res.crossed, res.ambiguous, (p2, p1)):
        assert a == 0
        assert _cp_contains(N, k, float(p), T), (b.key, k / N, float(p))


def test_two_sided_fixed_and_markov_kernels_agree_path_by_path():
    T = 64
    bs = [_two_sided_test_boundary(), _two_sided_test_boundary(strict=False)]
    p1 = make_plan(Adversary("same2", "", F(1, 20), (2,), "fixed", (0,)), bs, T)
    p2 = make_plan(Adversary("same2", "", F(1, 20), (2,), "random"), bs, T)
    for source in ("pcg", "philox"):
        c1, _ = crossing_masks(p1, 4000, seed=3, source=source)
        c2, _ = crossing_masks(p2, 4000, seed=3, source=source)
        assert (c1 == c2).all() and np.count_nonzero(c1) > 100


def test_rogers_thm6_5_boundary_vs_public_odometer():
    """rogers2016 Theorem 6.5 (corrected): the checked b(V) + (sum eps(e^eps-1)/2 - V/2) is reference.bounds.rogers2016.advanced_odometer,
    and b(V) <= the odometer (so a crossing of the odometer is a crossing of b: "pass" is conservative)."""
    d, n = F(1, 10), 100
    b = next(x for x in make_boundaries(d, F(10), n_records=n) if x.key == "rogers2016_thm6_5_odometer")
    assert b.two_sided and b.strict and b.params["grid_points"] == len(rogers2016.beta_grid(F(1, n * n))) == 14
    c = hp(60)
    for seq in ([F(1, 10)], [F(1, 20)] * 3, [F(1, 5)] * 30, [F(1, 20), F(1, 10), F(1, 5)] * 100, [F(1, 5)] * 1000):
        V = sum(e * e for e in seq)
        odo = mpq(c, mpf_to_fraction(rogers2016.advanced_odometer(seq, [0] * len(seq), d, n)))
        lo, hi = ends(b.iv(ivctx(200), V))
        mean_term = sum(mpq(c, e) * (c.exp(mpq(c, e)) - 1) / 2 for e in seq)
        assert mpq(c, hi) <= odo
        assert abs(mpq(c, lo) + mean_term - mpq(c, V) / 2 - odo) < c.mpf(10) ** -40


def test_rogers_control_vs_public_odometer():
    """nc_rogers_odometer_no_union_quarter_log is reference.bounds.rogers2016.advanced_odometer with its deviation term scaled by
    sqrt(log(1/delta)/(4 log(2|D|/delta))) and its mean term replaced by k_U V/2 >= sum eps(e^eps - 1)/2 (eps <= eps_max),
    so it lies above the broken odometer (a "fail" is conservative); k_U >= (e^eps_max - 1)/eps_max to 60 digits."""
    from reference.martingales.boundaries import rogers_mean_kappa

    c = hp(60)
    for em in (F(1, 5), F(1, 2), F(3)):
        k = rogers_mean_kappa(em)
        t = (c.exp(mpq(c, em)) - 1) / mpq(c, em)
        assert mpq(c, k) - c.mpf(10) ** -14 < t <= mpq(c, k)
    d, n = F(1, 10), 100
    b = next(x for x in make_boundaries(d, F(10), n_records=n, include_negative=True)
             if x.key == "nc_rogers_odometer_no_union_quarter_log")
    assert b.negative_control and b.two_sided and b.strict and b.params["eps_max"] == F(1, 5)
    m = len(rogers2016.beta_grid(F(1, n * n)))
    scale = c.sqrt(c.log(1 / mpq(c, d)) / (4 * c.log(2 * m / mpq(c, d))))
    for seq in ([F(1, 10)], [F(1, 20)] * 3, [F(1, 5)] * 30, [F(1, 20), F(1, 10), F(1, 5)] * 100, [F(1, 5)] * 1000):
        V = sum(e * e for e in seq)
        mean_term = sum(mpq(c, e) * (c.exp(mpq(c, e)) - 1) / 2 for e in seq)
        odo = mpq(c, mpf_to_fraction(rogers2016.advanced_odometer(seq, [0] * len(seq), d, n)))
        broken = mean_term + (odo - mean_term) * scale
        lo, hi = ends(b.iv(ivctx(200), V))
        assert broken <= mpq(c, lo)
        assert abs(mpq(c, lo) - mpq(c, b.params["k_U"] * V) / 2 - (odo - mean_term) * scale) < c.mpf(10) ** -40
        assert abs(mpq(c, hi) - _rogers_control_value(b, V, c)) < c.mpf(10) ** -40


def test_rogers_control_rejected_and_exact_crossing_exceeds_delta():
    """The Rogers control is rejected (CP lower bound > delta) and, independently, its crossing probability computed
    exactly exceeds delta: (i) two-sided, the checked boundary, by enumeration at 50 digits (the MC frequency lies in
    its CP interval); (ii) one-sided, the broken odometer itself with its true mean term sum eps(e^eps - 1)/2, by
    proofs/adaptive_rr.odometer_crossing at 60 digits (a lower bound of its two-sided crossing probability)."""
    T, N, e = 100, 60_000, F(1, 10)  # homogeneous eps = 1/10: V runs over [1/100, 1], eq. (17)'s range
    d = F(1, 10)
    b = next(x for x in make_boundaries(d, F(1), include_negative=True) if x.key == "nc_rogers_odometer_no_union_quarter_log")
    adv = Adversary("rog_nc", "", F(1, 20), (2,), "fixed", (0,))
    plan = make_plan(adv, [b], T, rounding="down", seed=6)
    res = simulate(plan, N, seed=6)
    k, a = res.crossed[0], res.ambiguous[0]
    assert a == 0
    assert binomial_exceeds(N, k, d + F(T, 2 ** 32), ALPHA), k / N
    p_two = _exact_markov_crossing(adv, plan, b, T)
    assert _cp_contains(N, k, float(p_two), T), (k / N, float(p_two))
    n = b.params["n_records"]
    m = len(rogers2016.beta_grid(F(1, n * n)))
    with mpmath.workdps(60):
        c = mpmath.mp
        mu = mpq(c, e) * (c.exp(mpq(c, e)) - 1) / 2
        scale = c.sqrt(c.log(1 / mpq(c, d)) / (4 * c.log(2 * m / mpq(c, d))))

        @functools.lru_cache(maxsize=None)
        def broken(V):
            steps = V / (e * e)
            assert steps.denominator == 1
            s_ = int(steps)
            odo = mpq(c, mpf_to_fraction(rogers2016.advanced_odometer([e] * s_, [0] * s_, d, n)))
            return s_ * mu + (odo - s_ * mu) * scale

        p_one = adaptive_rr.odometer_crossing(adaptive_rr.homogeneous(e), T, broken)
        p_chk = adaptive_rr.odometer_crossing(adaptive_rr.homogeneous(e), T,
                                              functools.lru_cache(maxsize=None)(lambda V: _bound_value(b, V, c)))
    # the checked control lies above the broken odometer; one side is part of the two-sided event
    assert p_chk <= p_one and p_chk <= p_two + mpmath.mpf(10) ** -30
    # exact values: p_chk = 0.2012, p_one = 0.2052 (one side alone exceeds delta twice over), p_two = 0.2929 (MC 0.2939)
    assert p_chk > 3 * float(d) / 2 and p_two > 5 * float(d) / 2, (float(p_chk), float(p_one), float(p_two))


def test_renyi_boundary_vs_public_odometer_and_kappa():
    """feldman2021 Renyi odometer: kappa <= tanh(eps_max/2)/eps_max (60 digits), R = sum eps tanh(eps/2) >= kappa V,
    and b(V) <= renyi_odometer_zcdp(R) for mixed sequences with eps <= eps_max."""
    c = hp(60)
    for em in (F(1, 5), F(1, 2), F(3)):
        k = renyi_kappa(em)
        t = c.tanh(mpq(c, em) / 2) / mpq(c, em)
        assert mpq(c, k) <= t < mpq(c, k) + c.mpf(10) ** -14
    d = F(1, 10)
    b = next(x for x in make_boundaries(d, F(10)) if x.key == "feldman2021_renyi_odometer_zcdp")
    assert b.params["eps_max"] == F(1, 5) and not b.strict and not b.two_sided
    for seq in ([F(1, 20)] * 7, [F(1, 5)] * 40, [F(1, 20), F(1, 10), F(1, 5)] * 300):
        V = sum(e * e for e in seq)
        R = sum(mpq(c, e) * c.tanh(mpq(c, e) / 2) for e in seq)
        assert R >= mpq(c, b.params["kappa"] * V)
        R_lo = mpf_to_fraction(c.mpf(R) * (1 - c.mpf(10) ** -30))
        odo = feldman2021.renyi_odometer_zcdp(R_lo, d)
        _, hi = ends(b.iv(ivctx(200), V))
        assert hi <= mpf_to_fraction(odo) + F(1, 10 ** 40)
    # the public function at R = kappa V is the boundary (its min over the grid, rounded up)
    V = F(7, 3)
    lo, hi = ends(b.iv(ivctx(200), V))
    r = mpf_to_fraction(feldman2021.renyi_odometer_zcdp(b.params["kappa"] * V, d))
    assert lo <= r <= hi + F(1, 10 ** 40)


@pytest.mark.parametrize("policy", ["chasing", "random"])
def test_renyi_odometer_crossing_vs_exact_enumeration(policy):
    """The Renyi odometer and its two controls (L target, >=): MC frequency vs exact enumeration at 50 digits (T = 14)."""
    T, N = 14, 60_000
    g = F(1, 10)
    adv = Adversary(f"r_{policy}", "", g, (1, 2, 4), policy, start=1)
    keys = ("feldman2021_renyi_odometer_zcdp", "nc_renyi_odometer_no_union", "nc_renyi_odometer_quarter_log")
    bs = [b for b in make_boundaries(F(1, 2), F(1, 2), include_negative=True, eps_max=F(2, 5)) if b.key in keys]
    plan = make_plan(adv, bs, T, seed=5)
    res = simulate(plan, N, seed=5)
    probs = []
    for b, k, a in zip(bs, res.crossed, res.ambiguous):
        assert a == 0
        p = _exact_markov_crossing(adv, plan, b, T)
        probs.append(float(p))
        assert _cp_contains(N, k, float(p), T), (b.key, k / N, float(p))
    assert probs[0] < min(probs[1:]) and min(probs[1:]) > 0.05


def test_stopping_time_adversary_is_dominated_by_homogeneous():
    """rogers2016 Algorithm 5 stops (freezes L and V), so for a boundary b(V) its crossing probability is at most the
    homogeneous adversary's: exact check with proofs/adaptive_rr.odometer_crossing (T = 30)."""
    from reference.simulate.rogers2016_games import StoppingTimeAdversary

    T, e = 24, F(1, 10)
    keys = ("whitehouse2022_thm2_mixture_odometer", "feldman2021_renyi_odometer_zcdp", "nc_fixed_time_odometer",
            "nc_renyi_odometer_no_union")
    bs = [b for b in make_boundaries(F(1, 3), F(1, 2), include_negative=True) if b.key in keys]
    with mpmath.workdps(40):
        for C in (F(1, 2),):
            alg5 = StoppingTimeAdversary(e, F(1, 3), C, 100, k=T)
            stops = 0
            for b in bs:
                @functools.lru_cache(maxsize=None)
                def bound(V, b=b):
                    return _bound_value(b, V, mpmath.mp)

                ps = adaptive_rr.odometer_crossing(alg5.markov, T, bound)
                ph = adaptive_rr.odometer_crossing(adaptive_rr.homogeneous(e), T, bound)
                assert ps <= ph + mpmath.mpf(10) ** -30, (b.key, C)
                stops += ps < ph - mpmath.mpf(10) ** -6
            assert stops >= 1  # stopping does remove crossings for some boundary


def test_fixed_and_markov_kernels_agree_path_by_path():
    """A Markov plan whose random table is constant is the homogeneous schedule: identical crossing masks."""
    T = 64
    bs = make_boundaries(F(1, 10), F(T, 100) * 4, include_negative=True)
    fixed = Adversary("same", "", F(1, 20), (2,), "fixed", (0,))
    markov = Adversary("same", "", F(1, 20), (2,), "random")
    p1 = make_plan(fixed, bs, T)
    p2 = make_plan(markov, bs, T)
    assert (p2.table == 0).all()
    for source in ("pcg", "philox"):
        c1, a1 = crossing_masks(p1, 4000, seed=2, source=source)
        c2, a2 = crossing_masks(p2, 4000, seed=2, source=source)
        assert (a1 == 0).all() and (a2 == 0).all()
        assert (c1 == c2).all() and np.count_nonzero(c1) > 100


@pytest.mark.skipif(shutil.which("g++") is None, reason="g++ not available")
def test_cuda_source_as_cpp_matches_numpy_philox(tmp_path):
    """The CUDA kernels' per-path functions, compiled as C++, reproduce the NumPy Philox route bit for bit."""
    T = 48
    bs = make_boundaries(F(1, 10), F(1), include_negative=True) + [_two_sided_test_boundary()]
    for adv in default_adversaries():
        plan = make_plan(adv, bs, T, seed=1)
        cr, am = crossing_masks(plan, 2000, seed=77, source="philox")
        hc, ha = run_host_harness(plan, 2000, seed=77, tag=stream_tag(adv.key), workdir=str(tmp_path / "h"))
        assert (cr == hc).all() and (am == ha).all(), adv.key


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not available")
def test_cuda_source_compiles_for_the_device(tmp_path):
    src = tmp_path / "k.cu"
    src.write_text(KERNEL_SOURCE)
    r = subprocess.run(["nvcc", "-ptx", "--fmad=false", "-arch=sm_90", str(src), "-o", str(tmp_path / "k.ptx")],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    ptx = (tmp_path / "k.ptx").read_text()
    assert ".entry fa_det_kernel" in ptx and ".entry fa_markov_kernel" in ptx


def test_valid_boundaries_pass_and_negative_controls_fail():
    """Quick sizes: every genuine boundary passes, both crossing controls are rejected (CP lower bound > delta)."""
    T, N = 200, 50_000
    d = F(1, 10)
    bs = make_boundaries(d, F(T, 100), include_negative=True)
    gen = [b for b in bs if not b.negative_control]
    neg = [b for b in bs if b.negative_control]
    hom = default_adversaries()[0]
    res = simulate(make_plan(hom, gen, T), N, seed=1)
    for b, k in zip(gen, res.crossed):
        assert not binomial_exceeds(N, k, b.delta_claim + F(T, 2 ** 32), ALPHA), b.key
    res = simulate(make_plan(hom, neg, T, rounding="down"), N, seed=1)
    for b, k in zip(neg, res.crossed):
        assert binomial_exceeds(N, k, b.delta_claim + F(T, 2 ** 32), ALPHA), (b.key, k / N)


def test_simulation_reproducible_across_threads_and_seeds():
    T = 100
    bs = make_boundaries(F(1, 10), F(1), include_negative=True)
    for adv in (default_adversaries()[0], default_adversaries()[2]):
        plan = make_plan(adv, bs, T)
        r1 = simulate(plan, 2 * CHUNK + 123, seed=8, backend=get_backend("numpy", threads=1))
        r2 = simulate(plan, 2 * CHUNK + 123, seed=8, backend=get_backend("numpy", threads=2))
        r3 = simulate(plan, 2 * CHUNK + 123, seed=9, backend=get_backend("numpy", threads=2))
        assert r1.crossed == r2.crossed and r1.ambiguous == r2.ambiguous
        assert r1.crossed != r3.crossed


def test_simulation_input_validation():
    plan = make_plan(default_adversaries()[0], make_boundaries(F(1, 10), F(1)), 10)
    with pytest.raises(ValueError, match="paths"):
        simulate(plan, 0)
    with pytest.raises(ValueError, match="steps"):
        make_plan(default_adversaries()[0], [], 0)
    with pytest.raises(ValueError, match="seed"):
        simulate(plan, 10, seed=-1)


# ==========================================================================
# compiled Markov kernel (numba, optional) vs the NumPy reference kernel
# ==========================================================================

def _ambiguity_test_boundary():
    """An M-target boundary that paths of the constant level 2g hit to within float rounding: b(V) = 2g - n mu(2g).

    With eps = 2g at every step, ``V = 4 g^2 n`` and ``M_n = g I_n - n mu``; ``M_n = b(V_n)`` iff ``I_n = 2``
    (n odd), and the float route of the Markov kernel evaluates both sides with errors far inside the band
    2^-30, so those paths must be counted ambiguous, not crossed (the case the band exists for).
    """
    from reference.precision import iv_const

    g, e = F(1, 20), F(1, 10)
    mu = float(e) * float(np.tanh(float(e) / 2))

    def iv(c, V):
        ee = iv_const(c, e)
        return 2 * iv_const(c, g) - iv_const(c, V / (4 * g * g)) * ee * c.tanh(ee / 2)

    return Boundary("test_ambiguous", "", "test", "M", False, F(1, 10), {}, iv=iv,
                    np=lambda xp, V: 2 * float(g) - (V / (4 * float(g) ** 2)) * mu)


def _jit_cases():
    """(plan, seed) pairs: both default adaptive adversaries against every boundary kind, and the ambiguity case."""
    T = 120
    bs = (make_boundaries(F(1, 10), F(T, 100), include_negative=True)
          + [_two_sided_test_boundary(), _two_sided_test_boundary(strict=False, two_sided=False)])
    assert any(b.two_sided for b in bs) and any(b.target == "M" for b in bs) and any(b.target == "L" for b in bs)
    cases = [(make_plan(adv, bs, T, seed=3), 11) for adv in default_adversaries() if not adv.deterministic]
    cases.append((make_plan(default_adversaries()[2], bs, T, rounding="down"), 12))
    flat = Adversary("flat", "", F(1, 20), (2,), "random")
    amb = [_ambiguity_test_boundary()] + [b for b in bs if b.target == "M"]
    cases.append((make_plan(flat, amb, 41), 13))
    wide = make_plan(default_adversaries()[3], bs, T, seed=3)
    wide.tol = np.full(T, 0.02)  # a band wide enough that many paths fall in it, at every distance from its edges
    cases.append((wide, 14))
    return cases


@needs_numba
def test_compiled_markov_kernel_matches_numpy_path_by_path():
    """For the same draws, the numba kernel gives the NumPy kernel's crossing and ambiguity masks, path by path.

    Covers the loss-chasing and random adaptive adversaries, one- and two-sided L-target boundaries, the
    M-target boundaries with their ambiguity band (a case with paths at float distance from a boundary, and
    a case with a band widened to 0.02), both roundings and both draw sources; every case must have
    crossings, and the two ambiguity cases ambiguous paths.
    """
    n_amb = 0
    for plan, seed in _jit_cases():
        for source in ("pcg", "philox"):
            c1, a1 = crossing_masks(plan, 3000, seed=seed, source=source, jit=False)
            c2, a2 = crossing_masks(plan, 3000, seed=seed, source=source, jit=True)
            assert (c1 == c2).all() and (a1 == a2).all(), (plan.adversary.key, source)
            assert np.count_nonzero(c1) > 100 and len(np.unique(c1)) > 5, plan.adversary.key  # varied masks
            n_amb += np.count_nonzero(a1)
            if plan.adversary.key == "flat" or plan.tol[0] == 0.02:
                assert np.count_nonzero(a1) > 30 and not (a1 & c1).any(), np.count_nonzero(a1)
    assert n_amb > 0


@needs_numba
def test_compiled_markov_kernel_counts_equal_numpy_across_threads():
    """Over several chunks: identical counts for the NumPy kernel (1 thread) and the numba kernel (1 and 2 threads)."""
    for plan, seed in _jit_cases()[:2] + _jit_cases()[-1:]:
        ref = simulate(plan, 2 * CHUNK + 123, seed=seed, backend=get_backend("numpy", threads=1), jit=False)
        assert ref.kernel == "numpy"
        for th in (1, 2):
            res = simulate(plan, 2 * CHUNK + 123, seed=seed, backend=get_backend("numpy", threads=th), jit=True)
            assert res.kernel == "numba" and res.threads == th
            assert res.crossed == ref.crossed and res.ambiguous == ref.ambiguous, (plan.adversary.key, th)
        assert sum(ref.crossed) > 0


def test_compiled_markov_kernel_falls_back_without_numba(monkeypatch):
    """Without numba the default runs the NumPy kernel; ``jit=True`` is refused by name; fixed plans never compile."""
    import reference.martingales.jit as jit_mod

    plan, seed = _jit_cases()[0]
    ref = simulate(plan, 5000, seed=seed, jit=False)
    monkeypatch.setattr(jit_mod, "numba_available", lambda: (False, "numba is not importable (test)"))
    res = simulate(plan, 5000, seed=seed)
    assert res.kernel == "numpy" and res.crossed == ref.crossed and res.ambiguous == ref.ambiguous
    with pytest.raises(ValueError, match="jit"):
        simulate(plan, 10, seed=seed, jit=True)
    with pytest.raises(ValueError, match="jit"):
        simulate(plan, 10, seed=seed, jit="yes")
    fixed = make_plan(default_adversaries()[0], make_boundaries(F(1, 10), F(1)), 10)
    assert simulate(fixed, 10, jit=None).kernel == "numpy"


@needs_numba
def test_compiled_markov_kernel_input_validation():
    from reference.martingales.jit import markov_block, markov_tables

    fixed = make_plan(default_adversaries()[0], make_boundaries(F(1, 10), F(1)), 8)
    with pytest.raises(ValueError, match="plan"):
        markov_tables(fixed)
    plan = make_plan(default_adversaries()[2], make_boundaries(F(1, 10), F(1)), 8)
    u = np.zeros((8, 5), dtype=np.uint32)
    with pytest.raises(ValueError, match="draws"):
        markov_block(plan, [(0, u.astype(np.int64))])
    with pytest.raises(ValueError, match="draws"):
        markov_block(plan, [(0, u[:4])])
    with pytest.raises(ValueError, match="draws"):
        markov_block(plan, [(4, u[:4])])
    cr, am = markov_block(plan, [(0, u[:4]), (4, u[4:])])
    assert cr.shape == am.shape == (len(plan.boundaries), 5)


# ==========================================================================
# backends
# ==========================================================================

def test_cupy_request_fails_cleanly_without_gpu():
    if GPU:
        pytest.skip("a GPU is present")
    with pytest.raises(BackendUnavailable, match="cupy"):
        get_backend("cupy")


def test_backend_name_validation():
    with pytest.raises(ValueError, match="backend"):
        get_backend("jax")
    with pytest.raises(ValueError, match="threads"):
        get_backend("numpy", threads=0)


@needs_gpu
def test_cupy_kernels_match_numpy_philox_bit_for_bit():
    """GPU: the fused kernels and the array code on CuPy give the NumPy Philox route's counts exactly."""
    be = get_backend("cupy")
    T = 128
    bs = make_boundaries(F(1, 10), F(T, 100) * 4, include_negative=True) + [_two_sided_test_boundary()]
    for adv in default_adversaries():
        plan = make_plan(adv, bs, T, seed=2)
        ref = simulate(plan, 3 * CHUNK + 17, seed=5, backend=get_backend("numpy"), source="philox")
        ker = simulate(plan, 3 * CHUNK + 17, seed=5, backend=be)
        arr = simulate(plan, 3 * CHUNK + 17, seed=5, backend=be, use_kernel=False)
        assert ker.crossed == ref.crossed and ker.ambiguous == ref.ambiguous, adv.key
        assert arr.crossed == ref.crossed and arr.ambiguous == ref.ambiguous, adv.key


@needs_gpu
def test_cupy_multi_launch_offsets_match_numpy(monkeypatch):
    """GPU: several launches (path offsets, a partial last block) give the single-chunk NumPy Philox counts exactly."""
    from reference.martingales import cuda as cuda_mod

    monkeypatch.setattr(cuda_mod, "MAX_PATHS_PER_LAUNCH", 1000)
    be = get_backend("cupy")
    T = 40
    bs = make_boundaries(F(1, 10), F(1), include_negative=True) + [_two_sided_test_boundary()]
    for adv in default_adversaries():
        plan = make_plan(adv, bs, T, seed=3)
        ref = simulate(plan, 4321, seed=9, backend=get_backend("numpy", threads=1), source="philox")
        ker = simulate(plan, 4321, seed=9, backend=be)
        assert ker.crossed == ref.crossed and ker.ambiguous == ref.ambiguous, adv.key


@needs_gpu
def test_cupy_cli_quick_run(capsys):
    """GPU: the quick CLI run with negative controls on the cupy backend: exit 0, every control rejected."""
    rc = run_cli(_parse(["--quick", "--backend", "cupy", "--include-negative-controls", "--paths", "40000"]))
    out = capsys.readouterr().out
    assert rc == 0, out
    assert out.count("(expected fail)") == 7 and "cupy" in out


@needs_gpu
def test_cupy_one_step_mc_runs():
    p = PROCESSES["whitehouse_exp"]
    rep = one_step_mc(p, get_backend("cupy"), n=20_000, seed=1, quick=True)
    assert rep.verdict == "pass"


# ==========================================================================
# CLI and report
# ==========================================================================

def _parse(argv):
    parser = argparse.ArgumentParser(prog="fullyadaptive")
    sub = parser.add_subparsers(dest="command")
    assert add_cli(sub) == ["check-martingales"]
    return parser.parse_args(["check-martingales"] + argv)


def test_cli_quick_table_with_negative_controls(capsys):
    """Quick mode: exit 0, the five columns, every genuine row 'pass', every control 'fail (expected fail)'."""
    args = _parse(["--quick", "--include-negative-controls", "--paths", "40000"])
    rc = run_cli(args)
    out = capsys.readouterr().out
    assert rc == 0, out
    head = out.splitlines()[0].split()
    assert head[:2] == ["process", "condition"] and "worst" in head and "margin" in head and "verdict" in head
    assert out.count("(expected fail)") == 7
    assert "CONTROL ESCAPED" not in out
    for key in ("whitehouse_exp", "rogers_lem4_2", "whitehouse_mixture", "whitehouse2023_lem6_renyi",
                "feldman2021_thm3_1", "whitehouse2022_thm3_linear", "whitehouse2022_thm2_stitched_odometer",
                "rogers2016_thm6_5_odometer",
                "feldman2021_renyi_odometer_zcdp", "feldman2021_renyi_odometer_kl", "nc_renyi_odometer_no_union",
                "nc_renyi_odometer_quarter_log", "nc_rogers_odometer_no_union_quarter_log"):
        assert key in out
    # the Rogers odometer as quoted by Whitehouse et al. is false as printed (errata W22-LEM4-QUOTE): not a genuine row
    assert "rogers_odometer_as_quoted" not in out


def test_cli_json_and_underpowered_controls_exit_3(capsys):
    """--json prints a parseable report; with too few paths the crossing controls escape: exit status 3."""
    args = _parse(["--quick", "--json", "--include-negative-controls", "--paths", "300", "--steps", "50",
                   "--mc-samples", "2000"])
    rc = run_cli(args)
    rep = json.loads(capsys.readouterr().out)
    assert rc == 3 == rep["exit_status"]
    crossing = [r for r in rep["rows"] if r["kind"] == "crossing"]
    assert {r["details"]["boundary"] for r in crossing} >= {"nc_mixture_half_log", "nc_fixed_time_odometer",
                                                          "nc_renyi_odometer_no_union", "nc_renyi_odometer_quarter_log",
                                                          "nc_rogers_odometer_no_union_quarter_log"}
    assert all(r["verdict"] == "pass" for r in rep["rows"] if not r["negative_control"])
    assert rep["command"].startswith("fullyadaptive check-martingales")


@pytest.mark.parametrize("argv,msg", [(["--delta", "2"], "delta"), (["--paths", "0"], "paths"),
                                      (["--seed", "-3"], "seed"), (["--alpha", "0"], "alpha")])
def test_cli_usage_errors_exit_2(capsys, argv, msg):
    rc = run_cli(_parse(["--quick"] + argv))
    err = capsys.readouterr().err
    assert rc == 2 and msg in err


def test_cli_cupy_without_gpu_exit_2(capsys):
    if GPU:
        pytest.skip("a GPU is present")
    rc = run_cli(_parse(["--quick", "--backend", "cupy"]))
    assert rc == 2 and "cupy" in capsys.readouterr().err


def test_check_config_validation():
    with pytest.raises(ValueError, match="steps"):
        CheckConfig(steps=2 ** 21)
    with pytest.raises(ValueError, match="mc_samples"):
        CheckConfig(mc_samples=0)


# ==========================================================================
# slow: full-size runs (the root conftest skips them unless selected with -m slow)
# ==========================================================================

@pytest.mark.slow
def test_full_default_run_passes_with_negative_controls_rejected():
    rep = run_checks(CheckConfig(include_negative_controls=True))
    assert rep["exit_status"] == 0


@pytest.mark.slow
def test_full_long_horizon_run_new_odometers():
    """T = 2000, 200000 paths: rogers2016 Thm 6.5 (corrected, two-sided) and the feldman2021 Renyi odometer pass under every
    adversary; the Renyi controls (no union bound, quarter log) and the older controls are rejected."""
    rep = run_checks(CheckConfig(steps=2000, paths=200_000, mc_samples=20_000, quick=True, include_negative_controls=True))
    assert rep["exit_status"] == 0
    rows = {r["process"]: r for r in rep["rows"] if r["kind"] == "crossing"}
    for key in ("rogers2016_thm6_5_odometer", "feldman2021_renyi_odometer_zcdp"):
        assert rows[key]["verdict"] == "pass" and len(rows[key]["details"]["adversaries"]) == 4
    for key in ("nc_renyi_odometer_no_union", "nc_renyi_odometer_quarter_log", "nc_rogers_odometer_no_union_quarter_log"):
        assert rows[key]["verdict"] == "fail"


@pytest.mark.slow
@pytest.mark.parametrize("key", list(PROCESSES))
def test_full_grids_exact_and_mc(key):
    p = PROCESSES[key]
    ex = one_step_exact(p)
    mc = one_step_mc(p, get_backend("numpy"), n=200_000, seed=1)
    assert ex.verdict == "pass" and mc.verdict == "pass"
