"""The conservative reading of every input a filter or a count takes.

* A budget smaller than one step admits no step: every rounds function, the planner and the
  stateful filters answer 0 (or refuse) when the step alone is not (eps, delta)-DP -- no valid
  filter can admit it.  The premise is checked by a second route (the step's own delta at eps, or
  its Renyi divergence, at 60 digits).
* An inexact :class:`reference.precision.Certified` value is read at its conservative end: a
  charge (mu_t, eps_t, the sensitivity) at the upper end, a budget (eps, delta, B) and a noise
  scale sigma at the lower end.  The tests build values with deliberately wide enclosures, so
  that the two ends give different counts, and compare with the count of the exact end.
* The budgets the calibrated filters store are rounded down: below the closed form at 80 digits.
* The planner's rows on a Gaussian workload are recounted from their budgets in exact rationals.
* The falsifier's general-law table gives each target the step family its hypothesis allows.
"""
from __future__ import annotations

import re
from fractions import Fraction as F

import mpmath
import pytest

from reference import catalog
from reference.accountants.feldman2021 import CalibratedRenyiFilter, CalibratedZCDPFilter, RenyiFilter
from reference.accountants.smith2022 import GaussianDPFilter
from reference.bounds.baselines import optimal_rounds_homogeneous, rounds_comparison
from reference.bounds.calibrated import (calibrated_renyi_rounds_at, cks_rdp_budget, cks_rdp_budget_q,
                                         zcdp_improved_budget_q)
from reference.bounds.planner import plan
from reference.bounds.smith2022 import gdp_filter_rounds_dp, gdp_filter_rounds_gaussian
from reference.precision import Certified, mpf_to_fraction


def _mp(x: F) -> mpmath.mpf:
    return mpmath.mpf(x.numerator) / x.denominator


def _gdp_delta(eps, mu) -> mpmath.mpf:
    """Second route: Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2) at 60 digits."""
    with mpmath.workdps(60):
        e, m = _mp(F(eps)), _mp(F(mu))
        return mpmath.ncdf(-e / m + m / 2) - mpmath.exp(e) * mpmath.ncdf(-e / m - m / 2)


def _rr_delta(eps0, eps) -> mpmath.mpf:
    """Second route: one eps0-RR step's delta at eps, (e^eps0 - e^eps)/(1 + e^eps0), at 60 digits."""
    with mpmath.workdps(60):
        a, b = _mp(F(eps0)), _mp(F(eps))
        return max(mpmath.mpf(0), (mpmath.exp(a) - mpmath.exp(b)) / (1 + mpmath.exp(a)))


# --------------------------------------------------------------------------
# A budget smaller than one step admits no step
# --------------------------------------------------------------------------

ONE_STEP_TOO_BIG = [  # (catalog id, overrides): the step alone is not (eps, delta)-DP at the target
    ("smith2022_filter_rounds_gaussian", {"mu0": "10"}),
    ("smith2022_filter_rounds_dp", {"eps0": "5"}),
    ("feldman2021_thm4_3_calibrated_rounds", {"eps0": "5"}),
    ("feldman2021_rem4_4_calibrated_rounds", {"eps0": "5"}),
    ("feldman2021_thm4_7_rounds_homogeneous", {"eps0": "5"}),
    ("whitehouse2022_thm1_rounds_homogeneous", {"eps0": "5"}),
    ("rogers2016_thm5_1_rounds_homogeneous", {"eps0": "5"}),
]


@pytest.mark.parametrize("eid,over", ONE_STEP_TOO_BIG, ids=[x[0] for x in ONE_STEP_TOO_BIG])
def test_zero_steps_when_one_step_exceeds_the_target(eid, over):
    e = catalog.get(eid)
    kw = {**e.defaults(), **over}
    eps = F(kw.get("eps", kw.get("eps_target", kw.get("eps_g"))))
    delta = F(kw.get("delta", kw.get("delta_prime", kw.get("delta_g"))))
    one = _gdp_delta(eps, kw["mu0"]) if "mu0" in kw else _rr_delta(kw["eps0"], eps)
    assert one > _mp(delta) * 10  # premise: the single step is not (eps, delta)-DP
    assert e(**kw) == 0


def test_zero_steps_direct_calls_and_the_comparison_table():
    assert _gdp_delta(1, 10) > 1e-6 and _rr_delta(5, 1) > 1e-6
    assert gdp_filter_rounds_gaussian(10, 1, "1e-6") == 0
    assert gdp_filter_rounds_gaussian("1/10", 1, "1e-6") > 0  # and a step that fits is counted
    assert gdp_filter_rounds_dp(5, 1, "1e-6") == 0
    assert optimal_rounds_homogeneous(5, 1, "1e-6") == 0
    assert set(rounds_comparison(5, 1, "1e-6").values()) == {0}


def test_zero_steps_renyi_with_a_positive_budget():
    """At alpha = 2, (eps, delta) = (1, 1/2) the budget B(2) = 1 + log 2 > 0, below one 5-RR step's D_2 (second route:
    log(p^2/(1-p) + (1-p)^2/p), p = e^5/(1 + e^5), at 60 digits): no step, although the budget is positive."""
    B = cks_rdp_budget_q(F(2), F(1), F(1, 2))
    with mpmath.workdps(60):
        p = mpmath.exp(5) / (1 + mpmath.exp(5))
        d2 = mpmath.log(p ** 2 / (1 - p) + (1 - p) ** 2 / p)
        assert 0 < _mp(B) < d2
    assert calibrated_renyi_rounds_at(2, 5, 1, "1/2") == 0
    assert calibrated_renyi_rounds_at(2, "1/10", 1, "1/2") > 0


def test_zero_steps_filters_and_planner_refuse_the_first_step():
    assert not GaussianDPFilter(1, "1e-6").can_run_gaussian("1/10")
    assert not GaussianDPFilter(1, "1e-6").can_run_dp(5)
    assert not CalibratedZCDPFilter(1, "1e-6").can_run(5)
    assert not CalibratedRenyiFilter(1, "1/2", 2).can_run(5)
    for workload in ("rr:5", "gaussian:sigma=1/10", "rr:5;gaussian:sigma=1/10"):
        p = plan(1, "1e-6", workload)
        assert {r["rounds"] for r in p["rows"]} == {0}, workload
        assert p["optimal"] in (None, 0)


# --------------------------------------------------------------------------
# Inexact Certified values: charges at the upper end, budgets and sigma at the lower end
# --------------------------------------------------------------------------

def wide(lo, mid, hi) -> Certified:
    """A Certified value rounded to nearest (``mid``) whose enclosure is [lo, hi] (exact value unknown)."""
    return Certified._make(mpmath.mpf(mid)._mpf_, mpmath.mpf(lo)._mpf_, mpmath.mpf(hi)._mpf_, None)


def _run_all(step) -> int:
    n = 0
    while step():
        n += 1
        assert n < 10 ** 5
    return n


def test_certified_sigma_is_read_at_its_lower_end():
    """sigma in [19, 21] (rounded value 20): the Gaussian-DP filter counts as for sigma = 19 (mu = 1/19, the larger)."""
    sig = wide(19, 20, 21)
    f = GaussianDPFilter(1, "1e-6")
    n = _run_all(lambda: f.try_run_gaussian(sig))
    assert n == gdp_filter_rounds_gaussian(F(1, 19), 1, "1e-6") < gdp_filter_rounds_gaussian(F(1, 20), 1, "1e-6")
    assert f.S == n * F(1, 19) ** 2


def test_certified_sensitivity_and_mu_are_charged_at_their_upper_end():
    """mu_t in [0.09, 0.11] and a sensitivity in [0.9, 1.1]: charged the upper ends, by every entry point."""
    mu = wide("0.09", "0.1", "0.11")
    up = mpf_to_fraction(mu.upper)
    want = gdp_filter_rounds_gaussian(up, 1, "1e-6")
    assert want < gdp_filter_rounds_gaussian(mpf_to_fraction(mu), 1, "1e-6")
    for entry in ("run_gdp", "try_run_gdp", "run"):
        f = GaussianDPFilter(1, "1e-6")
        if entry == "try_run_gdp":
            n = _run_all(lambda: f.try_run_gdp(mu))
        else:
            n = 0
            while f.can_run_gdp(mu):
                getattr(f, entry)(mu)
                n += 1
        assert n == want, entry
        assert f.S == n * up ** 2
    sens = wide("0.9", "1", "1.1")
    f = GaussianDPFilter(1, "1e-6")
    n = _run_all(lambda: f.try_run_gaussian(10, sens))
    assert n == gdp_filter_rounds_gaussian(mpf_to_fraction(sens.upper) / 10, 1, "1e-6") < \
        gdp_filter_rounds_gaussian(F(1, 10), 1, "1e-6")


def test_certified_eps_step_is_charged_at_its_upper_end():
    """eps_t in [0.09, 0.11]: the Gaussian-DP filter charges mu(upper end) (fewer steps than at the rounded value)."""
    e = wide("0.09", "0.1", "0.11")
    f = GaussianDPFilter(1, "1e-6")
    n = _run_all(lambda: f.try_run_dp(e))
    assert n == gdp_filter_rounds_dp(mpf_to_fraction(e.upper), 1, "1e-6") < gdp_filter_rounds_dp(mpf_to_fraction(e), 1, "1e-6")


def test_certified_budgets_are_read_at_their_lower_end():
    """eps in [0.9, 1.1] and delta in [1e-7, 1e-5]: the filters keep eps = 0.9 and delta = 1e-7 and count accordingly."""
    eps, delta = wide("0.9", "1", "1.1"), wide("1e-7", "1e-6", "1e-5")
    lo_eps, lo_delta = mpf_to_fraction(eps.lower), mpf_to_fraction(delta.lower)
    f = GaussianDPFilter(eps, delta)
    assert (f.eps, f.delta) == (lo_eps, lo_delta)
    n = _run_all(lambda: f.try_run_gaussian(20))
    assert n == gdp_filter_rounds_gaussian(F(1, 20), lo_eps, lo_delta) < gdp_filter_rounds_gaussian(F(1, 20), 1, "1e-6")
    z = CalibratedZCDPFilter(eps, delta)
    assert (z.eps, z.delta) == (lo_eps, lo_delta) and z.budget == zcdp_improved_budget_q(lo_eps, lo_delta)
    r = CalibratedRenyiFilter(eps, delta, 8)
    assert r.budget == cks_rdp_budget_q(F(8), lo_eps, lo_delta)
    B = wide("0.5", "1", "2")
    assert RenyiFilter(2, B).B == F(1, 2)


# --------------------------------------------------------------------------
# Budgets stored rounded down
# --------------------------------------------------------------------------

@pytest.mark.parametrize("alpha,eps,delta", [(F(32), F(1), F(1, 10 ** 6)), (F(707, 32), F(1), F(1, 10 ** 6)),
                                             (F(2), F(1), F(1, 2)), (F(65, 64), F(3), F(1, 10))])
def test_calibrated_budget_is_below_its_closed_form(alpha, eps, delta):
    """B(alpha) = eps - log((alpha-1)/alpha) + (log delta + log alpha)/(alpha - 1): the stored budget (40 digits, rounded
    down) lies below the closed form at 80 digits, within 1e-38 relative; the 20-digit catalog value too."""
    with mpmath.workdps(80):
        a, e, d = _mp(alpha), _mp(eps), _mp(delta)
        exact = e - mpmath.log((a - 1) / a) + (mpmath.log(d) + mpmath.log(a)) / (a - 1)
    stored = cks_rdp_budget_q(alpha, eps, delta)
    assert _mp(stored) < exact and exact - _mp(stored) < abs(exact) * mpmath.mpf(10) ** -38
    assert cks_rdp_budget(alpha, eps, delta) < exact


# --------------------------------------------------------------------------
# The planner, recounted
# --------------------------------------------------------------------------

@pytest.mark.parametrize("sigma", [F(20), F(5), F(47, 2)])
def test_plan_gaussian_rows_recounted_from_their_budgets(sigma):
    """On Gaussian steps of mu = 1/sigma: the zCDP row admits floor(rho*/(mu^2/2)) steps and the Renyi row, at the
    alpha it prints, floor(B(alpha)/(alpha mu^2/2)) (exact rationals); neither exceeds the optimal count."""
    p = plan(1, "1e-6", f"gaussian:sigma={sigma}")
    rows = {r["key"]: r for r in p["rows"]}
    mu2 = 1 / sigma ** 2
    assert rows["calibrated_zcdp_filter"]["rounds"] == zcdp_improved_budget_q(F(1), F(1, 10 ** 6)) // (mu2 / 2)
    alpha = F(re.search(r"alpha = (\S+)", rows["calibrated_renyi_filter"]["params"]).group(1))
    B = cks_rdp_budget_q(alpha, F(1), F(1, 10 ** 6))
    assert rows["calibrated_renyi_filter"]["rounds"] == B // (alpha * mu2 / 2)
    assert all(r["rounds"] <= p["optimal"] for r in p["rows"])
    assert p["rows"][0]["rounds"] == max(r["rounds"] for r in p["rows"])


# --------------------------------------------------------------------------
# The falsifier's general-law table: step families
# --------------------------------------------------------------------------

def test_family_of_follows_the_hypothesis():
    """pDP laws for odometers that take delta_n > 0, DP laws for filters that do, pure laws otherwise; every family occurs."""
    from reference.falsify.verifier_menu import family_of
    from reference.verify.targets import TARGETS

    seen = set()
    for name, (factory, _, _) in TARGETS.items():
        t = factory()
        want = {("odometer", True): "pdp", ("odometer", False): "pure", ("filter", True): "dp",
                ("filter", False): "pure"}[(t.kind, bool(t.supports_delta))]
        assert family_of(t) == want, name
        seen.add((t.kind, bool(t.supports_delta)))
    assert len(seen) == 4
