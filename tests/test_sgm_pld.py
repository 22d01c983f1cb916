"""The certified discretised-PLD bracket of the Poisson-subsampled Gaussian (reference.profiles.sgm_pld)."""
from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest

from reference.precision import mpf_to_fraction
from reference.profiles import gaussian as g
from reference.profiles import sgm_pld as m
from reference.profiles import subsampled_gaussian as sgm
from reference.profiles.check import profile

F = mpf_to_fraction


def _hs_closed(q, s, t, reverse=False):
    """H_t(P || Q) (or H_t(Q || P)) of one step, closed form in mpmath (a second route, 40 digits)."""
    q, s, t = mpmath.mpf(q), mpmath.mpf(s), mpmath.mpf(t)
    if t <= 0:
        return mpmath.mpf(1)
    P = lambda x: (1 - q) * mpmath.ncdf(-x / s) + q * mpmath.ncdf(-(x - 1) / s)  # noqa: E731  survival of P at x
    Q = lambda x: mpmath.ncdf(-x / s)  # noqa: E731
    ell = lambda x: mpmath.log(1 - q + q * mpmath.exp((2 * x - 1) / (2 * s * s)))  # noqa: E731
    lt = mpmath.log(t)
    # x* with l(x*) = log t (P || Q) or -l(x*) = log t (Q || P)
    target = -lt if reverse else lt
    if q < 1 and target <= mpmath.log(1 - q):
        x0 = mpmath.ninf
    else:
        x0 = s * s * mpmath.log((mpmath.exp(target) - (1 - q)) / q) + mpmath.mpf(1) / 2 if q < 1 else s * s * target + mpmath.mpf(1) / 2
    if not reverse:  # {l > log t} = {x > x0}
        pm, qm = (1, 1) if x0 == mpmath.ninf else (P(x0), Q(x0))
        return max(mpmath.mpf(0), pm - t * qm)
    # Q || P: {-l > log t} = {x < x0}
    if x0 == mpmath.ninf:
        return mpmath.mpf(0)
    return max(mpmath.mpf(0), (1 - Q(x0)) - t * (1 - P(x0)))


def _truth(q, s, k, eps):
    """delta(eps) of the k-fold composition, k in {1, 2}, by mpmath.quad (k = 2: conditioning on the first step)."""
    mpmath.mp.dps = 40
    e = mpmath.mpf(eps)
    if k == 1:
        return max(_hs_closed(q, s, mpmath.exp(e)), _hs_closed(q, s, mpmath.exp(e), True))
    qq, ss = mpmath.mpf(q), mpmath.mpf(s)
    p = lambda x: (1 - qq) * mpmath.npdf(x, 0, ss) + qq * mpmath.npdf(x, 1, ss)  # noqa: E731
    qd = lambda x: mpmath.npdf(x, 0, ss)  # noqa: E731
    ell = lambda x: mpmath.log(p(x) / qd(x))  # noqa: E731
    f = mpmath.quad(lambda x: p(x) * _hs_closed(q, s, mpmath.exp(e - ell(x))), [-mpmath.inf, -2, 0, 1, 3, mpmath.inf])
    r = mpmath.quad(lambda x: qd(x) * _hs_closed(q, s, mpmath.exp(e + ell(x)), True), [-mpmath.inf, -2, 0, 1, 3, mpmath.inf])
    return max(f, r)


@pytest.mark.parametrize("q,s,k,eps", [("0.01", "1.1", 1, "0.001"), ("0.1", "1", 1, "0.1"), ("0.5", "2", 1, "0.5"),
                                       ("0.1", "1", 2, "0.2"), ("0.5", "1.5", 2, "1")])
def test_small_k_against_quadrature(q, s, k, eps):
    b = m.sgm_pld_delta_bracket(q, s, k, eps)
    t = _truth(q, s, k, eps)
    assert b.lo <= t * (1 + mpmath.mpf(10) ** -20) and t <= b.hi * (1 + mpmath.mpf(10) ** -20), (b.lo, t, b.hi)
    assert b.hi - t < mpmath.mpf("0.01") * t + mpmath.mpf(10) ** -12  # the upper end is tight at second order


def test_negative_control_rounding_down_is_caught():
    """A broken 'upper' end that rounds the losses DOWN (the lower vectors) falls below the quadrature truth."""
    C = m.sgm_pld("0.5", "1.5", 1)
    broken = m.PLDComposition(C.q, C.sigma, C.k, C.bits, C.P_lo, C.Q_lo, C.P_lo, C.Q_lo)
    t = _truth("0.5", "1.5", 1, "0.5")
    assert broken.delta_upper("0.5") < t <= C.delta_upper("0.5")


def test_q_one_is_the_gaussian():
    # q = 1: the Gaussian mechanism, k = 10, sigma = 2: mu = sqrt(10)/2 (dong2022 Cor. 2.13, exact)
    mu = mpmath.sqrt(10) / 2
    for eps in ("0.5", "2"):
        b = m.sgm_pld_delta_bracket(1, 2, 10, eps)
        lo = g.gdp_delta_lower(Fraction(eps), Fraction(3162277660168379, 2 * 10 ** 15), dps=20)  # mu rounded down
        hi = g.gdp_delta(Fraction(eps), Fraction(3162277660168380, 2 * 10 ** 15), dps=20)  # mu rounded up
        assert b.lo <= hi and lo <= b.hi, (b.lo, lo, hi, b.hi)
        assert b.hi - b.lo < mpmath.mpf("0.05") * hi
    del mu


def test_lower_below_upper_and_refinement_narrows():
    widths = []
    for bits in (9, 11):
        C = m.sgm_pld("0.05", "1", 100, grid_bits=bits)
        for eps in ("0", "0.5", "1", "2", "4"):
            assert C.delta_lower(eps) <= C.delta_upper(eps)
        widths.append(C.delta_upper("1") - C.delta_lower("1"))
    assert widths[1] < widths[0]


def test_readme_example_tighter_than_rdp():
    q, s, k = "0.01", "1.1", 10000
    old_d = sgm.sgm_delta_bracket(q, s, k, 6, dps=20)
    old_e = sgm.sgm_eps_bracket(q, s, k, "1e-5", dps=20)
    C = m.sgm_pld(q, s, k)
    d, e = C.delta_bracket(6), C.eps_bracket("1e-5")
    # both are certified: they overlap, and the PLD upper ends beat the RDP conversion
    assert d.lo <= old_d.hi and old_d.lo <= d.hi
    assert e.lo <= old_e.hi and old_e.lo <= e.hi
    assert d.hi < old_d.hi and e.hi < old_e.hi
    assert e.hi < mpmath.mpf("5.3") and d.hi < mpmath.mpf("1.6e-6")
    # check() uses the tighter ends and names the source
    b = profile(f"subsampled-gaussian:q={q},sigma={s}x{k}", "eps", "1e-5")
    assert b.hi == min(e.hi, old_e.hi) and b.lo == max(e.lo, old_e.lo)
    assert "connect the dots" in b.hi_source


def test_interval_ends_are_converted_in_their_direction_whatever_the_global_precision():
    """_dn/_up read an interval's own ends (never mpmath.mpf(interval), which rounds to nearest at the caller's
    global precision); the exp(-h) factor of the hockey-stick sum is bracketed at 53 bits as at 300."""
    from fractions import Fraction

    import mpmath

    from reference.precision import _ctx
    from reference.profiles import sgm_pld as S

    c = _ctx(120)
    r = c.exp(-c.mpf(1) / (1 << 12))
    lo, hi = Fraction(r.a._mpi_[0][1]) * Fraction(2) ** r.a._mpi_[0][2], Fraction(r.b._mpi_[1][1]) * Fraction(2) ** r.b._mpi_[1][2]
    for dps in (5, 15, 300):
        with mpmath.workdps(dps):
            assert Fraction(S._dn(r.a)) <= lo and Fraction(S._up(r.b)) >= hi
            assert Fraction(S._dn(Fraction(1, 3))) <= Fraction(1, 3) <= Fraction(S._up(Fraction(1, 3)))
    vals = []
    for dps in (5, 15, 300):
        S._compose.cache_clear()
        with mpmath.workdps(dps):
            vals.append(S.sgm_pld_delta("0.01", "1.1", 100, "1"))
    assert vals[0] == vals[1] == vals[2]
