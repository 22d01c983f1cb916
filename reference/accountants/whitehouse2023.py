"""Stateful privacy filters and odometers of Whitehouse, Ramdas, Rogers, Wu.

Objects a practitioner keeps next to a data analysis:

* :class:`DPFilter`: the (eps, delta)-DP filter, Theorem 1 (whitehouse2022) =
  Theorem 2 (whitehouse2023);
* :class:`ZCDPFilter`: the approximate-zCDP filter, Theorem 7 (whitehouse2022) =
  Theorem 1 (whitehouse2023);
* :class:`MixedFilter`: steps that are DP or zCDP, Theorem 6 (whitehouse2022);
* :class:`Odometer`: the filter, mixture and stitched odometers, Theorem 2
  (whitehouse2022) = Theorem 3 (whitehouse2023), and the Rogers et al. odometer
  as quoted in Lemma 3 (whitehouse2023).

Design
------
* **Exact state.**  Every parameter is parsed exactly (:func:`reference.precision.to_exact`;
  pass decimal *strings* such as ``"1e-6"`` when you mean a decimal: a float is taken as
  its exact binary value).  Running sums (``V = sum eps_m^2``, the delta sum, the rho
  sum) are :class:`fractions.Fraction`, never floats.
* **Exact decisions.**  The DP and mixed filters decide with
  :func:`reference.bounds.whitehouse2023.filter_admits`, which compares
  ``sqrt(2 log(1/delta') V) + V/2`` with ``eps`` exactly (no floating-point noise in
  either direction); the zCDP filter compares rationals.
* **Look-ahead.**  Step ``n+1`` is admitted iff the rule holds for the sums *including*
  step ``n+1`` (``sum_{m <= n+1}`` in the theorems).  The filter's stopping time ``N`` is
  the number of steps admitted before the first refusal.
* **Probing is allowed.**  The decision depends only on the *predictable* parameters
  (eps_{n+1}, delta_{n+1}), which the analyst chooses from the outputs of the first n
  steps, never on the data directly.  Asking :meth:`DPFilter.can_run` about several
  candidate parameters, or calling :meth:`DPFilter.run` again with a smaller eps after a
  refusal, is just a (predictable) way of choosing eps_{n+1}; it releases nothing about
  the data.  The guarantee is about the steps actually *committed*.
* **Thread safety.**  Each object holds a :class:`threading.Lock`; a decision and the
  commit it leads to are one atomic operation, so concurrent :meth:`DPFilter.try_run`
  calls never over-spend.
* **Resumable.**  ``DPFilter.to_json`` stores parameters, state and the run-length
  encoded history as exact ``"p/q"`` strings with a schema name, a version and a SHA-256
  digest; ``DPFilter.from_json`` re-validates everything (digest, sums, admissibility)
  so a resumed object makes exactly the decisions the original would have made.  The
  digest detects corruption and careless edits; it is not an authentication code.

Every class carries ``__citations__`` (tuple of dicts with keys ``paper``,
``paper_key``, ``arxiv``, ``source``, ``result``).
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import mpmath

from ..precision import (rational, 
    DEFAULT_DPS,
    INF,
    certified,
    check,
    mpf_to_fraction,
)
from ..bounds.whitehouse2023 import (
    filter_admits,
    pdp_drift_two_sided,
    filter_odometer,
    filter_spent,
    mixture_odometer,
    stitched_odometer,
    zcdp_to_dp_delta,
    zcdp_to_dp_eps,
)
from .base import (
    _CU,
    _NN,
    _NREC,
    _P,
    _U,
    _U0,
    SCHEMA_VERSION,
    BudgetExceeded,
    Remaining,
    _Accountant,
    _cite,
    _dec,
    _exact_json,
    _eps_delta_from_json,
    _in,
    _pair_to_json,
)

#: Marker: a recorded step's delta is outside the drift function's domain (only the KL-route
#: ``pdp_drift``, for delta (1 + e^-eps) >= 1, has such steps); every bound is then inf.
INF_DRIFT = Fraction(-1)

__all__ = [
    "SCHEMA_VERSION",
    "BudgetExceeded",
    "DPFilter",
    "ZCDPFilter",
    "MixedFilter",
    "Odometer",
    "DPFilterRemaining",
    "MixedFilterRemaining",
    "ZCDPFilterRemaining",
]

# ==========================================================================
# Certified formulas used by remaining()
# ==========================================================================

def _ystar_iv(c, dp, e):
    """Corrected y* = 4 eps^2/(sqrt(2L + 2 eps) + sqrt(2L))^2 (root of sqrt(2 L y) + y/2 = eps)."""
    L2 = -2 * c.log(dp)
    s = c.sqrt(L2 + 2 * e) + c.sqrt(L2)
    return 4 * e * e / (s * s)


def _clamped_gap(c, dp, e, V):
    """Enclosure of max(y* - V, 0); an enclosure straddling 0 is clipped to [0, hi]."""
    d = _ystar_iv(c, dp, e) - V
    lo, hi = d._mpi_
    hi_m = mpmath.mp.make_mpf(hi)
    if hi_m <= 0:
        return c.mpf(0)
    if mpmath.mp.make_mpf(lo) < 0:
        d = c.mpf([0, hi_m])
    return d


def _max_eps_formula(c, dp, e, V):
    return c.sqrt(_clamped_gap(c, dp, e, V))


def _max_rho_formula(c, dp, e, V):
    return _clamped_gap(c, dp, e, V) / 2


# ==========================================================================
# What remaining() returns
# ==========================================================================

@dataclass(frozen=True, eq=False)
class DPFilterRemaining(Remaining):
    """whitehouse2022 Theorem 1: the budget state :meth:`DPFilter.remaining` returns (rounding as documented there)."""

    max_next_eps: mpmath.mpf  #: sqrt(max(y* - V, 0)), rounded down
    max_next_V: mpmath.mpf    #: max(y* - V, 0), rounded down
    delta_left: Fraction      #: delta'' - sum delta_m, exact
    eps_spent: mpmath.mpf     #: sqrt(2 log(1/delta') V) + V/2, rounded up
    delta: Fraction           #: delta' + delta'', exact


@dataclass(frozen=True, eq=False)
class MixedFilterRemaining(DPFilterRemaining):
    """whitehouse2022 Theorem 6: :class:`DPFilterRemaining` and the largest zCDP step still admitted."""

    max_next_rho: mpmath.mpf  #: max(y* - V, 0)/2, rounded down


@dataclass(frozen=True, eq=False)
class ZCDPFilterRemaining(Remaining):
    """whitehouse2022 Theorem 7: the exact budget state :meth:`ZCDPFilter.remaining` returns."""

    rho_left: Fraction     #: rho - sum rho_n: the largest rho_n still admitted
    delta_left: Fraction   #: delta - sum delta_n
    rho_spent: Fraction
    delta_spent: Fraction


# ==========================================================================
# Theorem 1 (whitehouse2022) = Theorem 2 (whitehouse2023): the DP filter
# ==========================================================================

class DPFilter(_Accountant):
    """whitehouse2022 Theorem 1 / whitehouse2023 Theorem 2: the (eps, delta' + delta'')-DP privacy filter.

    Contract: step n+1 with parameters (eps_{n+1}, delta_{n+1}) is admitted iff::

        sqrt(2 log(1/delta') V_{n+1}) + V_{n+1}/2 <= eps   and   sum_{m<=n+1} delta_m <= delta'',

    where ``V_{n+1} = sum_{m<=n+1} eps_m^2``.  If every step A_n is
    (eps_n, delta_n)-DP *conditioned on* A_{1:n-1} (Definition 1, whitehouse2022:
    conditional DP, parameters predictable from the earlier outputs), then the
    interaction made of the admitted steps is (eps, delta' + delta'')-DP.

    Preconditions: ``eps > 0``, ``0 < delta_prime < 1``, ``0 <= delta_second < 1``;
    per step ``eps_n >= 0`` and ``delta_n`` in [0, 1].  All parsed exactly.

    Rounding: decisions are exact (:func:`reference.bounds.whitehouse2023.filter_admits`);
    reported quantities (:meth:`remaining`) are certified and rounded in the safe
    direction stated there.

    Guarantee: the filter never admits a step the exact rule refuses nor refuses one it
    admits.  Probing with :meth:`can_run` or retrying after a refusal is allowed: the
    decision is a function of the predictable parameters only (see module docstring).
    """

    __citations__ = (_cite("whitehouse2022", "Theorem 1"), _cite("whitehouse2023", "Theorem 2"))
    _PARAMS = (("eps", _P, False), ("delta_prime", _U, False), ("delta_second", _U0, False))
    _STATE = ("V", "delta_spent")

    def __init__(self, eps, delta_prime, delta_second=0):
        """whitehouse2022 Theorem 1: build a filter with target (eps, delta' + delta'').

        Preconditions: eps > 0; delta_prime in (0, 1); delta_second in [0, 1).
        Raises ``TypeError``/``ValueError`` naming the offending parameter.
        """
        self._init_params({"eps": eps, "delta_prime": delta_prime, "delta_second": delta_second})
        self._V = Fraction(0)
        self._delta_spent = Fraction(0)

    @classmethod
    def _from_params(cls, kw):
        return cls(**kw)

    _step_to_json = _pair_to_json
    _step_from_json = _eps_delta_from_json

    # ---- state ----------------------------------------------------------
    @property
    def V(self) -> Fraction:
        """Intrinsic time ``V_n = sum_{m<=n} eps_m^2`` of the committed steps (exact ``Fraction``)."""
        with self._lock:
            return self._V

    @property
    def delta_spent(self) -> Fraction:
        """``sum_{m<=n} delta_m`` of the committed steps (exact ``Fraction``)."""
        with self._lock:
            return self._delta_spent

    @property
    def eps(self) -> Fraction:
        """Target epsilon (exact)."""
        return self._p["eps"]

    @property
    def delta_prime(self) -> Fraction:
        """delta' (exact): the failure probability of the concentration bound."""
        return self._p["delta_prime"]

    @property
    def delta_second(self) -> Fraction:
        """delta'' (exact): the budget for the steps' own deltas."""
        return self._p["delta_second"]

    @property
    def delta(self) -> Fraction:
        """Target delta = delta' + delta'' (exact)."""
        return self._p["delta_prime"] + self._p["delta_second"]

    # ---- decision -------------------------------------------------------
    def _admits_eps(self, V_next: Fraction) -> bool:
        """Exact test f(V_{n+1}) <= eps (hook; the look-ahead value is passed in)."""
        if V_next == self._V:
            return True  # invariant: the current state is admissible
        return filter_admits(V_next, self._p["eps"], self._p["delta_prime"])

    def _parse_step(self, eps_n, delta_n) -> tuple:
        return (check("eps_n", eps_n, _NN, end="upper"), check("delta_n", delta_n, _CU, end="upper"))

    def _increments(self, step: tuple) -> tuple[Fraction, Fraction]:
        e, d = step
        return e * e, d

    def _reasons(self, step: tuple, full: bool) -> list[str]:
        """Violated budgets for ``step`` given the current state (caller holds the lock)."""
        v2, d = self._increments(step)
        out = []
        if self._delta_spent + d > self._p["delta_second"]:
            out.append("delta")
            if not full:
                return out
        if not self._admits_eps(self._V + v2):
            out.append("eps")
        return out

    def _apply(self, step: tuple, count: int = 1) -> None:
        v2, d = self._increments(step)
        self._V += count * v2
        self._delta_spent += count * d

    def _state_problem(self) -> str | None:
        if self._delta_spent > self._p["delta_second"]:
            return f"delta_spent = {_dec(self._delta_spent)} exceeds delta_second = {_dec(self._p['delta_second'])}"
        if not filter_admits(self._V, self._p["eps"], self._p["delta_prime"]):
            return f"sqrt(2 log(1/delta') V) + V/2 exceeds eps at V = {_dec(self._V)}"
        return None

    def _refusal(self, step: tuple, reasons: list[str]) -> BudgetExceeded:
        v2, d = self._increments(step)
        V1, S1 = self._V + v2, self._delta_spent + d
        parts = []
        if "eps" in reasons:
            fv = filter_spent(V1, self._p["delta_prime"], dps=15)
            parts.append(f"sqrt(2 log(1/delta') V) + V/2 would be {_dec(fv, 'lower')} (V = {_dec(V1)}) > eps = {_dec(self._p['eps'])}")
        if "delta" in reasons:
            parts.append(f"sum of deltas would be {_dec(S1)} > delta_second = {_dec(self._p['delta_second'])}")
        return BudgetExceeded(
            f"{type(self).__name__}: step {self._n + 1} {self._describe(step)} refused: " + "; ".join(parts),
            step=self._n + 1, reasons=tuple(reasons), requested=step)

    def _describe(self, step: tuple) -> str:
        return f"(eps_n={_dec(step[0])}, delta_n={_dec(step[1])})"

    def _can(self, step: tuple) -> bool:
        with self._lock:
            return not self._reasons(step, full=False)

    def _run(self, step: tuple) -> int:
        with self._lock:
            reasons = self._reasons(step, full=False)
            if reasons:
                raise self._refusal(step, self._reasons(step, full=True))
            self._apply(step)
            self._push(step)
            return self._n

    def _try(self, step: tuple) -> bool:
        with self._lock:
            if self._reasons(step, full=False):
                return False
            self._apply(step)
            self._push(step)
            return True

    def can_run(self, eps_n, delta_n=0) -> bool:
        """whitehouse2022 Theorem 1: True iff step n+1 with (eps_n, delta_n) would be admitted now; no state change.

        Preconditions: eps_n >= 0, delta_n in [0, 1] (exact parsing; ``TypeError``/
        ``ValueError`` name the parameter).  Rounding: none, the decision is exact.
        Guarantee: a pure query.  Probing several values is safe because the answer
        depends only on the predictable parameters, never on the data.
        """
        return self._can(self._parse_step(eps_n, delta_n))

    def run(self, eps_n, delta_n=0) -> int:
        """whitehouse2022 Theorem 1: commit step n+1 with (eps_n, delta_n) if admitted; returns the new step count n+1.

        Raises :class:`BudgetExceeded` (a ``ValueError``) naming the step and the
        violated budget(s) if refused; the state is then unchanged.  Decision and
        commit are atomic (one lock).  Rounding: none (exact).  Call this *before*
        running the mechanism A_{n+1}.
        """
        return self._run(self._parse_step(eps_n, delta_n))

    def try_run(self, eps_n, delta_n=0) -> bool:
        """whitehouse2022 Theorem 1: commit step n+1 with (eps_n, delta_n) if admitted; True iff committed.

        Same decision as :meth:`run`, atomic, but returns ``False`` instead of raising
        on refusal (state unchanged).  Invalid parameters still raise.
        """
        return self._try(self._parse_step(eps_n, delta_n))

    def remaining(self, *, dps: int = DEFAULT_DPS) -> DPFilterRemaining:
        """whitehouse2022 Theorem 1: what is left of the budget, certified.

        Returns a :class:`DPFilterRemaining` (a frozen dataclass that also reads as the dict
        returned before, :class:`~reference.accountants.base.Remaining`):

        * ``max_next_eps``: ``sqrt(max(y* - V, 0))`` rounded DOWN (``mpf``), where y* is the
          root of ``sqrt(2 log(1/delta') y) + y/2 = eps`` (corrected eq. (6), whitehouse2022).
          Guarantee: ``run(max_next_eps)`` (with delta_n = 0) is admitted whenever the delta
          budget allows it; any eps_n larger than the exact value is refused.
        * ``max_next_V``: ``max(y* - V, 0)`` rounded DOWN (``mpf``).
        * ``delta_left``: ``delta'' - sum delta_m`` (exact ``Fraction``).
        * ``eps_spent``: ``sqrt(2 log(1/delta') V) + V/2`` rounded UP (``mpf``): the
          epsilon the committed steps would certify if the analysis stopped now.
        * ``delta``: delta' + delta'' (exact), the delta of the guarantee.

        Preconditions: ``dps`` in [5, 10000] significant digits.
        """
        with self._lock:
            V, S = self._V, self._delta_spent
        e, dp, d2 = self._p["eps"], self._p["delta_prime"], self._p["delta_second"]
        return DPFilterRemaining(
            max_next_eps=certified(_max_eps_formula, (dp, e, V), "lower", dps),
            max_next_V=certified(_clamped_gap, (dp, e, V), "lower", dps),
            delta_left=d2 - S,
            eps_spent=filter_spent(V, dp, dps=dps),
            delta=dp + d2,
        )


# ==========================================================================
# Theorem 6 (whitehouse2022): mixed DP / zCDP filter
# ==========================================================================

class MixedFilter(DPFilter):
    """whitehouse2022 Theorem 6: the Theorem 1 filter for steps that are conditionally DP or conditionally zCDP.

    Contract: a step is either ``("dp", eps_n, delta_n)`` or ``("zcdp", rho_n)``; a zCDP
    step is an ``(1/2) eps_n^2``-zCDP step, so it adds ``eps_n^2 = 2 rho_n`` to V and 0 to
    the delta sum.  Step n+1 is admitted iff
    ``sqrt(2 log(1/delta') V_{n+1}) + V_{n+1}/2 <= eps`` and ``sum_{m<=n+1} delta_m <= delta''``
    (the Theorem 1 rule).  The admitted interaction is (eps, delta' + delta'')-DP.

    Preconditions (Theorem 6): with probability one, each step n, chosen from the first
    n-1 outputs, satisfies either condition 1, conditional (eps_n, delta_n)-DP given
    F_{n-1} (Definition 1), or condition 2, ``delta_n = 0`` and
    ``E[exp(lambda L_n) | F_{n-1}] <= exp(lambda (lambda + 1) eps_n^2 / 2)`` for all
    lambda >= 0 (conditional rho_n-zCDP with rho_n = eps_n^2/2).  The *kind* of the step
    must itself be predictable.  eps > 0, delta' in (0, 1), delta'' in [0, 1).

    Rounding: exact decisions; :meth:`remaining` is certified.
    """

    __citations__ = (_cite("whitehouse2022", "Theorem 6"),)

    def _parse_any(self, step) -> tuple:
        if isinstance(step, str):
            step = tuple(s.strip() for s in step.split(":"))
        if not isinstance(step, (tuple, list)) or not step:
            raise TypeError(f"step must be ('dp', eps_n, delta_n) or ('zcdp', rho_n), found {step!r}")
        kind = step[0]
        if kind == "dp" and len(step) in (2, 3):
            return self._parse_dp(*step[1:])
        if kind == "zcdp" and len(step) == 2:
            return self._parse_zcdp(step[1])
        raise ValueError(f"step must be ('dp', eps_n, delta_n) or ('zcdp', rho_n), found {step!r}")

    def _parse_dp(self, eps_n, delta_n=0) -> tuple:
        return ("dp", check("eps_n", eps_n, _NN, end="upper"), check("delta_n", delta_n, _CU, end="upper"))

    def _parse_zcdp(self, rho_n) -> tuple:
        return ("zcdp", check("rho_n", rho_n, _NN, end="upper"))

    _parse_step = _parse_dp

    def _increments(self, step: tuple) -> tuple[Fraction, Fraction]:
        if step[0] == "dp":
            return step[1] * step[1], step[2]
        return 2 * step[1], Fraction(0)

    def _describe(self, step: tuple) -> str:
        if step[0] == "dp":
            return f"('dp', eps_n={_dec(step[1])}, delta_n={_dec(step[2])})"
        return f"('zcdp', rho_n={_dec(step[1])})"

    def _step_to_json(self, step: tuple) -> list:
        return [step[0]] + [_exact_json(x) for x in step[1:]]

    def _step_from_json(self, run: list, where: str) -> tuple:
        if run and run[0] == "dp" and len(run) == 3:
            return ("dp", _in(run[1], f"{where}.eps_n", _NN), _in(run[2], f"{where}.delta_n", _CU))
        if run and run[0] == "zcdp" and len(run) == 2:
            return ("zcdp", _in(run[1], f"{where}.rho_n", _NN))
        raise ValueError(f"{where} must be ['dp', eps, delta, count] or ['zcdp', rho, count], found {run!r}")

    # DP steps
    def can_run_dp(self, eps_n, delta_n=0) -> bool:
        """whitehouse2022 Theorem 6: True iff a conditionally (eps_n, delta_n)-DP step would be admitted now; no state change.

        Adds eps_n^2 to V and delta_n to the delta sum.  Exact decision.
        """
        return self._can(self._parse_dp(eps_n, delta_n))

    def run_dp(self, eps_n, delta_n=0) -> int:
        """whitehouse2022 Theorem 6: commit a conditionally (eps_n, delta_n)-DP step; returns the new step count.

        Raises :class:`BudgetExceeded` if refused (state unchanged).  Exact, atomic.
        """
        return self._run(self._parse_dp(eps_n, delta_n))

    def try_run_dp(self, eps_n, delta_n=0) -> bool:
        """whitehouse2022 Theorem 6: commit a conditionally (eps_n, delta_n)-DP step if admitted; True iff committed."""
        return self._try(self._parse_dp(eps_n, delta_n))

    can_run = can_run_dp
    run = run_dp
    try_run = try_run_dp

    # zCDP steps
    def can_run_zcdp(self, rho_n) -> bool:
        """whitehouse2022 Theorem 6: True iff a conditionally rho_n-zCDP step (eps_n^2 = 2 rho_n, delta_n = 0) would be admitted; no state change.

        Precondition: rho_n >= 0 and the step satisfies Theorem 6 condition 2.  Exact decision.
        """
        return self._can(self._parse_zcdp(rho_n))

    def run_zcdp(self, rho_n) -> int:
        """whitehouse2022 Theorem 6: commit a conditionally rho_n-zCDP step (adds 2 rho_n to V); returns the new step count.

        Raises :class:`BudgetExceeded` if refused (state unchanged).  Exact, atomic.
        """
        return self._run(self._parse_zcdp(rho_n))

    def try_run_zcdp(self, rho_n) -> bool:
        """whitehouse2022 Theorem 6: commit a conditionally rho_n-zCDP step if admitted; True iff committed."""
        return self._try(self._parse_zcdp(rho_n))

    # generic
    def can_run_step(self, step) -> bool:
        """whitehouse2022 Theorem 6: :meth:`can_run_dp`/:meth:`can_run_zcdp` for ``('dp', eps, delta)``, ``('zcdp', rho)`` or ``'dp:EPS:DELTA'``/``'zcdp:RHO'``."""
        return self._can(self._parse_any(step))

    def run_step(self, step) -> int:
        """whitehouse2022 Theorem 6: :meth:`run_dp`/:meth:`run_zcdp` for a tagged step (see :meth:`can_run_step`)."""
        return self._run(self._parse_any(step))

    def try_run_step(self, step) -> bool:
        """whitehouse2022 Theorem 6: :meth:`try_run_dp`/:meth:`try_run_zcdp` for a tagged step (see :meth:`can_run_step`)."""
        return self._try(self._parse_any(step))

    def remaining(self, *, dps: int = DEFAULT_DPS) -> MixedFilterRemaining:
        """whitehouse2022 Theorem 6: what is left of the budget, certified.

        As :meth:`DPFilter.remaining`, plus ``max_next_rho`` = ``max(y* - V, 0)/2`` rounded
        DOWN: the largest zCDP step that is still admitted (up to that rounding).
        """
        with self._lock:  # re-entrant: one state for both parts
            base = super().remaining(dps=dps)
            V = self._V
        rho = certified(_max_rho_formula, (self._p["delta_prime"], self._p["eps"], V), "lower", dps)
        return MixedFilterRemaining(**base, max_next_rho=rho)


# ==========================================================================
# Theorem 7 (whitehouse2022) = Theorem 1 (whitehouse2023): approximate-zCDP filter
# ==========================================================================

class ZCDPFilter(_Accountant):
    """whitehouse2022 Theorem 7 / whitehouse2023 Theorem 1: the delta-approximate rho-zCDP privacy filter.

    Contract: step n+1 with (rho_{n+1}, delta_{n+1}) is admitted iff
    ``sum_{m<=n+1} rho_m <= rho`` and ``sum_{m<=n+1} delta_m <= delta``.  If every A_n is
    delta_n-approximate rho_n-zCDP conditioned on A_{1:n-1} (Definition 10, whitehouse2022 /
    Definition 3, whitehouse2023; rho_n, delta_n predictable), the admitted interaction is
    delta-approximate rho-zCDP.

    Preconditions: ``rho > 0``, ``delta`` in [0, 1]; per step ``rho_n >= 0``,
    ``delta_n`` in [0, 1].  Rounding: none, all sums and comparisons are exact rationals.
    Guarantee: exact agreement with :func:`reference.bounds.whitehouse2023.zcdp_filter_stop_index`.
    """

    __citations__ = (_cite("whitehouse2022", "Theorem 7"), _cite("whitehouse2023", "Theorem 1"))
    _PARAMS = (("rho", _P, False), ("delta", _CU, False))
    _STATE = ("rho_spent", "delta_spent")

    def __init__(self, rho, delta=0):
        """whitehouse2022 Theorem 7: build a filter with target delta-approximate rho-zCDP.

        Preconditions: rho > 0; delta in [0, 1].  ``TypeError``/``ValueError`` name the parameter.
        """
        self._init_params({"rho": rho, "delta": delta})
        self._rho_spent = Fraction(0)
        self._delta_spent = Fraction(0)

    @classmethod
    def _from_params(cls, kw):
        return cls(**kw)

    @property
    def rho_spent(self) -> Fraction:
        """``sum_{m<=n} rho_m`` of the committed steps (exact)."""
        with self._lock:
            return self._rho_spent

    @property
    def delta_spent(self) -> Fraction:
        """``sum_{m<=n} delta_m`` of the committed steps (exact)."""
        with self._lock:
            return self._delta_spent

    @property
    def rho(self) -> Fraction:
        """Target rho (exact)."""
        return self._p["rho"]

    @property
    def delta(self) -> Fraction:
        """Target delta (exact)."""
        return self._p["delta"]

    def _parse_step(self, rho_n, delta_n) -> tuple:
        return (check("rho_n", rho_n, _NN, end="upper"), check("delta_n", delta_n, _CU, end="upper"))

    def _reasons(self, step: tuple) -> list[str]:
        r, d = step
        out = []
        if self._rho_spent + r > self._p["rho"]:
            out.append("rho")
        if self._delta_spent + d > self._p["delta"]:
            out.append("delta")
        return out

    def _apply(self, step: tuple, count: int = 1) -> None:
        self._rho_spent += count * step[0]
        self._delta_spent += count * step[1]

    def _state_problem(self) -> str | None:
        if self._rho_spent > self._p["rho"]:
            return f"rho_spent = {_dec(self._rho_spent)} exceeds rho = {_dec(self._p['rho'])}"
        if self._delta_spent > self._p["delta"]:
            return f"delta_spent = {_dec(self._delta_spent)} exceeds delta = {_dec(self._p['delta'])}"
        return None

    _step_to_json = _pair_to_json

    def _step_from_json(self, run: list, where: str) -> tuple:
        if len(run) != 2:
            raise ValueError(f"{where} must be [rho_n, delta_n, count], found {run!r}")
        return (_in(run[0], f"{where}.rho_n", _NN), _in(run[1], f"{where}.delta_n", _CU))

    def can_run(self, rho_n, delta_n=0) -> bool:
        """whitehouse2022 Theorem 7: True iff step n+1 with (rho_n, delta_n) would be admitted now; no state change.

        Exact rational decision; probing is safe (predictable parameters only).
        """
        step = self._parse_step(rho_n, delta_n)
        with self._lock:
            return not self._reasons(step)

    def run(self, rho_n, delta_n=0) -> int:
        """whitehouse2022 Theorem 7: commit step n+1 with (rho_n, delta_n) if admitted; returns the new step count.

        Raises :class:`BudgetExceeded` naming the step and the violated budget(s) if
        refused; state unchanged.  Exact, atomic.
        """
        step = self._parse_step(rho_n, delta_n)
        with self._lock:
            reasons = self._reasons(step)
            if reasons:
                parts = []
                if "rho" in reasons:
                    parts.append(f"sum of rhos would be {_dec(self._rho_spent + step[0])} > rho = {_dec(self._p['rho'])}")
                if "delta" in reasons:
                    parts.append(f"sum of deltas would be {_dec(self._delta_spent + step[1])} > delta = {_dec(self._p['delta'])}")
                raise BudgetExceeded(
                    f"ZCDPFilter: step {self._n + 1} (rho_n={_dec(step[0])}, delta_n={_dec(step[1])}) refused: " + "; ".join(parts),
                    step=self._n + 1, reasons=tuple(reasons), requested=step)
            self._apply(step)
            self._push(step)
            return self._n

    def try_run(self, rho_n, delta_n=0) -> bool:
        """whitehouse2022 Theorem 7: commit step n+1 if admitted; True iff committed (state unchanged otherwise)."""
        step = self._parse_step(rho_n, delta_n)
        with self._lock:
            if self._reasons(step):
                return False
            self._apply(step)
            self._push(step)
            return True

    def remaining(self) -> ZCDPFilterRemaining:
        """whitehouse2022 Theorem 7: exact budget left: ``rho_left``, ``delta_left``, ``rho_spent``, ``delta_spent`` (``Fraction``).

        ``rho_left`` is the largest rho_n still admitted (with delta_n <= delta_left).  No rounding.
        """
        with self._lock:
            R, S = self._rho_spent, self._delta_spent
        return ZCDPFilterRemaining(rho_left=self._p["rho"] - R, delta_left=self._p["delta"] - S,
                                   rho_spent=R, delta_spent=S)

    def dp_guarantee(self, delta_prime, *, dps: int = DEFAULT_DPS) -> dict:
        """whitehouse2023 Lemma 1 applied to the filter's target: (eps, delta)-DP of the admitted interaction.

        Returns ``{"eps": rho + 2 sqrt(rho log(1/delta')) rounded UP, "delta": delta + (1 - delta) delta' rounded UP}``.
        Precondition: delta_prime in (0, 1).  Holds for the target (rho, delta), hence for
        any stopping point of the filter.
        """
        return {"eps": zcdp_to_dp_eps(self._p["rho"], delta_prime, dps=dps),
                "delta": zcdp_to_dp_delta(self._p["delta"], delta_prime, dps=dps)}


# ==========================================================================
# Theorem 2 (whitehouse2022) = Theorem 3 (whitehouse2023): odometers
# ==========================================================================

class Odometer(_Accountant):
    """whitehouse2022 Theorem 2 / whitehouse2023 Theorem 3, with the delta_n > 0 case corrected: time-uniform upper bounds on the privacy loss.

    Contract: after n recorded steps, :meth:`bounds` returns, for each configured family,
    ``u_n = B(V_n) + D_n`` with ``V_n = sum_{m<=n} eps_m^2``, ``B`` the family's boundary (Theorems
    3-5) and the drift ``D_n = sum over steps with delta_m = 0 of eps_m^2/2 + sum over steps with
    delta_m > 0 of pdp_drift_two_sided(eps_m, delta_m)``; it is ``inf`` once ``sum_{m<=n} delta_m > delta''``.
    Each family *on its own* is a (delta' + delta'')-privacy odometer: with probability
    >= 1 - delta' - delta'' the privacy loss L_{1:n} is below u_n for every n simultaneously.

    When every delta_m = 0, ``D_n = V_n/2`` and u_n is the printed odometer.  With delta_m > 0 the
    printed ``+ V_n/2`` is **false** (errata W22-THM2-DELTA: a (eps, delta)-pDP step whose loss is
    log(1/(1 - delta)) with probability one drives L_{1:n} above every printed u_n with probability
    one; ``fullyadaptive falsify W22-THM2-DELTA``); the drift term
    :func:`reference.bounds.whitehouse2023.pdp_drift_two_sided` (derived, the least upper bound on
    a pDP step's mean loss on its good event, see its docstring) restores the guarantee
    (``fullyadaptive falsify W22-THM2-DELTA-TWO-SIDED`` finds no violation).  It replaced the
    KL-route :func:`reference.bounds.whitehouse2023.pdp_drift`, which is larger for every
    delta_m > 0 (0.741 against 0.547 at eps = 1, delta = 0.1; ``W22-THM2-DELTA-CORRECTED``).
    Saved states hold the parameters and the history, not the drift, so a state saved before
    the change loads unchanged and reports bounds no larger than before; reading the old bounds
    up to some n and the new ones afterwards is still a valid odometer, since every new bound is
    <= the old one at the same history.

    * ``'filter'`` (needs ``eps_target``): the filter odometer with the corrected y*
      (errata W22-EQ6-YSTAR); tangent to sqrt(2 L V) + V/2 at V = y*, where it equals eps_target.
    * ``'mixture'`` (needs ``rho``, gamma in whitehouse2023): the normal-mixture odometer.
    * ``'stitched'`` (needs ``v0``): the stitched odometer, ``inf`` while V < v0.

    The Rogers et al. odometer *as quoted* in whitehouse2022 Lemma 4 / whitehouse2023 Lemma 3 is
    not offered: it is false as printed (errata W22-LEM4-QUOTE); ``n_records`` is refused.

    Preconditions: every step A_n is (eps_n, delta_n)-pDP conditioned on A_{1:n-1}
    (Definition 3, whitehouse2022: conditional *probabilistic* DP; conditional DP is NOT
    enough, see the remark before Theorem 2).  The tuning parameters (eps_target, rho, v0)
    must be fixed before the interaction.  delta' in (0, 1), delta'' in [0, 1);
    per step eps_n >= 0, delta_n in [0, 1].

    Caveat: the families are alternatives.  Using the minimum of several of them is only
    valid after splitting delta' between them (union bound): configure each with its
    share of delta' in separate odometers.

    Rounding: every bound is interval-certified and rounded UP.
    """

    __citations__ = (_cite("whitehouse2022", "Theorem 2"), _cite("whitehouse2023", "Theorem 3"))
    _PARAMS = (("delta_prime", _U, False), ("delta_second", _U0, False), ("eps_target", _P, True),
               ("rho", _P, True), ("v0", _P, True), ("n_records", _NREC, True))
    _PARAM_ENDS = {**_Accountant._PARAM_ENDS, "rho": None}  # here rho tunes the mixture family: no budget
    _STATE = ("V", "delta_spent")
    FAMILIES = ("filter", "mixture", "stitched")

    def __init__(self, delta_prime, delta_second=0, *, eps_target=None, rho=None, v0=None, n_records=None):
        """whitehouse2022 Theorem 2: build an odometer with failure probability delta' + delta''.

        Configure at least one family: ``eps_target`` (filter), ``rho`` (mixture),
        ``v0`` (stitched).  ``n_records`` (the Rogers et al. odometer as quoted) is refused: it is
        false as printed (errata W22-LEM4-QUOTE).  ``TypeError``/``ValueError`` name the parameter.
        """
        if n_records is not None:
            raise ValueError("n_records: the Rogers et al. odometer as quoted in whitehouse2022 Lemma 4 / whitehouse2023 "
                             "Lemma 3 is false as printed (errata W22-LEM4-QUOTE; `fullyadaptive falsify W22-LEM4-QUOTE`) "
                             "and is not offered; use eps_target, rho or v0")
        self._init_params({"delta_prime": delta_prime, "delta_second": delta_second, "eps_target": eps_target,
                           "rho": rho, "v0": v0, "n_records": n_records})
        if all(self._p[k] is None for k in ("eps_target", "rho", "v0")):
            raise ValueError("Odometer needs at least one of eps_target, rho, v0")
        self._V = Fraction(0)
        self._delta_spent = Fraction(0)

    @classmethod
    def _from_params(cls, kw):
        return cls(kw["delta_prime"], kw["delta_second"], eps_target=kw["eps_target"], rho=kw["rho"],
                   v0=kw["v0"], n_records=kw["n_records"])

    @property
    def V(self) -> Fraction:
        """Intrinsic time ``V_n = sum_{m<=n} eps_m^2`` (exact)."""
        with self._lock:
            return self._V

    @property
    def delta_spent(self) -> Fraction:
        """``sum_{m<=n} delta_m`` (exact)."""
        with self._lock:
            return self._delta_spent

    @property
    def delta(self) -> Fraction:
        """Failure probability delta' + delta'' of each odometer family (exact)."""
        return self._p["delta_prime"] + self._p["delta_second"]

    @property
    def past_N(self) -> bool:
        """True iff n > N, i.e. ``sum_{m<=n} delta_m > delta''``: every bound is then ``inf`` forever."""
        with self._lock:
            return self._delta_spent > self._p["delta_second"]

    @property
    def families(self) -> tuple:
        """The configured families, in the order of :meth:`bounds`."""
        keys = {"filter": "eps_target", "mixture": "rho", "stitched": "v0"}
        return tuple(f for f in self.FAMILIES if self._p[keys[f]] is not None)

    def _apply(self, step: tuple, count: int = 1) -> None:
        self._V += count * step[0] * step[0]
        self._delta_spent += count * step[1]

    _step_to_json = _pair_to_json
    _step_from_json = _eps_delta_from_json

    def record(self, eps_n, delta_n=0) -> int:
        """whitehouse2022 Theorem 2: record step n+1, conditionally (eps_n, delta_n)-pDP; returns the new step count.

        Adds eps_n^2 to V and delta_n to the delta sum (exact, atomic).  Never refuses:
        an odometer tracks, it does not stop.  Preconditions: eps_n >= 0, delta_n in [0, 1].
        """
        step = (check("eps_n", eps_n, _NN, end="upper"), check("delta_n", delta_n, _CU, end="upper"))
        with self._lock:
            self._apply(step)
            self._push(step)
            return self._n

    def _bounds_at(self, V: Fraction, S: Fraction, dps: int, drift: Fraction | None = None, V_pure: Fraction | None = None) -> dict:
        """Bounds at (V, delta spent); ``drift`` = sum of the per-step drift over the delta_m > 0 steps (rounded up, None = none),
        ``V_pure`` = sum of eps_m^2 over the delta_m = 0 steps (default V)."""
        p = self._p
        fams = self.families
        if S > p["delta_second"] or drift == INF_DRIFT:
            return {f: INF for f in fams}
        dp = p["delta_prime"]
        out = {}
        for f in fams:
            if f == "filter":
                out[f] = filter_odometer(V, p["eps_target"], dp, dps=dps)
            elif f == "mixture":
                out[f] = mixture_odometer(V, p["rho"], dp, dps=dps)
            else:
                out[f] = stitched_odometer(V, p["v0"], dp, dps=dps)
        if drift is None or (drift == 0 and (V_pure is None or V_pure == V)):
            return out
        vp = V if V_pure is None else V_pure
        for f, u in out.items():
            if u == INF:
                continue
            q = mpf_to_fraction(u) - (V - vp) / 2 + drift  # B(V) + V_pure/2 + drift, B(V) = u - V/2 rounded up
            out[f] = rational(q, "upper", dps)
        return out

    @staticmethod
    def _drift(runs, step_drift=pdp_drift_two_sided) -> tuple:
        """(V_pure, drift) of a run-length history: exact sum of eps^2 over delta = 0 steps and the rounded-up
        sum of count * step_drift(eps, delta) over delta > 0 steps (``INF_DRIFT`` if step_drift refuses a step:
        the KL-route ``pdp_drift`` does for delta (1 + e^-eps) >= 1; the default ``pdp_drift_two_sided`` never does)."""
        vp, dr = Fraction(0), Fraction(0)
        for e, d, cnt in runs:
            if d == 0:
                vp += cnt * e * e
                continue
            try:
                dr += cnt * mpf_to_fraction(step_drift(e, d, dps=30))
            except ValueError:
                return vp, INF_DRIFT
        return vp, dr

    def bounds(self, *, dps: int = DEFAULT_DPS) -> dict:
        """whitehouse2022 Theorem 2: certified upper bounds u_n on the privacy loss after the n recorded steps.

        Returns ``{family: mpf}`` for each configured family (see the class docstring);
        every value is rounded UP and is ``mpf('inf')`` once ``sum delta_m > delta''``
        (n > N) and, for ``'stitched'``, while V < v0.  At n = 0 the value at V = 0 is
        returned (the loss is then 0).  Guarantee: each family alone holds for all n
        simultaneously with probability >= 1 - delta' - delta''; do not take a minimum
        over families without splitting delta'.
        """
        with self._lock:
            V, S = self._V, self._delta_spent
            runs = [tuple(r) for r in self._runs]
        vp, dr = self._drift(runs) if S > 0 else (V, None)
        return self._bounds_at(V, S, dps, dr, vp)

    def bounds_history(self, *, dps: int = 20) -> list[dict]:
        """whitehouse2022 Theorem 2: ``[bounds after step 1, ..., bounds after step n]`` (recomputed; O(n) certified evaluations).

        Each entry is ``{"n": k, "V": Fraction, **bounds}`` with bounds rounded UP.
        """
        hist = self.history
        out, V, S = [], Fraction(0), Fraction(0)
        vp, dr = Fraction(0), Fraction(0)
        for k, (e, d) in enumerate(hist, 1):
            V += e * e
            S += d
            if d == 0:
                vp += e * e
            elif dr != INF_DRIFT:
                v2, d2 = self._drift([(e, d, 1)])
                dr = INF_DRIFT if d2 == INF_DRIFT else dr + d2
            out.append({"n": k, "V": V, **self._bounds_at(V, S, dps, dr if S > 0 else None, vp)})
        return out
