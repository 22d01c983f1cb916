"""The game-certified filter: :class:`GameFilter` (budget from the exact adaptive game, :mod:`reference.bounds.game_filter`)."""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from ..bounds.game_filter import FINE, RATIO, charge_index, game_budget
from ..catalog import cites
from ..precision import Domain, check
from .base import BudgetExceeded, Remaining, _Accountant, _dec
from .feldman2021 import _eps_step_from_json, _single_to_json

__all__ = ["GameFilter", "BudgetExceeded", "GameFilterRemaining"]

_P = Domain.positive()
_NN = Domain.nonnegative()
_U = Domain.open_unit()


@dataclass(frozen=True, eq=False)
class GameFilterRemaining(Remaining):
    """The budget state :meth:`GameFilter.remaining` returns: exact integers, in units of grid^2."""

    budget: int     #: B*, certified by the exact adaptive game
    spent: int
    remaining: int  #: B* - spent


@cites("whitehouse2022", "Theorem 1 (filter semantics)", "Lemma 3 (conditional randomized response)")
@cites("kairouz2015", "Theorem 3.3 (randomized response dominates every eps-DP step)")
class GameFilter(_Accountant):
    """A privacy filter whose budget is certified by the exact adaptive game (derived in this project).

    Contract: an eps_t-DP step (eps_t chosen adaptively, 0 <= eps_t <= eps_max) is charged
    ``m(eps_t)^2`` integer units (m(eps_t) the least menu multiple of ``grid`` at or above eps_t,
    :func:`reference.bounds.game_filter.game_menu`) and admitted iff the spent units plus the
    charge are at most B* (an exact integer comparison).  B* is the largest budget whose game
    value (sup over fully adaptive analysts on the menu, stopping allowed, of the hockey-stick
    divergence at eps of the stopped transcript) is certified <= delta, so every run is
    (eps, delta)-DP.  Steps above eps_max raise ``ValueError`` (the certificate does not cover
    them); a 0-DP step costs nothing.

    The certificate (:attr:`certificate`: B*, the upper end of the game value at B*, the lower
    end at B* + 1, grid, menu, engine version) is part of the saved state; loading recomputes it
    from the parameters (cached) and refuses a state whose stored budget or certificate differs.

    Preconditions: eps > 0, 0 < delta < 1, grid > 0, eps_max > 0 (default: the budget's reach,
    the largest step that could ever fit).  Cost: computing B* takes about 0.06 s at grid 0.01 and
    15 s (740 MB) at grid 0.001 for target (1, 1e-6) (``benchmarks/bench_game.py``); it is cached
    per process.  Thread-safe; JSON round-trip with digest.
    """

    _PARAMS = (("eps", _P, False), ("delta", _U, False), ("grid", _P, False), ("eps_max", _P, True),
               ("budget", _NN, True), ("value_at_budget", _NN, True), ("value_above_budget", _NN, True),
               ("engine", _NN, True))
    _STATE = ("spent",)
    #: the grid is a tuning parameter (the certificate holds for whatever grid is used): rounded value;
    #: eps_max is read at its lower end (a smaller eps_max refuses more)
    _PARAM_ENDS = {**_Accountant._PARAM_ENDS, "grid": None}
    _step_to_json = _single_to_json           # one exact eps_t per run, as the calibrated filters store it
    _step_from_json = _eps_step_from_json
    ENGINE = 1  # the integer stamped in the saved state for reference.verify.game.ENGINE_VERSION "game-1"

    def __init__(self, eps, delta, grid, eps_max=None):
        """A game filter for target (eps, delta) on a grid; ``ValueError`` names a bad parameter."""
        vals = {"eps": eps, "delta": delta, "grid": grid, "eps_max": eps_max, "budget": None,
                "value_at_budget": None, "value_above_budget": None, "engine": None}
        self._init_params(vals)
        gb = game_budget(self._p["eps"], self._p["delta"], self._p["grid"], self._p["eps_max"], fine=FINE, ratio=RATIO)
        self._gb = gb
        self._p["eps_max"] = gb.eps_max
        self._p["budget"] = Fraction(gb.budget)
        self._p["value_at_budget"] = gb.upper_at_budget
        self._p["value_above_budget"] = gb.lower_above
        self._p["engine"] = Fraction(self.ENGINE)
        self._spent = Fraction(0)

    @classmethod
    def _from_params(cls, kw):
        obj = cls(kw["eps"], kw["delta"], kw["grid"], kw["eps_max"])
        for name in ("eps_max", "budget", "value_at_budget", "value_above_budget", "engine"):
            if kw[name] is not None and kw[name] != obj._p[name]:
                raise ValueError(f"params.{name} = {kw[name]} does not match the recomputed certificate "
                                 f"({obj._p[name]}): refused")
        return obj

    # ---- state ----------------------------------------------------------
    @property
    def eps(self) -> Fraction:
        return self._p["eps"]

    @property
    def delta(self) -> Fraction:
        return self._p["delta"]

    @property
    def budget(self) -> int:
        """B*: the certified budget in units of grid^2 (exact int)."""
        return self._gb.budget

    @property
    def spent(self) -> int:
        """Units of grid^2 charged so far (exact int)."""
        with self._lock:
            return int(self._spent)

    @property
    def certificate(self) -> dict:
        """B* with its certificate (:meth:`reference.bounds.game_filter.GameBudget.as_dict`)."""
        return self._gb.as_dict()

    def charge(self, eps_t) -> int:
        """The integer charge m(eps_t)^2 of an eps_t-DP step (0 for eps_t = 0); ``ValueError`` above eps_max."""
        e = check("eps_t", eps_t, _NN, end="upper")
        if e == 0:
            return 0
        if e > self._p["eps_max"]:
            raise ValueError(f"eps_t must be at most eps_max = {self._p['eps_max']} (the largest step the game "
                             f"certificate covers), found {e}")
        m = self._gb.steps[charge_index(e, self._p["grid"], self._gb.steps)]
        return m * m

    def _apply(self, step: tuple, count: int = 1) -> None:
        self._spent += count * self.charge(step[0])

    def _state_problem(self) -> str | None:
        if self._spent > self._gb.budget:
            return f"spent {self._spent} units exceed the budget {self._gb.budget}"
        return None

    def _decide(self, eps_t, commit: bool, raise_: bool):
        e = check("eps_t", eps_t, _NN, end="upper")
        c = self.charge(e)
        with self._lock:
            if self._spent + c > self._gb.budget:
                if raise_:
                    raise BudgetExceeded(
                        f"GameFilter: step {self._n + 1} (eps_t={_dec(e)}, charge {c}) refused: spent {self._spent} + {c} "
                        f"> budget {self._gb.budget} (units of grid^2 = {self._p['grid']}^2)",
                        step=self._n + 1, reasons=("budget",), requested=(e,))
                return False
            if commit:
                self._apply((e,))
                self._push((e,))
                return self._n if raise_ else True
            return True

    def can_run(self, eps_t) -> bool:
        """True iff an eps_t-DP step would be admitted now (exact; no state change)."""
        return self._decide(eps_t, False, False)

    def run(self, eps_t) -> int:
        """Commit an eps_t-DP step if admitted (new step count) or raise :class:`~reference.accountants.base.BudgetExceeded` (state unchanged)."""
        return self._decide(eps_t, True, True)

    def try_run(self, eps_t) -> bool:
        """Commit an eps_t-DP step if admitted; True iff committed."""
        return self._decide(eps_t, True, False)

    def remaining(self) -> GameFilterRemaining:
        """``budget`` = B*, ``spent`` = units spent, ``remaining`` = B* - spent (exact ints, units of grid^2)."""
        with self._lock:
            s = int(self._spent)
        return GameFilterRemaining(budget=self._gb.budget, spent=s, remaining=self._gb.budget - s)

    def dp_guarantee(self) -> dict:
        """Every run is ``{"eps": eps, "delta": delta}``-DP (exact), by the game certificate."""
        return {"eps": self._p["eps"], "delta": self._p["delta"]}
