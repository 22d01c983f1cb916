"""Adapters of the shipped filters and odometers for :func:`reference.verify.engine.verify`, negative controls, the slack table.

Every adapter drives the SHIPPED object: it keeps one instance, writes the exact accountant
state the engine hands it into the instance's state fields (``_V``, ``_delta_spent``, ``_stats``,
``_spent``: exactly the fields the object's own ``run``/``record`` would have produced) and
calls the public decision (``can_run``) or value (``bounds``/``value``) method.  The engine
memoises the answers per exact state.  ``proofs/test_verifier_adapters.py`` checks, on random
step sequences, that this gives the same decisions/values as the stateful object driven by its
own ``try_run``/``record``.

Targets of the seeds (see ``TARGETS``):

* whitehouse2022 Theorem 1 filter (:class:`reference.accountants.whitehouse2023.DPFilter`, with delta_n);
* whitehouse2022 Theorem 2 odometers (:class:`reference.accountants.whitehouse2023.Odometer`): filter odometer,
  normal-mixture (Theorem 4) and stitched (Theorem 5) boundaries, and Rogers et al.'s odometer
  as quoted in whitehouse2023 Lemma 3;
* whitehouse2022 Theorem 7 zCDP filter (:class:`reference.accountants.whitehouse2023.ZCDPFilter`) with RR as
  eps tanh(eps/2)-zCDP and Lemma 1's conversion;
* rogers2016 Theorem 3.6 / 5.1 filters and Theorem 3.6 / 6.5 odometers (corrected and as printed);
* feldman2021 Theorem 4.7 DP filter, Theorem 4.3 Renyi filter used as a DP filter (RR's exact
  Renyi divergence, Fact 2.4), Remark 4.4 zCDP filter, and the Renyi odometer.

Skipped: :class:`reference.accountants.whitehouse2023.MixedFilter` (on DP steps it *is* the Theorem 1 rule, tested
through DPFilter); rogers2016 Lemma 6.4 (one fixed beta; covered by Theorem 6.5 which unions it);
feldman2021's individual filter (needs per-record losses, not a two-point RR composition).
"""
from __future__ import annotations

import math
import time
from fractions import Fraction
from typing import Callable, Iterable, Optional

import mpmath

from ..catalog import cites
from ..bounds.classical import rr_rdp, rr_zcdp_rho
from ..accountants.feldman2021 import RenyiDPFilter, RenyiFilter, RenyiZCDPFilter
from ..bounds.feldman2021 import renyi_odometer_zcdp
from ..accountants.whitehouse2023 import DPFilter, Odometer, ZCDPFilter
from ..precision import Domain, check, mpf_to_fraction
from ..bounds.rogers2016 import EpsStats
from ..accountants.rogers2016 import (
    AdvancedFilter,
    AdvancedFilterAsPrinted,
    AdvancedOdometer,
    AdvancedOdometerAsPrinted,
    BasicFilter,
    BasicOdometer,
)
from .engine import (
    Adversary,
    AccState,
    Alternating,
    DeltaSpender,
    Homogeneous,
    LossChasing,
    RandomAdaptive,
    StoppingTime,
    Target,
    VarianceSpender,
    VerifierResult,
    verify,
)
from ..bounds.whitehouse2023 import advanced_composition_eps, filter_admits, pdp_drift, pdp_drift_two_sided

__all__ = [
    "WhitehouseFilter", "WhitehouseOdometer", "WhitehouseZCDPFilter", "RogersFilter", "RogersOdometer",
    "FeldmanDPFilter", "FeldmanRenyiFilter", "FeldmanZCDPFilter", "FeldmanRenyiOdometer",
    "NaiveAdvancedOdometer", "DriftOnlyFilter", "HalvedLogFilter", "OverBudgetFilter",
    "TARGETS", "NEGATIVE_CONTROLS", "default_adversaries", "slack_table", "render_table", "negative_control_table",
]

W22, W23, R16, F21 = "whitehouse2022", "whitehouse2023", "rogers2016", "feldman2021"
_BUMP = Fraction(1, 10 ** 25)  # relative bump turning a 30-digit nearest value into a rational upper bound


def _upper_rational(x: mpmath.mpf) -> Fraction:
    """A rational >= the exact value of an mpf certified to nearest at >= 30 digits (relative bump 1e-25)."""
    return mpf_to_fraction(x) * (1 + _BUMP)


def _bound_fraction(v) -> Optional[Fraction]:
    return None if mpmath.isinf(v) else mpf_to_fraction(v)


# ===========================================================================
# whitehouse2022
# ===========================================================================

@cites(W22, "Theorem 1")
class WhitehouseFilter(Target):
    """whitehouse2022 Theorem 1 / whitehouse2023 Theorem 2: the shipped :class:`.DPFilter` (eps, delta' + delta'').

    Decision: ``DPFilter.can_run(eps_n, delta_n)`` at the engine's exact (V, delta spent).
    Claim checked: hockey-stick at eps <= delta' + delta''.  Takes delta_n.
    """

    kind, stat, supports_delta = "filter", "V", True

    def __init__(self, eps=1, delta_prime=Fraction(1, 1000), delta_second=0, name="W22_thm1_filter"):
        self.obj = DPFilter(eps, delta_prime, delta_second)
        self.eps = self.obj.eps
        self.delta = self.obj.delta
        self.name = name
        self.description = f"DPFilter(eps={self.eps}, delta'={self.obj.delta_prime}, delta''={self.obj.delta_second})"

    def admits(self, state, e, d):
        o = self.obj
        o._V, o._delta_spent = state.V, state.delta_spent
        return o.can_run(e, d)


@cites(W22, "Theorem 2", "Theorem 4", "Theorem 5", "Lemma 4")
class WhitehouseOdometer(Target):
    """whitehouse2022 Theorem 2 (whitehouse2023 Theorem 3): one family of the shipped :class:`.Odometer`.

    ``family``: ``"filter"`` (needs eps_target), ``"mixture"`` (Theorem 4 boundary, needs rho),
    ``"stitched"`` (Theorem 5 boundary, needs v0).  Bound: the shipped ``Odometer``'s bound (rounded UP,
    the value a user sees) at the engine's exact state, including the pDP drift of the delta_n > 0
    steps (errata W22-THM2-DELTA).  With ``stat == "V"`` the engine merges states of equal
    (V, delta spent); the drift is then determined when the menu has at most one item with
    delta > 0 (its count is delta spent / delta), which is the case for every verifier menu;
    callers that pass ``counts`` (the falsifier) may use any menu.  ``drift``: ``"two_sided"``
    (default: the shipped Odometer's pdp_drift_two_sided) or ``"kl"`` (the looser KL-route
    pdp_drift, kept under attack by the falsifier).  Claim checked:
    ``P(exists n: L_n > u_n) <= delta' + delta''``.  On randomized-response steps only (the
    verifier's scope); the falsifier attacks the same object with general pDP laws.
    """

    kind, stat, supports_delta = "odometer", "V", True

    def bind(self, menu):
        self._positive = sorted({(e, d) for e, d in menu if d > 0})

    DRIFTS = {"two_sided": pdp_drift_two_sided, "kl": pdp_drift}

    def __init__(self, family: str, delta_prime=Fraction(1, 10), delta_second=0, name=None, dps=20, drift="two_sided", **cfg):
        if family not in Odometer.FAMILIES:
            raise ValueError(f"family must be one of {Odometer.FAMILIES}, found {family!r}")
        if drift not in self.DRIFTS:
            raise ValueError(f"drift must be one of {sorted(self.DRIFTS)}, found {drift!r}")
        self.obj = Odometer(delta_prime, delta_second, **cfg)
        if family not in self.obj.families:
            raise ValueError(f"family {family!r} needs its parameter ({cfg!r} given)")
        self.family, self.dps = family, dps
        self._step_drift = self.DRIFTS[drift]
        self.delta = self.obj.delta
        suffix = "" if drift == "two_sided" else f"_{drift}_drift"
        self.name = name or f"W22_thm2_{family}_odometer{suffix}"
        self.description = (f"Odometer({family}, delta'={delta_prime}, delta''={delta_second}, {cfg})"
                            + ("" if drift == "two_sided" else f" with the {drift} drift"))

    def bound(self, state):
        o = self.obj
        if state.delta_spent == 0:
            return _bound_fraction(o._bounds_at(state.V, state.delta_spent, self.dps)[self.family])
        if state.counts is not None:
            runs = [(e, d, c) for (e, d), c in zip(state.menu, state.counts) if c]
        elif len(self._positive) == 1:
            e, d = self._positive[0]
            k = state.delta_spent / d
            if k.denominator != 1:
                raise ValueError(f"delta spent {state.delta_spent} is not a multiple of the menu's delta {d}")
            vp = state.V - int(k) * e * e
            _, dr = Odometer._drift([(e, d, int(k))], self._step_drift)
            return _bound_fraction(o._bounds_at(state.V, state.delta_spent, self.dps, dr, vp)[self.family])
        else:
            raise ValueError(f"{self.name}: a menu with several delta > 0 items needs count tracking (pass counts)")
        vp, dr = Odometer._drift(runs, self._step_drift)
        return _bound_fraction(o._bounds_at(state.V, state.delta_spent, self.dps, dr, vp)[self.family])


class _RhoSumFilter(Target):
    """Filters whose state is a sum of per-item rho's (rational upper bounds computed once per menu)."""

    kind, stat, supports_delta = "filter", "counts", False
    rho_of: Callable = None

    def bind(self, menu):
        self._rho = tuple(self.rho_of(e) for e, _ in menu)
        self._by_eps = {e: r for (e, _), r in zip(menu, self._rho)}

    def spent(self, state: AccState) -> Fraction:
        return sum((c * r for c, r in zip(state.counts, self._rho)), Fraction(0))


def _rho_tanh(e: Fraction) -> Fraction:
    """Rational upper bound of eps tanh(eps/2), the exact zCDP parameter of eps-RR (classical.rr_zcdp_rho)."""
    return _upper_rational(rr_zcdp_rho(e, dps=30))


@cites(W22, "Theorem 7", "Lemma 1")
class WhitehouseZCDPFilter(_RhoSumFilter):
    """whitehouse2022 Theorem 7 + Lemma 1 (whitehouse2023): the shipped :class:`.ZCDPFilter` on RR steps, read as DP.

    Each eps_n-RR step is rho_n = eps_n tanh(eps_n/2)-zCDP (rounded UP to a rational); the filter
    makes the run rho-zCDP, hence (``dp_guarantee(delta')["eps"]``, delta')-DP.  Claim checked:
    hockey-stick at that eps (rounded up) <= delta'.
    """

    def __init__(self, rho=Fraction(1, 20), delta_prime=Fraction(1, 1000), name="W22_thm7_zcdp_filter"):
        self.obj = ZCDPFilter(rho, 0)
        dp = check("delta_prime", delta_prime, Domain.open_unit())
        g = self.obj.dp_guarantee(dp, dps=30)
        self.eps = mpf_to_fraction(g["eps"])
        self.delta = mpf_to_fraction(g["delta"])
        self.rho_of = _rho_tanh
        self.name = name
        self.description = f"ZCDPFilter(rho={self.obj.rho}) as (eps={float(self.eps):.6g}, delta'={dp})-DP"

    def admits(self, state, e, d):
        o = self.obj
        o._rho_spent, o._delta_spent = self.spent(state), Fraction(0)
        return o.can_run(self._by_eps[e], 0)


# ===========================================================================
# rogers2016
# ===========================================================================

@cites(R16, "Theorem 3.6", "Theorem 5.1", "Lemma 3.5")
class RogersFilter(Target):
    """rogers2016 Theorems 3.6 / 5.1: the shipped BasicFilter / AdvancedFilter / AdvancedFilterAsPrinted.

    Decision: ``can_run(eps_i, delta_i)`` with the object's exact statistics set to the engine's
    count vector (:class:`reference.bounds.rogers2016.EpsStats`) and delta sum.  Claim checked:
    hockey-stick at eps_g <= delta_g (the filter is (eps_g, delta_g)-DP, Definition 3.2).
    """

    kind, stat, supports_delta = "filter", "counts", True
    CLASSES = {"basic": BasicFilter, "advanced": AdvancedFilter, "advanced_as_printed": AdvancedFilterAsPrinted}

    def __init__(self, which: str, eps_g=1, delta_g=Fraction(1, 1000), name=None):
        if which not in self.CLASSES:
            raise ValueError(f"which must be one of {sorted(self.CLASSES)}, found {which!r}")
        cls = self.CLASSES[which]
        self.obj = cls(eps_g, delta_g)
        self.eps = self.obj.params["eps_g"]
        self.delta = self.obj.params["delta_g"]
        self.name = name or f"R16_{which}_filter"
        self.description = f"{cls.__name__}(eps_g={self.eps}, delta_g={self.delta})"

    def admits(self, state, e, d):
        o = self.obj
        o._stats, o._delta_spent = EpsStats(state.eps_counts()), state.delta_spent
        return o.can_run(e, d)


@cites(R16, "Theorem 3.6", "Theorem 6.5", "Lemma 3.5", "Definition 3.1")
class RogersOdometer(Target):
    """rogers2016 Theorems 3.6 / 6.5: the shipped BasicOdometer / AdvancedOdometer (corrected) / AdvancedOdometerAsPrinted.

    Bound: ``value()`` (rounded UP) with the object's statistics set to the engine's count vector.
    Claim checked (Definition 3.1, two-sided): ``P(exists t: |L_t| > COMP_t) <= delta`` with delta the
    odometer's failure probability (delta'_g for the basic odometer, delta_g for Theorem 6.5).
    """

    kind, stat, supports_delta, two_sided = "odometer", "counts", False, True  # delta_i > 0: errata R16-LEM3-5-LOSS

    def __init__(self, which: str, delta_g=Fraction(1, 10), n=200, name=None, dps=20):
        if which == "basic":
            self.obj = BasicOdometer(delta_g)
        elif which == "advanced":
            self.obj = AdvancedOdometer(delta_g, n=n)
        elif which == "advanced_as_printed":
            self.obj = AdvancedOdometerAsPrinted(delta_g, n=n)
        else:
            raise ValueError(f"which must be 'basic', 'advanced' or 'advanced_as_printed', found {which!r}")
        self.delta = check("delta_g", delta_g, Domain.nonnegative())
        self.dps = dps
        self.name = name or f"R16_{which}_odometer"
        self.description = f"{type(self.obj).__name__}(delta_g={self.delta}{'' if which == 'basic' else f', n={n}'})"

    def bound(self, state):
        o = self.obj
        o._stats, o._delta_spent = EpsStats(state.eps_counts()), state.delta_spent
        return _bound_fraction(o.value(dps=self.dps))


# ===========================================================================
# feldman2021
# ===========================================================================

@cites(F21, "Theorem 4.7 (re-derived)")
class FeldmanDPFilter(Target):
    """feldman2021 Theorem 4.7 (re-derived): the shipped :class:`.RenyiDPFilter` (eps, delta); decision ``can_run(eps_t)``."""

    kind, stat, supports_delta = "filter", "V", False

    def __init__(self, eps=1, delta=Fraction(1, 1000), name="F21_thm4_7_dp_filter"):
        self.obj = RenyiDPFilter(eps, delta)
        self.eps, self.delta = self.obj.eps, self.obj.delta
        self.name = name
        self.description = f"RenyiDPFilter(eps={self.eps}, delta={self.delta})"

    def admits(self, state, e, d):
        o = self.obj
        o._V = state.V
        return o.can_run(e)


@cites(F21, "Theorem 4.3", "Fact 2.4")
class FeldmanRenyiFilter(_RhoSumFilter):
    """feldman2021 Theorem 4.3 + Fact 2.4: the shipped :class:`.RenyiFilter` F_{alpha,B} used as an (eps, delta)-DP filter.

    Each eps-RR step has order-alpha Renyi parameter ``rr_rdp(alpha, eps)`` (mironov2017 Table II),
    rounded UP to a rational; the output is (alpha, B)-RDP, hence
    (``dp_guarantee(delta)["eps"]`` = B + log(1/delta)/(alpha - 1) rounded up, delta)-DP.
    """

    def __init__(self, alpha=8, B=Fraction(1, 2), delta=Fraction(1, 1000), name="F21_thm4_3_renyi_filter"):
        self.obj = RenyiFilter(alpha, B)
        self.delta = check("delta", delta, Domain.open_unit())
        self.eps = mpf_to_fraction(self.obj.dp_guarantee(self.delta, dps=30)["eps"])
        a = self.obj.alpha
        self.rho_of = lambda e: _upper_rational(rr_rdp(a, e, dps=30))
        self.name = name
        self.description = f"RenyiFilter(alpha={a}, B={self.obj.B}) as (eps={float(self.eps):.6g}, delta={self.delta})-DP"

    def admits(self, state, e, d):
        o = self.obj
        o._spent = self.spent(state)
        return o.can_run(self._by_eps[e])


@cites(F21, "Remark 4.4", "Fact 2.4")
class FeldmanZCDPFilter(_RhoSumFilter):
    """feldman2021 Remark 4.4: the shipped :class:`.RenyiZCDPFilter` with RR as eps tanh(eps/2)-zCDP (rounded UP).

    Claim checked: hockey-stick at ``dp_guarantee(delta)["eps"]`` (rho + 2 sqrt(rho log(1/delta)), up) <= delta.
    """

    def __init__(self, rho=Fraction(1, 20), delta=Fraction(1, 1000), name="F21_rem4_4_zcdp_filter"):
        self.obj = RenyiZCDPFilter(rho)
        self.delta = check("delta", delta, Domain.open_unit())
        self.eps = mpf_to_fraction(self.obj.dp_guarantee(self.delta, dps=30)["eps"])
        self.rho_of = _rho_tanh
        self.name = name
        self.description = f"RenyiZCDPFilter(rho={self.obj.rho}) as (eps={float(self.eps):.6g}, delta={self.delta})-DP"

    def admits(self, state, e, d):
        o = self.obj
        o._spent = self.spent(state)
        return o.can_run(self._by_eps[e])


@cites(F21, "Renyi odometer (Theorem 3.1 supermartingale)")
class FeldmanRenyiOdometer(Target):
    """feldman2021 Renyi odometer: the shipped ``renyi_odometer_zcdp(R_t, delta, alphas)`` with R_t = V_t/2.

    RR with eps is eps^2/2-zCDP (Bun-Steinke Prop. 3.3; also >= eps tanh(eps/2)).  The claim is
    ``P(exists t: L_t >= odometer_t) <= delta``: crossing at equality counts (``at_equality``).
    """

    kind, stat, supports_delta, at_equality = "odometer", "V", False, True

    def __init__(self, delta=Fraction(1, 10), alphas="1.25,1.5,2,3,4,6,8,12,16,24,32,64,128", name="F21_renyi_odometer",
                 dps=20):
        self.delta = check("delta", delta, Domain.open_unit())
        self.alphas, self.dps = alphas, dps
        self.name = name
        self.description = f"renyi_odometer_zcdp(V/2, delta={self.delta}, A={alphas})"

    def bound(self, state):
        return _bound_fraction(renyi_odometer_zcdp(state.V / 2, self.delta, self.alphas, dps=self.dps))


# ===========================================================================
# Negative controls (deliberately broken; must be CAUGHT)
# ===========================================================================

@cites(R16, "Section 1.1 / Theorem 6.1 (advanced composition is not an odometer)")
class NaiveAdvancedOdometer(Target):
    """rogers2016 Theorem 6.1 negative control: advanced composition at the realized parameters used as an odometer.

    ``u_n = sqrt(2 log(1/delta) V_n) + sum eps_m tanh(eps_m/2)`` (whitehouse2022 eq. (2),
    :func:`reference.bounds.whitehouse2023.advanced_composition_eps`, rounded up) claimed with failure
    probability delta.  rogers2016 Algorithm 5 breaks it.
    """

    kind, stat, supports_delta = "odometer", "counts", False

    def __init__(self, delta=Fraction(1, 10), name="NEG_naive_advanced_composition_odometer"):
        self.delta = check("delta", delta, Domain.open_unit())
        self.name = name
        self.description = f"advanced composition at realized eps, delta={self.delta} (not an odometer)"

    def bound(self, state):
        es = [e for e, c in state.eps_counts().items() for _ in range(c)]
        if not es:
            return Fraction(0)
        return _bound_fraction(advanced_composition_eps(es, self.delta, dps=20))


@cites(W22, "Theorem 1 (negative control: concentration term dropped)")
class DriftOnlyFilter(Target):
    """whitehouse2022 Theorem 1 negative control: admit while V/2 <= eps (the sqrt(2 log(1/delta') V) term dropped)."""

    kind, stat, supports_delta = "filter", "V", False

    def __init__(self, eps=1, delta=Fraction(1, 1000), name="NEG_drift_only_filter"):
        self.eps, self.delta = check("eps", eps, Domain.positive()), check("delta", delta, Domain.open_unit())
        self.name = name
        self.description = f"V/2 <= eps={self.eps} claimed (eps, {self.delta})-DP"

    def admits(self, state, e, d):
        return (state.V + e * e) / 2 <= self.eps


@cites(W22, "Theorem 1 (negative control: halved log term)")
class HalvedLogFilter(Target):
    """whitehouse2022 Theorem 1 negative control: ``sqrt(2 (log(1/delta')/2) V) + V/2 <= eps`` claimed (eps, delta')-DP.

    Implemented exactly with the shipped rule :func:`reference.bounds.whitehouse2023.filter_admits` at
    delta'' = sqrt(delta') (log(1/delta'') = log(1/delta')/2); delta' must be a rational square.
    """

    kind, stat, supports_delta = "filter", "V", False

    def __init__(self, eps=1, delta_prime=Fraction(1, 10 ** 6), name="NEG_halved_log_filter"):
        self.eps = check("eps", eps, Domain.positive())
        self.delta = check("delta_prime", delta_prime, Domain.open_unit())
        r = [math.isqrt(x) for x in (self.delta.numerator, self.delta.denominator)]
        if Fraction(r[0], r[1]) ** 2 != self.delta:
            raise ValueError(f"delta_prime must be the square of a rational, found {delta_prime!r}")
        self._root = Fraction(r[0], r[1])
        self.name = name
        self.description = f"Theorem 1 rule with log(1/delta')/2, claimed (eps={self.eps}, {self.delta})-DP"

    def admits(self, state, e, d):
        return filter_admits(state.V + e * e, self.eps, self._root)


@cites("kairouz2015", "Theorem 3.3 (negative control: budget beyond optimal composition)")
class OverBudgetFilter(Target):
    """kairouz2015 Theorem 3.3 negative control: a filter admitting ``k_opt + extra`` steps of eps0 (V <= (k_opt + extra) eps0^2).

    k_opt = :func:`reference.bounds.baselines.optimal_rounds_homogeneous` (the most eps0-RR rounds that are
    (eps, delta)-DP); more rounds cannot be (eps, delta)-DP, so the homogeneous adversary catches it.
    """

    kind, stat, supports_delta = "filter", "V", False

    def __init__(self, eps0=Fraction(1, 20), eps=1, delta=Fraction(1, 1000), extra=1, name="NEG_over_budget_filter"):
        from ..bounds.baselines import optimal_rounds_homogeneous
        self.eps0 = check("eps0", eps0, Domain.positive())
        self.eps, self.delta = check("eps", eps, Domain.positive()), check("delta", delta, Domain.open_unit())
        self.k_opt = optimal_rounds_homogeneous(self.eps0, self.eps, self.delta)
        self.k = self.k_opt + int(check("extra", extra, Domain.integers_from(1)))
        self.name = name
        self.description = f"admits {self.k} = k_opt + {extra} rounds of eps0={self.eps0} (k_opt = {self.k_opt})"

    def admits(self, state, e, d):
        return state.V + e * e <= self.k * self.eps0 ** 2


# ===========================================================================
# Registry, default adversaries, the slack table
# ===========================================================================

def _mk_targets() -> dict:
    """name -> (factory, default base step eps0 (lattice), default rounds)."""
    F = Fraction
    return {
        "W22_thm1_filter": (lambda: WhitehouseFilter(1, F(1, 20), F(1, 20)), F(1, 50), 500),
        "W22_thm2_filter_odometer": (lambda: WhitehouseOdometer("filter", F(1, 10), F(1, 100), eps_target=1), F(1, 20), 300),
        "W22_thm4_mixture_odometer": (lambda: WhitehouseOdometer("mixture", F(1, 10), F(1, 100), rho=F(1, 2),
                                                                 name="W22_thm4_mixture_odometer"), F(1, 20), 300),
        "W22_thm5_stitched_odometer": (lambda: WhitehouseOdometer("stitched", F(1, 10), F(1, 100), v0=F(1, 100),
                                                                  name="W22_thm5_stitched_odometer"), F(1, 20), 300),
        "W22_thm7_zcdp_filter": (lambda: WhitehouseZCDPFilter(F(1, 10), F(1, 10)), F(1, 20), 200),
        "R16_basic_filter": (lambda: RogersFilter("basic", 1, F(1, 10)), F(1, 20), 200),
        "R16_advanced_filter": (lambda: RogersFilter("advanced", 1, F(1, 10)), F(1, 20), 200),
        "R16_advanced_filter_as_printed": (lambda: RogersFilter("advanced_as_printed", 1, F(1, 10)), F(1, 20), 200),
        "R16_basic_odometer": (lambda: RogersOdometer("basic", F(1, 10)), F(1, 20), 120),
        "R16_advanced_odometer": (lambda: RogersOdometer("advanced", F(1, 10), 200), F(1, 20), 120),
        "R16_advanced_odometer_as_printed": (lambda: RogersOdometer("advanced_as_printed", F(1, 10), 200), F(1, 20), 120),
        "F21_thm4_7_dp_filter": (lambda: FeldmanDPFilter(1, F(1, 10)), F(1, 50), 500),
        "F21_thm4_3_renyi_filter": (lambda: FeldmanRenyiFilter(4, F(1, 5), F(1, 10)), F(1, 20), 200),
        "F21_rem4_4_zcdp_filter": (lambda: FeldmanZCDPFilter(F(1, 10), F(1, 10)), F(1, 20), 200),
        "F21_renyi_odometer": (lambda: FeldmanRenyiOdometer(F(1, 10)), F(1, 20), 300),
    }


TARGETS = _mk_targets()

SKIPPED = {
    "W22_thm6_mixed_filter": "on DP steps MixedFilter is the Theorem 1 rule (same decisions as DPFilter, tested there)",
    "R16_lem6_4_odometer": "one beta fixed in advance; Theorem 6.5 (tested) is its union over the beta grid",
    "F21_individual_filter": "per-record individual losses (Algorithm 3); a two-point RR composition has no individual structure",
    "W22_thm2_filter_odometer_as_printed": "the printed y* still gives a valid line boundary (errata W22-EQ6-YSTAR); the "
                                           "shipped Odometer uses the corrected y*",
}


@cites(W22, "Lemma 3 (the standard adversaries)", "Theorem 1")
def default_adversaries(target: Target, eps0: Fraction, rounds: int) -> dict:
    """whitehouse2022 Lemma 3: the standard adversary set for ``target`` on base step eps0 (name -> Adversary).

    homogeneous(eps0), alternating(2 eps0, eps0), loss_chasing(2 eps0, eps0), variance_spender
    (eps0 then 2 eps0 from V >= rounds eps0^2/4), Algorithm 5 (eps0, delta = 1/10, C = 27/25, n = rounds),
    random_adaptive (seed 1; menu {eps0, 2 eps0} when counts are tracked, {eps0, 2 eps0, 3 eps0}
    otherwise) and, for targets taking delta_n, delta_spender (2 eps0 with delta_n = delta/20).
    """
    e = Fraction(eps0)
    advs = {
        "homogeneous": Homogeneous(e),
        "alternating": Alternating(2 * e, e),
        "loss_chasing": LossChasing(2 * e, e),
        "variance_spender": VarianceSpender(e, 2 * e, rounds * e * e / 4),
        "stopping_time": StoppingTime(e, Fraction(1, 10), Fraction(27, 25), max(rounds, 2)),
        "random_adaptive": RandomAdaptive(1, [e, 2 * e] if target.stat == "counts" else [e, 2 * e, 3 * e],
                                          v_bucket=rounds * e * e / 10),
    }
    if target.supports_delta and target.delta > 0:
        advs["delta_spender"] = DeltaSpender(2 * e, e, target.delta / 20, delta_cap=target.delta)
    return advs


def _select(names, pool: dict, what: str) -> list:
    if names in (None, "all"):
        return list(pool)
    if isinstance(names, str):
        names = [names]
    bad = [n for n in names if n not in pool]
    if bad:
        raise ValueError(f"{what} must be 'all' or among {sorted(pool)}, found {bad}")
    return list(names)


@cites(W22, "Theorem 1", "Theorem 2")
def slack_table(targets="all", adversaries="all", rounds: Optional[int] = None, *, progress=None) -> list[dict]:
    """whitehouse2022 Theorems 1-2 (and rogers2016, feldman2021): certified achieved delta of every target against every adversary.

    Returns one row per target: ``target``, ``kind``, ``eps`` (filters), ``allowed`` (claimed delta),
    ``worst_adversary``, ``achieved_hi`` (certified upper bound, max over adversaries),
    ``achieved_lo`` (its certified lower bound), ``slack`` = achieved_hi/allowed, ``verdict``
    (``pass`` iff every adversary's upper bound <= allowed), and ``per_adversary`` (the
    :class:`~reference.verify.engine.VerifierResult` dicts).  ``rounds`` overrides each target's default horizon.
    ``progress(i, n, label)`` is called before each run.  Default setting: about 30 s on 2 cores.
    """
    tnames = _select(targets, TARGETS, "target")
    jobs = []
    for tn in tnames:
        fac, e0, r = TARGETS[tn]
        t = fac()
        R = r if rounds is None else int(check("rounds", rounds, Domain.integers_from(1)))
        advs = default_adversaries(t, e0, R)
        for an in _select(adversaries, advs, "adversary"):
            jobs.append((tn, t, an, advs[an], R))
    rows: dict = {}
    for i, (tn, t, an, adv, R) in enumerate(jobs):
        if progress is not None:
            progress(i, len(jobs), f"{tn} x {an}")
        res = verify(t, adv, R)
        rows.setdefault(tn, (t, []))[1].append(res)
    if progress is not None:
        progress(len(jobs), len(jobs), "done")
    out = []
    for tn, (t, results) in rows.items():
        worst = max(results, key=lambda r: r.hi)
        verdict = "pass" if all(r.verdict == "pass" for r in results) else (
            "FAIL" if any(r.verdict == "FAIL" for r in results) else "undecided")
        out.append({"target": tn, "kind": t.kind, "eps": None if t.eps is None else t.eps, "allowed": t.allowed,
                    "worst_adversary": worst.adversary, "achieved_lo": worst.lo, "achieved_hi": worst.hi,
                    "slack": worst.slack, "verdict": verdict, "description": t.description,
                    "steps_checked": STEPS_CHECKED[t.kind],
                    "per_adversary": [r.as_dict() for r in results]})
    return out


#: What the randomized-response verifier establishes, by target kind.  RR is the worst case for a DP conclusion
#: (every (eps, delta)-DP step is a post-processing of RR, and DP survives post-processing), but not for a loss
#: tail: the loss of a post-processed view is not the post-processed loss (errata W22-THM2-DELTA, R16-LEM3-5-LOSS).
STEPS_CHECKED = {"filter": "RR (exact for the DP conclusion)",
                 "odometer": "RR only (loss tail; general laws: falsifier)"}


NEGATIVE_CONTROLS = {
    # name -> (target factory, adversary factory, rounds)
    "naive_advanced_composition_odometer": (lambda: NaiveAdvancedOdometer(Fraction(1, 10)),
                                            lambda: StoppingTime(Fraction(1, 100), Fraction(1, 10), Fraction(27, 25), 200),
                                            200),
    "drift_only_filter": (lambda: DriftOnlyFilter(1, Fraction(1, 1000)), lambda: Homogeneous(Fraction(1, 10)), 400),
    "halved_log_filter": (lambda: HalvedLogFilter(1, Fraction(1, 10 ** 6)), lambda: Homogeneous(Fraction(1, 50)), 1000),
    "over_budget_filter": (lambda: OverBudgetFilter(Fraction(1, 20), 1, Fraction(1, 1000)), lambda: Homogeneous(Fraction(1, 20)),
                           2000),
}


@cites(R16, "Theorem 6.1", "Section 1.1")
def negative_control_table(names="all") -> list[VerifierResult]:
    """rogers2016 Theorem 6.1 and friends: run each deliberately broken target against the adversary that breaks it.

    Every result must have verdict ``"FAIL"`` (certified lower bound > allowed): the verifier catches it.
    """
    out = []
    for n in _select(names, NEGATIVE_CONTROLS, "negative control"):
        tf, af, R = NEGATIVE_CONTROLS[n]
        r = verify(tf(), af(), R)
        r.extra["control"] = n
        out.append(r)
    return out


def _fmt(x) -> str:
    if x is None:
        return "-"
    if isinstance(x, Fraction):
        return f"{float(x):.6g}"
    if isinstance(x, mpmath.mpf):
        return mpmath.nstr(x, 6)
    if isinstance(x, float):
        return f"{x:.4g}"
    return str(x)


@cites(W22, "Theorem 1", "Theorem 2")
def render_table(rows: Iterable, *, title: str = "Certified slack of filters and odometers on adaptive RR") -> str:
    """Plain-text rendering of :func:`slack_table` rows (or :class:`~reference.verify.engine.VerifierResult` objects, e.g. negative controls)."""
    rows = list(rows)
    head = ["target", "kind", "eps", "delta allowed", "worst adversary", "achieved (lo)", "achieved (hi)", "slack hi/allowed",
            "verdict", "steps checked"]
    body = []
    for r in rows:
        if isinstance(r, VerifierResult):
            body.append([r.extra.get("control", r.target), r.kind, _fmt(r.eps), _fmt(r.allowed), r.adversary, _fmt(r.lo),
                         _fmt(r.hi), _fmt(r.slack), r.verdict, "RR"])
        else:
            body.append([r["target"], r["kind"], _fmt(r["eps"]), _fmt(r["allowed"]), r["worst_adversary"],
                         _fmt(r["achieved_lo"]), _fmt(r["achieved_hi"]), _fmt(r["slack"]), r["verdict"],
                         r.get("steps_checked", STEPS_CHECKED.get(r["kind"], "RR"))])
    w = [max(len(head[i]), *(len(b[i]) for b in body)) if body else len(head[i]) for i in range(len(head))]
    line = "  ".join(h.ljust(w[i]) for i, h in enumerate(head))
    out = [title, line, "-" * len(line)]
    out += ["  ".join(c.ljust(w[i]) for i, c in enumerate(b)) for b in body]
    return "\n".join(out)


# ===========================================================================
# Conversion-calibrated filters, the Gaussian-DP filter, the natural curve filter (reference.verify.calibrated)
# ===========================================================================

def _register_calibrated() -> None:
    from .calibrated import (
        CalibratedRenyiTarget,
        CalibratedZCDPTarget,
        GDPFilterTarget,
        NaiveGDPTarget,
        NaturalCurveFilter,
        UncalibratedRenyiTarget,
        natural_curve_adversary,
    )
    F = Fraction
    TARGETS.update({
        "F21_calibrated_renyi_filter": (lambda: CalibratedRenyiTarget(1, F(1, 10), eps0=F(1, 10)), F(1, 10), 60),
        "F21_calibrated_zcdp_filter": (lambda: CalibratedZCDPTarget(1, F(1, 10)), F(1, 10), 60),
        "S22_gdp_filter": (lambda: GDPFilterTarget(1, F(1, 10)), F(1, 10), 60),
    })
    NEGATIVE_CONTROLS.update({
        "uncalibrated_renyi_filter": (lambda: UncalibratedRenyiTarget(1, F(1, 1000), 8), lambda: Homogeneous(F(1, 10)), 300),
        "naive_gdp_filter": (lambda: NaiveGDPTarget(1, F(1, 1000)), lambda: Homogeneous(F(1, 10)), 300),
        "natural_curve_filter": (lambda: NaturalCurveFilter(1, F(3, 40)), natural_curve_adversary, 150),
    })


_register_calibrated()


def _register_game() -> None:
    from .game import optimal_adversary
    from .game_targets import GameFilterTarget, SumSquaresAtKOVTarget

    F = Fraction
    TARGETS["GAME_filter"] = (lambda: GameFilterTarget(), F(1, 100), 600)
    # the best adaptive analyst on 0.01, ..., 0.23 breaks "sum eps^2 <= n_KOV eps0^2" (1.2776e-6 > 1e-6)
    NEGATIVE_CONTROLS["sum_squares_at_kov_count"] = (
        SumSquaresAtKOVTarget,
        lambda: optimal_adversary(SumSquaresAtKOVTarget(), [F(m, 100) for m in range(1, 24)], 600).adversary, 600)


_register_game()
