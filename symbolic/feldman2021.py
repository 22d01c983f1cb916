"""SymPy derivations for Feldman and Zrnic 2021 (seed 002, paper key ``feldman2021``).

* :func:`remark4_4`: for zCDP steps the Renyi filter's stopping rule does not depend
  on the order alpha.
* :func:`dp_conversion`: Fact 2.4 (RDP -> DP) applied to a rho-zCDP budget, optimised
  over alpha: alpha* = 1 + sqrt(L/rho), eps = rho + 2 sqrt(rho L).
* :func:`dp_filter_budget`: the zCDP budget rho* that makes the Renyi filter an
  (eps, delta)-DP filter: the root of rho + 2 sqrt(rho L) = eps.
* :func:`calibrated_budget`: the Renyi budget B(alpha) of the conversion-calibrated filter:
  the improved conversion (CKS20 Prop. 12 / Balle et al. 2020 Thm 21) solved for tau.
* :func:`calibrated_zcdp_budget`: the zCDP budget of the calibrated zCDP filter, B(alpha)/alpha,
  and the stationarity condition of its best order.

Tests compare them with :mod:`reference.bounds.feldman2021` at high precision.
"""
from __future__ import annotations

import sympy as sp

from .whitehouse2023 import Derivation

__all__ = ["DERIVATIONS", "remark4_4", "dp_conversion", "dp_filter_budget", "calibrated_budget", "calibrated_zcdp_budget"]

alpha, rho, R, L, eps, r = sp.symbols("alpha rho R L epsilon r", positive=True)


def remark4_4() -> Derivation:
    """feldman2021 Remark 4.4: with rho_t-zCDP steps and budget B = alpha R, the rule sum_t alpha rho_t <= B is sum_t rho_t <= R."""
    d = Derivation("remark4_4", "feldman2021 Remark 4.4")
    S = sp.Symbol("S", positive=True)  # sum_t rho_t of the steps admitted so far plus the next
    d.step("a rho_t-zCDP step has Renyi divergence at most alpha rho_t at every order alpha > 1", alpha * rho)
    rule = sp.Le(alpha * S, alpha * R)
    d.step("Renyi filter at order alpha with budget B = alpha R: continue while alpha S <= alpha R", rule)
    free = sp.factor(alpha * R - alpha * S)
    d.step("the slack factors as alpha (R - S); alpha > 0, so its sign is that of R - S", free)
    d.result = sp.simplify(free / alpha)
    return d


def dp_conversion() -> Derivation:
    """feldman2021 Fact 2.4 on rho-zCDP, alpha optimised: eps = rho + 2 sqrt(rho L), L = log(1/delta)."""
    d = Derivation("dp_conversion", "feldman2021 Fact 2.4 (Mironov 2017 Prop. 3) applied to rho-zCDP")
    e_alpha = alpha * rho + L / (alpha - 1)
    d.step("Fact 2.4 at order alpha with eps_alpha = alpha rho", e_alpha)
    crit = sp.solve(sp.diff(e_alpha, alpha), alpha)
    a_star = [x for x in crit if sp.simplify(x.subs({L: 1, rho: 1})) > 1][0]
    d.step("stationary order alpha* > 1", a_star)
    d.step("second derivative (positive: a minimum)", sp.simplify(sp.diff(e_alpha, alpha, 2)))
    d.result = sp.simplify(sp.expand(e_alpha.subs(alpha, a_star)))
    return d


def dp_filter_budget() -> Derivation:
    """feldman2021 (eps, delta)-DP filter from the Renyi filter: the largest rho with rho + 2 sqrt(rho L) <= eps."""
    d = Derivation("dp_filter_budget", "feldman2021 DP filter via Remark 4.4 and Fact 2.4")
    conv = dp_conversion().result
    d.step("zCDP -> DP at the optimal order", conv)
    eq = sp.Eq(conv.subs(rho, r**2), eps)
    d.step("set rho = r^2 (r >= 0): quadratic in r", eq)
    roots = [x for x in sp.solve(eq, r) if sp.simplify(x.subs({L: 1, eps: 1})) > 0]
    d.step("nonnegative root r*", roots[0])
    d.result = sp.simplify(roots[0] ** 2)
    return d


def calibrated_budget() -> Derivation:
    """feldman2021 Theorem 4.3 calibrated by canonne2020 Prop. 12: the largest tau with conversion(alpha, tau, delta) <= eps."""
    d = Derivation("calibrated_budget", "feldman2021 Theorem 4.3 + canonne2020 Proposition 12 (v4)")
    tau, delta = sp.symbols("tau delta", positive=True)
    conv = tau + sp.log((alpha - 1) / alpha) - (sp.log(delta) + sp.log(alpha)) / (alpha - 1)
    d.step("improved conversion of (alpha, tau)-RDP at delta (Balle et al. 2020 Thm 21 = CKS20 Prop. 12 solved for eps)", conv)
    d.step("it increases in tau with slope", sp.diff(conv, tau))
    sol = sp.solve(sp.Eq(conv, eps), tau)[0]
    d.step("so conversion <= eps iff tau <= the root", sol)
    d.result = sp.simplify(sol)
    return d


def calibrated_zcdp_budget() -> Derivation:
    """feldman2021 Remark 4.4 calibrated by canonne2020 Prop. 12: rho(alpha) = B(alpha)/alpha and its stationarity condition."""
    d = Derivation("calibrated_zcdp_budget", "feldman2021 Remark 4.4 + canonne2020 Proposition 12 (v4)")
    B = calibrated_budget().result
    d.step("rho-zCDP is (alpha, alpha rho)-RDP for every alpha; the rule does not depend on alpha (Remark 4.4)", alpha * rho)
    rho_a = sp.simplify(B / alpha)
    d.step("the largest rho converting to (eps, delta) at order alpha: B(alpha)/alpha", rho_a)
    d.step("best order: a root of d/d alpha [B(alpha)/alpha] = 0 (solved numerically; any alpha is valid)",
           sp.simplify(sp.diff(rho_a, alpha)))
    d.result = rho_a
    return d


DERIVATIONS = {f.__name__: f for f in (remark4_4, dp_conversion, dp_filter_budget, calibrated_budget, calibrated_zcdp_budget)}
