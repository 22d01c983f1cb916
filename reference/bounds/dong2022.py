"""Dong, Roth, Su, *Gaussian Differential Privacy* (paper key ``dong2022``): the exact privacy curve of mu-GDP.

Published statements (not a seed), numbered as in arXiv 1905.02383 (v3; JRSS-B 84(1), 2022):

* Theorem 2.7 (Gaussian mechanism): adding N(0, sigma^2) to a statistic of L2 sensitivity
  Delta is mu-GDP with mu = Delta / sigma  (:func:`gaussian_mu`);
* Corollary 2.13 (primal-dual, GDP -> DP): a mechanism is mu-GDP iff it is
  (eps, delta(eps))-DP for every eps >= 0, where
  ``delta(eps) = Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2)``; this is also the privacy
  profile of the Gaussian mechanism, Balle and Wang 2018 (ICML, arXiv 1805.06530), Theorem 8
  (:func:`gdp_delta`, :func:`gdp_delta_lower`, and the inverses :func:`gdp_eps`, :func:`gdp_mu`);
* Corollary 3.3 (composition): the composition of mu_i-GDP mechanisms (non-adaptive, or adaptive
  with the mu_i fixed in advance) is sqrt(sum mu_i^2)-GDP  (:func:`gdp_compose`,
  :func:`gdp_compose_mu`).  The *fully adaptive* version (mu_i chosen on the fly, a filter on
  sum mu_i^2) is Smith and Thakurta 2022: :mod:`reference.bounds.smith2022`.

Rigour.  mpmath 1.3's interval context has no ``erfc``.  :func:`phi_iv` encloses
Phi(x) = erfc(-x/sqrt 2)/2 for an interval x with mpmath's real ``erfc`` kernel
(``libmp.mpf_erfc``), evaluated at 32 guard bits above the interval context's precision at
both ends of the (rigorously computed) argument interval -- Phi is increasing -- with directed
rounding, and then widened by a relative 2^-(prec+8) on each side (the kernel's documented
accuracy is a few ulps of its working precision).  This is the trust base of mpmath's interval
elementary functions, plus a stated error budget; the proof-tests check it against an
independent route (``mpmath.quad`` of the normal density at 60 digits).

Cancellation.  delta(eps) is a difference of two nearly equal terms when eps/mu is large
(e^eps phi(B) = phi(A) exactly, and the Mills ratios of A and B differ by about ``mu/|A|^2``);
:func:`reference.precision.certified` doubles the working precision until the enclosure of the
*difference* is ``dps`` digits tight, so no digit lost to cancellation is ever reported.
"""
from __future__ import annotations

import math
import threading
from fractions import Fraction

import mpmath
from mpmath import libmp

from ..catalog import Param, cites, register
from ..precision import (
    DEFAULT_DPS,
    Domain,
    certified,
    check,
    check_dps,
    check_seq,
    mpf_to_fraction,
    sign_of,
)

__all__ = [
    "phi_iv", "gaussian_mu", "gdp_delta", "gdp_delta_lower", "gdp_eps", "gdp_mu", "gdp_compose",
    "gdp_compose_mu", "gdp_delta_admits",
]

KEY = "dong2022"
NN = Domain.nonnegative()
P = Domain.positive()
U = Domain.open_unit()

_F, _C = libmp.round_floor, libmp.round_ceiling
_GUARD = 32

_eps = Param("eps", NN, default="1", doc="target epsilon >= 0")
_mu = Param("mu", NN, default="1/2", doc="GDP parameter mu >= 0 (mu = sensitivity / sigma for the Gaussian mechanism)")
_delta = Param("delta", U, default="1e-6", doc="target delta in (0, 1)")


# ---------------------------------------------------------------------------
# Interval enclosure of the normal CDF
# ---------------------------------------------------------------------------

def _erfc_asymptotic(c, y):
    """Enclosure of erfc(y) for an exact point y > 0 with y^2 > c.prec + 16 (all in the interval context ``c``).

    erfc(y) = e^{-y^2}/(y sqrt(pi)) (sum_{n<N} (-1)^n (2n-1)!!/(2y^2)^n + R_N), where for real y > 0
    the remainder R_N has the sign of, and is smaller in magnitude than, the first neglected term
    (Abramowitz-Stegun 7.1.23-7.1.24; DLMF 7.12.1).  The terms fall by (2n-1)/(2y^2) < 1/2 while
    n < y^2/2, so the loop stops with |term| < 2^-(prec+8) long before the series turns.
    """
    Y = c.mpf(y)
    t = 1 / (2 * Y * Y)
    s = c.mpf(1)
    term = c.mpf(1)
    tol = c.ldexp(c.mpf(1), -(c.prec + 8))
    n = 1
    while True:
        term = -term * (2 * n - 1) * t
        if abs(term).b < tol.a:
            break
        s = s + term
        n += 1
    r = abs(term).b
    s = s + c.mpf([-r, r])
    return c.exp(-Y * Y) / (Y * c.sqrt(c.pi)) * s


def _erfc_end(c, y, rnd):
    """One end of an enclosure of erfc at the exact point ``y`` (raw mpf), rounded in ``rnd``."""
    prec = c.prec + _GUARD
    sign, man, exp, bc = y
    big = (not sign) and man and (bc + exp) > 1 and libmp.mpf_gt(libmp.mpf_mul(y, y, 64, _F), libmp.from_int(c.prec + 16))
    if big:
        v = _erfc_asymptotic(c, mpmath.mp.make_mpf(y))
        return v._mpi_[0] if rnd == _F else v._mpi_[1]
    if sign and man and (bc + exp) > 1 and libmp.mpf_gt(libmp.mpf_mul(y, y, 64, _F), libmp.from_int(c.prec + 16)):
        # erfc(y) = 2 - erfc(-y) for y very negative
        v = 2 - _erfc_asymptotic(c, mpmath.mp.make_mpf(libmp.mpf_neg(y)))
        return v._mpi_[0] if rnd == _F else v._mpi_[1]
    w = libmp.mpf_shift(libmp.fone, -(c.prec + 8))
    r = libmp.mpf_erfc(y, prec, rnd)
    if rnd == _F:
        r = libmp.mpf_mul(r, libmp.mpf_sub(libmp.fone, w, prec, _F), prec, _F)
        return r if not libmp.mpf_lt(r, libmp.fzero) else libmp.fzero
    return libmp.mpf_mul(r, libmp.mpf_add(libmp.fone, w, prec, _C), prec, _C)


def phi_iv(c, x):
    """Enclosure of the standard normal CDF Phi(x) for an interval ``x`` of the interval context ``c``.

    Phi(x) = erfc(-x/sqrt(2))/2 is increasing, so Phi([a, b]) lies in [Phi(a), Phi(b)].  Each end
    is evaluated at the exact end of the (rigorously computed) argument interval: for moderate
    arguments with mpmath's ``mpf_erfc`` at ``c.prec + 32`` bits, rounded outward and widened by a
    relative 2^-(c.prec + 8); for ``|y|^2 > prec + 16`` by the asymptotic series with its rigorous
    remainder bound (``_erfc_asymptotic``), in interval arithmetic.  Deviation: mpmath 1.3's
    interval context has no erfc (see the module docstring for the trust base).
    """
    y = -x / c.sqrt(2)
    ylo, yhi = y._mpi_
    lo = _erfc_end(c, yhi, _F)
    hi = _erfc_end(c, ylo, _C)
    if libmp.mpf_lt(lo, libmp.fzero):
        lo = libmp.fzero
    lo = libmp.mpf_shift(lo, -1)
    hi = libmp.mpf_shift(hi, -1)
    if libmp.mpf_gt(hi, libmp.fone):
        hi = libmp.fone
    v = c.mpf(0)
    v._mpi_ = (lo, hi)
    return v


def _mills_difference(c, x, y, m):
    """Enclosure of r(x) - r(y) for the Mills ratio r(t) = Phi(-t)/phi(t), with y = x + m, x^2 > 4(prec + 16).

    Asymptotic series r(t) = sum_{n<N} (-1)^n (2n-1)!! t^-(2n+1) + R_N(t), |R_N(t)| <= (2N-1)!! t^-(2N+1)
    (the alternating remainder bound of Abramowitz-Stegun 7.1.24 / DLMF 7.12.1 for real t > 0),
    differenced term by term as t^-k - (t+m)^-k = m sum_{j<k} y^j x^(k-1-j) / (x y)^k (no cancellation).
    """
    xy = x * y
    tol = c.ldexp(c.mpf(1), -(c.prec + 8)) * m / (xy * y)
    total = c.mpf(0)
    coef = c.mpf(1)  # (2n-1)!!
    n = 0
    while True:
        k = 2 * n + 1
        # y^k - x^k = m * sum_{j<k} y^j x^(k-1-j)
        acc = c.mpf(0)
        for j in range(k):
            acc = acc + y ** j * x ** (k - 1 - j)
        diff = coef * m * acc / xy ** k
        total = total + diff if n % 2 == 0 else total - diff
        n += 1
        coef = coef * (2 * n - 1)
        rem = coef / x ** (2 * n + 1)  # bound on |R_N(x)| (and on |R_N(y)|, y > x)
        if rem.b < tol.a:
            break
        if n > 100000:  # pragma: no cover (x^2 > 4 prec makes the terms fall by 4 each step)
            raise ArithmeticError("Mills series did not converge")
    r = 2 * rem.b
    return total + c.mpf([-r, r])


def _delta_formula(c, e, m):
    """Phi(-e/m + m/2) - e^e Phi(-e/m - m/2), the Dong-Roth-Su Corollary 2.13 curve (m > 0).

    Deviation (far tail, x = e/m - m/2 with x^2 > 4(prec + 16)): since e^e phi(B) = phi(A)
    exactly (B^2 - A^2 = 2e), the curve equals phi(A) (r(x) - r(x + m)) with the Mills ratio r;
    the difference is formed term by term (:func:`_mills_difference`), which avoids erfc of huge
    arguments and the catastrophic cancellation of the printed form.
    """
    a = e / m
    h = m / 2
    A = h - a
    if A.b < 0 and (A.b * A.b).a > 4 * (c.prec + 16):
        x = -A
        y = x + m
        return c.exp(-(A * A) / 2) / c.sqrt(2 * c.pi) * _mills_difference(c, x, y, m)
    return phi_iv(c, A) - c.exp(e) * phi_iv(c, -a - h)


# ---------------------------------------------------------------------------
# Theorem 2.7 and Corollary 3.3: exact rationals
# ---------------------------------------------------------------------------

@cites(KEY, "Theorem 2.7 (Gaussian mechanism)")
def gaussian_mu(sensitivity, sigma) -> Fraction:
    """dong2022 Theorem 2.7 (arXiv 1905.02383 v3): the Gaussian mechanism N(0, sigma^2) on an L2-sensitivity-Delta statistic is (Delta/sigma)-GDP.

    Contract: returns the exact ``Fraction`` mu = sensitivity / sigma (no rounding).
    Preconditions: sensitivity >= 0, sigma > 0 (parsed exactly; ValueError names the parameter).

    >>> gaussian_mu("1", "4")
    Fraction(1, 4)
    """
    D = check("sensitivity", sensitivity, NN)
    s = check("sigma", sigma, P)
    return D / s


@cites(KEY, "Corollary 3.3 (composition of GDP)")
def gdp_compose(mus) -> Fraction:
    """dong2022 Corollary 3.3: the composition of mu_i-GDP mechanisms is sqrt(sum mu_i^2)-GDP; returns sum mu_i^2 exactly.

    Contract: the exact ``Fraction`` sum of the squares (the square of the composed mu; its square
    root is irrational in general, so it is never formed here: filters compare squares exactly).
    Preconditions: a non-empty sequence of mu_i >= 0 (a comma-separated string is accepted).

    >>> gdp_compose(["1/2", "1/2"])
    Fraction(1, 2)
    """
    ms = check_seq("mus", mus, NN)
    return sum((m * m for m in ms), Fraction(0))


@register("dong2022_cor3_3_mu", paper=KEY, result="Corollary 3.3", direction="upper",
          summary="composed GDP parameter sqrt(mu_1^2 + ... + mu_n^2) of mu_i-GDP mechanisms",
          params=(Param("mus", NN, kind="sequence", default="1/2,1/4", doc="per-mechanism GDP parameters mu_i >= 0"),),
          provenance="published statement", validity="valid",
          note="Dong, Roth, Su, arXiv 1905.02383, Corollary 3.3 (numbering of the arXiv version; the JRSS-B version "
               "renumbers). Valid for mu_i fixed in advance; fully adaptive mu_i need the filter of smith2022.")
def gdp_compose_mu(mus, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """dong2022 Corollary 3.3: sqrt(sum mu_i^2), the GDP parameter of the composition, rounded up.

    Preconditions: a non-empty sequence of mu_i >= 0.  Rounding: up, interval-certified.

    >>> from reference.precision import directed_decimal
    >>> directed_decimal(gdp_compose_mu(["3", "4"]), 5, "upper")
    '5'
    """
    s = gdp_compose(mus)
    return certified(lambda c, v: c.sqrt(v), (s,), "upper", dps)


# ---------------------------------------------------------------------------
# Corollary 2.13: the privacy profile delta(eps) of mu-GDP
# ---------------------------------------------------------------------------

_COR213_NOTE = ("Dong, Roth, Su, arXiv 1905.02383, Corollary 2.13 (numbering of the arXiv version; Corollary 1 in "
                "JRSS-B 84(1) 2022): mu-GDP iff (eps, delta(eps))-DP for all eps >= 0, with delta(eps) = "
                "Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2). Same curve as the analytic Gaussian mechanism's "
                "privacy profile, Balle and Wang 2018, Theorem 8. Evaluated in interval arithmetic (erfc kernel "
                "widened by a stated error budget, see the module docstring); precision raised until the "
                "difference is tight.")


def _parse_eps_mu(eps, mu):
    return check("eps", eps, NN), check("mu", mu, NN)


@register("dong2022_cor2_13_delta", paper=KEY, result="Corollary 2.13", direction="upper",
          summary="exact delta(eps) of mu-GDP: Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2) (rounded up)",
          params=(_eps, _mu), provenance="published statement", validity="valid", note=_COR213_NOTE)
def gdp_delta(eps, mu, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """dong2022 Corollary 2.13 (= Balle-Wang 2018 Thm 8): the exact delta(eps) of mu-GDP, rounded up.

    Contract: a mu-GDP mechanism is (eps, returned value)-DP, and no smaller delta holds for the
    Gaussian mechanism with Delta/sigma = mu (the value is that mechanism's privacy profile).
    Preconditions: eps >= 0, mu >= 0 (mu = 0 gives 0).  Rounding: up; interval-certified to
    ``dps`` digits of the *difference* (precision raised through the cancellation); never above 1.

    >>> from reference.precision import directed_decimal
    >>> directed_decimal(gdp_delta("1", "1"), 12, "upper")
    '0.126936737507'
    """
    e, m = _parse_eps_mu(eps, mu)
    dps = check_dps(dps)
    if m == 0:
        return mpmath.mpf(0)
    return certified(_delta_formula, (e, m), "upper", dps)


@register("dong2022_cor2_13_delta_lower", paper=KEY, result="Corollary 2.13 (lower end)", direction="lower",
          summary="certified lower bound on the exact delta(eps) of mu-GDP (clipped at 0)",
          params=(_eps, _mu), provenance="published statement", validity="valid", note=_COR213_NOTE)
def gdp_delta_lower(eps, mu, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """dong2022 Corollary 2.13: a certified lower bound on delta(eps) of mu-GDP (rounded down, clipped at 0).

    Contract: the exact delta(eps) is >= the returned value (use it to certify that a Gaussian
    mechanism is *not* (eps, delta)-DP).  Preconditions as :func:`gdp_delta`.  Rounding: down.
    """
    e, m = _parse_eps_mu(eps, mu)
    dps = check_dps(dps)
    if m == 0:
        return mpmath.mpf(0)
    v = certified(_delta_formula, (e, m), "lower", dps)
    return v if v > 0 else mpmath.mpf(0)


def gdp_delta_admits(eps: Fraction, mu: Fraction, delta: Fraction) -> bool:
    """Exact decision of ``delta_mu(eps) <= delta`` (Corollary 2.13) for rationals eps >= 0, mu >= 0, delta.

    Refines the interval enclosure until it excludes ``delta``; delta_mu(eps) is transcendental
    for rational eps, mu > 0 in every case met here, and a tie raises ``ArithmeticError`` rather
    than guessing.
    """
    if mu == 0:
        return delta >= 0
    return sign_of(lambda c, e, m, d: _delta_formula(c, e, m) - d, (eps, mu, delta)) <= 0


def _float_guess(f, lo, hi, iters=60):
    """A float bisection estimate of the crossing of a monotone float predicate (tightness only)."""
    for _ in range(iters):
        mid = (lo + hi) / 2
        if f(mid):
            hi = mid
        else:
            lo = mid
    return lo, hi


def _bits(dps: int) -> int:
    return int(math.ceil(dps * math.log2(10))) + 4


def _round(q: Fraction, bits: int, rnd) -> mpmath.mpf:
    raw = libmp.from_rational(q.numerator, q.denominator, bits, rnd)
    return mpmath.mp.make_mpf(raw)


def _tight_bracket(admits, guess: Fraction, good_above: bool, bits: int) -> tuple[Fraction, Fraction]:
    """A bracket (bad, good) around the boundary of the monotone exact predicate ``admits``, width <= 2^-bits relative.

    ``good_above``: True when admits(x) holds for large x, False when it holds for small x.  Starts
    at ``guess`` (a float estimate; tightness only) and gallops outwards, then bisects at exact
    dyadic midpoints.  Every point is decided exactly, so ``good`` always satisfies ``admits``.
    """
    r = Fraction(1, 2 ** 40)
    g = guess if guess > 0 else Fraction(1, 2 ** 40)
    for _ in range(100000):
        a, b = g * (1 - r), g * (1 + r)
        A, B = admits(a), admits(b)
        if good_above:
            if not A and B:
                bad, good = a, b
                break
            g = a if A else b
        else:
            if A and not B:
                bad, good = b, a
                break
            g = b if A else a
        r = min(2 * r, Fraction(1, 2))
    else:  # pragma: no cover
        raise ArithmeticError("could not bracket the root")
    while abs(good - bad) > abs(good) * Fraction(1, 2 ** bits):
        mid = (good + bad) / 2
        if admits(mid):
            good = mid
        else:
            bad = mid
    return bad, good


def _bracket_from(admits, guess: Fraction, good_above: bool, bits: int, precise: Fraction | None) -> tuple[Fraction, Fraction]:
    """:func:`_tight_bracket`, first trying the bracket of relative half-width 2^-(bits+1) around ``precise``.

    ``precise`` is a high-precision (non-rigorous) estimate of the root: when the two exact
    decisions at its ends straddle the boundary, that bracket is returned (2 decisions instead
    of about ``bits - 40`` bisection steps); otherwise the gallop and bisection from ``guess``
    run as before.  Either way every end is decided exactly, so the contract is unchanged.
    """
    if precise is not None and precise > 0:
        r = Fraction(1, 2 ** (bits + 1))
        a, b = precise * (1 - r), precise * (1 + r)
        A, B = admits(a), admits(b)
        if good_above and not A and B:
            return a, b
        if not good_above and A and not B:
            return b, a
    return _tight_bracket(admits, guess, good_above, bits)


def _precise_root(g, x0: float, bits: int) -> Fraction | None:
    """A non-rigorous root of ``g(ctx, x)`` near ``x0`` at about ``bits`` + 40 bits (secant method), or None.

    Only the speed of the exact bracketing depends on it (see :func:`_bracket_from`).
    """
    if not (x0 > 0 and math.isfinite(x0)):
        return None
    ctx = mpmath.MPContext()
    ctx.prec = 2 * bits + 96  # generous: the curve's two terms cancel at tiny delta
    try:
        x = ctx.findroot(lambda t: g(ctx, t), (ctx.mpf(x0), ctx.mpf(x0) * (1 + ctx.mpf(2) ** -30)),
                         solver="secant", tol=ctx.mpf(2) ** (-2 * bits - 40), maxsteps=60)
    except (ValueError, ZeroDivisionError, ArithmeticError):
        return None
    if not ctx.isfinite(x) or x <= 0:
        return None
    return mpf_to_fraction(mpmath.mp.make_mpf(x._mpf_))


def _log_delta_gap(ctx, e, m, d):
    """log delta_mu(e) - log d in a plain (non-interval) context: the function whose root the inverses refine."""
    a, h = e / m, m / 2
    return ctx.log(ctx.ncdf(h - a) - ctx.exp(e) * ctx.ncdf(-a - h)) - ctx.log(d)


def _ctx_const(q: Fraction):
    """``q`` as a number of whatever context is passed (exact ratio at that context's precision)."""
    return lambda c: c.mpf(q.numerator) / q.denominator


_GUESS = threading.local()


def _guess_ctx():
    """This thread's 80-bit plain mpmath context for the float guesses (built once: a context costs ~0.3 ms)."""
    ctx = getattr(_GUESS, "ctx", None)
    if ctx is None:
        ctx = _GUESS.ctx = mpmath.MPContext()
        ctx.prec = 80
    return ctx


def _mp_delta(e: float, m: float) -> float:
    """Double-precision estimate of delta (for the initial guess only)."""
    ctx = _guess_ctx()
    a, h = ctx.mpf(e) / m, ctx.mpf(m) / 2
    return float(ctx.ncdf(h - a) - ctx.exp(e) * ctx.ncdf(-a - h))


@register("dong2022_cor2_13_eps", paper=KEY, result="Corollary 2.13 (inverse: eps for a target delta)", direction="upper",
          summary="smallest eps with delta_mu(eps) <= delta (a certified root, rounded up)",
          params=(_delta, _mu), provenance="derived", validity="valid",
          note=_COR213_NOTE + " The root is bracketed and bisected with exact decisions (precision.sign_of); the "
               "upper end returned satisfies delta_mu(eps) <= delta exactly.")
def gdp_eps(delta, mu, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """dong2022 Corollary 2.13 inverted: a certified upper bound on the smallest eps >= 0 with delta_mu(eps) <= delta.

    Contract: a mu-GDP mechanism is (returned value, delta)-DP (it is decided exactly that
    delta_mu(returned value) <= delta), and the value exceeds the exact root by at most a relative
    10^-dps.  delta_mu(eps) is strictly decreasing in eps, so the root is unique; 0 when
    delta_mu(0) = 2 Phi(mu/2) - 1 <= delta.
    Preconditions: 0 < delta < 1, mu >= 0.  Rounding: up (the upper end of an exactly decided
    bracket).

    >>> from reference.precision import directed_decimal
    >>> directed_decimal(gdp_eps("1e-6", "1/2"), 8, "upper")
    '2.2540847'
    """
    d = check("delta", delta, U)
    m = check("mu", mu, NN)
    dps = check_dps(dps)
    bits = _bits(dps)
    if m == 0 or gdp_delta_admits(Fraction(0), m, d):
        return mpmath.mpf(0)
    if m > 10 ** 150:
        raise ValueError(f"mu must be at most 1e150 for gdp_eps (its root search starts from a double), found {m}")
    # float estimate of the root
    mf = float(m)
    hi = mf * mf / 2 + mf * 2 * (1 + abs(math.log(float(d)))) ** 0.5 + 1
    while _mp_delta(hi, mf) > float(d):
        hi *= 2
    lo, hi = _float_guess(lambda e: _mp_delta(e, mf) <= float(d), 0.0, hi, iters=40)
    guess = Fraction(hi) if hi > 0 else Fraction(1, 2 ** 40)
    mq, dq = _ctx_const(m), _ctx_const(d)
    precise = _precise_root(lambda c, e: _log_delta_gap(c, e, mq(c), dq(c)), hi, bits)
    _, good = _bracket_from(lambda e: gdp_delta_admits(e, m, d), guess, True, bits, precise)
    return _round(good, bits, _C)


@register("dong2022_cor2_13_mu", paper=KEY, result="Corollary 2.13 (inverse: mu for a target (eps, delta))", direction="lower",
          summary="largest mu with delta_mu(eps) <= delta (a certified root, rounded down): the GDP budget of a target (eps, delta)",
          params=(_eps, _delta), provenance="derived", validity="valid",
          note=_COR213_NOTE + " delta_mu(eps) is strictly increasing in mu (GDP curves are nested); the lower end of "
               "an exactly decided bracket is returned.")
def gdp_mu(eps, delta, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """dong2022 Corollary 2.13 inverted in mu: a certified lower bound on the largest mu with delta_mu(eps) <= delta.

    Contract: every mu'-GDP mechanism with mu' <= returned value is (eps, delta)-DP (decided
    exactly at the returned value; delta_mu(eps) increases in mu), and the value is below the exact
    root by at most a relative 10^-dps.  Preconditions: eps >= 0, 0 < delta < 1.
    Rounding: down.  This is the budget of the Gaussian-DP filter (smith2022).

    >>> from reference.precision import directed_decimal
    >>> directed_decimal(gdp_mu("1", "1e-6"), 8, "lower")
    '0.23670438'
    """
    e = check("eps", eps, NN)
    d = check("delta", delta, U)
    dps = check_dps(dps)
    bits = _bits(dps)
    # float estimate: bisection on mu of the double-precision curve
    ef, df = float(e), float(d)
    lo, hi = 1e-300, 1.0
    while _mp_delta(ef, hi) <= df:
        hi *= 2
    lo, hi = _float_guess(lambda mm: _mp_delta(ef, mm) > df, 0.0, hi, iters=80)
    guess = Fraction(lo) if lo > 0 else Fraction(hi) / 2
    eq, dq = _ctx_const(e), _ctx_const(d)
    precise = _precise_root(lambda c, mm: _log_delta_gap(c, eq(c), mm, dq(c)), float(guess), bits) if e > 0 else None
    bad, good = _bracket_from(lambda mm: gdp_delta_admits(e, mm, d), guess, False, bits, precise)
    return _round(good, bits, _F)
