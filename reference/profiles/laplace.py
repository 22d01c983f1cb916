"""The exact privacy profile of the k-fold Laplace mechanism (sensitivity Delta, scale b): delta(eps) and eps(delta).

Source (derived; paper key ``sommer2019``): the privacy loss distribution (PLD) of the Laplace
mechanism, Sommer, Meiser, Mohammadi, *Privacy Loss Classes: The Central Limit Theorem in
Differential Privacy* (PoPETS 2019(2), IACR ePrint 2018/820), Section 5 (Laplace PLD), composed
exactly here.  With eps0 = Delta/b and x ~ Lap(0, b), the loss ``L = (|x - Delta| - |x|)/b`` of one
step has, under P, the law::

    P(L = eps0) = 1/2,  P(L = -eps0) = e^{-eps0}/2,  density e^{-eps0/2} e^{l/2}/4 on (-eps0, eps0),

i.e. ``P_L(dl) = e^{-eps0/2} e^{l/2} nu(dl)`` with ``nu = (delta_{eps0} + delta_{-eps0})/2 + Leb|(-eps0, eps0)/4``
(symmetric; ``Q_L(dl) = e^{-eps0/2} e^{-l/2} nu(dl)``).  The k-fold loss S therefore has
``P_S(ds) = e^{-k eps0/2} e^{s/2} nu^{*k}(ds)``, and ``nu^{*k}`` is explicit: atoms
C(k,i) 2^-k at (k - 2i) eps0, plus the spline::

    sum_{n=0}^{k} sum_{j=1}^{k} C(k,j) 2^{-(k+j)} g_{j,n} ((s - (k-2n) eps0)_+)^{j-1}/(j-1)!,

with g_{j,n} the coefficient of x^n in (1 + x)^{k-j} (x - 1)^j (the Irwin-Hall form of the
j-fold uniform, convolved with the atoms; derivation in the docstring of ``_spline``).
delta(eps) = E_P[(1 - e^{eps - S})_+] is then a finite sum of exact dyadic rationals times
exponentials, each integral int u^m e^{+-u/2} du in closed form.  The sum has heavy
cancellation (terms ~2^k e^{k eps0} for a value <= 1); it is evaluated in interval arithmetic
with the precision doubled until the enclosure is tight, so the result is certified.

Limits: 1 <= k <= K_MAX = 2000 (cost O(k^2) interval operations at O(k + k eps0) bits per
evaluation; delta(eps) takes ~0.1 s at k = 100, ~10 s at k = 500, and eps(delta) about 15
evaluations); eps0 <= 50.  Beyond them, and for several scales, :func:`laplace_profile_delta`
brackets the truth, never claiming an exact value: below by the best exact one-scale
sub-composition (dropping mechanisms is post-processing) or, for more than K_MAX steps, by the
randomized response that thresholding each output at Delta/2 gives (composed exactly); above
by the optimal composition of the pure eps_i-DP steps (Murtagh-Vadhan; KOV Theorem 3.5's
closed form beyond 10^7 steps) and the summed Laplace RDP.  Counts are never expanded.
"""
from __future__ import annotations

import math
import threading
from fractions import Fraction
from functools import lru_cache
from typing import Sequence

import mpmath
from flint import fmpq, fmpq_poly, fmpz_poly

from ..catalog import Param, register
from ..precision import DEFAULT_DPS, Domain, _ctx, certified, check, check_dps, check_seq, iv_const, mpf_to_fraction
from .conversions import Bracket, enclose, invert_decreasing, round_down, round_up

__all__ = ["K_MAX", "EPS0_MAX", "laplace_kfold_delta_enclosure", "laplace_kfold_delta", "laplace_kfold_delta_lower",
           "laplace_kfold_eps", "laplace_kfold_eps_bracket", "laplace_profile_delta", "laplace_profile_eps"]

K_MAX = 2000
EPS0_MAX = Fraction(50)
P = Domain.positive()
NN = Domain.nonnegative()
U = Domain.open_unit()
KDOM = Domain(lo=Fraction(1), hi=Fraction(K_MAX), lo_closed=True, hi_closed=True, integer=True)

SOURCE = ("exact k-fold Laplace PLD (Sommer-Meiser-Mohammadi 2019, Laplace PLD; composed exactly by the Irwin-Hall "
          "spline, reference.profiles.laplace)")


@lru_cache(maxsize=64)
def _spline(k: int) -> tuple[tuple[int, tuple[int, ...], tuple[int, ...]], ...]:
    """Exact coefficients of the k-fold spline, per shift n (c_n = (k - 2n) eps0), scaled by 2^(2k+1).

    Returns, for n = 1..k, (n, B+, B-) with beta+-_m = B+-_m / 2^(2k) for m = 0..k-1, where
    int p_n(u) e^{u/2} du = e^{u/2} sum_m beta+_m u^m/m! and int p_n(u) e^{-u/2} du =
    -e^{-u/2} sum_m beta-_m u^m/m!, p_n(u) = sum_{j>=1} a_{j,n} u^{j-1}/(j-1)!,
    a_{j,n} = C(k,j) 2^{-(k+j)} g_{j,n}.  Recurrences: beta+_m = 2 a_{m+1} - 2 beta+_{m+1},
    beta-_m = 2 a_{m+1} + 2 beta-_{m+1} (antiderivatives of u^r/r! e^{+-u/2}).

    Derivation: nu^{*k} = sum_j C(k,j) (1/4)^j (1/2)^{k-j} (delta_{eps0} + delta_{-eps0})^{*(k-j)} * U^{*j},
    U^{*j}(dx) = sum_m (-1)^m C(j,m) ((x + j eps0 - 2 m eps0)_+)^{j-1}/(j-1)! dx (Irwin-Hall, unnormalised);
    the atom (k-j-2i) eps0 and the shift j eps0 - 2 m eps0 combine to c = (k - 2j - 2(i - m)) eps0
    = (k - 2n) eps0 with n = i - m + j, and sum_{i - m = n - j} (-1)^m C(k-j,i) C(j,m) = g_{j,n}.
    """
    # g_j = coefficients of (1+x)^{k-j} (x-1)^j, j = 0..k; G_{j+1} = G_j (x-1)/(x+1) exactly.
    g = [math.comb(k, n) for n in range(k + 1)]  # j = 0
    a = [[0] * (k + 1) for _ in range(k + 1)]  # a[j][n] * 2^(2k) (integer: C(k,j) 2^(k-j) g)
    for j in range(1, k + 1):
        # multiply by (x - 1)
        h = [0] * (k + 2)
        for n, v in enumerate(g):
            h[n + 1] += v
            h[n] -= v
        # divide by (x + 1) exactly (synthetic division from the top)
        q = [0] * (k + 1)
        rem = h[:]
        for n in range(k + 1, 0, -1):
            q[n - 1] = rem[n]
            rem[n - 1] -= rem[n]
        assert rem[0] == 0
        g = q
        cj = math.comb(k, j) << (k - j)
        for n in range(k + 1):
            a[j][n] = cj * g[n]
    out = []
    for n in range(1, k + 1):
        bp = [0] * (k + 1)
        bm = [0] * (k + 1)
        for m in range(k - 1, -1, -1):
            am = a[m + 1][n]
            bp[m] = 2 * am - 2 * bp[m + 1]
            bm[m] = 2 * am + 2 * bm[m + 1]
        out.append((n, tuple(bp[:k]), tuple(bm[:k])))
    return tuple(out)


@lru_cache(maxsize=64)
def _spline_polys(k: int) -> tuple[tuple[int, object, object, object], ...]:
    """Per n = 1..k: (n, W+_n, W-_n, W+_n + W-_n), integer polynomials (FLINT ``fmpz_poly``) with W_m = B_m K!/m!, K = k - 1.

    Then sum_m B_m x^m/m! = W(x)/K! exactly (:func:`_spline`), and FLINT evaluates W at a
    rational x exactly (``fmpz_poly`` at ``fmpq``: integers throughout, no rounding), so every
    exact part below is the same rational as a term-by-term sum over Fractions would give.
    """
    K = k - 1
    w = [math.factorial(K) // math.factorial(m) for m in range(K + 1)]
    out = []
    for n, bp, bm in _spline(k):
        wp = fmpz_poly([b * c for b, c in zip(bp, w)])
        wm = fmpz_poly([b * c for b, c in zip(bm, w)])
        out.append((n, wp, wm, wp + wm))
    return tuple(out)


def _fraction(x) -> Fraction:
    """The FLINT rational ``x`` as a Fraction (both are kept in lowest terms: the same value, the same pair)."""
    return Fraction(int(x.p), int(x.q))


#: up to this k an eps(delta) search takes the eps-dependent sum C of :func:`_exact_parts` from one precomposed
#: polynomial: building them costs O(k^3) rational operations once (~2 ms at k = 50, ~0.15 s at k = 200), repaid
#: over the search's ~15 evaluations; a single delta(eps) keeps the k - M evaluations (the same rational either way)
COMPOSE_K_MAX = 200


@lru_cache(maxsize=16)
def _c_suffix_polys(e0: Fraction, k: int) -> tuple:
    """R_j(x) = sum over the j largest n of (W+_n + W-_n)(x - c_n), j = 0..k (FLINT ``fmpq_poly``, exact).

    The n with c_n = (k - 2n) eps0 < eps are the largest ones, so the C of :func:`_exact_parts` is
    R_j(eps)/K! with j their count: one exact evaluation instead of j.
    """
    acc = fmpq_poly([])
    out = [acc]
    for n, _, _, wpm in reversed(_spline_polys(k)):
        cn = (k - 2 * n) * e0
        acc = acc + fmpq_poly(wpm)(fmpq_poly([fmpq(-cn.numerator, cn.denominator), 1]))
        out.append(acc)
    return tuple(out)


@lru_cache(maxsize=64)
def _upper_ends(e0: Fraction, k: int) -> tuple[Fraction, Fraction]:
    """A = sum_n P+_n(2 n eps0), B = sum_n P-_n(2 n eps0): the antiderivatives at the upper ends u1 = k eps0 - c_n (eps-free)."""
    p, q = e0.numerator, e0.denominator
    A = B = fmpq(0)
    for n, wp, wm, _ in _spline_polys(k):
        x = fmpq(2 * n * p, q)
        A += wp(x)
        B += wm(x)
    f = math.factorial(k - 1)
    return _fraction(A) / f, _fraction(B) / f


@lru_cache(maxsize=256)
def _exact_parts(e0: Fraction, k: int, eps: Fraction, composed: bool = False):
    """The exact rational parts of delta(eps) (see :func:`_delta_iv`); eps < k eps0.

    Returns (A, B, C, plus0, minus0, atoms):
    A = sum_n P+_n(2 n eps0), B = sum_n P-_n(2 n eps0) (the upper ends u1 = k eps0 - c_n),
    C = sum over n with c_n < eps of P+_n(u0) + P-_n(u0), u0 = eps - c_n,
    plus0/minus0 = {n: beta+-_{0,n}} for the n with c_n >= eps (u0 = 0; they multiply e^{-+ n eps0}),
    atoms = {i: C(k,i)} for the atoms (k - 2i) eps0 > eps.  Every P is scaled by 2^(2k).
    ``composed``: C from :func:`_c_suffix_polys` (one evaluation; the same rational).
    """
    A, B = _upper_ends(e0, k)
    # integers over the common denominator ed q: c_n = (k - 2n) p ed / (ed q), eps = en q / (ed q)
    p, q = e0.numerator, e0.denominator
    en, ed = eps.numerator, eps.denominator
    pe, eq, den = p * ed, en * q, ed * q
    Cn = fmpq(0)
    plus0, minus0 = {}, {}
    for (n, bp, bm), (_, _, _, wpm) in zip(_spline(k), _spline_polys(k)):
        cn = (k - 2 * n) * pe
        if cn >= eq:
            plus0[n], minus0[n] = bp[0], bm[0]
        elif not composed:
            Cn += wpm(fmpq(eq - cn, den))
    if composed:  # the active n are the k - M largest (c_n falls with n): one polynomial, the same rational
        Cn = _c_suffix_polys(e0, k)[k - len(plus0)](fmpq(en, ed))
    atoms = {i: math.comb(k, i) for i in range(k + 1) if (k - 2 * i) * pe > eq}
    return A, B, _fraction(Cn) / math.factorial(k - 1), plus0, minus0, atoms


_SUMS_LOCK = threading.Lock()


@lru_cache(maxsize=32)
def _eps_free_sums(e0: Fraction, k: int, prec: int):
    """The parts of :func:`_delta_iv` that do not depend on eps, at ``prec`` bits: E0, r = e^-eps0, 1/r, e^(k eps0/2)
    and the prefix sums sum_{i<N} C(k,i) r^{+-i} (atoms) and sum_{n<=M} beta+-_{0,n} r^{+-n} (the u0 = 0 ends),
    each accumulated in the same order and at the same precision as the term-by-term loop (so the enclosures
    are the same intervals; an eps(delta) inversion evaluates delta(eps) ~15 times at one precision).  The
    prefix lists grow on demand (:func:`_prefix_sums`), so that a single delta(eps) pays only for its terms.
    Intervals are kept as endpoint pairs (``_mpi_``) and rewrapped in the caller's context (its thread's)."""
    c = _ctx(prec)
    E0 = iv_const(c, e0)
    zero = c.mpf(0)._mpi_
    return [E0._mpi_, c.exp(-E0)._mpi_, c.exp(E0)._mpi_, c.exp(k * E0 / 2)._mpi_], [zero], [zero], [zero], [zero]


def _prefix_sums(c, e0: Fraction, k: int, N: int, M: int):
    """(E0, e^(k eps0/2), atom sums to N at r and at 1/r, u0 = 0 sums to M at r and at 1/r) in context ``c``."""
    consts, ap, am, sp, sm = _eps_free_sums(e0, k, c.prec)
    E0, r, rinv, half_k = (c.make_mpf(v) for v in consts)
    with _SUMS_LOCK:
        while len(ap) <= N:
            i = len(ap) - 1
            w = math.comb(k, i)
            ap.append((c.make_mpf(ap[-1]) + w * r ** i)._mpi_)
            am.append((c.make_mpf(am[-1]) + w * rinv ** i)._mpi_)
        if len(sp) <= M:
            spline = _spline(k)
            while len(sp) <= M:
                n, bp, bm = spline[len(sp) - 1]
                sp.append((c.make_mpf(sp[-1]) + bp[0] * r ** n)._mpi_)
                sm.append((c.make_mpf(sm[-1]) + bm[0] * rinv ** n)._mpi_)
        return E0, half_k, c.make_mpf(ap[N]), c.make_mpf(am[N]), c.make_mpf(sp[M]), c.make_mpf(sm[M])


def _delta_iv(c, e0: Fraction, k: int, eps: Fraction, composed: bool = False):
    """Interval enclosure of delta(eps) for k-fold Laplace with eps0 = e0 (context ``c``), eps < k e0.

    delta = 2^-k sum_{atoms} C(k,i) (r^i - e^{eps - k eps0} r^{-i})  (r = e^{-eps0})
          + 2^-2k e^{-k eps0/2} [ e^{k eps0/2} (A - sum_{n: c_n >= eps} beta+_{0,n} r^n)
                                + e^{eps - k eps0/2} (B - sum_{n: c_n >= eps} beta-_{0,n} r^-n)
                                - e^{eps/2} C ],
    from int_{max(eps,c_n)}^{k eps0} e^{-k eps0/2} (e^{s/2} - e^{eps - s/2}) p_n(s - c_n) ds and the
    antiderivatives of :func:`_spline` (the exponentials at the ends are e^{+-k eps0/2}, e^{+-c_n/2},
    e^{+-eps/2}).
    """
    A, B, C, plus0, minus0, atoms = _exact_parts(e0, k, eps, composed)
    # atoms holds i = 0..N-1 and plus0/minus0 n = 1..M (both conditions are monotone in the index), so the
    # eps-dependent sums are prefixes of sums that depend on (eps0, k, precision) only
    assert len(atoms) == 0 or max(atoms) == len(atoms) - 1
    assert len(plus0) == 0 or max(plus0) == len(plus0) == len(minus0)
    E0, half_k, at_p, at_m, sp, sm = _prefix_sums(c, e0, k, len(atoms), len(plus0))
    EPS = iv_const(c, eps)
    atom_part = (at_p - c.exp(EPS - k * E0) * at_m) / c.mpf(2) ** k
    spl = (half_k * (iv_const(c, A) - sp) + c.exp(EPS) / half_k * (iv_const(c, B) - sm)
           - c.exp(EPS / 2) * iv_const(c, C)) / half_k
    return atom_part + spl / c.mpf(2) ** (2 * k)


def _parse(b, k, sensitivity=1):
    bb = check("b", b, P if sensitivity != 1 else Domain(lo=1 / EPS0_MAX, lo_closed=True))
    kk = int(check("k", k, KDOM))
    s = check("sensitivity", sensitivity, P)
    e0 = s / bb
    if e0 > EPS0_MAX:
        raise ValueError(f"b must give eps0 = sensitivity/b <= {EPS0_MAX} (exact-profile limit), found b = {b!r}")
    return e0, kk


@lru_cache(maxsize=256)
def _pair(e0: Fraction, k: int, eps: Fraction, dps: int, composed: bool = False) -> tuple[mpmath.mpf, mpmath.mpf]:
    """Certified (lo, hi) of delta(eps), clamped to [0, 1], tight to ``dps`` digits when possible."""
    if eps >= k * e0:
        return mpmath.mpf(0), mpmath.mpf(0)
    bits = int(math.ceil(dps * math.log2(10))) + 4
    guard = 2 * k + int(2 * k * float(e0)) + 16

    def at(prec):
        c = _ctx(prec + guard)
        v = _delta_iv(c, e0, k, eps, composed)
        lo, hi = v._mpi_
        return mpmath.mp.make_mpf(lo), mpmath.mp.make_mpf(hi)

    lo, hi = enclose(at, bits)
    return max(lo, mpmath.mpf(0)), min(hi, mpmath.mpf(1))


def laplace_kfold_delta_enclosure(b, k, eps, *, sensitivity=1, dps: int = DEFAULT_DPS) -> tuple[mpmath.mpf, mpmath.mpf]:
    """Certified enclosure (lo, hi) of the exact delta(eps) of k-fold Laplace(b) at sensitivity Delta (module docstring)."""
    dps = check_dps(dps)
    e0, kk = _parse(b, k, sensitivity)
    e = check("eps", eps, NN)
    return _pair(e0, kk, e, dps)


BDOM = Domain(lo=1 / EPS0_MAX, lo_closed=True)  # eps0 = 1/b <= 50
_b = Param("b", BDOM, default="10", doc="Laplace scale b > 0 (sensitivity 1: each step is (1/b)-DP), 1/b <= 50")
_k = Param("k", KDOM, kind="integer", default="10", doc=f"number of composed Laplace mechanisms, 1 <= k <= {K_MAX}")
_eps = Param("eps", NN, default="0.5", doc="target epsilon >= 0")
_delta = Param("delta", U, default="1e-6", doc="target delta in (0, 1)")
_NOTE = ("Exact: the hockey-stick divergence of Lap(0,b)^k vs Lap(1,b)^k, the worst pair for k Laplace steps of "
         "sensitivity 1 (the PLD is the same for every neighbouring pair at distance 1). Certified by interval "
         "arithmetic with precision doubling; k <= 2000, 1/b <= 50.")


@register("sommer2019_laplace_kfold_delta", paper="sommer2019", result="Laplace PLD (Section 5), composed k-fold exactly",
          direction="upper", summary="Exact delta(eps) of k-fold Laplace(b), sensitivity 1 (spline of the composed PLD), rounded up",
          params=(_b, _k, _eps), provenance="derived", note=_NOTE)
def laplace_kfold_delta(b, k, eps, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """sommer2019 (privacy loss distribution of the Laplace mechanism): exact delta(eps) of k-fold Laplace(b), rounded up.

    The smallest delta with (eps, delta)-DP (sensitivity 1).

    Preconditions: b > 0 with 1/b <= 50, 1 <= k <= 2000, eps >= 0 (exact).  Rounding: up.
    Guarantee: certified (interval arithmetic, precision doubled until ``dps`` digits tight).
    k = 1 equals 1 - e^{(eps - 1/b)/2} for eps <= 1/b (tests/test_profiles.py).

    >>> from reference.precision import directed_decimal
    >>> directed_decimal(laplace_kfold_delta(1, 1, 0, dps=20), 10, "upper")
    '0.3934693403'
    """
    dps = check_dps(dps)
    e0, kk = _parse(b, k)
    e = check("eps", eps, NN)
    return round_up(_pair(e0, kk, e, dps)[1], dps)


@register("sommer2019_laplace_kfold_delta_lower", paper="sommer2019",
          result="Laplace PLD (Section 5), composed k-fold exactly (lower end)", direction="lower",
          summary="Exact delta(eps) of k-fold Laplace(b), sensitivity 1, rounded down", params=(_b, _k, _eps),
          provenance="derived", note=_NOTE)
def laplace_kfold_delta_lower(b, k, eps, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """sommer2019 (privacy loss distribution of the Laplace mechanism): exact delta(eps) of k-fold Laplace(b), rounded down (a certified lower bound)."""
    dps = check_dps(dps)
    e0, kk = _parse(b, k)
    e = check("eps", eps, NN)
    return round_down(_pair(e0, kk, e, dps)[0], dps)


def _eps_pair(e0: Fraction, k: int, d: Fraction, dps: int) -> tuple[Fraction, Fraction]:
    top = k * e0
    cp = k <= COMPOSE_K_MAX
    lo0, hi0 = _pair(e0, k, Fraction(0), dps + 5, cp)  # the precision of the search: often decisive
    if mpf_to_fraction(hi0) <= d:
        return Fraction(0), Fraction(0)
    if mpf_to_fraction(lo0) <= d and mpf_to_fraction(_pair(e0, k, Fraction(0), dps, cp)[1]) <= d:
        return Fraction(0), Fraction(0)
    return invert_decreasing(lambda x, p: _pair(e0, k, x, p, cp), d, Fraction(0), top, dps,
                             start=_narrow(e0, k, d, top, dps + 5, cp))


def _narrow(e0: Fraction, k: int, d: Fraction, top: Fraction, dps: int, composed: bool) -> tuple[Fraction, Fraction]:
    """A bracket (a, b) of eps(d) of relative width <= 1e-6 for :func:`invert_decreasing`'s first phase.

    The same decisions as its bisection (the midpoint of the enclosure of delta(m) above d moves a
    to m, else b), with the Illinois variant of regula falsi on log delta choosing m: about 10
    evaluations where bisection takes ~20.  They are taken at ``dps`` digits, the precision of the
    secant phase, so that the eps-free sums are built once and the secant's first two evaluations
    (at a and b) are cache hits.  Nothing here is trusted: the secant and the certified outward
    steps of :func:`invert_decreasing` decide the returned ends.
    """
    a, b = Fraction(0), top
    log_d = math.log(d.numerator) - math.log(d.denominator)
    ga = gb = None  # log delta - log d at a (> 0) and at b (<= 0); None: not known (b = top, delta = 0)
    side = 0
    for _ in range(64):
        if b - a <= (abs(b) + abs(a)) * Fraction(1, 10 ** 6) or b - a < Fraction(1, 10 ** 300):
            break
        m = (a + b) / 2
        t = None
        if ga is not None and gb is not None and ga > gb:
            t = min(max(ga / (ga - gb), 1e-3), 1 - 1e-3)  # the zero of the line through (a, ga), (b, gb)
        elif ga is not None and b == top:
            # the zero of the chord of delta itself from (a, delta(a)) to (top, 0): delta is ~ linear near top
            # (the atom 2^-k at k eps0), and where it decays faster the chord's zero lies beyond the root
            t = min(max(-math.expm1(-ga), 1e-3), 1 - 1e-15)
        if t is not None:
            mf = Fraction(float(a) + t * float(b - a)).limit_denominator(1 << 40)
            m = mf if a < mf < b else m
        lo, hi = _pair(e0, k, m, dps, composed)
        mid = lo + (hi - lo) / 2
        g = float(mpmath.log(mid)) - log_d if mid > 0 else None
        if mpf_to_fraction(mid) > d:
            a, ga = m, g
            if side == -1 and gb is not None:
                gb /= 2
            side = -1
        else:
            b, gb = m, g
            if side == 1 and ga is not None:
                ga /= 2
            side = 1
    return a, b


@register("sommer2019_laplace_kfold_eps", paper="sommer2019", result="Laplace PLD (Section 5), composed k-fold exactly (inverse)",
          direction="upper", summary="Smallest eps with exact k-fold Laplace(b) delta(eps) <= delta, rounded up",
          params=(_b, _k, _delta), provenance="derived", note=_NOTE + " Inverted by regula falsi, secant and a certified forward check.")
def laplace_kfold_eps(b, k, delta, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """sommer2019 (privacy loss distribution of the Laplace mechanism): exact eps(delta) of k-fold Laplace(b), rounded up.

    The smallest eps with delta(eps) <= delta (sensitivity 1).

    Preconditions: as :func:`laplace_kfold_delta`, 0 < delta < 1.  Rounding: up; the value is
    certified by a forward evaluation of the enclosure (delta(returned) <= delta).  Never
    exceeds k/b (delta(k/b) = 0).
    """
    dps = check_dps(dps)
    e0, kk = _parse(b, k)
    d = check("delta", delta, U)
    return round_up(_eps_pair(e0, kk, d, dps)[1], dps)


def laplace_kfold_eps_bracket(b, k, delta, *, sensitivity=1, dps: int = DEFAULT_DPS) -> Bracket:
    """Certified bracket of the exact eps(delta) of k-fold Laplace(b) at sensitivity Delta."""
    dps = check_dps(dps)
    e0, kk = _parse(b, k, sensitivity)
    d = check("delta", delta, U)
    lo, hi = _eps_pair(e0, kk, d, dps)
    return Bracket("eps", round_down(lo, dps), round_up(hi, dps), True, SOURCE)


# ---------------------------------------------------------------------------
# Several scales, or more steps than the exact profile takes: a bracket (counts never expanded)
# ---------------------------------------------------------------------------

def _groups(bs: Sequence[Fraction], sensitivity: Fraction, counts=None) -> dict[Fraction, int]:
    """eps0 = Delta/b -> number of steps (``counts[i]`` steps of scale ``bs[i]``; one each without ``counts``)."""
    if counts is None:
        counts = (1,) * len(bs)
    elif len(counts) != len(bs):
        raise ValueError(f"counts must have the same length as b ({len(bs)}), found length {len(counts)}")
    g: dict[Fraction, int] = {}
    for i, (x, n) in enumerate(zip(bs, counts)):
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            raise ValueError(f"counts[{i}] must be an integer >= 1, found {n!r}")
        e0 = sensitivity / x
        g[e0] = g.get(e0, 0) + n
    return g


#: eps0 above which the thresholded randomized response of a Laplace step is taken at eps0 = RR_EPS0_CAP
#: (a smaller eps0 is a post-processing; it keeps e^eps0 formable).
RR_EPS0_CAP = Fraction(10 ** 6)
SOURCE_RR = ("randomized response with eps' = log(2 e^(eps0/2) - 1), the law of [x < Delta/2] for each Laplace "
             "output x (post-processing; derived), composed by kairouz2015 Theorem 3.3 (on at most 10^6 steps "
             "beyond 10^7)")
SOURCE_PURE = "optimal composition of the pure eps0_i-DP steps (kairouz2015 Thm 3.3 / murtagh2016, counts in closed form)"
SOURCE_RDP = "summed Laplace RDP (mironov2017 Table II) at integer orders + improved conversion (balle2020hyp Thm 21)"
_ORDERS = tuple(range(2, 65)) + (72, 80, 96, 112, 128, 160, 192, 224, 256)
_FLOAT_MIN = Fraction(1, 10 ** 300)  # the RDP conversions choose their order in double precision


def _rr_eps(e0: Fraction, dps: int) -> Fraction:
    """A rational eps'' <= log(2 e^(eps0/2) - 1), the randomized response one Laplace(Delta/eps0) step dominates.

    Derivation: with x ~ Lap(0, b) against Lap(Delta, b), the event x < Delta/2 has probability
    1 - e^(-eps0/2)/2 against e^(-eps0/2)/2: a randomized response with eps' = log(2 e^(eps0/2) - 1),
    so its k-fold composition is a post-processing of the k Laplace steps (and RR(eps'') one of
    RR(eps') for eps'' <= eps').
    """
    v = certified(lambda c, x: c.log(2 * c.exp(x / 2) - 1), (min(e0, RR_EPS0_CAP),), "lower", dps)
    return max(mpf_to_fraction(v), Fraction(0))


def _rdp_end(g: dict[Fraction, int], quantity: str, at: Fraction, dps: int):
    """Upper end from the summed Laplace RDP curves (None where the double-precision order choice cannot run)."""
    from ..bounds.classical import laplace_rdp
    from .conversions import integer_order_delta, integer_order_eps

    if any(e0 > EPS0_MAX for e0 in g) or (quantity == "eps" and at < _FLOAT_MIN) or (quantity == "delta" and at > 1 / _FLOAT_MIN):
        return None

    def up(a, d):
        tot = mpmath.mpf(0)
        for e0, n in g.items():
            tot = mpmath.fadd(tot, mpmath.fmul(n, laplace_rdp(a, 1 / e0, dps=d), prec=_bits(d), rounding="u"),
                              prec=_bits(d), rounding="u")
        return tot

    def fl(a):
        tot = 0.0
        for e0, n in g.items():
            e = float(e0)
            # mironov2017 Table II: log(a/(2a-1) e^((a-1) e) + (a-1)/(2a-1) e^(-a e))/(a-1)
            x, y = math.log(a / (2 * a - 1)) + (a - 1) * e, math.log((a - 1) / (2 * a - 1)) - a * e
            m = max(x, y)
            tot += n * (m + math.log(math.exp(x - m) + math.exp(y - m))) / (a - 1)
        return tot

    conv = integer_order_eps if quantity == "eps" else integer_order_delta
    return conv(up, fl, at, _ORDERS, dps=dps)[0]


def _bits(dps: int) -> int:
    return int(math.ceil(dps * math.log2(10))) + 8


def _profile(g: dict[Fraction, int], quantity: str, at: Fraction, dps: int) -> Bracket:
    """The profile of Laplace steps, g = {eps0: count} (sensitivity normalised to 1): exact or a certified bracket."""
    from . import pure_dp

    exact_ok = all(n <= K_MAX and e0 <= EPS0_MAX for e0, n in g.items())
    if len(g) == 1 and exact_ok:
        (e0, n), = g.items()
        lo, hi = (_pair(e0, n, at, dps) if quantity == "delta" else _eps_pair(e0, n, at, dps))
        return Bracket(quantity, round_down(lo, dps), round_up(hi, dps), True, SOURCE)
    lows, lo_src = [], ""
    for e0, n in g.items():
        if n <= K_MAX and e0 <= EPS0_MAX:  # exact profile of one scale
            v = _pair(e0, n, at, dps)[0] if quantity == "delta" else round_down(_eps_pair(e0, n, at, dps)[0], dps)
            src = "exact Laplace profile of the largest sub-composition (post-processing)"
        else:
            rr = _rr_eps(e0, dps + 5)
            if rr == 0:
                continue
            v = pure_dp.pure_dp_profile([(rr, 0, n)], quantity, at, dps=dps).lo
            src = SOURCE_RR
        if not lows or v > max(lows):
            lo_src = src
        lows.append(v)
    pure = pure_dp.pure_dp_profile([(e0, 0, n) for e0, n in g.items()], quantity, at, lower=False, dps=dps)
    hi, hi_src = pure.hi, SOURCE_PURE + ("" if pure.exact else f" ({pure.hi_source})")
    if not exact_ok:  # beyond the exact profile: the Renyi curve of Laplace is often tighter than the pure-DP one
        r = _rdp_end(g, quantity, at, dps)
        if r is not None and r < hi:
            hi, hi_src = r, SOURCE_RDP
    lo = round_down(max(lows), dps) if lows else mpmath.mpf(0)
    return Bracket(quantity, lo, max(hi, lo), False, "bracket", lo_source=lo_src or "0 (trivial)", hi_source=hi_src)


def laplace_profile_delta(bs, eps, *, sensitivity=1, counts=None, dps: int = DEFAULT_DPS) -> Bracket:
    """Certified delta(eps) of the composition of Laplace(b_i) mechanisms (each of sensitivity Delta), ``counts[i]`` steps of b_i.

    One scale with at most K_MAX steps and Delta/b <= EPS0_MAX: the exact profile
    (:func:`laplace_kfold_delta_enclosure`).  Otherwise a bracket (``exact`` False): lower end, the
    best exact one-scale profile (K_MAX steps at most), or for more steps the thresholded
    randomized response of each step composed exactly (``_rr_eps``; post-processing); upper
    end, the optimal composition of the pure eps_i = Delta/b_i DP steps (murtagh2016 /
    kairouz2015, counts in closed form; Laplace(b) is Delta/b-DP and randomized response
    dominates), and beyond the exact profile also the summed Laplace RDP (mironov2017).
    Counts are never expanded (10^12 steps take a few seconds).
    """
    dps = check_dps(dps)
    b_list = check_seq("b", bs, P)
    s = check("sensitivity", sensitivity, P)
    e = check("eps", eps, NN)
    return _profile(_groups(b_list, s, counts), "delta", e, dps)


def laplace_profile_eps(bs, delta, *, sensitivity=1, counts=None, dps: int = DEFAULT_DPS) -> Bracket:
    """Certified eps(delta) of the composition of Laplace(b_i) mechanisms (exact for one scale within the limits, a bracket otherwise; :func:`laplace_profile_delta`)."""
    dps = check_dps(dps)
    b_list = check_seq("b", bs, P)
    s = check("sensitivity", sensitivity, P)
    d = check("delta", delta, U)
    return _profile(_groups(b_list, s, counts), "eps", d, dps)
