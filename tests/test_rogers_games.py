"""Rogers et al. (rogers2016) composition games, Algorithms 1-5: exact enumeration first, Monte Carlo only to test the simulator.

Exact routes: enumeration of every view (interval probabilities, exact losses), the state-merged
Markov law, the binomial law of fixed compositions.  Monte Carlo runs are seeded and judged by
Hoeffding's inequality at false-alarm probability 1e-9 (|p_hat - p| <= sqrt(log(2e9)/(2N))).
"""
from __future__ import annotations

import math
from fractions import Fraction as F

import mpmath
import numpy as np
import pytest
from mpmath.ctx_mp import MPContext

from reference.bounds import rogers2016 as R
from reference.simulate import rogers2016_games as G
from reference.bounds import whitehouse2023 as W
from reference.precision import mpf_to_fraction
from reference.accountants.rogers2016 import AdvancedFilter


def X(x) -> F:
    """Exact value of an mpf endpoint (comparisons with Fractions are exact)."""
    return mpf_to_fraction(x)


def hoeffding(N: int, alpha: float = 1e-9) -> float:
    return math.sqrt(math.log(2 / alpha) / (2 * N))


# ===========================================================================
# Algorithm 1 (and Definition 2.8, Theorems 2.9/2.10) by exact enumeration
# ===========================================================================

@pytest.mark.parametrize("e, d, k", [(F(1, 2), F(1, 100), 4), (F(1, 10), F(0), 8), (F(3, 10), F(1, 10**4), 6)])
def test_fixed_composition_exact_hockey_stick(e, d, k):
    """Definition 2.8 with FixedParamComp: the exact divergence of V^0 from V^1 is <= sum delta at sum eps (Thm 2.9),
    <= k delta + delta_hat at Theorem 2.10's eps_g, and equals the binomial closed form."""
    adv = G.FixedScheduleAdversary([(e, d)] * k)
    paths = G.enumerate_views(adv, k, 0)
    lo, hi = G.hockey_stick(paths, k * e)
    assert X(hi) <= k * d
    dh = F(1, 10)
    eg = mpf_to_fraction(R.advanced_composition_eps(e, k, dh, dps=30))
    lo2, hi2 = G.hockey_stick(paths, eg)
    assert X(hi2) <= k * d + dh
    # binomial route at 80 digits
    c = MPContext()
    c.dps = 80
    E = c.mpf(e.numerator) / e.denominator
    s = c.exp(E) / (1 + c.exp(E))
    D = c.mpf(d.numerator) / d.denominator
    g = c.mpf(eg.numerator) / eg.denominator
    h = sum(c.binomial(k, j) * s**j * (1 - s) ** (k - j) * max(0, 1 - c.exp(g - (2 * j - k) * E)) for j in range(k + 1))
    exact = 1 - (1 - D) ** k + (1 - D) ** k * h
    assert lo2 - mpmath.mpf(10) ** -50 <= exact <= hi2 + mpmath.mpf(10) ** -50


def test_fixed_param_comp_rejects_adaptive_parameters():
    rng = np.random.default_rng(0)
    r = G.fixed_param_comp(["0.1", "0.2"], [0, 0], 0, rng)
    assert len(r.transcript) == 2 and r.eps == (F(1, 10), F(1, 5))
    swapper = G.FunctionAdversary(lambda t: ("0.1", 0, True) if len(t) == 0 else ("0.2", 0))
    r = G.fixed_param_comp(["0.1", "0.2"], [0, 0], 0, rng, adversary=swapper)
    assert r.transcript[0].swap
    cheater = G.FunctionAdversary(lambda t: ("0.3", 0))
    with pytest.raises(ValueError, match="fixed parameters"):
        G.fixed_param_comp(["0.1", "0.2"], [0, 0], 0, rng, adversary=cheater)


def test_swap_and_b1_losses_are_consistent():
    """Loss(v) = log P[V^0 = v]/P[V^1 = v]: enumerating under b = 1 gives probabilities P1 = P0 e^{-Loss} view by view."""
    adv = G.FunctionAdversary(lambda t: None if len(t) == 3 else (F(1, 2), F(1, 10), len(t) % 2 == 1))
    p0 = {p.transcript.outputs: p for p in G.enumerate_views(adv, 3, 0)}
    p1 = {p.transcript.outputs: p for p in G.enumerate_views(adv, 3, 1)}
    c = G.iv_context(200)
    for v, p in p0.items():
        L = p.loss
        if L == math.inf:
            assert v not in p1
            continue
        q = p1[v]
        assert q.loss == L  # the loss is a function of the view
        diff = p.prob / q.prob - c.exp(c.mpf(L.numerator) / L.denominator)
        assert diff.a <= 0 <= diff.b


# ===========================================================================
# Algorithm 2: the simulator against exact enumeration (Monte Carlo, Hoeffding)
# ===========================================================================

def _adaptive_adv():
    """Doubles eps after a 'top', halves it after a 'bot', adds a delta step after two tops; stops after 4 rounds."""
    def choose(t):
        if len(t) == 4:
            return None
        e = F(1, 4)
        for r in t:
            e = e * 2 if r.z == "top" else e / 2
        tops = sum(r.z == "top" for r in t)
        return (e, F(1, 50) if tops >= 2 else F(0))
    return G.FunctionAdversary(choose)


def test_adapt_param_comp_simulation_matches_exact_law():
    adv = _adaptive_adv()
    paths = G.enumerate_views(adv, 4, 0)
    lo, hi = G.probability(paths, lambda p: True)
    assert lo <= 1 <= hi
    rng = np.random.default_rng(20160523)
    N = 4000
    runs = [G.adapt_param_comp(adv, 4, 0, rng) for _ in range(N)]
    tol = hoeffding(N)
    for pred in (lambda L: L == math.inf, lambda L: L != math.inf and L > 1, lambda L: L != math.inf and L < 0):
        est = sum(pred(r.loss) for r in runs) / N
        plo, phi = G.probability(paths, lambda p: pred(p.loss))
        assert float(plo) - tol <= est <= float(phi) + tol


# ===========================================================================
# Algorithm 3: PrivacyFilterComp (Proposition 3.3) exactly; negative controls
# ===========================================================================

def test_basic_filter_game_is_pointwise_private_exactly():
    """Proposition 3.3 with Theorem 3.6: P_{V^0}[|Loss| > eps_g] <= delta_g for an adaptive adversary with deltas."""
    eg, dg = F(1), F(3, 100)
    adv = _adaptive_adv()
    comp = lambda e, d: R.basic_filter(e, d, eg, dg)
    paths = G.enumerate_views(adv, 4, 0, comp)
    lo, hi = G.probability(paths, lambda p: p.loss == math.inf or abs(p.loss) > eg)
    assert X(hi) <= dg
    # negative control: the printed rule read with delta'_g = 3 delta_g lets the delta budget through
    comp_bad = lambda e, d: R.basic_filter_as_printed(e, d, eg, dg, 3 * dg)
    paths = G.enumerate_views(G.FixedScheduleAdversary([(F(1, 2), F(1, 20))]), 1, 0, comp_bad)
    lo, hi = G.probability(paths, lambda p: p.loss == math.inf or abs(p.loss) > eg)
    assert X(lo) > dg


@pytest.mark.parametrize("printed", [False, True])
def test_advanced_filter_game_exactly_and_broken_filter_is_caught(printed):
    """Theorem 5.1 in Algorithm 3: exact bad-event probability <= delta_g; a filter without the log term is caught."""
    eg, dg = F(1, 2), F(1, 100)
    adv = G.FixedScheduleAdversary([(F(1, 10), F(0))] * 12)
    f = R.advanced_filter_as_printed if printed else R.advanced_filter
    paths = G.enumerate_views(adv, 12, 0, lambda e, d: f(e, d, eg, dg))
    lo, hi = G.probability(paths, lambda p: abs(p.loss) > eg)
    assert X(hi) <= dg
    broken = lambda e, d: R.CONT if sum(x * x for x in e) <= eg * eg else R.HALT  # "sqrt(V) <= eps_g"
    paths = G.enumerate_views(adv, 12, 0, broken)
    lo, hi = G.probability(paths, lambda p: abs(p.loss) > eg)
    assert X(lo) > dg


def test_privacy_filter_comp_with_stateful_and_closed_form_filters_agree():
    adv = G.FixedScheduleAdversary([(F(1, 20), F(0))] * 400)
    rng1, rng2 = np.random.default_rng(7), np.random.default_rng(7)
    r1 = G.privacy_filter_comp(adv, 400, 0, AdvancedFilter(1, "1e-3"), rng1)
    r2 = G.privacy_filter_comp(adv, 400, 0, lambda e, d: R.advanced_filter(e, d, 1, "1e-3"), rng2)
    n = R.advanced_filter_rounds_homogeneous("0.05", "0", 1, "1e-3")
    assert r1.halted and r2.halted and len(r1.transcript) == len(r2.transcript) == n
    assert r1.view == r2.view and r1.view[-1] == "HALT"
    with pytest.raises(ValueError, match="comp"):
        G.privacy_filter_comp(adv, 3, 0, None, rng1)


# ===========================================================================
# Algorithm 4 and Lemma 3.5
# ===========================================================================

def test_simulated_comp_post_processing_and_pure_variant():
    class Coarse(G.FixedScheduleAdversary):
        def post(self, t, z, coin):  # P_i: merge the delta output into 'top' half the time
            return "top" if (z == 0 and coin < 0.5) else z

    adv = Coarse([(F(1, 2), F(1, 5))] * 5)
    rng = np.random.default_rng(3)
    r = G.simulated_comp(adv, 5, 0, rng)
    assert len(r.coins) == 5 and all(0 <= x < 1 for x in r.coins)
    W_view = (r.coins, tuple(x.z for x in r.transcript))
    assert len(W_view[1]) == 5
    N, zeros = 3000, 0
    for _ in range(N):
        rr = G.simulated_comp(adv, 5, 0, rng, pure=True)
        zeros += sum(x.z in (0, 1) for x in rr.transcript)
    assert zeros == 0  # the modified game never emits a delta output


def _delta_spender(budget_rounds: int):
    """Spends delta = 1/100 per round for `budget_rounds` rounds, then keeps going after seeing any 'bot' (adaptive)."""
    def choose(t):
        if len(t) == 5:
            return None
        if len(t) < budget_rounds or any(r.z == "bot" for r in t):
            return (F(1, 3), F(1, 100))
        return (F(1, 3), F(0))
    return G.FunctionAdversary(choose)


@pytest.mark.parametrize("budget_rounds", [1, 3, 5])
def test_lemma3_5_eq7_exactly_and_coupling_by_simulation(budget_rounds):
    """Eq. (7): P[W in F and V in G_k] <= delta'_g exactly; the simulated coupling's frequency agrees (Hoeffding 1e-9)."""
    adv = _delta_spender(budget_rounds)
    dpg = F(2, 100)
    lo, hi = G.lemma3_5_discrepancy_probability(adv, 5, dpg)
    assert X(hi) <= dpg
    # without G_k (no budget), the discrepancy probability can exceed delta'_g: G_k is needed
    lo_all, _ = G.probability(G.enumerate_views(adv, 5, 0), lambda p: any(r.z in (0, 1) for r in p.transcript))
    if budget_rounds == 5:
        assert X(lo_all) > dpg
    rng = np.random.default_rng(budget_rounds)
    N = 4000
    hits = 0
    for _ in range(N):
        real, pure, first = G.coupled_simulated_comp(adv, 5, rng)
        assert (first is None) == all(r.z not in (0, 1) for r in real.transcript)
        if first is not None:
            assert real.transcript[:first - 1] == pure.transcript[:first - 1]
        hits += first is not None and real.transcript.delta_sum <= dpg
    assert float(lo) - hoeffding(N) <= hits / N <= float(hi) + hoeffding(N)


@pytest.mark.parametrize("kind, params", [("basic", {"delta_prime_g": F(1, 50)}),
                                          ("lemma6_4", {"delta_g": F(1, 10), "beta": F(1, 10)}),
                                          ("thm6_5", {"delta_g": F(1, 10), "n": 4}),
                                          ("thm6_5_as_printed", {"delta_g": F(1, 10), "n": 4})])
def test_extended_odometers_are_valid_exactly(kind, params):
    """Lemma 3.5 + Theorem 3.6 / Lemma 6.4 / Theorem 6.5: P_{V^0}[|Loss| > COMP(realized)] <= failure probability (exact)."""
    spec = R.OdometerSpec(kind, **params)
    fail = spec.delta_prime_g if kind == "basic" else params["delta_g"]
    adv = _delta_spender(2)
    paths = G.enumerate_views(adv, 5, 0)
    lo, hi = G.probability(paths, lambda p: spec.exceeded(p.loss, R.EpsStats.of(p.transcript.eps), p.transcript.delta_sum))
    assert X(hi) <= fail
    # negative control: the same odometer without its square-root term (sum eps tanh only) is caught
    broken = lambda p: p.loss == math.inf or p.loss > sum(x * F(1, 2) * x for x in p.transcript.eps)
    lo, hi = G.probability(paths, broken)
    assert X(lo) > fail


# ===========================================================================
# Algorithm 5, Lemma 6.3 and the separation of Theorem 6.1
# ===========================================================================

def test_algorithm5_markov_law_equals_path_enumeration():
    adv = G.StoppingTimeAdversary(F(1, 5), F(1, 10), F(1, 2), 12)
    law = G.markov_stopped_law(adv)
    paths = G.enumerate_views(adv, 12, 0)
    c = G.iv_context(200)
    for (loss, V, n), p in law.items():
        lo, hi = G.probability(paths, lambda q: q.loss == loss and len(q.transcript) == n)
        assert (p - c.mpf([lo, hi])).a <= 0 <= (p - c.mpf([lo, hi])).b
    assert abs(sum((p for p in law.values()), c.mpf(0)) - 1).b < mpmath.mpf(10) ** -50
    # the choose and markov forms agree along every enumerated path
    for q in paths[:50]:
        t = q.transcript
        assert adv.choose(t) == (None if adv.markov(t.loss, t.V, len(t)) is None else (adv.eps, 0))


def test_algorithm5_simulation_matches_exact_crossing_probability():
    adv = G.StoppingTimeAdversary(F(1, 10), F(1, 10), F(1, 2), 40)
    law = G.markov_stopped_law(adv)
    c = G.iv_context(200)
    p = sum((prob for (l, V, n), prob in law.items() if adv.stopped(l, n)), c.mpf(0))
    rng = np.random.default_rng(5)
    N = 3000
    est = sum(adv.stopped(r.loss, len(r.transcript)) for r in (G.adapt_param_comp(adv, 40, 0, rng) for _ in range(N))) / N
    assert float(p.a) - hoeffding(N) <= est <= float(p.b) + hoeffding(N)


def test_algorithm5_thresholds_are_the_lemma6_3_walk():
    """Algorithm 5's stop test at round i is M_i >= (C/sigma) sigma sqrt(i log(log(n)/delta)) for the walk of eq. (15).

    With gamma = e^eps/(1+e^eps): mu = tanh(eps/2) and loss - i eps mu = eps M_i, so the least number of tops
    at which it stops is the least j with 2j - i(1 + mu) >= C sqrt(i l), checked here at 100 digits.
    """
    adv = G.StoppingTimeAdversary(F(1, 10), F(1, 100), F(3, 4), 200)
    c = MPContext()
    c.dps = 100
    e = c.mpf(1) / 10
    mu = c.tanh(e / 2)
    ell = c.log(c.log(200) / (c.mpf(1) / 100))
    for i in (1, 2, 10, 57, 200):
        j = adv.threshold_tops(i)
        want = next((jj for jj in range(i + 1) if 2 * jj - i * (1 + mu) >= c.mpf(3) / 4 * c.sqrt(i * ell)), i + 1)
        assert j == want


def test_theorem6_1_heuristic_odometer_fails_while_theorem6_5_holds():
    """The heuristic "advanced composition of the realized eps_i at delta_g" is not a valid odometer (Section 1.1, Thm 6.1).

    Algorithm 5 with eps = 1/100, C = 27/25, delta = delta_g = 1/10, n = k = 200 stops when
    loss - i eps tanh(eps/2) >= C eps sqrt(i log(log 200 / 0.1)) > eps sqrt(2 i log(1/delta_g)), i.e. when the loss exceeds
    the heuristic bound sum eps tanh(eps/2) + sqrt(2 log(1/delta_g) V).  Exactly, that happens with probability > delta_g.
    The corrected Theorem 6.5 odometer (delta_g = 1/10, n = 200) fails with probability <= delta_g on the same adversary.
    """
    eps, dg = F(1, 100), F(1, 10)
    adv = G.StoppingTimeAdversary(eps, dg, F(27, 25), 200)
    law = G.markov_stopped_law(adv)
    c = G.iv_context(200)
    heur_fail = c.mpf(0)
    thm_fail = c.mpf(0)
    spec = R.OdometerSpec("thm6_5", delta_g=dg, n=200)
    for (loss, V, n), p in law.items():
        if n and adv.stopped(loss, n):
            # the heuristic bound at the realized parameters, certified upper: the loss exceeds it
            assert mpf_to_fraction(W.advanced_composition_eps([eps] * n, dg, dps=30)) < loss
            heur_fail += p
        if spec.exceeded(loss, R.EpsStats({eps: n}) if n else R.EpsStats()):
            thm_fail += p
    assert heur_fail.a > mpmath.mpf(dg.numerator) / dg.denominator
    assert thm_fail.b <= mpmath.mpf(dg.numerator) / dg.denominator


def test_adversary_interfaces_and_bad_inputs():
    m = G.MarkovAdversary(lambda loss, V, n: F(1, 10) if loss < 1 else None, 5)
    t = G.Transcript()
    assert m.choose(t) == (F(1, 10), 0)
    assert m.markov(F(2), F(0), 1) is None and m.markov(F(0), F(0), 5) is None
    with pytest.raises(ValueError, match="delta"):
        G.StoppingTimeAdversary(F(1, 10), 1, 1, 2)  # log 2 < 1
    with pytest.raises(ValueError, match="C"):
        G.StoppingTimeAdversary(F(1, 10), F(1, 10), 0, 10)
    with pytest.raises(ValueError, match="eps"):
        G.StoppingTimeAdversary(0, F(1, 10), 1, 10)
    with pytest.raises(TypeError, match="choose must return"):
        G.adapt_param_comp(G.FunctionAdversary(lambda t: 3), 1, 0, np.random.default_rng(0))
    with pytest.raises(ValueError, match="eps_1"):
        G.adapt_param_comp(G.FunctionAdversary(lambda t: (-1, 0)), 1, 0, np.random.default_rng(0))
    with pytest.raises(ValueError, match="b must be"):
        G.adapt_param_comp(m, 1, 2, np.random.default_rng(0))
    with pytest.raises(ValueError, match="z must be"):
        G.round_loss(F(1), F(0), False, "x")
    assert G.round_loss(F(1), F(0), True, "top") == -1 and G.round_loss(F(1), F(1, 2), True, 0) == -math.inf
    for obj in (G.adapt_param_comp, G.StoppingTimeAdversary, G.enumerate_views, G.Transcript):
        assert obj.__citations__[0]["paper_key"] == "rogers2016"
