"""IndividualDPSGDGameFilter and audit: exact per-example charges, Algorithm 3's masks, save and restore, bad input.

Every charge is checked against a scalar second route in exact rationals (the least grid scale s_k
with norm <= s_k C, :func:`_charge_exact`), which shares nothing with the vectorised thresholds;
the certificate itself is tested in proofs/test_sgm_game*.py and proofs/test_feldman2021_alg3_game.py.
One certificate at a coarse grid (bits = 4, about 2 s) is shared through the per-process cache.
"""
from __future__ import annotations

import json
import math
from fractions import Fraction as F

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from reference.accountants import IndividualDPSGDGameFilter, StateJournal
from reference.accountants.base import _digest
from reference.accountants.individual_game import DEFAULT_SCALES, audit, scale_thresholds

EPS, DELTA, Q, SIGMA, BITS = F(4), F(1, 1000), F(1, 10), F(1), 4
CLIP = F(1, 10)          # not a double: the thresholds s_k C must be rounded down to be exact


def make(n=8, clip=CLIP, **kw):
    return IndividualDPSGDGameFilter(EPS, DELTA, Q, SIGMA, clip, n, bits=BITS, **kw)


def _charge_exact(norm: float, costs, scales=DEFAULT_SCALES, clip=CLIP) -> int:
    """Second route: 0 at 0; else the cost of the least scale s with Fraction(norm) <= s C; the top one above C."""
    if norm == 0:
        return 0
    if math.isinf(norm):
        return costs[-1]
    x = F(norm)
    for s, c in zip(scales, costs):
        if x <= s * clip:
            return c
    return costs[-1]


def _rehash(d):
    d["digest"] = _digest({k: v for k, v in d.items() if k not in ("digest", "hmac")})
    return d


def test_thresholds_are_exact_at_a_clip_that_is_not_a_double():
    """t_k <= s_k C < nextafter(t_k, inf): a double norm n has n <= s_k C iff n <= t_k."""
    t = scale_thresholds(DEFAULT_SCALES, CLIP)
    for s, tk in zip(DEFAULT_SCALES, t.tolist()):
        assert F(tk) <= s * CLIP < F(math.nextafter(tk, math.inf))
    f = make()
    c = f.costs
    probes = [0.0, 5e-324, t[0], math.nextafter(t[0], 1), t[1], math.nextafter(t[1], 1), t[3], math.nextafter(t[3], 1),
              1e300, math.inf]
    got = f.charges(np.array(probes)).tolist()
    assert got == [_charge_exact(x, c) for x in probes]
    assert got[:4] == [0, c[0], c[0], c[1]] and got[-3:] == [c[3], c[3], c[3]]


def test_thresholds_at_extreme_clipping_norms():
    """C beyond the double range: every finite norm is below s_1 C (+inf still goes to the top); C below it: 0 only."""
    t = scale_thresholds(DEFAULT_SCALES, F(10) ** 400)
    assert t.tolist() == [1.7976931348623157e308] * 4
    assert scale_thresholds(DEFAULT_SCALES, F(1, 10 ** 400)).tolist() == [0.0] * 4
    f = make(3, clip=F(1, 10 ** 400))
    assert f.charges(np.array([0.0, 5e-324, 1.0])).tolist() == [0, f.costs[3], f.costs[3]]


def test_negative_control_thresholds_rounded_to_nearest_are_caught():
    """The nearest double to s C (here above it) would put a norm just above s C at scale s: the route refuses it."""
    s, tk = DEFAULT_SCALES[0], float(DEFAULT_SCALES[0] * CLIP)
    assert F(tk) > s * CLIP                     # 0.025 rounds up: a norm equal to that double exceeds s C
    assert _charge_exact(tk, make().costs) == make().costs[1]
    assert make().charges(np.array([tk]))[0] == make().costs[1]


@settings(max_examples=40, deadline=None)
@given(st.lists(st.lists(st.one_of(st.floats(0, 1e6, allow_nan=False), st.sampled_from([0.0, math.inf, 0.025, 0.05])),
                         min_size=4, max_size=4), min_size=1, max_size=120))
@example([[0.1] * 4] * 120)         # every example at scale 1 until each is refused
def test_never_above_budget_and_exactly_algorithm_3(rows):
    """spent_i <= B* always; example i is admitted at a step iff spent_i + c(n) <= B*, and only admitted steps are charged."""
    f = make(4)
    B, c = f.budget, f.costs
    spent, admitted = [0] * 4, 0
    for row in rows:
        mask = f.try_run(np.array(row)).tolist()
        for i, x in enumerate(row):
            ch = _charge_exact(x, c)
            want = spent[i] + ch <= B
            assert mask[i] == want
            spent[i] += ch if want else 0
            admitted += want
        assert f.remaining().spent.tolist() == spent
        assert max(spent) <= B
    assert f.n == len(rows) and f.admitted == admitted


def _reach(target: int, c0: int, c1: int) -> tuple[int, int]:
    """(a, b) with a c0 + b c1 = target, a, b >= 0 (a small search; the costs are coprime or the test says so)."""
    for b in range(target // c1 + 1):
        if (target - b * c1) % c0 == 0:
            return (target - b * c1) // c0, b
    raise AssertionError(f"{target} is not a sum of {c0} and {c1}")


@pytest.mark.parametrize("gap", [0, 1])
def test_a_step_that_exactly_exhausts_the_budget_is_admitted_one_unit_more_is_not(gap):
    """spent + c = B* is admitted; spent + c = B* + 1 is refused (exact integers)."""
    f = make(1)
    B, c = f.budget, f.costs
    a, b = _reach(B - c[0] + gap, c[0], c[1])
    for x, k in ((0.01, a), (0.04, b)):           # scale 1/4 (cost c[0]) and scale 1/2 (cost c[1]) at C = 0.1
        for _ in range(k):
            assert f.try_run(np.array([x]))[0]
    assert f.remaining().spent[0] == B - c[0] + gap
    assert f.try_run(np.array([0.01]))[0] == (gap == 0)
    assert f.remaining().spent[0] == (B if gap == 0 else B - c[0] + gap)


def test_a_refused_example_may_come_back_with_a_cheaper_step():
    """feldman2021 Algorithm 3: the active set is recomputed at every step; a refusal charges nothing."""
    f = make(2)
    B, c = f.budget, f.costs
    big, small = 1.0, 0.001                 # scale 1 (cost c[3]) and the least scale (cost c[0])
    k = B // c[3]
    for _ in range(k):
        assert f.try_run(np.array([big, 0.0])).tolist() == [True, True]
    left = B - k * c[3]
    assert left < c[3] and f.remaining().spent.tolist() == [k * c[3], 0]
    assert f.try_run(np.array([big, big])).tolist() == [False, True]     # refused, not charged
    assert f.remaining().spent.tolist() == [k * c[3], c[3]]
    if left >= c[0]:
        assert f.try_run(np.array([small, 0.0])).tolist() == [True, True]   # back, at a cheaper scale
        assert f.remaining().spent[0] == k * c[3] + c[0]
    assert f.can_run(np.array([big, big])).tolist() == [False, True]
    assert f.remaining().spent[1] == c[3]                                  # can_run changes nothing


def test_ids_touch_only_the_listed_examples():
    f = make(6)
    c = f.costs
    m = f.try_run(np.array([0.1, 0.0, 0.02]), ids=np.array([4, 0, 2]))
    assert m.tolist() == [True, True, True]
    assert f.remaining().spent.tolist() == [0, 0, c[0], 0, c[3], 0]


def test_remaining_is_a_read_only_copy():
    f = make(3)
    f.try_run(np.array([0.1, 0.05, 0.0]))
    r = f.remaining()
    assert r.budget == f.budget and r.costs == f.costs and r.active == 3
    assert (r.remaining == f.budget - r.spent).all()
    with pytest.raises(ValueError):
        r.spent[0] = 0
    with pytest.raises(Exception):
        r.budget = 1


@pytest.mark.parametrize("args, msg", [
    ((np.array([np.nan, 0.1]),), r"norms must be gradient norms >= 0 .*found nan at index 0"),
    ((np.array([0.1, -0.0, -1e-300]),), r"norms must be gradient norms >= 0 .*index 2"),
    ((np.zeros((2, 1)),), r"norms must be a 1-d array"),
    ((np.zeros(3),), r"norms must have one entry per example \(2\)"),
    ((np.array(["a", "b"]),), r"norms must be a real numeric array"),
    ((np.zeros(2), [0, 0]), r"ids must not repeat"),
    ((np.zeros(2), [0, 2]), r"ids must lie in \[0, 2\)"),
    ((np.zeros(2), [0.0, 1.0]), r"ids must be a 1-d integer array"),
    ((np.zeros(1), [0, 1]), r"ids must have one entry per norm"),
])
def test_bad_batches_are_refused_and_change_nothing(args, msg):
    f = make(2)
    with pytest.raises(ValueError, match=msg):
        f.try_run(*args)
    assert f.n == 0 and f.remaining().spent.tolist() == [0, 0]


@pytest.mark.parametrize("kw, msg", [
    ({"scales": ["1/2", "1/4", "1"]}, "scales must be strictly increasing"),
    ({"scales": ["1/2", "3/4"]}, "end at 1"),
    ({"scales": ["1/2", "3/2"]}, r"scales\[1\] must lie in \(0, 1\]"),
    ({"scales": "1"}, "scales must be an increasing list"),
    ({"costs": [1, 2]}, "costs must have one entry per scale"),
    ({"costs": [1, 2, 0, 4]}, r"costs\[2\]"),
])
def test_bad_parameters_are_refused(kw, msg):
    with pytest.raises(ValueError, match=msg):
        make(2, **kw)


def test_bad_scalar_parameters_are_refused():
    for args, msg in (((0, DELTA, Q, SIGMA, CLIP, 2), "eps"), ((EPS, 1, Q, SIGMA, CLIP, 2), "delta"),
                      ((EPS, DELTA, "1.5", SIGMA, CLIP, 2), "q"), ((EPS, DELTA, Q, 0, CLIP, 2), "sigma"),
                      ((EPS, DELTA, Q, SIGMA, -1, 2), "clip"), ((EPS, DELTA, Q, SIGMA, CLIP, 0), "n_examples")):
        with pytest.raises(ValueError, match=msg):
            IndividualDPSGDGameFilter(*args, bits=BITS)


def test_save_and_restore_round_trip():
    f = make(5)
    rng = np.random.default_rng(3)
    for _ in range(30):
        f.try_run(rng.exponential(0.05, 5))
    g = IndividualDPSGDGameFilter.from_json(f.to_json())
    assert g.remaining().spent.tolist() == f.remaining().spent.tolist() and (g.n, g.admitted) == (f.n, f.admitted)
    x = rng.exponential(0.05, 5)
    assert g.try_run(x).tolist() == f.try_run(x).tolist()
    assert g.remaining().spent.tolist() == f.remaining().spent.tolist()
    j = StateJournal()
    s = f.to_json(key="k", journal=j)
    h = IndividualDPSGDGameFilter.from_json(s, key="k", journal=j)
    assert h.instance_id == f.instance_id and h.seq == 1


def test_tampered_or_unreachable_states_are_refused():
    f = make(3)
    f.try_run(np.array([0.1, 0.1, 0.0]))
    d = json.loads(f.to_json())
    bad = json.loads(json.dumps(d))
    bad["state"]["spent"][0] = f.budget + 1
    with pytest.raises(ValueError, match=r"spent must lie in \[0, "):
        IndividualDPSGDGameFilter.from_dict(_rehash(bad))
    bad = json.loads(json.dumps(d))
    bad["state"]["spent"] = [0, 0]
    with pytest.raises(ValueError, match="list of 3 ints"):
        IndividualDPSGDGameFilter.from_dict(_rehash(bad))
    bad = json.loads(json.dumps(d))
    bad["params"]["budget"] = str(f.budget + 1)
    with pytest.raises(ValueError, match="does not match the recomputed certificate"):
        IndividualDPSGDGameFilter.from_dict(_rehash(bad))
    bad = json.loads(json.dumps(d))
    bad["state"]["spent"][1] = 0
    with pytest.raises(ValueError, match="digest mismatch"):
        IndividualDPSGDGameFilter.from_dict(bad)
    with pytest.raises(ValueError, match="HMAC"):
        IndividualDPSGDGameFilter.from_json(f.to_json(key="a"), key="b")


def test_audit_agrees_with_the_filter_replay():
    """Second route: the vectorised audit's charges equal the per-step charges summed; within B* iff the filter admits all."""
    rng = np.random.default_rng(5)
    norms = rng.exponential(0.03, (200, 6))
    norms[:, 0] = 0.1                     # scale 1 at every step: exceeds B* at bits 4
    norms[7, 1] = 0.0
    res = audit(norms, Q, SIGMA, EPS, DELTA, CLIP, bits=BITS, eps_grid=[4])
    f = make(6)
    want = sum(f.charges(norms[t]) for t in range(norms.shape[0]))
    assert res.charges.tolist() == want.tolist()
    all_admitted = np.ones(6, dtype=bool)
    for t in range(norms.shape[0]):
        all_admitted &= f.try_run(norms[t])
    assert res.within.tolist() == all_admitted.tolist() and not res.within[0]
    assert res.budget == f.budget and res.certified_eps_index.tolist() == [-1 if not w else 0 for w in res.within]


def test_audit_chunks_and_dtypes_do_not_change_the_charges():
    rng = np.random.default_rng(6)
    norms = rng.exponential(0.05, (37, 5)).astype(np.float32)
    a = audit(norms, Q, SIGMA, EPS, DELTA, CLIP, bits=BITS, eps_grid=[4])
    b = audit(norms.astype(np.float64), Q, SIGMA, EPS, DELTA, CLIP, bits=BITS, eps_grid=[4], chunk_entries=7)
    assert a.charges.tolist() == b.charges.tolist()


def test_audit_refuses_bad_input():
    for norms, msg in ((np.zeros(3), "2-d"), (np.array([[0.1, np.nan]]), r"found nan at index \(0, 1\)"),
                       (np.array([[0.1], [-2.0]]), r"index \(1, 0\)")):
        with pytest.raises(ValueError, match=msg):
            audit(norms, Q, SIGMA, EPS, DELTA, CLIP, bits=BITS, eps_grid=[4])
    bad = np.full((5, 2), 0.01)
    bad[3, 1] = np.nan
    with pytest.raises(ValueError, match=r"found nan at index \(3, 1\)"):
        audit(bad, Q, SIGMA, EPS, DELTA, CLIP, bits=BITS, eps_grid=[4], chunk_entries=2)   # one row per chunk
    with pytest.raises(ValueError, match="eps_grid"):
        audit(np.zeros((1, 1)), Q, SIGMA, EPS, DELTA, CLIP, bits=BITS, eps_grid=[0])


def test_audit_cli(tmp_path, capsys):
    from reference.cli import main

    p = tmp_path / "n.npy"
    norms = np.full((10, 3), 0.01)
    norms[:, 2] = 1.0
    np.save(p, norms)
    rc = main(["audit", str(p), "--q", "0.1", "--sigma", "1", "--clip", "0.1", "--eps", "4", "--delta", "0.001",
               "--bits", "4", "--eps-grid", "4", "--json"])
    out = capsys.readouterr().out
    d = json.loads(out)
    f = make(3)
    assert rc == 0 and d["budget"] == f.budget and d["examples"] == 3 and d["steps"] == 10
    assert 10 * f.costs[3] <= f.budget and d["max_charge"] == 10 * f.costs[3] and d["within"] == 3
    np.save(p, np.array([[0.1, -1.0]]))
    rc = main(["audit", str(p), "--q", "0.1", "--sigma", "1", "--clip", "0.1", "--eps", "4", "--delta", "0.001",
               "--bits", "4"])
    err = capsys.readouterr().err
    assert rc == 2 and err.startswith("fullyadaptive audit: error: norms must be gradient norms >= 0")
    assert len(err.strip().splitlines()) == 1
