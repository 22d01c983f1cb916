"""feldman2021 Algorithm 3 (individual privacy filtering) on the exact DP-SGD game: the per-example filter's claims.

Claims (reference/accountants/individual_game.py, module docstring):

1. an example whose norm is always s C plays the game of one item at scale s: with a one-scale
   menu it gets exactly k0 = the game's single-item rounds (second route:
   :func:`reference.bounds.sgm_game.sgm_single_item_rounds` at scale s, through the identity
   "scale s at noise sigma is scale 1 at noise sigma/s"); on a menu, exactly floor(B*/c_k) steps,
   at most k0_k;
2. every step is charged at an item that dominates it (q <= q_k, sigma/scale >= sigma/s_k, exact
   rationals; :meth:`reference.bounds.sgm_game.SGMItem.dominates`), the scale rounded UP;
3. negative control: rounding the scale DOWN admits a homogeneous run whose game value, at the
   true scale, is certified above delta (lower end of the game on lower laws) -- the check in 2
   fails on it.

Coarse grids (bits 4) keep each certificate at about a second.
"""
from __future__ import annotations

import math
from fractions import Fraction as F

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from reference.accountants.individual_game import IndividualDPSGDGameFilter
from reference.bounds.individual_game import individual_game_rounds
from reference.bounds.pair_game import pair_game
from reference.bounds.sgm_game import SGMItem, _window, sgm_law, sgm_single_item_rounds

EPS, DELTA, Q, SIGMA, BITS = F(4), F(1, 1000), F(1, 10), F(1), 4
SCALES = (F(1, 2), F(1))


def _homogeneous_steps(f: IndividualDPSGDGameFilter, norm: float) -> int:
    """Steps a single example with a constant norm is admitted before its first refusal."""
    k = 0
    while f.try_run(np.array([norm]))[0]:
        k += 1
    assert not f.try_run(np.array([norm]))[0]      # refused for good at this norm
    return k


@pytest.mark.parametrize("s", [F(1), F(1, 2)])
def test_one_scale_menu_gives_exactly_the_single_item_rounds(s):
    """Claim 1: steps of a constant norm C at noise sigma/s = sgm_single_item_rounds(SGMItem(q, sigma, scale=s))."""
    k0 = sgm_single_item_rounds(EPS, DELTA, SGMItem(Q, SIGMA, s), bits=BITS)
    f = IndividualDPSGDGameFilter(EPS, DELTA, Q, SIGMA / s, 1, 1, scales=[1], bits=BITS)
    assert f.costs == (1,) and f.budget == k0
    assert _homogeneous_steps(f, 1.0) == k0


@pytest.mark.parametrize("k", [0, 1])
def test_homogeneous_scale_on_a_menu_gets_floor_budget_over_cost(k):
    """Claim 1 on a menu: floor(B*/c_k) steps (integer arithmetic), and no more than the item's own k0_k."""
    f = IndividualDPSGDGameFilter(EPS, DELTA, Q, SIGMA, 1, 1, scales=SCALES, bits=BITS)
    got = _homogeneous_steps(f, float(SCALES[k]))
    assert got == f.budget // f.costs[k]
    assert got <= sgm_single_item_rounds(EPS, DELTA, SGMItem(Q, SIGMA, SCALES[k]), bits=BITS)


@settings(max_examples=60, deadline=None)
@given(st.one_of(st.floats(0, 4, allow_nan=False, exclude_min=True), st.sampled_from([0.5, 1.0, 0.25, 0.75])))
@example(0.5)                                  # exactly s_1 C: item 0, not item 1
@example(math.nextafter(0.5, 1))               # just above it: item 1
@example(1e300)                                # far above C: the top item, scale 1
def test_every_charged_item_dominates_its_step(x):
    """Claim 2: the charged item k has sigma/s_k <= sigma/min(1, n/C) (exact), and k is the least such item."""
    f = IndividualDPSGDGameFilter(EPS, DELTA, Q, SIGMA, 1, 1, scales=SCALES, bits=BITS)
    k = int(f.items_of(np.array([x]))[0])
    true_scale = min(F(1), F(x))
    it = f.items[k]
    assert it.dominates(Q, SIGMA, true_scale)
    assert k == 0 or not f.items[k - 1].dominates(Q, SIGMA, true_scale)


def _lower_game_value(item: SGMItem, steps: int, bits: int = 8) -> F:
    """A certified lower end of the game value of ``steps`` homogeneous steps of ``item`` (both directions; the max).

    The lower laws round each step's loss down by up to 2^-bits, so a fine grid is needed over many steps."""
    h = F(1, 1 << bits)
    eta = DELTA / (1 << 24) / (steps + 1)
    vals = []
    for direction in ("remove", "add"):
        laws = [sgm_law(item.q, item.sigma_eff, bits, eta, direction, "lower")]
        t = pair_game(EPS, h, laws, [1], steps, window=_window(laws, [1], steps, EPS, h))
        vals.append(t.lower(steps))
    return max(vals)


def test_negative_control_rounding_the_scale_down_breaks_delta():
    """Claim 3: a norm of 0.9 C charged at scale 1/2 (rounded down) would be admitted floor(B*/c_0) times; at the true
    scale 0.9 that run's game value is certified > delta, and the dominance check of claim 2 refuses the charge."""
    f = IndividualDPSGDGameFilter(EPS, DELTA, Q, SIGMA, 1, 1, scales=SCALES, bits=BITS)
    true = SGMItem(Q, SIGMA, F(9, 10))
    m = f.budget // f.costs[0]                 # what the rounded-down rule admits
    assert not f.items[0].dominates(Q, SIGMA, F(9, 10))
    k = 2 * sgm_single_item_rounds(EPS, DELTA, true, bits=BITS)   # fewer steps: the value is nondecreasing in them
    assert k <= m and _lower_game_value(true, k) > DELTA
    # the correct rule (rounded up) charges item 1 and admits floor(B*/c_1) steps, within delta by the certificate
    assert int(f.items_of(np.array([0.9]))[0]) == 1 and f.budget // f.costs[1] < m


@pytest.mark.parametrize("s", ["3/10", "1/2", "3/5", "1"])
def test_catalog_entry_is_the_filters_homogeneous_count(s):
    """The catalog entry feldman2021_alg3_game_rounds = the steps the filter (default grid) admits at a constant norm s C
    (second route: the stateful filter run to its first refusal; the scale is rounded up, 3/10 to 1/2, 3/5 to 3/4)."""
    f = IndividualDPSGDGameFilter(EPS, DELTA, Q, SIGMA, 1, 1, bits=BITS)
    assert individual_game_rounds(EPS, DELTA, Q, SIGMA, s, BITS) == _homogeneous_steps(f, float(F(s)))
