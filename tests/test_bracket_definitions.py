"""Each end of a certified bracket against the definition it bounds, and the labels ``check`` puts on brackets.

An eps(delta) bracket [lo, hi] means delta(hi) <= delta and delta(lo) > delta: both are asserted with
the delta(eps) profile of the same composition evaluated at twice the digits.  Where a bracket comes
from a closed form or a composition rule, the test recomputes it by a second route: a naive sum or
the closed form at 60 digits, an exact rational, or the same composition written differently (a
Gaussian of noise sigma is the zCDP item of rho = 1/(2 sigma^2); Laplace(b) at sensitivity s is
Laplace(b/s) at sensitivity 1).  A "valid and tight" verdict needs an exact profile: from an honest
bracket, only "valid" can be certified.
"""
from __future__ import annotations

import math
from fractions import Fraction as F

import mpmath
import pytest

from reference.cli import main
from reference.precision import mpf_to_fraction
from reference.profiles import check as C
from reference.profiles import gaussian as G
from reference.profiles import laplace as lap
from reference.profiles import pure_dp
from reference.profiles import subsampled_gaussian as sgm
from reference.profiles.conversions import round_down, round_up


def q(x) -> F:
    return mpf_to_fraction(x)


# --------------------------------------------------------------------------
# eps(delta) brackets against the delta(eps) profile they invert
# --------------------------------------------------------------------------

EXACT_SPECS = [("rr:0.01x1000", "1e-6"), ("gaussian:sigma=2x500", "1e-6"), ("laplace:b=10x50", "1e-6"),
               ("dp:0.1x3+dp:0.2x2", "1e-3"), ("rr:0.5x7", "0.01"), ("laplace:b=2,sensitivity=3x4", "1e-4")]


@pytest.mark.parametrize("spec,delta", EXACT_SPECS)
def test_exact_eps_bracket_ends_against_the_delta_profile(spec, delta):
    """delta(eps_hi) <= delta and delta(eps_lo) > delta, the delta profile taken at 40 digits (the bracket at 20)."""
    d = F(delta)
    b = C.profile(spec, "eps", delta)
    assert b.exact and 0 < b.lo <= b.hi
    assert q(C.profile(spec, "delta", q(b.hi), dps=40).hi) <= d
    assert q(C.profile(spec, "delta", q(b.lo), dps=40).lo) > d


@pytest.mark.parametrize("b_,k,delta", [("10", 10, "1e-6"), ("1", 3, "1e-3")])
def test_laplace_eps_bracket_ends_against_the_enclosure(b_, k, delta):
    """The same for the Laplace module's own bracket, through its enclosure of delta(eps)."""
    d = F(delta)
    br = lap.laplace_kfold_eps_bracket(b_, k, delta)
    assert q(lap.laplace_kfold_delta_enclosure(b_, k, q(br.hi), dps=40)[1]) <= d
    assert q(lap.laplace_kfold_delta_enclosure(b_, k, q(br.lo), dps=40)[0]) > d


@pytest.mark.parametrize("q_,s,k,delta", [("0.01", "1.1", 1000, "1e-5"), ("0.1", "1", 50, "1e-6")])
def test_sgm_eps_bracket_lower_end_against_the_binary_lower_delta(q_, s, k, delta):
    """The subsampled Gaussian's eps lower end: its certified binary lower bound on delta exceeds delta there."""
    b = sgm.sgm_eps_bracket(q_, s, k, delta)
    assert 0 < b.lo < b.hi
    assert q(sgm.sgm_delta_lower_binary(q_, s, k, q(b.lo))[0]) > F(delta)


@pytest.mark.parametrize("q_,s,k,delta", [("0.01", "1.1", 1000, "1e-5"), ("0.256", "4", 2000, "1e-5"),
                                          ("0.1", "1", 100, "1e-5")])
def test_sgm_eps_upper_end_is_the_smaller_of_its_two_routes(q_, s, k, delta):
    """Both the best integer order and the continuous order give valid upper ends: the bracket keeps the smaller one and
    names it."""
    b = sgm.sgm_eps_bracket(q_, s, k, delta)
    integer = q(sgm.sgm_eps(q_, s, k, delta))
    cont, alpha = sgm.sgm_eps_continuous(q_, s, k, delta)
    assert q(b.hi) == min(integer, q(cont))
    assert ("rational order" in b.hi_source) == (q(cont) < integer)


@pytest.mark.parametrize("rho,delta", [(F(1, 10), F(1, 10 ** 6)), (F(1, 200), F(1, 10 ** 9)), (F(5), F(1, 10 ** 3))])
def test_integer_order_conversion_is_the_minimum_over_the_orders(rho, delta):
    """rho-zCDP is (alpha, alpha rho)-RDP at every order: the summed-RDP upper end of check is the minimum over the
    integer orders of balle2020hyp Thm 21, alpha rho + log((alpha-1)/alpha) - (log delta + log alpha)/(alpha-1), and the
    CKS delta exp((alpha-1)(alpha rho - eps))/(alpha-1) (1-1/alpha)^alpha at eps (all recomputed at 60 digits)."""
    steps = C.parse_spec(f"zcdp:rho={rho.numerator}/{rho.denominator}")
    with mpmath.workdps(60):
        r, d = mpmath.mpf(rho.numerator) / rho.denominator, mpmath.mpf(delta.numerator) / delta.denominator
        eps_min = min(a * r + mpmath.log(mpmath.mpf(a - 1) / a) - (mpmath.log(d) + mpmath.log(a)) / (a - 1)
                      for a in sgm.ORDERS)
        e = eps_min  # the CKS delta at this eps, minimised over the same orders
        delta_min = min(mpmath.exp((a - 1) * (a * r - e)) / (a - 1) * (1 - mpmath.mpf(1) / a) ** a for a in sgm.ORDERS)
    v = C._rdp_bracket_end(steps, "eps", delta, 20)
    assert eps_min <= v <= eps_min * (1 + mpmath.mpf(10) ** -17)
    w = C._rdp_bracket_end(steps, "delta", F(mpmath.nstr(e, 40)), 20)
    assert delta_min * (1 - mpmath.mpf(10) ** -17) <= w <= delta_min * (1 + mpmath.mpf(10) ** -17)


# --------------------------------------------------------------------------
# The subsampled Gaussian's binary lower end: a naive second route and its rounding
# --------------------------------------------------------------------------

def _binary_hockey_naive(q_, s, k, eps, tau, dps=60) -> mpmath.mpf:
    """sum_j max(0, Bin(k,p1)(j) - e^eps Bin(k,p0)(j)) over every j, p0 = Phi(-tau/s), p1 = (1-q) p0 + q Phi((1-tau)/s)."""
    with mpmath.workdps(dps):
        qq, ss, tt, ee = (mpmath.mpf(x.numerator) / x.denominator for x in (F(q_), F(s), F(tau), F(eps)))
        p0 = mpmath.ncdf(-tt / ss)
        p1 = (1 - qq) * p0 + qq * mpmath.ncdf((1 - tt) / ss)
        tot = mpmath.mpf(0)
        for j in range(k + 1):
            c = mpmath.binomial(k, j)
            t = c * p1 ** j * (1 - p1) ** (k - j) - mpmath.exp(ee) * c * p0 ** j * (1 - p0) ** (k - j)
            if t > 0:
                tot += t
        return tot


@pytest.mark.parametrize("q_,s,k,eps", [("0.1", "1", 50, "1"), ("0.01", "1.1", 200, "0.3"), ("0.5", "2", 20, "0.5")])
def test_sgm_binary_lower_end_is_below_its_naive_sum_and_rounded_down(q_, s, k, eps):
    """The binary lower end is a lower bound on the (thresholded) hockey-stick it sums, computed here at 60 digits over
    every j; at 20 digits it is at most its value at 40 digits (rounded down, never up)."""
    v20, tau = sgm.sgm_delta_lower_binary(q_, s, k, eps, dps=20)
    v40, tau40 = sgm.sgm_delta_lower_binary(q_, s, k, eps, dps=40)
    assert tau == tau40 and v20 > 0
    assert v20 <= v40
    assert v20 <= _binary_hockey_naive(q_, s, k, eps, tau)


def test_total_variation_bound_is_at_least_the_exact_rational():
    """1 - prod (1 - q_i)^(k_i) is rational: the total variation upper end lies at or above it (rounded up)."""
    steps = C.parse_spec("subsampled-gaussian:q=0.01,sigma=1x10+subsampled-gaussian:q=0.03,sigma=1x7")
    exact = 1 - F(99, 100) ** 10 * F(97, 100) ** 7
    v = q(C._sgm_tv(steps, 20))
    assert exact <= v <= exact * (1 + F(1, 10 ** 19))


# --------------------------------------------------------------------------
# zCDP + Gaussian mixtures: the same composition by a second route
# --------------------------------------------------------------------------

MIXTURE = "zcdp:rho=0.1+gaussian:sigma=2"
RHO_TOTAL = F(1, 10) + 1 / (2 * F(2) ** 2)  # bun2016: the Gaussian mechanism of noise sigma is 1/(2 sigma^2)-zCDP


def test_zcdp_gaussian_mixture_is_the_zcdp_item_of_the_summed_rho():
    """zcdp(rho) + gaussian(sigma) has the brackets of the single item zcdp(rho + 1/(2 sigma^2)), at both quantities."""
    total = f"zcdp:rho={RHO_TOTAL.numerator}/{RHO_TOTAL.denominator}"
    for quantity, at in (("delta", "3"), ("eps", "1e-6")):
        a, b = C.profile(MIXTURE, quantity, at), C.profile(total, quantity, at)
        assert (a.lo, a.hi) == (b.lo, b.hi) and not a.exact


def test_zcdp_gaussian_mixture_lower_end_is_the_gaussian_curve_at_mu_squared_two_rho():
    """The lower end is the Gaussian mechanism with mu^2 = 2 rho (it is rho-zCDP): between the GDP curve's certified
    ends at rational mu just below and above sqrt(2 rho) = sqrt(9/20)."""
    b = C.profile(MIXTURE, "delta", "3")
    mu2 = 2 * RHO_TOTAL
    assert mu2 == F(9, 20)
    lo_mu, hi_mu = F(670820393249936, 10 ** 15), F(670820393249937, 10 ** 15)  # lo_mu^2 < 9/20 < hi_mu^2
    assert lo_mu ** 2 < mu2 < hi_mu ** 2
    assert G.gdp_delta_lower(3, lo_mu, dps=20) <= b.lo <= G.gdp_delta(3, hi_mu, dps=20)
    assert b.lo <= b.hi


def test_zcdp_gaussian_mixture_verdict():
    """The certified delta at eps = 3 lies in [2.2e-6, 1.1e-5]: a claim of (3, 2e-5) is valid, (3, 1e-6) invalid
    (charging the Gaussian rho = mu^2 instead of mu^2/2 would move the bracket to [1.4e-4, 5.6e-4])."""
    b = C.profile(MIXTURE, "delta", "3")
    assert F(22, 10 ** 7) < q(b.lo) and q(b.hi) < F(11, 10 ** 6)
    assert C.check(MIXTURE, "3", "2e-5").status == "valid"
    assert C.check(MIXTURE, "3", "1e-6").status == "invalid"


# --------------------------------------------------------------------------
# Beyond the Gaussian route: bun2016 Proposition 1.3 at rho = 10^41
# --------------------------------------------------------------------------

@pytest.mark.parametrize("t", [3, 10, 40])
def test_huge_zcdp_delta_upper_end_is_bun2016_prop_1_3(t):
    """delta(eps) <= exp(-(eps - rho)^2/(4 rho)) (the closed form at 60 digits), at eps = rho + t sqrt(rho); and the eps
    upper end at that delta comes back to eps (the two forms of Prop. 1.3 invert each other)."""
    rho = F(10) ** 41
    spec = f"zcdp:rho={rho}"
    eps = rho + t * F(316227766016837933, 10 ** 16) * 10 ** 19  # t sqrt(rho), sqrt(10^41) to 17 digits
    b = C.profile(spec, "delta", eps)
    with mpmath.workdps(60):
        x = eps - rho
        cf = mpmath.exp(-(mpmath.mpf(x.numerator) / x.denominator) ** 2 / (4 * mpmath.mpf(rho.numerator)))
    assert cf <= b.hi <= cf * (1 + mpmath.mpf(10) ** -18)
    back = C.profile(spec, "eps", q(b.hi))
    assert q(back.hi) <= eps * (1 + F(1, 10 ** 18))


# --------------------------------------------------------------------------
# Gaussian, Laplace, pure DP: second routes for the ends
# --------------------------------------------------------------------------

def _gdp_naive(eps, mu):
    with mpmath.workdps(60):
        e, m = (mpmath.mpf(x.numerator) / x.denominator for x in (F(eps), F(mu)))
        return mpmath.ncdf(-e / m + m / 2) - mpmath.exp(e) * mpmath.ncdf(-e / m - m / 2)


@pytest.mark.parametrize("eps,mu", [("1", "1/2"), ("0.3", "2"), ("5", "3/10")])
def test_gaussian_profile_module_ends_contain_the_closed_form(eps, mu):
    """reference.profiles.gaussian: gdp_delta_lower <= Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2) <= gdp_delta."""
    t = _gdp_naive(eps, mu)
    assert G.gdp_delta_lower(eps, mu, dps=20) <= t <= G.gdp_delta(eps, mu, dps=20)
    assert G.gdp_delta_lower(eps, mu, dps=20) < G.gdp_delta(eps, mu, dps=20)


def test_laplace_sensitivity_is_a_change_of_scale():
    """Laplace(b) at sensitivity s is Laplace(b/s) at sensitivity 1: the profile API with ``sensitivity`` equals the
    normalised one, and the k-fold enclosure (a separate parser) agrees."""
    for quantity, at in (("delta", F(1, 2)), ("eps", F(1, 10 ** 4))):
        fn = lap.laplace_profile_delta if quantity == "delta" else lap.laplace_profile_eps
        a = fn(["6"], at, sensitivity="3", counts=[4])
        b = fn(["2"], at, counts=[4])
        assert (a.lo, a.hi, a.exact) == (b.lo, b.hi, True)
    lo, hi = lap.laplace_kfold_delta_enclosure("6", 4, F(1, 2), sensitivity="3")
    b = lap.laplace_profile_delta(["6"], F(1, 2), sensitivity="3", counts=[4])
    assert b.lo <= hi and lo <= b.hi


def test_laplace_beyond_k_max_lower_end_below_the_pure_dp_upper_end():
    """k > K_MAX Laplace(b) steps: the lower end (the thresholded randomized response, eps' = log(2 e^(eps0/2) - 1))
    is at most the optimal composition of the eps0-DP steps, which dominates them; and eps' is below that log."""
    n, b_ = lap.K_MAX + 500, F(5)
    e0 = 1 / b_
    for quantity, at in (("delta", F(3)), ("eps", F(1, 10 ** 6))):
        br = lap.laplace_profile_delta([b_], at, counts=[n]) if quantity == "delta" else \
            lap.laplace_profile_eps([b_], at, counts=[n])
        up = pure_dp.pure_dp_profile([(e0, 0, n)], quantity, at)
        assert 0 < br.lo <= up.hi
    with mpmath.workdps(60):
        rr = lap._rr_eps(e0, 20)
        assert mpmath.mpf(rr.numerator) / rr.denominator <= mpmath.log(2 * mpmath.exp(mpmath.mpf(e0.numerator) / e0.denominator / 2) - 1)


@pytest.mark.parametrize("d0", [F(1, 1000), F(1, 2000) + F(7285, 10 ** 15)])
def test_pure_dp_beyond_the_exact_routes_at_the_largest_loss(d0):
    """At eps >= S = sum k_i eps_i, delta(eps) = 1 - prod (1 - delta_i)^(k_i) exactly (no loss exceeds S): the bracket
    holds that rational, for a composition beyond the heterogeneous route (2001 steps).  The second delta_i was found by
    a search for a P = (1 - delta_i)^2001 whose 1 - P lies within 2^-88 below a point of the 71-bit grid the lower end is
    rounded to: there a lower end formed from P rounded down (instead of up) lands above the truth."""
    items = [(F(1, 10), d0, 1001), (F(1, 5), d0, 1000)]
    S = sum(e * n for e, _, n in items)
    exact = 1 - (1 - d0) ** 2001
    b = pure_dp.pure_dp_profile(items, "delta", S, dps=20)  # 20 digits, check's default: the grid of 71 bits
    assert not b.exact
    assert q(b.lo) <= exact <= q(b.hi)


@pytest.mark.parametrize("k", [10 ** 8, 10 ** 12])
def test_pure_dp_closed_form_delta_against_kov_theorem_3_5(k):
    """rr:0.01 x k at eps = F + 5 sqrt(V): the upper end is at least KOV Thm 3.5's exp(-(eps - F)^2/(2 V))
    (F = k eps0 tanh(eps0/2), V = k eps0^2; at 60 digits) and at most the basic bound 1."""
    e0 = F(1, 100)
    with mpmath.workdps(60):
        m0 = mpmath.mpf(1) / 100
        Fm, V = k * m0 * mpmath.tanh(m0 / 2), k * m0 ** 2
        eps = F(mpmath.nstr(Fm + 5 * mpmath.sqrt(V), 30))
        cf = mpmath.exp(-(mpmath.mpf(eps.numerator) / eps.denominator - Fm) ** 2 / (2 * V))
    b = pure_dp.pure_dp_profile([(e0, 0, k)], "delta", eps)
    assert cf * (1 - mpmath.mpf(10) ** -15) <= b.hi <= 1
    assert b.lo <= b.hi


def test_round_up_and_round_down_bracket_the_rational():
    for x in (F(1, 3), F(3, 10), F(-2, 7), F(10) ** 40 + F(1, 3)):
        assert q(round_down(x, 20)) < x < q(round_up(x, 20))
    b = C.profile("rr:0.1x3", "eps", "0")  # eps(0) = 3/10 exactly, not a binary number
    assert q(b.lo) < F(3, 10) < q(b.hi)


def test_peer_randomized_response_noise_is_the_two_bucket_parameter():
    """dp_accounting's noise parameter p of two-bucket randomized response: e^eps0 = (1 - p/2)/(p/2)."""
    from reference.profiles.peers import _rr_noise

    for e0 in (0.01, 0.5, 2.0):
        p = F(_rr_noise(e0))
        ratio = (1 - p / 2) / (p / 2)
        assert abs(ratio / F(math.exp(e0)) - 1) < F(1, 10 ** 12)


# --------------------------------------------------------------------------
# Verdict labels
# --------------------------------------------------------------------------

def test_tight_verdict_needs_an_exact_profile():
    """zcdp:rho=0.1 at delta = 1e-6 is the bracket [1.9945, 2.1420] (not exact): a claim of 2.15 is within 1% of the
    upper end, yet only 'valid' -- the true eps may be as low as 1.9945.  The exact RR profile is tight."""
    v = C.check("zcdp:rho=0.1", "2.15", "1e-6")
    assert not v.eps_bracket.exact
    assert F(215, 100) - q(v.eps_bracket.hi) <= F(1, 100) * q(v.eps_bracket.hi)  # within tol of the upper end
    assert v.status == "valid" and not v.tight and "tight" not in v.message
    sg = C.check("subsampled-gaussian:q=0.01,sigma=1.1x1000", "0", "1e-5")
    e = q(sg.eps_bracket.hi) * F(1001, 1000)
    w = C.check("subsampled-gaussian:q=0.01,sigma=1.1x1000", str(float(e)), "1e-5")
    assert w.status == "valid" and not w.eps_bracket.exact and not w.tight and "tight" not in w.message
    x = C.check("rr:0.01x1000", "1.37", "1e-6")
    assert x.eps_bracket.exact and x.tight and x.message.startswith("valid and tight")


def test_cli_check_prints_the_brackets_in_order_and_names_their_kind(capsys):
    """The printed delta bracket is [lower, upper] as certified; a bracket is never called an exact profile."""
    for spec, eps, delta, exact in (("zcdp:rho=0.1", "2.15", "1e-6", False), ("rr:0.01x1000", "1.37", "1e-6", True)):
        assert main(["check", spec, "--eps", eps, "--delta", delta]) == 0
        out = capsys.readouterr().out
        line = next(x for x in out.splitlines() if x.startswith("true delta at eps"))
        lo_s, hi_s = line.split("[", 1)[1].split("]", 1)[0].split(", ")
        b = C.profile(spec, "delta", eps)
        assert F(lo_s) <= F(hi_s)
        assert F(lo_s) <= q(b.lo) and q(b.hi) <= F(hi_s)
        assert ("exact profile" in line) == exact and ("bracket" in line) == (not exact)
        assert ("valid and tight" in out) == exact


@pytest.mark.parametrize("extra", [["--precision", "2"], ["--tol", "x"], ["--delta", "1"]])
def test_cli_check_refusals_are_status_2(extra, capsys):
    """A bad claim or option (precision outside [1e-6, 1/2], tol not a number, delta = 1) is refused with status 2,
    never 1 (which certifies an anti-conservative claim)."""
    args = ["check", "rr:0.01x10", "--eps", "1", "--delta", "1e-6"]
    for i in range(0, len(extra), 2):
        if extra[i] in args:
            args[args.index(extra[i]) + 1] = extra[i + 1]
        else:
            args += extra[i:i + 2]
    assert main(args) == 2
    assert "fullyadaptive check: error:" in capsys.readouterr().err
