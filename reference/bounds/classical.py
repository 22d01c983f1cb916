"""Classical (non-adaptive) yardsticks: Renyi curves, RDP -> DP conversions, optimal composition.

Every filter and odometer of the seeds is compared with these baselines:

* basic composition (sum of the epsilons and of the deltas) and the advanced
  composition of Dwork, Rothblum and Vadhan (2010);
* the exact optimal composition of k (eps0, delta0)-DP mechanisms (Kairouz,
  Oh, Viswanath 2015, Theorem 3.3), its inverse eps(delta), and their closed-form
  bound (Theorem 3.4, heterogeneous Theorem 3.5);
* the exact optimal heterogeneous composition by enumeration of the privacy-loss
  lattice (the characterization of Murtagh and Vadhan 2016/2018);
* Renyi-DP curves of randomized response, Laplace and Gaussian mechanisms
  (Mironov 2017, Table II) and their exact zCDP parameters (Bun, Steinke 2016);
* RDP -> DP conversions: the standard one (Mironov 2017, Prop. 3; Feldman and
  Zrnic 2021, Fact 2.4) and the improved one (Canonne, Kamath, Steinke 2020,
  Prop. 12 = Balle et al. 2020, Thm 21), with the order alpha optimised
  continuously.

Inputs are parsed exactly and every returned value is rounded once in the
stated direction (see :mod:`reference.precision`).

Rigour.  Closed forms go through :func:`reference.precision.certified`.  The
long sums (up to ~10^5 binomial terms) use *positive-interval* arithmetic on raw
mpmath floats: every positive quantity is carried as a pair ``(lo, hi)`` whose
ends are rounded down / up at each operation (``mpf_mul(.., 'f')`` /
``mpf_mul(.., 'c')``), exactly as mpmath's interval context does, but without
its per-operation overhead.  Transcendental constants (exp, log, loggamma) are
enclosed with mpmath's directed-rounding kernels, the same trust base as
:mod:`mpmath.iv`.  Neglected binomial tails are bounded by explicit geometric
series and added to the upper end.  Numerically optimised quantities (an order
alpha) are re-evaluated rigorously at the exact rational value returned, so
only the *tightness*, never the validity, depends on the optimiser.
"""
from __future__ import annotations

import math
import threading
from dataclasses import dataclass
from fractions import Fraction
from typing import Callable, Sequence

import mpmath
from mpmath import libmp
from mpmath.ctx_iv import MPIntervalContext
from mpmath.ctx_mp import MPContext

from ..catalog import Param, register
from ..precision import (rational, 
    DEFAULT_DPS,
    INF,
    MAX_PREC_BITS,
    Domain,
    certified,
    check,
    check_dps,
    check_seq,
    mpf_to_fraction,
)

__all__ = [
    # RDP -> DP
    "rdp_to_dp_eps", "rdp_to_dp_eps_improved", "rdp_to_dp_delta_cks",
    # Renyi curves and zCDP
    "gaussian_rdp", "rr_rdp", "laplace_rdp", "rr_zcdp_rho", "laplace_zcdp_rho", "gaussian_zcdp_rho",
    # optimised conversions
    "DPConversion", "optimize_rdp_conversion", "rr_rdp_to_dp", "laplace_rdp_to_dp",
    "gaussian_rdp_to_dp", "zcdp_to_dp",
    "rr_rdp_to_dp_eps_improved", "laplace_rdp_to_dp_eps_improved", "gaussian_rdp_to_dp_eps_improved",
    "zcdp_to_dp_eps_improved", "rr_rdp_to_dp_eps_standard", "laplace_rdp_to_dp_eps_standard",
    "gaussian_rdp_to_dp_eps_standard", "zcdp_to_dp_eps_standard",
    # composition
    "basic_composition_eps", "basic_composition_delta", "drv_advanced_composition_eps",
    "kov_delta", "kov_delta_i", "kov_eps", "kov_closed_form_eps", "kov_closed_form_delta",
    "kov_hetero_closed_form_eps", "loss_lattice", "hetero_optimal_delta", "hetero_optimal_eps",
]

P = Domain.positive()
NN = Domain.nonnegative()
U = Domain.open_unit()
ALPHA = Domain.interval(1, None)  # alpha > 1
K_MAX = 10 ** 7
KDOM = Domain(lo=Fraction(1), hi=Fraction(K_MAX), lo_closed=True, hi_closed=True, integer=True)
D0DOM = Domain.unit_nonneg()  # per-step delta in [0, 1)
DTILDE = Domain.half_open_unit()  # (0, 1]

_alpha = Param("alpha", ALPHA, default="2", doc="Renyi order alpha > 1")
_delta = Param("delta", U, default="1e-6", doc="target delta in (0, 1)")
_eps0 = Param("eps0", P, default="0.1", doc="per-step epsilon eps0 > 0")
_delta0 = Param("delta0", D0DOM, default="0", doc="per-step delta0 in [0, 1)")
_k = Param("k", KDOM, kind="integer", default="10", doc="number of composed mechanisms, 1 <= k <= 10^7")
_b = Param("b", P, default="10", doc="Laplace scale b > 0 (sensitivity 1, so the mechanism is (1/b)-DP)")
_sigma = Param("sigma", P, default="1", doc="Gaussian noise standard deviation sigma > 0")
_sens = Param("sensitivity", NN, default="1", doc="L2 sensitivity Delta >= 0")
_rho = Param("rho", NN, default="0.5", doc="zCDP parameter rho >= 0")

KOV_NOTE = ("Kairouz, Oh, Viswanath, 'The Composition Theorem for Differential Privacy', arXiv 1311.0776 "
            "(ICML 2015; IEEE Trans. Inf. Theory 63(6) 2017).")


# ===========================================================================
# Private contexts and positive-interval arithmetic
# ===========================================================================

_tls = threading.local()


def _iv(prec: int) -> MPIntervalContext:
    """This thread's private interval context at ``prec`` bits (global mpmath state untouched)."""
    c = getattr(_tls, "iv", None)
    if c is None:
        c = _tls.iv = MPIntervalContext()
    c.prec = prec
    return c


def _mp(prec: int) -> MPContext:
    """This thread's private floating-point context at ``prec`` bits (for optimisation only)."""
    c = getattr(_tls, "mp", None)
    if c is None:
        c = _tls.mp = MPContext()
    c.prec = prec
    return c


def _bits(dps: int) -> int:
    return int(math.ceil(dps * math.log2(10))) + 4


_F, _C = libmp.round_floor, libmp.round_ceiling
_ZERO, _ONE = libmp.fzero, libmp.fone


def _mk(raw) -> mpmath.mpf:
    """An ``mpf`` holding ``raw`` exactly (never rounded to the global precision)."""
    return mpmath.mp.make_mpf(raw)


def _round_up(raw, bits: int) -> mpmath.mpf:
    return _mk(libmp.mpf_pos(raw, bits, _C))


def _pq(q: Fraction, prec: int):
    """Enclosure (lo, hi) of the rational q."""
    return (libmp.from_rational(q.numerator, q.denominator, prec, _F),
            libmp.from_rational(q.numerator, q.denominator, prec, _C))


def _pint(n: int):
    r = libmp.from_int(n)
    return (r, r)


def _padd(a, b, prec):
    return (libmp.mpf_add(a[0], b[0], prec, _F), libmp.mpf_add(a[1], b[1], prec, _C))


def _psub(a, b, prec):
    """a - b for enclosures of arbitrary sign."""
    return (libmp.mpf_sub(a[0], b[1], prec, _F), libmp.mpf_sub(a[1], b[0], prec, _C))


def _pmul(a, b, prec):
    """a * b for NONNEGATIVE enclosures a, b."""
    return (libmp.mpf_mul(a[0], b[0], prec, _F), libmp.mpf_mul(a[1], b[1], prec, _C))


def _pdiv(a, b, prec):
    """a / b for a >= 0 and b > 0."""
    return (libmp.mpf_div(a[0], b[1], prec, _F), libmp.mpf_div(a[1], b[0], prec, _C))


def _pscale(a, n: int, prec):
    """n * a for an integer n > 0 and a of arbitrary sign."""
    m = libmp.from_int(n)
    return (libmp.mpf_mul(a[0], m, prec, _F), libmp.mpf_mul(a[1], m, prec, _C))


def _ulp_above(x, prec):
    """An upper bound on the gap from a ``prec``-bit ``x`` (rounded down) to the exact value: 2^(mag(x) - prec + 1)."""
    if x == _ZERO:
        return libmp.mpf_shift(_ONE, -prec)  # pragma: no cover - exp/log lower ends are nonzero here
    return libmp.mpf_shift(_ONE, x[2] + x[3] - prec + 1)


def _pexp(a, prec):
    """exp of an enclosure with ONE exponential: exp(hi) = exp(lo) e^d <= (exp(lo) + ulp)(1 + 2d), d = hi - lo <= 1.

    (An mpmath exp costs ~0.1 s at 10000 digits without gmpy; the second one is replaced by
    the rigorous bound e^d <= 1 + 2d for 0 <= d <= 1.)
    """
    lo = libmp.mpf_exp(a[0], prec, _F)
    if a[0] == a[1]:
        up = libmp.mpf_add(lo, _ulp_above(lo, prec), prec, _C)
        return (lo, up)
    d = libmp.mpf_sub(a[1], a[0], prec, _C)
    if not libmp.mpf_le(d, _ONE):
        return (lo, libmp.mpf_exp(a[1], prec, _C))
    up = libmp.mpf_add(lo, _ulp_above(lo, prec), prec, _C)
    return (lo, libmp.mpf_mul(up, libmp.mpf_add(_ONE, libmp.mpf_shift(d, 1), prec, _C), prec, _C))


def _plog(a, prec):
    """log of a positive enclosure with ONE logarithm: log(hi) = log(lo) + log(hi/lo) <= log(lo) + ulp + (hi - lo)/lo."""
    lo = libmp.mpf_log(a[0], prec, _F)
    gap = libmp.mpf_div(libmp.mpf_sub(a[1], a[0], prec, _C), a[0], prec, _C)
    up = libmp.mpf_add(libmp.mpf_add(lo, _ulp_above(lo, prec), prec, _C), gap, prec, _C)
    return (lo, up)


def _pneg(a):
    return (libmp.mpf_neg(a[1]), libmp.mpf_neg(a[0]))


def _pone_minus(a, prec):
    """1 - a for a in [0, 1]; the lower end is clamped at 0 (the exact value is known to be >= 0)."""
    lo = libmp.mpf_sub(_ONE, a[1], prec, _F)
    if libmp.mpf_lt(lo, _ZERO):
        lo = _ZERO
    return (lo, libmp.mpf_sub(_ONE, a[0], prec, _C))


def _ploggamma_int(n: int, prec):
    """Enclosure of log Gamma(n) for an integer n >= 1."""
    if n <= 2:
        return (_ZERO, _ZERO)
    x = libmp.from_int(n)
    return (libmp.mpf_loggamma(x, prec, _F), libmp.mpf_loggamma(x, prec, _C))


def _plogcomb(k: int, s: int, prec):
    """Enclosure of log C(k, s) (exact integer for small k, loggamma otherwise)."""
    if k <= 4000:
        r = libmp.from_int(math.comb(k, s))
        return (libmp.mpf_log(r, prec, _F), libmp.mpf_log(r, prec, _C))
    w = prec + 16
    t = _psub(_ploggamma_int(k + 1, w), _ploggamma_int(s + 1, w), w)
    return _psub(t, _ploggamma_int(k - s + 1, w), prec)


def _rel_ok(pair, bits: int) -> bool:
    lo, hi = pair
    if lo == hi:
        return True
    if not libmp.mpf_gt(lo, _ZERO):
        return False
    diff = libmp.mpf_sub(hi, lo, 64, _C)
    return libmp.mpf_le(diff, libmp.mpf_shift(lo, -bits))


def _iv_pair(c: MPIntervalContext, pair):
    v = c.mpf.__new__(c.mpf)
    v._mpi_ = (pair[0], pair[1])
    return v


def _log2_ceil(q: Fraction) -> int:
    """ceil(log2 q) for q > 0 (exact-ish; used only for guard bits)."""
    return q.numerator.bit_length() - q.denominator.bit_length() + 1


# ===========================================================================
# RDP -> DP conversions (single order alpha)
# ===========================================================================

@register("mironov2017_prop3_rdp_to_dp", paper="mironov2017", result="Proposition 3", direction="upper",
          summary="(alpha, eps_alpha)-RDP implies (eps_alpha + log(1/delta)/(alpha - 1), delta)-DP",
          params=(_alpha, Param("eps_alpha", NN, default="1", doc="Renyi divergence bound at order alpha"), _delta),
          provenance="published statement",
          note="Mironov 2017, Proposition 3; restated as Fact 2.4 of Feldman and Zrnic (seed 002, formulas stripped).")
@register("feldman2021_fact2_4", paper="feldman2021", result="Fact 2.4", direction="upper",
          summary="RDP -> DP conversion used by the Renyi filter: eps_alpha + log(1/delta)/(alpha - 1)",
          params=(_alpha, Param("eps_alpha", NN, default="1", doc="Renyi divergence bound at order alpha"), _delta),
          provenance="published statement",
          note="The seed's formula is stripped; its prose cites Mironov 2017, whose Proposition 3 is this form.")
def rdp_to_dp_eps(alpha, eps_alpha, delta, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """mironov2017 Proposition 3 / feldman2021 Fact 2.4: the DP epsilon ``eps_alpha + log(1/delta)/(alpha - 1)``.

    Contract: if a mechanism is (alpha, eps_alpha)-RDP it is (returned value, delta)-DP.
    Preconditions: alpha > 1, eps_alpha >= 0, 0 < delta < 1 (parsed exactly).
    Rounding: up (interval-certified).  Guarantee: a valid upper bound on the epsilon.
    """
    a = check("alpha", alpha, ALPHA)
    e = check("eps_alpha", eps_alpha, NN)
    d = check("delta", delta, U)
    return certified(lambda c, a, e, d: e - c.log(d) / (a - 1), (a, e, d), "upper", dps)


def _improved_eps_formula(c, a, e, d):
    """eps_alpha + log((alpha-1)/alpha) - (log delta + log alpha)/(alpha - 1)  (Balle et al. 2020, Thm 21)."""
    return e + c.log((a - 1) / a) - (c.log(d) + c.log(a)) / (a - 1)


@register("balle2020hyp_thm21_eps", paper="balle2020hyp", result="Theorem 21", direction="upper",
          summary="(alpha, eps_alpha)-RDP implies (eps_alpha + log((alpha-1)/alpha) - (log delta + log alpha)/(alpha-1), delta)-DP (clipped at 0)",
          params=(_alpha, Param("eps_alpha", NN, default="1", doc="Renyi divergence bound at order alpha"), _delta),
          provenance="published statement",
          note="Balle, Barthe, Gaboardi, Hsu, Sato, AISTATS 2020, arXiv 1905.09982, Theorem 21 (as transcribed by "
               "Opacus / dp-accounting, which cite it). Algebraically identical to Canonne-Kamath-Steinke 2020, "
               "Proposition 12, solved for eps; a negative value is replaced by 0 (DP is monotone in eps).")
@register("canonne2020_prop12_eps", paper="canonne2020", result="Proposition 12 (solved for eps)", direction="upper",
          summary="CKS20 Prop. 12 solved for eps: eps_alpha + log(1 - 1/alpha) - (log delta + log alpha)/(alpha - 1) (clipped at 0)",
          params=(_alpha, Param("eps_alpha", NN, default="1", doc="Renyi divergence bound at order alpha"), _delta),
          provenance="derived",
          note="delta = exp((alpha-1)(tau-eps))/(alpha-1) (1-1/alpha)^alpha (Prop. 12, arXiv 2004.00010 v4) solved for eps; "
               "equals Balle et al. 2020, Theorem 21 (test_classical checks the round trip).")
def rdp_to_dp_eps_improved(alpha, eps_alpha, delta, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """balle2020hyp Theorem 21 (= canonne2020 Proposition 12 solved for eps): improved RDP -> DP epsilon, rounded up.

    Contract: an (alpha, eps_alpha)-RDP mechanism is (returned value, delta)-DP, where the value is
    ``max(0, eps_alpha + log((alpha-1)/alpha) - (log delta + log alpha)/(alpha - 1))``.
    Always <= :func:`rdp_to_dp_eps` (the difference is log(1-1/alpha) - log(alpha)/(alpha-1) < 0).
    Preconditions: alpha > 1, eps_alpha >= 0, 0 < delta < 1.
    Rounding: up, interval-certified.  Clipping at 0 is sound: (eps, delta)-DP with eps < 0
    implies (0, delta)-DP.
    """
    a = check("alpha", alpha, ALPHA)
    e = check("eps_alpha", eps_alpha, NN)
    d = check("delta", delta, U)
    v = certified(_improved_eps_formula, (a, e, d), "upper", dps)
    return v if v > 0 else mpmath.mpf(0)


@register("canonne2020_prop12_delta", paper="canonne2020", result="Proposition 12", direction="upper",
          summary="(alpha, tau)-RDP implies (eps, delta)-DP with delta = exp((alpha-1)(tau-eps))/(alpha-1) * (1-1/alpha)^alpha",
          params=(_alpha, Param("eps_alpha", NN, default="1", doc="Renyi divergence bound tau at order alpha"),
                  Param("eps", NN, default="3", doc="target epsilon >= 0")),
          provenance="published statement",
          note="Canonne, Kamath, Steinke, NeurIPS 2020, arXiv 2004.00010 v4, Proposition 12 (statement as used by "
               "dp-accounting's rdp_privacy_accountant, 'Proposition 12 (in v4)'). May exceed 1 (vacuous).")
def rdp_to_dp_delta_cks(alpha, eps_alpha, eps, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """canonne2020 Proposition 12: the delta ``exp((alpha-1)(tau-eps))/(alpha-1) * (1-1/alpha)^alpha``, rounded up.

    Contract: an (alpha, tau)-RDP mechanism is (eps, returned value)-DP.
    Preconditions: alpha > 1, tau = eps_alpha >= 0, eps >= 0.  Rounding: up, interval-certified.
    Evaluated as exp((alpha-1)(tau-eps) + alpha log(1-1/alpha) - log(alpha-1)) (no overflow).
    """
    a = check("alpha", alpha, ALPHA)
    t = check("eps_alpha", eps_alpha, NN)
    e = check("eps", eps, NN)
    return certified(lambda c, a, t, e: c.exp((a - 1) * (t - e) + a * c.log((a - 1) / a) - c.log(a - 1)),
                     (a, t, e), "upper", dps)


# ===========================================================================
# Renyi-divergence curves (Mironov 2017, Table II) and zCDP parameters
# ===========================================================================

@register("mironov2017_gaussian_rdp", paper="mironov2017", result="Proposition 7 / Table II (Gaussian)", direction="exact",
          summary="Renyi divergence of the Gaussian mechanism: alpha Delta^2 / (2 sigma^2)",
          params=(_alpha, Param("sigma", P, default="1", doc="noise standard deviation sigma > 0"),
                  Param("sensitivity", NN, default="1", doc="L2 sensitivity Delta >= 0")),
          provenance="published statement")
def gaussian_rdp(alpha, sigma, sensitivity=1, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """mironov2017 Proposition 7: ``D_alpha(N(0, s^2) || N(Delta, s^2)) = alpha Delta^2 / (2 s^2)``.

    Preconditions: alpha > 1, sigma > 0, sensitivity >= 0.
    Rounding: to nearest (the value is an exact rational, rounded once).
    """
    a = check("alpha", alpha, ALPHA)
    s = check("sigma", sigma, P)
    D = check("sensitivity", sensitivity, NN)
    return rational(a * D * D / (2 * s * s), "exact", dps)


def _rr_curve(c, a, e):
    """D_alpha of eps-randomized response, written without overflow:
    eps - log((1 + e^-eps)/(1 + e^-(2 alpha - 1) eps)) / (alpha - 1)."""
    return e - c.log((1 + c.exp(-e)) / (1 + c.exp(-(2 * a - 1) * e))) / (a - 1)


def _laplace_curve(c, a, e):
    """D_alpha of the Laplace mechanism with eps = 1/b, written without overflow:
    eps + log(alpha/(2alpha-1) + (alpha-1)/(2alpha-1) e^{-(2alpha-1) eps}) / (alpha - 1)."""
    return e + c.log((a + (a - 1) * c.exp(-(2 * a - 1) * e)) / (2 * a - 1)) / (a - 1)


@register("mironov2017_table2_rr_rdp", paper="mironov2017", result="Table II (randomized response)", direction="exact",
          summary="Renyi divergence of eps0-randomized response: log(p^a q^(1-a) + q^a p^(1-a))/(a-1), p = e^eps0/(1+e^eps0)",
          params=(_alpha, _eps0), provenance="published statement",
          note="Mironov 2017, Table II, randomized response row with p = e^eps0/(1+e^eps0), evaluated as "
               "eps0 - log((1+e^-eps0)/(1+e^-(2a-1)eps0))/(a-1) (same value, no overflow).")
def rr_rdp(alpha, eps0, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """mironov2017 Table II (randomized response): ``D_alpha(RR_b || RR_{1-b})`` for eps0-randomized response.

    Value: ``log(p^alpha q^(1-alpha) + q^alpha p^(1-alpha))/(alpha-1)`` with p = e^eps0/(1+e^eps0), q = 1-p.
    Deviation: evaluated as ``eps0 - log((1+e^-eps0)/(1+e^-(2alpha-1)eps0))/(alpha-1)`` (algebraically
    equal; no overflow for eps0 = 1000).  Preconditions: alpha > 1, eps0 > 0.
    Rounding: to nearest, interval-certified to ``dps`` digits.
    """
    a = check("alpha", alpha, ALPHA)
    e = check("eps0", eps0, P)
    return certified(_rr_curve, (a, e), "exact", dps)


@register("mironov2017_table2_laplace_rdp", paper="mironov2017", result="Table II (Laplace)", direction="exact",
          summary="Renyi divergence of the Laplace mechanism (scale b, sensitivity 1): log(a/(2a-1) e^((a-1)/b) + (a-1)/(2a-1) e^(-a/b))/(a-1)",
          params=(_alpha, _b), provenance="published statement",
          note="Mironov 2017, Table II, Laplace row (lambda = b); also the formula used by autodp's eps_laplace.")
def laplace_rdp(alpha, b, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """mironov2017 Table II (Laplace): ``D_alpha(Lap(0, b) || Lap(1, b))`` for alpha > 1.

    Value: ``log(alpha/(2alpha-1) e^{(alpha-1)/b} + (alpha-1)/(2alpha-1) e^{-alpha/b})/(alpha-1)``.
    Deviation: e^{(alpha-1)/b} is factored out (no overflow).  Preconditions: alpha > 1, b > 0.
    Rounding: to nearest, interval-certified.
    """
    a = check("alpha", alpha, ALPHA)
    bb = check("b", b, P)
    return certified(_laplace_curve, (a, 1 / bb), "exact", dps)


@register("bunsteinke2016_rr_zcdp_rho", paper="bunsteinke2016", result="Definition 1.1 (zCDP) for randomized response",
          direction="exact",
          summary="Exact zCDP parameter of eps0-randomized response: sup_a D_a/a = eps0 tanh(eps0/2) (<= eps0^2/2 of Prop. 3.3)",
          params=(_eps0,), provenance="derived",
          note="Derivation in the docstring: D_a/a is a secant slope of a concave function, so the sup is the a -> 1 "
               "limit, the KL divergence eps0 tanh(eps0/2). Since RR is the worst eps0-DP pair in Renyi divergence "
               "(Steinke, differentialprivacy.org 2024), every eps0-DP mechanism is eps0 tanh(eps0/2)-zCDP.")
def rr_zcdp_rho(eps0, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """bunsteinke2016 Definition 1.1 applied to randomized response: ``rho = sup_{a>1} D_a/a = eps0 tanh(eps0/2)``.

    Derivation (sup at a -> 1).  With s = a - 1/2 and x = s^2, the RR moment is
    M(a) = sum p^a q^(1-a) = cosh(eps0 s)/cosh(eps0/2), so D_a/a = log M/(a(a-1)) =
    (h(x) - h(1/4))/(x - 1/4) with h(x) = log cosh(eps0 sqrt(x)).  h'(x) = eps0^2 tanh(y)/(2y),
    y = eps0 sqrt(x), decreases because tanh(y)/y does, so h is concave and its secant slopes
    from x = 1/4 decrease: the sup over a > 1 is the limit a -> 1, h'(1/4) = eps0 tanh(eps0/2)
    (the KL divergence).  Compared with Bun-Steinke's eps0^2/2: tanh(x) <= x.
    Preconditions: eps0 > 0.  Rounding: to nearest, certified (evaluated as eps0 (1 - 2/(e^eps0 + 1))).
    """
    e = check("eps0", eps0, P)
    return certified(lambda c, e: e * (1 - 2 / (c.exp(e) + 1)), (e,), "exact", dps)


@register("bunsteinke2016_laplace_zcdp_rho", paper="bunsteinke2016", result="Definition 1.1 (zCDP) for the Laplace mechanism",
          direction="exact",
          summary="Exact zCDP parameter of the Laplace mechanism (scale b, eps = 1/b): eps + e^-eps - 1",
          params=(_b,), provenance="derived",
          note="Derivation in the docstring (log-concave exponential generating function). Agrees with the tight "
               "bound eps + e^-eps - 1 of Harrison and Manurangsi, arXiv 2510.25746 (FORC 2026), conjectured by Wang 2022.")
def laplace_zcdp_rho(b, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """bunsteinke2016 Definition 1.1 applied to Laplace(b): ``rho = sup_{a>1} D_a/a = eps + e^{-eps} - 1``, eps = 1/b.

    Derivation (sup at a -> 1).  With s = a - 1/2, Mironov's Table II moment is
    M = e^{-eps/2} (cosh(eps s) + sinh(eps s)/(2s)) = e^{-eps/2} F(eps^2 s^2) where
    F(t) = sum_n b_n t^n/n!, b_n = n!/(2n)! (1 + eps/(2(2n+1))).  (b_n) is log-concave
    (the condition b_n^2 >= b_{n-1} b_{n+1} reduces to -4m <= 2(m + eps/2)^2, m = 2n+1), and
    the exponential generating function of a positive log-concave sequence is log-concave on
    t >= 0 (pair the terms k and n+1-k of F F'' - F'^2).  Hence h(x) = log M at x = s^2 is
    concave, D_a/a = (h(x) - h(1/4))/(x - 1/4) decreases in a, and the sup is the a -> 1 limit,
    the KL divergence eps + e^{-eps} - 1 (<= eps tanh(eps/2) <= eps^2/2).
    Preconditions: b > 0.  Rounding: to nearest, certified.
    """
    bb = check("b", b, P)
    return certified(lambda c, e: e + c.exp(-e) - 1, (1 / bb,), "exact", dps)


@register("bunsteinke2016_gaussian_zcdp_rho", paper="bunsteinke2016", result="Gaussian mechanism (Proposition 1.6)",
          direction="exact",
          summary="zCDP parameter of the Gaussian mechanism: Delta^2 / (2 sigma^2)",
          params=(_sigma, _sens), provenance="published statement",
          note="Bun-Steinke 2016, Gaussian mechanism proposition (numbered 1.6 in arXiv 1605.02065; numbering recalled, "
               "not re-checked against the PDF). Equals sup_a D_a/a of Mironov's Gaussian curve (constant in a).")
def gaussian_zcdp_rho(sigma, sensitivity=1, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """bunsteinke2016 (Gaussian mechanism, Prop. 1.6): ``rho = Delta^2/(2 sigma^2)``, an exact rational rounded to nearest.

    Preconditions: sigma > 0, sensitivity >= 0.
    """
    s = check("sigma", sigma, P)
    D = check("sensitivity", sensitivity, NN)
    return rational(D * D / (2 * s * s), "exact", dps)


# ===========================================================================
# RDP -> DP with the order alpha optimised continuously
# ===========================================================================

@dataclass(frozen=True)
class DPConversion:
    """Result of an optimised RDP -> DP conversion (balle2020hyp Thm 21 / mironov2017 Prop. 3).

    ``eps`` is a certified upper bound (rounded up) on the DP epsilon at the given delta;
    ``alpha`` is the exact order at which it was certified (``inf`` when the pure-DP bound
    k*eps0 was smaller); ``method`` is ``"improved"`` or ``"standard"``.
    """

    eps: mpmath.mpf
    alpha: mpmath.mpf
    method: str


_METHODS = ("improved", "standard")


def _objective(curve: Callable, method: str) -> Callable:
    """F(ctx, alpha, delta, *curve_params): the DP epsilon at order alpha (a valid bound for every alpha > 1)."""
    if method == "improved":
        def F(c, a, d, *p):
            return curve(c, a, *p) + c.log((a - 1) / a) - (c.log(d) + c.log(a)) / (a - 1)
    elif method == "standard":
        def F(c, a, d, *p):
            return curve(c, a, *p) - c.log(d) / (a - 1)
    else:
        raise ValueError(f"method must be one of {_METHODS}, found {method!r}")
    return F


def optimize_rdp_conversion(curve: Callable, params: Sequence[Fraction], delta, *, method: str = "improved",
                            pure_eps: Fraction | None = None, dps: int = DEFAULT_DPS) -> DPConversion:
    """balle2020hyp Theorem 21 / mironov2017 Proposition 3 with alpha optimised: returns a :class:`DPConversion`.

    ``curve(ctx, alpha, *params)`` is an RDP curve written with + - * / exp log only, so the
    same formula runs in a floating context (to optimise) and an interval context (to certify).
    The order is optimised over u = log(alpha - 1) in [-60, 60] by a grid scan followed by a
    golden-section search at twice the target precision; the returned ``eps`` is the bound
    re-evaluated with :func:`reference.precision.certified` (rounded up) at the exact rational
    alpha found, so it is valid whatever the optimiser did.  If ``pure_eps`` is given (the
    curve belongs to a pure pure_eps-DP mechanism), the result is min(bound, pure_eps).
    A negative improved bound is replaced by 0 (sound: DP is monotone in eps).
    """
    dps = check_dps(dps)
    d = check("delta", delta, U)
    F = _objective(curve, method)
    bits = _bits(dps)
    args = (d,) + tuple(params)

    def f_at(prec, u):
        # alpha - 1 = e^u needs ~1.45 |u| extra bits when u < 0
        c = _mp(prec + int(1.45 * max(0.0, -float(u))))
        uu = c.mpf(u)
        a = 1 + c.exp(uu)
        try:
            v = F(c, a, c.mpf(d.numerator) / d.denominator, *[c.mpf(q.numerator) / q.denominator for q in params])
        except (ZeroDivisionError, ValueError):
            return c.inf
        return v if c.isfinite(v) else c.inf

    # 1. grid scan of u = log(alpha - 1) at low precision, extended while the best point is at an end
    lo_prec = 96
    pts = {i / 4: None for i in range(-240, 241)}
    for u in pts:
        pts[u] = f_at(lo_prec, u)
    for _ in range(80):
        us = sorted(pts)
        best = min(us, key=lambda u: pts[u])
        if best == us[-1] and us[-1] < 8000:
            for j in range(1, 121):
                pts[us[-1] + j] = f_at(lo_prec, us[-1] + j)
        elif best == us[0] and us[0] > -8000:
            for j in range(1, 121):
                pts[us[0] - j] = f_at(lo_prec, us[0] - j)
        else:
            break
    us = sorted(pts)
    ib = us.index(min(us, key=lambda u: pts[u]))
    a_u, b_u = us[max(ib - 1, 0)], us[min(ib + 1, len(us) - 1)]
    # 2. golden-section search at about twice the target precision
    wp = 2 * bits + 64
    extra = int(1.45 * max(0.0, -a_u))
    c = _mp(wp + extra)
    a_u, b_u = c.mpf(a_u), c.mpf(b_u)
    g = (c.sqrt(5) - 1) / 2
    x1 = b_u - g * (b_u - a_u)
    x2 = a_u + g * (b_u - a_u)
    f1, f2 = f_at(wp, x1), f_at(wp, x2)
    c = _mp(wp + extra)
    tol = c.ldexp(1, -(bits // 2 + 24)) * max(1, abs(b_u))
    for _ in range(4000):
        if b_u - a_u <= tol:
            break
        if f1 <= f2:
            b_u, x2, f2 = x2, x1, f1
            x1 = b_u - g * (b_u - a_u)
            f1 = f_at(wp, x1)
        else:
            a_u, x1, f1 = x1, x2, f2
            x2 = a_u + g * (b_u - a_u)
            f2 = f_at(wp, x2)
        c = _mp(wp + extra)
    u_star = x1 if f1 <= f2 else x2
    c = _mp(wp + extra)
    alpha_raw = 1 + c.exp(u_star)
    alpha_q = mpf_to_fraction(_mk(alpha_raw._mpf_))
    if alpha_q <= 1:
        alpha_q = 1 + Fraction(1, 2 ** 60)
    # 3. certified evaluation at the exact rational alpha
    eps = certified(lambda cc, a, *rest: F(cc, a, *rest), (alpha_q,) + args, "upper", dps)
    alpha_out = _mk(alpha_raw._mpf_)  # exactly alpha_q
    if pure_eps is not None:
        pe = certified(lambda cc, v: v, (pure_eps,), "upper", dps)
        if pe <= eps:
            return DPConversion(pe, INF, method)
    if eps < 0:
        eps = mpmath.mpf(0)
    return DPConversion(eps, alpha_out, method)


def _rr_k_curve(c, a, e, kk):
    return kk * _rr_curve(c, a, e)


def _lap_k_curve(c, a, e, kk):
    return kk * _laplace_curve(c, a, e)


def _lin_curve(c, a, r):
    return a * r


def _check_method(method):
    if method not in _METHODS:
        raise ValueError(f"method must be one of {_METHODS}, found {method!r}")


def rr_rdp_to_dp(eps0, k, delta, *, method: str = "improved", dps: int = DEFAULT_DPS) -> DPConversion:
    """balle2020hyp Theorem 21 / mironov2017 Prop. 3 on k-fold eps0-RR (Mironov Table II curve), alpha optimised.

    Returns a :class:`DPConversion`; ``eps`` is min(certified conversion, k*eps0) rounded up.
    Preconditions: eps0 > 0, 1 <= k <= 10^7, 0 < delta < 1, method in {"improved", "standard"}.
    """
    _check_method(method)
    e = check("eps0", eps0, P)
    kk = int(check("k", k, KDOM))
    return optimize_rdp_conversion(_rr_k_curve, (e, Fraction(kk)), delta, method=method, pure_eps=kk * e, dps=dps)


def laplace_rdp_to_dp(b, k, delta, *, method: str = "improved", dps: int = DEFAULT_DPS) -> DPConversion:
    """balle2020hyp Theorem 21 / mironov2017 Prop. 3 on k-fold Laplace(b) (Mironov Table II curve), alpha optimised.

    Returns a :class:`DPConversion`; ``eps`` is min(certified conversion, k/b) rounded up.
    Preconditions: b > 0, 1 <= k <= 10^7, 0 < delta < 1.
    """
    _check_method(method)
    bb = check("b", b, P)
    kk = int(check("k", k, KDOM))
    return optimize_rdp_conversion(_lap_k_curve, (1 / bb, Fraction(kk)), delta, method=method, pure_eps=kk / bb, dps=dps)


def zcdp_to_dp(rho, delta, *, method: str = "improved", dps: int = DEFAULT_DPS) -> DPConversion:
    """balle2020hyp Theorem 21 / mironov2017 Prop. 3 applied to rho-zCDP (eps_alpha = alpha rho), alpha optimised.

    With ``method="standard"`` the optimum is the closed form rho + 2 sqrt(rho log(1/delta))
    (whitehouse2023 Lemma 1); ``"improved"`` is never larger.  rho = 0 gives eps = 0.
    Preconditions: rho >= 0, 0 < delta < 1.
    """
    _check_method(method)
    r = check("rho", rho, NN)
    d = check("delta", delta, U)
    if r == 0:
        return DPConversion(mpmath.mpf(0), INF, method)
    return optimize_rdp_conversion(_lin_curve, (r,), d, method=method, dps=dps)


def gaussian_rdp_to_dp(sigma, sensitivity, k, delta, *, method: str = "improved", dps: int = DEFAULT_DPS) -> DPConversion:
    """balle2020hyp Theorem 21 / mironov2017 Prop. 3 on k-fold Gaussian(sigma): zCDP with rho = k Delta^2/(2 sigma^2).

    Preconditions: sigma > 0, sensitivity >= 0, 1 <= k <= 10^7, 0 < delta < 1.
    """
    _check_method(method)
    s = check("sigma", sigma, P)
    D = check("sensitivity", sensitivity, NN)
    kk = int(check("k", k, KDOM))
    return zcdp_to_dp(kk * D * D / (2 * s * s), delta, method=method, dps=dps)


_CONV_NOTE_IMPROVED = ("Balle et al. 2020, Theorem 21 (arXiv 1905.09982) = Canonne-Kamath-Steinke 2020, Prop. 12, applied to "
                       "the RDP curve and minimised over real alpha > 1 (grid + golden section); the bound is re-evaluated "
                       "with interval arithmetic at the exact rational alpha returned, so only its tightness is numerical.")
_CONV_NOTE_STANDARD = ("Mironov 2017, Proposition 3 applied to the RDP curve and minimised over real alpha > 1; "
                       "certified at the exact rational alpha returned.")


@register("balle2020hyp_thm21_opt_rr", paper="balle2020hyp", result="Theorem 21 (alpha optimised) on k-fold randomized response",
          direction="upper", summary="DP epsilon of k-fold eps0-RR from its Renyi curve, improved conversion, best real alpha (min with k eps0)",
          params=(_eps0, _k, _delta), provenance="derived", note=_CONV_NOTE_IMPROVED)
def rr_rdp_to_dp_eps_improved(eps0, k, delta, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """balle2020hyp Theorem 21 with alpha optimised, on k-fold eps0-randomized response: the epsilon (rounded up)."""
    return rr_rdp_to_dp(eps0, k, delta, method="improved", dps=dps).eps


@register("balle2020hyp_thm21_opt_laplace", paper="balle2020hyp", result="Theorem 21 (alpha optimised) on k-fold Laplace",
          direction="upper", summary="DP epsilon of k-fold Laplace(b) from its Renyi curve, improved conversion, best real alpha (min with k/b)",
          params=(_b, _k, _delta), provenance="derived", note=_CONV_NOTE_IMPROVED)
def laplace_rdp_to_dp_eps_improved(b, k, delta, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """balle2020hyp Theorem 21 with alpha optimised, on k-fold Laplace(b): the epsilon (rounded up)."""
    return laplace_rdp_to_dp(b, k, delta, method="improved", dps=dps).eps


@register("balle2020hyp_thm21_opt_gaussian", paper="balle2020hyp", result="Theorem 21 (alpha optimised) on k-fold Gaussian",
          direction="upper", summary="DP epsilon of k-fold Gaussian(sigma) from its Renyi curve, improved conversion, best real alpha",
          params=(_sigma, _sens, _k, _delta), provenance="derived", note=_CONV_NOTE_IMPROVED)
def gaussian_rdp_to_dp_eps_improved(sigma, sensitivity, k, delta, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """balle2020hyp Theorem 21 with alpha optimised, on k-fold Gaussian(sigma): the epsilon (rounded up)."""
    return gaussian_rdp_to_dp(sigma, sensitivity, k, delta, method="improved", dps=dps).eps


@register("balle2020hyp_thm21_opt_zcdp", paper="balle2020hyp", result="Theorem 21 (alpha optimised) on rho-zCDP",
          direction="upper", summary="zCDP -> DP: min over real alpha of alpha rho + log(1-1/alpha) - (log delta + log alpha)/(alpha-1)",
          params=(_rho, _delta), provenance="derived",
          note=_CONV_NOTE_IMPROVED + " Never larger than rho + 2 sqrt(rho log(1/delta)) (whitehouse2023_lem1_zcdp_to_dp_eps).")
@register("canonne2020_prop12_opt_zcdp", paper="canonne2020", result="Proposition 12 (alpha optimised) on rho-zCDP",
          direction="upper", summary="zCDP -> DP through CKS20 Prop. 12 with eps_alpha = alpha rho and the best real alpha",
          params=(_rho, _delta), provenance="derived",
          note="Same bound as balle2020hyp_thm21_opt_zcdp (Prop. 12 solved for eps).")
def zcdp_to_dp_eps_improved(rho, delta, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """balle2020hyp Theorem 21 / canonne2020 Prop. 12 with alpha optimised, on rho-zCDP: the epsilon (rounded up)."""
    return zcdp_to_dp(rho, delta, method="improved", dps=dps).eps


@register("mironov2017_prop3_opt_rr", paper="mironov2017", result="Proposition 3 (alpha optimised) on k-fold randomized response",
          direction="upper", summary="DP epsilon of k-fold eps0-RR from its Renyi curve, standard conversion, best real alpha (min with k eps0)",
          params=(_eps0, _k, _delta), provenance="derived", note=_CONV_NOTE_STANDARD)
def rr_rdp_to_dp_eps_standard(eps0, k, delta, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """mironov2017 Proposition 3 with alpha optimised, on k-fold eps0-randomized response: the epsilon (rounded up)."""
    return rr_rdp_to_dp(eps0, k, delta, method="standard", dps=dps).eps


@register("mironov2017_prop3_opt_laplace", paper="mironov2017", result="Proposition 3 (alpha optimised) on k-fold Laplace",
          direction="upper", summary="DP epsilon of k-fold Laplace(b) from its Renyi curve, standard conversion, best real alpha (min with k/b)",
          params=(_b, _k, _delta), provenance="derived", note=_CONV_NOTE_STANDARD)
def laplace_rdp_to_dp_eps_standard(b, k, delta, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """mironov2017 Proposition 3 with alpha optimised, on k-fold Laplace(b): the epsilon (rounded up)."""
    return laplace_rdp_to_dp(b, k, delta, method="standard", dps=dps).eps


@register("mironov2017_prop3_opt_gaussian", paper="mironov2017", result="Proposition 3 (alpha optimised) on k-fold Gaussian",
          direction="upper", summary="DP epsilon of k-fold Gaussian(sigma), standard conversion, best real alpha (= rho + 2 sqrt(rho log(1/delta)))",
          params=(_sigma, _sens, _k, _delta), provenance="derived", note=_CONV_NOTE_STANDARD)
def gaussian_rdp_to_dp_eps_standard(sigma, sensitivity, k, delta, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """mironov2017 Proposition 3 with alpha optimised, on k-fold Gaussian(sigma): the epsilon (rounded up)."""
    return gaussian_rdp_to_dp(sigma, sensitivity, k, delta, method="standard", dps=dps).eps


@register("mironov2017_prop3_opt_zcdp", paper="mironov2017", result="Proposition 3 (alpha optimised) on rho-zCDP",
          direction="upper", summary="zCDP -> DP: min over real alpha of alpha rho + log(1/delta)/(alpha-1) (= rho + 2 sqrt(rho log(1/delta)))",
          params=(_rho, _delta), provenance="derived", note=_CONV_NOTE_STANDARD)
def zcdp_to_dp_eps_standard(rho, delta, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """mironov2017 Proposition 3 with alpha optimised, on rho-zCDP: the epsilon (rounded up)."""
    return zcdp_to_dp(rho, delta, method="standard", dps=dps).eps


# ===========================================================================
# Basic and advanced composition (background results)
# ===========================================================================

# Basic composition and the Dwork-Rothblum-Vadhan advanced composition are Theorems 2.9 and
# 2.10 of rogers2016 (same formulas); they are re-exported here for the comparisons below.
from .rogers2016 import advanced_composition_eps as drv_advanced_composition_eps  # noqa: E402
from .rogers2016 import basic_composition_delta, basic_composition_eps  # noqa: E402


# ===========================================================================
# KOV15 Theorem 3.3: exact optimal homogeneous composition
# ===========================================================================

def _one_minus_pow(d0: Fraction, k: int, prec: int):
    """Enclosure of D0 = 1 - (1 - d0)^k for d0 in [0, 1).

    For k d0 <= 1/2 the binomial series sum_{j>=1} (-1)^{j+1} C(k,j) d0^j is alternating with
    decreasing terms (ratio (k-j) d0/(j+1) <= 1/4), so it is truncated with the next term as
    error; otherwise 1 - exp(k log(1-d0)) is well conditioned (D0 > 1 - e^{-1/2}).
    """
    if d0 == 0:
        return (_ZERO, _ZERO)
    w = prec + 16
    if k * d0 <= Fraction(1, 2):
        dp = _pq(d0, w)
        term = _pscale(dp, k, w)  # j = 1
        S = term
        j = 1
        while True:
            j += 1
            if j > k:
                return S
            term = _pmul(_pdiv(_pscale(term, k - j + 1, w), _pint(j), w), dp, w)
            if libmp.mpf_le(term[1], libmp.mpf_shift(S[0], -(prec + 4))):
                return (libmp.mpf_sub(S[0], term[1], prec, _F), libmp.mpf_add(S[1], term[1], prec, _C))
            S = _psub(S, term, w) if j % 2 == 0 else _padd(S, term, w)
    lg = _plog(_pq(1 - d0, w), w)  # negative
    return _pone_minus(_pexp(_pscale(lg, k, w), w), prec)


class _KovSetup:
    """Shared enclosures for the k-fold (eps0, 0)-randomized-response sums at ``prec`` bits.

    a_l = C(k,l) e^{(k-l) eps0}/(1+e^{eps0})^k  (law of the number l of flips under P),
    b_l = C(k,l) e^{l eps0}/(1+e^{eps0})^k      (the same under Q), b_l = a_l e^{-(k-2l) eps0}.
    """

    def __init__(self, eps0: Fraction, k: int, prec: int):
        self.eps0, self.k, self.prec = eps0, k, prec
        w = prec
        e = _pq(eps0, w)
        self.E = _pexp(e, w)  # e^{eps0}
        # 1/E, E^-2 and E^2 from E by directed division and products (one exp instead of four:
        # an exp costs ~0.1 s at 10000 digits without gmpy)
        self.Einv = _pdiv((_ONE, _ONE), self.E, w)
        self.G = _pmul(self.Einv, self.Einv, w)  # e^{-2 eps0}
        self.Ginv = _pmul(self.E, self.E, w)
        self.logZ = _plog(_padd(self.E, (_ONE, _ONE), w), w)  # log(1 + e^{eps0})
        fe = float(eps0) if eps0 < 700 else 700.0
        self.mode = min(k, max(0, int((k + 1) / (1 + math.exp(fe)))))

    def log_a(self, l: int):
        w = self.prec
        t = _plogcomb(self.k, l, w)
        if self.k - l:
            t = _padd(t, _pscale(_pq(self.eps0, w), self.k - l, w), w)
        return _psub(t, _pscale(self.logZ, self.k, w), w)

    def log_b(self, l: int):
        w = self.prec
        t = _plogcomb(self.k, l, w)
        if l:
            t = _padd(t, _pscale(_pq(self.eps0, w), l, w), w)
        return _psub(t, _pscale(self.logZ, self.k, w), w)

    def ratio_down(self, l: int, up_factor):
        """t_{l-1}/t_l = l/(k-l+1) * up_factor (E for a, Einv for b)."""
        return _pmul(_pdiv(_pint(l), _pint(self.k - l + 1), self.prec), up_factor, self.prec)

    def ratio_up(self, l: int, factor):
        """t_{l+1}/t_l = (k-l)/(l+1) * factor (Einv for a, E for b)."""
        return _pmul(_pdiv(_pint(self.k - l), _pint(l + 1), self.prec), factor, self.prec)


def _geometric_tail(t, r, prec):
    """Upper bound t r/(1-r) on sum_{n>=1} t r^n (raw upper end); None when r >= 1."""
    if not libmp.mpf_lt(r[1], _ONE):
        return None
    den = libmp.mpf_sub(_ONE, r[1], prec, _F)
    return libmp.mpf_div(libmp.mpf_mul(t[1], r[1], prec, _C), den, prec, _C)


def _window_sum(S: _KovSetup, L: int, start: int, t0, down_factor, up_factor, stop_bits: int,
                y0=None, go_up: bool = True):
    """Enclosure of sum_{l <= L} t_l (times f_l = 1 - y_l when y0 is given), starting at index ``start``.

    Terms are generated by the exact ratios t_{l-1}/t_l = l/(k-l+1) * down_factor and
    t_{l+1}/t_l = (k-l)/(l+1) * up_factor; y_l = e^{eps - (k-2l) eps0} by y_{l-1} = y_l G.
    The walk in each direction stops when the ratio is < 1 and the geometric tail
    t_l r/(1-r) (valid because the ratios keep decreasing away from ``start``, and f <= 1)
    is below 2^-stop_bits of the sum so far; that tail bound is added to the upper end.
    """
    w = S.prec
    f0 = _pone_minus(y0, w) if y0 is not None else None
    total = _pmul(t0, f0, w) if f0 is not None else t0
    # downward
    t, y, l, n = t0, y0, start, 0
    while l > 0:
        r = S.ratio_down(l, down_factor)
        n += 1
        if n % 8 == 0 or l <= 1:
            tail = _geometric_tail(t, r, w)
            if tail is not None and libmp.mpf_le(tail, libmp.mpf_shift(total[0], -stop_bits)) and libmp.mpf_gt(total[0], _ZERO):
                total = (total[0], libmp.mpf_add(total[1], tail, w, _C))
                break
        t = _pmul(t, r, w)
        l -= 1
        if y is not None:
            y = _pmul(y, S.G, w)
            total = _padd(total, _pmul(t, _pone_minus(y, w), w), w)
        else:
            total = _padd(total, t, w)
    if not go_up:
        return total
    # upward
    t, y, l, n = t0, y0, start, 0
    while l < L:
        r = S.ratio_up(l, up_factor)
        n += 1
        if n % 8 == 0:
            tail = _geometric_tail(t, r, w)
            if tail is not None and libmp.mpf_le(tail, libmp.mpf_shift(total[0], -stop_bits)) and libmp.mpf_gt(total[0], _ZERO):
                total = (total[0], libmp.mpf_add(total[1], tail, w, _C))
                break
        t = _pmul(t, r, w)
        l += 1
        if y is not None:
            y = _pmul(y, S.Ginv, w)
            total = _padd(total, _pmul(t, _pone_minus(y, w), w), w)
        else:
            total = _padd(total, t, w)
    return total


def _kov_L(eps0: Fraction, k: int, eps: Fraction) -> int:
    """Largest l with (k - 2l) eps0 > eps (the last positive term); -1 if none."""
    if eps >= k * eps0:
        return -1
    lstar = (k * eps0 - eps) / (2 * eps0)
    return min(k, math.ceil(lstar) - 1)


def _kov_rr_delta_pair(S: _KovSetup, eps: Fraction, stop_bits: int):
    """Enclosure of delta_rr(eps) = sum_{l} max(0, a_l - e^eps b_l) = sum_{l <= L} a_l (1 - e^{eps - (k-2l) eps0})."""
    eps0, k, w = S.eps0, S.k, S.prec
    L = _kov_L(eps0, k, eps)
    if L < 0:
        return (_ZERO, _ZERO)
    s = min(L, S.mode)
    a_s = _pexp(S.log_a(s), w)
    y_s = _pexp(_pq(eps - (k - 2 * s) * eps0, w), w)
    return _window_sum(S, L, s, a_s, S.E, S.Einv, stop_bits, y0=y_s)


def _kov_guard(eps0: Fraction, k: int, eps: Fraction | None) -> int:
    g = 40 + k.bit_length() + int(math.log2(float(k) * (float(min(eps0, Fraction(10 ** 6))) + 1) + 2))
    if eps0 < Fraction(1, 2):
        g += _log2_ceil(1 / (2 * eps0))
    if eps is not None:
        L = _kov_L(eps0, k, eps)
        if L >= 0:
            x = (k - 2 * L) * eps0 - eps
            if x < 1:
                g += _log2_ceil(1 / x)
    return g


def _kov_total_pair(eps0: Fraction, delta0: Fraction, k: int, eps: Fraction, bits: int):
    """Enclosure of 1 - (1-delta0)^k (1 - delta_rr(eps)) tight to ``bits`` relative bits when possible."""
    prec = bits + _kov_guard(eps0, k, eps)
    while True:
        S = _KovSetup(eps0, k, prec)
        drr = _kov_rr_delta_pair(S, eps, bits + 12)
        D0 = _one_minus_pow(delta0, k, prec)
        tot = _padd(drr, _pmul(D0, _pone_minus(drr, prec), prec), prec)  # delta_rr + D0 (1 - delta_rr)
        if _rel_ok(tot, bits + 2) or prec >= MAX_PREC_BITS or tot[1] == _ZERO:
            return tot
        prec = min(2 * prec, MAX_PREC_BITS)


_kov_params = (_eps0, _delta0, _k)


@register("kairouz2015_thm3_3_delta", paper="kairouz2015", result="Theorem 3.3 (optimal composition, hockey-stick form)",
          direction="upper",
          summary="Exact optimal delta(eps) of k-fold adaptive composition of (eps0, delta0)-DP: 1 - (1-delta0)^k (1 - delta_rr(eps))",
          params=_kov_params + (Param("eps", NN, default="0.5", doc="target epsilon >= 0"),),
          provenance="published statement",
          note=KOV_NOTE + " Theorem 3.3 gives the breakpoints eps = (k-2i) eps0; between them the value is the hockey-stick "
               "divergence of the dominating k-fold (eps0, delta0)-randomized response (derived; equal to the printed "
               "delta_i at the breakpoints, checked in tests).")
def kov_delta(eps0, delta0, k, eps, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """kairouz2015 Theorem 3.3: optimal delta(eps) of k-fold composition of (eps0, delta0)-DP mechanisms, rounded up.

    Value: ``1 - (1-delta0)^k (1 - delta_rr(eps))`` with
    ``delta_rr(eps) = (1+e^eps0)^-k sum_l C(k,l) max(0, e^{(k-l) eps0} - e^eps e^{l eps0})``, the
    hockey-stick divergence of k-fold (eps0, 0)-randomized response, which dominates every
    (eps0, delta0)-DP mechanism (KOV15); at eps = (k-2i) eps0 it is the printed
    1 - (1-delta0)^k (1 - delta_i).

    Preconditions: eps0 > 0, delta0 in [0, 1), 1 <= k <= 10^7, eps >= 0 (exact).
    Rounding: up.  Guarantee (certified): the positive terms a_l (1 - e^{eps-(k-2l)eps0}) with
    a_l = C(k,l) e^{(k-l)eps0}/(1+e^{eps0})^k are summed in positive-interval arithmetic
    (lower ends rounded down, upper ends up), starting at the mode (or at the last positive
    term) and walking outwards with the exact ratios l/(k-l+1) e^{eps0}; each walk stops once
    its geometric tail bound t r/(1-r) is below 2^-(bits+12) of the sum, and that bound is
    added.  log C(k,l) is enclosed by mpmath's directed loggamma (exact integer for k <= 4000).
    The precision is doubled until the enclosure is tight.  Deviation from the printed sum:
    log-space starting term and the factor form (1 - e^{eps - (k-2l)eps0}) (no cancellation).
    Cost: O(sqrt(k) * dps) terms; ~0.1 s at k = 10^5 and 50 digits.
    """
    dps = check_dps(dps)
    e0 = check("eps0", eps0, P)
    d0 = check("delta0", delta0, D0DOM)
    kk = int(check("k", k, KDOM))
    e = check("eps", eps, NN)
    bits = _bits(dps)
    tot = _kov_total_pair(e0, d0, kk, e, bits)
    return _round_up(tot[1], bits)


@register("kairouz2015_thm3_3_delta_i", paper="kairouz2015", result="Theorem 3.3", direction="upper",
          summary="Printed Theorem 3.3: ((k-2i) eps0, 1 - (1-delta0)^k (1-delta_i))-DP, delta_i = sum_{l<i} C(k,l)(e^{(k-l)eps0} - e^{(k-2i+l)eps0})/(1+e^eps0)^k",
          params=_kov_params + (Param("i", Domain.integers_from(0), kind="integer", default="2", doc="breakpoint index 0 <= i <= floor(k/2)"),),
          provenance="published statement",
          note=KOV_NOTE + " Statement as in arXiv 1311.0776 Theorem 3.3 (transcription cross-checked with Google's "
               "differential-privacy library, which implements it citing that theorem).")
def kov_delta_i(eps0, delta0, k, i, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """kairouz2015 Theorem 3.3 as printed: the delta ``1 - (1-delta0)^k (1 - delta_i)`` at eps = (k-2i) eps0, rounded up.

    ``delta_i = sum_{l=0}^{i-1} C(k,l) (e^{(k-l)eps0} - e^{(k-2i+l)eps0})/(1+e^{eps0})^k``.
    Preconditions: eps0 > 0, delta0 in [0, 1), 1 <= k <= 10^7, 0 <= i <= floor(k/2).
    Evaluated by :func:`kov_delta` at eps = (k-2i) eps0 (the l-th printed term is the l-th
    positive hockey-stick term there); test_classical checks it against the printed sum.
    """
    e0 = check("eps0", eps0, P)
    kk = int(check("k", k, KDOM))
    ii = check("i", i, Domain(lo=Fraction(0), hi=Fraction(kk // 2), lo_closed=True, hi_closed=True, integer=True))
    return kov_delta(e0, delta0, kk, (kk - 2 * ii) * e0, dps=dps)


def _kov_AB(S: _KovSetup, L: int, stop_bits: int):
    """Enclosures of A_L = sum_{l<=L} a_l and B_L = sum_{l<=L} b_l (segment L: delta_rr = A_L - e^eps B_L)."""
    w = S.prec
    s = min(L, S.mode)
    A = _window_sum(S, L, s, _pexp(S.log_a(s), w), S.E, S.Einv, stop_bits)
    # b_l increases up to its mode k e^eps0/(1+e^eps0) >= k/2 > L: walk down from L only.
    B = _window_sum(S, L, L, _pexp(S.log_b(L), w), S.Einv, S.E, stop_bits, go_up=False)
    return A, B


@register("kairouz2015_thm3_3_eps", paper="kairouz2015", result="Theorem 3.3 (inverse: eps for a target delta)",
          direction="upper",
          summary="Smallest eps with optimal k-fold composition delta(eps) <= delta (KOV15 Thm 3.3), rounded up; inf if impossible",
          params=_kov_params + (_delta,), provenance="derived",
          note=KOV_NOTE + " Inverse of kairouz2015_thm3_3_delta: on the segment (k-2L-2)eps0 <= eps <= (k-2L)eps0 "
               "delta_rr = A_L - e^eps B_L, solved in interval arithmetic and certified by segment containment "
               "(or a forward check).")
def kov_eps(eps0, delta0, k, delta, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """kairouz2015 Theorem 3.3, inverted: the smallest eps >= 0 with optimal delta(eps) <= delta, rounded up.

    Contract: k adaptively composed (eps0, delta0)-DP mechanisms are (returned eps, delta)-DP,
    and no smaller eps (beyond the rounding) holds for all of them.  Returns ``inf`` when
    delta < 1 - (1-delta0)^k (no epsilon suffices), k eps0 when delta equals it.
    Preconditions: eps0 > 0, delta0 in [0, 1), 1 <= k <= 10^7, delta in (0, 1).
    Method: the segment L (eps between the breakpoints (k-2L-2) eps0 and (k-2L) eps0) is
    located by a bisection on certified low-precision values at the breakpoints; on it
    delta_rr(eps) = A_L - e^eps B_L exactly, so eps = log((A_L - t)/B_L) with
    t = (delta - D0)/(1 - D0), D0 = 1 - (1-delta0)^k, is enclosed by interval arithmetic.
    Certificate: if the enclosure lies inside the segment its upper end is >= the exact
    answer (delta_rr is strictly decreasing); otherwise the neighbouring segment is tried, and
    as a last resort the upper end is checked forward with :func:`kov_delta`'s enclosure.
    Cost: ~20 low-precision and 2 full-precision sums; < 1 s at k = 10^5, 50 digits.
    """
    dps = check_dps(dps)
    e0 = check("eps0", eps0, P)
    d0 = check("delta0", delta0, D0DOM)
    kk = int(check("k", k, KDOM))
    d = check("delta", delta, U)
    bits = _bits(dps)
    # t = (delta - D0)/(1 - D0): the budget left for delta_rr; decide its sign.
    prec = bits + 64
    while True:
        D0 = _one_minus_pow(d0, kk, prec)
        c = _iv(prec)
        t_iv = (c.mpf(d.numerator) / d.denominator - _iv_pair(c, D0)) / (1 - _iv_pair(c, D0))
        t = (t_iv._mpi_[0], t_iv._mpi_[1])
        if libmp.mpf_gt(t[0], _ZERO) or libmp.mpf_lt(t[1], _ZERO):
            break
        if prec >= MAX_PREC_BITS:
            # exact tie test: delta == 1 - (1-delta0)^k
            t = (_ZERO, _ZERO) if (1 - d0) ** kk == 1 - d else (t[0], t[1])
            break
        prec *= 2
    if libmp.mpf_lt(t[1], _ZERO):
        return INF
    if t[1] == _ZERO:
        return certified(lambda cc, v: v, (kk * e0,), "upper", dps)
    # eps = 0 already enough?
    tot0 = _kov_total_pair(e0, d0, kk, Fraction(0), bits)
    if d >= mpf_to_fraction(_mk(tot0[1])):
        return mpmath.mpf(0)
    cap = certified(lambda cc, v: v, (kk * e0,), "upper", dps)
    # 1. locate the segment: phi(j) = delta_rr((k-2j) eps0) increases with j; phi(0) = 0 < t <= delta_rr(0).
    J = (kk + 1) // 2  # (k - 2J) eps0 <= 0
    lo_j, hi_j = 0, J
    Slo = _KovSetup(e0, kk, 80 + _kov_guard(e0, kk, None))
    while hi_j - lo_j > 1:
        mid = (lo_j + hi_j) // 2
        ph = _kov_rr_delta_pair(Slo, (kk - 2 * mid) * e0, 40)
        if libmp.mpf_lt(ph[1], t[0]):
            lo_j = mid
        elif libmp.mpf_gt(ph[0], t[1]):
            hi_j = mid
        else:
            lo_j = hi_j = mid
            break
    L = lo_j
    # 2. solve on segment L, certify by containment; move to a neighbour if needed.
    prec = bits + _kov_guard(e0, kk, None) + 32
    tried = 0
    while True:
        tried += 1
        S = _KovSetup(e0, kk, prec)
        A, B = _kov_AB(S, L, bits + 16)
        c = _iv(prec)
        D0 = _one_minus_pow(d0, kk, prec)
        t_iv = (c.mpf(d.numerator) / d.denominator - _iv_pair(c, D0)) / (1 - _iv_pair(c, D0))
        num = _iv_pair(c, A) - t_iv
        lo_b = _iv_frac(c, (kk - 2 * L - 2) * e0)
        hi_b = _iv_frac(c, (kk - 2 * L) * e0)
        if num.b <= 0:
            # A_L <= t: even eps -> -inf gives g_L < t, so eps* < (k-2L-2) eps0: more terms.
            if L + 1 <= J:
                L += 1
                continue
            raise ArithmeticError("kov_eps: segment search failed")  # pragma: no cover
        if num.a <= 0:
            if prec < MAX_PREC_BITS:
                prec *= 2
                continue
            raise ArithmeticError("kov_eps: cancellation not resolved")  # pragma: no cover
        ev = c.log(num / _iv_pair(c, B))
        e_lo, e_hi = ev._mpi_
        if libmp.mpf_lt(e_hi, lo_b._mpi_[0]):  # solution of g_L below the segment: eps* on a segment with more terms
            L += 1
            if tried > 64:
                break
            continue
        if libmp.mpf_gt(e_lo, hi_b._mpi_[1]):  # above: fewer terms
            L -= 1
            if tried > 64 or L < 0:
                break
            continue
        inside = libmp.mpf_ge(e_lo, lo_b._mpi_[1]) and libmp.mpf_le(e_hi, hi_b._mpi_[0])
        tight = _rel_ok((e_lo, e_hi), bits + 2) if libmp.mpf_gt(e_lo, _ZERO) else libmp.mpf_le(
            libmp.mpf_sub(e_hi, e_lo, 64, _C), libmp.mpf_shift(_ONE, -bits))
        if inside and tight:
            if libmp.mpf_le(e_hi, _ZERO):
                return mpmath.mpf(0)
            return min(_round_up(e_hi, bits), cap)  # cap = k eps0 is always valid (delta_rr(k eps0) = 0)
        if prec < MAX_PREC_BITS and not tight:
            prec = min(2 * prec, MAX_PREC_BITS)
            continue
        break
    # 3. fallback: forward check of a candidate (touching a breakpoint, or precision exhausted).
    cand = _round_up(e_hi, bits) if libmp.mpf_gt(e_hi, _ZERO) else mpmath.mpf(0)
    for n in range(200):
        tot = _kov_total_pair(e0, d0, kk, mpf_to_fraction(cand), bits + 8)
        if d >= mpf_to_fraction(_mk(tot[1])):
            return min(cand, cap)
        cand = _bump_up(cand, bits, n)
    raise ArithmeticError("kov_eps: could not certify")  # pragma: no cover


def _bump_up(x: mpmath.mpf, bits: int, n: int) -> mpmath.mpf:
    """x + 2^n ulps (relative 2^(n+4-bits)), rounded up; used to move a candidate epsilon upward."""
    step = libmp.mpf_shift(libmp.mpf_abs(x._mpf_) if x else _ONE, n + 4 - bits)
    return _round_up(libmp.mpf_add(x._mpf_, step, bits + 8, _C), bits)


def _iv_frac(c, q: Fraction):
    """Interval enclosure of a rational in the interval context ``c``."""
    return c.mpf(q.numerator) / c.mpf(q.denominator)


# ===========================================================================
# KOV15 Theorems 3.4 / 3.5: closed-form bounds
# ===========================================================================

@register("kairouz2015_thm3_4_eps", paper="kairouz2015", result="Theorem 3.4", direction="upper",
          summary="KOV closed form: min{k eps0, k eps0 tanh(eps0/2) + eps0 sqrt(2k log(e + sqrt(k) eps0/dt)), k eps0 tanh(eps0/2) + eps0 sqrt(2k log(1/dt))}",
          params=(_eps0, _k, Param("delta_tilde", DTILDE, default="1e-6", doc="slack delta~ in (0, 1]")),
          provenance="published statement",
          note=KOV_NOTE + " Theorem 3.4 as transcribed by OpenDP/SmartNoise (which cite it); (e^eps-1)/(e^eps+1) = tanh(eps/2). "
               "The delta is kairouz2015_thm3_4_delta.")
def kov_closed_form_eps(eps0, k, delta_tilde, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """kairouz2015 Theorem 3.4: the epsilon of the closed-form composition bound, rounded up.

    ``min{k eps0, k eps0 (e^eps0-1)/(e^eps0+1) + eps0 sqrt(2k log(e + sqrt(k eps0^2)/dt)),
    k eps0 (e^eps0-1)/(e^eps0+1) + eps0 sqrt(2k log(1/dt))}``; the composition is then
    (value, 1 - (1-delta0)^k (1-dt))-DP.  Preconditions: eps0 > 0, 1 <= k <= 10^7, dt in (0, 1].
    Rounding: each branch is certified upward, the min of upper bounds is returned.
    """
    e = check("eps0", eps0, P)
    kk = int(check("k", k, KDOM))
    dt = check("delta_tilde", delta_tilde, DTILDE)
    kq = Fraction(kk)
    b1 = rational(kq * e, "upper", dps)  # exact rational k eps0
    b2 = certified(lambda c, e, kq, dt: kq * e * (1 - 2 / (c.exp(e) + 1))
                   + e * c.sqrt(2 * kq * c.log(c.e + c.sqrt(kq) * e / dt)), (e, kq, dt), "upper", dps)
    b3 = certified(lambda c, e, kq, dt: kq * e * (1 - 2 / (c.exp(e) + 1)) + e * c.sqrt(-2 * kq * c.log(dt)),
                   (e, kq, dt), "upper", dps)
    return min(b1, b2, b3)


@register("kairouz2015_thm3_4_delta", paper="kairouz2015", result="Theorem 3.4", direction="upper",
          summary="KOV closed form: the delta 1 - (1-delta0)^k (1-delta~)",
          params=(_delta0, _k, Param("delta_tilde", DTILDE, default="1e-6", doc="slack delta~ in (0, 1]")),
          provenance="published statement", note=KOV_NOTE)
def kov_closed_form_delta(delta0, k, delta_tilde, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """kairouz2015 Theorem 3.4: the delta ``1 - (1-delta0)^k (1 - dt)`` = dt + D0 (1 - dt), rounded up.

    Preconditions: delta0 in [0, 1), 1 <= k <= 10^7, dt in (0, 1].  Certified (series for small k delta0).
    """
    dps = check_dps(dps)
    d0 = check("delta0", delta0, D0DOM)
    kk = int(check("k", k, KDOM))
    dt = check("delta_tilde", delta_tilde, DTILDE)
    bits = _bits(dps)
    prec = bits + 40
    while True:
        D0 = _one_minus_pow(d0, kk, prec)
        dtp = _pq(dt, prec)
        tot = _padd(dtp, _pmul(D0, _pone_minus(dtp, prec), prec), prec)
        if _rel_ok(tot, bits + 2) or prec >= MAX_PREC_BITS:
            return _round_up(tot[1], bits)
        prec *= 2


@register("kairouz2015_thm3_5_eps", paper="kairouz2015", result="Theorem 3.5 (heterogeneous closed form)", direction="upper",
          summary="KOV heterogeneous closed form: min{sum eps, sum eps tanh(eps/2) + sqrt(2 V log(e + sqrt(V)/dt)), sum eps tanh(eps/2) + sqrt(2 V log(1/dt))}, V = sum eps^2",
          params=(Param("eps", P, kind="sequence", default="0.1,0.2,0.05", doc="per-step epsilons > 0"),
                  Param("delta_tilde", DTILDE, default="1e-6", doc="slack delta~ in (0, 1]")),
          provenance="published statement",
          note=KOV_NOTE + " Heterogeneous closed form as transcribed by OpenDP (which labels it Theorem 3.5; numbering "
               "not re-checked against the PDF). Checked in tests to dominate the exact heterogeneous composition.")
def kov_hetero_closed_form_eps(eps: Sequence, delta_tilde, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """kairouz2015 Theorem 3.5: heterogeneous closed-form composition epsilon, rounded up.

    ``min{sum eps_i, sum eps_i tanh(eps_i/2) + sqrt(2 V log(e + sqrt(V)/dt)), sum eps_i tanh(eps_i/2)
    + sqrt(2 V log(1/dt))}`` with V = sum eps_i^2; the delta is 1 - prod(1-delta_i)(1-dt).
    Preconditions: non-empty sequence of eps_i > 0; dt in (0, 1].  Rounding: up.
    """
    es = check_seq("eps", eps, P)
    dt = check("delta_tilde", delta_tilde, DTILDE)
    V = sum(x * x for x in es)

    def first(c, *es):
        return sum((x * (1 - 2 / (c.exp(x) + 1)) for x in es), c.mpf(0))

    b1 = rational(sum(es), "upper", dps)
    b2 = certified(lambda c, V, dt, *es: first(c, *es) + c.sqrt(2 * V * c.log(c.e + c.sqrt(V) / dt)), (V, dt) + es,
                   "upper", dps)
    b3 = certified(lambda c, V, dt, *es: first(c, *es) + c.sqrt(-2 * V * c.log(dt)), (V, dt) + es, "upper", dps)
    return min(b1, b2, b3)


# ===========================================================================
# Heterogeneous optimal composition: exact enumeration of the privacy-loss lattice
# ===========================================================================

MAX_LATTICE = 1 << 22


def loss_lattice(eps: Sequence) -> tuple[int, dict[int, int]]:
    """Murtagh-Vadhan (as kairouz2015 extension): the privacy-loss lattice of prod_i (eps_i, 0)-randomized response.

    Returns ``(D, counts)``: with all eps_i written over the common denominator D, the loss of
    the sign pattern s in {+1,-1}^k is sum_i s_i eps_i = m/D, and ``counts[m]`` is the exact
    number of patterns with that loss (equal losses merged).  Every pattern with loss m/D has
    the same probability e^{(E + m/D)/2}/prod_i (1 + e^{eps_i}) under P (E = sum eps_i), so the
    counts determine the whole privacy-loss distribution.  Raises ValueError beyond 2^22 losses.
    """
    es = check_seq("eps", eps, NN)
    D = 1
    for x in es:
        D = D * x.denominator // math.gcd(D, x.denominator)
    counts: dict[int, int] = {0: 1}
    for x in es:
        n = int(x * D)
        new: dict[int, int] = {}
        for m, cnt in counts.items():
            new[m + n] = new.get(m + n, 0) + cnt
            new[m - n] = new.get(m - n, 0) + cnt
        counts = new
        if len(counts) > MAX_LATTICE:
            raise ValueError(f"eps has too many distinct privacy losses (> {MAX_LATTICE}); found a sequence of length {len(es)}")
    return D, counts


def _hetero_setup(es, ds):
    if len(es) != len(ds):
        raise ValueError(f"delta must have the same length as eps ({len(es)}), found length {len(ds)}")
    D, counts = loss_lattice(es)
    E = sum(es)
    keep = Fraction(1)
    for x in ds:
        keep *= 1 - x
    return D, counts, E, 1 - keep


def _hetero_logZ(es, prec):
    logZ = (_ZERO, _ZERO)
    for x in es:
        logZ = _padd(logZ, _plog(_padd(_pexp(_pq(x, prec), prec), (_ONE, _ONE), prec), prec), prec)
    return logZ


def _hetero_weights(es, D, counts, E, prec):
    """Yield (m, weight enclosure) in descending loss order; weight = N_m e^{(E + m/D)/2}/prod_i (1+e^eps_i).

    The exponent (E + m/D)/2 = (E_num D + m E_den)/(2 E_den D) is formed in integers (no Fraction per loss).
    """
    logZ = _hetero_logZ(es, prec)
    en, ed = E.numerator, E.denominator
    den = 2 * ed * D
    for m in sorted(counts, reverse=True):
        num = en * D + m * ed
        arg = (libmp.mpf_sub(libmp.from_rational(num, den, prec, _F), logZ[1], prec, _F),
               libmp.mpf_sub(libmp.from_rational(num, den, prec, _C), logZ[0], prec, _C))
        yield m, _pscale(_pexp(arg, prec), counts[m], prec)


def _hetero_rr_delta_pair(es, D, counts, E, eps: Fraction, prec):
    """Enclosure of H_eps = sum_{loss > eps} w_loss (1 - e^{eps - loss}) (every term a positive enclosure)."""
    total = (_ZERO, _ZERO)
    pn, pd = eps.numerator, eps.denominator
    den = pd * D
    for m, wt in _hetero_weights(es, D, counts, E, prec):
        num = pn * D - m * pd  # (eps - m/D) * pd * D
        if num >= 0:
            break
        y = (libmp.mpf_exp(libmp.from_rational(num, den, prec, _F), prec, _F),
             libmp.mpf_exp(libmp.from_rational(num, den, prec, _C), prec, _C))
        total = _padd(total, _pmul(wt, _pone_minus(y, prec), prec), prec)
    return total


_het_eps = Param("eps", NN, kind="sequence", default="0.1,0.2,0.3", doc="per-step epsilons >= 0 (up to ~20 distinct)")
_het_delta = Param("delta", D0DOM, kind="sequence", default="0,0,0", doc="per-step deltas in [0, 1), same length as eps")
_HET_NOTE = ("Optimal heterogeneous composition: the hockey-stick divergence of prod_i (eps_i, delta_i)-randomized response, "
             "1 - prod(1-delta_i)(1 - sum_S max(0, e^{sum_S eps} - e^eps e^{sum_notS eps})/prod(1+e^eps_i)) "
             "(Murtagh-Vadhan, TCC 2016 / Theory of Computing 14(8) 2018; extends KOV15 Thm 3.3). "
             "Exact lattice counts, certified sum.")


@register("murtagh2016_hetero_optimal_delta", paper="murtagh2016", result="optimal heterogeneous composition (extends KOV Theorem 3.3)",
          direction="upper", summary="Exact optimal delta(eps) of the composition of (eps_i, delta_i)-DP mechanisms (lattice enumeration)",
          params=(_het_eps, _het_delta, Param("eps_target", NN, default="0.5", doc="target epsilon >= 0")),
          provenance="published statement", note=_HET_NOTE)
def hetero_optimal_delta(eps: Sequence, delta: Sequence, eps_target, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """murtagh2016 (optimal heterogeneous composition, extending kairouz2015 Thm 3.3): optimal delta at eps_target of (eps_i, delta_i)-DP composition.

    Value: ``1 - prod(1-delta_i) (1 - H)``, ``H = sum_{loss > eps} P(loss) (1 - e^{eps - loss})`` over
    the exact loss lattice of :func:`loss_lattice` (2^k sign patterns merged by loss value).
    Preconditions: eps_i >= 0, delta_i in [0, 1) (same length), eps_target >= 0; at most
    2^22 distinct losses (k ~ 20 distinct eps_i).  Rounding: up; every term is a positive
    enclosure, so the sum is certified; precision doubles until tight.
    """
    dps = check_dps(dps)
    es = check_seq("eps", eps, NN)
    ds = check_seq("delta", delta, D0DOM)
    e = check("eps_target", eps_target, NN)
    D, counts, E, D0 = _hetero_setup(es, ds)
    bits = _bits(dps)
    # guard bits for the factor 1 - e^{eps - loss} at the smallest positive gap loss - eps
    gap_num = min((m * e.denominator - e.numerator * D for m in counts if m * e.denominator > e.numerator * D), default=0)
    gap = Fraction(gap_num, e.denominator * D)
    prec = bits + 40 + (_log2_ceil(1 / gap) if 0 < gap < 1 else 0)
    while True:
        H = _hetero_rr_delta_pair(es, D, counts, E, e, prec)
        D0p = _pq(D0, prec)
        tot = _padd(H, _pmul(D0p, _pone_minus(H, prec), prec), prec)
        if _rel_ok(tot, bits + 2) or prec >= MAX_PREC_BITS or tot[1] == _ZERO:
            return _round_up(tot[1], bits)
        prec *= 2


@register("murtagh2016_hetero_optimal_eps", paper="murtagh2016", result="optimal heterogeneous composition, inverse (extends KOV Theorem 3.3)",
          direction="upper", summary="Smallest eps with optimal heterogeneous delta(eps) <= delta (lattice enumeration), rounded up",
          params=(_het_eps, _het_delta, Param("delta_target", U, default="1e-6", doc="target delta in (0, 1)")),
          provenance="derived", note=_HET_NOTE + " Inverted segment by segment between consecutive losses.")
def hetero_optimal_eps(eps: Sequence, delta: Sequence, delta_target, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """murtagh2016 (optimal heterogeneous composition, extending kairouz2015 Thm 3.3), inverted: smallest eps >= 0 with delta(eps) <= delta_target.

    Returns ``inf`` if delta_target < 1 - prod(1-delta_i).  Between consecutive lattice losses
    l_{j+1} < eps <= l_j, H(eps) = A_j - e^eps B_j with A_j = sum_{i<=j} w_i and
    B_j = sum_{i<=j} w_i e^{-l_i}; the segment is found by prefix sums and the solution
    log((A_j - t)/B_j) is certified by containment in the segment (or a forward check).
    Preconditions as :func:`hetero_optimal_delta`, delta_target in (0, 1).  Rounding: up.
    """
    dps = check_dps(dps)
    es = check_seq("eps", eps, NN)
    ds = check_seq("delta", delta, D0DOM)
    dt = check("delta_target", delta_target, U)
    D, counts, E, D0 = _hetero_setup(es, ds)
    if dt < D0:
        return INF
    t_exact = (dt - D0) / (1 - D0)
    bits = _bits(dps)
    losses = sorted(counts, reverse=True)
    if t_exact == 0:
        return rational(Fraction(losses[0], D), "upper", dps) if losses[0] > 0 else mpmath.mpf(0)
    if dt >= mpf_to_fraction(hetero_optimal_delta(es, ds, 0, dps=dps)):
        return mpmath.mpf(0)
    positive = [m for m in losses if m > 0]
    cap = rational(Fraction(losses[0], D), "upper", dps)  # H(max loss) = 0: always valid
    prec = bits + 64
    e_hi = _ZERO
    for _ in range(12):
        c = _iv(prec)
        t = _pq(t_exact, prec)
        A = (_ZERO, _ZERO)
        B = (_ZERO, _ZERO)
        found = None
        for j, (m, wt) in enumerate(_hetero_weights(es, D, counts, E, prec)):
            if m <= 0:
                break
            A = _padd(A, wt, prec)
            eml = (libmp.mpf_exp(libmp.from_rational(-m, D, prec, _F), prec, _F),
                   libmp.mpf_exp(libmp.from_rational(-m, D, prec, _C), prec, _C))
            B = _padd(B, _pmul(wt, eml, prec), prec)  # w e^{-loss}
            m_next = positive[j + 1] if j + 1 < len(positive) else 0
            # H at the lower end of segment j is A - e^{lo_seg} B; the answer lies in the first
            # segment where it reaches t (H(0) > t was established above).
            elo = (libmp.mpf_exp(libmp.from_rational(m_next, D, prec, _F), prec, _F),
                   libmp.mpf_exp(libmp.from_rational(m_next, D, prec, _C), prec, _C))
            H_lo = _psub(A, _pmul(elo, B, prec), prec)
            if not libmp.mpf_lt(H_lo[1], t[0]) or m_next == 0:
                found = (Fraction(m, D), Fraction(m_next, D), A, B)
                break
        if found is None:  # pragma: no cover - excluded by the check at eps = 0
            return mpmath.mpf(0)
        hi_seg, lo_seg, A, B = found
        num = _iv_pair(c, A) - _iv_pair(c, t)
        if num.a <= 0:
            prec *= 2
            continue
        ev = c.log(num / _iv_pair(c, B))
        e_lo, e_hi = ev._mpi_
        inside = libmp.mpf_ge(e_lo, _pq(lo_seg, prec)[1]) and libmp.mpf_le(e_hi, _pq(hi_seg, prec)[0])
        if inside and _rel_ok((e_lo, e_hi), bits + 2):
            return min(_round_up(e_hi, bits), cap)
        prec *= 2
    # fallback: forward certification, bumping the candidate upward
    cand = _round_up(e_hi, bits) if libmp.mpf_gt(e_hi, _ZERO) else mpmath.mpf(0)
    for n in range(200):
        if dt >= mpf_to_fraction(hetero_optimal_delta(es, ds, mpf_to_fraction(cand), dps=dps + 5)):
            return min(cand, cap)
        cand = _bump_up(cand, bits, n)
    raise ArithmeticError("hetero_optimal_eps: could not certify")  # pragma: no cover
