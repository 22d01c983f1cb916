"""Optimal composition of (eps, delta)-DP mechanisms, and the basic and advanced composition it is compared with.

* the exact optimal composition of k (eps0, delta0)-DP mechanisms (Kairouz, Oh, Viswanath 2015,
  Theorem 3.3), its inverse eps(delta), and their closed-form bound (Theorem 3.4, heterogeneous
  Theorem 3.5);
* the exact optimal heterogeneous composition by enumeration of the privacy-loss lattice (the
  characterization of Murtagh and Vadhan 2016/2018);
* basic composition and the advanced composition of Dwork, Rothblum and Vadhan (2010), re-exported
  from :mod:`reference.bounds.rogers2016`.

Rigour.  Closed forms go through :func:`reference.precision.certified`.  The long sums (up to ~10^5
binomial terms) use *positive-interval* arithmetic on raw mpmath floats: every positive quantity is
carried as a pair ``(lo, hi)`` whose ends are rounded down / up at each operation (``mpf_mul(.., 'f')`` /
``mpf_mul(.., 'c')``), exactly as mpmath's interval context does, but without its per-operation
overhead.  Transcendental constants (exp, log, loggamma) are enclosed with mpmath's directed-rounding
kernels, the same trust base as :mod:`mpmath.iv`.  Neglected binomial tails are bounded by explicit
geometric series and added to the upper end.
"""
from __future__ import annotations

import math
from fractions import Fraction
from typing import Sequence

import mpmath
from mpmath import libmp

from ..catalog import Param, register
from ..precision import (
    DEFAULT_DPS, INF, MAX_PREC_BITS, Domain, certified, check, check_dps, check_seq, mpf_to_fraction, rational,
)
from ._classical_common import (
    D0DOM, DTILDE, KDOM, KOV_NOTE, NN, P, U, _C, _F, _ONE, _ZERO, _bits, _delta, _delta0, _eps0, _iv, _iv_pair,
    _k, _log2_ceil, _mk, _padd, _pdiv, _pexp, _pint, _plog, _plogcomb, _pmul, _pone_minus, _pq, _pscale, _psub,
    _rel_ok, _round_up,
)

__all__ = ["basic_composition_eps", "basic_composition_delta", "drv_advanced_composition_eps", "kov_delta",
           "kov_delta_i", "kov_eps", "kov_closed_form_eps", "kov_closed_form_delta",
           "kov_hetero_closed_form_eps", "loss_lattice", "hetero_optimal_delta", "hetero_optimal_eps"]

# ===========================================================================
# Basic and advanced composition (background results)
# ===========================================================================

# Basic composition and the Dwork-Rothblum-Vadhan advanced composition are Theorems 2.9 and
# 2.10 of rogers2016 (same formulas); they are re-exported here for the comparisons below.
from .rogers2016 import advanced_composition_eps as drv_advanced_composition_eps  # noqa: E402
from .rogers2016 import basic_composition_delta, basic_composition_eps  # noqa: E402


# ===========================================================================
# KOV15 Theorem 3.3: exact optimal homogeneous composition
# ===========================================================================

def _one_minus_pow(d0: Fraction, k: int, prec: int):
    """Enclosure of D0 = 1 - (1 - d0)^k for d0 in [0, 1).

    For k d0 <= 1/2 the binomial series sum_{j>=1} (-1)^{j+1} C(k,j) d0^j is alternating with
    decreasing terms (ratio (k-j) d0/(j+1) <= 1/4), so it is truncated with the next term as
    error; otherwise 1 - exp(k log(1-d0)) is well conditioned (D0 > 1 - e^{-1/2}).
    """
    if d0 == 0:
        return (_ZERO, _ZERO)
    w = prec + 16
    if k * d0 <= Fraction(1, 2):
        dp = _pq(d0, w)
        term = _pscale(dp, k, w)  # j = 1
        S = term
        j = 1
        while True:
            j += 1
            if j > k:
                return S
            term = _pmul(_pdiv(_pscale(term, k - j + 1, w), _pint(j), w), dp, w)
            if libmp.mpf_le(term[1], libmp.mpf_shift(S[0], -(prec + 4))):
                return (libmp.mpf_sub(S[0], term[1], prec, _F), libmp.mpf_add(S[1], term[1], prec, _C))
            S = _psub(S, term, w) if j % 2 == 0 else _padd(S, term, w)
    lg = _plog(_pq(1 - d0, w), w)  # negative
    return _pone_minus(_pexp(_pscale(lg, k, w), w), prec)


class _KovSetup:
    """Shared enclosures for the k-fold (eps0, 0)-randomized-response sums at ``prec`` bits.

    a_l = C(k,l) e^{(k-l) eps0}/(1+e^{eps0})^k  (law of the number l of flips under P),
    b_l = C(k,l) e^{l eps0}/(1+e^{eps0})^k      (the same under Q), b_l = a_l e^{-(k-2l) eps0}.
    """

    def __init__(self, eps0: Fraction, k: int, prec: int):
        self.eps0, self.k, self.prec = eps0, k, prec
        w = prec
        e = _pq(eps0, w)
        self.E = _pexp(e, w)  # e^{eps0}
        # 1/E, E^-2 and E^2 from E by directed division and products (one exp instead of four:
        # an exp costs ~0.1 s at 10000 digits without gmpy)
        self.Einv = _pdiv((_ONE, _ONE), self.E, w)
        self.G = _pmul(self.Einv, self.Einv, w)  # e^{-2 eps0}
        self.Ginv = _pmul(self.E, self.E, w)
        self.logZ = _plog(_padd(self.E, (_ONE, _ONE), w), w)  # log(1 + e^{eps0})
        fe = float(eps0) if eps0 < 700 else 700.0
        self.mode = min(k, max(0, int((k + 1) / (1 + math.exp(fe)))))

    def log_a(self, l: int):
        w = self.prec
        t = _plogcomb(self.k, l, w)
        if self.k - l:
            t = _padd(t, _pscale(_pq(self.eps0, w), self.k - l, w), w)
        return _psub(t, _pscale(self.logZ, self.k, w), w)

    def log_b(self, l: int):
        w = self.prec
        t = _plogcomb(self.k, l, w)
        if l:
            t = _padd(t, _pscale(_pq(self.eps0, w), l, w), w)
        return _psub(t, _pscale(self.logZ, self.k, w), w)

    def ratio_down(self, l: int, up_factor):
        """t_{l-1}/t_l = l/(k-l+1) * up_factor (E for a, Einv for b)."""
        return _pmul(_pdiv(_pint(l), _pint(self.k - l + 1), self.prec), up_factor, self.prec)

    def ratio_up(self, l: int, factor):
        """t_{l+1}/t_l = (k-l)/(l+1) * factor (Einv for a, E for b)."""
        return _pmul(_pdiv(_pint(self.k - l), _pint(l + 1), self.prec), factor, self.prec)


def _geometric_tail(t, r, prec):
    """Upper bound t r/(1-r) on sum_{n>=1} t r^n (raw upper end); None when r >= 1."""
    if not libmp.mpf_lt(r[1], _ONE):
        return None
    den = libmp.mpf_sub(_ONE, r[1], prec, _F)
    return libmp.mpf_div(libmp.mpf_mul(t[1], r[1], prec, _C), den, prec, _C)


def _window_sum(S: _KovSetup, L: int, start: int, t0, down_factor, up_factor, stop_bits: int,
                y0=None, go_up: bool = True):
    """Enclosure of sum_{l <= L} t_l (times f_l = 1 - y_l when y0 is given), starting at index ``start``.

    Terms are generated by the exact ratios t_{l-1}/t_l = l/(k-l+1) * down_factor and
    t_{l+1}/t_l = (k-l)/(l+1) * up_factor; y_l = e^{eps - (k-2l) eps0} by y_{l-1} = y_l G.
    The walk in each direction stops when the ratio is < 1 and the geometric tail
    t_l r/(1-r) (valid because the ratios keep decreasing away from ``start``, and f <= 1)
    is below 2^-stop_bits of the sum so far; that tail bound is added to the upper end.
    """
    w = S.prec
    f0 = _pone_minus(y0, w) if y0 is not None else None
    total = _pmul(t0, f0, w) if f0 is not None else t0
    # downward
    t, y, l, n = t0, y0, start, 0
    while l > 0:
        r = S.ratio_down(l, down_factor)
        n += 1
        if n % 8 == 0 or l <= 1:
            tail = _geometric_tail(t, r, w)
            if tail is not None and libmp.mpf_le(tail, libmp.mpf_shift(total[0], -stop_bits)) and libmp.mpf_gt(total[0], _ZERO):
                total = (total[0], libmp.mpf_add(total[1], tail, w, _C))
                break
        t = _pmul(t, r, w)
        l -= 1
        if y is not None:
            y = _pmul(y, S.G, w)
            total = _padd(total, _pmul(t, _pone_minus(y, w), w), w)
        else:
            total = _padd(total, t, w)
    if not go_up:
        return total
    # upward
    t, y, l, n = t0, y0, start, 0
    while l < L:
        r = S.ratio_up(l, up_factor)
        n += 1
        if n % 8 == 0:
            tail = _geometric_tail(t, r, w)
            if tail is not None and libmp.mpf_le(tail, libmp.mpf_shift(total[0], -stop_bits)) and libmp.mpf_gt(total[0], _ZERO):
                total = (total[0], libmp.mpf_add(total[1], tail, w, _C))
                break
        t = _pmul(t, r, w)
        l += 1
        if y is not None:
            y = _pmul(y, S.Ginv, w)
            total = _padd(total, _pmul(t, _pone_minus(y, w), w), w)
        else:
            total = _padd(total, t, w)
    return total


def _kov_L(eps0: Fraction, k: int, eps: Fraction) -> int:
    """Largest l with (k - 2l) eps0 > eps (the last positive term); -1 if none."""
    if eps >= k * eps0:
        return -1
    lstar = (k * eps0 - eps) / (2 * eps0)
    return min(k, math.ceil(lstar) - 1)


def _kov_rr_delta_pair(S: _KovSetup, eps: Fraction, stop_bits: int):
    """Enclosure of delta_rr(eps) = sum_{l} max(0, a_l - e^eps b_l) = sum_{l <= L} a_l (1 - e^{eps - (k-2l) eps0})."""
    eps0, k, w = S.eps0, S.k, S.prec
    L = _kov_L(eps0, k, eps)
    if L < 0:
        return (_ZERO, _ZERO)
    s = min(L, S.mode)
    a_s = _pexp(S.log_a(s), w)
    y_s = _pexp(_pq(eps - (k - 2 * s) * eps0, w), w)
    return _window_sum(S, L, s, a_s, S.E, S.Einv, stop_bits, y0=y_s)


def _kov_guard(eps0: Fraction, k: int, eps: Fraction | None) -> int:
    g = 40 + k.bit_length() + int(math.log2(float(k) * (float(min(eps0, Fraction(10 ** 6))) + 1) + 2))
    if eps0 < Fraction(1, 2):
        g += _log2_ceil(1 / (2 * eps0))
    if eps is not None:
        L = _kov_L(eps0, k, eps)
        if L >= 0:
            x = (k - 2 * L) * eps0 - eps
            if x < 1:
                g += _log2_ceil(1 / x)
    return g


def _kov_total_pair(eps0: Fraction, delta0: Fraction, k: int, eps: Fraction, bits: int):
    """Enclosure of 1 - (1-delta0)^k (1 - delta_rr(eps)) tight to ``bits`` relative bits when possible."""
    prec = bits + _kov_guard(eps0, k, eps)
    while True:
        S = _KovSetup(eps0, k, prec)
        drr = _kov_rr_delta_pair(S, eps, bits + 12)
        D0 = _one_minus_pow(delta0, k, prec)
        tot = _padd(drr, _pmul(D0, _pone_minus(drr, prec), prec), prec)  # delta_rr + D0 (1 - delta_rr)
        if _rel_ok(tot, bits + 2) or prec >= MAX_PREC_BITS or tot[1] == _ZERO:
            return tot
        prec = min(2 * prec, MAX_PREC_BITS)


_kov_params = (_eps0, _delta0, _k)


@register("kairouz2015_thm3_3_delta", paper="kairouz2015", result="Theorem 3.3 (optimal composition, hockey-stick form)",
          direction="upper",
          summary="Exact optimal delta(eps) of k-fold adaptive composition of (eps0, delta0)-DP: 1 - (1-delta0)^k (1 - delta_rr(eps))",
          params=_kov_params + (Param("eps", NN, default="0.5", doc="target epsilon >= 0"),),
          provenance="published statement",
          note=KOV_NOTE + " Theorem 3.3 gives the breakpoints eps = (k-2i) eps0; between them the value is the hockey-stick "
               "divergence of the dominating k-fold (eps0, delta0)-randomized response (derived; equal to the printed "
               "delta_i at the breakpoints, checked in tests).")
def kov_delta(eps0, delta0, k, eps, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """kairouz2015 Theorem 3.3: optimal delta(eps) of k-fold composition of (eps0, delta0)-DP mechanisms, rounded up.

    Value: ``1 - (1-delta0)^k (1 - delta_rr(eps))`` with
    ``delta_rr(eps) = (1+e^eps0)^-k sum_l C(k,l) max(0, e^{(k-l) eps0} - e^eps e^{l eps0})``, the
    hockey-stick divergence of k-fold (eps0, 0)-randomized response, which dominates every
    (eps0, delta0)-DP mechanism (KOV15); at eps = (k-2i) eps0 it is the printed
    1 - (1-delta0)^k (1 - delta_i).

    Preconditions: eps0 > 0, delta0 in [0, 1), 1 <= k <= 10^7, eps >= 0 (exact).
    Rounding: up.  Guarantee (certified): the positive terms a_l (1 - e^{eps-(k-2l)eps0}) with
    a_l = C(k,l) e^{(k-l)eps0}/(1+e^{eps0})^k are summed in positive-interval arithmetic
    (lower ends rounded down, upper ends up), starting at the mode (or at the last positive
    term) and walking outwards with the exact ratios l/(k-l+1) e^{eps0}; each walk stops once
    its geometric tail bound t r/(1-r) is below 2^-(bits+12) of the sum, and that bound is
    added.  log C(k,l) is enclosed by mpmath's directed loggamma (exact integer for k <= 4000).
    The precision is doubled until the enclosure is tight.  Deviation from the printed sum:
    log-space starting term and the factor form (1 - e^{eps - (k-2l)eps0}) (no cancellation).
    Cost: O(sqrt(k) * dps) terms; ~0.1 s at k = 10^5 and 50 digits.
    """
    dps = check_dps(dps)
    e0 = check("eps0", eps0, P)
    d0 = check("delta0", delta0, D0DOM)
    kk = int(check("k", k, KDOM))
    e = check("eps", eps, NN)
    bits = _bits(dps)
    tot = _kov_total_pair(e0, d0, kk, e, bits)
    return _round_up(tot[1], bits)


@register("kairouz2015_thm3_3_delta_i", paper="kairouz2015", result="Theorem 3.3", direction="upper",
          summary="Printed Theorem 3.3: ((k-2i) eps0, 1 - (1-delta0)^k (1-delta_i))-DP, delta_i = sum_{l<i} C(k,l)(e^{(k-l)eps0} - e^{(k-2i+l)eps0})/(1+e^eps0)^k",
          params=_kov_params + (Param("i", Domain.integers_from(0), kind="integer", default="2", doc="breakpoint index 0 <= i <= floor(k/2)"),),
          provenance="published statement",
          note=KOV_NOTE + " Statement as in arXiv 1311.0776 Theorem 3.3 (transcription cross-checked with Google's "
               "differential-privacy library, which implements it citing that theorem).")
def kov_delta_i(eps0, delta0, k, i, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """kairouz2015 Theorem 3.3 as printed: the delta ``1 - (1-delta0)^k (1 - delta_i)`` at eps = (k-2i) eps0, rounded up.

    ``delta_i = sum_{l=0}^{i-1} C(k,l) (e^{(k-l)eps0} - e^{(k-2i+l)eps0})/(1+e^{eps0})^k``.
    Preconditions: eps0 > 0, delta0 in [0, 1), 1 <= k <= 10^7, 0 <= i <= floor(k/2).
    Evaluated by :func:`kov_delta` at eps = (k-2i) eps0 (the l-th printed term is the l-th
    positive hockey-stick term there); test_classical checks it against the printed sum.
    """
    e0 = check("eps0", eps0, P)
    kk = int(check("k", k, KDOM))
    ii = check("i", i, Domain(lo=Fraction(0), hi=Fraction(kk // 2), lo_closed=True, hi_closed=True, integer=True))
    return kov_delta(e0, delta0, kk, (kk - 2 * ii) * e0, dps=dps)


def _kov_AB(S: _KovSetup, L: int, stop_bits: int):
    """Enclosures of A_L = sum_{l<=L} a_l and B_L = sum_{l<=L} b_l (segment L: delta_rr = A_L - e^eps B_L)."""
    w = S.prec
    s = min(L, S.mode)
    A = _window_sum(S, L, s, _pexp(S.log_a(s), w), S.E, S.Einv, stop_bits)
    # b_l increases up to its mode k e^eps0/(1+e^eps0) >= k/2 > L: walk down from L only.
    B = _window_sum(S, L, L, _pexp(S.log_b(L), w), S.Einv, S.E, stop_bits, go_up=False)
    return A, B


@register("kairouz2015_thm3_3_eps", paper="kairouz2015", result="Theorem 3.3 (inverse: eps for a target delta)",
          direction="upper",
          summary="Smallest eps with optimal k-fold composition delta(eps) <= delta (KOV15 Thm 3.3), rounded up; inf if impossible",
          params=_kov_params + (_delta,), provenance="derived",
          note=KOV_NOTE + " Inverse of kairouz2015_thm3_3_delta: on the segment (k-2L-2)eps0 <= eps <= (k-2L)eps0 "
               "delta_rr = A_L - e^eps B_L, solved in interval arithmetic and certified by segment containment "
               "(or a forward check).")
def kov_eps(eps0, delta0, k, delta, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """kairouz2015 Theorem 3.3, inverted: the smallest eps >= 0 with optimal delta(eps) <= delta, rounded up.

    Contract: k adaptively composed (eps0, delta0)-DP mechanisms are (returned eps, delta)-DP,
    and no smaller eps (beyond the rounding) holds for all of them.  Returns ``inf`` when
    delta < 1 - (1-delta0)^k (no epsilon suffices), k eps0 when delta equals it.
    Preconditions: eps0 > 0, delta0 in [0, 1), 1 <= k <= 10^7, delta in (0, 1).
    Method: the segment L (eps between the breakpoints (k-2L-2) eps0 and (k-2L) eps0) is
    located by a bisection on certified low-precision values at the breakpoints; on it
    delta_rr(eps) = A_L - e^eps B_L exactly, so eps = log((A_L - t)/B_L) with
    t = (delta - D0)/(1 - D0), D0 = 1 - (1-delta0)^k, is enclosed by interval arithmetic.
    Certificate: if the enclosure lies inside the segment its upper end is >= the exact
    answer (delta_rr is strictly decreasing); otherwise the neighbouring segment is tried, and
    as a last resort the upper end is checked forward with :func:`kov_delta`'s enclosure.
    Cost: ~20 low-precision and 2 full-precision sums; < 1 s at k = 10^5, 50 digits.
    """
    dps = check_dps(dps)
    e0 = check("eps0", eps0, P)
    d0 = check("delta0", delta0, D0DOM)
    kk = int(check("k", k, KDOM))
    d = check("delta", delta, U)
    bits = _bits(dps)
    # t = (delta - D0)/(1 - D0): the budget left for delta_rr; decide its sign.
    prec = bits + 64
    while True:
        D0 = _one_minus_pow(d0, kk, prec)
        c = _iv(prec)
        t_iv = (c.mpf(d.numerator) / d.denominator - _iv_pair(c, D0)) / (1 - _iv_pair(c, D0))
        t = (t_iv._mpi_[0], t_iv._mpi_[1])
        if libmp.mpf_gt(t[0], _ZERO) or libmp.mpf_lt(t[1], _ZERO):
            break
        if prec >= MAX_PREC_BITS:
            # exact tie test: delta == 1 - (1-delta0)^k
            t = (_ZERO, _ZERO) if (1 - d0) ** kk == 1 - d else (t[0], t[1])
            break
        prec *= 2
    if libmp.mpf_lt(t[1], _ZERO):
        return INF
    if t[1] == _ZERO:
        return certified(lambda cc, v: v, (kk * e0,), "upper", dps)
    # eps = 0 already enough?
    tot0 = _kov_total_pair(e0, d0, kk, Fraction(0), bits)
    if d >= mpf_to_fraction(_mk(tot0[1])):
        return mpmath.mpf(0)
    cap = certified(lambda cc, v: v, (kk * e0,), "upper", dps)
    # 1. locate the segment: phi(j) = delta_rr((k-2j) eps0) increases with j; phi(0) = 0 < t <= delta_rr(0).
    J = (kk + 1) // 2  # (k - 2J) eps0 <= 0
    lo_j, hi_j = 0, J
    Slo = _KovSetup(e0, kk, 80 + _kov_guard(e0, kk, None))
    while hi_j - lo_j > 1:
        mid = (lo_j + hi_j) // 2
        ph = _kov_rr_delta_pair(Slo, (kk - 2 * mid) * e0, 40)
        if libmp.mpf_lt(ph[1], t[0]):
            lo_j = mid
        elif libmp.mpf_gt(ph[0], t[1]):
            hi_j = mid
        else:
            lo_j = hi_j = mid
            break
    L = lo_j
    # 2. solve on segment L, certify by containment; move to a neighbour if needed.
    prec = bits + _kov_guard(e0, kk, None) + 32
    tried = 0
    while True:
        tried += 1
        S = _KovSetup(e0, kk, prec)
        A, B = _kov_AB(S, L, bits + 16)
        c = _iv(prec)
        D0 = _one_minus_pow(d0, kk, prec)
        t_iv = (c.mpf(d.numerator) / d.denominator - _iv_pair(c, D0)) / (1 - _iv_pair(c, D0))
        num = _iv_pair(c, A) - t_iv
        lo_b = _iv_frac(c, (kk - 2 * L - 2) * e0)
        hi_b = _iv_frac(c, (kk - 2 * L) * e0)
        if num.b <= 0:
            # A_L <= t: even eps -> -inf gives g_L < t, so eps* < (k-2L-2) eps0: more terms.
            if L + 1 <= J:
                L += 1
                continue
            raise ArithmeticError("kov_eps: segment search failed")  # pragma: no cover
        if num.a <= 0:
            if prec < MAX_PREC_BITS:
                prec *= 2
                continue
            raise ArithmeticError("kov_eps: cancellation not resolved")  # pragma: no cover
        ev = c.log(num / _iv_pair(c, B))
        e_lo, e_hi = ev._mpi_
        if libmp.mpf_lt(e_hi, lo_b._mpi_[0]):  # solution of g_L below the segment: eps* on a segment with more terms
            L += 1
            if tried > 64:
                break
            continue
        if libmp.mpf_gt(e_lo, hi_b._mpi_[1]):  # above: fewer terms
            L -= 1
            if tried > 64 or L < 0:
                break
            continue
        inside = libmp.mpf_ge(e_lo, lo_b._mpi_[1]) and libmp.mpf_le(e_hi, hi_b._mpi_[0])
        tight = _rel_ok((e_lo, e_hi), bits + 2) if libmp.mpf_gt(e_lo, _ZERO) else libmp.mpf_le(
            libmp.mpf_sub(e_hi, e_lo, 64, _C), libmp.mpf_shift(_ONE, -bits))
        if inside and tight:
            if libmp.mpf_le(e_hi, _ZERO):
                return mpmath.mpf(0)
            return min(_round_up(e_hi, bits), cap)  # cap = k eps0 is always valid (delta_rr(k eps0) = 0)
        if prec < MAX_PREC_BITS and not tight:
            prec = min(2 * prec, MAX_PREC_BITS)
            continue
        break
    # 3. fallback: forward check of a candidate (touching a breakpoint, or precision exhausted).
    cand = _round_up(e_hi, bits) if libmp.mpf_gt(e_hi, _ZERO) else mpmath.mpf(0)
    for n in range(200):
        tot = _kov_total_pair(e0, d0, kk, mpf_to_fraction(cand), bits + 8)
        if d >= mpf_to_fraction(_mk(tot[1])):
            return min(cand, cap)
        cand = _bump_up(cand, bits, n)
    raise ArithmeticError("kov_eps: could not certify")  # pragma: no cover


def _bump_up(x: mpmath.mpf, bits: int, n: int) -> mpmath.mpf:
    """x + 2^n ulps (relative 2^(n+4-bits)), rounded up; used to move a candidate epsilon upward."""
    step = libmp.mpf_shift(libmp.mpf_abs(x._mpf_) if x else _ONE, n + 4 - bits)
    return _round_up(libmp.mpf_add(x._mpf_, step, bits + 8, _C), bits)


def _iv_frac(c, q: Fraction):
    """Interval enclosure of a rational in the interval context ``c``."""
    return c.mpf(q.numerator) / c.mpf(q.denominator)


# ===========================================================================
# KOV15 Theorems 3.4 / 3.5: closed-form bounds
# ===========================================================================

@register("kairouz2015_thm3_4_eps", paper="kairouz2015", result="Theorem 3.4", direction="upper",
          summary="KOV closed form: min{k eps0, k eps0 tanh(eps0/2) + eps0 sqrt(2k log(e + sqrt(k) eps0/dt)), k eps0 tanh(eps0/2) + eps0 sqrt(2k log(1/dt))}",
          params=(_eps0, _k, Param("delta_tilde", DTILDE, default="1e-6", doc="slack delta~ in (0, 1]")),
          provenance="published statement",
          note=KOV_NOTE + " Theorem 3.4 as transcribed by OpenDP/SmartNoise (which cite it); (e^eps-1)/(e^eps+1) = tanh(eps/2). "
               "The delta is kairouz2015_thm3_4_delta.")
def kov_closed_form_eps(eps0, k, delta_tilde, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """kairouz2015 Theorem 3.4: the epsilon of the closed-form composition bound, rounded up.

    ``min{k eps0, k eps0 (e^eps0-1)/(e^eps0+1) + eps0 sqrt(2k log(e + sqrt(k eps0^2)/dt)),
    k eps0 (e^eps0-1)/(e^eps0+1) + eps0 sqrt(2k log(1/dt))}``; the composition is then
    (value, 1 - (1-delta0)^k (1-dt))-DP.  Preconditions: eps0 > 0, 1 <= k <= 10^7, dt in (0, 1].
    Rounding: each branch is certified upward, the min of upper bounds is returned.
    """
    e = check("eps0", eps0, P)
    kk = int(check("k", k, KDOM))
    dt = check("delta_tilde", delta_tilde, DTILDE)
    kq = Fraction(kk)
    b1 = rational(kq * e, "upper", dps)  # exact rational k eps0
    b2 = certified(lambda c, e, kq, dt: kq * e * (1 - 2 / (c.exp(e) + 1))
                   + e * c.sqrt(2 * kq * c.log(c.e + c.sqrt(kq) * e / dt)), (e, kq, dt), "upper", dps)
    b3 = certified(lambda c, e, kq, dt: kq * e * (1 - 2 / (c.exp(e) + 1)) + e * c.sqrt(-2 * kq * c.log(dt)),
                   (e, kq, dt), "upper", dps)
    return min(b1, b2, b3)


@register("kairouz2015_thm3_4_delta", paper="kairouz2015", result="Theorem 3.4", direction="upper",
          summary="KOV closed form: the delta 1 - (1-delta0)^k (1-delta~)",
          params=(_delta0, _k, Param("delta_tilde", DTILDE, default="1e-6", doc="slack delta~ in (0, 1]")),
          provenance="published statement", note=KOV_NOTE)
def kov_closed_form_delta(delta0, k, delta_tilde, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """kairouz2015 Theorem 3.4: the delta ``1 - (1-delta0)^k (1 - dt)`` = dt + D0 (1 - dt), rounded up.

    Preconditions: delta0 in [0, 1), 1 <= k <= 10^7, dt in (0, 1].  Certified (series for small k delta0).
    """
    dps = check_dps(dps)
    d0 = check("delta0", delta0, D0DOM)
    kk = int(check("k", k, KDOM))
    dt = check("delta_tilde", delta_tilde, DTILDE)
    bits = _bits(dps)
    prec = bits + 40
    while True:
        D0 = _one_minus_pow(d0, kk, prec)
        dtp = _pq(dt, prec)
        tot = _padd(dtp, _pmul(D0, _pone_minus(dtp, prec), prec), prec)
        if _rel_ok(tot, bits + 2) or prec >= MAX_PREC_BITS:
            return _round_up(tot[1], bits)
        prec *= 2


@register("kairouz2015_thm3_5_eps", paper="kairouz2015", result="Theorem 3.5 (heterogeneous closed form)", direction="upper",
          summary="KOV heterogeneous closed form: min{sum eps, sum eps tanh(eps/2) + sqrt(2 V log(e + sqrt(V)/dt)), sum eps tanh(eps/2) + sqrt(2 V log(1/dt))}, V = sum eps^2",
          params=(Param("eps", P, kind="sequence", default="0.1,0.2,0.05", doc="per-step epsilons > 0"),
                  Param("delta_tilde", DTILDE, default="1e-6", doc="slack delta~ in (0, 1]")),
          provenance="published statement",
          note=KOV_NOTE + " Heterogeneous closed form as transcribed by OpenDP (which labels it Theorem 3.5; numbering "
               "not re-checked against the PDF). Checked in tests to dominate the exact heterogeneous composition.")
def kov_hetero_closed_form_eps(eps: Sequence, delta_tilde, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """kairouz2015 Theorem 3.5: heterogeneous closed-form composition epsilon, rounded up.

    ``min{sum eps_i, sum eps_i tanh(eps_i/2) + sqrt(2 V log(e + sqrt(V)/dt)), sum eps_i tanh(eps_i/2)
    + sqrt(2 V log(1/dt))}`` with V = sum eps_i^2; the delta is 1 - prod(1-delta_i)(1-dt).
    Preconditions: non-empty sequence of eps_i > 0; dt in (0, 1].  Rounding: up.
    """
    es = check_seq("eps", eps, P)
    dt = check("delta_tilde", delta_tilde, DTILDE)
    V = sum(x * x for x in es)

    def first(c, *es):
        return sum((x * (1 - 2 / (c.exp(x) + 1)) for x in es), c.mpf(0))

    b1 = rational(sum(es), "upper", dps)
    b2 = certified(lambda c, V, dt, *es: first(c, *es) + c.sqrt(2 * V * c.log(c.e + c.sqrt(V) / dt)), (V, dt) + es,
                   "upper", dps)
    b3 = certified(lambda c, V, dt, *es: first(c, *es) + c.sqrt(-2 * V * c.log(dt)), (V, dt) + es, "upper", dps)
    return min(b1, b2, b3)


# ===========================================================================
# Heterogeneous optimal composition: exact enumeration of the privacy-loss lattice
# ===========================================================================

MAX_LATTICE = 1 << 22


def loss_lattice(eps: Sequence) -> tuple[int, dict[int, int]]:
    """Murtagh-Vadhan (as kairouz2015 extension): the privacy-loss lattice of prod_i (eps_i, 0)-randomized response.

    Returns ``(D, counts)``: with all eps_i written over the common denominator D, the loss of
    the sign pattern s in {+1,-1}^k is sum_i s_i eps_i = m/D, and ``counts[m]`` is the exact
    number of patterns with that loss (equal losses merged).  Every pattern with loss m/D has
    the same probability e^{(E + m/D)/2}/prod_i (1 + e^{eps_i}) under P (E = sum eps_i), so the
    counts determine the whole privacy-loss distribution.  Raises ValueError beyond 2^22 losses.
    """
    es = check_seq("eps", eps, NN)
    D = 1
    for x in es:
        D = D * x.denominator // math.gcd(D, x.denominator)
    counts: dict[int, int] = {0: 1}
    for x in es:
        n = int(x * D)
        new: dict[int, int] = {}
        for m, cnt in counts.items():
            new[m + n] = new.get(m + n, 0) + cnt
            new[m - n] = new.get(m - n, 0) + cnt
        counts = new
        if len(counts) > MAX_LATTICE:
            raise ValueError(f"eps has too many distinct privacy losses (> {MAX_LATTICE}); found a sequence of length {len(es)}")
    return D, counts


def _hetero_setup(es, ds):
    if len(es) != len(ds):
        raise ValueError(f"delta must have the same length as eps ({len(es)}), found length {len(ds)}")
    D, counts = loss_lattice(es)
    E = sum(es)
    keep = Fraction(1)
    for x in ds:
        keep *= 1 - x
    return D, counts, E, 1 - keep


def _hetero_logZ(es, prec):
    logZ = (_ZERO, _ZERO)
    for x in es:
        logZ = _padd(logZ, _plog(_padd(_pexp(_pq(x, prec), prec), (_ONE, _ONE), prec), prec), prec)
    return logZ


def _hetero_weights(es, D, counts, E, prec):
    """Yield (m, weight enclosure) in descending loss order; weight = N_m e^{(E + m/D)/2}/prod_i (1+e^eps_i).

    The exponent (E + m/D)/2 = (E_num D + m E_den)/(2 E_den D) is formed in integers (no Fraction per loss).
    """
    logZ = _hetero_logZ(es, prec)
    en, ed = E.numerator, E.denominator
    den = 2 * ed * D
    for m in sorted(counts, reverse=True):
        num = en * D + m * ed
        arg = (libmp.mpf_sub(libmp.from_rational(num, den, prec, _F), logZ[1], prec, _F),
               libmp.mpf_sub(libmp.from_rational(num, den, prec, _C), logZ[0], prec, _C))
        yield m, _pscale(_pexp(arg, prec), counts[m], prec)


def _hetero_rr_delta_pair(es, D, counts, E, eps: Fraction, prec):
    """Enclosure of H_eps = sum_{loss > eps} w_loss (1 - e^{eps - loss}) (every term a positive enclosure)."""
    total = (_ZERO, _ZERO)
    pn, pd = eps.numerator, eps.denominator
    den = pd * D
    for m, wt in _hetero_weights(es, D, counts, E, prec):
        num = pn * D - m * pd  # (eps - m/D) * pd * D
        if num >= 0:
            break
        y = (libmp.mpf_exp(libmp.from_rational(num, den, prec, _F), prec, _F),
             libmp.mpf_exp(libmp.from_rational(num, den, prec, _C), prec, _C))
        total = _padd(total, _pmul(wt, _pone_minus(y, prec), prec), prec)
    return total


_het_eps = Param("eps", NN, kind="sequence", default="0.1,0.2,0.3", doc="per-step epsilons >= 0 (up to ~20 distinct)")
_het_delta = Param("delta", D0DOM, kind="sequence", default="0,0,0", doc="per-step deltas in [0, 1), same length as eps")
_HET_NOTE = ("Optimal heterogeneous composition: the hockey-stick divergence of prod_i (eps_i, delta_i)-randomized response, "
             "1 - prod(1-delta_i)(1 - sum_S max(0, e^{sum_S eps} - e^eps e^{sum_notS eps})/prod(1+e^eps_i)) "
             "(Murtagh-Vadhan, TCC 2016 / Theory of Computing 14(8) 2018; extends KOV15 Thm 3.3). "
             "Exact lattice counts, certified sum.")


@register("murtagh2016_hetero_optimal_delta", paper="murtagh2016", result="optimal heterogeneous composition (extends KOV Theorem 3.3)",
          direction="upper", summary="Exact optimal delta(eps) of the composition of (eps_i, delta_i)-DP mechanisms (lattice enumeration)",
          params=(_het_eps, _het_delta, Param("eps_target", NN, default="0.5", doc="target epsilon >= 0")),
          provenance="published statement", note=_HET_NOTE)
def hetero_optimal_delta(eps: Sequence, delta: Sequence, eps_target, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """murtagh2016 (optimal heterogeneous composition, extending kairouz2015 Thm 3.3): optimal delta at eps_target of (eps_i, delta_i)-DP composition.

    Value: ``1 - prod(1-delta_i) (1 - H)``, ``H = sum_{loss > eps} P(loss) (1 - e^{eps - loss})`` over
    the exact loss lattice of :func:`loss_lattice` (2^k sign patterns merged by loss value).
    Preconditions: eps_i >= 0, delta_i in [0, 1) (same length), eps_target >= 0; at most
    2^22 distinct losses (k ~ 20 distinct eps_i).  Rounding: up; every term is a positive
    enclosure, so the sum is certified; precision doubles until tight.
    """
    dps = check_dps(dps)
    es = check_seq("eps", eps, NN)
    ds = check_seq("delta", delta, D0DOM)
    e = check("eps_target", eps_target, NN)
    D, counts, E, D0 = _hetero_setup(es, ds)
    bits = _bits(dps)
    # guard bits for the factor 1 - e^{eps - loss} at the smallest positive gap loss - eps
    gap_num = min((m * e.denominator - e.numerator * D for m in counts if m * e.denominator > e.numerator * D), default=0)
    gap = Fraction(gap_num, e.denominator * D)
    prec = bits + 40 + (_log2_ceil(1 / gap) if 0 < gap < 1 else 0)
    while True:
        H = _hetero_rr_delta_pair(es, D, counts, E, e, prec)
        D0p = _pq(D0, prec)
        tot = _padd(H, _pmul(D0p, _pone_minus(H, prec), prec), prec)
        if _rel_ok(tot, bits + 2) or prec >= MAX_PREC_BITS or tot[1] == _ZERO:
            return _round_up(tot[1], bits)
        prec *= 2


@register("murtagh2016_hetero_optimal_eps", paper="murtagh2016", result="optimal heterogeneous composition, inverse (extends KOV Theorem 3.3)",
          direction="upper", summary="Smallest eps with optimal heterogeneous delta(eps) <= delta (lattice enumeration), rounded up",
          params=(_het_eps, _het_delta, Param("delta_target", U, default="1e-6", doc="target delta in (0, 1)")),
          provenance="derived", note=_HET_NOTE + " Inverted segment by segment between consecutive losses.")
def hetero_optimal_eps(eps: Sequence, delta: Sequence, delta_target, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """murtagh2016 (optimal heterogeneous composition, extending kairouz2015 Thm 3.3), inverted: smallest eps >= 0 with delta(eps) <= delta_target.

    Returns ``inf`` if delta_target < 1 - prod(1-delta_i).  Between consecutive lattice losses
    l_{j+1} < eps <= l_j, H(eps) = A_j - e^eps B_j with A_j = sum_{i<=j} w_i and
    B_j = sum_{i<=j} w_i e^{-l_i}; the segment is found by prefix sums and the solution
    log((A_j - t)/B_j) is certified by containment in the segment (or a forward check).
    Preconditions as :func:`hetero_optimal_delta`, delta_target in (0, 1).  Rounding: up.
    """
    dps = check_dps(dps)
    es = check_seq("eps", eps, NN)
    ds = check_seq("delta", delta, D0DOM)
    dt = check("delta_target", delta_target, U)
    D, counts, E, D0 = _hetero_setup(es, ds)
    if dt < D0:
        return INF
    t_exact = (dt - D0) / (1 - D0)
    bits = _bits(dps)
    losses = sorted(counts, reverse=True)
    if t_exact == 0:
        return rational(Fraction(losses[0], D), "upper", dps) if losses[0] > 0 else mpmath.mpf(0)
    if dt >= mpf_to_fraction(hetero_optimal_delta(es, ds, 0, dps=dps)):
        return mpmath.mpf(0)
    positive = [m for m in losses if m > 0]
    cap = rational(Fraction(losses[0], D), "upper", dps)  # H(max loss) = 0: always valid
    prec = bits + 64
    e_hi = _ZERO
    for _ in range(12):
        c = _iv(prec)
        t = _pq(t_exact, prec)
        A = (_ZERO, _ZERO)
        B = (_ZERO, _ZERO)
        found = None
        for j, (m, wt) in enumerate(_hetero_weights(es, D, counts, E, prec)):
            if m <= 0:
                break
            A = _padd(A, wt, prec)
            eml = (libmp.mpf_exp(libmp.from_rational(-m, D, prec, _F), prec, _F),
                   libmp.mpf_exp(libmp.from_rational(-m, D, prec, _C), prec, _C))
            B = _padd(B, _pmul(wt, eml, prec), prec)  # w e^{-loss}
            m_next = positive[j + 1] if j + 1 < len(positive) else 0
            # H at the lower end of segment j is A - e^{lo_seg} B; the answer lies in the first
            # segment where it reaches t (H(0) > t was established above).
            elo = (libmp.mpf_exp(libmp.from_rational(m_next, D, prec, _F), prec, _F),
                   libmp.mpf_exp(libmp.from_rational(m_next, D, prec, _C), prec, _C))
            H_lo = _psub(A, _pmul(elo, B, prec), prec)
            if not libmp.mpf_lt(H_lo[1], t[0]) or m_next == 0:
                found = (Fraction(m, D), Fraction(m_next, D), A, B)
                break
        if found is None:  # pragma: no cover - excluded by the check at eps = 0
            return mpmath.mpf(0)
        hi_seg, lo_seg, A, B = found
        num = _iv_pair(c, A) - _iv_pair(c, t)
        if num.a <= 0:
            prec *= 2
            continue
        ev = c.log(num / _iv_pair(c, B))
        e_lo, e_hi = ev._mpi_
        inside = libmp.mpf_ge(e_lo, _pq(lo_seg, prec)[1]) and libmp.mpf_le(e_hi, _pq(hi_seg, prec)[0])
        if inside and _rel_ok((e_lo, e_hi), bits + 2):
            return min(_round_up(e_hi, bits), cap)
        prec *= 2
    # fallback: forward certification, bumping the candidate upward
    cand = _round_up(e_hi, bits) if libmp.mpf_gt(e_hi, _ZERO) else mpmath.mpf(0)
    for n in range(200):
        if dt >= mpf_to_fraction(hetero_optimal_delta(es, ds, mpf_to_fraction(cand), dps=dps + 5)):
            return min(cand, cap)
        cand = _bump_up(cand, bits, n)
    raise ArithmeticError("hetero_optimal_eps: could not certify")  # pragma: no cover
