"""The natural PLD filter for DP-SGD ("stop when the PLD accountant says so, while changing sigma"), attacked by the exact game.

The claim NAT-PLD-FILTER-SGM is the rule a DP-SGD user writes with a PLD accountant: admit the
next subsampled-Gaussian step iff the non-adaptive composition of the steps used so far plus the
candidate is within (eps, delta).  It is not a theorem of any seed paper; the project records it
as false: :func:`reference.bounds.natural_filter.natural_filter_decision` finds, on the menu
q = 1/10, sigma in {1/2, 5/8} (W8's sampling rate and noise levels, at eps = 8 so that the
region has a few hundred count vectors), an actual adaptive analyst -- the argmax policy of the
lower recursion on a bucketed mechanism -- whose certified value exceeds delta.  The refutation
transfers to the natural filter with the exact PLD and with any accountant at least as tight as
the certified one used for the region (:mod:`reference.bounds.natural_filter`, the region
monotonicity).  The search runs in a few seconds at the default grid (region at 2^-4, lower
laws at 2^-6); ``deep`` refines the lower grid to 2^-7.  W8's own eps = 2263/100 is refuted
as well, but needs lower laws at 2^-8 over 12526 count vectors (minutes; a slow test).
"""
from __future__ import annotations

from fractions import Fraction

from ..bounds.natural_filter import natural_filter_decision
from ..bounds.sgm_game import SGMItem
from ..catalog import cites
from ..precision import directed_decimal

__all__ = ["NATURAL_MENU", "run_natural_probe"]

F = Fraction
#: (q, sigmas, eps, delta): W8's sampling rate and noise levels at a smaller eps (246 count vectors at grid 2^-4)
NATURAL_MENU = (F(1, 10), (F(1, 2), F(5, 8)), F(8), F(1, 1000))


@cites("zhu2022", "Proposition 30 / Theorem 10")
@cites("whitehouse2022", "Theorem 1 (filter semantics: a stopped adaptive interaction)")
def run_natural_probe(deep: bool = False) -> dict:
    """Decide the natural PLD filter on :data:`NATURAL_MENU`: ``{"counterexample", "worst", "space", "seconds"}``.

    A counterexample is reported only when the certified lower end of an actual analyst's value
    exceeds delta (``probability_lower`` > ``promised``); ``worst`` always holds the bracket.
    """
    q, sigmas, eps, delta = NATURAL_MENU
    items = tuple(SGMItem(q, s) for s in sigmas)
    lb = 7 if deep else 6
    d = natural_filter_decision(eps, delta, items, bits=4, lower_bits=lb)
    direction = max(d.lower, key=d.lower.get)
    lo, up = d.lower[direction], d.upper[direction]
    menu = [str(it) for it in items]
    space = {"engine": "reference.bounds.natural_filter (exact game over count vectors; upper and lower laws)",
             "menu": menu, "eps": str(eps), "delta": str(delta), "region_bits": d.bits, "lower_bits": lb,
             "count_vectors": len(d.states), "staircase": d.as_dict()["staircase"], "eta": str(d.eta),
             "directions": ["remove", "add"]}
    worst = {"target": "natural PLD filter", "adversary": "game-optimal (backward induction over counts and loss)",
             "menu": menu, "value_lower": directed_decimal(lo, 6, "lower"), "value_upper": directed_decimal(up, 6, "upper"),
             "allowed": directed_decimal(delta, 6, "upper"), "ratio": str(lo / delta), "direction": direction,
             "verdict": d.verdict}
    ce = None
    if d.refuted:
        runs = {str(list(n)): [list(x) for x in r] for n, r in d.policy[direction].items()}
        fa = d.extra["first_adaptive"][direction]
        ce = {"target": "natural PLD filter", "engine": "natural_filter",
              "target_description": "admit item k iff the certified non-adaptive PLD composition of the counts plus "
                                    f"e_k is <= delta at eps (grid 2^-{d.bits}, both directions)",
              "adversary": "the argmax policy of the lower recursion, on the bucketed mechanism", "menu": menu,
              "direction": direction, "event": f"hockey-stick divergence of the stopped transcript at eps = {eps} "
                                               f"({direction} direction)",
              "probability_lower": str(lo), "probability_decimal": directed_decimal(lo, 6, "lower"),
              "promised": str(delta), "promised_decimal": directed_decimal(delta, 6, "upper"),
              "game_value_upper": directed_decimal(up, 6, "upper"), "first_move": d.extra["first_move"][direction],
              "policy_at_most_one_step": runs, "loss_unit": f"2^-{lb}",
              "first_adaptive_state": None if fa is None else {"counts": list(fa[0]), "runs": [list(x) for x in fa[1]]},
              "staircase": space["staircase"]}
    return {"counterexample": ce, "worst": worst, "space": space, "seconds": d.seconds}


def _register() -> None:
    from .claims import CLAIMS, Claim

    if any(c.id == "NAT-PLD-FILTER-SGM" for c in CLAIMS):
        return
    CLAIMS.append(Claim(
        "NAT-PLD-FILTER-SGM",
        "the natural PLD filter (admit the next subsampled-Gaussian step, sigma chosen adaptively from a menu, iff the "
        "non-adaptive PLD composition of the steps so far plus the candidate is <= delta at eps) makes the stopped "
        "interaction (eps, delta)-DP",
        "this project (a rule DP-SGD users write; zhu2022 Prop. 30 + the exact game of reference.bounds.pair_game)",
        (), "sgm", "dp", "false", lambda deep: [],
        note="refuted on q = 1/10, sigma in {1/2, 5/8}, eps = 8, delta = 1/1000 (region at grid 2^-4); the same menu "
             "at eps = 4 is certified to hold; at W8's eps = 2263/100 (12526 count vectors) it is refuted too, with "
             "lower laws at grid 2^-8 (lower end 0.00107402 > 0.001, about 450 s: proofs/test_natural_filter.py, slow)",
        direct=run_natural_probe))


_register()
