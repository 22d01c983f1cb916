"""Tests of reference.simulate.individual: feldman2021 Algorithm 3 (individual privacy filter) on noisy gradient descent."""
from __future__ import annotations

import json
from fractions import Fraction as F

import numpy as np
import pytest

from reference.simulate import individual as I
from reference.bounds.classical import rdp_to_dp_eps
from reference.bounds.feldman2021 import prop2_9_worst_case_queries
from reference.accountants.feldman2021 import zcdp_filter_dp_eps
from reference.precision import mpf_to_fraction, to_exact


@pytest.fixture(scope="module")
def small():
    """A small run keeping the history for exact re-checks."""
    return I.run_individual_filter(300, 5, 120, sigma="8", lr="0.2", seed=3, keep_history=True)


def exact_sq(v) -> F:
    return sum((F(x) * F(x) for x in np.asarray(v).tolist()), F(0))


# --------------------------------------------------------------------------
# end to end
# --------------------------------------------------------------------------

def test_default_run_end_to_end(capsys):
    res = I.main()
    out = capsys.readouterr().out
    p = res.params
    assert (p["n"], p["d"], p["steps"]) == (1000, 10, 200)
    assert res.active_counts.shape == (200,) and res.train_loss.shape == (201,) and res.train_accuracy.shape == (201,)
    assert res.train_loss[-1] < res.train_loss[0] and res.test_accuracy > 0.7
    assert "Algorithm 3" in out and "RDP" in out and "zCDP" in out and out == res.summary() + "\n"
    # the guarantee: (alpha, B)-RDP -> DP by Fact 2.4, and by Remark 4.4 at the best order
    assert res.eps_at_alpha == rdp_to_dp_eps(p["alpha"], p["B"], p["delta"], dps=30)
    assert res.eps_zcdp == zcdp_filter_dp_eps(p["B"] / p["alpha"], p["delta"], dps=30)
    assert res.eps_zcdp <= res.eps_at_alpha
    assert res.rdp == (p["alpha"], p["B"]) and res.zcdp_rho == p["B"] / p["alpha"]
    d = json.loads(json.dumps(res.as_dict()))
    assert d["active_counts"] == res.active_counts.tolist() and d["rdp"] == ["8", "1/2"]
    assert to_exact(d["eps_zcdp"], "e") >= mpf_to_fraction(res.eps_zcdp)
    # worst-case accounting count and the default budget
    assert res.worst_case_steps == prop2_9_worst_case_queries(p["alpha"], p["sigma"], p["B"], p["clip"]) == 50
    assert res.threshold == 2 * p["sigma"] ** 2 * p["B"] / p["alpha"]


def test_every_point_active_for_the_worst_case_steps(small):
    """Each step costs at most alpha C^2/(2 sigma^2), so nobody is dropped before floor(2 sigma^2 B/(alpha C^2)) steps."""
    T = small.worst_case_steps
    assert 0 < T < small.params["steps"]
    assert np.all(small.active_counts[:T] == small.params["n"])
    assert small.active_counts[-1] < small.params["n"]


def test_budget_invariant_exact(small):
    """No point's exact accumulated individual loss exceeds B (Fractions on the float vectors actually added)."""
    assert I.check_budget_invariant(small) == []
    # the tracker's float upper bound is an upper bound of the exact sums, and tight
    act, G = small.history["active"], small.history["clipped"]
    for i in range(0, small.params["n"], 37):
        ex = sum((exact_sq(G[t, i]) for t in range(act.shape[0]) if act[t, i]), F(0))
        up = F(float(small.sq_norm_sum_upper[i]))
        assert ex <= up <= ex * (1 + F(1, 10**10)) + F(1, 10**300)
        assert ex <= small.threshold
    # the per-point loss is Example 2.7's alpha ||gbar||^2/(2 sigma^2)
    a, s = small.params["alpha"], small.params["sigma"]
    assert np.allclose(small.spent_rdp_upper(), small.sq_norm_sum_upper * float(a / (2 * s * s)))
    assert float(np.max(small.spent_rdp_upper())) <= float(small.params["B"]) * (1 + 1e-12)


@pytest.mark.parametrize("readmit", [True, False])
def test_exact_and_float_accounting_agree(readmit):
    """accounting='exact' (Fractions) and 'float_up' (rigorous float upper bounds) make the same decisions here."""
    kw = dict(sigma="6", lr="0.3", seed=11, readmit=readmit, baseline=False, keep_history=True)
    a = I.run_individual_filter(150, 4, 60, accounting="exact", **kw)
    b = I.run_individual_filter(150, 4, 60, **kw)
    assert np.array_equal(a.active_counts, b.active_counts) and np.array_equal(a.weights, b.weights)
    assert I.check_budget_invariant(a) == [] and I.check_budget_invariant(b) == []
    if not readmit:
        assert np.all(np.diff(b.active_counts) <= 0)  # dropped for good


def test_readmission_happens_in_published_algorithm(small):
    """Published Algorithm 3 re-evaluates every step: some point refused at t is active again later."""
    act = small.history["active"]
    readmitted = [i for i in range(act.shape[1])
                  if any((not act[t, i]) and act[t + 1:, i].any() for t in range(act.shape[0]))]
    assert readmitted


def test_small_gradients_survive_longer(small):
    """Points with small clipped-gradient norms stay active longer (the point of individual accounting)."""
    g = small.mean_clipped_norm
    steps = small.active_steps
    lo, hi = np.quantile(g, [0.25, 0.75])
    assert steps[g <= lo].mean() > steps[g >= hi].mean() + 10
    assert np.corrcoef(g, steps)[0, 1] < -0.5


def test_reproducible_given_seed():
    a = I.run_individual_filter(200, 4, 40, seed=5)
    b = I.run_individual_filter(200, 4, 40, seed=5)
    c = I.run_individual_filter(200, 4, 40, seed=6)
    for f in ("active_counts", "train_loss", "weights", "active_steps", "sq_norm_sum_upper"):
        assert np.array_equal(getattr(a, f), getattr(b, f))
    assert a.summary() == b.summary()
    assert not np.array_equal(a.weights, c.weights)


def test_baseline_uses_the_worst_case_budget():
    """The worst-case DP-GD baseline runs floor(K/C^2) full steps, each of squared norm <= C^2: within the same budget."""
    res = I.run_individual_filter(100, 3, 40, seed=1)
    assert res.baseline_test_accuracy is not None
    assert res.worst_case_steps * res.params["clip"] ** 2 <= res.threshold
    assert I.run_individual_filter(100, 3, 40, seed=1, baseline=False).baseline_test_accuracy is None


# --------------------------------------------------------------------------
# conservative rounding
# --------------------------------------------------------------------------

def test_sq_norm_upper_is_rigorous():
    rng = np.random.default_rng(0)
    rows = [rng.standard_normal(7) * 10.0 ** rng.integers(-160, 150) for _ in range(200)]
    rows += [np.array([5e-324, 1e-320, 0.0]), np.array([1e-160, 3e-170, 1e-155]), np.array([1e150, 1e150, 1.0])]
    for r in rows:
        G = r[None, :]
        up = I._sq_norm_upper(G)[0]
        ex = exact_sq(r)
        assert F(up) >= ex
        if ex > F(1e-290):
            assert F(up) <= ex * (1 + F(1, 10**12))


def test_admission_is_conservative_at_an_exact_tie():
    """Exact sum == K is admitted by the exact rule but refused by the rounded-up tracker (never the reverse)."""
    G = np.array([[3.0, 4.0]])
    K_down = I._float_below(F(25))
    mask, cand = I._admissible(np.zeros(1), I._sq_norm_upper(G), K_down)
    assert exact_sq(G[0]) == 25 and not mask[0] and F(cand[0]) > 25
    mask, _ = I._admissible(np.zeros(1), I._sq_norm_upper(G), I._float_below(F(26)))
    assert mask[0]
    assert F(I._float_below(F(1, 3))) <= F(1, 3) < F(np.nextafter(I._float_below(F(1, 3)), np.inf))


def test_clipping_never_exceeds_C():
    rng = np.random.default_rng(1)
    G = rng.standard_normal((500, 9)) * 1e3
    Gc = I._clip(G, 1.0)
    assert all(exact_sq(r) <= 1 for r in Gc)


# --------------------------------------------------------------------------
# negative control: a filter admitting one step too many is caught
# --------------------------------------------------------------------------

def test_negative_control_broken_filter_is_caught(monkeypatch):
    def broken(cum_up, sq_up, K_down):
        cand = np.nextafter(cum_up + sq_up, np.inf)
        return cum_up <= K_down, cand  # checks the budget *before* the step: one step too many

    monkeypatch.setattr(I, "_admissible", broken)
    res = I.run_individual_filter(300, 5, 120, sigma="8", lr="0.2", seed=3, keep_history=True, baseline=False)
    bad = I.check_budget_invariant(res)
    assert len(bad) > 10


def test_invariant_checker_needs_history():
    res = I.run_individual_filter(50, 2, 5, baseline=False)
    with pytest.raises(ValueError, match="keep_history"):
        I.check_budget_invariant(res)


# --------------------------------------------------------------------------
# bad inputs
# --------------------------------------------------------------------------

@pytest.mark.parametrize("kw, name", [
    (dict(n=0), "n"), (dict(d=0), "d"), (dict(steps=0), "steps"), (dict(alpha=1), "alpha"), (dict(sigma=0), "sigma"),
    (dict(clip="-1"), "clip"), (dict(budget=0), "budget"), (dict(lr=0), "lr"), (dict(delta=1), "delta"),
    (dict(seed=-1), "seed"), (dict(accounting="float"), "accounting"), (dict(n=2.5), "n"),
])
def test_bad_inputs(kw, name):
    args = dict(n=20, d=2, steps=3)
    args.update(kw)
    with pytest.raises(ValueError) as ei:
        I.run_individual_filter(**args)
    assert name in str(ei.value)
