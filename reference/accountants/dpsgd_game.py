"""The game-certified DP-SGD filter: :class:`DPSGDGameFilter` (budget from :func:`reference.bounds.sgm_game.sgm_menu_certificate`).

A training loop declares, before its first step, a menu of Poisson-subsampled Gaussian steps
(sampling rate q, noise multiplier sigma, sensitivity scale), each with an integer cost; the
exact adaptive game of :mod:`reference.bounds.pair_game` certifies a budget B* such that the
filter "admit a step charged c_k while spent + c_k <= B*" is (eps, delta)-DP against every fully
adaptive analyst whose steps are each dominated by a menu item.  This module holds the state:
what was spent, the history, the certificate, the keyed save and restore of
:class:`reference.accountants.base._Accountant`.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

from ..bounds.sgm_game import _KEYS, SGMItem, _costs, _menu, charged_index, sgm_menu_certificate
from ..catalog import cites
from ..precision import Domain, _describe, check
from .base import BudgetExceeded, Remaining, _Accountant, _dec, _exact_json, _in

__all__ = ["DPSGDGameFilter", "DPSGDGameFilterRemaining", "DPSGDBlockFilterRemaining", "BudgetExceeded"]

_P = Domain.positive()
_NN = Domain.nonnegative()
_U = Domain.open_unit()
_U1 = Domain.half_open_unit()
_BITS = Domain(lo=Fraction(1), hi=Fraction(30), lo_closed=True, hi_closed=True, integer=True)
_BLOCK = Domain.integers_from(1)


@lru_cache(maxsize=16)
def _certificate(eps: Fraction, delta: Fraction, items: tuple, bits: int, costs, block=None):
    """The menu's certificate, once per process for each exact parameter set (never mutated by its users)."""
    return sgm_menu_certificate(eps, delta, items, bits=bits, costs=costs, block=block)


@dataclass(frozen=True, eq=False)
class DPSGDGameFilterRemaining(Remaining):
    """The budget state :meth:`DPSGDGameFilter.remaining` returns: exact integers, in the menu's cost units."""

    budget: int                    #: B*, certified by the exact adaptive game
    spent: int
    remaining: int                 #: B* - spent
    steps_left: tuple[int, ...]    #: per menu item: the steps of that item alone that still fit (blocks: the open block's too)


@dataclass(frozen=True, eq=False)
class DPSGDBlockFilterRemaining(DPSGDGameFilterRemaining):
    """:meth:`DPSGDGameFilter.remaining` of a filter with blocks: the budget state and the open block."""

    block_item: int | None = None  #: the item of the open block (None: no block open)
    block_left: int = 0            #: the steps the open block still admits free of charge


@cites("zhu2022", "Proposition 30 / Theorem 10 (tight dominating pairs of the Poisson-subsampled Gaussian; "
       "a step with q <= q_k and sigma/scale >= sigma_k/scale_k is dominated by item k's pair)")
class DPSGDGameFilter(_Accountant):
    """A DP-SGD privacy filter whose budget is certified by the exact adaptive game (derived in this project).

    Contract: the menu's items (q_k, sigma_k, scale_k) carry integer costs c_k (given, or chosen in
    proportion to each item's own optimum, :func:`reference.bounds.sgm_game.default_costs`).  A step
    (q, sigma, scale) is charged at the cheapest item that dominates it (q <= q_k and
    sigma/scale >= sigma_k/scale_k, :meth:`reference.bounds.sgm_game.SGMItem.dominates`; the first
    such item on a tie) and admitted iff spent + c_k <= B* (exact integers).  B* is the largest
    budget whose game value (sup over fully adaptive analysts on the menu, stopping allowed, in both
    directions of add/remove adjacency) is certified <= delta
    (:func:`reference.bounds.sgm_game.sgm_menu_certificate`), so every run is (eps, delta)-DP
    (whitehouse2022 Theorem 1's filter semantics).  A step that no item dominates raises
    ``ValueError``: it is outside the certificate.  Rounding: a step is charged upwards (at an item
    at least as leaky); the budget is certified from upper ends of the game value.

    Blocks (``block`` = m, an integer >= 1; ``pair_game`` docstring step 7): each item k gets a
    block length m_k (m for the item with the fewest blocks of m steps in its own optimum, longer
    ones for the others, :func:`reference.bounds.sgm_game.block_lengths`) and a cost per block
    (default 1 unit).  A step dominated by the open block's item is admitted free while the block
    has steps left; any other step opens a block of the item cheapest per step (c_k / m_k) among
    those dominating it, charged c_k, and what was left of the open block is forfeited.  The game
    on the blocks' laws certifies B*; the analyst still chooses every step adaptively and may stop
    anywhere, it only pays for a block at a time.  A homogeneous run keeps more of its optimum
    (the game's adversary switches only between blocks), and the game is computed on B*'s few
    levels, which makes fine grids affordable.

    The certificate (budget, the game value's upper end at B* and lower end at B* + 1, the costs,
    the block lengths) is part of the saved state; loading recomputes it from the parameters (cached per process) and
    refuses a state whose stored certificate differs.

    Preconditions: eps > 0, 0 < delta < 1, a non-empty menu of items with 0 < q <= 1, sigma > 0,
    0 < scale <= 1; bits an integer in [1, 30] (the loss grid 2^-bits: finer is tighter and slower);
    costs None or one positive integer per item.  Cost: about 3 s at bits = 4 and minutes at
    bits = 8 for a two-item menu at q = 0.1; cached per process.  Thread-safe; JSON round-trip with
    digest, keyed save and restore with a journal.
    """

    _PARAMS = (("eps", _P, False), ("delta", _U, False), ("menu", None, False), ("bits", _BITS, False),
               ("costs", None, True), ("charges", None, True), ("budget", _NN, True),
               ("value_at_budget", _NN, True), ("value_above_budget", _NN, True), ("block", _BLOCK, True),
               ("blocks", None, True))
    _STATE = ("spent",)
    #: bits and block are tuning parameters (the certificate holds at every grid and block): their rounded values
    _PARAM_ENDS = {**_Accountant._PARAM_ENDS, "bits": None, "block": None}
    _CERT = ("charges", "budget", "value_at_budget", "value_above_budget", "blocks")

    def __init__(self, eps, delta, menu, bits=8, costs=None, block=None):
        """A DP-SGD game filter for target (eps, delta) on a menu; ``ValueError`` names a bad parameter."""
        items = _menu(menu)
        vals = {"eps": eps, "delta": delta, "menu": items, "bits": bits, "costs": _costs(costs, len(items)),
                "charges": None, "budget": None, "value_at_budget": None, "value_above_budget": None,
                "block": block, "blocks": None}
        self._init_params(vals)
        blk = None if self._p["block"] is None else int(self._p["block"])
        cert = _certificate(self._p["eps"], self._p["delta"], items, int(self._p["bits"]), self._p["costs"], blk)
        if cert.budget < 0:  # pragma: no cover - a zero budget's game value is 0 <= delta
            raise ArithmeticError(f"the game certified no budget (internal): {cert.as_dict()}")
        self._cert = cert
        self._p["charges"] = tuple(cert.costs)
        self._p["budget"] = Fraction(cert.budget)
        self._p["value_at_budget"] = cert.upper_at_budget
        self._p["value_above_budget"] = cert.lower_above
        self._p["blocks"] = tuple(cert.blocks) or None
        self._m = self._p["blocks"]
        self._spent = Fraction(0)
        self._open = (None, 0)          # blocks: (item of the open block, steps it still admits)
        self._fast: dict = {}

    @classmethod
    def _params_kw(cls, params) -> dict:
        """As the base class; a state saved before blocks existed (no ``block``/``blocks`` keys) reads as per-step."""
        if isinstance(params, dict) and "block" not in params and "blocks" not in params:
            params = {**params, "block": None, "blocks": None}
        return super()._params_kw(params)

    @classmethod
    def _from_params(cls, kw):
        obj = cls(kw["eps"], kw["delta"], kw["menu"], int(kw["bits"]), kw["costs"],
                  None if kw["block"] is None else int(kw["block"]))
        for name in cls._CERT:
            if kw[name] != obj._p[name]:
                raise ValueError(f"params.{name} = {kw[name]} does not match the recomputed certificate "
                                 f"({obj._p[name]}): refused")
        return obj

    # ---- structured parameters and steps in the saved state --------------
    def _param_to_json(self, name: str, v):
        if name == "menu":
            return [{k: _exact_json(getattr(it, k)) for k in _KEYS} for it in v]
        if name in ("costs", "charges", "blocks"):
            return list(v)
        return _exact_json(v)

    @classmethod
    def _param_from_json(cls, name: str, v, where: str):
        if name == "menu":
            if not isinstance(v, list) or not all(isinstance(x, dict) and set(x) == set(_KEYS) for x in v):
                raise ValueError(f"{where} must be a list of {{q, sigma, scale}} objects, found {_describe(v)}")
            return tuple(SGMItem(*(_in(x[k], f"{where}[{i}].{k}", _P) for k in _KEYS)) for i, x in enumerate(v))
        if name in ("costs", "charges", "blocks"):
            if not isinstance(v, list) or not all(type(c) is int and c >= 1 for c in v):
                raise ValueError(f"{where} must be a list of positive integers, found {_describe(v)}")
            return tuple(v)
        return super()._param_from_json(name, v, where)

    def _step_to_json(self, step: tuple) -> list:
        return [_exact_json(x) for x in step]

    def _step_from_json(self, run: list, where: str) -> tuple:
        if len(run) != 3:
            raise ValueError(f"{where} must be [q, sigma, scale, count], found {run!r}")
        return (_in(run[0], f"{where}.q", _U1), _in(run[1], f"{where}.sigma", _P), _in(run[2], f"{where}.scale", _U1))

    # ---- state ----------------------------------------------------------
    @property
    def eps(self) -> Fraction:
        return self._p["eps"]

    @property
    def delta(self) -> Fraction:
        return self._p["delta"]

    @property
    def menu(self) -> tuple[SGMItem, ...]:
        """The menu items, in the order given."""
        return self._p["menu"]

    @property
    def costs(self) -> tuple[int, ...]:
        """The integer cost of each menu item (given, or chosen by :func:`reference.bounds.sgm_game.default_costs`)."""
        return self._p["charges"]

    @property
    def budget(self) -> int:
        """B*: the certified budget in cost units (exact int)."""
        return self._cert.budget

    @property
    def spent(self) -> int:
        """Cost units charged so far (exact int)."""
        with self._lock:
            return int(self._spent)

    @property
    def certificate(self) -> dict:
        """B* with its certificate (:meth:`reference.bounds.sgm_game.SGMGameCertificate.as_dict`), plus ``k0`` (each
        item's single-item count at this grid) and ``share`` (floor(B*/c_k)/k0_k, what a homogeneous run keeps)."""
        return {**self._cert.as_dict(), "k0": list(self._cert.extra["k0"]), "share": list(self._cert.extra["share"])}

    def _parse_step(self, q, sigma, scale) -> tuple[Fraction, Fraction, Fraction]:
        """A step's exact parameters, at their conservative ends (q and scale upper, sigma lower)."""
        return (check("q", q, _U1, end="upper"), check("sigma", sigma, _P, end="lower"),
                check("scale", scale, _U1, end="upper"))

    @property
    def blocks(self) -> tuple[int, ...] | None:
        """Steps per block of each menu item (None: every step is charged)."""
        return self._m

    def charged_item(self, q, sigma, scale=1) -> int:
        """The index of the menu item a step (q, sigma, scale) is charged at: the cheapest that dominates it.

        With blocks: the cheapest per step (c_k / m_k), the item a new block would be opened at.
        ``ValueError`` when no item dominates the step (it is outside the certificate).
        """
        q, sigma, scale = self._parse_step(q, sigma, scale)
        best = charged_index(self._p["menu"], self._p["charges"], q, sigma, scale, self._m)
        if best is None:
            raise ValueError(
                f"no menu item dominates the step q = {q}, sigma = {sigma}, scale = {scale} (sigma/scale = "
                f"{sigma / scale}): an item dominates a step iff step q <= item q and step sigma/scale >= item "
                f"sigma/scale; menu: {[str(it) for it in self._p['menu']]}; the step is outside the certificate")
        return best

    def charge(self, q, sigma, scale=1) -> int:
        """The integer charge of a step that opens a block (per-step charges: of every step): the cost of
        :meth:`charged_item` (``ValueError`` outside the menu).  A step inside an open block is free (:meth:`can_run`)."""
        return self._p["charges"][self.charged_item(q, sigma, scale)]

    def _after(self, step: tuple, count: int, dom=None) -> tuple:
        """(charge, open block) after ``count`` admitted steps ``step`` from the current state (exact, O(1))."""
        if self._m is None:
            k = self.charged_item(*step)
            return count * self._p["charges"][k], (None, 0)
        j, left = self._open
        menu = self._p["menu"]
        inside = left > 0 and (dom[j] if dom is not None else menu[j].dominates(*step))
        free = min(count, left) if inside else 0
        rest = count - free
        if rest == 0:
            return 0, (j, left - free)
        k = self.charged_item(*step)
        m = self._m[k]
        nb = -(-rest // m)                     # blocks opened: ceil(rest / m)
        return nb * self._p["charges"][k], (k, nb * m - rest)

    def _game_state(self) -> tuple:
        """The state the rule decides on: (spent units, open block's item, steps it still admits) -- for attacks."""
        with self._lock:
            return (int(self._spent), self._open)

    def _set_game_state(self, state: tuple) -> None:
        """Put the rule in a state of :meth:`_game_state` (an attack explores the rule's states; history is not kept)."""
        with self._lock:
            self._spent = Fraction(state[0])
            self._open = state[1]
            self._runs, self._n = [], 0

    def _apply(self, step: tuple, count: int = 1) -> None:
        c, self._open = self._after(step, count)
        self._spent += c

    def _state_problem(self) -> str | None:
        if self._spent > self._cert.budget:
            return f"spent {self._spent} units exceed the budget {self._cert.budget}"
        return None

    def _charged(self, q, sigma, scale) -> tuple:
        """(exact step, charge, item, per-item dominance), memoised on the arguments as given (a training loop
        repeats its few settings)."""
        key = (type(q), q, type(sigma), sigma, type(scale), scale)
        try:
            hit = self._fast.get(key)
        except TypeError:  # unhashable arguments: parse every time
            key, hit = None, None
        if hit is None:
            step = self._parse_step(q, sigma, scale)
            k = self.charged_item(*step)
            hit = (step, self._p["charges"][k], k, tuple(it.dominates(*step) for it in self._p["menu"]))
            if key is not None and len(self._fast) < 4096:
                self._fast[key] = hit
        return hit

    def _block_rule(self, dom: tuple, k: int, j, left: int) -> tuple[bool, tuple]:
        """(free, open block after the step) for a step dominated by the items ``dom`` and charged at item ``k``,
        with the block of item ``j`` open for ``left`` more steps."""
        if left > 0 and dom[j]:
            return True, (j, left - 1)                # inside the open block: free
        return False, (k, self._m[k] - 1)             # opens a block of item k

    def _decide(self, q, sigma, scale, commit: bool, raise_: bool):
        step, c, k, dom = self._charged(q, sigma, scale)
        with self._lock:
            opened = (None, 0)
            if self._m is not None:
                free, opened = self._block_rule(dom, k, *self._open)
                if free:
                    c = 0
            if self._spent + c > self._cert.budget:
                if raise_:
                    raise BudgetExceeded(
                        f"DPSGDGameFilter: step {self._n + 1} (q={_dec(step[0])}, sigma={_dec(step[1])}, "
                        f"scale={_dec(step[2])}, charge {c}) refused: spent {self._spent} + {c} > budget {self._cert.budget}",
                        step=self._n + 1, reasons=("budget",), requested=step)
                return False
            if commit:
                self._spent += c          # = _apply(step): the charge just computed
                self._open = opened
                self._push(step)
                return self._n if raise_ else True
            return True

    def can_run(self, q, sigma, scale=1) -> bool:
        """True iff a step (q, sigma, scale) would be admitted now (exact; no state change)."""
        return self._decide(q, sigma, scale, False, False)

    def run(self, q, sigma, scale=1) -> int:
        """Commit a step if admitted (new step count) or raise :class:`~reference.accountants.base.BudgetExceeded` (state unchanged)."""
        return self._decide(q, sigma, scale, True, True)

    def try_run(self, q, sigma, scale=1) -> bool:
        """Commit a step (q, sigma, scale) if admitted; True iff committed."""
        return self._decide(q, sigma, scale, True, False)

    def remaining(self) -> DPSGDGameFilterRemaining:
        """``budget`` = B*, ``spent``, ``remaining`` = B* - spent, ``steps_left[k]`` = floor(remaining / c_k) (exact ints).

        With blocks: steps_left[k] is floor(remaining / c_k) m_k plus the open block's steps for its
        item, and a :class:`DPSGDBlockFilterRemaining` also carries ``block_item`` and ``block_left``."""
        with self._lock:
            s = int(self._spent)
            j, bl = self._open
        left = self._cert.budget - s
        cs = self._p["charges"]
        if self._m is None:
            return DPSGDGameFilterRemaining(budget=self._cert.budget, spent=s, remaining=left,
                                            steps_left=tuple(left // c for c in cs))
        return DPSGDBlockFilterRemaining(
            budget=self._cert.budget, spent=s, remaining=left,
            steps_left=tuple((left // c) * m + (bl if k == j else 0) for k, (c, m) in enumerate(zip(cs, self._m))),
            block_item=j if bl > 0 else None, block_left=bl)

    def dp_guarantee(self) -> dict:
        """Every run is ``{"eps": eps, "delta": delta}``-DP (exact), by the game certificate."""
        return {"eps": self._p["eps"], "delta": self._p["delta"]}
