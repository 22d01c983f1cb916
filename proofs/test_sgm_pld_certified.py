"""Proof-test of the certified subsampled-Gaussian PLD accountant (reference.profiles.sgm_pld), step by step.

Source: the proof in the module docstring of reference/profiles/sgm_pld.py (dominating pairs of
Zhu-Dong-Wang 2022 Prop. 30; the pessimistic split of Doroshenko et al. 2022; exact integer
composition; an Azuma-Hoeffding lower end).  Each test checks one step against an independent
route: mpmath at 50 digits for the bucket masses and the split, a naive big-integer
convolution for the composition, a dense mpmath scan for mu_max, and quadrature for the ends
on coarse grids (where every error term is large, so a wrong correction shows).
"""
from __future__ import annotations

import hashlib
from fractions import Fraction

import mpmath
import numpy as np
import pytest

from reference.catalog import get as get_entry
from reference.profiles import sgm_pld as m

def _m(x):
    x = Fraction(x)
    return mpmath.mpf(x.numerator) / x.denominator


def _vals(V):
    """The integer entries of a limb vector."""
    return [sum(int(V.W[i, l]) << (64 * l) for l in range(V.W.shape[1])) for i in range(V.n)]


def _exact_split(q, s, bits, j0, nb):
    """The P-order split masses at 50 digits (mpmath): a second route to step 2."""
    with mpmath.workdps(50):
        q, s = _m(q), _m(s)
        h = mpmath.mpf(1) / 2 ** bits

        def sf_p(j):
            if j == j0:
                return mpmath.mpf(1), mpmath.mpf(1)
            x = s * s * mpmath.log((mpmath.exp(j * h) - 1 + q) / q) + mpmath.mpf(1) / 2
            sq = mpmath.ncdf(-x / s)
            return (1 - q) * sq + q * mpmath.ncdf(-(x - 1) / s), sq

        out = [mpmath.mpf(0)] * (nb + 1)
        losses = []
        prev = sf_p(j0)
        for i in range(nb):
            a = j0 + i
            cur = sf_p(a + 1)
            PB, QB = prev[0] - cur[0], prev[1] - cur[1]
            if PB > 0 and QB > 0:
                losses.append((a, mpmath.log(PB / QB)))
            ea, eb = mpmath.exp(-a * h), mpmath.exp(-(a + 1) * h)
            pb = (ea * PB - QB) / (ea - eb)
            out[i] += PB - pb
            out[i + 1] += pb
            prev = cur
        return out, losses, h


@pytest.mark.parametrize("q,s,bits", [("1/10", "1", 6), ("1/2", "3/2", 5), ("1/100", "11/10", 7)])
def test_steps_1_2_bucket_losses_and_the_split_masses(q, s, bits):
    """Step 1: each bucket's loss lies in its grid interval.  Step 2: the engine's split masses are >= the exact
    split (mpmath, 50 digits) and within a few units of 2^-F of it; the split keeps the P-mass of every bucket."""
    qf, sf = Fraction(q), Fraction(s)
    F = 60
    tail = Fraction(1, 1 << 40)
    st = m._step(qf, sf, bits, F, tail, 1)
    ints = _vals(st.P)
    exact, losses, h = _exact_split(qf, sf, bits, st.P.off, st.buckets)
    for a, l in losses:
        assert a * h - mpmath.mpf(10) ** -40 <= l <= (a + 1) * h + mpmath.mpf(10) ** -40
    unit = mpmath.mpf(2) ** -F
    for i, (v, e) in enumerate(zip(ints, exact)):
        assert v * unit >= e - mpmath.mpf(10) ** -45, i
        assert v * unit - e <= 3 * unit, i
    with mpmath.workdps(50):
        assert abs(sum(exact) - (1 - mpmath.mpf(st.P.I) * unit)) < 4 * len(exact) * unit + mpmath.mpf(st.P.I) * unit


def test_step_3_composition_is_the_exact_convolution_rounded_up():
    """The Kronecker/FLINT product equals a naive big-integer convolution, ceil-divided by 2^F, entry by entry;
    E and I are propagated as documented (cut = 0 keeps every entry)."""
    st = m._step(Fraction(1, 10), Fraction(1), 5, 60, Fraction(1, 1 << 30), 3)
    A = st.P
    A = m._Vec(A.W, A.off, 7, A.I, A.F, 1)  # a nonzero E to follow through
    B = m._mul(A, A, 0)
    a = _vals(A)
    naive = [0] * (2 * len(a) - 1)
    for i, x in enumerate(a):
        for j, y in enumerate(a):
            naive[i + j] += x * y
    one = 1 << A.F
    ceil = [-((-c) // one) for c in naive]
    assert _vals(B) == ceil and B.off == 2 * A.off
    s = sum(a)
    tot = s + A.E + A.I
    assert B.I == -((-(2 * A.I * tot)) // one)
    assert B.E == -((-(A.E * (s + A.E) + A.E * s)) // one)
    C = m._mul(B, A, 0)  # a general (non-squaring) product agrees with the naive one too
    b = _vals(B)
    naive2 = [0] * (len(b) + len(a) - 1)
    for i, x in enumerate(b):
        for j, y in enumerate(a):
            naive2[i + j] += x * y
    assert _vals(C) == [-((-c) // one) for c in naive2]


def test_step_3_trim_moves_exactly_the_cut_mass_into_E():
    st = m._step(Fraction(1, 10), Fraction(1), 6, 60, Fraction(1, 1 << 30), 4)
    V = m._power(st.P, 4, lambda k: 0)
    cut = 1 << 30  # 2^-30 of mass per side
    W, off, cm = m._trim(V.W, V.off, V.F, cut)
    full = _vals(V)
    a = off - V.off
    kept = full[a:a + W.shape[0]]
    assert cm == sum(full) - sum(kept) and cm <= 2 * cut


def test_step_5_mu_max_against_a_dense_scan():
    """mu_max bounds the mean shift of the split rounding (P and Q orders) and is attained (to scan resolution)."""
    for bits in (3, 6, 10):
        with mpmath.workdps(50):
            mp_, mq = (_m(x) for x in m.mu_max(bits))
            h = mpmath.mpf(1) / 2 ** bits
            us = [h * i / 2000 for i in range(2001)]
            fp = [h * (1 - mpmath.exp(-u)) / (1 - mpmath.exp(-h)) - u for u in us]
            fq = [u - h * (mpmath.exp(u) - 1) / (mpmath.exp(h) - 1) for u in us]
            assert max(fp) <= mp_ and max(fp) > mp_ * (1 - mpmath.mpf(10) ** -5)
            assert max(fq) <= mq and max(fq) > mq * (1 - mpmath.mpf(10) ** -5)
            assert min(fp) >= -mpmath.mpf(10) ** -45 and min(fq) >= -mpmath.mpf(10) ** -45
            assert abs(mp_ - h * h / 8) < h ** 3 and abs(mq - h * h / 8) < h ** 3


def _truth1(q, s, eps):
    """delta(eps) of one step, both orders, closed form at 40 digits (second route)."""
    with mpmath.workdps(40):
        q, s, e = mpmath.mpf(q), mpmath.mpf(s), mpmath.mpf(eps)

        def x_of(target):
            return s * s * mpmath.log((mpmath.exp(target) - (1 - q)) / q) + mpmath.mpf(1) / 2

        P = lambda x: (1 - q) * mpmath.ncdf(-x / s) + q * mpmath.ncdf(-(x - 1) / s)  # noqa: E731
        Q = lambda x: mpmath.ncdf(-x / s)  # noqa: E731
        t = mpmath.exp(e)
        x0 = x_of(e)
        fwd = P(x0) - t * Q(x0)
        if -e <= mpmath.log(1 - q):
            rev = mpmath.mpf(0)
        else:
            x1 = x_of(-e)
            rev = (1 - Q(x1)) - t * (1 - P(x1))
        return max(fwd, rev)


@pytest.mark.parametrize("bits", [4, 5, 6, 8])
def test_steps_4_5_both_ends_hold_on_coarse_grids(bits):
    """On coarse grids every error term is large; the certified ends still enclose the closed-form truth (k = 1)."""
    for q, s in (("0.1", "1"), ("0.5", "2"), ("0.9", "0.7")):
        C = m.sgm_pld(q, s, 1, grid_bits=bits)
        for eps in ("0", "0.05", "0.3", "1", "2.5"):
            t = _truth1(q, s, eps)
            assert C.delta_lower(eps) <= t <= C.delta_upper(eps), (q, s, bits, eps)


def test_composition_is_bit_identical():
    """The composed integer vectors are fixed numbers (exact integer arithmetic): their SHA-256 is pinned, so any
    drift -- a different machine, BLAS or FFT library -- fails here.  (Only integers are pinned, never floats.)"""
    C = m._compose(((Fraction(1, 10), Fraction(1), 10),), 8, 60, Fraction(1, 1 << 40))
    h = hashlib.sha256()
    for V in (C.P, C.Q):
        h.update(np.ascontiguousarray(V.W).tobytes())
        h.update(f"{V.off},{V.E},{V.I},{V.F}".encode())
    assert h.hexdigest() == PINNED_SHA256, h.hexdigest()


PINNED_SHA256 = "c1d3cc1423d5ceb47360b12b0b3f30616f75048688e4667c0975149218d07858"


def test_catalog_entry_is_valid_and_cites_its_proof():
    e = get_entry("koskela2020_pld_sgm_delta")
    assert e.validity == "valid"
    assert "proofs/test_sgm_pld_certified.py" in e.note
    assert m.sgm_pld_delta.__doc__ and "Rounding: up" in m.sgm_pld_delta.__doc__
