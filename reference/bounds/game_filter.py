"""The game-certified filter's budget: the largest integer budget whose exact adaptive game value is <= delta.

The rule (derived in this project; the game is whitehouse2022's filter game, reduced to randomized
response by Lemma 3, with kairouz2015's dominance of RR): fix a grid unit g and a menu of
multiples ``m_1 = 1 < m_2 < ... < m_K`` (every integer up to ``FINE``, then geometric with ratio
``RATIO``, last ``M = ceil(eps_max/g)``).  A step that is eps_t-DP given the past is charged
``m(eps_t)^2`` (integer units of g^2) with ``m(eps_t)`` the least menu multiple with
``m g >= eps_t``; the filter admits while the charges sum to at most B*.  B* is the largest
budget whose game value G_{B*} (the sup over fully adaptive analysts, stopping allowed, of the
hockey-stick divergence at eps of the stopped transcript, :func:`reference.verify.game.threshold_game`)
is certified <= delta; so the filter is (eps, delta)-DP (whitehouse2022 Definition of a filter).

Why not "sum eps^2 <= the KOV count times eps0^2": an analyst that takes one large step exactly
when the loss sits near the hockey-stick kink beats that budget (1.2776e-6 > 1e-6 at eps0 = 0.01,
target (1, 1e-6), menu 0.01, 0.02, ..., 0.23: ``proofs/test_game.py``); the game value, not the
homogeneous count, is what bounds an adaptive analyst.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Optional

from ..catalog import Param, cites, register
from ..precision import Domain, check, compact_text
from .game import MAX_BYTES

__all__ = ["GameTooLarge", "MAX_BUDGET", "kov_count_lower", "game_size", "FINE", "RATIO", "ETA_REL", "game_menu", "charge_index", "GameBudget", "game_budget",
           "game_filter_budget", "game_filter_rounds", "kov_count"]

W22, K15 = "whitehouse2022", "kairouz2015"
FINE = 8                   # every multiple 1..FINE of the grid unit is in the menu
RATIO = Fraction(5, 4)     # above FINE the menu is geometric with this ratio (rounded up to integers)
MAX_BUDGET = 2 ** 17      # budgets (units of grid^2) above this are refused: the sweep would take minutes
MIN_DELTA = Fraction(1, 10 ** 300)  # below, the float engine's underflow term (3 R 2^-1074) is not negligible
SMALL_MENU = 64           # the default menu when the budget's reach does not fit the memory cap (64 grid units)
ETA_REL = Fraction(1, 10 ** 8)  # the game's window is cut where leaving it costs at most delta * ETA_REL
_P = Domain.positive()
_U = Domain.open_unit()


class GameTooLarge(ValueError):
    """The game's budget would exceed ``MAX_BUDGET`` units of grid^2 (refused: use a coarser grid)."""


@cites(W22, "Theorem 1 (filter semantics; the menu is this project's choice)")
def game_menu(M: int, fine: int = FINE, ratio: Fraction = RATIO) -> tuple:
    """The menu multiples: 1..min(fine, M), then ``ceil(previous * ratio)`` (at least previous + 1), ending at M.

    Preconditions: integers M >= 1, fine >= 1; ratio > 1.  Exact integers; deterministic.
    """
    if not isinstance(M, int) or M < 1:
        raise ValueError(f"M must be an integer >= 1, found {M!r}")
    if not isinstance(fine, int) or fine < 1:
        raise ValueError(f"fine must be an integer >= 1, found {fine!r}")
    ratio = check("ratio", ratio, Domain.interval(1, None))
    out = list(range(1, min(fine, M) + 1))
    while out[-1] < M:
        nxt = max(out[-1] + 1, math.ceil(out[-1] * ratio))
        out.append(min(nxt, M))
    return tuple(out)


@cites(W22, "Theorem 1 (filter semantics)")
def charge_index(eps_t: Fraction, grid: Fraction, steps: tuple) -> int:
    """Index k of the least menu multiple with ``steps[k] * grid >= eps_t`` (exact); ``ValueError`` above the menu."""
    q = eps_t / grid
    m = math.ceil(q) if q > 0 else 1
    for k, s in enumerate(steps):
        if s >= m:
            return k
    raise ValueError(f"eps_t must be at most eps_max = {steps[-1] * grid} (the largest step the filter was certified for), "
                     f"found {eps_t}")


@cites(K15, "Theorem 3.3 (the optimal count is at least any valid filter's count on the same fixed steps)")
@cites("feldman2021", "Remark 4.4 (the calibrated zCDP filter: k eps0 tanh(eps0/2) <= rho*)")
def kov_count_lower(eps, delta, eps0) -> int:
    """A certified lower bound of the optimal count of eps0-DP steps at (eps, delta), without any game.

    Contract: returns n <= the largest n whose optimal n-fold composition of eps0-DP is (eps,
    delta)-DP.  It is the larger of floor(eps/eps0) (basic composition: delta = 0 there) and the
    rounds the calibrated zCDP filter admits (:func:`reference.bounds.calibrated.calibrated_zcdp_rounds`,
    exact decisions): a valid filter that admits n fixed steps makes their n-fold composition
    (eps, delta)-DP, so the optimal count is at least n.  Used to refuse a grid too fine for
    ``MAX_BUDGET`` before any sweep.  Preconditions: eps > 0, 0 < delta < 1, eps0 > 0.
    """
    from .calibrated import calibrated_zcdp_rounds

    eps, delta, eps0 = check("eps", eps, _P), check("delta", delta, _U), check("eps0", eps0, _P)
    basic = int(eps // eps0)
    if basic > MAX_BUDGET:
        return basic
    return max(basic, calibrated_zcdp_rounds(eps0, eps, delta))


@cites(K15, "Theorem 3.3 (optimal homogeneous composition, by the one-item game)")
def kov_count(eps, delta, eps0, *, deadline: Optional[float] = None) -> tuple[int, "object"]:
    """Largest n with the optimal n-fold composition of eps0-DP at (eps, delta), via the one-item game (and its table).

    Exponential search over the horizon; the answer is certified (upper end <= delta at n, lower
    end > delta at n + 1).  ``ValueError`` if undecided (never seen; would need a finer eta);
    :class:`GameTooLarge` at once when :func:`kov_count_lower` already exceeds ``MAX_BUDGET``;
    ``deadline`` (a ``time.monotonic()`` instant) is passed to each sweep (:class:`reference.bounds.game.GameTimeout`).
    """
    from .game import threshold_game

    n_lo = kov_count_lower(eps, delta, eps0)
    if n_lo > MAX_BUDGET:
        raise GameTooLarge(f"grid = {eps0} is too fine: at least {n_lo} units of grid^2 fit (eps, delta) = ({eps}, {delta}) "
                           f"(certified lower bound), more than MAX_BUDGET = {MAX_BUDGET}; use a coarser grid")
    R = 256
    while True:
        t = threshold_game(eps, eps0, [1], [1], R, deadline=deadline)
        if t.lower(R) > delta:
            n, ok = t.decided(delta)
            if not ok:
                raise ValueError(f"the optimal count at eps0 = {eps0} is undecided at budget {n} (certified ends too wide)")
            return n, t
        if R >= MAX_BUDGET:
            raise GameTooLarge(f"grid = {eps0} is too fine: more than MAX_BUDGET = {MAX_BUDGET} units of grid^2 fit "
                               f"(eps, delta) = ({eps}, {delta}); use a coarser grid")
        R = min(4 * R, MAX_BUDGET)


@cites(W22, "Theorem 1 (filter semantics)", "Lemma 3 (conditional randomized response)")
@dataclass(frozen=True)
class GameBudget:
    """The certified budget of a game filter and its certificate.

    ``budget`` B* (integer units of grid^2); ``upper_at_budget`` >= G_{B*} (<= delta);
    ``lower_above`` <= G_{B*+1} (``decided`` iff > delta: B* is then the exact largest budget for
    this menu); ``steps`` the menu multiples actually in the game (charges ``steps^2``);
    ``eps_max`` = steps[-1] * grid; ``R_max`` the horizon of the sweep; ``kov`` the optimal
    homogeneous count at eps0 = grid (an upper bound of B*); ``engine`` the engine version.
    """

    eps: Fraction
    delta: Fraction
    grid: Fraction
    eps_max: Fraction
    steps: tuple
    budget: int
    upper_at_budget: Fraction
    lower_above: Fraction
    decided: bool
    R_max: int
    kov: int
    engine: str
    seconds: float = field(default=0.0, compare=False)
    window: tuple = field(default=(0, 0), compare=False)
    cells: int = field(default=0, compare=False)

    def as_dict(self) -> dict:
        """JSON-ready certificate: the game values as exact ``"p/q"`` strings; the inputs (grid, eps_max, eps, delta)
        as ``"p/q"`` when that is short, else as a short decimal (:func:`~reference.precision.compact_text`: exact
        up to 17 significant digits, e.g. ``"1e-300"``), never a text of hundreds of digits."""
        c = lambda q: compact_text(q, ratio=True)  # noqa: E731
        return {"budget": self.budget, "grid": c(self.grid), "eps_max": c(self.eps_max), "menu": list(self.steps),
                "charges": [m * m for m in self.steps], "game_value_at_budget_upper": str(self.upper_at_budget),
                "game_value_above_budget_lower": str(self.lower_above), "decided": self.decided,
                "eps": c(self.eps), "delta": c(self.delta), "horizon": self.R_max, "kov_count": self.kov,
                "engine": self.engine}


def _menu_for(R_max: int, grid: Fraction, eps_max: Optional[Fraction], fine: int, ratio: Fraction, eps: Fraction,
              delta: Fraction, max_bytes: int) -> tuple[tuple, tuple, dict]:
    """(menu, the multiples in the game, threshold_game_size) at horizon R_max: the default menu (the budget's reach),
    or SMALL_MENU grid units when the reach's rows exceed ``max_bytes``; an explicit eps_max is kept as given."""
    from .game import threshold_game_size

    M = max(1, math.isqrt(R_max)) if eps_max is None else max(1, math.ceil(eps_max / grid))
    while True:
        steps = game_menu(M, fine, ratio)
        in_game = tuple(m for m in steps if m * m <= R_max) or (1,)
        size = threshold_game_size(eps, grid, in_game, [m * m for m in in_game], R_max, eta=delta * ETA_REL)
        if size["bytes"] <= max_bytes or eps_max is not None or M <= SMALL_MENU:
            return steps, in_game, size
        M = SMALL_MENU  # the default menu's large steps need every row kept: certify up to 64 grid units instead


@cites(W22, "Lemma 3 (the game's rows, :func:`reference.bounds.game.threshold_game_size`)")
def game_size(eps, delta, grid, eps_max=None, *, fine: int = FINE, ratio=RATIO, max_bytes: int = MAX_BYTES) -> dict:
    """What :func:`game_budget` will need at least, from its parameters alone (no sweep): for refusing at once.

    Returns ``{"horizon_min", "bytes", "window", "updates", "too_fine"}``.  ``horizon_min`` is
    :func:`kov_count_lower` + 1 (certified: the game's horizon is the optimal count + 1, so at
    least this); ``bytes``/``window``/``updates`` are :func:`reference.bounds.game.threshold_game_size`
    of the budget game at that horizon with the menu game_budget would use (memory and time grow
    with the horizon, so these are lower bounds of the run's); ``too_fine`` is a message when the
    horizon already exceeds ``MAX_BUDGET`` (game_budget raises :class:`GameTooLarge`), else "".
    ``bytes`` counts the game's value rows (the engine's allocation); the process needs some
    tens of MB more.  Preconditions: those of :func:`game_budget` (this project, derived).
    """
    eps, delta, grid = check("eps", eps, _P), check("delta", delta, _U), check("grid", grid, _P)
    em = None if eps_max is None else max(check("eps_max", eps_max, _P), grid)
    n_lo = kov_count_lower(eps, delta, grid)
    if n_lo > MAX_BUDGET:
        return {"horizon_min": n_lo + 1, "bytes": None, "window": None, "updates": None,
                "too_fine": (f"grid = {grid} is too fine: at least {n_lo} units of grid^2 fit (eps, delta) = ({eps}, "
                             f"{delta}) (certified lower bound), more than MAX_BUDGET = {MAX_BUDGET}; use a coarser grid")}
    _, _, size = _menu_for(n_lo + 1, grid, em, int(fine), Fraction(ratio), eps, delta, max_bytes)
    return {"horizon_min": n_lo + 1, "bytes": size["bytes"], "window": size["window"], "updates": size["updates"],
            "too_fine": ""}


_CACHE: dict = {}
_CACHE_SIZE = 64


def _game_budget(eps: Fraction, delta: Fraction, grid: Fraction, eps_max: Optional[Fraction], fine: int,
                 ratio: Fraction, max_bytes: int = None, deadline: Optional[float] = None) -> GameBudget:
    """:func:`_game_budget_uncached`, cached per exact arguments and ``max_bytes`` (the deadline is not part of the key:
    a result, once finished, is the same whenever it finished)."""
    max_bytes = MAX_BYTES if max_bytes is None else int(max_bytes)
    key = (eps, delta, grid, eps_max, fine, ratio, max_bytes)
    if key not in _CACHE:
        gb = _game_budget_uncached(eps, delta, grid, eps_max, fine, ratio, max_bytes, deadline)
        if len(_CACHE) >= _CACHE_SIZE:
            _CACHE.pop(next(iter(_CACHE)))
        _CACHE[key] = gb
    return _CACHE[key]


_game_budget.cache_clear = _CACHE.clear  # the functools.lru_cache interface the proofs use


def _game_budget_uncached(eps: Fraction, delta: Fraction, grid: Fraction, eps_max: Optional[Fraction], fine: int,
                          ratio: Fraction, max_bytes: int, deadline: Optional[float]) -> GameBudget:
    import time

    from .game import ENGINE_VERSION, GameMemoryError, threshold_game

    t0 = time.perf_counter()
    size = game_size(eps, delta, grid, eps_max, fine=fine, ratio=ratio, max_bytes=max_bytes)
    if size["too_fine"]:
        raise GameTooLarge(size["too_fine"])
    if size["bytes"] > max_bytes:  # refused before the sweeps: the rows at the least possible horizon do not fit
        raise GameMemoryError(f"the game needs at least {size['bytes']} bytes (window {size['window']}, budget horizon >= "
                              f"{size['horizon_min']}), more than max_bytes = {max_bytes}: lower eps_max (the largest "
                              f"step) or coarsen the grid")
    kov, _ = kov_count(eps, delta, grid, deadline=deadline)
    R_max = kov + 1
    steps, in_game, _ = _menu_for(R_max, grid, eps_max, fine, ratio, eps, delta, max_bytes)
    t = threshold_game(eps, grid, in_game, [m * m for m in in_game], R_max, eta=delta * ETA_REL, max_bytes=max_bytes,
                       deadline=deadline)
    b, dec = t.decided(delta)
    if b < 0:
        b = 0  # budget 0 admits only 0-DP steps; G_0 = 0
    return GameBudget(eps, delta, grid, steps[-1] * grid, steps, b, t.upper(b), t.lower(b + 1), dec, R_max, kov,
                      ENGINE_VERSION, time.perf_counter() - t0, t.window, t.cells)


@cites(W22, "Theorem 1 (filter semantics)", "Lemma 3 (conditional randomized response)")
@cites(K15, "Theorem 3.3 (randomized response dominates every eps-DP step)")
def game_budget(eps, delta, grid, eps_max=None, *, fine: int = FINE, ratio=RATIO, max_bytes: Optional[int] = None,
                deadline: Optional[float] = None) -> GameBudget:
    """The certified budget B* of the game filter at target (eps, delta) with grid unit ``grid``.

    Contract: every fully adaptive analyst whose steps are eps_t-DP given the past with eps_t <=
    eps_max, charged ``m(eps_t)^2`` (module docstring) and stopped when the charges would exceed
    B*, produces an (eps, delta)-DP transcript: ``upper_at_budget`` >= the exact game value at
    B* and is <= delta.  ``eps_max`` (default: the budget's reach, grid * isqrt(n_KOV + 1): no
    larger step could ever be admitted; 64 grid units when the reach's rows would not fit
    ``reference.bounds.game.MAX_BYTES``) is rounded up to a grid multiple; larger steps are
    refused.  Budgets beyond ``MAX_BUDGET`` units raise :class:`GameTooLarge`.
    Preconditions: eps > 0, 1e-300 <= delta < 1, grid > 0, eps_max > 0 (exact rationals).
    Rounding: B* is certified (directed bounds, :mod:`reference.verify.game`); the result is
    cached per exact arguments.  Cost: about (R_max / 10^4) x (menu size) x (window / 3000) s.
    Budgets: ``max_bytes`` (default ``reference.bounds.game.MAX_BYTES``) caps the game's rows
    (:class:`reference.bounds.game.GameMemoryError` beyond, before allocating; :func:`game_size`
    estimates them up front); ``deadline`` (a ``time.monotonic()`` instant) stops the sweeps with
    :class:`reference.bounds.game.GameTimeout`; a grid whose certified lower bound of the optimal
    count (:func:`kov_count_lower`) exceeds ``MAX_BUDGET`` raises GameTooLarge before any sweep.
    """
    eps = check("eps", eps, _P)
    delta = check("delta", delta, _U)
    if delta < MIN_DELTA:
        raise ValueError(f"delta must be at least 1e-300 for the game engine (its doubles carry an underflow term of "
                         f"about 1e-318 per game), found {compact_text(delta)}")
    grid = check("grid", grid, _P)
    em = None if eps_max is None else check("eps_max", eps_max, _P)
    if em is not None and em < grid:
        em = grid
    return _game_budget(eps, delta, grid, em, int(fine), Fraction(ratio), max_bytes, deadline)


_eps = Param("eps", _P, default="1", doc="target epsilon > 0")
_delta = Param("delta", _U, default="1e-6", doc="target delta in (0, 1)")
_grid = Param("grid", _P, default="0.01", doc="grid unit g: steps are charged (g ceil(eps_t/g))^2 on the menu")
_eps0 = Param("eps0", _P, default="0.01", doc="per-step epsilon of the anticipated homogeneous workload (the grid)")


@register("whitehouse2022_game_filter_budget", paper=W22, result="Theorem 1 filter game, reduced to RR by Lemma 3 (budget solved by backward induction)",
          direction="lower", returns="int",
          summary="largest integer budget B (units grid^2) whose exact adaptive game value at (eps, delta) is certified <= delta",
          params=(_eps, _delta, _grid), provenance="derived", validity="valid",
          note="Valid by construction: the game value is a certified upper bound of the sup over fully adaptive analysts "
               "on the menu (reference.verify.game.threshold_game), and every eps_t-DP step is a post-processing of "
               "RR at its menu cell's eps (kairouz2015 Thm 3.3, whitehouse2022 Lemma 3). eps_max = the budget's reach.")
def game_filter_budget(eps, delta, grid) -> int:
    """whitehouse2022 Theorem 1's filter game (Lemma 3, RR): the game filter's certified budget B* in units of grid^2.

    See :func:`game_budget` (default menu: every step up to the budget's reach).

    >>> game_filter_budget("1", "1e-6", "0.01")
    549
    """
    return game_budget(eps, delta, grid).budget


@register("whitehouse2022_game_filter_rounds", paper=W22, result="Theorem 1 filter game (homogeneous workload on the game filter)",
          direction="exact", returns="int",
          summary="rounds of eps0-DP steps the game filter with grid eps0 admits: B* (each step is charged 1 unit)",
          params=(_eps0, _eps, _delta), provenance="derived", validity="valid",
          note="Each eps0-DP step costs one unit of eps0^2, so the count is B*; the optimal non-adaptive count "
               "(kairouz2015) is an upper bound, reached with a one-item menu.")
def game_filter_rounds(eps0, eps, delta) -> int:
    """whitehouse2022 Theorem 1's filter game (Lemma 3, RR): rounds of eps0-DP steps the game filter (grid eps0) admits, B*.

    >>> game_filter_rounds("0.01", "1", "1e-6")
    549
    """
    e0 = check("eps0", eps0, _P)
    return game_budget(eps, delta, e0).budget
