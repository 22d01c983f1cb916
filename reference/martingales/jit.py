"""Compiled CPU kernel (numba, optional) for state-dependent adversaries: the path's state in registers.

``reference.martingales.simulate._kernel_markov`` is the reference: NumPy array code that
updates every path of a chunk one step at a time, so each step streams a dozen arrays of the
chunk's size through memory.  This module computes the same crossing and ambiguity masks with
compiled loops that keep a tile of paths' state in L1 cache (in the spirit of the CUDA kernel
``fa_markov_path`` of :mod:`reference.martingales.cuda`, which keeps it in registers), on the
same uint32 draws (``_draw_blocks``).

Bit-for-bit agreement with the NumPy kernel (``tests/test_martingales.py`` compares them path
by path):

* integer state ``k, I, J`` and the L-target tests ``I >= tauI[J]`` (two-sided: ``-I >= tauI[J]``)
  are exact integers, as there;
* the M-target quantity is evaluated in the same order with the same float64 operations,
  ``d = (g * float(I) - sum mu) - b(g^2 J)``, ``sum mu`` accumulated step by step; numba
  compiles without ``fastmath``, so no multiply-add is contracted (the CUDA kernels need
  ``--fmad=false`` for the same reason);
* two pre-tests skip the per-boundary loop, exactly: ``max(I, -I if any two-sided) <
  min_a tauI[a, J]`` implies no L-target crossing; ``fl(Mf - min_a b_a) <= -tol`` implies
  ``fl(Mf - b_a) <= -tol`` for every ``a`` (rounding is monotone), so no M-target crossing
  and no ambiguity.

numba is optional: :func:`numba_available` says whether it imports; the simulator falls back to
the NumPy kernel when it does not.  The kernel holds no Python objects and releases the GIL, so
the simulator's thread pool over chunks runs it on every core.
"""
from __future__ import annotations

import functools

import numpy as np

__all__ = ["numba_available", "MarkovTables", "markov_tables", "markov_block"]


@functools.lru_cache(maxsize=1)
def numba_available() -> tuple[bool, str]:
    """(True, numba version) if numba imports and compiles the kernel; else (False, the reason)."""
    try:
        import numba
    except Exception as exc:  # ImportError, or a broken llvmlite
        return False, f"numba is not importable ({type(exc).__name__}: {exc})"
    try:
        _compiled()
    except Exception as exc:  # pragma: no cover - a numba that cannot compile the kernel
        return False, f"numba {numba.__version__} failed to compile the kernel ({type(exc).__name__}: {exc})"
    return True, f"numba {numba.__version__}"


TILE = 256  # paths updated together, one step at a time: their state stays in L1, their steps overlap in the core


def _markov_block_py(u, s0, policy, K, c_lv, thr_lv, mu_lv, table,
                     tauT, Lbit, Ltwo, tminL, anytwo, bT, Mbit, bminM, tol, gf,
                     k_st, I_st, J_st, mus_st, cm_st, am_st):
    """Steps ``s0 .. s0 + S - 1`` of every path of a chunk (``u``: uint32 draws ``[S, B]``); state in ``*_st``, updated in place.

    Paths go in tiles of :data:`TILE`; within a tile, step by step, every path (independent
    iterations, so the core overlaps their table look-ups).  Per path and step, in the order of
    ``_kernel_markov``: level ``k`` (random policy: ``table[n, I > 0]``), sign from the draw,
    ``I += c s``, ``J += c^2``, ``mus += mu_k``, the L-target and M-target tests, then (chasing
    policy) ``k += s`` clipped to ``0 .. K-1``.
    """
    S, B = u.shape
    nL = tauT.shape[1]
    nM = bT.shape[1]
    for t0 in range(0, B, TILE):
        w = min(TILE, B - t0)
        k = k_st[t0:t0 + w]
        I = I_st[t0:t0 + w]
        J = J_st[t0:t0 + w]
        mus = mus_st[t0:t0 + w]
        cm = cm_st[t0:t0 + w]
        am = am_st[t0:t0 + w]
        for r in range(S):
            n = s0 + r
            tl = tol[n]
            ur = u[r, t0:t0 + w]
            k_lo = table[n, 0]
            k_hi = table[n, 1]
            for p in range(w):
                kp = k[p]
                Ip = I[p]
                if policy == 1:
                    kp = k_hi if Ip > 0 else k_lo
                c = c_lv[kp]
                sgn = 1 if ur[p] <= thr_lv[kp] else -1
                Ip += c * sgn
                Jp = J[p] + c * c
                mp = mus[p] + mu_lv[kp]
                I[p] = Ip
                J[p] = Jp
                mus[p] = mp
                if nL > 0:
                    Ia = Ip
                    if anytwo and -Ip > Ia:
                        Ia = -Ip
                    if Ia >= tminL[Jp]:
                        for a in range(nL):
                            t = tauT[Jp, a]
                            if Ip >= t or (Ltwo[a] != 0 and -Ip >= t):
                                cm[p] |= Lbit[a]
                if nM > 0:
                    Mf = gf * np.float64(Ip)
                    Mf = Mf - mp
                    if Mf - bminM[Jp] > -tl:
                        for a in range(nM):
                            d = Mf - bT[Jp, a]
                            if d >= tl:
                                cm[p] |= Mbit[a]
                            if abs(d) < tl:
                                am[p] |= Mbit[a]
                if policy == 0:
                    kp += sgn
                    if kp < 0:
                        kp = 0
                    if kp > K - 1:
                        kp = K - 1
                k[p] = kp


@functools.lru_cache(maxsize=1)
def _compiled():
    import numba

    # nogil: chunks run concurrently on the simulator's threads; cache: compile once per machine, not per process.
    # No fastmath: IEEE operations in program order, as NumPy evaluates them.
    return numba.njit(nogil=True, cache=True, boundscheck=False)(_markov_block_py)


class MarkovTables:
    """The tables of a Markov plan laid out for :func:`markov_block` (built by :func:`markov_tables`).

    ``tauT [Jmax+1, nL]`` and ``bT [Jmax+1, nM]``: the plan's ``tauI`` and ``bM`` transposed, so that
    the thresholds of all boundaries at one ``J`` share a cache line; ``tminL [Jmax+1]`` and
    ``bminM [Jmax+1]``: their row minima (the exact pre-tests); ``Lbit``, ``Mbit``: the mask bit
    of each boundary.
    """

    def __init__(self, plan):
        nL, nM = len(plan.L_index), len(plan.M_index)
        J1 = plan.Jmax + 1
        self.policy = 0 if plan.adversary.policy == "chasing" else 1
        self.K = int(plan.K)
        self.start = int(plan.adversary.start)
        self.c_lv = np.ascontiguousarray(plan.c_levels, dtype=np.int64)
        self.thr_lv = np.ascontiguousarray(plan.thr_levels, dtype=np.uint32)
        self.mu_lv = np.ascontiguousarray(plan.mu_levels, dtype=np.float64)
        self.table = np.ascontiguousarray(plan.table if plan.table is not None else np.zeros((plan.T, 2)),
                                          dtype=np.int64)
        self.tauT = np.ascontiguousarray(np.asarray(plan.tauI, dtype=np.int32).T) if nL else np.zeros((J1, 0), np.int32)
        self.tminL = (self.tauT.min(axis=1) if nL else np.full(J1, 2 ** 31 - 1, np.int32)).astype(np.int32)
        self.Lbit = np.array([1 << j for j in plan.L_index], dtype=np.uint32)
        two = plan.L_two if plan.L_two is not None and len(plan.L_two) else np.zeros(nL, np.int32)
        self.Ltwo = np.ascontiguousarray(two, dtype=np.int32)
        self.anytwo = bool(np.any(self.Ltwo))
        self.bT = np.ascontiguousarray(np.asarray(plan.bM, dtype=np.float64).T) if nM else np.zeros((J1, 0), np.float64)
        self.bminM = self.bT.min(axis=1) if nM else np.full(J1, 1e300)
        self.Mbit = np.array([1 << j for j in plan.M_index], dtype=np.uint32)
        self.tol = np.ascontiguousarray(plan.tol if plan.tol is not None else np.ones(plan.T), dtype=np.float64)
        self.gf = float(plan.adversary.unit)


def markov_tables(plan) -> MarkovTables:
    """The kernel layout of the tables of a Markov plan ``plan`` (a :class:`~.simulate.SimPlan`).

    Precondition: ``plan`` is a plan of a state-dependent adversary (policy ``"chasing"`` or
    ``"random"``) built by :func:`~.simulate.make_plan`.  Guarantee: the arrays hold the plan's
    values unchanged (transposed, widened to int64/float64), plus their exact row minima.

    :raises ValueError: ``plan`` is a fixed schedule, or has more than 32 boundaries.
    """
    if plan.adversary.deterministic:
        raise ValueError("plan must be a plan of a state-dependent adversary (policy 'chasing' or 'random')")
    if len(plan.boundaries) > 32:
        raise ValueError(f"plan has {len(plan.boundaries)} boundaries; at most 32 (one mask bit each)")
    return MarkovTables(plan)


def markov_block(plan, draws):
    """Crossing and ambiguity masks of a Markov plan, compiled: ``(crossed[nb, B], ambiguous[nb, B])`` (bool).

    Contract: the same result, bit for bit, as ``_kernel_markov(np, plan, draws)`` of
    :mod:`reference.martingales.simulate` on the same draws: ``crossed[j, i]`` iff path ``i``
    crossed boundary ``j`` at some step, ``ambiguous[j, i]`` iff it came within the float band
    of M-target boundary ``j`` at some step and did not cross it.

    Preconditions: ``plan`` a Markov plan (see :func:`markov_tables`); ``draws`` an iterable of
    ``(s0, u)`` with ``u`` a uint32 array ``[S, B]`` of the draws of steps ``s0 .. s0+S-1`` of
    the chunk's ``B`` paths, the blocks consecutive from step 0 to ``plan.T`` (as yielded by
    ``_draw_blocks``); numba importable (:func:`numba_available`).

    :raises ValueError: ``plan`` is not a Markov plan, ``draws`` has a block of the wrong dtype,
        shape or position, or does not cover the ``plan.T`` steps.
    :raises RuntimeError: numba is unavailable.
    """
    ok, why = numba_available()
    if not ok:
        raise RuntimeError(f"the compiled Markov kernel needs numba: {why}")
    tb = markov_tables(plan)
    kern = _compiled()
    B = None
    nxt = 0
    for s0, u in draws:
        u = np.asarray(u)
        if u.dtype != np.uint32 or u.ndim != 2 or s0 != nxt or u.shape[0] < 1 or s0 + u.shape[0] > plan.T:
            raise ValueError(f"draws must be consecutive uint32 blocks [S, B] from step 0 to {plan.T}; "
                             f"found a block at step {s0} (expected {nxt}) of dtype {u.dtype}, shape {u.shape}")
        if B is None:
            B = u.shape[1]
            k = np.full(B, tb.start, dtype=np.int64)
            I = np.zeros(B, dtype=np.int64)
            J = np.zeros(B, dtype=np.int64)
            mus = np.zeros(B, dtype=np.float64)
            cm = np.zeros(B, dtype=np.uint32)
            am = np.zeros(B, dtype=np.uint32)
        elif u.shape[1] != B:
            raise ValueError(f"draws must have the same number of paths in every block: {u.shape[1]} != {B}")
        if not u.flags.c_contiguous:
            u = np.ascontiguousarray(u)
        kern(u, int(s0), tb.policy, tb.K, tb.c_lv, tb.thr_lv, tb.mu_lv, tb.table,
             tb.tauT, tb.Lbit, tb.Ltwo, tb.tminL, tb.anytwo, tb.bT, tb.Mbit, tb.bminM, tb.tol, tb.gf,
             k, I, J, mus, cm, am)
        nxt = s0 + u.shape[0]
    if B is None or nxt != plan.T:
        raise ValueError(f"draws must cover the {plan.T} steps of the plan; they stopped at step {nxt}")
    nb = len(plan.boundaries)
    bits = (np.uint32(1) << np.arange(nb, dtype=np.uint32))[:, None]
    crossed = (cm[None, :] & bits) != 0
    amb = ((am & ~cm)[None, :] & bits) != 0
    return crossed, amb
