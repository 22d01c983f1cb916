"""RDP -> DP conversions: the standard one (Mironov 2017, Prop. 3; Feldman and Zrnic 2021, Fact 2.4) and the
improved one (Canonne, Kamath, Steinke 2020, Prop. 12 = Balle et al. 2020, Thm 21), at one order alpha and
with the order optimised continuously over a Renyi curve of :mod:`reference.bounds.renyi`.

Closed forms go through :func:`reference.precision.certified`.  Numerically optimised quantities (an order
alpha) are re-evaluated rigorously at the exact rational value returned, so only the *tightness*, never
the validity, depends on the optimiser.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Callable, Sequence

import mpmath

from ..catalog import Param, register
from ..precision import DEFAULT_DPS, INF, certified, check, check_dps, mpf_to_fraction
from ._classical_common import (
    ALPHA, KDOM, NN, P, U, _alpha, _b, _bits, _delta, _eps0, _k, _mk, _mp, _rho, _sens, _sigma,
)
from .renyi import _laplace_curve, _rr_curve

__all__ = ["rdp_to_dp_eps", "rdp_to_dp_eps_improved", "rdp_to_dp_delta_cks", "DPConversion", "optimize_rdp_conversion",
           "rr_rdp_to_dp", "laplace_rdp_to_dp", "gaussian_rdp_to_dp", "zcdp_to_dp",
           "rr_rdp_to_dp_eps_improved", "laplace_rdp_to_dp_eps_improved", "gaussian_rdp_to_dp_eps_improved",
           "zcdp_to_dp_eps_improved", "rr_rdp_to_dp_eps_standard", "laplace_rdp_to_dp_eps_standard",
           "gaussian_rdp_to_dp_eps_standard", "zcdp_to_dp_eps_standard"]

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
