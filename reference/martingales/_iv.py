"""Private interval contexts of the checker (one per thread, re-used: creating one costs ~0.4 ms)."""
from __future__ import annotations

import threading
from fractions import Fraction

import mpmath
from mpmath.ctx_iv import MPIntervalContext

from ..precision import mpf_to_fraction

_local = threading.local()


def ivctx(prec: int) -> MPIntervalContext:
    """This thread's private interval context, set to ``prec`` bits (never the global mpmath state)."""
    c = getattr(_local, "ctx", None)
    if c is None:
        c = MPIntervalContext()
        _local.ctx = c
    c.prec = prec
    return c


def ends(x) -> tuple[Fraction, Fraction]:
    """Exact rational end points of an interval of an mpmath interval context."""
    a, b = x._mpi_
    return mpf_to_fraction(mpmath.mp.make_mpf(a)), mpf_to_fraction(mpmath.mp.make_mpf(b))
