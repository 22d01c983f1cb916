"""Theorem 7 of whitehouse2022 (seed 000_8d85c89f0d15dfff.txt; arXiv version, Appendix E): the filter for conditional
approximate zCDP.

Statement (our words): if A_n is delta_n-approximate rho_n-zCDP conditioned on A_{1:n-1} (Definition 10) and
N = inf{n: rho < sum_{m<=n+1} rho_m or delta < sum_{m<=n+1} delta_m}, then A_{1:N} is delta-approximate rho-zCDP.
Proof: P = (1 - delta) prod P'_n + (rest), with D_lambda(prod P'_n || prod Q'_n) <= rho lambda.  Its eqs. (11)-(13)
write D_lambda of the adaptively composed product as the sum of the per-step divergences, a random quantity when
the parameters are adaptive (ledger W22-THM7-PROOF-EQ13); the bound (14) still holds (supermartingale argument).

Second routes: a brute-force stopping index; ZCDPFilter; exact enumeration of an adaptive composition of
(eps_n, delta_n)-RR (delta_n-approximate (eps_n^2/2)-zCDP by Definitions 9-10) giving D_lambda of the
no-flag part and the flag mass.
"""
from __future__ import annotations

from fractions import Fraction as F

import mpmath
import pytest
from hypothesis import example, given, strategies as st

from reference.bounds import whitehouse2023 as W
from reference.accountants.whitehouse2023 import ZCDPFilter
from test_whitehouse2022_definitions import q2m, rr_enumerate


@given(st.lists(st.fractions(min_value=0, max_value=1, max_denominator=100), min_size=1, max_size=30),
       st.lists(st.sampled_from([F(0), F(1, 10**6), F(1, 10**300)]), min_size=30, max_size=30),
       st.fractions(min_value=F(1, 100), max_value=5), st.sampled_from([F(0), F(3, 10**6), F(1)]))
@example([F(1, 10)] * 6, [F(0)] * 30, F(1, 2), F(0))
def test_stop_index_as_printed(rhos, ds, rho, delta):
    """N = inf{n: rho < sum_{m<=n+1} rho_m or delta < sum_{m<=n+1} delta_m} (brute force); ZCDPFilter agrees."""
    ds = ds[: len(rhos)]
    expected, R, S = len(rhos), F(0), F(0)
    for n, (r, d) in enumerate(zip(rhos, ds)):
        R, S = R + r, S + d
        if rho < R or delta < S:
            expected = n
            break
    assert W.zcdp_filter_stop_index(rhos, ds, rho, delta) == expected
    f = ZCDPFilter(rho, delta)
    assert sum(1 for r, d in zip(rhos[:expected], ds) if f.try_run(r, d)) == expected
    if expected < len(rhos):
        assert not f.can_run(rhos[expected], ds[expected])


RHO, DELTA = F(1, 20), F(1, 50)
DELTAS_BY_N = [F(1, 200), F(0), F(1, 100), F(0), F(1, 200), F(1, 100)] + [F(0)] * 40


def _admit(V, S, n):
    """The Theorem 7 rule with rho_m = eps_m^2/2 and the deterministic delta_m schedule DELTAS_BY_N."""
    return V / 2 <= RHO and sum(DELTAS_BY_N[: n + 1]) <= DELTA


ADAPTIVE = {
    "chase": lambda loss, V, S, n: F(1, 5) if loss > 0 else F(1, 10),
    "alternate": lambda loss, V, S, n: F(1, 4) if n % 2 else F(1, 10),
}


@pytest.mark.parametrize("name", sorted(ADAPTIVE))
@pytest.mark.parametrize("lam", [F(2), F(5), F(20)])
def test_no_flag_part_has_renyi_divergence_at_most_rho_lambda(name, lam):
    """D_lambda(prod P'_n || prod Q'_n) <= rho lambda for the stopped pure-RR part (exact enumeration)."""
    res = rr_enumerate(ADAPTIVE[name], 40, admit=_admit)
    mom = sum(p * mpmath.exp((q2m(lam) - 1) * q2m(loss)) for (loss, *_), p in res["stopped"].items())
    assert mpmath.log(mom) / (q2m(lam) - 1) <= q2m(RHO * lam)


@pytest.mark.parametrize("name", sorted(ADAPTIVE))
def test_weight_on_the_flag_part_is_at_most_delta(name):
    """With the delta_n as well: P(some flag) = 1 - E prod (1 - delta_n) <= sum delta_n <= delta (exact)."""
    strat = lambda loss, V, S, n: (ADAPTIVE[name](loss, V, S, n), DELTAS_BY_N[n])
    res = rr_enumerate(strat, 40, admit=lambda V, S, n: V / 2 <= RHO and S <= DELTA)
    assert res["flag"] <= q2m(DELTA)


def eq13_two_step(lam=F(3)):
    """Two adaptive RR steps (eps_1 = 1; eps_2 = 2 after an up, 1/2 after a down): D_lambda of the joint law, and the
    per-path right-hand side D_lambda(RR_1) + D_lambda(RR_{eps_2(path)}) of eq. (13)."""
    L = q2m(lam)

    def d_rr(e):
        p = 1 / (1 + mpmath.exp(-q2m(e)))
        return mpmath.log(p**L * (1 - p) ** (1 - L) + (1 - p) ** L * p ** (1 - L)) / (L - 1)

    strat = lambda loss, V, S, n: F(1) if n == 0 else (F(2) if loss > 0 else F(1, 2))
    res = rr_enumerate(strat, 2)
    lhs = mpmath.log(sum(p * mpmath.exp((L - 1) * q2m(loss)) for (loss, *_), p in res["stopped"].items())) / (L - 1)
    return lhs, {"up": d_rr(1) + d_rr(2), "down": d_rr(1) + d_rr(F(1, 2))}


def test_proof_eq13_is_not_an_identity_for_adaptive_parameters():
    """eq. (13) as printed equates a number with a path-dependent sum; here it lies strictly between the two paths' sums,
    and is below the worst path (the inequality the proof needs)."""
    lhs, rhs = eq13_two_step()
    assert rhs["down"] < lhs < rhs["up"]


def test_theorem7_bad_inputs():
    with pytest.raises(ValueError, match="rho"):
        W.zcdp_filter_stop_index([1], [0], 0, 0)
    with pytest.raises(ValueError):
        W.zcdp_filter_stop_index([1, 2], [0], 1, 0)
