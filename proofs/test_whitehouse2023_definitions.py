"""Definitions 1-7 of whitehouse2023 (seed 001_019b6f2aef040984.txt; ICML 2023 version of "Fully Adaptive Composition in Differential Privacy").

Correspondence with whitehouse2022 (seed 000), whose definition tests are star-imported below:

* Def. 1 (conditional DP)            = whitehouse2022 Def. 1 (same wording).
* Def. 4 (conditional privacy loss)  = whitehouse2022 Def. 2, with eq. (13) = whitehouse2022 eq. (4).
* Def. 5 (conditional pDP)           = whitehouse2022 Def. 3.
* Def. 6 (privacy odometer)          = whitehouse2022 Def. 5 (U_n instead of U-bar_n).
* Def. 7 (conditional randomized response) = whitehouse2022 Def. 6.
* whitehouse2022 Def. 4 (privacy filter) and Defs. 7-8 (zCDP, conditional zCDP) have no
  numbered counterpart in whitehouse2023.

Changed or new here (tested in this module):

* Def. 2 (Renyi divergence, lam >= 1): D_lam(P||Q) = 1/(lam-1) log E_{Y~P}[(P(Y)/Q(Y))^{lam-1}];
  whitehouse2022 Def. 9 also defines the delta-approximate divergence (an infimum over
  decompositions).  At lam = 1 the printed formula is 0/0 and is read as its limit, the KL divergence.
* Def. 3 (conditional delta-approximate rho-zCDP): ONE mixture decomposition
  A(x)|B = (1-delta) P' + delta P'', A(x')|B = (1-delta) Q' + delta Q'' with
  D_lam(P'||Q') <= rho lam AND D_lam(Q'||P') <= rho lam for all lam >= 1; whitehouse2022
  Def. 10 bounds only D^delta_lam(A(x)||A(x')) (one direction, decomposition allowed to
  depend on lam).  Checked: RR meets Def. 3 with rho = eps tanh(eps/2) <= eps^2/2, and the
  two-direction requirement is a real restriction (exact asymmetric pair).
"""
from __future__ import annotations

from fractions import Fraction as F

import mpmath
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from test_whitehouse2022_definitions import *  # noqa: F401,F403  (Defs. 1, 4, 5, 6, 7 = whitehouse2022 Defs. 1, 2, 3, 5, 6)
from test_whitehouse2023_thm7 import ASYM_P, ASYM_Q, sup_renyi_over_lam_upper

MP = mpmath.mpf


def q2m(q):
    q = F(q)
    return MP(q.numerator) / q.denominator


def renyi_printed(P, Q, lam):
    """Def. 2 exactly as printed: 1/(lam-1) log E_{Y~P}[(P(Y)/Q(Y))^(lam-1)] (finite laws)."""
    lam = MP(lam)
    return mpmath.log(sum(p * (p / q) ** (lam - 1) for p, q in zip(P, Q) if p > 0)) / (lam - 1)


@given(st.decimals(min_value="0.01", max_value="3", places=2).map(str), st.decimals(min_value="1.01", max_value="6", places=2).map(str))
@example("3", "6")
def test_def2_gaussian_closed_form_by_quadrature(mu, lam):
    """D_lam(N(mu,1) || N(0,1)) by mpmath.quad of the printed formula equals lam mu^2/2 (the zCDP equality case)."""
    with mpmath.workdps(30):
        m, l = MP(mu), MP(lam)
        integ = mpmath.quad(lambda y: mpmath.npdf(y, m) * (mpmath.npdf(y, m) / mpmath.npdf(y, 0)) ** (l - 1),
                            [-mpmath.inf, l * m, mpmath.inf])
        D = mpmath.log(integ) / (l - 1)
        assert abs(D - l * m * m / 2) <= MP(10) ** -18 * (1 + l * m * m)


@given(st.decimals(min_value="0.001", max_value="20", places=3).map(str))
def test_def2_lambda_to_one_limit_is_kl(eps):
    """At lam = 1 the printed formula is 0/0; D_{1+h} -> KL(P||Q) = eps tanh(eps/2) for RR_eps (h = 10^-40)."""
    e = q2m(F(eps))
    p = 1 / (1 + mpmath.exp(-e))
    P, Q = [p, 1 - p], [1 - p, p]
    kl = sum(a * mpmath.log(a / b) for a, b in zip(P, Q))
    d = renyi_printed(P, Q, 1 + MP(10) ** -40)
    assert abs(d - kl) <= MP(10) ** -35 * (1 + kl)
    assert abs(kl - e * mpmath.tanh(e / 2)) <= MP(10) ** -90 * (1 + kl)


@given(st.lists(st.integers(1, 100), min_size=2, max_size=6), st.lists(st.integers(1, 100), min_size=2, max_size=6),
       st.decimals(min_value="1.01", max_value="50", places=2).map(str), st.decimals(min_value="0.01", max_value="10", places=2).map(str))
def test_def2_nondecreasing_in_lambda(pw, qw, lam, step):
    """D_lam is nondecreasing in lam (used for the rigorous sup in the Theorem 7 module)."""
    k = min(len(pw), len(qw))
    P = [MP(x) / sum(pw[:k]) for x in pw[:k]]
    Q = [MP(x) / sum(qw[:k]) for x in qw[:k]]
    a, b = renyi_printed(P, Q, lam), renyi_printed(P, Q, MP(lam) + MP(step))
    assert a <= b * (1 + MP(10) ** -90) + MP(10) ** -95


@given(st.fractions(min_value=F(501, 1000), max_value=F(999, 1000), max_denominator=1000),
       st.fractions(min_value=0, max_value=F(1, 2), max_denominator=10**6),
       st.decimals(min_value="1.001", max_value="100", places=3).map(str))
@example(F(999, 1000), F(1, 10**6), "100")
def test_def3_rr_is_delta_approximate_eps_tanh_zcdp(p, d, lam):
    """(eps, delta)-RR = (1-delta) RR_eps + delta flag (exact) and D_lam both ways <= eps tanh(eps/2) lam <= eps^2/2 lam."""
    Px = [(1 - d) * p, (1 - d) * (1 - p), d, F(0)]
    Pp, Ppp = [p, 1 - p, F(0), F(0)], [F(0), F(0), F(1), F(0)]
    assert Px == [(1 - d) * a + d * b for a, b in zip(Pp, Ppp)]
    e = mpmath.log(q2m(p) / q2m(1 - p))
    rho = e * mpmath.tanh(e / 2)
    Pm, Qm = [q2m(p), q2m(1 - p)], [q2m(1 - p), q2m(p)]
    assert renyi_printed(Pm, Qm, lam) <= rho * MP(lam)
    assert renyi_printed(Qm, Pm, lam) <= rho * MP(lam)
    assert rho <= e * e / 2


def test_def3_requires_both_directions():
    """The both-directions requirement of Def. 3 is a real restriction (the whitehouse2022 Def. 10 asks one direction):
    (P, Q) = ((1/2, 1/2), (1/10, 9/10)) has sup D_lam(Q||P)/lam < KL(P||Q) = lim D_lam(P||Q)/lam."""
    rho = sup_renyi_over_lam_upper(ASYM_Q, ASYM_P)
    P, Q = [q2m(x) for x in ASYM_P], [q2m(x) for x in ASYM_Q]
    assert renyi_printed(P, Q, "1.0001") > rho * MP("1.0001")


def test_def6_index_reading():
    """Def. 6 evaluates U_n = u_n(eps_{1:n-1}, ...): read literally, Theorem 3's filter odometer is violated by one RR step
    (eps_1 = 3, target 1, delta' = 1/10: P(L_1 > U_1) = 0.95); with u_n(eps_{1:n}) as in Theorem 3 and Appendix E it holds
    (ledger W22-DEF5-ARITY, whitehouse2022 Definition 5; same indexing here)."""
    import errata_whitehouse2023 as E
    assert E.check_def6_index() is True
    # the corrected reading on the same example, exactly through the library: U_1 = u(V_1 = 9) >= 3 = max loss
    from reference.bounds import whitehouse2023 as W
    assert W.filter_odometer(9, 1, F(1, 10)) >= 3
