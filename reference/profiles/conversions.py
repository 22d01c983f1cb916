"""Shared machinery of the privacy profiles: certified brackets, inversion of a certified delta(eps), integer-order RDP -> DP.

A *privacy profile* of a composition M is the function eps -> delta_M(eps) (the hockey-stick
divergence sup over neighbours of H_{e^eps}(M(D) || M(D'))), and its inverse delta -> eps_M(delta).
Every profile function of :mod:`reference.profiles` returns a :class:`Bracket`: a certified
enclosure ``lo <= true value <= hi``.  An *exact* profile's bracket is tight (its width is the
rounding of the enclosure); a *bounded* profile's bracket is the honest gap between a valid
lower bound and a valid upper bound (e.g. the RDP conversion above, a post-processed
composition below).

Nothing here imports a higher layer; the bounds used are in :mod:`reference.bounds.classical`.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Callable, Sequence

import mpmath
from mpmath import libmp
from mpmath.ctx_mp import MPContext

from ..bounds.classical import rdp_to_dp_delta_cks, rdp_to_dp_eps_improved
from ..precision import rational, DEFAULT_DPS, certified, mpf_to_fraction

__all__ = ["Bracket", "enclose", "invert_decreasing", "integer_order_eps", "integer_order_delta",
           "round_up", "round_down", "golden_section_grid", "continuous_order_eps", "continuous_order_delta"]

_F, _C = libmp.round_floor, libmp.round_ceiling


def _bits(dps: int) -> int:
    return int(math.ceil(dps * math.log2(10))) + 4


def round_up(q, dps: int) -> mpmath.mpf:
    """The rational (or mpf) ``q`` rounded up to ``dps`` digits' worth of bits."""
    if isinstance(q, mpmath.mpf):
        q = mpf_to_fraction(q)
    return mpmath.mp.make_mpf(libmp.from_rational(q.numerator, q.denominator, _bits(dps), _C))


def round_down(q, dps: int) -> mpmath.mpf:
    """The rational (or mpf) ``q`` rounded down to ``dps`` digits' worth of bits."""
    if isinstance(q, mpmath.mpf):
        q = mpf_to_fraction(q)
    return mpmath.mp.make_mpf(libmp.from_rational(q.numerator, q.denominator, _bits(dps), _F))


@dataclass(frozen=True)
class Bracket:
    """A certified enclosure ``lo <= true quantity <= hi`` of a privacy parameter.

    ``quantity`` is ``"delta"`` (at ``at`` = eps) or ``"eps"`` (at ``at`` = delta);
    ``exact`` says whether the bracket encloses an exact profile (width = rounding only) or
    only brackets the truth between two bounds; ``source`` cites the result(s) used for each
    end; ``notes`` holds comparison values (e.g. the best generic conversion).
    """

    quantity: str
    lo: mpmath.mpf
    hi: mpmath.mpf
    exact: bool
    source: str
    lo_source: str = ""
    hi_source: str = ""
    notes: dict = field(default_factory=dict)

    @property
    def width(self) -> mpmath.mpf:
        return self.hi - self.lo

    def as_dict(self, digits: int = 17) -> dict:
        """The ends as decimal texts (:func:`~reference.precision.bounded_decimal`: directed, of bounded length).

        A delta is a probability: its upper end prints at most 1 (still an upper bound), and the width is
        that of the printed bracket.
        """
        from ..precision import bounded_decimal

        prob = self.quantity == "delta"
        hi = mpmath.mpf(1) if prob and self.hi > 1 else self.hi
        return {"quantity": self.quantity, "lower": bounded_decimal(self.lo, digits, "lower", probability=prob),
                "upper": bounded_decimal(self.hi, digits, "upper", probability=prob),
                "width": bounded_decimal(mpmath.fsub(hi, self.lo, prec=64, rounding="u"), 3, "upper") if mpmath.isfinite(hi) else "inf",
                "exact": self.exact, "source": self.source, "lower_source": self.lo_source or self.source,
                "upper_source": self.hi_source or self.source}


def enclose(pair_fn: Callable[[int], tuple], bits: int, max_prec: int = 1 << 16) -> tuple[mpmath.mpf, mpmath.mpf]:
    """(lo, hi) from ``pair_fn(prec) -> (lo, hi)`` (mpf), doubling ``prec`` until ``bits`` relative bits tight."""
    prec = bits + 32
    while True:
        lo, hi = pair_fn(prec)
        if lo == hi or prec >= max_prec:
            return lo, hi
        scale = max(abs(lo), abs(hi))
        if lo > 0 and (hi - lo) <= scale * mpmath.ldexp(1, -bits):
            return lo, hi
        if hi <= 0 and lo >= -mpmath.ldexp(1, -bits * 4):  # the value 0, enclosed
            return lo, hi
        prec = min(2 * prec, max_prec)


def invert_decreasing(enc: Callable[[Fraction, int], tuple], target: Fraction, lo: Fraction, hi: Fraction,
                      dps: int, start: tuple[Fraction, Fraction] | None = None) -> tuple[Fraction, Fraction]:
    """Certified (e_lo, e_hi) around the root of a strictly decreasing delta(eps) = target on [lo, hi].

    ``enc(eps, dps)`` returns a certified enclosure (lo, hi) of delta(eps) at about ``dps``
    digits.  Contract: delta(e_hi) <= target (certified: enc's upper end), and delta(e_lo) >
    target (certified: enc's lower end) unless e_lo == lo; so the smallest eps with
    delta(eps) <= target lies in (e_lo, e_hi].  Method: bisection on float midpoints of the
    enclosures at 12 digits, secant refinement at ``dps + 5`` digits, then outward steps of
    growing size until both ends are certified.  Preconditions: delta(lo) > target >= delta(hi).
    ``start`` (a, b), lo <= a < b <= hi, replaces [lo, hi] as the bisection's first bracket (a caller's
    faster search for it); it is not trusted: only [lo, hi] bounds the secant and the certification.
    """
    # 1. bisection at low precision
    a, b = (lo, hi) if start is None else start
    if not lo <= a < b <= hi:
        raise ValueError("start must satisfy lo <= a < b <= hi")
    for _ in range(64):
        if b - a <= (abs(b) + abs(a)) * Fraction(1, 10 ** 6) or b - a < Fraction(1, 10 ** 300):
            break
        m = (a + b) / 2
        mf = Fraction(float(m)).limit_denominator(1 << 40)
        m = mf if a < mf < b else m
        v = enc(m, 12)
        if mpf_to_fraction(v[0] + (v[1] - v[0]) / 2) > target:
            a = m
        else:
            b = m
    # 2. secant at full precision
    x0, x1 = a, b
    f0 = mpf_to_fraction(enc(x0, dps + 5)[1]) - target
    f1 = mpf_to_fraction(enc(x1, dps + 5)[1]) - target
    tol = Fraction(1, 10 ** (dps + 3))
    for _ in range(20):
        if f1 == f0 or abs(x1 - x0) <= tol * max(abs(x1), Fraction(1, 10 ** 300)):
            break
        x2 = x1 - f1 * (x1 - x0) / (f1 - f0)
        if not lo <= x2 <= hi:
            break
        x2 = mpf_to_fraction(round_up(x2, dps + 8))
        x0, f0 = x1, f1
        x1, f1 = x2, mpf_to_fraction(enc(x2, dps + 5)[1]) - target
    est = x1
    # 3. certify both ends, stepping outwards
    step = max(abs(est), Fraction(1, 10 ** 300)) * Fraction(1, 10 ** (dps + 1))
    e_hi = est
    for _ in range(400):
        e_hi = min(e_hi, hi)
        if e_hi == hi or mpf_to_fraction(enc(e_hi, dps + 5)[1]) <= target:
            break
        e_hi = e_hi + step
        step *= 4
    step = max(abs(est), Fraction(1, 10 ** 300)) * Fraction(1, 10 ** (dps + 1))
    e_lo = est - step
    for _ in range(400):
        e_lo = max(e_lo, lo)
        if e_lo == lo or mpf_to_fraction(enc(e_lo, dps + 5)[0]) > target:
            break
        step *= 4
        e_lo = e_lo - step
    return e_lo, e_hi


# ---------------------------------------------------------------------------
# RDP at integer orders -> DP (Balle et al. 2020 Thm 21 = Canonne-Kamath-Steinke Prop. 12)
# ---------------------------------------------------------------------------

def _best_order(values: Callable[[int], float], orders: Sequence[int]) -> int:
    best, arg = math.inf, orders[0]
    for a in orders:
        v = values(a)
        if v < best:
            best, arg = v, a
    return arg


def integer_order_eps(curve_upper: Callable[[int, int], mpmath.mpf], curve_float: Callable[[int], float],
                      delta: Fraction, orders: Sequence[int], *, dps: int = DEFAULT_DPS) -> tuple[mpmath.mpf, int]:
    """min over integer orders of balle2020hyp Theorem 21: eps_alpha + log((alpha-1)/alpha) - (log delta + log alpha)/(alpha-1).

    ``curve_upper(alpha, dps)`` is a certified upper bound on the (composed) RDP at order alpha
    (rounded up), ``curve_float(alpha)`` a float estimate used only to choose alpha.  Returns
    (eps rounded up, the order used).  Valid for every order, so the choice only affects tightness.
    """
    ld = math.log(float(delta)) if delta > Fraction(1, 10 ** 300) else -690.0 - math.log(float(1 / delta) / 1e300)

    def f(a):
        v = curve_float(a)
        return v + math.log((a - 1) / a) - (ld + math.log(a)) / (a - 1)

    a = _best_order(f, orders)
    cand = {a}
    i = list(orders).index(a)
    if i > 0:
        cand.add(orders[i - 1])
    if i + 1 < len(orders):
        cand.add(orders[i + 1])
    best = None
    for al in sorted(cand):
        e = rdp_to_dp_eps_improved(al, curve_upper(al, dps + 5), delta, dps=dps)
        if best is None or e < best[0]:
            best = (max(e, mpmath.mpf(0)), al)
    return best


def integer_order_delta(curve_upper: Callable[[int, int], mpmath.mpf], curve_float: Callable[[int], float],
                        eps: Fraction, orders: Sequence[int], *, dps: int = DEFAULT_DPS) -> tuple[mpmath.mpf, int]:
    """min over integer orders of canonne2020 Proposition 12: exp((alpha-1)(eps_alpha - eps))/(alpha-1) (1-1/alpha)^alpha.

    Returns (delta rounded up, capped at 1, the order used).
    """
    fe = float(eps)

    def f(a):
        return (a - 1) * (curve_float(a) - fe) - math.log(a - 1) + a * math.log1p(-1 / a)

    a = _best_order(f, orders)
    cand = {a}
    i = list(orders).index(a)
    if i > 0:
        cand.add(orders[i - 1])
    if i + 1 < len(orders):
        cand.add(orders[i + 1])
    best = None
    for al in sorted(cand):
        d = rdp_to_dp_delta_cks(al, curve_upper(al, dps + 5), eps, dps=dps)
        if best is None or d < best[0]:
            best = (min(d, mpmath.mpf(1)), al)
    return best


def certified_const(q: Fraction, direction: str, dps: int) -> mpmath.mpf:
    """The rational ``q`` rounded once in ``direction``."""
    return rational(q, direction, dps)


# ---------------------------------------------------------------------------
# RDP at continuous (rational) orders -> DP: a deterministic search, certified at the order found
# ---------------------------------------------------------------------------

_MODEL_CTX = MPContext()  # private 64-bit context for the search objective (pure-integer arithmetic: the same on every machine)
_MODEL_CTX.prec = 64
_GOLD = 0.3819660112501051  # 2 - golden ratio


def _model_mpf(x) -> mpmath.mpf:
    c = _MODEL_CTX
    if x is None:
        return c.inf
    v = c.mpf(x)
    return v if c.isfinite(v) else c.inf


def golden_section_grid(objective: Callable[[int], object], n_lo: int, n_hi: int) -> int:
    """A minimiser of ``objective`` over the integers ``n_lo..n_hi`` by golden-section search (exact for a unimodal objective).

    ``objective`` returns comparable values (``mpf``; ``inf`` where undefined); ties go to the
    smaller ``n``.  The points probed depend only on the values returned, so a deterministic
    objective gives the same answer on every machine.  Used only to choose a Renyi order:
    the result affects tightness, never validity.
    """
    if n_lo > n_hi:
        raise ValueError(f"empty grid {n_lo}..{n_hi}")
    seen: dict[int, object] = {}

    def F(n):
        if n not in seen:
            seen[n] = objective(n)
        return seen[n]

    a, b = n_lo, n_hi
    c = a + round((b - a) * _GOLD)
    d = a + b - c
    while b - a > 4:
        if not (a < c < d < b) or (d - c) * 6 < (b - a):  # integer rounding degenerated the split: reset it
            c = a + max(1, round((b - a) * _GOLD))
            d = a + b - c
            if not c < d:
                break
        if F(c) <= F(d):
            b, d = d, c
            c = a + b - d
        else:
            a, c = c, d
            d = a + b - c
        if c > d:
            c, d = d, c
    return min(range(a, b + 1), key=lambda n: (F(n), n))


def continuous_order_eps(curve_upper: Callable[[Fraction, int], mpmath.mpf], curve_model: Callable[[Fraction], float],
                         delta: Fraction, lo: Fraction, hi: Fraction, *, dps: int = DEFAULT_DPS,
                         grid: int = 1024) -> tuple[mpmath.mpf, Fraction]:
    """balle2020hyp Theorem 21 at a rational order alpha in [lo, hi] chosen by search: (eps rounded up, alpha).

    ``curve_upper(alpha, dps)`` is a certified upper bound on the (composed) RDP at the rational
    order alpha > 1 (rounded up); ``curve_model(alpha)`` a deterministic float estimate of it, used
    only to choose alpha.  The search (:func:`golden_section_grid` on the orders n/grid in
    [lo, hi], objective eps_alpha + log((alpha-1)/alpha) - (log delta + log alpha)/(alpha-1) evaluated
    in a private 64-bit context) assumes nothing for validity: the value returned is Theorem 21
    evaluated at the order found with the certified curve, rounded up, clipped at 0.
    """
    c = _MODEL_CTX
    ld = c.log(c.mpf(delta.numerator)) - c.log(c.mpf(delta.denominator))
    n_lo = max(math.ceil(lo * grid), grid + 1)
    n_hi = math.floor(hi * grid)

    def objective(n):
        a = c.mpf(n) / grid
        v = _model_mpf(curve_model(Fraction(n, grid)))
        return v + c.log((a - 1) / a) - (ld + c.log(a)) / (a - 1)

    alpha = Fraction(golden_section_grid(objective, n_lo, n_hi), grid)
    e = rdp_to_dp_eps_improved(alpha, curve_upper(alpha, dps + 5), delta, dps=dps)
    return max(e, mpmath.mpf(0)), alpha


def continuous_order_delta(curve_upper: Callable[[Fraction, int], mpmath.mpf], curve_model: Callable[[Fraction], float],
                           eps: Fraction, lo: Fraction, hi: Fraction, *, dps: int = DEFAULT_DPS,
                           grid: int = 1024) -> tuple[mpmath.mpf, Fraction]:
    """canonne2020 Proposition 12 at a rational order alpha in [lo, hi] chosen by search: (delta rounded up, capped at 1, alpha).

    As :func:`continuous_order_eps`, with the objective log delta_alpha =
    (alpha-1)(eps_alpha - eps) - log(alpha-1) + alpha log(1-1/alpha).
    """
    c = _MODEL_CTX
    e0 = c.mpf(eps.numerator) / eps.denominator
    n_lo = max(math.ceil(lo * grid), grid + 1)
    n_hi = math.floor(hi * grid)

    def objective(n):
        a = c.mpf(n) / grid
        v = _model_mpf(curve_model(Fraction(n, grid)))
        return (a - 1) * (v - e0) - c.log(a - 1) + a * c.log((a - 1) / a)

    alpha = Fraction(golden_section_grid(objective, n_lo, n_hi), grid)
    d = rdp_to_dp_delta_cks(alpha, curve_upper(alpha, dps + 5), eps, dps=dps)
    return min(d, mpmath.mpf(1)), alpha
