"""Adapters of reference.verify.targets agree with the shipped stateful filters and odometers.

Source: the targets' own results (whitehouse2022 Theorems 1, 2, 7; rogers2016 Theorems 3.6, 5.1,
6.5; feldman2021 Theorem 4.3, Remark 4.4, Theorem 4.7).  The verifier evaluates each shipped
object on an exact accountant state written into the object; here the same object class is driven
by its own public ``try_run``/``record`` on random step sequences and every decision/value is
compared with the adapter's answer on the state reached:

    adapter.admits(state_n, eps, delta) == fresh_object_after_n_steps.can_run(eps, delta),
    adapter.bound(state_n) == fresh_odometer_after_n_steps.bounds()/value()  (exact equality).
"""
from __future__ import annotations

import random
from fractions import Fraction as F

import mpmath
import pytest
from hypothesis import given, settings, strategies as st

from reference.verify import targets as T
from reference.accountants.feldman2021 import RenyiDPFilter
from reference.accountants.game import GameFilter
from reference.accountants.whitehouse2023 import DPFilter, Odometer, ZCDPFilter
from reference.precision import mpf_to_fraction
from reference.accountants.rogers2016 import AdvancedFilter, BasicFilter
from reference.verify.engine import AccState

MENU = ((F(1, 20), F(0)), (F(1, 10), F(1, 200)), (F(3, 20), F(0)), (F(1, 20), F(1, 1000)))


def fresh(name):
    """A fresh shipped object with the parameters of TARGETS[name] and how to feed it one step."""
    t = T.TARGETS[name][0]()
    o = t.obj if hasattr(t, "obj") else None
    return t, o


def _state(menu, counts):
    V = sum((c * e * e for (e, _), c in zip(menu, counts)), F(0))
    S = sum((c * d for (_, d), c in zip(menu, counts)), F(0))
    return AccState(V, S, tuple(counts), menu)


def _vstate(st):
    return AccState(st.V, st.delta_spent, None, st.menu)


FILTERS = [n for n, v in T.TARGETS.items() if v[0]().kind == "filter"]
ODOMETERS = [n for n, v in T.TARGETS.items() if v[0]().kind == "odometer"]


def _new_object(t):
    """A fresh instance of the adapter's shipped class with the same parameters (driven through its public API)."""
    o = getattr(t, "obj", None)
    return None if o is None else type(o)._from_params(dict(o.params))


@pytest.mark.parametrize("name", FILTERS)
@settings(deadline=None, max_examples=10)
@given(seed=st.integers(0, 10 ** 6))
def test_filter_adapter_agrees_with_stateful_object(name, seed):
    """adapter.admits(state, eps, delta) == object.can_run(eps, delta) along a random run driven by object.try_run."""
    t, _ = fresh(name)
    menu = MENU if t.supports_delta else tuple((e, F(0)) for e, _ in MENU)
    t.bind(menu)
    obj = _new_object(t)
    rng = random.Random(seed)
    counts = [0] * len(menu)
    for _ in range(40):
        i = rng.randrange(len(menu))
        e, d = menu[i]
        st_ = _state(menu, counts)
        if t.stat == "V" and not (isinstance(obj, Odometer) and sum(d > 0 for _, d in menu) > 1):
            # (the W22 odometers need the counts of a menu with several delta > 0 items for their pDP drift)
            st_ = _vstate(st_)
        want = _can(obj, t, e, d)
        assert t.admits(st_, e, d) == want, (name, counts, i)
        if want:
            assert _try(obj, t, e, d)
            counts[i] += 1


def _rho(t, e):
    return t._by_eps[e]


def _step_args(obj, t, e, d) -> tuple:
    """The arguments each filter's can_run/try_run takes for the menu step (e, d)."""
    if isinstance(obj, (DPFilter, BasicFilter, AdvancedFilter)):
        return (e, d)
    if isinstance(obj, ZCDPFilter):
        return (_rho(t, e), 0)
    if isinstance(obj, (RenyiDPFilter, GameFilter)):
        return (e,)
    return (_rho(t, e),)


def _can(obj, t, e, d):
    return obj.can_run(*_step_args(obj, t, e, d))


def _try(obj, t, e, d):
    return obj.try_run(*_step_args(obj, t, e, d))


@pytest.mark.parametrize("name", ODOMETERS)
def test_odometer_adapter_agrees_with_stateful_object(name):
    """adapter.bound(state_n) equals the odometer object's own value after recording the same n steps (exactly)."""
    t, _ = fresh(name)
    menu = MENU if t.supports_delta else tuple((e, F(0)) for e, _ in MENU)
    t.bind(menu)
    obj = _new_object(t)
    rng = random.Random(7)
    counts = [0] * len(menu)
    for _ in range(25):
        st_ = _state(menu, counts)
        if t.stat == "V" and not (isinstance(obj, Odometer) and sum(d > 0 for _, d in menu) > 1):
            # (the W22 odometers need the counts of a menu with several delta > 0 items for their pDP drift)
            st_ = _vstate(st_)
        got = t.bound(st_)
        if obj is None:  # the Renyi odometer is a function: compare with its definition at R = V/2
            from reference.bounds.feldman2021 import renyi_odometer_zcdp
            want = renyi_odometer_zcdp(st_.V / 2, t.delta, t.alphas, dps=t.dps)
        elif isinstance(obj, Odometer):
            want = obj.bounds(dps=t.dps)[t.family]
        else:
            want = obj.value(dps=t.dps)
        assert got == (None if mpmath.isinf(want) else mpf_to_fraction(want)), (name, counts)
        i = rng.randrange(len(menu))
        e, d = menu[i]
        if obj is not None:
            obj.record(e, d)
        counts[i] += 1


def test_two_sided_and_families_are_declared():
    """Rogers odometers use |L| > COMP (Definition 3.1); Whitehouse odometers L > u_n; Renyi odometer L >= u_n."""
    for n in ODOMETERS:
        t = T.TARGETS[n][0]()
        assert t.two_sided == n.startswith("R16"), n
    assert T.TARGETS["F21_renyi_odometer"][0]().at_equality
