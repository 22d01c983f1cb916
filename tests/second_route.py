"""Helpers shared by the tests' second routes: a private high-precision context and relative errors."""
from fractions import Fraction

import mpmath
from mpmath.ctx_mp import MPContext


def hp(dps: int = 120) -> MPContext:
    """A private high-precision context (independent of the library's interval contexts and of mpmath.mp)."""
    c = MPContext()
    c.dps = dps
    return c


def q2m(c, q):
    """The rational ``q`` as an mpf of context ``c`` (one rounding)."""
    q = Fraction(q)
    return c.mpf(q.numerator) / q.denominator


def rel(a, b):
    """|a - b| / |b| (with |b| floored at 1e-400)."""
    return abs(a - b) / max(abs(b), mpmath.mpf(10) ** -400)
