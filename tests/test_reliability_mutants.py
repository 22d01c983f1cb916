"""Direct property tests that kill planted mutants (benchmarks/mutation.py re-plants them).

Each test compares a shipped value with an independent route that shares no code with it:
(b) the feldman2021 Renyi odometer against its formula written out at 60 digits, union bound included;
(d) whitehouse2023's homogeneous round count against a brute-force count of the exact rule;
(e) the exact verifier's weights and enclosure against high-precision and closed-form routes;
(f) the Monte Carlo one-step supermartingale check against a process whose one-step mean is 1.005.
"""
from fractions import Fraction as F

import mpmath
import numpy as np
import pytest
from hypothesis import example, given, settings, strategies as st


def _m(q):
    q = F(q)
    return mpmath.mpf(q.numerator) / q.denominator


# --------------------------------------------------------------------------
# (b) feldman2021 renyi_odometer_zcdp: min_a a R + log(|A|/delta)/(a - 1)
# --------------------------------------------------------------------------

@given(st.fractions(min_value=0, max_value=50, max_denominator=1000),
       st.sampled_from([F(1, 10), F(1, 10**6), F(1, 10**30)]),
       st.lists(st.fractions(min_value=F(101, 100), max_value=200, max_denominator=100), min_size=1, max_size=8))
@example(F(1, 20), F(1, 10**6), [F(2), F(4), F(8), F(16), F(32)])
@example(F(0), F(1, 10), [F(3, 2)])
def test_renyi_odometer_matches_the_union_bound_formula(R, delta, alphas):
    """The odometer is min over the grid A of alpha R + log(|A|/delta)/(alpha - 1), |A| the number
    of distinct orders (Ville at level delta/|A| plus a union bound); second route: 60-digit mpmath."""
    from reference.bounds.feldman2021 import renyi_odometer_zcdp

    got = renyi_odometer_zcdp(R, delta, alphas, dps=30)
    grid = sorted(set(alphas))
    with mpmath.workdps(60):
        k = len(grid)
        ref = min(_m(a) * _m(R) + mpmath.log(k / _m(delta)) / (_m(a) - 1) for a in grid)
        assert got >= ref
        assert got - ref <= abs(ref) * mpmath.mpf(10) ** -28


def test_renyi_odometer_union_bound_is_visible_on_a_grid_of_many_orders():
    """With 64 orders the union bound adds log(64)/(alpha - 1) to every candidate: dropping it is a large error."""
    from reference.bounds.feldman2021 import renyi_odometer_zcdp

    grid = [F(2) + F(j, 4) for j in range(64)]
    got = renyi_odometer_zcdp("1/100", "1e-6", grid)
    with mpmath.workdps(60):
        without = min(_m(a) / 100 + mpmath.log(10**6) / (_m(a) - 1) for a in grid)
        assert got - without > mpmath.mpf("0.1")


# --------------------------------------------------------------------------
# (d) whitehouse2023 filter_rounds_homogeneous: the delta''-limited count
# --------------------------------------------------------------------------

def _brute_rounds(e0, d0, et, dp, d2):
    """Largest k with the exact Theorem 1 rule admitting rounds 1..k: f(k eps0^2) <= eps and k delta0 <= delta''."""
    from reference.bounds.whitehouse2023 import filter_admits

    k = 0
    while filter_admits((k + 1) * e0 * e0, et, dp) and (k + 1) * d0 <= d2:
        k += 1
    return k


@given(st.fractions(min_value=F(1, 20), max_value=1, max_denominator=50),
       st.integers(1, 40), st.integers(1, 40),
       st.sampled_from([F(1, 10), F(1, 1000)]))
@example(F(1, 10), 5, 13, F(1, 1000))  # delta''/delta0 = 2.6: floor 2, round 3
@example(F(1, 10), 2, 3, F(1, 1000))   # 1.5: floor 1, round 2 (banker's rounding would give 2)
def test_homogeneous_round_count_equals_brute_force(e0, num, den, dp):
    """delta''-limited regime (a large eps budget): K must be floor(delta''/delta0), as counted one round at a time."""
    from reference.bounds.whitehouse2023 import filter_rounds_homogeneous

    d0 = F(1, 1000)
    d2 = d0 * F(num, den)  # delta''/delta0 = num/den: an integer or a fraction with any remainder
    et = F(50)
    assert filter_rounds_homogeneous(e0, d0, et, dp, d2) == _brute_rounds(e0, d0, et, dp, d2)


def test_homogeneous_round_count_both_limits():
    from reference.bounds.whitehouse2023 import filter_rounds_homogeneous

    for e0, d0, et, dp, d2 in ((F(1, 5), F(1, 100), F(1), F(1, 10), F(7, 200)),   # delta-limited: 3.5 -> 3
                               (F(1, 5), F(1, 1000), F(1), F(1, 10), F(1, 2)),    # eps-limited
                               (F(1, 3), F(0), F(2), F(1, 10**6), F(0))):
        assert filter_rounds_homogeneous(e0, d0, et, dp, d2) == _brute_rounds(e0, d0, et, dp, d2)


# --------------------------------------------------------------------------
# (e) the exact verifier: weights rounded outward, enclosure brackets a closed form
# --------------------------------------------------------------------------

@given(st.fractions(min_value=F(1, 20), max_value=3, max_denominator=40),
       st.sampled_from([F(1, 10), F(1, 7), F(1, 3), F(1, 2)]), st.integers(0, 300))
def test_verifier_weights_are_rounded_outward(eps, u, i):
    """Each double weight pair brackets 1 - e^{eps - k u} computed at 100 digits (k the i-th index above eps)."""
    from reference.verify.engine import _Weights

    W = _Weights(eps, u)
    W._extend(W.k0 + i)
    k = W.k0 + i
    with mpmath.workdps(100):
        w = 1 - mpmath.exp(_m(eps - k * u))
        assert mpmath.mpf(W.lo[i]) <= w <= mpmath.mpf(W.hi[i])
    assert W.hi[i] - W.lo[i] <= 4 * np.spacing(W.hi[i])


def _rr_hockey_stick_closed_form(e0: F, k: int, eps: F, prec: int = 400):
    """E_P[(1 - e^{eps - L})_+] for k non-adaptive RR(e0) steps, L = (2j - k) e0 with j ~ Bin(k, p),
    p = e^e0/(1 + e^e0): binomial weights exact (integers), transcendental factors in interval arithmetic."""
    c = mpmath.iv
    with mpmath.workprec(prec):
        c.prec = prec
        z = c.exp(c.mpf(e0.numerator) / e0.denominator)
        p, q = z / (1 + z), 1 / (1 + z)
        tot = c.mpf(0)
        from math import comb
        for j in range(k + 1):
            L = (2 * j - k) * e0
            if L > eps:
                x = eps - L
                tot += comb(k, j) * p ** j * q ** (k - j) * (1 - c.exp(c.mpf(x.numerator) / x.denominator))
        return mpmath.mpf(tot.a), mpmath.mpf(tot.b)


@pytest.mark.parametrize("e0, k, eps", [(F(1, 10), 40, F(1, 2)), (F(1, 4), 16, F(1)), (F(1, 2), 9, F(3, 4))])
def test_verifier_enclosure_brackets_the_closed_form(e0, k, eps):
    """A small non-adaptive RR composition (the homogeneous adversary, a filter that admits exactly k
    rounds): the verifier's [lo, hi] must contain the binomial closed form's enclosure."""
    from reference.verify import engine as V

    class FirstK(V.Target):
        kind, stat, supports_delta, name = "filter", "V", True, "first_k"

        def __init__(self):
            self.eps, self.delta = eps, F(1)

        def admits(self, state, e, d):
            return state.V + e * e <= k * e0 * e0

    r = V.verify(FirstK(), V.Homogeneous(e0), k, retry=False)
    lo, hi = _rr_hockey_stick_closed_form(e0, k, eps)
    assert r.lo <= lo and hi <= r.hi, (r.lo, lo, hi, r.hi)
    assert r.hi - r.lo <= 1e-9 * hi


# --------------------------------------------------------------------------
# (f) the Monte Carlo one-step check must have power against E R = 1.005
# --------------------------------------------------------------------------

def _scaled_exp_process(factor: F, lam: F, eps: F):
    """The whitehouse_exp ratio exp(lam (l - mu) - lam^2 eps^2 / 2), rescaled so its one-step mean under RR(eps) is ``factor``."""
    from reference.martingales.laws import StepLaw
    from reference.martingales.processes import Process

    law = StepLaw("rr", eps)
    with mpmath.workdps(60):
        e, la = _m(eps), _m(lam)
        p = 1 / (1 + mpmath.exp(-e))
        mu = e * mpmath.tanh(e / 2)
        m0 = (p * mpmath.exp(la * (e - mu)) + (1 - p) * mpmath.exp(la * (-e - mu))) * mpmath.exp(-la * la * e * e / 2)
        s = F(mpmath.nstr(_m(factor) / m0, 40))
    A2 = s * s

    def coeffs(state, law_, mu_, num):
        return A2, F(0), lam, -num(lam) * mu_ - num(lam * lam * law_.v / 2)

    proc = Process("test_scaled_exp", "scaled exp", "test", "s exp(lam M - lam^2 V/2)", ("lam",), ("rr",), coeffs)
    return proc, [({"lam": lam}, law)]


@pytest.mark.parametrize("lam, eps", [(F(1), F(1, 10)), (F(1, 2), F(1, 2))])
def test_monte_carlo_check_rejects_a_one_step_mean_of_1_005(lam, eps):
    from reference.martingales.backend import get_backend
    from reference.martingales.processes import one_step_mc

    be = get_backend("numpy")
    bad, grid = _scaled_exp_process(F(1005, 1000), lam, eps)
    rep = one_step_mc(bad, be, grid=grid, seed=1)  # the default sample size and alpha
    assert rep.verdict == "fail", rep
    good, grid = _scaled_exp_process(F(1), lam, eps)
    assert one_step_mc(good, be, grid=grid, seed=1).verdict == "pass"
