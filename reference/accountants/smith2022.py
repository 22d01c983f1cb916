"""The Gaussian-DP filter of Smith and Thakurta (paper key ``smith2022``): :class:`GaussianDPFilter`.

Closed forms in :mod:`reference.bounds.smith2022` (the rule, the eps-DP -> GDP charge) and
:mod:`reference.bounds.dong2022` (the exact GDP privacy curve and its inverses); the common base
(exact state, lock, JSON) is ``reference.accountants.base._Accountant``.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import mpmath


from ..bounds.dong2022 import gdp_mu
from ..bounds.smith2022 import dp_step_mu_q, gdp_filter_admits
from ..catalog import cites
from ..precision import DEFAULT_DPS, Domain, check
from .base import BudgetExceeded, Remaining, _Accountant, _dec, _in

__all__ = ["GaussianDPFilter", "BudgetExceeded", "GaussianDPFilterRemaining"]

_P = Domain.positive()
_NN = Domain.nonnegative()
_U = Domain.open_unit()


def _mu_to_json(self, step: tuple) -> list:
    return [str(step[0])]


def _mu_from_json(self, run: list, where: str) -> tuple:
    if len(run) != 1:
        raise ValueError(f"{where} must be [mu_t, count], found {run!r}")
    return (_in(run[0], f"{where}.mu_t", _NN),)


@dataclass(frozen=True, eq=False)
class GaussianDPFilterRemaining(Remaining):
    """smith2022: the budget state :meth:`GaussianDPFilter.remaining` returns."""

    mu_budget: mpmath.mpf  #: mu*(eps, delta), rounded down
    S: Fraction            #: sum mu_j^2, exact


@cites("smith2022", "main theorem (the GDP filter)")
class GaussianDPFilter(_Accountant):
    """smith2022 (arXiv 2210.17520 v1): the Gaussian-DP filter for a target (eps, delta).

    Contract: step t, mu_t-GDP conditionally on the earlier outputs (mu_t chosen adaptively), is
    admitted iff ``S = sum_{j<=t} mu_j^2`` satisfies ``delta_{sqrt(S)}(eps) <= delta`` (dong2022
    Corollary 2.13), i.e. sqrt(S) <= mu*(eps, delta), the largest mu whose GDP curve meets the
    target.  By Smith and Thakurta every run is mu*-GDP, hence (eps, delta)-DP.  S is an exact
    Fraction and the decision is exact (the curve is enclosed at sqrt(S) until it excludes delta;
    mu* is never rounded).

    Steps: :meth:`run_gdp` (a mu_t-GDP step), :meth:`run_gaussian` (Gaussian mechanism:
    mu_t = sensitivity/sigma, exact, dong2022 Theorem 2.7), :meth:`run_dp` (an eps_t-DP step,
    charged mu(eps_t) = 2 Phi^{-1}(e^eps_t/(1 + e^eps_t)) rounded UP to a rational: the smallest mu
    such that eps_t-DP implies mu-GDP, :func:`reference.bounds.smith2022.dp_step_mu`).  Each has a
    ``can_``/``try_`` form.  For Gaussian steps of one sigma it admits exactly the optimal
    non-adaptive count (:func:`reference.bounds.smith2022.gdp_filter_rounds_gaussian`).

    Preconditions: eps > 0, 0 < delta < 1; per step mu_t >= 0, predictable.  Thread-safe; JSON
    round-trip with digest (history of the charged mu_t).
    """

    _PARAMS = (("eps", _P, False), ("delta", _U, False))
    _STATE = ("S",)
    _step_to_json = _mu_to_json
    _step_from_json = _mu_from_json

    def __init__(self, eps, delta):
        """smith2022: a GDP filter with target (eps, delta); ``ValueError`` names the parameter."""
        self._init_params({"eps": eps, "delta": delta})
        self._S = Fraction(0)

    @classmethod
    def _from_params(cls, kw):
        return cls(**kw)

    # ---- state ----------------------------------------------------------
    @property
    def eps(self) -> Fraction:
        return self._p["eps"]

    @property
    def delta(self) -> Fraction:
        return self._p["delta"]

    @property
    def S(self) -> Fraction:
        """``sum_{j<=n} mu_j^2`` of the committed steps (exact); the run so far is sqrt(S)-GDP."""
        with self._lock:
            return self._S

    def _apply(self, step: tuple, count: int = 1) -> None:
        self._S += count * step[0] * step[0]

    def _state_problem(self) -> str | None:
        if not gdp_filter_admits(self._S, self._p["eps"], self._p["delta"]):
            return f"sum mu^2 = {self._S} exceeds the GDP budget of (eps, delta)"
        return None

    def _admits(self, mu_t: Fraction) -> bool:
        return gdp_filter_admits(self._S + mu_t * mu_t, self._p["eps"], self._p["delta"])

    def _decide(self, mu_t: Fraction, commit: bool, raise_: bool):
        with self._lock:
            if not self._admits(mu_t):
                if raise_:
                    raise BudgetExceeded(
                        f"GaussianDPFilter: step {self._n + 1} (mu_t={_dec(mu_t)}) refused: sqrt(sum mu^2) would be "
                        f"about {_dec(self._S + mu_t * mu_t)}^(1/2) > mu* of (eps={_dec(self._p['eps'])}, "
                        f"delta={_dec(self._p['delta'])})", step=self._n + 1, reasons=("mu",), requested=(mu_t,))
                return False
            if commit:
                self._apply((mu_t,))
                self._push((mu_t,))
                return self._n if raise_ else True
            return True

    # ---- mu-GDP steps -----------------------------------------------------
    def can_run_gdp(self, mu_t) -> bool:
        """True iff a mu_t-GDP step would be admitted now (exact; no state change)."""
        return self._decide(check("mu_t", mu_t, _NN, end="upper"), False, False)

    def run_gdp(self, mu_t) -> int:
        """Commit a mu_t-GDP step if admitted (new step count) or raise :class:`~reference.accountants.base.BudgetExceeded` (state unchanged)."""
        return self._decide(check("mu_t", mu_t, _NN, end="upper"), True, True)

    def try_run_gdp(self, mu_t) -> bool:
        """Commit a mu_t-GDP step if admitted; True iff committed."""
        return self._decide(check("mu_t", mu_t, _NN, end="upper"), True, False)

    def can_run(self, mu_t) -> bool:
        """The filter's base step is a mu_t-GDP step: same as :meth:`can_run_gdp`."""
        return self.can_run_gdp(mu_t)

    def run(self, mu_t) -> int:
        """Same as :meth:`run_gdp` (a mu_t-GDP step)."""
        return self.run_gdp(mu_t)

    def try_run(self, mu_t) -> bool:
        """Same as :meth:`try_run_gdp` (a mu_t-GDP step)."""
        return self.try_run_gdp(mu_t)

    # ---- Gaussian mechanism steps ----------------------------------------
    @staticmethod
    def _gauss(sigma, sensitivity) -> Fraction:
        s = check("sigma", sigma, _P, end="lower")
        D = check("sensitivity", sensitivity, _NN, end="upper")
        return D / s

    def can_run_gaussian(self, sigma, sensitivity=1) -> bool:
        """dong2022 Theorem 2.7: True iff a Gaussian step (mu_t = sensitivity/sigma, exact) would be admitted."""
        return self._decide(self._gauss(sigma, sensitivity), False, False)

    def run_gaussian(self, sigma, sensitivity=1) -> int:
        """Commit a Gaussian step (mu_t = sensitivity/sigma) or raise :class:`~reference.accountants.base.BudgetExceeded`."""
        return self._decide(self._gauss(sigma, sensitivity), True, True)

    def try_run_gaussian(self, sigma, sensitivity=1) -> bool:
        """Commit a Gaussian step if admitted; True iff committed."""
        return self._decide(self._gauss(sigma, sensitivity), True, False)

    # ---- eps-DP steps -------------------------------------------------------
    @staticmethod
    def _dp(eps_t) -> Fraction:
        e = check("eps_t", eps_t, _NN, end="upper")
        return Fraction(0) if e == 0 else dp_step_mu_q(e)

    def can_run_dp(self, eps_t) -> bool:
        """True iff an eps_t-DP step (charged mu(eps_t), rounded up) would be admitted (exact; no state change)."""
        return self._decide(self._dp(eps_t), False, False)

    def run_dp(self, eps_t) -> int:
        """Commit an eps_t-DP step charged mu(eps_t) (rounded up) or raise :class:`~reference.accountants.base.BudgetExceeded`."""
        return self._decide(self._dp(eps_t), True, True)

    def try_run_dp(self, eps_t) -> bool:
        """Commit an eps_t-DP step if admitted; True iff committed."""
        return self._decide(self._dp(eps_t), True, False)

    # ---- reporting --------------------------------------------------------
    def remaining(self, *, dps: int = DEFAULT_DPS) -> GaussianDPFilterRemaining:
        """``mu_budget`` = mu*(eps, delta) rounded DOWN, ``S`` = sum mu_j^2 (exact)."""
        with self._lock:
            S = self._S
        return GaussianDPFilterRemaining(mu_budget=gdp_mu(self._p["eps"], self._p["delta"], dps=dps), S=S)

    def dp_guarantee(self, *, dps: int = DEFAULT_DPS) -> dict:
        """smith2022: every run is mu*-GDP, hence ``{"eps": eps, "delta": delta}`` (exact), with ``"mu"`` = mu* rounded DOWN."""
        return {"eps": self._p["eps"], "delta": self._p["delta"], "mu": gdp_mu(self._p["eps"], self._p["delta"], dps=dps)}
