"""The falsifier's optimal adversary: game probes for every filter claim that fits the exact game, and planted false rules.

For a filter claim whose steps are (eps, delta)-DP (conditional randomized response with its reveal
outcome makes RR_{eps, delta} the worst case for a DP conclusion, whitehouse2022 Lemma 3), the falsifier does not sample
adversaries: :func:`reference.verify.game.optimal_adversary` computes, by backward induction,
the best fully adaptive analyst on a fine menu (every transcript-dependent choice, stopping
allowed) and its certified upper value; the argmax policy is replayed in the exact verifier
(:func:`reference.verify.engine.verify`, the target's own decisions) for a certified lower
value.  A claim is refuted when that lower value exceeds the promise.

Targets whose decision needs the count vector (Renyi-type sums) are searched on menus of two
values from the grid (the state space of a count vector grows as rounds^items); targets deciding
on V = sum eps^2 get the whole fine menu at once.  Every menu holds a step between the grid points
and steps far above what the filter should admit, and the game runs on the target's own horizon
(every path the filter admits), so a rule that misbehaves only off its menu or on large steps is
searched too; the planted NC-GAME-CHARGE-NEAREST and NC-GAME-CHARGE-CLAMPED are of that kind.

Planted rules (the ``NC-*`` claims registered here, each a :class:`reference.verify.game_targets` target) are false
rules a developer could plausibly write; ``falsify all`` must refute every one at its default
settings (``proofs/test_falsifier.py``), and the valid filters must not be refuted.
"""
from __future__ import annotations

import itertools
import time
from dataclasses import dataclass
from fractions import Fraction
from typing import Callable, Optional, Sequence

from ..catalog import cites
from ..precision import directed_decimal, mpf_to_fraction

__all__ = ["GameProbe", "GAME_PROBES", "run_game_probes"]

F = Fraction
W22 = "whitehouse2022"


@dataclass
class GameProbe:
    """Targets x menus searched by the optimal adversary: one target factory, menus of eps values, the horizon.

    ``rounds=None`` (every probe shipped): the target's own horizon, every path the filter admits,
    so no menu item is pruned and the value is the game's on the whole menu.  An integer caps the
    paths at sum eps^2 <= rounds x (largest eps)^2 and the reported value is labelled with the
    restriction whenever the cap cut an admitted step.
    """

    target: Callable
    menus: Sequence[Sequence[Fraction]]
    rounds: Optional[int] = None
    label: str = ""


def _show(item) -> str:
    if isinstance(item, tuple):
        e, d = item
        return str(e) if not d else f"({e}, {d})"
    return str(item)


def _pairs(values):
    return [list(p) for p in itertools.combinations(values, 2)]


# Every default menu holds, besides its grid, a step between grid points (3/32: off every probe grid) and steps far
# above anything a filter at eps = 1 should admit (1, 2): a rule that misbehaves only off its own menu or on large
# steps is then refuted by the same search (the planted NC-GAME-CHARGE-NEAREST and NC-GAME-CHARGE-CLAMPED).
_OFF_GRID = [F(3, 32)]
_LARGE = [F(1), F(2)]
_FINE32 = [F(k, 32) for k in range(1, 17)] + [F(3, 4)] + _LARGE   # 1/32 .. 1/2, 3/4, 1, 2: the whole menu (V targets)
_PAIR_GRID = [F(1, 16), F(1, 8), F(1, 4), F(3, 8), F(1, 2)] + _OFF_GRID + [F(2)]
# (eps, delta) items for targets that take delta_n > 0: conditional RR_{eps, delta} (reveal with probability delta)
_DELTA_ITEMS = [(F(1, 8), F(1, 40)), (F(1, 4), F(1, 40))]
_FINE32_DELTA = [(e, F(0)) for e in _FINE32] + _DELTA_ITEMS
_PAIR_GRID_DELTA = [(e, F(0)) for e in (F(1, 16), F(1, 8), F(1, 4), F(1, 2), F(3, 32), F(2))] + _DELTA_ITEMS
# the game filter at grid 1/8 (eps = 1, delta = 1/100: B* = 17 units, eps_max = 1/2): its own menu, steps between its
# grid points (1.25 g, 2.25 g, 3.25 g) and steps above eps_max, in counts mode (the charge is not V / g^2 off the grid)
_G8 = F(1, 8)
_G8_MENUS = ([[_G8, 2 * _G8, 3 * _G8, 4 * _G8]]
             + [[_G8, e] for e in (F(5, 32), F(9, 32), F(13, 32))] + [[F(5, 32), F(9, 32), F(13, 32)]]
             + [[_G8, e] for e in (F(5, 8), F(1), F(2))])


def _game_menu_of(t) -> list:
    return [t.grid * m for m in t.obj._gb.steps]


def _probes_valid() -> dict:
    from ..verify.calibrated import CalibratedRenyiTarget, CalibratedZCDPTarget, GDPFilterTarget
    from ..verify.game_targets import GameFilterTarget
    from ..verify.targets import (FeldmanDPFilter, FeldmanRenyiFilter, FeldmanZCDPFilter, RogersFilter, WhitehouseFilter,
                                  WhitehouseZCDPFilter)

    g = GameFilterTarget()
    pairs, pairs_d = "pairs of {1/16, 1/8, 1/4, 3/8, 1/2, 3/32, 2}", "pairs, delta_n in {0, 1/40}, with 3/32 and 2"
    return {
        "W22-THM1-FILTER": [GameProbe(lambda: WhitehouseFilter(1, F(1, 10), F(1, 10)), [_FINE32_DELTA], None,
                                      "fine menu 1/32..1/2, 3/4, 1, 2 and (1/8, 1/40), (1/4, 1/40)")],
        "F21-DP-FILTER": [GameProbe(lambda: FeldmanDPFilter(1, F(1, 10)), [_FINE32], None, "fine menu 1/32..1/2, 3/4, 1, 2")],
        "R16-THM5-1-FILTER": [GameProbe(lambda: RogersFilter("advanced", 1, F(1, 10)), _pairs(_PAIR_GRID_DELTA), None, pairs_d)],
        "R16-THM3-6-FILTER-DP": [GameProbe(lambda: RogersFilter("basic", 1, F(1, 10)), _pairs(_PAIR_GRID_DELTA), None, pairs_d)],
        "F21-THM4-3-RENYI-FILTER": [GameProbe(lambda: FeldmanRenyiFilter(4, F(1, 5), F(1, 10)), _pairs(_PAIR_GRID), None, pairs)],
        "F21-REM4-4-ZCDP-FILTER": [GameProbe(lambda: FeldmanZCDPFilter(F(1, 10), F(1, 10)), _pairs(_PAIR_GRID), None, pairs)],
        "W22-THM7-ZCDP-FILTER": [GameProbe(lambda: WhitehouseZCDPFilter(F(1, 10), F(1, 10)), _pairs(_PAIR_GRID), None, pairs)],
        "CAL-RENYI-FILTER": [GameProbe(lambda: CalibratedRenyiTarget(1, F(1, 10), eps0=F(1, 10)), _pairs(_PAIR_GRID), None,
                                       pairs)],
        "CAL-ZCDP-FILTER": [GameProbe(lambda: CalibratedZCDPTarget(1, F(1, 10)), _pairs(_PAIR_GRID), None, pairs)],
        "S22-GDP-FILTER": [GameProbe(lambda: GDPFilterTarget(1, F(1, 10)), _pairs(_PAIR_GRID), None, pairs)],
        "GAME-FILTER": [GameProbe(lambda: GameFilterTarget(), [_game_menu_of(g) + _LARGE], None,
                                  "the filter's own menu (grid 1/100) and 1, 2"),
                        GameProbe(lambda: GameFilterTarget(1, F(1, 100), _G8, name="GAME_filter_grid_1/8"), _G8_MENUS,
                                  None, "grid 1/8: its menu, off-grid steps, steps above eps_max")],
    }


def _probes_planted() -> dict:
    from ..verify.game_targets import (BudgetPlusOneTarget, ChargeClampedTarget, ChargeNearestTarget,
                                       ChargeRoundedDownTarget, ConversionBackwardsTarget, GameFilterTarget,
                                       SumSquaresAtKOVTarget)

    g = GameFilterTarget()
    menu = _game_menu_of(g)
    g8 = "grid 1/8: its menu, off-grid steps, steps above eps_max (the valid filter's probe)"
    return {
        "NC-GAME-BUDGET-PLUS-ONE": [GameProbe(lambda: BudgetPlusOneTarget(), [menu], None, "the game filter's menu")],
        "NC-SUM-SQUARES-AT-KOV": [GameProbe(lambda: SumSquaresAtKOVTarget(), [menu], None, "the game filter's menu")],
        "NC-CHARGE-ROUNDED-DOWN": [GameProbe(lambda: ChargeRoundedDownTarget(1, F(1, 100), F(1, 10)),
                                             [[F(1, 10), F(19, 100)]], None, "{g, 1.9 g}")],
        "NC-CONVERSION-BACKWARDS": [GameProbe(lambda: ConversionBackwardsTarget(), [[v] for v in _PAIR_GRID], None,
                                              "single values")],
        "NC-GAME-CHARGE-NEAREST": [GameProbe(lambda: ChargeNearestTarget(), _G8_MENUS, None, g8)],
        "NC-GAME-CHARGE-CLAMPED": [GameProbe(lambda: ChargeClampedTarget(), _G8_MENUS, None, g8)],
    }


GAME_PROBES: dict = {}


def _all_probes() -> dict:
    if not GAME_PROBES:
        GAME_PROBES.update(_probes_valid())
        GAME_PROBES.update(_probes_planted())
    return GAME_PROBES


@cites(W22, "Lemma 3 (conditional randomized response)", "Theorem 1 (filter semantics)")
def run_game_probes(claim_id: str, *, deep: bool = False) -> Optional[dict]:
    """The optimal adversary against a claim's target(s): ``None`` if the claim has no game probe.

    Returns ``{"worst": {...}, "counterexample": {...} or None, "space": {...}}``: for every probe
    and menu, the certified upper value of the best adaptive analyst; the best menu's argmax policy
    is replayed in :func:`reference.verify.engine.verify` on the same horizon for the certified
    lower value (a real analyst).  Every probe shipped runs on the target's own horizon (no step
    pruned: ``value_upper`` is an upper bound of the game on that menu).  A probe with an explicit
    cap (``GameProbe.rounds``; ``deep`` doubles it) whose cap cut an admitted step reports its
    value with ``"restriction"`` set; a menu whose state space exceeds the engine's limit is not
    searched, and ``space`` lists it with the reason (``menus_skipped``, ``skipped``).
    """
    import math

    from ..verify.engine import verify
    from ..verify.game import optimal_adversary

    probes = _all_probes().get(claim_id)
    if not probes:
        return None
    t0 = time.perf_counter()
    worst = None
    space = []
    ce = None
    for pr in probes:
        rounds = None if pr.rounds is None else pr.rounds * (2 if deep else 1)
        best = None
        n_menus = 0
        skipped = []
        restricted = 0
        target = pr.target()  # one target per probe: its memo of exact decisions is shared by the menus
        for menu in pr.menus:
            try:
                res = optimal_adversary(target, menu, rounds)
            except ValueError as exc:  # state space over the engine's limit: not searched, and said so
                skipped.append({"menu": [_show(e) for e in menu], "reason": str(exc)})
                continue
            n_menus += 1
            restricted += not res.complete
            if best is None or res.upper > best[0].upper:
                best = (res, target, menu)
        space.append({"label": pr.label, "menus": n_menus, "menus_skipped": len(skipped), "skipped": skipped,
                      "rounds": rounds, "horizon": "the target's own (every admitted path)" if rounds is None
                      else f"sum eps^2 <= {rounds} x (largest eps)^2", "menus_restricted": restricted,
                      "menu_values": sorted({_show(e) for m in pr.menus for e in m})})
        if best is None:
            continue
        res, target, menu = best
        rep = verify(target, res.adversary, max_V=math.inf if res.max_V is None else res.max_V)
        lo = mpf_to_fraction(rep.lo)
        allowed = Fraction(rep.allowed)
        w = {"target": target.name, "adversary": "game-optimal (backward induction over the transcript)",
             "menu": [_show(e) for e in menu], "value_lower": directed_decimal(lo, 6, "lower"),
             "value_upper": directed_decimal(res.upper, 6, "upper"), "allowed": directed_decimal(allowed, 6, "upper"),
             "ratio": str(lo / allowed), "probe": pr.label, "restriction": res.restriction}
        if worst is None or Fraction(w["ratio"]) > Fraction(worst["ratio"]):
            worst = w
        if lo > allowed and ce is None:
            ce = {"target": target.name, "target_description": getattr(target, "description", ""),
                  "adversary": "game-optimal", "menu": [_show(e) for e in menu],
                  "horizon": "the target's own" if res.max_V is None else f"sum eps^2 <= {res.max_V}",
                  "event": f"hockey-stick divergence of the stopped transcript at eps = {target.eps}",
                  "probability_lower": str(lo), "probability_decimal": directed_decimal(lo, 6, "lower"),
                  "promised": str(allowed), "promised_decimal": directed_decimal(allowed, 6, "upper"),
                  "game_value_upper": directed_decimal(res.upper, 6, "upper"), "restriction": res.restriction}
            break
    return {"worst": worst, "counterexample": ce, "space": space, "seconds": time.perf_counter() - t0}


def _game_law_probes(deep):
    """The game filter against general finite step laws (post-processings of RR, not only RR) at a small grid."""
    from ..verify.game_targets import GameFilterTarget
    from .claims import _filter_probes

    return _filter_probes(lambda: GameFilterTarget(1, F(1, 10), F(1, 8), name="GAME_filter_grid_1/8"),
                          [(F(1, 8), 0), (F(1, 4), 0)], [(F(3, 8), 0)], "pure")(deep)


def _register_planted() -> None:
    from .claims import CLAIMS, Claim

    have = {c.id for c in CLAIMS}
    none = (lambda deep: [])
    new = [
        Claim("GAME-FILTER", "the game-certified filter (budget B* from the exact adaptive game) makes the stopped "
              "interaction (eps, delta)-DP", "this project (whitehouse2022 Lemma 3 + kairouz2015 Thm 3.3, derived)",
              ("whitehouse2022_game_filter_budget", "whitehouse2022_game_filter_rounds"), "pure", "dp", "valid",
              _game_law_probes),
        Claim("NC-GAME-BUDGET-PLUS-ONE", "planted: the game filter with budget B* + 1 (the last unit of slack dropped)",
              "planted false rule", (), "pure", "dp", "false", none, control=True),
        Claim("NC-SUM-SQUARES-AT-KOV", "planted: admit while sum eps^2 <= n_KOV eps0^2 (the homogeneous optimum as a budget)",
              "planted false rule", (), "pure", "dp", "false", none, control=True),
        Claim("NC-CHARGE-ROUNDED-DOWN", "planted: the game filter charging floor(eps_t/g)^2 instead of the ceiling",
              "planted false rule", (), "pure", "dp", "false", none, control=True),
        Claim("NC-CONVERSION-BACKWARDS", "planted: a Renyi filter whose budget adds log(1/delta)/(alpha-1) instead of "
              "subtracting it", "planted false rule", (), "pure", "dp", "false", none, control=True),
        Claim("NC-GAME-CHARGE-NEAREST", "planted: the game filter rounding eps_t/g to the nearest grid point (wrong only "
              "between grid points)", "planted false rule", (), "pure", "dp", "false", none, control=True),
        Claim("NC-GAME-CHARGE-CLAMPED", "planted: the game filter charging steps above eps_max as eps_max instead of "
              "refusing them (wrong only above its menu)", "planted false rule", (), "pure", "dp", "false", none,
              control=True),
    ]
    CLAIMS.extend(c for c in new if c.id not in have)


_register_planted()
