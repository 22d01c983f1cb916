"""The natural PLD filter on a menu of subsampled Gaussians, decided by the exact adaptive game, certified either way.

The rule
--------
A menu of M Poisson-subsampled Gaussian steps (:class:`reference.bounds.sgm_game.SGMItem`).  The
*natural filter* admits the next step, item k, iff the NON-adaptive accounting of the steps used
so far plus the candidate -- the composition of their privacy loss distributions, for that fixed
multiset of steps -- is at most delta at the target eps, in both directions (remove and add).  It
is what a DP-SGD user does with a PLD accountant while changing sigma on the fly; its decision
depends only on the count vector n = (n_1, ..., n_M).  Its admission region is ::

    A = {n : delta_PLD(n) <= delta},   delta_PLD(n) = max over directions of H_{e^eps}(P^n || Q^n),

P^n, Q^n the product of n_k copies of item k's dominating pair; the filter's reachable states are
the count vectors joined to 0 by a path inside A (this is all the game below needs; A turns out a
down-set on the menus computed, which the tests check).

Modelling choice: the filter "as shipped" decides with a *certified upper end* of delta_PLD(n),
not with delta_PLD itself (which no finite computation decides exactly).  Here that end is the
one at the grid 2^-bits: n_k-fold compositions of :func:`reference.bounds.sgm_game.sgm_law`'s
upper laws (the pessimistic split of Doroshenko et al. 2022, Theorem 3.3), evaluated by the
fixed-sequence recursion of :mod:`reference.bounds.pair_game` (same window closure, same
rounding), the larger of the two directions.  A PLD accountant with a finer grid admits a
(slightly) larger region; the verdict is about the filter with this region, and the region is
recorded with it.

The game over count states (this project, derived from :mod:`reference.bounds.pair_game`)
-----------------------------------------------------------------------------------------
By the reduction of :mod:`reference.bounds.pair_game` (steps 1-3: Blackwell's post-processing,
the loss walk, monotonicity), the best fully adaptive analyst against this filter has value
V(0, 0) with ::

    V(n, l) = max( f(l), max_{k: n + e_k in A} E_{x ~ P_k} V(n + e_k, l + l_k(x)) ),  f(l) = (1 - e^{eps - l})_+,

a finite backward induction: A is finite (each item alone has a finite count), and the state
n + e_k is admitted exactly when the filter admits item k at n.  The filter is (eps, delta)-DP
iff V(0, 0) <= delta in both directions.  Upper laws give an upper end of V (step 4), lower laws
-- sub-measures on a bucketing of the pair -- a lower end that is the value of the argmax policy
of the lower recursion run against the real (bucketed) mechanism, an actual analyst (step 5).
Each transition is :func:`reference.bounds.pair_game.apply_law` (the window closure), and over a
path of at most D = max_n (n_1 + ... + n_M) + 1 levels the rounding of step 6 gives the certified ends
(:func:`reference.bounds.pair_game.certified_end`).  So:

* upper end of V(0, 0) <= delta in both directions: the natural filter HOLDS on the menu;
* lower end > delta in either direction: the natural filter is REFUTED on the menu, by the
  argmax analyst of the lower recursion, whose first moves are recorded.

A refutation transfers to every finer accountant.  The value is nondecreasing in the region: if
A is contained in A' (both sets of reachable count vectors), every analyst against the filter with
region A is one against the filter with region A' (it takes only steps A admits, which A' admits
too), so V_A <= V_A'.  The region computed here is contained in the exact one (delta_up(n) >=
delta_PLD(n)) and in that of any accountant whose reported delta is at most delta_up, so a lower
end of V_A above delta refutes the natural filter with the exact PLD and with every such
accountant.  A certified "holds", in turn, is about this region only (a finer accountant admits
more count vectors, and the game must be rerun on its region).

Decisions are exact comparisons of dyadic rationals with delta.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Optional, Sequence

import numpy as np

from ..catalog import cites
from ..precision import Domain, check, directed_decimal
from .game import payoff_down, payoff_up
from .pair_game import StepLaw, apply_law, certified_end
from .sgm_game import SGMItem, _fixed_window, sgm_law

__all__ = ["NaturalFilterDecision", "natural_region", "natural_game", "natural_filter_decision", "staircase",
           "MAX_STATES"]

ZDW, DGK, W22 = "zhu2022", "doroshenko2022", "whitehouse2022"
MAX_STATES = 20000
DIRECTIONS = ("remove", "add")


class _Rows:
    """Rows on a window [lo, hi] with the pads the laws read; the payoff rows of a side."""

    def __init__(self, eps: Fraction, h: Fraction, laws: Sequence[StepLaw], window: tuple, side: str):
        self.lo, self.hi = (int(x) for x in window)
        self.W = self.hi - self.lo + 1
        self.pad_dn = max(0, max(-L.off for L in laws))
        self.pad_up = max(0, max(L.top for L in laws))
        self.side = side
        if side == "upper":
            self.f = payoff_up(eps, h, self.lo, self.W)
            self.above = np.ones(self.pad_up)
        else:
            self.f = payoff_down(eps, h, self.lo, self.W)
            self.above = payoff_down(eps, h, self.hi + 1, self.pad_up) if self.pad_up else np.zeros(0)
        self.i0 = -self.lo
        self.buf = np.empty(self.pad_dn + self.W + self.pad_up)
        self.buf[self.pad_dn + self.W:] = self.above

    def step(self, row: np.ndarray, L: StepLaw) -> np.ndarray:
        """E_{L} row(l + step), the window closed as :func:`apply_law` says; a new array."""
        self.buf[self.pad_dn: self.pad_dn + self.W] = row
        return apply_law(self.buf, L, self.pad_dn, self.W, self.side, np.empty(self.W))


def _laws(items, bits, eta, direction, side):
    return [sgm_law(it.q, it.sigma_eff, bits, eta, direction, side) for it in items]


def _terms(laws) -> int:
    return max(int(np.count_nonzero(L.p)) for L in laws) + 1


def _check(eps, delta, items, bits):
    eps = check("eps", eps, Domain.positive())
    delta = check("delta", delta, Domain.open_unit())
    items = tuple(items)
    if not items or not all(isinstance(it, SGMItem) for it in items):
        raise ValueError(f"items must be a non-empty sequence of SGMItem, found {items!r}")
    if not isinstance(bits, int) or isinstance(bits, bool) or not 1 <= bits <= 12:
        raise ValueError(f"bits must be an integer in [1, 12], found {bits!r}")
    return eps, delta, items


def _default_eta(delta: Fraction) -> Fraction:
    return delta / (1 << 30)


@cites(ZDW, "Proposition 30 / Theorem 10 (dominating pairs of the subsampled Gaussian; their composition)")
@cites(DGK, "Theorem 3.3 (the pessimistic split discretisation dominates the pair)")
def natural_region(eps, delta, items: Sequence[SGMItem], *, bits: int = 5, eta=None, max_states: int = MAX_STATES,
                   window: Optional[dict] = None) -> dict:
    """The natural filter's admission region: every count vector reachable inside A, with its certified delta_PLD.

    Contract: returns ``{"states": {n: delta_up(n)}, "frontier": {n: delta_up(n)}, "depth", "windows", "eta"}``
    where ``states`` are the count vectors (tuples) joined to 0 by admitted steps, ``delta_up(n)``
    an exact dyadic >= the composition of the items' upper laws (both directions, the larger),
    hence >= delta_PLD(n); every state has ``delta_up <= delta``, and ``frontier`` holds the
    refused successors (``delta_up > delta``).  Preconditions: eps > 0, 0 < delta < 1, SGM
    items, 1 <= bits <= 12; more than ``max_states`` states raise ``ValueError`` before the
    search goes on (nothing is silently cut).  ``eta`` (default delta / 2^30) is the per-step
    tail cut of :func:`reference.bounds.sgm_game.sgm_law` (the upper laws move the tails to
    +infinity, so any eta is valid); ``window`` maps a direction to a loss window (default: from
    :func:`reference.bounds.sgm_game._fixed_window` at the longest admitted path; any window is valid).
    Memory: one row per count vector of the current level and direction.  Rounding: upward
    (module docstring).
    """
    eps, delta, items = _check(eps, delta, items, bits)
    h = Fraction(1, 1 << bits)
    eta = _default_eta(delta) if eta is None else check("eta", eta, Domain.open_unit())
    M = len(items)
    per_dir = {}
    depth = _single_depth(eps, delta, items, bits, eta)
    windows = {}
    for d in DIRECTIONS:
        laws = _laws(items, bits, eta, d, "upper")
        w = (window or {}).get(d) or _fixed_window(laws, [1] * M, depth + 1, eps, h)
        windows[d] = w
        per_dir[d] = (laws, _Rows(eps, h, laws, w, "upper"))
    terms = max(_terms(per_dir[d][0]) for d in DIRECTIONS)
    zero = (0,) * M
    rows = {d: {zero: per_dir[d][1].f.copy()} for d in DIRECTIONS}
    states = {zero: Fraction(0)}
    frontier = {}
    todo = [zero]
    while todo:       # level by level (|n| = 0, 1, ...): only the current level's rows are kept
        nxt = []
        nxt_rows = {d: {} for d in DIRECTIONS}
        for n in todo:
            for k in range(M):
                m = n[:k] + (n[k] + 1,) + n[k + 1:]
                if m in states or m in frontier:
                    continue
                val = Fraction(0)
                new_rows = {}
                for d in DIRECTIONS:
                    laws, R = per_dir[d]
                    r = R.step(rows[d][n], laws[k])
                    new_rows[d] = r
                    val = max(val, certified_end(float(r[R.i0]), sum(m), terms, "upper"))
                if val <= delta:
                    states[m] = val
                    for d in DIRECTIONS:
                        nxt_rows[d][m] = new_rows[d]
                    nxt.append(m)
                    if len(states) > max_states:
                        raise ValueError(f"the natural filter's region exceeds max_states = {max_states} count vectors "
                                         f"(eps = {eps}, delta = {delta}, {M} items): use a smaller menu or a larger limit")
                else:
                    frontier[m] = val
        todo, rows = nxt, nxt_rows
    return {"states": states, "frontier": frontier, "depth": max(sum(n) for n in states), "windows": windows,
            "eta": eta, "terms": terms}


def _single_depth(eps, delta, items, bits, eta) -> int:
    """An upper bound of any admitted path's length: the sum over items of their single-item counts at this grid
    (a path in A has n_k <= k0_k, since composing more steps never lowers delta_PLD -- a marginal is a
    post-processing); used only to size the window (a choice: any window is valid)."""
    from .sgm_game import sgm_single_item_rounds

    return sum(sgm_single_item_rounds(eps, delta, it, bits=bits, start=16) for it in items)


@cites(ZDW, "Theorem 10 (composition: a count vector's delta_PLD never falls when a step is added)")
def staircase(states) -> list:
    """For a 2-item region: ``[max n2 with (n1, n2) admitted, for n1 = 0, 1, ...]``."""
    ks = sorted({n[0] for n in states})
    return [max(n[1] for n in states if n[0] == a) for a in ks]


@cites(ZDW, "Theorem 10 (adaptive composition of dominating pairs)")
@cites(W22, "Theorem 1 (filter semantics: a stopped adaptive interaction)")
def natural_game(eps, items: Sequence[SGMItem], states, *, bits: int, eta, direction: str, side: str,
                 window: tuple, policy_depth: int = 1) -> dict:
    """The exact game V(n, l) over the count states ``states`` (the natural filter's region), one direction and side.

    Contract: item k is admitted at n iff ``n + e_k`` is in ``states``.  ``side="upper"``:
    ``value`` is an exact dyadic >= the best fully adaptive analyst's value against that filter
    (module docstring); ``side="lower"``: <= the value of the returned ``policy`` (the argmax
    analyst of the lower recursion) run on the real, bucketed mechanism.  ``policy`` lists, for
    the states with ``sum(n) <= policy_depth``, the runs of loss indices (grid units) on which each
    action (an item index, or ``"stop"``) is the argmax, on the losses reachable at n (between
    sum n_k off_k and sum n_k top_k) inside the window; ``first_adaptive`` is the first state (least
    ``sum(n)``) whose reachable runs use two items -- where the analyst's choice of sigma depends on the
    realized loss -- with its runs (None if the policy never switches).  Rounding: as
    :func:`reference.bounds.pair_game.certified_end`, over ``max sum(n) + 1`` levels.
    """
    eps = check("eps", eps, Domain.positive())
    if direction not in DIRECTIONS or side not in ("upper", "lower"):
        raise ValueError(f"direction must be 'remove' or 'add' and side 'upper' or 'lower', found {direction!r}, {side!r}")
    states = set(states)
    M = len(items)
    if (0,) * M not in states:
        raise ValueError("states must contain the zero count vector")
    h = Fraction(1, 1 << bits)
    laws = _laws(items, bits, eta, direction, side)
    R = _Rows(eps, h, laws, window, side)
    depth = max(sum(n) for n in states)
    V = {}
    policy = {}
    adaptive = None
    level = depth + 1
    for n in sorted(states, key=lambda n: -sum(n)):
        if sum(n) < level:      # a new level: the rows two levels up are no longer read
            level = sum(n)
            for m in [m for m in V if sum(m) > level + 1]:
                del V[m]
        best = R.f.copy()
        arg = np.full(R.W, -1)
        for k in range(M):
            m = n[:k] + (n[k] + 1,) + n[k + 1:]
            if m in states:
                c = R.step(V[m], laws[k])
                better = c > best
                arg[better] = k
                np.maximum(best, c, out=best)
        V[n] = best
        # the losses reachable at n: between sum n_k off_k and sum n_k top_k (grid units), clipped to the window
        a = max(R.lo, sum(c * L.off for c, L in zip(n, laws))) - R.lo
        b = min(R.hi, sum(c * L.top for c, L in zip(n, laws))) - R.lo
        if b < a:               # nothing of the window is reachable at n
            continue
        if sum(n) <= policy_depth:
            policy[n] = _runs(arg[a: b + 1], a + R.lo)
        used = set(np.unique(arg[a: b + 1]).tolist()) - {-1}
        if len(used) > 1 and (adaptive is None or (sum(n), n) < (sum(adaptive[0]), adaptive[0])):
            adaptive = (n, _runs(arg[a: b + 1], a + R.lo))
    raw = float(V[(0,) * M][R.i0])
    value = certified_end(raw, depth + 1, _terms(laws), side)
    z = (0,) * M
    act0 = [a for lo_, hi_, a in policy.get(z, []) if lo_ <= 0 <= hi_]
    first = act0[0] if act0 else None
    return {"value": value, "raw": raw, "policy": policy, "first_move": first, "first_adaptive": adaptive,
            "depth": depth, "levels": depth + 1, "terms": _terms(laws)}


def _runs(arg: np.ndarray, lo: int) -> list:
    """Runs (first loss index, last loss index, action) of an argmax row; action -1 is ``"stop"``."""
    cuts = np.flatnonzero(np.diff(arg)) + 1
    starts = np.concatenate(([0], cuts))
    ends = np.concatenate((cuts - 1, [len(arg) - 1]))
    return [(int(a) + lo, int(b) + lo, "stop" if arg[a] < 0 else int(arg[a])) for a, b in zip(starts, ends)]


@dataclass
class NaturalFilterDecision:
    """The verdict on the natural PLD filter of a menu: the region, the game's bracket per direction, the verdict."""

    eps: Fraction
    delta: Fraction
    items: tuple
    bits: int
    eta: Fraction
    states: dict
    frontier: dict
    upper: dict            # direction -> exact upper end of the best analyst's value
    lower: dict            # direction -> exact lower end (an actual analyst's value)
    policy: dict           # direction -> the lower recursion's argmax runs at |n| <= 1
    windows: dict
    seconds: float = 0.0
    extra: dict = field(default_factory=dict)

    @property
    def refuted(self) -> bool:
        """An actual adaptive analyst breaks the filter: the lower end exceeds delta in some direction."""
        return any(v > self.delta for v in self.lower.values())

    @property
    def holds(self) -> bool:
        """Certified: the upper end is <= delta in both directions."""
        return all(v <= self.delta for v in self.upper.values())

    @property
    def verdict(self) -> str:
        return "refuted" if self.refuted else "holds" if self.holds else "undecided"

    def as_dict(self) -> dict:
        d2 = lambda q, r: directed_decimal(q, 6, r)  # noqa: E731
        out = {"eps": str(self.eps), "delta": str(self.delta), "items": [str(x) for x in self.items], "bits": self.bits,
               "eta": str(self.eta), "verdict": self.verdict, "states": len(self.states),
               "value_upper": {d: d2(v, "upper") for d, v in self.upper.items()},
               "value_lower": {d: d2(v, "lower") for d, v in self.lower.items()},
               "windows": {d: list(w) for d, w in self.windows.items()}, "seconds": round(self.seconds, 3)}
        if len(self.items) == 2:
            out["staircase"] = staircase(self.states)
        return out


@cites(ZDW, "Proposition 30 / Theorem 10")
@cites(W22, "Theorem 1 (filter semantics: a stopped adaptive interaction)")
def natural_filter_decision(eps, delta, items: Sequence[SGMItem], *, bits: int = 5, eta=None, lower_bits=None,
                            max_states: int = MAX_STATES) -> NaturalFilterDecision:
    """Decide the natural PLD filter on a menu: certified to hold, certified refuted, or undecided at this grid.

    Contract: the region is :func:`natural_region`'s at ``bits``; the game runs on it with upper
    laws and lower laws (the lower laws at ``lower_bits``, default ``bits``: any grid gives a valid
    lower end on the same region) in both directions.  ``holds``: the upper ends are <= delta
    (the filter with this region is (eps, delta)-DP against every fully adaptive analyst choosing
    steps dominated by menu items); ``refuted``: some lower end exceeds delta (the recorded argmax
    analyst breaks it).  Preconditions: those of :func:`natural_region`.
    """
    t0 = time.perf_counter()
    eps, delta, items = _check(eps, delta, items, bits)
    reg = natural_region(eps, delta, items, bits=bits, eta=eta, max_states=max_states)
    eta = reg["eta"]
    lb = bits if lower_bits is None else lower_bits
    if not isinstance(lb, int) or isinstance(lb, bool) or not 1 <= lb <= 12:
        raise ValueError(f"lower_bits must be an integer in [1, 12], found {lb!r}")
    upper, lower, policy, extra = {}, {}, {}, {"first_move": {}, "first_adaptive": {}, "lower_windows": {}}
    for d in DIRECTIONS:
        up = natural_game(eps, items, reg["states"], bits=bits, eta=eta, direction=d, side="upper",
                          window=reg["windows"][d])
        upper[d] = up["value"]
        w = reg["windows"][d]
        scale = 1 << (lb - bits) if lb >= bits else None
        wl = (w[0] * scale, w[1] * scale) if scale else (w[0] >> (bits - lb), -((-w[1]) >> (bits - lb)))
        lo = natural_game(eps, items, reg["states"], bits=lb, eta=eta, direction=d, side="lower", window=wl)
        lower[d] = lo["value"]
        extra["lower_windows"][d] = wl
        policy[d] = lo["policy"]
        extra["first_move"][d] = lo["first_move"]
        extra["first_adaptive"][d] = lo["first_adaptive"]
    extra["depth"] = reg["depth"]
    extra["lower_bits"] = lb
    return NaturalFilterDecision(eps, Fraction(delta), items, bits, eta, reg["states"], reg["frontier"], upper, lower,
                                 policy, reg["windows"], time.perf_counter() - t0, extra)
