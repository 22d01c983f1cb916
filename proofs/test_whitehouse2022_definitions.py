"""Definitions 1-10 of whitehouse2022 (seed 000_8d85c89f0d15dfff.txt; Whitehouse, Ramdas, Rogers, Wu,
"Fully Adaptive Composition in Differential Privacy", arXiv version), with eqs. (1), (3), (4).

What the paper defines, in our words:

* Def. 1 (conditional DP): P(A(x) in G | B(x)) <= e^{eps(B(x))} P(A(x') in G | B(x)) + delta(B(x)).
* Def. 2 / eq. (3) (conditional privacy loss) L_B = log p^x(A(x)|B(x)) / p^{x'}(A(x)|B(x)); eq. (4):
  L_{1:n} = sum_{m<=n} L_m, also at random times N that depend on x only through the outputs.
* Def. 3 (conditional pDP): P(|L_B| > eps(B(x)) | B(x)) <= delta(B(x)).
* Def. 4 (filter): N is a stopping time and A_{1:N} is (eps, delta)-DP.
* Def. 5 (odometer): P(exists n: L_{1:n} > U_n) <= delta.
* Def. 6 ((eps, delta)-randomized response): b w.p. (1-delta) e^eps/(1+e^eps), 1-b w.p. (1-delta)/(1+e^eps),
  top (b = 1) / bot (b = 0) w.p. delta; claimed to be both (eps, delta)-DP and (eps, delta)-pDP.
* Def. 7/8 ((conditional) zCDP): E(e^{lambda L} | B) <= e^{lambda (lambda + 1) eps^2 / 2} for lambda >= 0.
* Def. 9 (Renyi divergence) D_lambda(P||Q) = 1/(lambda-1) log E_P[(P/Q)^{lambda-1}] and its delta-approximate
  version (inf over decompositions P = (1-delta) P' + delta P'').
* Def. 10 (conditional delta-approximate rho-zCDP): D^delta_lambda <= rho lambda for all lambda >= 1.

Second routes: exact rational arithmetic with w = e^eps rational (so every DP/pDP inequality is decided
exactly), mpmath.quad for the Gaussian mechanism, and the alternative Renyi formula sum P^lambda Q^(1-lambda).

This module also holds the exact enumerator of adaptive (eps_n, delta_n)-randomized-response compositions
(:func:`rr_enumerate`) used by the other whitehouse2022 proof modules.
"""
from __future__ import annotations

import itertools
from fractions import Fraction as F

import mpmath
import pytest
from hypothesis import example, given, strategies as st

from reference.bounds import whitehouse2023 as W
from reference.accountants.whitehouse2023 import DPFilter, Odometer
from reference.precision import mpf_to_fraction

INF = mpmath.inf


# --------------------------------------------------------------------------------------------------
# helpers (shared with the other whitehouse2022 proof modules)
# --------------------------------------------------------------------------------------------------

def q2m(q) -> mpmath.mpf:
    """A Fraction as an mpf at the current (test-side, 110-digit) precision."""
    q = F(q)
    return mpmath.mpf(q.numerator) / q.denominator


def rr_law_w(w: F, delta: F, b: int) -> dict:
    """Definition 6 with w = e^eps rational: exact output law of (log w, delta)-RR on input bit b."""
    keep, flip = (1 - delta) * w / (1 + w), (1 - delta) / (1 + w)
    return {b: keep, 1 - b: flip, "top": delta if b == 1 else F(0), "bot": delta if b == 0 else F(0)}


def events(support):
    """All subsets of a finite support."""
    s = list(support)
    return itertools.chain.from_iterable(itertools.combinations(s, k) for k in range(len(s) + 1))


def hockey_exact(P: dict, Q: dict, w: F) -> F:
    """sup_G P(G) - w Q(G) = sum_y (P(y) - w Q(y))_+  (exact; a second route to the event enumeration)."""
    return sum((max(F(0), P.get(y, F(0)) - w * Q.get(y, F(0))) for y in set(P) | set(Q)), F(0))


def is_dp_w(P: dict, Q: dict, w: F, delta: F) -> bool:
    """Exact (log w, delta)-DP of the pair (P, Q) in both directions, by enumerating every event."""
    sup = set(P) | set(Q)
    for A, B in ((P, Q), (Q, P)):
        for G in events(sup):
            if sum((A.get(y, F(0)) for y in G), F(0)) > w * sum((B.get(y, F(0)) for y in G), F(0)) + delta:
                return False
    return True


def pdp_mass_w(P: dict, Q: dict, w: F) -> F:
    """P(|L| > log w) with L = log(P/Q) under P, exactly (Q(y) = 0 < P(y) means L = +inf)."""
    out = F(0)
    for y, p in P.items():
        if p == 0:
            continue
        q = Q.get(y, F(0))
        if q == 0 or p > w * q or q > w * p:
            out += p
    return out


def _as_step(x):
    if x is None:
        return None
    if isinstance(x, tuple):
        return F(x[0]), F(x[1])
    return F(x), F(0)


def rr_enumerate(strategy, horizon: int, *, admit=None, bound=None, measure: str = "P", on_stop=None):
    """Exact enumeration of an adaptive composition of conditional (eps_n, delta_n)-randomized response.

    ``strategy(loss, V, S, n)`` returns eps_{n+1}, a pair (eps_{n+1}, delta_{n+1}) or None (stop); it sees the
    realized loss L_{1:n} (a function of the transcript), V_n = sum eps_m^2 and S_n = sum delta_m.
    ``admit(V_next, S_next, n)`` is a filter (step n+1 runs iff True).  ``bound(V, S, n, drift)`` is an
    odometer / boundary U_n (``drift`` = sum_m eps_m tanh(eps_m/2), the compensator of eq. (5)); a path is
    absorbed at its first n with L_{1:n} > U_n.  Under ``measure='P'`` (input x) a step's loss is +eps w.p.
    (1-delta) e^eps/(1+e^eps), -eps w.p. (1-delta)/(1+e^eps) and +inf (the output only x produces) w.p. delta;
    under 'Q' (input x') the roles of +-eps swap and the flag has loss -inf.

    Returns a dict: ``stopped`` {(loss, V, S, n, counts): prob} for finite-loss stopped paths, ``flag`` the
    probability of a flagged (infinite-loss) path, ``crossed`` the probability of crossing ``bound``.
    Probabilities are mpf at the current precision; losses and V are exact Fractions.
    """
    level = {(F(0), F(0), F(0), ()): mpmath.mpf(1)}
    stopped: dict = {}
    flag = mpmath.mpf(0)
    crossed = mpmath.mpf(0)
    probs: dict = {}
    drifts: dict = {(): mpmath.mpf(0)}
    bounds: dict = {}

    def step_probs(e, d):
        if (e, d) not in probs:
            w = mpmath.exp(q2m(e))
            up, down = (1 - q2m(d)) * w / (1 + w), (1 - q2m(d)) / (1 + w)
            probs[(e, d)] = (down, up) if measure == "Q" else (up, down)
        return probs[(e, d)]

    def drift_of(c2):
        if c2 not in drifts:
            drifts[c2] = sum((q2m(x) * mpmath.tanh(q2m(x) / 2) * k for x, k in c2), mpmath.mpf(0))
        return drifts[c2]

    def bound_of(V2, S2, n, c2):
        key = (V2, S2, n, c2)
        if key not in bounds:
            bounds[key] = bound(V2, S2, n, drift_of(c2))
        return bounds[key]

    for n in range(horizon + 1):
        nxt: dict = {}
        for (loss, V, S, counts), prob in level.items():
            step = _as_step(strategy(loss, V, S, n)) if n < horizon else None
            if step is not None and admit is not None and not admit(V + step[0] ** 2, S + step[1], n):
                step = None
            if step is None:
                key = (loss, V, S, n, counts)
                stopped[key] = stopped.get(key, 0) + prob
                if on_stop is not None:
                    on_stop(key, prob)
                continue
            e, d = step
            up, down = step_probs(e, d)
            cnt = dict(counts)
            cnt[e] = cnt.get(e, 0) + 1
            c2 = tuple(sorted(cnt.items()))
            V2, S2 = V + e * e, S + d
            if d:
                fl = prob * q2m(d)
                flag += fl
                if bound is not None and measure == "P" and bound_of(V2, S2, n + 1, c2) < INF:
                    crossed += fl
            for dl, pr in ((e, up), (-e, down)):
                l2 = loss + dl
                if bound is not None and q2m(l2) > bound_of(V2, S2, n + 1, c2):
                    crossed += prob * pr
                    continue
                k = (l2, V2, S2, c2)
                nxt[k] = nxt.get(k, 0) + prob * pr
        level = nxt
        if not level:
            break
    return {"stopped": stopped, "flag": flag, "crossed": crossed}


def hockey_of_stopped(res, eps: F) -> mpmath.mpf:
    """sup_G P(G) - e^eps Q(G) for the stopped transcript = flag mass + E_P[(1 - e^{eps - L})_+]."""
    total = res["flag"]
    for (loss, *_), prob in res["stopped"].items():
        if loss > eps:
            total += prob * (1 - mpmath.exp(q2m(eps - loss)))
    return total


w_st = st.fractions(min_value=1, max_value=50, max_denominator=40)
d_st = st.fractions(min_value=0, max_value=1, max_denominator=10**6) | st.sampled_from([F(0), F(1), F(1, 10**300)])


# --------------------------------------------------------------------------------------------------
# Definition 6: randomized response
# --------------------------------------------------------------------------------------------------

@given(st.fractions(min_value=0, max_value=1000), d_st)
@example(F(1000), F(1, 10**300))
@example(F(0), F(1))
def test_def6_law_is_as_printed_and_sums_to_one(e, d):
    """R(b) = b w.p. (1-delta) e^eps/(1+e^eps), 1-b w.p. (1-delta)/(1+e^eps), top/bot w.p. delta; total mass 1."""
    for b in (0, 1):
        law = W.rr_output_distribution(e, d, b, dps=60)
        ee, dd = q2m(e), q2m(d)
        printed = {b: (1 - dd) * mpmath.exp(ee) / (1 + mpmath.exp(ee)), 1 - b: (1 - dd) / (1 + mpmath.exp(ee)),
                   "top": dd if b == 1 else 0, "bot": dd if b == 0 else 0}
        for k in printed:
            assert abs(law[k] - printed[k]) <= mpmath.mpf(10) ** -55
        assert abs(sum(law.values()) - 1) <= mpmath.mpf(10) ** -55


@given(w_st, d_st.filter(lambda x: x < 1))
@example(F(1), F(0))
@example(F(50), F(1, 10**300))
def test_def6_rr_is_exactly_eps_delta_dp_and_no_better(w, d):
    """For every event G: P(R(b) in G) <= e^eps P(R(1-b) in G) + delta, with equality for some G (exact, w = e^eps)."""
    P, Q = rr_law_w(w, d, 1), rr_law_w(w, d, 0)
    assert is_dp_w(P, Q, w, d)
    assert hockey_exact(P, Q, w) == d and hockey_exact(Q, P, w) == d  # the sup over G is attained: tight in delta
    if w > 1 and d < 1:
        w2 = (1 + w) / 2  # any smaller e^eps' needs a larger delta
        assert hockey_exact(P, Q, w2) > d


@given(st.fractions(min_value=0, max_value=1000), d_st, st.fractions(min_value=0, max_value=1000))
@example(F(1000), F(1, 10**300), F(999))
def test_def6_library_hockey_stick_equals_enumeration(e, d, ep):
    """H_{e^eps'}(R(1)||R(0)) = delta + (1-delta) (e^eps - e^eps')_+/(1+e^eps) >= the event enumeration; = delta at eps' = eps."""
    P, Q = W.rr_output_distribution(e, d, 1, dps=80), W.rr_output_distribution(e, d, 0, dps=80)
    w = mpmath.exp(q2m(ep))
    enum = max(sum(P[y] - w * Q[y] for y in G) for G in events(P))
    got = W.rr_hockey_stick(e, d, ep)
    assert got >= enum - mpmath.mpf(10) ** -75
    assert got - enum <= mpmath.mpf(10) ** -45 * max(1, enum)
    assert W.rr_hockey_stick(e, d, e) >= q2m(d) and W.rr_hockey_stick(e, d, e) - q2m(d) <= mpmath.mpf(10) ** -48


@given(w_st, d_st)
@example(F(50), F(1, 10**300))
def test_def3_rr_is_exactly_eps_delta_pdp(w, d):
    """P(|L| > eps) = delta exactly for (eps, delta)-RR (L = +-eps, or +inf on the flag); both inputs."""
    for b in (0, 1):
        P, Q = rr_law_w(w, d, b), rr_law_w(w, d, 1 - b)
        assert pdp_mass_w(P, Q, w) == d
        if w > 1 and d < 1:
            assert pdp_mass_w(P, Q, (1 + w) / 2) == 1  # at any smaller eps' every outcome is a violation


@given(st.fractions(min_value=0, max_value=200), d_st)
def test_def3_library_privacy_loss_distribution(e, d):
    """The loss of (eps, delta)-RR is +eps, -eps, +inf w.p. (1-d)e^eps/(1+e^eps), (1-d)/(1+e^eps), d; P(|L| > eps) = delta."""
    pld = W.rr_privacy_loss_distribution(e, d, dps=60)
    assert abs(sum(pld.values()) - 1) <= mpmath.mpf(10) ** -55
    cut = q2m(e) * (1 + mpmath.mpf(10) ** -50)  # the loss values are rounded to 60 digits
    tail = sum((p for l, p in pld.items() if abs(l) > cut), mpmath.mpf(0))
    assert abs(tail - q2m(d)) <= mpmath.mpf(10) ** -55


# --------------------------------------------------------------------------------------------------
# Definitions 1-3, eqs. (3)-(4): conditional DP / loss / pDP on an adaptive composition
# --------------------------------------------------------------------------------------------------

TWO_STEP_W = {0: F(3), 1: F(3, 2), "top": F(7), "bot": F(2)}  # e^{eps_2} chosen from the first output
TWO_STEP_D = {0: F(1, 100), 1: F(0), "top": F(1, 3), "bot": F(0)}


def _two_step_joint(b: int, w1=F(2), d1=F(1, 50)):
    """Joint law of (R_1(b), R_2(b)) where R_2 is (eps_2(r1), delta_2(r1))-RR conditioned on R_1 (Def. 6)."""
    out = {}
    for r1, p1 in rr_law_w(w1, d1, b).items():
        for r2, p2 in rr_law_w(TWO_STEP_W[r1], TWO_STEP_D[r1], b).items():
            out[(r1, r2)] = p1 * p2
    return out


def test_def1_def3_conditional_rr_is_conditionally_dp_and_pdp():
    """Given B = R_1 = z: P(A(x) in G | z) <= e^{eps(z)} P(A(x') in G | z) + delta(z) and P(|L_B| > eps(z) | z) <= delta(z)."""
    for b in (0, 1):
        for z in TWO_STEP_W:
            P, Q = rr_law_w(TWO_STEP_W[z], TWO_STEP_D[z], b), rr_law_w(TWO_STEP_W[z], TWO_STEP_D[z], 1 - b)
            assert is_dp_w(P, Q, TWO_STEP_W[z], TWO_STEP_D[z])
            assert pdp_mass_w(P, Q, TWO_STEP_W[z]) <= TWO_STEP_D[z]
            # a conditional parameter that is too small is caught (negative control)
            if TWO_STEP_W[z] > 1:
                assert not is_dp_w(P, Q, (1 + TWO_STEP_W[z]) / 2, TWO_STEP_D[z])


def test_eq4_loss_of_composition_is_sum_of_conditional_losses():
    """eq. (4): p^x(a_1, a_2)/p^{x'}(a_1, a_2) = prod_m p^x(a_m | a_{1:m-1})/p^{x'}(a_m | a_{1:m-1}) (exact), so L_{1:2} = L_1 + L_2."""
    P, Q = _two_step_joint(1), _two_step_joint(0)
    R1P, R1Q = rr_law_w(F(2), F(1, 50), 1), rr_law_w(F(2), F(1, 50), 0)
    for (r1, r2), p in P.items():
        if p == 0 or Q[(r1, r2)] == 0:
            continue
        c1 = R1P[r1] / R1Q[r1]
        c2 = rr_law_w(TWO_STEP_W[r1], TWO_STEP_D[r1], 1)[r2] / rr_law_w(TWO_STEP_W[r1], TWO_STEP_D[r1], 0)[r2]
        assert p / Q[(r1, r2)] == c1 * c2


def test_eq4_holds_at_a_random_stopping_time():
    """eq. (4) at N(x) chosen from the outputs: stop after R_1 = 1, else run R_2; the stopped joint ratio is still the product."""
    stop_after = {1, "top"}

    def stopped(b):
        out = {}
        for r1, p1 in rr_law_w(F(2), F(1, 50), b).items():
            if r1 in stop_after:
                out[(r1,)] = out.get((r1,), 0) + p1
            else:
                for r2, p2 in rr_law_w(TWO_STEP_W[r1], TWO_STEP_D[r1], b).items():
                    out[(r1, r2)] = p1 * p2
        return out

    P, Q = stopped(1), stopped(0)
    assert sum(P.values()) == 1 and sum(Q.values()) == 1
    for path, p in P.items():
        if p == 0 or Q[path] == 0:
            continue
        ratio = rr_law_w(F(2), F(1, 50), 1)[path[0]] / rr_law_w(F(2), F(1, 50), 0)[path[0]]
        if len(path) == 2:
            ratio *= rr_law_w(TWO_STEP_W[path[0]], TWO_STEP_D[path[0]], 1)[path[1]] / rr_law_w(TWO_STEP_W[path[0]], TWO_STEP_D[path[0]], 0)[path[1]]
        assert p / Q[path] == ratio


# --------------------------------------------------------------------------------------------------
# Definitions 4 and 5: filters are stopping times; odometer arguments
# --------------------------------------------------------------------------------------------------

@given(st.lists(st.fractions(min_value=0, max_value=1, max_denominator=1000), min_size=1, max_size=25),
       st.lists(st.sampled_from([F(0), F(1, 10**9), F(1, 10**300)]), min_size=25, max_size=25))
def test_def4_filter_decision_is_a_stopping_time(es, ds):
    """{N <= n} is decided by eps_{1:n+1}, delta_{1:n+1} (predictable): N(prefix of length k) = min(N, k) for every k."""
    ds = ds[: len(es)]
    N = W.filter_stop_index(es, ds, 1, "1e-6", "1e-8")
    for k in range(1, len(es) + 1):
        assert W.filter_stop_index(es[:k], ds[:k], 1, "1e-6", "1e-8") == min(N, k)
    f = DPFilter(1, "1e-6", "1e-8")
    ran = sum(1 for e, d in zip(es, ds) if f.try_run(e, d)) if N == len(es) else None
    if ran is not None:
        assert ran == N


def test_def5_theorem2_odometer_uses_eps_n_which_is_predictable():
    """Def. 5 types u_n on eps_{1:n-1}; Theorem 2 evaluates u_n(eps_{1:n}): the bound after step n changes with eps_n."""
    a, b = Odometer("1e-6", rho=1), Odometer("1e-6", rho=1)
    for o, last in ((a, F(1, 10)), (b, F(1, 2))):
        o.record(F(1, 10))
        o.record(last)
    assert a.bounds()["mixture"] != b.bounds()["mixture"]


# --------------------------------------------------------------------------------------------------
# Definitions 7 and 8: (conditional) zCDP
# --------------------------------------------------------------------------------------------------

@given(st.fractions(min_value=F(1, 1000), max_value=5), st.fractions(min_value=0, max_value=20))
@example(F(1, 1000), F(0))
@example(F(5), F(20))
def test_def7_gaussian_mechanism_meets_zcdp_with_equality(e, lam):
    """Gaussian mechanism with L ~ N(eps^2/2, eps^2): E e^{lambda L} = e^{lambda(lambda+1) eps^2/2} (mpmath.quad)."""
    ee, ll = q2m(e), q2m(lam)
    with mpmath.workdps(40):
        dens = lambda x: mpmath.npdf(x, ee**2 / 2, ee) * mpmath.exp(ll * x)
        c = ee**2 / 2 + ll * ee**2
        mgf = mpmath.quad(dens, [c - 40 * ee, c, c + 40 * ee])
        target = mpmath.exp(ll * (ll + 1) * ee**2 / 2)
        assert abs(mgf / target - 1) < mpmath.mpf(10) ** -25


@given(st.fractions(min_value=0, max_value=60), st.fractions(min_value=0, max_value=200))
@example(F(60), F(200))
@example(F(1, 10**6), F(0))
def test_def8_conditional_rr_meets_conditional_zcdp(e, lam):
    """(eps, 0)-RR: E(e^{lambda L} | B) = (e^{(lambda+1) eps} + e^{-lambda eps})/(1+e^eps) <= e^{lambda(lambda+1) eps^2/2}."""
    ee, ll = q2m(e), q2m(lam)
    pld = W.rr_privacy_loss_distribution(e, 0, dps=120)
    mgf = sum(p * mpmath.exp(ll * x) for x, p in pld.items())
    closed = (mpmath.exp((ll + 1) * ee) + mpmath.exp(-ll * ee)) / (1 + mpmath.exp(ee))
    assert abs(mgf / closed - 1) < mpmath.mpf(10) ** -100
    assert mpmath.log(closed) <= ll * (ll + 1) * ee**2 / 2 + mpmath.mpf(10) ** -100


# --------------------------------------------------------------------------------------------------
# Definitions 9 and 10: (approximate) Renyi divergence and conditional approximate zCDP
# --------------------------------------------------------------------------------------------------

def renyi(P: dict, Q: dict, lam) -> mpmath.mpf:
    """Def. 9 as printed: 1/(lambda-1) log E_{Y~P}[(P(Y)/Q(Y))^{lambda-1}]."""
    lam = q2m(lam)
    return mpmath.log(sum(q2m(p) * (q2m(p) / q2m(Q[y])) ** (lam - 1) for y, p in P.items() if p)) / (lam - 1)


@given(w_st, st.fractions(min_value=F(1001, 1000), max_value=200))
@example(F(1), F(2))
def test_def9_printed_renyi_equals_sum_form(w, lam):
    """1/(lambda-1) log E_P[(P/Q)^{lambda-1}] = 1/(lambda-1) log sum_y P(y)^lambda Q(y)^{1-lambda} (different formula)."""
    P, Q = rr_law_w(w, F(0), 1), rr_law_w(w, F(0), 0)
    P, Q = {k: v for k, v in P.items() if v}, {k: v for k, v in Q.items() if v}
    L = q2m(lam)
    alt = mpmath.log(sum(q2m(P[y]) ** L * q2m(Q[y]) ** (1 - L) for y in P)) / (L - 1)
    assert abs(renyi(P, Q, lam) - alt) < mpmath.mpf(10) ** -90


@given(w_st, d_st.filter(lambda x: x < 1))
def test_def9_rr_decomposes_as_1_minus_delta_pure_rr_plus_delta_flag(w, d):
    """(eps, delta)-RR = (1-delta) (eps, 0)-RR + delta (point mass on the flag), for both inputs (exact)."""
    for b in (0, 1):
        full, pure = rr_law_w(w, d, b), rr_law_w(w, F(0), b)
        flag = "top" if b == 1 else "bot"
        for y in full:
            assert full[y] == (1 - d) * pure[y] + d * (1 if y == flag else 0)


@given(st.fractions(min_value=F(1, 1000), max_value=30), st.fractions(min_value=F(1001, 1000), max_value=500))
@example(F(30), F(500))
@example(F(1, 1000), F(1001, 1000))
def test_def10_rr_is_delta_approximate_eps2_over_2_zcdp(e, lam):
    """D^delta_lambda((eps, delta)-RR) <= D_lambda((eps, 0)-RR) <= lambda eps^2/2 for every lambda >= 1 (via the Def. 9 decomposition)."""
    ee, L = q2m(e), q2m(lam)
    p = 1 / (1 + mpmath.exp(-ee))
    d = mpmath.log(p**L * (1 - p) ** (1 - L) + (1 - p) ** L * p ** (1 - L)) / (L - 1)
    assert d <= L * ee**2 / 2 + mpmath.mpf(10) ** -90


def test_definitions_bad_inputs_raise_naming_parameter():
    with pytest.raises(ValueError, match="delta"):
        W.rr_output_distribution(1, "1.5", 0)
    with pytest.raises(ValueError, match="eps"):
        W.rr_hockey_stick(-1, 0, 0)
    with pytest.raises(ValueError, match="b"):
        W.rr_output_distribution(1, 0, 2)
