"""whitehouse2023 (seed 001_019b6f2aef040984.txt, ICML 2023) Theorem 1: the approximate-zCDP privacy filter.

Statement (our words).  Let A_n be delta_n-approximate rho_n-zCDP conditioned on
F_{n-1}(x) (Definition 3: a mixture decomposition A_n | F_{n-1} = (1 - delta_n) P'_n
+ delta_n P''_n, (1 - delta_n) Q'_n + delta_n Q''_n with D_lam(P'_n || Q'_n) <=
rho_n lam and D_lam(Q'_n || P'_n) <= rho_n lam for all lam >= 1), with rho_n,
delta_n predictable.  With

    N = inf{ n : rho < sum_{m <= n+1} rho_m  or  delta < sum_{m <= n+1} delta_m },

the stopped interaction A_{1:N} is delta-approximate rho-zCDP:

    A_{1:N}(x) = (1 - delta) P' + delta P'',  A_{1:N}(x') = (1 - delta) Q' + delta Q'',
    max{D_lam(P' || Q'), D_lam(Q' || P')} <= rho lam   for all lam >= 1.       (5)

Same statement as whitehouse2022 Theorem 7 (seed 000) up to the definition of
approximate zCDP (Definition 10 there; see proofs/test_whitehouse_versions.py);
the proof is new (supermartingale + optional stopping, Lemmas 6-8).

Second routes used here:
* exact enumeration of every transcript of adaptive (eps, delta)-randomized
  response with rational keep probabilities (Fractions for the decomposition,
  60-digit mpmath for the divergences), with the library's ZCDPFilter making the
  stopping decisions;
* an adaptive two-step Gaussian mechanism, integrated with mpmath.quad and with a
  closed form (Phi), whose second mean depends on the first output;
* the library's stop index against a naive rational re-implementation, including
  a 10^9-round history resumed from JSON.
A deliberately broken filter (no look-ahead) is caught.

This module also holds the enumeration helpers used by the Lemma 6-8 modules.
"""
from __future__ import annotations

from fractions import Fraction as F

import mpmath
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from reference.bounds import whitehouse2023 as W
from reference.accountants.whitehouse2023 import ZCDPFilter
from reference.accountants.base import _digest

# ---------------------------------------------------------------------------
# Enumeration helpers (shared with test_whitehouse2023_lem6/7/8)
# ---------------------------------------------------------------------------

DPS = 60


def q2m(q):
    q = F(q)
    return mpmath.mpf(q.numerator) / q.denominator


def rr_eps(p):
    """eps of randomized response with keep probability p in (1/2, 1): log(p/(1-p))."""
    return mpmath.log(q2m(p) / q2m(1 - p))


def rr_rho_exact(p):
    """The zCDP constant of eps-RR: sup_lam D_lam/lam = eps tanh(eps/2) = eps (2p - 1) (attained as lam -> 1)."""
    return rr_eps(p) * (2 * q2m(p) - 1)


def rational_up(x, digits=40):
    """A rational >= x (x > 0) within 10^-digits relative: used as a (valid, slightly loose) rho_n."""
    with mpmath.workdps(digits + 20):
        scale = 10 ** digits
        return F(int(mpmath.ceil(x * scale)) + 1, scale)


def rr_rho(p):
    """Rational upper bound on the exact zCDP constant eps tanh(eps/2) of keep-probability-p RR."""
    return rational_up(rr_rho_exact(p))


def rr_rho_half_eps2(p):
    """Rational upper bound on eps^2/2 (the Lemma 1 / Bun-Steinke conversion of eps-DP)."""
    return rational_up(rr_eps(p) ** 2 / 2)


# Output symbols of one step: 1 / 0 (the RR bit), "T" (only under x, prob delta), "B" (only under x').
def step_laws(p, d):
    """(P, Q, P', Q') of one (eps, delta)-RR step with keep probability p and delta d (Fractions).

    Under x (bit 1): 1 w.p. (1-d) p, 0 w.p. (1-d)(1-p), T w.p. d.  Under x' (bit 0):
    0 w.p. (1-d) p, 1 w.p. (1-d)(1-p), B w.p. d.  P' / Q' are the pure RR parts.
    """
    P = {1: (1 - d) * p, 0: (1 - d) * (1 - p), "T": d, "B": F(0)}
    Q = {1: (1 - d) * (1 - p), 0: (1 - d) * p, "T": F(0), "B": d}
    Pp = {1: p, 0: 1 - p}
    Qp = {1: 1 - p, 0: p}
    return P, Q, Pp, Qp


def enumerate_stopped(strategy, rho, delta, horizon, rho_of=rr_rho, lookahead=True):
    """All stopped transcripts of adaptive RR under the approximate-zCDP filter.

    ``strategy(path) -> (p, d) | None`` picks the next step from the transcript.
    The library's ZCDPFilter(rho, delta) decides (``lookahead=False`` is the broken
    negative control that checks the budget *before* adding the new step).
    Returns a list of dicts with exact Fractions P, Q (full laws), Pp, Qp (pure
    parts, products of P'_n / Q'_n; None if the path contains T or B), w0 =
    prod (1 - delta_n), rho_sum, delta_sum, n.
    """
    out = []

    def rec(path, filt, P, Q, Pp, Qp, w0, rs, ds):
        nxt = strategy(path) if len(path) < horizon else None
        admitted = False
        if nxt is not None:
            p, d = nxt
            r = rho_of(p)
            if lookahead:
                admitted = filt.can_run(r, d)
            else:
                admitted = filt.rho_spent <= rho and filt.delta_spent <= delta
        if not admitted:
            out.append(dict(path=path, P=P, Q=Q, Pp=Pp, Qp=Qp, w0=w0, rho_sum=rs, delta_sum=ds, n=len(path)))
            return
        sP, sQ, sPp, sQp = step_laws(p, d)
        for y in (1, 0, "T", "B"):
            if sP[y] == 0 and sQ[y] == 0:
                continue
            f2 = ZCDPFilter(rho, delta)
            # the committed budget, replayed exactly (the history itself is irrelevant to decisions)
            f2._rho_spent, f2._delta_spent = rs + r, ds + d
            pure = y in (0, 1) and Pp is not None
            rec(path + (y,), f2, P * sP[y], Q * sQ[y],
                Pp * sPp[y] if pure else None, Qp * sQp[y] if pure else None,
                w0 * (1 - d), rs + r, ds + d)

    f0 = ZCDPFilter(rho, delta)
    rec((), f0, F(1), F(1), F(1), F(1), F(1), F(0), F(0))
    return out


def renyi(paths, lam, reverse=False):
    """D_lam(P' || Q') (or Q' || P') of the stopped pure parts, at the current mpmath precision."""
    lam = mpmath.mpf(lam)
    s = mpmath.mpf(0)
    for r in paths:
        if r["Pp"] is None:
            continue
        a, b = (q2m(r["Qp"]), q2m(r["Pp"])) if reverse else (q2m(r["Pp"]), q2m(r["Qp"]))
        s += a ** lam * b ** (1 - lam)
    return mpmath.log(s) / (lam - 1)


def hockey_stick_paths(paths, eps):
    """sup_G P(G) - e^eps Q(G) of the full stopped laws = sum_paths (P - e^eps Q)_+."""
    e = mpmath.exp(eps)
    return sum((max(q2m(r["P"]) - e * q2m(r["Q"]), 0) for r in paths), mpmath.mpf(0))


# Adaptive strategies (functions of the transcript) -----------------------------

KEEPS = (F(11, 20), F(3, 5), F(13, 20), F(2, 3), F(3, 4), F(4, 5))


def strat_homogeneous(p, d=F(0)):
    return lambda path: (p, d)


def strat_chasing(d=F(0)):
    """Stronger steps after an output 1 (the privacy loss went up), weaker after 0."""
    def s(path):
        if not path:
            return (F(2, 3), d)
        return (F(4, 5), d) if path[-1] in (1, "T") else (F(3, 5), d)
    return s


def strat_table(seed, d_choices=(F(0),)):
    """A reproducible pseudo-random function of the whole transcript (parameters change every step)."""
    import random

    def s(path):
        rnd = random.Random(f"{seed}-{path}")
        return (rnd.choice(KEEPS), rnd.choice(d_choices))
    return s


STRATEGIES = {
    "homogeneous": strat_homogeneous(F(2, 3)),
    "chasing": strat_chasing(),
    "table1": strat_table(1),
    "table2": strat_table(2),
}
LAMS = ("1.001", "1.5", "2", "4", "16", "64")


# ---------------------------------------------------------------------------
# The stopping rule
# ---------------------------------------------------------------------------

def naive_stop(rhos, deltas, rho, delta):
    """N = inf{n >= 0: rho < sum_{m<=n+1} rho_m or delta < sum_{m<=n+1} delta_m} (capped at len)."""
    for n in range(len(rhos)):
        if rho < sum(rhos[: n + 1], F(0)) or delta < sum(deltas[: n + 1], F(0)):
            return n
    return len(rhos)


fracs = st.fractions(min_value=0, max_value=2, max_denominator=10**6)
small_d = st.fractions(min_value=0, max_value=F(1, 10), max_denominator=10**9)


@given(st.lists(st.tuples(fracs, small_d), min_size=1, max_size=30),
       st.fractions(min_value=F(1, 10**9), max_value=10, max_denominator=10**9),
       st.fractions(min_value=0, max_value=1, max_denominator=10**9))
@example([(F(1, 2), F(0)), (F(1, 2), F(0))], F(1), F(0))          # exact tie: both admitted
@example([(F(1, 2), F(1, 10**300))], F(1), F(0))                 # tiny delta_n > delta = 0: refused
@example([(F(10**6), F(0))], F(1, 10**9), F(1, 10**300))
def test_stop_index_is_the_printed_inf(steps, rho, delta):
    """N = inf{n: rho < sum_{m<=n+1} rho_m or delta < sum_{m<=n+1} delta_m}: library == naive rational rule == ZCDPFilter."""
    rhos, deltas = [s[0] for s in steps], [s[1] for s in steps]
    n = W.zcdp_filter_stop_index(rhos, deltas, rho, delta)
    assert n == naive_stop(rhos, deltas, rho, delta)
    f = ZCDPFilter(rho, delta)
    k = 0
    for r, d in steps:
        if not f.try_run(r, d):
            break
        k += 1
    assert k == n
    # the admitted prefix respects both budgets (that is what the theorem needs)
    assert sum(rhos[:n], F(0)) <= rho and sum(deltas[:n], F(0)) <= delta


def test_stop_index_catalog_ids_agree():
    """whitehouse2023_thm1_stop_index evaluates the same rule as whitehouse2022_thm7_stop_index."""
    from reference import catalog
    kw = dict(rhos="1/10,1/5,3/10,1/10", deltas="0,1e-9,0,0", rho="1/2", delta="1e-6")
    a = catalog.get("whitehouse2023_thm1_stop_index")(**kw)
    b = catalog.get("whitehouse2022_thm7_stop_index")(**kw)
    assert a == b == 2


def test_filter_billion_rounds_resumed_from_json():
    """10^9 rounds of rho_n = 10^-9 fill rho = 1 exactly; round 10^9 + 1 is refused (rho < sum_{m<=n+1} rho_m)."""
    f = ZCDPFilter(1, F(1, 10**6))
    d = f.to_dict()
    body = {k: v for k, v in d.items() if k != "digest"}
    body["state"] = {"n": 10**9, "rho_spent": "1", "delta_spent": "1/1000000000000"}
    body["history"] = [["1/1000000000", "1/1000000000000000000000", 10**9]]
    body["digest"] = _digest(body)
    g = ZCDPFilter.from_dict(body)
    assert g.n == 10**9
    assert not g.can_run(F(1, 10**9), 0)
    assert g.can_run(0, F(1, 10**6) - F(1, 10**12))
    assert not g.can_run(0, F(1, 10**6) - F(1, 10**12) + F(1, 10**300))


def test_bad_inputs_name_the_parameter():
    with pytest.raises(ValueError, match="rho"):
        W.zcdp_filter_stop_index([F(1)], [F(0)], 0, 0)
    with pytest.raises(ValueError, match="delta"):
        W.zcdp_filter_stop_index([F(1)], [F(0)], 1, 2)
    with pytest.raises(ValueError, match="rhos"):
        W.zcdp_filter_stop_index([F(-1)], [F(0)], 1, 0)
    with pytest.raises(ValueError, match="rho"):
        ZCDPFilter(-1, 0)


# ---------------------------------------------------------------------------
# The guarantee (5) on adaptive randomized response, exactly
# ---------------------------------------------------------------------------

RHO = F(1)


@pytest.mark.parametrize("name", sorted(STRATEGIES))
def test_stopped_pure_parts_satisfy_renyi_bound_both_directions(name):
    """max{D_lam(P'_{1:N} || Q'_{1:N}), D_lam(Q'_{1:N} || P'_{1:N})} <= rho lam for lam in {1.001, ..., 64} (eq. (5))."""
    with mpmath.workdps(DPS):
        paths = enumerate_stopped(STRATEGIES[name], RHO, F(0), horizon=10)
        assert max(r["n"] for r in paths) >= 2
        for lam in LAMS:
            for rev in (False, True):
                assert renyi(paths, lam, rev) <= q2m(RHO) * mpmath.mpf(lam)


@pytest.mark.parametrize("name", ["chasing", "table1"])
def test_negative_control_filter_without_lookahead_is_caught(name):
    """Checking sum_{m<=n} rho_m <= rho (no look-ahead to n+1) overshoots: D_lam > rho lam near lam = 1."""
    with mpmath.workdps(DPS):
        paths = enumerate_stopped(STRATEGIES[name], RHO, F(0), horizon=10, lookahead=False)
        assert renyi(paths, "1.001") > q2m(RHO) * mpmath.mpf("1.001")


@pytest.mark.parametrize("seed", [3, 4])
def test_approximate_decomposition_of_the_stopped_composition(seed):
    """A_{1:N}(x) = (1 - delta) P' + delta P'' with P'' >= 0 a law (exact), and (5) for P', Q' (delta_n change every step)."""
    delta = F(1, 20)
    strat = strat_table(seed, d_choices=(F(0), F(1, 100), F(1, 50)))
    paths = enumerate_stopped(strat, RHO, delta, horizon=5)
    pure = [r for r in paths if r["Pp"] is not None]
    # P' and Q' are probability laws of the stopped process
    assert sum(r["Pp"] for r in pure) == 1 and sum(r["Qp"] for r in pure) == 1
    assert sum(r["P"] for r in paths) == 1 and sum(r["Q"] for r in paths) == 1
    # P'' = (P - (1-delta) P')/delta is nonnegative on every path and sums to one
    for r in paths:
        pp = r["Pp"] if r["Pp"] is not None else F(0)
        qp = r["Qp"] if r["Qp"] is not None else F(0)
        assert r["P"] - (1 - delta) * pp >= 0
        assert r["Q"] - (1 - delta) * qp >= 0
        assert r["delta_sum"] <= delta and r["rho_sum"] <= RHO
    with mpmath.workdps(DPS):
        for lam in LAMS:
            for rev in (False, True):
                assert renyi(paths, lam, rev) <= q2m(RHO) * mpmath.mpf(lam)


@pytest.mark.parametrize("name", ["chasing", "table2"])
def test_implied_dp_guarantee_via_lemma1(name):
    """Theorem 1 + Lemma 1: the stopped composition is (rho + 2 sqrt(rho log(1/delta')), delta + (1-delta) delta')-DP.

    Checked on the exact hockey-stick divergence of the full stopped laws (delta_n > 0 steps included).
    """
    delta = F(1, 50)
    strat = strat_table(7, d_choices=(F(0), F(1, 200))) if name == "table2" else strat_chasing(F(1, 200))
    paths = enumerate_stopped(strat, RHO, delta, horizon=5)
    with mpmath.workdps(DPS):
        for dp in (F(1, 10), F(1, 1000)):
            eps = W.zcdp_to_dp_eps(RHO, dp, dps=40)
            bound = W.zcdp_to_dp_delta(delta, dp, dps=40)
            hs = hockey_stick_paths(paths, eps)
            assert 0 <= hs <= bound


# ---------------------------------------------------------------------------
# Adaptive Gaussian mechanism (continuous outputs): mpmath.quad and a closed form
# ---------------------------------------------------------------------------

def gaussian_stopped_renyi(mu1, mu_hi, mu_lo, c, rho, lam, *, quad):
    """D_lam of the stopped 2-step adaptive Gaussian composition (unit variance, x' has means 0).

    Step 1: N(mu1, 1).  Step 2 mean mu_hi if y1 > c else mu_lo, run only if the filter
    admits (mu1^2 + mu2^2)/2 <= rho.  Uses E_P[(p/q)^(lam-1) | y1] = exp(lam(lam-1) mu2^2/2).
    """
    lam = mpmath.mpf(lam)
    r1 = F(mu1) ** 2 / 2

    def g(mu2):
        r2 = F(mu2) ** 2 / 2
        return mpmath.exp(lam * (lam - 1) * q2m(r2)) if r1 + r2 <= rho else mpmath.mpf(1)

    m1 = q2m(mu1)
    if quad:
        dens = lambda y: mpmath.npdf(y, m1) ** lam * mpmath.npdf(y, 0) ** (1 - lam)
        cc = q2m(c)
        s = mpmath.quad(dens, [-mpmath.inf, cc]) * g(mu_lo) + mpmath.quad(dens, [cc, mpmath.inf]) * g(mu_hi)
    else:
        # phi(y - mu)^lam phi(y)^(1-lam) = phi(y - lam mu) exp(lam (lam-1) mu^2/2)
        base = mpmath.exp(lam * (lam - 1) * m1 ** 2 / 2)
        up = 1 - mpmath.ncdf(q2m(c) - lam * m1)
        s = base * ((1 - up) * g(mu_lo) + up * g(mu_hi))
    return mpmath.log(s) / (lam - 1)


@settings(max_examples=15)
@given(st.fractions(min_value=F(1, 10), max_value=F(3, 2), max_denominator=100),
       st.fractions(min_value=0, max_value=F(3, 2), max_denominator=100),
       st.fractions(min_value=0, max_value=F(3, 2), max_denominator=100),
       st.fractions(min_value=-2, max_value=2, max_denominator=10),
       st.sampled_from(["1.01", "2", "5"]))
@example(F(1), F(1), F(1, 10), F(0), "2")
def test_adaptive_gaussian_stopped_renyi_bound(mu1, mu_hi, mu_lo, c, lam):
    """D_lam(P_{1:N} || Q_{1:N}) <= rho lam for an adaptive Gaussian composition (delta = 0), closed form == quad."""
    rho = F(1)
    if F(mu1) ** 2 / 2 > rho:
        return
    with mpmath.workdps(30):
        a = gaussian_stopped_renyi(mu1, mu_hi, mu_lo, c, rho, lam, quad=False)
        b = gaussian_stopped_renyi(mu1, mu_hi, mu_lo, c, rho, lam, quad=True)
        assert abs(a - b) <= mpmath.mpf(10) ** -15 * (1 + abs(a))   # two routes to the same number
        # one-sided: the Gaussian is tight (equality when every branch exhausts rho), so allow
        # only the 30-digit rounding above the bound, never below-the-bound slack
        assert a <= q2m(rho) * mpmath.mpf(lam) * (1 + mpmath.mpf(10) ** -25)


def test_adaptive_gaussian_negative_control_unfiltered():
    """Running step 2 regardless of the budget (rho_1 + rho_2 > rho on one branch) violates D_lam <= rho lam."""
    with mpmath.workdps(30):
        lam = mpmath.mpf(2)
        m1, m2 = mpmath.mpf(1), mpmath.mpf(2)
        base = mpmath.exp(lam * (lam - 1) * m1 ** 2 / 2)
        up = 1 - mpmath.ncdf(0 - lam * m1)
        s = base * ((1 - up) + up * mpmath.exp(lam * (lam - 1) * m2 ** 2 / 2))
        assert mpmath.log(s) / (lam - 1) > 1 * lam
