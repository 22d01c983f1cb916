"""Exact small-case privacy of the check-in protocols (reference/verify/checkins_exact.py) and the bounds of balle2020 against it.

Routes: every exact law is computed twice (dynamic program vs brute-force enumeration
of all check-in patterns; the closed form for Algorithm 1 with bit-0 others is a
third route, and it coincides with the shuffled histogram for one client), and once
against a Monte Carlo run of the protocol code of reference/simulate/checkins.py.

Bounds: each privacy bound must upper-bound the exact privacy it applies to:
``delta_exact(eps_bound) <= delta``.  Randomized response with e^eps0 = E rational is
log(E)-LDP, hence eps0-LDP for the rational eps0 >= log(E) used to evaluate the bounds.
Negative controls: the same comparison must catch a bound divided by 2 and an
(eps0, delta0) clause without its delta1 term.
"""
import itertools
import math
from fractions import Fraction as F

import numpy as np
import pytest

from reference.bounds import balle2020 as B
from reference.simulate import checkins as C
from reference.verify import checkins_exact as X
from reference.precision import certified, mpf_to_fraction, to_exact


def eps0_of(E) -> F:
    """A rational eps0 >= log(E) (upper-rounded at 40 digits)."""
    return mpf_to_fraction(certified(lambda c, e: c.log(e), (F(E),), "upper", 40))


def within(pair: X.Pair, eps, delta) -> bool:
    """Certified check that the pair is (eps, delta)-indistinguishable in both directions."""
    return mpf_to_fraction(X.privacy_delta(pair, eps)) <= to_exact(delta, "delta")


def violated(pair: X.Pair, eps, delta) -> bool:
    """Certified check that the pair is NOT (eps, delta)-indistinguishable."""
    return mpf_to_fraction(X.privacy_delta(pair, eps, direction="lower")) > to_exact(delta, "delta")


def bits_for(b1, k, n):
    return [b1] + [1] * k + [0] * (n - 1 - k)


# ---------------------------------------------------------------------------
# The hockey-stick computation itself
# ---------------------------------------------------------------------------

def test_hockey_stick_at_eps_zero_is_total_variation_exactly():
    """Second route: at eps = 0, H(P||Q) = sum max(0, P - Q) in exact rationals."""
    P = [F(1, 2), F(1, 3), F(1, 6)]
    Q = [F(1, 6), F(1, 3), F(1, 2)]
    pair = X.Pair(P, Q)
    tv = sum(max(0, p - q) for p, q in zip(P, Q))
    assert mpf_to_fraction(X.hockey_stick(pair, 0, direction="lower")) <= tv <= mpf_to_fraction(X.hockey_stick(pair, 0))


def test_hockey_stick_matches_naive_high_precision_sum():
    """Second route: sum max(0, P - e^eps Q) at 100 digits with mpmath (inside the certified enclosure)."""
    import mpmath
    from mpmath.ctx_mp import MPContext
    c = MPContext()
    c.dps = 100
    pair = X.shuffle_masses(30, F(3, 2), 7)
    for eps in (F(0), F(1, 10), F(1, 3), F(2)):
        naive = sum(max(c.mpf(0), c.mpf(p.numerator) / p.denominator - c.exp(c.mpf(eps.numerator) / eps.denominator)
                        * c.mpf(q.numerator) / q.denominator) for p, q in zip(pair.P, pair.Q)) / (
            c.mpf(pair.den.numerator) / pair.den.denominator)
        lo = X.hockey_stick(pair, eps, direction="lower")
        hi = X.hockey_stick(pair, eps)
        assert lo <= mpmath.mpf(naive) * (1 + mpmath.mpf(10) ** -40) + mpmath.mpf(10) ** -60
        assert hi >= mpmath.mpf(naive) * (1 - mpmath.mpf(10) ** -40)


def test_privacy_eps_enclosure_is_certified():
    pair = X.shuffle_masses(50, F(2), 0)
    lo, hi = X.privacy_eps(pair, F(1, 1000), tol=F(1, 10**5))
    assert hi - lo <= F(1, 10**5)
    assert within(pair, hi, F(1, 1000))
    assert lo == 0 or violated(pair, lo, F(1, 1000))


# ---------------------------------------------------------------------------
# Exact laws: two or three routes each
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("n,m,p0,dummy", [(1, 2, F(1, 2), 0), (2, 2, F(1), 0), (3, 2, F(1, 3), "half"),
                                          (2, 3, F(2, 3), 1), (3, 3, F(1), "half")])
def test_fixed_window_dp_equals_bruteforce(n, m, p0, dummy):
    """Algorithm 1: dynamic program == enumeration of all (m+1)^n check-in patterns, exactly."""
    for b1, k in itertools.product((0, 1), range(n)):
        dp = X.fixed_window_masses(n, m, p0, F(3), b1, k, dummy)
        bf = X.fixed_window_masses_bruteforce(n, m, p0, F(3), bits_for(b1, k, n), dummy)
        assert dp == bf
        assert sum(dp) == 1


@pytest.mark.parametrize("n,m,p0", [(1, 1, F(1)), (1, 3, F(1, 2)), (2, 3, F(1)), (4, 2, F(1, 3)), (3, 4, F(3, 4))])
def test_fixed_window_closed_form_equals_dp(n, m, p0):
    """Third route: the closed form (others and dummy hold 0) == the dynamic program."""
    pair = X.fixed_window_special_masses(n, m, p0, F(5, 2))
    P = [x / pair.den for x in pair.P]
    Q = [x / pair.den for x in pair.Q]
    assert P == X.fixed_window_masses(n, m, p0, F(5, 2), 1, 0, 0)
    assert Q == X.fixed_window_masses(n, m, p0, F(5, 2), 0, 0, 0)


@pytest.mark.parametrize("m", [1, 5, 40])
def test_one_client_fixed_window_equals_shuffled_histogram(m):
    """With n = 1 and p0 = 1 Algorithm 1's ones-count is RR(b1) + Bin(m-1, q): the shuffled histogram of m clients."""
    a = X.fixed_window_special_masses(1, m, 1, F(7, 5))
    b = X.shuffle_masses(m, F(7, 5), 0)
    assert [x / a.den for x in a.P] == [x / b.den for x in b.P]
    assert [x / a.den for x in a.Q] == [x / b.den for x in b.Q]


@pytest.mark.parametrize("n,m,p0", [(2, 2, F(1)), (3, 2, F(1)), (2, 3, F(1, 2)), (3, 1, F(2, 3))])
def test_averaged_dp_equals_bruteforce(n, m, p0):
    for b1, k in itertools.product((0, 1), range(n)):
        assert X.averaged_distribution(n, m, F(2), b1, k, p0) == X.averaged_distribution_bruteforce(n, m, F(2), bits_for(b1, k, n), p0)


@pytest.mark.parametrize("n", [1, 2, 4, 6])
def test_shuffle_masses_equal_bruteforce(n):
    for k in range(n):
        pair = X.shuffle_masses(n, F(5, 3), k)
        assert [x / pair.den for x in pair.P] == X.shuffle_masses_bruteforce(n, F(5, 3), bits_for(1, k, n))
        assert [x / pair.den for x in pair.Q] == X.shuffle_masses_bruteforce(n, F(5, 3), bits_for(0, k, n))


def test_sliding_window_with_unit_window_is_a_product():
    """m = 1: client t can only check into step t, so step t releases RR(x_t) w.p. p0, else the dummy, independently."""
    n, p0, E = 3, F(1, 2), F(3)
    p, q = X.rr_probabilities(E)
    bits = [1, 0, 1]
    dist = X.sliding_window_distribution(n, 1, p0, E, bits)
    for y, pr in dist.items():
        want = F(1)
        for t in range(n):
            p1 = p0 * (p if bits[t] else q) + (1 - p0) * q
            want *= p1 if y[t] else 1 - p1
        assert pr == want


# ---------------------------------------------------------------------------
# Exact law vs Monte Carlo of the protocol code (one tiny case each)
# ---------------------------------------------------------------------------

def _hoeffding(N, k, alpha=1e-9):
    return math.sqrt(math.log(2 * k / alpha) / (2 * N))


def test_fixed_window_exact_law_matches_simulation():
    """Algorithm 1, n = 2, m = 2, p0 = 1/2, E = 3: frequencies of the ones-count within Hoeffding at 1e-9; a wrong law is rejected."""
    N = 200_000
    out = C.simulate_rr_outputs("fixed", [1, 0], 2, F(1, 2), math.log(3), N, seed=11)
    freq = np.bincount(out.sum(axis=1), minlength=3) / N
    exact = X.fixed_window_masses(2, 2, F(1, 2), F(3), 1, 0, 0)
    tol = _hoeffding(N, 3)
    assert all(abs(freq[s] - float(exact[s])) <= tol for s in range(3))
    # exchangeability of the exact law, seen in the simulation too
    assert abs(np.mean((out[:, 0] == 1) & (out[:, 1] == 0)) - np.mean((out[:, 0] == 0) & (out[:, 1] == 1))) <= 2 * tol
    wrong = X.fixed_window_masses(2, 2, F(1), F(3), 1, 0, 0)  # negative control: p0 = 1 instead of 1/2
    assert any(abs(freq[s] - float(wrong[s])) > tol for s in range(3))


def test_averaged_and_sliding_exact_laws_match_simulation():
    N = 100_000
    out = C.simulate_rr_outputs("averaged", [1, 0], 2, 1, math.log(2), N, seed=5)
    exact = X.averaged_distribution(2, 2, F(2), 1, 0, 1)
    keys = list(exact)
    tol = _hoeffding(N, len(keys))
    flat = [tuple(map(tuple, row)) for row in out.tolist()]
    from collections import Counter
    cnt = Counter(flat)
    assert sum(cnt.values()) == N and set(cnt) <= set(keys)
    assert all(abs(cnt.get(k, 0) / N - float(exact[k])) <= tol for k in keys)

    out = C.simulate_rr_outputs("sliding", [1, 0, 1], 2, F(1, 2), math.log(3), N, seed=6)
    exact = X.sliding_window_distribution(3, 2, F(1, 2), F(3), [1, 0, 1])
    cnt = Counter(map(tuple, out.tolist()))
    tol = _hoeffding(N, len(exact))
    assert all(abs(cnt.get(k, 0) / N - float(v)) <= tol for k, v in exact.items())


# ---------------------------------------------------------------------------
# Bounds >= exact privacy
# ---------------------------------------------------------------------------

GRID_E = (F(3, 2), F(3))
GRID_DELTA = (F(1, 10), F(1, 1000))


@pytest.mark.parametrize("n,m,p0", [(1, 1, F(1)), (2, 2, F(1, 2)), (3, 2, F(1)), (2, 3, F(1)), (4, 2, F(1, 2))])
def test_thm3_2_dominates_exact_algorithm1_small(n, m, p0):
    """Theorem 3.2 >= exact privacy of Algorithm 1, worst case over datasets (k ones among the others) and dummy records."""
    for E, delta in itertools.product(GRID_E, GRID_DELTA):
        eb = B.thm3_2_eps(eps0_of(E), m, p0, delta)
        for k, dummy in itertools.product(range(n), (0, 1, "half")):
            pair = X.Pair(X.fixed_window_masses(n, m, p0, E, 1, k, dummy), X.fixed_window_masses(n, m, p0, E, 0, k, dummy))
            assert within(pair, eb, delta)
            assert within(pair, eps0_of(E), 0)  # each record is used at most once: eps0-DP always


@pytest.mark.parametrize("n,m,p0,E,delta", [
    (1, 1000, F(1), F(11, 10), F(1, 10**6)),
    (1, 1000, F(1), F(11, 10), F(1, 10**30)),
    (5, 400, F(1), F(3, 2), F(1, 10**6)),
    (3, 600, F(1, 2), F(2), F(1, 10**12)),
])
def test_thm3_2_dominates_exact_algorithm1_large(n, m, p0, E, delta):
    """Large windows (closed form): the bound is within a factor ~1.2-2 of the truth here, so this is a real test."""
    pair = X.fixed_window_special_masses(n, m, p0, E)
    assert within(pair, B.thm3_2_eps(eps0_of(E), m, p0, delta), delta)
    assert within(pair, B.thm3_2_eps_refined(eps0_of(E), m, p0, delta), delta)


@pytest.mark.parametrize("n,m,p0", [(2, 1, F(1)), (3, 2, F(1, 2)), (3, 1, F(1)), (4, 2, F(1))])
def test_thm4_3_dominates_exact_sliding_window(n, m, p0):
    """Theorem 4.3 >= exact privacy of the sliding-window protocol: every differing client, every bit vector, dummy 0."""
    for E, delta in itertools.product(GRID_E, GRID_DELTA):
        eb = B.thm4_3_eps(eps0_of(E), m, p0, delta)
        for i, rest in itertools.product(range(n), itertools.product((0, 1), repeat=n - 1)):
            b = list(rest[:i]) + [1] + list(rest[i:])
            b0 = list(rest[:i]) + [0] + list(rest[i:])
            pair = X.pair_from_dists(X.sliding_window_distribution(n, m, p0, E, b),
                                     X.sliding_window_distribution(n, m, p0, E, b0))
            assert within(pair, eb, delta)


@pytest.mark.parametrize("n,m", [(2, 2), (3, 2), (4, 2), (3, 3)])
def test_algorithm2_is_dominated_by_shuffling_and_thm4_1(n, m):
    """Algorithm 2 (p0 = 1) is a post-processing of shuffling given the counts: its curve <= the shuffled histogram's; Thm 4.1 bounds both."""
    E = F(2)
    for k in range(n):
        alg2 = X.pair_from_dists(X.averaged_distribution(n, m, E, 1, k), X.averaged_distribution(n, m, E, 0, k))
        shuf = X.shuffle_masses(n, E, k)
        for eps in (F(0), F(1, 4), F(1, 2)):
            assert X.privacy_delta(alg2, eps) <= X.privacy_delta(shuf, eps, direction="lower") * (1 + F(1, 10**30)) + F(1, 10**40)
        for delta in GRID_DELTA:
            assert within(alg2, B.thm4_1_eps(eps0_of(E), n, delta), delta)


@pytest.mark.parametrize("n,E,delta", [
    (2, F(3), F(1, 10)), (5, F(3, 2), F(1, 100)), (50, F(2), F(1, 10**6)),
    (1000, F(11, 10), F(1, 10**6)), (1000, F(11, 10), F(1, 10**30)), (1000, F(3, 2), F(1, 10**6)),
])
def test_thm5_1_dominates_exact_shuffled_randomized_response(n, E, delta):
    ks = {0, n - 1} if n > 50 else set(range(n))
    eb = B.thm5_1_eps(eps0_of(E), n, delta)
    er = B.thm5_1_eps_refined(eps0_of(E), n, delta)
    assert er <= eb
    for k in ks:
        pair = X.shuffle_masses(n, E, k)
        assert within(pair, er, delta)


@pytest.mark.parametrize("E,delta", [(F(11, 10), F(1, 10**6)), (F(3, 2), F(1, 10**6)), (F(3, 2), F(1, 1000))])
def test_erlingsson2019_thm7_not_violated_by_shuffled_randomized_response(E, delta):
    pair = X.shuffle_masses(1000, E, 0)
    assert within(pair, B.erlingsson2019_thm7_eps(eps0_of(E), 1000, delta), delta)


def test_cor3_3_dominates_exact_repetitions():
    """Corollary 3.3: k = n/m independent runs of Algorithm 1 (p0 = m/n), exact product law."""
    n, m, E = 6, 3, F(2)
    single = X.Pair(X.fixed_window_masses(n, m, F(m, n), E, 1, 0, 0), X.fixed_window_masses(n, m, F(m, n), E, 0, 0, 0))
    both = X.composed_masses(single, n // m)
    for dr, dc in ((F(1, 100), F(1, 100)), (F(1, 10), F(1, 20))):
        eb = B.cor3_3_eps(eps0_of(E), n, m, dr, dc)
        assert within(both, eb, B.cor3_3_delta(n, m, dr, dc))


def _approx_rr(E, d0, b):
    """(log E, d0)-DP randomized response on {0, 1, top, bot} (Definition 6 of whitehouse2022) with exact rationals."""
    keep, flip = (1 - d0) * E / (1 + E), (1 - d0) / (1 + E)
    return {b: keep, 1 - b: flip, ("top" if b else "bot"): d0}


def _alg1_one_client_approx(m, p0, E, d0, b1):
    """Algorithm 1 with one client and dummy record 0, (log E, d0)-RR: exact law over all 4^m outputs."""
    A1, A0 = _approx_rr(E, d0, b1), _approx_rr(E, d0, 0)
    outs = [0, 1, "top", "bot"]
    dist = {}
    for y in itertools.product(outs, repeat=m):
        base = math.prod(A0.get(v, 0) for v in y)
        pr = (1 - p0) * base
        for j in range(m):
            pr += p0 / m * A1.get(y[j], 0) * math.prod(A0.get(v, 0) for l, v in enumerate(y) if l != j)
        dist[y] = pr
    return dist


def test_approximate_clause_holds_and_its_delta_term_is_needed():
    """(eps0, delta0) clause of Theorem 3.2 on an exact instance; without m (e^eps' + 1) delta1 it is caught (negative control)."""
    m, p0, E, d1 = 2, F(1), F(6, 5), F(1, 10**4)
    e0 = eps0_of(E)
    d0 = mpf_to_fraction(B.cheu_delta0_max(e0, d1))  # the largest admitted delta0 (rounded down)
    pair = X.pair_from_dists(_alg1_one_client_approx(m, p0, E, d0, 1), _alg1_one_client_approx(m, p0, E, d0, 0))
    delta = F(1, 10**300)
    ep = B.thm3_2_approx_eps(e0, m, p0, delta)
    dp = B.thm3_2_approx_delta(e0, d0, m, p0, delta, d1)
    assert within(pair, ep, mpf_to_fraction(dp))
    assert violated(pair, ep, delta)  # the clause without its delta1 term is false here


# ---------------------------------------------------------------------------
# Negative controls: a deliberately too-small bound is caught by the same comparison
# ---------------------------------------------------------------------------

def test_halved_thm3_2_is_caught():
    E, m, delta = F(11, 10), 1000, F(1, 10**30)
    pair = X.fixed_window_special_masses(1, m, 1, E)
    eb = B.thm3_2_eps(eps0_of(E), m, 1, delta)
    assert within(pair, eb, delta)
    assert violated(pair, eb / 2, delta)


def test_halved_thm5_1_is_caught():
    E, n, delta = F(11, 10), 1000, F(1, 10**30)
    pair = X.shuffle_masses(n, E, 0)
    eb = B.thm5_1_eps(eps0_of(E), n, delta)
    assert within(pair, eb, delta)
    assert violated(pair, eb / 2, delta)


def test_thm3_2_without_its_sqrt_factor_e_eps0_is_still_caught_at_small_delta():
    """A bound missing sqrt(2 log(1/delta)) (keeping the lower-order term) is caught."""
    E, m, delta = F(11, 10), 1000, F(1, 10**30)
    pair = X.fixed_window_special_masses(1, m, 1, E)
    e0 = float(eps0_of(E))
    broken = F((math.exp(e0) - 1) * math.sqrt(math.exp(e0) / m) + math.exp(e0) * (math.exp(e0) - 1) ** 2 / (2 * m))
    assert violated(pair, broken, delta)
