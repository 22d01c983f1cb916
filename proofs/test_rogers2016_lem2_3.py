"""rogers2016 (seed 003_05a378efbd63455f.txt) Lemma 2.3 (quoted from Kasiviswanathan-Smith 2014).

Claim 1: if X, Y are (eps, delta)-point-wise indistinguishable then X ~_{eps,delta} Y.
Claim 2 (as printed): if X ~_{eps,delta} Y then they are (2 eps, 2 delta/e^eps)-point-wise indistinguishable.
Claim 2 is false for every eps > 0 (ledger R16-LEM2-3-PDP, exact counterexample there); what holds is
(2 eps, delta'), delta' = delta/(1 - e^-eps) + delta/(e^eps (e^eps - 1)), and no delta' below delta/(1 - e^-eps).
The delta = 0 case (both forms give 0) is what the paper uses (proof of Theorem 3.6).

Second routes: brute force over all events (Definition 2.1) and atom-by-atom bad mass (Definition 2.2) with exact
comparisons against e^eps; a 110-digit naive evaluation of the corrected formula; an explicit near-extremal
two-point family decided exactly.
"""
from __future__ import annotations

from fractions import Fraction as F

import mpmath
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from reference.bounds import rogers2016 as R
from reference.precision import compare_exp_rational, mpf_to_fraction
from test_rogers2016_definitions import brute_bad_mass, brute_dp, laws, minimal_delta

X = mpf_to_fraction


@given(laws(), st.fractions(0, 4, max_denominator=30))
@example(({0: F(1, 2), 1: F(1, 2)}, {0: F(1), 1: F(0)}), F(1, 3))
def test_claim1_pointwise_implies_indistinguishable(PQ, eps):
    """Lemma 2.3 (1): max(P_X[|L| > eps], P_Y[|L| > eps]) <= delta  ==>  P[X in S] <= e^eps P[Y in S] + delta for all S
    (and symmetrically); checked at the least point-wise delta, exactly, with a brute-force second route."""
    P, Q = PQ
    d = R.pointwise_bad_mass(P, Q, eps)
    assert d == brute_bad_mass(P, Q, eps)
    assert R.is_dp(P, Q, eps, d) and brute_dp(P, Q, eps, d)
    # the conversion keeps (eps, delta): the library returns them rounded to nearest at 50 digits
    assert abs(X(R.pdp_to_dp_eps(eps)) - eps) <= eps / 10**49
    assert abs(X(R.pdp_to_dp_delta(d)) - d) <= d / 10**49


@given(laws(), st.fractions(F(1, 30), 4, max_denominator=30))
def test_claim2_corrected_holds_on_random_laws(PQ, eps):
    """Lemma 2.3 (2), corrected: X ~_{eps,delta} Y ==> point-wise bad mass at 2 eps <= delta (e^{2eps} + 1)/(e^eps (e^eps - 1)).

    delta is taken a hair above the least DP delta (one-sided: a larger delta only weakens the conclusion) and the DP
    claim is re-decided exactly before the conclusion is tested."""
    P, Q = PQ
    d = min(F(1), X(minimal_delta(P, Q, eps)) + F(1, 10**70))
    assert R.is_dp(P, Q, eps, d)
    bad = R.pointwise_bad_mass(P, Q, 2 * eps)
    assert bad <= X(R.dp_to_pdp_delta(eps, d))


@given(laws(), st.fractions(0, 30, max_denominator=30))
@example(({0: F(1, 3), 1: F(2, 3)}, {0: F(1, 3), 1: F(2, 3)}), F(0))
def test_claim2_pure_case_used_by_theorem3_6(PQ, eps):
    """Lemma 2.3 at delta = 0 (used in the proof of Theorem 3.6): X ~_{eps,0} Y ==> (eps, 0)-point-wise (even at eps, not 2 eps);
    both the printed and the corrected delta' vanish."""
    P, Q = PQ
    if R.is_dp(P, Q, eps, 0):
        assert R.pointwise_bad_mass(P, Q, eps) == 0
    if eps > 0:
        assert R.dp_to_pdp_delta(eps, 0) == 0 == R.dp_to_pdp_delta_as_printed(eps, 0)


@given(st.fractions(F(1, 10**6), 1000, max_denominator=10**6),
       st.sampled_from([F(1, 10**300), F(1, 10**12), F(1, 1000), F(1, 2), F(1)]))
@example(F(1000), F(1, 10**300))
@example(F(1, 10**6), F(1))
def test_corrected_delta_formula_two_routes(eps, d):
    """delta/(1 - e^-eps) + delta/(e^eps (e^eps - 1)) = delta (e^{2 eps} + 1)/(e^eps (e^eps - 1)) (library, rounded up)
    >= the 110-digit naive sum of the two tail terms; and within 1e-45 relative."""
    E = mpmath.mpf(eps.numerator) / eps.denominator
    D = mpmath.mpf(d.numerator) / d.denominator
    naive = D / (1 - mpmath.exp(-E)) + D * mpmath.exp(-E) / mpmath.expm1(E)
    lib = R.dp_to_pdp_delta(eps, d)
    assert lib >= naive * (1 - mpmath.mpf(10) ** -100)
    assert lib <= naive * (1 + mpmath.mpf(10) ** -45)
    assert R.dp_to_pdp_eps(eps) >= 2 * E


@pytest.mark.parametrize("eps", [F(1, 20), F(1, 2), F(2)])
def test_corrected_delta_is_approached_by_two_point_laws(eps):
    """No point-wise delta below delta/(1 - e^-eps) is valid: P = (p, 1 - p), Q = (q, 1 - q) with p - e^eps q = delta
    (binding) and p/q slightly above e^{2 eps} is exactly (eps, delta)-DP with bad mass p at 2 eps, p >= 0.99 delta/(1 - e^-eps)
    (and > the printed 2 delta/e^eps)."""
    d = F(1, 10**4)
    E = mpmath.mpf(eps.numerator) / eps.denominator
    eta = mpmath.mpf(10) ** -5
    Dm = mpmath.mpf(1) / 10**4
    p = X(Dm / (1 - mpmath.exp(-E) * (1 - eta)) * (1 - mpmath.mpf(10) ** -30))
    q = X(p * mpmath.exp(-2 * E) * (1 - eta))
    P, Q = {0: p, 1: 1 - p}, {0: q, 1: 1 - q}
    assert R.is_dp(P, Q, eps, d)
    assert compare_exp_rational(2 * eps, p / q) < 0  # |L(0)| > 2 eps
    bad = R.pointwise_bad_mass(P, Q, 2 * eps)
    assert bad == p
    assert bad >= F(99, 100) * X(Dm / (1 - mpmath.exp(-E)))
    assert bad > X(R.dp_to_pdp_delta_as_printed(eps, d))  # the printed claim fails (cf. errata R16-LEM2-3-PDP)
    assert bad <= X(R.dp_to_pdp_delta(eps, d))


def test_bad_inputs_name_the_parameter():
    with pytest.raises(ValueError, match="eps"):
        R.dp_to_pdp_delta(0, "0.1")
    with pytest.raises(ValueError, match="delta"):
        R.dp_to_pdp_delta(1, "1.5")
    with pytest.raises(ValueError, match="P"):
        R.pointwise_bad_mass({0: F(1, 2)}, {0: F(1)}, 1)
