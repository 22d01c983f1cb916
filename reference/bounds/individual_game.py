"""feldman2021 Algorithm 3 (individual privacy filtering) on the exact DP-SGD game: the menu of sensitivity scales.

Each example's step is a Poisson-subsampled Gaussian (q, sigma) whose sensitivity scale (its
clipped gradient's norm over the clipping norm) is rounded up to a grid s_1 < ... < s_K = 1; the
menu items are :class:`reference.bounds.sgm_game.SGMItem` (q, sigma, s_k), their integer costs
and the common budget B* come from :func:`reference.bounds.sgm_game.sgm_menu_certificate`.  The
stateful filter and the proof of the per-example guarantee are in
:mod:`reference.accountants.individual_game`; this module holds the menu and the catalog entry.
"""
from __future__ import annotations

from fractions import Fraction
from functools import lru_cache

from ..catalog import Param, register
from ..precision import Domain, _describe, check
from .sgm_game import SGMItem, sgm_menu_certificate

__all__ = ["DEFAULT_SCALES", "check_scales", "scale_menu", "menu_certificate", "individual_game_rounds"]

_P = Domain.positive()
_U = Domain.open_unit()
_U1 = Domain.half_open_unit()
_BITS = Domain(lo=Fraction(1), hi=Fraction(30), lo_closed=True, hi_closed=True, integer=True)

#: The default grid of sensitivity scales (a choice: validity holds on any grid ending at 1).
DEFAULT_SCALES = (Fraction(1, 4), Fraction(1, 2), Fraction(3, 4), Fraction(1))


def check_scales(scales) -> tuple[Fraction, ...]:
    """A grid of scales parsed exactly: strictly increasing in (0, 1] and ending at 1 (``ValueError`` naming ``scales``)."""
    if isinstance(scales, (str, bytes)) or not hasattr(scales, "__iter__"):
        raise ValueError(f"scales must be an increasing list of numbers in (0, 1] ending at 1, found {_describe(scales)}")
    sc = tuple(check(f"scales[{i}]", s, _U1) for i, s in enumerate(scales))
    if not sc or sc[-1] != 1 or any(a >= b for a, b in zip(sc, sc[1:])):
        raise ValueError(f"scales must be strictly increasing in (0, 1] and end at 1 (norms above the clipping norm are "
                         f"charged at scale 1), found {[str(s) for s in sc]}")
    return sc


def scale_menu(q, sigma, scales=DEFAULT_SCALES) -> tuple[SGMItem, ...]:
    """The menu: one :class:`~reference.bounds.sgm_game.SGMItem` (q, sigma, s_k) per grid scale (``ValueError`` on a grid that is not increasing to 1)."""
    sc = check_scales(scales)
    q = check("q", q, _U1, end="upper")
    sigma = check("sigma", sigma, _P, end="lower")
    return tuple(SGMItem(q, sigma, s) for s in sc)


@lru_cache(maxsize=32)
def menu_certificate(eps: Fraction, delta: Fraction, items: tuple, bits: int, costs):
    """The menu's certificate (:func:`reference.bounds.sgm_game.sgm_menu_certificate`), once per process and parameter set."""
    return sgm_menu_certificate(eps, delta, items, bits=bits, costs=costs)


@register("feldman2021_alg3_game_rounds", paper="feldman2021",
          result="Algorithm 3 / Theorem 4.5 (individual privacy filtering), on the exact DP-SGD game (homogeneous example)",
          direction="exact", returns="int",
          summary="steps the per-example DP-SGD game filter admits to an example whose clipped gradient always has "
                  "norm scale * C: floor(B* / c_k), s_k the least grid scale >= scale (default grid 1/4, 1/2, 3/4, 1)",
          params=(Param("eps", _P, default="4", doc="target epsilon > 0 (each example's)"),
                  Param("delta", _U, default="1/1000", doc="target delta in (0, 1)"),
                  Param("q", _U1, default="1/10", doc="Poisson sampling rate in (0, 1]"),
                  Param("sigma", _P, default="1", doc="noise multiplier > 0 (noise sigma C)"),
                  Param("scale", _U1, default="1/2", doc="the example's gradient norm over the clipping norm, in (0, 1]"),
                  Param("bits", _BITS, default="4", doc="loss grid 2^-bits of the game (a tuning choice)")),
          provenance="derived", validity="valid",
          note="Valid by construction (proof in reference.accountants.individual_game): an example's non-admitted "
               "steps are null steps, its admitted ones are dominated by the menu item at its scale rounded up "
               "(zhu2022 Proposition 30), and the budget B* is the largest whose game value (reference.bounds."
               "pair_game, both add/remove directions) is certified <= delta; a refused example may return (Algorithm "
               "3 recomputes the active set). At most the item's own single-item count k0 (the menu's price).")
def individual_game_rounds(eps, delta, q, sigma, scale, bits=4) -> int:
    """feldman2021 Algorithm 3 on the DP-SGD game: steps admitted to an example whose norm is always ``scale`` C.

    Contract: floor(B*/c_k) with B*, c_k the certificate of the default scale menu at (eps, delta,
    q, sigma, bits) and s_k the least grid scale >= ``scale`` (the scale rounded up, exact).
    Preconditions: eps > 0, 0 < delta < 1, 0 < q <= 1, sigma > 0, 0 < scale <= 1, bits in [1, 30].
    Rounding: exact integers on a certified budget.  Cost: about 2 s at bits 4 (cached).

    >>> individual_game_rounds("4", "1/1000", "1/10", "1", "1/2", 4)
    385
    """
    e = check("eps", eps, _P)
    d = check("delta", delta, _U)
    s = check("scale", scale, _U1, end="upper")
    b = int(check("bits", bits, _BITS))
    items = scale_menu(q, sigma)
    cert = menu_certificate(e, d, items, b, None)
    k = next(i for i, it in enumerate(items) if it.scale >= s)
    return cert.budget // cert.costs[k]
