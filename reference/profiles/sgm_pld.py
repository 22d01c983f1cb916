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
pessimistic split discretisation (upper end); the lower end is derived below (step 5: a
post-processing onto the grid, in the spirit of the paper's optimistic estimate; an earlier
engine used an Azuma-Hoeffding correction after Gopi, Lee, Wutschitz, NeurIPS 2021, which
converged only at first order in h).

Notation: l(x) = log(p(x)/q(x)) = log(1 - q + q exp((2x - 1)/(2 sigma^2))) (increasing in x);
f_eps(L) = (1 - e^(eps - L))_+ (nondecreasing, 0 <= f <= 1), and H_{e^eps}(P^K || Q^K) =
E_P f_eps(L_1 + ... + L_K), L_i the P-privacy loss of step i (the "P-PLD"; for the order
Q || P the loss is -l(X), X ~ Q).  Grid: losses j h, h = 2^-bits.  Buckets
B = {x : l(x) in [a h, b h]} = [x(a h), x(b h)] (a < b integers; b = a + 1 in the bulk, wider in the
right tail where little mass is left, a choice: ``_wide``), x(e) = sigma^2 log((e^e - 1 + q)/q)
+ 1/2, cover the losses from the infimum log(1 - q) (q < 1) up to a top beyond which the
P- and Q-masses are below ``tail``/(4 K); the rest is a tail (below).

The proof, step by step (each step is checked by ``proofs/test_sgm_pld_certified.py``):

1. Bucketing is a post-processing, so the bucketed pair (P_B, Q_B) is dominated by (P, Q);
   its atom B has loss l_B = log(P(B)/Q(B)) in [a h, b h] (every loss of the bucket is).
2. Upper end (pessimistic, Doroshenko et al. 2022): each atom is split into two atoms at
   losses a h and b h, with P-masses P'(b h) = (e^(-a h) P(B) - Q(B))/(e^(-a h) -
   e^(-b h)), P'(a h) = P(B) - P'(b h) and Q' = P' e^(-loss) (both nonnegative as l_B lies
   between the two grid values; nothing in this step needs b = a + 1): both measures are kept,
   merging the two atoms back is a post-processing, so the split pair dominates the bucketed
   pair and -- as the true pair sits between them only through bucketing, and the split of
   every x in B_a would give the same two atoms -- the split pair dominates (P, Q) (Doroshenko
   et al. 2022, Thm 3.3: the split is the pessimistic estimate of the curve at the grid).
   Product pairs of dominating pairs dominate (Zhu-Dong-Wang 2022, Lemma 13), so E f over the
   K-fold split law is >= the truth.  The masses beyond the top bucket (and, for q = 1, below
   the bottom one) go to "an unknown place": a P-mass U_P and a Q-mass U_Q counted as
   f = 1 in the upper end (f <= 1 everywhere).
3. Exact composition.  The split keeps every atom's likelihood ratio (Q-mass = P-mass e^-l),
   and so does every product of such pairs, so one vector can carry both orders: it holds
   the tilted masses W = P-mass e^(-t l/2) (t = 1, symmetric; or two chains t = 0 for the
   P-order and t = 2 for the Q-order when the window is so wide that ``e^(|l|/2)`` would amplify
   the rounding); the tilt commutes with convolution.  Every W is an integer multiple of
   2^-F (the upper end of its Arb ball, rounded up), every product is an exact integer
   polynomial product (Kronecker substitution, FLINT's fmpz multiplication), and each product
   coefficient is rounded UP to the next multiple of 2^-F.  So each computed vector is
   entrywise >= the exact law it stands for (convolution of nonnegative vectors is monotone).
   Entries cut from either end of a vector (negligible tails, chosen by both masses) move
   into U_P and U_Q (certified upper bounds of their masses), and products propagate them
   (U_new >= U_A (M_B + U_B) + U_B M_A, M the certified mass of a window).  The composed
   integers depend on no floating point and are bit-identical on every machine.
4. delta_upper(eps) = sum_{j h > eps} (mass at j h) f_eps(j h) + U (f <= 1 on the unknown places).
5. Lower end (derived here; the optimistic counterpart of step 2, cf. the optimistic estimate of
   Doroshenko et al. 2022): a second vector from a different bucketing.  Buckets [b_i, b_(i+1)]
   (b_0 = -infinity for q < 1; below a far point for q = 1) are chosen so that each ratio
   P(B)/Q(B) = e^(l_B) lies within a tiny certified deviation of a grid value e^(g_B h) (the grid
   values aimed at are a choice: consecutive ones in the bulk, further apart in the right tail): the
   right end b_(i+1) is a root of P[b_i, x] - e^(g h) Q[b_i, x] (a safeguarded Newton iteration in
   64-bit Arb from the equation's second-order root -- a choice), then the bucket's masses are computed at full precision in Arb and
   ``|l_B - g_B h| <= dev`` is certified (a bucket with deviation above DEV_MAX = 2^-36 is dropped;
   so is everything above the last bucket, and a stretch between two buckets where the whole tail
   above the previous one cannot reach the next grid value, as when q is far below h).  Bucketing is a post-processing, so the bucketed
   pair (P_B, Q_B) is dominated by (P, Q) and its K-fold composition by the true one.  Each atom
   is then shrunk to the exact ratio: P''_B = min(P_B, e^(g h) Q_B), Q''_B = P''_B e^(-g h), so
   P'' <= P_B and Q'' <= Q_B atom by atom, with the recorded loss g h within dev of l_B.  For the
   P-order, with f_eps nondecreasing and >= 0, atom-wise smaller masses give a smaller sum and
   sum g h >= sum l_B - K dev, so::

       H_{e^eps}(P^K || Q^K) >= E_{P_B^K} f_eps(sum l_B) >= E_{P''^K} f_{eps + K dev}(sum g h);

   the Q-order is the same with the Q-loss -g h (within dev of -l_B).  The shrunk atoms keep
   the grid ratios, so one tilted vector carries both orders, as in step 3; its entries are
   rounded DOWN to multiples of 2^-F (the lower end of the Arb ball), every product is rounded
   down, and cut tails are simply dropped (a sub-measure only lowers the sum).  So
   delta_lower(eps) = sum_{j h > eps'} (mass at j h) f_eps'(j h), eps' = eps + K dev, read with
   every float bound taken downward.  Both ends converge at second order in h (the bucketing
   and the split each lose O(h^2) per step); no concentration term is needed.  The optimistic
   grid of a phase with q < 1 is offset, c + j h with c = log(1 - q) + f min(h, -log(1 - q)) (a
   dyadic, f in ``OFFSETS``: a choice, see ``_lstep_core``), so that the bucket reaching
   down to -infinity, whose ratio lies in (1 - q, 1), sits on it; the K-fold
   vector's entry j then stands for the loss j h + sum k c (exact), and eps is shifted by it.
6. Evaluation: the sums of step 4/5 use float64 suffix sums of nonnegative terms with
   Higham's relative error bound (Accuracy and Stability, 2nd ed., eq. (3.5)), float
   conversions of the integers with their relative error, e^(-j h/2) from Arb-rounded block
   values times Arb-rounded powers (3 ulps), and the final combination in Arb; every float
   operation is a single IEEE-754 operation (elementwise, or a sequential cumulative sum),
   and every choice (grid, cuts, fixed point, the optimistic buckets' ends) is made in
   deterministic 53-bit mpmath or 64-bit Arb, so the results are bit-identical on every machine.
7. Other mechanisms (derived here; :class:`PairPhase`).  A run may interleave subsampled-Gaussian
   phases with Gaussian steps (the phase q = 1), Laplace steps and (eps, delta)-DP steps
   (randomized response at delta = 0).  Each of the latter has a dominating pair that dominates
   in both orders (Laplace: (Lap(0, b), Lap(s, b)), whose two orders have the same loss law;
   (eps, delta)-DP: the four-atom pair of Kairouz, Oh, Viswanath 2015, Thm 2.1), and the product
   of the items' pairs dominates the adaptive composition in each order as in step 2 (Zhu-Dong-Wang
   2022, Lemma 13; the order is fixed for the whole run, so the max over the two orders is taken
   once at the end).  Its loss law is known in closed form (``_pair_pieces``): atoms, and for
   Laplace a density on (-eps, eps) whose bucket [u, v] has likelihood ratio exactly
   e^((u + v)/2).  Upper end: the buckets are the grid cells (every loss of a cell lies between
   its grid points) and each atom is split as in step 2; the (eps, delta)-DP pair's atoms at
   infinite loss (P-mass delta at +inf, Q-mass delta at -inf) are unknown-place mass (f <= 1).
   Lower end: cells centred on the grid points, each atom recorded at the nearest grid loss g h
   and shrunk to that exact ratio as in step 5, so the step's certified deviation is at most h/2
   (0 for the inner Laplace cells, h/2 at worst for the atoms at +-eps off the grid) and enters
   the lower end's eps shift k dev, a first-order term: :func:`choose_bits` keeps it below the
   target width; the delta atoms are dropped (a sub-measure).  Both vectors are then composed
   with the others exactly as in steps 3-6.

Grid and cost: ``bits`` (h = 2^-bits) is chosen from the request.  Where every step is resolved
by the grid the spread rule predicts it (``_predicted_bits``: h about 0.3 x the step's loss
spread) and the run is composed once; otherwise a pilot at a coarser grid (:func:`choose_bits`:
the bracket's width about K h^2 in eps, 0.8 ``precision`` x eps) sizes it.  Either way the grid is
refined from the bracket's own width while it is wider than ``precision`` (at most three times, a
refinement that fell short followed by one at the rate just observed), clamped to the memory budget
:data:`MAX_LEN` grid values per vector (products are checked before they are formed; a request
beyond it is refused with a message).  The buckets widen in the right tail (``_wide``: the
bucket's split or merge moves a bounded share of a step's loss variance and of the requested
delta), so a step costs a few hundred to a few thousand Arb evaluations rather than one per grid
value; the optimistic grid's offset is picked among ``OFFSETS`` by the divergence the bulk's
bucketing keeps (``_lstep_core``).  The fixed
point F keeps the rounding junk (about 4 K n1 2^-F, times the tilt's amplification) below a
quarter of the tail budget, 1e-5 of the requested delta -- for a delta(eps) request 1e-5 of one
step's delta(eps) (a projection of the run, so below the answer), at most 2^-60 -- up to F_MAX
bits; beyond that the fixed point, not the grid, sets the bracket's width and the grid is not
refined.  A step whose loss spread (about q sqrt(expm1(1/sigma^2))) is below 2^-SPREAD_MIN_BITS
is not resolved by the finest grid and is refused with a message; :mod:`.sgm_closed` answers
such runs (near no privacy loss its closed forms are tight).  Every choice in this paragraph
moves cost and tightness, never validity.
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

__all__ = ["PLDComposition", "PairPhase", "sgm_pld", "sgm_pld_phases", "sgm_pld_delta_bracket", "sgm_pld_eps_bracket",
           "sgm_pld_delta", "choose_bits", "loss_spread", "resolves", "K_MAX", "MAX_LEN", "DEV_MAX", "DEFAULT_PRECISION", "ENGINE_VERSION"]

#: bumped whenever a change could alter a computed digit (golden files record it)
ENGINE_VERSION = "7"
#: the most steps the grid engine composes (beyond them the PLD's memory budget, not the step count, bounds the
#: grid: 10^9 steps of q = 0.001, sigma = 1 answer with a 13%-wide bracket in about 25 s; :mod:`reference.profiles.check` answers larger
#: runs from the moments)
K_MAX = 10 ** 9
#: the largest certified loss deviation ``|l_B - g_B h|`` of a bucket kept in the optimistic vector (others are dropped)
DEV_MAX = Fraction(1, 1 << 36)
#: the longest vector (grid values) the engine builds: the memory budget (a product of two such
#: vectors takes about 2 x 2^21 x 32 bytes of big-integer workspace, well under 1 GB)
MAX_LEN = 1 << 21
#: the largest fixed point F (bits): three 64-bit limbs an entry, so a product's workspace stays within the memory
#: budget of MAX_LEN; a tail budget below about 2^-(F_MAX - 40) is not met in full (the bracket stays certified, wider)
F_MAX = 190
#: an eps bracket [0, hi] with hi <= precision x EPS_ABS_FLOOR is not refined further (its relative width is 1 whatever
#: the grid: eps(delta) may be 0)
EPS_ABS_FLOOR = Fraction(1, 1 << 20)
DEFAULT_PRECISION = Fraction(1, 100)  # target relative width of the eps bracket (about)
PREC = 128  # Arb working precision (bits) of the per-step masses (F + 12 suffices; at least 96 is used)
_U = 2.0 ** -53
P = Domain.positive()
QDOM = Domain.half_open_unit()
KDOM = Domain(lo=Fraction(1), hi=Fraction(K_MAX), lo_closed=True, hi_closed=True, integer=True)
GDOM = Domain(lo=Fraction(0), hi=Fraction(30), lo_closed=True, hi_closed=True, integer=True)
NN = Domain.nonnegative()
U01 = Domain.open_unit()
PDOM = Domain(lo=Fraction(1, 10 ** 6), hi=Fraction(1, 2), lo_closed=True, hi_closed=True)
SOURCE_HI = ("PLD of the ZDW22 dominating pairs, split onto the grid (Doroshenko et al. 2022, connect the dots), exact "
             "integer composition (FLINT), directed rounding")
SOURCE_LO = ("PLD of a bucketing (post-processing) of the ZDW22 pairs with likelihood ratios on the grid up to a certified "
             "deviation, atoms shrunk to the grid ratios, exact integer composition (FLINT) rounded down (derived; cf. the "
             "optimistic estimate of Doroshenko et al. 2022)")


class _DetMath:
    """Float-valued elementary functions computed by mpmath at 53 bits in a private context: the same result on every
    machine (the C library's exp / log / erfc may differ in the last place, and a choice made from them -- a grid size,
    a cut -- would change the digits of the result, though never its validity)."""

    def __init__(self):
        self.c = mpmath.MPContext()
        self.c.prec = 53

    def log(self, x):
        return float(self.c.log(x))

    def exp(self, x):
        return float(self.c.exp(x)) if x < 709 else math.inf

    def log1p(self, x):
        return float(self.c.log1p(x))

    def erfc(self, x):
        return float(self.c.erfc(x))

    def log2(self, x):
        return float(self.c.log(x, 2))


_D = _DetMath()


_FLINT = []


def _flint():
    if _FLINT:
        return _FLINT[0]
    try:
        import flint  # python-flint: FLINT integers and Arb balls
    except ImportError as exc:  # pragma: no cover - a declared dependency
        raise ImportError("the subsampled-Gaussian PLD accountant needs python-flint: python -m pip install python-flint") from exc
    _FLINT.append(flint)
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


def _shift(c: np.ndarray, F: int, L: int, up: bool = True) -> np.ndarray:
    """ceil(c / 2^F) (``up``) or floor(c / 2^F) for a (n, Lf) limb array, as (n, L) limbs (the result must fit)."""
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
    if not up:
        return out
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
    """Tilted masses W[i] = P-mass x e^(-l/2) = Q-mass x e^(l/2) (integers, units 2^-F) at grid loss l = (off + i) h;
    UP, UQ: P- and Q-mass at unknown places (certified upper bounds).

    The split pair keeps every atom's likelihood ratio (Q-mass = P-mass e^-l), and so does every
    product of such pairs, so one vector carries both orders; the symmetric tilt e^(-l/2)
    commutes with convolution (e^(-(l1 + l2)/2) = e^(-l1/2) e^(-l2/2)) and keeps the
    amplification of the fixed-point rounding at e^(|l|/2) in either order.
    """

    W: np.ndarray
    off: int
    UP: Fraction | None  # None: this order is not tracked by this vector
    UQ: Fraction | None
    F: int
    steps: int
    bits: int
    t: int = 1  # the tilt: W = P-mass e^(-t l/2); t = 1 carries both orders, t = 0 the P-order, t = 2 the Q-order
    down: bool = False  # the optimistic (lower-end) vector: every rounding is down and U is not tracked (zero)
    shift: Fraction = Fraction(0)  # entry i stands for the loss (off + i) h + shift (the optimistic grid's offsets)

    @property
    def n(self) -> int:
        return self.W.shape[0]

    def c(self, order: str) -> int:
        """The exponent c with (order)-mass = W e^(c l/2)."""
        return self.t if order == "P" else self.t - 2

    def U(self, order: str):
        return self.UP if order == "P" else self.UQ


def _orders(V) -> tuple:
    return tuple(o for o in ("P", "Q") if V.U(o) is not None)


_GT: dict = {}


def _gtable(bits: int, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Float lower / upper bounds on e^(-i 2^-bits), i = 0..n-1 (Arb-rounded block starts times Arb-rounded powers:
    <= 3 roundings, bounded by 10 ulps; values below 1e-290 are bounded by 0 and 2e-290)."""
    have = _GT.get(bits)
    if have is not None and have[0].size >= n:
        return have[0][:n], have[1][:n]
    B = 256
    m = max(n, 1 << 16)
    nblk = -(-m // B)
    with _Prec(80) as fl:
        hh = fl.arb(1) / (1 << bits)
        pw = np.array([float((-(hh * i)).exp().mid()) for i in range(B)])
        hf = float(hh.mid())
        bl = np.array([float((-(hh * (B * b))).exp().mid()) if B * b * hf < 700 else 0.0 for b in range(nblk)])
    g = (bl[:, None] * pw[None, :]).reshape(-1)[:m]
    glo = np.where(g >= 1e-290, g * (1 - 10 * _U), 0.0)
    gup = np.where(g >= 1e-290, g * (1 + 10 * _U), 2e-290)
    _GT[bits] = (glo, gup)
    return glo[:n], gup[:n]


def _rup(x: Fraction, bits: int = 64) -> Fraction:
    """x rounded up to a dyadic rational of about ``bits`` significant bits (keeps the bounds' denominators small)."""
    if x <= 0:
        return Fraction(0) if x == 0 else -_rdn(-x, bits)
    e = bits - (x.numerator.bit_length() - x.denominator.bit_length())
    if e >= 0:
        return Fraction(-((-x.numerator << e) // x.denominator), 1 << e)
    return Fraction(-((-x.numerator) // (x.denominator << -e)) << -e)


def _rdn(x: Fraction, bits: int = 64) -> Fraction:
    """x rounded down to a dyadic rational of about ``bits`` significant bits."""
    if x <= 0:
        return Fraction(0) if x == 0 else -_rup(-x, bits)
    e = bits - (x.numerator.bit_length() - x.denominator.bit_length())
    if e >= 0:
        return Fraction((x.numerator << e) // x.denominator, 1 << e)
    return Fraction((x.numerator // (x.denominator << -e)) << -e)


def _gamma(n: int) -> Fraction:
    """A relative bound on the error of a float64 recursive (or pairwise) sum of n nonnegative terms (Higham eq. (3.5))."""
    return Fraction(101 * (n + 2), 100) * Fraction(1, 1 << 53)


def _exp_arb(fl, x: Fraction):
    return _arb_q(fl, x).exp()


def _vup(W: np.ndarray, F: int) -> np.ndarray:
    return _floats(W, F) * (1 + 10 * _U)


def _ftable(bits: int, c: int, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Float lower / upper bounds on e^(-|c| i h/2), i < n (ones for c = 0)."""
    if c == 0:
        one = np.ones(n)
        return one, one
    return _gtable(bits + 1 if abs(c) == 1 else bits, n)


def _weights(n: int, off: int, bits: int, c: int, shift: Fraction = Fraction(0)):
    """e^(c (off+i) h/2) = e^x w_i with 0 < w_i <= 1: (x, w_lo, w_up), the largest factor taken out."""
    lo, up = _ftable(bits, c, n)
    xs = Fraction(c) * shift / 2  # the losses are (off + i) h + shift
    if c > 0:  # e^(c (off+n-1) h/2) e^(-c (n-1-i) h/2)
        return Fraction(c * (off + n - 1), 1 << (bits + 1)) + xs, lo[::-1], up[::-1]
    return Fraction(c * off, 1 << (bits + 1)) + xs, lo, up


def _mass_up(vup: np.ndarray, off: int, bits: int, c: int, shift: Fraction = Fraction(0)) -> Fraction:
    """An upper bound on sum v_i e^(c (off+i) h/2) for v_i <= vup_i (the P- or Q-mass of a window, see _Vec.c)."""
    n = vup.size
    if n == 0:
        return Fraction(0)
    x, _, w = _weights(n, off, bits, c, shift)
    sm = float(np.cumsum(vup * w)[-1])
    with _Prec(80) as fl:
        val = _exp_arb(fl, x) * _arb_q(fl, Fraction(sm) * (1 + _gamma(n)) * (1 + Fraction(1, 1 << 50)))
        return _rup(_exact(fl, val)[1])


def _trim(V: _Vec, cutP: Fraction, cutQ: Fraction, cap=None) -> _Vec:
    """Cut from both ends entries whose P-mass (<= cutP per side) and Q-mass (<= cutQ per side) are both small; certified
    upper bounds on the P- and Q-mass of the cut entries move into UP, UQ (a float choice of the cut, never trusted)."""
    W, off, F, bits = V.W, V.off, V.F, V.bits
    n = W.shape[0]
    cuts = {"P": cutP, "Q": cutQ}
    orders = _orders(V)
    if n <= 1 or any(cuts[o] <= 0 for o in orders):
        return V
    v = _vup(W, F)
    a, b = n, n
    for o in orders:  # every tracked order's mass of the cut part must be small (a float choice only)
        x, _, w = _weights(n, off, bits, V.c(o), V.shift)
        lg = _D.log(cuts[o].numerator) - _D.log(cuts[o].denominator) - float(x)
        lim = _D.exp(lg) * (1 - 1e-9) if lg < 700 else math.inf
        vw = v * w
        a = min(a, int(np.searchsorted(np.cumsum(vw), lim, side="right")))
        b = min(b, int(np.searchsorted(np.cumsum(vw[::-1]), lim, side="right")))
    if cap is not None:  # never keep entries outside the window cap (losses, floats: a choice)
        sh = float(V.shift)
        lo_i, hi_i = math.floor((cap[0] - sh) * 2 ** bits), math.ceil((cap[1] - sh) * 2 ** bits)
        a = max(a, min(n, lo_i - off))
        b = max(b, min(n, off + n - 1 - hi_i))
    a = min(a, n - 1)
    b = min(b, n - 1 - a)
    if a == 0 and b == 0:
        return V
    U = {}
    for o in orders:
        U[o] = _rup(V.U(o) + _mass_up(v[:a], off, bits, V.c(o), V.shift)
                    + _mass_up(v[n - b:], off + n - b, bits, V.c(o), V.shift))
    return _Vec(W[a:n - b].copy(), off + a, U.get("P"), U.get("Q"), F, V.steps, bits, V.t, V.down, V.shift)


def _mul(A: _Vec, B: _Vec, cutP: Fraction, cutQ: Fraction, cap=None) -> _Vec:
    """The exact product A * B rounded up entrywise to multiples of 2^-F, then trimmed (see :func:`_trim`).

    Kronecker substitution: each vector becomes one integer with a field of ``fb`` bytes per
    entry, wide enough that no product coefficient (< 2^(2F+2) min(nA, nB)) reaches the next
    field; FLINT multiplies the integers exactly and the fields are read back.  Unknown-place
    mass: U_new >= U_A (M_B + U_B) + U_B M_A (M: the certified mass of the window), for P and Q.
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

    if nA + nB - 1 > 2 * MAX_LEN:
        raise ValueError(f"a product of {nA + nB - 1} grid values exceeds the memory budget (2 x MAX_LEN = {2 * MAX_LEN}); "
                         f"use a coarser grid")
    fa = pack(A.W)
    prod = fa ** 2 if (A is B) else fa * pack(B.W)
    n = nA + nB - 1
    raw = np.frombuffer(int(prod).to_bytes(n * fb, "little"), dtype=np.uint8).reshape(n, fb)
    C8 = np.zeros((n, 8 * Lf), dtype=np.uint8)
    C8[:, :fb] = raw
    W = _shift(C8.view(np.uint64).reshape(n, Lf), F, L, up=not A.down)
    va = _vup(A.W, F)
    vb = va if A is B else _vup(B.W, F)
    U = {}
    for o in _orders(A):
        mA = _mass_up(va, A.off, A.bits, A.c(o), A.shift)
        mB = mA if A is B else _mass_up(vb, B.off, B.bits, B.c(o), B.shift)
        UA, UB = A.U(o), B.U(o)
        U[o] = _rup(UA * (mB + UB) + UB * mA)
    return _trim(_Vec(W, A.off + B.off, U.get("P"), U.get("Q"), F, A.steps + B.steps, A.bits, A.t, A.down,
                      A.shift + B.shift), cutP, cutQ, cap)


def _power(V: _Vec, k: int, cut_fn) -> _Vec:
    result = None
    base = V
    while True:
        if k & 1:
            result = base if result is None else _mul(result, base, *cut_fn(result.steps + base.steps))
        k >>= 1
        if not k:
            return result
        base = _mul(base, base, *cut_fn(2 * base.steps))


def _lx(q: float, s: float, x: float) -> float:
    t = (2 * x - 1) / (2 * s * s)
    if q == 1:
        return t
    return _D.log1p(-q + q * _D.exp(t)) if t < 700 else _D.log(q) + t


def _sf(z: float) -> float:
    return 0.5 * _D.erfc(z / math.sqrt(2))


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
    piP: tuple[Fraction, Fraction]  # P(fine region) enclosure
    piQ: tuple[Fraction, Fraction]
    buckets: int
    cuts: tuple = ()  # the grid indices of the buckets' ends (j0 < j1 < ... < jt): bucket i is [cuts[i] h, cuts[i+1] h]


@lru_cache(maxsize=64)
def _bucket_range(q: Fraction, s: Fraction, bits: int, tail: Fraction, K: int) -> tuple[int, int]:
    """Float choice of the fine region's grid indices (j0 estimate, jt): P- and Q-tails beyond jt below tail/(4K)."""
    qf, sf = float(q), float(s)
    h = 2.0 ** -bits
    eta = float(tail) / (4 * K)
    x_top = _x_of_tail(qf, sf, eta)
    jt = max(math.ceil(_lx(qf, sf, x_top) / h) + 1, 1)
    if q < 1:
        j0 = math.floor(_D.log1p(-qf) / h)
    else:
        j0 = math.floor(_lx(qf, sf, _x_of_low_tail(sf, eta)) / h) - 1
    return j0, max(jt, j0 + 1)


#: the most grid points of one-step work (Arb balls) kept for reuse by the other tilts (:func:`_cores`)
CORE_POINTS = 1 << 19


@lru_cache(maxsize=1)
def _cores() -> dict:
    """The tilt-independent work of the latest one-step vectors (Arb balls per bucket), so that the tilts of the two-chain
    mode (and a fallback from the tilted one) share it; at most :data:`CORE_POINTS` grid points in all (oldest dropped
    first).  A functools cache so that clearing the module's caches clears it too."""
    return {}


def _core(key: tuple, make):
    """The cached value of ``make()`` (a pair (points, value)) under ``key``, within the budget of :func:`_cores`."""
    store = _cores()
    if key in store:
        return store[key][1]
    pts, val = make()
    if pts <= CORE_POINTS:
        while store and sum(v[0] for v in store.values()) + pts > CORE_POINTS:
            del store[next(iter(store))]
        store[key] = (pts, val)
    return val


@lru_cache(maxsize=32)
def _step(q: Fraction, s: Fraction, bits: int, F: int, tail: Fraction, K: int, t: int = 1) -> _Step:
    """The pessimistic split vector of one step (module docstring, steps 1-2) under the tilt t (see :class:`_Vec`): the
    split masses of :func:`_step_core` (untilted Arb balls) times e^(-t a h/2), each rounded up to a multiple of 2^-F."""
    prec, cuts, lows, highs, UP, UQ, piP, piQ = _core(("step", q, s, bits, F, tail, K),
                                                     lambda: _step_core(q, s, bits, F, tail, K))
    j0 = cuts[0]
    with _Prec(prec) as fl:
        arb = fl.arb
        hh = arb(1) / (1 << bits)
        pvals = [0] * (cuts[-1] - j0 + 1)  # tilted masses P' e^(-t l/2) at grid j0 .. jt
        t_a = (-(arb(j0 * t) * hh) / 2).exp()  # e^(-t a h/2)
        th = {}  # e^(-t w h/2) for the widths w in use
        for i in range(len(lows)):
            w = cuts[i + 1] - cuts[i]
            if w not in th:
                th[w] = (-(hh * (t * w)) / 2).exp()
            t_b = t_a * th[w]
            pvals[cuts[i] - j0] += _ceil_fix(lows[i] * t_a)
            pvals[cuts[i + 1] - j0] += _ceil_fix(highs[i] * t_b)
            t_a = t_b
    L = -(-(F + 2) // 64)
    return _Step(_Vec(_to_limbs(pvals, L), j0, UP if t < 2 else None, UQ if t > 0 else None, F, 1, bits, t), piP, piQ,
                 len(lows), cuts)


#: the widths of the buckets in the tails (a choice: cost and tightness only; module docstring, "Grid and cost"): a
#: bucket of w grid steps whose boundary's upper tail has P-mass T is used while T w^2 <= WIDE_VAR (its split adds at
#: most T (w h)^2 / 4 to a step's loss variance, against about h^2 / 4 from the bulk) and K T (w h)^2 <= WIDE_TAIL x the
#: tail budget (what the split can move in delta over K steps); widths are powers of two, at most doubling from one
#: bucket to the next, at most WIDE_MAX
WIDE_VAR = 1e-5
WIDE_TAIL = 1.0
WIDE_MAX = 1 << 12


def _wide(T: float, w_prev: int, h: float, K: int, tail: float, p_prev: float = math.inf) -> int:
    """The width (grid steps) of the next bucket of the right tail, whose left end's upper tail has P-mass about T and
    whose predecessor (w_prev steps wide) had P-mass about p_prev (a deterministic float choice; see :data:`WIDE_VAR`).
    The bucket's own mass is taken as the smaller of T and four times the predecessor's density times its width: the
    tail bounds it where the density falls, the predecessor where the law has a gap (a small sigma puts the two
    components of the mixture far apart, with almost no mass between them and a large tail above)."""
    w = 1
    while 2 * w <= min(WIDE_MAX, 2 * w_prev):
        m = min(T, 4 * p_prev * (2 * w) / w_prev)
        if not (m * (2 * w) ** 2 <= WIDE_VAR and K * m * (2 * w * h) ** 2 <= WIDE_TAIL * tail):
            break
        w *= 2
    return w


def _step_core(q: Fraction, s: Fraction, bits: int, F: int, tail: Fraction, K: int):
    """The split of one step (module docstring, steps 1-2) before the tilt: (points, (prec, cuts, lows, highs, UP, UQ,
    piP, piQ)), lows[i] / highs[i] the Arb balls of 2^F x the P-masses the bucket [cuts[i] h, cuts[i + 1] h] puts on
    its lower / upper grid point, computed at the working precision ``prec``."""
    qf, sf = float(q), float(s)
    h = 2.0 ** -bits
    eta = float(tail) / (4 * K)
    # working precision: the masses are needed to 2^-F absolute; the split divides by e^(-a h) - e^(-(a+1) h) ~ h
    # (bits), e^(j h) - (1 - q) cancels ~log2(1/q) bits, and e^(j h) is accumulated over the buckets (log2 nb)
    j0_est, jt_est = _bucket_range(q, s, bits, tail, K)
    jt = jt_est
    prec = F + bits + max(0, -math.floor(_D.log2(float(q)))) + max(1, jt_est - j0_est).bit_length() + 24
    # the erfc values themselves need only the absolute accuracy 2^-(F + bits + 24) (the other terms pay for the
    # cancellation and the accumulation in the argument, computed at ``prec``): evaluated at that precision
    eprec = max(96, F + bits + 24)
    with _Prec(max(96, prec)) as fl:
        arb = fl.arb
        qa, sa = _arb_q(fl, q), _arb_q(fl, s)
        one_q = 1 - qa
        hh = arb(1) / (1 << bits)
        if q < 1:
            # the largest grid index at or below the infimum log(1 - q) of the loss (decided in Arb)
            j0 = math.floor(_D.log1p(-qf) / h)
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
        eh = hh.exp()

        mixed = q < 1
        ctx, wprec = fl.ctx, fl.ctx.prec
        c1 = sa / arb(2).sqrt()  # x/(sigma sqrt2) = c1 log(...) + c0
        c0 = 1 / (2 * sa * arb(2).sqrt())
        cs = 1 / (sa * arb(2).sqrt())

        def sfs(e_exp, j):
            """(1 - F_P, 1 - F_Q) at x(j h), e_exp = exp(j h), as Arb balls (absolute accuracy about 2^-prec)."""
            if mixed and j == j0:
                return arb(1), arb(1)
            if mixed:
                w = c1 * ((e_exp - one_q) / qa).log() + c0  # x/(sigma sqrt2)
            else:
                w = (sa * arb(j) * hh) / arb(2).sqrt() + c0
            wp = w - cs
            ctx.prec = eprec
            Sq = w.erfc()
            Sp = wp.erfc()
            ctx.prec = wprec
            Sq, Sp = Sq / 2, Sp / 2
            if mixed:
                return one_q * Sq + qa * Sp, Sq
            return Sp, Sq

        ej = (arb(j0) * hh).exp()
        prev = sfs(ej, j0)
        bottom = prev
        lows, highs, cuts = [], [], [j0]
        em_a = (-(arb(j0) * hh)).exp()
        pw = {}  # (e^(w h), e^(-w h)) for the widths w in use
        scale = arb(1 << F)
        j, w, tl, p_prev = j0, 1, float(tail), math.inf
        while j < jt:
            # the bucket [j h, (j + w) h]: w = 1 in the bulk, wider in the right tail (:func:`_wide`, a choice)
            w = min(jt - j, _wide(float(prev[0].mid()) if j > j0 else 1.0, w, h, K, tl, p_prev))
            if w not in pw:
                pw[w] = (eh ** w, (-hh * w).exp())
            ej = ej * pw[w][0]
            cur = sfs(ej, j + w)
            PB = prev[0] - cur[0]
            QB = prev[1] - cur[1]
            em_b = em_a * pw[w][1]
            pb_ = (em_a * PB - QB) * scale / (em_a - em_b)
            lows.append(PB * scale - pb_)
            highs.append(pb_)
            cuts.append(j + w)
            p_prev = float(PB.mid())
            prev = cur
            em_a = em_b
            j += w
        top = prev
        # tails (the top one; for q = 1 also the bottom one): P- and Q-mass at unknown places
        UP = _rup(_exact(fl, top[0])[1])
        UQ = _rup(_exact(fl, top[1])[1])
        if q == 1:
            UP = _rup(UP + _exact(fl, 1 - bottom[0])[1])
            UQ = _rup(UQ + _exact(fl, 1 - bottom[1])[1])
        piP = _exact(fl, bottom[0] - top[0])
        piQ = _exact(fl, bottom[1] - top[1])
    return len(lows), (max(96, prec), tuple(cuts), lows, highs, UP, UQ, piP, piQ)


@dataclass
class _LStep:
    V: _Vec  # the optimistic vector (entries rounded down, ``down`` = True)
    dev: Fraction  # a certified bound on |l_B - g_B| over the kept buckets
    buckets: int
    dropped_P: Fraction  # certified upper bounds on the dropped masses (reported, never needed by the proof)
    dropped_Q: Fraction
    ends: tuple = ()  # (grid index, left end or None for -infinity, right end) of every kept bucket
    c: Fraction = Fraction(0)  # the grid's offset: entry j stands for the loss c + j h


def _frac_mid(a) -> Fraction:
    """The midpoint of an Arb ball as an exact dyadic rational (a deterministic choice)."""
    m, e = a.mid().man_exp()
    m, e = int(m), int(e)
    return Fraction(m << e) if e >= 0 else Fraction(m, 1 << -e)


def _floor_lo(a) -> int:
    """floor(lower end of the ball a) as an int (a finite)."""
    m, e = a.lower().man_exp()
    m, e = int(m), int(e)
    return m << e if e >= 0 else m >> -e




def _tails(mixed: bool, one_q, qa, c2, x):
    """The masses of one side of the point x under P and Q, with relative precision: ("C", P(X < x), Q(X < x)) for
    x < 1/2, ("S", P(X > x), Q(X > x)) otherwise (x an exact arb; None means -infinity); ``mixed``: q < 1 (P the
    mixture (1 - q) N(0, sigma^2) + q N(1, sigma^2), else N(1, sigma^2))."""
    if x is None:
        return "C", 0, 0
    if x < 0.5:
        Cq = (-x * c2).erfc() / 2
        C1 = ((1 - x) * c2).erfc() / 2
        return "C", (one_q * Cq + qa * C1 if mixed else C1), Cq
    Sq = (x * c2).erfc() / 2
    S1 = ((x - 1) * c2).erfc() / 2
    return "S", (one_q * Sq + qa * S1 if mixed else S1), Sq


def _between(ta, tb):
    """(P[a, b], Q[a, b]) from the one-sided masses of :func:`_tails` at a < b, without cancellation beyond the bucket's
    own size."""
    fa, pa, qa_ = ta
    fb, pb, qb = tb
    if fa == "C" and fb == "C":
        return pb - pa, qb - qa_
    if fa == "S" and fb == "S":
        return pa - pb, qa_ - qb
    if fa == "C":
        return 1 - pa - pb, 1 - qa_ - qb
    raise ArithmeticError("bucket ends out of order (internal)")


class _BucketSolver:
    """Right ends of buckets whose likelihood ratio P/Q is a grid value e^(g h), by a safeguarded Newton iteration in
    64-bit Arb: a deterministic choice (the deviation of every bucket used is certified by the caller at full
    precision).  G(x) = P[a, x] - e^g Q[a, x] vanishes at a, decreases up to x(g) (where the loss is g h) and increases
    after it; its root beyond x(g) is the bucket's right end."""

    def __init__(self, q: Fraction, s: Fraction, bits: int, x_top: float, c: Fraction = Fraction(0)):
        self.q, self.bits = q, bits
        self.mixed = q < 1
        self._last = None
        with _Prec(64) as fl:
            arb = self.arb = fl.arb
            self.c = _arb_q(fl, c)  # the grid's offset: values c + j h
            self.qa, self.sa = _arb_q(fl, q), _arb_q(fl, s)
            self.c2 = 1 / (self.sa * arb(2).sqrt())
            self.one_q = 1 - self.qa
            self.nrm = 1 / (self.sa * (2 * arb.pi()).sqrt())
            self.xt = arb(x_top)
            self.tol = arb(2) ** -40
            self.two58 = arb(2) ** -58
            self.two60 = arb(2) ** -60
            self.la0 = self.one_q.log().mid() if q < 1 else None

    def x_of(self, l):
        """The point whose loss is l (None below the loss's infimum)."""
        arb, sa = self.arb, self.sa
        if self.mixed:
            w = ((l.exp() - self.one_q) / self.qa).mid()
            return arb((sa * sa * arb(w).log() + arb(1) / 2).mid()) if w > 0 else None
        return arb((sa * sa * l + arb(1) / 2).mid())

    def l_of(self, x):
        t = (2 * x - 1) / (2 * self.sa * self.sa)
        return ((t.exp() * self.qa + self.one_q).log() if self.mixed else t).mid()

    def l_at(self, x: Fraction):
        """l_of at the exact dyadic x (at 64 bits), remembered for the latest x: a bucket's right end is the next one's
        left end."""
        if self._last is None or (self._last[0] is not x and self._last[0] != x):
            self._last = (x, self.l_of(self.arb(x.numerator) / x.denominator))
        return self._last[1]

    def restart(self, g_idx: int, lam: Fraction):
        """An exact dyadic point whose loss is about c + (g - lam) h, where a bucket aiming at the grid value
        c + g h may start when the whole tail above the previous bucket cannot reach it (None below the infimum)."""
        with _Prec(64):
            x = self.x_of(self.c + (self.arb(g_idx) - _arb_q(_flint(), lam)) / (1 << self.bits))
            return None if x is None else _frac_mid(x)

    def solve(self, a, Ta, g_idx: int):
        """(b, status): b an exact dyadic right end of the bucket [a, b] (a = None: from -infinity) with ratio e^(g h),
        status 'ok'; or (None, 'skip') when the bucket would be narrower than h/16 in the loss (slow to solve, little
        mass: the caller targets the next grid value); or (None, 'end') when no such b exists below x_top.
        Ta: the one-sided masses at a (:func:`_tails`; any precision, read at 64 bits)."""
        with _Prec(64):
            return self._solve(a, Ta, g_idx)

    def _solve(self, a, Ta, g_idx):
        arb, mixed, qa, sa, c2, one_q = self.arb, self.mixed, self.qa, self.sa, self.c2, self.one_q
        Ta = (Ta[0], arb(arb(Ta[1]).mid()), arb(arb(Ta[2]).mid()))
        gh = self.c + arb(g_idx) / (1 << self.bits)
        eg = gh.exp()
        SaP, SaQ = (1 - Ta[1], 1 - Ta[2]) if Ta[0] == "C" else (Ta[1], Ta[2])
        if not (SaP - eg * SaQ).mid() > 0:
            return None, "end"  # the ratio of [a, inf) is at most e^(g h)
        lo = self.x_of(gh)
        la = self.l_at(a) if a is not None else self.la0
        a = None if a is None else arb(a.numerator) / a.denominator
        if lo is None or (a is not None and not lo.mid() > a.mid()):
            return None, "end" if lo is None else "skip"
        if a is not None and (gh - la).mid() < arb(1) / (16 << self.bits):
            return None, "skip"
        width = arb(1) / (1 << self.bits) * sa * sa
        # the start: l(b) - g h = r (g h - l(a)) with r = 1 - (2/3)(1/2 + beta)(g h - l(a)), beta = d log rho/du at u = g h
        # (rho the Q-density of the loss: expanding rho(u)(e^u - e^(g h)) to second order in u - g h, the integral over
        # [l(a), l(b)] vanishes there); beta = -(x + 1 - w)/w at x = x(g), w = sigma^2 l'(x) = 1 - (1 - q) e^(-g h);
        # r = 1 (the mirror image of a about x(g) in the loss) for a wide bucket
        A = gh - la
        r = 1
        if (A * (1 << self.bits)).mid() < 2:
            w = 1 - one_q * (-gh).exp() if mixed else arb(1)
            r = 1 - (1 + 2 * (-(lo + 1 - w) / w)) * A / 3
            r = r if 0.5 < r.mid() < 2 else 1
        x = self.x_of(gh + r * A)
        if x is None or not x.mid() > lo.mid():
            x = arb((lo + width).mid())
        nrm, xt = self.nrm, self.xt
        x0 = lo  # x(g): steps without an upper bracket grow geometrically from it
        hi = None
        for _ in range(200):
            Tx = _tails(mixed, one_q, qa, c2, x)
            PB, QB = _between(Ta, Tx)
            gm = (PB - eg * QB).mid()
            # the 64-bit resolution of G, relative to the one-sided masses it is computed from
            mag = abs(Ta[1]) + abs(Tx[1]) + eg * (abs(Ta[2]) + abs(Tx[2])) + (1 + eg if Ta[0] != Tx[0] else 0)
            noise = (mag * self.two58).mid()
            if abs(gm) <= (eg * QB * self.tol).mid() or abs(gm) <= noise:  # |G|/(e^g Q) bounds the loss deviation
                break
            if gm > 0:
                hi = x
            else:
                lo = x
                if x.mid() > xt.mid():
                    return None, "end"  # the root lies beyond the fine region
            z = x / sa
            qd = (-(z * z) / 2).exp()
            e1 = (-((x - 1) / sa) ** 2 / 2).exp()
            pd = (one_q * qd if mixed else 0) + qa * e1
            d = ((pd - eg * qd) * nrm).mid()  # G'(x) = p(x) - e^g q(x)
            nx = (x - gm / d).mid() if d > 0 else None
            newton = nx
            if hi is None:  # no upper bracket yet: a Newton step, at most four times the distance from x(g)
                lim = (x + 4 * (x - x0) + width).mid()
                if nx is None or not nx > x.mid() or nx > lim:
                    nx = lim
            elif nx is None or not nx > lo.mid() or not nx < hi.mid():
                nx = ((lo + hi) / 2).mid()
            if nx is newton:
                # a plain Newton step: G(x + step) is about G''(x) step^2/2; when four times that is below a sixteenth of
                # the tolerance, the step is the last one and G is not evaluated there (the loop would stop there)
                xs = z / sa
                g2 = (-(one_q * xs * qd if mixed else 0) - qa * ((x - 1) / (sa * sa)) * e1 + eg * xs * qd) * nrm
                step = arb(nx) - x
                if (2 * abs(g2) * step * step).mid() <= (eg * QB * self.tol).mid() / 16:
                    x = arb(nx)
                    break
            x = arb(nx)
            if hi is not None and (hi - lo).mid() <= abs(x.mid()) * self.two60:
                break
        if x.mid() > xt.mid():
            return None, "end"
        return _frac_mid(x), "ok"


#: where a bucket may restart below the grid value c + j h it aims at, in grid steps (:func:`_lstep`)
_RESTARTS = (Fraction(1, 2), Fraction(1, 4), Fraction(1, 8), Fraction(1, 16))


def _bulk_offset(qf: float, sf: float, bits: int, default: Fraction) -> tuple[Fraction, Fraction | None]:
    """The optimistic grid's offset c when q is below the grid step h (a deterministic float choice, never trusted: the
    caller certifies log(1 - q) < c < 0 and every bucket's deviation).

    The bucket from -infinity has ratio e^c < 1 and ends where its ratio P(X <= a)/Q(X <= a) = 1 - q + q Phi((a - 1)/
    sigma)/Phi(a/sigma) is e^c.  When q is far below h, the midpoint rule c = log(1 - q)/2 ends it near the middle of
    the bulk, and the tail above it, whose mass sits at losses far below h, has a ratio below e^h as a whole: no bucket
    with a grid ratio fits there and the lower end collapses to 0.  So the bucket from -infinity is made to take the
    bulk up to the first point a = x(lam h) (lam = 1/2, 5/8, ..., the point of pointwise loss lam h) whose tail has a
    ratio above e^h (with 1% to spare), and c is its ratio's logarithm: returns (c, a), the bucket's right end a an
    exact dyadic (a Newton solve could not place it: the bucket's ratio is flat in its end to 1e-15 there), or
    (``default``, None) where no such point is found."""
    r2 = sf * math.sqrt(2)
    h = 2.0 ** -bits
    for lam in (0.5, 0.625, 0.75, 0.8125, 0.875, 0.9375, 0.96875):
        a = sf * sf * _D.log((float(_D.c.expm1(lam * h)) + qf) / qf) + 0.5
        s1, s0 = _D.erfc((a - 1) / r2) / 2, _D.erfc(a / r2) / 2  # upper tails of N(1, s^2), N(0, s^2) at a
        if not s0 > 1e-300:
            break
        if qf * (s1 / s0 - 1) >= 1.01 * float(_D.c.expm1(h)):
            one_r = (s1 - s0) / (1 - s0)  # 1 - Phi((a - 1)/sigma)/Phi(a/sigma), without cancellation
            if 1e-290 / qf < one_r < 1 - 1e-6:
                return Fraction(_D.log1p(-qf * one_r)), Fraction(a)
            break
    return default, None


@lru_cache(maxsize=32)
def _lstep(q: Fraction, s: Fraction, bits: int, F: int, tail: Fraction, K: int, t: int = 1) -> _LStep:
    """The optimistic vector of one step (module docstring, step 5): a bucketing (a post-processing) whose buckets have
    likelihood ratios on the grid up to a certified deviation, each atom shrunk to that exact ratio, entries rounded
    down to multiples of 2^-F (the atoms of :func:`_lstep_core`, untilted Arb balls, times e^(-t g/2))."""
    prec, c, idx, pls, gs, ends, dev, dropP, dropQ = _core(("lstep", q, s, bits, F, tail, K),
                                                          lambda: _lstep_core(q, s, bits, F, tail, K))
    with _Prec(prec) as fl:
        scale = fl.arb(1 << F)
        vals = []
        for pl, g in zip(pls, gs):
            vals.append(max(0, _floor_lo(pl * (-(g * t) / 2).exp() * scale)))
    if not idx:
        raise ArithmeticError(f"no bucket of the optimistic PLD could be placed on the grid 2^-{bits} (q = {q}, "
                              f"sigma = {s}); use a finer grid")
    j0 = idx[0]
    dense = [0] * (idx[-1] - j0 + 1)
    for jj, v in zip(idx, vals):
        dense[jj - j0] = v
    L = -(-(F + 2) // 64)
    Z = Fraction(0)
    V = _Vec(_to_limbs(dense, L), j0, Z if t < 2 else None, Z if t > 0 else None, F, 1, bits, t, down=True, shift=c)
    return _LStep(V, dev, len(idx), dropP, dropQ, ends, c)


#: the offsets tried for the optimistic grid of a phase with q < 1 (c = log(1 - q) + f min(h, |log(1 - q)|), f in this
#: tuple; the first wins ties) and the upper-tail Q-mass where the trial bucketings stop (:func:`_lstep_core`)
OFFSETS = (Fraction(1, 2), Fraction(1, 4), Fraction(3, 4), Fraction(1, 8))
PICK_TAIL = 1e-3


def _lstep_core(q: Fraction, s: Fraction, bits: int, F: int, tail: Fraction, K: int):
    """The optimistic buckets of one step (module docstring, step 5) before the tilt: (points, (prec, c, idx, pls, gs,
    ends, dev, dropP, dropQ)), pls[i] the Arb ball whose lower end is the shrunk atom's P-mass min(P_B, e^g Q_B) at the
    grid loss gs[i] = c + idx[i] h (an Arb ball), at the working precision ``prec``.

    The grid's offset c is a choice (the proof holds for any c in (log(1 - q), 0)), and a consequential one where the
    grid step is not far below q: the bucket from -infinity then holds most of the mass, and where it ends moves the
    lower end by up to several percent.  So each offset of :data:`OFFSETS` is tried on the bulk (the buckets up to the
    point whose upper tail has Q-mass :data:`PICK_TAIL`) and the one whose bucketing keeps the most of the step's
    Kullback-Leibler divergence (sum P_B log(P_B/Q_B), the rest of the line counted as one bucket; a bucketing is a
    post-processing, so it keeps at most the step's own) is used (deterministic floats from Arb midpoints)."""
    qf, sf = float(q), float(s)
    eta = float(tail) / (4 * K)
    x_top = _x_of_tail(qf, sf, eta)
    if q < 1:
        # the grid's offset: c = log(1 - q) + f min(h, |log(1 - q)|) (a dyadic from deterministic 53-bit arithmetic), so
        # that the bucket reaching down to -infinity, whose ratio lies in (1 - q, 1), has a grid value c in that
        # interval, a fraction f of a grid step above the loss's infimum (a bucket like the others)
        lq = _D.log1p(-qf)
        cands = [(Fraction(lq + min(2.0 ** -bits, -lq) * float(f)), None) for f in OFFSETS]
        if -lq < 2.0 ** -bits:
            cands = [_bulk_offset(qf, sf, bits, cands[0][0])]
    else:
        cands = [(Fraction(0), None)]
    mixed = q < 1
    prec = max(96, F + 40)
    with _Prec(prec) as fl:
        arb = fl.arb
        qa, sa = _arb_q(fl, q), _arb_q(fl, s)
        one_q = 1 - qa
        c2 = 1 / (sa * arb(2).sqrt())
        hh = arb(1) / (1 << bits)
        dev_max = _arb_q(fl, DEV_MAX)

        def T(x: Fraction):
            return _tails(mixed, one_q, qa, c2, arb(x.numerator) / x.denominator)

        def buckets(c: Fraction, bulk_end, stop: float | None):
            """The bucketing with offset c: (idx, pls, gs, ends, dev, dropP, dropQ, the masses above the last bucket,
            the kept divergence); with ``stop``, only up to the first bucket whose upper tail's P-mass is below it."""
            solver = _BucketSolver(q, s, bits, x_top, c)
            carb = _arb_q(fl, c)
            if q < 1:
                # c in (log(1 - q), 0), decided with log1p (1 - q itself is not representable at this precision for tiny q)
                if not (carb > (-qa).log1p() and carb < 0):
                    raise ArithmeticError(f"the optimistic grid's offset {c} is not inside (log(1 - q), 0) (internal)")
                j = 0
                a, Ta = None, _tails(mixed, one_q, qa, c2, None)
                dropP = dropQ = arb(0)
            else:
                a = Fraction(_x_of_low_tail(sf, eta)).limit_denominator(1 << 30)
                Ta = T(a)
                dropP, dropQ = _between(_tails(mixed, one_q, qa, c2, None), Ta)
                with _Prec(64):
                    j = math.floor((solver.l_at(a) - solver.c) * (1 << bits)) + 1
            idx, pls, gs, ends = [], [], [], []
            dev = arb(0)
            kl = 0.0
            wl, hf, tlf, jbase = 1, 2.0 ** -bits, float(tail), j
            while True:
                if bulk_end is not None:  # the bucket from -infinity of a tiny q (:func:`_bulk_offset`)
                    b, status, bulk_end = bulk_end, "ok", None
                else:
                    b, status = solver.solve(a, Ta, j)
                    if status == "end" and j > jbase:  # a wide bucket's grid value is beyond the tail's ratio: aim lower
                        j = jbase + (j - jbase) // 2
                        continue
                # the tail above a cannot reach the grid value c + j h as a whole (q far below the grid step: its mass
                # sits just above a, at losses a fraction of h below c + j h): leave out the stretch up to the point of
                # loss c + (jj - lam) h (a sub-measure; jj = j, j + 1, j + 2) and start a bucket aiming at c + jj h there
                for jj, lam in ((jj, lam) for jj in (j, j + 1, j + 2) for lam in _RESTARTS):
                    if status != "end":
                        break
                    a2 = solver.restart(jj, lam)
                    if a2 is None or a2 >= x_top:
                        break
                    if a is not None and a2 <= a:
                        continue
                    Ta2 = T(a2)
                    b2, st2 = solver.solve(a2, Ta2, jj)
                    if st2 != "end":
                        gP, gQ = _between(Ta, Ta2)
                        dropP, dropQ = dropP + gP, dropQ + gQ
                        a, Ta, b, status, j = a2, Ta2, b2, st2, jj
                        jbase = j
                if status == "skip":
                    j += 1
                    jbase = j
                    continue
                if b is None:
                    break
                Tb = T(b)
                PB, QB = _between(Ta, Tb)
                g = carb + arb(j) * hh
                ok = PB > 0 and QB > 0
                if ok:
                    d = abs((PB / QB).log() - g)
                    ok = d.is_finite() and d < dev_max
                if not ok:  # a bucket the choice did not balance: dropped (a sub-measure; tightness only)
                    dropP, dropQ = dropP + PB, dropQ + QB
                else:
                    dev = max(dev, d.upper())
                    eg = g.exp()
                    p2 = eg * QB  # the P-mass of the atom with ratio exactly e^g and Q-mass QB
                    pl = min(PB.lower(), p2.lower())
                    idx.append(j)
                    pls.append(pl)
                    gs.append(g)
                    ends.append((j, a, b))
                    if stop is not None:
                        kl += float(pl.mid()) * float(g.mid())
                a, Ta = b, Tb
                tP = float(Tb[1].mid()) if Tb[0] == "S" else 1.0
                if stop is not None and (float(Tb[2].mid()) if Tb[0] == "S" else 1.0) < stop:
                    break
                # the next bucket aims about v = w/2 grid steps above its left end's loss (so it is about w steps wide):
                # w = 1 in the bulk, wider in the right tail (:func:`_wide`, a choice)
                wl = _wide(tP, wl, hf, K, tlf, float(PB.mid()) if PB.is_finite() else math.inf)
                with _Prec(64):
                    jbase = max(j + 1, math.floor((solver.l_at(b) - solver.c) * (1 << bits)) + 1)
                j = jbase + max(1, wl // 2) - 1
            upP, upQ = (1 - Ta[1], 1 - Ta[2]) if Ta[0] == "C" else (Ta[1], Ta[2])  # the region above the last bucket
            if stop is not None:
                rp, rq = float(upP.mid()), float(upQ.mid())
                kl += rp * math.log(rp / rq) if rp > 0 and rq > 0 else 0.0
            return idx, pls, gs, ends, dev, dropP + upP, dropQ + upQ, kl

        c, bulk_end = cands[0]
        if len(cands) > 1:
            score = [buckets(cc, be, PICK_TAIL)[-1] for cc, be in cands]
            c, bulk_end = cands[max(range(len(cands)), key=lambda i: (score[i], -i))]
        idx, pls, gs, ends, dev, dropP, dropQ, _ = buckets(c, bulk_end, None)
        dropP = _rup(_exact(fl, dropP)[1])
        dropQ = _rup(_exact(fl, dropQ)[1])
        dev = _rup(_exact(fl, dev)[1], 32)
    return len(idx), (prec, c, idx, pls, gs, tuple(ends), dev, dropP, dropQ)


# ---------------------------------------------------------------------------
# Other mechanisms on the same grid (docstring step 7)
# ---------------------------------------------------------------------------

PAIR_KINDS = ("laplace", "dp")


@dataclass(frozen=True)
class PairPhase:
    """``k`` steps of a mechanism with an exactly known dominating pair of bounded loss, composed with subsampled-Gaussian
    phases by the same engine (module docstring, step 7).

    ``kind`` "laplace": Laplace noise of scale b on a query of L1 sensitivity s, ``eps`` = s/b (the pair
    (Lap(0, b), Lap(s, b)), both orders alike); "dp": the (eps, delta)-DP pair (Kairouz, Oh, Viswanath 2015, Thm 2.1:
    it dominates every (eps, delta)-DP mechanism in both orders), randomized response when delta = 0.  A Gaussian
    step is the phase (1, sigma / sensitivity, k) (q = 1)."""

    kind: str
    eps: Fraction
    delta: Fraction
    k: int

    def text(self) -> str:
        return f"{self.kind}(eps={self.eps}, delta={self.delta})x{self.k}"


def _steps_of(ph) -> int:
    return ph.k if isinstance(ph, PairPhase) else int(ph[2])


def _sgm_phases(phases) -> tuple:
    return tuple(ph for ph in phases if not isinstance(ph, PairPhase))


def _pair_pieces(ph: PairPhase, bits: int, fl, centered: bool):
    """The atoms (P-mass as an Arb ball, exact loss l) of one step's pair after a bucketing, with the P- and Q-mass at
    infinite losses (the (eps, delta)-DP pair's delta atoms: P-mass delta at loss +inf, Q-mass delta at loss -inf).

    Laplace (eps = s/b, P = Lap(0, b), Q = Lap(s, b), loss l(x) = (|x - s| - |x|)/b): atoms at l = eps (P-mass 1/2,
    x <= 0) and l = -eps (P-mass e^(-eps)/2, x >= s); on (-eps, eps) the loss has P-density e^((l - eps)/2)/4 and
    Q-density e^(-(l + eps)/2)/4, so a bucket [u, v] has P-mass e^(-eps/2)(e^(v/2) - e^(u/2))/2 and Q-mass
    e^(-eps/2)(e^(-u/2) - e^(-v/2))/2: its likelihood ratio is exactly e^((u + v)/2), the bucket is an atom at its
    midpoint.  The buckets are the grid cells [a h, (a + 1) h] (``centered`` False: every loss of a cell lies between
    its two grid points, as the split of step 2 needs) or the cells [(a - 1/2) h, (a + 1/2) h] (``centered``: inner
    atoms land on the grid exactly, for step 5), cut at +-eps."""
    arb = fl.arb
    e = ph.eps
    h = Fraction(1, 1 << bits)
    if ph.kind == "dp":
        one = 1 - _arb_q(fl, ph.delta)
        if e == 0:
            return [(one, Fraction(0))], ph.delta
        ee = _exp_arb(fl, e)
        return [(one * ee / (1 + ee), e), (one / (1 + ee), -e)], ph.delta
    half = arb(1) / 2
    base = _exp_arb(fl, -e / 2) * half
    pieces = [(half, e), (half * _exp_arb(fl, -e), -e)]
    off = Fraction(1, 2) if centered else Fraction(0)
    a = math.floor(-e / h + off)
    u = -e
    while u < e:
        v = min(e, (a + 1 - off) * h)
        if v > u:
            pieces.append((base * (_exp_arb(fl, v / 2) - _exp_arb(fl, u / 2)), (u + v) / 2))
        u = v
        a += 1
    return pieces, Fraction(0)


def _pair_n(ph: PairPhase, bits: int) -> int:
    """The number of grid values one step of the pair occupies (its buckets are checked against MAX_LEN)."""
    return 2 * math.ceil(ph.eps * (1 << bits)) + 3


@lru_cache(maxsize=64)
def _pair_step(ph: PairPhase, bits: int, F: int, t: int = 1) -> _Step:
    """The pessimistic split vector of one step of the pair (docstring steps 2 and 7) under the tilt t."""
    n = _pair_n(ph, bits)
    if n > MAX_LEN:
        raise ValueError(f"the grid 2^-{bits} needs {n} values for one step of {ph.text()} (more than MAX_LEN = "
                         f"{MAX_LEN}); use a coarser grid (fewer bits)")
    h = Fraction(1, 1 << bits)
    j0 = math.floor(-ph.eps / h)
    acc: dict[int, object] = {}
    with _Prec(max(96, F + bits + 48)) as fl:
        arb = fl.arb
        scale = arb(1 << F)
        pieces, dinf = _pair_pieces(ph, bits, fl, centered=False)
        for pm, l in pieces:
            a = math.floor(l / h)
            if a * h == l:
                acc[a] = acc.get(a, 0) + pm * _exp_arb(fl, -t * a * h / 2)
                continue
            # split (step 2): P'((a+1) h) = P (e^(-a h) - e^(-l)) / (e^(-a h) - e^(-(a+1) h)), P'(a h) = P - P'((a+1) h)
            ea, eb, el = _exp_arb(fl, -a * h), _exp_arb(fl, -(a + 1) * h), _exp_arb(fl, -l)
            pu = pm * (ea - el) / (ea - eb)
            acc[a] = acc.get(a, 0) + (pm - pu) * _exp_arb(fl, -t * a * h / 2)
            acc[a + 1] = acc.get(a + 1, 0) + pu * _exp_arb(fl, -t * (a + 1) * h / 2)
        lo = min(acc)
        vals = [0] * (max(acc) - lo + 1)
        for a, v in acc.items():
            vals[a - lo] = _ceil_fix(v * scale)
    if lo < j0:  # pragma: no cover - every loss is at least -eps
        raise ArithmeticError("a pair atom below the step's least loss (internal)")
    L = -(-(F + 2) // 64)
    UP = dinf if t < 2 else None
    UQ = dinf if t > 0 else None
    one = (Fraction(1) - dinf, Fraction(1) - dinf)
    return _Step(_Vec(_to_limbs(vals, L), lo, UP, UQ, F, 1, bits, t), one, one, len(pieces))


@lru_cache(maxsize=64)
def _pair_lstep(ph: PairPhase, bits: int, F: int, t: int = 1) -> _LStep:
    """The optimistic vector of one step of the pair (docstring steps 5 and 7): each atom (loss l) is recorded at the
    nearest grid loss g h and shrunk to that exact ratio, P'' = min(P, e^(g h) Q) = P min(1, e^(g h - l)),
    Q'' = P'' e^(-g h); the deviation |l - g h| <= h/2 (0 for the inner Laplace atoms, whose cells are centred on the
    grid) enters the lower end's eps shift; the delta atoms are dropped (a sub-measure); entries rounded down."""
    n = _pair_n(ph, bits)
    if n > MAX_LEN:
        raise ValueError(f"the grid 2^-{bits} needs {n} values for one step of {ph.text()} (more than MAX_LEN = "
                         f"{MAX_LEN}); use a coarser grid (fewer bits)")
    h = Fraction(1, 1 << bits)
    acc: dict[int, object] = {}
    dev = Fraction(0)
    with _Prec(max(96, F + bits + 48)) as fl:
        arb = fl.arb
        scale = arb(1 << F)
        pieces, dinf = _pair_pieces(ph, bits, fl, centered=True)
        for pm, l in pieces:
            g = math.floor(l / h + Fraction(1, 2))
            d = l - g * h
            dev = max(dev, abs(d))
            shrink = pm * _exp_arb(fl, -d) if d > 0 else pm  # P min(1, e^(g h - l)), d = l - g h
            acc[g] = acc.get(g, 0) + shrink * _exp_arb(fl, -t * g * h / 2)
        lo = min(acc)
        vals = [0] * (max(acc) - lo + 1)
        for a, v in acc.items():
            vals[a - lo] = max(0, _floor_lo(v * scale))
    L = -(-(F + 2) // 64)
    Z = Fraction(0)
    V = _Vec(_to_limbs(vals, L), lo, Z if t < 2 else None, Z if t > 0 else None, F, 1, bits, t, down=True)
    return _LStep(V, dev, len(pieces), dinf, dinf, (), Fraction(0))


def _pair_estimate(ph: PairPhase) -> tuple[float, float, float]:
    """Float (mean, sd, range) of one step's P-loss (a choice only)."""
    e = float(ph.eps)
    if ph.kind == "dp":
        p = 1 / (1 + _D.exp(-e)) if e < 700 else 1.0
        m = e * (2 * p - 1)
        return m, max(e * math.sqrt(max(4 * p * (1 - p), 0.0)), 1e-300), 2 * e
    ls = [-e + 2 * e * (i + 0.5) / 400 for i in range(400)]
    w = [0.25 * _D.exp((l - e) / 2) * 2 * e / 400 for l in ls] + [0.5, 0.5 * _D.exp(-e)]
    ls = ls + [e, -e]
    tot = math.fsum(w)
    m = math.fsum(wi * li for wi, li in zip(w, ls)) / tot
    v = math.fsum(wi * (li - m) ** 2 for wi, li in zip(w, ls)) / tot
    return m, math.sqrt(max(v, 1e-300)), 2 * e


# ---------------------------------------------------------------------------
# Evaluation (docstring steps 4-6)
# ---------------------------------------------------------------------------

class _View:
    """One order of a composed vector as float bounds a_lo <= a <= a_up of its masses / S at grid indices base + i
    (S = e^x, x exact), with suffix sums for O(1) hockey-stick evaluations (docstring steps 4-6): :meth:`upper` for
    the pessimistic vector, :meth:`lower` for the optimistic one.

    The exponential weights are kept relative to the evaluation point: sg[i] bounds
    sum_{j >= i} a_j e^(-(j - i) h), so no weight underflows however wide the window."""

    def __init__(self, alo: np.ndarray, aup: np.ndarray, base: int, x: Fraction, U: Fraction, bits: int, down: bool):
        self.base, self.x, self.U, self.bits, self.down = base, x, U, bits, down
        self.h = Fraction(1, 1 << bits)
        n = self.n = alo.size
        self.s_up = np.append(np.cumsum(aup[::-1])[::-1], 0.0)
        self.s_lo = np.append(np.cumsum(alo[::-1])[::-1], 0.0)
        self.sg_lo = _suffix_exp(alo, bits, lower=True)
        self.sg_up = _suffix_exp(aup, bits, lower=False)
        self.err = _gamma(n)
        self.gerr = _gamma(4 * n + 16 * _BLOCK)

    def _J(self, eps: Fraction) -> int:
        """The first array index whose grid loss exceeds eps."""
        return max(0, min(self.n, math.floor(eps / self.h) + 1 - self.base))

    def upper(self, eps: Fraction) -> Fraction:
        """S sum_{j h > eps} a_j f_eps(j h) + U, rounded up (an exact rational)."""
        if self.down:
            raise TypeError("upper() reads a pessimistic vector; this view is of the optimistic one (internal)")
        i = self._J(eps)
        s1 = Fraction(float(self.s_up[i])) * (1 + self.err)
        s2 = Fraction(float(self.sg_lo[i])) * (1 - self.gerr)
        with _Prec(96) as fl:
            val = _exp_arb(fl, self.x) * (_arb_q(fl, s1) - _exp_arb(fl, eps - (self.base + i) * self.h) * _arb_q(fl, s2))
            hi = _exact(fl, val)[1]
        return _rup(max(hi, Fraction(0)) + self.U)

    def lower(self, eps: Fraction) -> Fraction:
        """S sum_{j h > eps} a_j f_eps(j h), rounded down (an exact rational): the same sum as :meth:`upper` with every
        bound taken the other way and no unknown place."""
        if not self.down:
            raise TypeError("lower() reads an optimistic vector; this view is of the pessimistic one (internal)")
        i = self._J(eps)
        if i >= self.n:
            return Fraction(0)
        s1 = Fraction(float(self.s_lo[i])) * (1 - self.err)
        s2 = Fraction(float(self.sg_up[i])) * (1 + self.gerr)
        with _Prec(96) as fl:
            val = _exp_arb(fl, self.x) * (_arb_q(fl, s1) - _exp_arb(fl, eps - (self.base + i) * self.h) * _arb_q(fl, s2))
            lo = _exact(fl, val)[0]
        return _rdn(max(lo, Fraction(0)))


_BLOCK = 256


def _suffix_exp(a: np.ndarray, bits: int, lower: bool) -> np.ndarray:
    """Float bounds on sg[i] = sum_{j >= i} a_j e^(-(j - i) h), i = 0..n (sg[n] = 0), for a_j >= 0.

    Within blocks of 256 the weights come from the e^(-i h) table (never below e^(-256 h)), across
    blocks one multiplication by e^(-(block length) h) carries the next block's sum: every term
    passes through at most 4n + 16 * 256 roundings, so the computed value is within the relative
    error _gamma(4 n + 16 * 256) of the same sum over the bounds used (lower: a_lo, e^(-ih) rounded
    down; upper: a_up, rounded up); the caller applies that factor.  All operations are single
    IEEE-754 operations in a fixed order (bit-identical on every machine)."""
    n = a.size
    out = np.zeros(n + 1)
    if n == 0:
        return out
    B = _BLOCK
    glo, gup = _gtable(bits, B + 1)
    g = glo if lower else gup
    nb = -(-n // B)
    pad = np.zeros(nb * B)
    pad[:n] = a
    blk = pad.reshape(nb, B)
    # within-block suffix sums of a_j e^(-(j - start) h), then divided by e^(-(i - start) h): a product by the
    # reciprocal weight would overflow nowhere (e^(256 h) <= e^256 for h <= 1)
    wsum = np.cumsum((blk * g[:B])[:, ::-1], axis=1)[:, ::-1]
    # lower: divide by the larger weight (and round down), upper: by the smaller (and round up)
    inv = 1.0 / gup[:B] * (1 - 4 * _U) if lower else 1.0 / glo[:B] * (1 + 4 * _U)
    within = wsum * inv
    carry = 0.0
    res = np.empty((nb, B))
    for b in range(nb - 1, -1, -1):
        # the next block's sum seen from index i: e^(-(start_next - i) h) = e^(-(B - r) h) with r = i - start
        res[b] = within[b] + carry * g[B - np.arange(B)] if carry else within[b]
        carry = float(res[b][0])
    out[:n] = res.reshape(-1)[:n]
    return out


def _view(V: _Vec, order: str) -> _View:
    """One order's view of a composed vector: (order)-mass = W e^(c l/2) (c = V.c(order)); the Q-order is read on the
    Q-loss grid -l, so its arrays are reversed.  Entry j stands for the loss j h + V.shift; the view's grid is j h, so
    a reader shifts eps by the shift (:meth:`PLDComposition.delta_lower_exact`)."""
    F, bits, n, off = V.F, V.bits, V.n, V.off
    c = V.c(order)
    v = _floats(V.W, F)
    x, wlo, wup = _weights(n, off, bits, c, V.shift)
    alo = v * (1 - 10 * _U) * wlo * (1 - 2 * _U)
    aup = v * (1 + 10 * _U) * wup * (1 + 2 * _U)
    U = Fraction(0) if V.down else V.U(order)
    if order == "P":
        return _View(alo, aup, off, x, U, bits, V.down)
    return _View(alo[::-1].copy(), aup[::-1].copy(), -(off + n - 1), x, U, bits, V.down)


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
    V: _Vec = field(repr=False)
    evP: _View = field(repr=False)
    evQ: _View = field(repr=False)
    L: _Vec = field(repr=False)  # the optimistic vector (P-order's when two chains are composed)
    lvP: _View = field(repr=False)
    lvQ: _View = field(repr=False)
    shift: Fraction = Fraction(0)  # K x the buckets' certified loss deviation (docstring step 5)
    lower_buckets: tuple = ()
    loss_offset: Fraction = Fraction(0)  # the optimistic vector's entry j stands for the loss j h + loss_offset
    _memo: dict = field(default_factory=dict, repr=False, compare=False)

    @property
    def h(self) -> Fraction:
        return Fraction(1, 1 << self.bits)

    @property
    def k(self) -> int:
        return sum(_steps_of(p) for p in self.phases)

    @property
    def q(self):
        return self.phases[0][0] if len(self.phases) == 1 and not isinstance(self.phases[0], PairPhase) else None

    @property
    def sigma(self):
        return self.phases[0][1] if len(self.phases) == 1 and not isinstance(self.phases[0], PairPhase) else None

    def _top(self) -> Fraction:
        """A grid loss above every entry of both views (delta_upper there is the unknown-place mass only)."""
        return max(Fraction(max(v.base + v.n, 0) + 1) * v.h for v in (self.evP, self.evQ, self.lvP, self.lvQ)) + abs(
            self.loss_offset)

    def _tag(self) -> str:
        pairs = [ph.text() for ph in self.phases if isinstance(ph, PairPhase)]
        with_ = f"; composed with the pairs of {', '.join(pairs)} (step 7)" if pairs else ""
        return f" (h = 2^-{self.bits}, F = {self.F}, engine {ENGINE_VERSION}{with_})"

    def delta_upper_exact(self, eps) -> Fraction:
        e = check("eps", eps, NN)
        return min(Fraction(1), max(self.evP.upper(e), self.evQ.upper(e)))

    def delta_lower_exact(self, eps) -> Fraction:
        e = check("eps", eps, NN)
        return max(self.lvP.lower(e + self.shift - self.loss_offset), self.lvQ.lower(e + self.shift + self.loss_offset))

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
        """The least eps found (bisection to 2^-40 relative, a dyadic rational) with delta_upper(eps) <= delta; None if
        there is none below the grid's top (delta_upper there is the unknown-place mass)."""
        d = check("delta", delta, U01)
        key = ("eps_upper", d)
        if key not in self._memo:
            self._memo[key] = self._eps_upper(d)
        return self._memo[key]

    def _eps_upper(self, d: Fraction) -> Fraction | None:
        top = self._top()
        if self.delta_upper_exact(top) > d:
            return None
        if self.delta_upper_exact(0) <= d:
            return Fraction(0)
        return _bisect(lambda e: self.delta_upper_exact(e) <= d, Fraction(0), top)[1]

    def eps_lower_exact(self, delta) -> Fraction:
        """The largest eps found (bisection) with delta_lower(eps) > delta (then the true eps(delta) > it); 0 if none."""
        d = check("delta", delta, U01)
        key = ("eps_lower", d)
        if key not in self._memo:
            if not self.delta_lower_exact(Fraction(0)) > d:
                self._memo[key] = Fraction(0)
            else:
                self._memo[key] = _bisect(lambda e: self.delta_lower_exact(e) > d, Fraction(0), self._top())[0]
        return self._memo[key]

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
        return {"engine": ENGINE_VERSION, "phases": [ph.text() if isinstance(ph, PairPhase) else [str(ph[0]), str(ph[1]), ph[2]] for ph in self.phases], "bits": self.bits,
                "F": self.F, "tail": str(self.tail), "length": self.V.n, "offset": self.V.off,
                "unknown_P_mass": float(self.evP.U), "unknown_Q_mass": float(self.evQ.U), "tilt": self.V.t,
                "lower_length": self.L.n, "lower_offset": self.L.off, "lower_buckets": list(self.lower_buckets),
                "lower_loss_shift": str(self.shift), "lower_loss_offset": str(self.loss_offset)}


def _bisect(pred, lo: Fraction, hi: Fraction, rel: int = 40) -> tuple[Fraction, Fraction]:
    """(lo, hi) with pred(lo) False-or-True as given and pred(hi) the other, |hi - lo| <= 2^-rel max(|lo|, 2^-20), by
    bisection on dyadic rationals (pred monotone: True above a threshold for eps_upper, below it for eps_lower).
    Precondition: pred(lo) != pred(hi)."""
    plo = pred(lo)
    while hi - lo > max(abs(lo), abs(hi) / 2, Fraction(1, 1 << 20)) * Fraction(1, 1 << rel):
        mid = (lo + hi) / 2
        if mid.denominator > (1 << 60):
            mid = Fraction(math.floor(mid * (1 << 60)), 1 << 60)
        if mid <= lo or mid >= hi:
            break
        if pred(mid) == plo:
            lo = mid
        else:
            hi = mid
    return lo, hi


def _parse_phases(phases) -> tuple:
    out = []
    for ph in phases:
        if isinstance(ph, PairPhase):
            if ph.kind not in PAIR_KINDS:
                raise ValueError(f"a pair phase's kind must be one of {PAIR_KINDS}, found {ph.kind!r}")
            e = check("eps", ph.eps, NN)
            dl = check("delta", ph.delta, Domain(lo=Fraction(0), hi=Fraction(1), lo_closed=True, hi_closed=False))
            if ph.kind == "laplace" and (e == 0 or dl != 0):
                raise ValueError(f"a Laplace phase has eps = s/b > 0 and delta = 0, found eps = {e}, delta = {dl}")
            out.append(PairPhase(ph.kind, e, dl, int(check("k", ph.k, KDOM))))
            continue
        if len(ph) != 3:
            raise ValueError(f"a phase is (q, sigma, k), found {ph!r}")
        q, s, k = ph
        out.append((check("q", q, QDOM), check("sigma", s, P), int(check("k", k, KDOM))))
    if not out:
        raise ValueError("phases must not be empty")
    if not _sgm_phases(out):
        raise ValueError("phases must include at least one subsampled-Gaussian phase (q, sigma, k)")
    K = sum(_steps_of(p) for p in out)
    if K > K_MAX:
        raise ValueError(f"k (total steps) must be at most K_MAX = {K_MAX}, found {K}")
    return tuple(out)


_EST = mpmath.MPContext()
_EST.prec = 256


def _delta_step_estimate(phases, eps: Fraction) -> float:
    """max over the phases of one step's delta(eps) through its P-order, q G_{1/sigma}(log1p(expm1(eps)/q)) (the
    amplification identity; G the mu-GDP curve), in a private 256-bit mpmath context (deterministic): an estimate of a
    value below the run's delta(eps), used to size the tail budget only (0.0 when it underflows a double)."""
    c = _EST
    best = 0.0
    e = c.mpf(eps.numerator) / eps.denominator
    for q, s, _ in _sgm_phases(phases):
        qq = c.mpf(q.numerator) / q.denominator
        mu = c.mpf(s.denominator) / s.numerator
        L = c.log1p(c.expm1(e) / qq)
        g = c.ncdf(-L / mu + mu / 2) - c.exp(L) * c.ncdf(-L / mu - mu / 2)
        v = qq * g
        if v > c.mpf("1e-300"):
            best = max(best, float(v))
    return best


def loss_spread(q, sigma) -> float:
    """A float estimate of the standard deviation of one step's privacy loss under Q, q sqrt(expm1(1/sigma^2)) (the
    loss is about the likelihood ratio minus 1 when that is small; the formula's chi-square form, Var_Q(p/q) =
    q^2 (e^(1/sigma^2) - 1), holds exactly), in deterministic 53-bit mpmath: finite for every sigma > 0 and q in (0, 1]
    (inf where the float range ends).  A choice only (routing, grid size): it never enters a certified value."""
    c = _D.c
    v = c.mpf(Fraction(q).numerator) / Fraction(q).denominator * c.sqrt(c.expm1(
        c.mpf(Fraction(sigma).denominator) ** 2 / c.mpf(Fraction(sigma).numerator) ** 2))
    return float(v) if v < c.mpf("1e300") else math.inf


#: the finest grid is 2^-30 (GDOM); a step whose loss spread is below 2^-SPREAD_MIN_BITS is not resolved by it (its
#: optimistic buckets cannot be placed, its fixed point would need thousands of bits): such runs are refused with a
#: message, and :mod:`.sgm_closed` answers them (there its closed forms are tight)
SPREAD_MIN_BITS = 34


def resolves(q, sigma) -> bool:
    """Whether the grid engine can resolve one step of (q, sigma): its loss spread is at least 2^-SPREAD_MIN_BITS."""
    return loss_spread(q, sigma) >= 2.0 ** -SPREAD_MIN_BITS


@lru_cache(maxsize=64)
def _sd_estimate(q: float, s: float) -> tuple[float, float]:
    """Float mean and standard deviation of one step's P-privacy loss (choice only)."""
    if not resolves(Fraction(q), Fraction(s)):
        # near no privacy loss: the loss is about the likelihood ratio minus 1, mean KL ~ spread^2 / 2 (the grid
        # below would also overflow at s * s)
        sd = loss_spread(Fraction(q), Fraction(s))
        return sd * sd / 2, max(sd, 1e-300)
    xs = [-12 * s + (1 + 24 * s) * i / 600 for i in range(601)]
    p = [(1 - q) * _D.exp(-x * x / (2 * s * s)) + q * _D.exp(-(x - 1) ** 2 / (2 * s * s)) for x in xs]
    tot = math.fsum(p)
    l = [_lx(q, s, x) for x in xs]
    m = math.fsum(pi * li for pi, li in zip(p, l)) / tot
    v = math.fsum(pi * (li - m) ** 2 for pi, li in zip(p, l)) / tot
    return m, math.sqrt(max(v, 1e-300))


def _spread_cap(phases, h: float) -> float:
    """The coarsest grid step the optimistic buckets resolve (a choice): twice the smallest loss spread of a phase,
    except a phase whose q is below h/2, whose bucket from -infinity takes the bulk (:func:`_bulk_offset`)."""
    caps = [2 * _sd_estimate(float(q), float(s))[1] for q, s, _ in _sgm_phases(phases)
            if not -_D.log1p(-float(q)) < h / 2]
    return min(caps) if caps else math.inf


def choose_bits(phases, eps_scale: float, precision=DEFAULT_PRECISION, delta: float = 1e-6) -> int:
    """The grid exponent for a request: both ends converge at second order, the bracket's width about K h^2 (in eps,
    measured), so h = sqrt(0.8 precision x eps_scale / K), at most twice the step's loss spread, clamped to [0, 30] and
    to the memory budget (a float choice: it affects tightness and cost, never validity).  ``delta`` is accepted for
    the callers' convention."""
    K = sum(_steps_of(p) for p in phases)
    h = math.sqrt(0.8 * float(precision) * max(eps_scale, 0.05) / K)
    # never coarser than twice the step's loss spread: there the optimistic buckets cannot resolve a step
    h = min(h, _spread_cap(phases, h))
    kp = sum(ph.k for ph in phases if isinstance(ph, PairPhase))
    if kp:  # the pair steps' lower end moves eps by up to h/2 a step (first order, step 7)
        h = min(h, 0.8 * float(precision) * max(eps_scale, 0.05) / kp)
    bits = int(min(30, max(0, math.ceil(-_D.log2(h)))))
    span = _span(phases)
    while bits > 0 and span * 2 ** bits > MAX_LEN * 3 / 4:
        bits -= 1
    return bits


#: the spread rule's constant (:func:`_predicted_bits`), measured on the benchmark's workloads: h = SPREAD_RULE x sd
#: gave brackets 0.2% to 0.9% wide at the 1% target where the rule binds
SPREAD_RULE = 0.3


def _predicted_bits(phases, eps_scale: float, precision) -> int | None:
    """The grid for a run of subsampled-Gaussian phases whose every step the grid resolves (|log(1 - q)| at least half
    the grid step, as in :func:`_spread_cap`: no bucket from -infinity takes the bulk), or None (then a pilot sizes the
    grid).  Both ends lose about
    h^2 / 12 of variance-like information a step, so the composed loss, near N(K mu, K sd^2), moves by about z sqrt(K)
    h^2 / (24 sd) at the point z sd sqrt(K) above its mean, and the relative width is about
    (h / sd)^2 (eps - K mu) / eps up to a constant: h = SPREAD_RULE sd sqrt((precision / 1%) eps / (eps - K mu)) with
    sd the smallest phase's (a float choice: cost and tightness only, never validity)."""
    if any(isinstance(p, PairPhase) for p in phases):
        return None
    mean, _, _ = _extent(phases)
    e = max(float(eps_scale), 1e-300)
    factor = math.sqrt(float(precision) / 0.01 * e / (e - mean)) if e > 1.05 * mean else math.sqrt(20 * float(precision) / 0.01)
    h = min(SPREAD_RULE * _sd_estimate(float(q), float(s))[1] for q, s, _ in phases) * factor
    if not h > 0 or any(-_D.log1p(-float(q)) < h / 2 for q, _, _ in phases if q < 1):
        return None
    return int(min(30, max(0, math.ceil(-_D.log2(h)))))


def _extent(phases) -> tuple[float, float, float]:
    """Float (mean, sd, step range) of the composed P-loss (a choice only)."""
    var = 0.0
    rng = 0.0
    mean = 0.0
    for ph in phases:
        if isinstance(ph, PairPhase):
            m, sd, r = _pair_estimate(ph)
            var += ph.k * sd * sd
            mean += ph.k * m
            rng = max(rng, r)
            continue
        q, s, k = ph
        m, sd = _sd_estimate(float(q), float(s))
        var += int(k) * sd * sd
        mean += int(k) * m
        rng = max(rng, _lx(float(q), float(s), 1 + 9 * float(s)) - _D.log1p(-min(float(q), 0.999999)))
    return mean, math.sqrt(var), rng


def _window(phases) -> tuple[float, float]:
    """The loss interval a tilted vector may occupy: from below the Q-order's bulk (near -K D(Q||P)) to above the
    P-order's (near K D(P||Q)), 12 sd beyond each, plus one step's range (a choice only; see :func:`_chain`)."""
    mean, sd, rng = _extent(phases)
    return -1.5 * mean - 12 * sd - rng, 1.5 * mean + 12 * sd + rng


def _span(phases, tilt: bool | None = None) -> float:
    """A float estimate of the composed window's width in loss units (one chain's width in the two-chain mode)."""
    if tilt is None:
        tilt = tilt_mode(phases)
    mean, sd, rng = _extent(phases)
    if tilt:
        lo, hi = _window(phases)
        return hi - lo
    return 20 * sd + rng


class _Fallback(Exception):
    """The tilted vector outgrew its window: compose two chains instead."""


def _chain(phases, bits, F, tail, K, t, lower: bool = False) -> _Vec:
    """The composed vector of a run under the tilt t (binary powering per phase, then the phases' product): the
    pessimistic (split, rounded up) one, or with ``lower`` the optimistic (grid-ratio buckets, rounded down) one.

    Under the symmetric tilt (t = 1) the fixed-point rounding of an entry at loss l weighs e^(|l|/2), so entries
    outside :func:`_window` are cut whatever their mass (their certified masses join U); if that pushes U past twice
    the tail budget, :class:`_Fallback` asks for the two-chain mode (both ways the result is certified).  Twice: the
    products' own cut budgets (tail/64 a side, about 2 log2 K products) and the steps' tails (tail/4) add up to a little
    more than the budget for K near K_MAX in either mode, and the mode costs 2 chains against 4 (a choice: U enters
    delta_upper additively, 2 tail is 2e-5 of the requested delta)."""
    steps = [((_pair_lstep if lower else _pair_step)(ph, bits, F, t) if isinstance(ph, PairPhase)
              else (_lstep if lower else _step)(ph[0], ph[1], bits, F, tail, K, t)) for ph in phases]
    cap = None
    if t == 1:
        lo, hi = _window(phases)
        cap = (lo, hi)

    def cut_fn(m):  # per product and side: the budget of a vector of m steps (its cut mass grows ~K/m times)
        c = _rdn(tail * m / (64 * K))
        return c, c, cap

    acc = None
    for st, k in zip(steps, map(_steps_of, phases)):
        V = _trim(st.V if lower else st.P, *cut_fn(1))
        Vk = _power(V, k, cut_fn)
        acc = Vk if acc is None else _mul(acc, Vk, *cut_fn(acc.steps + Vk.steps))
        if acc.n > MAX_LEN:
            raise ValueError(f"the composed vector needs {acc.n} grid values (more than MAX_LEN = {MAX_LEN}); "
                             f"use a coarser grid")
    if t == 1 and not lower and (acc.UP > 2 * tail or acc.UQ > 2 * tail):
        raise _Fallback()
    return acc, steps


def tilt_mode(phases) -> bool:
    """Whether one symmetrically tilted vector carries both orders (its fixed-point rounding is amplified by e^(|l|/2)
    at the window's ends: used while that stays below 2^24), or two chains (P and Q) are composed (a choice only)."""
    return _amp_bits(phases) <= 24


def _amp_bits(phases) -> float:
    lo, hi = _window(phases)
    return max(-lo, hi) / 2 / 0.6931471805599453


@lru_cache(maxsize=8)
def _compose(phases: tuple, bits: int, F: int, tail: Fraction) -> PLDComposition:
    K = sum(_steps_of(p) for p in phases)
    try:
        if not tilt_mode(phases):
            raise _Fallback()
        V, _ = _chain(phases, bits, F, tail, K, 1)
        VP = VQ = V
        LP, lsteps = _chain(phases, bits, F, tail, K, 1, lower=True)
        LQ = LP
    except _Fallback:
        VP, _ = _chain(phases, bits, F, tail, K, 0)
        VQ, _ = _chain(phases, bits, F, tail, K, 2)
        LP, lsteps = _chain(phases, bits, F, tail, K, 0, lower=True)
        LQ, _ = _chain(phases, bits, F, tail, K, 2, lower=True)
    # the loss perturbation of the optimistic vector: sum over the steps of the buckets' certified deviations
    shift = _rup(sum((st.dev * k for st, k in zip(lsteps, map(_steps_of, phases))), Fraction(0)), 64)
    C = sum((st.c * k for st, k in zip(lsteps, map(_steps_of, phases))), Fraction(0))  # the composed grid's offset (exact)
    if LP.shift != C or LQ.shift != C:
        raise ArithmeticError("the optimistic vector's loss offset is not the sum of its steps' (internal)")
    return PLDComposition(phases, bits, F, tail, VP, _view(VP, "P"), _view(VQ, "Q"), LP, _view(LP, "P"),
                          _view(LQ, "Q"), shift, tuple(st.buckets for st in lsteps), C)


def _fix_bits(phases, bits: int, tail: Fraction) -> int:
    """The fixed point F: the rounding junk (about 4 K n1 2^-F, n1 the step's length, amplified by at most e^(|l|/2) at
    the window's ends) at most tail / 4; F in [56, F_MAX] (a float choice: tightness and cost only)."""
    return int(min(F_MAX, max(56, math.ceil(_fix_need(phases, bits, tail)))))


def _fix_need(phases, bits: int, tail: Fraction) -> float:
    """The fixed point (bits) that would keep the rounding junk within a quarter of the tail budget (:func:`_fix_bits`
    clamps it to F_MAX; beyond F_MAX the junk, not the grid, sets the bracket's width)."""
    K = sum(_steps_of(p) for p in phases)
    n1 = max(_pair_n(ph, bits) if isinstance(ph, PairPhase) else
             _bucket_range(ph[0], ph[1], bits, tail, K)[1] - _bucket_range(ph[0], ph[1], bits, tail, K)[0] + 2
             for ph in phases)
    return _D.log2(16 * K * n1) - _D.log2(tail) + (_amp_bits(phases) if tilt_mode(phases) else 0.0)


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
    for q, s, _ in _sgm_phases(ph):
        if s < Fraction(1, 1000):
            raise ValueError(f"sigma must be at least 0.001 for the PLD accountant (its loss range would exceed the memory "
                             f"budget), found {s}")
        if not resolves(q, s):
            raise ValueError(f"the loss spread of a step (q = {float(q):.6g}, sigma = {float(s):.6g}) is about "
                             f"{loss_spread(q, s):.3g}, below 2^-{SPREAD_MIN_BITS}, which the finest grid 2^-30 does not "
                             f"resolve; the closed-form bounds of reference.profiles.sgm_closed answer this run")
    dx = check("delta_hint", delta_hint, U01) if delta_hint is not None else None
    d = float(dx) if dx is not None else None
    if grid_bits is None:
        if eps_hint is not None:
            scale = float(eps_hint)
        else:
            scale = _eps_guess(ph, d if d is not None else 1e-6)
        bits = choose_bits(ph, scale, prec, d if d is not None else 1e-6)
    else:
        bits = int(check("grid_bits", grid_bits, GDOM))
        span = _span(ph)
        if not math.isfinite(span) or span * 2 ** bits > MAX_LEN:
            raise ValueError(f"grid_bits = {bits} needs about {int(span * 2 ** bits)} grid values for this run (more than "
                             f"MAX_LEN = {MAX_LEN}, the memory budget); use grid_bits <= "
                             f"{max(4, int(math.floor(_D.log2(MAX_LEN / span))))}")
    if tail is None:
        # the budget of cut and tail mass: 1e-5 of the requested delta; for a delta(eps) request 1e-5 of an estimate of
        # the answer that is below it (one step's exact delta(eps), :func:`_delta_step_estimate`: a projection of the
        # run), at most 2^-60; dyadic, at least 2^-1000 (a choice: the budget moves tightness and cost, never validity)
        if d is not None:
            tl = min(2.0 ** -30, d * 1e-5)
        else:
            est = _delta_step_estimate(ph, Fraction(eps_hint)) if eps_hint is not None else 0.0
            tl = min(2.0 ** -60, est * 1e-5) if est > 0 else 2.0 ** -60
        tl = Fraction(1, 1 << min(1000, math.ceil(-_D.log2(tl)))) if tl > 0 else Fraction(1, 1 << 1000)
    else:
        tl = check("tail", tail, U01)
    predicted = _predicted_bits(ph, scale, prec) if grid_bits is None else None
    if predicted is not None:
        # every step resolved by the grid: the width follows the spread rule closely enough to skip the pilot
        bits = predicted
        span = _span(ph)
        while bits > 0 and span * 2 ** bits > MAX_LEN * 3 / 4:
            bits -= 1
    elif grid_bits is None and (d is not None or eps_hint is not None):
        # a pilot at a quarter of the rule's cost, its width sizes the grid (below); but never coarser than twice the
        # step's loss spread, where the optimistic buckets cannot resolve the step and its lower end collapses
        cap = _spread_cap(ph, 2.0 ** -bits)
        if math.isfinite(cap):
            bits = max(1, min(bits, max(bits - 2, math.ceil(-_D.log2(cap)))))
        else:
            bits = max(1, bits - 2)
    C = _compose(ph, bits, _fix_bits(ph, bits, tl), tl)
    last = None  # (bits, relative width) of the previous compose, once refined
    for _ in range(3 if grid_bits is None else 0):
        # refine (at most three times) from the bracket itself while it is wider than the target (the rule of thumb
        # for the width, about K h^2, is off by a factor 0.4 to 25 across realistic workloads, and the RDP guess of
        # eps can be 10x high)
        # Every refinement must be able to stop: a bracket whose width comes from the fixed point (the tail budget
        # needs more than F_MAX bits, e.g. delta near 1e-300) is final, a finer grid cannot narrow it; so is a bracket
        # whose lower end is 0 and whose upper end is below an absolute floor (EPS_ABS_FLOOR x precision for eps, four
        # tail budgets for delta), where a relative width can never fall below 1.
        if _fix_need(ph, bits, tl) > F_MAX:
            break
        w = None
        if d is not None and eps_hint is None:
            hi, lo = C.eps_upper_exact(dx), C.eps_lower_exact(dx)
            if (hi is not None and hi > 0 and (hi - lo) / hi > prec
                    and not (lo == 0 and hi <= prec * EPS_ABS_FLOOR)):
                w, scale = float((hi - lo) / hi), float(hi)
        elif eps_hint is not None:  # a delta(eps) request: the delta bracket at eps
            e = Fraction(eps_hint)
            hi, lo = C.delta_upper_exact(e), C.delta_lower_exact(e)
            if 0 < hi < 1 and (hi - lo) / hi > prec and not (lo == 0 and hi <= 4 * tl):
                w, scale = float((hi - lo) / hi), float(e)
        if w is None:
            break
        # the width is about proportional to h^2 (h^p): the bits that bring it under the target.  After a refinement
        # that fell short, p is the rate just observed, taken in [1.5, 2] (coarse grids converge more slowly than h^2:
        # one more bit at p = 2 would often fall short again, and each refinement recomputes everything)
        p = 2.0
        if last is not None:
            p = min(2.0, max(1.5, _D.log2(last[1] / w) / (bits - last[0]) if last[1] > w else 0.0))
        last = (bits, w)
        nb = bits + max(1, math.ceil(_D.log2(w / (0.85 * float(prec))) / p))
        span = _span(ph)
        while nb > bits and span * 2 ** nb > MAX_LEN * 3 / 4:
            nb -= 1
        if nb <= bits:
            break
        bits = nb
        C = _compose(ph, bits, _fix_bits(ph, bits, tl), tl)
    return C


@lru_cache(maxsize=1024)
def _rdp_guess(q: float, s: float, a: int) -> float:
    """The SGM's Renyi divergence at integer order a (binomial expansion, Mironov-Talwar-Zhang 2019 Sec. 3.3) in
    deterministic 53-bit arithmetic (a choice only)."""
    c = _D.c
    if q >= 1:
        return a / (2 * s * s)
    terms = [c.log(c.binomial(a, j)) + (a - j) * c.log1p(-q) + j * c.log(q) + (j * j - j) / (2 * s * s) for j in range(a + 1)]
    m = max(terms)
    return float((m + c.log(c.fsum(c.exp(t - m) for t in terms))) / (a - 1))


def _eps_guess(ph, delta: float) -> float:
    """A float estimate of eps(delta) from the summed integer-order RDP curve (a choice only)."""
    best = math.inf
    ld = -_D.log(delta)
    for a in (2, 3, 4, 6, 8, 12, 16, 24, 32, 64, 128):
        r = sum(int(k) * _rdp_guess(float(q), float(s), a) for q, s, k in _sgm_phases(ph))
        # pure eps-DP is eps^2/2-zCDP (Bun-Steinke 2016, Prop. 1.4): a Renyi divergence at most min(eps, a eps^2/2)
        r += sum(p.k * min(float(p.eps), a * float(p.eps) ** 2 / 2) for p in ph if isinstance(p, PairPhase))
        best = min(best, r + ld / (a - 1))
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
    return sgm_pld(q, sigma, k, grid_bits=grid_bits, eps_hint=e, precision=precision).delta_bracket(e)


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
               "(FLINT) with every rounding directed; the lower end (sgm_pld_delta_bracket(...).lo) composes a bucketing with "
               "grid likelihood ratios (certified deviation, atoms shrunk, products rounded down, read at eps + k dev). Proof: reference/profiles/sgm_pld.py docstring, proof-tested in proofs/test_sgm_pld_certified.py. "
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
    return sgm_pld(q, sigma, k, eps_hint=e).delta_upper(e)
