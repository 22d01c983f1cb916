"""Monte Carlo crossing frequencies of boundaries under adaptive randomized-response adversaries.

By whitehouse2022 Lemma 3 an adaptive composition of conditionally (eps_n, 0)-DP
steps is a post-processing of conditional randomized response, so RR steps are
the worst case and the privacy loss is ``L_n = sum_m s_m eps_m`` with signs
``s_m = +1`` w.p. ``p(eps_m) = e^eps_m/(1+e^eps_m)``.  Every eps is a multiple of
a unit ``g`` (``eps = c g``, c an integer level), so ``L_n = g I_n`` with the
integer ``I_n = sum_m c_m s_m`` and ``V_n = g^2 J_n``, ``J_n = sum c_m^2``.

Draws.  Step n of path i is ``+`` iff its uint32 draw ``u <= thr(eps) - 1`` with
``thr = ceil(p 2^32)`` (``rounding="up"``: the simulated ``+`` probability is >= p,
so for a non-adaptive schedule the simulated loss stochastically dominates the true
one and a "pass" for an upper boundary is conservative) or ``floor(p 2^32)``
(``rounding="down"``, used for the negative controls so that a "fail" is
conservative).  Either way the per-step probability is off by < 2^-32, so the law
of a T-step path is within total variation ``T 2^-32`` of the true one, for any
adversary; verdicts add this slack.

Kernels (written once against an array module ``xp``):

* deterministic schedules (homogeneous, alternating): the boundary becomes an exact
  per-step integer threshold ``tau_n`` on ``P_n = sum_{m<=n} c_m [s_m = +]``
  (:func:`deterministic_thresholds`, certified arithmetic, computed once), so the
  inner loop is one compare, one integer add and one compare per boundary; a
  two-sided boundary (``|L_n| > b``) adds a lower threshold ``P_n <= tau_lo_n``
  (:func:`deterministic_lower_thresholds`);
* Markov adversaries (loss-chasing, random adaptive): the level depends on the path;
  odometers (target L) use exact integer tables ``tau[J]`` on ``I`` (two-sided: ``|I| >= tau[J]``,
  the same table, since ``L = g I``); boundaries on the
  centred martingale M compare the float ``g I - sum mu`` with a float table of
  ``b(g^2 J)`` and count the path as *ambiguous* when within a relative band of
  2^-30 (ambiguous paths count as crossings for the upper bound, not for the lower).

Paths are processed in chunks of ``CHUNK`` paths with one random stream per
chunk (PCG64DXSM, or Philox keyed by the path index), over a pool of threads: the
result depends on the seed, not on the number of threads.  For Markov adversaries on
the CPU, when numba is installed, each chunk runs the compiled kernel of
:mod:`reference.martingales.jit` (a tile of paths' state in L1 cache, the GIL released, so the
threads use every core); it reproduces ``_kernel_markov``, the reference and the
fallback, bit for bit on the same draws.
"""
from __future__ import annotations

import functools
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from ..precision import certified, iv_const, mpf_to_fraction
from .boundaries import (
    BIG,
    Boundary,
    ceil_certified,
    floor_certified,
)
from .laws import StepLaw
from .rng import chunk_bitgen, philox_draws, stream_tag

__all__ = ["Adversary", "default_adversaries", "SimPlan", "make_plan", "simulate", "SimResult", "crossing_masks",
           "deterministic_thresholds", "deterministic_lower_thresholds", "rr_threshold", "CHUNK", "BLOCK", "BAND"]

F = Fraction
CHUNK = 32768   # paths per chunk (one random stream each)
BLOCK = 16      # steps per block of draws
BAND = 2.0 ** -30  # relative band of the float comparisons (Markov kernel, M target)


@dataclass(frozen=True)
class Adversary:
    """An adversary choosing eps_n = c_n g from the levels ``levels`` (integers) with unit ``unit``.

    ``policy``: ``"fixed"`` (the level indices ``pattern`` repeated: homogeneous,
    alternating), ``"chasing"`` (start at level ``start``; one level up after a
    positive loss, one down after a negative one), ``"random"`` (a fixed random
    function of (n, sign of L_n) drawn from the seed: adaptive but reproducible).
    """

    key: str
    title: str
    unit: Fraction
    levels: tuple[int, ...]
    policy: str
    pattern: tuple[int, ...] = (0,)
    start: int = 0

    @property
    def deterministic(self) -> bool:
        return self.policy == "fixed"

    def eps(self, k: int) -> Fraction:
        return self.levels[k] * self.unit


def default_adversaries(unit=F(1, 20)) -> list[Adversary]:
    """Homogeneous (eps = 2g), alternating large/small (4g, g), loss-chasing and random adaptive over {g, 2g, 4g}."""
    g = F(unit)
    return [
        Adversary("homogeneous", f"homogeneous eps={_f(2 * g)}", g, (2,), "fixed", (0,)),
        Adversary("alternating", f"alternating eps={_f(4 * g)},{_f(g)}", g, (4, 1), "fixed", (0, 1)),
        Adversary("loss_chasing", f"loss-chasing eps in {{{_f(g)},{_f(2 * g)},{_f(4 * g)}}}", g, (1, 2, 4), "chasing", start=1),
        Adversary("random_adaptive", f"random adaptive eps in {{{_f(g)},{_f(2 * g)},{_f(4 * g)}}}", g, (1, 2, 4), "random"),
    ]


def _f(q: Fraction) -> str:
    return str(q.numerator) if q.denominator == 1 else f"{q.numerator}/{q.denominator}"


@functools.lru_cache(maxsize=256)
def rr_threshold(eps: Fraction, rounding: str = "up") -> int:
    """``thr - 1`` where ``thr = ceil(p 2^32)`` ("up") or ``floor(p 2^32)`` ("down"), ``p = e^eps/(1+e^eps)``; exact.

    A uint32 draw ``u`` gives a positive loss iff ``u <= thr - 1``: probability ``thr/2^32``.
    """
    if rounding not in ("up", "down"):
        raise ValueError(f"rounding must be 'up' or 'down', found {rounding!r}")
    e = F(eps)
    formula = lambda c: iv_const(c, F(2 ** 32)) / (1 + c.exp(-iv_const(c, e)))  # noqa: E731
    t = ceil_certified(formula) if rounding == "up" else floor_certified(formula)
    return max(0, min(t, 2 ** 32)) - 1


def _rr_mean_iv(c, e: Fraction):
    return StepLaw("rr", e).mean_iv(c)


def deterministic_thresholds(boundary: Boundary, adv: Adversary, T: int) -> np.ndarray:
    """Exact thresholds ``tau_n`` (n = 1..T) of a fixed schedule: the path has crossed at step n iff ``P_n >= tau_n``.

    ``P_n = sum_{m<=n} c_m [s_m = +]``; with ``C_n = sum c_m`` and ``L_n = g (2 P_n - C_n)``,
    the event ``L_n >= b`` is ``P_n >= x_n = (C_n + b/g)/2`` and ``M_n >= b`` is
    ``P_n >= (C_n + (b + sum mu_m)/g)/2``; ``tau_n = ceil(x_n)`` (``>=``) or
    ``floor(x_n) + 1`` (``>``), decided in interval arithmetic (:func:`~reference.martingales.boundaries.ceil_certified`).
    ``BIG`` where the boundary is infinite.
    """
    if not adv.deterministic:
        raise ValueError("deterministic_thresholds needs a fixed schedule")
    return np.array(_det_thresholds_cached(boundary, adv, T), dtype=np.int64)


@functools.lru_cache(maxsize=64)
def _det_thresholds_cached(boundary: Boundary, adv: Adversary, T: int) -> tuple[int, ...]:
    g = adv.unit
    K = len(adv.levels)
    counts = [0] * K
    C = 0
    J = 0
    out = []
    for n in range(1, T + 1):
        k = adv.pattern[(n - 1) % len(adv.pattern)]
        counts[k] += 1
        C += adv.levels[k]
        J += adv.levels[k] ** 2
        V = g * g * J
        if not boundary.finite(V):
            out.append(BIG)
            continue
        cnt = tuple(counts)

        def x(c, V=V, C=C, cnt=cnt):
            b = boundary.iv(c, V)
            if boundary.target == "M":
                for kk in range(K):
                    if cnt[kk]:
                        b = b + cnt[kk] * _rr_mean_iv(c, adv.eps(kk))
            return (C + b / iv_const(c, g)) / 2

        tau = floor_certified(x) + 1 if boundary.strict else ceil_certified(x)
        out.append(int(min(max(tau, -BIG), BIG)))
    return tuple(out)


def deterministic_lower_thresholds(boundary: Boundary, adv: Adversary, T: int) -> np.ndarray:
    """Lower thresholds of a two-sided boundary on a fixed schedule: ``-L_n`` crosses at step n iff ``P_n <= tau_lo_n``.

    ``I_n = 2 P_n - C_n`` and ``L_n = g I_n``; with ``t_n`` the least integer ``I`` with ``g I > b(V_n)``
    (``floor(b/g) + 1``; ``ceil(b/g)`` for ``>=``), ``-L_n`` crosses iff ``-I_n >= t_n`` iff
    ``P_n <= floor((C_n - t_n)/2)``.  ``-BIG`` where the boundary is infinite (never: ``P_n >= 0``).
    """
    if not adv.deterministic:
        raise ValueError("deterministic_lower_thresholds needs a fixed schedule")
    return np.array(_det_lower_cached(boundary, adv, T), dtype=np.int64)


@functools.lru_cache(maxsize=64)
def _det_lower_cached(boundary: Boundary, adv: Adversary, T: int) -> tuple[int, ...]:
    g = adv.unit
    C = J = 0
    out = []
    for n in range(1, T + 1):
        k = adv.pattern[(n - 1) % len(adv.pattern)]
        C += adv.levels[k]
        J += adv.levels[k] ** 2
        V = g * g * J
        if not boundary.finite(V):
            out.append(-BIG)
            continue
        y = lambda c, V=V: boundary.iv(c, V) / iv_const(c, g)  # noqa: E731
        t = floor_certified(y) + 1 if boundary.strict else ceil_certified(y)
        out.append(int(min(max((C - t) // 2, -BIG), BIG)))
    return tuple(out)


@dataclass
class SimPlan:
    """Everything a kernel needs, as host arrays; built by :func:`make_plan`."""

    adversary: Adversary
    boundaries: list
    T: int
    rounding: str
    c_levels: np.ndarray      # int32 [K]
    thr_levels: np.ndarray    # uint32 [K]: thr - 1
    mu_levels: np.ndarray     # float64 [K]: eps tanh(eps/2)
    # fixed schedules
    level_seq: np.ndarray | None = None   # int32 [T]
    tau: np.ndarray | None = None         # int32 [T, nb] thresholds on P_n
    tau_lo: np.ndarray | None = None      # int32 [T, nb] lower thresholds (two-sided: cross iff P_n <= tau_lo; else -BIG)
    two_index: list = field(default_factory=list)  # indices of the two-sided boundaries
    # Markov adversaries
    Jmax: int = 0
    tauI: np.ndarray | None = None        # int32 [nL, Jmax+1] thresholds on I for L-target boundaries
    L_index: list = field(default_factory=list)
    L_two: np.ndarray | None = None       # int32 [nL]: 1 iff that L-target boundary is two-sided (|I| >= tauI)
    bM: np.ndarray | None = None          # float64 [nM, Jmax+1] boundary values (1e300 = infinite)
    M_index: list = field(default_factory=list)
    tol: np.ndarray | None = None         # float64 [T] absolute band per step (M target)
    table: np.ndarray | None = None       # int32 [T, 2] random adversary: level by (n, L_n > 0)

    @property
    def K(self) -> int:
        return len(self.c_levels)


def make_plan(adv: Adversary, boundaries: list, T: int, *, rounding: str = "up", seed: int = 0) -> SimPlan:
    """Precompute thresholds and tables of ``adv`` against ``boundaries`` over ``T`` steps."""
    if T < 1 or T > 2 ** 20:
        raise ValueError(f"steps must lie in [1, 2^20], found {T}")
    if len(boundaries) > 32:
        raise ValueError("at most 32 boundaries per simulation")
    g = adv.unit
    K = len(adv.levels)
    c_levels = np.array(adv.levels, dtype=np.int32)
    thr = np.array([rr_threshold(adv.eps(k), rounding) for k in range(K)], dtype=np.uint64).astype(np.uint32)
    mu = np.array([float(mpf_to_fraction(certified(lambda c, e: e * (1 - 2 / (c.exp(e) + 1)), (adv.eps(k),), "exact", 20)))
                   for k in range(K)])
    plan = SimPlan(adv, list(boundaries), T, rounding, c_levels, thr, mu)
    plan.two_index = [j for j, b in enumerate(boundaries) if b.two_sided]
    if adv.deterministic:
        plan.level_seq = np.array([adv.pattern[n % len(adv.pattern)] for n in range(T)], dtype=np.int32)
        cols = [deterministic_thresholds(b, adv, T) for b in boundaries]
        plan.tau = np.ascontiguousarray(np.stack(cols, axis=1).astype(np.int32)) if cols else np.zeros((T, 0), np.int32)
        lows = [deterministic_lower_thresholds(b, adv, T) if b.two_sided else np.full(T, -BIG, np.int64) for b in boundaries]
        plan.tau_lo = (np.ascontiguousarray(np.stack(lows, axis=1).astype(np.int32)) if lows
                       else np.zeros((T, 0), np.int32))
        return plan
    Jmax = T * int(max(adv.levels)) ** 2
    plan.Jmax = Jmax
    Vs = (float(g) ** 2) * np.arange(Jmax + 1, dtype=np.float64)
    gf = float(g)
    tauI, bM, two = [], [], []
    for j, b in enumerate(boundaries):
        vals = np.asarray(b.np(np, Vs), dtype=np.float64)
        if b.target == "L":
            plan.L_index.append(j)
            tauI.append(_integer_table(b, vals / gf, g, strict=b.strict))
            two.append(1 if b.two_sided else 0)
        else:
            plan.M_index.append(j)
            bM.append(np.where(np.isfinite(vals), vals, 1e300))
    plan.tauI = np.ascontiguousarray(np.stack(tauI)) if tauI else np.zeros((0, Jmax + 1), np.int32)
    plan.L_two = np.array(two, dtype=np.int32)
    plan.bM = np.ascontiguousarray(np.stack(bM)) if bM else np.zeros((0, Jmax + 1), np.float64)
    n = np.arange(1, T + 1, dtype=np.float64)
    bmax = max([float(np.max(np.where(x < 1e299, x, 0.0))) for x in bM], default=0.0)
    scale = gf * n * float(max(adv.levels)) + n * float(mu.max()) + bmax + 1.0
    plan.tol = BAND * scale
    if adv.policy == "random":
        rng = np.random.Generator(np.random.PCG64DXSM(np.random.SeedSequence(int(seed), spawn_key=(stream_tag("table:" + adv.key),))))
        plan.table = rng.integers(0, K, size=(T, 2), dtype=np.int32)
    elif adv.policy != "chasing":
        raise ValueError(f"unknown policy {adv.policy!r}")
    return plan


def _integer_table(b: Boundary, y: np.ndarray, g: Fraction, strict: bool) -> np.ndarray:
    """Thresholds on I for an L-target boundary: cross iff ``I >= tau[J]``; float values near an integer are decided exactly."""
    out = np.full(y.shape, BIG, dtype=np.int64)
    fin = np.isfinite(y)
    yf = y[fin]
    t = np.floor(yf) + 1 if strict else np.ceil(yf)
    out[fin] = t.astype(np.int64)
    near = np.abs(yf - np.round(yf)) <= BAND * np.maximum(1.0, np.abs(yf)) + 1e-300
    idx = np.flatnonzero(fin)[near]
    for J in idx:
        V = g * g * int(J)
        if not b.finite(V):
            out[J] = BIG
            continue
        f = lambda c, V=V: b.iv(c, V) / iv_const(c, g)  # noqa: E731
        out[J] = floor_certified(f) + 1 if strict else ceil_certified(f)
    return np.clip(out, -BIG, BIG).astype(np.int32)


# ---------------------------------------------------------------------------
# kernels (array-module code)
# ---------------------------------------------------------------------------

def _draw_blocks(xp, source: str, seed: int, tag: int, chunk: int, path0: int, B: int, T: int):
    """Yield (s0, draws[S, B]) for consecutive blocks of BLOCK steps."""
    if source == "pcg":
        bg = chunk_bitgen(seed, tag, chunk)
        for s0 in range(0, T, BLOCK):
            S = min(BLOCK, T - s0)
            raw = bg.random_raw((BLOCK * B + 1) // 2).view(np.uint32)[: BLOCK * B].reshape(BLOCK, B)
            yield s0, raw[:S]
    elif source == "philox":
        for s0 in range(0, T, BLOCK):
            S = min(BLOCK, T - s0)
            yield s0, philox_draws(xp, seed, tag, path0, B, s0, S)
    else:
        raise ValueError(f"draw source must be 'pcg' or 'philox', found {source!r}")


def _kernel_fixed(xp, plan: SimPlan, draws):
    """Fixed schedule: P_n += c_n [u <= thr_n]; crossed_j |= P_n >= tau_n,j (or P_n <= tau_lo_n,j, two-sided j). Returns crossed[nb, B] (bool)."""
    T, nb = plan.T, plan.tau.shape[1]
    two = list(plan.two_index)
    n2 = len(two)
    ctot = int(plan.c_levels[plan.level_seq].sum())
    dt = xp.int16 if ctot < 2 ** 15 - 1 else xp.int32
    thr_seq = plan.thr_levels[plan.level_seq]
    coef = plan.c_levels[plan.level_seq]
    lim = np.iinfo(np.int16) if dt == xp.int16 else np.iinfo(np.int32)
    tau = xp.asarray(np.clip(plan.tau, lim.min, lim.max).astype(dt))
    tau_lo = xp.asarray(np.ascontiguousarray(np.clip(plan.tau_lo[:, two], lim.min, lim.max).astype(dt))) if n2 else None
    B = None
    for s0, u in draws:
        if B is None:
            B = u.shape[1]
            P = xp.zeros(B, dtype=dt)
            plus = xp.empty(B, dtype=xp.bool_)
            crossed = xp.zeros((nb, B), dtype=xp.bool_)
            tmp = xp.empty((nb, B), dtype=xp.bool_)
            inc = xp.empty(B, dtype=dt)
            if n2:
                crossed_lo = xp.zeros((n2, B), dtype=xp.bool_)
                tmp_lo = xp.empty((n2, B), dtype=xp.bool_)
        for r in range(u.shape[0]):
            n = s0 + r
            xp.less_equal(u[r], thr_seq[n], out=plus)
            if coef[n] == 1:
                xp.add(P, plus, out=P, casting="unsafe")
            else:
                xp.multiply(plus, int(coef[n]), out=inc, casting="unsafe")
                xp.add(P, inc, out=P)
            xp.greater_equal(P[None, :], tau[n][:, None], out=tmp)
            xp.bitwise_or(crossed, tmp, out=crossed)
            if n2:
                xp.less_equal(P[None, :], tau_lo[n][:, None], out=tmp_lo)
                xp.bitwise_or(crossed_lo, tmp_lo, out=crossed_lo)
    for a, j in enumerate(two):
        crossed[j] |= crossed_lo[a]
    return crossed, xp.zeros_like(crossed)


def _take(xp, a, idx, out, axis=None):
    """``take`` into ``out``; NumPy gets ``mode="clip"`` (indices are in range; avoids a buffered copy), CuPy has no mode."""
    if xp is np:
        return np.take(a, idx, axis=axis, out=out, mode="clip")
    return xp.take(a, idx, axis=axis, out=out)


def _kernel_markov(xp, plan: SimPlan, draws):
    """State-dependent adversary: per step choose the level, draw, update I, J, sum mu, compare with the tables.

    Odometers (L target): crossed iff ``I >= tauI[J]`` (exact; two-sided: or ``-I >= tauI[J]``).  M target: ``d = g I - sum mu - b(g^2 J)``;
    crossed iff ``d >= tol_n``, ambiguous iff ``|d| < tol_n`` (``tol_n`` = 2^-30 times a bound on the magnitudes).
    """
    K = plan.K
    gf = float(plan.adversary.unit)
    c_lv = xp.asarray(plan.c_levels)
    thr_lv = xp.asarray(plan.thr_levels)
    mu_lv = xp.asarray(plan.mu_levels)
    c2_lv = c_lv * c_lv
    tauI = xp.asarray(plan.tauI)
    bM = xp.asarray(plan.bM)
    table = None if plan.table is None else xp.asarray(plan.table)
    chasing = plan.adversary.policy == "chasing"
    nL, nM = len(plan.L_index), len(plan.M_index)
    two_rows = [a for a in range(nL) if plan.L_two is not None and plan.L_two[a]]
    n2 = len(two_rows)
    two_sel = xp.asarray(np.array(two_rows, dtype=np.int64)) if n2 else None
    B = None
    for s0, u in draws:
        if B is None:
            B = u.shape[1]
            k = xp.full(B, plan.adversary.start, dtype=xp.int32)
            I = xp.zeros(B, dtype=xp.int32)
            J = xp.zeros(B, dtype=xp.int32)
            mus = xp.zeros(B, dtype=xp.float64)
            crL = xp.zeros((nL, B), dtype=xp.bool_)
            crM = xp.zeros((nM, B), dtype=xp.bool_)
            amM = xp.zeros((nM, B), dtype=xp.bool_)
            tI = xp.empty((nL, B), dtype=xp.int32)
            bL = xp.empty((nL, B), dtype=xp.bool_)
            tM = xp.empty((nM, B), dtype=xp.float64)
            bMb = xp.empty((nM, B), dtype=xp.bool_)
            c = xp.empty(B, dtype=xp.int32)
            thr = xp.empty(B, dtype=xp.uint32)
            sgn = xp.empty(B, dtype=xp.int32)
            plus = xp.empty(B, dtype=xp.bool_)
            Mf = xp.empty(B, dtype=xp.float64)
            if n2:
                crL2 = xp.zeros((n2, B), dtype=xp.bool_)
                bL2 = xp.empty((n2, B), dtype=xp.bool_)
                negI = xp.empty(B, dtype=xp.int32)
        for r in range(u.shape[0]):
            n = s0 + r
            if table is not None:
                k = xp.take(table[n], (I > 0).astype(xp.int32))
            _take(xp, c_lv, k, c)
            _take(xp, thr_lv, k, thr)
            xp.less_equal(u[r], thr, out=plus)
            xp.multiply(plus, 2, out=sgn, casting="unsafe")
            sgn -= 1
            I += c * sgn
            J += xp.take(c2_lv, k)
            mus += xp.take(mu_lv, k)
            if nL:
                _take(xp, tauI, J, tI, axis=1)
                xp.greater_equal(I[None, :], tI, out=bL)
                xp.bitwise_or(crL, bL, out=crL)
                if n2:
                    xp.negative(I, out=negI)
                    xp.greater_equal(negI[None, :], tI[two_sel], out=bL2)
                    xp.bitwise_or(crL2, bL2, out=crL2)
            if nM:
                xp.multiply(I, gf, out=Mf)
                xp.subtract(Mf, mus, out=Mf)
                tol = float(plan.tol[n])
                _take(xp, bM, J, tM, axis=1)
                xp.subtract(Mf[None, :], tM, out=tM)
                xp.greater_equal(tM, tol, out=bMb)
                xp.bitwise_or(crM, bMb, out=crM)
                xp.abs(tM, out=tM)
                xp.less(tM, tol, out=bMb)
                xp.bitwise_or(amM, bMb, out=amM)
            if chasing:
                k = xp.clip(k + sgn, 0, K - 1)
    nb = len(plan.boundaries)
    crossed = xp.zeros((nb, B), dtype=xp.bool_)
    amb = xp.zeros((nb, B), dtype=xp.bool_)
    for a, j in enumerate(plan.L_index):
        crossed[j] = crL[a]
    for r, a in enumerate(two_rows):
        crossed[plan.L_index[a]] |= crL2[r]
    for a, j in enumerate(plan.M_index):
        crossed[j] = crM[a]
        amb[j] = amM[a] & ~crM[a]
    return crossed, amb


def _use_jit(plan: SimPlan, be, jit) -> bool:
    """Whether to run the compiled Markov kernel: ``jit=None`` when numba is available (NumPy backend, Markov plan)."""
    if jit is not None and not isinstance(jit, bool):
        raise ValueError(f"jit must be None, True or False, found {jit!r}")
    if jit is False or be.name != "numpy" or plan.adversary.deterministic:
        return False
    from .jit import numba_available

    ok, why = numba_available()
    if jit and not ok:
        raise ValueError(f"jit=True needs numba: {why}")
    return ok


def _markov_jit(xp, plan: SimPlan, draws):
    from .jit import markov_block

    return markov_block(plan, draws)


def crossing_masks(plan: SimPlan, n_paths: int, *, seed: int = 0, source: str = "philox", backend=None,
                   jit: bool | None = False):
    """Per-path crossing and ambiguity bit masks (bit j: boundary j) of paths ``0 .. n_paths-1``, one chunk (tests, GPU cross-checks).

    ``jit=False`` (default): the NumPy reference kernels; ``True``: the compiled Markov kernel
    (numba; ValueError if missing); ``None``: compiled when available.
    """
    from .backend import get_backend

    be = backend if backend is not None else get_backend("numpy", threads=1)
    if n_paths > CHUNK:
        raise ValueError(f"at most {CHUNK} paths, found {n_paths}")
    xp = be.xp
    kern = _kernel_fixed if plan.adversary.deterministic else _kernel_markov
    if _use_jit(plan, be, jit):
        kern = _markov_jit
    cr, am = kern(xp, plan, _draw_blocks(xp, source, seed, stream_tag(plan.adversary.key), 0, 0, n_paths, plan.T))
    cr, am = be.asnumpy(cr), be.asnumpy(am)
    w = (np.uint32(1) << np.arange(cr.shape[0], dtype=np.uint32))[:, None]
    return (cr * w).sum(axis=0).astype(np.uint32), (am * w).sum(axis=0).astype(np.uint32)


@dataclass
class SimResult:
    """Crossing counts of one adversary against several boundaries.

    ``crossed[j]``: paths that certainly crossed boundary j; ``ambiguous[j]``: paths
    within the float band of boundary j and not certainly crossed (0 for fixed schedules).
    """

    adversary: str
    n_paths: int
    T: int
    crossed: list
    ambiguous: list
    seconds: float = 0.0
    backend: str = "numpy"
    source: str = "pcg"
    threads: int = 1
    kernel: str = "numpy"   # "numpy" (array code), "numba" (compiled Markov kernel) or "cuda"

    @property
    def path_steps_per_second(self) -> float:
        return self.n_paths * self.T / self.seconds if self.seconds > 0 else float("nan")


def simulate(plan: SimPlan, n_paths: int, *, seed: int = 0, backend=None, source: str | None = None,
             progress=None, use_kernel: bool | None = None, jit: bool | None = None) -> SimResult:
    """Run ``n_paths`` paths of ``plan`` and count crossings.

    NumPy backend: chunks of ``CHUNK`` paths over ``backend.threads`` threads,
    draws from PCG64DXSM per chunk (``source="pcg"``, default) or Philox
    (``source="philox"``, the GPU kernels' stream).  Markov plans run the compiled
    kernel of :mod:`.jit` when ``jit`` is None (default) and numba is installed, or
    when ``jit=True`` (ValueError if numba is missing); ``jit=False`` forces the NumPy
    reference kernel.  Both give identical counts for the same seed.  CuPy backend: the fused CUDA
    kernels of :mod:`reference.martingales.cuda` (``use_kernel=True``, default) or
    this module's array code on the device (``use_kernel=False``); both use Philox
    and agree bit for bit with ``source="philox"`` on NumPy.
    """
    import time

    from .backend import get_backend

    be = backend if backend is not None else get_backend("numpy")
    if isinstance(n_paths, bool) or not isinstance(n_paths, (int, np.integer)) or n_paths < 1:
        raise ValueError(f"paths must be a positive integer, found {n_paths!r}")
    tag = stream_tag(plan.adversary.key)
    t0 = time.perf_counter()
    if be.name == "cupy":
        src = "philox"
        if use_kernel is None or use_kernel:
            from .cuda import simulate_cuda

            crossed, amb = simulate_cuda(plan, int(n_paths), seed=seed, tag=tag)
            be.synchronize()
            dt = time.perf_counter() - t0
            return SimResult(plan.adversary.key, int(n_paths), plan.T, crossed, amb, dt, "cupy", "philox-kernel", 1,
                             "cuda")
    else:
        src = source or "pcg"
    xp = be.xp
    kern = _kernel_fixed if plan.adversary.deterministic else _kernel_markov
    compiled = _use_jit(plan, be, jit)
    if compiled:
        kern = _markov_jit
    nchunks = (int(n_paths) + CHUNK - 1) // CHUNK

    def run_chunk(ci: int):
        path0 = ci * CHUNK
        B = min(CHUNK, int(n_paths) - path0)
        cr, am = kern(xp, plan, _draw_blocks(xp, src, seed, tag, ci, path0, B, plan.T))
        res = (be.asnumpy(cr.sum(axis=1)).astype(np.int64), be.asnumpy(am.sum(axis=1)).astype(np.int64))
        if progress is not None:
            progress.update(B)
        return res

    if be.name == "numpy" and be.threads > 1 and nchunks > 1:
        with ThreadPoolExecutor(max_workers=be.threads) as ex:
            parts = list(ex.map(run_chunk, range(nchunks)))
    else:
        parts = [run_chunk(ci) for ci in range(nchunks)]
    crossed = np.sum([p[0] for p in parts], axis=0)
    amb = np.sum([p[1] for p in parts], axis=0)
    be.synchronize()
    dt = time.perf_counter() - t0
    return SimResult(plan.adversary.key, int(n_paths), plan.T, [int(x) for x in crossed], [int(x) for x in amb],
                     dt, be.name, src, be.threads, "numba" if compiled else "numpy")
