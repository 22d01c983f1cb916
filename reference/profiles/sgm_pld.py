"""A certified delta(eps) bracket of the k-fold Poisson-subsampled Gaussian from its discretised privacy loss distribution (PLD).

Sources: Koskela, Jalko, Honkela, *Computing tight differential privacy guarantees using FFT*
(AISTATS 2020; arXiv 1906.03049) and Koskela, Jalko, Prediger, Honkela, *Tight differential
privacy for discrete-valued mechanisms and for the subsampled Gaussian mechanism using FFT*
(AISTATS 2021): the PLD of a composition is the convolution of the PLDs;
Meiser, Mohammadi, *Tight on budget?* (CCS 2018): the privacy-loss buckets;
Doroshenko, Ghazi, Kamath, Kumar, Manurangsi, *Connect the dots* (PoPETs 2022): a pessimistic
discretisation that splits the mass between two grid values keeping both measures (below);
Zhu, Dong, Wang, *Optimal accounting of differential privacy via characteristic function*
(AISTATS 2022), Proposition 30 / Theorem 10: under add/remove adjacency the Poisson-subsampled
Gaussian (sampling rate q, noise multiplier sigma, sensitivity 1) has the dominating pairs
(P, Q) and (Q, P), P = (1-q) N(0, sigma^2) + q N(1, sigma^2), Q = N(0, sigma^2), tight (attained
by a pair of neighbouring data sets), and the k-fold composition is dominated by the product pairs.
So delta_k(eps) = max(H_{e^eps}(P^k || Q^k), H_{e^eps}(Q^k || P^k)), and both orders are bracketed.

Notation: l(x) = log(p(x)/q(x)) = log(1 - q + q exp((2x - 1)/(2 sigma^2))) (increasing in x),
f(L) = (1 - e^(eps - L))_+ (nondecreasing, f(+inf) = 1), and H_{e^eps}(P^k || Q^k) = E f(l(X_1) +
... + l(X_k)), X_i ~ P iid (the P-PLD; for Q || P the loss is -l(X), X ~ Q).  Grid: losses
j*h, h = 2^-grid_bits.  Buckets: B = {x : l(x) in [a h, b h]} = [x(a h), x(b h)], x(e) =
sigma^2 log((e^e - 1 + q)/q) + 1/2, finely spaced (b = a + 1) near the bulk and wider in the tails.

Error budget (each term bounded rigorously; the upper end is >= the truth, the lower end <= it):

(a) discretisation, upper end ("connect the dots", Doroshenko et al. 2022 Sec. 3): every outcome
    x of a bucket [a h, b h] is split into two atoms with losses a h and b h and P-masses
    p(x)(1 - w), p(x) w, w = (e^(-a h) - e^(-l(x)))/(e^(-a h) - e^(-b h)) in [0, 1]: both measures
    are kept, and merging the two atoms back is a post-processing, so the split pair dominates
    (P, Q) in every hockey-stick divergence, in both orders (data-processing inequality), and so
    does its k-fold product (a product of post-processings).  Its masses need only P(B), Q(B):
    P'(b h) = (e^(-a h) P(B) - Q(B))/(e^(-a h) - e^(-b h)), P'(a h) = P(B) - P'(b h), Q' = P' e^(-loss).
    The split keeps E[e^(-L)] and raises E[L] only at second order (Jensen), so it is tight.
    Lower end: bucketing x is a post-processing (dominated pair); each bucket's atom has loss in
    [a h, b h] and is rounded DOWN to a h (P-PLD; -b h for the Q-PLD): f is nondecreasing, so
    pointwise lowering every step's loss lowers E f of the sum (a coupling; Meiser-Mohammadi
    2018, Koskela et al. 2020).  This end is first order in h (about k h/2 in eps in the worst case).
(b) bucket masses: P(B), Q(B) are differences of Phi at the enclosed ends x(a h), x(b h),
    evaluated by :func:`reference.bounds.dong2022.phi_iv` in mpmath interval arithmetic at
    :data:`PREC` bits; the upper end takes each mass's right end, the lower end its left end.
    Tails: the P-mass above the top boundary goes to loss +inf (upper end), its Q-mass to the top
    grid value of the Q-PLD (a rounding up); for q = 1 the bottom tail symmetrically; for q < 1
    the loss is bounded below by log(1 - q), so there is no bottom tail.  The lower end drops
    every tail (dropping nonnegative mass lowers E f).
(c) composition: k-fold by binary powering with numpy's real FFT on power-of-two lengths.  Each
    convolution's error is bounded a priori per entry by ||a||_2 ||b||_2 ((1+u)^(3n) (1+sqrt5 u)^(3n+1)
    (1+beta)^(3n) - 1) (Percival, Math. Comp. 72 (2003), published electronically 2002, *Rapid multiplication modulo the sum and difference of highly
    composite numbers*, Math. Comp. 72, Theorem 5.1; u = 2^-53, n = log2 N, twiddle error beta =
    2u; see Brisebarre, Joldes, Muller, Nanes, Picot 2020, ACM TOMS 46(1), for the refined
    analysis), multiplied by a safety factor :data:`FFT_SAFETY`; the upper vector becomes
    (computed + bound) rounded up, the lower vector max(0, computed - bound) rounded down; norms
    and sums are rounded outward.  Mass leaving the window: above it to +inf (upper) or onto its
    top (lower); below it onto its bottom (upper) or dropped (lower) -- all monotone moves.
    Trust base: the cited bound is proved for radix-2 Cooley-Tukey with twiddles accurate to
    beta; numpy's pocketfft is a mixed-radix Cooley-Tukey FFT whose precomputed twiddles are
    accurate to a few ulps, and the safety factor covers its few extra operations per stage.
    This is an assumption about the FFT library, as mpmath's erfc is in dong2022.phi_iv.
(d) evaluation: delta = sum_{j h > eps} m_j (1 - e^(eps - j h)) + m_inf; e^(-j h) by a
    cumulative product of an outward-rounded e^(-h) with its relative error (1 + u)^n - 1 bounded,
    the nonnegative sum by Higham's gamma_n bound (Accuracy and Stability, eq. (3.5)), rounded
    outward, then the max over the two orders.

Defaults: h = 2^-12 (about 2.44e-4), composition window mean - 14 sd - 2 .. mean + 14 sd + 12 of the
composed loss, about 1.9e5 grid values for q = 0.01, sigma = 1.1, k = 10^4 (FFT length 2^19); pass
``grid_bits`` (up to 20) for a finer grid (the upper end changes at second order, the lower end at first).
Known looseness: the FFT error terms, added at every squaring, grow about 2x per level; at
k = 10^4 they add about 2e-7 to the upper end (mass moved to +inf at the window's top).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

import mpmath
import numpy as np
from mpmath import libmp

from ..bounds.dong2022 import phi_iv
from ..catalog import Param, register
from ..precision import DEFAULT_DPS, Domain, _ctx, check, check_dps, last_true, mpf_to_fraction
from .conversions import Bracket, round_down, round_up

__all__ = ["PLDComposition", "sgm_pld", "sgm_pld_delta_bracket", "sgm_pld_eps_bracket", "sgm_pld_delta",
           "DEFAULT_GRID_BITS", "K_MAX"]

DEFAULT_GRID_BITS = 12
K_MAX = 100_000
PREC = 160
FFT_SAFETY = 8.0
_U = 2.0 ** -53
P = Domain.positive()
QDOM = Domain.half_open_unit()
KDOM = Domain(lo=Fraction(1), hi=Fraction(K_MAX), lo_closed=True, hi_closed=True, integer=True)
GDOM = Domain(lo=Fraction(6), hi=Fraction(20), lo_closed=True, hi_closed=True, integer=True)
NN = Domain.nonnegative()
U01 = Domain.open_unit()
SOURCE_HI = ("PLD of the ZDW22 dominating pairs, split onto the grid (Doroshenko et al. 2022, connect the dots), "
             "FFT composition with Percival's error bound (Koskela et al. 2020; unverified trust base: numpy's FFT within "
             "Percival's radix-2 bound x 8)")
SOURCE_LO = ("PLD of the bucketed (post-processed) pairs, losses rounded down onto the grid (Meiser-Mohammadi 2018), FFT "
             "composition (unverified trust base: numpy's FFT within Percival's radix-2 bound x 8)")


def _raw(x, end: int, rnd: str):
    """The libmp value of ``x`` at its lower (``end`` 0) or upper (1) end, never via the global mpmath precision.

    ``x`` is an interval number (its ``_mpi_`` ends), an ``mpf`` or a rational; an interval end is
    taken as it is (converting an ``ivmpf`` with ``mpmath.mpf`` would round it to nearest at the
    caller's global precision, 53 bits by default, and could cross the bound).
    """
    if hasattr(x, "_mpi_"):
        return x._mpi_[end]
    if hasattr(x, "_mpf_"):
        return x._mpf_
    q = Fraction(x)
    return libmp.from_rational(q.numerator, q.denominator, 80, rnd)


def _up(x) -> float:
    """A float >= x (for an interval: >= its upper end)."""
    return libmp.to_float(_raw(x, 1, "c"), rnd="u")


def _dn(x) -> float:
    """A float <= x (for an interval: <= its lower end)."""
    return libmp.to_float(_raw(x, 0, "f"), rnd="d")


def _nu(x):
    return np.nextafter(x, np.inf)


def _nd(x):
    return np.nextafter(x, -np.inf)


@dataclass
class _Vec:
    """Masses m[i] at grid index off + i (entrywise bounds), and a mass at +inf."""

    m: np.ndarray
    off: int
    inf: float = 0.0


# ---------------------------------------------------------------------------
# One step: bucket masses (interval arithmetic) -> four bound vectors
# ---------------------------------------------------------------------------

def _boundaries(q: float, s: float, h: float, jlo: int) -> list[int]:
    """Grid indices of the bucket ends: every index near the bulk, geometrically spaced in the tails (float choice only)."""
    def lx(x):
        t = (2 * x - 1) / (2 * s * s)
        return math.log1p(-q + q * math.exp(t)) if t < 700 else math.log(q) + t
    top = lx(1 + 13 * s) if q < 1 else (1 + 13 * s) / (s * s)
    bot = lx(-13 * s) if q < 1 else -(13 * s + 1) / (s * s)
    jtop = math.ceil(top / h) + 1
    jb = jlo if q < 1 else math.floor(bot / h) - 1
    c = lx(0.5) / h  # the bulk
    scale = max(lx(s) - lx(-s), 1e-300) / h  # grid units per standard deviation of x
    rho = 0.004
    out = [jb]
    j = jb
    while j < jtop:
        w = max(1, int(rho * abs(j - c) ** 2 / scale)) if abs(j - c) > scale else 1
        w = min(w, max(1, int(0.02 * abs(j) + 1)))
        j = min(jtop, j + w)
        out.append(j)
    return out


@lru_cache(maxsize=16)
def _step(q: Fraction, s: Fraction, bits: int):
    """Per-step bound vectors: (P-PLD upper, Q-PLD upper, P-PLD lower, Q-PLD lower)."""
    c = _ctx(PREC)
    h = Fraction(1, 1 << bits)
    qi, si = c.mpf(q.numerator) / q.denominator, c.mpf(s.numerator) / s.denominator
    qf, sf = float(q), float(s)
    one_q = 1 - qi
    if q < 1:
        # the largest grid index below the infimum log(1 - q) of the loss (certified both ways)
        jlo = math.floor(math.log1p(-qf) / float(h))
        while c.exp(c.mpf(jlo + 1) / (1 << bits)).a <= one_q.b:
            jlo += 1
        while c.exp(c.mpf(jlo) / (1 << bits)).b >= one_q.a:
            jlo -= 1
    else:
        jlo = -(1 << 62)
    js = _boundaries(qf, sf, float(h), jlo)
    inv2 = 1 / c.sqrt(2)

    def cdfs(j):
        """(F_P, F_Q) at x(j h), as intervals; x = -inf at jlo."""
        if q < 1 and j == jlo:
            return c.mpf(0), c.mpf(0)
        e = c.mpf(j) / (1 << bits)
        if q < 1:
            x = si * si * c.log((c.exp(e) - one_q) / qi) + c.mpf(1) / 2
        else:
            x = si * si * e + c.mpf(1) / 2
        fq = phi_iv(c, x / si)
        fp = one_q * fq + qi * phi_iv(c, (x - 1) / si) if q < 1 else phi_iv(c, (x - 1) / si)
        return fp, fq

    F = [cdfs(j) for j in js]
    j0, j1 = js[0], js[-1]
    n = j1 - j0 + 1
    pu, qu, pl, ql = (np.zeros(n) for _ in range(4))
    eh = {}

    def ex(j):
        if j not in eh:
            eh[j] = c.exp(-c.mpf(j) / (1 << bits))
        return eh[j]

    for i in range(len(js) - 1):
        a, b = js[i], js[i + 1]
        PB = F[i + 1][0] - F[i][0]
        QB = F[i + 1][1] - F[i][1]
        ea, eb = ex(a), ex(b)
        den = ea - eb
        phi_ = (ea * PB - QB) / den  # P'-mass at b h
        plo_ = (QB - eb * PB) / den  # P'-mass at a h
        pu[a - j0] += _up(plo_.b)
        pu[b - j0] += _up(phi_.b)
        # Q-PLD atom at loss -a h carries Q'(a) = P'(a) e^(-a h); at -b h: P'(b) e^(-b h)
        qu[j1 - a] += _up((plo_ * ea).b)
        qu[j1 - b] += _up((phi_ * eb).b)
        # lower end: the bucket's atom, loss rounded down
        pl[a - j0] += max(0.0, _dn(PB.a))
        ql[j1 - b] += max(0.0, _dn(QB.a))
    # tails
    ptop, qtop = 1 - F[-1][0], 1 - F[-1][1]
    P_up = _Vec(_nu(_nu(pu)), j0, _up(ptop.b))
    qu[0] += _up(qtop.b)  # Q-PLD losses <= -j1 h rounded up to -j1 h
    Q_inf = 0.0
    if q == 1:  # bottom tail x < x(j0 h): P-losses rounded up to j0 h, Q-losses > -j0 h to +inf
        pb, qb = F[0]
        P_up.m[0] = _nu(P_up.m[0] + _up(pb.b))
        Q_inf = _up(qb.b)
    Q_up = _Vec(_nu(_nu(qu)), -j1, Q_inf)
    P_lo = _Vec(_nd(_nd(pl)).clip(0), j0)
    Q_lo = _Vec(_nd(_nd(ql)).clip(0), -j1)
    return P_up, Q_up, P_lo, Q_lo


# ---------------------------------------------------------------------------
# Composition with a priori FFT error bounds
# ---------------------------------------------------------------------------

def _sq_up(x: np.ndarray) -> float:
    """An upper bound on sum x_i^2 (nonnegative terms: float dot within gamma_(n+1), Higham eq. (3.5))."""
    return float(_nu(float(np.dot(x, x)) * (1 + 2 * (x.size + 2) * _U)))


def _fft_err(na: np.ndarray, nb: np.ndarray, N: int) -> float:
    n = max(1, int(N).bit_length() - 1)
    beta = 2 * _U
    fac = (1 + _U) ** (3 * n) * (1 + math.sqrt(5) * _U) ** (3 * n + 1) * (1 + beta) ** (3 * n) - 1
    l2 = math.sqrt(_sq_up(na) * _sq_up(nb)) * (1 + 4 * _U)
    return float(_nu(FFT_SAFETY * fac * l2 * (1 + 16 * _U)))


def _fsum_up(x: np.ndarray) -> float:
    """An upper bound on the sum of a nonnegative float vector."""
    return float(_nu(float(np.sum(x)) * (1 + 2 * (x.size + 2) * _U))) if x.size else 0.0


def _conv(A: _Vec, B: _Vec, upper: bool, win: tuple[int, int]) -> _Vec:
    """Bounds on the convolution of two bound vectors, cut to the grid window win = (lo, hi).

    Invariant (stochastic order, enough for every nondecreasing f >= 0 and kept by convolution):
    every upper tail sum T(i) = sum_{j >= i} m_j (+ m_inf) of an upper vector is >= that of the
    true law, and <= it for a lower vector.  From the computed convolution c~ with per-entry error
    <= r (Percival's bound), the true tail sums lie within T~(i) +- (r n_i + 2.02 n_i u |T|~(i))
    (n_i entries; Higham's bound for the float tail sum).  Upper: the bound is made nonincreasing
    and capped by the exact total (sum a)(sum b) (so errors move mass up instead of creating it);
    lower: made nonincreasing from the left and floored at 0.  Differences are rounded so that
    their exact tail sums stay on the safe side.
    """
    L = A.m.size + B.m.size - 1
    N = 1 << max(1, (L - 1).bit_length())
    c = np.fft.irfft(np.fft.rfft(A.m, N) * np.fft.rfft(B.m, N), N)[:L]
    r = _fft_err(A.m, B.m, N)
    off = A.off + B.off
    n_i = np.arange(L, 0, -1, dtype=np.float64)  # entries at indices >= i
    T = np.cumsum(c[::-1])[::-1]
    Tabs = np.cumsum(np.abs(c)[::-1])[::-1]
    slack = _nu(_nu(r * n_i) + _nu(2.02 * _U * n_i * Tabs))
    lo, hi = win
    if upper:
        fa, fb = _fsum_up(A.m), _fsum_up(B.m)
        S = _nu(_nu(fa * fb) * (1 + 4 * _U))
        inf = _nu(_nu(A.inf * fb) + _nu(B.inf * fa) + _nu(A.inf * B.inf)) * (1 + 8 * _U)
        Tb = _nu(T + slack)
        Tb = np.maximum.accumulate(Tb[::-1])[::-1]  # nonincreasing in i
        Tb = np.minimum(Tb, S)
    else:
        inf = 0.0
        Tb = np.maximum(_nd(T - slack), 0.0)
        Tb = np.minimum.accumulate(Tb)
    # window: indices off .. off + L - 1 -> keep lo' .. hi'
    a = max(0, lo - off)
    b = min(L - 1, hi - off)
    if a > b:  # everything outside the window (does not happen for the windows used)
        if off + L - 1 < lo:  # all below: upper moves it up onto lo, lower drops it
            return _Vec(np.array([float(Tb[0])]) if upper else np.zeros(1), lo, inf)
        # all above: upper sends it to +inf, lower moves it down onto hi
        return _Vec(np.zeros(1), hi, _nu(inf + Tb[0])) if upper else _Vec(np.array([float(Tb[0])]), hi, 0.0)
    Tw = Tb[a:b + 1]
    nxt = np.append(Tw[1:], 0.0)
    if upper:
        inf = _nu(inf + (Tb[b + 1] if b + 1 < L else 0.0))  # mass above the window -> +inf
        nxt[-1] = 0.0
        m = _nu(Tw - nxt)  # first entry takes all mass below the window (moved up)
        m[-1] = _nu(Tw[-1] - (Tb[b + 1] if b + 1 < L else 0.0))
    else:
        m = np.maximum(_nd(Tw - nxt), 0.0)  # last entry takes the mass above the window (moved down); below: dropped
        m[0] = max(0.0, float(_nd(Tw[0] - Tw[1]))) if Tw.size > 1 else Tw[0]
    m = np.maximum(m, 0.0)
    off += a
    nz = np.flatnonzero(m)
    if nz.size == 0:
        return _Vec(np.zeros(1), off, inf)
    return _Vec(m[nz[0]:nz[-1] + 1].copy(), off + int(nz[0]), inf)


def _power(V: _Vec, k: int, upper: bool, win) -> _Vec:
    result = None
    base = V
    while True:
        if k & 1:
            result = base if result is None else _conv(result, base, upper, win)
        k >>= 1
        if not k:
            return result
        base = _conv(base, base, upper, win)


def _window(V: _Vec, k: int, h: float) -> tuple[int, int]:
    x = (np.arange(V.m.size) + V.off) * h
    w = V.m / V.m.sum()
    mu = float((w * x).sum())
    var = float((w * (x - mu) ** 2).sum())
    M, S = k * mu, math.sqrt(k * var)
    # partial sums of the powering chain have means between 0 and M
    lo = max(k * V.off, math.floor((min(M, 0.0) - 14 * S - 2) / h))
    hi = min(k * (V.off + V.m.size - 1), math.ceil((max(M, 0.0) + 14 * S + 12) / h))
    return lo, hi


# ---------------------------------------------------------------------------
# Evaluation of the hockey-stick divergence from a bound vector
# ---------------------------------------------------------------------------

def _hockey(V: _Vec, eps: Fraction, bits: int, upper: bool) -> mpmath.mpf:
    """sum_{j h > eps} m_j (1 - e^(eps - j h)) (+ m_inf), rounded outward in the direction of the bound."""
    J = math.floor(eps * (1 << bits)) + 1  # first grid index with j h > eps
    i0 = max(0, J - V.off)
    m = V.m[i0:]
    extra = V.inf if upper else 0.0
    if m.size == 0:
        return mpmath.mpf(_nu(extra)) if upper else mpmath.mpf(0)
    jfirst = V.off + i0
    c = _ctx(80)
    E = c.exp(c.mpf(eps.numerator) / eps.denominator - c.mpf(jfirst) / (1 << bits))  # in (0, 1]
    r = c.exp(-c.mpf(1) / (1 << bits))
    n = m.size
    g_lo = np.cumprod(np.concatenate(([_dn(E.a)], np.full(n - 1, _dn(r.a)))))
    g_hi = np.cumprod(np.concatenate(([_up(E.b)], np.full(n - 1, _up(r.b)))))
    rel = (n + 2) * _U * 1.01
    if upper:
        f = np.minimum(1.0, 1.0 - g_lo * (1 - rel) + 2 * _U)
        tot = math.fsum((m * f).tolist())
        val = _nu(_nu(tot * (1 + 2 * (n + 2) * _U)) + extra)
        return round_up(Fraction(float(val)), 20)
    f = np.maximum(0.0, 1.0 - g_hi * (1 + rel) - 2 * _U)
    tot = math.fsum((m * f).tolist())
    val = max(0.0, float(_nd(tot * (1 - 2 * (n + 2) * _U))))
    return round_down(Fraction(val), 20)


# ---------------------------------------------------------------------------
# Public API
# ---------------------------------------------------------------------------

@dataclass
class PLDComposition:
    """The composed bound vectors of the k-fold Poisson-subsampled Gaussian, both orders (see the module docstring)."""

    q: Fraction
    sigma: Fraction
    k: int
    bits: int
    P_up: _Vec
    Q_up: _Vec
    P_lo: _Vec
    Q_lo: _Vec

    @property
    def h(self) -> Fraction:
        return Fraction(1, 1 << self.bits)

    def delta_upper(self, eps) -> mpmath.mpf:
        e = check("eps", eps, NN)
        return min(mpmath.mpf(1), max(_hockey(self.P_up, e, self.bits, True), _hockey(self.Q_up, e, self.bits, True)))

    def delta_lower(self, eps) -> mpmath.mpf:
        e = check("eps", eps, NN)
        return max(_hockey(self.P_lo, e, self.bits, False), _hockey(self.Q_lo, e, self.bits, False))

    def delta_bracket(self, eps) -> Bracket:
        lo, hi = self.delta_lower(eps), self.delta_upper(eps)
        return Bracket("delta", min(lo, hi), hi, False, "bracket",
                       lo_source=SOURCE_LO + f" (h = 2^-{self.bits})", hi_source=SOURCE_HI + f" (h = 2^-{self.bits})")

    def eps_bracket(self, delta) -> Bracket:
        """eps(delta) bracket: hi = the least grid eps whose certified delta upper end is <= delta; lo = the
        largest grid eps whose certified delta lower end exceeds delta (then the true eps(delta) > lo)."""
        d = check("delta", delta, U01)
        h = self.h
        top = max(self.P_up.off + self.P_up.m.size, self.Q_up.off + self.Q_up.m.size) + 1

        def ok_up(j):  # delta_up(j h) <= d
            return mpf_to_fraction(self.delta_upper(j * h)) <= d

        if not ok_up(top):
            hi = mpmath.inf
        else:  # the first grid index with ok_up (ok_up is monotone and holds at top)
            b = 0 if ok_up(0) else last_true(lambda j: j < top and not ok_up(j), top // 2) + 1
            hi = round_up(b * h, 30)

        def ok_lo(j):  # delta_lo(j h) > d
            return mpf_to_fraction(self.delta_lower(j * h)) > d

        if not ok_lo(0):
            lo = mpmath.mpf(0)
        else:  # the last grid index below top with ok_lo (monotone)
            lo = round_down(last_true(lambda j: j < top and ok_lo(j), top // 2) * h, 30)
        return Bracket("eps", lo, max(hi, lo), False, "bracket",
                       lo_source=SOURCE_LO + f" (h = 2^-{self.bits})", hi_source=SOURCE_HI + f" (h = 2^-{self.bits})")


def _parse(q, sigma, k, grid_bits):
    return (check("q", q, QDOM), check("sigma", sigma, P), int(check("k", k, KDOM)),
            int(check("grid_bits", grid_bits, GDOM)))


@lru_cache(maxsize=8)
def _compose(q: Fraction, s: Fraction, k: int, bits: int) -> PLDComposition:
    Pu, Qu, Pl, Ql = _step(q, s, bits)
    h = 1.0 / (1 << bits)
    out = []
    for i, V in enumerate((Pu, Qu, Pl, Ql)):
        out.append(_power(V, k, i < 2, _window(V, k, h)))
    return PLDComposition(q, s, k, bits, *out)


def sgm_pld(q, sigma, k, *, grid_bits=DEFAULT_GRID_BITS) -> PLDComposition:
    """The composed certified PLD bound vectors (cached); see :class:`PLDComposition`."""
    qq, s, kk, b = _parse(q, sigma, k, grid_bits)
    return _compose(qq, s, kk, b)


def sgm_pld_delta_bracket(q, sigma, k, eps, *, grid_bits=DEFAULT_GRID_BITS) -> Bracket:
    """koskela2020 FFT accountant, certified: bracket of delta(eps) of the k-fold Poisson-subsampled Gaussian (add/remove), from its PLD."""
    return sgm_pld(q, sigma, k, grid_bits=grid_bits).delta_bracket(eps)


def sgm_pld_eps_bracket(q, sigma, k, delta, *, grid_bits=DEFAULT_GRID_BITS) -> Bracket:
    """koskela2020 FFT accountant, certified: bracket of eps(delta) of the k-fold Poisson-subsampled Gaussian, from its PLD (grid h)."""
    return sgm_pld(q, sigma, k, grid_bits=grid_bits).eps_bracket(delta)


_q = Param("q", QDOM, default="0.01", doc="Poisson sampling rate q in (0, 1]")
_sigma = Param("sigma", P, default="1.1", doc="noise multiplier sigma > 0 (L2 sensitivity 1)")
_k = Param("k", KDOM, kind="integer", default="1000", doc=f"number of composed steps, 1 <= k <= {K_MAX}")
_eps = Param("eps", NN, default="1", doc="target epsilon >= 0")


@register("koskela2020_pld_sgm_delta", paper="koskela2020", result="FFT accountant (PLD) for the subsampled Gaussian, certified",
          direction="upper", summary="delta(eps) of k-fold Poisson-subsampled Gaussian (add/remove): certified upper end of a discretised-PLD bracket",
          params=(_q, _sigma, _k, _eps), provenance="derived",
          note="Dominating pairs of Zhu-Dong-Wang 2022 (both orders), pessimistic split discretisation (Doroshenko et al. 2022) "
               "on the grid 2^-12, bucket masses in interval arithmetic, FFT composition with Percival's a priori error bound "
               "(Math. Comp. 72 (2003), Thm 5.1). The lower end is sgm_pld_delta_bracket(...).lo. UNVERIFIED trust base: "
               "the discretisation and the bucket masses are rigorous, but the FFT rounding error rests on numpy's FFT "
               "(pocketfft, mixed radix) staying within Percival's bound, which is proved for a radix-2 FFT with "
               "precomputed roots, times a safety factor 8, and the bound's form was written from a recollection of the "
               "paper's statement, not re-derived.",
          validity="unverified")
def sgm_pld_delta(q, sigma, k, eps, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """koskela2020 FFT accountant, certified: upper bound on delta(eps) of the k-fold Poisson-subsampled Gaussian (module docstring).

    Preconditions: 0 < q <= 1, sigma > 0, 1 <= k <= 10^5, eps >= 0.  Rounding: up.  The result
    carries about 17 significant digits whatever ``dps`` (the composition is in float64 with
    a-priori error bounds); ``dps`` is accepted for the catalog's calling convention.
    """
    check_dps(dps)
    qq, s, kk, b = _parse(q, sigma, k, DEFAULT_GRID_BITS)
    return _compose(qq, s, kk, b).delta_upper(eps)
