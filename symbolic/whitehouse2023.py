"""SymPy derivations for Whitehouse et al. (whitehouse2022 / whitehouse2023).

Each function starts from the premise the paper states and arrives at the
closed form by computation (``solve``, ``integrate``, ``series``, ``diff``),
returning a :class:`Derivation` with its intermediate steps.  Tests compare the
results with :mod:`reference.bounds.whitehouse2023` at high precision and with the
formulas as printed (disagreements are in ``reference/data/errata.json``).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import sympy as sp

__all__ = ["Derivation", "DERIVATIONS", "y_star", "a_b", "filter_odometer", "normal_mixture",
           "rr_expected_loss", "zcdp_to_dp", "stitching_constants", "pdp_drift", "pdp_drift_two_sided", "SYMBOLS"]

eps, dp, V, y, s, a, b, lam, rho, S, alpha = sp.symbols("epsilon delta_prime V y s a b lambda rho S alpha", positive=True)
L = sp.Symbol("L", positive=True)  # L = log(1/delta')
SYMBOLS = {"eps": eps, "delta_prime": dp, "V": V, "L": L, "rho": rho}


@dataclass
class Derivation:
    """A derivation: a name, the citation, ordered steps ``(text, expr)`` and the result."""

    name: str
    cites: str
    steps: list = field(default_factory=list)
    result: sp.Expr | None = None

    def step(self, text: str, expr) -> None:
        self.steps.append((text, expr))

    def as_text(self) -> str:
        lines = [f"{self.name}  [{self.cites}]"]
        for i, (t, e) in enumerate(self.steps, 1):
            lines.append(f"  {i}. {t}:  {sp.sstr(e)}")
        lines.append(f"  => {sp.sstr(self.result)}")
        return "\n".join(lines)

    def as_latex(self) -> str:
        lines = [f"% {self.name} [{self.cites}]"]
        for t, e in self.steps:
            lines.append(f"% {t}\n{sp.latex(e)}")
        lines.append(f"% result\n{sp.latex(self.result)}")
        return "\n".join(lines)


def y_star() -> Derivation:
    """y* (whitehouse2022 eq. (6)): the positive root of f(y) = sqrt(2 L y) + y/2 = eps."""
    d = Derivation("y_star", "whitehouse2022 eq. (6), proof of Lemma 2")
    f = sp.sqrt(2 * L * y) + y / 2
    d.step("premise f(y) = eps", sp.Eq(f, eps))
    quad = sp.expand(f.subs(y, s**2) - eps)
    d.step("substitute y = s^2 (s >= 0): quadratic in s", sp.Eq(quad, 0))
    roots = sp.solve(sp.Eq(quad, 0), s)
    pos = [r for r in roots if sp.simplify(r.subs({L: 1, eps: 1})) > 0]
    d.step("nonnegative root", pos[0])
    d.result = pos[0] ** 2
    return d


def y_star_as_printed():
    """The printed y* of eq. (6): (-sqrt(2L) + sqrt(2L + eps))^2."""
    return (-sp.sqrt(2 * L) + sp.sqrt(2 * L + eps)) ** 2


def a_b() -> Derivation:
    """a and b (proof of Lemma 2): Theorem 3's line tangent to f - V/2 at V = y with crossing probability delta'."""
    d = Derivation("a_b", "whitehouse2022 Theorem 3 + proof of Lemma 2")
    eq1 = sp.Eq(b ** 2 / (2 * a), L)
    d.step("crossing probability exp(-b^2/(2a)) = delta' = exp(-L)", eq1)
    g = sp.sqrt(2 * L * V)
    line = b / 2 + b / (2 * a) * V
    eq2 = sp.Eq(line.subs(V, y), g.subs(V, y))
    d.step("boundary meets sqrt(2 L V) at V = y", eq2)
    eq3 = sp.Eq(sp.diff(line, V), sp.diff(g, V).subs(V, y))
    d.step("and is tangent there", eq3)
    sol = sp.solve([eq1, eq2], [a, b], dict=True)
    sol = [t for t in sol if all(v.subs({L: 1, y: 1}).is_positive for v in t.values())]
    d.step("solve for a, b > 0", sol[0])
    d.step("tangency holds", sp.simplify(eq3.lhs.subs(sol[0]) - eq3.rhs))
    d.result = sp.Tuple(sol[0][a], sol[0][b])
    return d


def filter_odometer() -> Derivation:
    """Theorem 2 filter odometer: Theorem 3's boundary with a = y, b = sqrt(2 L y), plus the drift V/2."""
    d = Derivation("filter_odometer", "whitehouse2022 Theorem 2 (filter odometer) from Theorem 3")
    ab = a_b().result
    u = (b / 2 + b / (2 * a) * V + V / 2).subs({a: ab[0], b: ab[1]})
    d.step("u(V) = b/2 + b V/(2a) + V/2 with a = y, b = sqrt(2 L y)", u)
    root = sp.sqrt(2) * (sp.sqrt(L + eps) - sp.sqrt(L))  # sqrt(y*), from y_star()
    at = u.subs(V, y).subs(sp.sqrt(y), root).subs(y, root**2)
    d.step("at V = y = y*, u - eps simplifies to", sp.simplify(sp.expand(at - eps)))
    d.result = u
    return d


def normal_mixture() -> Derivation:
    """Theorem 4: integrate exp(lam S - lam^2 V/2) against N(0, 1/rho) and solve = 1/delta for S."""
    d = Derivation("normal_mixture", "whitehouse2022 Theorem 4 (Howard et al. 2021 normal mixture)")
    l = sp.Symbol("l", real=True)
    dens = sp.sqrt(rho / (2 * sp.pi)) * sp.exp(-rho * l**2 / 2)
    m = sp.simplify(sp.integrate(sp.exp(l * S - l**2 * V / 2) * dens, (l, -sp.oo, sp.oo)))
    d.step("mixture martingale value", m)
    delta = sp.Symbol("delta", positive=True)
    sol = sp.solve(sp.Eq(sp.log(m), sp.log(1 / delta)), S)
    sol = [t for t in sol if t.subs({V: 1, rho: 1, delta: sp.Rational(1, 10)}).is_positive]
    d.step("Ville: crossing when the mixture reaches 1/delta; solve for S > 0", sol[0])
    d.result = sol[0]
    return d


def rr_expected_loss() -> Derivation:
    """Lemma 6 tight case: E[L] of eps-randomized response and the gap to eps^2/2 (Figure 1a)."""
    d = Derivation("rr_expected_loss", "whitehouse2022 Definition 6, Lemma 6, Figure 1a")
    p = sp.exp(eps) / (1 + sp.exp(eps))
    el = eps * p - eps * (1 - p)
    d.step("E[L] = eps P(+eps) - eps P(-eps)", el)
    d.step("equals eps tanh(eps/2)", sp.simplify((el - eps * sp.tanh(eps / 2)).rewrite(sp.exp)))
    gap = eps**2 / 2 - el
    d.step("gap eps^2/2 - E[L], Taylor series", sp.series(gap, eps, 0, 8).removeO())
    d.result = sp.simplify(el)
    return d


def zcdp_to_dp() -> Derivation:
    """whitehouse2023 Lemma 1: optimise the Renyi order in eps(alpha) = rho alpha + L/(alpha - 1)."""
    d = Derivation("zcdp_to_dp", "whitehouse2023 Lemma 1 (Bun-Steinke 2016)")
    e_alpha = rho * alpha + L / (alpha - 1)
    d.step("RDP -> DP at order alpha for rho-zCDP", e_alpha)
    crit = [c for c in sp.solve(sp.diff(e_alpha, alpha), alpha) if c.subs({L: 1, rho: 1}) > 1]
    d.step("optimal order", crit[0])
    d.result = sp.simplify(e_alpha.subs(alpha, crit[0]))
    return d


def stitching_constants() -> Derivation:
    """whitehouse2022 Theorem 5's constants 1.7, 0.72, 5.2 from Howard et al. (2021) Theorem 1 with eta = 2, s = 1.4."""
    d = Derivation("stitching_constants", "whitehouse2022 Theorem 5 from howard2021 Theorem 1")
    eta, sv = sp.Integer(2), sp.Rational(7, 5)
    k1 = (eta ** sp.Rational(1, 4) + eta ** sp.Rational(-1, 4)) / sp.sqrt(2)
    d.step("k1 = (eta^1/4 + eta^-1/4)/sqrt 2", k1)
    d.step("leading constant k1 sqrt(s)", k1 * sp.sqrt(sv))
    d.step("log coefficient 1/s", 1 / sv)
    d.step("constant inside log: zeta(s)/log(eta)^s", sp.zeta(sv) / sp.log(eta) ** sv)
    d.result = sp.Tuple(k1 * sp.sqrt(sv), 1 / sv, sp.zeta(sv) / sp.log(eta) ** sv)
    return d


def pdp_drift() -> Derivation:
    """Theorem 2 with delta_n > 0 (errata W22-THM2-DELTA): the drift of one (eps, delta)-pDP step killed at its first bad outcome.

    Premises (see reference.bounds.whitehouse2023.pdp_drift): ``G = {|L| <= eps}``, a = P(G) >= 1 - delta,
    b = Q(G) >= 1 - c with c = delta (1 + e^-eps); E_P[L 1_G] = a KL(p~||q~) + a log(a/b) with ``|log p~/q~| <= eps + l``,
    l = -log(1 - c); KL <= e~ tanh(e~/2) (Lemma 6 for pairs with bounded log ratio).
    """
    dlt = sp.Symbol("delta", positive=True)
    d = Derivation("pdp_drift", "whitehouse2022 Theorem 2 / whitehouse2023 Theorem 3, delta_n > 0 (derived; errata W22-THM2-DELTA)")
    worst = -sp.log(1 - dlt)
    d.step("the law P = (1, 0), Q = (1 - delta, delta) is (eps, delta)-pDP for delta <= 1 - e^-eps; its sure loss", worst)
    d.step("at delta = 1 - e^-eps the sure loss is eps, above the printed drift eps^2/2 for eps < 2",
           sp.simplify(worst.subs(dlt, 1 - sp.exp(-eps))))
    c = dlt * (1 + sp.exp(-eps))
    ell = -sp.log(1 - c)
    d.step("mass of Q off G is at most c = delta (1 + e^-eps); l = log(1/(1 - c))", ell)
    et = eps + ell
    drift = et * sp.tanh(et / 2) + ell
    d.step("KL(p~||q~) <= e~ tanh(e~/2), e~ = eps + l; plus a log(a/b) <= l", drift)
    d.step("delta = 0 gives back the pure-DP drift eps tanh(eps/2)", sp.simplify(drift.subs(dlt, 0) - eps * sp.tanh(eps / 2)))
    d.step("first order in delta", sp.simplify(sp.series(drift, dlt, 0, 2).removeO()))
    d.step("the bound exceeds the sure loss of the worst law: l - log(1/(1 - delta)) = log((1 - delta)/(1 - c)) >= 0",
           sp.simplify(sp.expand_log(ell - worst, force=True)))
    d.result = drift
    return d


def pdp_drift_two_sided() -> Derivation:
    """Theorem 2 with delta_n > 0 (errata W22-THM2-DELTA): the least upper bound on ``E_P[L 1_G]``, ``G = {|L| <= eps}``, over (eps, delta)-pDP pairs.

    Premises (see reference.bounds.whitehouse2023.pdp_drift_two_sided): Definition 3 for the neighbours in both orders,
    so P(G) <= 1 and Q(G) >= 1 - delta; on G the log-likelihood ratio t = log(p/q) lies in [-eps, eps].
    Result: eps tanh(eps/2) + eps delta/sinh(eps) while delta < 1 - e^-eps (then eps), attained by a three-atom law.
    """
    dlt = sp.Symbol("delta", positive=True)
    t = sp.Symbol("t", real=True)
    al, be = sp.symbols("alpha beta", real=True)
    pG, qG = sp.symbols("P_G Q_G", positive=True)
    d = Derivation("pdp_drift_two_sided",
                   "whitehouse2022 Theorem 2 / whitehouse2023 Theorem 3, delta_n > 0 (derived; errata W22-THM2-DELTA; "
                   "whitehouse2022 Definition 3 for (x, x') and (x', x))")
    curve = al + be * sp.exp(-t)
    sol = sp.solve([sp.Eq(curve.subs(t, eps), eps), sp.Eq(curve.subs(t, -eps), -eps)], [al, be], dict=True)[0]
    a_, b_ = sp.simplify(sol[al].rewrite(sp.exp)), sp.simplify(sol[be].rewrite(sp.exp))
    d.step("the curve alpha + beta e^-t through (eps, eps) and (-eps, -eps): alpha", a_)
    d.step("beta (negative, so the curve is concave and lies above its chord, the line t, on [-eps, eps])", b_)
    d.step("alpha - eps coth(eps) and beta + eps/sinh(eps)",
           sp.Tuple(sp.simplify((a_ - eps * sp.coth(eps)).rewrite(sp.exp)), sp.simplify((b_ + eps / sp.sinh(eps)).rewrite(sp.exp))))
    d.step("second derivative of the curve in t (negative)", sp.simplify(sp.diff(curve, t, 2).subs(sol)))
    bound_ab = (sol[al] * pG + sol[be] * qG)
    d.step("p t <= alpha p + beta q on G (t = log(p/q)); summed over G: E_P[L 1_G] <=", bound_ab)
    d.step("increasing in P(G) (coefficient alpha > 0) and decreasing in Q(G) (beta < 0): take P(G) = 1, Q(G) = 1 - delta",
           sp.Tuple(sp.diff(bound_ab, pG), sp.diff(bound_ab, qG)))
    drift = eps * sp.tanh(eps / 2) + eps * dlt / sp.sinh(eps)
    val = bound_ab.subs({pG: 1, qG: 1 - dlt})
    d.step("equals eps tanh(eps/2) + eps delta/sinh(eps)", sp.simplify((val - drift).rewrite(sp.exp)))
    d.step("= (1 - delta) eps tanh(eps/2) + delta eps coth(eps), both terms increasing in eps",
           sp.simplify((drift - (1 - dlt) * eps * sp.tanh(eps / 2) - dlt * eps * sp.coth(eps)).rewrite(sp.exp)))
    d.step("it reaches the trivial bound eps P(G) <= eps exactly at delta = 1 - e^-eps",
           sp.simplify((drift.subs(dlt, 1 - sp.exp(-eps)) - eps).rewrite(sp.exp)))
    p1, p2 = sp.symbols("p1 p2", positive=True)
    law = sp.solve([sp.Eq(p1 + p2, 1), sp.Eq(p1 * sp.exp(-eps) + p2 * sp.exp(eps), 1 - dlt)], [p1, p2], dict=True)[0]
    d.step("attained: P = (p1, p2, 0), Q = (p1 e^-eps, p2 e^eps, delta) (pDP both ways: only Q's third atom is bad); p1",
           sp.simplify(law[p1]))
    d.step("its E_P[L 1_G] = eps (p1 - p2) minus the bound", sp.simplify((eps * (law[p1] - law[p2]) - drift).rewrite(sp.exp)))
    d.step("p2 >= 0 iff 1 - delta >= e^-eps, i.e. delta <= 1 - e^-eps", sp.simplify(law[p2] * (sp.exp(eps) - sp.exp(-eps))))
    d.step("delta = 0 gives back the pure-DP drift eps tanh(eps/2)", sp.simplify(drift.subs(dlt, 0) - eps * sp.tanh(eps / 2)))
    d.step("first order in delta (the KL-route pdp_drift has 2 delta + O(eps delta) here)",
           sp.simplify(sp.series(drift, dlt, 0, 2).removeO()))
    d.result = drift
    return d


DERIVATIONS = {f.__name__: f for f in (y_star, a_b, filter_odometer, normal_mixture, rr_expected_loss, zcdp_to_dp,
                                       stitching_constants, pdp_drift, pdp_drift_two_sided)}
