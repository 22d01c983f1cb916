"""The exact adaptive game (reference.verify.game) and the game-certified filter, each number by a second route.

* one-item menu: the game is the optimal homogeneous composition, so its budget is the KOV count
  (reference.bounds.baselines.optimal_rounds_homogeneous, exact mpmath decisions) and its values
  bracket kov_delta;
* a small game solved independently by memoised recursion in mpmath at 50 digits: the engine's
  certified ends contain it for every budget;
* the certificate of the shipped filter re-checked by replaying the argmax policy in the exact
  verifier (the filter's own decisions): the replayed analyst reaches the game value, and at
  B* + 1 it exceeds delta;
* the generic engine (any Target) agrees with the threshold engine on the same filter;
* negative controls: the sum-of-squares budget at the KOV count and the budget B* + 1 are caught,
  and a weaker adversary in the falsifier does not catch B* + 1 (the test's power);
* the accountant: exact integer decisions, eps_max refused, saved state with its certificate.
"""
from __future__ import annotations

import json
from fractions import Fraction as F

import mpmath
import pytest

from reference.accountants.game import GameFilter
from reference.bounds.baselines import optimal_rounds_homogeneous
from reference.bounds.classical import kov_delta
from reference.bounds.game_filter import game_budget, game_menu
from reference.verify.engine import Homogeneous, verify
from reference.verify.game import TablePolicy, optimal_adversary, threshold_game
from reference.verify.game_targets import (BudgetPlusOneTarget, ChargeRoundedDownTarget, GameFilterTarget,
                                           SumSquaresAtKOVTarget)

D6 = F(1, 10 ** 6)


@pytest.mark.parametrize("eps0", ["0.1", "0.05", "0.02", "0.01"])
def test_one_item_game_is_the_optimal_homogeneous_composition(eps0):
    e0 = F(eps0)
    n = optimal_rounds_homogeneous(e0, 1, D6)
    t = threshold_game(1, e0, [1], [1], n + 1)
    assert t.decided(D6) == (n, True)
    for k in (n - 1, n, n + 1):
        exact = kov_delta(e0, 0, k, 1, dps=40)
        assert t.lower(k) <= F(mpmath.nstr(exact, 40)) * (1 + F(1, 10 ** 30)) and F(mpmath.nstr(exact, 40)) <= t.upper(k) * (1 + F(1, 10 ** 30))


def test_one_item_game_reproduces_the_kov_count_at_eps0_0001():
    t = threshold_game(1, F(1, 1000), [1], [1], 56040)
    assert t.decided(D6) == (56032, True) == (optimal_rounds_homogeneous(F(1, 1000), 1, D6), True)


def _mp_game(eps, g, steps, R_top, dps=50):
    """Independent route: V(R, l) = max(payoff, max_k p_k V(R - m_k^2, l + m_k) + q_k V(R - m_k^2, l - m_k)), memoised, mpmath."""
    mp = mpmath.mp.clone()
    mp.dps = dps
    e = mp.mpf(eps.numerator) / eps.denominator
    gg = mp.mpf(g.numerator) / g.denominator
    pq = {m: (mp.exp(m * gg) / (1 + mp.exp(m * gg)), 1 / (1 + mp.exp(m * gg))) for m in steps}
    memo = {}

    def V(R, l):
        key = (R, l)
        if key in memo:
            return memo[key]
        best = max(mp.mpf(0), 1 - mp.exp(e - l * gg))
        for m in steps:
            if m * m <= R:
                p, q = pq[m]
                best = max(best, p * V(R - m * m, l + m) + q * V(R - m * m, l - m))
        memo[key] = best
        return best

    return [V(R, 0) for R in range(R_top + 1)]


@pytest.mark.parametrize("near", [4096, 1])
def test_small_game_against_a_50_digit_recursion(near):
    """near = 1: every step of charge > 1 reads the float32 rows rounded up (the large-step path)."""
    eps, g, steps = F(1, 2), F(1, 10), (1, 2, 3)
    ref = _mp_game(eps, g, steps, 40)
    t = threshold_game(eps, g, list(steps), [m * m for m in steps], 40, eta=F(1, 10 ** 40), near=near)
    assert (t.far_hops > 0) == (near == 1)
    for R, v in enumerate(ref):
        x = F(mpmath.nstr(v, 45))
        slack = F(1, 10 ** 40)
        assert t.lower(R) <= x + slack and x <= t.upper(R) + slack, R
        assert t.upper(R) - t.lower(R) <= x * F(1, 10 ** 5) + F(1, 10 ** 30), R  # and the bracket is tight
    assert ref[40] > ref[20] > 0  # the case is not trivial


def test_shipped_certificate_replayed_in_the_exact_verifier():
    gb = game_budget(1, D6, F(1, 100))
    assert gb.budget == 549 and gb.decided and gb.upper_at_budget <= D6 < gb.lower_above
    S = gb.steps
    t = threshold_game(1, F(1, 100), list(S), [m * m for m in S], gb.R_max, keep_policy=True)
    assert t.largest_budget(D6) == gb.budget
    # the argmax policy at B*: a real analyst against the shipped filter, value inside the certified bracket
    r = verify(GameFilterTarget(), TablePolicy(t, gb.budget), 600)
    assert r.verdict == "pass" and t.lower(gb.budget) <= F(mpmath.nstr(r.hi, 30)) * (1 + F(1, 10 ** 12))
    assert F(mpmath.nstr(r.lo, 30)) * (1 - F(1, 10 ** 12)) <= t.upper(gb.budget)
    # at B* + 1 the replayed analyst breaks delta: B* is the largest budget for this menu
    r1 = verify(BudgetPlusOneTarget(), TablePolicy(t, gb.budget + 1), 600)
    assert r1.verdict == "FAIL" and r1.lo > mpmath.mpf(10) ** -6


def test_generic_engine_agrees_with_the_threshold_engine():
    gb = game_budget(1, D6, F(1, 100))
    menu = [F(m, 100) for m in gb.steps]
    res = optimal_adversary(GameFilterTarget(), menu, 600)
    t = threshold_game(1, F(1, 100), list(gb.steps), [m * m for m in gb.steps], gb.R_max)
    assert t.lower(gb.budget) <= res.upper and res.raw <= float(t.upper(gb.budget)) * (1 + 1e-9)


def test_sum_of_squares_at_the_kov_count_is_caught():
    """The issue's shortcut: sum eps^2 <= 562 x 0.01^2 at (1, 1e-6) is broken by an adaptive analyst."""
    tgt = SumSquaresAtKOVTarget()
    assert tgt.n == 562
    res = optimal_adversary(tgt, [F(m, 100) for m in range(1, 24)], 600)
    r = verify(tgt, res.adversary, 600)
    # the outside prototype's 1.2776e-6 (plain floats) lies in the certified bracket of the replayed analyst
    assert r.verdict == "FAIL" and mpmath.mpf("1.27755e-6") < r.lo <= r.hi < mpmath.mpf("1.27765e-6")
    assert F(mpmath.nstr(r.lo, 30)) <= res.upper * (1 + F(1, 10 ** 9))
    # the homogeneous analyst alone does not see it (562 steps are exactly the KOV count)
    h = verify(tgt, Homogeneous(F(1, 100)), 600)
    assert h.hi <= mpmath.mpf(10) ** -6


def test_charge_rounded_down_is_caught():
    tgt = ChargeRoundedDownTarget(1, F(1, 100), F(1, 10))
    res = optimal_adversary(tgt, [F(1, 10), F(19, 100)], 100)
    assert verify(tgt, res.adversary, 100).verdict == "FAIL"


def test_falsifier_needs_the_optimal_adversary(monkeypatch):
    """B* + 1 exceeds delta by under 2%: only the optimal analyst sees it.  With a weaker engine (the homogeneous
    policy in place of the argmax), the same search finds nothing: a weakened adversary makes this test fail."""
    import reference.falsify.game_probes as gp
    import reference.verify.game as game
    from reference.falsify import falsify

    r = falsify("NC-GAME-BUDGET-PLUS-ONE")[0]
    assert r.found and r.counterexample["adversary"] == "game-optimal"
    assert F(r.counterexample["probability_lower"]) < F(11, 10) * F(r.counterexample["promised"])  # a 10% slack hides it

    real = game.optimal_adversary

    def weaker(target, menu, rounds, **kw):
        res = real(target, menu[:1], rounds, **kw)  # the smallest step only: a homogeneous analyst
        return res

    monkeypatch.setattr(game, "optimal_adversary", weaker)
    monkeypatch.setattr(gp, "GAME_PROBES", {})
    assert not falsify("NC-GAME-BUDGET-PLUS-ONE")[0].found


def test_menu_and_charges():
    assert game_menu(8) == tuple(range(1, 9))
    assert game_menu(64) == (1, 2, 3, 4, 5, 6, 7, 8, 10, 13, 17, 22, 28, 35, 44, 55, 64)
    f = GameFilter(1, "1e-6", "0.01")
    assert f.budget == 549 and f.certificate["budget"] == 549
    assert [f.charge(x) for x in ("0", "0.01", "0.005", "0.0101", "0.09", "0.1", "0.23")] == [0, 1, 1, 4, 100, 100, 529]
    with pytest.raises(ValueError, match="eps_max"):
        f.charge("0.2301")


def test_accountant_admits_exactly_the_budget_and_resumes_with_its_certificate():
    f = GameFilter(1, "1e-6", "0.01")
    n = 0
    while f.try_run("0.01"):
        n += 1
    assert n == 549 and f.remaining() == {"budget": 549, "spent": 549, "remaining": 0}
    g = GameFilter(1, "1e-6", "0.01")
    for _ in range(5):
        g.run("0.1")  # 100 units each
    assert not g.can_run("0.1") and g.can_run("0.07") and g.remaining()["remaining"] == 49
    s = g.to_json()
    h = GameFilter.from_json(s)
    assert h.remaining() == g.remaining() and h.certificate == g.certificate
    d = json.loads(s)
    d["params"]["budget"] = "600"
    from reference.accountants.base import _digest
    d["digest"] = _digest({k: v for k, v in d.items() if k not in ("digest", "hmac")})
    with pytest.raises(ValueError, match="budget"):
        GameFilter.from_dict(d)
    # keyed state with a journal: the certificate travels under the HMAC, an older state is refused
    from reference.accountants import StateJournal
    j = StateJournal()
    old = g.to_json(key=b"curator", journal=j)
    g.run("0.01")
    new = g.to_json(key=b"curator", journal=j)
    assert GameFilter.from_json(new, key=b"curator", journal=j).remaining()["remaining"] == 48
    with pytest.raises(ValueError, match="older"):
        GameFilter.from_json(old, key=b"curator", journal=j)


def test_bad_inputs_are_refused():
    with pytest.raises(ValueError, match="grid"):
        GameFilter(1, "1e-6", "0")
    with pytest.raises(ValueError, match="delta"):
        GameFilter(1, "1", "0.01")
    with pytest.raises(ValueError, match="delta must be at least 1e-300"):
        GameFilter(50, "1e-400", "1")
    assert GameFilter(1, "1e-300", "0.1").certificate["decided"]
    with pytest.raises(ValueError, match="MAX_BUDGET"):
        game_budget(1, "1e-6", "0.0001")
    with pytest.raises(ValueError, match="steps"):
        threshold_game(1, F(1, 10), [0], [1], 5)
    with pytest.raises(ValueError, match="max_bytes"):
        threshold_game(1, F(1, 1000), [1, 2], [1, 4], 50_000, max_bytes=10 ** 4)
    with pytest.raises(ValueError, match="R_max"):
        threshold_game(1, F(1, 10), [1], [1], -1)


def test_certificate_does_not_depend_on_the_callers_mpmath_precision():
    """The certificate is rounded from raw mpmath tuples (no context rounding): the caller's mp.prec changes nothing."""
    from reference.bounds.game_filter import _game_budget

    _game_budget.cache_clear()
    a = game_budget(1, D6, F(1, 50)).as_dict()
    _game_budget.cache_clear()
    with mpmath.workdps(60):
        b = game_budget(1, D6, F(1, 50)).as_dict()
    _game_budget.cache_clear()
    with mpmath.workprec(20):
        c = game_budget(1, D6, F(1, 50)).as_dict()
    assert a == b == c
    assert F(a["game_value_at_budget_upper"]) <= D6 < F(a["game_value_above_budget_lower"])


def test_reveal_items_against_a_50_digit_recursion():
    """(eps, delta) items: conditional RR_{eps, delta} reveals with probability delta (payoff 1).  An independent
    memoised mpmath recursion over (V, delta spent, loss) on the shipped filter's exact decisions contains the engine's
    value between its certified upper end and the replayed policy's lower end."""
    from reference.verify.targets import WhitehouseFilter

    menu = [(F(1, 4), F(0)), (F(1, 4), F(1, 40)), (F(1, 2), F(0))]
    tgt = WhitehouseFilter(1, F(1, 10), F(1, 10))
    res = optimal_adversary(tgt, menu, 40)
    rep = verify(tgt, res.adversary, 40)
    mp = mpmath.mp.clone()
    mp.dps = 50
    memo = {}
    from reference.verify.engine import AccState

    def V(j, dsp, l):  # V = j/16 (units of (1/4)^2), loss = l/4
        key = (j, dsp, l)
        if key in memo:
            return memo[key]
        best = max(mp.mpf(0), 1 - mp.exp(1 - mp.mpf(l) / 4))
        st = AccState(F(j, 16), dsp, None, tuple(menu))
        for e, d in menu:
            a = int(e * 4)
            if j + a * a > 40 or not tgt.admits(st, e, d):
                continue
            E = mp.exp(mp.mpf(e.numerator) / e.denominator)
            dm = mp.mpf(d.numerator) / d.denominator
            v = dm + (1 - dm) * (E / (1 + E) * V(j + a * a, dsp + d, l + a) + 1 / (1 + E) * V(j + a * a, dsp + d, l - a))
            best = max(best, v)
        memo[key] = best
        return best

    exact = F(mpmath.nstr(V(0, F(0), 0), 45))
    assert F(mpmath.nstr(rep.lo, 40)) * (1 - F(1, 10 ** 30)) <= exact <= res.upper * (1 + F(1, 10 ** 30))
    assert res.upper - F(mpmath.nstr(rep.lo, 40)) <= exact * F(1, 10 ** 9)
    assert exact > F(1, 40)  # the reveal items are used


def test_a_coarse_window_still_brackets_the_exact_value():
    """With eta = 1/4 the window is narrow and leaving it is likely: the upper end (payoff 1 above, the Hoeffding
    bound below) must still be above the exact value, and the lower end (minus both) below it."""
    eps, g, steps = F(1, 2), F(1, 10), (1, 2, 3)
    ref = _mp_game(eps, g, steps, 40)
    t = threshold_game(eps, g, list(steps), [m * m for m in steps], 40, eta=F(1, 4))
    assert t.exit_hi + t.pad_lo > F(1, 1000)  # the truncation terms matter here
    for R, v in enumerate(ref):
        x = F(mpmath.nstr(v, 45))
        assert t.lower(R) <= x <= t.upper(R), R


def test_policy_lookup_uses_the_whole_key():
    """The replayed policy answers at (V, delta spent, counts): two keys with the same V and different delta spent keep
    their own actions."""
    import numpy as np
    from reference.verify.engine import AccState, View
    from reference.verify.targets import WhitehouseFilter

    menu = [(F(1, 8), F(0)), (F(1, 8), F(1, 20)), (F(1, 4), F(0))]  # two delta items exhaust delta'' = 1/10
    res = optimal_adversary(WhitehouseFilter(1, F(1, 10), F(1, 10)), menu, 40)
    pol = res.adversary.policy
    pairs = [(k1, k2) for k1 in pol for k2 in pol if k1[0] == k2[0] and k1[1] < k2[1]]
    assert pairs, "the game has keys of equal V and different delta spent"
    differ = 0
    for k1, k2 in pairs:
        for key in (k1, k2):
            off, arr = pol[key]
            view = View(F(1, 8), key[0], key[1], AccState(F(key[0], 64), key[1] * F(1, 20), None, tuple(menu)), (1, 1, 2))
            kk = np.arange(off, off + len(arr), dtype=np.int64)
            assert (res.adversary.choose(view, kk) == arr).all(), key
        o1, a1 = pol[k1]
        o2, a2 = pol[k2]
        differ += any(a1[i - o1] != a2[i - o2] for i in range(max(o1, o2), min(o1 + len(a1), o2 + len(a2))))
    assert differ  # the delta spent changes some action, so a lookup ignoring it would act wrongly


def test_window_exit_bound_is_the_hoeffding_ville_bound_just_outside():
    """The exit probability is bounded at the first lattice point above the window (not further out), with
    sum eps^2 <= s R_max g^2 and drift <= half of it (s = max steps^2 / charges)."""
    from reference.bounds.game import hoeffding_exit

    eps, g, steps = F(1, 2), F(1, 10), (1, 2, 3)
    for eta in (F(1, 4), F(1, 10 ** 6)):
        t = threshold_game(eps, g, list(steps), [m * m for m in steps], 40, eta=eta)
        var = 40 * g * g
        assert t.exit_hi == hoeffding_exit((t.window[1] + 1) * g, var, var / 2)
        assert t.pad_lo == hoeffding_exit(eps - (t.window[0] - 1) * g, var, var / 2)
        assert t.exit_hi + t.pad_lo <= eta  # the window meets its target


def test_budget_equal_to_the_kov_count_is_still_decided():
    """When the menu does not help (eps0 = 0.1: B* = n_KOV = 10), the sweep must reach B* + 1 to certify it."""
    gb = game_budget(1, D6, F(1, 10))
    assert gb.budget == gb.kov == 10 and gb.decided and gb.lower_above > D6


@pytest.mark.parametrize("eps0", ["0.1", "0.05", "0.01"])
def test_cycle_convolution_on_a_one_step_cycle_is_the_kov_count(eps0):
    """The certified forward convolution (the plan's optimum for mixed cycles) reproduces the KOV count on a cycle of one
    step, from scratch and from a known-good start."""
    from reference.bounds.game import cycle_optimal_rounds

    n = optimal_rounds_homogeneous(F(eps0), 1, D6)
    assert cycle_optimal_rounds([eps0], 1, D6) == (n, True)
    assert cycle_optimal_rounds([eps0], 1, D6, n_start=max(0, n - 5)) == (n, True)
    assert cycle_optimal_rounds([eps0], 1, D6, max_cells=10) is None or n <= 2


def test_cycle_optimum_decides_on_the_upper_end():
    """A delta strictly inside the certified bracket of delta_m: m is not admitted (its upper end exceeds delta) and the
    count is not 'decided' (its lower end does not); the brackets contain the KOV values."""
    from reference.bounds.game import cycle_optimal_rounds

    tr: list = []
    n, ok = cycle_optimal_rounds(["0.05"], 1, D6, trace=tr)
    assert ok and n == 26
    for m, lo, hi in tr:
        exact = F(mpmath.nstr(kov_delta(F(1, 20), 0, m, 1, dps=40), 38))
        assert lo * (1 - F(1, 10 ** 30)) <= exact <= hi * (1 + F(1, 10 ** 30)) and lo < hi
    m, lo, hi = tr[-1]
    assert m == 27
    assert cycle_optimal_rounds(["0.05"], 1, (lo + hi) / 2) == (26, False)
