"""The exact privacy profile of a composition of pure eps_i-DP mechanisms (equivalently eps_i-randomized response).

Sources (published statements, already catalog entries; wrapped here in the profile interface):

* homogeneous, k copies of (eps0, delta0)-DP: Kairouz, Oh, Viswanath 2015, Theorem 3.3 (arXiv
  1311.0776), :func:`~reference.bounds.optimal_composition.kov_delta` / :func:`~reference.bounds.optimal_composition.kov_eps`
  (catalog ``kairouz2015_thm3_3_delta`` / ``_eps``);
* heterogeneous (eps_i, delta_i): Murtagh, Vadhan 2016 (the same hockey-stick sum over the exact
  loss lattice), :func:`~reference.bounds.optimal_composition.hetero_optimal_delta` / ``_eps`` (catalog
  ``murtagh2016_hetero_optimal_delta`` / ``_eps``); at most 2^22 distinct losses.

Both are *exact* optimal composition: randomized response attains them, so a Bracket from here is
the exact profile of RR and a tight upper bound for any eps_i-DP mechanisms.

:func:`pure_dp_profile` takes the composition as (eps0, delta0, count) triples and never expands
a count: the exact routes run up to :data:`HOM_K_MAX` steps (one distinct step) or
:data:`HET_K_MAX` steps (several), beyond which it returns a certified bracket (lower end: the
best single item's exact profile on at most :data:`SUB_K_MAX` of its steps, dropping steps being
post-processing; upper end: the exact profile of all steps at the largest (eps0, delta0), and
kairouz2015 Theorem 3.5's closed form with the counts as weights).
"""
from __future__ import annotations

import math
from fractions import Fraction
from typing import Sequence

import mpmath
from mpmath import libmp

from ..bounds import classical as _cl
from ..precision import DEFAULT_DPS, Domain, certified, check, check_dps, check_seq, mpf_to_fraction
from .conversions import Bracket, invert_decreasing, round_down, round_up

__all__ = ["pure_dp_delta", "pure_dp_eps", "pure_dp_delta_pair", "pure_dp_profile", "HOM_K_MAX", "HET_K_MAX", "SUB_K_MAX",
           "EPS0_MAX"]

NN = Domain.nonnegative()
P = Domain.positive()
U = Domain.open_unit()
D0 = Domain.unit_nonneg()
SOURCE_HOM = "kairouz2015 Theorem 3.3 (optimal homogeneous composition)"
SOURCE_HET = "murtagh2016 optimal heterogeneous composition (exact loss lattice)"
SOURCE_CF = ("kairouz2015 Theorem 3.5 (heterogeneous closed form, counts as weights) with the delta "
             "1 - prod (1 - delta0_i)^(k_i) of Theorem 3.3")
SOURCE_DOM = "kairouz2015 Theorem 3.3 at the largest (eps0, delta0) (every step is (max eps0, max delta0)-DP)"
SOURCE_SUB = ("kairouz2015 Theorem 3.3 for the largest single item, on at most 10^6 of its steps "
              "(dropping steps is post-processing)")

#: Most steps of the exact homogeneous route (kairouz2015 Theorem 3.3; eps(delta) takes about 2 s at 10^7).
HOM_K_MAX = _cl.K_MAX
#: Most steps (in all) of the exact heterogeneous route (murtagh2016), whose cost grows as steps x distinct
#: losses (about 2 s at 1000 + 1000 steps); it also needs at most 2^22 distinct losses.
HET_K_MAX = 2000
#: Most steps of the sub-composition whose exact profile is the bracket's lower end (about 0.3 s at 10^6).
SUB_K_MAX = 10 ** 6
#: Largest eps0 of a step that the exact routes and the closed form take (they form e^eps0);
#: a larger one is bounded by eps0 = EPS0_MAX below (a post-processing) and by basic composition above.
EPS0_MAX = Fraction(10 ** 6)


def _bits(dps):
    return _cl._bits(dps)


def _homogeneous(es: Sequence[Fraction], ds: Sequence[Fraction]) -> bool:
    return len(set(es)) == 1 and len(set(ds)) == 1


def pure_dp_delta_pair(es: Sequence[Fraction], ds: Sequence[Fraction], eps: Fraction, dps: int) -> tuple[mpmath.mpf, mpmath.mpf]:
    """Certified (lo, hi) of the optimal delta(eps) of the composition of (eps_i, delta_i)-DP steps."""
    bits = _bits(dps)
    if _homogeneous(es, ds) and es[0] > 0:
        lo, hi = _cl._kov_total_pair(es[0], ds[0], len(es), eps, bits)
        return _cl._mk(lo), _cl._mk(hi)
    D, counts, E, D0v = _cl._hetero_setup(es, ds)
    prec = bits + 64
    while True:
        H = _cl._hetero_rr_delta_pair(es, D, counts, E, eps, prec)
        tot = _cl._padd(H, _cl._pmul(_cl._pq(D0v, prec), _cl._pone_minus(H, prec), prec), prec)
        if _cl._rel_ok(tot, bits + 2) or prec >= _cl.MAX_PREC_BITS or tot[1] == _cl._ZERO:
            return _cl._mk(tot[0]), _cl._mk(tot[1])
        prec *= 2


def _parse(eps0s, delta0s):
    es = check_seq("eps0", eps0s, NN)
    ds = check_seq("delta0", delta0s, D0) if delta0s is not None else tuple(Fraction(0) for _ in es)
    if len(ds) != len(es):
        raise ValueError(f"delta0 must have the same length as eps0 ({len(es)}), found length {len(ds)}")
    return es, ds


def pure_dp_delta(eps0s, eps, *, delta0s=None, dps: int = DEFAULT_DPS) -> Bracket:
    """Exact optimal delta(eps) of the composition of (eps0_i, delta0_i)-DP mechanisms, as a certified Bracket.

    Homogeneous lists go to kairouz2015 Theorem 3.3 (any k <= 10^7), others to murtagh2016
    (lattice of at most 2^22 distinct losses).  ``exact`` is True.
    """
    dps = check_dps(dps)
    es, ds = _parse(eps0s, delta0s)
    e = check("eps", eps, NN)
    lo, hi = pure_dp_delta_pair(es, ds, e, dps)
    src = SOURCE_HOM if _homogeneous(es, ds) else SOURCE_HET
    return Bracket("delta", round_down(max(lo, mpmath.mpf(0)), dps), round_up(hi, dps), True, src)


def _eps_from(hi: mpmath.mpf, pair, d: Fraction, top: Fraction, dps: int, src: str) -> Bracket:
    """The exact eps(delta) Bracket from its certified upper end ``hi`` and the certified delta enclosure ``pair(x, dps)``."""
    if not mpmath.isfinite(hi):
        return Bracket("eps", _cl.INF, _cl.INF, True, src)
    if hi == 0:
        return Bracket("eps", mpmath.mpf(0), mpmath.mpf(0), True, src)
    hq = mpf_to_fraction(hi)
    cand = hq * (1 - Fraction(1, 10 ** max(dps - 3, 3)))
    if _cmp(pair(cand, dps)[0], d) > 0:
        lo = cand
    else:
        lo, _ = invert_decreasing(pair, d, Fraction(0), top, dps)
    return Bracket("eps", round_down(lo, dps), hi, True, src)


def pure_dp_eps(eps0s, delta, *, delta0s=None, dps: int = DEFAULT_DPS) -> Bracket:
    """Exact optimal eps(delta) of the composition of (eps0_i, delta0_i)-DP mechanisms, as a certified Bracket.

    Upper end: kov_eps / hetero_optimal_eps (rounded up, certified by those functions).  Lower
    end: a candidate just below it, certified by a forward evaluation (delta(lo) > delta), or
    by :func:`~reference.profiles.conversions.invert_decreasing` when that fails.  ``inf`` when
    delta < 1 - prod(1 - delta0_i).
    """
    dps = check_dps(dps)
    es, ds = _parse(eps0s, delta0s)
    d = check("delta", delta, U)
    hom = _homogeneous(es, ds) and es[0] > 0
    src = SOURCE_HOM if hom else SOURCE_HET
    if hom:
        hi = _cl.kov_eps(es[0], ds[0], len(es), d, dps=dps)
    else:
        hi = _cl.hetero_optimal_eps(es, ds, d, dps=dps)
    return _eps_from(hi, lambda x, p: pure_dp_delta_pair(es, ds, x, p), d, sum(es), dps, src)


# ---------------------------------------------------------------------------
# Counts in closed form: (eps0, delta0, count) triples
# ---------------------------------------------------------------------------

def _triples(items) -> tuple[tuple[Fraction, Fraction, int], ...]:
    """Exact (eps0, delta0, count) triples, equal (eps0, delta0) merged by adding counts (order of first appearance)."""
    merged: dict[tuple[Fraction, Fraction], int] = {}
    for i, it in enumerate(items):
        try:
            e, d, n = it
        except (TypeError, ValueError):
            raise ValueError(f"items[{i}] must be an (eps0, delta0, count) triple, found {it!r}") from None
        e, d = check("eps0", e, NN), check("delta0", d, D0)
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            raise ValueError(f"items[{i}]: the count must be an integer >= 1, found {n!r}")
        merged[(e, d)] = merged.get((e, d), 0) + n
    if not merged:
        raise ValueError("the composition is empty")
    return tuple((e, d, n) for (e, d), n in merged.items())


def _expand(tr):
    """The step lists of a composition small enough to enumerate (callers bound the total count by HET_K_MAX)."""
    es = [e for e, _, n in tr for _ in range(n)]
    ds = [d for _, d, n in tr for _ in range(n)]
    return es, ds


def _lattice_small(tr) -> bool:
    """True when the loss lattice surely has at most 2^22 points: prod (k_i + 1) or the span 2 sum k_i eps_i D + 1 is small."""
    prod = 1
    for e, _, n in tr:
        if e > 0:
            prod *= n + 1
            if prod > _cl.MAX_LATTICE:
                break
    if prod <= _cl.MAX_LATTICE:
        return True
    D = 1
    for e, _, _ in tr:
        D = D * e.denominator // math.gcd(D, e.denominator)
    return 2 * sum(e * n for e, _, n in tr) * D + 1 <= _cl.MAX_LATTICE


def _exact_pair(tr, eps: Fraction, dps: int) -> tuple[mpmath.mpf, mpmath.mpf]:
    """Certified (lo, hi) of the exact delta(eps) (kairouz2015 Thm 3.3 for one distinct step, else murtagh2016)."""
    if len(tr) == 1 and tr[0][0] > 0:
        e0, d0, n = tr[0]
        lo, hi = _cl._kov_total_pair(e0, d0, n, eps, _bits(dps))
        return _cl._mk(lo), _cl._mk(hi)
    es, ds = _expand(tr)
    return pure_dp_delta_pair(es, ds, eps, dps)


def _exact_profile(tr, quantity: str, at: Fraction, dps: int) -> Bracket:
    src = SOURCE_HOM if len(tr) == 1 and tr[0][0] > 0 else SOURCE_HET
    if quantity == "delta":
        lo, hi = _exact_pair(tr, at, dps)
        return Bracket("delta", round_down(max(lo, mpmath.mpf(0)), dps), round_up(hi, dps), True, src)
    if len(tr) == 1 and tr[0][0] > 0:
        hi = _cl.kov_eps(tr[0][0], tr[0][1], tr[0][2], at, dps=dps)
    else:
        hi = _cl.hetero_optimal_eps(*_expand(tr), at, dps=dps)
    return _eps_from(hi, lambda x, p: _exact_pair(tr, x, p), at, sum(e * n for e, _, n in tr), dps, src)


def _cmp(x: mpmath.mpf, q: Fraction) -> int:
    """The exact sign of x - q for an mpf ``x`` (infinities allowed, any exponent) and a rational ``q``.

    Never converts an astronomically small or large ``x`` to a Fraction (e^-(10^9) would need a
    10^9-bit denominator): ``x`` is first compared with ``q`` rounded down and up to 64 bits;
    only an ``x`` within that rounding of ``q`` (so of ``q``'s size) is compared exactly.
    """
    if mpmath.isinf(x):
        return 1 if x > 0 else -1
    lo = mpmath.mp.make_mpf(libmp.from_rational(q.numerator, q.denominator, 64, libmp.round_floor))
    hi = mpmath.mp.make_mpf(libmp.from_rational(q.numerator, q.denominator, 64, libmp.round_ceiling))
    if x < lo:
        return -1
    if x > hi:
        return 1
    v = mpf_to_fraction(x)
    return (v > q) - (v < q)


def _keep_formula(tr):
    """(args, f): f(c, *args) encloses P = prod (1 - delta0_i)^(k_i), the chance that no step fails (1 without deltas)."""
    ds = tuple(d for _, d, _ in tr if d > 0)
    ns = tuple(n for _, d, n in tr if d > 0)

    def f(c, *x):
        return c.exp(sum((n * c.log(1 - v) for v, n in zip(x, ns)), c.mpf(0)))

    return ds, f


def _keep(tr, dps: int, direction: str) -> mpmath.mpf:
    """P = prod (1 - delta0_i)^(k_i) rounded in ``direction`` (exactly 1 when every delta0 is 0)."""
    ds, f = _keep_formula(tr)
    return certified(f, ds, direction, dps) if ds else mpmath.mpf(1)


def _closed_form(tr, quantity: str, at: Fraction, dps: int):
    """kairouz2015 Theorem 3.5 (as in :func:`~reference.bounds.classical.kov_hetero_closed_form_eps`) with counts as weights.

    With F = sum k_i eps_i tanh(eps_i/2), V = sum k_i eps_i^2 and P = prod (1 - delta0_i)^(k_i), the
    composition is (F + sqrt(2 V log(1/dt)), 1 - P (1 - dt))-DP (and likewise with
    log(e + sqrt(V)/dt)) for every dt in (0, 1]; so delta(eps) <= 1 - P (1 - exp(-(eps - F)^2/(2V)))
    for eps > F (the third branch solved for dt), and eps(delta) <= the branches at
    dt = 1 - (1 - delta)/P (rounded down).  Returns an upper end, or None where it says nothing.
    """
    pos = [(e, n) for e, _, n in tr if e > 0]
    if not pos:
        return None
    V = sum(n * e * e for e, n in pos)
    args = tuple(x for e, n in pos for x in (e, Fraction(n)))
    m = len(args)
    dargs, keep = _keep_formula(tr)

    def F(c, *a):
        return sum((a[i + 1] * a[i] * (1 - 2 / (c.exp(a[i]) + 1)) for i in range(0, len(a), 2)), c.mpf(0))

    if quantity == "delta":
        if at <= mpf_to_fraction(certified(F, args, "upper", dps)):
            return None
        return min(certified(lambda c, x, v, *a: 1 - keep(c, *a[m:]) * (1 - c.exp(-(x - F(c, *a[:m])) ** 2 / (2 * v))),
                             (at, V) + args + dargs, "upper", dps), mpmath.mpf(1))
    t = at
    if dargs:
        t = mpf_to_fraction(certified(lambda c, d, *a: 1 - (1 - d) / keep(c, *a), (at,) + dargs, "lower", dps + 5))
    if t <= 0:
        return None
    b2 = certified(lambda c, v, dt, *a: F(c, *a) + c.sqrt(2 * v * c.log(c.e + c.sqrt(v) / dt)), (V, t) + args, "upper", dps)
    b3 = certified(lambda c, v, dt, *a: F(c, *a) + c.sqrt(-2 * v * c.log(dt)), (V, t) + args, "upper", dps)
    return min(b2, b3)


def _bracket(tr, quantity: str, at: Fraction, dps: int, lower: bool = True) -> Bracket:
    """A certified bracket where the exact routes are out of reach (module docstring); counts are never expanded."""
    S = sum(e * n for e, _, n in tr)  # the largest composed loss: delta(eps) = 1 - P for eps >= S
    bits = _bits(dps)
    lows, his = [mpmath.mpf(0)], []
    lo_src, hi_src = "0 (trivial)", ""
    if quantity == "eps":
        if _cmp(_keep(tr, dps + 5, "upper"), 1 - at) < 0:  # 1 - P > delta: no eps suffices
            return Bracket("eps", _cl.INF, _cl.INF, True, "kairouz2015 Theorem 3.3: delta < 1 - prod (1 - delta0_i)^(k_i)")
        if _cmp(_keep(tr, dps + 5, "lower"), 1 - at) >= 0:
            his.append(round_up(S, dps))
            hi_src = "basic composition (sum k_i eps0_i)"
    elif at >= S:  # delta(eps) = 1 - P exactly (the randomized-response part vanishes)
        his.append(mpmath.fsub(1, _keep(tr, dps + 5, "lower"), prec=bits, rounding="u"))
        lows.append(mpmath.fsub(1, _keep(tr, dps + 5, "upper"), prec=bits, rounding="d"))
        lo_src = hi_src = "basic composition: no loss exceeds sum k_i eps0_i, so delta = 1 - prod (1 - delta0_i)^(k_i)"
    for e, d, n in tr if lower else ():  # lower end: one item alone, on at most SUB_K_MAX steps, at eps0 <= EPS0_MAX
        if e > 0:
            v = _exact_profile(((min(e, EPS0_MAX), d, min(n, SUB_K_MAX)),), quantity, at, dps).lo
            if v > max(lows):
                lo_src = SOURCE_SUB
            lows.append(v)
    emax, dmax, N = max(e for e, _, _ in tr), max(d for _, d, _ in tr), sum(n for _, _, n in tr)
    if 0 < emax <= EPS0_MAX and N <= HOM_K_MAX:
        v = _exact_profile(((emax, dmax, N),), quantity, at, dps).hi
        if not his or v < min(his):
            hi_src = SOURCE_DOM
        his.append(v)
    if emax <= EPS0_MAX:
        v = _closed_form(tr, quantity, at, dps)
        if v is not None:
            if not his or v < min(his):
                hi_src = SOURCE_CF
            his.append(v)
    hi = min(his) if his else (mpmath.mpf(1) if quantity == "delta" else _cl.INF)
    lo = max(lows)
    return Bracket(quantity, lo, max(hi, lo), False, "bracket", lo_source=lo_src, hi_source=hi_src or "trivial")


def pure_dp_profile(items, quantity: str, at, *, lower: bool = True, dps: int = DEFAULT_DPS) -> Bracket:
    """Certified delta(eps) (``quantity="delta"``, ``at`` = eps) or eps(delta) (``"eps"``, ``at`` = delta) of (eps0, delta0, count) triples.

    The optimal composition of ``count`` (eps0, delta0)-DP steps per item, i.e. of that many
    randomized responses.  Exact (kairouz2015 Theorem 3.3) for one distinct (eps0, delta0) with
    eps0 in (0, EPS0_MAX] and at most HOM_K_MAX steps; exact (murtagh2016) for several with at
    most HET_K_MAX steps in all and at most 2^22 distinct losses; a certified bracket otherwise
    (module docstring), so a count is never expanded into a list beyond HET_K_MAX entries.
    (0, 0)-DP steps are dropped (they leak nothing).  Rounding: lower ends down, upper ends up.
    ``lower=False`` skips the bracket's lower-end work when only the upper end is wanted (the
    lower end is then the trivial bound, or what the upper-end work certified on the way).
    Raises ValueError naming a bad item.

    >>> b = pure_dp_profile([("0.01", 0, 10 ** 12)], "eps", "1e-6", dps=20)
    >>> (b.exact, 96 < b.lo < 97, 5e7 < b.hi < 5.01e7)  # 10^12 steps: [10^6-step exact profile, closed form]
    (False, True, True)
    """
    dps = check_dps(dps)
    tr = _triples(items)
    if quantity == "delta":
        a = check("eps", at, NN)
    elif quantity == "eps":
        a = check("delta", at, U)
    else:
        raise ValueError(f"quantity must be 'delta' or 'eps', found {quantity!r}")
    tr = tuple(t for t in tr if t[0] > 0 or t[1] > 0)
    if not tr:
        return Bracket(quantity, mpmath.mpf(0), mpmath.mpf(0), True, "every step is (0, 0)-DP")
    N = sum(n for _, _, n in tr)
    emax = max(e for e, _, _ in tr)
    if emax <= EPS0_MAX and ((len(tr) == 1 and tr[0][0] > 0 and N <= HOM_K_MAX)
                             or (N <= HET_K_MAX and _lattice_small(tr))):
        return _exact_profile(tr, quantity, a, dps)
    return _bracket(tr, quantity, a, dps, lower)
