"""SymPy derivations for Rogers et al., Feldman-Zrnic and the classical yardsticks, checked against reference/.

Inputs are converted to ``mpf`` before calling a lambdified expression, so the
comparison runs at the test-side 110 digits (see the root conftest).
"""
from fractions import Fraction as F

import mpmath
import pytest
import sympy as sp
from hypothesis import example, given, strategies as st

from reference.bounds import classical as C
from reference.bounds import feldman2021 as FZ
from reference.bounds import rogers2016 as R
from reference.bounds import whitehouse2023 as W
from symbolic import classical as SC
from symbolic import feldman2021 as SF
from symbolic import rogers2016 as SR

TIGHT = mpmath.mpf(10) ** -40
small = st.fractions(min_value=F(1, 1000), max_value=5)
deltas = st.sampled_from([F(1, 10), F(1, 1000), F(1, 10**6), F(1, 10**30)])


def mp(q):
    return mpmath.mpf(q.numerator) / q.denominator


def rel(a, b):
    return abs(a - b) / max(abs(b), mpmath.mpf(10) ** -300)


def lam(expr, *syms):
    return sp.lambdify(syms, expr, "mpmath")


# ---------------------------------------------------------------- Rogers et al.

@given(small, small, st.sampled_from([F(1, 10), F(1, 1000), F(1, 10**6)]))
def test_theorem4_3_derivation_matches_reference(U2, beta, delta):
    f = lam(SR.theorem4_3().result, SR.U2, SR.beta, SR.delta)
    assert rel(f(mp(U2), mp(beta), mp(delta)), R.martingale_bound(U2, beta, delta)) < TIGHT


@given(st.lists(st.fractions(min_value=F(1, 100), max_value=F(1, 2)), min_size=1, max_size=6),
       st.sampled_from([F(1, 2), F(1), F(3)]), st.sampled_from([F(1, 1000), F(1, 10**6)]))
def test_eq12_derivation_matches_reference_K(eps, eps_g, dg):
    d = SR.theorem5_1_filter()
    V = sum(e * e for e in eps)
    L = -mpmath.log(mp(dg))
    beta = mp(eps_g) ** 2 / (mpmath.mpf("28.04") * L)
    Mu = sum(mp(e) * (mpmath.exp(mp(e)) - 1) / 2 for e in eps)
    f = lam(d.result, sp.Symbol("Mu", positive=True), SR.V, SR.beta, SR.dg)
    assert rel(f(Mu, mp(V), beta, mp(dg)), R.advanced_filter_K(eps, eps_g, dg)) < TIGHT


def test_constant_28_04_is_the_lambert_w_minimiser():
    d = SR.constant_28_04()
    cstar = sp.N(d.result, 60)
    assert rel(mpmath.mpf(str(cstar)), R.optimal_constant()) < TIGHT
    assert str(cstar).startswith("28.04")
    # the stationarity condition as derived is the one the reference brackets
    assert sp.simplify(d.steps[3][1] - (SR.u - sp.log(SR.u) - 3)) == 0


@pytest.mark.parametrize("n", [5, 10, 1000])
def test_theorem6_5_derivation_matches_reference(n):
    d = SR.theorem6_5()
    m = int(sp.ceiling(sp.log(n**2, 2)))
    # eq. (17) regime, V in [1/n^2, 1]
    eps = [F(1, 10)] * 5
    V = sum(e * e for e in eps)
    Fv = mpmath.log(2 * m / mpmath.mpf("1e-6"))
    Mu = sum(mp(e) * (mpmath.exp(mp(e)) - 1) / 2 for e in eps)
    eq17 = lam(d.result, sp.Symbol("F", positive=True), SR.V)
    got = R.advanced_odometer(eps, [0] * 5, "1e-6", n)
    assert rel(Mu + eq17(Fv, mp(V)), got) < TIGHT
    # the cell's exact worst case is below the printed (17): the paper's bound is valid
    worst = lam(d.steps[3][1], sp.Symbol("F", positive=True), SR.V)
    assert worst(Fv, mp(V)) < eq17(Fv, mp(V))
    # the stationarity sign: (t - log(t+1) - 2)/t^2 < 0 on [1, 2]
    t = sp.Symbol("t", positive=True)
    assert all(d.steps[2][1].subs(t, x) < 0 for x in (1, sp.Rational(3, 2), 2))


@pytest.mark.parametrize("n", [4, 8, 1000])
def test_theorem6_5_eq18_derivation_matches_reference(n):
    """Below the grid (V < 1/n^2) the odometer is Lemma 6.4 at beta = 1/n^2, eq. (18)."""
    d = SR.theorem6_5()
    m = int(sp.ceiling(sp.log(n**2, 2)))
    eps = [F(1, 10 * n)] * 3
    V = sum(e * e for e in eps)
    assert V < F(1, n * n)
    Fv = mpmath.log(2 * m / mpmath.mpf("1e-6"))
    Mu = sum(mp(e) * (mpmath.exp(mp(e)) - 1) / 2 for e in eps)
    eq18 = lam(d.steps[5][1], sp.Symbol("F", positive=True), SR.V, SR.n)
    got = R.advanced_odometer(eps, [0] * 3, "1e-6", n)
    assert rel(Mu + eq18(Fv, mp(V), mpmath.mpf(n)), got) < TIGHT  # mpf n: an int would make 1/n**2 a float


# ---------------------------------------------------------------- Feldman-Zrnic

def test_remark4_4_rule_is_free_of_alpha():
    d = SF.remark4_4()
    assert SF.alpha not in d.result.free_symbols


@given(st.fractions(min_value=F(1, 10**4), max_value=50), deltas)
@example(F(1, 2), F(1, 10**6))
def test_fact2_4_on_zcdp_matches_reference(rho, delta):
    d = SF.dp_conversion()
    f = lam(d.result, SF.rho, SF.L)
    L = -mpmath.log(mp(delta))
    assert rel(f(mp(rho), L), FZ.zcdp_filter_dp_eps(rho, delta)) < TIGHT
    a_star = lam(d.steps[1][1], SF.rho, SF.L)(mp(rho), L)
    assert rel(a_star, FZ.zcdp_best_alpha(rho, delta)) < mpmath.mpf(10) ** -30


@given(st.fractions(min_value=F(1, 1000), max_value=20), deltas)
def test_dp_filter_budget_matches_reference(eps, delta):
    f = lam(SF.dp_filter_budget().result, SF.eps, SF.L)
    assert rel(f(mp(eps), -mpmath.log(mp(delta))), FZ.dp_filter_rho_budget(eps, delta)) < TIGHT


# ---------------------------------------------------------------- classical

@given(st.lists(st.fractions(min_value=F(1, 1000), max_value=3), min_size=1, max_size=8), deltas)
def test_advanced_composition_from_theorem3_matches_eq2(eps, delta):
    f = lam(SC.advanced_composition().result, sp.Symbol("Mu", positive=True), SC.V, SC.L)
    Mu = sum(mp(e) * mpmath.tanh(mp(e) / 2) for e in eps)
    V = sum(mp(e) ** 2 for e in eps)
    assert rel(f(Mu, V, -mpmath.log(mp(delta))), W.advanced_composition_eps(eps, delta)) < TIGHT


@pytest.mark.parametrize("rho,delta", [("0.01", "1e-6"), ("0.5", "1e-6"), ("2", "1e-10"), ("0.1", "1e-3")])
def test_improved_conversion_optimum_solves_the_derived_stationarity(rho, delta):
    res = C.zcdp_to_dp(rho, delta)
    g = SC.improved_zcdp_conversion().result.lhs
    f = lam(g, SC.alpha, SC.rho, SC.delta)
    root = mpmath.findroot(lambda a: f(a, mpmath.mpf(rho), mpmath.mpf(delta)), res.alpha)
    assert abs(root - res.alpha) / root < mpmath.mpf(10) ** -6
    e_alpha = lam(SC.improved_zcdp_conversion().steps[0][1], SC.alpha, SC.rho, SC.delta)
    assert res.eps >= e_alpha(root, mpmath.mpf(rho), mpmath.mpf(delta)) - mpmath.mpf(10) ** -40
    assert rel(res.eps, e_alpha(root, mpmath.mpf(rho), mpmath.mpf(delta))) < mpmath.mpf(10) ** -12


def test_pdp_drift_derivation_matches_the_library():
    """symbolic whitehouse2023.pdp_drift (errata W22-THM2-DELTA) = reference.bounds.whitehouse2023.pdp_drift, rounded up."""
    import sympy as sp
    from reference.bounds.whitehouse2023 import pdp_drift
    from symbolic import whitehouse2023 as SW
    d = SW.pdp_drift()
    e_s, d_s = sp.Symbol("epsilon", positive=True), sp.Symbol("delta", positive=True)
    for e, dl in ((F(1, 10), F(1, 100)), (F(1, 2), F(1, 20)), (F(2), F(1, 10))):
        ref = sp.N(d.result.subs({e_s: sp.Rational(e.numerator, e.denominator), d_s: sp.Rational(dl.numerator, dl.denominator)}), 50)
        got = pdp_drift(e, dl, dps=40)
        assert got >= mpmath.mpf(str(ref)) * (1 - mpmath.mpf(10) ** -38)
        assert got <= mpmath.mpf(str(ref)) * (1 + mpmath.mpf(10) ** -35)
    assert d.steps[4][1] == 0  # delta = 0 gives eps tanh(eps/2)


def test_pdp_drift_two_sided_derivation_matches_the_library():
    """symbolic whitehouse2023.pdp_drift_two_sided = reference.bounds.whitehouse2023.pdp_drift_two_sided (rounded up, tight to
    1e-35) below delta = 1 - e^-eps; every identity step of the derivation simplifies to 0."""
    from reference.bounds.whitehouse2023 import pdp_drift_two_sided
    from symbolic import whitehouse2023 as SW
    d = SW.pdp_drift_two_sided()
    e_s, d_s = sp.Symbol("epsilon", positive=True), sp.Symbol("delta", positive=True)
    for e, dl in ((F(1, 10), F(1, 100)), (F(1, 2), F(1, 20)), (F(1), F(1, 10)), (F(2), F(1, 10)), (F(1, 1000), F(1, 10**6))):
        ref = sp.N(d.result.subs({e_s: sp.Rational(e.numerator, e.denominator), d_s: sp.Rational(dl.numerator, dl.denominator)}), 50)
        got = pdp_drift_two_sided(e, dl, dps=40)
        assert got >= mpmath.mpf(str(ref)) * (1 - mpmath.mpf(10) ** -38)
        assert got <= mpmath.mpf(str(ref)) * (1 + mpmath.mpf(10) ** -35)
    zeros = {t: e for t, e in d.steps if e == 0 or e == sp.Tuple(0, 0)}
    assert len(zeros) == 6  # alpha and beta; the closed form; the coth form; the crossover at eps; the attaining law; delta = 0
