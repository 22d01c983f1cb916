"""SymPy derivations of the classical yardsticks (paper keys in :data:`reference.catalog.PAPERS`).

* :func:`advanced_composition`: eq. (2) of whitehouse2022 (advanced composition) from the
  same martingale argument as the filters: Theorem 3's linear boundary, its slope
  optimised at a fixed intrinsic time V, plus the expected-loss drift.
* :func:`improved_zcdp_conversion`: Balle et al. 2020 (AISTATS) Theorem 21 applied to
  rho-zCDP: the stationarity equation in the order alpha, solved numerically.

Tests compare them with :mod:`reference.bounds.whitehouse2023` and :mod:`reference.bounds.classical`.
"""
from __future__ import annotations

import sympy as sp

from .whitehouse2023 import Derivation

__all__ = ["DERIVATIONS", "advanced_composition", "improved_zcdp_conversion"]

a, b, V, L, rho, alpha, delta = sp.symbols("a b V L rho alpha delta", positive=True)


def advanced_composition() -> Derivation:
    """whitehouse2022 eq. (2) from Theorem 3: b = sqrt(2 a L), then a = V minimises the boundary at time V."""
    d = Derivation("advanced_composition", "whitehouse2022 eq. (2) from Theorem 3 (fixed time V)")
    line = b / 2 + b * V / (2 * a)
    d.step("Theorem 3: P(exists n: M_n >= b/2 + b V_n/(2a)) <= exp(-b^2/(2a))", line)
    bsol = [x for x in sp.solve(sp.Eq(b**2 / (2 * a), L), b) if x.is_positive is not False][0]
    d.step("failure probability delta' = exp(-L): b", bsol)
    at_V = sp.simplify(line.subs(b, bsol))
    d.step("the boundary at intrinsic time V", at_V)
    a_star = sp.solve(sp.diff(at_V, a), a)[0]
    d.step("slope chosen for this V (a fixed horizon): a*", a_star)
    mart = sp.simplify(at_V.subs(a, a_star))
    d.step("martingale part at a = V", mart)
    drift = sp.Symbol("Mu", positive=True)  # sum_m eps_m tanh(eps_m/2): the expected losses
    d.step("privacy loss = martingale + sum of conditional means Mu = sum eps_m tanh(eps_m/2)", drift + mart)
    d.result = drift + mart
    return d


def improved_zcdp_conversion() -> Derivation:
    """balle2020hyp Theorem 21 on rho-zCDP: eps(alpha) = alpha rho + log((alpha-1)/alpha) - (log delta + log alpha)/(alpha-1)."""
    d = Derivation("improved_zcdp_conversion", "balle2020hyp Theorem 21 applied to eps_alpha = alpha rho")
    e_alpha = alpha * rho + sp.log((alpha - 1) / alpha) - (sp.log(delta) + sp.log(alpha)) / (alpha - 1)
    d.step("Theorem 21 at order alpha", e_alpha)
    g = sp.simplify(sp.diff(e_alpha, alpha) * (alpha - 1) ** 2 * alpha)
    d.step("stationarity, multiplied by alpha (alpha - 1)^2 > 0", sp.expand(g))
    d.result = sp.Eq(g, 0)
    return d


DERIVATIONS = {f.__name__: f for f in (advanced_composition, improved_zcdp_conversion)}
