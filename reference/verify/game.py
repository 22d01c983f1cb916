"""The exact adaptive game: the best fully adaptive adversary against a filter, by backward induction.

The game
--------
An analyst runs steps that are conditionally eps_n-DP given the past, eps_n chosen adaptively from
a menu, and may stop at any time; a filter refuses steps by its rule.  By whitehouse2022 Lemma 3
(conditional randomized response; kairouz2015 Theorem 3.3 for one step, rogers2016 Theorem 2.7
for adaptive sequences) every such step is a post-processing of randomized response RR_{eps_n}
given the past, and a randomized analyst is a mixture of deterministic ones (the hockey-stick
divergence is jointly convex), so the largest hockey-stick divergence of the stopped transcript, ::

    G = sup over deterministic adaptive policies of E_P[(1 - e^{eps - L_tau})_+],

is attained on the RR transcript, where L is the privacy loss (under P one step of RR_e moves L
by +e with probability e^e/(1+e^e), by -e otherwise).  The filter is (eps, delta)-DP against every
analyst on the menu iff G <= delta.  Larger eps in a menu cell only helps the analyst (RR_e is a
post-processing of RR_e' for e <= e'), so a filter that charges every eps in (g m_{k-1}, g m_k]
the same is attacked with eps = g m_k, and the loss lives on the lattice gZ.

The value function V(state, l) (state = what the filter's decision depends on, l the loss index)
satisfies V = max(stop payoff, max over admitted k of p_k V(next, l + m_k) + q_k V(next, l - m_k)).
Continuing never loses (e^{-L} is a P-martingale and the payoff is convex in e^{-L}), but the
stop option is kept in the recursion: it is what the formula says.

Two engines
-----------
* :func:`threshold_game`: filters of the form "admit a step of charge c while c <= R", R the
  remaining integer budget (the game filter, and every budget rule once charges are integers).
  One sweep over R = 0..R_max gives the game value for every budget at once (V is monotone in R).
  The loss window is finite: leaving it ends the game with payoff 1 above and with an
  Azuma-Hoeffding bound below (both are upper bounds of the true value), so the computed number
  is an upper bound; the lower bound subtracts the (Ville + Hoeffding) probability of leaving.
* :func:`optimal_adversary`: any :class:`reference.verify.engine.Target` filter, keys as in
  :func:`reference.verify.engine.verify` (V = sum eps^2, plus the count vector when the target
  needs it), every reachable loss kept (no truncation).  Its horizon is the target's own by
  default (every path the filter admits, so no menu item is pruned: the value is monotone in the
  menu); an explicit cap on rounds is reported with the number of admitted steps it cut, and a
  capped value is labelled as the restricted game's.  It returns the upper bound and the argmax
  policy as an :class:`~reference.verify.engine.Adversary`; replaying it in :func:`reference.verify.engine.verify` (which
  drives the target's own exact decisions) gives the certified lower bound.

Rounding (both engines)
-----------------------
Each DP value is ``max_k fl(fl(p_k a) + fl(q_k b))`` with p_k, q_k and the payoffs rounded *up*
to doubles from 120-bit interval enclosures.  With u = 2^-53 and t = 2^-1074 (underflow), by
induction over the depth D (every step consumes at least one unit of budget / one round):
``(1 - u)^{2D} V_exact - 3 D t <= V_float <= (1 + u)^{4D+2} V_exact + 3 D t``, and
``(1 - u)^{-n}``, ``(1 + u)^n <= 1/(1 - n u)``.  The certified ends are formed in exact rational
arithmetic.  Every operation is one IEEE-754 double operation (NumPy elementwise multiply, add,
maximum: no fused or reassociated arithmetic), so the floats, hence the integer budgets derived
from them, are the same on every machine.  Rows read only by steps of charge above ``NEAR``
are kept as float32 rounded *up* (one ulp above the round-to-nearest value where that is below):
the upper end is unaffected (larger inputs, monotone recursion); the lower end divides by
(1 + 2^-23) per such read on a path and subtracts 2^-148 per read (float32 subnormals).
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Optional

import numpy as np

from ..bounds.game import (ENGINE_VERSION, MAX_BYTES, MAX_CELLS, NEAR, GameTable, cert_hi, hoeffding_exit, payoff_up,
                           rr_reveal_probs_up, threshold_game)
from ..catalog import cites
from ..precision import Domain, check
from .engine import Adversary, AccState, Target, View, _exact_key, _lattice, _menu

__all__ = ["GameTable", "threshold_game", "hoeffding_exit", "OptimalResult", "optimal_adversary",
           "PolicyAdversary", "TablePolicy", "ENGINE_VERSION", "MAX_CELLS", "MAX_BYTES", "NEAR"]

W22, K15 = "whitehouse2022", "kairouz2015"


@cites(W22, "Lemma 3 (an adaptive analyst on a finite menu)")
class TablePolicy(Adversary):
    """The argmax policy of a :class:`GameTable` started at budget B, as an adversary for :func:`~reference.verify.engine.verify`.

    Requires charges[k] == steps[k]^2 (then the verifier's V index j is the charge spent, and the
    remaining budget is B - j).  The menu is ``[(unit * steps[k], 0)]``.
    """

    def __init__(self, table: GameTable, B: int, name: Optional[str] = None):
        if table.policy is None:
            raise ValueError("the table has no policy: threshold_game(..., keep_policy=True)")
        if any(c != m * m for m, c in zip(table.steps, table.charges)):
            raise ValueError("TablePolicy needs charges == steps^2 (the verifier's V index is then the charge spent)")
        if math.gcd(*table.steps) != 1:
            raise ValueError(f"TablePolicy needs gcd(steps) = 1 so that the verifier's lattice is the table's, found {table.steps}")
        if not 0 <= B <= table.R_max:
            raise ValueError(f"B must lie in [0, {table.R_max}], found {B}")
        self.table, self.B = table, int(B)
        self.menu = tuple((table.unit * m, Fraction(0)) for m in table.steps)
        self.name = name or f"game-optimal[B={B}]"

    def choose(self, view: View, k: np.ndarray) -> np.ndarray:
        R = self.B - view.j
        lo, hi = self.table.window
        out = np.full(k.shape, -1, dtype=np.int64)
        if R < 0:
            return out
        inside = (k >= lo) & (k <= hi)
        out[inside] = self.table.policy[R, k[inside] - lo]
        return out


# ===========================================================================
# Any filter target: keys as in the verifier, every reachable loss kept
# ===========================================================================

@dataclass
class OptimalResult:
    """Result of :func:`optimal_adversary`: the certified upper end of the game value and the argmax policy.

    ``max_V`` is the horizon the game was computed under (``None``: the target's own, every path
    the filter admits; a Fraction: paths with sum eps^2 <= max_V) and ``cut`` the number of
    (state, item) pairs the filter admitted but the horizon cut.  ``complete`` (``cut == 0``) means
    that no admitted step was pruned: ``upper`` is then an upper bound of the game on the whole
    menu, every horizon included.  Otherwise ``upper`` bounds only the game restricted to
    ``max_V`` (itself a *lower* bound of the unrestricted game), and :attr:`restriction` says so;
    callers must print that label beside the value.
    """

    target: str
    eps: Fraction
    menu: tuple
    upper: Fraction
    raw: float
    keys: int
    cells: int
    depth: int
    adversary: "PolicyAdversary"
    seconds: float = 0.0
    extra: dict = field(default_factory=dict)
    max_V: Optional[Fraction] = None
    cut: int = 0

    @property
    def complete(self) -> bool:
        """True when no admitted step was cut by the horizon (the value is the game's on the whole menu)."""
        return self.cut == 0

    @property
    def restriction(self) -> str:
        """``""`` when complete, else the restriction the value was computed under (to print beside it)."""
        if self.complete:
            return ""
        return (f"restricted to paths with sum eps^2 <= {self.max_V} ({self.cut} admitted steps cut by the horizon): "
                f"the value bounds the restricted game only; the game on this menu may be larger")


@cites(W22, "Lemma 3 (an adaptive analyst on a finite menu)")
class PolicyAdversary(Adversary):
    """A policy computed by :func:`optimal_adversary`: ``{key: (offset, int array)}`` with key = (j, m, counts)."""

    def __init__(self, menu: tuple, policy: dict, counts_mode: bool, name: str = "game-optimal"):
        self.menu, self.policy, self.counts_mode, self.name = menu, policy, counts_mode, name

    def choose(self, view: View, k: np.ndarray) -> np.ndarray:
        key = (view.j, view.m, view.state.counts if self.counts_mode else None)
        out = np.full(k.shape, -1, dtype=np.int64)
        rec = self.policy.get(key)
        if rec is None:
            return out
        off, arr = rec
        idx = k - off
        inside = (idx >= 0) & (idx < len(arr))
        out[inside] = arr[idx[inside]]
        return out


@cites(W22, "Lemma 3 (conditional randomized response, with the reveal outcome for delta_n > 0)",
       "Theorem 1 (filter semantics)")
@cites(K15, "Theorem 3.3 (randomized response dominates every (eps, delta)-DP step)")
def optimal_adversary(target: Target, menu, rounds: Optional[int] = None, *, max_V=None, max_keys: int = 200_000,
                      max_cells: int = MAX_CELLS) -> OptimalResult:
    """The best adaptive analyst on ``menu`` against a filter target, by backward induction.

    Contract: over every deterministic adaptive policy choosing menu items (or stopping) from the
    full transcript, subject to the target's exact decisions (``target.admits``), returns the
    certified upper end of the largest hockey-stick divergence at ``target.eps`` of the stopped
    transcript, and the argmax policy as a :class:`PolicyAdversary` (replay it with
    :func:`~reference.verify.engine.verify` at ``max_V=result.max_V`` for the certified lower end:
    that is the value of an actual analyst).

    Horizon.  ``rounds=None`` (the default): the target's own horizon, every path the filter
    admits is explored (no menu item is pruned); the exploration is finite because a filter
    refuses eventually, and a filter that admits more than ``max_keys`` states is refused with a
    ``ValueError`` (not searched), never truncated.  An integer ``rounds`` caps the paths at
    sum eps^2 <= rounds x (largest menu eps)^2, which contains every path of at most ``rounds``
    steps, so no item is pruned at the root; ``max_V`` (a nonnegative rational, exclusive with
    ``rounds``) caps sum eps^2 directly.  Every admitted step a cap cuts is counted in
    ``result.cut``, and the result is labelled (:attr:`OptimalResult.restriction`) unless the
    cap never bound.  The value is monotone in the menu and in ``rounds`` (a larger menu or
    horizon only adds policies).

    An (eps, delta) item with delta > 0 is conditional RR_{eps, delta} (whitehouse2022 Lemma 3):
    with probability delta it reveals the input (the loss is +inf: payoff 1 whatever follows),
    otherwise it is RR_eps.  Keys are (j, m, counts) with V = j u^2, delta spent = m w, and
    counts only when ``target.stat == "counts"``: the target's decision depends on nothing else.
    Preconditions: a filter target; menu deltas > 0 only if ``target.supports_delta``; rounds
    None or an integer >= 1.  Rounding: module docstring, with three roundings per level when an
    item has delta > 0; no truncation of the loss (every reachable loss is kept).
    """
    if rounds is not None:
        rounds = int(check("rounds", rounds, Domain.integers_from(1)))
        if max_V is not None:
            raise ValueError(f"give at most one of rounds and max_V, found rounds={rounds}, max_V={max_V!r}")
    if max_V is not None:
        max_V = check("max_V", max_V, Domain.nonnegative())
    if not isinstance(target, Target) or target.kind != "filter":
        raise ValueError(f"target must be a filter Target, found {target!r}")
    menu = _menu(menu)
    if any(d for _, d in menu) and not target.supports_delta:
        raise ValueError(f"target {target.name} does not take delta_n > 0, found a menu item with delta > 0")
    if target.eps is None:
        raise ValueError(f"filter target {target.name} has no eps")
    t0 = time.perf_counter()
    target.bind(menu)
    M = len(menu)
    u, w_unit, a, dd, _ = _lattice(menu, 1)
    if rounds is not None:
        J = rounds * max(a) ** 2          # V cap in units of u^2: every path of at most `rounds` steps
    elif max_V is not None:
        J = math.floor(max_V / (u * u))
    else:
        J = None                          # the target's own horizon
    max_V = None if J is None else J * u * u
    cut = 0
    counts_mode = target.stat == "counts"
    memo = target.__dict__.setdefault("_verifier_memo", {})

    def admitted(j, m, x, i):
        st = AccState(j * u * u, m * w_unit, x, menu)
        mk = ("admits", menu[i]) + _exact_key(st)
        ok = memo.get(mk)
        if ok is None:
            ok = memo[mk] = bool(target.admits(st, menu[i][0], menu[i][1]))
        return ok

    root = (0, 0, (0,) * M if counts_mode else None)
    children: dict = {}
    reach: dict = {root: 0}          # largest |loss index| reachable at the key
    depth: dict = {root: 0}
    order = [root]
    seen = {root}
    # forward: reachable keys (j increases strictly along edges, so sorting by j is topological)
    frontier = [root]
    while frontier:
        nxt = []
        for key in frontier:
            j, m, x = key
            ch = []
            for i in range(M):
                j2 = j + a[i] ** 2
                if not admitted(j, m, x, i):
                    continue
                if J is not None and j2 > J:
                    cut += 1   # admitted but beyond the explicit cap: counted, and the result is labelled
                    continue
                x2 = (x[:i] + (x[i] + 1,) + x[i + 1:]) if counts_mode else None
                k2 = (j2, m + dd[i], x2)
                ch.append((i, k2))
                if k2 not in seen:
                    seen.add(k2)
                    nxt.append(k2)
                    order.append(k2)
                    if len(seen) > max_keys:
                        raise ValueError(f"more than max_keys = {max_keys} filter states on this menu"
                                         + (" (the target's own horizon: the filter admits that many states)" if J is None
                                            else f" within sum eps^2 <= {max_V}")
                                         + ": not searched (use a smaller menu, a cap on rounds, or a larger max_keys)")
            children[key] = ch
        frontier = nxt
    order.sort(key=lambda kk: kk[0])
    for key in order:
        for i, k2 in children.get(key, ()):
            reach[k2] = max(reach.get(k2, 0), reach[key] + a[i])
            depth[k2] = max(depth.get(k2, 0), depth[key] + 1)
    cells = sum(2 * r + 1 for r in reach.values())
    if cells > max_cells:
        raise ValueError(f"the game needs {cells} cells, more than max_cells = {max_cells}: use a smaller menu or fewer rounds")
    rmax = max(reach.values())
    pay = payoff_up(target.eps, u, -rmax, 2 * rmax + 1)   # payoff at loss index l is pay[l + rmax]
    probs = [rr_reveal_probs_up(e, d) for e, d in menu]
    vals: dict = {}
    policy: dict = {}
    D = max(depth.values()) + 1
    for key in reversed(order):
        r = reach[key]
        n = 2 * r + 1
        new = pay[rmax - r: rmax + r + 1].copy()
        pol = np.full(n, -1, dtype=np.int8)
        for i, k2 in children.get(key, ()):
            r2 = reach[k2]
            child = vals[k2]
            ai = a[i]
            # child index of loss l is l + r2; l ranges over -r..r
            up = child[r2 - r + ai: r2 + r + ai + 1]
            dn = child[r2 - r - ai: r2 + r - ai + 1]
            pu, pd, pr = probs[i]
            cand = up * pu
            cand += dn * pd
            if pr:
                cand += pr  # the reveal outcome: payoff 1
            better = cand > new
            pol[better] = i
            np.maximum(new, cand, out=new)
        vals[key] = new
        policy[key] = (-r, pol)
    raw = float(vals[root][reach[root]])
    hi = min(Fraction(1), cert_hi(raw, 2 * D))  # 3 roundings per level (4 with the reveal term) <= 2 x 2
    adv = PolicyAdversary(menu, policy, counts_mode, name=f"game-optimal[{','.join(_item(e, d) for e, d in menu)}]")
    return OptimalResult(target.name, target.eps, menu, hi, raw, len(order), cells, D, adv, time.perf_counter() - t0,
                         {"u": str(u), "J": J}, max_V, cut)


def _item(e: Fraction, d: Fraction) -> str:
    return str(e) if not d else f"({e},{d})"
