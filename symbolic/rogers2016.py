"""SymPy derivations for Rogers, Roth, Ullman, Vadhan 2016 (seed 003, paper key ``rogers2016``).

* :func:`theorem4_3`: Theorem 4.3 from Lemma 4.2 (the Hoeffding-type supermartingale)
  plugged into Lemma 4.1 (the self-normalized bound of de la Pena et al.).
* :func:`constant_28_04`: the choice of beta in Theorem 5.1 and why the constant is
  28.04: minimise the square-root factor over c, giving u - log u = 3 (Lambert W).
* :func:`theorem6_5`: eqs. (17) and (18) from Lemma 6.4 by discretising beta on a
  doubling grid and a union bound.
* :func:`theorem5_1_filter`: eq. (12) from Theorem 4.3 at delta_g/2 and Lemma 4.4.

Tests compare each result with :mod:`reference.bounds.rogers2016` at high precision and
with the printed formulas (errata R16-EQ12-LOG, R16-THM6-5-UNION).
"""
from __future__ import annotations

import sympy as sp

from .whitehouse2023 import Derivation

__all__ = ["DERIVATIONS", "theorem4_3", "theorem5_1_filter", "constant_28_04", "theorem6_5"]

A, B2, beta, delta, U2, lam, V, c, u, n, m, dg = sp.symbols(
    "A B2 beta delta U2 lambda V c u n m delta_g", positive=True)
L = sp.Symbol("L", positive=True)  # log(1/delta_g)


def lemma4_1_radius(B2_, beta_, logterm):
    """The radius of Lemma 4.1: sqrt((B^2 + beta)(2 + log(B^2/beta + 1)) log(1/delta))."""
    return sp.sqrt((B2_ + beta_) * (2 + sp.log(B2_ / beta_ + 1)) * logterm)


def theorem4_3() -> Derivation:
    """rogers2016 Theorem 4.3 from Lemma 4.2 (B^2 = U_k^2/4) and Lemma 4.1."""
    d = Derivation("theorem4_3", "rogers2016 Theorem 4.3 from Lemmas 4.1 and 4.2")
    d.step("Lemma 4.2: exp(lambda M_k - lambda^2 U_k^2/8) is a supermartingale, so E[.] <= 1", sp.exp(lam * A - lam**2 * U2 / 8))
    b2 = sp.solve(sp.Eq(lam**2 * B2 / 2, lam**2 * U2 / 8), B2)[0]
    d.step("match Lemma 4.1's exp(lambda A - lambda^2 B^2/2): B^2", b2)
    r = lemma4_1_radius(b2, beta, sp.log(1 / delta))
    d.step("Lemma 4.1's radius with A = M_k, B^2 = U_k^2/4", r)
    d.result = r
    return d


def theorem5_1_filter() -> Derivation:
    """rogers2016 eq. (12): Theorem 4.3 at delta_g/2 with U_k^2 = 4 V (C_i = -eps_i - mu_i, D_i = eps_i - mu_i)."""
    d = Derivation("theorem5_1_filter", "rogers2016 Theorem 5.1, eq. (12), from Theorem 4.3 and Lemma 4.4")
    r = theorem4_3().result
    d.step("Theorem 4.3", r)
    r2 = r.subs({U2: 4 * V, delta: dg / 2})
    d.step("U_k^2 = sum (D_i - C_i)^2 = 4 V, delta = delta_g/2", r2)
    beta_choice = sp.Symbol("epsilon_g", positive=True) ** 2 / (sp.Rational(2804, 100) * L)
    d.step("beta = eps_g^2/(28.04 log(1/delta_g)) (chosen before the interaction)", beta_choice)
    drift = sp.Symbol("Mu", positive=True)  # sum_j eps_j (e^eps_j - 1)/2 (Lemma 4.4)
    K = drift + r2
    d.step("|Loss| <= sum mu_j + |M_k| with Lemma 4.4's mu_j <= eps_j (e^eps_j - 1)/2 =: Mu; "
           "the log(2/delta_g) factor stays under the root (errata R16-EQ12-LOG)", K)
    d.result = K
    return d


def constant_28_04() -> Derivation:
    """rogers2016 Theorem 5.1 remark: the constant c minimising the root factor at eps_g = eps sqrt(8 k L)."""
    d = Derivation("constant_28_04", "rogers2016 Theorem 5.1 (remark after eq. (12))")
    k, e = sp.symbols("k epsilon", positive=True)
    Vk = k * e**2
    beta_c = (e * sp.sqrt(8 * k * L)) ** 2 / (c * L)
    d.step("homogeneous rounds: V = k eps^2, eps_g = eps sqrt(8 k L), beta = eps_g^2/(c L)", sp.simplify(beta_c))
    factor = sp.simplify((Vk + beta_c) * (1 + sp.log(Vk / beta_c + 1) / 2) / Vk)
    d.step("root factor (V + beta)(1 + log(V/beta + 1)/2) / V, free of eps, k and L", factor)
    g = factor.subs(c, 8 * (u - 1))
    d.step("substitute c = 8 (u - 1)", sp.simplify(g))
    stationary = sp.simplify(sp.numer(sp.together(sp.diff(g, u))))
    d.step("numerator of dg/du", sp.factor(stationary))
    sol = sp.solve(sp.Eq(u - sp.log(u), 3), u)
    ustar = [s for s in sol if sp.N(s) > 1][0]
    d.step("stationary point u* > 1 of u - log u = 3", ustar)
    d.result = 8 * (ustar - 1)
    return d


def theorem6_5() -> Derivation:
    """rogers2016 eqs. (17)/(18) from Lemma 6.4: doubling grid beta_j = 2^j/n^2, union over m points."""
    d = Derivation("theorem6_5", "rogers2016 Theorem 6.5 from Lemma 6.4")
    F = sp.Symbol("F", positive=True)  # log(2 m / delta_g): Theorem 4.3 at delta_g/(2m) per grid point
    lem = sp.sqrt(2 * (V + beta) * (1 + sp.log(V / beta + 1) / 2) * F)
    d.step("Lemma 6.4 at a fixed beta, failure delta_g/(2 m) per grid point, F = log(2 m/delta_g)", lem)
    t = sp.Symbol("t", positive=True)  # t = V / beta in [1, 2] on the grid cell [beta, 2 beta]
    cell = sp.simplify((lem.subs(beta, V / t)) / sp.sqrt(V * F))
    d.step("on the cell beta <= V <= 2 beta write beta = V/t, t in [1, 2]; root / sqrt(V F)", cell)
    mono = sp.simplify(sp.diff(cell**2, t))
    d.step("d/dt of its square: negative on [1, 2], so the worst point of a cell is t = 1 (V = beta)", mono)
    worst = sp.simplify(cell.subs(t, 1) * sp.sqrt(V * F))
    d.step("the exact worst case on a cell: 2 sqrt(V (1 + log(2)/2) F)", worst)
    eq17 = 2 * sp.sqrt(V * (1 + sp.log(sp.sqrt(3))) * F)
    d.step("eq. (17) bounds V + beta <= 2 V and log(V/beta + 1) <= log 3 separately: "
           "2 sqrt(V (1 + log sqrt 3) F) (valid, slightly looser than the cell's worst case)", eq17)
    eq18 = lem.subs(beta, 1 / n**2)
    d.step("V < 1/n^2 (or V > 1): beta = 1/n^2, eq. (18)", eq18)
    d.step("grid size: cells [2^j/n^2, 2^(j+1)/n^2] cover [1/n^2, 1] iff m >= log2(n^2)", sp.ceiling(sp.log(n**2, 2)))
    d.result = eq17
    return d


DERIVATIONS = {f.__name__: f for f in (theorem4_3, theorem5_1_filter, constant_28_04, theorem6_5)}
