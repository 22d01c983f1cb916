"""The random check-in protocols (reference/simulate/checkins.py): structure, simulations vs formulas, learning, randomizers.

Monte Carlo checks are seeded and decided with rigorous tolerances (Hoeffding at a
1e-9 false-alarm level, or 6 empirical standard errors), and each comes with a
negative control that the same check rejects.
"""
import math
from fractions import Fraction as F

import mpmath
import numpy as np
import pytest

from reference.bounds import balle2020 as B
from reference.simulate import checkins as C


def hoeff(N, rng_width=1.0, k=1, alpha=1e-9):
    return rng_width * math.sqrt(math.log(2 * k / alpha) / (2 * N))


# ---------------------------------------------------------------------------
# Definition 3.1 and the server rules
# ---------------------------------------------------------------------------

def test_random_checkin_law():
    """Abstention w.p. 1 - p0, else uniform over the window (Definition 3.1); per-cell frequencies within Hoeffding."""
    N, n, w, p0 = 4000, 50, 5, F(3, 5)
    s = C.random_checkin(n, 7, w, p0, 1, trials=N)
    assert s.shape == (N, n) and set(np.unique(s)) <= {-1, 7, 8, 9, 10, 11}
    freq = np.array([(s == v).mean() for v in (-1, 7, 8, 9, 10, 11)])
    want = np.array([0.4] + [0.12] * 5)
    assert np.all(np.abs(freq - want) <= hoeff(N * n, k=6) * 4)  # clients are independent: N n samples (x4 slack for safety)
    wrong = np.array([0.5] + [0.1] * 5)
    assert np.any(np.abs(freq - wrong) > hoeff(N * n, k=6) * 4)
    s2 = C.random_checkin(4, np.arange(4), 3, 1, 2, trials=100)
    assert np.all((s2 >= np.arange(4)) & (s2 < np.arange(4) + 3))


def test_select_one_per_step_structure_and_uniformity():
    rng = np.random.default_rng(3)
    slots = C.random_checkin(30, 0, 10, F(1, 2), rng, trials=500)
    sel, counts = C.select_one_per_step(slots, 10, rng)
    for t in range(500):
        for j in range(10):
            members = np.nonzero(slots[t] == j)[0]
            assert counts[t, j] == members.size
            assert (sel[t, j] == -1) == (members.size == 0)
            if members.size:
                assert sel[t, j] in members
    # uniform selection among two clients both checked into step 0
    sel, _ = C.select_one_per_step(np.tile([0, 0], (20000, 1)), 1, rng)
    assert abs(np.mean(sel == 0) - 0.5) <= hoeff(20000)


def test_schedules():
    rng = np.random.default_rng(4)
    sel, counts = C.fixed_window_schedule(100, 20, F(1, 5), rng, trials=50)
    assert sel.shape == counts.shape == (50, 20)
    for row in sel:  # each client used at most once
        used = row[row >= 0]
        assert used.size == np.unique(used).size
    plan = C.averaged_schedule(100, 20, 1, rng)
    allm = np.concatenate(plan)
    assert allm.size == 100 and np.unique(allm).size == 100  # p0 = 1: everyone, once
    sel, counts = C.sliding_window_schedule(30, 5, 1, rng, trials=200)
    assert sel.shape == (200, 26)
    steps = np.arange(26) + 4  # 0-based server times m-1 .. n-1
    ok = (sel < 0) | ((sel <= steps) & (steps <= sel + 4))
    assert ok.all()  # a client is only used inside its window
    with pytest.raises(ValueError, match="n"):
        C.sliding_window_schedule(3, 5, 1, rng)


# ---------------------------------------------------------------------------
# Propositions 3.4 and 4.4 by simulation (6 standard errors), with negative controls
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("n,m,p0", [(50, 50, F(1)), (200, 40, F(1, 5)), (30, 60, F(1, 2))])
def test_dummy_updates_fixed_window_match_prop3_4(n, m, p0):
    N = 40000
    x = C.simulate_dummy_updates("fixed", n, m, p0, N, seed=n + m)
    mean, se = x.mean(), x.std(ddof=1) / math.sqrt(N)
    exact = float(B.prop3_4_expected_dummies(n, m, p0))
    assert abs(mean - exact) <= 6 * se + 1e-12
    assert mean <= float(B.prop3_4_bound(n, m, p0)) + 6 * se


def test_dummy_simulation_rejects_a_wrong_formula():
    """Negative control: m e^(-p0 n/m) (the bound, not the expectation) is rejected at n = m = 50."""
    N = 40000
    x = C.simulate_dummy_updates("fixed", 50, 50, 1, N, seed=1)
    se = x.std(ddof=1) / math.sqrt(N)
    assert abs(x.mean() - float(B.prop3_4_bound(50, 50, 1))) > 6 * se


@pytest.mark.parametrize("n,m,p0", [(60, 10, F(1)), (80, 20, F(1, 2))])
def test_dummy_updates_sliding_window_match_prop4_4(n, m, p0):
    N = 20000
    x = C.simulate_dummy_updates("sliding", n, m, p0, N, seed=7)
    mean, se = x.mean(), x.std(ddof=1) / math.sqrt(N)
    exact = float(B.prop4_4_expected_dummies(n, m, p0))
    assert abs(mean - exact) <= 6 * se
    wrong = float(B.prop4_4_bound(n, m, p0))
    assert abs(mean - wrong) > 6 * se  # negative control


# ---------------------------------------------------------------------------
# Local randomizers
# ---------------------------------------------------------------------------

def test_randomized_response_law_and_debias():
    rr = C.RandomizedResponse("1")
    N = 200000
    out = rr(np.ones(N, dtype=np.int64), 0)
    p = math.e / (1 + math.e)
    assert abs(out.mean() - p) <= hoeff(N)
    assert abs(rr.debias(out.mean()) - 1.0) <= hoeff(N) / (2 * p - 1)
    with pytest.raises(ValueError, match="eps0"):
        C.RandomizedResponse(0)


def test_laplace_randomizer_clips_and_has_the_right_scale():
    lp = C.LaplaceRandomizer("0.5", "2")
    X = np.full((100000, 3), 10.0)
    Y = lp(X, 1)
    noise = Y - 2.0 / 3  # clipped to L1 norm 2: each coordinate 2/3
    assert abs(np.mean(noise)) < 0.1
    assert abs(np.var(noise) / (2 * lp.scale**2) - 1) < 0.02
    assert lp.scale == 8.0


def test_gaussian_delta0_vs_classical_and_monotone():
    """Second route: the classical calibration sigma = D sqrt(2 log(1.25/delta))/eps gives analytic delta <= delta."""
    for eps, dl in ((F(1, 2), F(1, 10**5)), (F(9, 10), F(1, 10**8))):
        D = 2
        sigma = D * math.sqrt(2 * math.log(1.25 / float(dl))) / float(eps)
        d0 = C.gaussian_delta0(eps, sigma, D)
        assert 0 < d0 <= float(dl)
        assert C.gaussian_delta0(eps, sigma * 1.1, D) < d0
    g = C.GaussianRandomizer("8", "1", "1")
    assert 0 < g.delta0 < F(1, 10**4)
    d1 = C.smallest_delta1(g.eps0, g.delta0)
    assert d1 is not None and mpmath.mpf(g.delta0.numerator) / g.delta0.denominator <= B.cheu_delta0_max(g.eps0, d1)


# ---------------------------------------------------------------------------
# Utility theorems by simulation (convex linear loss, smooth quadratic loss)
# ---------------------------------------------------------------------------

def test_thm3_5_excess_risk_bound_holds_in_simulation():
    """Linear loss <x, theta> on a ball of radius r (L = 1, R = 2r); risk - risk* is exact. E[excess - bound(s)] <= 0."""
    rng = np.random.default_rng(12)
    trials, n, m, p0, d, sigma, r = 4000, 60, 40, F(1, 2), 2, 1.0, 1.0
    mu = np.array([0.4, 0.0])  # x = e1 w.p. 0.7, -e1 w.p. 0.3
    eta = float(B.thm3_5_learning_rate(1, 2 * r, d, sigma, m))
    sel, _ = C.fixed_window_schedule(n, m, p0, rng, trials)
    x = np.where(rng.random((trials, n)) < 0.7, 1.0, -1.0)
    theta = np.zeros((trials, d))
    acc = np.zeros((trials, d))
    s = np.zeros(trials)
    for j in range(m):
        real = sel[:, j] >= 0
        acc[real] += theta[real]
        s += real
        g = rng.normal(0, sigma, (trials, d))
        g[real, 0] += x[real, sel[real, j]]
        theta = theta - eta * g
        nrm = np.linalg.norm(theta, axis=1, keepdims=True)
        theta = theta * np.minimum(1, r / np.maximum(nrm, 1e-300))
    ok = s > 0
    avg = acc[ok] / s[ok, None]
    excess = avg @ mu + r * np.linalg.norm(mu)
    bound = np.array([float(B.thm3_5_excess_risk(1, 2 * r, d, sigma, m, int(k))) for k in s[ok]])
    diff = excess - bound
    width = 2 * r * np.linalg.norm(mu) + bound.max()
    assert diff.mean() <= hoeff(ok.sum(), width)
    assert excess.mean() > 0.005  # the task is not trivial
    # negative control: a bound 10x too small is rejected by the same test
    assert (excess - bound / 10).mean() > hoeff(ok.sum(), width)


def test_thm4_2_smooth_bound_holds_in_simulation():
    """Quadratic loss (theta - x)^2/2 in d = 1 on [-1, 1] (beta = 1, L = 2, R = 2); risk - risk* = (theta - mu)^2/2 exactly."""
    rng = np.random.default_rng(13)
    trials, n, m, sigma = 3000, 40, 8, 1.0
    x = np.where(rng.random((trials, n)) < 0.8, 1.0, -1.0)  # mu = 0.6
    slots = C.random_checkin(n, 0, m, 1, rng, trials)
    excess, bounds = [], []
    for t in range(trials):
        counts = np.bincount(slots[t], minlength=m)
        eta = float(B.thm4_2_learning_rate_smooth(2, 2, 1, sigma, 1, counts.tolist()))
        theta, acc, T = 0.0, 0.0, 0
        for j in range(m):
            members = np.nonzero(slots[t] == j)[0]
            if members.size == 0:
                continue
            g = np.mean(theta - x[t, members] + rng.normal(0, sigma, members.size))
            theta = float(np.clip(theta - eta * g, -1, 1))
            acc += theta
            T += 1
        excess.append((acc / T - 0.6) ** 2 / 2)
        bounds.append(float(B.thm4_2_smooth(2, 2, 1, sigma, 1, counts.tolist())))
    excess, bounds = np.array(excess), np.array(bounds)
    assert (excess - bounds).mean() <= hoeff(trials, 2 + bounds.max())


def test_thm4_2_convex_bound_is_the_sgd_bound_for_given_counts():
    """Second route: the closed form equals min over eta of (R^2 + eta^2 S)/(2 eta T) evaluated numerically."""
    counts = [3, 0, 7, 1, 2]
    S = sum(1 + 5 * 4 / k for k in counts if k)
    T = 4
    best = min((4 + e * e * S) / (2 * e * T) for e in np.linspace(0.01, 2, 20000))
    assert abs(float(B.thm4_2_convex(1, 2, 5, 2, counts)) - best) < 1e-6


# ---------------------------------------------------------------------------
# run_protocol end to end
# ---------------------------------------------------------------------------

def test_run_protocol_fixed_window_end_to_end():
    r = C.run_protocol("fixed", n=3000, m=300, p0=F(1, 10), randomizer="laplace", eps0="2", seed=5)
    assert r.steps == 300 and r.real_updates + r.dummy_updates == 300 and r.skipped_steps == 0
    assert r.participants == r.real_updates
    assert r.theorem == "balle2020_thm3_2_eps" and r.eps == B.thm3_2_eps(2, 300, F(1, 10), "1e-6")
    assert r.amplifies is True and r.delta == F(1, 10**6)
    assert r.expected_dummy_updates == B.prop3_4_expected_dummies(3000, 300, F(1, 10))
    s = r.summary()
    for key in ("dummy updates", "Prop. 3.4", "balle2020_thm3_2_eps", "test_accuracy_avg", "utility bound"):
        assert key in s
    again = C.run_protocol("fixed", n=3000, m=300, p0=F(1, 10), randomizer="laplace", eps0="2", seed=5)
    assert again.utility == r.utility and again.dummy_updates == r.dummy_updates  # seeded


def test_run_protocol_averaged_learns():
    r = C.run_protocol("averaged", n=6000, m=60, randomizer="laplace", eps0="0.5", seed=1)
    assert r.skipped_steps == 0 and r.dummy_updates == 0 and r.participants == 6000
    assert r.utility["test_accuracy_final"] > 0.6  # chance is ~0.5
    assert r.theorem == "balle2020_thm4_1_eps" and r.amplifies
    assert r.utility_theorem == "balle2020_thm4_2_convex"
    g = C.run_protocol("averaged", n=6000, m=60, randomizer="gaussian", sigma="8", eps0="1", seed=1)
    assert g.theorem == "balle2020_thm4_1_approx_eps" and g.utility["test_accuracy_final"] > 0.6  # (eps0, delta0) clause
    g2 = C.run_protocol("averaged", n=600, m=60, randomizer="gaussian", sigma="2", eps0="1", seed=1)
    assert g2.eps is None and "too large" in g2.summary()  # delta0 = 0.127: the conversion does not apply
    r2 = C.run_protocol("averaged", n=100, m=10, p0="1/2", randomizer="laplace", eps0="1", seed=1)
    assert r2.eps is None and "p0 = 1" in r2.summary()


def test_run_protocol_sliding_and_mean_bit():
    r = C.run_protocol("sliding", n=4000, m=100, task="mean_bit", randomizer="rr", eps0="1", seed=2)
    assert r.steps == 3901 and r.theorem == "balle2020_thm4_3_eps"
    assert r.expected_dummy_updates == B.prop4_4_expected_dummies(4000, 100, 1)
    assert r.utility["abs_error"] < 0.1
    assert r.as_dict()["protocol"] == "sliding"


@pytest.mark.parametrize("kw,name", [
    (dict(protocol="nope"), "protocol"), (dict(task="nope"), "task"), (dict(n=0), "n"), (dict(m=0), "m"),
    (dict(p0="1.5"), "p0"), (dict(delta=2), "delta"), (dict(randomizer="rr"), "randomizer"),
    (dict(randomizer="gaussian"), "sigma"), (dict(protocol="sliding", n=5, m=10), "n"),
])
def test_run_protocol_bad_inputs(kw, name):
    proto = kw.pop("protocol", "fixed")
    with pytest.raises(ValueError, match=name):
        C.run_protocol(proto, **{"n": 100, **kw})


def test_cli_hook_registers_and_runs(capsys):
    import argparse
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers()
    from reference.cli.simulations import add_cli
    assert add_cli(sub) == ["individual-filter", "checkins"]
    args = parser.parse_args(["checkins", "--n", "500", "--task", "mean_bit", "--eps0", "1", "--json"])
    assert args.func(args) == 0
    assert '"protocol": "fixed"' in capsys.readouterr().out
    args = parser.parse_args(["checkins", "--n", "0"])
    assert args.func(args) == 2
