"""Exact input parsing, validation and directed (conservative) rounding.

Every public function of :mod:`reference` goes through this module:

1. **Inputs are parsed exactly** (:func:`to_exact`): ``int``, decimal ``str``
   (``"1e-6"`` means exactly 10^-6; ``"1/3"`` is also accepted; ASCII digits only, no
   underscores), ``Fraction``, ``float`` and NumPy scalars (taken as their exact binary
   value, with a :class:`FloatInputWarning` when that is not the decimal they print as)
   and ``mpmath.mpf`` all become a :class:`fractions.Fraction`.  ``bool``, NaN,
   infinities, unordered collections of steps and strings outside the supported
   exponent range (:data:`MAX_DECIMAL_EXPONENT`) are refused at once.
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
import os
import re
import sys
import threading
import warnings
from collections.abc import Mapping, Set
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
    "MAX_DECIMAL_EXPONENT",
    "MAX_LITERAL_DIGITS",
    "MAX_DIGITS",
    "FloatInputWarning",
    "Enclosure",
    "Certified",
    "rational",
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
    "bounded_decimal",
    "compact_text",
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

#: Largest absolute decimal exponent of a parsed string, ``Decimal`` or ``mpf`` (magnitudes
#: 1e-100000 .. 1e100000): parsing ``"1e-999999999"`` exactly would build a
#: billion-digit integer, so it is refused at once with a ``ValueError``.
MAX_DECIMAL_EXPONENT = 100_000
#: Most digits in one integer of a parsed string (coefficient, numerator or denominator).
MAX_LITERAL_DIGITS = 100_000
#: Most significant digits :func:`directed_decimal` prints.
MAX_DIGITS = 100_000
#: Most bits in the binary exponent of a value :func:`directed_decimal` prints (|x| < 2^(2^8192)).
MAX_EXPONENT_BITS = 8192
#: Most digits of a decimal exponent :func:`bounded_decimal` prints as it is (|x| from 1e-999999999 to
#: 9.99e999999999); beyond, it prints the compact form ``10^(F)``.
PRINT_EXPONENT_DIGITS = 9
#: Significant digits of the exponent F of the compact form ``10^(F)`` (at most; fewer if fewer are asked).
PRINT_EXPONENT_SIG = 12

INF = mpmath.mpf("inf")


class FloatInputWarning(UserWarning):
    """A binary ``float`` was parsed whose exact value is not the decimal it prints as.

    ``0.1`` is exactly 0.1000000000000000055511151231257827021181583404541015625; that
    value is used (floats are taken as their exact binary value).  Pass the decimal
    string ``"0.1"`` (or a ``Fraction``) to mean one tenth.  Silence with
    ``warnings.simplefilter("ignore", FloatInputWarning)``.
    """

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

def _int_str(n: int) -> str:
    """Decimal digits of the int ``n``, whatever its size.

    ``str(n)`` refuses ints above 4300 digits (CPython's integer string conversion
    limit, a global setting this package never touches); large ints are split by
    divide and conquer into chunks below it.
    """
    if n < 0:
        return "-" + _int_str(-n)
    if n.bit_length() <= 12_000:  # < 3613 digits: under the interpreter's limit
        return str(n)
    k = (n.bit_length() * 3) // 20  # about half the number of digits
    hi, lo = divmod(n, 10 ** k)
    return _int_str(hi) + _int_str(lo).rjust(k, "0")


def _ndigits(n: int) -> int:
    """Number of decimal digits of the int ``|n|`` (1 for 0), without ``str``."""
    n = abs(n)
    if n < 10:
        return 1
    d = max(1, int((n.bit_length() - 1) * 0.30102999566398120))  # <= true count
    while 10 ** d <= n:
        d += 1
    while d > 1 and 10 ** (d - 1) > n:
        d -= 1
    return d


def _describe(value) -> str:
    if isinstance(value, str):
        r = repr(value[:100])
    else:
        try:
            r = repr(value)
        except ValueError:  # an int or Fraction beyond the int-to-str limit
            num = getattr(value, "numerator", None)
            den = getattr(value, "denominator", 1)
            if isinstance(num, int) and isinstance(den, int):
                r = f"<{type(value).__name__} with a {_ndigits(num)}-digit numerator and a {_ndigits(den)}-digit denominator>"
            else:
                r = f"<{type(value).__name__}>"
    return r if len(r) <= 80 else r[:77] + "..."


def mpf_to_fraction(x) -> Fraction:
    """Exact rational value of a finite ``mpmath.mpf``."""
    sign, man, exp, _ = x._mpf_
    if not man and exp:  # inf or nan
        raise ValueError(f"non-finite mpf {_describe(x)}")
    v = Fraction(int(man) << exp) if exp >= 0 else Fraction(int(man), 1 << -exp)
    return -v if sign else v


_LOG10_2 = 0.30102999566398120
_DECIMAL_RE = re.compile(r"([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?", re.ASCII)
_RATIO_RE = re.compile(r"([+-]?)(\d+)/(\d+)", re.ASCII)
_RANGE = (f"the supported range is magnitudes from 1e-{MAX_DECIMAL_EXPONENT} to 1e{MAX_DECIMAL_EXPONENT} "
          f"(decimal exponents -{MAX_DECIMAL_EXPONENT}..{MAX_DECIMAL_EXPONENT})")
_SYNTAX = "a decimal literal like '1e-6' or a ratio 'p/q' (ASCII digits only)"
_PKG_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep


def _big_int(digits: str, name: str, value) -> int:
    """``int(digits)`` for an ASCII digit string of any length up to ``MAX_LITERAL_DIGITS``."""
    if len(digits) > MAX_LITERAL_DIGITS:
        raise ValueError(f"{name} has more than {MAX_LITERAL_DIGITS} digits in one integer, found {_describe(value)}")
    if len(digits) <= 4000:
        return int(digits)
    return int(Decimal(digits))  # Decimal -> int has no string-conversion limit


def _check_magnitude(q: Fraction, name: str, value) -> Fraction:
    """Refuse a nonzero value outside 1e-MAX_DECIMAL_EXPONENT .. 1eMAX_DECIMAL_EXPONENT (bit-length test)."""
    if q:
        l2 = abs(q.numerator).bit_length() - q.denominator.bit_length()
        if abs(l2) > MAX_DECIMAL_EXPONENT * 3.3219280948873623 + 2:
            raise ValueError(f"{name} = {_describe(value)} is outside the supported range: {_RANGE}")
    return q


def _parse_str(x: str, name: str) -> Fraction:
    s = x.strip()
    m = _RATIO_RE.fullmatch(s)
    if m:
        num = _big_int(m.group(2), name, x)
        den = _big_int(m.group(3), name, x)
        if den == 0:
            raise ValueError(f"{name} must have a nonzero denominator, found {_describe(x)}")
        q = Fraction(-num if m.group(1) == "-" else num, den)
        return _check_magnitude(q, name, x)
    m = _DECIMAL_RE.fullmatch(s)
    if not m or not (m.group(2) or m.group(3)):
        raise ValueError(f"{name} must be {_SYNTAX}, found {_describe(x)}")
    sign, ip, fp, ex = m.group(1), m.group(2), m.group(3) or "", m.group(4)
    digits = (ip + fp).lstrip("0")
    if not digits:
        return Fraction(0)
    if len(digits) > MAX_LITERAL_DIGITS:
        raise ValueError(f"{name} has more than {MAX_LITERAL_DIGITS} significant digits, found {_describe(x)}")
    e = 0
    if ex is not None:
        ed = ex.lstrip("+-").lstrip("0")
        if len(ed) > 9:
            raise ValueError(f"{name} = {_describe(x)} is outside the supported range: {_RANGE}")
        e = int(ex)
    # value = 0.digits... : the leading digit's exponent is e + len(ip without leading zeros) - 1
    coeff = _big_int(digits.rstrip("0") or "0", name, x)
    trailing = len(digits) - len(digits.rstrip("0"))
    # exponent of the last kept digit: e - len(fp) + trailing zeros removed
    e_last = e - len(fp) + trailing
    lead = e_last + _ndigits(coeff) - 1
    if abs(lead) > MAX_DECIMAL_EXPONENT:
        raise ValueError(f"{name} = {_describe(x)} is outside the supported range: {_RANGE}")
    q = Fraction(coeff * 10 ** e_last) if e_last >= 0 else Fraction(coeff, 10 ** -e_last)
    return -q if sign == "-" else q


def _user_stacklevel() -> int:
    """``stacklevel`` for ``warnings.warn`` called from the caller of this function that points at the first frame outside the package."""
    f = sys._getframe(1)  # the function that will call warnings.warn (stacklevel 1)
    level = 1
    while f is not None and os.path.abspath(f.f_code.co_filename).startswith(_PKG_DIR):
        f = f.f_back
        level += 1
    return level


def _warn_float(x, q: Fraction, name: str) -> None:
    """Warn (:class:`FloatInputWarning`) when the binary value ``q`` of float ``x`` is not its shortest repr."""
    r = repr(float(x)) if isinstance(x, float) else str(x)
    try:
        short = _parse_str(r, name)
    except ValueError:  # pragma: no cover - a finite float's repr always parses
        short = None
    if short == q:
        return
    exact_dec = _exact_float_decimal(q)
    warnings.warn(FloatInputWarning(
        f"{name} = {r} is a binary float: its exact value {exact_dec} is used, not {r}; "
        f"pass the string {r!r} (or a Fraction) for the decimal value "
        f"(silence with warnings.simplefilter('ignore', reference.precision.FloatInputWarning))"),
        stacklevel=_user_stacklevel())


def _exact_float_decimal(q: Fraction) -> str:
    """The exact decimal expansion of a dyadic rational (a float's value), shortened to 60 digits with '...'."""
    num, den = q.numerator, q.denominator
    k = den.bit_length() - 1  # den = 2**k
    s = _int_str(abs(num) * 5 ** k)
    neg = "-" if num < 0 else ""
    if k == 0:
        body = s
    else:
        s = s.rjust(k + 1, "0")
        body = (s[:-k] + "." + s[-k:]).rstrip("0").rstrip(".")
    return neg + (body if len(body) <= 64 else body[:60] + "...")


def to_exact(x, name: str) -> Fraction:
    """Parse ``x`` exactly into a ``Fraction``.

    Accepted: ``int`` (not ``bool``), ``Fraction``, finite ``float`` (its exact
    binary value; a :class:`FloatInputWarning` says so when that value is not the
    decimal the float prints as), finite ``mpmath.mpf`` (its exact binary value),
    ``Decimal``, NumPy integer and floating scalars and 0-d arrays (exact binary
    value, like ``float``), and ``str`` holding an ASCII decimal literal (``"0.1"``,
    ``"1e-300"``) or a ratio ``"p/q"`` (no underscores, no non-ASCII digits).
    Strings, ``Decimal`` and ``mpf`` values must lie within
    ``10^-E`` .. ``10^E`` in magnitude, E = :data:`MAX_DECIMAL_EXPONENT`
    (or be 0), so that parsing never builds an unbounded integer.

    :raises TypeError: for any other type, naming ``name``.
    :raises ValueError: for NaN, infinities, an unparsable string, or a value outside
        the supported exponent range (naming ``name`` and the range).
    """
    if isinstance(x, bool):
        raise TypeError(f"{name} must be a real number (int, str, Fraction, float or mpf), found bool {x!r}")
    if isinstance(x, Fraction):
        return x
    if isinstance(x, Certified) and x.exact is not None:
        return x.exact
    if type(x).__module__ == "numpy":
        return _numpy_exact(x, name)
    if isinstance(x, Integral):
        return Fraction(int(x))
    if isinstance(x, float):
        if not math.isfinite(x):
            raise ValueError(f"{name} must be finite, found {x!r}")
        q = Fraction(x)
        _warn_float(x, q, name)
        return q
    if isinstance(x, mpmath.mpf):
        if not mpmath.isfinite(x):
            raise ValueError(f"{name} must be finite, found {x!r}")
        sign, man, exp, bc = x._mpf_
        if man and abs(exp + bc) > MAX_DECIMAL_EXPONENT * 3.3219280948873623 + 2:
            raise ValueError(f"{name} = {_describe(x)} is outside the supported range: {_RANGE}")
        return mpf_to_fraction(x)
    if isinstance(x, Decimal):
        if not x.is_finite():
            raise ValueError(f"{name} must be finite, found {x!r}")
        if x and abs(x.adjusted()) > MAX_DECIMAL_EXPONENT:
            raise ValueError(f"{name} = {_describe(x)} is outside the supported range: {_RANGE}")
        if len(x.as_tuple().digits) > MAX_LITERAL_DIGITS:
            raise ValueError(f"{name} has more than {MAX_LITERAL_DIGITS} significant digits, found {_describe(x)}")
        return Fraction(x)
    if isinstance(x, str):
        return _parse_str(x, name)
    raise TypeError(f"{name} must be a real number (int, str, Fraction, float or mpf), found {type(x).__name__} {_describe(x)}")


def _numpy_exact(x, name: str) -> Fraction:
    """NumPy integer/floating scalars and 0-d arrays: their exact (binary) value."""
    import numpy as np

    if isinstance(x, np.ndarray):
        if x.shape != ():
            raise TypeError(f"{name} must be a real number, found a NumPy array of shape {x.shape}")
        x = x[()]
    if isinstance(x, np.bool_):
        raise TypeError(f"{name} must be a real number (int, str, Fraction, float or mpf), found {type(x).__name__} {x!r}")
    if isinstance(x, np.integer):
        return Fraction(int(x))
    if isinstance(x, np.floating):
        if not np.isfinite(x):
            raise ValueError(f"{name} must be finite, found {x!r}")
        q = Fraction(*(int(v) for v in x.as_integer_ratio()))
        _warn_float(x, q, name)
        return q
    raise TypeError(f"{name} must be a real number (int, str, Fraction, float or mpf), found {type(x).__name__} {_describe(x)}")


def to_exact_seq(xs, name: str) -> tuple[Fraction, ...]:
    """Parse a non-empty ordered sequence of reals exactly (a comma-separated ``str`` is accepted).

    Unordered collections (``set``, ``frozenset``, dict keys) are refused with ``TypeError``:
    a set silently merges equal steps (``{'0.1', '0.1', '0.1'}`` is one step).
    """
    if isinstance(xs, str):
        parts = [p for p in xs.split(",") if p.strip()]
    elif isinstance(xs, (Set, Mapping)) or type(xs).__name__ in ("dict_keys", "dict_values", "dict_items"):
        raise TypeError(f"{name} must be an ordered sequence (list, tuple or comma-separated str), "
                        f"found unordered {type(xs).__name__} {_describe(xs)}")
    elif isinstance(xs, (list, tuple)) or hasattr(xs, "__iter__") and not isinstance(xs, (bytes, bytearray)):
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
    if max(abs(q.numerator).bit_length(), q.denominator.bit_length()) > 3000:
        return "about " + directed_decimal(q, 20, "exact")
    if q.denominator == 1:
        return str(q.numerator)
    f = float(q)
    return repr(f) if Fraction(f) == q else f"{q.numerator}/{q.denominator}"


def check(name: str, value, domain: Domain, *, end: str | None = None) -> Fraction:
    """Parse ``value`` exactly and check it lies in ``domain``.

    ``end`` (``"upper"`` or ``"lower"``) is the conservative end for the caller: when
    ``value`` is a :class:`Certified` result whose exact value is not known, the matching
    end of its certified enclosure is used instead of its rounded value (a filter charges
    a step at the upper end and reads its budget at the lower end, so a rounded catalog
    output can never make it admit a step the exact rule refuses).  Without ``end``, a
    ``Certified`` value is taken at its exact value when known, else at its binary value.

    Raises ``ValueError`` naming the parameter, the domain and the value found.
    """
    if end is not None and isinstance(value, Certified) and value.exact is None:
        q = value.end(end)
    else:
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


class Certified(mpmath.mpf):
    """The value :func:`certified` returns: an ``mpf`` (the result rounded once in its
    direction) that also carries its certified enclosure.

    * ``lower``, ``upper``: for a result rounded to nearest (direction ``"exact"``), ``mpf``
      ends with ``lower <= true value <= upper`` (the enclosure rounded outwards to the
      result's precision).  An upper or lower bound is meant to be used as the number it
      is (e.g. the largest next step a filter still admits), so both ends equal its value;
    * ``exact``: the exact ``Fraction`` when the quantity is rational for rational inputs
      (see :func:`rational`), else ``None``.

    It behaves as the plain ``mpf`` it rounds to (arithmetic returns plain ``mpf``), so
    existing code is unaffected.  What changes is how it is *parsed*: :func:`to_exact`
    takes ``exact`` when known, and :func:`check` with ``end="upper"``/``"lower"`` takes the
    matching enclosure end, which is what the filters of :mod:`reference.accountants` do
    (charges at the upper end, budgets at the lower end).
    """

    @classmethod
    def _make(cls, raw, lo_raw, hi_raw, exact):
        v = object.__new__(cls)
        v._mpf_ = raw
        v.lower = mpmath.mp.make_mpf(lo_raw)
        v.upper = mpmath.mp.make_mpf(hi_raw)
        v.exact = exact
        return v

    def end(self, which: str) -> Fraction:
        """The exact rational value of the enclosure end ``which`` (``"upper"`` or ``"lower"``), or ``exact`` when known."""
        if which not in ("upper", "lower"):
            raise ValueError(f"end must be 'upper' or 'lower', found {which!r}")
        if self.exact is not None:
            return self.exact
        return mpf_to_fraction(self.upper if which == "upper" else self.lower)

    def __reduce__(self):
        return (Certified._make, (self._mpf_, self.lower._mpf_, self.upper._mpf_, self.exact))


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
        return Certified._make(raw, raw, raw, None)  # a bound: used as the number it is
    if direction == "lower":
        raw = libmp.mpf_pos(enc.lo._mpf_, bits, "f")
        return Certified._make(raw, raw, raw, None)
    if not enc.width_ok(bits - 4):
        raise ArithmeticError(f"could not certify {dps} digits (enclosure [{enc.lo}, {enc.hi}])")
    mid = libmp.mpf_shift(libmp.mpf_add(enc.lo._mpf_, enc.hi._mpf_, enc.prec + 2), -1)
    raw = libmp.mpf_pos(mid, bits, "n")
    # rounded to nearest: the true value may lie on either side, so keep the enclosure
    return Certified._make(raw, libmp.mpf_pos(enc.lo._mpf_, bits, "f"), libmp.mpf_pos(enc.hi._mpf_, bits, "c"), None)


def rational(q, direction: str = "exact", dps: int = DEFAULT_DPS) -> "Certified":
    """A rational result ``q`` (a ``Fraction``) as a :class:`Certified` value that remembers ``q``.

    The value is ``q`` rounded once in ``direction`` at ``dps`` digits (as :func:`certified`
    would round it), and ``.exact`` is ``q`` itself, so a filter or bound that receives it
    parses the exact rational (``gaussian_zcdp_rho(10)`` is exactly 1/200, not the nearest
    binary value above or below).
    """
    q = Fraction(q)
    v = certified(lambda c, x: x, (q,), direction, dps)
    return Certified._make(v._mpf_, v.lower._mpf_, v.upper._mpf_, q)


def sign_of(formula: Callable, args: Sequence, tie: Callable[[], int] | None = None,
            max_prec: int = MAX_PREC_BITS, start_prec: int = 64) -> int:
    """Exact sign (-1, 0, +1) of ``formula(ctx, *args)``.

    The precision starts at ``start_prec`` bits (default 64; a caller that knows the sign
    needs about B bits, e.g. a threshold count of B bits, skips the lower rungs) and is
    raised until the enclosure excludes 0.  If it still
    contains 0 at ``max_prec`` bits, ``tie()`` (an exact rational procedure)
    decides; without one, ``ArithmeticError`` is raised rather than guessing.
    """
    prec = min(max(64, int(start_prec)), max_prec)
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

def _check_digits(digits) -> int:
    if isinstance(digits, bool) or not isinstance(digits, Integral):
        raise TypeError(f"digits must be an int in [1, {MAX_DIGITS}], found {type(digits).__name__} {_describe(digits)}")
    if not 1 <= digits <= MAX_DIGITS:
        raise ValueError(f"digits must be an int in [1, {MAX_DIGITS}], found {digits!r}")
    return int(digits)


def _exact_mpf(n: int) -> tuple:
    """Exact normalised mpf tuple of the int ``n >= 0`` (linear time; ``libmp.from_int`` strips
    trailing zero bits one chunk at a time, quadratic for ``2**(10**6)``)."""
    if n == 0:
        return libmp.fzero
    tz = (n & -n).bit_length() - 1
    man = n >> tz
    return (0, man, tz, man.bit_length())


_TEN = _exact_mpf(10)


def _pow10(K: int, prec: int):
    """Directed bounds (lo, hi) on 10^K (K >= 0) at ``prec`` bits.

    Small K: ``mpf_pow_int`` (exact when 10^K fits, directed rounding throughout).  Huge K
    (more than 64 bits, e.g. printing e^(e^450)): exp(K log 10) with log 10 enclosed to
    bits(K) + prec bits, which costs O(1) exponentials instead of bits(K) squarings.
    """
    if K.bit_length() <= 64:
        return libmp.mpf_pow_int(_TEN, K, prec, "f"), libmp.mpf_pow_int(_TEN, K, prec, "c")
    w = K.bit_length() + prec + 32
    kk = _exact_mpf(K)
    x_lo = libmp.mpf_mul(kk, libmp.mpf_log(_TEN, w, "f"), w, "f")
    x_hi = libmp.mpf_mul(kk, libmp.mpf_log(_TEN, w, "c"), w, "c")
    return libmp.mpf_exp(x_lo, prec, "f"), libmp.mpf_exp(x_hi, prec, "c")


def _scaled_floor(a, den: int, K: int, prec: int):
    """Bounds on ``u = 2 * a * 10^K / den`` (``a`` an exact mpf tuple > 0, ``den`` an int >= 1).

    Returns ``(N, exact)`` with ``N = floor(u)`` and ``exact`` True iff ``u == N``, or
    ``None`` when ``prec`` bits cannot decide.  Every operation is rounded outwards
    (libmp's directed rounding; see :func:`_pow10`), so ``lo <= u <= hi`` rigorously.
    """
    a2 = libmp.mpf_shift(a, 1)
    D = _exact_mpf(den)
    # huge exact operands are first rounded outwards to prec bits (cost independent of their size)
    a_lo, a_hi = libmp.mpf_pos(a2, prec, "f"), libmp.mpf_pos(a2, prec, "c")
    d_lo, d_hi = libmp.mpf_pos(D, prec, "f"), libmp.mpf_pos(D, prec, "c")
    p_lo, p_hi = _pow10(abs(K), prec)
    if K >= 0:
        lo = libmp.mpf_div(libmp.mpf_mul(a_lo, p_lo, prec, "f"), d_hi, prec, "f")
        hi = libmp.mpf_div(libmp.mpf_mul(a_hi, p_hi, prec, "c"), d_lo, prec, "c")
    else:
        lo = libmp.mpf_div(a_lo, libmp.mpf_mul(d_hi, p_hi, prec, "c"), prec, "f")
        hi = libmp.mpf_div(a_hi, libmp.mpf_mul(d_lo, p_lo, prec, "f"), prec, "c")
    n_lo, n_hi = libmp.to_int(lo, "f"), libmp.to_int(hi, "f")
    if n_lo != n_hi:
        return None
    if lo == hi:  # the computation was exact
        return n_lo, libmp.mpf_eq(lo, _exact_mpf(n_lo))
    if libmp.mpf_eq(lo, _exact_mpf(n_lo)):
        return None  # u may be the integer n_lo itself
    return n_lo, False


def _scaled_floor_exact(a, den: int, K: int):
    """Exact fallback of :func:`_scaled_floor` (rational arithmetic; only for near-ties)."""
    u = 2 * mpf_to_fraction(mpmath.mp.make_mpf(a)) / den
    u = u * 10 ** K if K >= 0 else u / 10 ** -K
    n = u.numerator // u.denominator
    return n, n * u.denominator == u.numerator


def _floor_log10_2_times(l2: int) -> int:
    """About floor(l2 * log10(2)) (within one) for an int l2 of any size (floats overflow past 2^1024)."""
    if abs(l2) < (1 << 50):
        return math.floor(l2 * _LOG10_2)
    w = abs(l2).bit_length() + 30
    c = libmp.mpf_div(libmp.mpf_log(libmp.from_int(2), w), libmp.mpf_log(_TEN, w), w, "n")
    return libmp.to_int(libmp.mpf_mul(libmp.from_int(l2), c, w, "n"), "f")


def directed_decimal(x, digits: int, direction: str) -> str:
    """Decimal string of ``x`` with ``digits`` significant digits, rounded in ``direction``.

    ``"upper"`` rounds towards +inf, ``"lower"`` towards -inf, ``"exact"`` to
    nearest (ties to even).  Infinities print as ``"inf"``/``"-inf"``.

    ``x`` is an ``mpf``, a ``Fraction`` or anything :func:`to_exact` parses.  The
    digits are computed from rigorous binary enclosures of ``|x| * 10^K`` (outward
    rounded, precision doubled until the floor is decided), never from an exact
    fraction of ``10^K``: printing ``1e-1000000`` or ``2^(10^7)`` costs about
    ``digits`` digits of work, and no int is ever converted to a string beyond the
    interpreter's 4300-digit limit.  Exact rational arithmetic is used only when
    2^18-bit enclosures still straddle a rounding boundary.  Values whose binary
    exponent has more than ``MAX_EXPONENT_BITS`` bits are refused (``ValueError``).

    Raises ``TypeError``/``ValueError`` for ``digits`` not an int in [1, MAX_DIGITS],
    an unknown ``direction`` or a NaN.
    """
    digits = _check_digits(digits)
    if direction not in ("upper", "lower", "exact"):
        raise ValueError(f"direction must be 'upper', 'lower' or 'exact', found {direction!r}")
    if isinstance(x, mpmath.mpf):
        if not mpmath.isfinite(x):
            if mpmath.isnan(x):
                raise ValueError("cannot print NaN")
            return "inf" if x > 0 else "-inf"
        sign, man, exp, bc = x._mpf_
        if not man:
            return "0"
        neg, a, den = bool(sign), (0, man, exp, bc), 1
    else:
        q = x if isinstance(x, Fraction) else to_exact(x, "x")
        if q == 0:
            return "0"
        neg = q < 0
        a, den = _exact_mpf(abs(q.numerator)), q.denominator
    # log2 |x| lies in [l2 - 1, l2 + 1): estimate the decimal exponent e, then correct it
    l2 = a[2] + a[3] - den.bit_length()
    if l2.bit_length() > MAX_EXPONENT_BITS:
        raise ValueError(f"x is too large or too small to print: its binary exponent has {l2.bit_length()} bits "
                         f"(supported: at most {MAX_EXPONENT_BITS} bits, |x| between 2^-2^{MAX_EXPONENT_BITS} and 2^2^{MAX_EXPONENT_BITS})")
    e = _floor_log10_2_times(l2)
    lo_n, hi_n = 10 ** (digits - 1), 10 ** digits
    prec = int(digits * 3.33) + 64
    while True:
        K = digits - 1 - e
        r = None
        p = prec
        while r is None and p <= (1 << 18):
            r = _scaled_floor(a, den, K, p)
            p *= 2
        N, exact_u = r if r is not None else _scaled_floor_exact(a, den, K)
        fl = N >> 1
        if fl < lo_n:
            e -= 1
            continue
        if fl >= hi_n:
            e += 1
            continue
        break
    # m = |x| 10^K = N/2 exactly when exact_u; its fraction is 0 (N even, exact),
    # 1/2 (N odd, exact), in (0, 1/2) (N even, inexact) or in (1/2, 1) (N odd, inexact)
    is_int = exact_u and not (N & 1)
    if direction == "exact":
        up = bool(N & 1) and (not exact_u or bool(fl & 1))
    elif direction == "upper":
        up = (not is_int) and not neg
    else:
        up = (not is_int) and neg
    n = fl + 1 if up else fl
    if n == hi_n:  # carried into a new decade
        n = lo_n
        e += 1
    s = _int_str(n)
    exp10 = e - (len(s) - 1)
    tail = s[1:].rstrip("0")
    mant = s[0] + ("." + tail if tail else "")
    out = f"{mant}e{_int_str(e)}" if (e < -5 or e >= digits) else _plain(s, exp10)
    return ("-" if neg else "") + out


def bounded_decimal(x, digits: int, direction: str, *, probability: bool = False) -> str:
    """:func:`directed_decimal` of ``x`` in a bounded length, keeping its rounding direction: the text to print.

    Contract: the text is ``directed_decimal(x, digits, direction)`` except in two cases, in
    each of which an ``"upper"`` text is still >= x and a ``"lower"`` text still <= x:

    * **Beyond the ordinary range** (a decimal exponent of more than
      ``PRINT_EXPONENT_DIGITS`` digits: delta = e^(-10^300) is a number whose exponent
      alone has 300 digits), the text is ``10^(F)`` (``-10^(F)`` for x < 0), F printed with
      ``min(digits, PRINT_EXPONENT_SIG)`` significant digits by :func:`directed_decimal`
      rounded so that the bound holds: with the directed text m 10^E (1 <= m < 10) of x,
      an upper end 0 < x <= m 10^E <= 10^(E+1) prints F >= E + 1 (F >= E when m = 1), a
      lower end x >= m 10^E >= 10^E prints F <= E, and mirrored for x < 0; ``"exact"``
      prints F nearest to E + log10(m).  The text has at most 25 characters whatever x (F
      has at most 13 digits and an exponent of at most 4, since ``|E| < 2^8192``).
    * **probability=True** declares x an end of a bracket on a probability (a delta, a game
      value): an upper end above 1 prints ``"1"`` and a lower end below 0 prints ``"0"``.
      Both are valid bounds, since a probability lies in [0, 1] (a composition's delta(eps)
      is the largest difference of two probabilities of one event); only the text changes.

    Derivation: this project (the two bullets above; rounding E + 1 up and E down only moves
    the printed bound further out).  Preconditions and errors: those of
    :func:`directed_decimal` (NaN, digits outside [1, MAX_DIGITS], an unknown direction,
    ``|x|`` beyond ``2^(+-2^MAX_EXPONENT_BITS)``).
    """
    if probability and direction in ("upper", "lower"):
        v = x if isinstance(x, (mpmath.mpf, Fraction)) else to_exact(x, "x")
        if direction == "upper" and v > 1:
            return "1"
        if direction == "lower" and v < 0:
            return "0"
    s = directed_decimal(x, digits, direction)
    mant, sep, exp = s.partition("e")
    if not sep or len(exp.lstrip("+-")) <= PRINT_EXPONENT_DIGITS:
        return s
    neg = mant.startswith("-")
    m, E = Fraction(mant.lstrip("-")), int(exp)  # the printed value is (-1)^neg m 10^E exactly, 1 <= m < 10
    k = min(_check_digits(digits), PRINT_EXPONENT_SIG)
    if direction == "exact":
        F = directed_decimal(E + Fraction(math.log10(m)), k, "exact")  # log10(m) in [0, 1): a double is ample
    elif (direction == "upper") != neg:  # |x| <= m 10^E <= 10^(E+1): the largest |.| printed, F rounded up
        F = directed_decimal(E + (m != 1), k, "upper")
    else:  # |x| >= m 10^E >= 10^E: the smallest |.| printed, F rounded down
        F = directed_decimal(E, k, "lower")
    return f"{'-' if neg else ''}10^({F})"


def compact_text(q, *, ratio: bool = False) -> str:
    """A text of the rational ``q`` of at most 32 characters, for echoing an input in a message or a JSON field.

    Exact when q has at most 17 significant decimal digits (``"1e-400"``, ``"1e300"``,
    ``"0.25"``: the form of :func:`directed_decimal`, which :func:`to_exact` and
    ``Fraction`` parse back to q); otherwise ``"~"`` and q rounded to nearest to 17 digits
    (``"~0.33333333333333333"``).  With ``ratio``, the exact ``"p/q"`` text (``str`` of the
    Fraction) is kept whenever it has at most 32 characters (the JSON form of exact inputs).
    Use it where an exact text could have hundreds of digits (``1/10^400``, ``10^300 + 1``);
    a certified end is printed by :func:`bounded_decimal`.
    """
    q = q if isinstance(q, Fraction) else to_exact(q, "q")
    if ratio and max(q.numerator.bit_length(), q.denominator.bit_length()) <= 128 and len(str(q)) <= 32:
        return str(q)
    lo = directed_decimal(q, 17, "lower")
    return lo if lo == directed_decimal(q, 17, "upper") else "~" + directed_decimal(q, 17, "exact")


def _plain(s: str, exp10: int) -> str:
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
    from it by doubling steps and then bisects, so it makes ``O(log |guess - K| + 1)`` calls of
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
    return max(0, _ndigits(q.denominator) - _ndigits(q.numerator) + 1)


def frac_gcd(xs) -> Fraction:
    """Greatest common divisor of nonnegative rationals (gcd of numerators over lcm of denominators); 0 if all are 0.

    The lattice unit of a menu of step sizes: every x in ``xs`` is an integer multiple of the result (exact).
    """
    xs = [Fraction(x) for x in xs if x]
    if not xs:
        return Fraction(0)
    den = 1
    for x in xs:
        den = den * x.denominator // math.gcd(den, x.denominator)
    num = 0
    for x in xs:
        num = math.gcd(num, int(x * den))
    return Fraction(num, den)
