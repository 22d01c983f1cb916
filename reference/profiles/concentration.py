"""Certified brackets of compositions with huge step counts, from the moments of the privacy loss (Cantelli below, Chernoff above).

Where the exact routes stop (randomized response beyond 10^7 steps, the subsampled Gaussian beyond
10^9, a mixture of mechanisms, or a run beyond the PLD's memory budget), the composed privacy loss of K = sum k_i
independent steps is a sum of independent variables and concentrates around its mean: its mean
and its variance grow like K, its spread like sqrt(K).  This module turns certified per-step
moments into a certified bracket of delta(eps) and eps(delta) whose two ends meet at relative
order K^(-1/2): at 10^12 steps the bracket of ``rr:0.01x10^12`` is [5.0000e7, 5.0052e7] where the
closed forms gave [96.7, 5.0e7].

Setting.  Each step has a dominating pair (P_i, Q_i) (the pair itself for randomized response,
Laplace and the Gaussian; for the Poisson-subsampled Gaussian the ZDW22 pairs (P, Q) and (Q, P),
P = (1-q) N(0, sigma^2) + q N(1, sigma^2), Q = N(0, sigma^2), see :mod:`.sgm_pld`).  With
L_i = log(dP_i/dQ_i)(X_i), X_i ~ P_i independent, S = L_1 + ... + L_K, and
f_eps(s) = (1 - e^(eps - s))_+::

    delta(eps) = E f_eps(S)          (the hockey-stick divergence of the product pair).

Lower end (derived here; Cantelli's one-sided inequality).  Let m <= E S and V >= Var S be
certified (the sums of the per-step bounds of :func:`loss_moments`, one fixed orientation of
every pair: dropping the other orientation only lowers a lower bound).  For c > 0 and
a = m - eps - c > 0: f_eps(s) >= (1 - e^(-c)) 1{s > eps + c}, and eps + c - E S <= -a, so by
Cantelli P(S <= eps + c) <= P(S - E S <= -a) <= Var S/(Var S + a^2) <= V/(V + a^2).  Hence::

    delta(eps) >= (1 - e^(-c)) a^2/(V + a^2)                                          (*)

for every such c (chosen by a float search; validity does not depend on the choice).  Solving
(*) > delta for eps: every eps0 = m - c - sqrt(delta V/(1 - e^(-c) - delta)) (c with
1 - e^(-c) > delta) has delta(eps) > delta for every eps < eps0, and delta(.) is nonincreasing, so
eps(delta) >= eps0.  Rounding: m down, V up, the final value down (interval arithmetic).

Upper end (Chernoff; this is the RDP route at a real order alpha = 1 + lambda in (1, 2]).
E_P e^(lambda L) = exp(lambda D_alpha(P || Q)), composition adds the Renyi divergences (mironov2017
Proposition 1), and canonne2020 Proposition 12 / balle2020hyp Theorem 21 convert the composed
divergence into delta(eps) / eps(delta) at that order (:func:`.conversions.continuous_order_delta`,
:func:`.conversions.continuous_order_eps`; the order is a rational n/2^g found by a deterministic
search, certified where it is used).  At huge K the best order is alpha = 1 + O(K^-1/2), where
integer orders (alpha >= 2) lose a factor 2 in eps: this is why the summed integer-order RDP gave
1.29e8 for ``subsampled-gaussian:q=0.01,sigma=1.1x10^12`` whose eps(1e-5) is about 6.4e7.
Per-step Renyi divergences at real alpha in (1, 2] (:func:`rdp_upper`), each rounded up:

* eps0-randomized response (delta0 = 0) and Laplace (scale b/sensitivity): mironov2017 Table II,
  valid at every real alpha > 1 (the formulas of :mod:`reference.bounds.renyi`); the Gaussian:
  alpha mu^2/2 (mironov2017 Proposition 7); rho-zCDP: alpha rho (bunsteinke2016 Definition 1.1);
* the subsampled Gaussian, q < 1 (derived here): with u = p/q_0 - 1 >= -q under Q = N(0, sigma^2),
  E_Q u = 0 and E_Q u^2 = v = q^2 (e^(1/sigma^2) - 1) exactly.  Remove orientation:
  E_Q (1+u)^alpha; add orientation: E_Q (1+u)^(1-alpha).  For g(u) = (1+u)^alpha (resp.
  (1+u)^(-lambda)) Taylor's theorem with the Lagrange remainder gives g(u) = 1 + g'(0) u +
  g''(0) u^2/2 + g'''(xi) u^3/6 with g''(0) = alpha (alpha - 1) in both cases and g''' < 0 on
  u > -1 (alpha in (1, 2]); so the remainder is <= 0 for u >= 0, and for -q <= u < 0 it is at most
  abs(g'''(-q)) abs(u)^3/6 <= abs(g'''(-q)) q u^2/6.  With abs(g'''(-q)) <= alpha (alpha - 1) (alpha + 1)
  (1 - q)^(-alpha - 2) for both orientations::

      E_Q g(u) <= 1 + alpha (alpha - 1)/2 v (1 + (alpha + 1) (1 - q)^(-alpha - 2) q/3),

  D_alpha <= log of that over (alpha - 1), for both orientations; at q = 1 the step is the
  Gaussian mechanism with mu = 1/sigma.

Per-step moments (:func:`loss_moments`; mean rounded down, variance bound rounded up):

* eps0-RR: L = +-eps0 with P(+eps0) = e^eps0/(1 + e^eps0): mean eps0 tanh(eps0/2), variance
  eps0^2/cosh(eps0/2)^2 (exact); a (eps0, delta0)-DP item is bounded below by eps0-RR (it is one
  such mechanism, and the profile is the worst case over them);
* Laplace, eps = sensitivity/b: mean eps + e^(-eps) - 1 (the KL divergence), abs(L) <= eps so
  variance <= eps^2; Gaussian mu: L ~ N(mu^2/2, mu^2); rho-zCDP: the Gaussian with mu^2 = 2 rho
  (a rho-zCDP mechanism, so a lower bound of the worst case);
* the subsampled Gaussian, remove orientation (derived here): E_P L = E_Q h(u), h(u) = (1+u) log(1+u);
  its fourth derivative is 2/(1+u)^3 > 0, so Taylor's theorem gives h(u) = u + u^2/2 - u^3/6 +
  (a nonnegative remainder) on u > -1, and with E_Q u^3 = q^3 (e^(3/sigma^2) - 3 e^(1/sigma^2) + 2)
  (the moments E_Q Y^j = e^(j(j-1)/(2 sigma^2)) of Y = e^((2X - 1)/(2 sigma^2)), u = q (Y - 1)),
  E_P L >= v/2 - E_Q u^3/6; and
  Var_P L <= E_P L^2 = E_Q (1+u) log^2(1+u) <= E_Q u^2 = v (abs(log x) <= abs(x - 1)/sqrt(x)).

The bracket is honest, not exact (``exact`` False); :func:`concentration_bracket` returns None where
a step has no usable moment (a delta0 > 0 item for the upper end, eps0 beyond
:data:`.pure_dp.EPS0_MAX`, a curve that overflows).
"""
from __future__ import annotations

import math
from fractions import Fraction

import mpmath

from ..bounds.renyi import _laplace_curve, _rr_curve
from ..catalog import cites
from ..precision import DEFAULT_DPS, Domain, certified, check, check_dps, mpf_to_fraction
from . import pure_dp, subsampled_gaussian as sgm
from .conversions import Bracket, continuous_order_delta, continuous_order_eps, round_down, round_up

__all__ = ["loss_moments", "rdp_upper", "composed_moments", "cantelli_delta_lower", "cantelli_eps_lower",
           "chernoff_delta_upper", "chernoff_eps_upper", "concentration_bracket", "SOURCE_LO", "SOURCE_HI"]

NN = Domain.nonnegative()
U = Domain.open_unit()
ALPHA = Domain(lo=Fraction(1), hi=Fraction(2), lo_closed=False, hi_closed=True)
SOURCE_LO = ("Cantelli's inequality on the composed privacy loss with certified per-step mean and variance "
             "(delta(eps) >= (1 - e^-c) a^2/(V + a^2), a = mean - eps - c; derived)")
SOURCE_HI = ("Chernoff bound = summed Renyi divergences at a real order alpha in (1, 2] (mironov2017 Table II / Prop. 7; "
             "the subsampled Gaussian: min of a second-order Taylor bound (derived) and mironov2019 Sec. 3.3 at that order) "
             "+ canonne2020 Prop. 12 / balle2020hyp Thm 21")


def _sgm_v(c, q, s):
    """v = E_Q u^2 = q^2 (e^(1/sigma^2) - 1), in the interval context."""
    return q * q * (c.exp(1 / (s * s)) - 1)


def _mean_var(step, dps: int):
    """(mean lower, variance upper) of one step's privacy loss as Fractions (one fixed orientation), or None."""
    m = step.mechanism
    if m in ("rr", "dp"):
        e = step.p("eps")
        if e == 0:
            return Fraction(0), Fraction(0)
        if e > pure_dp.EPS0_MAX:
            return None
        mean = certified(lambda c, x: x * (1 - 2 / (c.exp(x) + 1)), (e,), "lower", dps)
        var = certified(lambda c, x: 4 * x * x / ((c.exp(x / 2) + c.exp(-x / 2)) ** 2), (e,), "upper", dps)
    elif m == "laplace":
        e = step.p("sensitivity") / step.p("b")
        if e > pure_dp.EPS0_MAX:
            return None
        mean = certified(lambda c, x: x + c.exp(-x) - 1, (e,), "lower", dps)
        return max(mpf_to_fraction(mean), Fraction(0)), e * e
    elif m == "gaussian":
        mu2 = (step.p("sensitivity") / step.p("sigma")) ** 2
        return mu2 / 2, mu2
    elif m == "zcdp":
        return step.p("rho"), 2 * step.p("rho")
    elif m == "subsampled-gaussian":
        q, s = step.p("q"), step.p("sigma")
        if q == 1:
            return 1 / (2 * s * s), 1 / (s * s)
        if 1 / (s * s) > 700:  # e^(3/sigma^2) beyond any useful size: the bound says nothing
            return None

        def mean_f(c, q, s):
            v = _sgm_v(c, q, s)
            t3 = q ** 3 * (c.exp(3 / (s * s)) - 3 * c.exp(1 / (s * s)) + 2)
            return v / 2 - t3 / 6

        mean = certified(mean_f, (q, s), "lower", dps)
        var = certified(_sgm_v, (q, s), "upper", dps)
    else:
        return None
    return max(mpf_to_fraction(mean), Fraction(0)), mpf_to_fraction(var)


@cites("kairouz2015", "privacy loss of randomized response (Sec. 3) -- the moments of the loss of each mechanism; "
       "subsampled Gaussian: second-order Taylor bounds derived in this module's docstring")
def loss_moments(step, *, dps: int = DEFAULT_DPS) -> tuple[Fraction, Fraction] | None:
    """Certified (mean lower bound, variance upper bound) of one step's privacy loss L = log(dP/dQ)(X), X ~ P.

    ``step`` has ``mechanism``, ``p(name)`` (as :class:`.check.Step`).  Formulas and their
    derivations: module docstring (the subsampled Gaussian: remove orientation).  Rounding: mean
    down (clipped at 0, a valid lower bound as the KL divergence is >= 0), variance up.  None where
    the mechanism has no moment route (eps0 beyond EPS0_MAX, sigma^2 below 1/700 for the subsampled
    Gaussian).  The count is not applied.
    """
    return _mean_var(step, check_dps(dps))


@cites("mironov2017", "Proposition 1 (composition), Proposition 7 and Table II (Renyi divergences at real orders); "
       "the subsampled Gaussian at alpha in (1, 2]: derived (module docstring)")
def rdp_upper(step, alpha, *, dps: int = DEFAULT_DPS) -> mpmath.mpf | None:
    """An upper bound on the Renyi divergence of one step at the real order alpha in (1, 2], both orientations; rounded up.

    Randomized response with delta0 = 0, Laplace, Gaussian, zCDP: the exact curves (module
    docstring); the subsampled Gaussian: the derived Taylor bound (q < 1) or the Gaussian curve
    (q = 1).  None for a (eps0, delta0 > 0) item (no finite Renyi divergence) or eps0 beyond
    EPS0_MAX.  The count is not applied.
    """
    a = check("alpha", alpha, ALPHA)
    return _rdp_upper(step, a, check_dps(dps))


def _rdp_upper(step, a: Fraction, dps: int, exact_sgm: bool = True):
    """rdp_upper; ``exact_sgm`` False skips the quadrature of the subsampled Gaussian (the cheap model of the order search)."""
    m = step.mechanism
    if m in ("rr", "dp"):
        e = step.p("eps")
        if step.p("delta") != 0 or e > pure_dp.EPS0_MAX:
            return None
        return mpmath.mpf(0) if e == 0 else certified(_rr_curve, (a, e), "upper", dps)
    if m == "laplace":
        e = step.p("sensitivity") / step.p("b")
        return None if e > pure_dp.EPS0_MAX else certified(_laplace_curve, (a, e), "upper", dps)
    if m == "gaussian":
        return round_up(a * (step.p("sensitivity") / step.p("sigma")) ** 2 / 2, dps)
    if m == "zcdp":
        return round_up(a * step.p("rho"), dps)
    if m == "subsampled-gaussian":
        q, s = step.p("q"), step.p("sigma")
        if q == 1:
            return round_up(a / (2 * s * s), dps)
        if 1 / (s * s) > 700:
            return None

        def f(c, a, q, s):
            v = _sgm_v(c, q, s)
            corr = 1 + (a + 1) * c.exp(-(a + 2) * c.log(1 - q)) * q / 3
            return c.log(1 + a * (a - 1) / 2 * v * corr) / (a - 1)

        mine = certified(f, (a, q, s), "upper", dps)
        if not exact_sgm:
            return mine
        try:  # MTZ19 at a real order, certified by Arb quadrature (the remove orientation, which MTZ19 show dominates)
            return min(mine, sgm.sgm_rdp_continuous(q, s, a, dps=dps))
        except (ValueError, ArithmeticError):
            return mine
    return None


def composed_moments(steps, *, dps: int = DEFAULT_DPS) -> tuple[Fraction, Fraction] | None:
    """(sum k_i mean_i, sum k_i var_i): a lower bound on E S and an upper bound on Var S (independent steps), or None."""
    M, V = Fraction(0), Fraction(0)
    for s in steps:
        mv = _mean_var(s, dps)
        if mv is None:
            return None
        M += s.count * mv[0]
        V += s.count * mv[1]
    return M, V


def _fl(x: Fraction) -> float:
    try:
        return float(x)
    except OverflowError:
        return math.inf


def _best_c(score, c_lo: float, c_hi: float) -> float:
    """A maximiser of ``score`` over c in (c_lo, c_hi) by a log-scale scan then golden section (tightness only)."""
    if not c_lo < c_hi:
        return c_lo
    pts = [c_lo * (c_hi / c_lo) ** (i / 64) for i in range(1, 64)] if c_lo > 0 else [c_hi * i / 64 for i in range(1, 64)]
    best = max(pts, key=score)
    a, b = best / 1.2, min(best * 1.2, c_hi)
    g = 0.3819660112501051
    for _ in range(60):
        x1, x2 = a + g * (b - a), b - g * (b - a)
        if score(x1) >= score(x2):
            b = x2
        else:
            a = x1
    x = (a + b) / 2
    return x if score(x) >= score(best) else best


def _c_rational(c: float) -> Fraction:
    """A short rational near the float c (the value certified is the formula at that exact c)."""
    return Fraction(c).limit_denominator(1 << 40) if c > 0 else Fraction(1, 1 << 40)


@cites("kairouz2015", "the hockey-stick form of delta(eps) of a dominating pair; Cantelli's inequality (derived in the "
       "module docstring)")
def cantelli_delta_lower(steps, eps, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """A certified lower bound on delta(eps) of the composition: (*) of the module docstring at a searched c; rounded down.

    0 where the certified mean is not above eps (or a step has no moment route).
    """
    dps = check_dps(dps)
    e = check("eps", eps, NN)
    mv = composed_moments(steps, dps=dps)
    if mv is None:
        return mpmath.mpf(0)
    return _cantelli_delta(mv, e, dps)


def _cantelli_delta(mv, e: Fraction, dps: int) -> mpmath.mpf:
    M, V = mv
    gap = M - e
    if gap <= 0:
        return mpmath.mpf(0)
    Mf, Vf, ef = _fl(M), _fl(V), _fl(e)
    gf = _fl(gap)
    if not (math.isfinite(Mf) and math.isfinite(Vf) and math.isfinite(gf)) or gf <= 0:
        return mpmath.mpf(0)

    def score(c):
        a = gf - c
        if a <= 0 or c <= 0:
            return -math.inf
        return math.log(-math.expm1(-c)) + 2 * math.log(a) - math.log(Vf + a * a) if Vf > 0 else math.log(-math.expm1(-c))

    c = _c_rational(_best_c(score, min(1e-9, gf / 4), gf))
    if c >= gap:
        c = gap / 2
    if V == 0:
        return max(certified(lambda cx, c: 1 - cx.exp(-c), (c,), "lower", dps), mpmath.mpf(0))
    v = certified(lambda cx, M, V, e, c: (1 - cx.exp(-c)) * (M - e - c) ** 2 / (V + (M - e - c) ** 2),
                  (M, V, e, c), "lower", dps)
    return max(v, mpmath.mpf(0))


@cites("kairouz2015", "the hockey-stick form of delta(eps) of a dominating pair; Cantelli's inequality (derived in the "
       "module docstring)")
def cantelli_eps_lower(steps, delta, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """A certified lower bound on eps(delta): m - c - sqrt(delta V/(1 - e^-c - delta)) at a searched c (module docstring); rounded down, clipped at 0."""
    dps = check_dps(dps)
    d = check("delta", delta, U)
    mv = composed_moments(steps, dps=dps)
    if mv is None:
        return mpmath.mpf(0)
    return _cantelli_eps(mv, d, dps)


def _cantelli_eps(mv, d: Fraction, dps: int) -> mpmath.mpf:
    M, V = mv
    if M <= 0:
        return mpmath.mpf(0)
    df, Vf = _fl(d), _fl(V)
    if not math.isfinite(Vf):
        return mpmath.mpf(0)
    c_min = -math.log1p(-df) if df < 0.5 else -math.log(1 - df)

    def score(c):
        den = -math.expm1(-c) - df
        if den <= 0:
            return -math.inf
        return -(c + math.sqrt(df * Vf / den))

    c = _c_rational(_best_c(score, c_min * 1.0001 + 1e-300, max(c_min * 4, 64.0)))
    ok = certified(lambda cx, d, c: 1 - cx.exp(-c) - d, (d, c), "lower", dps)
    if ok <= 0:
        return mpmath.mpf(0)
    v = certified(lambda cx, M, V, d, c: M - c - cx.sqrt(d * V / (1 - cx.exp(-c) - d)), (M, V, d, c), "lower", dps)
    return max(v, mpmath.mpf(0))


def _curves(steps):
    """(certified composed curve at a rational alpha in (1, 2], its float model) or None when a step has no curve."""
    for s in steps:
        if _rdp_upper(s, Fraction(3, 2), 10, exact_sgm=False) is None:
            return None

    def up(alpha: Fraction, dps: int) -> mpmath.mpf:
        tot = Fraction(0)
        for s in steps:
            tot += s.count * mpf_to_fraction(_rdp_upper(s, alpha, dps))
        return round_up(tot, dps)

    def fl(alpha: Fraction) -> float:  # the closed forms only: chooses the order, never certifies
        tot = Fraction(0)
        for s in steps:
            tot += s.count * mpf_to_fraction(_rdp_upper(s, alpha, 12, exact_sgm=False))
        return float(tot)

    return up, fl


def _grid(V: float, spread: float) -> int:
    """The order grid 2^g: fine enough to resolve lambda* ~ spread/V (tightness only)."""
    lam = spread / V if V > 0 and math.isfinite(V) and spread > 0 else 1.0
    g = 10 if lam >= 1 else min(60, max(10, math.ceil(-math.log2(lam)) + 12))
    return 1 << g


@cites("canonne2020", "Proposition 12 (at a real order alpha in (1, 2]), with the summed per-step Renyi divergences "
       "of rdp_upper (mironov2017 Proposition 1)")
def chernoff_delta_upper(steps, eps, *, dps: int = DEFAULT_DPS) -> mpmath.mpf | None:
    """A certified upper bound on delta(eps) (at most 1) from the summed Renyi curves at a searched real order; rounded up.

    None where a step has no curve (:func:`rdp_upper`).
    """
    dps = check_dps(dps)
    e = check("eps", eps, NN)
    mv = composed_moments(steps, dps=dps)
    return _chernoff_delta(steps, e, mv, dps)


def _chernoff_delta(steps, e: Fraction, mv, dps: int):
    cur = _curves(steps)
    if cur is None:
        return None
    Vf = _fl(mv[1]) if mv else 1.0
    grid = _grid(Vf, max(_fl(e - mv[0]) if mv else 1.0, 1.0))
    d, _ = continuous_order_delta(cur[0], cur[1], e, Fraction(grid + 1, grid), Fraction(2), dps=dps, grid=grid)
    return d


@cites("balle2020hyp", "Theorem 21 (at a real order alpha in (1, 2]), with the summed per-step Renyi divergences "
       "of rdp_upper (mironov2017 Proposition 1)")
def chernoff_eps_upper(steps, delta, *, dps: int = DEFAULT_DPS) -> mpmath.mpf | None:
    """A certified upper bound on eps(delta) from the summed Renyi curves at a searched real order; rounded up.

    None where a step has no curve (:func:`rdp_upper`).
    """
    dps = check_dps(dps)
    d = check("delta", delta, U)
    mv = composed_moments(steps, dps=dps)
    return _chernoff_eps(steps, d, mv, dps)


def _chernoff_eps(steps, d: Fraction, mv, dps: int):
    cur = _curves(steps)
    if cur is None:
        return None
    Vf = _fl(mv[1]) if mv else 1.0
    spread = math.sqrt(2 * Vf * max(-math.log(max(_fl(d), 1e-300)), 1.0)) if math.isfinite(Vf) else 1.0
    grid = _grid(Vf, spread)
    e, _ = continuous_order_eps(cur[0], cur[1], d, Fraction(grid + 1, grid), Fraction(2), dps=dps, grid=grid)
    return e


def concentration_bracket(steps, quantity: str, at, *, dps: int = DEFAULT_DPS) -> Bracket | None:
    """The certified bracket of delta(eps = at) (``"delta"``) or eps(delta = at) (``"eps"``, 0 < at < 1) from the moments.

    Lower end: Cantelli (module docstring), 0 where it says nothing; upper end: the Chernoff /
    real-order Renyi bound, the trivial 1 (delta) or inf (eps) where a step has no curve.  None when
    neither end says anything.  ``exact`` is False.
    """
    dps = check_dps(dps)
    if quantity == "delta":
        a = check("eps", at, NN)
    elif quantity == "eps":
        a = check("delta", at, U)
    else:
        raise ValueError(f"quantity must be 'delta' or 'eps', found {quantity!r}")
    mv = composed_moments(steps, dps=dps)
    if quantity == "delta":
        lo = _cantelli_delta(mv, a, dps) if mv else mpmath.mpf(0)
        hi = _chernoff_delta(steps, a, mv, dps)
        top = mpmath.mpf(1)
    else:
        lo = _cantelli_eps(mv, a, dps) if mv else mpmath.mpf(0)
        hi = _chernoff_eps(steps, a, mv, dps)
        top = mpmath.inf
    if hi is None and lo == 0:
        return None
    hi = top if hi is None else min(hi, top)
    return Bracket(quantity, round_down(lo, dps) if lo > 0 else mpmath.mpf(0), max(hi, lo), False, "bracket",
                   lo_source=SOURCE_LO if lo > 0 else "0 (trivial)", hi_source=SOURCE_HI if mpmath.isfinite(hi) and hi < top
                   else "trivial")
