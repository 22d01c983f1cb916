"""rogers2016 (seed 003_05a378efbd63455f.txt) Lemma 6.4 (advanced odometer for a beta fixed in advance).

For delta_g in (0, 1/e) and any beta > 0 fixed before the interaction, COMP = inf if sum delta_i > delta_g/2, else
    sum_j eps_j (e^eps_j - 1)/2 + sqrt(2 (V + beta)(1 + log(V/beta + 1)/2) log(2/delta_g)),  V = sum eps_i^2,
is a valid privacy odometer (Theorem 4.3 at delta_g/2 with U^2 = 4V, Lemma 4.4, Lemma 3.5 with delta'_g = delta_g/2).

Routes: the 110-digit naive formula (Theorem 4.3 radius + Lemma 4.4 sum); exact enumeration of hypothesis-generated
adaptive adversaries (eps_i, delta_i changing every round) for the bad event |Loss| > COMP; the Markov law of
Algorithm 5.  Negative control: the same odometer with its square root scaled by 1/5 is caught.
"""
from __future__ import annotations

import math
from fractions import Fraction as F

import mpmath
from hypothesis import example, given
from hypothesis import strategies as st

from reference.bounds import rogers2016 as R
from reference.simulate import rogers2016_games as G
from reference.precision import mpf_to_fraction
from test_rogers2016_definitions import codes_st, table_adversary

X = mpf_to_fraction
mp = lambda q: mpmath.mpf(q.numerator) / q.denominator


@given(st.lists(st.sampled_from([F(0), F(1, 10**6), F(1, 10), F(1), F(3)]), min_size=1, max_size=6),
       st.sampled_from([F(1, 10**12), F(1, 100), F(1), F(10)]), st.sampled_from([F(1, 10**300), F(1, 10**6), F(36, 100)]))
@example([F(3)] * 6, F(1, 10**12), F(1, 10**300))
def test_value_is_theorem4_3_plus_lemma4_4(es, beta, dg):
    """Lemma 6.4 (delta_i = 0) = sum eps(e^eps - 1)/2 + Theorem 4.3 radius at (4V, beta, delta_g/2), 1e-45 relative, rounded up."""
    V = sum(mp(x) ** 2 for x in es)
    M = sum(mp(x) * mpmath.expm1(mp(x)) / 2 for x in es)
    want = M + mpmath.sqrt((V + mp(beta)) * (2 + mpmath.log(V / mp(beta) + 1)) * mpmath.log(2 / mp(dg)))
    got = R.lemma6_4_odometer(es, [0] * len(es), dg, beta)
    assert want <= got <= want * (1 + mpmath.mpf(10) ** -45)
    past = [dg / 2 + F(1, 10**400)] + [0] * (len(es) - 1)  # the printed Lemma 3.5 threshold: inf past delta_g/2
    assert R.lemma6_4_odometer(es, past, dg, beta, lemma3_5_as_printed=True) == math.inf


@given(codes_st, st.sampled_from([F(1, 100), F(1, 4), F(2)]))
@example([3, 3, 7, 3], F(1, 100))
def test_valid_on_adaptive_adversaries_exact(codes, beta):
    """Lemma 6.4: P_{V^0}[|Loss| > COMP] <= delta_g = 1/3 (exact enumeration, 5 rounds, parameters chosen from the history)."""
    dg = F(1, 3)
    spec = R.OdometerSpec("lemma6_4", delta_g=dg, beta=beta)
    paths = G.enumerate_views(table_adversary(codes, 5), 5, 0)
    lo, hi = G.probability(paths, lambda p: spec.exceeded(p.loss, R.EpsStats.of(p.transcript.eps), p.transcript.delta_sum))
    assert X(lo) <= dg and X(hi) <= dg + F(1, 10**55)


def test_valid_against_algorithm5_and_negative_control():
    """Against Algorithm 5 (eps = 1/10, 60 rounds) the bad-event probability is <= delta_g; a root scaled by 1/5 fails."""
    dg, beta = F(1, 10), F(1, 2)
    adv = G.StoppingTimeAdversary(F(1, 10), dg, F(1, 2), 60)
    law = G.markov_stopped_law(adv)
    spec = R.OdometerSpec("lemma6_4", delta_g=dg, beta=beta)
    c = G.iv_context(200)
    fail = sum((p for (l, V, n), p in law.items() if spec.exceeded(l, R.EpsStats({F(1, 10): n}) if n else R.EpsStats())), c.mpf(0))
    assert X(G._ends(fail)[1]) <= dg
    bad = c.mpf(0)
    for (l, V, n), p in law.items():
        M = n * mp(F(1, 10)) * mpmath.expm1(mpmath.mpf(1) / 10) / 2
        root = mpmath.sqrt((mp(V) + mp(beta)) * (2 + mpmath.log(mp(V) / mp(beta) + 1)) * mpmath.log(2 / mp(dg)))
        if abs(mp(l)) > M + root / 5 + mpmath.mpf(10) ** -50:
            bad += p
    assert X(G._ends(bad)[0]) > dg
