"""The optimal adversary's horizon: no menu item is pruned, and every value is the game's on the stated menu.

The game value G(menu, horizon) = sup over adaptive analysts of the stopped transcript's hockey-stick
divergence is monotone: a larger menu or a longer horizon only adds policies (whitehouse2022 Lemma 3:
the analyst may always ignore an item or stop).  The engine's certified ends must respect that:

* the replayed policy of the smaller game (its certified lower end, a real analyst) never exceeds the
  certified upper end of the larger game (menus and horizons);
* by default the horizon is the target's own (every admitted path) and the result says it is complete;
  an explicit cap counts the admitted steps it cut and labels the value;
* a second route: a memoised 50-digit recursion over the same filter decisions with no horizon at all;
* negative controls: two planted rules that misbehave only off the filter's menu (a step between grid
  points charged at the nearest grid point, a step above eps_max charged as eps_max) are refuted by the
  default probes, and are *not* refuted when the search is cut to the old horizon (sum eps^2 <= rounds x
  (smallest eps)^2): the test's power.
"""
from __future__ import annotations

import math
from fractions import Fraction as F

import mpmath
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reference.precision import mpf_to_fraction
from reference.verify.engine import AccState, verify
from reference.verify.game import optimal_adversary
from reference.verify.game_targets import ChargeClampedTarget, ChargeNearestTarget, GameFilterTarget
from reference.verify.targets import WhitehouseFilter


def _lower(target, res):
    """Certified lower end: the argmax policy replayed in the exact verifier on the result's own horizon."""
    rep = verify(target, res.adversary, max_V=math.inf if res.max_V is None else res.max_V)
    return mpf_to_fraction(rep.lo)


def _g8():
    return GameFilterTarget(1, F(1, 100), F(1, 8), name="GAME_filter_grid_1/8")


def test_a_large_item_is_not_pruned_by_a_small_one():
    """The review's case: with {small, 2} the step 2 must still be played (a rule that admits it is broken)."""
    t = ChargeClampedTarget()
    alone = optimal_adversary(t, [F(2)])
    both = optimal_adversary(ChargeClampedTarget(), [F(1, 10), F(2)])
    assert alone.complete and both.complete and alone.max_V is None
    # one RR_2 step at eps = 1: (1 - e^-1) e^2 / (1 + e^2) = 0.5567...
    one = (1 - mpmath.exp(-1)) * mpmath.exp(2) / (1 + mpmath.exp(2))
    assert _lower(t, alone) <= mpf_to_fraction(one) * (1 + F(1, 10 ** 12)) <= alone.upper * (1 + F(1, 10 ** 9))
    assert _lower(t, alone) <= both.upper
    assert both.upper > F(1, 2)


def test_an_explicit_cap_counts_what_it_cut_and_keeps_every_item_at_the_root():
    t = ChargeClampedTarget()
    capped = optimal_adversary(t, [F(1, 10), F(2)], 1)
    # the cap is rounds x (largest eps)^2 = 4: the single step of 2 is inside, longer paths are cut and counted
    assert capped.max_V == 4 and capped.cut > 0 and not capped.complete
    assert "restricted" in capped.restriction and str(capped.max_V) in capped.restriction
    full = optimal_adversary(t, [F(1, 10), F(2)])
    assert full.complete and full.restriction == ""
    assert _lower(t, capped) <= full.upper
    assert capped.upper > F(1, 2)  # the large step is played at the root even under the cap


def test_a_cap_that_never_binds_is_complete_and_agrees():
    t = _g8()
    menu = [F(1, 8), F(1, 4), F(3, 8), F(1, 2)]
    full = optimal_adversary(t, menu)
    big = optimal_adversary(t, menu, 10_000)
    assert big.complete and big.cut == 0
    assert _lower(t, big) <= full.upper and _lower(t, full) <= big.upper


def test_the_full_horizon_reaches_what_the_filter_admits():
    """The GDP filter admits sum eps^2 up to about 0.54 on {1/16, 1/8}; the old cap stopped at 64/256 = 0.25."""
    from reference.verify.calibrated import GDPFilterTarget

    t = GDPFilterTarget(1, F(1, 10))
    res = optimal_adversary(t, [F(1, 16), F(1, 8)])
    top = max(j for (j, _, _) in res.adversary.policy) * F(1, 16) ** 2
    assert top > F(1, 2)
    # the keys end where the filter refuses both items: no admitted step lies beyond them
    for (j, m, x) in res.adversary.policy:
        st = AccState(j * F(1, 256), F(0), x, ((F(1, 16), F(0)), (F(1, 8), F(0))))
        if j * F(1, 256) == top:
            assert not t.admits(st, F(1, 16), F(0))


def _mp_value(target, menu, eps):
    """Second route: the game value by memoised recursion at 50 digits, no horizon, the target's exact decisions."""
    mp = mpmath.mp.clone()
    mp.dps = 50
    u = F(math.gcd(*[(e * 10 ** 6).numerator for e in menu]), 10 ** 6)
    a = [int(e / u) for e in menu]
    memo = {}
    items = tuple((e, F(0)) for e in menu)
    target.bind(items)
    counts_mode = target.stat == "counts"

    def V(x, l):
        key = (x, l)
        if key in memo:
            return memo[key]
        best = max(mp.mpf(0), 1 - mp.exp(mp.mpf(eps.numerator) / eps.denominator - mp.mpf(l) * u.numerator / u.denominator))
        Vst = sum(c * e * e for c, e in zip(x, menu))
        st = AccState(Vst, F(0), x if counts_mode else None, items)
        for i, e in enumerate(menu):
            if not target.admits(st, e, F(0)):
                continue
            E = mp.exp(mp.mpf(e.numerator) / e.denominator)
            x2 = x[:i] + (x[i] + 1,) + x[i + 1:]
            best = max(best, E / (1 + E) * V(x2, l + a[i]) + 1 / (1 + E) * V(x2, l - a[i]))
        memo[key] = best
        return best

    return F(mpmath.nstr(V((0,) * len(menu), 0), 45))


@pytest.mark.parametrize("menu", [[F(1, 8), F(5, 32)], [F(1, 8), F(2)], [F(3, 32), F(1, 4)]])
@pytest.mark.parametrize("make", [_g8, ChargeNearestTarget, ChargeClampedTarget])
def test_engine_brackets_a_50_digit_recursion_without_horizon(make, menu):
    t = make()
    res = optimal_adversary(t, menu)
    exact = _mp_value(make(), menu, F(t.eps))
    lo = _lower(t, res)
    assert lo * (1 - F(1, 10 ** 30)) <= exact <= res.upper * (1 + F(1, 10 ** 30))


_VALUES = [F(1, 16), F(1, 8), F(3, 16), F(1, 4), F(3, 8), F(1, 2), F(1), F(2)]


@settings(max_examples=25)
@given(st.lists(st.sampled_from(_VALUES), min_size=1, max_size=3, unique=True), st.sampled_from(_VALUES),
       st.sampled_from(["whitehouse", "game8", "clamped"]))
def test_value_is_monotone_in_the_menu(menu, extra, which):
    """G(menu) <= G(menu + {extra}): the smaller game's replayed analyst never beats the larger game's upper end."""
    make = {"whitehouse": lambda: WhitehouseFilter(1, F(1, 10), F(1, 10)), "game8": _g8,
            "clamped": ChargeClampedTarget}[which]
    t = make()
    small = optimal_adversary(t, menu)
    big_menu = sorted(set(menu) | {extra})
    big = optimal_adversary(make(), big_menu)
    assert small.complete and big.complete
    assert _lower(t, small) <= big.upper


@settings(max_examples=20)
@given(st.lists(st.sampled_from(_VALUES), min_size=1, max_size=3, unique=True), st.integers(1, 12), st.integers(1, 12))
def test_value_is_monotone_in_the_rounds_and_bounded_by_the_full_game(menu, r1, r2):
    r1, r2 = min(r1, r2), max(r1, r2)
    make = ChargeClampedTarget
    t = make()
    a = optimal_adversary(t, menu, r1)
    b = optimal_adversary(make(), menu, r2)
    full = optimal_adversary(make(), menu)
    assert _lower(t, a) <= b.upper and _lower(t, b) <= full.upper
    # a menu item never disappears silently: either nothing was cut, or the result says so
    for res in (a, b):
        assert res.complete == (res.cut == 0) and (res.complete or "restricted" in res.restriction)


def test_default_probes_refute_rules_wrong_only_off_the_menu():
    from reference.falsify import falsify

    for cid in ("NC-GAME-CHARGE-NEAREST", "NC-GAME-CHARGE-CLAMPED"):
        r = falsify(cid)[0]
        assert r.found, cid
        assert F(r.counterexample["probability_lower"]) > F(r.counterexample["promised"])
    assert not falsify("GAME-FILTER")[0].found


def test_the_old_horizon_misses_them(monkeypatch):
    """Power: with the horizon cut to rounds x (smallest eps)^2 (the previous engine's), the clamped rule escapes."""
    import reference.falsify.game_probes as gp
    import reference.verify.game as game
    from reference.falsify import falsify

    real = game.optimal_adversary

    def old_horizon(target, menu, rounds=None, **kw):
        es = [e if not isinstance(e, tuple) else e[0] for e in menu]
        return real(target, menu, max_V=64 * min(es) ** 2, **kw)  # the old probes' 64 rounds of the smallest step

    monkeypatch.setattr(game, "optimal_adversary", old_horizon)
    monkeypatch.setattr(gp, "GAME_PROBES", {})
    assert not falsify("NC-GAME-CHARGE-CLAMPED")[0].found
    assert falsify("NC-GAME-CHARGE-NEAREST")[0].found  # on the grid-adjacent menu it is still seen


def test_bad_horizons_are_refused():
    t = _g8()
    with pytest.raises(ValueError, match="rounds"):
        optimal_adversary(t, [F(1, 8)], 0)
    res = optimal_adversary(t, [F(1, 8)])
    with pytest.raises(ValueError, match="exactly one of rounds and max_V"):
        verify(t, res.adversary)
    with pytest.raises(ValueError, match="exactly one of rounds and max_V"):
        verify(t, res.adversary, 5, max_V=F(1))
    with pytest.raises(ValueError, match="max_V"):
        verify(t, res.adversary, max_V=F(-1))
    with pytest.raises(ValueError, match="at most one of rounds and max_V"):
        optimal_adversary(t, [F(1, 8)], 3, max_V=F(1))
    with pytest.raises(ValueError, match="max_keys"):
        optimal_adversary(WhitehouseFilter(1, F(1, 10), F(1, 10)), [F(1, 32), F(1, 16)], max_keys=10)
