"""The block DP-SGD filter attacked step by step, on the filter object's own states, certified.

The claim DPSGD-BLOCK-FILTER is the guarantee of :class:`reference.accountants.dpsgd_game.DPSGDGameFilter`
with blocks (``block=M``): every fully adaptive analyst whose steps are each dominated by a menu
item, admitted by the filter's rule (free inside an open block of an item dominating the step,
otherwise a new block charged), produces an (eps, delta)-DP transcript.  The certificate was
computed on whole blocks (``pair_game`` docstring step 7); this attack does not assume that
reduction.  It plays single steps -- actual Poisson-subsampled Gaussian steps off the menu grid
(:data:`reference.falsify.dpsgd_probe.ATTACK_STEPS`), each with its own tight pair -- against the
filter object: the game's states are the object's own states (spent units, open block, steps
left), read and set through ``_game_state`` / ``_set_game_state``, and every transition is the
object's ``try_run`` from that state.  So a switch inside a block, a stop inside a block, and the
steps the rule admits free are all played, by backward induction over (state, loss):

    V(S, l) = max( f(l), max over steps s the object admits in state S of E_{x ~ P_s} V(S after s, l + l_s(x)) ),

with the same directed roundings and window closures as :mod:`reference.bounds.pair_game` (steps
4-6; depth D = the longest admitted path).  Upper laws give an upper end of every analyst on these
steps; lower laws give the value of an actual one (its argmax policy on the bucketed steps): a
lower end above delta is a certified counterexample.  A state graph with a cycle (a rule admitting
free steps forever) is itself a counterexample to any finite budget and is reported as such.

Planted rules that must be refuted (``tests/test_block_probe.py``):

* NC-BLOCK-NO-DOMINANCE: a step inside an open block is admitted free whether or not the block's
  item dominates it (the dominance test forgotten): a cheap, long block of the noisy item then
  carries steps of the leaky one;
* NC-BLOCK-LONGER: blocks one step longer than certified (an off-by-one in the count of steps left).
"""
from __future__ import annotations

import time
from fractions import Fraction

import numpy as np

from ..accountants.dpsgd_game import DPSGDGameFilter
from ..bounds.game import payoff_down, payoff_up
from ..bounds.pair_game import apply_law, certified_end
from ..bounds.sgm_game import SGMItem, _fixed_window, sgm_law
from ..catalog import cites
from ..precision import directed_decimal
from .dpsgd_probe import ATTACK_STEPS, DPSGD_MENU, probe_outcome

__all__ = ["BLOCK_FILTER", "NoDominanceCheckFilter", "LongerBlockFilter", "attack_states", "run_block_probe",
           "MAX_STATES"]

F = Fraction
#: The block filter attacked: W8's menu (:data:`reference.falsify.dpsgd_probe.DPSGD_MENU`) at grid 2^-6, blocks of 2 steps
BLOCK_FILTER = DPSGD_MENU + (2,)
#: The most filter states an attack explores (a larger state graph is refused, never cut)
MAX_STATES = 20_000


class NoDominanceCheckFilter(DPSGDGameFilter):
    """Planted (false): any step is free while a block is open, whichever item the block belongs to."""

    def _block_rule(self, dom, k, j, left):
        if left > 0:
            return True, (j, left - 1)
        return False, (k, self._m[k] - 1)


class LongerBlockFilter(DPSGDGameFilter):
    """Planted (false): a new block admits m_k steps after the one that opens it (m_k + 1 in all)."""

    def _block_rule(self, dom, k, j, left):
        free, opened = super()._block_rule(dom, k, j, left)
        return free, (opened if free else (k, self._m[k]))


def _transitions(f: DPSGDGameFilter, steps) -> tuple[dict, object]:
    """The filter object's state graph: {state: [(step index, next state), ...]} from its initial state (DFS)."""
    start = f._game_state()
    kept_hist = ([list(r) for r in f._runs], f._n)
    graph: dict = {}
    todo = [start]
    while todo:
        s = todo.pop()
        if s in graph:
            continue
        if len(graph) >= MAX_STATES:
            raise ValueError(f"the filter has more than MAX_STATES = {MAX_STATES} states on these steps: not searched")
        out = []
        for i, st in enumerate(steps):
            f._set_game_state(s)
            if f.try_run(*st):
                nxt = f._game_state()
                out.append((i, nxt))
                if nxt not in graph:
                    todo.append(nxt)
        graph[s] = out
    f._set_game_state(start)
    f._runs, f._n = kept_hist
    return graph, start


def _order(graph: dict, start) -> tuple[list, int]:
    """States in an order where every successor comes first, and the longest path's length; ``None`` on a cycle."""
    seen, done, order, depth = set(), set(), [], {}
    stack = [(start, iter(graph[start]))]
    seen.add(start)
    while stack:
        s, it = stack[-1]
        nxt = next(it, None)
        if nxt is None:
            stack.pop()
            done.add(s)
            order.append(s)
            depth[s] = max((depth[t] + 1 for _, t in graph[s]), default=0)
            continue
        t = nxt[1]
        if t in seen and t not in done:
            return None, -1                      # a cycle: steps admitted without end
        if t not in seen:
            seen.add(t)
            stack.append((t, iter(graph[t])))
    return order, depth[start]


@cites("zhu2022", "Proposition 30 / Theorem 10 (tight dominating pairs of each attack step, at sigma/scale)")
@cites("whitehouse2022", "Theorem 1 (filter semantics: a stopped adaptive interaction)")
def attack_states(f: DPSGDGameFilter, steps=ATTACK_STEPS, *, bits: int = 6, lower: bool = True) -> dict:
    """The best step-by-step adaptive analyst on ``steps`` against the filter object ``f``, over its own states.

    Contract: module docstring.  Returns ``{"upper": {direction: value}, "lower": {...}, "states",
    "depth", "cycle", "steps"}``: ``upper`` >= the value of every adaptive analyst on the steps
    (stopping allowed), ``lower`` <= that of an actual one; ``cycle`` True when the object admits
    steps without end from some reachable state (then no values are computed).  The object's state
    is restored before returning.  Preconditions: ``f`` exposes ``_game_state`` /
    ``_set_game_state`` (hashable states); at most :data:`MAX_STATES` states.
    """
    steps = tuple(tuple(F(x) for x in st) for st in steps)
    kept = [SGMItem(*st) for st in steps]
    graph, start = _transitions(f, steps)
    order, depth = _order(graph, start)
    out = {"upper": {}, "lower": {}, "states": len(graph), "depth": depth, "cycle": order is None,
           "steps": [str(it) for it in kept], "bits": bits}
    if order is None:
        return out
    eps, delta = f.eps, f.delta
    h = F(1, 1 << bits)
    eta = F(delta) / (1 << 24) / (depth + 1)
    for direction in ("remove", "add"):
        for side in (("upper", "lower") if lower else ("upper",)):
            up = side == "upper"
            laws = [sgm_law(it.q, it.sigma_eff, bits, eta, direction, side) for it in kept]
            lo, hi = _fixed_window(laws, [1] * len(laws), max(depth, 1), eps, h)
            lo = min(lo, 0)
            hi = max(hi, 0)
            W = hi - lo + 1
            pad_dn = max(0, max(-L.off for L in laws))
            pad_up = max(0, max(L.top for L in laws))
            n = pad_dn + W + pad_up
            pay_all = (payoff_up if up else payoff_down)(eps, h, lo - pad_dn, n)
            pay = pay_all[pad_dn: pad_dn + W]
            above = np.ones(pad_up) if up else pay_all[pad_dn + W:]
            rows: dict = {}
            for s in order:                       # successors first
                new = pay.copy()
                for i, t in graph[s]:
                    row = np.concatenate([np.zeros(pad_dn), rows[t], above])
                    cand = apply_law(row, laws[i], pad_dn, W, side, np.empty(W))
                    np.maximum(new, cand, out=new)
                rows[s] = new
            raw = float(rows[start][-lo])
            terms = max(int(np.count_nonzero(L.p)) for L in laws) + 1
            out[side][direction] = certified_end(raw, depth + 1, terms, side)
    return out


def _filters():
    eps, delta, menu, bits, block = BLOCK_FILTER
    return {"DPSGD-BLOCK-FILTER": lambda: DPSGDGameFilter(eps, delta, menu, bits, block=block),
            "NC-BLOCK-NO-DOMINANCE": lambda: NoDominanceCheckFilter(eps, delta, menu, bits, block=block),
            "NC-BLOCK-LONGER": lambda: LongerBlockFilter(eps, delta, menu, bits, block=block)}


@cites("zhu2022", "Proposition 30 / Theorem 10")
def run_block_probe(claim_id: str, deep: bool = False) -> dict:
    """Attack the block filter of ``claim_id`` (module docstring): ``{"counterexample", "worst", "space", "seconds"}``.

    A counterexample is reported when the certified lower end (an actual analyst) exceeds delta,
    or when the object admits steps without end.  ``deep`` refines the attack's grid by one bit.
    """
    t0 = time.perf_counter()
    f = _filters()[claim_id]()
    bits = BLOCK_FILTER[3] + (1 if deep else 0)
    a = attack_states(f, bits=bits)
    menu = [str(it) for it in f.menu]
    name = type(f).__name__
    space = {"engine": "backward induction over the filter object's own states (spent, open block, steps left) and "
                       "the loss, on each attack step's own subsampled-Gaussian law", "menu": menu, "eps": str(f.eps),
             "delta": str(f.delta), "filter_bits": f.certificate["bits"], "attack_bits": bits, "blocks": list(f.blocks),
             "budget": f.budget, "attack_steps": a["steps"], "states": a["states"], "depth": a["depth"]}
    if a["cycle"]:
        ce = {"target": name, "engine": "block_probe", "menu": menu, "event": "the filter admits steps without end",
              "attack_steps": a["steps"], "promised": str(f.delta)}
        return {"counterexample": ce, "worst": {"target": name, "cycle": True}, "space": space,
                "seconds": time.perf_counter() - t0}
    direction = max(a["lower"], key=a["lower"].get)
    lo, up = a["lower"][direction], a["upper"][direction]
    space["value_upper_max"] = directed_decimal(max(a["upper"].values()), 6, "upper")
    space["certified_safe"] = max(a["upper"].values()) <= f.delta
    return probe_outcome(name, "block_probe", "game-optimal over the filter's states (backward induction)",
                         f"{name} on {menu}, blocks {list(f.blocks)}, budget {f.budget}", menu,
                         {"steps": a["steps"], "charges": "per the filter's states"}, direction,
                         f"hockey-stick divergence of the stopped transcript at eps = {f.eps} ({direction} direction)",
                         lo, up, f.delta, bits, space, t0)


def _register() -> None:
    from .claims import CLAIMS, Claim

    have = {c.id for c in CLAIMS}
    none = (lambda deep: [])
    new = [
        Claim("DPSGD-BLOCK-FILTER",
              "the DP-SGD game filter with blocks (one charge per block of m_k steps, free steps inside an open block "
              "of an item dominating them, a switch forfeits the block) makes the stopped interaction (eps, delta)-DP",
              "this project (zhu2022 Thm 10 products + the exact game of reference.bounds.pair_game step 7, derived)",
              ("zhu2022_dpsgd_block_filter_steps",), "sgm", "dp", "valid", none,
              note="attacked step by step over the filter object's own states (switches and stops inside blocks), "
                   "with actual subsampled-Gaussian steps off the menu grid, at grid 2^-6",
              direct=lambda deep: run_block_probe("DPSGD-BLOCK-FILTER", deep)),
        Claim("NC-BLOCK-NO-DOMINANCE",
              "planted: the block filter admitting any step free inside an open block (the dominance test forgotten)",
              "planted false rule", (), "sgm", "dp", "false", none, control=True,
              direct=lambda deep: run_block_probe("NC-BLOCK-NO-DOMINANCE", deep)),
        Claim("NC-BLOCK-LONGER",
              "planted: the block filter's blocks one step longer than certified", "planted false rule", (), "sgm",
              "dp", "false", none, control=True,
              direct=lambda deep: run_block_probe("NC-BLOCK-LONGER", deep)),
    ]
    CLAIMS.extend(c for c in new if c.id not in have)


_register()
