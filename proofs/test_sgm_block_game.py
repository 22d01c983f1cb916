"""The block filter's game (reference.bounds.pair_game docstring step 7): block laws and block games, by second routes.

* law_power against the exact m-fold convolution of the same doubles (Fractions, no rounding): the
  upper law dominates it (mass at or above every loss, +inf included, is never less; with no cut,
  every cell is within 2^-90 above), the lower law is a sub-measure of it cell by cell;
* a one-item block game of N blocks of m steps against the per-step game of m N steps on the same
  step law (one item: the non-adaptive composition both ways);
* a two-item block menu against a 50-digit recursion over the same block laws;
* negative controls: a block law that drops its top tail instead of moving it to +inf, and one whose
  masses are rounded down on the upper side, are caught by the dominance check.
"""
from __future__ import annotations

from fractions import Fraction as F

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from proofs.pair_recursion import mp_game_values
from reference.bounds.pair_game import LAW_FIX, StepLaw, law_power, pair_game
from reference.bounds.sgm_game import (SGMItem, block_lengths, sgm_block_law, sgm_game_budget, sgm_law,
                                       sgm_menu_certificate)


def _exact_power(L: StepLaw, m: int):
    """(off, exact masses, exact inf mass) of m steps of L: Fractions of L's doubles, convolved without rounding."""
    p = [F(float(x)) for x in L.p]
    tot = sum(p, F(0))
    inf = F(L.inf)
    off, acc, acc_inf, acc_tot = L.off, p, inf, tot
    for _ in range(m - 1):
        out = [F(0)] * (len(acc) + len(p) - 1)
        for i, a in enumerate(acc):
            if a:
                for j, b in enumerate(p):
                    if b:
                        out[i + j] += a * b
        acc_inf = acc_inf * (tot + inf) + acc_tot * inf
        acc, acc_tot, off = out, sum(out, F(0)), off + L.off
    return off, acc, acc_inf


def _tail_at_or_above(off, masses, inf, x):
    """Mass at losses >= x h (index x), +inf included."""
    return inf + sum((v for i, v in enumerate(masses) if off + i >= x), F(0))


def _dominates(U: StepLaw, off, masses, inf) -> bool:
    """U's mass at or above every grid loss (+inf included) is >= the exact law's: U's recursion is >= (V nondecreasing)."""
    um = [F(float(x)) for x in U.p]
    lo = min(U.off, off)
    hi = max(U.top, off + len(masses) - 1)
    return all(_tail_at_or_above(U.off, um, F(U.inf), x) >= _tail_at_or_above(off, masses, inf, x)
               for x in range(lo, hi + 2))


def _small_law(side="upper"):
    return sgm_law(F(1, 4), F(1), 3, F(1, 10 ** 9), "remove", side)


@pytest.mark.parametrize("m", [2, 3, 5])
def test_block_law_is_the_convolution_rounded_up(m):
    L = _small_law()
    U = law_power(L, m)
    off, ex, inf = _exact_power(L, m)
    assert U.off == off and len(U.p) <= len(ex)
    um = [F(float(x)) for x in U.p] + [F(0)] * (len(ex) - len(U.p))
    slack = F(len(ex) * 2 * m, 2 ** LAW_FIX)            # one rounding of 2^-96 per cell per product
    # and the final rounding of each cell up to a double (relative 2^-52)
    assert all(e <= u <= (e + slack) * (1 + F(1, 2 ** 52)) for u, e in zip(um, ex))
    assert inf <= F(U.inf) <= inf * (1 + F(1, 2 ** 50)) + slack
    assert _dominates(U, off, ex, inf)


@pytest.mark.parametrize("m", [2, 4, 7])
def test_lower_block_law_is_a_sub_measure_of_the_convolution(m):
    L = _small_law("lower")
    D = law_power(L, m, cut=F(1, 10 ** 6))
    off, ex, _ = _exact_power(L, m)
    assert D.inf == 0 and D.off >= off
    for i, v in enumerate(D.p):
        assert F(float(v)) <= ex[D.off - off + i]
    # without a cut only the fixed-point rounding separates them
    D0 = law_power(L, m)
    assert sum(F(float(v)) for v in D0.p) >= (sum(ex) - F(len(ex) * 2 * m, 2 ** LAW_FIX)) * (1 - F(1, 2 ** 52))


@settings(max_examples=25, deadline=None)
@given(st.lists(st.floats(0, 1, allow_subnormal=False), min_size=2, max_size=7), st.integers(-4, 2),
       st.floats(0, 0.05), st.integers(2, 6), st.integers(0, 2 ** 20))
def test_cut_block_laws_dominate_for_random_laws(ws, off, inf, m, cut_num):
    """Any upper law, any cut: the mass moved to +inf or up onto the support keeps the dominance the game needs."""
    p = np.array(ws) / max(1.0, sum(ws) * 1.01)
    if not p.any():
        p[0] = 0.5
    L = StepLaw(off, p, float(inf), "upper")
    cut = F(cut_num, 2 ** 24)
    U = law_power(L, m, cut)
    eo, ex, einf = _exact_power(L, m)
    assert _dominates(U, eo, ex, einf)


def test_a_block_law_that_drops_its_tail_is_caught():
    """Negative control: the top tail dropped (not moved to +inf) no longer dominates the convolution."""
    L = _small_law()
    U = law_power(L, 4, cut=F(1, 10 ** 4))
    assert U.inf > 0
    broken = StepLaw(U.off, U.p, 0.0, "upper")
    off, ex, inf = _exact_power(L, 4)
    assert _dominates(U, off, ex, inf)
    assert not _dominates(broken, off, ex, inf)


def test_a_block_law_rounded_down_is_caught():
    """Negative control: the lower side's rounding used on the upper side loses mass the dominance check sees."""
    L = _small_law()
    off, ex, inf = _exact_power(L, 3)
    down = law_power(StepLaw(L.off, L.p, 0.0, "lower"), 3)
    broken = StepLaw(down.off, down.p, float(inf), "upper")
    assert not _dominates(broken, off, ex, inf)


def test_one_item_blocks_equal_the_per_step_game():
    """One item: N blocks of m steps and m N single steps are the same composition; the two engines' upper ends agree
    to their rounding (no cut), and the block law with m = 1 is the step law itself."""
    eps, bits, eta = F(2), 4, F(1, 10 ** 12)
    h = F(1, 2 ** bits)
    it = SGMItem(F(1, 5), F(1))
    for d in ("remove", "add"):
        L = sgm_law(it.q, it.sigma_eff, bits, eta, d, "upper")
        assert sgm_block_law(it.q, it.sigma_eff, 1, bits, eta, F(0), d, "upper") is L
        for m, N in ((3, 4), (5, 3)):
            B = law_power(L, m)
            span = m * N * max(-L.off, L.top) + 2
            tb = pair_game(eps, h, [B], [1], N, window=(-span, span))
            ts = pair_game(eps, h, [L], [1], m * N, window=(-span, span))
            for n in range(N + 1):
                a, b = tb.upper(n), ts.upper(m * n)
                assert abs(a - b) <= F(1, 10 ** 9) * max(a, b) + F(1, 10 ** 200), (d, m, n)


def test_block_menu_equals_a_50_digit_recursion_over_the_same_laws():
    eps, bits = F(3, 2), 3
    h = F(1, 2 ** bits)
    items = [SGMItem(F(1, 4), F(1)), SGMItem(F(1, 2), F(3, 2))]
    ms, R_max = (2, 3), 4
    for d in ("remove", "add"):
        laws = [sgm_block_law(it.q, it.sigma_eff, m, bits, F(1, 10 ** 12), F(0), d, "upper") for it, m in zip(items, ms)]
        span = R_max * max(max(-L.off, L.top) for L in laws) + 2
        t = pair_game(eps, h, laws, [1, 1], R_max, window=(-span, span))
        for R, x in enumerate(mp_game_values(eps, h, laws, [1, 1], R_max)):
            assert x <= t.upper(R) <= x * (1 + F(1, 10 ** 9)) + F(1, 10 ** 300), (d, R)


def test_block_certificate_counts_and_bounds():
    """The menu certificate with blocks: unit costs, block lengths from each item's own count, every homogeneous run
    within its own single-item count, and the budget refuted one block up by an actual analyst where decided."""
    eps, delta = F(8), F(1, 1000)
    items = [SGMItem(F(1, 10), F(1, 2)), SGMItem(F(1, 10), F(5, 8))]
    c = sgm_menu_certificate(eps, delta, items, bits=6, block=2)
    n = [k // 2 for k in c.extra["k0"]]
    assert c.blocks == block_lengths(n, 2) and c.costs == (1, 1)
    assert min(c.blocks) == 2
    for i in range(2):
        assert c.rounds(i) == c.budget * c.blocks[i]
        # item i alone in blocks of m_i: the menu cannot give it more blocks than the item alone gets
        alone = sgm_game_budget(eps, delta, [items[i]], [1], bits=6, R_max=c.budget + 3, lower=False,
                                blocks=[c.blocks[i]])
        assert c.budget <= alone.budget
    assert c.upper_at_budget <= delta
    if c.decided:
        assert c.lower_above > delta


def test_bad_blocks_are_refused():
    eps, delta = F(8), F(1, 1000)
    items = [SGMItem(F(1, 10), F(1, 2))]
    with pytest.raises(ValueError, match=r"blocks\[0\]"):
        sgm_game_budget(eps, delta, items, [1], bits=4, R_max=3, blocks=[0])
    with pytest.raises(ValueError, match="one entry per menu item"):
        sgm_game_budget(eps, delta, items, [1], bits=4, R_max=3, blocks=[1, 2])
    with pytest.raises(ValueError, match="block"):
        sgm_menu_certificate(eps, delta, items, bits=4, block=0)
    with pytest.raises(ValueError, match="shorter block"):
        block_lengths([0, 3], 5)
    with pytest.raises(ValueError, match="m must be a positive integer"):
        law_power(_small_law(), 0)


# ---------------------------------------------------------------------------------------------- coarsening (fine > 0)

def _hockey(L: StepLaw, h, eps_):
    """E_P[(1 - e^{eps' - L})_+] of a law on the grid h Z at 50 digits (+inf mass pays 1)."""
    mp = mpmath.mp.clone()
    mp.dps = 50
    e = mp.mpf(eps_.numerator) / eps_.denominator
    hh = mp.mpf(h.numerator) / h.denominator
    tot = mp.mpf(L.inf)
    for i, p in enumerate(L.p):
        if p:
            tot += mp.mpf(float(p)) * max(mp.mpf(0), 1 - mp.exp(e - (L.off + i) * hh))
    return tot


@pytest.mark.parametrize("direction", ["remove", "add"])
def test_coarsened_upper_law_dominates_every_hockey_stick(direction):
    """The split onto the coarse grid keeps P- and Q-mass and dominates the pair: every hockey-stick divergence is >=."""
    from reference.bounds.pair_game import coarsen_law

    L = sgm_law(F(1, 4), F(1), 7, F(1, 10 ** 9), direction, "upper")
    C = coarsen_law(L, F(1, 128), 3)
    assert C.inf == L.inf
    lf = (L.off + np.arange(len(L.p))) / 128.0
    lc = (C.off + np.arange(len(C.p))) / 16.0
    assert C.p.sum() >= L.p.sum() * (1 - 1e-15)
    assert abs((C.p * np.exp(-lc)).sum() - (L.p * np.exp(-lf)).sum()) <= 1e-12
    for k in range(-8, 25):
        e = F(k, 8)
        assert _hockey(C, F(1, 16), e) >= _hockey(L, F(1, 128), e) * (1 - mpmath.mpf(10) ** -14), e
    # negative control: rounding every loss up instead is not what was done (it would lose Q-mass)
    assert not np.allclose(C.p, 0)


def test_coarsened_lower_law_is_below_every_hockey_stick():
    from reference.bounds.pair_game import coarsen_law

    L = sgm_law(F(1, 4), F(1), 7, F(1, 10 ** 9), "remove", "lower")
    C = coarsen_law(L, F(1, 128), 3)
    for k in range(-8, 25):
        e = F(k, 8)
        assert _hockey(C, F(1, 16), e) <= _hockey(L, F(1, 128), e)


def test_a_fine_block_game_is_above_the_fine_per_step_game():
    """One item, steps composed 3 bits finer and blocks moved onto the game's grid: the block game's upper end is at
    least the per-step game's on the fine grid (the split pair dominates the fine block pair)."""
    eps, bits, fine, eta = F(2), 3, 3, F(1, 10 ** 12)
    it = SGMItem(F(1, 5), F(1))
    for d in ("remove", "add"):
        Lf = sgm_law(it.q, it.sigma_eff, bits + fine, eta, d, "upper")
        B = sgm_block_law(it.q, it.sigma_eff, 4, bits, eta, F(0), d, "upper", fine)
        spanc = 4 * 3 * max(-B.off, B.top) + 2
        spanf = 12 * max(-Lf.off, Lf.top) + 2
        tb = pair_game(eps, F(1, 2 ** bits), [B], [1], 3, window=(-spanc, spanc))
        ts = pair_game(eps, F(1, 2 ** (bits + fine)), [Lf], [1], 12, window=(-spanf, spanf))
        for n in range(4):
            assert tb.upper(n) >= ts.upper(4 * n) * (1 - F(1, 10 ** 9)) - F(1, 10 ** 250), (d, n)
