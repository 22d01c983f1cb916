"""The DP-SGD game filter attacked by an adaptive analyst on subsampled-Gaussian steps OFF its menu, certified.

The claim DPSGD-GAME-FILTER is the guarantee of :class:`reference.accountants.dpsgd_game.DPSGDGameFilter`:
every fully adaptive analyst whose steps are each dominated by a menu item, charged by the filter's
own rule and admitted while they fit its certified budget, produces an (eps, delta)-DP transcript.
The attack does not play the discretised pairs the certificate was computed on: its steps are
actual Poisson-subsampled Gaussian steps (q, sigma, scale) chosen OFF the menu grid (smaller
rates, noise between the items, sensitivity scales below 1), each with its own tight dominating
pair (zhu2022 Prop. 30, at sigma/scale), charged by calling the filter object itself
(:meth:`~reference.accountants.dpsgd_game.DPSGDGameFilter.charge`; a step it refuses as outside the
menu is dropped) and admitted against its ``budget``.  The best analyst choosing among them from
the transcript, stopping at will, is the game of :mod:`reference.bounds.pair_game` on those steps'
laws and charges, from the filter's budget, in both directions of add/remove adjacency:

* the **lower end** (lower laws: a bucketing of each step, losses and masses rounded down) is the
  value of an actual analyst -- the argmax policy of the lower recursion run on the bucketed real
  mechanisms (pair_game module docstring, step 5); a lower end above delta is a certified
  counterexample;
* the **upper end** (upper laws) bounds every adaptive analyst on these steps; at most delta is a
  certificate that no analyst on them breaks the filter.

Two planted rules, each a subclass of the filter that a developer could plausibly write, must be
refuted by the same attack (``proofs/test_falsifier.py``, ``tests/test_dpsgd_probe.py``):

* NC-DPSGD-CHARGE-SIGMA-UP: a step is charged at the item whose noise is the nearest ABOVE the
  step's (sigma rounded up to the menu's grid), an item that does not dominate it; the attack's
  step sigma = 51/100 is then charged as the cheap sigma = 5/8 item;
* NC-DPSGD-BUDGET-ABOVE: the budget raised above B*.  B* + 1 is NOT refuted at these grids: the
  lower end converges at first order in the grid width, and at 2^-6 its value at B* + 1 lies
  below delta (0.00085 against 0.001), so B* + 1 may even hold.  The planted budget is
  :data:`BUDGET_EXTRA` units above B*, a budget whose lower end exceeds delta at the attack's
  grid -- the rule a developer writes who "adds a little slack" to the certificate.
"""
from __future__ import annotations

import dataclasses
import time
from fractions import Fraction
from typing import Optional

from ..accountants.dpsgd_game import DPSGDGameFilter
from ..bounds.sgm_game import SGMItem, _window, charged_index, sgm_law
from ..bounds.pair_game import pair_game
from ..catalog import cites
from ..precision import directed_decimal

__all__ = ["DPSGD_MENU", "ATTACK_STEPS", "BUDGET_EXTRA", "SigmaRoundedUpFilter", "BudgetAboveFilter", "attack",
           "counterexample", "run_dpsgd_probe"]

F = Fraction
#: (eps, delta, menu, the filter's grid bits): W8's sampling rate and noise levels at eps = 8 (as the natural filter's probe)
DPSGD_MENU = (F(8), F(1, 1000), (SGMItem(F(1, 10), F(1, 2)), SGMItem(F(1, 10), F(5, 8))), 6)
#: The analyst's steps (q, sigma, scale): the two items, and steps off the menu grid, each dominated by an item
ATTACK_STEPS = (
    (F(1, 10), F(1, 2), F(1)),          # item 0 itself
    (F(1, 10), F(51, 100), F(1)),       # just above item 0's noise (charged at item 0; the planted rule: at item 1)
    (F(9, 100), F(11, 20), F(1)),       # a smaller rate, noise between the items
    (F(1, 10), F(5, 8), F(1)),          # item 1 itself
    (F(2, 25), F(3, 5), F(24, 25)),     # a smaller rate and a sensitivity scale: sigma/scale = 5/8 exactly
    (F(1, 10), F(7, 10), F(1)),         # more noise than any item
)
#: Units above B* of the planted NC-DPSGD-BUDGET-ABOVE (B* + 1 is not refuted at these grids: module docstring)
BUDGET_EXTRA = 8
#: The attack's loss grid 2^-bits (the filter's own grid)
ATTACK_BITS = 6


class SigmaRoundedUpFilter(DPSGDGameFilter):
    """Planted (false): a step is charged at the item whose sigma/scale is the nearest at or ABOVE the step's.

    A developer rounding the noise to the menu's grid "to the nearest item up" charges a step with
    sigma between two items at the noisier one, which does not dominate it (its pair is less leaky
    than the step's).  Steps with no item at or above their noise fall back to the valid rule.
    """

    def charged_item(self, q, sigma, scale=1) -> int:
        q, sigma, scale = self._parse_step(q, sigma, scale)
        s = sigma / scale
        menu = self._p["menu"]
        up = [k for k, it in enumerate(menu) if q <= it.q and it.sigma_eff >= s]
        if up:
            return min(up, key=lambda k: (menu[k].sigma_eff, k))
        k = charged_index(menu, self._p["charges"], q, sigma, scale)
        if k is None:
            raise ValueError(f"no menu item dominates the step q = {q}, sigma = {sigma}, scale = {scale}")
        return k


class BudgetAboveFilter(DPSGDGameFilter):
    """Planted (false): the filter with its budget raised ``extra`` (:data:`BUDGET_EXTRA`) units above the certified B*.

    Its decisions, ``budget`` and ``remaining()`` all use the raised budget; ``certified_budget`` keeps B*.
    """

    def __init__(self, *args, extra: int = BUDGET_EXTRA, **kw):
        super().__init__(*args, **kw)
        self.certified_budget = self._cert.budget
        self._cert = dataclasses.replace(self._cert, budget=self._cert.budget + int(extra))   # a copy: the cache's is kept
        self._p["budget"] = Fraction(self._cert.budget)


@cites("zhu2022", "Proposition 30 / Theorem 10 (tight dominating pairs of each attack step, at sigma/scale)")
@cites("whitehouse2022", "Theorem 1 (filter semantics: a stopped adaptive interaction)")
def attack(f: DPSGDGameFilter, steps=ATTACK_STEPS, *, bits: int = ATTACK_BITS, lower: bool = True) -> dict:
    """The best adaptive analyst on ``steps`` against the filter object ``f``: certified ends of its value, both directions.

    Contract: each step is charged ``f.charge(q, sigma, scale)`` (a step the filter refuses as
    outside its menu, or charges nothing, is dropped and listed); the game of :func:`reference.bounds.pair_game.pair_game`
    on the steps' own laws (:func:`reference.bounds.sgm_game.sgm_law` at q and sigma/scale, grid
    2^-bits) with those charges is read at the budget ``f.budget``.  Returns ``{"upper", "lower"}``
    (per direction, exact rationals: ``upper`` >= the value of every adaptive analyst on the steps,
    ``lower`` <= that of an actual one), ``"charges"``, ``"dropped"``, ``"budget"``.
    """
    eps, delta = f.eps, f.delta
    kept, charges, dropped = [], [], []
    for st in steps:
        try:
            c = f.charge(*st)
        except ValueError:
            dropped.append([str(x) for x in st])
            continue
        if int(c) <= 0:  # a free step: repeated without end it breaks any filter; the game needs positive charges
            dropped.append([str(x) for x in st] + ["charged 0"])
            continue
        kept.append(SGMItem(*st))
        charges.append(int(c))
    if not kept:
        raise ValueError("no attack step is charged by the filter")
    R = int(f.budget)
    h = F(1, 1 << bits)
    D = R // min(charges) + 1
    eta = F(delta) / (1 << 24) / D
    out = {"upper": {}, "lower": {}, "charges": charges, "dropped": dropped, "budget": R, "bits": bits,
           "steps": [str(it) for it in kept]}
    for direction in ("remove", "add"):
        for side in (("upper", "lower") if lower else ("upper",)):
            laws = [sgm_law(it.q, it.sigma_eff, bits, eta, direction, side) for it in kept]
            t = pair_game(eps, h, laws, charges, R, window=_window(laws, charges, R, eps, h))
            out[side][direction] = t.upper(R) if side == "upper" else t.lower(R)
    return out


def _filters():
    eps, delta, menu, bits = DPSGD_MENU
    return {"DPSGD-GAME-FILTER": lambda: DPSGDGameFilter(eps, delta, menu, bits),
            "NC-DPSGD-CHARGE-SIGMA-UP": lambda: SigmaRoundedUpFilter(eps, delta, menu, bits),
            "NC-DPSGD-BUDGET-ABOVE": lambda: BudgetAboveFilter(eps, delta, menu, bits)}


@cites("zhu2022", "Proposition 30 / Theorem 10")
def run_dpsgd_probe(claim_id: str, deep: bool = False) -> dict:
    """Attack the filter of ``claim_id`` (module docstring): ``{"counterexample", "worst", "space", "seconds"}``.

    A counterexample is reported only when the certified lower end (an actual analyst) exceeds
    delta; ``worst`` always holds the bracket of the direction with the larger lower end.  ``deep``
    refines the attack's grid by one bit.
    """
    t0 = time.perf_counter()
    f = _filters()[claim_id]()
    bits = ATTACK_BITS + (1 if deep else 0)
    a = attack(f, bits=bits)
    direction = max(a["lower"], key=a["lower"].get)
    lo, up = a["lower"][direction], a["upper"][direction]
    up_max = max(a["upper"].values())
    delta = f.delta
    menu = [str(it) for it in f.menu]
    name = type(f).__name__
    space = {"engine": "reference.bounds.pair_game on each attack step's own subsampled-Gaussian law (upper and lower "
                       "laws), charges and budget read from the filter object", "menu": menu, "eps": str(f.eps),
             "delta": str(delta), "filter_bits": f.certificate["bits"], "attack_bits": bits,
             "attack_steps": a["steps"], "charges": a["charges"], "dropped": a["dropped"], "budget": a["budget"],
             "certified_budget": getattr(f, "certified_budget", f.budget), "directions": ["remove", "add"],
             "value_upper_max": directed_decimal(up_max, 6, "upper"),
             "certified_safe": up_max <= delta}
    return probe_outcome(name, "dpsgd_probe", "game-optimal (backward induction over the steps and the loss)",
                         f"{name} on {menu}, budget {a['budget']}", menu, a, direction,
                         f"hockey-stick divergence of the stopped transcript at eps = {f.eps} ({direction} direction)",
                         lo, up, delta, bits, space, t0)


@cites("whitehouse2022", "Theorem 1 (filter semantics: a counterexample is a stopped interaction above delta)")
def probe_outcome(name: str, engine: str, adversary: str, description: str, menu: list, a: dict, direction: str,
                  event: str, lo: Fraction, up: Fraction, delta: Fraction, bits: int, space: dict, t0: float) -> dict:
    """The result of a DP-SGD filter probe (this one, :mod:`.block_probe`, :mod:`.individual_probe`):
    ``{"counterexample", "worst", "space", "seconds"}``, ``worst`` the game value's bracket [lo, up] of the attacked
    direction against delta (lower end rounded down, upper end up), a :func:`counterexample` only when the certified
    lower end lo (an actual analyst) exceeds delta; ``t0`` the probe's start (``time.perf_counter``)."""
    worst = {"target": name, "adversary": adversary, "menu": menu,
             "value_lower": directed_decimal(lo, 6, "lower"), "value_upper": directed_decimal(up, 6, "upper"),
             "allowed": directed_decimal(delta, 6, "upper"), "ratio": str(lo / delta), "direction": direction}
    ce = counterexample(name, engine, description, menu, a, direction, event, lo, up, delta, bits) if lo > delta else None
    return {"counterexample": ce, "worst": worst, "space": space, "seconds": time.perf_counter() - t0}


@cites("whitehouse2022", "Theorem 1 (filter semantics: the stopped interaction a counterexample's analyst produces)")
def counterexample(name: str, engine: str, description: str, menu: list, a: dict, direction: str, event: str,
                   lo: Fraction, up: Fraction, delta: Fraction, bits: int) -> dict:
    """The record of a certified counterexample of an :func:`attack` (``lo`` > ``delta``: the value of an actual
    analyst, the argmax policy of the lower recursion), as the falsifier's reports print it."""
    return {"target": name, "engine": engine, "target_description": description,
            "adversary": "the argmax policy of the lower recursion, on the bucketed steps", "menu": menu,
            "attack_steps": a["steps"], "charges": a["charges"], "direction": direction, "event": event,
            "probability_lower": str(lo), "probability_decimal": directed_decimal(lo, 6, "lower"),
            "promised": str(delta), "promised_decimal": directed_decimal(delta, 6, "upper"),
            "game_value_upper": directed_decimal(up, 6, "upper"), "loss_unit": f"2^-{bits}"}


def _register() -> None:
    from .claims import CLAIMS, Claim

    have = {c.id for c in CLAIMS}
    none = (lambda deep: [])
    new = [
        Claim("DPSGD-GAME-FILTER",
              "the DP-SGD game filter (budget B* from the exact adaptive game on a menu of subsampled Gaussians, each "
              "step charged at the cheapest item dominating it) makes the stopped interaction (eps, delta)-DP",
              "this project (zhu2022 Prop. 30 + the exact game of reference.bounds.pair_game, derived)",
              ("zhu2022_dpsgd_game_filter_budget",), "sgm", "dp", "valid", none,
              note="attacked with actual subsampled-Gaussian steps off the menu grid (smaller q, sigma between the "
                   "items, scale < 1), charged by the filter object, at grid 2^-6",
              direct=lambda deep: run_dpsgd_probe("DPSGD-GAME-FILTER", deep)),
        Claim("NC-DPSGD-CHARGE-SIGMA-UP",
              "planted: the DP-SGD game filter charging a step at the item whose sigma is the nearest above the step's "
              "(an item that does not dominate it)", "planted false rule", (), "sgm", "dp", "false", none, control=True,
              direct=lambda deep: run_dpsgd_probe("NC-DPSGD-CHARGE-SIGMA-UP", deep)),
        Claim("NC-DPSGD-BUDGET-ABOVE",
              f"planted: the DP-SGD game filter with its budget {BUDGET_EXTRA} units above the certified B* (B* + 1 "
              "is not refuted at the default grid: the lower end is first-order in the grid width)",
              "planted false rule", (), "sgm", "dp", "false", none, control=True,
              direct=lambda deep: run_dpsgd_probe("NC-DPSGD-BUDGET-ABOVE", deep)),
    ]
    CLAIMS.extend(c for c in new if c.id not in have)


_register()


def _first_refuted_budget(f: DPSGDGameFilter, steps=ATTACK_STEPS, *, bits: int = ATTACK_BITS,
                          span: int = 64) -> Optional[int]:
    """The smallest budget above B* whose attack lower end exceeds delta (one lower table up to B* + span), or None."""
    R0 = getattr(f, "certified_budget", f.budget)
    kept = [SGMItem(*st) for st in steps]
    charges = [int(f.charge(*st)) for st in steps]
    R = R0 + span
    h = F(1, 1 << bits)
    eta = F(f.delta) / (1 << 24) / (R // min(charges) + 1)
    vals = None
    for direction in ("remove", "add"):
        laws = [sgm_law(it.q, it.sigma_eff, bits, eta, direction, "lower") for it in kept]
        t = pair_game(f.eps, h, laws, charges, R, window=_window(laws, charges, R, f.eps, h))
        v = [t.lower(r) for r in range(R + 1)]
        vals = v if vals is None else [max(a, b) for a, b in zip(vals, v)]
    return next((r for r in range(R0 + 1, R + 1) if vals[r] > f.delta), None)
