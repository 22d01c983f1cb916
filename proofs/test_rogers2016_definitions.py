"""rogers2016 (seed 003_05a378efbd63455f.txt; Rogers, Roth, Ullman, Vadhan, arXiv 1605.08294 v2), Definitions 2.1, 2.2,
2.4, 2.6, 2.8, 3.1, 3.2: their constants and the properties the later results use.

* Def. 2.1: X ~_{eps,delta} Y iff for every event S: P[X in S] <= e^eps P[Y in S] + delta, and symmetrically.
* Def. 2.2: (eps, delta)-point-wise: P_{a~X}[|log(P[X=a]/P[Y=a])| > eps] <= delta, and the same for a ~ Y.
* Def. 2.4: M is (eps, delta)-DP iff M(x) ~_{eps,delta} M(x') for neighbours; Loss_M(a; x, x') = log(P[M(x)=a]/P[M(x')=a]).
* Def. 2.6: RR_{eps,delta}(0) = 0 w.p. delta, top w.p. (1-delta) e^eps/(1+e^eps), bot w.p. (1-delta)/(1+e^eps);
  RR(1) mirrored.
* Def. 2.8: parameters fixed in advance satisfy (eps_g, delta_g)-DP under adaptive composition iff V^0 ~ V^1 in
  FixedParamComp for every adversary.
* Def. 3.1 (odometer): P_{v~V^0}[|Loss(v)| > COMP_{delta_g}(eps_1, delta_1, ...)] <= delta_g for every adversary.
* Def. 3.2 (filter): P_{v~V^0}[|Loss(v)| > eps_g and COMP_{eps_g,delta_g}(...) = CONT] <= delta_g.

Second routes: brute force over all 2^m events with exact comparisons against e^eps, exact rational arithmetic
with e^eps replaced by a rational r (RR probabilities become rational), enumeration of the game under b = 1 (not via
the loss), and the optional-stopping reduction of the running odometer bound computed by an independent DP.
"""
from __future__ import annotations

import itertools
import math
from fractions import Fraction as F

import mpmath
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from reference.bounds import rogers2016 as R
from reference.simulate import rogers2016_games as G
from reference.precision import compare_exp_rational, mpf_to_fraction

X = mpf_to_fraction


def laws(min_size=2, max_size=5):
    """Pairs of finite laws (P, Q) on the same outcomes with exact rational probabilities (zeros allowed)."""
    def mk(ws):
        tot = sum(ws)
        return {i: F(w, tot) for i, w in enumerate(ws)}

    w = st.lists(st.integers(0, 50), min_size=min_size, max_size=max_size).filter(lambda v: sum(v) > 0)
    return st.integers(min_size, max_size).flatmap(
        lambda m: st.tuples(st.lists(st.integers(0, 50), min_size=m, max_size=m).filter(lambda v: sum(v) > 0),
                            st.lists(st.integers(0, 50), min_size=m, max_size=m).filter(lambda v: sum(v) > 0))
    ).map(lambda t: (mk(t[0]), mk(t[1])))


def _le_exp(a: F, eps: F, b: F, d: F) -> bool:
    """Exact test a <= e^eps b + d."""
    if a <= d:
        return True
    if b == 0:
        return False
    return compare_exp_rational(eps, (a - d) / b) >= 0


def brute_dp(P, Q, eps, d) -> bool:
    """Definition 2.1 by brute force over every event S (both directions), exact."""
    keys = sorted(set(P) | set(Q))
    for r in range(len(keys) + 1):
        for S in itertools.combinations(keys, r):
            p = sum((P.get(a, F(0)) for a in S), F(0))
            q = sum((Q.get(a, F(0)) for a in S), F(0))
            if not (_le_exp(p, eps, q, d) and _le_exp(q, eps, p, d)):
                return False
    return True


def brute_bad_mass(P, Q, eps):
    """Definition 2.2: max over a~P, a~Q of the mass where |log(P/Q)| > eps, atom by atom (exact)."""
    def big(a):
        p, q = P.get(a, F(0)), Q.get(a, F(0))
        if p == 0 and q == 0:
            return False
        if p == 0 or q == 0:
            return True
        return compare_exp_rational(eps, p / q) < 0 or compare_exp_rational(eps, q / p) < 0

    bad = [a for a in set(P) | set(Q) if big(a)]
    return max(sum((P.get(a, F(0)) for a in bad), F(0)), sum((Q.get(a, F(0)) for a in bad), F(0)))


def minimal_delta(P, Q, eps):
    """Smallest delta with P ~_{eps,delta} Q, to 100 digits (sum of positive parts of P - e^eps Q, both ways)."""
    E = mpmath.exp(mpmath.mpf(eps.numerator) / eps.denominator)
    keys = set(P) | set(Q)
    m = lambda q: mpmath.mpf(q.numerator) / q.denominator
    f = lambda A, B: sum(max(mpmath.mpf(0), m(A.get(a, F(0))) - E * m(B.get(a, F(0)))) for a in keys)
    return max(f(P, Q), f(Q, P))


# ---------------------------------------------------------------------------
# Definition 2.1
# ---------------------------------------------------------------------------

@given(laws(), st.fractions(0, 3, max_denominator=20), st.fractions(0, 1, max_denominator=50))
@example(({0: F(1, 100), 1: F(99, 100)}, {0: F(51, 6250), 1: F(6199, 6250)}), F(1, 10), F(1, 1000))
@example(({0: F(1)}, {1: F(1)}), F(3), F(1))
def test_def2_1_indistinguishability_equals_brute_force_over_events(PQ, eps, d):
    """Def. 2.1: X ~_{eps,delta} Y  <=>  for all S: P[X in S] <= e^eps P[Y in S] + delta and P[Y in S] <= e^eps P[X in S] + delta."""
    P, Q = PQ
    assert R.is_dp(P, Q, eps, d) == brute_dp(P, Q, eps, d)


@given(laws(), st.fractions(0, 3, max_denominator=20))
def test_def2_1_minimal_delta_is_the_hockey_stick(PQ, eps):
    """Def. 2.1: the least delta is max_S (P(S) - e^eps Q(S)) over both orders; is_dp flips exactly there (one-sided)."""
    P, Q = PQ
    dm = minimal_delta(P, Q, eps)
    above = X(dm) + F(1, 10**60)
    assert R.is_dp(P, Q, eps, min(above, F(1)))
    below = X(dm) - F(1, 10**60)
    if below > 0:
        assert not R.is_dp(P, Q, eps, below)


# ---------------------------------------------------------------------------
# Definition 2.2
# ---------------------------------------------------------------------------

@given(laws(), st.fractions(0, 3, max_denominator=20))
@example(({0: F(1, 2), 1: F(1, 2)}, {0: F(1, 2), 1: F(1, 2)}), F(0))
def test_def2_2_pointwise_bad_mass_equals_atomwise_route(PQ, eps):
    """Def. 2.2: (eps, delta)-point-wise iff max(P_{a~X}[|L(a)| > eps], P_{a~Y}[|L(a)| > eps]) <= delta, L = log(P[X=a]/P[Y=a])."""
    P, Q = PQ
    assert R.pointwise_bad_mass(P, Q, eps) == brute_bad_mass(P, Q, eps)


# ---------------------------------------------------------------------------
# Definition 2.4 (DP, privacy loss) and Definition 2.6 (randomized response)
# ---------------------------------------------------------------------------

EPS_GRID = st.fractions(0, 30, max_denominator=40)
DELTA_GRID = st.sampled_from([F(0), F(1, 10**300), F(1, 10**6), F(1, 3), F(99, 100), F(1)])


@given(EPS_GRID, DELTA_GRID, st.sampled_from([0, 1]))
@example(F(1000), F(1, 10**300), 0)
@example(F(0), F(1), 1)
def test_def2_6_rr_table_constants(eps, d, b):
    """Def. 2.6: P[RR(0)=0] = delta, P[RR(0)=top] = (1-delta) e^eps/(1+e^eps), P[RR(0)=bot] = (1-delta)/(1+e^eps),
    P[RR(0)=1] = 0; RR(1) is the mirror image (0 <-> 1, top <-> bot); each row sums to 1."""
    law = R.rr_output_distribution(eps, d, b, dps=60)
    E = mpmath.mpf(eps.numerator) / eps.denominator
    D = mpmath.mpf(d.numerator) / d.denominator
    s = mpmath.exp(E) / (1 + mpmath.exp(E)) if E < 500 else 1 - mpmath.exp(-E) / (1 + mpmath.exp(-E))
    fav, oth, own, other = ("top", "bot", 0, 1) if b == 0 else ("bot", "top", 1, 0)
    want = {own: D, fav: (1 - D) * s, oth: (1 - D) * (1 - s), other: 0}
    for k, v in want.items():
        assert abs(law[k] - v) <= mpmath.mpf(10) ** -58 * max(v, mpmath.mpf(10) ** -300) or (v == 0 and law[k] == 0)
    assert abs(sum(law.values()) - 1) < mpmath.mpf(10) ** -55
    # the exact affine form: P = a + c s
    aff = R.rr_output_law_affine(eps, d, b)
    for k, (a, c) in aff.items():
        assert abs(law[k] - (a + c * s)) <= mpmath.mpf(10) ** -58 * max(abs(law[k]), mpmath.mpf(10) ** -300)
    assert sum(a for a, c in aff.values()) + sum(c for a, c in aff.values()) * 0 == sum(a for a, _ in aff.values())
    assert sum(c for _, c in aff.values()) == 0 and sum(a for a, _ in aff.values()) == 1


@given(st.integers(2, 40), st.integers(1, 40), st.fractions(0, F(99, 100), max_denominator=100))
@example(2, 1, F(0))
def test_def2_6_rr_is_exactly_eps_delta_dp_and_no_smaller(rnum, rden, d):
    """Def. 2.4 + 2.6: RR_{eps,delta}(0) ~_{eps,delta} RR_{eps,delta}(1) with equality on S = {0, top}
    (P[RR(0) in S] - e^eps P[RR(1) in S] = delta), so neither eps nor delta can be lowered.

    Exact with e^eps = r rational (then s = r/(1+r) is rational and every probability is a Fraction)."""
    r = F(rnum + rden, rden)  # r > 1
    s = r / (1 + r)
    P = {0: d, "top": (1 - d) * s, "bot": (1 - d) * (1 - s), 1: F(0)}
    Q = {0: F(0), "top": (1 - d) * (1 - s), "bot": (1 - d) * s, 1: d}
    hs = lambda A, B, rr: sum(max(F(0), A[a] - rr * B[a]) for a in A)
    assert hs(P, Q, r) == d and hs(Q, P, r) == d  # exactly delta at e^eps = r
    assert hs(P, Q, r * F(999, 1000)) > d  # a smaller eps needs a larger delta


@given(st.fractions(0, 50, max_denominator=30), st.sampled_from([F(0), F(1, 10**300), F(1, 7)]))
def test_def2_4_privacy_loss_of_rr(eps, d):
    """Def. 2.4: Loss(a; x, x') = log(P[M(x)=a]/P[M(x')=a]) takes the values +eps (top), -eps (bot), +inf (0) for RR(0)
    vs RR(1), with the probabilities of Def. 2.6; and Loss(a; x', x) = -Loss(a; x, x') (the game's round_loss)."""
    law = R.rr_privacy_loss_distribution(eps, d, 0, dps=40)
    out0 = R.rr_output_distribution(eps, d, 0, dps=40)
    if eps:
        E = R.pdp_to_dp_eps(eps, dps=40)
        assert law[E] == out0["top"] and law[-E] == out0["bot"]
    assert (law.get(mpmath.inf, 0) == out0[0])
    for z in ("top", "bot", 0):
        assert G.round_loss(eps, d, False, z) == -G.round_loss(eps, d, True, z)
    assert G.round_loss(eps, d, False, "top") == eps and G.round_loss(eps, d, False, 0) == math.inf


# ---------------------------------------------------------------------------
# Definition 2.8 (adaptive composition, FixedParamComp)
# ---------------------------------------------------------------------------

def _view_law(adv, k, b):
    return {tuple((r.z, r.swap) for r in p.transcript): p.prob for p in G.enumerate_views(adv, k, b)}


@pytest.mark.parametrize("sched", [[(F(1, 2), F(1, 20))] * 3, [(F(1, 5), F(0)), (F(1), F(1, 100)), (F(1, 10), F(0))]])
def test_def2_8_divergence_of_the_two_views_by_enumerating_both(sched):
    """Def. 2.8: (eps_g, delta_g) holds iff sup_S P[V^0 in S] - e^{eps_g} P[V^1 in S] <= delta_g (and symmetrically).

    Second route: the b = 1 game is enumerated separately (not via Loss), the sup is sum_v (P0(v) - e^eps P1(v))_+;
    it must equal rogers_games.hockey_stick, and sit at or below Theorem 2.9's sum delta_i at sum eps_i."""
    def choose(t):  # adaptive dataset swaps with parameters fixed in advance
        i = len(t)
        if i == len(sched):
            return None
        swap = bool(t) and t[-1].z == "bot"
        return sched[i] + (swap,)

    adv = G.FunctionAdversary(choose)
    k = len(sched)
    P0, P1 = _view_law(adv, k, 0), _view_law(adv, k, 1)
    for eg in (F(0), F(1, 2), sum(e for e, _ in sched)):
        E = mpmath.exp(mpmath.mpf(eg.numerator) / eg.denominator)
        c = G.iv_context(200)
        tot = c.mpf(0)
        for v, p in P0.items():
            q = P1.get(v, c.mpf(0))
            diff = p - c.exp(c.mpf(eg.numerator) / eg.denominator) * q
            if diff.a > 0:
                tot += diff
            elif diff.b > 0:
                tot += c.mpf([0, diff.b])
        lo, hi = G.hockey_stick(G.enumerate_views(adv, k, 0), eg)
        assert tot.a <= hi + mpmath.mpf(10) ** -50 and lo <= tot.b + mpmath.mpf(10) ** -50
    # Theorem 2.9 at eps_g = sum eps_i (last loop value); attained with equality for some schedules, so the
    # enclosure may straddle sum delta_i by its width (1e-58) but its lower end may not exceed it
    dsum = sum(d for _, d in sched)
    assert X(lo) <= dsum and X(hi) <= dsum + F(1, 10**50)


# ---------------------------------------------------------------------------
# Definitions 3.1 / 3.2: the properties used later
# ---------------------------------------------------------------------------

eps_lists = st.lists(st.sampled_from([F(0), F(1, 100), F(1, 10), F(1, 3), F(1)]), min_size=1, max_size=6)


@given(eps_lists, st.integers(1, 5))
def test_def3_1_trailing_zero_rounds_do_not_change_the_odometers(es, m):
    """Def. 3.1 remark: COMP(eps_1, delta_1, ..., eps_k', delta_k', 0, 0, ..., 0, 0) is the running bound at round k'
    (stopping = all later parameters 0): every odometer of the paper is invariant under appending (0, 0) rounds."""
    z = [0] * len(es)
    ez, zz = list(es) + [0] * m, z + [0] * m
    assert R.basic_odometer(es, z, 0) == R.basic_odometer(ez, zz, 0)
    assert R.lemma6_4_odometer(es, z, "1e-6", "0.01") == R.lemma6_4_odometer(ez, zz, "1e-6", "0.01")
    assert R.advanced_odometer(es, z, "1e-6", 100) == R.advanced_odometer(ez, zz, "1e-6", 100)
    assert R.advanced_odometer_as_printed(es, z, "1e-6", 100) == R.advanced_odometer_as_printed(ez, zz, "1e-6", 100)


@given(eps_lists, st.integers(1, 5), st.sampled_from([F(1, 2), F(1), F(3)]))
def test_def3_2_filters_are_invariant_under_zero_rounds_and_monotone(es, m, eg):
    """Def. 3.2 remark: the filter is queried on (eps_1, delta_1, ..., eps_k', delta_k', 0, 0, ...); its answer does not
    depend on the trailing zeros, and once HALT it stays HALT when rounds are added (what Algorithm 3 relies on)."""
    z = [0] * len(es)
    for f in (lambda e, d: R.basic_filter(e, d, eg, F(1, 100)), lambda e, d: R.advanced_filter(e, d, eg, F(1, 100))):
        assert f(es, z) == f(list(es) + [0] * m, z + [0] * m)
        answers = [f(es[:i], z[:i]) for i in range(1, len(es) + 1)]
        assert all(not (a == R.HALT and b == R.CONT) for a, b in zip(answers, answers[1:]))


def test_def3_1_bad_event_is_strict():
    """Def. 3.1: the bad event is |Loss(v)| > COMP (strict): a loss equal to the basic odometer is not a failure."""
    es, z = [F(1, 2), F(1, 4)], [0, 0]
    assert not R.odometer_exceeded(F(3, 4), es, z, "basic", delta_prime_g=0)
    assert R.odometer_exceeded(F(3, 4) + F(1, 10**40), es, z, "basic", delta_prime_g=0)
    assert R.odometer_exceeded(math.inf, es, z, "basic", delta_prime_g=0)
    assert not R.odometer_exceeded(math.inf, es, [F(1, 2), 0], "basic", delta_prime_g=F(1, 4))  # COMP = inf


def test_def3_1_running_bound_by_optional_stopping():
    """Def. 3.1 + remark after Def. 3.2: validity against every adversary gives, with probability >= 1 - delta_g,
    |Loss_i| <= COMP(prefix_i) simultaneously for all rounds i: the adversary that stops at the first crossing has
    P[bad at the end] = P[some prefix crosses] for the original adversary.  Both sides exactly (independent DPs)."""
    spec = R.OdometerSpec("basic", delta_prime_g=0)
    broken = lambda loss, V, n: loss > F(1, 5) * n * F(1, 3)  # "odometer" n eps/5 (invalid): crossings happen

    def crossing_prob():  # DP over (loss, n), absorbing at the first crossing of the broken bound
        c = G.iv_context(200)
        up = 1 / (1 + c.exp(-c.mpf(1) / 3))
        level, tot = {F(0): c.mpf(1)}, c.mpf(0)
        for n in range(1, 7):
            nxt = {}
            for l, p in level.items():
                for dl, w in ((F(1, 3), up), (F(-1, 3), 1 - up)):
                    if broken(abs(l + dl), None, n):
                        tot += p * w
                    else:
                        nxt[l + dl] = nxt.get(l + dl, c.mpf(0)) + p * w
            level = nxt
        return tot

    stopper = G.MarkovAdversary(lambda loss, V, n: None if n and broken(abs(loss), V, n) else F(1, 3), 6)
    law = G.markov_stopped_law(stopper)
    c = G.iv_context(200)
    end_bad = sum((p for (l, V, n), p in law.items() if n and broken(abs(l), V, n)), c.mpf(0))
    cp = crossing_prob()
    assert abs(end_bad - cp).b < mpmath.mpf(10) ** -50
    assert end_bad.a > 0  # the broken bound is crossed with positive probability
    # and the valid basic odometer is never exceeded on any prefix
    assert not any(spec.exceeded(l, R.EpsStats({F(1, 3): n}) if n else R.EpsStats()) for (l, V, n) in law)


# ---------------------------------------------------------------------------
# shared helpers for the game modules (imported by name; not tests)
# ---------------------------------------------------------------------------

PARAM_GRID = [(F(1, 10), F(0)), (F(1, 2), F(0)), (F(1, 20), F(1, 100)), (F(1), F(0)), (F(1, 4), F(1, 50)), (F(0), F(0)),
              (F(1, 3), F(1, 10**300)), (F(2), F(0))]


def table_adversary(codes, k, *, swaps=True, stop_code=None):
    """A deterministic adaptive adversary: round i's (eps_i, delta_i) is PARAM_GRID[codes[(i + 3 * tops) % len(codes)]],
    where `tops` counts the 'top' outcomes so far (so the parameters change with the history, every step); the datasets
    are swapped after a 'bot' when `swaps`; it stops after k rounds or when the code `stop_code` comes up."""
    def choose(t):
        i = len(t)
        if i >= k:
            return None
        tops = sum(r.z == "top" for r in t)
        c = codes[(i + 3 * tops) % len(codes)]
        if stop_code is not None and c == stop_code and i > 0:
            return None
        e, d = PARAM_GRID[c]
        return (e, d, swaps and bool(t) and t[-1].z == "bot")

    return G.FunctionAdversary(choose)


codes_st = st.lists(st.integers(0, len(PARAM_GRID) - 1), min_size=1, max_size=6)
