"""The exact verifier of filters and odometers (reference.verify.engine, reference.verify.targets).

Source: whitehouse2022 Lemma 3 (seed 000/001; conditional randomized response is the worst
case of a conditionally (eps_n, delta_n)-DP step) and rogers2016 Theorem 2.7 / Lemma 3.4
(seed 003).  For an adaptive adversary on RR steps the verifier returns a certified enclosure
[lo, hi] of

    filters:    E_P[(1 - e^{eps - L_N})_+]  (the hockey-stick divergence of the stopped view),
    odometers:  P(exists n: L_n > u_n)      (|L_n| > u_n for rogers2016 Definition 3.1),

and a target passes iff hi <= its claimed delta.  Second routes: proofs/adaptive_rr.py (the
pre-existing 60-digit enumeration over merged (loss, V, n) states, and the unvectorised
``exact_verify``), rogers_games.markov_stopped_law (interval arithmetic) for Algorithm 5,
and kairouz2015's optimal composition (reference.bounds.classical.kov_delta) for the homogeneous
adversary.
"""
from __future__ import annotations

import argparse
import contextlib
import io
import json
from fractions import Fraction as F

import mpmath
import numpy as np
import pytest
from hypothesis import example, given, settings, strategies as st

import adaptive_rr as A
from reference.simulate import rogers2016_games as G
from reference.verify import engine as V
from reference.verify import targets as T
from reference.bounds.classical import kov_delta
from reference.precision import mpf_to_fraction
from reference.bounds.whitehouse2023 import filter_admits, filter_rounds_homogeneous


def q2m(x: F):
    return mpmath.mpf(x.numerator) / x.denominator


def inside(r: V.VerifierResult, exact) -> bool:
    return r.lo <= exact <= r.hi


class AlwaysAdmit(V.Target):
    """A filter that never refuses (to read the stopped law of an adversary that stops by itself)."""

    kind, stat, supports_delta, name = "filter", "V", True, "always"

    def __init__(self, eps):
        self.eps, self.delta = F(eps), F(1)

    def admits(self, state, e, d):
        return True


class Thm1Rule(V.Target):
    """The Theorem 1 rule written directly with filter_admits (the rule adaptive_rr's tests use)."""

    kind, stat, name = "filter", "V", "thm1_rule"

    def __init__(self, eps, dp):
        self.eps, self.dp, self.delta = F(eps), F(dp), F(dp)

    def admits(self, state, e, d):
        return filter_admits(state.V + e * e, self.eps, self.dp)


# --------------------------------------------------------------------------
# agreement with the small exact routes
# --------------------------------------------------------------------------

EPS, DP = F(1), F(1, 5)


def _mirror(name):
    """(adaptive_rr strategy, verifier adversary) pairs with identical decisions (Markov in loss and V)."""
    if name == "homogeneous":
        return A.homogeneous(F(1, 10)), V.Homogeneous(F(1, 10))
    if name == "loss_chasing":  # adaptive_rr: start at n = 0 (V = 0), then up iff loss > 0
        return (A.loss_chasing(F(1, 5), F(1, 10), F(1, 10)),
                V.FunctionAdversary([F(1, 5), F(1, 10)], lambda v, k: np.where((k > 0) & (v.j > 0), 0, 1), "lc"))
    if name == "variance_spender":
        return (A.variance_spender(F(1, 20), F(3, 10), F(1, 10)),
                V.FunctionAdversary([F(3, 10), F(1, 20)], lambda v, k: np.full(k.shape, 1 if v.V < F(1, 10) else 0), "vs"))
    raise KeyError(name)


@pytest.mark.parametrize("name", ["homogeneous", "loss_chasing", "variance_spender"])
def test_filter_hockey_stick_agrees_with_adaptive_rr(name):
    """Engine enclosure contains adaptive_rr.hockey_stick = sum_paths [P - e^eps Q]_+ of the stopped view (Theorem 1 rule)."""
    strat, adv = _mirror(name)
    exact = A.hockey_stick(strat, lambda Vn, n: filter_admits(Vn, EPS, DP), 400, EPS)
    r = V.verify(Thm1Rule(EPS, DP), adv, 400, retry=False)
    assert inside(r, exact), (r.lo, exact, r.hi)
    assert r.hi - r.lo <= 1e-10 * exact + mpmath.mpf(2) ** -1000
    assert r.verdict == "pass"


def test_odometer_crossing_agrees_with_adaptive_rr():
    """Engine enclosure contains adaptive_rr.odometer_crossing = P(exists n <= 60: L_n > u(V_n)) for the filter odometer.

    (adaptive_rr's horizon counts steps, the verifier's caps V; they coincide for a one-item menu.)
    """
    strat, adv = _mirror("homogeneous")
    tgt = T.WhitehouseOdometer("filter", F(1, 5), 0, eps_target=1)

    def b(Vn):
        q = mpf_to_fraction(tgt.obj._bounds_at(Vn, F(0), 20)["filter"])
        return q2m(q)

    exact = A.odometer_crossing(strat, 60, b)
    r = V.verify(tgt, adv, 60)
    assert inside(r, exact), (r.lo, exact, r.hi)
    assert r.verdict == "pass"


def test_algorithm5_stopped_law_agrees_with_markov_stopped_law():
    """Hockey-stick of Algorithm 5's stopped view: engine vs rogers_games.markov_stopped_law (interval arithmetic)."""
    adv = V.StoppingTime(F(1, 10), F(1, 10), F(1, 2), 60)
    law = G.markov_stopped_law(adv.inner)
    eps = F(1, 2)
    c = G.iv_context(200)
    tot = c.mpf(0)
    for (loss, _, _), p in law.items():
        if loss > eps:
            tot += p * (1 - c.exp(c.mpf((eps - loss).numerator) / (eps - loss).denominator))
    r = V.verify(AlwaysAdmit(eps), adv, 60)
    lo, hi = mpmath.mpf(tot.a), mpmath.mpf(tot.b)
    assert r.lo <= hi and lo <= r.hi
    assert r.lo > 0


def test_homogeneous_filter_equals_optimal_composition():
    """Against the homogeneous adversary the achieved delta is KOV's optimal delta of the K admitted rounds (kairouz2015 Thm 3.3)."""
    e0 = F(1, 20)
    tgt = T.WhitehouseFilter(1, F(1, 10), 0)
    r = V.verify(tgt, V.Homogeneous(e0), 1000)
    K = r.max_rounds
    assert K == filter_rounds_homogeneous(e0, 0, 1, F(1, 10), 0) > 0
    exact = kov_delta(e0, 0, K, 1, dps=40)
    assert inside(r, exact), (r.lo, exact, r.hi)


# --------------------------------------------------------------------------
# the float enclosure is honest: compare with the 60-digit state-by-state route
# --------------------------------------------------------------------------

SMALL = [
    ("W22_thm1_filter", lambda: T.WhitehouseFilter(1, F(1, 10), F(1, 20)), F(1, 10), 60),
    ("R16_advanced_filter", lambda: T.RogersFilter("advanced", 1, F(1, 10)), F(1, 10), 40),
    ("R16_advanced_odometer", lambda: T.RogersOdometer("advanced", F(1, 10), 200), F(1, 10), 30),
    ("W22_thm4_mixture_odometer", lambda: T.WhitehouseOdometer("mixture", F(1, 5), F(1, 50), rho=F(1, 2)), F(1, 10), 40),
    ("F21_thm4_3_renyi_filter", lambda: T.FeldmanRenyiFilter(4, F(1, 5), F(1, 10)), F(1, 10), 40),
    ("NEG_naive_odometer", lambda: T.NaiveAdvancedOdometer(F(1, 10)), F(1, 10), 20),
]


@pytest.mark.parametrize("name,fac,e0,rounds", SMALL, ids=[s[0] for s in SMALL])
def test_enclosure_contains_high_precision_value(name, fac, e0, rounds):
    """lo <= exact <= hi for every standard adversary, exact from adaptive_rr.exact_verify at 60 digits."""
    tgt = fac()
    for an, adv in T.default_adversaries(tgt, e0, rounds).items():
        if tgt.stat == "counts" and len(adv.menu) > 1 and rounds > 30 and an in ("random_adaptive",):
            continue
        r = V.verify(tgt, adv, rounds)
        exact = A.exact_verify(tgt, adv, rounds)
        assert inside(r, exact), (an, r.lo, exact, r.hi)
        assert r.hi - r.lo <= mpmath.mpf(10) ** -9 * exact + mpmath.mpf(2) ** -900, (an, r.lo, r.hi)


@settings(deadline=None, max_examples=15)
@given(seed=st.integers(0, 10 ** 6), den=st.sampled_from([5, 7, 10, 13]), dn=st.sampled_from([0, 1, 3]),
       retry=st.booleans())
@example(seed=0, den=5, dn=3, retry=True)
def test_enclosure_random_adversaries_with_delta(seed, den, dn, retry):
    """Random adaptive adversaries (seeded), delta_n > 0 items, retry on/off: lo <= exact <= hi for the Theorem 1 filter."""
    u = F(1, den)
    menu = [(u, 0), (2 * u, F(dn, 100)), (3 * u, 0)]
    adv = V.RandomAdaptive(seed, menu, v_bucket=F(1, 50))
    tgt = T.WhitehouseFilter(1, F(1, 5), F(1, 10))
    r = V.verify(tgt, adv, 40, retry=retry)
    exact = A.exact_verify(tgt, adv, 40, retry=retry)
    assert inside(r, exact), (r.lo, exact, r.hi)
    assert r.verdict == "pass"


def test_enclosure_at_underflow_scale():
    """Masses down to 1e-300 and below: the absolute underflow term keeps the enclosure valid (eps0 = 3, 400 rounds)."""
    tgt = AlwaysAdmit(F(600))
    r = V.verify(tgt, V.Homogeneous(F(3)), 250)
    exact = A.exact_verify(tgt, V.Homogeneous(F(3)), 250, dps=40)
    assert inside(r, exact)


# --------------------------------------------------------------------------
# every shipped target passes, every negative control is caught
# --------------------------------------------------------------------------

@pytest.fixture(scope="module")
def table():
    return T.slack_table()


def test_every_shipped_target_passes_every_adversary(table):
    """For each target and adversary: certified achieved delta (hi) <= the claimed delta."""
    assert {r["target"] for r in table} == set(T.TARGETS)
    for row in table:
        assert row["verdict"] == "pass", row["target"]
        for res in row["per_adversary"]:
            assert res["verdict"] == "pass", (row["target"], res)
            assert F(res["allowed"]) >= mpf_to_fraction(mpmath.mpf(res["hi"])) * (1 - F(1, 10 ** 15))


def test_slack_table_is_informative(table):
    """The worst adversary uses a sizeable part of the budget for the odometers with tight boundaries (not vacuous)."""
    by = {r["target"]: r for r in table}
    assert by["W22_thm2_filter_odometer"]["slack"] > 0.5
    assert by["W22_thm1_filter"]["slack"] > 0.2
    txt = T.render_table(table)
    assert "W22_thm1_filter" in txt and "verdict" in txt


@pytest.mark.parametrize("name", sorted(T.NEGATIVE_CONTROLS))
def test_negative_control_is_caught(name):
    """Each broken target: certified lower bound of the achieved delta > the claimed delta (verdict FAIL)."""
    (r,) = T.negative_control_table([name])
    assert r.verdict == "FAIL", (name, r.lo, r.allowed)
    assert mpf_to_fraction(r.lo) > r.allowed


def test_naive_advanced_composition_odometer_matches_rogers_games():
    """rogers_games shows Algorithm 5 (eps = 1/100, C = 27/25, n = 200) exceeds the naive bound w.p. > 0.1 when it stops;
    the crossing probability of the naive odometer is at least that stopped probability."""
    (r,) = T.negative_control_table(["naive_advanced_composition_odometer"])
    adv = G.StoppingTimeAdversary(F(1, 100), F(1, 10), F(27, 25), 200)
    law = G.markov_stopped_law(adv)
    c = G.iv_context(200)
    stopped = sum((p for (l, Vv, n), p in law.items() if n and adv.stopped(l, n)), c.mpf(0))
    assert r.hi >= mpmath.mpf(stopped.a)
    assert r.lo > mpmath.mpf(1) / 10


def test_over_budget_control_is_exactly_kov():
    """The over-budget filter admits k_opt + 1 rounds; its achieved delta is KOV's delta(k_opt + 1) > delta."""
    (r,) = T.negative_control_table(["over_budget_filter"])
    t = T.NEGATIVE_CONTROLS["over_budget_filter"][0]()
    assert inside(r, kov_delta(t.eps0, 0, t.k, t.eps, dps=40))
    assert kov_delta(t.eps0, 0, t.k_opt, t.eps, dps=40) <= q2m(t.delta)


# --------------------------------------------------------------------------
# interface, bad inputs, CLI
# --------------------------------------------------------------------------

def test_bad_inputs_raise_value_error_naming_the_parameter():
    tgt = T.WhitehouseFilter()
    with pytest.raises(ValueError, match="rounds"):
        V.verify(tgt, V.Homogeneous(F(1, 10)), 0)
    with pytest.raises(ValueError, match="eps"):
        V.Homogeneous(0)
    with pytest.raises(ValueError, match="delta"):
        V.Homogeneous(F(1, 10), 1)
    with pytest.raises(ValueError, match="big"):
        V.Alternating(F(1, 10), F(1, 5))
    with pytest.raises(ValueError, match="delta_n"):
        V.DeltaSpender(F(1, 5), F(1, 10), 0)
    with pytest.raises(ValueError, match="delta_n"):  # Renyi filters do not take delta_n
        V.verify(T.FeldmanDPFilter(), V.DeltaSpender(F(1, 5), F(1, 10), F(1, 100)), 10)
    with pytest.raises(ValueError, match="family"):
        T.WhitehouseOdometer("nonsense")
    with pytest.raises(ValueError, match="delta_prime"):
        T.HalvedLogFilter(1, F(1, 10))
    with pytest.raises(ValueError, match="target"):
        T.slack_table("nonsense")
    with pytest.raises(ValueError, match="adversary"):
        T.slack_table("W22_thm1_filter", "nonsense")
    with pytest.raises(TypeError, match="target"):
        V.verify("DPFilter", V.Homogeneous(F(1, 10)), 10)
    bad = V.FunctionAdversary([F(1, 10)], lambda v, k: np.full(k.shape, 5), "bad")
    with pytest.raises(ValueError, match="invalid"):
        V.verify(tgt, bad, 10)


def test_citations_and_docstrings():
    """Every public object cites its source (first docstring line names the paper)."""
    for mod in (V, T):
        for name in mod.__all__:
            obj = getattr(mod, name)
            if isinstance(obj, (dict, F)):
                continue
            assert obj.__doc__ and obj.__doc__.strip(), name
            assert hasattr(obj, "__citations__"), name


def _cli(argv):
    from reference.cli import verify as cli_verify

    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers()
    assert cli_verify.add_cli(sub) == ["verify"]
    args = ap.parse_args(argv)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        rc = args.func(args)
    return rc, out.getvalue()


def test_cli_verify_json_and_text():
    rc, txt = _cli(["verify", "--target", "W22_thm1_filter", "--adversary", "homogeneous", "--no-progress"])
    assert rc == 0 and "W22_thm1_filter" in txt and "pass" in txt
    rc, js = _cli(["verify", "--target", "R16_advanced_odometer", "--adversary", "loss_chasing", "--rounds", "40",
                   "--json", "--no-progress"])
    d = json.loads(js)
    assert rc == 0 and d["rows"][0]["verdict"] == "pass"
    rc, _ = _cli(["verify", "--target", "nonsense", "--no-progress"])
    assert rc == 2


@pytest.mark.slow
def test_ten_thousand_rounds_loss_and_v_dependent_adversary():
    """10^4 rounds, loss- and V-dependent adversary: the Theorem 2 filter odometer and Theorem 1 filter still pass."""
    u = F(1, 100)
    r = V.verify(T.WhitehouseOdometer("filter", F(1, 10), 0, eps_target=1), V.LossChasing(2 * u, u), 10000)
    assert r.max_rounds == 10000 and r.verdict == "pass"
    u = F(1, 235)
    r = V.verify(T.WhitehouseFilter(1, F(1, 10), 0), V.LossChasing(2 * u, u), 10000)
    assert r.max_rounds > 9000 and r.verdict == "pass"


def test_base_interfaces_refuse_clearly():
    """A filter target has no running bound, an odometer target no admission rule, the bare Adversary no choice."""
    import numpy as np

    from reference.verify.engine import Adversary
    from reference.verify.targets import TARGETS

    filt = TARGETS["W22_thm1_filter"][0]()
    odo = TARGETS["W22_thm2_filter_odometer"][0]()
    with pytest.raises(TypeError, match="only odometer targets"):
        filt.bound(None)
    with pytest.raises(TypeError, match="only filter targets"):
        odo.admits(None, 0, 0)
    with pytest.raises(TypeError, match="choose"):
        Adversary().choose(None, np.zeros(1))
