"""The per-example DP-SGD game filter attacked, one example at a time, by an adaptive analyst choosing its gradient norms.

The claim INDIVIDUAL-DPSGD-GAME is the guarantee of
:class:`reference.accountants.individual_game.IndividualDPSGDGameFilter` for one example: every fully
adaptive training run, in which the example's clipped gradient norm at each step is chosen from the
transcript (so its sensitivity scale s = min(1, norm / C) is), charged by the filter's own rule and
admitted while its charges fit the certified budget B*, is (eps, delta)-DP for that example
(feldman2021 Algorithm 3 on the game of :mod:`reference.bounds.sgm_game`; the accountant's module
docstring proves it).  The attack is the one of :mod:`.dpsgd_probe` on steps the filter's menu does
not contain: the example's steps are Poisson-subsampled Gaussians at the filter's (q, sigma) with
scales BETWEEN the menu's grid scales (1/8, 3/8, 5/8, 7/8) and at scale 1, each with its own tight
pair (zhu2022 Prop. 30 at sigma / s), each charged by calling the filter object on the norm s C (the
same double comparison ``try_run`` makes), and the best analyst choosing among them and stopping
at will is the exact game on those steps' laws, read at the filter's budget, both directions.

A planted rule must be refuted by the same attack: NC-INDIVIDUAL-SCALE-DOWN, the filter charging a
norm at the largest grid scale at or BELOW it (the scale rounded down, so a norm between two grid
scales is charged as the smaller one, and one below the first grid scale is free).
"""
from __future__ import annotations

import time
from fractions import Fraction

import numpy as np

from ..accountants.individual_game import IndividualDPSGDGameFilter
from ..catalog import cites
from ..precision import directed_decimal
from .dpsgd_probe import attack, probe_outcome

__all__ = ["INDIVIDUAL_MENU", "ATTACK_SCALES", "ScaleRoundedDownFilter", "OneExample", "run_individual_probe"]

F = Fraction
#: (eps, delta, q, sigma, clip, scales, bits) of the attacked filter: W8's sampling rate, a coarse grid of scales
INDIVIDUAL_MENU = (F(4), F(1, 1000), F(1, 10), F(1), F(1), (F(1, 2), F(1)), 5)
#: the example's sensitivity scales (dyadic, so s C is a double exactly): between the grid scales, and 1
ATTACK_SCALES = (F(1, 8), F(3, 8), F(5, 8), F(7, 8), F(1))
#: the attack's loss grid 2^-bits (one bit finer than the filter's: at 2^-5 the lower laws do not refute the planted rule)
ATTACK_BITS = 6


class ScaleRoundedDownFilter(IndividualDPSGDGameFilter):
    """Planted (false): a norm is charged at the largest grid scale at or below norm / C (the scale rounded DOWN).

    A developer "binning" the norms to the grid by truncation charges a norm between two grid scales
    at the smaller one, whose pair does not dominate the step's, and a norm below the first grid
    scale as the free null step."""

    def _slot(self, a: np.ndarray) -> np.ndarray:
        ext = self._ext
        idx = np.searchsorted(ext, a, side="right") - 1        # the largest k with t_k <= n
        np.minimum(idx, len(ext) - 1, out=idx)
        return idx


class OneExample:
    """One example of a per-example filter, seen as the attack of :mod:`.dpsgd_probe` reads a filter: ``eps``,
    ``delta``, ``budget``, ``menu``, ``certificate`` and ``charge(q, sigma, scale)``, the filter's own charge of the
    norm scale x C (a step at another q or sigma, or a scale whose norm is not a double, is refused)."""

    def __init__(self, f: IndividualDPSGDGameFilter):
        self.f = f
        self.eps, self.delta, self.budget = f.eps, f.delta, f.budget
        self.menu, self.certificate = f.items, f.certificate

    def charge(self, q, sigma, scale) -> int:
        p = self.f._p
        if Fraction(q) != p["q"] or Fraction(sigma) != p["sigma"]:
            raise ValueError(f"the example's steps are at q = {p['q']}, sigma = {p['sigma']}; found q = {q}, sigma = {sigma}")
        norm = Fraction(scale) * p["clip"]
        if Fraction(float(norm)) != norm:
            raise ValueError(f"the norm {norm} is not a double (the attack uses exact norms only)")
        return int(self.f.charges(np.array([float(norm)]))[0])


def _filters():
    eps, delta, q, sigma, clip, scales, bits = INDIVIDUAL_MENU
    kw = dict(scales=scales, bits=bits)
    return {"INDIVIDUAL-DPSGD-GAME": lambda: IndividualDPSGDGameFilter(eps, delta, q, sigma, clip, 1, **kw),
            "NC-INDIVIDUAL-SCALE-DOWN": lambda: ScaleRoundedDownFilter(eps, delta, q, sigma, clip, 1, **kw)}


@cites("feldman2021", "Algorithm 3 (individual filter), attacked one example at a time")
@cites("zhu2022", "Proposition 30 / Theorem 10 (tight pair of each attack step, at sigma / scale)")
def run_individual_probe(claim_id: str, deep: bool = False) -> dict:
    """Attack one example of the filter of ``claim_id``: ``{"counterexample", "worst", "space", "seconds"}``.

    A counterexample is reported only when the certified lower end (an actual analyst choosing the example's norms)
    exceeds delta; ``deep`` refines the attack's grid by one bit."""
    t0 = time.perf_counter()
    f = OneExample(_filters()[claim_id]())
    _, _, q, sigma, _, scales, _ = INDIVIDUAL_MENU
    steps = tuple((q, sigma, s) for s in ATTACK_SCALES)
    bits = ATTACK_BITS + (1 if deep else 0)
    a = attack(f, steps, bits=bits)
    direction = max(a["lower"], key=a["lower"].get)
    lo, up = a["lower"][direction], a["upper"][direction]
    up_max = max(a["upper"].values())
    name = type(f.f).__name__
    menu = [str(it) for it in f.menu]
    space = {"engine": "reference.bounds.pair_game on the example's own subsampled-Gaussian steps at off-grid scales "
                       "(upper and lower laws), charges and budget read from the filter object", "menu": menu,
             "eps": str(f.eps), "delta": str(f.delta), "scales": [str(s) for s in scales],
             "attack_scales": [str(s) for s in ATTACK_SCALES], "attack_bits": bits, "charges": a["charges"],
             "dropped": a["dropped"], "budget": a["budget"], "directions": ["remove", "add"],
             "value_upper_max": directed_decimal(up_max, 6, "upper"), "certified_safe": up_max <= f.delta}
    return probe_outcome(name, "individual_probe", "game-optimal choice of the example's norms (backward induction)",
                         f"{name}, one example, budget {a['budget']}", menu, a, direction,
                         f"hockey-stick divergence of the example's stopped transcript at eps = {f.eps} ({direction})",
                         lo, up, f.delta, bits, space, t0)


def _register() -> None:
    from .claims import CLAIMS, Claim

    have = {c.id for c in CLAIMS}
    none = (lambda deep: [])
    new = [
        Claim("INDIVIDUAL-DPSGD-GAME",
              "the per-example DP-SGD game filter (each example's norm scale rounded up to a grid, charged at that "
              "item against the certified B*) makes each example's stopped interaction (eps, delta)-DP",
              "this project (feldman2021 Algorithm 3 on the exact game of reference.bounds.sgm_game, derived)",
              ("feldman2021_alg3_game_rounds",), "sgm", "dp", "valid", none,
              note="attacked with the example's norms chosen adaptively at scales between the grid scales, charged by "
                   "the filter object, at grid 2^-6",
              direct=lambda deep: run_individual_probe("INDIVIDUAL-DPSGD-GAME", deep)),
        Claim("NC-INDIVIDUAL-SCALE-DOWN",
              "planted: the per-example filter charging a norm at the grid scale at or below it (scales rounded down)",
              "planted false rule", (), "sgm", "dp", "false", none, control=True,
              direct=lambda deep: run_individual_probe("NC-INDIVIDUAL-SCALE-DOWN", deep)),
    ]
    CLAIMS.extend(c for c in new if c.id not in have)


_register()
