"""SymPy derivations for the Gaussian-DP filter (paper keys ``smith2022``, ``dong2022``).

* :func:`dp_step_mu`: the smallest mu such that eps-DP implies mu-GDP,
  mu(eps) = 2 Phi^{-1}(e^eps/(1 + e^eps)) = 2 sqrt(2) erfinv(tanh(eps/2)), and its small-eps
  expansion sqrt(pi/2) eps + O(eps^3).
* :func:`gdp_curve_identity`: e^eps phi(B) = phi(A) for A = -eps/mu + mu/2, B = A - mu, the
  identity behind the cancellation-free far-tail form of dong2022 Corollary 2.13.

Tests compare them with :mod:`reference.bounds.smith2022` / :mod:`reference.bounds.dong2022`.
"""
from __future__ import annotations

import sympy as sp

from .whitehouse2023 import Derivation

__all__ = ["DERIVATIONS", "dp_step_mu", "gdp_curve_identity"]

eps, mu, z, a = sp.symbols("epsilon mu z a", positive=True)


def _Phi(x):
    return (1 + sp.erf(x / sp.sqrt(2))) / 2


def dp_step_mu() -> Derivation:
    """eps-DP => mu-GDP with the smallest mu: G_mu must pass below the kink (a*, a*) of f_{eps,0}, a* = 1/(1 + e^eps)."""
    d = Derivation("dp_step_mu", "dong2022 Section 2 (trade-off curves), used by the smith2022 filter")
    a_star = 1 / (1 + sp.exp(eps))
    f1 = 1 - sp.exp(eps) * a
    f2 = sp.exp(-eps) * (1 - a)
    d.step("the two pieces of f_{eps,0} meet at a*", sp.solve(sp.Eq(f1, f2), a)[0])
    d.step("where f_{eps,0}(a*) = a*", sp.simplify(f1.subs(a, a_star) - a_star))
    # G_mu(a*) = Phi(z - mu) with z = Phi^{-1}(1 - a*); a* = Phi(-z); Phi is injective
    d.step("G_mu(a*) = Phi(z - mu) <= a* = Phi(-z), z = Phi^{-1}(1 - a*); Phi increasing, so", sp.Le(z - mu, -z))
    mu_min = sp.solve(sp.Eq(z - mu, -z), mu)[0]
    d.step("smallest mu", mu_min)
    one_minus = sp.simplify(1 - a_star)
    d.step("1 - a* = e^eps/(1 + e^eps); Phi^{-1}(p) = sqrt(2) erfinv(2p - 1), and 2(1 - a*) - 1 =", sp.simplify(2 * one_minus - 1))
    res = 2 * sp.sqrt(2) * sp.erfinv(sp.tanh(eps / 2))
    d.step("check 2(1-a*) - 1 = tanh(eps/2)", sp.simplify((2 * one_minus - 1 - sp.tanh(eps / 2)).rewrite(sp.exp)))
    d.step("small-eps expansion", sp.series(res, eps, 0, 4).removeO())
    d.result = res
    return d


def gdp_curve_identity() -> Derivation:
    """dong2022 Corollary 2.13: with A = -eps/mu + mu/2 and B = A - mu, e^eps phi(B) = phi(A) (phi the normal density)."""
    d = Derivation("gdp_curve_identity", "dong2022 Corollary 2.13 (far-tail form used by reference.bounds.dong2022)")
    A = -eps / mu + mu / 2
    B = A - mu
    d.step("B^2 - A^2", sp.simplify(sp.expand(B**2 - A**2)))
    ratio = sp.simplify(sp.exp(eps) * sp.exp(-B**2 / 2) / sp.exp(-A**2 / 2))
    d.step("e^eps phi(B) / phi(A)", ratio)
    d.result = ratio
    return d


DERIVATIONS = {f.__name__: f for f in (dp_step_mu, gdp_curve_identity)}
