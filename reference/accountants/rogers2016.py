"""Stateful privacy filters and odometers of Rogers, Roth, Ullman, Vadhan (rogers2016).

Objects to keep next to an analysis whose privacy parameters are chosen adaptively:

* :class:`Lemma35Filter` / :class:`Lemma35Odometer`: Lemma 3.5 as a combinator.  Give it a
  ``delta_i = 0`` filter rule (a function of the exact statistics :class:`.EpsStats` of
  the realized eps_i) or odometer (:class:`reference.bounds.rogers2016.OdometerSpec`) and a
  budget delta'_g for the deltas; it returns the filter/odometer that accepts
  ``delta_i > 0`` (HALT / ``inf`` once ``sum delta_i > delta'_g``).
* :class:`BasicFilter`, :class:`BasicOdometer`: Theorem 3.6 (basic composition).
* :class:`AdvancedFilter` (:class:`AdvancedFilterAsPrinted`): Theorem 5.1, eq. (12)
  as derived (as printed).
* :class:`AdvancedOdometer` (:class:`AdvancedOdometerAsPrinted`), :class:`Lemma64Odometer`:
  Theorem 6.5 (corrected union bound / as printed) and Lemma 6.4.

Same conventions as :mod:`reference.accountants.whitehouse2023` (whose private base ``_Accountant`` and
helpers are imported, not copied): exact ``Fraction`` state, exact decisions,
look-ahead (round i runs iff COMP(eps_1, delta_1, ..., eps_i, delta_i) = CONT, as in
Algorithm 3), probing with ``can_run`` is allowed, one lock per object, and a
JSON/dict round trip with schema, version and SHA-256 digest that re-validates the state.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Callable

import mpmath

from .whitehouse2023 import (
    BudgetExceeded,
    _Accountant,
    _cite,
    _dec,
    _eps_delta_from_json,
    _pair_to_json,
)
from .base import Remaining
from ..precision import (rational, 
    DEFAULT_DPS,
    Domain,
    certified,
    check,
)
from ..bounds.rogers2016 import (
    CONSTANT_28_04,
    EpsStats,
    OdometerSpec,
    _check_inv_e,
    _K_CORRECTED,
    _K_PRINTED,
    advanced_filter_admits,
)

__all__ = [
    "BudgetExceeded",
    "Lemma35Filter",
    "Lemma35Odometer",
    "BasicFilter",
    "BasicOdometer",
    "AdvancedFilter",
    "AdvancedFilterAsPrinted",
    "Lemma64Odometer",
    "AdvancedOdometer",
    "AdvancedOdometerAsPrinted",
    "Lemma35FilterRemaining",
    "BasicFilterRemaining",
    "AdvancedFilterRemaining",
]



# ==========================================================================
# What remaining() returns
# ==========================================================================

@dataclass(frozen=True, eq=False)
class Lemma35FilterRemaining(Remaining):
    """rogers2016 Lemma 3.5: the exact delta budget state :meth:`Lemma35Filter.remaining` returns."""

    delta_left: Fraction   #: delta'_g - sum delta_i
    delta_spent: Fraction


@dataclass(frozen=True, eq=False)
class BasicFilterRemaining(Remaining):
    """rogers2016 Theorem 3.6: the exact budget state :meth:`BasicFilter.remaining` returns."""

    eps_left: Fraction     #: the largest eps_i still admitted (with delta_i <= delta_left)
    delta_left: Fraction
    eps_spent: Fraction
    delta_spent: Fraction


@dataclass(frozen=True, eq=False)
class AdvancedFilterRemaining(Remaining):
    """rogers2016 Theorem 5.1: the certified budget state :meth:`AdvancedFilter.remaining` returns."""

    max_next_eps: mpmath.mpf  #: rounded down; admitted, and every eps_i above it (by the stated margin) is refused
    K: mpmath.mpf             #: K at the committed rounds, rounded up
    delta_left: Fraction      #: delta_g/2 - sum delta_i, exact


_P = Domain.positive()
_NN = Domain.nonnegative()
_U0 = Domain.unit_nonneg()
R16 = "rogers2016"


class _Lemma35Base(_Accountant):
    """Shared state: exact eps statistics, the delta sum, the run-length history."""

    _STATE = ("V", "eps_sum", "delta_spent")

    def _setup(self, delta_prime_g: Fraction) -> None:
        self._dpg = delta_prime_g
        self._stats = EpsStats()
        self._delta_spent = Fraction(0)

    # _Accountant reads getattr(self, "_" + field) for the state fields
    @property
    def _V(self) -> Fraction:
        return self._stats.V

    @property
    def _eps_sum(self) -> Fraction:
        return self._stats.S

    @property
    def stats(self) -> EpsStats:
        """Exact statistics of the committed eps_i (an immutable :class:`.EpsStats`)."""
        with self._lock:
            return self._stats

    @property
    def V(self) -> Fraction:
        """``sum eps_i^2`` of the committed rounds (exact)."""
        with self._lock:
            return self._stats.V

    @property
    def eps_sum(self) -> Fraction:
        """``sum eps_i`` of the committed rounds (exact)."""
        with self._lock:
            return self._stats.S

    @property
    def delta_spent(self) -> Fraction:
        """``sum delta_i`` of the committed rounds (exact)."""
        with self._lock:
            return self._delta_spent

    @property
    def delta_prime_g(self) -> Fraction:
        """The Lemma 3.5 budget delta'_g for the sum of the deltas (exact)."""
        return self._dpg

    def _apply(self, step: tuple, count: int = 1) -> None:
        self._stats = self._stats.plus(step[0], count)
        self._delta_spent += count * step[1]

    _step_to_json = _pair_to_json
    _step_from_json = _eps_delta_from_json

    def _parse_step(self, eps_i, delta_i) -> tuple:
        return (check("eps_i", eps_i, _NN, end="upper"), check("delta_i", delta_i, _U0, end="upper"))


# ==========================================================================
# Lemma 3.5: filters
# ==========================================================================

class Lemma35Filter(_Lemma35Base):
    """rogers2016 Lemma 3.5 (filter part) as a combinator: extend a ``delta_i = 0`` filter to ``delta_i > 0``.

    Contract: ``pure_admits(stats) -> bool`` is a valid privacy filter (CONT iff True) for
    (eps_g, delta_g) when every delta_i = 0, evaluated on the exact statistics
    :class:`reference.bounds.rogers2016.EpsStats` of eps_1..eps_i.  The object admits round i with
    (eps_i, delta_i) iff ``sum_{j<=i} delta_j <= delta'_g`` and ``pure_admits(stats_i)``;
    the admitted interaction is then (eps_g, delta_g + delta'_g)-DP (its DP conclusion holds:
    the proof runs on the randomized-response view, and DP survives post-processing).
    It is **not** a loss-form filter (Definition 3.2) once some delta_i > 0: for the adversary's
    real view the loss need not be bounded by what the pure rule sees (one (0, 1/10)-DP round
    has ``|Loss|`` = log(10/9) with probability one; errata R16-LEM3-5-LOSS,
    ``fullyadaptive falsify R16-LOSS-FORM-FILTER``).

    Preconditions: delta'_g >= 0; per round eps_i >= 0, delta_i in [0, 1) (Definition 2.8).
    ``pure_admits`` must be exact (no floating point) and monotone (once it halts, adding rounds
    keeps it halted).
    Serialisation: an object built directly with a custom rule can be written with
    ``to_json`` but only subclasses (:class:`BasicFilter`, :class:`AdvancedFilter`) can
    be rebuilt by ``from_json``.
    """

    __citations__ = (_cite(R16, "Lemma 3.5"),)
    _PARAMS = (("delta_prime_g", _NN, False),)

    def __init__(self, pure_admits: Callable[[EpsStats], bool], delta_prime_g):
        """rogers2016 Lemma 3.5: wrap the delta_i = 0 filter ``pure_admits`` with the delta budget ``delta_prime_g``."""
        if not callable(pure_admits):
            raise TypeError(f"pure_admits must be callable, found {type(pure_admits).__name__}")
        self._init_params({"delta_prime_g": delta_prime_g})
        self._pure_admits = pure_admits
        self._setup(self._p["delta_prime_g"])

    @classmethod
    def _from_params(cls, kw):
        raise TypeError("a Lemma35Filter built with a custom rule cannot be rebuilt from JSON; use a subclass")

    # ---- decision -------------------------------------------------------
    def _pure(self, st: EpsStats) -> bool:
        return self._pure_admits(st)

    def _reasons(self, step: tuple, full: bool) -> list[str]:
        e, d = step
        out = []
        if self._delta_spent + d > self._dpg:
            out.append("delta")
            if not full:
                return out
        if not self._pure(self._stats.plus(e)):  # evaluated even for eps = 0: the empty history may already HALT
            out.append("eps")
        return out

    def _state_problem(self) -> str | None:
        if self._delta_spent > self._dpg:
            return f"delta_spent = {_dec(self._delta_spent)} exceeds delta'_g = {_dec(self._dpg)}"
        if self._n and not self._pure(self._stats):
            return "the pure (delta_i = 0) filter halts at the stored statistics"
        return None

    def _refusal(self, step: tuple, reasons: list[str]) -> BudgetExceeded:
        parts = []
        if "eps" in reasons:
            parts.append(f"the delta_i = 0 filter {self._eps_rule()} would HALT")
        if "delta" in reasons:
            parts.append(f"sum of deltas would be {_dec(self._delta_spent + step[1])} > delta'_g = {_dec(self._dpg)}")
        return BudgetExceeded(
            f"{type(self).__name__}: round {self._n + 1} (eps_i={_dec(step[0])}, delta_i={_dec(step[1])}) refused: "
            + "; ".join(parts), step=self._n + 1, reasons=tuple(reasons), requested=step)

    def _eps_rule(self) -> str:
        return getattr(self._pure_admits, "__name__", "rule")

    def can_run(self, eps_i, delta_i=0) -> bool:
        """rogers2016 Lemma 3.5: True iff round n+1 with (eps_i, delta_i) would be admitted now (CONT); no state change.

        Exact decision on the predictable parameters only, so probing several values is safe.
        """
        step = self._parse_step(eps_i, delta_i)
        with self._lock:
            return not self._reasons(step, full=False)

    def run(self, eps_i, delta_i=0) -> int:
        """rogers2016 Lemma 3.5: commit round n+1 if admitted; returns the new round count.

        Raises :class:`~reference.accountants.base.BudgetExceeded` naming the round and the violated budget(s) if the
        filter would HALT; the state is then unchanged.  Atomic.  Call it *before* running
        the round's mechanism (Algorithm 3).
        """
        step = self._parse_step(eps_i, delta_i)
        with self._lock:
            if self._reasons(step, full=False):
                raise self._refusal(step, self._reasons(step, full=True))
            self._apply(step)
            self._push(step)
            return self._n

    def try_run(self, eps_i, delta_i=0) -> bool:
        """rogers2016 Lemma 3.5: commit round n+1 if admitted; True iff committed (state unchanged otherwise)."""
        step = self._parse_step(eps_i, delta_i)
        with self._lock:
            if self._reasons(step, full=False):
                return False
            self._apply(step)
            self._push(step)
            return True

    def remaining(self, *, dps: int = DEFAULT_DPS) -> Lemma35FilterRemaining:
        """rogers2016 Lemma 3.5: exact ``delta_left = delta'_g - sum delta_i`` and ``delta_spent`` (Fractions)."""
        with self._lock:
            S = self._delta_spent
        return Lemma35FilterRemaining(delta_left=self._dpg - S, delta_spent=S)


class BasicFilter(Lemma35Filter):
    """rogers2016 Theorem 3.6 (filter): HALT iff ``sum delta_i > delta_g`` or ``sum eps_i > eps_g``.

    Contract: the interaction of Algorithm 3 run with this filter is (eps_g, delta_g)-DP
    (Proposition 3.3 on the randomized-response view, then post-processing).  The point-wise
    (loss-form, Definition 3.2) reading holds only when every delta_i = 0: with delta_i > 0 the
    adversary's real view can have ``|Loss|`` > eps_g with probability one (errata R16-LEM3-5-LOSS).  The delta threshold is
    delta_g (the printed rule names an undefined delta'_g; errata R16-THM3-6-DELTA).
    Built as :class:`Lemma35Filter` over the pure rule ``sum eps_i <= eps_g``.
    Preconditions: eps_g >= 0, delta_g >= 0.  Rounding: none (exact rationals).
    """

    __citations__ = (_cite(R16, "Theorem 3.6 (filter)"), _cite(R16, "Lemma 3.5"))
    _PARAMS = (("eps_g", _NN, False), ("delta_g", _NN, False))

    def __init__(self, eps_g, delta_g=0):
        """rogers2016 Theorem 3.6: basic filter with budget (eps_g, delta_g); ``ValueError`` names a bad parameter."""
        self._init_params({"eps_g": eps_g, "delta_g": delta_g})
        eg = self._p["eps_g"]
        self._pure_admits = lambda st: st.S <= eg
        self._setup(self._p["delta_g"])

    @classmethod
    def _from_params(cls, kw):
        return cls(**kw)

    def _eps_rule(self) -> str:
        return f"sum eps_i <= eps_g = {_dec(self._p['eps_g'])}"

    def remaining(self, *, dps: int = DEFAULT_DPS) -> BasicFilterRemaining:
        """rogers2016 Theorem 3.6: exact budget left: ``eps_left``, ``delta_left``, ``eps_spent``, ``delta_spent`` (Fractions).

        ``eps_left`` is the largest eps_i still admitted (with delta_i <= delta_left).
        """
        with self._lock:
            S, D = self._stats.S, self._delta_spent
        return BasicFilterRemaining(eps_left=self._p["eps_g"] - S, delta_left=self._dpg - D, eps_spent=S, delta_spent=D)


class AdvancedFilter(Lemma35Filter):
    """rogers2016 Theorem 5.1 (derived eq. (12)): HALT iff ``sum delta_i > delta_g/2`` or ``K > eps_g``.

    ``K = sum_j eps_j (e^{eps_j} - 1)/2 + sqrt(2 (V + beta)(1 + log(V/beta + 1)/2) log(2/delta_g))``,
    ``V = sum eps_i^2``, ``beta = eps_g^2/(constant * log(1/delta_g))`` (constant 28.04).
    Contract: valid privacy filter for (eps_g, delta_g) (Lemma 3.5 with delta'_g = delta_g/2
    around the pure filter ``K <= eps_g``, whose failure probability is delta_g/2).
    Preconditions: eps_g > 0, delta_g in (0, 1/e) (decided exactly), constant > 0.
    Rounding: exact decisions by interval refinement (an unresolvable tie would be refused);
    :meth:`remaining` is certified.
    """

    __citations__ = (_cite(R16, "Theorem 5.1"), _cite(R16, "Lemma 3.5"))
    _PARAMS = (("eps_g", _P, False), ("delta_g", _P, False), ("constant", _P, False))
    _PRINTED = False

    def __init__(self, eps_g, delta_g, constant=CONSTANT_28_04):
        """rogers2016 Theorem 5.1: advanced filter with budget (eps_g, delta_g); ``ValueError`` names a bad parameter."""
        self._init_params({"eps_g": eps_g, "delta_g": delta_g, "constant": constant})
        _check_inv_e("delta_g", self._p["delta_g"], strict=True)
        self._setup(self._p["delta_g"] / 2)

    @classmethod
    def _from_params(cls, kw):
        return cls(**kw)

    def _pure(self, st: EpsStats) -> bool:
        p = self._p
        return advanced_filter_admits(st, p["eps_g"], p["delta_g"], p["constant"], printed=self._PRINTED)

    def _eps_rule(self) -> str:
        return f"K <= eps_g = {_dec(self._p['eps_g'])} (eq. (12){' as printed' if self._PRINTED else ''})"

    def K(self, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
        """rogers2016 Theorem 5.1: K at the committed rounds, rounded UP (what the filter has spent)."""
        with self._lock:
            st = self._stats
        p = self._p
        f = _K_PRINTED if self._PRINTED else _K_CORRECTED
        return certified(f, (st.V, p["eps_g"], p["delta_g"], p["constant"]) + st.flat(), "upper", dps)

    def remaining(self, *, dps: int = 20) -> AdvancedFilterRemaining:
        """rogers2016 Theorem 5.1: what is left, certified.

        * ``max_next_eps``: an ``mpf`` rounded DOWN such that ``can_run(max_next_eps)`` is True
          (with delta_i = 0) and every eps_i above ``max_next_eps * (1 + 2 * 10^-(dps-2))`` is
          refused (both decided exactly by bisection with exact decisions); ``0`` if the filter
          already halts at eps_i = 0 (e.g. :class:`AdvancedFilterAsPrinted` at small delta_g).
        * ``K``: K at the committed rounds, rounded UP.
        * ``delta_left``: ``delta_g/2 - sum delta_i`` (exact Fraction).
        """
        with self._lock:
            st, D = self._stats, self._delta_spent
        tol = Fraction(1, 10 ** (dps - 2))

        def ok(e: Fraction) -> bool:
            return self._pure(st.plus(e))

        if not ok(Fraction(0)):
            return AdvancedFilterRemaining(max_next_eps=mpmath.mpf(0), K=self.K(dps=dps), delta_left=self._dpg - D)
        lo, hi = Fraction(0), Fraction(1, 2 ** 10)
        while ok(hi):
            lo, hi = hi, hi * 2
        for _ in range(4 * dps + 2000):  # K is continuous and increasing in eps_i: terminates unless K = eps_g at 0
            if hi - lo <= tol * hi:
                break
            mid = (lo + hi) / 2  # dyadic: one more bit per iteration
            lo, hi = (mid, hi) if ok(mid) else (lo, mid)
        return AdvancedFilterRemaining(max_next_eps=rational(lo, "lower", dps), K=self.K(dps=dps),
                                       delta_left=self._dpg - D)


class AdvancedFilterAsPrinted(AdvancedFilter):
    """rogers2016 Theorem 5.1 with eq. (12) as printed (log(2/delta_g) outside the square root).

    Valid but loose (errata R16-EQ12-LOG): for delta_g below about 3.39e-6 it halts before the
    first round for every eps_g.  Same interface as :class:`AdvancedFilter`.
    """

    __citations__ = (_cite(R16, "Theorem 5.1 (eq. (12) as printed)"), _cite(R16, "Lemma 3.5"))
    _PRINTED = True


# ==========================================================================
# Lemma 3.5: odometers
# ==========================================================================

def _refuse_delta(d: Fraction, name: str) -> None:
    if d != 0:
        raise ValueError(f"{name} must be 0 for a rogers2016 odometer, found {d}: with delta_i > 0 Lemma 3.5's loss bound "
                         f"fails for the adversary's real view (errata R16-LEM3-5-LOSS); use "
                         f"reference.accountants.whitehouse2023.Odometer (pDP steps) or a DP filter")


class Lemma35Odometer(_Lemma35Base):
    """rogers2016 Lemma 3.5 (odometer part) as a combinator over a ``delta_i = 0`` odometer.

    Contract: ``spec`` (a :class:`reference.bounds.rogers2016.OdometerSpec`) carries a pure odometer
    valid with failure probability delta_g when every delta_i = 0; after the recorded rounds
    :meth:`value` is the pure odometer (rounded UP), a valid odometer (Definition 3.1: the
    loss satisfies ``|Loss|`` <= value for every round simultaneously with probability
    >= 1 - delta_g).  :meth:`exceeded_by` decides ``|Loss| > value`` exactly.

    Rounds with delta_i > 0 are **refused** (``ValueError``): Lemma 3.5's extension to
    approximate-DP rounds fails for the adversary's real view (one (0, 1/10)-DP round has
    ``|Loss|`` = log(10/9) > 0 = COMP with probability one; errata R16-LEM3-5-LOSS,
    ``fullyadaptive falsify R16-LEM3-5-LOSS``).  For approximate-DP rounds use a DP filter of
    this module (its DP conclusion holds) or the pDP odometer
    :class:`reference.accountants.whitehouse2023.Odometer`.
    Preconditions: per round eps_i >= 0 and delta_i = 0.
    """

    __citations__ = (_cite(R16, "Lemma 3.5"),)
    _PARAMS: tuple = ()

    def __init__(self, spec: OdometerSpec):
        """rogers2016 Lemma 3.5: odometer from ``spec`` (kind and parameters of a rogers2016 odometer)."""
        if not isinstance(spec, OdometerSpec):
            raise TypeError(f"spec must be an OdometerSpec, found {type(spec).__name__}")
        self._init_params({})
        self._spec = spec
        self._setup(spec.delta_prime_g)

    @classmethod
    def _from_params(cls, kw):
        raise TypeError("a generic Lemma35Odometer cannot be rebuilt from JSON; use a subclass")

    @property
    def spec(self) -> OdometerSpec:
        """The odometer's :class:`.OdometerSpec` (kind and exact parameters)."""
        return self._spec

    def record(self, eps_i, delta_i=0) -> int:
        """rogers2016 Lemma 3.5: record round n+1 with realized eps_i (delta_i must be 0); returns the new round count. Exact, atomic."""
        step = self._parse_step(eps_i, delta_i)
        _refuse_delta(step[1], "delta_i")
        with self._lock:
            self._apply(step)
            self._push(step)
            return self._n

    def _step_from_json(self, run: list, where: str) -> tuple:
        step = _eps_delta_from_json(self, run, where)
        _refuse_delta(step[1], f"{where}.delta_i")
        return step

    @property
    def past_budget(self) -> bool:
        """True iff ``sum delta_i > delta'_g``: the value is ``inf`` from now on."""
        with self._lock:
            return self._delta_spent > self._dpg

    def value(self, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
        """rogers2016 Lemma 3.5: the odometer COMP at the recorded rounds, rounded UP (``inf`` past the delta budget)."""
        with self._lock:
            st, D = self._stats, self._delta_spent
        return self._spec.value(st, D, dps=dps)

    def exceeded_by(self, loss) -> bool:
        """rogers2016 Definition 3.1: exact test ``|loss| > COMP`` at the recorded rounds (loss exact or +-inf)."""
        with self._lock:
            st, D = self._stats, self._delta_spent
        return self._spec.exceeded(loss, st, D)

    def values_history(self, *, dps: int = 20) -> list[dict]:
        """rogers2016 Lemma 3.5: ``[{"n": i, "V": ..., "value": COMP after round i}, ...]`` (recomputed, rounded UP)."""
        st, D, out = EpsStats(), Fraction(0), []
        for i, (e, d) in enumerate(self.history, 1):
            st, D = st.plus(e), D + d
            out.append({"n": i, "V": st.V, "value": self._spec.value(st, D, dps=dps)})
        return out


class BasicOdometer(Lemma35Odometer):
    """rogers2016 Theorem 3.6 (odometer): ``inf`` if ``sum delta_i > delta'_g``, else ``sum eps_i``; failure delta'_g.

    Preconditions: delta'_g >= 0.  Rounding: the value is the exact rational sum, rounded UP.
    """

    __citations__ = (_cite(R16, "Theorem 3.6 (odometer)"), _cite(R16, "Lemma 3.5"))
    _PARAMS = (("delta_prime_g", _NN, False),)

    def __init__(self, delta_prime_g=0):
        """rogers2016 Theorem 3.6: basic odometer with delta budget delta'_g."""
        self._init_params({"delta_prime_g": delta_prime_g})
        self._spec = OdometerSpec("basic", delta_prime_g=self._p["delta_prime_g"])
        self._setup(self._spec.delta_prime_g)

    @classmethod
    def _from_params(cls, kw):
        return cls(**kw)


class Lemma64Odometer(Lemma35Odometer):
    """rogers2016 Lemma 6.4: odometer for a beta fixed in advance (``inf`` once ``sum delta_i > delta_g/2``).

    Preconditions: delta_g in (0, 1/e) (exact), beta > 0.  Values rounded UP; comparisons exact.
    """

    __citations__ = (_cite(R16, "Lemma 6.4"), _cite(R16, "Lemma 3.5"))
    _PARAMS = (("delta_g", _P, False), ("beta", _P, False))

    def __init__(self, delta_g, beta):
        """rogers2016 Lemma 6.4: odometer with failure probability delta_g and tuning beta."""
        self._init_params({"delta_g": delta_g, "beta": beta})
        self._spec = OdometerSpec("lemma6_4", delta_g=self._p["delta_g"], beta=self._p["beta"])
        self._setup(self._spec.delta_prime_g)

    @classmethod
    def _from_params(cls, kw):
        return cls(**kw)


class AdvancedOdometer(Lemma35Odometer):
    """rogers2016 Theorem 6.5 (corrected union bound): eqs. (17)/(18); ``inf`` once ``sum delta_i > delta_g/2``.

    Configure exactly one of ``n`` (dataset size; granularity 1/n^2) or ``gamma`` (the
    granularity remark).  F = log(2 m/delta_g) with m the number of points of the beta grid
    (:func:`reference.bounds.rogers2016.beta_grid`).  Preconditions: delta_g in (0, 1/e) (exact),
    integer n >= 2 or gamma in (0, 1).  Values rounded UP; comparisons exact.
    """

    __citations__ = (_cite(R16, "Theorem 6.5"), _cite(R16, "Lemma 3.5"))
    _PARAMS = (("delta_g", _P, False), ("n", Domain.integers_from(2), True), ("gamma", Domain.open_unit(), True))
    _KINDS = ("thm6_5", "granular")

    def __init__(self, delta_g, n=None, gamma=None):
        """rogers2016 Theorem 6.5: advanced odometer; give exactly one of n and gamma."""
        self._init_params({"delta_g": delta_g, "n": n, "gamma": gamma})
        if (self._p["n"] is None) == (self._p["gamma"] is None):
            raise ValueError("AdvancedOdometer needs exactly one of n and gamma")
        if self._p["n"] is not None:
            self._spec = OdometerSpec(self._KINDS[0], delta_g=self._p["delta_g"], n=int(self._p["n"]))
        else:
            self._spec = OdometerSpec(self._KINDS[1], delta_g=self._p["delta_g"], gamma=self._p["gamma"])
        self._setup(self._spec.delta_prime_g)

    @classmethod
    def _from_params(cls, kw):
        return cls(**kw)


class AdvancedOdometerAsPrinted(AdvancedOdometer):
    """rogers2016 Theorem 6.5, eqs. (17)/(18) as printed (F = log(4 log2(n)/delta_g), or log(2 log2(1/gamma)/delta_g)).

    Its proof's union bound is one grid point short unless n is a power of 2 (errata
    R16-THM6-5-UNION).  gamma must lie in (0, 1/2].
    """

    __citations__ = (_cite(R16, "Theorem 6.5 (as printed)"), _cite(R16, "Lemma 3.5"))
    _KINDS = ("thm6_5_as_printed", "granular_as_printed")
