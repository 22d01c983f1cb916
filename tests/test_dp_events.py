"""dp-accounting's DpEvent in and out of compositions (:mod:`reference.profiles.dp_events`,
:func:`reference.profiles.check.event_for` / ``event_to_spec``), against the real ``dp_accounting``
(the ``test`` extra pins 0.6.0), and ``fullyadaptive check --event FILE.json``.
"""
from __future__ import annotations

import json
import subprocess
import sys
from fractions import Fraction

import pytest

from reference.profiles import dp_events
from reference.profiles.check import check, event_for, event_to_spec, parse_spec, profile

de = pytest.importorskip("dp_accounting.dp_event", reason="dp-accounting is not installed (the 'test' extra)")

#: compositions whose parameters are doubles (so composition -> event -> composition is the identity)
SPECS = [
    "subsampled-gaussian:q=0.015625,sigma=1.25x500",
    "subsampled-gaussian:q=0.015625,sigma=1.25x300 + subsampled-gaussian:q=0.03125,sigma=1x100",
    "gaussian:sigma=4x10 + laplace:b=8x3",
    "zcdp:rho=0.125 + gaussian:sigma=3,sensitivity=2",
]


@pytest.mark.parametrize("spec", SPECS)
def test_round_trip_spec_event_spec(spec):
    ev = event_for(spec)
    assert isinstance(ev, de.DpEvent)
    back = event_to_spec(ev)
    want = parse_spec(spec)
    # a gaussian item of sensitivity s becomes noise multiplier sigma/s at sensitivity 1: the same mechanism
    norm = lambda steps: sorted((s.mechanism, tuple((k, v) for k, v in s.params if k != "sensitivity"),
                                 dict(s.params).get("sensitivity", Fraction(1)), s.count) for s in steps)
    got = parse_spec(back)
    assert [(m, c) for m, _, _, c in norm(got)] == [(m, c) for m, _, _, c in norm(want)]
    for g, w in zip(norm(got), norm(want)):
        gp, wp = dict(g[1]), dict(w[1])
        for k in gp:
            assert gp[k] / g[2] == wp[k] / w[2] if k in ("sigma", "b") else gp[k] == wp[k]
    # every accepted form of the event reads to the same composition
    assert parse_spec(ev.to_named_tuple()) == parse_spec(ev) == parse_spec(json.loads(json.dumps(dp_events.event_to_json(ev))))
    # and the event reconstructed by dp-accounting from its named tuple is the same event
    assert de.DpEvent.from_named_tuple(ev.to_named_tuple()) == ev


def test_the_event_tree_is_dp_accountings_own():
    ev = event_for("subsampled-gaussian:q=0.015625,sigma=1.25x500 + gaussian:sigma=2")
    assert ev == de.ComposedDpEvent([
        de.SelfComposedDpEvent(de.PoissonSampledDpEvent(0.015625, de.GaussianDpEvent(1.25)), 500),
        de.GaussianDpEvent(2.0)])


def test_event_rounding_is_conservative():
    """Decimals that are not doubles: the noise rounds down, the sampling rate up (the event loses at least as much)."""
    ev = event_for("subsampled-gaussian:q=0.01,sigma=1.1x3")
    q, s = ev.event.sampling_probability, ev.event.event.noise_multiplier
    assert Fraction(q) >= Fraction(1, 100) and Fraction(s) <= Fraction(11, 10)
    assert Fraction(s) > Fraction(11, 10) - Fraction(1, 2 ** 51) and Fraction(q) < Fraction(1, 100) + Fraction(1, 2 ** 58)
    z = event_for("zcdp:rho=0.1")
    assert Fraction(z.rho) >= Fraction(1, 10)


def test_exact_decimals_of_floats_read_back_exactly():
    ev = de.SelfComposedDpEvent(de.PoissonSampledDpEvent(0.01, de.GaussianDpEvent(1.1)), 7)
    text = event_to_spec(ev)
    (step,) = parse_spec(text)
    assert step.p("q") == Fraction(0.01) and step.p("sigma") == Fraction(1.1) and step.count == 7
    short = event_to_spec(ev, binary=True)
    assert "q=0.01," in short and parse_spec(short, binary=True) == parse_spec(text)


@pytest.mark.parametrize("spec", SPECS[:3])
def test_certified_bracket_contains_dp_accountings_pld_epsilon(spec):
    from dp_accounting.pld import pld_privacy_accountant

    acc = pld_privacy_accountant.PLDAccountant()
    acc.compose(event_for(spec))
    e = acc.get_epsilon(1e-5)
    b = profile(spec, "eps", "1e-5")
    assert b.lo <= e <= b.hi


def test_check_accepts_an_event():
    ev = de.SelfComposedDpEvent(de.PoissonSampledDpEvent(0.015625, de.GaussianDpEvent(1.25)), 500)
    v = check(ev, "1.5", "1e-5")
    assert v.status == "valid" and v.eps_bracket.hi <= 1.5
    w = check(ev, "1.3", "1e-5")
    assert w.status == "invalid"  # the certified lower end (1.39) is above the claim: negative control


def test_noop_is_dropped_and_nothing_is_refused():
    ev = de.ComposedDpEvent([de.NoOpDpEvent(), de.GaussianDpEvent(2.0)])
    assert parse_spec(ev) == parse_spec("gaussian:sigma=2")
    for bad in (de.NoOpDpEvent(), de.ComposedDpEvent([]), de.ComposedDpEvent([de.NoOpDpEvent()])):
        with pytest.raises(ValueError, match="no mechanism|nothing to account"):
            parse_spec(bad)


@pytest.mark.parametrize("event, word", [
    (de.SampledWithoutReplacementDpEvent(100, 10, de.GaussianDpEvent(1.0)), "SampledWithoutReplacementDpEvent"),
    (de.SampledWithReplacementDpEvent(100, 10, de.GaussianDpEvent(1.0)), "SampledWithReplacementDpEvent"),
    (de.RandomizedResponseDpEvent(0.5, 2), "RandomizedResponseDpEvent"),
    (de.NonPrivateDpEvent(), "NonPrivateDpEvent"),
    (de.UnsupportedDpEvent(), "UnsupportedDpEvent"),
    (de.DiscreteLaplaceDpEvent(1.0, 1), "DiscreteLaplaceDpEvent"),
    (de.ZCDpEvent(0.1, 0.5), "xi"),
    (de.PoissonSampledDpEvent(0.1, de.LaplaceDpEvent(1.0)), "PoissonSampledDpEvent of LaplaceDpEvent"),
    (de.PoissonSampledDpEvent(0.1, de.SelfComposedDpEvent(de.GaussianDpEvent(1.0), 3)), "SelfComposedDpEvent"),
    (de.SelfComposedDpEvent(de.GaussianDpEvent(1.0), 0), "count"),
    (de.GaussianDpEvent(0.0), "sigma"),
    (de.GaussianDpEvent(float("inf")), "finite"),
    (de.PoissonSampledDpEvent(1.5, de.GaussianDpEvent(1.0)), "q"),
])
def test_unsupported_or_bad_events_are_refused_by_name(event, word):
    with pytest.raises(ValueError, match=word):
        parse_spec(event)


def test_event_for_refuses_items_without_an_exact_event():
    for spec in ("rr:0.5x10", "dp:1,delta=1e-6"):
        with pytest.raises(ValueError, match="no event"):
            event_for(spec)


def test_cli_check_event_file(tmp_path):
    ev = de.SelfComposedDpEvent(de.PoissonSampledDpEvent(0.015625, de.GaussianDpEvent(1.25)), 500)
    f = tmp_path / "event.json"
    f.write_text(json.dumps(dp_events.event_to_json(ev)), encoding="utf-8")
    run = lambda *a: subprocess.run([sys.executable, "-m", "reference.cli", "check", *a], capture_output=True, text=True)
    r = run("--event", str(f), "--eps", "1.5", "--delta", "1e-5", "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["status"] == "valid" and float(out["eps_at_claimed_delta"]["upper"]) <= 1.5


def test_cli_check_event_refusals(tmp_path):
    f = tmp_path / "event.json"
    f.write_text('{"class_name": "GaussianDpEvent", "noise_multiplier": 2}', encoding="utf-8")
    run = lambda *a: subprocess.run([sys.executable, "-m", "reference.cli", "check", *a], capture_output=True, text=True)
    r = run("gaussian:sigma=2", "--event", str(f), "--eps", "1.5", "--delta", "1e-5")
    assert r.returncode == 2 and "exactly one" in r.stderr
    bad = tmp_path / "bad.json"
    bad.write_text('{"class_name": "SampledWithoutReplacementDpEvent", "source_dataset_size": 10, "sample_size": 2, '
                   '"event": {"class_name": "GaussianDpEvent", "noise_multiplier": 1}}', encoding="utf-8")
    r = run("--event", str(bad), "--eps", "1", "--delta", "1e-5")
    assert r.returncode == 2 and "SampledWithoutReplacementDpEvent" in r.stderr and "Traceback" not in r.stderr
    notjson = tmp_path / "n.json"
    notjson.write_text("[1, 2", encoding="utf-8")
    r = run("--event", str(notjson), "--eps", "1", "--delta", "1e-5")
    assert r.returncode == 2 and "Traceback" not in r.stderr


def test_randomized_response_event_as_an_upper_bound_only():
    import mpmath

    ev = de.SelfComposedDpEvent(de.RandomizedResponseDpEvent(0.5, 2), 10)
    with pytest.raises(ValueError, match="RandomizedResponseDpEvent"):
        event_to_spec(ev)  # the default: no exact item
    (step,) = parse_spec(event_to_spec(ev, rr="upper"))
    eps = step.p("eps")
    with mpmath.workdps(60):
        assert mpmath.mpf(eps.numerator) / eps.denominator >= mpmath.log(3)  # rounded up
        assert mpmath.mpf(eps.numerator) / eps.denominator - mpmath.log(3) < mpmath.mpf("1e-25")
    assert step.mechanism == "rr" and step.count == 10
    # k > 2 buckets: still an upper bound (an eps-DP step is dominated by binary randomized response)
    (s4,) = parse_spec(event_to_spec(de.RandomizedResponseDpEvent(0.5, 4), rr="upper"))
    e4 = s4.p("eps")
    with mpmath.workdps(60):  # eps = log(1 + k (1 - p)/p) = log(5)
        assert mpmath.log(5) <= mpmath.mpf(e4.numerator) / e4.denominator < mpmath.log(5) + mpmath.mpf("1e-25")
    assert parse_spec(event_to_spec(de.RandomizedResponseDpEvent(1.0, 2), rr="upper"))[0].p("eps") == 0
    for bad in (de.RandomizedResponseDpEvent(0.0, 2), de.RandomizedResponseDpEvent(0.5, 1)):
        with pytest.raises(ValueError, match="noise_parameter|num_buckets"):
            event_to_spec(bad, rr="upper")
