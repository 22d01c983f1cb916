"""Stateful Renyi filters of Feldman and Zrnic (paper key ``feldman2021``): :class:`RenyiFilter`
(Definition 4.1, Algorithm 2, Theorem 4.3), :class:`RenyiZCDPFilter` (Remark 4.4) and
:class:`RenyiDPFilter` (the approximate-DP filter obtained from the Renyi filter, re-derived);
and the conversion-calibrated :class:`CalibratedRenyiFilter` (Theorem 4.3 at an order fixed in
advance, RR charges, budget from CKS20 Prop. 12) and :class:`CalibratedZCDPFilter` (Remark 4.4,
budget from CKS20 Prop. 12 optimised over alpha); their closed forms are in
:mod:`reference.bounds.calibrated`.

Seed: ``002_485f6b48c71ae221.txt`` (arXiv 2008.11193).  The closed forms these filters
decide with are in :mod:`reference.bounds.feldman2021`; the common base (exact state,
lock, JSON) is ``reference.accountants.base._Accountant``.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from types import MappingProxyType

import mpmath

from ..bounds.calibrated import (
    calibrated_renyi_admits,
    cks_rdp_budget_q,
    rr_calibrated_alpha,
    rr_zcdp_admits,
    zcdp_improved_budget_q,
)
from ..bounds.classical import rdp_to_dp_eps, rdp_to_dp_eps_improved, rr_rdp, rr_zcdp_rho, zcdp_to_dp_eps_improved
from ..bounds.feldman2021 import (
    ALPHA,
    NN,
    P_,
    U,
    _cite,
    _dec,
    dp_filter_admits,
    dp_filter_rho_budget,
    zcdp_best_alpha,
    zcdp_filter_dp_eps,
)
from ..precision import rational, DEFAULT_DPS, certified, check, mpf_to_fraction
from .base import BudgetExceeded, Remaining, _Accountant, _exact_json, _in

__all__ = ["RenyiFilter", "RenyiZCDPFilter", "RenyiDPFilter", "CalibratedRenyiFilter", "CalibratedZCDPFilter", "BudgetExceeded",
           "RenyiFilterRemaining", "RenyiZCDPFilterRemaining", "RenyiDPFilterRemaining", "CalibratedRenyiFilterRemaining",
           "CalibratedZCDPFilterRemaining"]


# ==========================================================================
# What remaining() returns
# ==========================================================================

@dataclass(frozen=True, eq=False)
class RenyiFilterRemaining(Remaining):
    """feldman2021 Theorem 4.3: the exact budget state :meth:`RenyiFilter.remaining` returns."""

    rho_left: Fraction  #: B - spent: the largest next rho_t admitted
    spent: Fraction
    B: Fraction
    alpha: Fraction


@dataclass(frozen=True, eq=False)
class RenyiZCDPFilterRemaining(Remaining):
    """feldman2021 Remark 4.4: the exact budget state :meth:`RenyiZCDPFilter.remaining` returns."""

    rho_left: Fraction  #: rho - spent
    spent: Fraction
    rho: Fraction


@dataclass(frozen=True, eq=False)
class RenyiDPFilterRemaining(Remaining):
    """feldman2021 Theorem 4.7 (re-derived): the budget state :meth:`RenyiDPFilter.remaining` returns."""

    rho_budget: mpmath.mpf  #: rho*, rounded down
    rho_spent: Fraction     #: V/2, exact
    V: Fraction


@dataclass(frozen=True, eq=False)
class CalibratedRenyiFilterRemaining(Remaining):
    """The budget state :meth:`CalibratedRenyiFilter.remaining` returns (feldman2021 Theorem 4.3, CKS20 calibration)."""

    spent: mpmath.mpf  #: sum D_alpha(RR_eps_t), rounded up
    budget: Fraction   #: B, exact
    alpha: Fraction


@dataclass(frozen=True, eq=False)
class CalibratedZCDPFilterRemaining(Remaining):
    """The budget state :meth:`CalibratedZCDPFilter.remaining` returns (zCDP calibrated by the improved conversion)."""

    spent: mpmath.mpf  #: sum eps_t tanh(eps_t/2), rounded up
    budget: Fraction   #: rho*, exact

# ==========================================================================
# Stateful filters
# ==========================================================================

def _rho_from_json(self, run: list, where: str) -> tuple:
    if len(run) != 1:
        raise ValueError(f"{where} must be [rho_t, count], found {run!r}")
    return (_in(run[0], f"{where}.rho_t", NN),)


def _single_to_json(self, step: tuple) -> list:
    return [_exact_json(step[0])]


class _SumFilter(_Accountant):
    """Shared machinery of the Renyi filters: an exact running sum ``spent`` compared with the budget ``_BUDGET``.

    Step t is admitted iff ``spent + rho_t <= budget`` (look-ahead on the step about to run);
    decide-and-commit is atomic under the object's lock.
    """

    _BUDGET = "B"
    _STATE = ("spent",)
    _step_to_json = _single_to_json
    _step_from_json = _rho_from_json

    @classmethod
    def _from_params(cls, kw):
        return cls(**kw)

    @property
    def spent(self) -> Fraction:
        """``sum_{j<=n} rho_j`` of the committed steps (exact)."""
        with self._lock:
            return self._spent

    def _admits(self, spent: Fraction, rho: Fraction) -> bool:
        """CONT iff ``spent + rho <= budget``."""
        return spent + rho <= self._p[self._BUDGET]

    def _apply(self, step: tuple, count: int = 1) -> None:
        self._spent += count * step[0]

    def _state_problem(self) -> str | None:
        if self._spent > self._p[self._BUDGET]:
            return f"spent = {self._spent} exceeds {self._BUDGET} = {self._p[self._BUDGET]}"
        return None

    def _parse(self, rho_t) -> tuple:
        return (check("rho_t", rho_t, NN, end="upper"),)

    def _refusal(self, step: tuple) -> BudgetExceeded:
        b = self._BUDGET
        return BudgetExceeded(
            f"{type(self).__name__}: step {self._n + 1} (rho_t={_dec(step[0])}) refused: "
            f"sum of rhos would be {_dec(self._spent + step[0])} > {b} = {_dec(self._p[b])}",
            step=self._n + 1, reasons=(b,), requested=step)

    def _can(self, step: tuple) -> bool:
        with self._lock:
            return self._admits(self._spent, step[0])

    def _run(self, step: tuple) -> int:
        with self._lock:
            if not self._admits(self._spent, step[0]):
                raise self._refusal(step)
            self._apply(step)
            self._push(step)
            return self._n

    def _try(self, step: tuple) -> bool:
        with self._lock:
            if not self._admits(self._spent, step[0]):
                return False
            self._apply(step)
            self._push(step)
            return True


class RenyiFilter(_SumFilter):
    """feldman2021 Definition 4.1 / Algorithm 2 / Theorem 4.3: the Renyi privacy filter F_{alpha,B}.

    Contract: step t with Renyi parameter ``rho_t`` (= rho_t^(alpha), the order-alpha RDP
    parameter of A_t conditional on the earlier outputs, eq. (1)) is admitted iff
    ``sum_{j<=t} rho_j <= B`` over the committed steps plus this one.  By Theorem 4.3 the
    interaction made of the admitted steps is (alpha, B)-RDP (Definition 2.2), for a random,
    data-dependent-through-the-outputs number of steps.  Applied to individual parameters
    (eq. (2)) it is the per-point filter of Algorithm 3 (see :mod:`reference.simulate.individual`).

    Preconditions: alpha > 1, B > 0 (parsed exactly); per step rho_t >= 0, predictable (chosen
    from the outputs of the committed steps only).  Probing with :meth:`can_run` and retrying
    with a smaller step after a refusal are allowed (the seed, after Lemma 4.2: the analyst
    'can then decide to change the computation at time t retroactively and query the filter
    again').

    Rounding: none; the running sum is an exact ``Fraction``.  Thread-safe (one lock per
    object; decide-and-commit is atomic).  ``to_json``/``from_json`` round-trip exactly with a
    SHA-256 digest (shared machinery of :mod:`reference.accountants.whitehouse2023`).
    """

    __citations__ = (_cite("Definition 4.1"), _cite("Algorithm 2"), _cite("Theorem 4.3"))
    _PARAMS = (("alpha", ALPHA, False), ("B", P_, False))

    def __init__(self, alpha, B):
        """feldman2021 Theorem 4.3: a Renyi filter of order alpha > 1 with budget B > 0.

        ``TypeError``/``ValueError`` name the offending parameter.
        """
        self._init_params({"alpha": alpha, "B": B})
        self._spent = Fraction(0)

    # ---- state ----------------------------------------------------------
    @property
    def alpha(self) -> Fraction:
        """The Renyi order (exact)."""
        return self._p["alpha"]

    @property
    def B(self) -> Fraction:
        """The budget (exact)."""
        return self._p["B"]

    def _gaussian_rho(self, sigma, sensitivity) -> Fraction:
        s = check("sigma", sigma, P_, end="lower")
        D = check("sensitivity", sensitivity, NN, end="upper")
        return self._p["alpha"] * D * D / (2 * s * s)

    def can_run(self, rho_t) -> bool:
        """feldman2021 Theorem 4.3: True iff a step with Renyi parameter rho_t would be admitted now (no state change; exact)."""
        return self._can(self._parse(rho_t))

    def run(self, rho_t) -> int:
        """feldman2021 Algorithm 2: commit the next step with parameter rho_t if admitted; returns the new step count.

        Raises :class:`~reference.accountants.base.BudgetExceeded` (a ``ValueError``) if ``spent + rho_t > B``; state unchanged.
        Call before running the mechanism.  Exact, atomic.
        """
        return self._run(self._parse(rho_t))

    def try_run(self, rho_t) -> bool:
        """feldman2021 Algorithm 2: commit the next step if admitted; True iff committed (state unchanged otherwise)."""
        return self._try(self._parse(rho_t))

    def can_run_gaussian(self, sigma, sensitivity=1) -> bool:
        """feldman2021 Theorem 4.3 with a Gaussian step (Example 2.7): rho_t = alpha Delta^2/(2 sigma^2) exactly; no state change."""
        return self._can((self._gaussian_rho(sigma, sensitivity),))

    def run_gaussian(self, sigma, sensitivity=1) -> int:
        """feldman2021 Algorithm 2 with a Gaussian step: commit rho_t = alpha Delta^2/(2 sigma^2) (exact) or raise :class:`~reference.accountants.base.BudgetExceeded`."""
        return self._run((self._gaussian_rho(sigma, sensitivity),))

    def try_run_gaussian(self, sigma, sensitivity=1) -> bool:
        """feldman2021 Algorithm 2 with a Gaussian step: commit if admitted; True iff committed."""
        return self._try((self._gaussian_rho(sigma, sensitivity),))

    def remaining(self) -> RenyiFilterRemaining:
        """feldman2021 Theorem 4.3: exact budget state: ``rho_left`` = B - spent (the largest next rho_t admitted), ``spent``, ``B``, ``alpha``."""
        with self._lock:
            s = self._spent
        return RenyiFilterRemaining(rho_left=self._p["B"] - s, spent=s, B=self._p["B"], alpha=self._p["alpha"])

    def dp_guarantee(self, delta, *, dps: int = DEFAULT_DPS) -> dict:
        """feldman2021 Theorem 4.3 + Fact 2.4: (eps, delta)-DP of any run of this filter.

        Returns ``{"eps": B + log(1/delta)/(alpha - 1) rounded UP, "delta": delta (exact)}``.
        It uses the target B, not the amount spent: reporting the spent amount after the fact
        would be an odometer, which the seed shows is not valid by simply adding up parameters.
        """
        d = check("delta", delta, U)
        return {"eps": rdp_to_dp_eps(self._p["alpha"], self._p["B"], d, dps=dps), "delta": d}


class RenyiZCDPFilter(_SumFilter):
    """feldman2021 Remark 4.4: the Renyi filter for rho_t-zCDP steps, a rho-zCDP filter whose rule does not depend on alpha.

    Contract: step t, rho_t-zCDP conditional on the earlier outputs (so (alpha, alpha rho_t)-RDP
    for every alpha), is admitted iff ``sum_{j<=t} rho_j <= rho``.  For every alpha this is the
    decision of ``RenyiFilter(alpha, alpha rho)`` on the step ``alpha rho_t``
    (``sum alpha rho_j <= alpha rho``), so the output is (alpha, alpha rho)-RDP for all alpha,
    i.e. rho-zCDP (Definition 2.3).  :meth:`decision_at` exposes the order-alpha decision.

    Preconditions: rho > 0; per step rho_t >= 0, predictable.  Rounding: none (exact).
    Thread-safe; JSON round-trip with digest.
    """

    __citations__ = (_cite("Remark 4.4"), _cite("Theorem 4.3"))
    _PARAMS = (("rho", P_, False),)
    _BUDGET = "rho"

    def __init__(self, rho):
        """feldman2021 Remark 4.4: a zCDP filter with budget rho > 0 (``ValueError`` names rho)."""
        self._init_params({"rho": rho})
        self._spent = Fraction(0)

    @property
    def rho(self) -> Fraction:
        """The zCDP budget (exact)."""
        return self._p["rho"]

    def decision_at(self, alpha, rho_t) -> bool:
        """feldman2021 Remark 4.4: the decision of the order-alpha Renyi filter F_{alpha, alpha rho} on the step ``alpha rho_t``.

        Evaluates ``alpha (spent + rho_t) <= alpha rho`` literally (exact); by Remark 4.4 it equals
        :meth:`can_run` for every alpha > 1.  No state change.
        """
        a = check("alpha", alpha, ALPHA)
        step = self._parse(rho_t)
        with self._lock:
            spent_alpha = a * self._spent
        return spent_alpha + a * step[0] <= a * self._p["rho"]

    def can_run(self, rho_t) -> bool:
        """feldman2021 Remark 4.4: True iff a rho_t-zCDP step would be admitted now (exact; no state change)."""
        return self._can(self._parse(rho_t))

    def run(self, rho_t) -> int:
        """feldman2021 Remark 4.4: commit a rho_t-zCDP step if admitted (new step count) or raise :class:`~reference.accountants.base.BudgetExceeded`."""
        return self._run(self._parse(rho_t))

    def try_run(self, rho_t) -> bool:
        """feldman2021 Remark 4.4: commit a rho_t-zCDP step if admitted; True iff committed."""
        return self._try(self._parse(rho_t))

    def run_gaussian(self, sigma, sensitivity=1) -> int:
        """feldman2021 Remark 4.4: commit a Gaussian step, rho_t = Delta^2/(2 sigma^2) (exact), or raise :class:`~reference.accountants.base.BudgetExceeded`."""
        s = check("sigma", sigma, P_, end="lower")
        D = check("sensitivity", sensitivity, NN, end="upper")
        return self.run(D * D / (2 * s * s))

    def remaining(self) -> RenyiZCDPFilterRemaining:
        """feldman2021 Remark 4.4: exact ``rho_left`` = rho - spent, ``spent``, ``rho``."""
        with self._lock:
            s = self._spent
        return RenyiZCDPFilterRemaining(rho_left=self._p["rho"] - s, spent=s, rho=self._p["rho"])

    def rdp_at(self, alpha) -> Fraction:
        """feldman2021 Remark 4.4: the RDP guarantee alpha rho of the filter's output at order alpha (exact)."""
        a = check("alpha", alpha, ALPHA)
        return a * self._p["rho"]

    def dp_guarantee(self, delta, *, dps: int = DEFAULT_DPS) -> dict:
        """feldman2021 Remark 4.4 + Fact 2.4 optimised over alpha: ``{"eps": rho + 2 sqrt(rho log(1/delta)) (UP), "delta": delta, "alpha": alpha*}``."""
        d = check("delta", delta, U)
        return {"eps": zcdp_filter_dp_eps(self._p["rho"], d, dps=dps), "delta": d,
                "alpha": zcdp_best_alpha(self._p["rho"], d, dps=dps)}


class RenyiDPFilter(_Accountant):
    """feldman2021 Theorem 4.7 (re-derived): an (eps, delta)-DP filter for eps_t-DP steps built from the Renyi filter.

    Contract: step t, eps_t-DP conditional on the earlier outputs, is admitted iff
    ``V/2 + sqrt(2 V log(1/delta)) <= eps`` with ``V = sum_{j<=t} eps_j^2``; equivalently the
    zCDP spent V/2 is at most ``rho* = dp_filter_rho_budget(eps, delta)``.  Proof route: an
    eps_t-DP step is (eps_t^2/2)-zCDP (Bun-Steinke 2016 Prop. 3.3), the zCDP Renyi filter
    (Remark 4.4) makes the output rho*-zCDP, and Fact 2.4 at the best alpha gives
    (rho* + 2 sqrt(rho* log(1/delta)), delta) = (eps, delta)-DP.

    The rule coincides with Whitehouse et al.'s Theorem 1 filter with delta'' = 0; the published
    Feldman-Zrnic version also covers (eps_t, delta_t)-pDP steps (not implemented).
    Preconditions: eps > 0, delta in (0, 1); per step eps_t >= 0.  Rounding: exact decisions.
    Thread-safe; JSON round-trip with digest.
    """

    __citations__ = (_cite("Theorem 4.7 (re-derived)"), _cite("Remark 4.4"), _cite("Fact 2.4"))
    _PARAMS = (("eps", P_, False), ("delta", U, False))
    _STATE = ("V",)
    _step_to_json = _single_to_json

    def __init__(self, eps, delta):
        """feldman2021 Theorem 4.7 (re-derived): an (eps, delta)-DP filter; ``ValueError`` names the parameter."""
        self._init_params({"eps": eps, "delta": delta})
        self._V = Fraction(0)

    @classmethod
    def _from_params(cls, kw):
        return cls(**kw)

    def _step_from_json(self, run: list, where: str) -> tuple:
        if len(run) != 1:
            raise ValueError(f"{where} must be [eps_t, count], found {run!r}")
        return (_in(run[0], f"{where}.eps_t", NN),)

    @property
    def V(self) -> Fraction:
        """``sum_{j<=n} eps_j^2`` (exact); the zCDP spent is V/2."""
        with self._lock:
            return self._V

    @property
    def eps(self) -> Fraction:
        return self._p["eps"]

    @property
    def delta(self) -> Fraction:
        return self._p["delta"]

    def _admits_V(self, V: Fraction) -> bool:
        return dp_filter_admits(V, self._p["eps"], self._p["delta"])

    def _apply(self, step: tuple, count: int = 1) -> None:
        self._V += count * step[0] * step[0]

    def _state_problem(self) -> str | None:
        if not self._admits_V(self._V):
            return f"V/2 + sqrt(2 V log(1/delta)) exceeds eps at V = {_dec(self._V)}"
        return None

    def _parse(self, eps_t) -> tuple:
        return (check("eps_t", eps_t, NN, end="upper"),)

    def can_run(self, eps_t) -> bool:
        """feldman2021 Theorem 4.7 (re-derived): True iff an eps_t-DP step would be admitted now (exact; no state change)."""
        step = self._parse(eps_t)
        with self._lock:
            return self._admits_V(self._V + step[0] * step[0])

    def run(self, eps_t) -> int:
        """feldman2021 Theorem 4.7 (re-derived): commit an eps_t-DP step if admitted (new count) or raise :class:`~reference.accountants.base.BudgetExceeded`."""
        step = self._parse(eps_t)
        with self._lock:
            V1 = self._V + step[0] * step[0]
            if not self._admits_V(V1):
                raise BudgetExceeded(
                    f"RenyiDPFilter: step {self._n + 1} (eps_t={_dec(step[0])}) refused: zCDP spent would be "
                    f"V/2 = {_dec(V1 / 2)} > rho* = {_dec(dp_filter_rho_budget(self._p['eps'], self._p['delta'], dps=15), 'lower')}",
                    step=self._n + 1, reasons=("eps",), requested=step)
            self._apply(step)
            self._push(step)
            return self._n

    def try_run(self, eps_t) -> bool:
        """feldman2021 Theorem 4.7 (re-derived): commit an eps_t-DP step if admitted; True iff committed."""
        step = self._parse(eps_t)
        with self._lock:
            if not self._admits_V(self._V + step[0] * step[0]):
                return False
            self._apply(step)
            self._push(step)
            return True

    def remaining(self, *, dps: int = DEFAULT_DPS) -> RenyiDPFilterRemaining:
        """feldman2021 Theorem 4.7 (re-derived): ``rho_budget`` (rho*, rounded DOWN), ``rho_spent`` = V/2 (exact), ``V`` (exact)."""
        with self._lock:
            V = self._V
        return RenyiDPFilterRemaining(rho_budget=dp_filter_rho_budget(self._p["eps"], self._p["delta"], dps=dps),
                                      rho_spent=V / 2, V=V)

    def dp_guarantee(self) -> dict:
        """feldman2021 Theorem 4.7 (re-derived): the target ``{"eps", "delta"}`` (exact): every run is (eps, delta)-DP."""
        return {"eps": self._p["eps"], "delta": self._p["delta"]}


# ==========================================================================
# Conversion-calibrated filters (budget = the largest value the CKS20 Prop. 12 conversion maps to the target)
# ==========================================================================

def _eps_step_from_json(self, run: list, where: str) -> tuple:
    if len(run) != 1:
        raise ValueError(f"{where} must be [eps_t, count], found {run!r}")
    return (_in(run[0], f"{where}.eps_t", NN),)


def _up(q: Fraction, dps: int) -> mpmath.mpf:
    """The rational q rounded UP to an mpf of dps digits."""
    return rational(q, "upper", dps)


class _CalibratedFilter(_Accountant):
    """Shared machinery: eps_t-DP steps kept as an exact multiset {eps_t: count}; a step is admitted iff the
    exact sum of the per-step charges of the multiset plus the candidate is <= the rational budget (decided
    exactly by :func:`reference.precision.sign_of`)."""

    _STATE = ()
    _step_to_json = _single_to_json
    _step_from_json = _eps_step_from_json

    @classmethod
    def _from_params(cls, kw):
        return cls(**kw)

    def _init_counts(self):
        self._counts: dict[Fraction, int] = {}

    def _apply(self, step: tuple, count: int = 1) -> None:
        self._counts[step[0]] = self._counts.get(step[0], 0) + count

    def _with(self, eps_t: Fraction) -> tuple:
        c = dict(self._counts)
        c[eps_t] = c.get(eps_t, 0) + 1
        return tuple(sorted(c.items()))

    def _admits_runs(self, runs) -> bool:
        """The exact decision of the calibrated rule on run-length encoded steps; each subclass defines it."""
        raise TypeError(f"{type(self).__name__} must define _admits_runs (the calibrated filter's exact rule)")

    def _state_problem(self) -> str | None:
        if self._counts and not self._admits_runs(tuple(sorted(self._counts.items()))):
            return "the charges of the history exceed the budget"
        return None

    def _parse(self, eps_t) -> tuple:
        return (check("eps_t", eps_t, NN, end="upper"),)

    @property
    def eps(self) -> Fraction:
        """The target epsilon (exact)."""
        return self._p["eps"]

    @property
    def delta(self) -> Fraction:
        """The target delta (exact)."""
        return self._p["delta"]

    @property
    def counts(self) -> dict:
        """The committed steps as an exact multiset ``{eps_t: count}`` (a copy)."""
        with self._lock:
            return dict(self._counts)

    def can_run(self, eps_t) -> bool:
        """True iff an eps_t-DP step would be admitted now (exact; no state change)."""
        step = self._parse(eps_t)
        with self._lock:
            return self._admits_runs(self._with(step[0]))

    def run(self, eps_t) -> int:
        """Commit an eps_t-DP step if admitted (returns the new step count) or raise :class:`~reference.accountants.base.BudgetExceeded` (state unchanged)."""
        step = self._parse(eps_t)
        with self._lock:
            if not self._admits_runs(self._with(step[0])):
                raise BudgetExceeded(
                    f"{type(self).__name__}: step {self._n + 1} (eps_t={_dec(step[0])}) refused: the charges would exceed "
                    f"the budget {_dec(self.budget, 'lower')}", step=self._n + 1, reasons=("eps",), requested=step)
            self._apply(step)
            self._push(step)
            return self._n

    def try_run(self, eps_t) -> bool:
        """Commit an eps_t-DP step if admitted; True iff committed (state unchanged otherwise)."""
        step = self._parse(eps_t)
        with self._lock:
            if not self._admits_runs(self._with(step[0])):
                return False
            self._apply(step)
            self._push(step)
            return True


class CalibratedRenyiFilter(_CalibratedFilter):
    """feldman2021 Theorem 4.3 calibrated by canonne2020 Prop. 12: a Renyi filter of order alpha fixed in advance, charging RR's Renyi divergence.

    Contract: step t, eps_t-DP conditionally on the earlier outputs, is admitted iff
    ``sum_{j<=t} D_alpha(RR_{eps_j}) <= B`` with ``B = cks_rdp_budget(alpha, eps, delta)`` rounded
    DOWN to a rational (:func:`reference.bounds.calibrated.cks_rdp_budget_q`).  Validity: an eps-DP
    mechanism is a post-processing of eps-RR, so its conditional order-alpha Renyi divergence is at
    most D_alpha(RR_eps) (mironov2017 Table II); Theorem 4.3 makes every run (alpha, B)-RDP; the
    improved conversion at that same alpha (Canonne-Kamath-Steinke 2020 Prop. 12 v4 = Balle et al.
    2020 Thm 21) gives (eps, delta)-DP because B <= B(alpha).  A negative B (an order too small
    for the target) admits no step at all.

    The order must be fixed before the interaction: pass it, or use :meth:`for_workload`, which
    applies the documented rule :func:`reference.bounds.calibrated.rr_calibrated_alpha` (the grid
    point 1 + j/64 that maximises the rounds of an anticipated homogeneous eps0 workload).
    Choosing alpha after seeing the run is not covered by Theorem 4.3.  **Fixed by construction:**
    the order and its budget are computed once, in the constructor, and stored in attributes
    that cannot be rebound (``AttributeError``); every decision, :meth:`remaining` and
    :meth:`dp_guarantee` read that one pair, and no code path evaluates another order or
    recomputes the budget (``proofs/test_feldman2021_calibrated.py`` spies on every decision).

    Preconditions: eps > 0, 0 < delta < 1, alpha > 1; per step eps_t >= 0, predictable.
    Decisions exact; thread-safe; JSON round-trip with digest (history of eps_t).
    """

    __citations__ = (_cite("Theorem 4.3 (calibrated by CKS20 Prop. 12)"),)
    _PARAMS = (("eps", P_, False), ("delta", U, False), ("alpha", ALPHA, False))
    #: Attributes set once in the constructor: the order, its budget and the parameters they came from.
    _FIXED = ("_alpha", "_B", "_p")

    def __init__(self, eps, delta, alpha):
        """A calibrated Renyi filter with target (eps, delta) at order alpha (fixed in advance); ValueError names the parameter."""
        self._init_params({"eps": eps, "delta": delta, "alpha": alpha})
        self._init_counts()
        a = self._p["alpha"]
        object.__setattr__(self, "_alpha", a)
        object.__setattr__(self, "_B", cks_rdp_budget_q(a, self._p["eps"], self._p["delta"]))
        object.__setattr__(self, "_p", MappingProxyType(dict(self._p)))  # read-only: no second copy of alpha to edit

    def __setattr__(self, name, value):
        if name in self._FIXED and name in self.__dict__:
            raise AttributeError(f"{type(self).__name__}.{name} is fixed at construction: the order (alpha = "
                                 f"{self._alpha}) and its budget must not change once the filter exists")
        object.__setattr__(self, name, value)

    @classmethod
    def for_workload(cls, eps0, eps, delta) -> "CalibratedRenyiFilter":
        """The filter with the order chosen, before the run, by the rule ``rr_calibrated_alpha(eps0, eps, delta)``."""
        return cls(eps, delta, rr_calibrated_alpha(eps0, eps, delta))

    @property
    def alpha(self) -> Fraction:
        """The Renyi order (exact, fixed at construction)."""
        return self._alpha

    @property
    def budget(self) -> Fraction:
        """B: the Renyi budget, CKS20 Prop. 12 solved for tau at (alpha, eps, delta), rounded DOWN (exact rational)."""
        return self._B

    def _admits_runs(self, runs) -> bool:
        """The one decision of the filter: ``sum D_alpha(RR_eps_t) <= B`` at the constructor's order (exact)."""
        return calibrated_renyi_admits(self._alpha, self._B, runs)

    def remaining(self, *, dps: int = DEFAULT_DPS) -> CalibratedRenyiFilterRemaining:
        """``spent`` = sum D_alpha(RR_eps_t) rounded UP, ``budget`` = B (exact), ``alpha``."""
        with self._lock:
            runs = tuple(sorted(self._counts.items()))
        spent = sum((k * rr_rdp(self._alpha, e, dps=dps) for e, k in runs if e), mpmath.mpf(0))
        return CalibratedRenyiFilterRemaining(spent=spent, budget=self._B, alpha=self._alpha)

    def dp_guarantee(self, *, dps: int = DEFAULT_DPS) -> dict:
        """canonne2020 Prop. 12 at (alpha, B): ``{"eps": the converted epsilon (rounded UP, <= the target), "delta": delta, "alpha": alpha}``."""
        v = rdp_to_dp_eps_improved(self._alpha, self._B, self._p["delta"], dps=dps)
        if mpf_to_fraction(v) > self._p["eps"]:  # B <= B(alpha) exactly, so the exact conversion is <= eps (rounding only)
            v = _up(self._p["eps"], dps)
        return {"eps": v,
                "delta": self._p["delta"], "alpha": self._alpha}


class CalibratedZCDPFilter(_CalibratedFilter):
    """feldman2021 Remark 4.4 calibrated by canonne2020 Prop. 12 optimised over alpha: a zCDP filter for eps_t-DP steps.

    Contract: step t, eps_t-DP conditionally on the earlier outputs, is admitted iff
    ``sum_{j<=t} eps_j tanh(eps_j/2) <= rho*`` with ``rho* = zcdp_improved_budget(eps, delta)`` rounded
    DOWN to a rational.  Validity: every eps-DP mechanism is eps tanh(eps/2)-zCDP (the exact zCDP
    parameter of RR, bunsteinke2016_rr_zcdp_rho); the rule ``sum rho_t <= rho*`` does not depend on
    alpha (Remark 4.4), so every run is (alpha, alpha rho*)-RDP for every alpha at once, and the
    improved conversion may be taken at the best alpha: rho* is chosen so that it gives (eps, delta).

    Preconditions: eps > 0, 0 < delta < 1; per step eps_t >= 0, predictable.  Decisions exact;
    thread-safe; JSON round-trip with digest.
    """

    __citations__ = (_cite("Remark 4.4 (calibrated by CKS20 Prop. 12)"),)
    _PARAMS = (("eps", P_, False), ("delta", U, False))

    def __init__(self, eps, delta):
        """A calibrated zCDP filter with target (eps, delta); ValueError names the parameter."""
        self._init_params({"eps": eps, "delta": delta})
        self._init_counts()
        self._rho = zcdp_improved_budget_q(self._p["eps"], self._p["delta"])

    @property
    def budget(self) -> Fraction:
        """rho*: the zCDP budget (CKS20 Prop. 12 solved for rho at the best alpha), rounded DOWN (exact rational)."""
        return self._rho

    def _admits_runs(self, runs) -> bool:
        return rr_zcdp_admits(self._rho, runs)

    def remaining(self, *, dps: int = DEFAULT_DPS) -> CalibratedZCDPFilterRemaining:
        """``spent`` = sum eps_t tanh(eps_t/2) rounded UP, ``budget`` = rho* (exact)."""
        with self._lock:
            runs = tuple(sorted(self._counts.items()))
        spent = sum((k * rr_zcdp_rho(e, dps=dps) for e, k in runs if e), mpmath.mpf(0))
        return CalibratedZCDPFilterRemaining(spent=spent, budget=self._rho)

    def dp_guarantee(self, *, dps: int = DEFAULT_DPS) -> dict:
        """canonne2020 Prop. 12 on rho*-zCDP at the best alpha: ``{"eps": converted epsilon (UP, <= target), "delta": delta}``."""
        v = zcdp_to_dp_eps_improved(self._rho, self._p["delta"], dps=dps)
        if mpf_to_fraction(v) > self._p["eps"]:  # rho* <= the exact budget, so the exact conversion is <= eps (rounding only)
            v = _up(self._p["eps"], dps)
        return {"eps": v, "delta": self._p["delta"]}
