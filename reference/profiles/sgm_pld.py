"""A certified, machine-independent (eps, delta) bracket of the Poisson-subsampled Gaussian (DP-SGD) from its privacy loss distribution.

Sources: Koskela, Jalko, Honkela, *Computing tight differential privacy guarantees using FFT*
(AISTATS 2020, arXiv 1906.03049): the privacy loss distribution (PLD) of a composition is the
convolution of the PLDs; Zhu, Dong, Wang, *Optimal accounting of differential privacy via
characteristic function* (AISTATS 2022), Proposition 30 / Theorem 10: under add/remove
adjacency the Poisson-subsampled Gaussian (sampling rate q, noise multiplier sigma, L2
sensitivity 1) has the tight dominating pairs (P, Q) and (Q, P) with P = (1-q) N(0, sigma^2) +
q N(1, sigma^2), Q = N(0, sigma^2), and a composition (heterogeneous phases included) is
dominated by the product pairs, attained by one pair of neighbouring data sets; so
delta(eps) = max(H_{e^eps}(P_1 x ... x P_K || Q_1 x ... x Q_K), H_{e^eps}(Q.. || P..)).
Doroshenko, Ghazi, Kamath, Kumar, Manurangsi, *Connect the dots* (PoPETs 2022), Sec. 3: the
pessimistic split discretisation.  Hoeffding (1963) / Azuma: the concentration step of the
lower end (derived below; the same device as Gopi, Lee, Wutschitz, *Numerical composition of
differential privacy*, NeurIPS 2021, whose mean-preserving discretisation it adapts).

Notation: l(x) = log(p(x)/q(x)) = log(1 - q + q exp((2x - 1)/(2 sigma^2))) (increasing in x);
f_eps(L) = (1 - e^(eps - L))_+ (nondecreasing, 0 <= f <= 1), and H_{e^eps}(P^K || Q^K) =
E_P f_eps(L_1 + ... + L_K), L_i the P-privacy loss of step i (the "P-PLD"; for the order
Q || P the loss is -l(X), X ~ Q).  Grid: losses j h, h = 2^-bits.  Fine buckets
B_a = {x : l(x) in [a h, (a + 1) h]} = [x(a h), x((a+1) h)], x(e) = sigma^2 log((e^e - 1 + q)/q)
+ 1/2, cover the losses from the infimum log(1 - q) (q < 1) up to a top beyond which the
P- and Q-masses are below ``tail``/(4 K); the rest is a tail (below).

The proof, step by step (each step is checked by ``proofs/test_sgm_pld_certified.py``):

1. Bucketing is a post-processing, so the bucketed pair (P_B, Q_B) is dominated by (P, Q);
   its atom B_a has loss l_a = log(P(B_a)/Q(B_a)) in [a h, (a+1) h].
2. Upper end (pessimistic, Doroshenko et al. 2022): each atom is split into two atoms at
   losses a h and (a+1) h, with P-masses P'((a+1) h) = (e^(-a h) P(B) - Q(B))/(e^(-a h) -
   e^(-(a+1) h)), P'(a h) = P(B) - P'((a+1) h) and Q' = P' e^(-loss): both measures are kept,
   merging the two atoms back is a post-processing, so the split pair dominates the bucketed
   pair and -- as the true pair sits between them only through bucketing, and the split of
   every x in B_a would give the same two atoms -- the split pair dominates (P, Q) (Doroshenko
   et al. 2022, Thm 3.3: the split is the pessimistic estimate of the curve at the grid).
   Product pairs of dominating pairs dominate (Zhu-Dong-Wang 2022, Lemma 13), so E f over the
   K-fold split law is >= the truth.  The P-tail beyond the top bucket goes to loss +inf
   (f(+inf) = 1) with its Q-mass moved up onto the top grid value; for q = 1 the bottom tail
   is moved up onto the bottom grid value (raising losses raises E f).
3. Exact composition.  Every mass is held as an integer multiple of 2^-F (the upper end of
   its Arb ball, rounded up), every product is an exact integer polynomial product
   (Kronecker substitution, FLINT's fmpz multiplication), and each product coefficient is
   rounded UP to the next multiple of 2^-F.  So each computed vector W is entrywise >= the
   exact law it stands for (convolution of nonnegative vectors is monotone).  Entries cut
   from either end of a vector (negligible tails, chosen by mass) are added to a counter E of
   mass "at an unknown place", and every mass at +inf to a counter I; products propagate both
   (E_new >= E_A tot_B + E_B tot_A, I_new >= I_A tot_B + I_B tot_A).  Nothing here depends on
   floating point, so the composed vectors are bit-identical on every machine.
4. delta_upper(eps) = sum_{j h > eps} W_j f_eps(j h) + E + I (f <= 1 on the unknown places).
5. Lower end.  Let nu be the split law restricted to the fine buckets (sub-probability of
   total pi = P(fine region), known from the CDF at its two ends), and G the event that every
   step falls in a fine bucket.  Under P, given its bucket loss l_a, the split value Y is a
   randomized rounding of l_a to {a h, (a+1) h} (P'((a+1) h)/P(B_a) = w(l_a)); D = Y - l_a has
   conditional range h and conditional mean mu(l_a) in [0, mu_max], mu_max = h/(1 - e^-h) - 1
   - log(h/(1 - e^-h)) (Q || P: log((e^h - 1)/h) - 1 + h/(e^h - 1)), both about h^2/8.  The
   Azuma-Hoeffding inequality gives P(sum (D_i - mu(l_i)) > t) <= exp(-2 t^2 / (K h^2)), and on
   G, sum L_i >= sum Y_i - K mu_max - t outside that event.  With f nondecreasing, f <= 1:
       H >= E_P[f_eps(sum L) 1_G] >= E_nu^K f_{eps'}(sum Y) - exp(-2 t^2/(K h^2)),
       eps' = eps + K mu_max + t.
   The K-fold nu has total pi^K and, for every grid index i, a lower tail C_nu(i) <= C_W(i) +
   E (W >= the split law >= nu entrywise; E holds whatever was cut), so its upper tail is
   T_nu(i) >= pi^K - E - C_W(i) = R + T_W(i), R = pi^K - E - sum W.  By Abel summation, for any
   index m, E_nu^K f(S) >= sum_{J <= j <= m} W_j f(j h) + f(m h) (R + T_W(m + 1)) (J the first
   index above eps').  t is optimised over a few values; each choice gives a valid bound.
   The lower end converges as O(h sqrt(K log(1/eta))), the upper end at second order in h.
6. Evaluation: the sums of step 4/5 use float64 suffix sums of nonnegative terms with
   Higham's relative error bound (Accuracy and Stability, 2nd ed., eq. (3.5)), float
   conversions of the integers with their relative error, e^(-j h) from Arb-rounded block
   values times Arb-rounded powers (3 ulps), and the final combination in Arb; every float
   operation is a single IEEE-754 operation (elementwise, or a sequential cumulative sum),
   so results are bit-identical on every machine.

Grid and cost: ``bits`` (h = 2^-bits) is chosen from the request so that the lower end's shift
t is about ``precision`` x eps / 2 (:func:`choose_bits`), clamped to the memory budget
:data:`MAX_LEN` entries per vector (about 0.1 GB per product; refused beyond with a message).
The fixed point F is 84 bits (rounding junk about K x n x 2^-84, far below 1e-12), 116 bits for
delta below 1e-11.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache

import mpmath
import numpy as np

from ..catalog import Param, register
from ..precision import DEFAULT_DPS, Domain, check, check_dps
from .conversions import Bracket, round_down, round_up

__all__ = ["PLDComposition", "sgm_pld", "sgm_pld_phases", "sgm_pld_delta_bracket", "sgm_pld_eps_bracket",
           "sgm_pld_delta", "choose_bits", "K_MAX", "MAX_LEN", "DEFAULT_PRECISION", "ENGINE_VERSION"]

#: bumped whenever a change could alter a computed digit (golden files record it)
ENGINE_VERSION = "2"
K_MAX = 10 ** 6
#: the longest vector (grid values) the engine builds: the memory budget (a product of two such
#: vectors takes about 2 x 2^21 x 32 bytes of big-integer workspace, well under 1 GB)
MAX_LEN = 1 << 21
DEFAULT_PRECISION = Fraction(1, 100)  # target relative width of the eps bracket (about)
PREC = 128  # Arb working precision (bits) of the per-step masses (F + 12 suffices; at least 96 is used)
_U = 2.0 ** -53
P = Domain.positive()
QDOM = Domain.half_open_unit()
KDOM = Domain(lo=Fraction(1), hi=Fraction(K_MAX), lo_closed=True, hi_closed=True, integer=True)
GDOM = Domain(lo=Fraction(4), hi=Fraction(20), lo_closed=True, hi_closed=True, integer=True)
NN = Domain.nonnegative()
U01 = Domain.open_unit()
PDOM = Domain(lo=Fraction(1, 10 ** 6), hi=Fraction(1, 2), lo_closed=True, hi_closed=True)
SOURCE_HI = ("PLD of the ZDW22 dominating pairs, split onto the grid (Doroshenko et al. 2022, connect the dots), exact "
             "integer composition (FLINT), directed rounding")
SOURCE_LO = ("PLD of the bucketed (post-processed) pairs, randomized rounding onto the grid with an Azuma-Hoeffding "
             "correction (derived; cf. Gopi et al. 2021), exact integer composition (FLINT)")


def _flint():
    try:
        import flint  # python-flint: FLINT integers and Arb balls
    except ImportError as exc:  # pragma: no cover - a declared dependency
        raise ImportError("the subsampled-Gaussian PLD accountant needs python-flint: python -m pip install python-flint") from exc
    return flint


class _Prec:
    """Set Arb's (global) working precision for a block and restore it."""

    def __init__(self, prec: int):
        self.prec = prec

    def __enter__(self):
        fl = _flint()
        self.old = fl.ctx.prec
        fl.ctx.prec = self.prec
        return fl

    def __exit__(self, *exc):
        _flint().ctx.prec = self.old


def _arb_q(fl, x: Fraction):
    return fl.arb(fl.fmpq(x.numerator, x.denominator))


def _exact(fl, a) -> tuple[Fraction, Fraction]:
    """The two ends of an Arb ball as exact rationals."""
    lo, hi = a.lower(), a.upper()

    def fr(p):
        m, e = p.mid().man_exp()
        m, e = int(m), int(e)
        return Fraction(m << e) if e >= 0 else Fraction(m, 1 << -e)
    return fr(lo), fr(hi)


def _ceil_fix(a) -> int:
    """ceil(upper end of the ball a) as an int (>= 0); a must be finite."""
    try:
        m, e = a.upper().man_exp()
    except (ValueError, OverflowError, TypeError):
        raise ArithmeticError("a non-finite Arb ball in the PLD step (internal)") from None
    m, e = int(m), int(e)
    v = m << e if e >= 0 else -((-m) >> -e)
    return max(v, 0)


# ---------------------------------------------------------------------------
# Fixed-point vectors: entries are integers (units 2^-F) held as little-endian uint64 limbs
# ---------------------------------------------------------------------------

_M32 = np.uint64(0xFFFFFFFF)


def _to_limbs(vals: list[int], L: int) -> np.ndarray:
    out = np.zeros((len(vals), L), dtype=np.uint64)
    mask = (1 << 64) - 1
    for i, v in enumerate(vals):
        for l in range(L):
            out[i, l] = (v >> (64 * l)) & mask
    return out


def _isum(x: np.ndarray) -> int:
    """The exact sum of a limb array's values (numpy uint64 sums of 32-bit halves cannot overflow for < 2^32 rows)."""
    if x.shape[0] == 0:
        return 0
    tot = 0
    for l in range(x.shape[1]):
        col = x[:, l]
        tot += (int(np.sum(col & _M32, dtype=np.uint64)) + (int(np.sum(col >> np.uint64(32), dtype=np.uint64)) << 32)) << (64 * l)
    return tot


def _floats(x: np.ndarray, F: int) -> np.ndarray:
    """Float64 approximations of the values (relative error <= 4u: each limb rounded once, L <= 2 additions)."""
    v = np.zeros(x.shape[0])
    for l in range(x.shape[1] - 1, -1, -1):
        v = v + np.ldexp(x[:, l].astype(np.float64), 64 * l - F)
    return v


def _ceil_shift(c: np.ndarray, F: int, L: int) -> np.ndarray:
    """ceil(c / 2^F) for a (n, Lf) limb array, as (n, L) limbs (the result must fit)."""
    s, r = divmod(F, 64)
    n, Lf = c.shape
    out = np.zeros((n, L), dtype=np.uint64)
    for m in range(L):
        i = s + m
        if i < Lf:
            v = c[:, i] >> np.uint64(r) if r else c[:, i].copy()
            if r and i + 1 < Lf:
                v |= c[:, i + 1] << np.uint64(64 - r)
            out[:, m] = v
    rem = np.zeros(n, dtype=bool)
    for i in range(s):
        rem |= c[:, i] != 0
    if r:
        rem |= (c[:, s] & np.uint64((1 << r) - 1)) != 0
    carry = rem
    for m in range(L):
        if not carry.any():
            break
        nv = out[:, m] + carry.astype(np.uint64)
        carry = carry & (nv == 0)
        out[:, m] = nv
    if carry.any():
        raise OverflowError("fixed-point entry overflow (internal)")
    return out


@dataclass
class _Vec:
    """W[i] (integer, units 2^-F) at grid index off + i; E: mass at unknown places; I: mass at +inf (upper bounds)."""

    W: np.ndarray
    off: int
    E: int
    I: int  # noqa: E741
    F: int
    steps: int

    @property
    def n(self) -> int:
        return self.W.shape[0]

    def total(self) -> int:
        return _isum(self.W) + self.E + self.I


def _trim(W: np.ndarray, off: int, F: int, cut: int) -> tuple[np.ndarray, int, int]:
    """Cut from both ends entries of total mass <= cut (each side, units 2^-F); returns (W', off', exact mass cut)."""
    if W.shape[0] <= 1 or cut <= 0:
        return W, off, 0
    v = _floats(W, F) * (1 + 8 * _U)
    lim = math.ldexp(float(cut), -F) * (1 - 1e-9)
    cs = np.cumsum(v)
    a = int(np.searchsorted(cs, lim, side="right"))  # entries [0, a) have float mass <= lim
    rs = np.cumsum(v[::-1])
    b = int(np.searchsorted(rs, lim, side="right"))  # the last b entries
    a = min(a, W.shape[0] - 1)
    b = min(b, W.shape[0] - 1 - a)
    if a == 0 and b == 0:
        return W, off, 0
    cutm = _isum(W[:a]) + _isum(W[W.shape[0] - b:])
    if cutm > 2 * cut:  # the float decision is never trusted: fall back to no cut (does not happen)
        return W, off, 0
    return W[a:W.shape[0] - b].copy(), off + a, cutm


def _mul(A: _Vec, B: _Vec, cut: int) -> _Vec:
    """The exact product A * B rounded up entrywise to multiples of 2^-F, tails of mass <= cut moved into E.

    Kronecker substitution: each vector becomes one integer with a field of ``fb`` bytes per
    entry, wide enough that no product coefficient (< 2^(2F+2) min(nA, nB)) reaches the next
    field; FLINT multiplies the integers exactly and the fields are read back.
    """
    fl = _flint()
    F = A.F
    nA, nB = A.n, B.n
    L = A.W.shape[1]
    bound_bits = 2 * (F + 1) + min(nA, nB).bit_length() + 1
    fb = -(-bound_bits // 8)
    Lf = -(-fb // 8)

    def pack(W):
        P_ = np.zeros((W.shape[0], fb), dtype=np.uint8)
        P_[:, :8 * W.shape[1]] = W.view(np.uint8).reshape(W.shape[0], 8 * W.shape[1])
        return fl.fmpz(int.from_bytes(P_.tobytes(), "little"))

    fa = pack(A.W)
    prod = fa ** 2 if (A is B) else fa * pack(B.W)
    n = nA + nB - 1
    raw = np.frombuffer(int(prod).to_bytes(n * fb, "little"), dtype=np.uint8).reshape(n, fb)
    C8 = np.zeros((n, 8 * Lf), dtype=np.uint8)
    C8[:, :fb] = raw
    C = C8.view(np.uint64).reshape(n, Lf)
    W = _ceil_shift(C, F, L)
    sA, sB = _isum(A.W), _isum(B.W)
    tA, tB = sA + A.E + A.I, sB + B.E + B.I
    one = 1 << F

    def cdiv(x):
        return -((-x) // one)

    I = cdiv(A.I * tB + B.I * tA)  # noqa: E741
    E = cdiv(A.E * (sB + B.E) + B.E * sA)
    W, off, cm = _trim(W, A.off + B.off, F, cut)
    return _Vec(W, off, E + cm, I, F, A.steps + B.steps)


def _power(V: _Vec, k: int, cut_fn) -> _Vec:
    result = None
    base = V
    while True:
        if k & 1:
            result = base if result is None else _mul(result, base, cut_fn(result.steps + base.steps))
        k >>= 1
        if not k:
            return result
        base = _mul(base, base, cut_fn(2 * base.steps))


# ---------------------------------------------------------------------------
# One step: bucket masses in Arb -> the split (pessimistic) vectors of both orders
# ---------------------------------------------------------------------------

def _lx(q: float, s: float, x: float) -> float:
    t = (2 * x - 1) / (2 * s * s)
    if q == 1:
        return t
    return math.log1p(-q + q * math.exp(t)) if t < 700 else math.log(q) + t


def _sf(z: float) -> float:
    return 0.5 * math.erfc(z / math.sqrt(2))


def _x_of_tail(q: float, s: float, eta: float) -> float:
    """A float x with P(X > x) and Q(X > x) both below eta (X ~ P or Q): choice only."""
    x = 0.5
    while (q * _sf((x - 1) / s) + (1 - q) * _sf(x / s)) > eta and x < 1 + 40 * s:
        x += 0.05 * s
    return x


def _x_of_low_tail(s: float, eta: float) -> float:
    z = 1.0
    while _sf(z) > eta and z < 40:
        z += 0.25
    return -z * s


@dataclass
class _Step:
    P: _Vec
    Q: _Vec
    piP: tuple[Fraction, Fraction]  # P(fine region) enclosure
    piQ: tuple[Fraction, Fraction]
    buckets: int


def _bucket_range(q: Fraction, s: Fraction, bits: int, tail: Fraction, K: int) -> tuple[int, int]:
    """Float choice of the fine region's grid indices (j0 estimate, jt): P- and Q-tails beyond jt below tail/(4K)."""
    qf, sf = float(q), float(s)
    h = 2.0 ** -bits
    eta = float(tail) / (4 * K)
    x_top = _x_of_tail(qf, sf, eta)
    jt = max(math.ceil(_lx(qf, sf, x_top) / h) + 1, 1)
    if q < 1:
        j0 = math.floor(math.log1p(-qf) / h)
    else:
        j0 = math.floor(_lx(qf, sf, _x_of_low_tail(sf, eta)) / h) - 1
    return j0, max(jt, j0 + 1)


@lru_cache(maxsize=32)
def _step(q: Fraction, s: Fraction, bits: int, F: int, tail: Fraction, K: int) -> _Step:
    """The pessimistic split vectors of one step (module docstring, steps 1-2), both orders."""
    qf, sf = float(q), float(s)
    h = 2.0 ** -bits
    eta = float(tail) / (4 * K)
    x_top = _x_of_tail(qf, sf, eta)
    jt = max(math.ceil(_lx(qf, sf, x_top) / h) + 1, 1)
    with _Prec(max(96, F + 12)) as fl:
        arb = fl.arb
        qa, sa = _arb_q(fl, q), _arb_q(fl, s)
        one_q = 1 - qa
        hh = arb(1) / (1 << bits)
        if q < 1:
            # the largest grid index at or below the infimum log(1 - q) of the loss (decided in Arb)
            j0 = math.floor(math.log1p(-qf) / h)
            while True:
                v = (arb(j0 + 1) * hh).exp()
                if v < one_q:  # certainly below: move up
                    j0 += 1
                    continue
                break
            while not ((arb(j0) * hh).exp() <= one_q):
                j0 -= 1
        else:
            x_bot = _x_of_low_tail(sf, eta)
            j0 = math.floor(_lx(qf, sf, x_bot) / h) - 1
        if jt <= j0:
            jt = j0 + 1
        nb = jt - j0
        if nb > MAX_LEN:
            raise ValueError(f"the grid 2^-{bits} needs {nb} buckets for one step of q = {q}, sigma = {s} (more than "
                             f"MAX_LEN = {MAX_LEN}); use a coarser grid (fewer bits)")
        s2 = sa * sa
        inv = 1 / sa
        r2 = 1 / arb(2).sqrt()
        eh = hh.exp()

        c1 = sa / arb(2).sqrt()  # x/(sigma sqrt2) = c1 log(...) + c0
        c0 = 1 / (2 * sa * arb(2).sqrt())
        cs = 1 / (sa * arb(2).sqrt())

        def sfs(e_exp, j):
            """(1 - F_P, 1 - F_Q) at x(j h), e_exp = exp(j h), as Arb balls (absolute accuracy 2^-PREC)."""
            if q < 1 and j == j0:
                return arb(1), arb(1)
            if q < 1:
                w = c1 * ((e_exp - one_q) / qa).log() + c0  # x/(sigma sqrt2)
            else:
                w = (sa * arb(j) * hh) / arb(2).sqrt() + c0
            Sq = w.erfc() / 2
            Sp = (w - cs).erfc() / 2
            if q < 1:
                return one_q * Sq + qa * Sp, Sq
            return Sp, Sq

        ej = (arb(j0) * hh).exp()
        prev = sfs(ej, j0)
        bottom = prev
        pvals = [0] * (nb + 1)  # P-PLD upper masses at grid j0 .. jt
        qvals = [0] * (nb + 1)  # Q-PLD upper masses at Q-loss -jt .. -j0 (index jt - j)
        em_a = (-(arb(j0) * hh)).exp()
        emh = (-hh).exp()
        scale = arb(1 << F)
        for i in range(nb):
            ej = ej * eh
            cur = sfs(ej, j0 + i + 1)
            PB = prev[0] - cur[0]
            QB = prev[1] - cur[1]
            em_b = em_a * emh
            pb_ = (em_a * PB - QB) * scale / (em_a - em_b)
            pa_ = PB * scale - pb_
            pvals[i] += _ceil_fix(pa_)
            pvals[i + 1] += _ceil_fix(pb_)
            qvals[nb - i] += _ceil_fix(pa_ * em_a)
            qvals[nb - i - 1] += _ceil_fix(pb_ * em_b)
            prev = cur
            em_a = em_b
        top = prev
        # tails: P-order top tail -> +inf; its Q-mass moved up onto the top Q-grid value -jt
        IP = _ceil_fix(top[0] * scale)
        qvals[0] += _ceil_fix(top[1] * scale)
        IQ = 0
        if q == 1:  # bottom tail: P-losses moved up onto j0; Q-losses above -j0 -> +inf
            pvals[0] += _ceil_fix((1 - bottom[0]) * scale)
            IQ = _ceil_fix((1 - bottom[1]) * scale)
        piP = _exact(fl, bottom[0] - top[0])
        piQ = _exact(fl, bottom[1] - top[1])
    L = -(-(F + 2) // 64)
    Pv = _Vec(_to_limbs(pvals, L), j0, 0, IP, F, 1)
    Qv = _Vec(_to_limbs(qvals, L), -jt, 0, IQ, F, 1)
    return _Step(Pv, Qv, piP, piQ, nb)


def mu_max(bits: int) -> tuple[Fraction, Fraction]:
    """Upper bounds (as rationals) on the mean shift mu of the split rounding, P-order and Q-order (docstring step 5)."""
    with _Prec(PREC) as fl:
        h = fl.arb(1) / (1 << bits)
        a = h / (1 - (-h).exp())
        mp_ = a - 1 - a.log()
        b = (h.exp() - 1) / h
        mq = b.log() - 1 + 1 / b
        return _exact(fl, mp_)[1], _exact(fl, mq)[1]


# ---------------------------------------------------------------------------
# Evaluation (docstring steps 4-6)
# ---------------------------------------------------------------------------

class _Eval:
    """Suffix sums of one composed vector, for O(1) upper / lower hockey-stick evaluations."""

    def __init__(self, V: _Vec, bits: int, pi_lo: Fraction, mu: Fraction, K: int):
        self.V, self.bits, self.K = V, bits, K
        self.h = Fraction(1, 1 << bits)
        F = V.F
        n = V.n
        v = _floats(V.W, F)
        rel = 10 * _U
        self.vup = v * (1 + rel)
        self.vlo = v * (1 - rel)
        # g_j = e^(-(j) h) relative to the offset: g[i] = exp(-i h), i = 0..n-1, from Arb blocks (3 ulps)
        B = 256
        nblk = -(-n // B)
        with _Prec(80) as fl:
            hh = fl.arb(1) / (1 << bits)
            pw = np.array([float((-(hh * i)).exp().mid()) for i in range(B)])
            bl = np.array([float((-(hh * (B * b))).exp().mid()) if B * b * float(hh.mid()) < 700 else 0.0 for b in range(nblk)])
        g = (bl[:, None] * pw[None, :]).reshape(-1)[:n]
        g = np.where(g < 1e-290, 0.0, g)
        self.glo = g * (1 - 10 * _U)
        self.gup = np.where(g > 0, g * (1 + 10 * _U), 2e-290)
        # suffix sums (sequential, deterministic), index i -> sum_{i' >= i}; an extra 0 at n
        self.s_vup = np.append(np.cumsum(self.vup[::-1])[::-1], 0.0)
        self.s_vlo = np.append(np.cumsum(self.vlo[::-1])[::-1], 0.0)
        self.s_glo = np.append(np.cumsum((self.vlo * self.glo)[::-1])[::-1], 0.0)
        self.s_gup = np.append(np.cumsum((self.vup * self.gup)[::-1])[::-1], 0.0)
        self.err = 1.01 * (n + 2) * _U  # Higham's gamma for a recursive sum of nonnegative terms
        one = Fraction(1, 1 << F)
        self.E = V.E * one
        self.I = V.I * one
        self.R = pi_lo - self.E - _isum(V.W) * one  # pi^K - E - sum W (a lower bound)
        self.mu = mu

    def _J(self, eps: Fraction) -> int:
        """The first array index whose grid loss exceeds eps."""
        return max(0, min(self.V.n, math.floor(eps / self.h) + 1 - self.V.off))

    def upper(self, eps: Fraction) -> Fraction:
        """sum_{j h > eps} W_j f_eps(j h) + E + I, rounded up (an exact rational)."""
        i = self._J(eps)
        s1 = Fraction(float(self.s_vup[i])) * (1 + Fraction(self.err))
        s2 = Fraction(float(self.s_glo[i])) * (1 - Fraction(self.err))
        with _Prec(96) as fl:
            x = eps - self.V.off * self.h
            e = (_arb_q(fl, x)).exp()
            val = _arb_q(fl, s1) - e * _arb_q(fl, s2)
            hi = _exact(fl, val)[1]
        return max(hi, Fraction(0)) + self.E + self.I

    def _S(self, eps1: Fraction) -> Fraction:
        """A lower bound on E_nu^K f_eps1(S) (docstring step 5; any cut index m is valid)."""
        n = self.V.n
        J = self._J(eps1)
        if J >= n:
            return Fraction(0)
        # m: the last index with R + T_W(m + 1) >= 0 (float choice)
        need = -float(self.R) if self.R < 0 else -1.0
        tail = self.s_vlo  # T_W lower bounds (before the relative error factor)
        m = n - 1
        if need > 0:
            # largest m with tail[m + 1] >= need (tail nonincreasing)
            k = int(np.searchsorted(-tail, -need, side="right")) - 1  # last index with tail >= need
            m = max(J, min(n - 1, k - 1))
        with _Prec(96) as fl:
            a = fl.arb
            e = Fraction(1) - Fraction(self.err)
            ep = Fraction(1) + Fraction(self.err)
            s1 = Fraction(float(self.s_vlo[J])) * e - Fraction(float(self.s_vlo[m + 1])) * ep
            s2 = Fraction(float(self.s_gup[J])) * ep - Fraction(float(self.s_glo[m + 1])) * e
            x = eps1 - self.V.off * self.h
            E_ = _arb_q(fl, x).exp()
            part = _arb_q(fl, s1) - E_ * _arb_q(fl, s2)
            fm = 1 - (_arb_q(fl, eps1 - (self.V.off + m) * self.h)).exp()
            if fm < 0:
                fm = a(0)
            T = Fraction(float(self.s_vlo[m + 1])) * e
            extra = fm * _arb_q(fl, self.R + T)
            val = part + extra
            lo = _exact(fl, val)[0]
        return max(lo, Fraction(0))

    def lower(self, eps: Fraction) -> Fraction:
        """max over t of S(eps + K mu + t) - exp(-2 t^2/(K h^2)), rounded down (an exact rational)."""
        best = Fraction(0)
        base = eps + self.K * self.mu
        hk = float(self.h) * math.sqrt(self.K)
        for lg in (2, 4, 6, 8, 10, 13, 16, 20, 25, 30, 40):
            t = Fraction(hk * math.sqrt(lg * math.log(10) / 2)).limit_denominator(1 << 40)
            S = self._S(base + t)
            if S <= best:
                continue
            with _Prec(96) as fl:
                eta = (-2 * _arb_q(fl, t * t / (self.K * self.h * self.h))).exp()
                eta_hi = _exact(fl, eta)[1]
            best = max(best, S - eta_hi)
        return best


# ---------------------------------------------------------------------------
# Public API
# ---------------------------------------------------------------------------

@dataclass
class PLDComposition:
    """The composed certified PLD vectors of a (possibly heterogeneous) Poisson-subsampled Gaussian run, both orders.

    ``phases``: ((q, sigma, k), ...); ``bits``: grid h = 2^-bits; ``F``: fixed-point bits; ``tail``:
    the mass budget of the cut tails (module docstring).  :meth:`delta_upper` / :meth:`delta_lower`
    are certified ends of delta(eps); :meth:`eps_bracket` inverts them.
    """

    phases: tuple
    bits: int
    F: int
    tail: Fraction
    P: _Vec
    Q: _Vec
    evP: _Eval = field(repr=False)
    evQ: _Eval = field(repr=False)

    @property
    def h(self) -> Fraction:
        return Fraction(1, 1 << self.bits)

    @property
    def k(self) -> int:
        return sum(p[2] for p in self.phases)

    @property
    def q(self):
        return self.phases[0][0] if len(self.phases) == 1 else None

    @property
    def sigma(self):
        return self.phases[0][1] if len(self.phases) == 1 else None

    def _tag(self) -> str:
        return f" (h = 2^-{self.bits}, F = {self.F}, engine {ENGINE_VERSION})"

    def delta_upper_exact(self, eps) -> Fraction:
        e = check("eps", eps, NN)
        return min(Fraction(1), max(self.evP.upper(e), self.evQ.upper(e)))

    def delta_lower_exact(self, eps) -> Fraction:
        e = check("eps", eps, NN)
        return max(self.evP.lower(e), self.evQ.lower(e))

    def delta_upper(self, eps) -> mpmath.mpf:
        """Certified upper bound on delta(eps), rounded up (20 digits)."""
        return round_up(self.delta_upper_exact(eps), 20)

    def delta_lower(self, eps) -> mpmath.mpf:
        """Certified lower bound on delta(eps), rounded down (20 digits)."""
        return round_down(self.delta_lower_exact(eps), 20)

    def delta_bracket(self, eps) -> Bracket:
        lo, hi = self.delta_lower(eps), self.delta_upper(eps)
        return Bracket("delta", min(lo, hi), hi, False, "bracket", lo_source=SOURCE_LO + self._tag(),
                       hi_source=SOURCE_HI + self._tag())

    def eps_upper_exact(self, delta) -> Fraction | None:
        """The least eps (to 2^-40 relative, a dyadic rational) with delta_upper(eps) <= delta; None if none below the grid top."""
        d = check("delta", delta, U01)
        top = Fraction(max(self.P.off + self.P.n, self.Q.off + self.Q.n) + 1) * self.h
        if self.delta_upper_exact(top) > d:
            return None
        if self.delta_upper_exact(0) <= d:
            return Fraction(0)
        lo, hi = Fraction(0), top  # up(lo) > d >= up(hi)
        while hi - lo > max(hi, Fraction(1, 1 << 20)) * Fraction(1, 1 << 40):
            mid = (lo + hi) / 2
            mid = Fraction(math.floor(mid * (1 << 60)), 1 << 60) if mid.denominator > (1 << 60) else mid
            if mid <= lo or mid >= hi:
                break
            if self.delta_upper_exact(mid) <= d:
                hi = mid
            else:
                lo = mid
        return hi

    def eps_lower_exact(self, delta) -> Fraction:
        """The largest eps found (bisection) with delta_lower(eps) > delta (then the true eps(delta) > it); 0 if none."""
        d = check("delta", delta, U01)
        if not self.delta_lower_exact(0) > d:
            return Fraction(0)
        top = Fraction(max(self.P.off + self.P.n, self.Q.off + self.Q.n) + 1) * self.h
        lo, hi = Fraction(0), top  # low(lo) > d, low(hi) <= d (delta_lower(top) = 0)
        while hi - lo > max(lo, Fraction(1, 1 << 20)) * Fraction(1, 1 << 40):
            mid = (lo + hi) / 2
            mid = Fraction(math.floor(mid * (1 << 60)), 1 << 60) if mid.denominator > (1 << 60) else mid
            if mid <= lo or mid >= hi:
                break
            if self.delta_lower_exact(mid) > d:
                lo = mid
            else:
                hi = mid
        return lo

    def eps_bracket(self, delta) -> Bracket:
        """eps(delta) bracket: hi with delta_upper(hi) <= delta; lo with delta_lower(lo) > delta (so eps(delta) > lo)."""
        hi_ = self.eps_upper_exact(delta)
        lo_ = self.eps_lower_exact(delta)
        hi = mpmath.inf if hi_ is None else round_up(hi_, 30)
        lo = round_down(lo_, 30)
        return Bracket("eps", lo, max(hi, lo), False, "bracket", lo_source=SOURCE_LO + self._tag(),
                       hi_source=SOURCE_HI + self._tag())

    def certificate(self) -> dict:
        """What the bracket rests on: grid, fixed point, tail budget, E and I of each order, steps."""
        one = Fraction(1, 1 << self.F)
        return {"engine": ENGINE_VERSION, "phases": [[str(q), str(s), k] for q, s, k in self.phases], "bits": self.bits,
                "F": self.F, "tail": str(self.tail), "P": {"len": self.P.n, "E": float(self.P.E * one), "I": float(self.P.I * one)},
                "Q": {"len": self.Q.n, "E": float(self.Q.E * one), "I": float(self.Q.I * one)}}


def _parse_phases(phases) -> tuple:
    out = []
    for ph in phases:
        if len(ph) != 3:
            raise ValueError(f"a phase is (q, sigma, k), found {ph!r}")
        q, s, k = ph
        out.append((check("q", q, QDOM), check("sigma", s, P), int(check("k", k, KDOM))))
    if not out:
        raise ValueError("phases must not be empty")
    K = sum(p[2] for p in out)
    if K > K_MAX:
        raise ValueError(f"k (total steps) must be at most K_MAX = {K_MAX}, found {K}")
    return tuple(out)


def _sd_estimate(q: float, s: float) -> tuple[float, float]:
    """Float mean and standard deviation of one step's P-privacy loss (choice only)."""
    xs = np.linspace(-12 * s, 1 + 12 * s, 4001)
    dx = xs[1] - xs[0]
    p = (1 - q) * np.exp(-xs ** 2 / (2 * s * s)) + q * np.exp(-(xs - 1) ** 2 / (2 * s * s))
    p = p / p.sum()
    l = np.array([_lx(q, s, x) for x in xs])
    m = float((p * l).sum())
    v = float((p * (l - m) ** 2).sum())
    del dx
    return m, math.sqrt(max(v, 1e-300))


def choose_bits(phases, eps_scale: float, precision=DEFAULT_PRECISION, delta: float = 1e-6) -> int:
    """The grid exponent for a request: the lower end's shift h sqrt(K log(1/eta)/2) about precision x eps_scale / 2,
    clamped to [6, 20] and to the memory budget (a float choice: it affects tightness and cost, never validity)."""
    K = sum(int(p[2]) for p in phases)
    eta = max(min(delta, 0.1) * 1e-3, 1e-300)
    t_target = 0.8 * float(precision) * max(eps_scale, 1e-3)
    h = t_target / math.sqrt(K * math.log(1 / eta) / 2)
    bits = int(min(20, max(6, math.ceil(-math.log2(h)))))
    span = _span(phases)
    while bits > 6 and span * 2 ** bits > MAX_LEN / 2:
        bits -= 1
    return bits


def _span(phases) -> float:
    """A float estimate of the composed window's width in loss units (about 20 sd of the K-fold loss, + the step range)."""
    var = 0.0
    rng = 0.0
    for q, s, k in phases:
        _, sd = _sd_estimate(float(q), float(s))
        var += int(k) * sd * sd
        rng = max(rng, _lx(float(q), float(s), 1 + 9 * float(s)) - math.log1p(-min(float(q), 0.999999)))
    return 20 * math.sqrt(var) + rng + 4


def _compose_key(phases, bits, F, tail):
    return (phases, bits, F, tail)


@lru_cache(maxsize=8)
def _compose(phases: tuple, bits: int, F: int, tail: Fraction) -> PLDComposition:
    K = sum(p[2] for p in phases)
    tail_fix = int(tail * (1 << F))
    steps = [_step(q, s, bits, F, tail, K) for q, s, _ in phases]
    for st, (q, s, k) in zip(steps, phases):
        if st.buckets * 1 > MAX_LEN:
            raise ValueError(f"grid too fine for q = {q}, sigma = {s}")
    cut_fn = lambda m: max(tail_fix * m // (64 * K), 0)  # noqa: E731  (per product, per side)
    outs = []
    for order in ("P", "Q"):
        acc = None
        for st, (_, _, k) in zip(steps, phases):
            V = st.P if order == "P" else st.Q
            V0, off0, c0 = _trim(V.W, V.off, F, cut_fn(1))
            V = _Vec(V0, off0, V.E + c0, V.I, F, 1)
            Vk = _power(V, k, cut_fn)
            acc = Vk if acc is None else _mul(acc, Vk, cut_fn(acc.steps + Vk.steps))
            if acc.n > MAX_LEN:
                raise ValueError(f"the composed vector needs {acc.n} grid values (more than MAX_LEN = {MAX_LEN}); "
                                 f"use a coarser grid")
        outs.append(acc)
    muP, muQ = mu_max(bits)
    evP = _Eval(outs[0], bits, _pow_lo(steps, phases, "P"), muP, K)
    evQ = _Eval(outs[1], bits, _pow_lo(steps, phases, "Q"), muQ, K)
    return PLDComposition(phases, bits, F, tail, outs[0], outs[1], evP, evQ)


def _pow_lo(steps, phases, order) -> Fraction:
    """A lower bound on prod pi^k (Arb, rounded down to an exact rational)."""
    with _Prec(PREC) as fl:
        tot = fl.arb(1)
        for st, (_, _, k) in zip(steps, phases):
            lo = (st.piP if order == "P" else st.piQ)[0]
            if lo <= 0:
                return Fraction(0)
            tot = tot * _arb_q(fl, lo) ** k
        return max(_exact(fl, tot)[0], Fraction(0))


def _fix_bits(phases, bits: int, tail: Fraction) -> int:
    """The fixed point F: the rounding junk (about 4 K n1 2^-F, n1 the step's length) at most tail / 4, F in [56, 118]."""
    K = sum(p[2] for p in phases)
    n1 = max(_bucket_range(q, s, bits, tail, K)[1] - _bucket_range(q, s, bits, tail, K)[0] + 2 for q, s, _ in phases)
    need = math.log2(16 * K * n1 / float(tail))
    return int(min(118, max(56, math.ceil(need))))


def sgm_pld_phases(phases, *, grid_bits=None, delta_hint=None, eps_hint=None, precision=DEFAULT_PRECISION,
                   tail=None) -> PLDComposition:
    """The composed certified PLD of a run of Poisson-subsampled Gaussian phases ((q, sigma, k), ...) (cached).

    ``grid_bits``: h = 2^-grid_bits (default: :func:`choose_bits` from the hints); ``delta_hint`` /
    ``eps_hint``: the request (to size the grid, the fixed point and the tail budget);
    ``precision``: the target relative width of the eps bracket.  Raises ValueError naming the
    limit when the request exceeds the memory budget.
    """
    ph = _parse_phases(phases)
    prec = check("precision", precision, PDOM)
    d = float(delta_hint) if delta_hint is not None else None
    if grid_bits is None:
        if eps_hint is not None:
            scale = float(eps_hint)
        else:
            scale = _eps_guess(ph, d if d is not None else 1e-6)
        bits = choose_bits(ph, scale, prec, d if d is not None else 1e-6)
    else:
        bits = int(check("grid_bits", grid_bits, GDOM))
        span = _span(ph)
        if span * 2 ** bits > MAX_LEN:
            raise ValueError(f"grid_bits = {bits} needs about {int(span * 2 ** bits)} grid values for this run (more than "
                             f"MAX_LEN = {MAX_LEN}, the memory budget); use grid_bits <= "
                             f"{max(4, int(math.floor(math.log2(MAX_LEN / span))))}")
    if tail is None:
        # the budget of cut and tail mass: 1e-5 of the requested delta (2^-60 for a delta(eps) request), dyadic
        tl = 2.0 ** -60 if d is None else min(2.0 ** -30, d * 1e-5)
        tl = Fraction(1, 1 << min(1000, math.ceil(-math.log2(tl)))) if tl > 0 else Fraction(1, 1 << 1000)
    else:
        tl = check("tail", tail, U01)
    return _compose(ph, bits, _fix_bits(ph, bits, tl), tl)


def _eps_guess(ph, delta: float) -> float:
    """A float estimate of eps(delta) from the summed integer-order RDP curve (choice only)."""
    from . import subsampled_gaussian as sgm

    best = math.inf
    for a in (2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256):
        r = sum(k * sgm.sgm_rdp_float(float(q), float(s), a) for q, s, k in ph)
        best = min(best, r + math.log(1 / delta) / (a - 1))
    return best if math.isfinite(best) else 1.0


def sgm_pld(q, sigma, k, *, grid_bits=None, delta_hint=None, eps_hint=None, precision=DEFAULT_PRECISION) -> PLDComposition:
    """The composed certified PLD of the k-fold Poisson-subsampled Gaussian (cached); see :class:`PLDComposition`."""
    return sgm_pld_phases(((q, sigma, k),), grid_bits=grid_bits, delta_hint=delta_hint, eps_hint=eps_hint,
                          precision=precision)


def sgm_pld_delta_bracket(q, sigma, k, eps, *, grid_bits=None, precision=DEFAULT_PRECISION) -> Bracket:
    """koskela2020 PLD accountant, certified: bracket of delta(eps) of the k-fold Poisson-subsampled Gaussian (add/remove).

    Contract: lo <= delta(eps) <= hi for the tight dominating pairs of Zhu-Dong-Wang 2022 (module
    docstring, proof steps 1-6).  Preconditions: 0 < q <= 1, sigma > 0, 1 <= k <= K_MAX, eps >= 0.
    Rounding: lo down, hi up.  Bit-identical on every machine for the same arguments.
    """
    e = check("eps", eps, NN)
    return sgm_pld(q, sigma, k, grid_bits=grid_bits, eps_hint=max(float(e), 0.05), precision=precision).delta_bracket(e)


def sgm_pld_eps_bracket(q, sigma, k, delta, *, grid_bits=None, precision=DEFAULT_PRECISION) -> Bracket:
    """koskela2020 PLD accountant, certified: bracket of eps(delta) of the k-fold Poisson-subsampled Gaussian (add/remove).

    Contract: delta_lower(lo) > delta (so eps(delta) > lo) and delta_upper(hi) <= delta (so
    eps(delta) <= hi).  Preconditions: 0 < q <= 1, sigma > 0, 1 <= k <= K_MAX, 0 < delta < 1.
    Rounding: lo down, hi up.  Bit-identical on every machine.
    """
    d = check("delta", delta, U01)
    return sgm_pld(q, sigma, k, grid_bits=grid_bits, delta_hint=d, precision=precision).eps_bracket(d)


_q = Param("q", QDOM, default="0.01", doc="Poisson sampling rate q in (0, 1]")
_sigma = Param("sigma", P, default="1.1", doc="noise multiplier sigma > 0 (L2 sensitivity 1)")
_k = Param("k", KDOM, kind="integer", default="1000", doc=f"number of composed steps, 1 <= k <= {K_MAX}")
_eps = Param("eps", NN, default="1", doc="target epsilon >= 0")


@register("koskela2020_pld_sgm_delta", paper="koskela2020", result="PLD accountant for the subsampled Gaussian, certified",
          direction="upper", summary="delta(eps) of k-fold Poisson-subsampled Gaussian (add/remove): certified upper end of a discretised-PLD bracket",
          params=(_q, _sigma, _k, _eps), provenance="derived",
          note="Dominating pairs of Zhu-Dong-Wang 2022 (both orders), pessimistic split discretisation (Doroshenko et al. "
               "2022) on the grid 2^-bits chosen from eps, bucket masses in Arb ball arithmetic, exact integer composition "
               "(FLINT) with every rounding directed; the lower end (sgm_pld_delta_bracket(...).lo) adds an Azuma-Hoeffding "
               "correction. Proof: reference/profiles/sgm_pld.py docstring, proof-tested in proofs/test_sgm_pld_certified.py. "
               "Bit-identical on every machine.",
          validity="valid")
def sgm_pld_delta(q, sigma, k, eps, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """koskela2020 PLD accountant, certified: upper bound on delta(eps) of the k-fold Poisson-subsampled Gaussian (module docstring).

    Preconditions: 0 < q <= 1, sigma > 0, 1 <= k <= K_MAX, eps >= 0.  Rounding: up.  The result
    carries 20 significant digits whatever ``dps`` (``dps`` is accepted for the catalog's calling
    convention).  Guarantee: >= the true delta(eps) (proof steps 1-4 of the module docstring).
    """
    check_dps(dps)
    e = check("eps", eps, NN)
    return sgm_pld(q, sigma, k, eps_hint=max(float(e), 0.05)).delta_upper(e)
