"""whitehouse2023 (seed 001_019b6f2aef040984.txt, ICML 2023) Theorem 7 (Appendix C.1): the two definitions of approximate zCDP agree.

Statement (our words).  Condition 1 (Bun-Steinke): for neighbours x, x' there are
events E, E' with P(A(x) in E) >= 1 - delta, P(A(x') in E') >= 1 - delta and
D_lam(A(x)|E || A(x')|E') <= rho lam, D_lam(A(x')|E' || A(x)|E) <= rho lam for all lam >= 1.
Condition 2 (mixture, Papernot-Steinke): A(x) = (1-delta) P' + delta P'',
A(x') = (1-delta) Q' + delta Q'' with D_lam(P'||Q') <= rho lam and D_lam(Q'||P') <= rho lam.
Theorem 7: Conditions 1 and 2 are equivalent.  The proof builds
P'' = (1/delta)[P(. | E^c) P(E^c) + P'(.) (P(E) - (1 - delta))] from E, and E = {coin = 1}
from a mixture.

As printed, Condition 2 states D_lam(P'||Q') <= rho lam twice (the second should be
D_lam(Q'||P')); see errata W23-COND2-DIRECTION: with one direction only,
Condition 2 does not imply Condition 1 (an exact two-point pair below).

Checks: the constructions exactly (Fractions) on random finite laws and on
(eps, delta)-randomized response; new in whitehouse2023.
"""
from __future__ import annotations

import random
from fractions import Fraction as F

import mpmath
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

MP = mpmath.mpf


def q2m(q):
    return MP(q.numerator) / q.denominator


def rand_law(rnd, k):
    w = [F(rnd.randint(1, 50)) for _ in range(k)]
    return [x / sum(w) for x in w]


def renyi(P, Q, lam):
    lam = MP(lam)
    return mpmath.log(sum(q2m(p) ** lam * q2m(q) ** (1 - lam) for p, q in zip(P, Q) if p > 0)) / (lam - 1)


@given(st.integers(0, 10**6), st.integers(2, 7), st.fractions(min_value=F(1, 10**6), max_value=F(1, 2), max_denominator=10**6))
@example(0, 2, F(1, 2))
def test_condition1_to_condition2_construction(seed, k, delta):
    """Given E with P(E) >= 1 - delta: P' = P(.|E), P'' as printed; then P'' >= 0, sum P'' = 1, (1-delta) P' + delta P'' = P (exact)."""
    rnd = random.Random(seed)
    P = rand_law(rnd, k)
    # choose E greedily so that P(E) >= 1 - delta (drop atoms while the mass stays large enough)
    E = set(range(k))
    for i in sorted(range(k), key=lambda i: P[i]):
        if sum(P[j] for j in E if j != i) >= 1 - delta and len(E) > 1:
            E.discard(i)
    PE = sum(P[i] for i in E)
    assert PE >= 1 - delta
    Pp = [P[i] / PE if i in E else F(0) for i in range(k)]
    Ppp = [((P[i] if i not in E else F(0)) + Pp[i] * (PE - (1 - delta))) / delta for i in range(k)]
    assert all(x >= 0 for x in Ppp)
    assert sum(Ppp) == 1
    assert all((1 - delta) * a + delta * b == p for a, b, p in zip(Pp, Ppp, P))


@given(st.integers(0, 10**6), st.integers(2, 6), st.fractions(min_value=0, max_value=F(1, 2), max_denominator=1000))
def test_condition2_to_condition1_coin_construction(seed, k, delta):
    """From A(x) = (1-delta) P' + delta P'': on (outcome, coin) the event E = {coin = 1} has P(E) = 1 - delta and A(x)|E = P' (exact)."""
    rnd = random.Random(seed)
    Pp, Ppp = rand_law(rnd, k), rand_law(rnd, k)
    joint = {(i, 1): (1 - delta) * Pp[i] for i in range(k)}
    joint.update({(i, 0): delta * Ppp[i] for i in range(k)})
    assert sum(joint.values()) == 1
    PE = sum(v for (i, c), v in joint.items() if c == 1)
    assert PE == 1 - delta
    if PE:
        assert [joint[(i, 1)] / PE for i in range(k)] == Pp
    # the marginal of the outcome is the mixture
    assert [joint[(i, 1)] + joint[(i, 0)] for i in range(k)] == [(1 - delta) * a + delta * b for a, b in zip(Pp, Ppp)]


@pytest.mark.parametrize("p,d", [(F(3, 4), F(1, 10)), (F(2, 3), F(1, 1000))])
def test_round_trip_on_eps_delta_randomized_response(p, d):
    """(eps, delta)-RR: E = {not T}, E' = {not B} satisfy Condition 1 with rho = eps tanh(eps/2); the printed P'' is the point mass on T."""
    Px = {1: (1 - d) * p, 0: (1 - d) * (1 - p), "T": d, "B": F(0)}
    Qx = {1: (1 - d) * (1 - p), 0: (1 - d) * p, "T": F(0), "B": d}
    E, Ep = (1, 0, "B"), (1, 0, "T")
    PE, QE = sum(Px[y] for y in E), sum(Qx[y] for y in Ep)
    assert PE >= 1 - d and QE >= 1 - d
    condP = [Px[y] / PE for y in (1, 0)]
    condQ = [Qx[y] / QE for y in (1, 0)]
    with mpmath.workdps(50):
        eps = mpmath.log(q2m(p) / q2m(1 - p))
        rho = eps * mpmath.tanh(eps / 2)
        for lam in ("1.001", "2", "30"):
            assert renyi(condP, condQ, lam) <= rho * MP(lam)
            assert renyi(condQ, condP, lam) <= rho * MP(lam)
    Ppp = {y: ((Px[y] if y not in E else F(0)) + (Px[y] / PE if y in E else F(0)) * (PE - (1 - d))) / d for y in Px}
    assert Ppp == {1: F(0), 0: F(0), "T": F(1), "B": F(0)}


# --- the direction typo of Condition 2 --------------------------------------------------

ASYM_P = (F(1, 2), F(1, 2))
ASYM_Q = (F(1, 10), F(9, 10))


def sup_renyi_over_lam_upper(P, Q):
    """A rigorous upper bound on sup_{lam > 1} D_lam(P||Q)/lam: D_lam is nondecreasing in lam and <= D_inf = log max P/Q.

    For lam >= D_inf/b the ratio is <= b; on a grid lam_0 = 1 < ... < lam_J of [1, D_inf/b] use D_{lam_{j+1}}/lam_j.
    """
    with mpmath.workdps(50):
        dinf = mpmath.log(max(q2m(p) / q2m(q) for p, q in zip(P, Q)))
        grid = [1 + MP(j) / 400 for j in range(1, 401)]   # 1.0025 .. 2
        best = dinf / grid[-1]
        prev = MP(1)
        for lam in grid:
            best = max(best, renyi(P, Q, lam) / prev)
            prev = lam
        return best


def test_one_direction_does_not_imply_the_other():
    """Two-point pair: rho := sup_lam D_lam(Q||P)/lam (rigorous upper bound 0.43...) yet D_lam(P||Q) > rho lam near lam = 1.

    So a Condition 2 with only D_lam(P'||Q') <= rho lam (as printed) is strictly weaker than Condition 1 (both directions).
    """
    rho = sup_renyi_over_lam_upper(ASYM_Q, ASYM_P)
    with mpmath.workdps(50):
        lam = MP("1.0001")
        assert renyi(ASYM_P, ASYM_Q, lam) > rho * lam


def test_erratum_check_w23_cond2_direction():
    """The ledger check (self-contained) demonstrates that the printed Condition 2 (one direction twice) is weaker."""
    import errata_whitehouse2023 as E
    assert E.check_condition2_direction() is True
