"""Catalog outputs fed into filters: a filter never admits a step that the exact rule refuses.

A catalog value rounded to nearest (direction "exact") may lie below the true quantity, and
a rational quantity (rho = Delta^2/(2 sigma^2)) rounded to a binary value is no longer
that rational.  :class:`reference.precision.Certified` carries the exact rational when it
is known and the certified enclosure otherwise; the filters charge a step at the upper end
and read a budget at the lower end.  These tests pin the two regressions that motivated it
and check the property over every catalog entry with a numeric default value.
"""
from fractions import Fraction
from functools import lru_cache

import mpmath
import pytest
from hypothesis import given, strategies as st

from reference import catalog
from reference.accountants import ZCDPFilter
from reference.accountants.feldman2021 import RenyiZCDPFilter
from reference.bounds import classical as C
from reference.precision import Certified, certified, check, mpf_to_fraction, rational, to_exact, Domain


def _count(filt, charge, limit=10_000) -> int:
    n = 0
    while n < limit and filt.try_run(charge):
        n += 1
    return n


def test_gaussian_rho_is_exactly_one_two_hundredth():
    """rho of the sigma = 10 Gaussian mechanism is exactly 1/200; a 0.5 budget admits exactly 100 such steps.

    Second route: 0.5 / (1/200) = 100 in Fraction arithmetic.  The rounded binary value of
    1/200 lies above 1/200, which is why charging the rounded value admitted 99.
    """
    r = C.gaussian_zcdp_rho(10)
    assert isinstance(r, Certified) and r.exact == Fraction(1, 200)
    assert mpf_to_fraction(r) > Fraction(1, 200)  # the value alone would be charged too much
    assert _count(ZCDPFilter("0.5"), r) == Fraction(1, 2) / Fraction(1, 200) == 100
    assert _count(RenyiZCDPFilter("0.5"), r) == 100


def _rounded_below_true():
    """A catalog value rounded to nearest that lies strictly below its true value (certified at 120 digits)."""
    for eps in ("0.3", "0.7", "1.1", "1.3", "2", "0.9", "0.5", "0.1"):
        v = C.rr_zcdp_rho(eps, dps=30)
        fine = C.rr_zcdp_rho(eps, dps=120)
        if fine.end("lower") > mpf_to_fraction(v):
            return v, fine
    raise AssertionError("no example found")  # pragma: no cover


def test_rounded_down_charge_cannot_admit_an_extra_step():
    """Budget = 18 x (the rounded value) while the true value is larger: the exact rule admits 17, so must the filter.

    Charging the rounded value itself would admit 18 steps, each of true cost t with 18 t > budget.
    """
    v, fine = _rounded_below_true()
    budget = 18 * mpf_to_fraction(v)
    assert 18 * fine.end("lower") > budget  # the exact rule refuses the 18th step
    assert _count(ZCDPFilter(budget), v) == 17
    assert _count(RenyiZCDPFilter(budget), v) == 17


def test_rounded_up_budget_cannot_admit_an_extra_step():
    """A budget rounded to nearest may exceed the true budget: the filter reads its lower end."""
    for eps in ("0.3", "0.7", "1.1", "1.3", "2", "0.9", "0.5", "0.1"):
        v = C.rr_zcdp_rho(eps, dps=30)
        fine = C.rr_zcdp_rho(eps, dps=120)
        if fine.end("upper") < mpf_to_fraction(v):
            break
    else:  # pragma: no cover
        raise AssertionError("no example found")
    step = mpf_to_fraction(v) / 5  # 5 steps fit the rounded value exactly, but not the true budget
    assert 5 * step > fine.end("upper")
    assert _count(ZCDPFilter(v), step) == 4


def test_check_end_contract():
    """``check(..., end=...)`` takes the enclosure end; a bound (upper/lower direction) is its own number."""
    v = C.rr_zcdp_rho("0.7", dps=30)
    dom = Domain.nonnegative()
    assert check("x", v, dom, end="upper") == mpf_to_fraction(v.upper) >= mpf_to_fraction(v)
    assert check("x", v, dom, end="lower") == mpf_to_fraction(v.lower) <= mpf_to_fraction(v)
    assert check("x", v, dom) == to_exact(v, "x") == mpf_to_fraction(v)
    with pytest.raises(ValueError, match="end must be"):
        v.end("middle")
    u = certified(lambda c, x: c.sqrt(x), (Fraction(2),), "upper", 20)  # a bound: used as the number it is
    assert u.lower == u.upper == u
    r = rational(Fraction(1, 3), "upper", 20)
    assert check("x", r, dom, end="lower") == check("x", r, dom, end="upper") == Fraction(1, 3)


@lru_cache(maxsize=None)
def _numeric_defaults() -> tuple:
    out = []
    for e in catalog.entries():
        try:
            v = e(**e.defaults())
        except Exception:
            continue
        if isinstance(v, (mpmath.mpf, Fraction, int)) and not isinstance(v, bool):
            q = to_exact(v, e.id) if mpmath.isfinite(v) else None
            if q is not None and 0 < q < 10 ** 6:
                out.append((e.id, v))
    return tuple(out)


def _true_range(v):
    """(lo, hi): exact rationals with lo <= the true quantity <= hi as a step parameter."""
    if isinstance(v, Certified):  # read the fields directly: the oracle must not share the code under test
        if v.exact is not None:
            return v.exact, v.exact
        return mpf_to_fraction(v.lower), mpf_to_fraction(v.upper)
    q = to_exact(v, "v")
    return q, q


def test_there_are_numeric_outputs_of_every_kind():
    kinds = {("enc" if isinstance(v, Certified) and v.exact is None and v.lower != v.upper else
              "exact" if isinstance(v, Certified) and v.exact is not None else "bound")
             for _, v in _numeric_defaults()}
    assert kinds == {"enc", "exact", "bound"}


@given(st.sampled_from(range(400)), st.integers(1, 40), st.sampled_from(["zcdp", "renyi"]))
def test_catalog_output_as_charge_never_overspends(i, k, which):
    """Budget k x (the value as rounded); charged the output, the filter admits n with n x (every possible true value) <= budget."""
    items = _numeric_defaults()
    eid, v = items[i % len(items)]
    lo, hi = _true_range(v)
    budget = k * to_exact(v, eid)
    filt = ZCDPFilter(budget) if which == "zcdp" else RenyiZCDPFilter(budget)
    n = _count(filt, v, limit=k + 2)
    assert n * hi <= budget, (eid, n, k)
    if lo == hi:  # exactly known: the filter is also tight
        assert n == budget // hi


@given(st.sampled_from(range(400)), st.integers(1, 40))
def test_catalog_output_as_budget_never_overspends(i, k):
    """Budget = the output; k equal charges of (its rounded value)/k: the filter admits n with n x charge <= every possible true budget."""
    items = _numeric_defaults()
    eid, v = items[i % len(items)]
    lo, hi = _true_range(v)
    charge = to_exact(v, eid) / k
    n = _count(ZCDPFilter(v), charge, limit=k + 2)
    assert n * charge <= lo, (eid, n, k)
    if lo == hi:
        assert n == k
