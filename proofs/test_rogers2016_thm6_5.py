"""rogers2016 (seed 003_05a378efbd63455f.txt) Theorem 6.5 (advanced privacy odometer), eqs. (17)/(18), and the
granularity remark.

COMP = inf if sum delta_i > delta_g/2; else, with V = sum eps_i^2, M = sum eps_i (e^eps_i - 1)/2, F = log(4 log2(n)/delta_g):
    (17) V in [1/n^2, 1]:  M + 2 sqrt(V (1 + log sqrt 3) F);     (18) otherwise:  M + sqrt(2 (1/n^2 + V)(1 + log(1 + n^2 V)/2) F).
Corrected (ledger R16-THM6-5-UNION: "proof gap; statement not refuted"): F = log(2 m/delta_g) with m = ceil(log2 n^2)
grid points; equal to the print iff n is a power of 2.  Granularity: 1/n^2 -> gamma, log2(n^2) -> log2(1/gamma);
eps_1 >= delta_g allows gamma = delta_g^2.  Section 1.1: the bound is worse than advanced composition by a factor
O(sqrt(log log n)), and only a constant when delta_g <= 1/n.

Routes: the corrected odometer holds EXACTLY against Algorithm 5 (several parameters; Markov law) and against
hypothesis-generated adaptive adversaries (full enumeration), also simultaneously over all rounds (crossing DP);
the printed odometer holds on the same adversaries (the ledger's gap is in the proof, not a counterexample);
(17)/(18) = Lemma 6.4 at the grid beta with delta_g/(2m) (110-digit naive formula); closed forms at n = 1e9.
Negative control: the odometer without its log factor F and with its root shrunk by 5 is caught.
"""
from __future__ import annotations

import math
from fractions import Fraction as F

import mpmath
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from reference.bounds import rogers2016 as R
from reference.simulate import rogers2016_games as G
from reference.precision import mpf_to_fraction
from test_rogers2016_definitions import codes_st, table_adversary

X = mpf_to_fraction
mp = lambda q: mpmath.mpf(q.numerator) / q.denominator
UP = lambda x: X(G._ends(x)[1])


def naive(es, dg, n, printed=False):
    V = sum(mp(x) ** 2 for x in es)
    M = sum(mp(x) * mpmath.expm1(mp(x)) / 2 for x in es)
    m = math.ceil(math.log2(n * n)) if (n * n) & (n * n - 1) else (n * n).bit_length() - 1
    Fv = mpmath.log(4 * mpmath.log(n) / mpmath.log(2) / mp(dg)) if printed else mpmath.log(2 * m / mp(dg))
    g = mpmath.mpf(1) / (n * n)
    if F(1, n * n) <= sum(x * x for x in es) <= 1:  # the case split is decided exactly (V = 1/n^2 is eq. (17))
        return M + 2 * mpmath.sqrt(V * (1 + mpmath.log(mpmath.sqrt(3))) * Fv)
    return M + mpmath.sqrt(2 * (g + V) * (1 + mpmath.log(1 + V / g) / 2) * Fv)


@given(st.lists(st.sampled_from([F(0), F(1, 10**6), F(1, 100), F(1, 3), F(1)]), min_size=1, max_size=6),
       st.sampled_from([2, 3, 4, 100, 1000, 10**6, 10**9]), st.sampled_from([F(1, 10**300), F(1, 10**6), F(36, 100)]),
       st.booleans())
@example([F(1)] * 6, 10**9, F(1, 10**300), False)
@example([F(1, 10**6)], 10**9, F(1, 10**6), True)
@example([F(1, 3)], 3, F(1, 10**300), False)  # V = 1/n^2 exactly: eq. (17), not (18)
def test_closed_forms_17_18_two_routes(es, n, dg, printed):
    """Eqs. (17)/(18) (corrected and printed, rounded up) >= the 110-digit naive formulas, within 1e-45 relative."""
    z = [0] * len(es)
    got = (R.advanced_odometer_as_printed if printed else R.advanced_odometer)(es, z, dg, n)
    want = naive(es, dg, n, printed)
    assert want <= got <= want * (1 + mpmath.mpf(10) ** -45)


@given(st.lists(st.sampled_from([F(1, 100), F(1, 10), F(1, 3), F(1, 2)]), min_size=1, max_size=5),
       st.sampled_from([3, 5, 100, 1000]), st.sampled_from([F(1, 10**6), F(1, 10)]))
def test_eq17_is_lemma6_4_at_the_grid_point(es, n, dg):
    """Proof of Theorem 6.5: for V in [1/n^2, 1] there is a grid beta with V/2 <= beta <= V; Lemma 6.4 at that beta with
    delta_g/m per point is <= (17) (corrected); union: m points at delta_g/(2m) each fail with total delta_g/2."""
    V = sum(x * x for x in es)
    if not (F(1, n * n) <= V <= 1):
        return
    grid = R.beta_grid(F(1, n * n))
    beta = max(b for b in grid if b <= V)
    assert V / 2 <= beta <= V
    m = len(grid)
    lem = R.lemma6_4_odometer(es, [0] * len(es), dg / m, beta)  # Theorem 4.3 at (delta_g/m)/2 = delta_g/(2m)
    assert lem <= R.advanced_odometer(es, [0] * len(es), dg, n)


ALG5 = [(F(1, 10), F(1, 10), F(1, 2), 60), (F(1, 100), F(1, 10), F(27, 25), 200), (F(1, 4), F(1, 20), F(1, 2), 40)]


@pytest.mark.parametrize("eps, dg, C, n", ALG5)
def test_corrected_and_printed_hold_against_algorithm5(eps, dg, C, n):
    """Theorem 6.5 against the stopping time adversary (exact Markov law): P[|Loss| > COMP] <= delta_g for the corrected
    and for the printed odometer (the printed one is not refuted; ledger R16-THM6-5-UNION is a proof gap)."""
    law = G.markov_stopped_law(G.StoppingTimeAdversary(eps, dg, C, n))
    c = G.iv_context(200)
    for kind in ("thm6_5", "thm6_5_as_printed"):
        spec = R.OdometerSpec(kind, delta_g=dg, n=n)
        fail = sum((p for (l, V, m), p in law.items() if spec.exceeded(l, R.EpsStats({eps: m}) if m else R.EpsStats())), c.mpf(0))
        assert UP(fail) <= dg


@given(codes_st, st.sampled_from([2, 3, 7]))
@example([6, 6, 6, 6], 3)
def test_corrected_holds_on_adaptive_adversaries_with_deltas(codes, n):
    """Theorem 6.5 (with Lemma 3.5's delta budget delta_g/2) against adaptive adversaries, eps_i/delta_i changing every
    round: P[|Loss| > COMP] <= delta_g = 1/5 (full enumeration, 5 rounds)."""
    dg = F(1, 5)
    paths = G.enumerate_views(table_adversary(codes, 5), 5, 0)
    for kind in ("thm6_5", "thm6_5_as_printed"):
        spec = R.OdometerSpec(kind, delta_g=dg, n=n)
        lo, hi = G.probability(paths, lambda p: spec.exceeded(p.loss, R.EpsStats.of(p.transcript.eps), p.transcript.delta_sum))
        assert X(lo) <= dg and X(hi) <= dg + F(1, 10**55)


def test_running_bound_simultaneously_over_rounds():
    """Section 1.1's reading "with probability 1 - delta_g, for every round i, tau_i bounds the loss": the probability that
    the loss crosses the corrected odometer at SOME round (absorbing DP, 60 rounds of eps alternating 1/5, 1/20) is <= delta_g."""
    dg, n = F(1, 10), 8
    spec = R.OdometerSpec("thm6_5", delta_g=dg, n=n)
    c = G.iv_context(200)
    level, crossed, st_ = {F(0): c.mpf(1)}, c.mpf(0), R.EpsStats()  # the schedule is fixed, so the stats depend on i only
    for i in range(60):
        e = F(1, 5) if i % 2 == 0 else F(1, 20)
        up = 1 / (1 + c.exp(-c.mpf(e.numerator) / e.denominator))
        st_ = st_.plus(e)
        nxt = {}
        for l, p in level.items():
            for dl, w in ((e, up), (-e, 1 - up)):
                if spec.exceeded(l + dl, st_):
                    crossed += p * w
                else:
                    nxt[l + dl] = nxt.get(l + dl, c.mpf(0)) + p * w
        level = nxt
    assert UP(crossed) <= dg


def test_negative_control_without_the_log_factor():
    """The odometer M + (2/5) sqrt(V (1 + log sqrt 3)) (F dropped, root shrunk) is exceeded with probability > delta_g against Algorithm 5."""
    eps, dg, n = F(1, 10), F(1, 10), 60
    law = G.markov_stopped_law(G.StoppingTimeAdversary(eps, dg, F(1, 2), n))
    c = G.iv_context(200)
    bad = c.mpf(0)
    for (l, V, m), p in law.items():
        b = m * mp(eps) * mpmath.expm1(mp(eps)) / 2 + 2 * mpmath.sqrt(mp(V) * (1 + mpmath.log(mpmath.sqrt(3)))) / 5
        if mp(abs(l)) > b + mpmath.mpf(10) ** -50:
            bad += p
    assert X(G._ends(bad)[0]) > dg


@given(st.sampled_from([10, 1000, 10**6, 10**9]), st.sampled_from([F(1, 10**300), F(1, 10**6), F(1, 10)]))
def test_factor_over_advanced_composition_is_O_sqrt_loglog_n(n, dg):
    """Section 1.1: (17)'s root over sqrt(2 V log(1/delta_g)) is sqrt(2 (1 + log sqrt 3) F/L) <= sqrt(3.1 (1 + log(4 log2 n)))
    (L = log(1/delta_g) >= 1), and <= sqrt(3.1 (1 + log(4 log2 n)/log n)) = O(1) when delta_g <= 1/n."""
    L = mpmath.log(1 / mp(dg))
    Fv = mpmath.log(4 * mpmath.log(n) / mpmath.log(2) / mp(dg))
    ratio = mpmath.sqrt(4 * (1 + mpmath.log(mpmath.sqrt(3))) * Fv / (2 * L))
    assert ratio <= mpmath.sqrt(mpmath.mpf("3.1") * (1 + mpmath.log(4 * mpmath.log(n) / mpmath.log(2))))
    if mp(dg) <= mpmath.mpf(1) / n:
        assert ratio <= mpmath.sqrt(mpmath.mpf("3.1") * (1 + mpmath.log(4 * mpmath.log(n) / mpmath.log(2)) / mpmath.log(n)))


def test_granularity_remark():
    """Remark: gamma = 1/n^2 reproduces Theorem 6.5; gamma = delta_g^2 is allowed when eps_1 >= delta_g (V >= eps_1^2 >= gamma);
    the corrected grid has max(1, ceil(log2(1/gamma))) points and equals the printed log2(1/gamma) iff 1/gamma is a power of 2."""
    es, z = [F(1, 10), F(1, 5)], [0, 0]
    assert R.advanced_odometer_granular(es, z, "1e-6", F(1, 100**2)) == R.advanced_odometer(es, z, "1e-6", 100)
    dg = F(1, 10**3)
    es2 = [dg, F(1, 50)]
    assert sum(x * x for x in es2) >= dg * dg
    assert R.advanced_odometer_granular(es2, z, dg, dg * dg) < math.inf
    for g in (F(1, 16), F(1, 9), F(1, 10**6)):
        m = len(R.beta_grid(g))
        assert m == max(1, math.ceil(math.log2(1 / g) - 1e-12)) and 2**m * g >= 1 > 2 ** (m - 1) * g
    same = R.advanced_odometer_granular(es, z, "1e-6", F(1, 16)) == R.advanced_odometer_granular_as_printed(es, z, "1e-6", F(1, 16))
    assert same
