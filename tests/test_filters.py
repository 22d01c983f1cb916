"""Tests of reference.accountants.whitehouse2023: stateful filters and odometers (Whitehouse et al.)."""
from __future__ import annotations

import inspect
import json
import math
import pickle
import sys
import threading
from fractions import Fraction as F

import mpmath
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reference.accountants import whitehouse2023 as fl
from reference.accountants import base as flb
from reference.accountants.whitehouse2023 import (
    BudgetExceeded,
    DPFilter,
    MixedFilter,
    Odometer,
    ZCDPFilter,
)
from reference.precision import to_exact
from reference.bounds.whitehouse2023 import (
    filter_admits,
    filter_odometer,
    filter_rounds_homogeneous,
    filter_spent,
    filter_stop_index,
    mixed_filter_stop_index,
    mixture_odometer,
    rogers_odometer_quoted_2023_as_printed,
    stitched_odometer,
    y_star,
    zcdp_filter_stop_index,
)

CLASSES = (DPFilter, ZCDPFilter, MixedFilter, Odometer)

# --------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------

_MP300 = mpmath.MPContext()
_MP300.dps = 300


def f300(V: F, delta_prime: F):
    """sqrt(2 log(1/delta') V) + V/2 at 300 digits (independent of reference.precision)."""
    mp = _MP300
    v = mp.mpf(V.numerator) / V.denominator
    dp = mp.mpf(delta_prime.numerator) / delta_prime.denominator
    return mp.sqrt(2 * mp.log(1 / dp) * v) + v / 2


def ystar300(eps: F, delta_prime: F):
    mp = _MP300
    e = mp.mpf(eps.numerator) / eps.denominator
    L2 = 2 * mp.log(mp.mpf(delta_prime.denominator) / delta_prime.numerator)
    return (mp.sqrt(L2 + 2 * e) - mp.sqrt(L2)) ** 2


def mp_to_fraction(x, digits: int) -> F:
    """x rounded to `digits` decimals, as an exact Fraction."""
    return F(int(_MP300.nint(x * _MP300.mpf(10) ** digits)), 10 ** digits)


def sig_round(x, digits: int) -> tuple[F, F]:
    """x > 0 rounded to `digits` significant digits: (value, unit in the last place), exact Fractions."""
    e = int(_MP300.floor(_MP300.log10(x)))
    ulp = F(10) ** (e - digits + 1)
    return F(int(_MP300.nint(x / (_MP300.mpf(ulp.numerator) / ulp.denominator)))) * ulp, ulp


def truncate_sig(q: F, digits: int) -> F:
    """q > 0 truncated (rounded down) to `digits` significant digits, exactly."""
    e = len(str(q.numerator)) - len(str(q.denominator))
    while F(10) ** e > q:
        e -= 1
    while F(10) ** (e + 1) <= q:
        e += 1
    ulp = F(10) ** (e - digits + 1)
    return (q // ulp) * ulp


def run_until_refused(filt, steps, method="try_run"):
    """Feed steps until the first refusal; return the number admitted (the stopping index N)."""
    for n, s in enumerate(steps):
        if not getattr(filt, method)(*s):
            return n
    return len(steps)


def sealed(d: dict) -> dict:
    """Recompute the digest of a hand-edited dict (to test the checks behind the digest)."""
    d = dict(d)
    d.pop("digest", None)
    d["digest"] = flb._digest(d)
    return d


def homogeneous_state(cls, params: dict, step: list, count: int, state: dict) -> dict:
    d = cls(**params).to_dict()
    d["history"] = [step + [count]] if count else []
    d["state"] = state
    return sealed(d)


# strategies -----------------------------------------------------------------
eps_step = st.one_of(
    st.fractions(min_value=0, max_value=F(1, 2), max_denominator=1000),
    st.sampled_from(["0", "0.01", "0.05", "0.1", "0.2", "1e-4"]),
    st.floats(min_value=0, max_value=0.5, allow_nan=False),
)
delta_step = st.sampled_from(["0", "0", "0", "1e-7", "5e-7", "1e-4"])
eps_target = st.one_of(st.fractions(min_value=F(1, 100), max_value=3, max_denominator=100),
                       st.sampled_from(["0.5", "1", "2"]))
delta_prime = st.sampled_from(["1e-6", "1e-3", "0.1", "1/3", "1e-300", "0.5"])
delta_second = st.sampled_from(["0", "1e-6", "1e-3"])


# --------------------------------------------------------------------------
# citations and docstrings
# --------------------------------------------------------------------------

@pytest.mark.parametrize("cls", CLASSES)
def test_citations_attached(cls):
    cites = cls.__citations__
    assert isinstance(cites, tuple) and cites
    for c in cites:
        assert {"paper", "arxiv", "source", "result"} <= set(c)
        assert c["paper_key"] in ("whitehouse2022", "whitehouse2023")
        assert c["arxiv"] == "2203.05481"
        assert c["result"].startswith(("Theorem", "Lemma"))


@pytest.mark.parametrize("cls", CLASSES)
def test_public_methods_have_citing_docstrings(cls):
    first = (inspect.getdoc(cls) or "").splitlines()[0]
    assert "whitehouse202" in first and "Theorem" in first
    for name, member in inspect.getmembers(cls):
        if name.startswith("_") or isinstance(inspect.getattr_static(cls, name), property):
            continue
        if not callable(member):
            continue
        doc = inspect.getdoc(member)
        assert doc, f"{cls.__name__}.{name} has no docstring"
        line = doc.splitlines()[0]
        assert "whitehouse202" in line or "__citations__" in line, f"{cls.__name__}.{name}: {line}"


# --------------------------------------------------------------------------
# exact agreement with the closed-form stopping rules
# --------------------------------------------------------------------------

@given(st.lists(st.tuples(eps_step, delta_step), min_size=1, max_size=25), eps_target, delta_prime, delta_second)
def test_dp_filter_agrees_with_stop_index(steps, et, dp, d2):
    N = filter_stop_index([s[0] for s in steps], [s[1] for s in steps], et, dp, d2)
    f = DPFilter(et, dp, d2)
    assert run_until_refused(f, steps) == N
    assert f.n == N
    assert f.V == sum((to_exact(s[0], "e") ** 2 for s in steps[:N]), F(0))
    assert f.delta_spent == sum((to_exact(s[1], "d") for s in steps[:N]), F(0))
    if N < len(steps):  # refused: state unchanged, decision stable, run raises
        assert not f.can_run(*steps[N])
        with pytest.raises(BudgetExceeded) as ei:
            f.run(*steps[N])
        assert ei.value.step == N + 1 and f.n == N
        assert f"step {N + 1}" in str(ei.value)


@given(st.lists(st.tuples(st.fractions(min_value=0, max_value=F(1, 3), max_denominator=50), delta_step),
                min_size=1, max_size=25),
       st.fractions(min_value=F(1, 50), max_value=2, max_denominator=50), st.sampled_from(["0", "1e-6", "1e-4", "1"]))
def test_zcdp_filter_agrees_with_stop_index(steps, rho, delta):
    N = zcdp_filter_stop_index([s[0] for s in steps], [s[1] for s in steps], rho, delta)
    z = ZCDPFilter(rho, delta)
    assert run_until_refused(z, steps) == N
    assert z.rho_spent == sum((s[0] for s in steps[:N]), F(0))
    if N < len(steps):
        with pytest.raises(BudgetExceeded) as ei:
            z.run(*steps[N])
        assert ei.value.step == N + 1 and z.n == N
        assert set(ei.value.reasons) <= {"rho", "delta"} and ei.value.reasons


mixed_step = st.one_of(
    st.tuples(st.just("dp"), st.fractions(min_value=0, max_value=F(1, 2), max_denominator=200), delta_step),
    st.tuples(st.just("zcdp"), st.fractions(min_value=0, max_value=F(1, 50), max_denominator=2000)),
)


@given(st.lists(mixed_step, min_size=1, max_size=25), eps_target, delta_prime, delta_second)
def test_mixed_filter_agrees_with_stop_index(steps, et, dp, d2):
    N = mixed_filter_stop_index(steps, et, dp, d2)
    m = MixedFilter(et, dp, d2)
    n = 0
    for s in steps:
        ok = m.try_run_dp(*s[1:]) if s[0] == "dp" else m.try_run_zcdp(s[1])
        if not ok:
            break
        n += 1
    assert n == N == m.n
    m2 = MixedFilter(et, dp, d2)
    assert run_until_refused(m2, [(s,) for s in steps], "try_run_step") == N
    assert m2.to_dict()["history"] == m.to_dict()["history"]


def test_mixed_zcdp_step_counts_as_2rho():
    m, d = MixedFilter(1, "1e-6"), DPFilter(1, "1e-6")
    m.run_zcdp("0.005")
    d.run("0.1")
    assert m.V == d.V == F(1, 100)
    assert m.delta_spent == 0
    assert m.can_run_step("zcdp:0.001") and m.can_run_step(("dp", "0.1", 0))
    with pytest.raises(ValueError, match="step must be"):
        m.can_run_step(("rdp", 1))


# --------------------------------------------------------------------------
# homogeneous workloads
# --------------------------------------------------------------------------

@pytest.mark.parametrize("eps0,delta0,et,dp,d2", [
    ("0.05", "0", "1", "1e-6", "0"),
    ("0.01", "1e-9", "1", "1e-6", "5e-8"),
    ("0.1", "0", "1", "0.01", "0"),
    (0.05, 0, 2, "1e-3", 0),
    ("0.3", "0", "1000", "1e-300", "0"),
])
def test_homogeneous_count(eps0, delta0, et, dp, d2):
    K = filter_rounds_homogeneous(eps0, delta0, et, dp, d2)
    f = DPFilter(et, dp, d2)
    n = 0
    while f.try_run(eps0, delta0):
        n += 1
        assert n <= K + 1
    assert n == K


def test_million_homogeneous_steps_via_from_dict():
    eps0, params = "1/10000", {"eps": "1", "delta_prime": "1e-6", "delta_second": "0"}
    K = filter_rounds_homogeneous(eps0, 0, 1, "1e-6", 0)
    assert K >= 10 ** 6
    e2 = F(1, 10 ** 8)
    full = DPFilter.from_dict(homogeneous_state(DPFilter, params, [eps0, "0"], K,
                                                {"n": K, "V": str(K * e2), "delta_spent": "0"}))
    assert full.n == K and not full.can_run(eps0) and full.can_run(0)
    one_less = DPFilter.from_dict(homogeneous_state(DPFilter, params, [eps0, "0"], K - 1,
                                                    {"n": K - 1, "V": str((K - 1) * e2), "delta_spent": "0"}))
    assert one_less.try_run(eps0) and not one_less.can_run(eps0)
    assert one_less.to_dict() == full.to_dict()
    with pytest.raises(ValueError, match="not reachable"):
        DPFilter.from_dict(homogeneous_state(DPFilter, params, [eps0, "0"], K + 1,
                                             {"n": K + 1, "V": str((K + 1) * e2), "delta_spent": "0"}))


# --------------------------------------------------------------------------
# boundary exactness against an independent 300-digit evaluation
# --------------------------------------------------------------------------

@pytest.mark.parametrize("et,dp", [("1", "1e-6"), ("0.1", "1/3"), ("1000", "1e-300"), ("1e-8", "1e-12")])
@pytest.mark.parametrize("digits", [12, 30, 60, 120])
def test_near_boundary_decisions_match_300_digits(et, dp, digits):
    e, d = to_exact(et, "e"), to_exact(dp, "d")
    ys = ystar300(e, d)
    eps_exact = _MP300.mpf(e.numerator) / e.denominator
    root, ulp = sig_round(_MP300.sqrt(ys), digits)
    for k in (-2, -1, 0, 1, 2):
        step = root + k * ulp
        truth = f300(step * step, d) <= eps_exact
        assert DPFilter(e, d).can_run(step) == truth
        assert filter_admits(step * step, e, d) == truth
    Vs, ulp = sig_round(ys, digits)
    for k in (-1, 0, 1):
        V = Vs + k * ulp
        truth = f300(V, d) <= eps_exact
        assert MixedFilter(e, d).can_run_zcdp(V / 2) == truth
    # the exact root is irrational, so f(V) == eps is impossible for rational V > 0
    assert f300(Vs, d) != eps_exact


def test_zero_intrinsic_time_is_the_only_equality():
    f = DPFilter(1, "1e-6")
    assert f.can_run(0) and f.run(0) == 1 and f.V == 0
    assert f.remaining()["eps_spent"] == 0


@pytest.mark.parametrize("et,dp,prefix", [
    ("1", "1e-6", []), ("1", "1e-6", ["0.1", "0.05"]), ("0.5", "1/3", ["0.2"]),
    ("1000", "1e-300", ["10", "5"]), ("1e-8", "1e-12", []), (3, 0.001, [0.3, 0.5]),
])
def test_max_next_eps_is_tight(et, dp, prefix):
    f = DPFilter(et, dp)
    for p in prefix:
        f.run(p)
    r = f.remaining()
    m = r["max_next_eps"]
    mq = to_exact(m, "m")
    assert mq > 0
    assert not f.can_run(mq * (1 + F(1, 10 ** 15)))
    assert not f.can_run(m * (1 + mpmath.mpf("1e-15")))
    assert f.can_run(m)
    # certified against 300 digits: m <= sqrt(y* - V) < m (1 + 1e-45)
    gap = ystar300(to_exact(et, "e"), to_exact(dp, "d")) - _MP300.mpf(f.V.numerator) / f.V.denominator
    true_m = _MP300.sqrt(gap)
    mm = _MP300.mpf(mq.numerator) / mq.denominator
    assert mm <= true_m < mm * (1 + _MP300.mpf("1e-45"))
    assert r["eps_spent"] >= f300(f.V, to_exact(dp, "d")) if f.V else r["eps_spent"] == 0
    assert r["delta_left"] == f.delta_second - f.delta_spent
    f.run(m)  # the certified value is admitted ...
    assert f.remaining()["max_next_eps"] < m * mpmath.mpf("1e-10")  # ... and uses (almost) everything
    assert to_exact(f.remaining()["eps_spent"], "s") <= to_exact(et, "e") * (1 + F(1, 10 ** 40))


def test_mixed_max_next_rho_is_tight():
    m = MixedFilter(1, "1e-6")
    m.run_dp("0.1")
    r = m.remaining()["max_next_rho"]
    assert m.can_run_zcdp(r)
    assert not m.can_run_zcdp(to_exact(r, "r") * (1 + F(1, 10 ** 15)))
    m.run_zcdp(r)
    assert m.remaining()["max_next_rho"] < mpmath.mpf("1e-40")


def test_remaining_uses_corrected_ystar():
    f = DPFilter(1, "1e-6")
    assert abs(f.remaining()["max_next_V"] - y_star(1, "1e-6")) <= y_star(1, "1e-6") * mpmath.mpf("1e-45")


def test_extreme_inputs():
    f = DPFilter(1000, "1e-300")
    assert not f.can_run(1000)  # V = 10^6 > y* ~ 440
    r = f.remaining()
    assert 20 < r["max_next_eps"] < 21
    assert f.run(20) == 1
    assert f.can_run("1e-100") and f.can_run("1e-200", "0") and not f.can_run(1, "1e-300")
    tiny = DPFilter("1e-10", "1e-300")
    assert tiny.can_run("1e-12") and not tiny.can_run("1e-9")
    big = DPFilter(10 ** 6, "1e-300", "0.5")
    assert big.run(1000, "0.5") == 1 and not big.can_run(0, "1e-300")
    o = Odometer("1e-300", eps_target=1000, rho="1e-10", v0="1e-10")
    o.record(20)
    b = o.bounds()
    assert all(mpmath.isfinite(v) and v > 200 for v in b.values())


# --------------------------------------------------------------------------
# state semantics
# --------------------------------------------------------------------------

def test_can_run_is_a_pure_query():
    f = DPFilter(1, "1e-6", "1e-6")
    f.run("0.1", "1e-7")
    before = f.to_dict()
    for e in ["0", "0.05", "0.5", "1", "100"]:
        for d in ["0", "1e-7", "1"]:
            f.can_run(e, d)
    assert f.to_dict() == before


def test_refusal_leaves_state_unchanged_and_retry_with_smaller_eps():
    f = DPFilter(1, "1e-6", "1e-7")
    f.run("0.1")
    before = f.to_dict()
    with pytest.raises(BudgetExceeded) as ei:
        f.run("0.2", "1e-6")
    assert isinstance(ei.value, ValueError)
    assert ei.value.reasons == ("delta", "eps") and ei.value.step == 2
    assert "delta_second" in str(ei.value) and "eps" in str(ei.value)
    assert not f.try_run("0.2")
    assert f.to_dict() == before
    assert f.try_run("0.1")  # a smaller, still predictable, choice of eps_2
    assert f.n == 2


def test_history_and_runs():
    f = DPFilter(1, "1e-6", "1e-6")
    for s in [("0.01", 0), ("0.01", 0), ("1/100", "0"), ("0.02", "1e-9"), ("0.01", 0)]:
        f.run(*s)
    assert f.history == [(F(1, 100), F(0))] * 3 + [(F(1, 50), F(1, 10 ** 9)), (F(1, 100), F(0))]
    assert f.history_runs == [(F(1, 100), F(0), 3), (F(1, 50), F(1, 10 ** 9), 1), (F(1, 100), F(0), 1)]
    assert f.V == sum(e * e for e, _ in f.history)


# --------------------------------------------------------------------------
# JSON round trip
# --------------------------------------------------------------------------

@settings(max_examples=15, deadline=None)
@given(st.lists(st.tuples(eps_step, delta_step), max_size=12),
       st.lists(st.tuples(eps_step, delta_step), min_size=1, max_size=12), delta_prime)
def test_json_round_trip_identical_decisions(prefix, probes, dp):
    f = DPFilter("0.8", dp, "1e-6")
    for s in prefix:
        f.try_run(*s)
    g = DPFilter.from_json(f.to_json())
    assert g.to_dict() == f.to_dict() and g.V == f.V and g.n == f.n
    for s in probes:
        assert f.try_run(*s) == g.try_run(*s)
    assert f.to_json() == g.to_json()


@pytest.mark.parametrize("make", [
    lambda: DPFilter(1, "1e-6", "1e-6"),
    lambda: MixedFilter(1, "1e-6", "1e-6"),
    lambda: ZCDPFilter("0.5", "1e-6"),
    lambda: Odometer("1e-6", "1e-6", eps_target=1, rho="0.01", v0="0.001"),
])
def test_round_trip_all_classes(make):
    a = make()
    for i in range(5):
        if isinstance(a, MixedFilter):
            a.run_zcdp("0.001") if i % 2 else a.run_dp("0.05", "1e-8")
        elif isinstance(a, Odometer):
            a.record("0.05", "1e-8")
        else:
            a.run("0.05", "1e-8")
    for b in (type(a).from_json(a.to_json()), type(a).from_dict(json.loads(json.dumps(a.to_dict()))),
              pickle.loads(pickle.dumps(a))):
        assert b.to_dict() == a.to_dict()
        if isinstance(a, Odometer):
            assert b.bounds() == a.bounds()
        else:
            assert b.remaining() == a.remaining()


def _tamper_cases():
    f = DPFilter(1, "1e-6", "1e-6")
    f.run("0.1", "1e-7")
    f.run("0.1")
    good = f.to_dict()

    def edit(fn, reseal=True):
        d = json.loads(json.dumps(good))
        fn(d)
        return sealed(d) if reseal else d

    return {
        "not json": "{",
        "json list": "[1, 2]",
        "json null": "null",
        "missing key": json.dumps({k: v for k, v in good.items() if k != "state"}),
        "extra key": json.dumps({**good, "extra": 1}),
        "wrong schema": json.dumps(edit(lambda d: d.update(schema="fullyadaptive.filters.ZCDPFilter"))),
        "wrong version": json.dumps(edit(lambda d: d.update(version=2))),
        "version as str": json.dumps(edit(lambda d: d.update(version="1"))),
        "param tampered, digest kept": json.dumps(edit(lambda d: d["params"].update(eps="2"), reseal=False)),
        "digest removed": json.dumps(edit(lambda d: d.update(digest=""), reseal=False)),
        "V inconsistent": json.dumps(edit(lambda d: d["state"].update(V="1/100"))),
        "n inconsistent": json.dumps(edit(lambda d: d["state"].update(n=3))),
        "n as bool": json.dumps(edit(lambda d: d["state"].update(n=True))),
        "float value": json.dumps(edit(lambda d: d["params"].update(eps=1.0))),
        "param out of domain": json.dumps(edit(lambda d: d["params"].update(delta_prime="1"))),
        "negative eps in history": json.dumps(edit(lambda d: d["history"].__setitem__(0, ["-1/10", "1/10000000", 1]))),
        "count zero": json.dumps(edit(lambda d: d["history"][0].__setitem__(2, 0))),
        "count float": json.dumps(edit(lambda d: d["history"][0].__setitem__(2, 1.5))),
        "history not list": json.dumps(edit(lambda d: d.update(history={}))),
        "run too short": json.dumps(edit(lambda d: d["history"].__setitem__(0, [1]))),
        "unparsable": json.dumps(edit(lambda d: d["params"].update(eps="one"))),
        "param missing": json.dumps(edit(lambda d: d["params"].pop("delta_second"))),
        "inadmissible state": json.dumps(edit(lambda d: (d["history"].__setitem__(0, ["1", "1/10000000", 1]),
                                                         d["state"].update(V="101/100")))),
        "delta overspent": json.dumps(edit(lambda d: (d["history"].__setitem__(0, ["1/10", "1/100000", 1]),
                                                      d["state"].update(delta_spent="1/100000")))),
    }


@pytest.mark.parametrize("case", sorted(_tamper_cases()))
def test_malformed_or_tampered_json_rejected(case):
    s = _tamper_cases()[case]
    with pytest.raises(ValueError):
        DPFilter.from_json(s)


def test_from_json_type_errors():
    with pytest.raises(TypeError, match="JSON str"):
        DPFilter.from_json({"a": 1})
    with pytest.raises(ValueError):
        ZCDPFilter.from_json(DPFilter(1, "1e-6").to_json())


# --------------------------------------------------------------------------
# thread safety
# --------------------------------------------------------------------------

@pytest.mark.parametrize("cls,args,step", [
    (DPFilter, (1, "1e-6"), ("0.01",)),
    (DPFilter, (1, "1e-6", "1e-7"), ("0.01", "1e-9")),
    (MixedFilter, (1, "1e-6"), ("0.01",)),
    (ZCDPFilter, ("1", "1e-6"), ("0.01", "1e-8")),
])
def test_concurrent_try_run_matches_sequential(cls, args, step):
    threads_n, per_thread = 8, 60
    seq = cls(*args)
    K = run_until_refused(seq, [step] * (threads_n * per_thread))
    assert 0 < K < threads_n * per_thread
    f = cls(*args)
    barrier = threading.Barrier(threads_n)
    counts = [0] * threads_n

    def worker(i):
        barrier.wait()
        for _ in range(per_thread):
            if f.try_run(*step):
                counts[i] += 1
            f.can_run(*step)

    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        ts = [threading.Thread(target=worker, args=(i,)) for i in range(threads_n)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
    finally:
        sys.setswitchinterval(old)
    assert sum(counts) == K == f.n
    assert f.to_dict()["state"] == seq.to_dict()["state"]


# --------------------------------------------------------------------------
# validation
# --------------------------------------------------------------------------

BAD = [
    # (callable, parameter name, exception)
    (lambda: DPFilter(-1, "1e-6"), "eps", ValueError),
    (lambda: DPFilter(0, "1e-6"), "eps", ValueError),
    (lambda: DPFilter(float("nan"), "1e-6"), "eps", ValueError),
    (lambda: DPFilter(float("inf"), "1e-6"), "eps", ValueError),
    (lambda: DPFilter("inf", "1e-6"), "eps", ValueError),
    (lambda: DPFilter(True, "1e-6"), "eps", TypeError),
    (lambda: DPFilter(None, "1e-6"), "eps", TypeError),
    (lambda: DPFilter([1], "1e-6"), "eps", TypeError),
    (lambda: DPFilter("one", "1e-6"), "eps", ValueError),
    (lambda: DPFilter(1, 0), "delta_prime", ValueError),
    (lambda: DPFilter(1, 1), "delta_prime", ValueError),
    (lambda: DPFilter(1, "-1e-6"), "delta_prime", ValueError),
    (lambda: DPFilter(1, "1.5"), "delta_prime", ValueError),
    (lambda: DPFilter(1, float("nan")), "delta_prime", ValueError),
    (lambda: DPFilter(1, False), "delta_prime", TypeError),
    (lambda: DPFilter(1, "1e-6", -1e-9), "delta_second", ValueError),
    (lambda: DPFilter(1, "1e-6", 1), "delta_second", ValueError),
    (lambda: DPFilter(1, "1e-6", mpmath.mpf("nan")), "delta_second", ValueError),
    (lambda: DPFilter(1, "1e-6").can_run(-0.1), "eps_n", ValueError),
    (lambda: DPFilter(1, "1e-6").can_run(float("nan")), "eps_n", ValueError),
    (lambda: DPFilter(1, "1e-6").run(float("-inf")), "eps_n", ValueError),
    (lambda: DPFilter(1, "1e-6").try_run(True), "eps_n", TypeError),
    (lambda: DPFilter(1, "1e-6").try_run(None), "eps_n", TypeError),
    (lambda: DPFilter(1, "1e-6").can_run(0.1, -0.1), "delta_n", ValueError),
    (lambda: DPFilter(1, "1e-6").can_run(0.1, "1.01"), "delta_n", ValueError),
    (lambda: DPFilter(1, "1e-6").run(0.1, True), "delta_n", TypeError),
    (lambda: DPFilter(1, "1e-6").remaining(dps=2), "dps", ValueError),
    (lambda: ZCDPFilter(0, 0), "rho", ValueError),
    (lambda: ZCDPFilter(-1, 0), "rho", ValueError),
    (lambda: ZCDPFilter(float("nan"), 0), "rho", ValueError),
    (lambda: ZCDPFilter(True, 0), "rho", TypeError),
    (lambda: ZCDPFilter(1, "-0.1"), "delta", ValueError),
    (lambda: ZCDPFilter(1, "1.5"), "delta", ValueError),
    (lambda: ZCDPFilter(1, 0).can_run(-1), "rho_n", ValueError),
    (lambda: ZCDPFilter(1, 0).run("nan"), "rho_n", ValueError),
    (lambda: ZCDPFilter(1, 0).try_run(0, 2), "delta_n", ValueError),
    (lambda: ZCDPFilter(1, 0).dp_guarantee(0), "delta_prime", ValueError),
    (lambda: MixedFilter(1, 1), "delta_prime", ValueError),
    (lambda: MixedFilter(1, "1e-6").run_zcdp(-1), "rho_n", ValueError),
    (lambda: MixedFilter(1, "1e-6").can_run_zcdp(False), "rho_n", TypeError),
    (lambda: MixedFilter(1, "1e-6").run_dp(-1), "eps_n", ValueError),
    (lambda: MixedFilter(1, "1e-6").can_run_dp(1, "2"), "delta_n", ValueError),
    (lambda: MixedFilter(1, "1e-6").run_step(("zcdp", "x")), "rho_n", ValueError),
    (lambda: MixedFilter(1, "1e-6").run_step(5), "step", TypeError),
    (lambda: Odometer(0), "delta_prime", ValueError),
    (lambda: Odometer(1, eps_target=1), "delta_prime", ValueError),
    (lambda: Odometer("1e-6"), "eps_target", ValueError),
    (lambda: Odometer("1e-6", eps_target=0), "eps_target", ValueError),
    (lambda: Odometer("1e-6", rho=-1), "rho", ValueError),
    (lambda: Odometer("1e-6", v0=float("inf")), "v0", ValueError),
    (lambda: Odometer("1e-6", n_records=1), "n_records", ValueError),       # the quoted Rogers family is refused
    (lambda: Odometer("1e-6", n_records=100), "W22-LEM4-QUOTE", ValueError),
    (lambda: Odometer("1e-6", "-1", rho=1), "delta_second", ValueError),
    (lambda: Odometer("1e-6", rho=1).record(-1), "eps_n", ValueError),
    (lambda: Odometer("1e-6", rho=1).record(1, float("nan")), "delta_n", ValueError),
]


@pytest.mark.parametrize("i", range(len(BAD)))
def test_validation_names_parameter(i):
    fn, name, exc = BAD[i]
    with pytest.raises(exc) as ei:
        fn()
    assert name in str(ei.value)
    assert not isinstance(ei.value, BudgetExceeded)


def test_odometer_refuses_the_quoted_rogers_family():
    """whitehouse2022 Lemma 4 / whitehouse2023 Lemma 3 are false as printed (errata W22-LEM4-QUOTE): not offered."""
    for n in (2, 100, 10 ** 4):
        with pytest.raises(ValueError, match="W22-LEM4-QUOTE"):
            Odometer("1e-6", eps_target=1, n_records=n)
    assert "rogers_quoted" not in Odometer.FAMILIES


# --------------------------------------------------------------------------
# odometers
# --------------------------------------------------------------------------

def test_odometer_inf_after_delta_budget():
    o = Odometer("1e-6", "1e-6", eps_target=1, rho="0.1", v0="0.001")
    assert set(o.bounds()) == {"filter", "mixture", "stitched"}
    o.record("0.1", "5e-7")
    o.record("0.1", "5e-7")  # sum = delta'' exactly: n <= N, still finite
    assert not o.past_N and all(mpmath.isfinite(v) for v in o.bounds().values())
    o.record("0.01", "1e-12")  # sum > delta'': n > N
    assert o.past_N and all(v == mpmath.inf for v in o.bounds().values())
    o.record(0, 0)
    assert all(v == mpmath.inf for v in o.bounds().values())
    hist = o.bounds_history()
    assert [h["n"] for h in hist] == [1, 2, 3, 4]
    assert all(mpmath.isfinite(h["mixture"]) for h in hist[:2]) and all(h["mixture"] == mpmath.inf for h in hist[2:])


def test_odometer_bounds_match_closed_forms():
    o = Odometer("1e-6", eps_target="0.5", rho="0.05", v0="0.001")
    assert o.bounds()["stitched"] == mpmath.inf  # V = 0 < v0
    for e in ["0.01", "0.1", "1/3"]:
        o.record(e)
    V = o.V
    b = o.bounds()
    assert b == {"filter": filter_odometer(V, "0.5", "1e-6"), "mixture": mixture_odometer(V, "0.05", "1e-6"),
                 "stitched": stitched_odometer(V, "0.001", "1e-6")}
    assert o.families == ("filter", "mixture", "stitched")
    assert Odometer("1e-6", rho=1).families == ("mixture",)


@pytest.mark.parametrize("et,dp", [("1", "1e-6"), ("0.1", "0.01"), ("1000", "1e-300")])
def test_filter_odometer_equals_eps_at_ystar(et, dp):
    mp = mpmath.MPContext()
    mp.prec = 600
    ys = ystar300(to_exact(et, "e"), to_exact(dp, "d"))
    step = mp_to_fraction(_MP300.sqrt(ys), 150)  # step^2 = y* up to ~1e-150
    o = Odometer(dp, eps_target=et)
    o.record(step)
    b = o.bounds(dps=60)["filter"]
    e = mpmath.mpf(to_exact(et, "e").numerator) / to_exact(et, "e").denominator
    assert abs(b - e) <= e * mpmath.mpf("1e-40")
    assert b >= e * (1 - mpmath.mpf("1e-100"))


@given(st.lists(st.tuples(eps_step, st.sampled_from(["0", "0", "1e-7"])), min_size=1, max_size=15))
def test_odometer_bounds_monotone_in_V(steps):
    o = Odometer("1e-6", "1e-6", eps_target=1, rho="0.01", v0="0.01")
    prev = None
    for e, d in steps:
        o.record(e, d)
        b = o.bounds(dps=20)
        if prev is not None:
            for k in b:
                if k == "stitched" and prev[k] == mpmath.inf:
                    continue  # inf while V < v0, finite afterwards
                assert b[k] >= prev[k], (k, prev[k], b[k])
        # the filter odometer lies above f(V) = sqrt(2 L V) + V/2 (tangent at y*)
        if b["filter"] != mpmath.inf:
            assert b["filter"] >= filter_spent(o.V, "1e-6", dps=20) * (1 - mpmath.mpf("1e-18"))
        prev = b


def test_rogers_quoted_is_not_monotone_across_V_equal_1():
    """Observation (reported): the Lemma 3 (whitehouse2023) formula drops when V crosses 1."""
    below = rogers_odometer_quoted_2023_as_printed(F("0.998001"), "1e-6", 10 ** 4)
    above = rogers_odometer_quoted_2023_as_printed(F("0.998001") + F("0.0025"), "1e-6", 10 ** 4)
    assert above < below


def _drift_60(e: F, d: F):
    """pdp_drift_two_sided by an independent 60-digit route: min(e, e tanh(e/2) + e d/sinh(e)) with mpmath's tanh and sinh."""
    with mpmath.workdps(60):
        ee, dd = mpmath.mpf(e.numerator) / e.denominator, mpmath.mpf(d.numerator) / d.denominator
        return min(ee, ee * mpmath.tanh(ee / 2) + ee * dd / mpmath.sinh(ee))


@given(st.lists(st.tuples(st.sampled_from(["0.01", "0.05", "0.1", "1/3"]), st.sampled_from(["0", "0", "1e-4", "0.01"])),
                min_size=1, max_size=8))
def test_odometer_with_delta_steps_adds_the_pdp_drift(steps):
    """errata W22-THM2-DELTA: with delta_n > 0 the bound is B(V) + sum_{delta=0} eps^2/2 + sum_{delta>0} pdp_drift_two_sided (second route at 60 digits)."""
    o = Odometer("1e-6", "0.5", eps_target=1, rho="0.01", v0="0.001")
    for e, d in steps:
        o.record(e, d)
    V = o.V
    vp = sum((F(e) ** 2 for e, d in steps if F(d) == 0), F(0))
    drift = sum((_drift_60(F(e), F(d)) for e, d in steps if F(d) > 0), mpmath.mpf(0))
    b = o.bounds(dps=40)
    with mpmath.workdps(60):
        for fam, closed in (("filter", filter_odometer(V, 1, "1e-6", dps=50)), ("mixture", mixture_odometer(V, "0.01", "1e-6", dps=50)),
                            ("stitched", stitched_odometer(V, "0.001", "1e-6", dps=50))):
            if closed == mpmath.inf:
                assert b[fam] == mpmath.inf
                continue
            want = closed - mpmath.mpf(V.numerator) / V.denominator / 2 + mpmath.mpf(vp.numerator) / vp.denominator / 2 + drift
            assert b[fam] >= want * (1 - mpmath.mpf(10) ** -35)          # never below the corrected bound
            assert b[fam] <= want * (1 + mpmath.mpf(10) ** -25)          # and tight to it


def test_odometer_thread_safety():
    o = Odometer("1e-6", rho=1)

    def worker():
        for _ in range(200):
            o.record("0.01", 0)

    ts = [threading.Thread(target=worker) for _ in range(6)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert o.n == 1200 and o.V == F(1200, 10 ** 4)
    assert o.history_runs == [(F(1, 100), F(0), 1200)]


# --------------------------------------------------------------------------
# zCDP filter extras
# --------------------------------------------------------------------------

def test_zcdp_remaining_and_dp_guarantee():
    z = ZCDPFilter("0.5", "1e-6")
    z.run("0.2", "1e-7")
    r = z.remaining()
    assert r == {"rho_left": F(3, 10), "delta_left": F(9, 10 ** 7), "rho_spent": F(1, 5), "delta_spent": F(1, 10 ** 7)}
    assert z.can_run(r["rho_left"], r["delta_left"]) and not z.can_run(r["rho_left"] + F(1, 10 ** 30))
    g = z.dp_guarantee("1e-6")
    L = mpmath.log(10 ** 6)
    assert g["eps"] >= 0.5 + 2 * mpmath.sqrt(0.5 * L) * (1 - 1e-15)
    assert g["delta"] >= mpmath.mpf("1e-6") + (1 - mpmath.mpf("1e-6")) * mpmath.mpf("1e-6") * (1 - 1e-15)


# --------------------------------------------------------------------------
# negative controls: broken filters must be caught by the same checks
# --------------------------------------------------------------------------

class NoLookaheadFilter(DPFilter):
    """BROKEN: tests f(V_n) (before the step) instead of f(V_{n+1})."""

    def _admits_eps(self, V_next):
        return filter_admits(self._V, self.eps, self.delta_prime)


class RoundsVDownFilter(DPFilter):
    """BROKEN: truncates V_{n+1} to 10 significant digits before deciding."""

    def _admits_eps(self, V_next):
        if V_next == 0:
            return True
        return filter_admits(truncate_sig(V_next, 10), self.eps, self.delta_prime)


class FloatFilter(DPFilter):
    """BROKEN: decides sqrt(2 log(1/delta') V) + V/2 <= eps in binary64."""

    def _admits_eps(self, V_next):
        v = float(V_next)
        return math.sqrt(2 * math.log(1 / float(self.delta_prime)) * v) + v / 2 <= float(self.eps)


def _agrees_with_exact(cls, steps, et, dp):
    N = filter_stop_index(steps, [0] * len(steps), et, dp, 0)
    return run_until_refused(cls(et, dp), [(s,) for s in steps]) == N


def test_negative_control_no_lookahead():
    steps = ["0.1"] * 10
    assert _agrees_with_exact(DPFilter, steps, 1, "1e-6")
    assert not _agrees_with_exact(NoLookaheadFilter, steps, 1, "1e-6")
    broken = NoLookaheadFilter(1, "1e-6")
    run_until_refused(broken, [(s,) for s in steps])
    assert not filter_admits(broken.V, F(1), F(1, 10 ** 6))  # it overspent the budget


def test_negative_control_rounding_V_down():
    et, dp = F(1), F(1, 10 ** 6)
    root = mp_to_fraction(_MP300.sqrt(ystar300(et, dp)), 30)
    step = root + F(1, 10 ** 30)  # step^2 just above y*: exact refuses
    assert f300(step * step, dp) > 1
    assert _agrees_with_exact(DPFilter, [step], et, dp)
    assert not _agrees_with_exact(RoundsVDownFilter, [step], et, dp)


def test_negative_control_float_decision():
    et, dp = F(1), F(1, 10 ** 6)
    ys = ystar300(et, dp)
    root = _MP300.sqrt(ys)
    found = False
    for k in range(1, 200):  # steps within 1e-17 of the boundary: binary64 cannot resolve them
        step = mp_to_fraction(root, 40) + F((-1) ** k * k, 10 ** 19)
        if not _agrees_with_exact(FloatFilter, [step], et, dp):
            found = True
            assert _agrees_with_exact(DPFilter, [step], et, dp)
            break
    assert found


def test_budget_exceeded_pickles_and_mixed_refusal_message():
    m = MixedFilter(1, "1e-6")
    m.run_zcdp("0.01")
    with pytest.raises(BudgetExceeded) as ei:
        m.run_zcdp("1")
    assert "('zcdp', rho_n=1)" in str(ei.value) and ei.value.step == 2 and m.n == 1
    e2 = pickle.loads(pickle.dumps(ei.value))
    assert str(e2) == str(ei.value) and e2.step == 2 and e2.reasons == ("eps",)
    assert m.history == [("zcdp", F(1, 100))]


def test_calibrated_filter_base_says_what_is_missing():
    """The calibrated filters' base class has no rule of its own: asking it to decide raises a TypeError."""
    from reference.accountants.feldman2021 import _CalibratedFilter

    with pytest.raises(TypeError, match="must define _admits_runs"):
        _CalibratedFilter._admits_runs(object.__new__(_CalibratedFilter), ())


# --------------------------------------------------------------------------
# remaining(): a frozen dataclass that still reads as the dict it used to be
# --------------------------------------------------------------------------

def _accountants_with_remaining():
    import reference.accountants as A

    return [  # (factory, the keys of the dict remaining() returned, in order)
        (lambda: A.DPFilter(1, "1e-6"), ("max_next_eps", "max_next_V", "delta_left", "eps_spent", "delta")),
        (lambda: A.MixedFilter(1, "1e-6"),
         ("max_next_eps", "max_next_V", "delta_left", "eps_spent", "delta", "max_next_rho")),
        (lambda: A.ZCDPFilter("1/2", "1e-6"), ("rho_left", "delta_left", "rho_spent", "delta_spent")),
        (lambda: A.Lemma35Filter(lambda s: s.S <= 1, "1e-6"), ("delta_left", "delta_spent")),
        (lambda: A.BasicFilter("0.3", "1e-6"), ("eps_left", "delta_left", "eps_spent", "delta_spent")),
        (lambda: A.AdvancedFilter(1, "1e-3"), ("max_next_eps", "K", "delta_left")),
        (lambda: A.AdvancedFilterAsPrinted(1, "1e-6"), ("max_next_eps", "K", "delta_left")),
        (lambda: A.RenyiFilter(2, "1/2"), ("rho_left", "spent", "B", "alpha")),
        (lambda: A.RenyiZCDPFilter("1/2"), ("rho_left", "spent", "rho")),
        (lambda: A.RenyiDPFilter(1, "1e-6"), ("rho_budget", "rho_spent", "V")),
        (lambda: A.CalibratedRenyiFilter(1, "1e-6", 8), ("spent", "budget", "alpha")),
        (lambda: A.CalibratedZCDPFilter(1, "1e-6"), ("spent", "budget")),
        (lambda: A.GaussianDPFilter(1, "1e-6"), ("mu_budget", "S")),
        (lambda: A.GameFilter(1, "1e-6", "0.01"), ("budget", "spent", "remaining")),
        (lambda: A.DPSGDGameFilter("22.63", "1e-3", ["subsampled-gaussian:q=0.1,sigma=0.5"], bits=4),
         ("budget", "spent", "remaining", "steps_left")),
    ]


@pytest.mark.parametrize("make,keys", _accountants_with_remaining(), ids=lambda x: "" if callable(x) else x[0])
def test_remaining_is_a_frozen_dataclass_read_as_the_old_dict(make, keys):
    """r.name is r["name"]; keys, items, values, len, in, dict(r), {**r} and == follow the dict of the fields; immutable."""
    import dataclasses

    from reference.accountants import Remaining

    r = make().remaining()
    assert isinstance(r, Remaining) and dataclasses.is_dataclass(r)
    assert tuple(r.keys()) == keys == tuple(f.name for f in dataclasses.fields(r))
    d = dict(r)
    assert r == d and d == r and not (r != d)
    assert list(r.items()) == list(d.items()) and list(r.values()) == list(d.values()) and len(r) == len(keys)
    assert all(r[k] is getattr(r, k) and k in r for k in keys) and "nope" not in r and r.get("nope") is None
    assert {**r} == d == r.as_dict() and type(r.as_dict()) is dict
    assert r != {**d, keys[0]: "other"} and r != {k: d[k] for k in keys[1:]}
    with pytest.raises(KeyError):
        r["nope"]
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(r, keys[0], 0)
    with pytest.raises(TypeError):
        r[keys[0]] = 0
    assert getattr(type(make()).remaining, "__annotations__", {}).get("return") == type(r).__name__


def test_remaining_after_steps_keeps_the_values_and_types():
    f = DPFilter(1, "1e-6")
    f.run("0.1")
    r = f.remaining()
    assert r.delta_left == 0 and r.delta == F(1, 10 ** 6) and isinstance(r.eps_spent, mpmath.mpf)
    assert r.max_next_eps == r["max_next_eps"] > 0
    m = MixedFilter(1, "1e-6")
    m.run_dp("0.1")
    rm = m.remaining()
    assert {k: rm[k] for k in r} == dict(r)  # the DP part is the DP filter's
    assert rm.max_next_rho > 0
