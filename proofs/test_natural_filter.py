"""The natural PLD filter on a menu of subsampled Gaussians (reference.bounds.natural_filter), decided by the exact game.

Second routes:

* the region: single-item counts against the certified PLD engine (reference.profiles.sgm_pld), and
  a mixed count vector against the composition of the same laws by a 50-digit recursion without a
  window;
* the game: on a tiny menu, a 50-digit memoised recursion over (count vector, loss) without a window
  lies between the engine's lower and upper ends;
* the counterexample: the argmax policy of the lower recursion, replayed FORWARD (its mass pushed
  through the laws state by state, the stopped mass paid) rather than by backward maximisation,
  again exceeds delta;
* negative controls: the certified budget filter B* of the same menu (sgm_game_budget) is not
  refuted by the same search, and a menu on which the natural filter holds is certified to hold;
* slow: W8's own setting (eps = 2263/100) is refuted with lower laws at 2^-8.
"""
from __future__ import annotations

from fractions import Fraction as F
from functools import lru_cache

import mpmath
import numpy as np
import pytest

from reference.bounds.game import payoff_down
from reference.bounds.natural_filter import natural_filter_decision, natural_game, natural_region, staircase
from reference.bounds.sgm_game import SGMItem, sgm_law, sgm_menu_certificate
from reference.precision import mpf_to_fraction
from reference.profiles.sgm_pld import sgm_pld_delta_bracket

Q, S1, S2, DELTA = F(1, 10), F(1, 2), F(5, 8), F(1, 1000)
MENU = (SGMItem(Q, S1), SGMItem(Q, S2))
EPS_REFUTED, EPS_HOLDS = F(8), F(4)


@lru_cache(maxsize=None)
def _refuted():
    return natural_filter_decision(EPS_REFUTED, DELTA, MENU, bits=4, lower_bits=6)


@lru_cache(maxsize=None)
def _holds():
    return natural_filter_decision(EPS_HOLDS, DELTA, MENU, bits=4, lower_bits=6)


def _succ(n, k):
    return n[:k] + (n[k] + 1,) + n[k + 1:]


# ---------------------------------------------------------------------------------------------- the region

def test_region_is_a_down_set_with_a_refused_frontier():
    d = _refuted()
    S = d.states
    assert (0, 0) in S and len(S) > 100
    for n, v in S.items():
        assert v <= DELTA
        for k in range(2):
            if n[k]:
                assert n[:k] + (n[k] - 1,) + n[k + 1:] in S, n
            m = _succ(n, k)
            assert m in S or d.frontier[m] > DELTA        # every successor is decided, and refused iff above delta
    st = staircase(S)
    assert st == sorted(st, reverse=True) and len(st) > 10   # a staircase: more sigma-1/2 steps, fewer sigma-5/8 ones
    # the count vectors are exactly the staircase's
    assert set(S) == {(a, b) for a, top in enumerate(st) for b in range(top + 1)}


@pytest.mark.parametrize("k,item", [(5, 0), (30, 1)])
def test_single_item_counts_bracket_the_certified_pld_engine(k, item):
    """delta_up(n) is an upper end of the k-fold composition: at least the PLD engine's lower end, and not far above."""
    d = _refuted()
    n = (k, 0) if item == 0 else (0, k)
    ours = d.states.get(n, d.frontier.get(n))
    assert ours is not None
    b = sgm_pld_delta_bracket(Q, MENU[item].sigma, k, EPS_REFUTED)
    assert mpf_to_fraction(b.lo) <= ours
    assert ours <= 3 * mpf_to_fraction(b.hi) + F(1, 10 ** 12)         # the grid-1/16 split is pessimistic, but by a bounded factor


def _mp_game(eps, bits, laws, states, stop=True):
    """V(0, 0) by a memoised 50-digit recursion over (count vector, loss index), no window: item k admitted at n iff
    n + e_k in ``states``; ``stop=False`` forbids stopping before a state with no admitted successor (a composition)."""
    mp = mpmath.mp.clone()
    mp.dps = 50
    h = mp.mpf(1) / 2 ** bits
    E = mp.mpf(eps.numerator) / eps.denominator
    P = [[(L.off + j, mp.mpf(float(x))) for j, x in enumerate(L.p) if x] for L in laws]
    inf = [mp.mpf(float(L.inf)) for L in laws]
    memo = {}

    def f(l):
        return max(mp.mpf(0), 1 - mp.exp(E - l * h))

    def V(n, l):
        key = (n, l)
        if key in memo:
            return memo[key]
        opts = [k for k in range(len(laws)) if _succ(n, k) in states]
        best = f(l) if (stop or not opts) else mp.mpf(0)
        for k in opts:
            m = _succ(n, k)
            best = max(best, mp.fsum(p * V(m, l + j) for j, p in P[k]) + inf[k])
        memo[key] = best
        return best

    return V((0,) * len(laws), 0)


def test_a_mixed_count_vector_is_the_composition_at_50_digits():
    """delta_up((2, 1)) against the 50-digit composition of the same upper laws (no window): above it, and close."""
    eps, bits = EPS_HOLDS, 3
    reg = natural_region(eps, DELTA, MENU, bits=bits)
    n = max((m for m in reg["states"] if min(m) >= 1), key=sum)       # the largest mixed count vector admitted
    chain = {(a, 0) for a in range(n[0] + 1)} | {(n[0], b) for b in range(n[1] + 1)}
    worst = F(0)
    for direction in ("remove", "add"):
        laws = [sgm_law(it.q, it.sigma_eff, bits, reg["eta"], direction, "upper") for it in MENU]
        x = F(mpmath.nstr(_mp_game(eps, bits, laws, chain, stop=False), 40))
        worst = max(worst, x)
    assert worst * (1 - F(1, 10 ** 30)) <= reg["states"][n] <= worst * (1 + F(1, 10 ** 9)) + F(1, 10 ** 15)


# ---------------------------------------------------------------------------------------------- the game

def test_tiny_game_brackets_the_50_digit_recursion():
    eps, bits = EPS_HOLDS, 2
    reg = natural_region(eps, DELTA, MENU, bits=bits)
    S = set(reg["states"])
    assert len(S) >= 5
    for direction in ("remove", "add"):
        for side in ("upper", "lower"):
            laws = [sgm_law(it.q, it.sigma_eff, bits, reg["eta"], direction, side) for it in MENU]
            g = natural_game(eps, MENU, S, bits=bits, eta=reg["eta"], direction=direction, side=side,
                             window=reg["windows"][direction])
            x = F(mpmath.nstr(_mp_game(eps, bits, laws, S), 40))
            tol = F(1, 10 ** 30)
            if side == "upper":     # the window's closure is pessimistic: the engine is above the unwindowed value
                assert x - tol <= g["value"] <= x * (1 + F(1, 10 ** 6)) + F(1, 10 ** 15)
            else:
                assert x * (1 - F(1, 10 ** 6)) - F(1, 10 ** 15) <= g["value"] <= x + tol


def test_brackets_are_consistent_and_the_game_contains_every_path():
    for d in (_refuted(), _holds()):
        for direction in ("remove", "add"):
            assert d.lower[direction] <= d.upper[direction]
        # the game may follow any admitted path without stopping: its upper end is >= every state's delta_up
        # (the same laws and window; only the rounding differs)
        assert max(d.upper.values()) >= max(d.states.values()) * (1 - F(1, 10 ** 9))


def _replay_forward(eps, bits, laws, states, window, policy):
    """The value of a fixed policy (runs per state), by pushing its mass forward (float64), with the lower closure:
    mass below the window dropped, mass above it paid the payoff rounded down."""
    h = F(1, 1 << bits)
    lo, hi = window
    W = hi - lo + 1
    top = max(L.top for L in laws)
    f_ext = payoff_down(eps, h, lo, W + top + 1)      # the payoff on the window and the cells above it
    f = f_ext[:W]
    mass = {(0, 0): np.zeros(W)}
    mass[(0, 0)][-lo] = 1.0
    value = 0.0
    for n in sorted(states, key=sum):
        m = mass.pop(n, None)
        if m is None:
            continue
        act = np.full(W, -2)
        for a, b, x in policy[n]:
            act[a - lo: b - lo + 1] = -1 if x == "stop" else x
        assert (m[act == -2] == 0).all()           # the runs cover every loss that carries mass
        value += float(np.dot(m * (act == -1), f))
        for k, L in enumerate(laws):
            mk = m * (act == k)
            if not mk.any():
                continue
            nxt = _succ(n, k)
            assert nxt in states            # the policy takes only admitted steps
            full = np.convolve(mk, L.p)     # full[t] lands at window cell t + L.off
            cells = np.arange(len(full)) + L.off
            inside = (cells >= 0) & (cells < W)
            tgt = mass.setdefault(nxt, np.zeros(W))
            tgt[cells[inside]] += full[inside]
            above = cells >= W
            if above.any():
                value += float(np.dot(full[above], f_ext[cells[above]]))
    return value


def test_the_counterexample_is_replayed_forward():
    d = _refuted()
    assert d.refuted and not d.holds and d.verdict == "refuted"
    direction = max(d.lower, key=d.lower.get)
    assert d.lower[direction] > DELTA
    lb = d.extra["lower_bits"]
    w = d.extra["lower_windows"][direction]
    g = natural_game(EPS_REFUTED, MENU, set(d.states), bits=lb, eta=d.eta, direction=direction, side="lower",
                     window=w, policy_depth=10 ** 9)
    assert g["value"] == d.lower[direction]
    laws = [sgm_law(it.q, it.sigma_eff, lb, d.eta, direction, "lower") for it in MENU]
    v = _replay_forward(EPS_REFUTED, lb, laws, set(d.states), w, g["policy"])
    assert abs(v - g["raw"]) <= 1e-9 * g["raw"]
    assert F(v) * (1 - F(1, 10 ** 6)) > DELTA          # the policy's value, by a second route, exceeds delta
    # the first move is a real choice (an item, not "stop"), and the recorded runs cover the window at |n| <= 1
    assert d.extra["first_move"][direction] in (0, 1)
    for n in [(0, 0), (1, 0), (0, 1)]:
        runs = d.policy[direction][n]
        assert all(a <= b and w[0] <= a and b <= w[1] for a, b, _ in runs)
    # the analyst is adaptive: somewhere its choice of sigma depends on the realized loss
    n, runs = d.extra["first_adaptive"][direction]
    assert n in d.states and {x for _, _, x in runs} >= {0, 1}


def test_negative_control_the_budget_filter_is_not_refuted():
    """The certified budget filter B* of the same menu, searched by the same game on its own count region: its lower
    ends stay at or below delta (it is valid), while the natural filter's exceed it."""
    eps = EPS_REFUTED
    cert = sgm_menu_certificate(eps, DELTA, MENU, bits=4, lower=False)
    B, (c1, c2) = cert.budget, cert.costs
    assert B > 0
    S = {(a, b) for a in range(B // c1 + 1) for b in range((B - c1 * a) // c2 + 1)}
    d = _refuted()
    for direction in ("remove", "add"):
        w = d.extra["lower_windows"][direction]
        g = natural_game(eps, MENU, S, bits=6, eta=d.eta, direction=direction, side="lower", window=w)
        assert g["value"] <= DELTA
    assert max(d.lower.values()) > DELTA


def test_a_menu_on_which_the_natural_filter_holds():
    d = _holds()
    assert d.holds and not d.refuted and d.verdict == "holds"
    assert all(v <= DELTA for v in d.upper.values())


def test_bad_input_is_rejected():
    with pytest.raises(ValueError, match="bits"):
        natural_filter_decision(EPS_HOLDS, DELTA, MENU, bits=0)
    with pytest.raises(ValueError, match="delta"):
        natural_filter_decision(EPS_HOLDS, F(3, 2), MENU)
    with pytest.raises(ValueError, match="items"):
        natural_filter_decision(EPS_HOLDS, DELTA, [])
    with pytest.raises(ValueError, match="max_states"):
        natural_region(EPS_REFUTED, DELTA, MENU, bits=4, max_states=20)
    with pytest.raises(ValueError, match="zero count vector"):
        natural_game(EPS_HOLDS, MENU, {(1, 0)}, bits=4, eta=F(1, 10 ** 12), direction="remove", side="upper",
                     window=(-10, 10))


@pytest.mark.slow
def test_the_w8_setting_is_refuted_at_a_fine_lower_grid():
    """W8's eps = 2263/100 on the same menu: 12526 count vectors; lower laws at 2^-8 exceed delta (about 8 minutes)."""
    eps = F(2263, 100)
    reg = natural_region(eps, DELTA, MENU, bits=4)
    assert len(reg["states"]) > 10000
    w = reg["windows"]["remove"]
    g = natural_game(eps, MENU, set(reg["states"]), bits=8, eta=reg["eta"], direction="remove", side="lower",
                     window=(w[0] * 16, w[1] * 16))
    assert g["value"] > DELTA
