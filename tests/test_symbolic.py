"""SymPy derivations agree with reference/ at random points (inputs converted to mpf first) and differ from misprints."""
import random
from fractions import Fraction as F

import mpmath
import pytest
import sympy as sp

from reference.bounds import whitehouse2023 as W
from reference.catalog import entries
from symbolic import whitehouse2023 as S


def num(expr, **vals):
    """Evaluate a SymPy expression at 60 digits with mpf inputs (never float)."""
    syms = sorted(expr.free_symbols, key=lambda s: s.name)
    f = sp.lambdify(syms, expr, modules="mpmath")
    with mpmath.workdps(60):
        return f(*[mpmath.mpf(vals[s.name]) for s in syms])


POINTS = [(F(random.Random(i).randint(1, 4000), 1000), F(1, 10 ** random.Random(i + 99).randint(1, 40))) for i in range(12)]


@pytest.mark.parametrize("e, dp", POINTS)
def test_ystar_and_filter_odometer_match_reference(e, dp):
    L = str(mpmath.log(mpmath.mpf(dp.denominator) / dp.numerator))
    ys = num(S.y_star().result, epsilon=str(mpmath.mpf(e.numerator) / e.denominator), L=L)
    assert abs(ys - W.y_star(e, dp)) < mpmath.mpf(10) ** -40 * ys
    printed = num(S.y_star_as_printed(), epsilon=str(mpmath.mpf(e.numerator) / e.denominator), L=L)
    assert abs(printed - W.y_star_as_printed(e, dp)) < mpmath.mpf(10) ** -40 * printed
    assert abs(printed - ys) > ys / 10  # the misprint is not a rounding difference
    u = S.filter_odometer().result
    v = F(1, 7)
    got = num(u, V=str(mpmath.mpf(1) / 7), L=L, y=str(W.y_star(e, dp)))
    assert abs(got - W.filter_odometer(v, e, dp)) < mpmath.mpf(10) ** -35 * got


def test_a_b_and_zcdp_and_mixture():
    a, b = S.a_b().result
    assert sp.simplify(a - S.y) == 0 and sp.simplify(b - sp.sqrt(2 * S.L * S.y)) == 0
    z = S.zcdp_to_dp().result
    assert abs(num(z, rho="0.3", L=str(mpmath.log(10**6))) - W.zcdp_to_dp_eps("0.3", "1e-6")) < mpmath.mpf(10) ** -40
    m = S.normal_mixture().result
    val = num(m, V="2", rho="0.5", delta="0.001")
    assert abs(val - W.mixture_boundary(2, "0.5", "0.001")) < mpmath.mpf(10) ** -40


def test_rr_expected_loss_series_and_stitching_constants():
    d = S.rr_expected_loss()
    assert d.steps[1][1] == 0
    assert sp.expand(d.steps[2][1]).coeff(S.eps, 4) == sp.Rational(1, 24)
    k, inv_s, c = [sp.N(t, 30) for t in S.stitching_constants().result]
    assert k <= sp.Rational(17, 10) and inv_s <= sp.Rational(72, 100) and c <= sp.Rational(52, 10)


def test_every_derivation_renders():
    for name, f in S.DERIVATIONS.items():
        d = f()
        assert name in d.as_text() and d.as_latex()


def test_every_catalog_function_carries_its_citation():
    for e in entries():
        cites = getattr(e.func, "__citations__", ())
        assert any(c["id"] == e.id for c in cites)
        doc = (e.func.__doc__ or "").strip().splitlines()[0]
        markers = (e.paper, "Howard", "Theorem", "Lemma", "Definition", "Proposition", "Corollary", "Fact",
                   "Example", "Remark", "Algorithm", "eq.", "Equation", "Figure", "Table")
        assert any(k in doc for k in markers), f"{e.id}: first docstring line must cite its source: {doc!r}"
