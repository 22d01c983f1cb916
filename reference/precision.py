"""Exact input parsing, validation and directed (conservative) rounding.

Every public function of :mod:`reference` goes through this module:

1. **Inputs are parsed exactly** (:func:`to_exact`): ``int``, decimal ``str``
   (``"1e-6"`` means exactly 10^-6; ``"1/3"`` is also accepted), ``Fraction``,
   ``float`` (taken as its exact binary value) and ``mpmath.mpf`` all become a
   :class:`fractions.Fraction`.  ``bool``, NaN and infinities are refused.
2. **Work is done in interval arithmetic** (:func:`certified`): the formula is
   evaluated with :mod:`mpmath`'s interval context at the caller's precision plus
   guard bits, in a *private* context (global ``mpmath.mp`` / ``mpmath.iv`` state
   is never touched; each thread has its own context).  The enclosure is
   rigorous: the true value lies inside it.
3. **The result is rounded once, in the safe direction**: an upper bound is the
   right end of the enclosure rounded towards +inf, a lower bound the left end
   rounded towards -inf.  If the enclosure is wider than the promised number of
   digits, the precision is doubled and the evaluation repeated.
4. **Decisions are exact** (:func:`sign_of`, :func:`compare_exp_rational`): a
   comparison is refined until the enclosure excludes the threshold; ties are
   resolved with exact rational arithmetic, so a filter never admits a step the
   exact rule would refuse and never refuses one it would admit.

mpmath 1.3 is required by sympy 1.14; it has no global rounding mode and does
not accept ``Fraction``, which is why parsing and rounding live here.
"""
from __future__ import annotations

import math
import threading
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from numbers import Integral
from typing import Callable, Iterable, Sequence

import mpmath
from mpmath import libmp
from mpmath.ctx_iv import MPIntervalContext

__all__ = [
    "DEFAULT_DPS",
    "MAX_PREC_BITS",
    "Enclosure",
    "Domain",
    "to_exact",
    "to_exact_seq",
    "check",
    "check_seq",
    "check_dps",
    "certified",
    "iv_const",
    "sign_of",
    "compare_exp_rational",
    "directed_decimal",
    "mpf_to_fraction",
    "last_true",
    "digits_of_inverse",
    "INF",
]

#: Default number of significant decimal digits of every result.
DEFAULT_DPS = 50
#: Largest working precision (bits) tried before giving up on tightness.
MAX_PREC_BITS = 1 << 16
#: Guard bits added on top of the target precision.
GUARD_BITS = 32

INF = mpmath.mpf("inf")

_local = threading.local()


def _ctx(prec: int) -> MPIntervalContext:
    """Return this thread's private interval context set to ``prec`` bits."""
    ctx = getattr(_local, "ctx", None)
    if ctx is None:
        ctx = MPIntervalContext()
        _local.ctx = ctx
    ctx.prec = prec
    return ctx


# --------------------------------------------------------------------------
# Exact parsing
# --------------------------------------------------------------------------

def _describe(value) -> str:
    r = repr(value)
    return r if len(r) <= 80 else r[:77] + "..."


def mpf_to_fraction(x) -> Fraction:
    """Exact rational value of a finite ``mpmath.mpf``."""
    sign, man, exp, _ = x._mpf_
    if not man and exp:  # inf or nan
        raise ValueError(f"non-finite mpf {_describe(x)}")
    v = Fraction(int(man)) * (Fraction(2) ** exp)
    return -v if sign else v


def to_exact(x, name: str) -> Fraction:
    """Parse ``x`` exactly into a ``Fraction``.

    Accepted: ``int`` (not ``bool``), ``Fraction``, finite ``float`` (its exact
    binary value), finite ``mpmath.mpf`` (its exact binary value), and ``str``
    holding a decimal literal (``"0.1"``, ``"1e-300"``) or a ratio ``"p/q"``.

    Raises:
        TypeError: for any other type, naming ``name``.
        ValueError: for NaN, infinities, or an unparsable string.
    """
    if isinstance(x, bool):
        raise TypeError(f"{name} must be a real number (int, str, Fraction, float or mpf), found bool {x!r}")
    if isinstance(x, Fraction):
        return x
    if isinstance(x, Integral):
        return Fraction(int(x))
    if isinstance(x, float):
        if not math.isfinite(x):
            raise ValueError(f"{name} must be finite, found {x!r}")
        return Fraction(x)
    if isinstance(x, mpmath.mpf):
        if not mpmath.isfinite(x):
            raise ValueError(f"{name} must be finite, found {x!r}")
        return mpf_to_fraction(x)
    if isinstance(x, Decimal):
        if not x.is_finite():
            raise ValueError(f"{name} must be finite, found {x!r}")
        return Fraction(x)
    if isinstance(x, str):
        s = x.strip().replace("_", "")
        try:
            if "/" in s:
                return Fraction(s)
            d = Decimal(s)
        except (InvalidOperation, ValueError, ZeroDivisionError):
            raise ValueError(f"{name} must be a decimal literal like '1e-6' or a ratio 'p/q', found {_describe(x)}") from None
        if not d.is_finite():
            raise ValueError(f"{name} must be finite, found {_describe(x)}")
        return Fraction(d)
    raise TypeError(f"{name} must be a real number (int, str, Fraction, float or mpf), found {type(x).__name__} {_describe(x)}")


def to_exact_seq(xs, name: str) -> tuple[Fraction, ...]:
    """Parse a non-empty sequence of reals exactly (a comma-separated ``str`` is accepted)."""
    if isinstance(xs, str):
        parts = [p for p in xs.split(",") if p.strip()]
    elif isinstance(xs, (list, tuple)) or hasattr(xs, "__iter__") and not isinstance(xs, (bytes, dict)):
        parts = list(xs)
    else:
        raise TypeError(f"{name} must be a sequence of real numbers, found {type(xs).__name__} {_describe(xs)}")
    if not parts:
        raise ValueError(f"{name} must be a non-empty sequence, found an empty one")
    return tuple(to_exact(p, f"{name}[{i}]") for i, p in enumerate(parts))


# --------------------------------------------------------------------------
# Domains
# --------------------------------------------------------------------------

@dataclass(frozen=True)
class Domain:
    """An interval of the real line (optionally integers only), with its text form.

    ``lo``/``hi`` are ``Fraction`` or ``None`` (unbounded).
    """

    lo: Fraction | None = None
    hi: Fraction | None = None
    lo_closed: bool = False
    hi_closed: bool = False
    integer: bool = False

    def __str__(self) -> str:
        left = ("[" if self.lo_closed else "(") + ("-inf" if self.lo is None else _fmt(self.lo))
        right = ("inf" if self.hi is None else _fmt(self.hi)) + ("]" if self.hi_closed else ")")
        s = f"{left}, {right}"
        return ("integers in " + s) if self.integer else s

    def contains(self, q: Fraction) -> bool:
        if self.integer and q.denominator != 1:
            return False
        if self.lo is not None and (q < self.lo or (q == self.lo and not self.lo_closed)):
            return False
        if self.hi is not None and (q > self.hi or (q == self.hi and not self.hi_closed)):
            return False
        return True

    # Common domains -------------------------------------------------------
    @staticmethod
    def positive() -> "Domain":
        return Domain(lo=Fraction(0))

    @staticmethod
    def nonnegative() -> "Domain":
        return Domain(lo=Fraction(0), lo_closed=True)

    @staticmethod
    def open_unit() -> "Domain":
        return Domain(lo=Fraction(0), hi=Fraction(1))

    @staticmethod
    def half_open_unit() -> "Domain":
        """(0, 1]"""
        return Domain(lo=Fraction(0), hi=Fraction(1), hi_closed=True)

    @staticmethod
    def unit_nonneg() -> "Domain":
        """[0, 1)"""
        return Domain(lo=Fraction(0), hi=Fraction(1), lo_closed=True)

    @staticmethod
    def closed_unit() -> "Domain":
        return Domain(lo=Fraction(0), hi=Fraction(1), lo_closed=True, hi_closed=True)

    @staticmethod
    def integers_from(k: int) -> "Domain":
        return Domain(lo=Fraction(k), lo_closed=True, integer=True)

    @staticmethod
    def interval(lo, hi, lo_closed=False, hi_closed=False) -> "Domain":
        return Domain(
            lo=None if lo is None else Fraction(lo),
            hi=None if hi is None else Fraction(hi),
            lo_closed=lo_closed,
            hi_closed=hi_closed,
        )


def _fmt(q: Fraction) -> str:
    if q.denominator == 1:
        return str(q.numerator)
    f = float(q)
    return repr(f) if Fraction(f) == q else f"{q.numerator}/{q.denominator}"


def check(name: str, value, domain: Domain) -> Fraction:
    """Parse ``value`` exactly and check it lies in ``domain``.

    Raises ``ValueError`` naming the parameter, the domain and the value found.
    """
    q = to_exact(value, name)
    if not domain.contains(q):
        raise ValueError(f"{name} must lie in {domain}, found {_describe(value)}")
    return q


def check_seq(name: str, values, domain: Domain) -> tuple[Fraction, ...]:
    """Parse a non-empty sequence exactly; each element must lie in ``domain``."""
    qs = to_exact_seq(values, name)
    for i, q in enumerate(qs):
        if not domain.contains(q):
            v = values[i] if isinstance(values, (list, tuple)) else _fmt(q)
            raise ValueError(f"{name}[{i}] must lie in {domain}, found {_describe(v)}")
    return qs


def check_dps(dps) -> int:
    """Validate the requested number of significant decimal digits (5..10000)."""
    if isinstance(dps, bool) or not isinstance(dps, Integral):
        raise TypeError(f"dps must be an int in [5, 10000], found {type(dps).__name__} {_describe(dps)}")
    if not 5 <= dps <= 10000:
        raise ValueError(f"dps must be an int in [5, 10000], found {dps!r}")
    return int(dps)


# --------------------------------------------------------------------------
# Certified evaluation
# --------------------------------------------------------------------------

def iv_const(ctx: MPIntervalContext, q: Fraction):
    """Rigorous enclosure of the rational ``q`` in the interval context ``ctx``."""
    if q.denominator == 1:
        return ctx.mpf(q.numerator)
    return ctx.mpf(q.numerator) / ctx.mpf(q.denominator)


@dataclass(frozen=True)
class Enclosure:
    """A certified enclosure ``lo <= true value <= hi`` and the precision that produced it."""

    lo: mpmath.mpf
    hi: mpmath.mpf
    prec: int

    def width_ok(self, bits: int) -> bool:
        lo, hi = self.lo, self.hi
        if lo == hi:
            return True
        if not (mpmath.isfinite(lo) and mpmath.isfinite(hi)):
            return False
        scale = max(abs(lo), abs(hi))
        return (hi - lo) <= scale * mpmath.ldexp(1, -bits)


def _target_bits(dps: int) -> int:
    return int(math.ceil(dps * math.log2(10))) + 4


def _enclose(formula: Callable, args: Sequence, prec: int) -> Enclosure:
    ctx = _ctx(prec)
    conv = [iv_const(ctx, a) if isinstance(a, Fraction) else a for a in args]
    r = formula(ctx, *conv)
    if not hasattr(r, "_mpi_"):
        r = ctx.convert(r)
    a, b = r._mpi_
    return Enclosure(mpmath.mp.make_mpf(a), mpmath.mp.make_mpf(b), prec)


def enclosure(formula: Callable, args: Sequence, dps: int = DEFAULT_DPS) -> Enclosure:
    """Rigorous enclosure of ``formula(ctx, *args)`` at least ``dps`` digits tight when possible.

    ``formula`` receives the private interval context and the arguments, with
    every ``Fraction`` argument already converted to an interval.  Precision is
    doubled until the relative width is below 10^-dps (or ``MAX_PREC_BITS``).
    """
    bits = _target_bits(dps)
    prec = bits + GUARD_BITS
    while True:
        enc = _enclose(formula, args, prec)
        if enc.width_ok(bits) or prec >= MAX_PREC_BITS:
            return enc
        prec = min(2 * prec, MAX_PREC_BITS)


_ROUNDING = {"upper": "c", "lower": "f", "exact": "n"}


def certified(formula: Callable, args: Sequence, direction: str, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """Evaluate ``formula`` rigorously and round once in the safe ``direction``.

    * ``"upper"``: returns a value >= the exact value (right end, rounded up).
    * ``"lower"``: returns a value <= the exact value (left end, rounded down).
    * ``"exact"``: returns the midpoint rounded to nearest; raises
      ``ArithmeticError`` if the enclosure is not ``dps`` digits tight.

    The returned ``mpf`` carries ``ceil(dps*log2(10))+4`` bits.
    """
    if direction not in _ROUNDING:
        raise ValueError(f"direction must be one of {sorted(_ROUNDING)}, found {direction!r}")
    dps = check_dps(dps)
    bits = _target_bits(dps)
    enc = enclosure(formula, args, dps)
    if direction == "upper":
        raw = libmp.mpf_pos(enc.hi._mpf_, bits, "c")
    elif direction == "lower":
        raw = libmp.mpf_pos(enc.lo._mpf_, bits, "f")
    else:
        if not enc.width_ok(bits - 4):
            raise ArithmeticError(f"could not certify {dps} digits (enclosure [{enc.lo}, {enc.hi}])")
        mid = libmp.mpf_shift(libmp.mpf_add(enc.lo._mpf_, enc.hi._mpf_, enc.prec + 2), -1)
        raw = libmp.mpf_pos(mid, bits, "n")
    return mpmath.mp.make_mpf(raw)


def sign_of(formula: Callable, args: Sequence, tie: Callable[[], int] | None = None,
            max_prec: int = MAX_PREC_BITS) -> int:
    """Exact sign (-1, 0, +1) of ``formula(ctx, *args)``.

    The precision is raised until the enclosure excludes 0.  If it still
    contains 0 at ``max_prec`` bits, ``tie()`` (an exact rational procedure)
    decides; without one, ``ArithmeticError`` is raised rather than guessing.
    """
    prec = 64
    while True:
        enc = _enclose(formula, args, prec)
        if enc.lo > 0:
            return 1
        if enc.hi < 0:
            return -1
        if enc.lo == 0 and enc.hi == 0:
            return 0
        if prec >= max_prec:
            if tie is not None:
                return tie()
            raise ArithmeticError("sign could not be decided within the precision limit")
        prec = min(4 * prec, max_prec)


def compare_exp_rational(q: Fraction, r: Fraction) -> int:
    """Exact sign of ``exp(q) - r`` for rationals ``q`` and ``r``.

    By the Lindemann–Weierstrass theorem ``exp(q)`` is transcendental for every
    rational ``q != 0``, so it never equals the rational ``r``; refinement of the
    interval enclosure therefore terminates, and ``q == 0`` is decided exactly.
    """
    if q == 0:
        return (1 > r) - (1 < r)
    if r <= 0:
        return 1
    return sign_of(lambda ctx, qq, rr: ctx.exp(qq) - rr, (q, r), max_prec=1 << 22)


# --------------------------------------------------------------------------
# Directed decimal output
# --------------------------------------------------------------------------

def directed_decimal(x, digits: int, direction: str) -> str:
    """Decimal string of ``x`` with ``digits`` significant digits, rounded in ``direction``.

    ``"upper"`` rounds towards +inf, ``"lower"`` towards -inf, ``"exact"`` to
    nearest (ties to even).  Infinities print as ``"inf"``/``"-inf"``.
    """
    if isinstance(x, mpmath.mpf) and not mpmath.isfinite(x):
        if mpmath.isnan(x):
            raise ValueError("cannot print NaN")
        return "inf" if x > 0 else "-inf"
    q = x if isinstance(x, Fraction) else to_exact(x, "x")
    if q == 0:
        return "0"
    neg = q < 0
    a = -q if neg else q
    # exponent e with 10^e <= a < 10^(e+1)
    e = len(str(a.numerator)) - len(str(a.denominator))
    while Fraction(10) ** e > a:
        e -= 1
    while Fraction(10) ** (e + 1) <= a:
        e += 1
    scale = Fraction(10) ** (digits - 1 - e)
    m = a * scale
    fl = m.numerator // m.denominator
    exact = fl * m.denominator == m.numerator
    if direction == "exact":
        rem = m - fl
        up = rem > Fraction(1, 2) or (rem == Fraction(1, 2) and fl % 2 == 1)
    elif direction == "upper":
        up = (not exact) and not neg
    elif direction == "lower":
        up = (not exact) and neg
    else:
        raise ValueError(f"direction must be 'upper', 'lower' or 'exact', found {direction!r}")
    n = fl + 1 if up else fl
    if len(str(n)) > digits:  # carried into a new decade
        n //= 10
        e += 1
    s = str(n)
    exp10 = e - (len(s) - 1)
    mant = s[0] + ("." + s[1:].rstrip("0") if len(s) > 1 and s[1:].rstrip("0") else "")
    out = f"{mant}e{e}" if (e < -5 or e >= digits) else _plain(n, exp10)
    return ("-" if neg else "") + out


def _plain(n: int, exp10: int) -> str:
    s = str(n)
    if exp10 >= 0:
        return s + "0" * exp10
    k = -exp10
    if len(s) <= k:
        s = "0" * (k - len(s) + 1) + s
    ip, fp = s[:-k], s[-k:].rstrip("0")
    return ip + ("." + fp if fp else "")


def last_true(pred: Callable[[int], bool], guess: int) -> int:
    """The largest integer k >= 0 with ``pred(k)`` True, for a predicate True up to some K >= 0 and False after.

    ``guess`` is any integer estimate of K (e.g. from a rounded closed form); the search gallops
    from it by doubling steps and then bisects, so it makes O(log |guess - K| + 1) calls of
    ``pred`` however far off the estimate is (the exact decision rules of the filters are the
    predicates: the count returned is exact whatever the precision of the estimate).
    Precondition: ``pred(0)`` is True (returns 0 otherwise) and ``pred`` is monotone.
    """
    lo = max(int(guess), 0)
    if not pred(lo):  # K < lo: gallop down to a k with pred(k) True
        hi, step = lo, 1
        while True:
            lo = max(hi - step, 0)
            if pred(lo):
                break
            if lo == 0:
                return 0
            hi, step = lo, 2 * step
    else:  # K >= lo: gallop up to a k with pred(k) False
        step = 1
        while pred(lo + step):
            lo, step = lo + step, 2 * step
        hi = lo + step
    while hi - lo > 1:  # pred(lo) True, pred(hi) False
        mid = (lo + hi) // 2
        if pred(mid):
            lo = mid
        else:
            hi = mid
    return lo


def digits_of_inverse(q: Fraction) -> int:
    """About log10(1/q) (at least, within one) for a rational q > 0, and 0 when q >= 1.

    The number of decimal digits a count k ~ c/q has: a closed-form estimate of k computed with
    this many extra digits is within a few units of k, so :func:`last_true` settles it in a
    handful of exact decisions.
    """
    return max(0, len(str(q.denominator)) - len(str(q.numerator)) + 1)

