"""What the classical yardsticks share: their parameter domains and declarations, private mpmath contexts, and
positive-interval arithmetic on raw mpmath floats (every positive quantity a pair ``(lo, hi)`` rounded down /
up at each operation, as mpmath's interval context does, without its per-operation overhead).
"""
from __future__ import annotations

import math
import threading
from fractions import Fraction

import mpmath
from mpmath import libmp
from mpmath.ctx_iv import MPIntervalContext
from mpmath.ctx_mp import MPContext

from ..catalog import Param
from ..precision import Domain

__all__: list[str] = []  # private: imported by the modules of the classical yardsticks

P = Domain.positive()
NN = Domain.nonnegative()
U = Domain.open_unit()
ALPHA = Domain.interval(1, None)  # alpha > 1
K_MAX = 10 ** 7
KDOM = Domain(lo=Fraction(1), hi=Fraction(K_MAX), lo_closed=True, hi_closed=True, integer=True)
D0DOM = Domain.unit_nonneg()  # per-step delta in [0, 1)
DTILDE = Domain.half_open_unit()  # (0, 1]

_alpha = Param("alpha", ALPHA, default="2", doc="Renyi order alpha > 1")
_delta = Param("delta", U, default="1e-6", doc="target delta in (0, 1)")
_eps0 = Param("eps0", P, default="0.1", doc="per-step epsilon eps0 > 0")
_delta0 = Param("delta0", D0DOM, default="0", doc="per-step delta0 in [0, 1)")
_k = Param("k", KDOM, kind="integer", default="10", doc="number of composed mechanisms, 1 <= k <= 10^7")
_b = Param("b", P, default="10", doc="Laplace scale b > 0 (sensitivity 1, so the mechanism is (1/b)-DP)")
_sigma = Param("sigma", P, default="1", doc="Gaussian noise standard deviation sigma > 0")
_sens = Param("sensitivity", NN, default="1", doc="L2 sensitivity Delta >= 0")
_rho = Param("rho", NN, default="0.5", doc="zCDP parameter rho >= 0")

KOV_NOTE = ("Kairouz, Oh, Viswanath, 'The Composition Theorem for Differential Privacy', arXiv 1311.0776 "
            "(ICML 2015; IEEE Trans. Inf. Theory 63(6) 2017).")


# ===========================================================================
# Private contexts and positive-interval arithmetic
# ===========================================================================

_tls = threading.local()


def _iv(prec: int) -> MPIntervalContext:
    """This thread's private interval context at ``prec`` bits (global mpmath state untouched)."""
    c = getattr(_tls, "iv", None)
    if c is None:
        c = _tls.iv = MPIntervalContext()
    c.prec = prec
    return c


def _mp(prec: int) -> MPContext:
    """This thread's private floating-point context at ``prec`` bits (for optimisation only)."""
    c = getattr(_tls, "mp", None)
    if c is None:
        c = _tls.mp = MPContext()
    c.prec = prec
    return c


def _bits(dps: int) -> int:
    return int(math.ceil(dps * math.log2(10))) + 4


_F, _C = libmp.round_floor, libmp.round_ceiling
_ZERO, _ONE = libmp.fzero, libmp.fone


def _mk(raw) -> mpmath.mpf:
    """An ``mpf`` holding ``raw`` exactly (never rounded to the global precision)."""
    return mpmath.mp.make_mpf(raw)


def _round_up(raw, bits: int) -> mpmath.mpf:
    return _mk(libmp.mpf_pos(raw, bits, _C))


def _pq(q: Fraction, prec: int):
    """Enclosure (lo, hi) of the rational q."""
    return (libmp.from_rational(q.numerator, q.denominator, prec, _F),
            libmp.from_rational(q.numerator, q.denominator, prec, _C))


def _pint(n: int):
    r = libmp.from_int(n)
    return (r, r)


def _padd(a, b, prec):
    return (libmp.mpf_add(a[0], b[0], prec, _F), libmp.mpf_add(a[1], b[1], prec, _C))


def _psub(a, b, prec):
    """a - b for enclosures of arbitrary sign."""
    return (libmp.mpf_sub(a[0], b[1], prec, _F), libmp.mpf_sub(a[1], b[0], prec, _C))


def _pmul(a, b, prec):
    """a * b for NONNEGATIVE enclosures a, b."""
    return (libmp.mpf_mul(a[0], b[0], prec, _F), libmp.mpf_mul(a[1], b[1], prec, _C))


def _pdiv(a, b, prec):
    """a / b for a >= 0 and b > 0."""
    return (libmp.mpf_div(a[0], b[1], prec, _F), libmp.mpf_div(a[1], b[0], prec, _C))


def _pscale(a, n: int, prec):
    """n * a for an integer n > 0 and a of arbitrary sign."""
    m = libmp.from_int(n)
    return (libmp.mpf_mul(a[0], m, prec, _F), libmp.mpf_mul(a[1], m, prec, _C))


def _ulp_above(x, prec):
    """An upper bound on the gap from a ``prec``-bit ``x`` (rounded down) to the exact value: 2^(mag(x) - prec + 1)."""
    if x == _ZERO:
        return libmp.mpf_shift(_ONE, -prec)  # pragma: no cover - exp/log lower ends are nonzero here
    return libmp.mpf_shift(_ONE, x[2] + x[3] - prec + 1)


def _pexp(a, prec):
    """exp of an enclosure with ONE exponential: exp(hi) = exp(lo) e^d <= (exp(lo) + ulp)(1 + 2d), d = hi - lo <= 1.

    (An mpmath exp costs ~0.1 s at 10000 digits without gmpy; the second one is replaced by
    the rigorous bound e^d <= 1 + 2d for 0 <= d <= 1.)
    """
    lo = libmp.mpf_exp(a[0], prec, _F)
    if a[0] == a[1]:
        up = libmp.mpf_add(lo, _ulp_above(lo, prec), prec, _C)
        return (lo, up)
    d = libmp.mpf_sub(a[1], a[0], prec, _C)
    if not libmp.mpf_le(d, _ONE):
        return (lo, libmp.mpf_exp(a[1], prec, _C))
    up = libmp.mpf_add(lo, _ulp_above(lo, prec), prec, _C)
    return (lo, libmp.mpf_mul(up, libmp.mpf_add(_ONE, libmp.mpf_shift(d, 1), prec, _C), prec, _C))


def _plog(a, prec):
    """log of a positive enclosure with ONE logarithm: log(hi) = log(lo) + log(hi/lo) <= log(lo) + ulp + (hi - lo)/lo."""
    lo = libmp.mpf_log(a[0], prec, _F)
    gap = libmp.mpf_div(libmp.mpf_sub(a[1], a[0], prec, _C), a[0], prec, _C)
    up = libmp.mpf_add(libmp.mpf_add(lo, _ulp_above(lo, prec), prec, _C), gap, prec, _C)
    return (lo, up)


def _pneg(a):
    return (libmp.mpf_neg(a[1]), libmp.mpf_neg(a[0]))


def _pone_minus(a, prec):
    """1 - a for a in [0, 1]; the lower end is clamped at 0 (the exact value is known to be >= 0)."""
    lo = libmp.mpf_sub(_ONE, a[1], prec, _F)
    if libmp.mpf_lt(lo, _ZERO):
        lo = _ZERO
    return (lo, libmp.mpf_sub(_ONE, a[0], prec, _C))


def _ploggamma_int(n: int, prec):
    """Enclosure of log Gamma(n) for an integer n >= 1."""
    if n <= 2:
        return (_ZERO, _ZERO)
    x = libmp.from_int(n)
    return (libmp.mpf_loggamma(x, prec, _F), libmp.mpf_loggamma(x, prec, _C))


def _plogcomb(k: int, s: int, prec):
    """Enclosure of log C(k, s) (exact integer for small k, loggamma otherwise)."""
    if k <= 4000:
        r = libmp.from_int(math.comb(k, s))
        return (libmp.mpf_log(r, prec, _F), libmp.mpf_log(r, prec, _C))
    w = prec + 16
    t = _psub(_ploggamma_int(k + 1, w), _ploggamma_int(s + 1, w), w)
    return _psub(t, _ploggamma_int(k - s + 1, w), prec)


def _rel_ok(pair, bits: int) -> bool:
    lo, hi = pair
    if lo == hi:
        return True
    if not libmp.mpf_gt(lo, _ZERO):
        return False
    diff = libmp.mpf_sub(hi, lo, 64, _C)
    return libmp.mpf_le(diff, libmp.mpf_shift(lo, -bits))


def _iv_pair(c: MPIntervalContext, pair):
    v = c.mpf.__new__(c.mpf)
    v._mpi_ = (pair[0], pair[1])
    return v


def _log2_ceil(q: Fraction) -> int:
    """ceil(log2 q) for q > 0 (exact-ish; used only for guard bits)."""
    return q.numerator.bit_length() - q.denominator.bit_length() + 1
