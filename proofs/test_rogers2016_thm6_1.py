"""rogers2016 (seed 003_05a378efbd63455f.txt) Theorem 6.1 (no odometer matches advanced composition on realized parameters).

For delta_g in (0, O(1)) there is no valid odometer of the form
    COMP_{delta_g}(eps_1, 0, ..., eps_k, 0) = sum_i eps_i (e^eps_i - 1)/(e^eps_i + 1) + o(sqrt(sum_i eps_i^2 log(log(n)/delta_g)))   (13).

The statement is asymptotic; the test demonstrates it exactly at finite n with Algorithm 5 (the proof's adversary,
eps = 1/n, k = n rounds, rogers_games.StoppingTimeAdversary): the odometer "advanced composition at the realized
parameters", sum eps tanh(eps/2) + sqrt(2 V log(1/delta_g)) (of the excluded order: sqrt(V log(1/delta_g)) is
o(sqrt(V log(log n/delta_g)))), fails with probability > delta_g, and its failure probability grows with n (the
log log n effect).  The proof's identity sum_j (X_j - mu_n/n) = M_t/n (mu_n = tanh(1/(2n))) is checked on every
stopped state, and (13)'s leading term is the exact mean privacy loss of RR_eps.  The corrected Theorem 6.5 odometer
holds on the same adversary.  (Its proof relies on Lemma 6.3, whose proof has a gap: ledger R16-LEM6-3-PROOF-EQ.)
"""
from __future__ import annotations

from fractions import Fraction as F

import mpmath
import pytest

from reference.bounds import rogers2016 as R
from reference.simulate import rogers2016_games as G
from reference.bounds import whitehouse2023 as W
from reference.precision import mpf_to_fraction

X = mpf_to_fraction


def failure(n: int, dg: F, C: F):
    eps = F(1, n)
    adv = G.StoppingTimeAdversary(eps, dg, C, n)
    law = G.markov_stopped_law(adv)
    c = G.iv_context(200)
    heur = {}
    fail, thm = c.mpf(0), c.mpf(0)
    spec = R.OdometerSpec("thm6_5", delta_g=dg, n=n)
    mu = mpmath.tanh(mpmath.mpf(1) / (2 * n))
    for (loss, V, m), p in law.items():
        if m not in heur:
            heur[m] = X(W.advanced_composition_eps([eps] * m, dg, dps=30)) if m else F(0)
        if loss > heur[m]:  # the heuristic bound is rounded up: a conservative count of its failures
            fail += p
        if spec.exceeded(loss, R.EpsStats({eps: m}) if m else R.EpsStats()):
            thm += p
        # proof identity: loss - m eps mu_n = eps M_m with M_m = (2 j - m) - m mu_n, j = number of tops
        j = (loss / eps + m) / 2
        assert j.denominator == 1
        jj = int(j)
        assert abs(mpmath.mpf(loss.numerator) / loss.denominator - m * mu / n - ((2 * jj - m) - m * mu) / n) < mpmath.mpf(10) ** -90
    return fail, thm


@pytest.mark.parametrize("n", [100, 200])
def test_realized_advanced_composition_is_not_a_valid_odometer(n):
    """Theorem 6.1 at finite n: P_{V^0}[Loss > sum eps tanh(eps/2) + sqrt(2 V log(1/delta_g))] > delta_g = 1/10 against
    Algorithm 5 (eps = 1/n, C = 27/25), exactly; the corrected Theorem 6.5 odometer fails with probability <= delta_g."""
    dg = F(1, 10)
    fail, thm = failure(n, dg, F(27, 25))
    assert X(G._ends(fail)[0]) > dg
    assert X(G._ends(thm)[1]) <= dg


def test_failure_grows_with_n():
    """The heuristic's failure probability increases along n = 50, 100, 200 (0.048 -> 0.103 -> 0.140 at delta_g = 1/10)."""
    dg = F(1, 10)
    vals = [G._ends(failure(n, dg, F(27, 25))[0])[0] for n in (50, 100, 200)]
    assert vals[0] < vals[1] < vals[2]
    assert vals[0] < mpmath.mpf(1) / 10 < vals[1]


def test_leading_term_of_13_is_the_exact_mean_loss():
    """(13)'s sum_i eps_i (e^eps_i - 1)/(e^eps_i + 1) is the exact conditional mean loss of RR_eps (eps tanh(eps/2)), n = 1..1e9."""
    for n in (1, 10, 10**4, 10**9):
        e = F(1, n)
        E = mpmath.mpf(1) / n
        assert abs(W.rr_expected_loss(e) - E * mpmath.expm1(E) / (mpmath.exp(E) + 1)) <= mpmath.mpf(10) ** -45 * E * E
