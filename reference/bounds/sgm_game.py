"""Fully adaptive DP-SGD: the exact game for menus of Poisson-subsampled Gaussian steps, certified.

An item is a subsampled Gaussian step (sampling rate q, noise multiplier sigma, sensitivity scale
s <= 1: the clipped gradients' norm bound relative to the clipping norm), with an integer cost.
Zhu, Dong, Wang 2022 (Proposition 30 / Theorem 10) give its tight dominating pairs under add/remove
adjacency: P = (1 - q) N(0, sigma'^2) + q N(1, sigma'^2) against Q = N(0, sigma'^2) ("remove") and
the reversed pair (Q, P) ("add"), sigma' = sigma / s.  For one pair of neighbouring data sets the
direction is the same at every step, so a filter is (eps, delta)-DP iff the game of
:mod:`reference.bounds.pair_game` on the remove pairs and the game on the add pairs both stay at
or below delta; the budget is the smaller of the two games' budgets.

Discretisation on the grid h = 2^-bits (the losses l(x) = log(1 - q + q e^{(2x - 1)/(2 sigma'^2)}),
increasing in x; buckets B_a = {x : l(x) in [a h, (a + 1) h]}, a bucketing being a post-processing):

* upper laws: the pessimistic split of Doroshenko et al. 2022 (Thm 3.3), each bucket's P-mass
  split into atoms at a h and (a + 1) h with the bucket's likelihood ratio kept on average --
  the split pair dominates the pair (merging is a post-processing); the reversed pair's law is
  the split's Q-masses at the negated losses.  Masses are upper ends of Arb balls rounded up to
  doubles; the P- and Q-tails above the top bucket (below ``eta`` each) go to +infinity.
* lower laws: each bucket as one atom at its loss rounded down, a h <= l_B = log(P(B_a)/Q(B_a)),
  with its P-mass P(B_a) (remove) and, for the reversed pair, at -(a + 1) h <= -l_B with its
  Q-mass Q(B_a); lower ends of Arb balls rounded down; tails dropped.  Masses no larger than the
  bucketed pair's and losses no larger than its losses are what step 5 of
  :mod:`reference.bounds.pair_game` needs.  This end converges at first order in h (the losses
  are rounded down by up to h per step).

Both are rigorous for every grid; the grid and the window only change how tight the bracket is.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache
from typing import Optional, Sequence

import mpmath
import numpy as np

from ..catalog import Param, cites, register
from ..precision import Domain, _describe, check
from .game import MAX_BYTES
from .pair_game import PairGameTable, StepLaw, coarsen_law, law_power, pair_game

__all__ = ["SGMItem", "parse_menu", "charged_index", "sgm_law", "SGMGameCertificate", "sgm_game_budget", "default_costs",
           "sgm_single_item_rounds", "sgm_menu_certificate", "dpsgd_game_filter_budget", "MAX_STEP_CELLS", "sgm_block_law",
           "block_lengths", "dpsgd_block_filter_steps", "fine_bits"]

ZDW, DGK = "zhu2022", "doroshenko2022"
MAX_STEP_CELLS = 1 << 20


@dataclass(frozen=True)
class SGMItem:
    """A menu item: one Poisson-subsampled Gaussian step (q, sigma, sensitivity scale), exact rationals."""

    q: Fraction
    sigma: Fraction
    scale: Fraction = Fraction(1)

    def __post_init__(self):
        object.__setattr__(self, "q", check("q", self.q, Domain.positive()))
        if self.q > 1:
            raise ValueError(f"q must lie in (0, 1], found {self.q}")
        object.__setattr__(self, "sigma", check("sigma", self.sigma, Domain.positive()))
        object.__setattr__(self, "scale", check("scale", self.scale, Domain.positive()))
        if self.scale > 1:
            raise ValueError(f"scale must lie in (0, 1] (gradients clipped to the clipping norm), found {self.scale}")

    @property
    def sigma_eff(self) -> Fraction:
        return self.sigma / self.scale

    def dominates(self, q, sigma, scale=1) -> bool:
        """Whether a step (q, sigma, scale) is dominated by this item: q <= self.q, sigma/scale >= self.sigma_eff."""
        q, sigma, scale = Fraction(q), Fraction(sigma), Fraction(scale)
        return q <= self.q and sigma / scale >= self.sigma_eff

    def __str__(self) -> str:
        s = f"subsampled-gaussian:q={self.q},sigma={self.sigma}"
        return s + (f",scale={self.scale}" if self.scale != 1 else "")


_SPEC = re.compile(r"\s*(?:subsampled-gaussian|sgm)\s*:(.*)", re.IGNORECASE)
_KEYS = ("q", "sigma", "scale")
_U1 = Domain.half_open_unit()
_P = Domain.positive()
_COST = Domain.integers_from(1)


def _item(x, where: str) -> SGMItem:
    """One menu item from an :class:`SGMItem`, a spec string or a dict; ``ValueError`` naming ``where`` and the parameter."""
    if isinstance(x, SGMItem):
        return x
    if isinstance(x, str):
        m = _SPEC.fullmatch(x)
        if not m:
            raise ValueError(f"{where} must be a spec like 'subsampled-gaussian:q=0.01,sigma=1.1[,scale=0.5]', found {x!r}")
        d = {}
        for tok in m.group(1).split(","):
            k, eq, v = tok.partition("=")
            k = k.strip().lower()
            if not eq or k not in _KEYS or k in d:
                raise ValueError(f"{where}: each parameter must be one of q=, sigma=, scale= (each once), found {tok.strip()!r} "
                                 f"in {x!r}")
            d[k] = v.strip()
    elif isinstance(x, dict):
        d = dict(x)
    else:
        raise ValueError(f"{where} must be an SGMItem, a spec string or a dict {{q, sigma, scale}}, found "
                         f"{type(x).__name__} {_describe(x)}")
    if not set(d) <= set(_KEYS) or not {"q", "sigma"} <= set(d):
        raise ValueError(f"{where} must give q and sigma (and optionally scale), found the keys {sorted(map(str, d))}")
    q = check(f"{where}.q", d["q"], _U1)
    sigma = check(f"{where}.sigma", d["sigma"], _P)
    scale = check(f"{where}.scale", d.get("scale", 1), _U1)
    return SGMItem(q, sigma, scale)


def _menu(menu) -> tuple[SGMItem, ...]:
    if isinstance(menu, (str, dict, SGMItem)) or not hasattr(menu, "__iter__"):
        raise ValueError(f"menu must be a non-empty list of items, found {type(menu).__name__} {_describe(menu)}")
    items = tuple(_item(x, f"menu[{i}]") for i, x in enumerate(menu))
    if not items:
        raise ValueError("menu must be a non-empty list of items, found an empty one")
    return items


@cites(ZDW, "Proposition 30 (the Poisson-subsampled Gaussian steps a DP-SGD menu lists)")
def parse_menu(spec) -> tuple[SGMItem, ...]:
    """A menu from a spec string (items joined by ``;``, each ``subsampled-gaussian:q=Q,sigma=S[,scale=C]``) or a list.

    Contract: the items in the order given, exact rationals; ``ValueError`` with a one-line reason
    naming the item (``menu[i]``), the parameter, its domain and the value found.
    """
    if isinstance(spec, str):
        parts = [x.strip() for x in spec.split(";")]
        if not spec.strip() or any(not x for x in parts):
            raise ValueError(f"menu must be items joined by ';' (e.g. 'subsampled-gaussian:q=0.1,sigma=0.5;"
                             f"subsampled-gaussian:q=0.1,sigma=0.625'), found an empty item in {spec!r}")
        return _menu(parts)
    return _menu(spec)


@cites(ZDW, "Proposition 30 / Theorem 10 (a step with q <= q_k and sigma/scale >= sigma_k/scale_k is dominated by "
       "item k's pair)")
def charged_index(menu, costs, q, sigma, scale=1, blocks=None):
    """The index of the menu item a step (q, sigma, scale) is charged at, or ``None`` when no item dominates it.

    Contract: the cheapest item that dominates the step (:meth:`reference.bounds.sgm_game.SGMItem.dominates`;
    the first such item on a tie) -- the rule of :class:`reference.accountants.dpsgd_game.DPSGDGameFilter`, which charges with it.
    Preconditions: ``menu`` a sequence of :class:`SGMItem`, ``costs`` one positive integer per item,
    the step's parameters exact (rounding: the caller passes q and scale at their upper ends and
    sigma at its lower end, so that the item found dominates the true step).  ``blocks`` (steps per
    block of each item, or None): the cheapest per step, c_k / m_k, that dominates the step.
    """
    best = None
    per = [Fraction(c) for c in costs] if blocks is None else [Fraction(c, m) for c, m in zip(costs, blocks)]
    for k, it in enumerate(menu):
        if it.dominates(q, sigma, scale) and (best is None or per[k] < per[best]):
            best = k
    return best


def _per_item(values, n: int, name: str, what: str = "") -> tuple[int, ...] | None:
    """``values`` as a tuple of positive ints, one per menu item (``None`` stays ``None``); ``ValueError`` names a bad entry."""
    if values is None:
        return None
    if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
        raise ValueError(f"{name} must be None or a list of positive integers{what}, found {_describe(values)}")
    out = tuple(int(check(f"{name}[{i}]", c, _COST)) for i, c in enumerate(values))
    if len(out) != n:
        raise ValueError(f"{name} must have one entry per menu item ({n}), found {len(out)}")
    return out


def _costs(costs, n: int) -> tuple[int, ...] | None:
    return _per_item(costs, n, "costs")


def _float_up(x: Fraction) -> float:
    f = float(x)
    return math.nextafter(f, math.inf) if Fraction(f) < x else f


def _float_down(x: Fraction) -> float:
    f = float(x)
    return math.nextafter(f, -math.inf) if Fraction(f) > x else f


def _x_top(q: float, s: float, eta: float) -> float:
    """A point beyond which both Gaussian tails (P's and Q's) are below eta (deterministic 53-bit mpmath; a choice)."""
    c = mpmath.MPContext()
    c.prec = 53
    lo, hi = 0.0, 60.0
    for _ in range(80):  # smallest z with Phi^c(z) <= eta, by bisection
        mid = (lo + hi) / 2
        if float(c.erfc(mid / c.sqrt(2)) / 2) <= eta:
            hi = mid
        else:
            lo = mid
    return 1.0 + s * hi


@cites(ZDW, "Proposition 30 / Theorem 10 (tight dominating pairs of the Poisson-subsampled Gaussian, add/remove)")
@cites(DGK, "Theorem 3.3 (the pessimistic split discretisation dominates the pair)")
@lru_cache(maxsize=128)
def sgm_law(q: Fraction, sigma_eff: Fraction, bits: int, eta: Fraction, direction: str, side: str) -> StepLaw:
    """One item's P-law of the loss on the grid 2^-bits, for the game of :mod:`reference.bounds.pair_game`.

    Contract: ``direction`` ``"remove"`` (pair (P, Q)) or ``"add"`` (pair (Q, P)); ``side``
    ``"upper"`` returns a law whose game recursion dominates the pair's (module docstring), ``"lower"``
    a sub-measure whose recursion is below the value of an actual analyst on a bucketing of the
    pair.  Preconditions: 0 < q <= 1, sigma_eff > 0, 1 <= bits <= 30, 0 < eta < 1 (the tail cut
    per step: at most eta of P- and of Q-mass lies above the top bucket).  Rounding: masses are
    Arb ball ends rounded up (upper) or down (lower) to doubles.
    """
    import flint

    q = check("q", q, Domain.positive())
    if q > 1:
        raise ValueError(f"q must lie in (0, 1], found {q}")
    s = check("sigma_eff", sigma_eff, Domain.positive())
    if not isinstance(bits, int) or not 1 <= bits <= 30:
        raise ValueError(f"bits must be an integer in [1, 30], found {bits!r}")
    eta = check("eta", eta, Domain.open_unit())
    if direction not in ("remove", "add") or side not in ("upper", "lower"):
        raise ValueError(f"direction must be 'remove' or 'add' and side 'upper' or 'lower', found {direction!r}, {side!r}")
    qf, sf = float(q), float(s)
    h = 2.0 ** -bits
    c53 = mpmath.MPContext()
    c53.prec = 53
    x_top = _x_top(qf, sf, float(eta))
    ltop = float(c53.log(1 - qf + qf * c53.exp((2 * x_top - 1) / (2 * sf * sf))))
    jt = math.ceil(ltop / h) + 1
    if q < 1:
        j0 = math.floor(float(c53.log1p(-qf)) / h)
    else:
        x_bot = -_x_top(qf, sf, float(eta)) + 1.0     # below it, both tails are under eta too
        j0 = math.floor((2 * x_bot - 1) / (2 * sf * sf) / h) - 1
    if jt <= j0:
        jt = j0 + 1
    nb = jt - j0
    if nb > MAX_STEP_CELLS:
        raise ValueError(f"one step of q = {q}, sigma = {s} needs {nb} grid cells at 2^-{bits} (more than "
                         f"MAX_STEP_CELLS = {MAX_STEP_CELLS}): use a coarser grid")
    prec = 64 + bits + max(0, -math.floor(math.log2(qf))) + nb.bit_length() + 40
    old = flint.ctx.prec
    flint.ctx.prec = prec
    try:
        arb = flint.arb
        qa = arb(flint.fmpq(q.numerator, q.denominator))
        sa = arb(flint.fmpq(s.numerator, s.denominator))
        one_q = 1 - qa
        hh = arb(1) / (1 << bits)
        if q < 1:   # the largest grid index at or below the infimum log(1 - q) of the loss, decided in Arb
            while (arb(j0 + 1) * hh).exp() < one_q:
                j0 += 1
            while not ((arb(j0) * hh).exp() <= one_q):
                j0 -= 1
            nb = jt - j0
        r2 = arb(2).sqrt()
        c1, c0, cs = sa / r2, 1 / (2 * sa * r2), 1 / (sa * r2)

        def tails(j):
            """(P(x > x(j h)), Q(x > x(j h))) as Arb balls."""
            if q < 1 and j == j0:
                return arb(1), arb(1)
            if q < 1:
                w = c1 * (((arb(j) * hh).exp() - one_q) / qa).log() + c0
            else:
                w = (sa * arb(j) * hh) / r2 + c0
            Sq = w.erfc() / 2
            Sp = (w - cs).erfc() / 2
            return (one_q * Sq + qa * Sp, Sq) if q < 1 else (Sp, Sq)

        up = side == "upper"
        acc = [Fraction(0)] * (nb + 1)   # exact sums of ball ends; index i: loss (j0 + i) h (remove), -(j0 + i) h (add)
        prev = tails(j0)
        bottom = prev
        for i in range(nb):
            a = j0 + i
            cur = tails(a + 1)
            PB, QB = prev[0] - cur[0], prev[1] - cur[1]
            ea, eb = (-(arb(a) * hh)).exp(), (-(arb(a + 1) * hh)).exp()
            if up:
                p_hi = (ea * PB - QB) / (ea - eb)      # the split's atom at (a + 1) h
                p_lo = PB - p_hi                       # at a h
                if direction == "remove":
                    acc[i] += _ub(p_lo)
                    acc[i + 1] += _ub(p_hi)
                else:  # the reversed pair's law: the split's Q-masses P' e^{-l} at the negated losses
                    acc[i] += _ub(p_lo * ea)
                    acc[i + 1] += _ub(p_hi * eb)
            else:
                if direction == "remove":
                    acc[i] += _lb(PB)           # the bucket's P-mass at its loss rounded down, a h <= l_B
                else:
                    acc[i + 1] += _lb(QB)       # the reversed pair: Q-mass at -(a + 1) h <= -l_B
            prev = cur
        inf = 0.0
        if up:
            UP, UQ = prev           # the tails above the top bucket (unknown places: payoff 1)
            tail = UP if direction == "remove" else UQ
            if q == 1:              # and, for q = 1, the tails below the bottom one
                tail = tail + (1 - (bottom[0] if direction == "remove" else bottom[1]))
            inf = _float_up(_ub(tail))
        rnd = _float_up if up else _float_down      # each cell's exact sum rounded once, in the side's direction
        out = np.array([rnd(x) for x in acc])
        if up and not out.any():
            raise ArithmeticError("an empty upper law (internal)")
    finally:
        flint.ctx.prec = old
    if direction == "remove":
        return StepLaw(j0, out, inf, side)
    return StepLaw(-(j0 + nb), out[::-1].copy(), inf, side)


def _ub(a) -> Fraction:
    """The upper end of an Arb ball as an exact rational (>= 0)."""
    m, e = a.upper().mid().man_exp()
    m, e = int(m), int(e)
    v = Fraction(m << e) if e >= 0 else Fraction(m, 1 << -e)
    return max(v, Fraction(0))


def _lb(a) -> Fraction:
    """The lower end of an Arb ball as an exact rational, clipped at 0."""
    m, e = a.lower().mid().man_exp()
    m, e = int(m), int(e)
    v = Fraction(m << e) if e >= 0 else Fraction(m, 1 << -e)
    return max(v, Fraction(0))


@cites(ZDW, "Proposition 30 / Theorem 10 (a block of m steps of an item is dominated by the m-fold product of its pair)")
@lru_cache(maxsize=64)
def sgm_block_law(q: Fraction, sigma_eff: Fraction, m: int, bits: int, eta: Fraction, cut: Fraction, direction: str,
                  side: str, fine: int = 0) -> StepLaw:
    """The P-law of the loss of a block of ``m`` steps of one item: :func:`reference.bounds.pair_game.law_power` of :func:`sgm_law`.

    Contract: as :func:`sgm_law` for the m-fold product pair (``pair_game`` docstring step 7);
    ``cut`` is the tail mass moved (upper) or dropped (lower) after each of the at most 2 log2(m)
    products.  ``fine`` > 0: the step's law and the block's product are computed on the grid
    2^-(bits + fine) and the block moved onto 2^-bits by :func:`reference.bounds.pair_game.coarsen_law`
    (a split that keeps each atom's P- and Q-mass): a step much narrower than the game's grid is
    resolved where it is composed.  ``m = 1`` and ``fine = 0`` is :func:`sgm_law` itself.
    """
    if not isinstance(fine, int) or isinstance(fine, bool) or not 0 <= fine <= 12 or bits + fine > 30:
        raise ValueError(f"fine must be an integer in [0, 12] with bits + fine <= 30, found fine = {fine!r}, bits = {bits}")
    P = law_power(sgm_law(q, sigma_eff, bits + fine, eta, direction, side), m, cut)
    return coarsen_law(P, Fraction(1, 1 << (bits + fine)), fine)


@cites(ZDW, "Proposition 30 (the loss of a subsampled-Gaussian step: its spread sets the grid it needs)")
def fine_bits(items: Sequence[SGMItem], bits: int) -> int:
    """Extra bits for the steps' laws of a block game on the grid 2^-bits (a tuning choice; validity never depends on it).

    The smallest k in [0, 8] with 2^-(bits + k) <= s / 8 for every item, s = q sqrt(e^{1/sigma'^2} - 1)
    (the standard deviation of one step's loss, in floats): each step's law then spans at least
    about 8 cells where it is composed.
    """
    k = 0
    for it in items:
        s = float(it.q) * math.sqrt(math.expm1(min(700.0, 1.0 / float(it.sigma_eff) ** 2)))
        if s > 0:
            k = max(k, math.ceil(math.log2(8.0 / (s * (1 << bits)))))
    return max(0, min(8, k, 30 - bits))


@dataclass
class SGMGameCertificate:
    """The certified budget B* of a DP-SGD menu: costs, the budget, the bracket at B* and B* + 1, per-item counts."""

    eps: Fraction
    delta: Fraction
    items: tuple
    costs: tuple
    bits: int
    budget: int
    upper_at_budget: Fraction
    lower_above: Optional[Fraction]
    decided: bool
    window: tuple
    seconds: float = 0.0
    extra: dict = field(default_factory=dict)
    blocks: tuple = ()      # steps per block of each item (empty: one step per charge)

    def rounds(self, i: int) -> int:
        """Steps of item i a homogeneous run gets under the budget: floor(B* / c_i) blocks of m_i steps."""
        return (self.budget // self.costs[i]) * (self.blocks[i] if self.blocks else 1)

    def as_dict(self) -> dict:
        """The certificate as JSON-ready values (exact rationals as strings)."""
        return {"eps": str(self.eps), "delta": str(self.delta), "items": [str(x) for x in self.items],
                "costs": list(self.costs), "bits": self.bits, "budget": self.budget,
                "game_value_at_budget_upper": str(self.upper_at_budget),
                "game_value_above_budget_lower": None if self.lower_above is None else str(self.lower_above),
                "decided": self.decided, "window": list(self.window), "seconds": round(self.seconds, 3),
                **({"blocks": list(self.blocks)} if self.blocks else {})}


def _window(laws, costs, R_max: int, eps: Fraction, h: Fraction, z: float = 8.0, top: float = 8.0):
    """Level windows for tightness (a choice: the game is valid for any windows), R -> (lo_R, hi_R).

    With m and v the largest |mean| and variance of a law's loss per unit of cost and J the largest
    single move, the loss moves by at most reach(n) = n m + z sqrt(n v) + J + 1 over n units, except
    with a small probability (the laws are heavy-tailed on the right, hence J): at remaining budget
    R the row is kept from the higher of eps - reach(R) (below it eps is out of reach, so the value
    read there, V at the window's bottom, is tiny) and -reach(R_max - R) (the root cannot have
    fallen further), up to eps + ``top`` (above it V is within e^-top of 1).  The top is never cut lower:
    a row read as 1 just above a low cut would make V at the bottom, and so every cell read there,
    large.
    """
    m = v = jump = 0.0
    hf = float(h)
    for L, c in zip(laws, costs):
        x = (np.arange(len(L.p)) + L.off) * hf
        tot = float(L.p.sum()) or 1.0
        mu = float((L.p * x).sum()) / tot
        var = float((L.p * (x - mu) ** 2).sum()) / tot
        m, v = max(m, abs(mu) / c), max(v, var / c)
        jump = max(jump, abs(L.off) * hf, abs(L.top) * hf)
    e = float(eps)

    def reach(n: int) -> float:
        return n * m + z * math.sqrt(n * v) + jump + 1.0

    hi = math.ceil((e + top) / hf)

    def win(R: int) -> tuple[int, int]:
        return math.floor(max(e - reach(R), -reach(R_max - R)) / hf), hi

    return win


def _fixed_window(laws, costs, R_max: int, eps: Fraction, h: Fraction) -> tuple[int, int]:
    """One window for every level: the widest of :func:`_window`'s (for engines whose states are not budget levels)."""
    win = _window(laws, costs, R_max, eps, h)
    ws = [win(R) for R in range(R_max + 1)]
    return min(a for a, _ in ws), max(b for _, b in ws)


@cites(ZDW, "Proposition 30 / Theorem 10")
def sgm_game_budget(eps, delta, items: Sequence[SGMItem], costs: Sequence[int], *, bits: int = 8,
                    R_max: Optional[int] = None, window: Optional[tuple] = None, lower: bool = True,
                    eta: Optional[Fraction] = None, max_bytes: int = MAX_BYTES,
                    blocks: Optional[Sequence[int]] = None, fine: int = 0) -> SGMGameCertificate:
    """The largest budget B* of the filter "admit item k while costs[k] <= R" whose game value is <= delta in both directions.

    Contract: every fully adaptive analyst choosing, from the transcript, steps each dominated by a
    menu item (q <= q_k, sigma/scale >= sigma_k/scale_k) and stopping at will, against the filter
    with budget B*, produces an (eps, delta)-DP transcript (module docstring and
    :mod:`reference.bounds.pair_game`); ``decided`` is True when the lower end at B* + 1 exceeds
    delta (an actual analyst breaks B* + 1).  ``R_max`` (required) bounds the search: B* = R_max means
    "at least R_max" (safe, perhaps not the largest); :func:`sgm_menu_certificate` passes
    min_k c_k (k0_k + 1), which no menu containing item k can reach.
    Preconditions: eps > 0; 0 < delta < 1; items non-empty; costs positive integers.
    Rounding: the budget is certified (upper ends); the lower end is rounded down.
    Memory: each game's rows over ``max_bytes`` are refused before they are allocated
    (:class:`reference.bounds.game.GameMemoryError`, from :func:`reference.bounds.pair_game.pair_game`).
    ``blocks``: None (each step charged) or one positive integer m_k per item: the filter charges
    c_k per block of m_k steps (``pair_game`` docstring step 7), the game runs on the blocks' laws
    (:func:`sgm_block_law`, its steps on the grid 2^-(bits + ``fine``)) and the budget counts blocks' costs.
    """
    import time

    eps = check("eps", eps, Domain.positive())
    delta = check("delta", delta, Domain.open_unit())
    items = tuple(items)
    if not items or len(items) != len(costs):
        raise ValueError(f"items and costs must be non-empty and of equal length, found {len(items)} and {len(costs)}")
    if R_max is None:
        raise ValueError("R_max must be given (an integer >= 0): the largest budget searched")
    ms = _blocks(blocks, len(items))
    t0 = time.perf_counter()
    h = Fraction(1, 1 << bits)
    D = R_max // min(costs) + 1
    m_max = max(ms) if ms else 1
    # the tails sent to +inf add at most D m_max eta (steps) and D (2 log2 m_max + 1) cut (block products) to the
    # value: 2^-24 delta per step, and with blocks (few levels, fine grids) 2^-12 delta in all for each
    share = Fraction(1, 1 << 24) if not ms else Fraction(1, 1 << 12)
    eta = Fraction(delta) * share / D / m_max if eta is None else Fraction(eta)
    cut = Fraction(delta) * share / D / (2 * m_max.bit_length() + 1)
    top = 8.0 if not ms else 4.0       # the window's top above eps (a tightness choice, :func:`_window`)

    def law(it, i, direction, side):
        if not ms or (ms[i] == 1 and not fine):
            return sgm_law(it.q, it.sigma_eff, bits, eta, direction, side)
        return sgm_block_law(it.q, it.sigma_eff, ms[i], bits, eta, cut, direction, side, fine)

    best, up_at, lo_above = None, None, None
    tables = {}
    for direction in ("remove", "add"):
        laws = [law(it, i, direction, "upper") for i, it in enumerate(items)]
        w = window or _window(laws, costs, R_max, eps, h, top=top)
        t = pair_game(eps, h, laws, costs, R_max, window=w, max_bytes=max_bytes)
        tables[direction] = t
        b = t.largest_budget(delta)
        if best is None or b < best:
            best = b
    up_at = max(tables[d].upper(best) for d in tables) if best >= 0 else None
    decided = False
    if lower and 0 <= best < R_max:
        vals = []
        for direction in ("remove", "add"):
            laws = [law(it, i, direction, "lower") for i, it in enumerate(items)]
            w = window or _window(laws, costs, best + 1, eps, h, top=top)
            t = pair_game(eps, h, laws, costs, best + 1, window=w, max_bytes=max_bytes)
            vals.append(t.lower(best + 1))
        lo_above = max(vals)
        decided = lo_above > delta
    wins = {d: tables[d].window for d in tables}
    return SGMGameCertificate(eps, delta, items, tuple(costs), bits, best, up_at, lo_above, decided, wins["remove"],
                              time.perf_counter() - t0, {"eta": str(eta), "windows": wins, "fine": fine}, ms or ())


def _blocks(blocks, n: int) -> tuple[int, ...] | None:
    """``blocks`` as a tuple of positive ints, one per item (``None`` stays ``None``); ``ValueError`` names a bad entry."""
    return _per_item(blocks, n, "blocks", " (steps per block)")


@cites("whitehouse2022", "Theorem 1 (filter semantics: the budget game certifies any integer costs; their choice is a design of this project, derived)")
def default_costs(k0: Sequence[int], max_units: int = 64, tol: float = 0.02) -> tuple[int, ...]:
    """Integer costs proportional to 1/k0_i: the smallest resolution u (units per step of the item with the largest k0)
    whose rounded costs round(u k0_max / k0_i) are within ``tol`` (relative) of the ideal ones, at most ``max_units``.

    A homogeneous run of item i then gets about B*/c_i steps, and the ratios between items follow
    their own optima; the choice affects only how the budget is shared, never validity.
    """
    k0 = [int(x) for x in k0]
    if not k0 or min(k0) < 1:
        raise ValueError(f"k0 must be positive step counts, found {k0}")
    km = max(k0)
    best = None
    for u in range(1, max_units + 1):
        cs = [max(1, round(u * km / k)) for k in k0]
        err = max(abs(c - u * km / k) / (u * km / k) for c, k in zip(cs, k0))
        if best is None or err < best[0] - 1e-12:
            best = (err, tuple(cs))
        if err <= tol:
            return tuple(cs)
    return best[1]


@cites(ZDW, "Proposition 30 / Theorem 10")
def sgm_single_item_rounds(eps, delta, item: SGMItem, *, bits: int = 8, start: int = 64,
                           max_bytes: int = MAX_BYTES, block: int = 1, fine: int = 0) -> int:
    """k0: the largest number of steps (of blocks of ``block`` steps) of one item whose game value is certified <= delta.

    With one item, adaptivity is only the choice of when to stop, and continuing never lowers the
    payoff, so this is the non-adaptive count at this grid (the upper end of the homogeneous
    composition), in both directions.  Found by doubling the horizon from ``start`` until the budget
    is below it.  ``block`` > 1 (or ``fine`` > 0) counts blocks (:func:`sgm_block_law`): k0 blocks are k0 * block steps.
    """
    R = int(start)
    blocks = None if block == 1 and not fine else [int(check("block", block, _COST))]
    while True:
        c = sgm_game_budget(eps, delta, [item], [1], bits=bits, R_max=R, lower=False, max_bytes=max_bytes, blocks=blocks,
                            fine=fine)
        if c.budget < R:
            return c.budget
        if R > 1 << 26:
            raise ValueError(f"more than 2^26 steps of {item} fit (eps, delta) = ({eps}, {delta}): not searched")
        R *= 2


@cites("whitehouse2022", "Theorem 1 (filter semantics: any block lengths and costs; their choice is a design of this "
       "project, derived)")
def block_lengths(counts: Sequence[int], block: int) -> tuple[int, ...]:
    """Steps per block of each item, from each item's own count ``counts[i]`` in blocks of ``block`` steps.

    m_i = max(1, floor(block * counts[i] / min(counts))): the item with the fewest blocks gets
    ``block`` steps per block and every item's own optimum is about the same number of blocks, so
    one unit per block charges each item in proportion to its own optimum without the rounding of
    integer costs (:func:`default_costs`).  A choice: validity never depends on it.
    """
    block = int(check("block", block, _COST))
    counts = [int(x) for x in counts]
    if not counts or min(counts) < 1:
        raise ValueError(f"counts must be positive block counts (a block of {block} steps must fit every item), "
                         f"found {counts}: use a shorter block")
    n = min(counts)
    return tuple(max(1, block * c // n) for c in counts)


@cites(ZDW, "Proposition 30 / Theorem 10")
def sgm_menu_certificate(eps, delta, items: Sequence[SGMItem], *, bits: int = 8, costs: Optional[Sequence[int]] = None,
                         lower: bool = True, max_bytes: int = MAX_BYTES, block: Optional[int] = None,
                         fine: Optional[int] = None) -> SGMGameCertificate:
    """A menu's certificate with costs chosen from each item's own optimum (:func:`default_costs`), or the costs given.

    Contract: as :func:`sgm_game_budget`; ``extra["k0"]`` holds each item's single-item count k0_i at
    this grid (in steps) and ``extra["share"]`` the fraction of it a homogeneous run of item i keeps.
    ``max_bytes`` caps every game's rows (:func:`sgm_game_budget`).  ``block`` (an integer >= 1, or
    None: per-step charges): the block filter of ``pair_game`` docstring step 7 -- each item's own
    count in blocks of ``block`` steps gives its block length (:func:`block_lengths`), every block
    costs ``costs[i]`` (default 1), and a step switches items only by opening a block; the steps'
    laws are composed ``fine`` bits finer than the game's grid (default :func:`fine_bits`).
    """
    items = tuple(items)
    if block is not None:
        block = int(check("block", block, _COST))
        fine = fine_bits(items, bits) if fine is None else fine
        n = [sgm_single_item_rounds(eps, delta, it, bits=bits, max_bytes=max_bytes, block=block, fine=fine)
             for it in items]
        ms = block_lengths(n, block)
        k0 = [x * block for x in n]
        costs = tuple(1 for _ in items) if costs is None else tuple(costs)
        # item i alone cannot run (n_i + 1) * block steps: its blocks of m_i steps are fewer than this
        R_max = min(c * (((x + 1) * block - 1) // m + 1) for x, m, c in zip(n, ms, costs))
        cert = sgm_game_budget(eps, delta, items, costs, bits=bits, R_max=R_max, lower=lower, max_bytes=max_bytes,
                               blocks=ms, fine=fine)
    else:
        k0 = [sgm_single_item_rounds(eps, delta, it, bits=bits, max_bytes=max_bytes) for it in items]
        if costs is None:
            costs = default_costs([max(1, k) for k in k0])
        R_max = min((k + 1) * c for k, c in zip(k0, costs))
        cert = sgm_game_budget(eps, delta, items, costs, bits=bits, R_max=R_max, lower=lower, max_bytes=max_bytes)
    cert.extra["k0"] = k0
    cert.extra["share"] = [cert.rounds(i) / k if k else None for i, k in enumerate(k0)]
    return cert


_BITS = Domain(lo=Fraction(1), hi=Fraction(30), lo_closed=True, hi_closed=True, integer=True)
#: the parameters of the two-item menu entries of the catalog (the per-step budget and the block filter's steps)
_MENU_PARAMS = (Param("eps", Domain.positive(), default="8", doc="target epsilon > 0"),
                Param("delta", Domain.open_unit(), default="0.001", doc="target delta in (0, 1)"),
                Param("q", Domain.half_open_unit(), default="0.1", doc="sampling rate of both menu items, in (0, 1]"),
                Param("sigma", Domain.positive(), default="0.5", doc="noise multiplier of the first menu item"),
                Param("sigma2", Domain.positive(), default="0.625", doc="noise multiplier of the second menu item"),
                Param("bits", _BITS, kind="integer", default="4",
                      doc="loss grid 2^-bits, 1..30 (a tuning choice: valid at every grid, finer is tighter and slower)"))


def _menu_args(eps, delta, q, sigma, sigma2, bits) -> tuple:
    """The validated (eps, delta, (item 1, item 2), bits) of the two-item menu entries (ValueError names a bad one)."""
    eps = check("eps", eps, Domain.positive())
    delta = check("delta", delta, Domain.open_unit())
    q = check("q", q, Domain.half_open_unit())
    items = (SGMItem(q, check("sigma", sigma, Domain.positive())), SGMItem(q, check("sigma2", sigma2, Domain.positive())))
    return eps, delta, items, int(check("bits", bits, _BITS))


@register("zhu2022_dpsgd_game_filter_budget", paper=ZDW,
          result="Proposition 30 / Theorem 10 dominating pairs + the exact adaptive game (this project: Blackwell "
                 "reduction, pessimistic discretisation)", direction="lower", returns="int",
          summary="largest budget B* (cost units, default costs) of the DP-SGD filter on the menu {(q, sigma), (q, sigma2)} "
                  "whose game value is certified <= delta in both add/remove directions",
          params=_MENU_PARAMS,
          provenance="derived", validity="valid",
          note="Valid at every grid: the game value over fully adaptive analysts on the menu's dominating pairs bounds "
               "every analyst whose steps are dominated by an item (Blackwell: dong2022 Prop. 2.12 / Thm 2.10; "
               "reference.bounds.pair_game steps 1-6), the pessimistic split dominates each pair (doroshenko2022 "
               "Thm 3.3), and every rounding is upward. Proof-tests: proofs/test_sgm_game.py (RR as one case of the "
               "engine, one step against quadrature, one item against the certified PLD engine, a 50-digit recursion, "
               "negative controls); falsifier claim DPSGD-GAME-FILTER (tests/test_dpsgd_probe.py: an adaptive analyst "
               "on off-grid subsampled Gaussians, and the planted NC-DPSGD-* rules it refutes).")
def dpsgd_game_filter_budget(eps, delta, q, sigma, sigma2, bits=4) -> int:
    """zhu2022 Prop. 30 pairs in the exact game: the DP-SGD game filter's certified budget B*.

    The menu is the two items {(q, sigma), (q, sigma2)}, with the default costs.

    Contract: :func:`sgm_menu_certificate` on ``[SGMItem(q, sigma), SGMItem(q, sigma2)]`` at the grid
    2^-bits, its ``budget``: the filter "admit a step charged c_k while spent + c_k <= B*" is
    (eps, delta)-DP against every fully adaptive analyst whose steps are dominated by an item, in
    both directions of add/remove adjacency (:class:`reference.accountants.dpsgd_game.DPSGDGameFilter`).
    A lower bound on the largest such budget (direction "lower"): certified from upper ends of the
    game value.  Preconditions: eps > 0, 0 < delta < 1, 0 < q <= 1, sigma, sigma2 > 0, bits an
    integer in [1, 30].  ``ValueError`` names a bad parameter.

    >>> dpsgd_game_filter_budget("8", "0.001", "0.1", "0.5", "0.625", 3)
    104
    """
    eps, delta, items, b = _menu_args(eps, delta, q, sigma, sigma2, bits)
    return sgm_menu_certificate(eps, delta, items, bits=b, lower=False).budget


@register("zhu2022_dpsgd_block_filter_steps", paper=ZDW,
          result="Theorem 10 (products of dominating pairs: a block of steps) + the exact adaptive game on blocks (this "
                 "project: pair_game docstring step 7)", direction="lower", returns="int",
          summary="steps of the first item a homogeneous run gets under the DP-SGD block filter on the menu "
                  "{(q, sigma), (q, sigma2)} (one unit per block, block lengths from each item's own count), certified "
                  "in both add/remove directions",
          params=_MENU_PARAMS + (
                  Param("block", _COST, kind="integer", default="2",
                        doc="steps per block of the item with the fewest blocks in its own optimum (an integer >= 1)"),),
          provenance="derived", validity="valid",
          note="Valid at every grid and block length: a block of m steps, each dominated by an item's pair, is dominated "
               "by the m-fold product (zhu2022 Thm 10); a block left early is completed by ignored steps (post-processing); "
               "the product's loss law is the m-fold convolution, computed in exact integers with directed rounding "
               "(reference.bounds.pair_game.law_power). Proof-tests: proofs/test_sgm_block_game.py (exact convolutions, "
               "one item = the per-step game, a 50-digit recursion, negative controls); falsifier claim DPSGD-BLOCK-FILTER "
               "(tests/test_block_probe.py: single off-grid steps over the filter object's own states, switches and stops "
               "inside blocks, and the planted NC-BLOCK-* rules it refutes).")
def dpsgd_block_filter_steps(eps, delta, q, sigma, sigma2, bits=4, block=2) -> int:
    """zhu2022 Theorem 10 products in the exact game: steps of item (q, sigma) under the DP-SGD block filter.

    Contract: :func:`sgm_menu_certificate` with ``block`` on ``[SGMItem(q, sigma), SGMItem(q, sigma2)]`` at the
    grid 2^-bits; returns ``rounds(0)`` = B* m_0, the steps a homogeneous run of the first item gets under
    :class:`reference.accountants.dpsgd_game.DPSGDGameFilter` with ``block``; every fully adaptive run of the
    filter is (eps, delta)-DP in both directions of add/remove adjacency.  A lower bound on the steps the
    largest certified budget gives (direction "lower").  Preconditions: eps > 0, 0 < delta < 1,
    0 < q <= 1, sigma, sigma2 > 0, bits an integer in [1, 30], block an integer >= 1 (a block of that
    many steps must fit each item alone).  ``ValueError`` names a bad parameter.

    >>> dpsgd_block_filter_steps("8", "0.001", "0.1", "0.5", "0.625", 4, 2)
    10
    """
    eps, delta, items, b = _menu_args(eps, delta, q, sigma, sigma2, bits)
    m = int(check("block", block, _COST))
    return sgm_menu_certificate(eps, delta, items, bits=b, lower=False, block=m).rounds(0)
