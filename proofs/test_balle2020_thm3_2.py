"""balle2020 Theorem 3.2 (seed 004_8fba9d9eabe1335c.txt; Balle, Kairouz, McMahan, Thakkar, Thakurta, *Privacy
Amplification via Random Check-Ins*, arXiv 2007.06605; every formula stripped, bound re-derived along the seed's
proof sketch: catalog id balle2020_thm3_2_eps, provenance "re-derived from the described proof").

Statement (our words; the constants are our reconstruction, unverifiable against the published display).  If the
local randomizer is eps0-DP, Algorithm 1 with an ([m], p0)-check-in per client is (eps, delta)-DP for every delta
in (0, 1) with

    eps = p0 (e^eps0 - 1) sqrt(2 e^eps0 log(1/delta) / m) + p0^2 e^eps0 (e^eps0 - 1)^2 / (2m),

independently of n.  "In particular" (regime and constant ours): eps0 <= 1, delta <= 1/100 give
eps <= 6 p0 eps0 sqrt(log(1/delta)/m).  (eps0, delta0) clause: eps' = the bound at 8 eps0,
delta' = delta + m (e^eps' + 1) delta1 (conversion lemma recalled from Cheu et al. 2019, unverified).
Proof-sketch claim: the posterior probability that client 1 is used at step j given the first j-1 outputs is at
most pi_j / (1 - s_j (1 - e^-eps0)) (pi_j = p0/m the prior, s_j = (j-1) p0/m).

Ground truth: the exact privacy curve delta(eps) of Algorithm 1 with randomized response (e^eps0 = E rational),
``reference.verify.checkins_exact`` (dynamic program, cross-checked by brute force over all check-in patterns); every
bound must satisfy delta_exact(eps_bound) <= delta (one-sided, certified).  Negative control: half the bound is
caught.  The helpers ``eps0_of``, ``within``, ``violated`` are reused by the other balle2020 modules.
"""
from __future__ import annotations

import itertools
from fractions import Fraction as F

import mpmath
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from reference.bounds import balle2020 as B
from reference.verify import checkins_exact as X
from reference.precision import certified, compare_exp_rational, mpf_to_fraction, to_exact


def eps0_of(E) -> F:
    """A rational eps0 >= log(E) (upper-rounded): RR with e^eps0 = E is then eps0-LDP."""
    return mpf_to_fraction(certified(lambda c, e: c.log(e), (F(E),), "upper", 40))


def within(pair, eps, delta) -> bool:
    """Certified: the pair is (eps, delta)-indistinguishable in both directions."""
    return mpf_to_fraction(X.privacy_delta(pair, eps)) <= to_exact(delta, "delta")


def violated(pair, eps, delta) -> bool:
    """Certified: the pair is NOT (eps, delta)-indistinguishable."""
    return mpf_to_fraction(X.privacy_delta(pair, eps, direction="lower")) > to_exact(delta, "delta")


ES = st.sampled_from([F(11, 10), F(3, 2), F(2), F(3), F(10)])
DELTAS = st.sampled_from([F(1, 2), F(1, 10), F(1, 1000), F(1, 10**6)])
P0S = st.sampled_from([F(1), F(1, 2), F(1, 10)])


@given(st.integers(1, 3), st.integers(1, 3), P0S, ES, DELTAS)
@example(3, 2, F(1), F(3), F(1, 1000))
@example(1, 1, F(1), F(10), F(1, 2))
@settings(deadline=None, max_examples=12)
def test_theorem_3_2_dominates_exact_algorithm1(n, m, p0, E, delta):
    """delta_exact(eps_bound) <= delta for Algorithm 1, worst case over the other clients' bits and the dummy."""
    eb = B.thm3_2_eps(eps0_of(E), m, p0, delta)
    for k, dummy in itertools.product(range(n), (0, 1, "half")):
        pair = X.Pair(X.fixed_window_masses(n, m, p0, E, 1, k, dummy), X.fixed_window_masses(n, m, p0, E, 0, k, dummy))
        assert within(pair, eb, delta)


@pytest.mark.parametrize("n,m,p0,E,delta", [
    (1, 500, F(1), F(11, 10), F(1, 10**6)),
    (4, 300, F(1, 2), F(3, 2), F(1, 10**12)),
    (1, 400, F(1), F(2), F(1, 10**300)),
])
def test_theorem_3_2_dominates_exact_large_windows(n, m, p0, E, delta):
    """Large windows (closed form with all other bits and the dummy equal to 0): bound and refined bound hold."""
    pair = X.fixed_window_special_masses(n, m, p0, E)
    assert within(pair, B.thm3_2_eps(eps0_of(E), m, p0, delta), delta)
    assert within(pair, B.thm3_2_eps_refined(eps0_of(E), m, p0, delta), delta)


@given(st.fractions(min_value=F(1, 10**6), max_value=1, max_denominator=10**6), st.integers(1, 10**9),
       st.fractions(min_value=F(1, 10**6), max_value=1, max_denominator=10**6),
       st.sampled_from([F(1, 100), F(1, 10**6), F(1, 10**300)]))
@example(F(1), 1, F(1), F(1, 100))
def test_theorem_3_2_in_particular_clause(e0, m, p0, delta):
    """Regime eps0 <= 1, delta <= 1/100 (ours): eps <= 6 p0 eps0 sqrt(log(1/delta)/m) (one-sided, 110 digits)."""
    simple = 6 * mpmath.mpf(p0.numerator) / p0.denominator * mpmath.mpf(e0.numerator) / e0.denominator \
        * mpmath.sqrt(mpmath.log(delta.denominator) / m)
    assert B.thm3_2_eps(e0, m, p0, delta) <= simple * (1 + mpmath.mpf(10) ** -40)
    assert B.thm3_2_eps_simplified(e0, m, p0, delta) >= simple * (1 - mpmath.mpf(10) ** -45)


@pytest.mark.parametrize("m,p0,E", [(3, F(1), F(3)), (4, F(1, 2), F(2)), (5, F(1), F(10))])
def test_theorem_3_2_proof_posterior_bound(m, p0, E):
    """Proof sketch (probable replacement): one client, dummy bit 0, the client holds 1.  Exactly (Bayes over
    all output prefixes), P(client used at step j | y_<j) <= (p0/m) / (1 - (j-1)(p0/m)(1 - 1/E))."""
    p, q = X.rr_probabilities(E)  # P(RR(1) = 1), P(RR(0) = 1)
    for j in range(1, m + 1):
        bound = (p0 / m) / (1 - (j - 1) * (p0 / m) * (1 - 1 / E))
        for y in itertools.product((0, 1), repeat=j - 1):
            # joint of (slot J, prefix y): J = l (prob p0/m) or abstain (1 - p0)
            def lik(l):
                return __import__("math").prod(((p if y[i] else 1 - p) if l == i + 1 else (q if y[i] else 1 - q))
                                               for i in range(j - 1))
            num = (p0 / m) * lik(j)  # used at step j: y_<j all from RR(0)
            den = (1 - p0) * lik(0) + sum((p0 / m) * lik(l) for l in range(1, m + 1))
            assert num / den <= bound


def test_theorem_3_2_approximate_clause_on_an_exact_instance():
    """(eps0, delta0)-RR with delta0 at the admitted maximum: the clause's (eps', delta') holds exactly (one client,
    m = 2 steps, outputs {0, 1, top, bot}); the library raises on a delta0 above the admitted maximum."""
    import math
    m, p0, E, d1 = 2, F(1), F(6, 5), F(1, 10**4)
    e0 = eps0_of(E)
    d0 = mpf_to_fraction(B.cheu_delta0_max(e0, d1))

    def rr_approx(b):
        keep, flip = (1 - d0) * E / (1 + E), (1 - d0) / (1 + E)
        return {b: keep, 1 - b: flip, ("top" if b else "bot"): d0}

    def law(b1):
        A1, A0 = rr_approx(b1), rr_approx(0)
        dist = {}
        for y in itertools.product([0, 1, "top", "bot"], repeat=m):
            base = math.prod(A0.get(v, 0) for v in y)
            pr = (1 - p0) * base + sum(p0 / m * A1.get(y[j], 0) * math.prod(A0.get(v, 0) for l, v in enumerate(y) if l != j)
                                       for j in range(m))
            dist[y] = pr
        return dist

    pair = X.pair_from_dists(law(1), law(0))
    delta = F(1, 10**300)
    ep = B.thm3_2_approx_eps(e0, m, p0, delta)
    assert within(pair, ep, mpf_to_fraction(B.thm3_2_approx_delta(e0, d0, m, p0, delta, d1)))
    with pytest.raises(ValueError, match="delta0"):
        B.thm3_2_approx_delta(e0, 2 * d0 + F(1, 10**30), m, p0, delta, d1)


def test_negative_control_half_the_bound_is_caught():
    E, m, delta = F(11, 10), 1000, F(1, 10**30)
    pair = X.fixed_window_special_masses(1, m, 1, E)
    eb = B.thm3_2_eps(eps0_of(E), m, 1, delta)
    assert within(pair, eb, delta) and violated(pair, eb / 2, delta)


def test_bad_inputs_name_the_parameter():
    with pytest.raises(ValueError, match="p0"):
        B.thm3_2_eps(1, 10, 0, "1e-6")
    with pytest.raises(ValueError, match="m"):
        B.thm3_2_eps(1, 0, 1, "1e-6")
    with pytest.raises(ValueError, match="delta"):
        B.thm3_2_eps(1, 10, 1, 1)
