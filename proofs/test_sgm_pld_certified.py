"""Proof-test of the certified subsampled-Gaussian PLD accountant (reference.profiles.sgm_pld), step by step.

Source: the proof in the module docstring of reference/profiles/sgm_pld.py (dominating pairs of
Zhu-Dong-Wang 2022 Prop. 30; the pessimistic split of Doroshenko et al. 2022; exact integer
composition; an optimistic lower end from a bucketing with grid likelihood ratios).  Each test
checks one step against an independent route: mpmath at 50 digits for the bucket masses, the
split and the optimistic buckets' deviations, a naive big-integer convolution for both
compositions (rounded up / down), and quadrature for the ends on coarse grids (where every
error term is large, so a wrong correction shows).
"""
from __future__ import annotations

import hashlib
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reference.catalog import get as get_entry
from reference.precision import mpf_to_fraction
from reference.profiles import sgm_pld as m

def _m(x):
    x = Fraction(x)
    return mpmath.mpf(x.numerator) / x.denominator


def _vals(V):
    """The integer entries of a limb vector."""
    return [sum(int(V.W[i, l]) << (64 * l) for l in range(V.W.shape[1])) for i in range(V.n)]


def _exact_split(q, s, bits, cuts):
    """The P-order split masses at 50 digits (mpmath): a second route to step 2, over the engine's buckets
    [cuts[i] h, cuts[i + 1] h] (one grid step wide in the bulk, wider in the right tail)."""
    j0, nb = cuts[0], cuts[-1] - cuts[0]
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
        for a, b in zip(cuts, cuts[1:]):
            cur = sf_p(b)
            PB, QB = prev[0] - cur[0], prev[1] - cur[1]
            if PB > 0 and QB > 0:
                losses.append((a, b, mpmath.log(PB / QB)))
            ea, eb = mpmath.exp(-a * h), mpmath.exp(-b * h)
            pb = (ea * PB - QB) / (ea - eb)
            out[a - j0] += PB - pb
            out[b - j0] += pb
            prev = cur
        return out, losses, h


@pytest.mark.parametrize("q,s,bits,tl,K", [("1/10", "1", 6, 40, 1), ("1/2", "3/2", 5, 40, 1), ("1/100", "11/10", 7, 40, 1),
                                          ("1/1000", "1", 11, 24, 10)])
def test_steps_1_2_bucket_losses_and_the_split_masses(q, s, bits, tl, K):
    """Step 1: each bucket's loss lies in its grid interval.  Step 2: the engine's split masses are >= the exact
    split (mpmath, 50 digits) and within a few units of 2^-F of it; the split keeps the P-mass of every bucket.  The
    last case has buckets of up to 16 grid steps in the right tail (a choice of :func:`.sgm_pld._wide`): they are
    split the same way, between their two ends (every case here has some)."""
    qf, sf = Fraction(q), Fraction(s)
    F = 60
    tail = Fraction(1, 1 << tl)
    st = m._step(qf, sf, bits, F, tail, K)
    ints = _vals(st.P)
    assert st.cuts[0] == st.P.off and st.cuts[-1] == st.P.off + st.P.n - 1 and st.buckets == len(st.cuts) - 1
    widths = {b - a for a, b in zip(st.cuts, st.cuts[1:])}
    assert 1 in widths and max(widths) >= (16 if K > 1 else 2), widths
    exact, losses, h = _exact_split(qf, sf, bits, st.cuts)
    for a, b, l in losses:
        assert a * h - mpmath.mpf(10) ** -40 <= l <= b * h + mpmath.mpf(10) ** -40
    unit = mpmath.mpf(2) ** -F
    with mpmath.workdps(50):
        for i, (v, e) in enumerate(zip(ints, exact)):  # the vector holds the tilted masses P' e^(-l/2)
            t = e * mpmath.exp(-(st.P.off + i) * h / 2)
            assert v * unit >= t - mpmath.mpf(10) ** -45, i
            assert v * unit - t <= 3 * unit, i
        assert abs(sum(exact) - (1 - _m(st.P.UP))) < 4 * len(exact) * unit + _m(st.P.UP)


def _mass(V, vals, order):
    """P-mass (or Q-mass) of a tilted vector's window at 50 digits."""
    sgn = 1 if order == "P" else -1
    return sum(mpmath.mpf(x) * mpmath.exp(sgn * mpmath.mpf(V.off + i) / 2 ** (V.bits + 1)) for i, x in enumerate(vals)) / (1 << V.F)


def test_step_3_composition_is_the_exact_convolution_rounded_up():
    """The Kronecker/FLINT product equals a naive big-integer convolution, ceil-divided by 2^F, entry by entry (the
    tilt commutes with convolution); the unknown-place masses are propagated as documented (zero cut)."""
    st = m._step(Fraction(1, 10), Fraction(1), 5, 60, Fraction(1, 1 << 30), 3)
    A = st.P
    A = m._Vec(A.W, A.off, A.UP + Fraction(1, 10 ** 12), A.UQ + Fraction(1, 10 ** 12), A.F, 1, A.bits)
    B = m._mul(A, A, Fraction(0), Fraction(0))
    a = _vals(A)
    naive = [0] * (2 * len(a) - 1)
    for i, x in enumerate(a):
        for j, y in enumerate(a):
            naive[i + j] += x * y
    one = 1 << A.F
    assert _vals(B) == [-((-c) // one) for c in naive] and B.off == 2 * A.off
    with mpmath.workdps(50):
        for o, UA, UB in (("P", A.UP, B.UP), ("Q", A.UQ, B.UQ)):
            mA = _mass(A, a, o)
            need = _m(UA) * (mA + _m(UA)) + _m(UA) * mA
            assert need <= _m(UB) <= need * (1 + mpmath.mpf(10) ** -9), o
    C = m._mul(B, A, Fraction(0), Fraction(0))  # a general (non-squaring) product agrees with the naive one too
    b = _vals(B)
    naive2 = [0] * (len(b) + len(a) - 1)
    for i, x in enumerate(b):
        for j, y in enumerate(a):
            naive2[i + j] += x * y
    assert _vals(C) == [-((-c) // one) for c in naive2]


def test_step_3_trim_moves_the_cut_mass_into_the_unknown_place_counters():
    st = m._step(Fraction(1, 10), Fraction(1), 6, 60, Fraction(1, 1 << 30), 4)
    V = m._power(st.P, 4, lambda k: (Fraction(0), Fraction(0)))
    cut = Fraction(1, 1 << 30)  # per side
    T = m._trim(V, cut, cut)
    assert T.n < V.n
    full = _vals(V)
    a = T.off - V.off
    assert _vals(T) == full[a:a + T.n]
    with mpmath.workdps(50):
        out = [x if not (a <= i < a + T.n) else 0 for i, x in enumerate(full)]
        for o, U0, U1 in (("P", V.UP, T.UP), ("Q", V.UQ, T.UQ)):
            cutm = _mass(V, out, o)
            assert _m(U1 - U0) >= cutm and cutm <= 2 * _m(cut) * (1 + mpmath.mpf(10) ** -6)


def test_one_vector_carries_both_orders_exactly():
    """The Q-order is read from the P-order vector through Q-mass = P-mass e^-loss (the split keeps every atom's
    likelihood ratio): checked against the closed form of H(Q || P) for one step at a coarse grid."""
    for q, s, eps in (("0.5", "1", "0.2"), ("0.9", "0.7", "1")):
        C = m.sgm_pld(q, s, 1, grid_bits=7)
        with mpmath.workdps(40):
            qq, ss, e = _m(q), _m(s), _m(eps)
            x1 = ss * ss * mpmath.log((mpmath.exp(-e) - (1 - qq)) / qq) + mpmath.mpf(1) / 2
            Pc = (1 - qq) * mpmath.ncdf(x1 / ss) + qq * mpmath.ncdf((x1 - 1) / ss)  # P(X < x1)
            rev = mpmath.ncdf(x1 / ss) - mpmath.exp(e) * Pc
        assert C.lvQ.lower(Fraction(eps) + C.shift) <= Fraction(str(rev)) * (1 + Fraction(1, 10 ** 20)) + Fraction(1, 10 ** 30)
        assert Fraction(str(rev)) <= C.evQ.upper(Fraction(eps)) * (1 + Fraction(1, 10 ** 20))


def _opt_vals(st):
    """{grid index: integer entry} of an optimistic step vector."""
    return {st.V.off + i: v for i, v in enumerate(_vals(st.V))}


@pytest.mark.parametrize("q,s,bits,t", [("1/10", "1", 6, 1), ("1/2", "3/2", 5, 0), ("1/100", "11/10", 8, 2),
                                        ("1", "2", 5, 1)])
def test_step_5_optimistic_buckets_against_mpmath(q, s, bits, t):
    """Every kept bucket, recomputed at 50 digits from its recorded ends: its loss log(P_B/Q_B) is within the certified
    deviation of its grid value; its entry, read back through the tilt, is at most the shrunk atom's P-mass
    min(P_B, e^(g h) Q_B) (rounded down, never up) and at least that minus two units 2^-F; the buckets are disjoint and
    in order (a partition of a sub-measure: a post-processing, the stretches between buckets left out) and reach down
    to -infinity when q < 1."""
    F = 70
    st = m._lstep(Fraction(q), Fraction(s), bits, F, Fraction(1, 1 << 40), 10, t)
    vals = _opt_vals(st)
    assert st.buckets == len(st.ends) > 10 and 0 < st.dev <= m.DEV_MAX
    # the right tail's buckets aim several grid values apart (a choice: fewer solves), checked like the others
    assert max(b[0] - a[0] for a, b in zip(st.ends, st.ends[1:])) >= 4
    # the bucket solver meets its tolerance (2^-40 in the loss, certified with some slack) and drops next to nothing
    # (the region above the last bucket: tail/(4K) = 2^-40/40)
    assert st.dev <= Fraction(1, 1 << 38) and st.dropped_P < Fraction(1, 1 << 40)
    if Fraction(q) < 1:
        assert st.ends[0][1] is None
    for (_, _, b), (_, a2, _) in zip(st.ends, st.ends[1:]):
        assert a2 >= b
    with mpmath.workdps(50):
        qq, ss = _m(q), _m(s)
        h = mpmath.mpf(1) / 2 ** bits

        def surv(x):
            if x is None:
                return mpmath.mpf(1), mpmath.mpf(1)
            x = _m(x)
            sq = mpmath.ncdf(-x / ss)
            return (1 - qq) * sq + qq * mpmath.ncdf(-(x - 1) / ss), sq

        worst = mpmath.mpf(0)
        for j, a, b in st.ends:
            Sa, Sb = surv(a), surv(b)
            PB, QB = Sa[0] - Sb[0], Sa[1] - Sb[1]
            g = _m(st.c) + j * h  # the grid's offset: log(1 - q)/2 for q < 1
            dev = abs(mpmath.log(PB / QB) - g)
            worst = max(worst, dev)
            assert dev <= _m(st.dev), (j, dev)
            shrunk = min(PB, mpmath.exp(g) * QB)
            read = mpmath.mpf(vals[j]) * mpmath.exp(t * g / 2) / 2 ** F
            unit = mpmath.exp(t * g / 2) / 2 ** F
            assert read <= shrunk and read >= shrunk - 2 * unit, (j, read, shrunk)
        assert worst > _m(st.dev) / 4  # the certified deviation is not a loose constant


def test_shared_step_work_gives_the_vectors_of_a_fresh_computation():
    """The tilt-independent work of a step (the split masses, the optimistic buckets) is computed once and shared by the
    tilts (:func:`reference.profiles.sgm_pld._core`): every vector built from the shared work -- three tilts, then a
    second fixed point, then a second tail budget per step (a wider region) -- equals the one computed alone from empty
    caches (an independent route: no sharing)."""
    q, s, bits = Fraction(1, 20), Fraction(9, 10), 6

    def clear():
        m._cores.cache_clear()
        m._step.cache_clear()
        m._lstep.cache_clear()

    def key(st):
        V = st.P if isinstance(st, m._Step) else st.V
        return V.W.tobytes(), V.off, V.UP, V.UQ, V.F, V.t, V.shift

    tails = (Fraction(1, 1 << 40), 50), (Fraction(1, 1 << 60), 5000)
    args = [(F, t, tl) for tl in tails for F in (60, 68) for t in (1, 0, 2)]
    clear()
    shared = [(key(m._step(q, s, bits, F, *tl, t)), key(m._lstep(q, s, bits, F, *tl, t))) for F, t, tl in args]
    for (F, t, tl), want in zip(args, shared):
        clear()
        assert (key(m._step(q, s, bits, F, *tl, t)), key(m._lstep(q, s, bits, F, *tl, t))) == want, (F, t, tl)
    # every (F, t, tail) is a different vector, of both kinds: the check can fail
    assert len({w[0][0] for w in shared}) == len({w[1][0] for w in shared}) == len(args)
    clear()


def test_step_5_optimistic_composition_is_the_exact_convolution_rounded_down():
    """The optimistic vector's products are the naive big-integer convolution floor-divided by 2^F (the pessimistic one
    ceil-divides): rounding down keeps every composed entry below the exact law it stands for."""
    st = m._lstep(Fraction(1, 10), Fraction(1), 5, 60, Fraction(1, 1 << 30), 3, 1)
    A = st.V
    assert A.down
    B = m._mul(A, A, Fraction(0), Fraction(0))
    C = m._mul(B, A, Fraction(0), Fraction(0))
    a, b = _vals(A), _vals(B)
    one = 1 << A.F
    for X, Y, Z in ((a, a, B), (b, a, C)):
        naive = [0] * (len(X) + len(Y) - 1)
        for i, x in enumerate(X):
            for j, y in enumerate(Y):
                naive[i + j] += x * y
        assert _vals(Z) == [c // one for c in naive] and Z.down
    assert any(c % one for c in naive)  # some product is not a multiple of 2^F: the direction matters


def test_step_5_the_lower_end_pays_k_times_the_deviation():
    """delta_lower(eps) reads the optimistic vector at eps + K dev (the recorded losses may exceed the buckets' by dev
    per step): the shift is K x the step's certified deviation (rounded up), summed over the phases, and it is applied.
    The shift is far too small for a containment test to see its omission, so the formula is checked directly."""
    C = m.sgm_pld_phases(((Fraction(1, 10), Fraction(1), 7), (Fraction(1, 2), Fraction(2), 5)), grid_bits=6)
    devs = [m._lstep(q, s, C.lvP.bits, C.L.F, C.tail, 12, 1).dev for q, s, _ in C.phases]
    assert C.shift >= 7 * devs[0] + 5 * devs[1] > 0
    assert C.shift <= (7 * devs[0] + 5 * devs[1]) * (1 + Fraction(1, 1 << 60))
    offs = [m._lstep(q, s, C.lvP.bits, C.L.F, C.tail, 12, 1).c for q, s, _ in C.phases]
    assert C.loss_offset == 7 * offs[0] + 5 * offs[1] < 0  # every entry j stands for the loss j h + sum k c
    for eps in (Fraction(0), Fraction(1, 3), Fraction(1)):
        want = max(C.lvP.lower(eps + C.shift - C.loss_offset), C.lvQ.lower(eps + C.shift + C.loss_offset))
        assert C.delta_lower_exact(eps) == want
    with pytest.raises(TypeError):
        C.evP.lower(Fraction(1))  # the pessimistic vector never serves as a lower end
    with pytest.raises(TypeError):
        C.lvP.upper(Fraction(1))


def test_both_ends_converge_at_second_order():
    """Halving h shrinks the bracket about fourfold (second order at both ends; the earlier Azuma-Hoeffding lower end
    halved it at best)."""
    widths = []
    for bits in (7, 8, 9):
        C = m.sgm_pld("0.05", "1", 200, grid_bits=bits)
        widths.append(C.delta_upper_exact(Fraction(1)) - C.delta_lower_exact(Fraction(1)))
    assert widths[0] > 3 * widths[1] > 9 * widths[2] > 0


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
    V = C.V
    h.update(np.ascontiguousarray(V.W).tobytes())
    h.update(f"{V.off},{V.F}".encode())
    assert h.hexdigest() == PINNED_SHA256, h.hexdigest()
    h2 = hashlib.sha256()
    h2.update(np.ascontiguousarray(C.L.W).tobytes())
    h2.update(f"{C.L.off},{C.L.F},{C.shift}".encode())
    assert h2.hexdigest() == PINNED_SHA256_LOWER, h2.hexdigest()


PINNED_SHA256 = "80b072238d3371f164911c7b6f3ef88831b90c798cbce6d99f4edd670eae709c"
PINNED_SHA256_LOWER = "40fe210dc0ae0b0789f5878a2bbeffa31760b76f54c9a66a4d7f83b2cb6a23b4"


def test_catalog_entry_is_valid_and_cites_its_proof():
    e = get_entry("koskela2020_pld_sgm_delta")
    assert e.validity == "valid"
    assert "proofs/test_sgm_pld_certified.py" in e.note
    assert m.sgm_pld_delta.__doc__ and "Rounding: up" in m.sgm_pld_delta.__doc__


@pytest.mark.parametrize("q,s,bits", [("1/10000", "5", 23), ("1/1000", "4/5", 16), ("1/2", "1/2", 10)])
def test_step_masses_carry_only_the_final_rounding(q, s, bits):
    """The working precision covers the split's division by ~h and the cancellation in e^(j h) - (1 - q): the step's
    window mass exceeds the exact fine-region mass by at most two units 2^-F per entry (a precision too low for fine
    grids and small q once made it 2^-37 relative, inflating the K-fold mass by 6e-7 at q = 1e-4, h = 2^-23)."""
    F = 84
    st = m._step(Fraction(q), Fraction(s), bits, F, Fraction(1, 1 << 50), 100000, 0)
    V = st.P
    excess = sum(_vals(V)) * Fraction(1, 1 << F) - st.piP[1]
    assert -Fraction(1, 1 << (F - 8)) <= excess <= Fraction(2 * (V.n + 1), 1 << F)  # two ceilings per entry


@settings(max_examples=30, deadline=None)
@given(q=st.fractions(min_value=Fraction(1, 1000), max_value=1, max_denominator=1000),
       s=st.fractions(min_value=Fraction(3, 10), max_value=5, max_denominator=100),
       bits=st.integers(min_value=4, max_value=9),
       eps=st.fractions(min_value=0, max_value=4, max_denominator=64))
def test_both_ends_hold_on_general_inputs(q, s, bits, eps):
    """The falsifier's search for this theorem: sampling rate, noise, grid and eps drawn at random (coarse grids, where
    every error term of both ends is largest), the one-step closed form at 40 digits must lie between the ends."""
    C = m.sgm_pld(q, s, 1, grid_bits=bits)
    with mpmath.workdps(60):
        args = [mpmath.mpf(x.numerator) / x.denominator for x in (q, s, eps)]
    t = Fraction(mpmath.nstr(_truth1(*args), 45))
    slack = t * Fraction(1, 10 ** 30) + Fraction(1, 10 ** 40)
    assert C.delta_lower_exact(eps) <= t + slack, (q, s, bits, eps)
    assert t <= C.delta_upper_exact(eps) + slack, (q, s, bits, eps)


@pytest.mark.parametrize("q,s,eps", [("1/1000000", "4/5", "1"), ("1/100000", "1/2", "1/2"), ("1/10000", "1", "3/4")])
def test_tiny_q_one_step_brackets_the_closed_form(q, s, eps):
    """q far below the grid step (the bucket from -infinity takes the bulk, buckets may restart above a left-out
    stretch: sgm_pld docstring step 5): one step's PLD bracket at a coarse grid contains the exact one-step value
    (:func:`reference.profiles.sgm_closed.sgm_one_step_delta`, a second route) and its lower end is not vacuous (within
    2% of it; before, the lower end of such a run was 0)."""
    from reference.profiles.sgm_closed import sgm_one_step_delta

    C = m.sgm_pld_phases(((Fraction(q), Fraction(s), 1),), grid_bits=8, tail=Fraction(1, 1 << 130))
    lo, hi = sgm_one_step_delta(Fraction(q), Fraction(s), Fraction(eps))
    e = Fraction(eps)
    assert C.delta_lower_exact(e) <= mpf_to_fraction(hi) and mpf_to_fraction(lo) <= C.delta_upper_exact(e)
    assert C.delta_lower_exact(e) >= Fraction(98, 100) * mpf_to_fraction(lo)
    assert C.lower_buckets[0] > 10
    # two steps: the bulk of one step meets the tail of the other, so the bucket from -infinity must take the bulk
    C2 = m.sgm_pld_phases(((Fraction(q), Fraction(s), 2),), grid_bits=8, tail=Fraction(1, 1 << 130))
    assert 0 < C2.delta_lower_exact(e) <= C2.delta_upper_exact(e) <= Fraction(102, 100) * C2.delta_lower_exact(e)
