"""Exact tests for the Monte Carlo routes: binomial tails, Clopper-Pearson bounds, Hoeffding/Bernstein bounds.

* :func:`binom_tail_enclosure` -- a rigorous interval enclosure of ``P(Bin(N, p) >= K)``
  for rational ``p`` (summation of the terms by their ratio recurrence in
  interval arithmetic, with a geometric bound on the neglected remainder).
* :func:`clopper_pearson` -- one-sided Clopper-Pearson (1934) bounds at level
  ``alpha``: a float bisection locates them, then each end is *certified* with
  :func:`binom_tail_enclosure` and moved outward until certified, so
  ``lo <= p_L`` and ``hi >= p_U`` hold exactly (``p_L``, ``p_U`` the exact CP limits).
* :func:`clopper_pearson_betainc` -- the textbook route (mpmath ``betainc`` and
  bisection); mpmath 1.3's hypergeometric series stops converging for
  ``N >~ 10^4`` (``hypsum`` error), which is why it is the second route only.
* :func:`binomial_exceeds` -- the verdict of a crossing test: ``True`` iff the exact
  one-sided binomial test rejects ``p <= p0`` at level ``alpha`` (equivalently the
  CP lower bound exceeds ``p0``), decided with a certified tail.
* :func:`mean_lcb` / :func:`mean_ucb` -- confidence bounds on the mean of i.i.d.
  bounded variables: the better of Hoeffding (1963) and the empirical Bernstein
  bound of Maurer and Pontil (2009, Theorem 4), each at ``alpha/2``.
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from ..precision import iv_const, to_exact
from ._iv import ends, ivctx

__all__ = ["binom_tail_enclosure", "binom_tail_float", "binomial_exceeds", "clopper_pearson",
           "clopper_pearson_betainc", "binom_tail_exact", "mean_lcb", "mean_ucb", "hoeffding_halfwidth"]


def _check_nk(N: int, K: int) -> tuple[int, int]:
    if isinstance(N, bool) or not isinstance(N, (int, np.integer)) or N < 1:
        raise ValueError(f"N must be a positive integer, found {N!r}")
    if isinstance(K, bool) or not isinstance(K, (int, np.integer)) or not 0 <= K <= N:
        raise ValueError(f"K must be an integer in [0, N], found {K!r}")
    return int(N), int(K)


def _check_p(p) -> Fraction:
    q = to_exact(p, "p")
    if not 0 <= q <= 1:
        raise ValueError(f"p must lie in [0, 1], found {p!r}")
    return q


def binom_tail_exact(N: int, K: int, p) -> Fraction:
    """``P(Bin(N, p) >= K)`` as an exact Fraction (brute-force sum; for small N, a second route in tests)."""
    N, K = _check_nk(N, K)
    q = _check_p(p)
    return sum((Fraction(math.comb(N, j)) * q ** j * (1 - q) ** (N - j) for j in range(K, N + 1)), Fraction(0))


_EXACT_COMB_MAX = 20000


def _log_factorial(c, n: int):
    """Enclosure of log(n!) (n >= 1): Stirling's series to n^-5 with its enveloping remainder in [-1/(1680 n^7), 0].

    For real x > 0 the series log Gamma(x+1) = (x+1/2) log x - x + log(2 pi)/2 + sum B_2k/(2k(2k-1) x^(2k-1))
    is enveloping: the error of a truncation has the sign of, and is at most, the first omitted term
    (Whittaker and Watson, 12.33).  The first omitted term here is -1/(1680 n^7).
    """
    x = c.mpf(n)
    s = (x + c.mpf(1) / 2) * c.log(x) - x + c.log(2 * c.pi) / 2 + 1 / (12 * x) - 1 / (360 * x ** 3) + 1 / (1260 * x ** 5)
    r = 1 / (1680 * x ** 7)
    return c.mpf([(s - r).a, s.b])


def _binom_term(c, N: int, j: int, P, Q):
    """Enclosure of C(N, j) P^j Q^(N-j): the exact integer C(N, j) for N <= 20000, else a Stirling enclosure of its log."""
    if N <= _EXACT_COMB_MAX or j == 0 or j == N:
        return c.mpf(math.comb(N, j)) * P ** j * Q ** (N - j)
    logc = _log_factorial(c, N) - _log_factorial(c, j) - _log_factorial(c, N - j)
    return c.exp(logc + j * c.log(P) + (N - j) * c.log(Q))


def binom_tail_enclosure(N: int, K: int, p, prec: int = 96):
    """Rigorous enclosure ``(lo, hi)`` (Fractions) of ``P(Bin(N, p) >= K)`` for a rational ``p``.

    Sums the terms ``t_j = C(N, j) p^j (1-p)^(N-j)`` away from the mode by the
    ratio recurrence, in interval arithmetic at ``prec`` bits; the neglected
    remainder is bounded by ``t_j r/(1-r)`` (the ratios decrease monotonically
    away from the mode) and added as ``[0, bound]``.  When ``K`` is at or below
    the mode the lower tail ``P(X <= K-1)`` is summed and complemented.
    """
    N, K = _check_nk(N, K)
    pp = _check_p(p)
    if K == 0 or pp == 1:
        return Fraction(1), Fraction(1)
    if pp == 0:
        return Fraction(0), Fraction(0)
    c = ivctx(prec)
    P, Q = iv_const(c, pp), iv_const(c, 1 - pp)
    mode = int((N + 1) * pp)  # floor((N+1)p): t_j increases up to it
    tiny = c.ldexp(c.mpf(1), -(prec + 8))
    upper_side = K > mode
    j = K if upper_side else K - 1
    t = _binom_term(c, N, j, P, Q)
    s = t
    while True:
        if upper_side:
            if j == N:
                break
            r = c.mpf(N - j) / (j + 1) * P / Q
        else:
            if j == 0:
                break
            r = c.mpf(j) / (N - j + 1) * Q / P
        if r.b < 1:
            bound = t * r / (1 - r)
            if bound.b <= (s * tiny).a:
                s = s + c.mpf([0, bound.b])
                break
        elif r.a > 1:  # pragma: no cover - the recurrence never climbs away from the mode
            raise AssertionError("binomial tail recurrence moved towards the mode")
        t = t * r
        s = s + t
        j = j + 1 if upper_side else j - 1
    lo, hi = ends(s)
    if not upper_side:
        lo, hi = 1 - hi, 1 - lo
    return max(lo, Fraction(0)), min(hi, Fraction(1))


def binom_tail_float(N: int, K: int, p: float) -> float:
    """``P(Bin(N, p) >= K)`` in float64 (log-space sum of a window of terms); for locating bounds, not for verdicts."""
    if K <= 0:
        return 1.0
    if K > N or p <= 0.0:
        return 0.0
    if p >= 1.0:
        return 1.0
    lp, lq = math.log(p), math.log1p(-p)
    mode = int((N + 1) * p)
    sd = math.sqrt(N * p * (1 - p)) + 1.0
    w = int(60 * sd) + 60
    if K > mode:
        j = np.arange(K, min(N, K + w) + 1, dtype=np.float64)
        lt = np.array([math.lgamma(N + 1) - math.lgamma(K + 1) - math.lgamma(N - K + 1)]) + K * lp + (N - K) * lq
        inc = np.log(N - j[:-1]) - np.log(j[:-1] + 1) + lp - lq
        logt = np.concatenate([lt, lt + np.cumsum(inc)])
        m = logt.max()
        return float(min(1.0, math.exp(m) * np.exp(logt - m).sum()))
    j0 = K - 1
    j = np.arange(j0, max(0, j0 - w) - 1, -1, dtype=np.float64)
    lt = np.array([math.lgamma(N + 1) - math.lgamma(j0 + 1) - math.lgamma(N - j0 + 1)]) + j0 * lp + (N - j0) * lq
    inc = np.log(j[:-1]) - np.log(N - j[:-1] + 1) + lq - lp
    logt = np.concatenate([lt, lt + np.cumsum(inc)])
    m = logt.max()
    return float(max(0.0, 1.0 - math.exp(m) * np.exp(logt - m).sum()))


def _bisect(f, lo: float, hi: float, iters: int = 80) -> tuple[float, float]:
    """Bisection for an increasing f with f(lo) < 0 <= f(hi); returns the final bracket."""
    for _ in range(iters):
        mid = 0.5 * (lo + hi)
        if mid in (lo, hi):
            break
        if f(mid) < 0:
            lo = mid
        else:
            hi = mid
    return lo, hi


def _cp_lower(N: int, K: int, a: Fraction) -> Fraction:
    """Certified lower CP bound: the largest float found by bisection, moved down until P_lo(X >= K) <= a."""
    if K == 0:
        return Fraction(0)
    l0, _ = _bisect(lambda p: binom_tail_float(N, K, p) - float(a), 0.0, 1.0)
    lo = Fraction(l0)
    step = Fraction(1, 10 ** 9)
    while lo > 0 and binom_tail_enclosure(N, K, lo)[1] > a:
        lo = max(Fraction(0), lo - max(lo * step, Fraction(1, 2 ** 1074)))
        step *= 8
    return lo


def clopper_pearson(N: int, K: int, alpha) -> tuple[Fraction, Fraction]:
    """One-sided Clopper-Pearson bounds ``(lo, hi)`` at level ``alpha`` for ``K`` successes in ``N`` trials.

    Contract: ``lo <= p_L`` and ``hi >= p_U``, where ``p_L`` solves
    ``P_p(X >= K) = alpha`` and ``p_U`` solves ``P_p(X <= K) = alpha``; so
    ``P(p >= lo) >= 1 - alpha`` and ``P(p <= hi) >= 1 - alpha``.  ``lo = 0`` if
    ``K = 0``; ``hi = 1`` if ``K = N``.  Guarantee: the float bisection only
    locates the ends; each returned end is certified by an interval enclosure of
    the binomial tail (:func:`binom_tail_enclosure`), widened outward until certified.
    The upper end is computed as ``1 -`` the lower end for the ``N - K`` failures
    (full relative precision when ``p_U`` is close to 1).
    """
    N, K = _check_nk(N, K)
    a = to_exact(alpha, "alpha")
    if not 0 < a < 1:
        raise ValueError(f"alpha must lie in (0, 1), found {alpha!r}")
    lo = _cp_lower(N, K, a)
    # P_p(Bin(N, p) <= K) = P_{1-p}(Bin(N, 1-p) >= N-K): the upper bound is 1 - the lower bound of N-K failures
    hi = 1 - _cp_lower(N, N - K, a)
    return lo, hi


def clopper_pearson_betainc(N: int, K: int, alpha, dps: int = 30) -> tuple[float, float]:
    """Clopper-Pearson bounds by mpmath ``betainc`` and bisection (second route; moderate N only).

    ``p_L`` solves ``I_p(K, N-K+1) = alpha``, ``p_U`` solves ``1 - I_p(K+1, N-K) = alpha``.
    Computed in a private mpmath context; mpmath 1.3 fails to converge for large
    N (then ``ValueError`` propagates).  Not certified: used as a cross-check.
    """
    from mpmath.ctx_mp import MPContext

    N, K = _check_nk(N, K)
    c = MPContext()
    c.dps = dps
    a = c.mpf(float(to_exact(alpha, "alpha")))

    def solve(f):
        lo, hi = c.mpf(0), c.mpf(1)
        for _ in range(dps * 4):
            mid = (lo + hi) / 2
            if f(mid) < 0:
                lo = mid
            else:
                hi = mid
        return float((lo + hi) / 2)

    pl = 0.0 if K == 0 else solve(lambda p: c.betainc(K, N - K + 1, 0, p, regularized=True) - a)
    pu = 1.0 if K == N else solve(lambda p: a - (1 - c.betainc(K + 1, N - K, 0, p, regularized=True)))
    return pl, pu


def binomial_exceeds(N: int, K: int, p0, alpha) -> bool:
    """Exact one-sided binomial test: True iff ``P_{p0}(Bin(N, p0) >= K) < alpha`` (certified).

    Equivalent to "the Clopper-Pearson lower bound at level alpha exceeds p0".
    An enclosure straddling ``alpha`` is refined; if it still straddles at 1024
    bits the answer is False (no rejection: the conservative side of a "fail").
    """
    N, K = _check_nk(N, K)
    p = _check_p(p0)
    a = to_exact(alpha, "alpha")
    if Fraction(K, N) <= p:
        return False
    for prec in (96, 256, 1024):
        lo, hi = binom_tail_enclosure(N, K, p, prec)
        if hi < a:
            return True
        if lo >= a:
            return False
    return False


def hoeffding_halfwidth(n: int, width: float, alpha: float) -> float:
    """Hoeffding (1963) one-sided half-width ``width * sqrt(log(1/alpha)/(2n))`` for variables in an interval of that width."""
    return width * math.sqrt(math.log(1.0 / alpha) / (2.0 * n))


def _bernstein_halfwidth(n: int, var: float, width: float, alpha: float) -> float:
    # Maurer & Pontil (2009), Theorem 4, for variables in [a, a + width]: with probability
    # >= 1 - alpha, |E - mean| one-sided <= sqrt(2 V_n log(2/alpha)/n) + 7 width log(2/alpha)/(3(n-1)),
    # V_n the unbiased sample variance.
    L = math.log(2.0 / alpha)
    return math.sqrt(2.0 * max(var, 0.0) * L / n) + 7.0 * width * L / (3.0 * (n - 1))


def mean_lcb(mean: float, var: float, n: int, lo: float, hi: float, alpha: float) -> float:
    """Lower confidence bound (level ``alpha``) on E[Z] for i.i.d. Z in [lo, hi]: max of Hoeffding and empirical Bernstein at alpha/2 each.

    A float slack of ``1e-12 * max(|lo|, |hi|)`` covers the rounding of the sample mean and variance.
    """
    if n < 2:
        return lo
    w = hi - lo
    slack = 1e-12 * max(abs(lo), abs(hi), 1.0)
    h = hoeffding_halfwidth(n, w, alpha / 2)
    b = _bernstein_halfwidth(n, var, w, alpha / 2)
    return max(lo, mean - min(h, b) - slack)


def mean_ucb(mean: float, var: float, n: int, lo: float, hi: float, alpha: float) -> float:
    """Upper confidence bound (level ``alpha``) on E[Z] for i.i.d. Z in [lo, hi] (see :func:`mean_lcb`)."""
    if n < 2:
        return hi
    w = hi - lo
    slack = 1e-12 * max(abs(lo), abs(hi), 1.0)
    h = hoeffding_halfwidth(n, w, alpha / 2)
    b = _bernstein_halfwidth(n, var, w, alpha / 2)
    return min(hi, mean + min(h, b) + slack)
