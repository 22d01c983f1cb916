"""whitehouse2023 (seed 001_019b6f2aef040984.txt, ICML 2023) Theorem 2 = whitehouse2022 (seed 000) Theorem 1: the (eps, delta)-DP filter.

Statement: if A_n is (eps_n, delta_n)-DP conditioned on A_{1:n-1}, eps > 0, delta = delta' + delta'' and
N = inf{n: eps < sqrt(2 log(1/delta') sum_{m<=n+1} eps_m^2) + (1/2) sum_{m<=n+1} eps_m^2 or delta'' < sum_{m<=n+1} delta_m},
then A_{1:N} is (eps, delta)-DP.  Same stopping rule and conclusion in both versions (tests of the whitehouse2022
module star-imported; the exact adaptive-RR check is in test_whitehouse2022_thm1_exact.py).

New in whitehouse2023: the proof route "Lemma 1 (DP -> delta_n-approximate eps_n^2/2-zCDP), Theorem 1 (zCDP filter with
rho = y*/2 ... ), Lemma 1 back to DP".  Checked here: the zCDP filter with per-step rho_n = eps_n^2/2 and the largest rho
with rho + 2 sqrt(rho L) <= eps stops exactly where Theorem 2 stops, and the certified delta is
delta'' + (1 - delta'') delta' <= delta' + delta''.
"""
from test_whitehouse2022_thm1 import *  # noqa: F401,F403

from fractions import Fraction as F

import mpmath
from hypothesis import example, given
from hypothesis import strategies as st

from reference.bounds import whitehouse2023 as W


@given(st.lists(st.fractions(min_value=0, max_value=2, max_denominator=1000), min_size=1, max_size=25),
       st.fractions(min_value=F(1, 100), max_value=10, max_denominator=100),
       st.sampled_from([F(1, 10**300), F(1, 10**6), F(1, 10), F(1, 2)]))
@example([F(1, 10)] * 3, F(1), F(1, 10**300))
def test_zcdp_route_stops_where_theorem2_stops(es, eps, dp):
    """sqrt(2 L V) + V/2 <= eps  <=>  rho + 2 sqrt(rho L) <= eps with rho = V/2 (Lemma 1 at rho = sum eps_m^2/2):
    the step counts agree (the library decides the first exactly; the second is compared at 80 digits, ties excluded)."""
    zeros = [F(0)] * len(es)
    n2 = W.filter_stop_index(es, zeros, eps, dp, 0)
    V, n1 = F(0), 0
    em = mpmath.mpf(eps.numerator) / eps.denominator
    for e in es:
        V += e * e
        val = W.zcdp_to_dp_eps(V / 2, dp, dps=80)
        if abs(val - em) < mpmath.mpf(10) ** -70:
            return   # a numerical tie: the exact rule is tested in the whitehouse2022 module
        if val > em:
            break
        n1 += 1
    assert n1 == n2


@given(st.sampled_from([F(1, 10**300), F(1, 10**6), F(1, 10), F(999, 1000)]),
       st.sampled_from([F(0), F(1, 10**300), F(1, 10**9), F(1, 10), F(1, 2)]))
def test_zcdp_route_delta_is_at_most_theorem2_delta(dp, d2):
    """The delta certified through Theorem 1 + Lemma 1, delta'' + (1 - delta'') delta', is <= delta' + delta''."""
    v = W.dp_filter_delta_via_zcdp(dp, d2)
    exact = d2 + (1 - d2) * dp
    assert v >= mpmath.mpf(exact.numerator) / exact.denominator
    assert v <= (mpmath.mpf((dp + d2).numerator) / (dp + d2).denominator) * (1 + mpmath.mpf(10) ** -45)
