"""Theorem 2 of whitehouse2022 (seed 000_8d85c89f0d15dfff.txt; arXiv version, Section 5, proof in Appendix C):
the filter, mixture and stitched privacy odometers, and the Section 5 comparison claims.

Statement (our words): if A_n is (eps_n, delta_n)-pDP conditioned on A_{1:n-1}, delta = delta' + delta'',
N = inf{n: delta'' < sum_{m<=n+1} delta_m}, V = sum_{m<=n} eps_m^2, then each of
  u^F_n = sqrt(2 y* L)/2 + sqrt(2L)/(2 sqrt(y*)) V + V/2            (L = log(1/delta'), y* from eq. (6)),
  u^M_n = sqrt(2 log(sqrt((V + rho)/rho)/delta') (rho + V)) + V/2,
  u^S_n = 1.7 sqrt(V (loglog(2V/v0) + 0.72 log(5.2/delta'))) + V/2   (infinite while V < v0),
all infinite for n > N, satisfies P(exists n: L_{1:n} > u_n) <= delta.  (eq. (6)'s y* is misprinted, ledger
W22-EQ6-YSTAR; any y > 0 gives a valid filter odometer, so both the corrected and the printed one are checked.)

Second routes: each odometer equals the corresponding martingale boundary (Theorems 3-5) plus V/2; exact
crossing probabilities on adaptive (eps_n, delta_n)-randomized response (pDP by Definition 6); rate and
comparison claims at 110 digits.

FALSE as printed for delta_n > 0 (ledger W22-THM2-DELTA): randomized response is not the worst case for a loss
tail, and a pDP step whose loss under x is log(1/(1 - delta)) with probability one breaks every family.  The
shipped Odometer replaces the V/2 drift of the delta_n > 0 steps by pdp_drift (derived); both facts are tested
below, independently of the falsifier that found the counterexample.
"""
from __future__ import annotations

from fractions import Fraction as F

import mpmath
import pytest
from hypothesis import example, given, strategies as st

from reference.bounds import whitehouse2023 as W
from reference.accountants.whitehouse2023 import Odometer
from reference.precision import mpf_to_fraction
from test_whitehouse2022_definitions import INF, q2m, rr_enumerate

DP, DPP = F(1, 5), F(1, 20)
FAMILIES = {
    "filter": lambda V: W.filter_odometer(V, 1, DP, dps=30),
    "filter_as_printed": lambda V: W.filter_odometer_as_printed(V, 1, DP, dps=30),
    "mixture": lambda V: W.mixture_odometer(V, F(1, 5), DP, dps=30),
    "stitched": lambda V: W.stitched_odometer(V, F(1, 100), DP, dps=30),
}
PDP_ADVERSARIES = {
    "homogeneous": lambda loss, V, S, n: F(1, 5),
    "loss_chasing_with_deltas": lambda loss, V, S, n: (F(3, 10), F(1, 100)) if loss > 0 else (F(1, 10), F(0)),
    "variance_spender": lambda loss, V, S, n: F(1, 10) if V < F(1, 5) else F(1, 2),
}
dp_st = st.sampled_from([F(1, 2), F(1, 10**6), F(1, 10**300)])


def odometer_crossing(family, strategy, horizon=40):
    """P(exists n <= horizon: L_{1:n} > u_n) with u_n = inf once sum delta_m > delta'' (n > N); flags have loss +inf."""
    cache = {}

    def bound(V, S, n, drift):
        if S > DPP:
            return INF
        if V not in cache:
            cache[V] = FAMILIES[family](V)
        return cache[V]

    return rr_enumerate(strategy, horizon, bound=bound)["crossed"]


@given(st.fractions(min_value=0, max_value=10**12), st.fractions(min_value=F(1, 1000), max_value=1000), dp_st)
@example(F(10**12), F(1000), F(1, 10**300))
def test_filter_odometer_is_theorem3_boundary_plus_drift(V, e, dp):
    """u^F(V) = b/2 + b V/(2a) + V/2 with a = y*, b = sqrt(2 L y*) (Theorem 3 at crossing probability delta')."""
    ys = W.y_star(e, dp, dps=80)
    L = -mpmath.log(q2m(dp))
    ref = mpmath.sqrt(2 * ys * L) / 2 + mpmath.sqrt(2 * L) / (2 * mpmath.sqrt(ys)) * q2m(V) + q2m(V) / 2
    got = W.filter_odometer(V, e, dp)
    assert got >= ref * (1 - mpmath.mpf(10) ** -70) and got <= ref * (1 + mpmath.mpf(10) ** -40)


@given(st.fractions(min_value=0, max_value=10**12), st.fractions(min_value=F(1, 1000), max_value=1000), dp_st)
def test_mixture_and_stitched_odometers_are_boundaries_plus_drift(V, r, dp):
    """u^M = Theorem 4 boundary at delta' + V/2; u^S = Theorem 5 boundary at delta' + V/2 (inf while V < v0)."""
    half = q2m(V) / 2
    um, bm = W.mixture_odometer(V, r, dp), W.mixture_boundary(V, r, dp)
    assert um >= bm + half - mpmath.mpf(10) ** -40 * um and um <= (bm + half) * (1 + mpmath.mpf(10) ** -40)
    us, bs = W.stitched_odometer(V, r, dp), W.stitched_boundary(V, r, dp)
    if V < r:
        assert us == INF and bs == INF
    else:
        assert us >= bs + half - mpmath.mpf(10) ** -40 * us and us <= (bs + half) * (1 + mpmath.mpf(10) ** -40)


@pytest.mark.parametrize("family", sorted(FAMILIES))
@pytest.mark.parametrize("name", sorted(PDP_ADVERSARIES))
def test_odometer_is_time_uniform_on_adaptive_pdp_rr(family, name):
    """P(exists n <= 40: L_{1:n} > u_n) <= delta' + delta'' (exact; deltas adaptive, bound infinite past N)."""
    assert odometer_crossing(family, PDP_ADVERSARIES[name]) <= q2m(DP + DPP)


def test_negative_control_fixed_time_bound_is_not_an_odometer():
    """sqrt(2 L V) + V/2 (advanced composition read at every V, Figure 3b's pointwise curve) is crossed w.p. > delta'."""
    L = -mpmath.log(q2m(DP))
    FAMILIES["pointwise"] = lambda V: mpmath.sqrt(2 * L * q2m(V)) + q2m(V) / 2
    try:
        assert odometer_crossing("pointwise", lambda loss, V, S, n: F(1, 10), 150) > q2m(DP + DPP)
    finally:
        del FAMILIES["pointwise"]


def test_odometer_class_matches_the_three_families_and_N():
    """reference.accountants.whitehouse2023.Odometer: bounds = u^F, u^M, u^S at V_n; all inf once sum delta_m > delta'' (n > N)."""
    o = Odometer("1e-6", "1e-9", eps_target=1, rho=F(1, 10), v0=F(1, 100))
    steps = [(F(1, 10), F(0)), (F(1, 5), F(1, 10**10)), (F(3, 10), F(0))]
    V = F(0)
    for e, d in steps:
        o.record(e, d)
        V += e * e
    b = o.bounds(dps=40)
    # the delta_n > 0 step carries the two-sided pDP drift instead of eps^2/2 (errata W22-THM2-DELTA); second route at
    # 60 digits with mpmath's own tanh and sinh (delta = 1e-10 < 1 - e^-eps)
    with mpmath.workdps(60):
        e, d = mpmath.mpf(1) / 5, mpmath.mpf(1) / 10**10
        drift = e * mpmath.tanh(e / 2) + e * d / mpmath.sinh(e)
        shift = drift - e * e / 2
        for fam, closed in (("filter", W.filter_odometer(V, 1, "1e-6", dps=50)), ("mixture", W.mixture_odometer(V, F(1, 10), "1e-6", dps=50)),
                            ("stitched", W.stitched_odometer(V, F(1, 100), "1e-6", dps=50))):
            # the drift is rounded up at 30 digits: tight to 1e-28, never below
            assert abs(b[fam] - (closed + shift)) <= mpmath.mpf(10) ** -28 * b[fam] and b[fam] >= closed + shift - mpmath.mpf(10) ** -45
    o.record(F(1, 10), F(1, 10**9))  # sum delta = 1.1e-9 > delta''
    assert all(v == INF for v in o.bounds().values())
    o2 = Odometer("1e-6", "1e-9", eps_target=1, rho=F(1, 10), v0=F(1, 100))
    for e2 in (F(1, 10), F(1, 5), F(3, 10)):   # delta_n = 0: exactly the printed odometers
        o2.record(e2)
    V2 = o2.V
    assert o2.bounds() == {"filter": W.filter_odometer(V2, 1, "1e-6"), "mixture": W.mixture_odometer(V2, F(1, 10), "1e-6"),
                           "stitched": W.stitched_odometer(V2, F(1, 100), "1e-6")}


def _good_event_drift(law, eps) -> F:
    """E_P[L 1_G] for G = {|L| <= eps} as a rational upper bound (log of each ratio bounded above by a 40-digit rational)."""
    out = F(0)
    for a, b in zip(law.p, law.q):
        if a == 0 or b == 0:
            continue
        r = a / b
        from reference.precision import compare_exp_rational
        if compare_exp_rational(eps, r) < 0 or compare_exp_rational(-eps, r) > 0:
            continue  # outside G
        with mpmath.workdps(50):
            lg = mpmath.log(mpmath.mpf(r.numerator) / r.denominator)
        out += a * (mpf_to_fraction(lg) + F(1, 10**40))
    return out


@pytest.mark.parametrize("eps, delta", [(F(1, 20), F(9, 200)), (F(1, 10), F(1, 100)), (F(1, 4), F(1, 20)), (F(1, 2), F(1, 10)),
                                        (F(1), F(1, 5)), (F(0), F(1, 10))])
def test_pdp_drift_bounds_the_good_event_mean_of_every_candidate_law(eps, delta):
    """The lemma behind the correction: for every (eps, delta)-pDP candidate law (post-processings of RR, one-sided atoms,
    threshold splits; exact membership), E_P[L 1_{|L| <= eps}] <= pdp_drift(eps, delta)."""
    from reference.falsify.laws import pdp_candidates
    bound = mpf_to_fraction(W.pdp_drift(eps, delta, dps=40))
    laws = pdp_candidates(eps, delta, thresholds=(eps, 2 * eps) if eps else ())
    assert laws
    worst = max(_good_event_drift(law, eps) for law in laws)
    assert worst <= bound
    # and the printed eps^2/2 is NOT an upper bound on it once delta > 0 (the erratum) for small eps
    if eps and eps <= F(1, 10):
        assert worst > eps * eps / 2


# ---- the two-sided pDP drift: what the shipped Odometer charges a delta_n > 0 step -----------------------------------
# Lemma (derived; symbolic.whitehouse2023.pdp_drift_two_sided): for every pair (P, Q) with P(|L| > eps) <= delta and
# Q(|L| > eps) <= delta (Definition 3 for both orders of the neighbours), G = {|L| <= eps},
#     E_P[L 1_G] <= D(eps, delta) = min(eps, eps tanh(eps/2) + eps delta/sinh(eps)),
# with equality for some pair: D is the least such bound.

DRIFT_GRID = [(F(1, 20), F(9, 200)), (F(1, 10), F(1, 100)), (F(1, 4), F(1, 20)), (F(1, 2), F(1, 10)), (F(1), F(1, 10)),
              (F(1), F(1, 5)), (F(2), F(1, 2)), (F(1, 20), F(1, 10)), (F(1, 1000), F(1, 10**6)), (F(1, 10), F(0)),
              (F(3), F(1))]
#: A state written by the Odometer before it charged the two-sided drift (the format has not changed since).
OLD_STATE = ('{"digest": "8bd795aaed21fcb3027e063ad6f678ef98bb3cf4724075d70c917a41a5decbdb", "history": [["1/10", "0", 1], '
             '["1/10", "1/100", 2], ["1/3", "1/10", 1], ["1/20", "0", 1]], "params": {"delta_prime": "1/1000000", '
             '"delta_second": "1/2", "eps_target": "1", "n_records": null, "rho": "1/100", "v0": "1/1000"}, '
             '"schema": "fullyadaptive.filters.Odometer", "state": {"V": "517/3600", "delta_spent": "3/25", "n": 5}, "version": 1}')


def _good_event_mean(law, eps, direction: str) -> F:
    """E_P[L 1_G], G = {|L| <= eps}, as a rational bound in ``direction``: membership in G decided exactly, each log ratio
    a 60-digit mpmath log moved 10^-40 outwards (far beyond its error)."""
    from reference.precision import compare_exp_rational
    sign = 1 if direction == "upper" else -1
    out = F(0)
    for a, b in zip(law.p, law.q):
        if a == 0 or b == 0:
            continue  # a = 0: no P-mass; b = 0: L = +inf, outside G
        r = a / b
        if r == 1 or compare_exp_rational(eps, r) < 0 or compare_exp_rational(-eps, r) > 0:
            continue  # L = 0 exactly, or outside G
        with mpmath.workdps(60):
            lg = mpmath.log(mpmath.mpf(r.numerator) / r.denominator)
        out += a * (mpf_to_fraction(lg) + sign * F(1, 10**40))
    return out


def _drift_two_sided_60(e: F, d: F) -> mpmath.mpf:
    """Second route: min(eps, eps tanh(eps/2) + eps delta/sinh(eps)) with mpmath's tanh and sinh at 60 digits (0 at eps = 0)."""
    if e == 0:
        return mpmath.mpf(0)
    with mpmath.workdps(60):
        ee, dd = q2m(e), q2m(d)
        return min(ee, ee * mpmath.tanh(ee / 2) + ee * dd / mpmath.sinh(ee))


@pytest.mark.parametrize("eps, delta", DRIFT_GRID + [(F(0), F(1, 10)), (F(1, 3), F(1, 4))])
def test_two_sided_drift_equals_its_closed_form(eps, delta):
    """pdp_drift_two_sided(eps, delta) = min(eps, eps tanh(eps/2) + eps delta/sinh(eps)), rounded up and tight to 1e-35
    (second route: mpmath's tanh and sinh at 60 digits; the library evaluates it through e^eps only)."""
    got, ref = W.pdp_drift_two_sided(eps, delta, dps=40), _drift_two_sided_60(eps, delta)
    assert got >= ref * (1 - mpmath.mpf(10) ** -45)
    assert got <= ref * (1 + mpmath.mpf(10) ** -35)


@pytest.mark.parametrize("eps, delta", DRIFT_GRID + [(F(0), F(1, 10))])
def test_two_sided_drift_bounds_the_good_event_mean_of_every_candidate_law(eps, delta):
    """E_P[L 1_{|L| <= eps}] <= pdp_drift_two_sided(eps, delta) for every (eps, delta)-pDP candidate law (post-processings
    of RR, one-sided atoms, threshold splits, and the laws of pdp_drift_extremes; pDP checked exactly in both directions)."""
    from reference.falsify.laws import is_pdp, pdp_candidates, pdp_drift_extremes
    bound = mpf_to_fraction(W.pdp_drift_two_sided(eps, delta, dps=40))
    laws = pdp_candidates(eps, delta, thresholds=(eps, 2 * eps) if eps else ()) + pdp_drift_extremes(eps, delta, digits=30)
    assert laws and all(is_pdp(x) for x in laws)
    assert max(_good_event_mean(x, eps, "upper") for x in laws) <= bound


@pytest.mark.parametrize("eps, delta", DRIFT_GRID)
def test_two_sided_drift_is_attained_and_a_smaller_drift_is_refuted(eps, delta):
    """The three-atom law P = (p1, p2, 0), Q = (p1/r, p2 r, delta) (two atoms once delta >= 1 - 1/r), r a rational within
    1e-30 of e^eps, is (eps, delta)-pDP and has E_P[L 1_G] >= D (1 - 1e-25): D is the true worst case up to r's error.
    Negative control: the drift D (1 - 1e-15) is refuted by that law."""
    from reference.falsify.laws import is_pdp, pdp_drift_extremes
    law = pdp_drift_extremes(eps, delta, digits=30)[0]
    assert is_pdp(law)
    D = mpf_to_fraction(W.pdp_drift_two_sided(eps, delta, dps=40))
    mean = _good_event_mean(law, eps, "lower")
    assert mean >= D * (1 - F(1, 10**25))
    assert mean > D * (1 - F(1, 10**15))  # the smaller drift does not bound this pDP step


@given(st.fractions(min_value=0, max_value=20), st.fractions(min_value=0, max_value=1))
@example(F(1), F(1, 10))
@example(F(0), F(1, 2))
@example(F(1, 10**6), F(1, 10**6))
def test_two_sided_drift_is_below_the_kl_route_drift(eps, delta):
    """D(eps, delta) <= eps tanh(eps/2) + delta < pdp_drift(eps, delta) for delta > 0 (eps/sinh(eps) <= 1 and
    l = log(1/(1 - delta(1 + e^-eps))) > delta, e~ = eps + l > eps); equal at delta = 0 (both eps tanh(eps/2)); D <= eps
    also where pdp_drift refuses (delta (1 + e^-eps) >= 1)."""
    new = W.pdp_drift_two_sided(eps, delta, dps=30)
    assert new <= q2m(eps) * (1 + mpmath.mpf(10) ** -28)
    try:
        old = W.pdp_drift(eps, delta, dps=30)
    except ValueError:
        assert delta * (1 + mpmath.exp(-q2m(eps))) >= 1 - mpmath.mpf(10) ** -100
        return
    if delta == 0:
        assert abs(new - old) <= mpmath.mpf(10) ** -28 * max(old, mpmath.mpf(10) ** -300)
    else:
        with mpmath.workdps(60):
            assert new <= q2m(eps) * mpmath.tanh(q2m(eps) / 2) + q2m(delta) + mpmath.mpf(10) ** -28 * (q2m(eps) + 1)
        assert new < old


def test_two_sided_drift_gain_at_the_review_point():
    """At eps = 1, delta = 0.1: KL route 0.7412 (l = -log(1 - 0.1(1 + 1/e)), e~ = 1 + l, e~ tanh(e~/2) + l) against
    tanh(1/2) + 0.1/sinh(1) = 0.5472 (both recomputed here at 60 digits): a factor 1.3545."""
    with mpmath.workdps(60):
        ell = -mpmath.log(1 - mpmath.mpf("0.1") * (1 + mpmath.exp(-1)))
        kl = (1 + ell) * mpmath.tanh((1 + ell) / 2) + ell
        two = mpmath.tanh(mpmath.mpf(1) / 2) + mpmath.mpf("0.1") / mpmath.sinh(1)
        assert abs(W.pdp_drift(1, F(1, 10), dps=40) - kl) < mpmath.mpf(10) ** -38
        assert abs(W.pdp_drift_two_sided(1, F(1, 10), dps=40) - two) < mpmath.mpf(10) ** -38
        assert mpmath.mpf("0.7412") < kl < mpmath.mpf("0.7413") and mpmath.mpf("0.5472") < two < mpmath.mpf("0.5473")
        assert mpmath.mpf("1.3545") < kl / two < mpmath.mpf("1.3546")


@given(st.fractions(min_value=F(1, 1000), max_value=10), st.fractions(min_value=-1, max_value=1))
@example(F(1), F(1))
@example(F(1), F(-1))
def test_two_sided_drift_pointwise_step(eps, s):
    """The derivation's one inequality: t <= alpha + beta e^-t on [-eps, eps], alpha = eps coth(eps), beta = -eps/sinh(eps)
    (t = s eps; equality at t = +-eps), checked at 60 digits with a 1e-50 relative margin."""
    with mpmath.workdps(60):
        e = q2m(eps)
        t = q2m(s) * e
        rhs = e / mpmath.tanh(e) - e / mpmath.sinh(e) * mpmath.exp(-t)
        assert t <= rhs + mpmath.mpf(10) ** -50 * (1 + abs(rhs))


def test_odometer_charges_the_two_sided_drift_and_an_old_state_loads():
    """A state saved before the Odometer switched drifts loads unchanged (it holds parameters and history, not the drift);
    its bounds are B(V) + sum_{delta=0} eps^2/2 + sum_{delta>0} D(eps, delta) (second route at 60 digits) and each is below
    what the KL-route drift gave at the same history (what the saved state reported), so reading old bounds up to some n
    and new ones after it still gives an odometer."""
    o = Odometer.from_json(OLD_STATE)
    assert o.n == 5 and o.V == F(517, 3600) and o.delta_spent == F(3, 25)
    steps = o.history
    V = o.V
    vp = sum((e * e for e, d in steps if d == 0), F(0))
    two = sum((_drift_two_sided_60(e, d) for e, d in steps if d > 0), mpmath.mpf(0))
    with mpmath.workdps(60):
        kl = mpmath.mpf(0)
        for e, d in steps:
            if d > 0:
                ell = -mpmath.log(1 - q2m(d) * (1 + mpmath.exp(-q2m(e))))
                kl += (q2m(e) + ell) * mpmath.tanh((q2m(e) + ell) / 2) + ell
    b = o.bounds(dps=40)
    assert b == Odometer.from_json(o.to_json()).bounds(dps=40)
    with mpmath.workdps(60):
        for fam, closed in (("filter", W.filter_odometer(V, 1, F(1, 10**6), dps=50)),
                            ("mixture", W.mixture_odometer(V, F(1, 100), F(1, 10**6), dps=50)),
                            ("stitched", W.stitched_odometer(V, F(1, 1000), F(1, 10**6), dps=50))):
            base = closed - q2m(V) / 2 + q2m(vp) / 2
            assert b[fam] >= (base + two) * (1 - mpmath.mpf(10) ** -35)
            assert b[fam] <= (base + two) * (1 + mpmath.mpf(10) ** -25)
            assert b[fam] < base + kl - mpmath.mpf(1) / 100  # the KL route charged these three steps 0.01 more at least


def test_delta_positive_as_printed_is_false_and_the_drift_restores_it():
    """Errata W22-THM2-DELTA, by a route independent of the falsifier's engine.

    Step law P = (1, 0) under x, Q = (1 - delta, delta) under x' with (eps, delta) = (1/20, 9/200): exactly (eps, delta)-pDP;
    under x the loss after n steps is n log(1/(1 - delta)) with probability one.  delta' = 3/10, delta'' = 3/5 (n <= 13 steps
    within the delta budget).  Printed: every family is crossed at some n <= 13 (probability 1 > 0.9).  Corrected (the
    shipped Odometer, two-sided drift): no family is crossed at any n <= 13.  The falsifier agrees, and finds nothing
    against the KL-route drift either.
    """
    from reference.falsify import falsify
    from reference.falsify.laws import StepLaw, is_pdp
    e, d, dp, ds = F(1, 20), F(9, 200), F(3, 10), F(3, 5)
    law = StepLaw((F(1), F(0)), (1 - d, d), e, d)
    assert is_pdp(law) and is_pdp(law.swapped())
    o = Odometer(dp, ds, eps_target=1, rho=F(1, 100), v0=F(1, 100))
    crossed_printed = {"filter": False, "mixture": False, "stitched": False}
    with mpmath.workdps(60):
        step = mpmath.log(1 / (1 - mpmath.mpf(9) / 200))
        for n in range(1, 14):
            o.record(e, d)
            L = n * step
            V = F(n, 400)
            printed = {"filter": W.filter_odometer(V, 1, dp, dps=40), "mixture": W.mixture_odometer(V, F(1, 100), dp, dps=40),
                       "stitched": W.stitched_odometer(V, F(1, 100), dp, dps=40)}
            for k, u in printed.items():
                crossed_printed[k] |= bool(L > u)
            assert all(u > L for u in o.bounds(dps=40).values()), n
    assert all(crossed_printed.values())
    bad, good = falsify("W22-THM2-DELTA")[0], falsify("W22-THM2-DELTA-CORRECTED")[0]
    assert bad.found and F(bad.counterexample["probability_lower"]) == 1 and not good.found
    assert not falsify("W22-THM2-DELTA-TWO-SIDED")[0].found  # the drift the shipped Odometer charges


# ---- Section 5 comparison and rate claims ----------------------------------------------------------

def test_rates_filter_linear_mixture_vlogv_stitched_vloglogv():
    """Boundary parts (without the common V/2): filter ~ c V; mixture ~ sqrt(V log V); stitched ~ sqrt(V loglog V)."""
    dp = F(1, 10**6)
    L = -mpmath.log(q2m(dp))
    ys = W.y_star(1, dp, dps=60)
    for k in (10, 30, 100):
        V = F(10**k)
        v = q2m(V)
        fil = W.filter_odometer(V, 1, dp) - v / 2
        assert abs(fil / v - mpmath.sqrt(2 * L) / (2 * mpmath.sqrt(ys))) < mpmath.mpf(10) ** -8
        mix = W.mixture_boundary(V, 1, dp)
        assert 1 <= mix / mpmath.sqrt(v * mpmath.log(v)) <= 2
        sti = W.stitched_boundary(V, 1, dp)
        assert 1 <= sti / mpmath.sqrt(v * mpmath.log(mpmath.log(v))) <= 4  # 1.7 sqrt(1 + 0.72 log(5.2/delta')/loglog V)
    assert W.stitched_boundary(F(10**100), 1, dp) < W.mixture_boundary(F(10**100), 1, dp)


def test_no_odometer_is_uniformly_tightest():
    """delta' = 1e-6 (Figure 2), eps = 1, rho = 1e-3, v0 = 1e-3: mixture is smallest at V = 1e-4, the filter odometer
    at V = y*, the stitched one at V = 1e4 ('all odometers dominate for some window')."""
    dp = F(1, 10**6)
    ys = mpf_to_fraction(W.y_star(1, dp, dps=40))
    u = lambda V: {"F": W.filter_odometer(V, 1, dp), "M": W.mixture_odometer(V, F(1, 1000), dp),
                   "S": W.stitched_odometer(V, F(1, 1000), dp)}
    for V, best in ((F(1, 10**4), "M"), (ys, "F"), (F(10**4), "S")):
        vals = u(V)
        assert min(vals, key=vals.get) == best


@given(st.fractions(min_value=F(1, 1000), max_value=100), dp_st, st.fractions(min_value=F(1, 10**6), max_value=10**3),
       st.fractions(min_value=F(1, 10**6), max_value=1))
@example(F(1), F(1, 10**6), F(1, 10**6), F(1, 10**6))
def test_filter_odometer_is_tightest_at_ystar_and_tangent_to_pointwise_curve(e, dp, rho, v0frac):
    """At V = y*: u^F = eps = sqrt(2 L y*) + y*/2 <= u^M and <= u^S (any rho, any v0 <= y*); u^F >= pointwise curve (Fig. 3b)."""
    ys = mpf_to_fraction(W.y_star(e, dp, dps=80))
    uF = W.filter_odometer(ys, e, dp)
    assert abs(uF - q2m(e)) <= mpmath.mpf(10) ** -40 * q2m(e)
    assert uF <= W.mixture_odometer(ys, rho, dp) * (1 + mpmath.mpf(10) ** -40)
    assert uF <= W.stitched_odometer(ys, v0frac * ys, dp) * (1 + mpmath.mpf(10) ** -40)
    for t in (F(0), F(1, 3), F(3), F(100)):
        assert W.filter_odometer(t * ys, e, dp) >= W.filter_spent(t * ys, dp) * (1 - mpmath.mpf(10) ** -40)


def test_theorem2_bad_inputs():
    with pytest.raises(ValueError, match="delta_prime"):
        W.filter_odometer(1, 1, 1)
    with pytest.raises(ValueError, match="v0"):
        W.stitched_odometer(1, 0, "0.1")
    with pytest.raises(ValueError):
        Odometer("1e-6")
