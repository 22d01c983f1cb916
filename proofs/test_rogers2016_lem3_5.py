"""rogers2016 (seed 003_05a378efbd63455f.txt) Lemma 3.5 (from delta_i = 0 to delta_i >= 0).

Odometer: if COMP~_{delta_g} is valid when every delta_i = 0, then COMP_{delta_g + delta'_g} = inf if
sum_i delta_i > delta'_g, else COMP~_{delta_g}(eps_1, 0, ..., eps_k, 0), is valid: P_{V^0}[|Loss| > COMP] <= delta_g + delta'_g.
Filter: likewise HALT if sum_i delta_i > delta'_g, else the pure filter's answer, valid for (eps_g, delta_g + delta'_g).
Proof steps checked: the coupling (z~ ~ RR_eps(0), z = z~ w.p. 1 - delta else 0) has the law RR_{eps,delta}(0); and
eq. (7): P[W in F and V in G_k] <= sum_v P[V~ = v] sum_{t: sum_{i<=t} delta_i <= delta'_g} delta_t(v_{<t}) <= delta'_g.

Routes: exact enumeration of adaptive delta-spending adversaries (hypothesis-generated tables); eq. (7)'s right-hand
side computed from the modified (pure) game, independently of the library's discrepancy probability.
Negative control: dropping the delta test (the pure odometer applied to delta_i > 0) is caught.
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
UP = lambda x: X(G._ends(x)[1])


@given(st.fractions(0, 20, max_denominator=20), st.sampled_from([F(0), F(1, 10**300), F(1, 3), F(99, 100)]))
def test_coupling_samples_rr_eps_delta(eps, d):
    """Proof of Lemma 3.5: drawing z~ from RR_eps(0) and keeping it w.p. 1 - delta (else z = 0) gives
    P[z = 0] = delta, P[z = top] = (1 - delta) e^eps/(1 + e^eps), P[z = bot] = (1 - delta)/(1 + e^eps) (exact affine form)."""
    pure = R.rr_output_law_affine(eps, 0, 0)
    coupled = {z: ((1 - d) * a, (1 - d) * c) for z, (a, c) in pure.items()}
    coupled[0] = (coupled[0][0] + d, coupled[0][1])
    assert coupled == R.rr_output_law_affine(eps, d, 0)


@given(codes_st, st.sampled_from([F(0), F(1, 50), F(1, 20)]))
@example([2, 4, 2, 4], F(1, 50))
def test_eq7_discrepancy_is_at_most_delta_prime(codes, dpg):
    """Eq. (7): P[W in F and V in G_k] <= sum_v P[V~ = v] sum_{t in G} delta_t(v_{<t}) <= delta'_g (exact; the middle
    term from the pure game's enumeration)."""
    adv = table_adversary(codes, 4)
    lo, hi = G.lemma3_5_discrepancy_probability(adv, 4, dpg)
    c = G.iv_context(200)
    rhs = c.mpf(0)
    for p in G.enumerate_views(adv, 4, 0, pure=True):
        acc, w = F(0), F(0)
        for r in p.transcript:
            acc += r.delta
            if acc <= dpg:
                w += r.delta
        if w:
            rhs += p.prob * c.mpf(w.numerator) / w.denominator
    assert X(hi) <= UP(rhs) + F(1, 10**55)
    assert UP(rhs) <= dpg + F(1, 10**55)


SPECS = [("basic", {"delta_prime_g": F(1, 50)}, F(1, 50)),
         ("lemma6_4", {"delta_g": F(1, 10), "beta": F(1, 4)}, F(1, 10)),
         ("thm6_5", {"delta_g": F(1, 10), "n": 3}, F(1, 10))]


@pytest.mark.parametrize("kind, params, fail", SPECS, ids=[s[0] for s in SPECS])
@given(codes=codes_st)
def test_extended_odometers_are_valid(kind, params, fail, codes):
    """Lemma 3.5 (odometer): P_{V^0}[|Loss| > COMP_{delta_g + delta'_g}] <= delta_g + delta'_g (exact enumeration;
    basic: delta_g = 0; Lemma 6.4 / Theorem 6.5: delta_g/2 + delta'_g = delta_g/2)."""
    spec = R.OdometerSpec(kind, **params)
    adv = table_adversary(codes, 4)
    paths = G.enumerate_views(adv, 4, 0)
    lo, hi = G.probability(paths, lambda p: spec.exceeded(p.loss, R.EpsStats.of(p.transcript.eps), p.transcript.delta_sum))
    assert X(lo) <= fail and X(hi) <= fail + F(1, 10**55)


@given(codes_st, st.sampled_from([F(1, 2), F(1), F(2)]))
def test_extended_filter_is_valid(codes, eg):
    """Lemma 3.5 (filter): lemma3_5_filter(pure basic filter, delta'_g) in Algorithm 3 has
    P[|Loss| > eps_g and CONT] <= 0 + delta'_g (exact enumeration)."""
    dpg = F(1, 30)
    filt = R.lemma3_5_filter(lambda es: sum(es) <= eg, dpg)
    adv = table_adversary(codes, 5)
    paths = G.enumerate_views(adv, 5, 0, filt)
    lo, hi = G.probability(paths, lambda p: p.loss == math.inf or abs(p.loss) > eg)
    assert X(lo) <= dpg and X(hi) <= dpg + F(1, 10**55)


def test_negative_control_without_the_delta_test():
    """The pure basic odometer sum eps_i applied with delta_i > 0 and no delta budget fails with probability > delta'_g."""
    adv = G.FixedScheduleAdversary([(F(1, 10), F(1, 20))] * 3)
    paths = G.enumerate_views(adv, 3, 0)
    lo, _ = G.probability(paths, lambda p: p.loss == math.inf or abs(p.loss) > sum(p.transcript.eps))
    assert X(lo) > F(1, 20)  # 1 - (19/20)^3 = 0.142...
    spec = R.OdometerSpec("basic", delta_prime_g=F(1, 20))
    _, hi = G.probability(paths, lambda p: spec.exceeded(p.loss, R.EpsStats.of(p.transcript.eps), p.transcript.delta_sum))
    assert X(hi) <= F(1, 20) + F(1, 10**55)
