"""The exact adaptive game over discrete dominating pairs (reference.bounds.pair_game) and its DP-SGD menus (sgm_game).

Second routes:

* randomized response is one case of the engine: on RR laws it brackets the same values as the
  pure-DP engine (reference.bounds.game.threshold_game) and a 50-digit memoised recursion;
* one subsampled-Gaussian step: the game at budget 1 is the one-step hockey-stick divergence, whose
  closed form (the optimal test is a half-line; Gaussian tails at 40 digits) is independent (both directions);
* one item, k steps: stopping never helps, so the game at budget k is the k-fold composition, which
  the certified PLD engine (reference.profiles.sgm_pld) brackets: the two brackets intersect;
* a menu: the certified budget never exceeds what any single item allows at its cost, and an extra
  item never raises it (the analyst only gains options);
* negative controls: an "upper" law with its losses one grid step low falls below the quadrature
  truth, and an engine that forgets the +infinity mass is caught on a law whose tail is all there.
"""
from __future__ import annotations

from fractions import Fraction as F

import mpmath
import numpy as np
import pytest

from proofs.pair_recursion import mp_game_values
from reference.bounds.game import threshold_game
from reference.bounds.pair_game import StepLaw, pair_game, rr_law
from reference.bounds.sgm_game import SGMItem, default_costs, sgm_game_budget, sgm_law, sgm_single_item_rounds


def _mp(x):
    x = F(x)
    return mpmath.mpf(x.numerator) / x.denominator


# ---------------------------------------------------------------------------------------------- randomized response

def _rr_mp_game(eps, g, steps, R_max):
    """G_R for the threshold filter (charge = steps^2) by memoised recursion at 50 digits (no window)."""
    mp = mpmath.mp.clone()
    mp.dps = 50
    memo = {}

    def V(R, l):
        if (R, l) in memo:
            return memo[(R, l)]
        best = max(mp.mpf(0), 1 - mp.exp(_mp(eps) - l * _mp(g)))
        for m in steps:
            c = m * m
            if c <= R:
                E = mp.exp(m * _mp(g))
                best = max(best, E / (1 + E) * V(R - c, l + m) + 1 / (1 + E) * V(R - c, l - m))
        memo[(R, l)] = best
        return best

    return [V(R, 0) for R in range(R_max + 1)]


def test_rr_is_one_case_of_the_engine():
    eps, g, steps, R_max = F(1, 2), F(1, 10), (1, 2, 3), 40
    ref = _rr_mp_game(eps, g, steps, R_max)
    t = threshold_game(eps, g, list(steps), [m * m for m in steps], R_max)
    up = pair_game(eps, g, [rr_law(m * g, m, "upper") for m in steps], [m * m for m in steps], R_max, window=(-80, 60))
    lo = pair_game(eps, g, [rr_law(m * g, m, "lower") for m in steps], [m * m for m in steps], R_max, window=(-80, 60))
    for R, v in enumerate(ref):
        x = F(mpmath.nstr(v, 45))
        assert lo.lower(R) <= x <= up.upper(R), R
        assert t.lower(R) <= up.upper(R) and lo.lower(R) <= t.upper(R)
        assert up.upper(R) - lo.lower(R) <= x * F(1, 10 ** 9) + F(1, 10 ** 300)


def test_a_narrow_window_stays_on_its_side():
    """Closing the window (read at lo below, 1 above for the upper end; 0 and the payoff for the lower) is valid for
    any window: a window far too narrow still brackets the exact recursion."""
    eps, g, steps, R_max = F(1, 2), F(1, 10), (1, 2), 30
    ref = _rr_mp_game(eps, g, steps, R_max)
    up = pair_game(eps, g, [rr_law(m * g, m, "upper") for m in steps], [m * m for m in steps], R_max, window=(-2, 6))
    lo = pair_game(eps, g, [rr_law(m * g, m, "lower") for m in steps], [m * m for m in steps], R_max, window=(-2, 6))
    for R, v in enumerate(ref):
        x = F(mpmath.nstr(v, 45))
        assert lo.lower(R) <= x <= up.upper(R), R
    assert up.upper(R_max) > F(mpmath.nstr(ref[-1], 45)) * F(11, 10)  # and it is loose: the closure matters here


# ---------------------------------------------------------------------------------------------- one SGM step

def _one_step_delta(q, s, eps, direction):
    """H_{e^eps} of the ZDW pair in closed form at 40 digits: remove = (P || Q), add = (Q || P).

    The loss l(x) = log(1 - q + q e^{(2x - 1)/(2 s^2)}) is increasing, so the optimal test is a
    half-line: remove, x > x+ with l(x+) = eps; add, x < x- with l(x-) = -eps (empty when
    e^-eps <= 1 - q).  S_Q(x) = Phi^c(x/s), S_P(x) = (1 - q) S_Q(x) + q Phi^c((x - 1)/s).
    """
    with mpmath.workdps(40):
        q, s, eps = _mp(q), _mp(s), _mp(eps)
        SQ = lambda x: mpmath.erfc(x / (s * mpmath.sqrt(2))) / 2  # noqa: E731
        SP = lambda x: (1 - q) * SQ(x) + q * SQ(x - 1)  # noqa: E731
        if direction == "remove":
            x = s ** 2 * mpmath.log((mpmath.exp(eps) - 1 + q) / q) + mpmath.mpf(1) / 2
            return SP(x) - mpmath.exp(eps) * SQ(x)
        if mpmath.exp(-eps) <= 1 - q:
            return mpmath.mpf(0)
        x = s ** 2 * mpmath.log((mpmath.exp(-eps) - 1 + q) / q) + mpmath.mpf(1) / 2
        return (1 - SQ(x)) - mpmath.exp(eps) * (1 - SP(x))


@pytest.mark.parametrize("q,s,eps", [(F(1, 10), F(1, 2), F(1)), (F(1, 2), F(1), F(1, 4)), (F(1), F(2), F(1, 10)),
                                     (F(1, 100), F(3, 4), F(1, 2))])
@pytest.mark.parametrize("direction", ["remove", "add"])
def test_one_step_brackets_quadrature(q, s, eps, direction):
    eta = F(1, 10 ** 14)
    truth = _one_step_delta(q, s, eps, direction)
    up = pair_game(eps, F(1, 64), [sgm_law(q, s, 6, eta, direction, "upper")], [1], 1, window=(-2000, 2000))
    lo = pair_game(eps, F(1, 64), [sgm_law(q, s, 6, eta, direction, "lower")], [1], 1, window=(-2000, 2000))
    x = F(mpmath.nstr(truth, 35))
    tol = F(1, 10 ** 25)
    assert lo.lower(1) <= x + tol and x - tol <= up.upper(1)
    assert up.upper(1) - lo.lower(1) <= F(1, 10) * x + F(1, 10 ** 12)  # and both are near it at h = 1/64
    if (eps * 64).denominator == 1:
        # at a grid point the split is exact (Doroshenko et al. 2022): the optimal test {l > eps} is a union of buckets,
        # and the split keeps each bucket's hockey-stick value there; only the tails (eta) and rounding remain
        assert up.upper(1) - x <= x * F(1, 10 ** 9) + 4 * eta


def test_the_bottom_closure_reads_at_the_window():
    """A window whose bottom is just below 0 (the top far away): paths that dip below it and climb back above eps are
    counted, since the row is read at its bottom there (V nondecreasing); reading them as 0 would undercut the truth."""
    eps, g, steps, R_max = F(1, 2), F(1, 10), (1, 2), 30
    ref = _rr_mp_game(eps, g, steps, R_max)
    up = pair_game(eps, g, [rr_law(m * g, m, "upper") for m in steps], [m * m for m in steps], R_max, window=(-1, 80))
    for R, v in enumerate(ref):
        assert F(mpmath.nstr(v, 45)) <= up.upper(R), R


def test_upper_law_with_losses_rounded_down_is_caught():
    """Negative control: the same masses placed one grid step lower (the loss rounded down) undercut the truth."""
    q, s, eps = F(1, 10), F(1, 2), F(1)
    L = sgm_law(q, s, 6, F(1, 10 ** 14), "remove", "upper")
    bad = StepLaw(L.off - 1, L.p, L.inf, "upper")
    truth = F(mpmath.nstr(_one_step_delta(q, s, eps, "remove"), 35))
    t = pair_game(eps, F(1, 64), [bad], [1], 1, window=(-2000, 2000))
    assert t.upper(1) < truth


def test_forgetting_the_infinite_mass_is_caught():
    """A law whose whole mass sits at +infinity has value 1 from any budget >= its cost; without that term, 0."""
    L = StepLaw(0, np.zeros(1), 0.25, "upper")
    t = pair_game(F(1), F(1, 8), [L], [1], 4, window=(-10, 20))
    assert t.upper(1) >= F(1, 4) and t.upper(0) < F(1, 10 ** 300)
    with pytest.raises(ValueError, match="inf must be 0"):
        StepLaw(0, np.zeros(1), 0.25, "lower")


# ---------------------------------------------------------------------------------------------- k steps of one item

def test_one_item_game_meets_the_pld_engine():
    from reference.profiles.sgm_pld import sgm_pld_delta_bracket

    q, s, eps, k = F(1, 10), F(1, 2), F(4), 12
    c = sgm_game_budget(eps, F(1, 2), [SGMItem(q, s)], [1], bits=6, R_max=k, lower=False, window=(-1500, 900))
    up = max(pair_game(eps, F(1, 64), [sgm_law(q, s, 6, F(1, 10 ** 16), d, "upper")], [1], k,
                       window=(-1500, 900)).upper(k) for d in ("remove", "add"))
    lo = max(pair_game(eps, F(1, 64), [sgm_law(q, s, 6, F(1, 10 ** 16), d, "lower")], [1], k,
                       window=(-1500, 900)).lower(k) for d in ("remove", "add"))
    b = sgm_pld_delta_bracket(q, s, k, eps)
    plo, phi = F(mpmath.nstr(b.lo, 30)), F(mpmath.nstr(b.hi, 30))
    tol = F(1, 10 ** 20)
    assert up >= plo - tol and lo <= phi + tol
    assert c.budget == k  # delta = 1/2 is far above: every step fits


def test_single_item_rounds_are_the_non_adaptive_count():
    """W8's setting at a coarse grid: the game's count for one item is the homogeneous composition's."""
    from reference.profiles.sgm_pld import sgm_pld_delta_bracket

    q, s, eps, delta = F(1, 10), F(1, 2), F(2263, 100), F(1, 1000)
    k0 = sgm_single_item_rounds(eps, delta, SGMItem(q, s), bits=5)
    assert 90 <= k0 <= 100
    # the certified PLD engine: k0 + 1 steps may not be certified-refuted by its upper end... but k0 steps must not be
    # certified above delta by its lower end (the game's upper end at k0 is <= delta and dominates the truth)
    b = sgm_pld_delta_bracket(q, s, k0, eps)
    assert F(mpmath.nstr(b.lo, 30)) <= delta


# ---------------------------------------------------------------------------------------------- menus

def test_menu_budget_respects_every_single_item():
    eps, delta = F(2263, 100), F(1, 1000)
    items = [SGMItem(F(1, 10), F(1, 2)), SGMItem(F(1, 10), F(5, 8))]
    k0 = [sgm_single_item_rounds(eps, delta, it, bits=5) for it in items]
    costs = default_costs(k0)
    R = min((k + 1) * c for k, c in zip(k0, costs))
    c = sgm_game_budget(eps, delta, items, costs, bits=5, R_max=R)
    assert 0 <= c.budget < R
    for i, (k, cost) in enumerate(zip(k0, costs)):
        assert c.rounds(i) <= k  # no item gets more than its own optimum
    # the menu's upper end at B* is <= delta; adding a third item never raises the budget
    assert c.upper_at_budget <= delta
    c3 = sgm_game_budget(eps, delta, items + [SGMItem(F(1, 5), F(5, 8))], list(costs) + [max(costs)], bits=5, R_max=R)
    assert c3.budget <= c.budget
    # a share of the optimum well above the Renyi filter's on this row (73%)
    assert min(c.rounds(i) / k for i, k in enumerate(k0)) >= F(9, 10)


def test_default_costs():
    assert default_costs([100, 250]) == (5, 2)
    assert default_costs([1000]) == (1,)
    c = default_costs([10000, 16000, 6000])
    ideal = [16000 / k for k in (10000, 16000, 6000)]
    u = c[1]
    assert all(abs(ci / u - x) / x <= 0.02 for ci, x in zip(c, ideal))
    with pytest.raises(ValueError, match="k0"):
        default_costs([0, 3])


def test_bad_inputs_are_refused():
    with pytest.raises(ValueError, match="q must lie"):
        SGMItem(F(3, 2), F(1))
    with pytest.raises(ValueError, match="scale"):
        SGMItem(F(1, 2), F(1), F(2))
    with pytest.raises(ValueError, match="bits"):
        sgm_law(F(1, 2), F(1), 40, F(1, 10 ** 9), "remove", "upper")
    with pytest.raises(ValueError, match="direction"):
        sgm_law(F(1, 2), F(1), 4, F(1, 10 ** 9), "both", "upper")
    with pytest.raises(ValueError, match="costs"):
        pair_game(F(1), F(1, 8), [rr_law(F(1, 8), 1)], [0], 3, window=(-5, 5))
    with pytest.raises(ValueError, match="window"):
        pair_game(F(1), F(1, 8), [rr_law(F(1, 8), 1)], [1], 3, window=(1, 5))
    with pytest.raises(ValueError, match="one side"):
        pair_game(F(1), F(1, 8), [rr_law(F(1, 8), 1), rr_law(F(1, 8), 1, "lower")], [1, 1], 3, window=(-5, 5))
    with pytest.raises(ValueError, match="max_bytes"):
        pair_game(F(1), F(1, 8), [rr_law(F(1, 8), 1)], [1], 3, window=(-10 ** 8, 10 ** 8))
    with pytest.raises(ValueError, match="R_max"):
        sgm_game_budget(1, F(1, 10), [SGMItem(F(1, 2), F(1))], [1])


@pytest.mark.parametrize("eps,item,R", [(F(1921, 125), SGMItem(F(1, 50), F(1)), 16), (F(2263, 100), SGMItem(F(1, 10), F(1, 2)), 30),
                                        (F(1, 2), SGMItem(F(1, 2), F(2)), 40)])
def test_level_windows_are_as_tight_as_one_wide_window(eps, item, R):
    """The windows per remaining budget are a choice for speed: valid whatever they are, and here no looser than one
    window wide enough for every level (a top cut below eps + 8 once made V at the bottom, and every cell read there,
    large: at eps = 15.4 a single step was refused)."""
    from reference.bounds.sgm_game import _window

    h = F(1, 32)
    for d in ("remove", "add"):
        L = sgm_law(item.q, item.sigma_eff, 5, F(1, 10 ** 14), d, "upper")
        lv = pair_game(eps, h, [L], [1], R, window=_window([L], [1], R, eps, h))
        wide = pair_game(eps, h, [L], [1], R, window=(-8000, int((eps + 8) * 32) + 1))
        for r in range(R + 1):
            assert wide.upper(r) * (1 - F(1, 10 ** 6)) - F(1, 10 ** 12) <= lv.upper(r) <= wide.upper(r) * (1 + F(1, 10 ** 6)) + F(1, 10 ** 12), (d, r)


@pytest.mark.parametrize("exact", [False, True], ids=["doubles", "exact-integers"])
@pytest.mark.parametrize("side", ["upper", "lower"])
def test_menu_game_equals_a_50_digit_recursion_over_the_same_laws(side, exact, monkeypatch):
    """Second route for the engine on a DP-SGD menu: the same discrete laws (their doubles read exactly), recursed in
    mpmath at 50 digits over (budget, loss) with no window; the engine's end is on its side of it and within 1e-9 --
    with the correlations in doubles and, forced, in exact integers (the path large games take)."""
    import reference.bounds.pair_game as pg

    if exact:
        monkeypatch.setattr(pg, "EXACT_MIN", 0)
        monkeypatch.setattr(pg, "EXACT_MIN_TERMS", 0)
    eps, h = F(3, 2), F(1, 8)
    items = [SGMItem(F(1, 4), F(1)), SGMItem(F(1, 2), F(3, 2))]
    costs, R_max = (2, 3), 9
    for d in ("remove", "add"):
        laws = [sgm_law(it.q, it.sigma_eff, 3, F(1, 10 ** 12), d, side) for it in items]
        span = R_max * max(max(-L.off, L.top) for L in laws) + 2
        t = pair_game(eps, h, laws, list(costs), R_max, window=(-span, span))
        xs = mp_game_values(eps, h, laws, costs, R_max)
        # the exact-integer path is absolute: at most 2^-61 per level (rows on multiples of 2^-62)
        tiny = F(R_max + 1, 2 ** 60) if exact else F(1, 10 ** 300)
        for R, x in enumerate(xs):
            if side == "upper":
                assert x <= t.upper(R) <= x * (1 + F(1, 10 ** 9)) + tiny, (d, R)
            else:
                assert x * (1 - F(1, 10 ** 9)) - tiny <= t.lower(R) <= x, (d, R)


def test_exact_correlation_is_directed():
    """The exact-integer correlation lies on its side of the exact sum of the doubles, within 2^-60 absolute."""
    import reference.bounds.pair_game as pg

    rng = np.random.default_rng(7)
    for side, scale in (("upper", 1.0), ("lower", 1.0), ("upper", 1e-25), ("lower", 1e-25)):
        p = rng.random(40) / 50
        L = StepLaw(-3, p, 0.0 if side == "lower" else 1e-30, side)
        ext = rng.random(200 + len(p) - 1) * scale      # tiny rows: below the fixed point's unit
        old = pg.EXACT_MIN
        try:
            pg.EXACT_MIN = 0
            c = pg._correlate(ext, L, 200, side == "upper")
        finally:
            pg.EXACT_MIN = old
        assert not np.array_equal(c, np.convolve(ext, L.rev, "valid") + L.inf) or side == "lower"
        P = [F(float(x)) for x in p]
        for i in range(200):
            exact = sum((P[j] * F(float(ext[i + j])) for j in range(len(P))), F(0)) + F(L.inf)
            got = F(float(c[i]))
            # 2^-62 per input and output rounding, then the doubles' own roundings (a few ulps, relative 2^-50)
            if side == "upper":
                assert exact <= got <= (exact + F(1, 2 ** 60)) * (1 + F(1, 2 ** 50))
            else:
                assert (exact - F(1, 2 ** 60)) * (1 - F(1, 2 ** 50)) <= got <= exact


def test_the_fixed_window_transition_closes_like_the_budget_engine():
    """apply_law (the count-state games' transition) reads below its window at the window's bottom on the upper side
    and as 0 on the lower side, the same closure as pair_game's rows: checked cell by cell on a law that reaches 3
    cells down and 2 up."""
    from reference.bounds.pair_game import apply_law

    p = np.array([0.1, 0.2, 0.3, 0.0, 0.15, 0.25])  # losses -3 .. +2
    for side, below in (("upper", 0.5), ("lower", 0.0)):
        L = StepLaw(-3, p, 0.0, side)
        W, pad_dn, pad_up = 4, 3, 2
        win = np.array([0.5, 0.6, 0.7, 0.8])
        row = np.concatenate([np.full(pad_dn, 9.0), win, np.array([1.0, 1.0])])
        out = apply_law(row, L, pad_dn, W, side, np.empty(W))
        full = np.concatenate([np.full(pad_dn, below), win, np.array([1.0, 1.0])])
        want = [sum(p[j] * full[pad_dn + i - 3 + j] for j in range(len(p))) for i in range(W)]
        assert np.allclose(out, want, rtol=1e-15, atol=0), side
