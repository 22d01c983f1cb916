"""SymPy derivations for Balle, Kairouz, McMahan, Thakkar, Thakurta 2020 (balle2020), *Random Check-Ins*.

The seed strips every formula; these derivations rebuild the bounds of
:mod:`reference.bounds.balle2020` along the route the seed's proof sketch describes
(probable replacement -> overlapping mixtures -> heterogeneous advanced
composition), each step computed by SymPy (``integrate``, ``solve``, ``diff``,
``factor``, ``limit``).  ``tests/test_balle2020.py`` evaluates every result at random
points at high precision (inputs converted to ``mpf`` first) and compares with the
interval-certified functions of :mod:`reference.bounds.balle2020`.

Each function returns a :class:`symbolic.whitehouse2023.Derivation`.
"""
from __future__ import annotations

import sympy as sp

from .whitehouse2023 import Derivation

__all__ = ["DERIVATIONS", "SYMBOLS", "lemma_a1_mixture", "posterior_bound", "lemma_a2_composition",
           "thm3_2_fixed_window", "thm3_2_simplified_constant", "thm5_1_shuffling", "prop3_4_dummies",
           "prop4_4_dummies", "cor3_3_repetitions", "thm3_5_utility", "thm4_2_smooth_utility",
           "approx_dp_clause"]

eps0, delta, L = sp.symbols("epsilon_0 delta L", positive=True)
E = sp.Symbol("E", positive=True)  # E = e^eps0 >= 1
m, n, p0, k = sp.symbols("m n p_0 k", positive=True)
q, qp, r, rp, x, a, s, t, pi, C2 = sp.symbols("q q' r r' x a s t pi C_2", positive=True)
eta, R, G, V, T, beta = sp.symbols("eta R G V T beta", positive=True)
d1, dc, dr, ep = sp.symbols("delta_1 delta_comp delta_rep epsilon'", positive=True)
SYMBOLS = {"eps0": eps0, "delta": delta, "m": m, "n": n, "p0": p0, "E": E, "L": L}


def _amp(E1, C2_, L_):
    return E1 * sp.sqrt(2 * C2_ * L_) + C2_ * E1**2 / 2


def lemma_a1_mixture() -> Derivation:
    """Lemma A.1: a probable-replacement step q A(x) + (1-q) omega is log(1 + q_bar (e^eps0 - 1))-DP."""
    dv = Derivation("lemma_a1_mixture", "balle2020 Lemma A.1 (overlapping mixtures), re-derived")
    ratio = (1 + q * (r - 1)) / (1 + qp * (rp - 1))
    dv.step("likelihood ratio of the mixtures, r = A(x)/omega, r' = A(x')/omega in [1/E, E], r/r' <= E", ratio)
    t_ = sp.Symbol("t", positive=True)
    on_edge = ratio.subs({r: E * t_, rp: t_})
    dv.step("on the binding edge r = E r' = E t (t in [1/E, 1]) the ratio is linear-fractional in t", sp.simplify(on_edge))
    dv.step("d/dt has constant sign: numerator of the derivative", sp.factor(sp.numer(sp.together(sp.diff(on_edge, t_)))))
    v1 = sp.simplify(on_edge.subs(t_, 1))
    v2 = sp.simplify(on_edge.subs(t_, 1 / E))
    dv.step("vertex t = 1", v1)
    dv.step("vertex t = 1/E", v2)
    ident = sp.factor(sp.expand((1 + x * (E - 1)) * (1 - x * (1 - 1 / E)) - 1))
    dv.step("(1 + x(E-1))(1 - x(1-1/E)) - 1 = x(1-x)(E-1)^2/E >= 0, so 1/(1 - x(1-1/E)) <= 1 + x(E-1)", ident)
    dv.result = sp.log(1 + q * (sp.exp(eps0) - 1))
    return dv


def posterior_bound() -> Derivation:
    """Probable replacement: P(record used at step j | outputs before j) <= pi_j / (1 - s_j (1 - e^-eps0))."""
    dv = Derivation("posterior_bound", "balle2020 proof sketch of Theorem 3.2 (posterior close to prior), re-derived")
    rho = sp.Symbol("rho", positive=True)
    post = pi / ((1 - s) + s * rho)
    dv.step("posterior = pi_j W / (W ((1 - s_j) + s_j rho)), rho = average likelihood ratio of earlier outputs >= 1/E", post)
    worst = post.subs(rho, 1 / E)
    dv.step("smallest denominator at rho = 1/E", sp.simplify(worst))
    dv.result = sp.simplify(pi / (1 - s * (1 - sp.exp(-eps0))))
    return dv


def lemma_a2_composition() -> Derivation:
    """Lemma A.2: KOV heterogeneous composition of eps_i = log(1 + c_i (E-1)) is at most (E-1) sqrt(2 C2 L) + C2 (E-1)^2/2."""
    dv = Derivation("lemma_a2_composition", "balle2020 Lemma A.2 (KOV 2015 Theorem 3.5), re-derived")
    c = sp.Symbol("c", positive=True)
    ei = sp.log(1 + c * (E - 1))
    dv.step("per-step epsilon", ei)
    dv.step("log(1 + y) <= y: derivative of y - log(1+y) is y/(1+y) >= 0", sp.simplify(sp.diff(x - sp.log(1 + x), x)))
    tanh_term = ei * (sp.exp(ei) - 1) / (sp.exp(ei) + 1)
    dv.step("lower-order term eps_i (e^eps_i - 1)/(e^eps_i + 1), with e^eps_i - 1 = c (E-1)", sp.simplify(tanh_term))
    dv.step("<= eps_i c (E-1)/2 <= c^2 (E-1)^2 / 2 (e^eps_i + 1 >= 2, eps_i <= c(E-1))", c**2 * (E - 1) ** 2 / 2)
    dv.step("square-root term sqrt(2 L sum eps_i^2) <= (E-1) sqrt(2 L C2)", (E - 1) * sp.sqrt(2 * L * C2))
    dv.result = _amp(sp.exp(eps0) - 1, C2, sp.log(1 / delta))
    return dv


def thm3_2_fixed_window() -> Derivation:
    """Theorem 3.2: sum of q_bar_j^2 over the window by an integral, then Lemma A.2."""
    dv = Derivation("thm3_2_fixed_window", "balle2020 Theorem 3.2, re-derived from the proof sketch")
    y = sp.Symbol("y", positive=True)
    dv.step("q_bar_j = p0/(m - a (j-1)) with a = p0 (1 - 1/E) (posterior_bound with pi_j <= p0/m, s_j <= p0 (j-1)/m)",
            p0 / (m - a * (sp.Symbol("j") - 1)))
    integral = sp.simplify(sp.integrate(1 / (m - a * y) ** 2, (y, 0, m), conds="none"))
    dv.step("increasing terms: sum_j 1/(m - a(j-1))^2 <= integral_0^m dy/(m - a y)^2", integral)
    C2_refined = sp.simplify(p0**2 * integral.subs(a, p0 * (1 - 1 / E)))
    dv.step("C2 <= p0^2 / (m (1 - a)), a = p0 (1 - 1/E)", C2_refined)
    gap = sp.factor(sp.simplify(E * (1 - p0 * (1 - 1 / E)) - 1))
    dv.step("E (1 - a) - 1 = (E - 1)(1 - p0) >= 0, hence 1/(1 - a) <= E", gap)
    C2v = p0**2 * sp.exp(eps0) / m
    dv.step("C2 <= p0^2 e^eps0 / m", C2v)
    dv.result = sp.expand(_amp(sp.exp(eps0) - 1, C2v, sp.log(1 / delta)))
    return dv


def thm3_2_simplified_constant() -> Derivation:
    """Theorem 3.2 'in particular': for eps0 <= 1, delta <= 1/100 the bound is <= 6 p0 eps0 sqrt(log(1/delta)/m)."""
    dv = Derivation("thm3_2_simplified_constant", "balle2020 Theorem 3.2 ('in particular' clause), re-derived")
    e = sp.E
    lead = sp.sqrt(2 * e) * (e - 1)
    dv.step("leading term <= sqrt(2e)(e-1) p0 eps0 sqrt(L/m) (e^eps0 - 1 <= (e-1) eps0, e^eps0 <= e)", lead)
    low = e * (e - 1) ** 2 / (2 * sp.sqrt(sp.log(100)))
    dv.step("lower-order term <= e(e-1)^2/(2 sqrt(log 100)) p0 eps0 sqrt(L/m)", low)
    dv.step("sum of the constants (numerically)", sp.N(lead + low, 30))
    dv.result = lead + low
    return dv


def thm5_1_shuffling() -> Derivation:
    """Theorem 5.1: swapping; posterior of step j, sum of squares by an integral, then Lemma A.2."""
    dv = Derivation("thm5_1_shuffling", "balle2020 Theorem 5.1, re-derived (swapping of Erlingsson et al. 2019 + Lemmas A.1, A.2)")
    dv.step("step 1 uses x1 with probability 1/n", 1 / n)
    dt = 1 + (n - t + 1) / E + (t - 2) / E**2
    dv.step("step j >= 2: q_bar_j = 1/d(j), likelihood ratios of the other positions >= 1/E (k > j, k = 1) or 1/E^2 (2 <= k < j)", 1 / dt)
    integ = sp.integrate(1 / dt**2, (t, 2, n + 1))
    closed = sp.factor(sp.simplify(integ))
    dv.step("sum_{j=2}^n 1/d(j)^2 <= integral_2^{n+1} dt/d(t)^2", closed)
    target = (n - 1) / ((1 + (n - 1) / E**2) * (1 + (n - 1) / E))
    dv.step("equals (n-1)/((1 + (n-1)/E^2)(1 + (n-1)/E)): difference", sp.simplify(closed - target))
    dv.step("1 + (n-1)/E^2 >= n/E^2, 1 + (n-1)/E >= n/E, so C2 <= 1/n^2 + (n-1)E^3/n^2 <= E^3/n",
            sp.simplify(1 / n**2 + (n - 1) * E**3 / n**2 - E**3 / n))
    C2v = sp.exp(3 * eps0) / n
    dv.result = sp.expand(_amp(sp.exp(eps0) - 1, C2v, sp.log(1 / delta)))
    return dv


def prop3_4_dummies() -> Derivation:
    """Proposition 3.4: expected dummy updates m (1 - p0/m)^n <= m e^(-p0 n/m); m/e at p0 = m/n."""
    dv = Derivation("prop3_4_dummies", "balle2020 Proposition 3.4, derived")
    expct = m * (1 - p0 / m) ** n
    dv.step("each step is empty with probability (1 - p0/m)^n", expct)
    dv.step("log(1 - y) <= -y: derivative of -y - log(1-y) is y/(1-y) >= 0", sp.simplify(sp.diff(-x - sp.log(1 - x), x)))
    dv.step("bound", m * sp.exp(-p0 * n / m))
    at = expct.subs(p0, m / n)
    dv.step("p0 = m/n", at)
    dv.step("limit n -> oo of (1 - 1/n)^n", sp.limit((1 - 1 / n) ** n, n, sp.oo))
    dv.result = m * sp.exp(-p0 * n / m)
    return dv


def prop4_4_dummies() -> Derivation:
    """Proposition 4.4: sliding windows, (n - m + 1)(1 - p0/m)^m <= (n - m + 1) e^(-p0)."""
    dv = Derivation("prop4_4_dummies", "balle2020 Proposition 4.4, derived")
    dv.step("steps m..n are each covered by m windows", (n - m + 1) * (1 - p0 / m) ** m)
    dv.step("limit m -> oo of (1 - p0/m)^m", sp.limit((1 - p0 / m) ** m, m, sp.oo))
    dv.result = (n - m + 1) * sp.exp(-p0)
    return dv


def cor3_3_repetitions() -> Derivation:
    """Corollary 3.3: n/m repetitions with p0 = m/n, advanced composition; the leading term is O(e^(1.5 eps0)/sqrt(n))."""
    dv = Derivation("cor3_3_repetitions", "balle2020 Corollary 3.3 / Remark 2, re-derived")
    Lr, Lc = sp.symbols("L_rep L_comp", positive=True)
    er = _amp(E - 1, (m / n) ** 2 * E / m, Lr)
    dv.step("per repetition (Theorem 3.2 at p0 = m/n)", sp.simplify(er))
    kk = n / m
    tot = sp.sqrt(2 * kk * Lc) * sp.Symbol("epsilon_r") + kk * sp.Symbol("epsilon_r") * (sp.exp(sp.Symbol("epsilon_r")) - 1)
    dv.step("advanced composition of k = n/m runs (Dwork-Rothblum-Vadhan)", tot)
    lead = sp.simplify(sp.sqrt(2 * kk * Lc) * (m / n) * (E - 1) * sp.sqrt(2 * E * Lr / m))
    dv.step("leading term", lead)
    dv.result = lead
    return dv


def thm3_5_utility() -> Derivation:
    """Theorem 3.5: projected SGD, optimise the learning rate in (R^2 + eta^2 m G^2)/(2 eta s)."""
    dv = Derivation("thm3_5_utility", "balle2020 Theorem 3.5, derived explicit form")
    bound = (R**2 + eta**2 * m * G**2) / (2 * eta * s)
    dv.step("sum over real steps of E[risk - risk*] <= (R^2 + eta^2 m G^2)/(2 eta), divided by s", bound)
    crit = [c for c in sp.solve(sp.diff(bound, eta), eta) if c.is_positive is not False]
    dv.step("optimal eta", crit[0])
    dv.result = sp.simplify(bound.subs(eta, crit[0]))
    return dv


def thm4_2_smooth_utility() -> Derivation:
    """Theorem 4.2 (smooth): R^2/(2 eta T) + eta V/T at eta = R/sqrt(2V), and c = eta/(1 - eta beta) <= 2 eta."""
    dv = Derivation("thm4_2_smooth_utility", "balle2020 Theorem 4.2 (smooth case), derived explicit form")
    cc = eta / (1 - eta * beta)
    dv.step("Young's inequality constant c = eta/(1 - eta beta); at eta = 1/(2 beta)", sp.simplify(cc.subs(eta, 1 / (2 * beta))))
    bound = R**2 / (2 * eta * T) + eta * V / T
    crit = [c for c in sp.solve(sp.diff(bound, eta), eta) if c.is_positive is not False]
    dv.step("optimal eta (unconstrained)", crit[0])
    val = sp.simplify(bound.subs(eta, crit[0]))
    dv.step("value", val)
    dv.result = beta * R**2 / T + val
    return dv


def approx_dp_clause() -> Derivation:
    """(eps0, delta0) clause: delta' = delta + k (e^eps' + 1) delta1 for k randomizer calls within TV delta1 each."""
    dv = Derivation("approx_dp_clause", "balle2020 Theorems 3.2/4.1/4.3/5.1 ((eps0, delta0) clauses), re-derived")
    PS, QS = sp.symbols("P_S Q_S", nonnegative=True)
    chain = sp.exp(ep) * (QS + k * d1) + delta + k * d1
    dv.step("P(S) <= P'(S) + k delta1 <= e^eps' Q'(S) + delta + k delta1 <= e^eps' (Q(S) + k delta1) + delta + k delta1", chain)
    dv.result = sp.expand(chain - sp.exp(ep) * QS)
    return dv


DERIVATIONS = {f.__name__: f for f in (
    lemma_a1_mixture, posterior_bound, lemma_a2_composition, thm3_2_fixed_window, thm3_2_simplified_constant,
    thm5_1_shuffling, prop3_4_dummies, prop4_4_dummies, cor3_3_repetitions, thm3_5_utility, thm4_2_smooth_utility,
    approx_dp_clause)}
