"""Renyi-DP curves of randomized response, Laplace and Gaussian mechanisms (Mironov 2017, Table II) and their
exact zCDP parameters (Bun, Steinke 2016).

Inputs are parsed exactly and every returned value is rounded once in the stated direction (see
:mod:`reference.precision`).
"""
from __future__ import annotations

import mpmath

from ..catalog import Param, register
from ..precision import DEFAULT_DPS, certified, check, rational
from ._classical_common import ALPHA, NN, P, _alpha, _b, _eps0, _sens, _sigma

__all__ = ["gaussian_rdp", "rr_rdp", "laplace_rdp", "rr_zcdp_rho", "laplace_zcdp_rho", "gaussian_zcdp_rho"]

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
