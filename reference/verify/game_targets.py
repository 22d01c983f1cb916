"""Targets for the game engine and the falsifier: the shipped :class:`.GameFilter`, and planted false rules.

The planted rules are plausible slips a developer could make; each is false, and the falsifier
(its game probes, :mod:`reference.falsify.claims`) must refute each one at its default settings:

* :class:`BudgetPlusOneTarget`: the game filter with its budget B* + 1 (the slack of the last
  unit dropped): only an optimal adversary sees it (G_{B*+1} exceeds delta by about 0.02%).
* :class:`SumSquaresAtKOVTarget`: "sum eps_t^2 <= n_KOV eps0^2", the homogeneous optimum read
  as a budget for every adaptive analyst (one large step at the hockey-stick kink beats it).
* :class:`ChargeRoundedDownTarget`: the game filter charging (g floor(eps_t/g))^2 instead of the
  ceiling (a step just under 2g costs what g costs).
* :class:`ConversionBackwardsTarget`: a Renyi filter at a fixed order whose budget adds the
  conversion term instead of subtracting it (eps + log(1/delta)/(alpha-1)).
* :class:`ChargeNearestTarget`: the game filter rounding eps_t/g to the *nearest* grid point
  (right on the grid; wrong only for steps between grid points, e.g. 1.25 g charged as g).
* :class:`ChargeClampedTarget`: the game filter whose cost table is looked up at its last entry
  for steps above eps_max instead of refusing them (right on the menu; wrong only above it).

The last two misbehave only off the filter's own menu: a search restricted to the menu, or to a
horizon that prunes large steps, cannot see them.

Not planted: a Renyi filter admitting while *some* order of a list fits its own calibrated budget
(the order chosen after the run).  It is not covered by any theorem, but it is not refutable at
the scales searched: with 40 orders in [1.05, 12] the best adaptive analyst on pairs and triples
of {1/16, ..., 1} reaches 0.939 delta at (1, 1/10) (the RDP -> DP conversion's slack absorbs the
union).  The calibrated filters fix their order at construction, and a count test feeds a
non-optimal order to :class:`reference.accountants.feldman2021.CalibratedRenyiFilter`.
"""
from __future__ import annotations

import math
from fractions import Fraction

import mpmath

from ..catalog import cites
from ..precision import mpf_to_fraction
from .engine import AccState, Target

__all__ = ["GameFilterTarget", "BudgetPlusOneTarget", "SumSquaresAtKOVTarget", "ChargeRoundedDownTarget",
           "ConversionBackwardsTarget", "ChargeNearestTarget", "ChargeClampedTarget"]

W22, F21 = "whitehouse2022", "feldman2021"


def _spent_units(state: AccState, grid: Fraction, charge) -> Fraction:
    if state.counts is None:
        q = state.V / (grid * grid)
        if q.denominator != 1:
            raise ValueError(f"V = {state.V} is not an integer number of grid units {grid}^2 (menu off the grid)")
        return q
    return sum((c * charge(e) for e, c in state.eps_counts().items()), Fraction(0))


@cites(W22, "Theorem 1 (filter semantics)", "Lemma 3")
class GameFilterTarget(Target):
    """The shipped :class:`reference.accountants.game.GameFilter` (decision ``can_run`` on the exact spent units).

    ``stat`` is ``"V"`` when every menu eps is a menu multiple of the grid (then V / grid^2 is
    the spent charge) and ``"counts"`` otherwise.  ``budget_shift`` (default 0) moves B* for the
    planted variant :class:`BudgetPlusOneTarget`.
    """

    kind, stat, supports_delta = "filter", "V", False

    def __init__(self, eps=1, delta=Fraction(1, 10 ** 6), grid=Fraction(1, 100), eps_max=None, name="GAME_filter"):
        from ..accountants.game import GameFilter

        self.obj = GameFilter(eps, delta, grid, eps_max)
        self.eps, self.delta, self.grid = self.obj.eps, self.obj.delta, self.obj._p["grid"]
        self.name = name
        self.description = f"GameFilter(eps={self.eps}, delta={self.delta}, grid={self.grid}; B* = {self.obj.budget})"

    def bind(self, menu):
        # items above eps_max are refused in every state (admits), so they never enter V: only the admissible ones
        # decide whether V / grid^2 is the spent charge
        top = self.obj._p["eps_max"]
        on = all((e / self.grid).denominator == 1 and int(e / self.grid) in self.obj._gb.steps
                 for e, _ in menu if e <= top)
        self.stat = "V" if on else "counts"

    def budget(self) -> int:
        return self.obj.budget

    def admits(self, state, e, d):
        o = self.obj
        o._spent = _spent_units(state, self.grid, o.charge)
        if e > o._p["eps_max"]:
            return False
        return o._spent + o.charge(e) <= self.budget()


@cites(W22, "Theorem 1 (broken on purpose)")
class BudgetPlusOneTarget(GameFilterTarget):
    """Planted false rule: the game filter admitting B* + 1 units (the certificate's last unit of slack dropped)."""

    def __init__(self, eps=1, delta=Fraction(1, 10 ** 6), grid=Fraction(1, 100), name="NC_game_budget_plus_one"):
        super().__init__(eps, delta, grid, name=name)
        self.description = f"GameFilter with budget B* + 1 = {self.obj.budget + 1} (planted)"

    def budget(self) -> int:
        return self.obj.budget + 1


@cites(W22, "Theorem 1 (broken on purpose)")
class SumSquaresAtKOVTarget(Target):
    """Planted false rule: admit while sum eps_t^2 <= n_KOV(eps0) eps0^2 (the homogeneous optimum as a budget)."""

    kind, stat, supports_delta = "filter", "V", False

    def __init__(self, eps=1, delta=Fraction(1, 10 ** 6), eps0=Fraction(1, 100), name="NC_sum_squares_at_kov_count"):
        from ..bounds.baselines import optimal_rounds_homogeneous

        self.eps, self.delta, self.eps0 = Fraction(eps), Fraction(delta), Fraction(eps0)
        self.n = optimal_rounds_homogeneous(self.eps0, self.eps, self.delta)
        self.name = name
        self.description = f"admit while sum eps^2 <= {self.n} x {self.eps0}^2 (n_KOV at eps0 = {self.eps0}; planted)"

    def admits(self, state, e, d):
        return state.V + e * e <= self.n * self.eps0 ** 2


@cites(W22, "Theorem 1 (broken on purpose)")
class ChargeRoundedDownTarget(GameFilterTarget):
    """Planted false rule: the game filter charging (g floor(eps_t/g))^2 units (at least one unit) instead of the ceiling."""

    def __init__(self, eps=1, delta=Fraction(1, 10 ** 6), grid=Fraction(1, 100), name="NC_game_charge_rounded_down"):
        super().__init__(eps, delta, grid, name=name)
        self.description = f"GameFilter charging floor(eps_t/g)^2 (planted); B* = {self.obj.budget}"

    def bind(self, menu):
        self.stat = "counts"

    def _down(self, e: Fraction) -> int:
        return max(1, math.floor(e / self.grid)) ** 2

    def admits(self, state, e, d):
        if e > self.obj._p["eps_max"]:
            return False
        spent = sum((c * self._down(x) for x, c in state.eps_counts().items()), 0)
        return spent + self._down(e) <= self.obj.budget


def _rr_rdp_up(alpha: Fraction, e: Fraction) -> Fraction:
    from ..bounds.classical import rr_rdp

    return mpf_to_fraction(rr_rdp(alpha, e, dps=30)) * (1 + Fraction(1, 10 ** 25))


@cites(F21, "Theorem 4.3 (broken on purpose: the conversion read backwards)")
class ConversionBackwardsTarget(Target):
    """Planted false rule: a Renyi filter at order alpha with budget eps + log(1/delta)/(alpha - 1) (sign flipped)."""

    kind, stat, supports_delta = "filter", "counts", False

    def __init__(self, eps=1, delta=Fraction(1, 10), alpha=Fraction(4), name="NC_renyi_conversion_backwards"):
        self.eps, self.delta, self.alpha = Fraction(eps), Fraction(delta), Fraction(alpha)
        with mpmath.workprec(100):
            b = mpmath.mpf(self.eps.numerator) / self.eps.denominator - mpmath.log(
                mpmath.mpf(self.delta.numerator) / self.delta.denominator) / (mpmath.mpf(self.alpha.numerator) / self.alpha.denominator - 1)
        self.B = mpf_to_fraction(b)
        self.name = name
        self.description = f"Renyi filter alpha = {self.alpha}, budget eps + log(1/delta)/(alpha-1) = {float(self.B):.6g} (planted)"
        self._c: dict = {}

    def _charge(self, e):
        c = self._c.get(e)
        if c is None:
            c = self._c[e] = _rr_rdp_up(self.alpha, e)
        return c

    def admits(self, state, e, d):
        s = sum((c * self._charge(x) for x, c in state.eps_counts().items()), Fraction(0))
        return s + self._charge(e) <= self.B


@cites(W22, "Theorem 1 (broken on purpose)")
class ChargeNearestTarget(GameFilterTarget):
    """Planted false rule: the game filter charging (g round(eps_t/g))^2 units (nearest grid point, at least one unit).

    Identical to the shipped filter on its grid; between grid points it undercharges (1.25 g costs
    what g costs), so only a menu with off-grid steps refutes it.
    """

    def __init__(self, eps=1, delta=Fraction(1, 100), grid=Fraction(1, 8), name="NC_game_charge_nearest"):
        super().__init__(eps, delta, grid, name=name)
        self.description = f"GameFilter charging round(eps_t/g)^2 (planted); B* = {self.obj.budget}"

    def bind(self, menu):
        self.stat = "counts"

    def _near(self, e: Fraction) -> int:
        return max(1, math.floor(e / self.grid + Fraction(1, 2))) ** 2

    def admits(self, state, e, d):
        if e > self.obj._p["eps_max"]:
            return False
        spent = sum((c * self._near(x) for x, c in state.eps_counts().items()), 0)
        return spent + self._near(e) <= self.obj.budget


@cites(W22, "Theorem 1 (broken on purpose)")
class ChargeClampedTarget(GameFilterTarget):
    """Planted false rule: the game filter whose charge is read from its cost table clamped at the last entry.

    Steps up to eps_max are charged exactly as the shipped filter charges them; a step above
    eps_max is charged (eps_max/g)^2 units instead of being refused, so only a menu with a step
    above the filter's largest admissible item refutes it.
    """

    def __init__(self, eps=1, delta=Fraction(1, 100), grid=Fraction(1, 8), name="NC_game_charge_clamped"):
        super().__init__(eps, delta, grid, name=name)
        self.description = (f"GameFilter charging steps above eps_max = {self.obj._p['eps_max']} as eps_max (planted); "
                            f"B* = {self.obj.budget}")

    def bind(self, menu):
        self.stat = "counts"

    def _clamped(self, e: Fraction) -> int:
        return self.obj.charge(min(e, self.obj._p["eps_max"]))

    def admits(self, state, e, d):
        spent = sum((c * self._clamped(x) for x, c in state.eps_counts().items()), 0)
        return spent + self._clamped(e) <= self.obj.budget
