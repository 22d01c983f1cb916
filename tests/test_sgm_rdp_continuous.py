"""RDP of the Poisson-subsampled Gaussian at continuous (rational) orders, and the conversion optimised over them.

Claims tested (reference.profiles.subsampled_gaussian.sgm_rdp_continuous and the brackets' upper end):

* at an integer order the Arb-quadrature enclosure of eps(alpha) contains the binomial formula's
  (MTZ19 Section 3.3, summed exactly in interval arithmetic: a route that shares nothing with the
  quadrature);
* at fractional orders it contains the defining integral computed by a second, naive route:
  ``mpmath.quad`` (tanh-sinh) of phi_sigma(z) ((1-q) + q e^((2z-1)/(2 sigma^2)))^alpha at 50 digits;
* a deliberately rounded-down A_alpha gives an "upper end" below that truth (the check has teeth);
* the conversion at the continuous optimum is never worse than at the best integer order, the
  brackets' upper end is their minimum with its source named, and on DP-SGD workloads it is at most
  dp-accounting's RDP answer (whose fractional-order series sums absolute values: an upper bound on A_alpha).
"""
from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest

from reference.precision import certified, check, mpf_to_fraction
from reference.profiles import subsampled_gaussian as sgm

F = Fraction
WORKLOAD = ("0.01", "1.1", 10000, "1e-5")  # the user's report


def _quad_eps(q, sigma, alpha, dps=50):
    """Second route: eps(alpha) = log(int phi_sigma(z) r(z)^alpha dz)/(alpha - 1) by mpmath.quad at ``dps`` digits.

    Returns (value, relative error estimate of the quadrature) as Fractions; private mpmath context."""
    c = mpmath.MPContext()
    c.dps = dps
    q, s, a = (c.mpf(F(x).numerator) / F(x).denominator for x in (q, sigma, alpha))
    f = lambda z: c.npdf(z, 0, s) * ((1 - q) + q * c.exp((2 * z - 1) / (2 * s * s))) ** a  # noqa: E731
    pts = sorted({-c.inf, -12 * s, c.mpf(0), c.mpf(1) / 2, a / 2, a, a + 12 * s, c.inf})
    A, err = c.quad(f, pts, error=True)
    return mpf_to_fraction(c.log(A) / (a - 1)), mpf_to_fraction(err / (A - 1 if A > 1 else A))


def _binomial_enclosure(q, sigma, alpha: int, dps=60):
    qq, s = check("q", q, sgm.QDOM), check("sigma", sigma, sgm.P)
    f = lambda c, x, y: sgm._rdp_formula(c, x, y, alpha)  # noqa: E731
    return (mpf_to_fraction(certified(f, (qq, s), "lower", dps)), mpf_to_fraction(certified(f, (qq, s), "upper", dps)))


@pytest.mark.parametrize("q,sigma,alpha", [("0.01", "1.1", 2), ("0.01", "1.1", 32), ("0.001", "0.8", 8), ("0.1", "1", 3),
                                           ("0.256", "4", 5), ("1e-6", "1", 3), ("0.01", "0.6", 64), ("1", "3/2", 7)])
def test_integer_orders_contain_the_binomial_formula(q, sigma, alpha):
    """[binomial enclosure at 60 digits] is inside [quadrature enclosure at 40 digits], and the latter is 40 digits tight."""
    enc = sgm.sgm_rdp_continuous_enclosure(q, sigma, alpha, dps=40)
    lo, hi = mpf_to_fraction(enc.lo), mpf_to_fraction(enc.hi)
    blo, bhi = _binomial_enclosure(q, sigma, alpha)
    assert lo <= blo <= bhi <= hi, (float(lo), float(blo), float(hi))
    assert hi - lo <= hi * F(1, 10 ** 40)
    assert mpf_to_fraction(sgm.sgm_rdp_continuous(q, sigma, alpha, dps=40)) == hi


@pytest.mark.parametrize("q,sigma,alpha", [("0.01", "1.1", "3/2"), ("0.01", "1.1", "299/64"), ("0.256", "4", "5/2"),
                                           ("0.001", "0.8", "29/4"), ("0.1", "1", "1001/1000"), ("0.02", "0.7", "2077/1024")])
def test_fractional_orders_contain_the_quadrature_truth(q, sigma, alpha):
    """lo <= eps_quad(alpha) <= hi, where eps_quad is mpmath.quad of the defining integral at 50 digits (second route);
    the enclosure (40 digits) is much wider than quad's error estimate, so the check is one-sided-safe."""
    enc = sgm.sgm_rdp_continuous_enclosure(q, sigma, alpha, dps=40)
    lo, hi = mpf_to_fraction(enc.lo), mpf_to_fraction(enc.hi)
    truth, rel_err = _quad_eps(q, sigma, alpha)
    assert rel_err < F(1, 10 ** 45)
    assert lo <= truth <= hi, (float(lo), float(truth), float(hi))
    assert hi - lo <= hi * F(1, 10 ** 40)


def test_negative_control_rounded_down_A_falls_below_the_truth():
    """An 'upper end' built from A_alpha rounded DOWN (the enclosure's lower end, lowered by 10^-30) is below
    the quadrature truth, while the shipped upper end is above it: the containment check detects a wrong direction."""
    q, sigma, alpha = "0.01", "1.1", "299/64"
    a = F(alpha)
    truth, _ = _quad_eps(q, sigma, alpha)
    enc = sgm.sgm_rdp_continuous_enclosure(q, sigma, alpha, dps=40)
    c = mpmath.MPContext()
    c.prec = 300
    A_down = c.exp(c.mpf(enc.lo) * (a.numerator - a.denominator) / a.denominator) * (1 - c.mpf(10) ** -30)
    broken = mpf_to_fraction(c.log(A_down)) / (a - 1)
    assert broken < truth <= mpf_to_fraction(sgm.sgm_rdp_continuous(q, sigma, alpha, dps=40))


def test_precision_ladder_and_flint_state():
    """The same order at 20, 50 and 80 digits gives nested-or-overlapping enclosures, each as tight as asked;
    python-flint's global precision is restored afterwards."""
    import flint

    before = flint.ctx.prec
    encs = [sgm.sgm_rdp_continuous_enclosure("0.004", "1", "41/8", dps=d) for d in (20, 50, 80)]
    assert flint.ctx.prec == before
    ends = [(mpf_to_fraction(e.lo), mpf_to_fraction(e.hi)) for e in encs]
    for (lo, hi), d in zip(ends, (20, 50, 80)):
        assert hi - lo <= hi * F(1, 10 ** d)
    assert max(lo for lo, _ in ends) <= min(hi for _, hi in ends)


def test_pinned_value_is_machine_independent():
    """A value pinned to 25 digits (rounded up; mpmath.quad gives 9.5545285718748317959...e-5): the function steers
    its work only with Arb balls and IEEE +, *, sqrt, so every machine prints the same digits."""
    from reference.precision import directed_decimal

    v = sgm.sgm_rdp_continuous("0.01", "1.1", "3/2", dps=30)
    assert directed_decimal(v, 25, "upper") == "0.00009554528571874831795891704"
    assert sgm.sgm_rdp_continuous("0.01", "1.1", "3/2", dps=30) == v  # and the same value on a second call


def test_domain_is_refused_outside():
    for bad in (1, "1/2", 0, 1025):
        with pytest.raises(ValueError):
            sgm.sgm_rdp_continuous("0.01", "1.1", bad)


@pytest.mark.parametrize("q,sigma,k,delta", [WORKLOAD, ("0.001", "0.8", 100000, "1e-6"), ("0.1", "1", 100, "1e-5"),
                                             ("0.256", "4", 2000, "1e-5"), ("0.01", "2", 1000, "1e-6")])
def test_continuous_optimum_never_worse_than_integer(q, sigma, k, delta):
    """sgm_eps_continuous <= sgm_eps (best integer order): the searched grid n/1024 contains the integer orders
    around the integer optimum, and the search is exact on the unimodal model curve."""
    old = mpf_to_fraction(sgm.sgm_eps(q, sigma, k, delta, dps=20))
    new, alpha = sgm.sgm_eps_continuous(q, sigma, k, delta, dps=20)
    assert mpf_to_fraction(new) <= old
    assert alpha > 1 and alpha.denominator <= sgm.ORDER_GRID


def test_delta_continuous_never_worse_than_integer():
    q, sigma, k, eps = "0.01", "1.1", 10000, "4"
    old = mpf_to_fraction(sgm.sgm_delta(q, sigma, k, eps, dps=20))
    new, alpha = sgm.sgm_delta_continuous(q, sigma, k, eps, dps=20)
    assert mpf_to_fraction(new) <= old
    b = sgm.sgm_delta_bracket(q, sigma, k, eps, dps=20)
    assert mpf_to_fraction(b.hi) == min(old, mpf_to_fraction(new))
    assert b.lo <= b.hi


def test_workload_upper_end_beats_the_old_one_and_dp_accounting():
    """q = 0.01, sigma = 1.1, k = 10^4, delta = 1e-5: new upper end <= old (integer orders) and <= dp-accounting's
    RdpAccountant answer * (1 + 1e-6) (same conversion: CKS Prop. 12 / Balle et al. Thm 21, its orders 1.1..10.9 by 0.1,
    11..63, 128..1024).  Measured: old 5.6543080, new 5.6318097 (alpha = 299/64), dp-accounting 5.6320107."""
    b = sgm.sgm_eps_bracket(*WORKLOAD, dps=20)
    old = mpf_to_fraction(sgm.sgm_eps(*WORKLOAD, dps=20))
    hi = mpf_to_fraction(b.hi)
    assert hi <= old and hi < old * F(9999, 10000)
    assert b.hi_source.startswith("mironov2019 Sec. 3.3 (RDP of the SGM at the rational order alpha = ")
    assert b.lo <= b.hi and mpf_to_fraction(b.lo) > 3
    dp_event = pytest.importorskip("dp_accounting.dp_event")
    rdp = pytest.importorskip("dp_accounting.rdp")
    q, sigma, k, delta = WORKLOAD
    acc = rdp.RdpAccountant()
    acc.compose(dp_event.PoissonSampledDpEvent(float(q), dp_event.GaussianDpEvent(float(sigma))), k)
    theirs = acc.get_epsilon(float(delta))
    assert float(hi) <= theirs * (1 + 1e-6), (float(hi), theirs)


@pytest.mark.slow
@pytest.mark.parametrize("q,sigma,k,delta", [("0.004", "1", 37500, "1e-5"), ("0.001", "0.8", 100000, "1e-6"),
                                             ("0.1", "1", 100, "1e-5"), ("0.256", "4", 2000, "1e-5"),
                                             ("0.02", "0.7", 5000, "1e-5"), ("0.01", "2", 1000, "1e-6")])
def test_dp_sgd_workloads_against_dp_accounting(q, sigma, k, delta):
    """On DP-SGD workloads the bracket's upper end is <= dp-accounting's RDP epsilon * (1 + 1e-6)."""
    dp_event = pytest.importorskip("dp_accounting.dp_event")
    rdp = pytest.importorskip("dp_accounting.rdp")
    acc = rdp.RdpAccountant()
    acc.compose(dp_event.PoissonSampledDpEvent(float(q), dp_event.GaussianDpEvent(float(sigma))), k)
    theirs = acc.get_epsilon(float(delta))
    b = sgm.sgm_eps_bracket(q, sigma, k, delta, dps=20)
    assert float(mpf_to_fraction(b.hi)) <= theirs * (1 + 1e-6)
    assert b.hi <= sgm.sgm_eps(q, sigma, k, delta, dps=20)


@pytest.mark.slow
@pytest.mark.parametrize("q,sigma", [("0.01", "0.3"), ("1e-4", "0.5"), ("0.5", "10"), ("0.01", "100"), ("1e-9", "0.5")])
@pytest.mark.parametrize("alpha", ["1000001/1000000", "7/4", "21/2", "257/2"])
def test_wide_grid_against_quadrature(q, sigma, alpha):
    """Extreme sigma, q and orders near 1: the enclosure (30 digits) contains mpmath.quad's value."""
    enc = sgm.sgm_rdp_continuous_enclosure(q, sigma, alpha, dps=30)
    truth, rel_err = _quad_eps(q, sigma, alpha, dps=70)
    assert rel_err < F(1, 10 ** 35)
    assert mpf_to_fraction(enc.lo) <= truth <= mpf_to_fraction(enc.hi)


@pytest.mark.parametrize("q,sigma,alpha", [("0.01", "1.1", "299/64"), ("0.256", "4", "5/2"), ("0.01", "0.6", "65/2")])
def test_tail_bounds_dominate_the_tails(q, sigma, alpha):
    """The closed-form tail bounds used outside [lo, hi] (Jensen; r <= 1 below 1/2; r <= rho e^w above hi) are >= the
    tails int_{-inf}^{lo} and int_{hi}^{inf} of phi_sigma r^alpha computed by mpmath.quad at 30 digits, at cut points
    on both sides of the mass (these bounds are the only part of the enclosure not computed by Arb's integrator)."""
    import flint

    c = mpmath.MPContext()
    c.dps = 30
    qm, sm, am = (c.mpf(F(x).numerator) / F(x).denominator for x in (q, sigma, alpha))
    f = lambda z: c.npdf(z, 0, sm) * ((1 - qm) + qm * c.exp((2 * z - 1) / (2 * sm * sm))) ** am  # noqa: E731
    a = F(alpha)
    cuts = [F(-3), F(0), F(1, 2), a / 2, a - 1, a, a + 2, a + 6]
    with sgm._flint_prec(128):
        st = sgm._Setup(F(q), F(sigma), a)
        for x in cuts:
            xm = c.mpf(x.numerator) / x.denominator
            left = c.quad(f, [-c.inf, xm - 10 * sm, xm])
            right = c.quad(f, [xm, xm + 10 * sm, c.inf])
            assert mpf_to_fraction(left) <= _arb_upper(st.left_tail(x)) * (1 + F(1, 10 ** 20)), x
            assert mpf_to_fraction(right) <= _arb_upper(st.right_tail(x)) * (1 + F(1, 10 ** 20)), x
        assert flint.ctx.prec == 128


def _arb_upper(b) -> Fraction:
    man, exp = b.upper().man_exp()
    return F(int(man)) * F(2) ** int(exp)
