"""Lemma 1 of whitehouse2022 (seed 000_8d85c89f0d15dfff.txt; arXiv version), quoting Kasiviswanathan and Smith (2014).

Statement (our words): (i) an (eps, delta)-pDP algorithm, P(|L| > eps) <= delta for all neighbours, is also
(eps, delta)-DP: P(A(x) in G) <= e^eps P(A(x') in G) + delta.  (ii) As printed, an (eps, delta)-DP algorithm is
(2 eps, 2 delta/(eps e^eps))-pDP.  Part (ii) is false for eps above about 0.47 (ledger W22-LEM1-DP-TO-PDP); what
holds is P(|L| > 2 eps) <= delta/(1 - e^{-eps}) + delta/(e^eps (e^eps - 1)).

Second route: finite mechanisms with rational probabilities and rational w = e^eps, so every DP inequality and
every event {|L| > eps} is decided exactly over all events.
"""
from __future__ import annotations

from fractions import Fraction as F

import mpmath
import pytest
from hypothesis import example, given, strategies as st

from reference.bounds import whitehouse2023 as W
from test_whitehouse2022_definitions import hockey_exact, is_dp_w, pdp_mass_w, q2m

weights = st.lists(st.integers(min_value=1, max_value=60), min_size=2, max_size=4)
w_gt1 = st.fractions(min_value=F(11, 10), max_value=40, max_denominator=30)


def _mech(pw, qw):
    k = min(len(pw), len(qw))
    P = {i: F(pw[i], sum(pw[:k])) for i in range(k)}
    Q = {i: F(qw[i], sum(qw[:k])) for i in range(k)}
    return P, Q


def two_point_upper_tail(w: F, delta: F):
    """A pair with P(L > 2 eps) = delta (w^2 + 1)/(w^2 - w + 1): P(S) = that, Q(S) = P(S)/(w^2 + 1)."""
    ps = delta * (w * w + 1) / (w * w - w + 1)
    qs = ps / (w * w + 1)
    return {0: ps, 1: 1 - ps}, {0: qs, 1: 1 - qs}


@given(weights, weights, w_gt1)
@example([1, 1], [1, 1], F(2))
def test_forward_pdp_implies_dp(pw, qw, w):
    """(eps, delta)-pDP => (eps, delta)-DP: with delta = max P(|L| > eps) over both orders, every event satisfies the DP inequality."""
    P, Q = _mech(pw, qw)
    d = max(pdp_mass_w(P, Q, w), pdp_mass_w(Q, P, w))
    assert is_dp_w(P, Q, w, d)
    # and the DP delta it certifies is never above the pDP delta (one-sided, exact)
    assert max(hockey_exact(P, Q, w), hockey_exact(Q, P, w)) <= d


@given(weights, weights, w_gt1)
@example([3, 197], [3, 1597], F(2))
def test_converse_corrected_delta_holds(pw, qw, w):
    """(eps, delta)-DP => P(|L| > 2 eps) <= delta/(1 - e^-eps) + delta/(e^eps (e^eps - 1)) (exact, both orders)."""
    P, Q = _mech(pw, qw)
    d = max(hockey_exact(P, Q, w), hockey_exact(Q, P, w))  # the smallest delta for which (P, Q) is (log w, delta)-DP
    assert is_dp_w(P, Q, w, d)
    bound = d / (1 - 1 / w) + d / (w * (w - 1))
    assert pdp_mass_w(P, Q, w * w) <= bound and pdp_mass_w(Q, P, w * w) <= bound


@given(st.fractions(min_value=2, max_value=1000, max_denominator=20),
       st.sampled_from([F(1, 100), F(1, 10**6), F(1, 10**300)]))
@example(F(2), F(1, 100))
def test_converse_as_printed_is_false(w, d):
    """As printed: (eps, delta)-DP => P(|L| > 2 eps) <= 2 delta/(eps e^eps).  An exactly (log w, delta)-DP pair exceeds it."""
    P, Q = two_point_upper_tail(w, d)
    assert is_dp_w(P, Q, w, d)
    mass = pdp_mass_w(P, Q, w * w)
    assert mass == P[0]
    printed = 2 * q2m(d) / (mpmath.log(q2m(w)) * q2m(w))
    assert q2m(mass) > printed * (1 + mpmath.mpf(10) ** -50)


@given(st.fractions(min_value=F(1, 1000), max_value=700), st.sampled_from([F(0), F(1, 100), F(1, 10**300), F(1)]))
@example(F(700), F(1, 10**300))
def test_library_conversion_values(e, d):
    """Library: pDP eps = 2 eps exactly; the printed delta 2 delta/(eps e^eps) to nearest, the corrected delta rounded up (naive mpmath)."""
    two = W.dp_to_pdp_eps(e)
    assert two >= 2 * q2m(e) * (1 - mpmath.mpf(10) ** -100) and two <= 2 * q2m(e) * (1 + mpmath.mpf(10) ** -48)
    ee, dd = q2m(e), q2m(d)
    printed = 2 * dd / (ee * mpmath.exp(ee))
    corrected = dd / (1 - mpmath.exp(-ee)) + dd / (mpmath.exp(ee) * (mpmath.exp(ee) - 1))
    got = W.dp_to_pdp_delta_as_printed(e, d)  # not a bound: the printed value to nearest
    assert abs(got - printed) <= printed * mpmath.mpf(10) ** -45 + mpmath.mpf(10) ** -400
    got = W.dp_to_pdp_delta(e, d)              # the corrected conversion, an upper bound
    assert got >= corrected * (1 - mpmath.mpf(10) ** -100)
    assert got <= corrected * (1 + mpmath.mpf(10) ** -45) + mpmath.mpf(10) ** -400


def test_one_tail_alone_breaks_the_printed_converse_above_a_threshold():
    """One tail: delta/(1 - e^-eps) exceeds 2 delta/(eps e^eps) iff eps > eps_0 = 0.46817... (root found at 60 digits)."""
    g = lambda e: 1 / (1 - mpmath.exp(-e)) - 2 / (e * mpmath.exp(e))
    root = mpmath.findroot(g, mpmath.mpf("0.47"))
    assert mpmath.mpf("0.468") < root < mpmath.mpf("0.469")
    assert g(root - mpmath.mpf("0.001")) < 0 < g(root + mpmath.mpf("0.001"))


@given(st.fractions(min_value=F(1, 10**4), max_value=3, max_denominator=10**4))
@example(F(1, 100))
@example(F(1, 10**4))
@example(F(3))
def test_printed_converse_is_false_for_every_eps(e):
    """Both tails at once (errata W22-LEM1-DP-TO-PDP): the sharp value delta (e^{2 eps} + 1)/(e^eps (e^eps - 1)) exceeds the
    printed 2 delta/(eps e^eps) for every eps > 0, i.e. eps (e^{2 eps} + 1) > 2 (e^eps - 1); and an exact (eps, delta)-DP law
    from the falsifier's candidates has P(|L| > 2 eps) above the printed value (delta = eps/1000, so that the printed
    value is below 1 and the claim is not vacuous)."""
    from reference.falsify.laws import dp_candidates, is_dp
    from reference.precision import compare_exp_rational, mpf_to_fraction
    ee = q2m(e)
    assert ee * (mpmath.exp(2 * ee) + 1) > 2 * (mpmath.exp(ee) - 1)
    d = e / 1000
    printed = mpf_to_fraction(W.dp_to_pdp_delta_as_printed(e, d, dps=40)) * (1 + F(1, 10**30))
    assert printed < 1
    best = F(0)
    for law in dp_candidates(e, d, thresholds=(2 * e,), digits=16):
        assert is_dp(law)
        bad = sum((a for a, b in zip(law.p, law.q)
                   if a and (b == 0 or compare_exp_rational(2 * e, a / b) < 0 or compare_exp_rational(-2 * e, a / b) > 0)), F(0))
        best = max(best, bad)
    assert best > printed
    assert best <= mpf_to_fraction(W.dp_to_pdp_delta(e, d, dps=40))


def test_lemma1_bad_inputs():
    with pytest.raises(ValueError, match="eps"):
        W.dp_to_pdp_delta(0, "0.1")
    with pytest.raises(ValueError, match="delta"):
        W.dp_to_pdp_delta(1, 2)
    with pytest.raises(ValueError, match="eps"):
        W.dp_to_pdp_delta_as_printed(0, "0.1")
