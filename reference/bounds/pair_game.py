"""The exact adaptive game over discrete dominating pairs: budget filters for any menu of mechanisms, certified.

The game
--------
A menu of mechanisms, item k with integer cost c_k and a dominating pair (P_k, Q_k) (Zhu, Dong,
Wang 2022, Definition 7: H_{e^eps}(M(D) || M(D')) <= H_{e^eps}(P_k || Q_k) for every real eps).
The analyst picks every step from the menu, adaptively from the transcript, and may stop; the
filter admits item k while c_k <= R, R the remaining budget.  The game value from budget R is ::

    G_R = sup over adaptive analysts of E_P[(1 - e^{eps - L_tau})_+],

L the privacy loss of the stopped transcript.  The filter is (eps, delta)-DP iff G_R <= delta
(for both orders of every pair of neighbours).

The reduction (this project, derived; the pure-DP case is :mod:`reference.verify.game`'s)
-----------------------------------------------------------------------------------------
1. *Blackwell.*  A dominating pair for every real eps is a tradeoff-function domination (Dong,
   Roth, Su 2022, Prop. 2.12 and Thm 2.10: f-DP curves and hockey-stick profiles are equivalent
   descriptions), so each mechanism dominated by item k's pair is a randomized post-processing of
   a draw from P_k (under D) or Q_k (under D'), with a kernel that may depend on the past.  The
   real interaction is then a post-processing of an interaction with the pairs themselves in which
   the analyst also sees its own independent coins; a randomized analyst is a mixture of
   deterministic ones, with the same weights under both hypotheses, and the hockey-stick
   divergence is jointly convex and non-increasing under post-processing.  So G_R is at most the
   value over deterministic analysts on the pairs.  The choice must be a function of the past (the
   filter's decisions are), which is what "adaptive" means here.
2. *The loss walk.*  For a deterministic analyst on the pairs the transcript's likelihood ratio
   factorises, so L is the sum of the chosen steps' losses l_k = log(dP_k/dQ_k) drawn under P_k,
   and the value satisfies the recursion ::

       V(R, l) = max( f(l), max_{k: c_k <= R} E_{x ~ P_k} V(R - c_k, l + l_k(x)) ),  f(l) = (1 - e^{eps - l})_+,

   G_R = V(R, 0); mass of P_k where Q_k vanishes has l = +inf and payoff 1.
3. *Monotone in the loss.*  V(R, .) is nondecreasing (f is, the transitions are shift-invariant
   averages) and 0 <= V <= 1.
4. *Upper end.*  Each item's P-law of the loss is replaced by a law on the grid hZ that dominates
   it: losses rounded *up* with their masses rounded *up* (or any split that dominates the pair,
   e.g. the pessimistic split of Doroshenko et al. 2022 -- a dominating pair's P-law), tails moved
   to +inf (payoff 1).  By 3 and the nonnegative, monotone recursion, the grid recursion is >= the
   true one.  The loss window [lo, hi] is closed pessimistically: below lo the row is read at lo
   (V nondecreasing), above hi it is 1 (V <= 1).
5. *Lower end.*  Each item's law is replaced by a sub-measure on the grid whose atoms have P-mass
   at most that of a bucket B of a post-processing of the pair and a loss at most the bucket's
   true loss log(P(B)/Q(B)) (losses rounded *down*, masses rounded *down*, tails dropped).  By 3
   and V >= 0 the grid recursion is <= the value of the argmax policy run on the real bucketed
   mechanism (an actual analyst); outside the window the row is read as 0 below and as the payoff
   f (rounded down) above, both lower bounds of V.
6. *Rounding.*  Each level computes, per window cell, ``max(f, max_k fl(sum_j fl(p_kj v_j)) +
   inf_k)``: nonnegative terms, so whatever the order of summation (a BLAS dot product may
   reorder and fuse) the computed sum of n_k + 1 terms lies within the factors (1 +- u)^(n_k + 2)
   of the exact sum of the computed inputs, plus at most (n_k + 2) 2^-1074 absolute for underflow
   (Higham 2002, Sec. 4.2, bound for any summation order).  Over a path of at most D levels
   (D = R / least cost) the upper end is ``(raw + D (n + 2) 2^-1073) / (1 - D (n + 2) u)`` and the
   lower end ``(raw - D (n + 2) 2^-1073) (1 - D (n + 2) u)``, n the largest support.  The float
   values may differ in the last places between machines (the BLAS's order of summation), the
   certified ends hold on every machine.
   Large correlations (window x support above ``EXACT_MIN``) are computed in exact integers
   instead (FLINT products): the row rounded to multiples of 2^-62 and the masses to multiples of
   2^-100 in the side's direction, the exact sum rounded once more in that direction back to a
   double, the +inf mass added with one directed rounding.  Every operation then lies on the
   side's side of the exact recursion on the computed inputs, so the factor above is not needed
   there (applying it anyway only moves the end further out); the result is identical on every
   machine.  The rounding is absolute there: at most 2^-61 per level (and a few ulps relative), so
   such games are loose, never wrong, for targets below about 10^-15.

7. *Blocks.*  A filter may charge per *block*: item k's block is m_k consecutive steps for one cost
   c_k.  A step dominated by the open block's item is free while the block has steps left; any
   other step opens a new block of the item it is charged at (the rest of the open block is
   forfeited), and stopping may happen anywhere.  Its game value is the game above on the *block
   items*, item k's pair replaced by its m_k-fold product: within a block the steps are an
   adaptive composition of mechanisms each dominated by item k's pair, dominated by the product
   pair (Zhu, Dong, Wang 2022, Theorem 10); a block left early (a switch or a stop) is completed
   by steps of item k's pair whose outputs the analyst ignores -- the real transcript is the
   marginal of that longer one, a post-processing.  The product pair's loss is the sum of the m_k
   losses, so its P-law is the m_k-fold convolution of the step's law; :func:`law_power` computes
   it on the grid in exact integers, rounding each product in the side's direction (up: masses up,
   a tail above a cut moved to +inf and one below a cut moved up to the cut, both allowed by 3-4;
   down: masses down, tails dropped, a sub-measure of the product bucketing's law whose atoms sit
   at sums of rounded-down losses, below the merged buckets' losses by the mediant inequality, as
   step 5 needs).  With m_k = 1 the block filter is the step filter.

Pure DP is one case: randomized response RR_e is the pair with losses +-e on the grid e Z, and
:func:`rr_law` gives it; ``proofs/test_sgm_game.py`` checks that this engine and
:func:`reference.bounds.game.threshold_game` bracket the same values.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Callable, Optional, Sequence

import numpy as np

from ..catalog import cites
from ..precision import Domain, check
from .game import MAX_BYTES, GameMemoryError, _dyadic, largest_within, payoff_down, payoff_up, rr_probs_up

__all__ = ["StepLaw", "PairGameTable", "pair_game", "rr_law", "apply_law", "certified_end", "law_power", "LAW_FIX",
           "coarsen_law"]

ZDW, W22, DRS, DGK = "zhu2022", "whitehouse2022", "dong2022", "doroshenko2022"
U = Fraction(1, 2 ** 53)
TINY2 = Fraction(1, 2 ** 1073)
#: Fixed-point bits of :func:`law_power`'s exact integer products (masses are multiples of 2^-LAW_FIX between roundings).
LAW_FIX = 96
#: Correlations with (row length x nonzero masses) above this, or more than EXACT_MIN_TERMS nonzero masses, are computed
#: in exact integers (module docstring step 6): doubles win below (np.convolve is direct), FLINT's products above
#: (measured: 0.06 s in doubles and 0.09 s exact at 40000 x 8000; 31-53 s against 0.08-0.14 s at 30000 x 20000 and
#: 60000 x 37000, where the direct sum falls off the cache)
EXACT_MIN = 1 << 28
EXACT_MIN_TERMS = 8192
_ROW_BITS, _LAW_BITS = 62, 100


@dataclass(frozen=True)
class StepLaw:
    """One item's P-law of the privacy loss on the grid h Z: mass ``p[j]`` at loss ``(off + j) h``, ``inf`` at +infinity.

    ``side`` says how it was rounded: ``"upper"`` (a law whose recursion dominates the item's, module
    docstring step 4) or ``"lower"`` (a sub-measure below it, step 5; ``inf`` must then be 0).
    """

    off: int
    p: np.ndarray
    inf: float
    side: str
    rev: np.ndarray = field(default=None, repr=False, compare=False)
    nnz: int = field(default=0, repr=False, compare=False)
    _exact: dict = field(default=None, repr=False, compare=False)

    def exact_rev(self):
        """The reversed masses as an exact integer polynomial at 2^-100, rounded in the law's side's direction (cached)."""
        f = self._exact.get("rev")
        if f is None:
            import flint

            v = np.ldexp(self.rev, _LAW_BITS)          # exact (doubles <= 1 scaled by a power of two)
            v = np.ceil(v) if self.side == "upper" else np.floor(v)
            f = self._exact["rev"] = flint.fmpz_poly([int(x) for x in v])
        return f

    def __post_init__(self):
        if self.side not in ("upper", "lower"):
            raise ValueError(f"side must be 'upper' or 'lower', found {self.side!r}")
        p = np.asarray(self.p, dtype=np.float64)
        if p.ndim != 1 or len(p) == 0:
            raise ValueError(f"p must be a non-empty 1-d array of masses, found shape {p.shape}")
        if not np.all(np.isfinite(p)) or np.any(p < 0):
            raise ValueError("p must hold finite masses >= 0")
        if not (math.isfinite(self.inf) and self.inf >= 0):
            raise ValueError(f"inf must be a finite mass >= 0, found {self.inf!r}")
        if self.side == "lower" and self.inf:
            raise ValueError("a lower law drops its tails: inf must be 0")
        object.__setattr__(self, "p", p)
        object.__setattr__(self, "rev", p[::-1].copy())
        object.__setattr__(self, "nnz", int(np.count_nonzero(p)))
        object.__setattr__(self, "_exact", {})

    @property
    def top(self) -> int:
        return self.off + len(self.p) - 1


def _correlate(ext: np.ndarray, L: StepLaw, W: int, up: bool) -> np.ndarray:
    """``c[i] = sum_j L.p[j] ext[i + j] + L.inf`` for i < W, ``ext`` of length W + len(L.p) - 1 (module docstring step 6).

    Small: ``np.convolve`` in doubles (step 6's factor covers any summation order).  Large (above
    ``EXACT_MIN`` or ``EXACT_MIN_TERMS``): exact integers, every rounding directed (``up``: upward).
    """
    if len(ext) * max(L.nnz, 1) <= EXACT_MIN and L.nnz <= EXACT_MIN_TERMS:
        c = np.convolve(ext, L.rev, "valid")
        if L.inf:
            c += L.inf
        return c
    import flint

    v = np.ldexp(ext, _ROW_BITS)
    v = np.ceil(v) if up else np.floor(v)          # exact: a double in [0, 1 + tiny] scaled by 2^62 fits an int64
    prod = flint.fmpz_poly(v.astype(np.int64).tolist()) * L.exact_rev()
    S = len(L.p)
    win = prod.truncate(S - 1 + W).right_shift(S - 1)          # coefficients S-1 .. S+W-2: the valid correlation
    B = _LAW_BITS                                              # back to multiples of 2^-62, directed, in Python ints
    # (not fmpz_poly // 2^B: python-flint's scalar floor division returns 0 where a negative coefficient is above -2^B)
    cs = [-((-int(x)) >> B) for x in win.coeffs()] if up else [int(x) >> B for x in win.coeffs()]
    cs += [0] * (W - len(cs))
    a = np.array(cs, dtype=np.int64)
    f = a.astype(np.float64)                                   # nearest; then one ulp outwards where it moved inwards
    back = f.astype(np.int64)
    if up:
        f = np.where(back < a, np.nextafter(f, np.inf), f)
    else:
        f = np.where(back > a, np.nextafter(f, -np.inf), f)
    c = np.ldexp(f, -_ROW_BITS)
    if L.inf:
        c = np.nextafter(c + L.inf, np.inf) if up else c    # a lower law has no +inf mass
    return c


@cites(ZDW, "Definition 7 (dominating pairs)", "Theorem 10 (adaptive composition of dominating pairs)")
def apply_law(row: np.ndarray, L: StepLaw, pad_dn: int, W: int, side: str, out: np.ndarray) -> np.ndarray:
    """One transition of the game: ``out[i] = sum_j L.p[j] row[pad_dn + i + L.off + j] + L.inf`` over the window.

    ``row`` is laid out as ``pad_dn`` cells below the window, the ``W`` window cells, then cells
    above it (at least ``L.top`` of them, filled by the caller: 1 on the upper side, the payoff
    rounded down on the lower side, module docstring steps 4-5).  The cells below the window are
    closed here, in place: read at ``lo`` on the upper side (V nondecreasing in the loss), 0 on the
    lower side (V >= 0).  Nonnegative terms only, so the rounding of step 6 covers any summation
    order; ``out`` (length ``W``) is returned.
    """
    if side == "upper":
        row[:pad_dn] = row[pad_dn]          # below the window: read at lo (V nondecreasing in the loss)
    else:
        row[:pad_dn] = 0.0                  # below the window: 0 <= V
    start = pad_dn + L.off
    # out[i] = sum_j p[j] row[start + i + j]: a correlation (nonnegative terms; any summation order is covered)
    out[:] = _correlate(row[start: start + W + len(L.p) - 1], L, W, side == "upper")
    return out


@cites(ZDW, "Theorem 10 (adaptive composition of dominating pairs)")
def certified_end(raw: float, levels: int, terms: int, side: str) -> Fraction:
    """The certified end of a computed game value ``raw`` after at most ``levels`` transitions (module docstring step 6).

    ``terms`` is the largest number of summed terms per cell (support + 1).  ``side="upper"``:
    an exact dyadic >= the exact recursion on the computed inputs (capped at 1); ``"lower"``: one
    <= it (floored at 0).
    """
    n = int(levels) * (int(terms) + 1)
    if side == "upper":
        return min(Fraction(1), _dyadic((Fraction(raw) + n * TINY2) / (1 - n * U), "c"))
    if side == "lower":
        return _dyadic(max(Fraction(0), (Fraction(raw) - n * TINY2) * (1 - n * U)), "f")
    raise ValueError(f"side must be 'upper' or 'lower', found {side!r}")


@cites(W22, "Lemma 3 (randomized response RR_e: the loss moves +e, -e under P)")
def rr_law(e: Fraction, a: int, side: str = "upper") -> StepLaw:
    """RR_e as a :class:`StepLaw` on the grid g Z with e = a g: masses at -a and +a, rounded up (``side="upper"``).

    ``side="lower"`` rounds the two masses down (each double below its exact value), an exact
    sub-measure of the same pair (the losses are exact).
    """
    e = check("e", e, Domain.positive())
    if not isinstance(a, int) or a < 1:
        raise ValueError(f"a must be a positive integer, found {a!r}")
    pu, pd = rr_probs_up(e)
    if side == "lower":
        pu, pd = math.nextafter(math.nextafter(pu, 0), 0), math.nextafter(math.nextafter(pd, 0), 0)
    p = np.zeros(2 * a + 1)
    p[0], p[2 * a] = pd, pu
    return StepLaw(-a, p, 0.0, side)


def _fix(p: np.ndarray, up: bool) -> list:
    """Masses (doubles) as integers at the scale 2^-LAW_FIX, rounded up or down (ldexp, ceil and floor are exact)."""
    v = np.ldexp(p, LAW_FIX)
    v = np.ceil(v) if up else np.floor(v)
    return [int(x) for x in v]


def _unfix(c: list, up: bool) -> np.ndarray:
    """Integers at the scale 2^-LAW_FIX as doubles rounded up or down (exact int -> float check, then ldexp: exact)."""
    out = np.empty(len(c))
    for i, v in enumerate(c):
        f = float(v)
        if up and int(f) < v:
            f = math.nextafter(f, math.inf)
        elif not up and int(f) > v:
            f = math.nextafter(f, -math.inf)
        out[i] = f
    return np.ldexp(out, -LAW_FIX)


def _law_mul(A: tuple, B: tuple, up: bool, cut: int) -> tuple:
    """The convolution of two fixed-point laws ``(off, ints, inf)`` (exact FLINT product, one directed rounding), cut.

    Upper: the product's masses rounded up, the tail above the highest index whose tail mass
    exceeds ``cut`` moved to +inf, the tail below the lowest such index moved up onto it; inf =
    inf_A (total_B + inf_B) + total_A inf_B (exact; a composed step is +inf when either part is).
    Lower: rounded down, both tails (each at most ``cut``) dropped.
    """
    import flint

    (oa, a, ia), (ob, b, ib) = A, B
    c = [int(x) for x in (flint.fmpz_poly(a) * flint.fmpz_poly(b)).coeffs()]
    c += [0] * (len(a) + len(b) - 1 - len(c))          # fmpz_poly drops the zero coefficients at the top
    c = [-((-x) >> LAW_FIX) for x in c] if up else [x >> LAW_FIX for x in c]
    inf = Fraction(0)
    if up:
        ta, tb = Fraction(sum(a), 1 << LAW_FIX), Fraction(sum(b), 1 << LAW_FIX)
        inf = ia * (tb + ib) + ta * ib
    off = oa + ob
    top, s = len(c) - 1, 0
    while top > 0 and s + c[top] <= cut:
        s += c[top]
        top -= 1
    bot, s2 = 0, 0
    while bot < top and s2 + c[bot] <= cut:
        s2 += c[bot]
        bot += 1
    if up:
        inf += Fraction(s, 1 << LAW_FIX)
        c[bot] += s2
    return off + bot, c[bot: top + 1], inf


@cites(ZDW, "Theorem 10 (adaptive composition of dominating pairs: a block of m steps is dominated by the m-fold product)")
def law_power(L: StepLaw, m: int, cut=Fraction(0)) -> StepLaw:
    """The P-law of the loss of m steps of ``L``'s pair (the m-fold convolution), on the same grid and side (module docstring step 7).

    Contract: ``side="upper"``: a law whose game recursion dominates that of the m-fold product
    (masses rounded up in exact integer arithmetic at 2^-:data:`LAW_FIX`; after each product, tails
    of mass at most ``cut`` moved to +inf (above) or up onto the support (below)); ``"lower"``: a
    sub-measure on rounded-down losses (masses rounded down; tails of mass at most ``cut`` dropped).
    ``m = 1`` returns ``L`` itself.  Preconditions: m a positive integer, cut >= 0 (a rational; it
    only trades tightness for size).  Binary powering: at most 2 log2(m) products.
    """
    if not isinstance(m, (int, np.integer)) or isinstance(m, bool) or m < 1:
        raise ValueError(f"m must be a positive integer (steps per block), found {m!r}")
    cut = check("cut", cut, Domain.nonnegative())
    if m == 1:
        return L
    up = L.side == "upper"
    ci = math.floor(cut * (1 << LAW_FIX))
    base = (L.off, _fix(L.p, up), Fraction(L.inf))
    acc = None
    m = int(m)
    while m:
        if m & 1:
            acc = base if acc is None else _law_mul(acc, base, up, ci)
        m >>= 1
        if m:
            base = _law_mul(base, base, up, ci)
    off, c, inf = acc
    fin = float(inf)
    if up and Fraction(fin) < inf:
        fin = math.nextafter(fin, math.inf)
    return StepLaw(off, _unfix(c, up), fin if up else 0.0, L.side)


@cites(DGK, "Theorem 3.3 (splitting an atom of a pair between the two grid losses around it, keeping its P- and "
       "Q-masses, gives a pair that dominates it)")
def coarsen_law(L: StepLaw, h, k: int) -> StepLaw:
    """``L`` (on the grid h Z) moved onto the grid H Z, H = 2^k h, its side kept (module docstring step 7).

    Upper: every atom at loss l, between the coarse losses a H <= l < (a + 1) H, is split into
    masses at a H and (a + 1) H that keep its P-mass and its Q-mass (the pessimistic split of
    Doroshenko et al. 2022: the split pair dominates the pair), each mass rounded up (exact
    integers; the weights (1 - e^{-(l - a H)})/(1 - e^{-H}) and (e^{-(l - a H)} - e^{-H})/(1 - e^{-H})
    are interval upper ends), the +inf mass kept.  A pair's loss law stays one, so the result is as
    valid as ``L``, and the error of the move is second order in H, not first.  Lower: every loss
    rounded down to a H (a sub-measure on lower losses, step 5).  ``k = 0`` returns ``L``.
    Preconditions: h > 0 the grid of ``L`` (a rational), k an integer >= 0.
    """
    h = check("h", h, Domain.positive())
    if not isinstance(k, (int, np.integer)) or isinstance(k, bool) or k < 0:
        raise ValueError(f"k must be an integer >= 0 (extra bits of the finer grid), found {k!r}")
    if k == 0:
        return L
    K = 1 << int(k)
    up = L.side == "upper"
    idx = L.off + np.arange(len(L.p))
    a = np.floor_divide(idx, K)
    r = idx - a * K
    a0 = int(a[0])
    pi = _fix(L.p, up)
    acc = [0] * (int(a[-1]) - a0 + 2)
    if not up:
        for ai, v in zip(a.tolist(), pi):
            acc[ai - a0] += v
    else:
        whi, wlo = _split_weights(h, K)
        one = 1 << 64
        for ai, ri, v in zip(a.tolist(), r.tolist(), pi):
            if not v:
                continue
            if ri == 0:
                acc[ai - a0] += v
                continue
            acc[ai - a0 + 1] += -((-v * whi[ri]) // one)
            acc[ai - a0] += -((-v * wlo[ri]) // one)
    while len(acc) > 1 and acc[-1] == 0:
        acc.pop()
    return StepLaw(a0, _unfix(acc, up), L.inf if up else 0.0, L.side)


_SPLIT_CACHE: dict = {}


def _split_weights(h: Fraction, K: int) -> tuple[list, list]:
    """Upper ends, as integers at 2^-64, of (1 - e^{-r h})/(1 - e^{-K h}) and (e^{-r h} - e^{-K h})/(1 - e^{-K h}), r < K."""
    key = (h, K)
    hit = _SPLIT_CACHE.get(key)
    if hit is None:
        from mpmath import libmp

        from .game import _IV

        g = _IV.mpf(h.numerator) / h.denominator
        den = 1 - _IV.exp(-K * g)
        whi, wlo = [0] * K, [0] * K
        for r in range(1, K):
            e = _IV.exp(-r * g)
            for out, w in ((whi, (1 - e) / den), (wlo, (e - _IV.exp(-K * g)) / den)):
                num, den_ = libmp.to_rational(w._mpi_[1])          # the interval's upper end, exactly
                out[r] = -((-num * (1 << 64)) // den_)
        hit = _SPLIT_CACHE[key] = (whi, wlo)
    return hit


@dataclass
class PairGameTable:
    """The game values for every remaining budget R = 0..R_max, from loss 0, on one side (upper or lower)."""

    eps: Fraction
    h: Fraction
    costs: tuple
    R_max: int
    window: tuple
    raw: np.ndarray
    side: str
    terms: int          # the largest number of summed terms per cell (n + 1)
    least_cost: int
    seconds: float = 0.0

    def _D(self, R: int) -> int:
        return R // self.least_cost + 1

    def upper(self, R: int) -> Fraction:
        """Exact rational >= the grid recursion's value at budget R (hence >= G_R when the laws are upper laws)."""
        if self.side != "upper":
            raise ValueError("upper() needs a table computed on upper laws")
        return certified_end(float(self.raw[R]), self._D(R), self.terms, "upper")

    def lower(self, R: int) -> Fraction:
        """Exact rational <= the grid recursion's value at budget R (hence <= G_R when the laws are lower laws)."""
        if self.side != "lower":
            raise ValueError("lower() needs a table computed on lower laws")
        return certified_end(float(self.raw[R]), self._D(R), self.terms, "lower")

    def largest_budget(self, delta) -> int:
        """Largest R <= R_max with ``upper(R) <= delta`` (-1 if none); ``upper`` is nondecreasing in R."""
        return largest_within(self.upper, self.R_max, delta)


@cites(ZDW, "Definition 7 (dominating pairs)", "Theorem 10 (adaptive composition of dominating pairs)")
@cites(DRS, "Proposition 2.12 and Theorem 2.10 (f-DP, hockey-stick profiles and Blackwell's post-processing)")
@cites(W22, "Theorem 1 (filter semantics: a stopped adaptive interaction)")
def pair_game(eps, h, laws: Sequence[StepLaw], costs: Sequence[int], R_max: int, *, window,
              max_bytes: int = MAX_BYTES, progress: Optional[Callable[[int, int], None]] = None) -> PairGameTable:
    """Game values V(R, 0), R = 0..R_max, of the filter "admit item k while costs[k] <= R" on discrete step laws.

    Contract: ``laws[k]`` is item k's P-law of the loss on the grid ``h`` Z, all upper laws or all
    lower laws (:class:`StepLaw`); the returned table's :meth:`PairGameTable.upper` (upper laws)
    is >= the game value G_R of every menu whose items are dominated by the laws' pairs, and
    :meth:`PairGameTable.lower` (lower laws) is <= the value of an actual analyst (module
    docstring, steps 4-6).  ``window``: the loss indices kept at each remaining budget, either one
    pair ``(lo, hi)`` for every level or a function ``R -> (lo_R, hi_R)``; outside it the rows are
    closed as the module docstring says (valid on either side for any windows; only tightness
    depends on them: a level whose remaining budget cannot carry the loss from far below up to
    eps, or that the root cannot reach, needs only a narrow window).  V(R, 0) outside the level's
    window is read by the same closure.  Preconditions: eps >= 0 and h > 0 rationals; costs
    positive integers, one per law; R_max >= 0; lo_R <= hi_R.  Memory: a ring of (largest cost + 1)
    rows (float64); more than ``max_bytes`` is refused before anything is allocated.
    """
    eps = check("eps", eps, Domain.nonnegative())
    h = check("h", h, Domain.positive())
    if not laws or len(laws) != len(costs):
        raise ValueError(f"laws and costs must be non-empty and of equal length, found {len(laws)} and {len(costs)}")
    sides = {L.side for L in laws}
    if len(sides) != 1:
        raise ValueError(f"all laws must be of one side (upper or lower), found {sorted(sides)}")
    side = sides.pop()
    up = side == "upper"
    for i, c in enumerate(costs):
        if not isinstance(c, (int, np.integer)) or isinstance(c, bool) or c < 1:
            raise ValueError(f"costs[{i}] must be a positive integer, found {c!r}")
    if not isinstance(R_max, (int, np.integer)) or isinstance(R_max, bool) or R_max < 0:
        raise ValueError(f"R_max must be an integer >= 0, found {R_max!r}")
    if callable(window):
        win = window
    else:
        lo, hi = (int(x) for x in window)
        if not lo <= 0 <= hi:
            raise ValueError(f"window must satisfy lo <= 0 <= hi, found {window!r}")
        win = (lambda R, _w=(lo, hi): _w)
    t0 = time.perf_counter()
    costs = tuple(int(c) for c in costs)
    R_max = int(R_max)
    wins = [tuple(int(x) for x in win(R)) for R in range(R_max + 1)]
    for R, (a, b) in enumerate(wins):
        if a > b:
            raise ValueError(f"window({R}) must satisfy lo <= hi, found {(a, b)}")
    g_lo = min(a for a, _ in wins) + min(0, min(L.off for L in laws))
    g_hi = max(b for _, b in wins) + max(0, max(L.top for L in laws))
    W_max = max(b - a + 1 for a, b in wins)
    ring = max(costs) + 1
    S_max = max(len(L.p) for L in laws)
    nbytes = (ring + 4) * (W_max + S_max) * 8 + 2 * (g_hi - g_lo + 1) * 8
    if nbytes > max_bytes:
        raise GameMemoryError(f"the game needs {nbytes} bytes (window up to {W_max} cells, largest cost {max(costs)}), more "
                              f"than max_bytes = {max_bytes}: use a coarser grid, a narrower window or smaller costs")
    # the payoff on every cell a level or a read can touch; for the lower side it also closes a row above its window
    pay = payoff_up(eps, h, g_lo, g_hi - g_lo + 1) if up else payoff_down(eps, h, g_lo, g_hi - g_lo + 1)
    rows: list = [None] * ring      # ring of (lo, values) per remaining budget
    order = sorted(range(len(laws)), key=lambda k: costs[k])
    raw = np.empty(R_max + 1)
    terms = max(int(np.count_nonzero(L.p)) for L in laws) + 1

    def read(rec, a: int, n: int) -> np.ndarray:
        """The row ``rec`` on the cells a..a+n-1, closed outside its window (module docstring, steps 4-5)."""
        lo_c, vals = rec
        hi_c = lo_c + len(vals) - 1
        out = np.empty(n)
        i1 = min(max(lo_c - a, 0), n)           # cells below the row's window
        i2 = min(max(hi_c + 1 - a, 0), n)       # first cell above it
        out[:i1] = vals[0] if up else 0.0       # upper: read at lo (V nondecreasing); lower: 0 <= V
        if i2 > i1:
            out[i1:i2] = vals[a + i1 - lo_c: a + i2 - lo_c]
        if n > i2:
            out[i2:] = 1.0 if up else pay[a + i2 - g_lo: a + n - g_lo]   # upper: V <= 1; lower: V >= payoff
        return out

    for R in range(R_max + 1):
        lo, hi = wins[R]
        W = hi - lo + 1
        new = pay[lo - g_lo: hi + 1 - g_lo].copy()
        for k in order:
            c = costs[k]
            if c > R:
                break
            L = laws[k]
            ext = read(rows[(R - c) % ring], lo + L.off, W + len(L.p) - 1)
            # cand[i] = sum_j p[j] ext[i + j]: a correlation (nonnegative terms; any summation order is covered)
            cand = _correlate(ext, L, W, up)
            np.maximum(new, cand, out=new)
        rows[R % ring] = (lo, new)
        raw[R] = read((lo, new), 0, 1)[0]
        if progress is not None and (R % 1024 == 0 or R == R_max):
            progress(R, R_max)
    return PairGameTable(eps, h, costs, R_max, (min(a for a, _ in wins), max(b for _, b in wins)), raw, side, terms,
                         min(costs), time.perf_counter() - t0)
