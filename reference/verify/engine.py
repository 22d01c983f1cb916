"""Exact verifier of privacy filters and odometers on adaptive randomized-response compositions.

Why randomized response suffices
--------------------------------
By whitehouse2022 Lemma 3 (and rogers2016 Theorem 2.7 with Lemma 3.4) every step that is
(eps_n, delta_n)-DP conditionally on the past is a post-processing of conditional randomized
response RR_{eps_n, delta_n}.  Under the first input's law P (game bit b = 0) one step of
RR_{eps,delta} moves the privacy loss L by

* ``+eps`` with probability ``(1 - delta) e^eps / (1 + e^eps)``,
* ``-eps`` with probability ``(1 - delta) / (1 + e^eps)``,
* ``+inf`` with probability ``delta`` (the "reveal" output, impossible under the other input).

An adaptive adversary (an :class:`Adversary`) picks the next step from a finite *menu* of
(eps, delta) pairs as a function of the realized loss, of ``V = sum eps_m^2``, of the delta
spent and (for some targets) of the multiset of past eps, and may stop.  The :class:`Target`
(a filter or an odometer adapter, see :mod:`reference.verify.targets`) is consulted on the
exact accountant state.  :func:`verify` computes

* for a **filter** with target (eps, delta): the hockey-stick divergence of the stopped
  transcript, ``E_P[(1 - e^{eps - L_N})_+]`` (L = +inf mass counting fully); the filter is
  valid for the adversary iff this is <= delta;
* for an **odometer** u_n with failure probability delta: ``P(exists n: L_n > u_n)``
  (``|L_n| > u_n`` for two-sided targets such as rogers2016 Definition 3.1), with the
  reveal outcome crossing every finite u_n.

State space and complexity
--------------------------
Every menu eps is an integer multiple ``a_i u`` of a unit u (the gcd of the menu) and every
menu delta a multiple ``d_i w`` of a unit w, so the loss lives on uZ, V on u^2 Z and the delta
sum on wZ.  The engine's key is ``(j, m, x)``: ``V = j u^2``, delta spent ``m w``, and ``x`` the
count vector over the menu when the target needs more than V (``Target.stat == "counts"``,
e.g. sum eps for the basic filter) or ``None`` (``stat == "V"``: equal V merge).  Each key holds
a float64 vector over the loss index.  Keys are processed in increasing V (every step adds
``a_i^2 >= 1`` to j), so when a key is processed all of its mass has arrived.  Per key the
adversary is called once on the whole loss vector, the target once per menu item (memoised),
and the mass is pushed with vectorised NumPy operations.

Cost: ``O(sum over keys of len(loss vector) * M)`` flops plus ``O(#keys * M)`` exact target
decisions, with M the menu size.  For ``stat == "V"`` there are at most ``(J + 1) * #m`` keys
(J = V cap / u^2) and the loss vector has at most ``2 J / a_min + 1`` entries: O(J^2 M / a_min);
10^3 rounds take well under a second, 10^4 rounds a few seconds plus the decisions.  For
``stat == "counts"`` the keys are count vectors (O(J^M / prod a_i^2) of them): keep M <= 2 and J
in the hundreds.

What is rigorous
----------------
The reported value is a certified enclosure ``[lo, hi]`` of the exact quantity for the given
adversary and target (the target's decisions/thresholds are the shipped exact decisions, or the
shipped rounded-up odometer values, which *are* the odometer a user sees):

* transition probabilities and hockey-stick weights ``1 - e^{eps - k u}`` are enclosed with
  mpmath interval arithmetic; the weights are rounded outward to doubles (lo run uses the lower
  weight, hi run the upper weight); the probabilities to nearest (counted as 2 roundings);
* every mass is a sum of products of nonnegative numbers, so its float value obeys
  ``x (1 - u_m)^D - A <= fl(x) <= x (1 + u_m)^D + A`` with u_m = 2^-53, D the longest chain of
  roundings (``max_rounds * (3 + 2M)`` for the propagation, plus the final dot products and
  sums), and A <= (number of multiplications) * 2^-1074 for underflow;
* the final bounds are formed in exact rational arithmetic:
  ``hi = (S_hi + A) / (1 - D u_m)``, ``lo = (S_lo - A) (1 - D u_m)``, rounded outward to mpf.

Nothing is truncated: vectors only lose exact float zeros at their ends.  The enclosure is
rigorous for the *model* (the adversary on its lattice and menu, the horizon ``J``); it is not a
supremum over all adversaries.
"""
from __future__ import annotations

import heapq
import math
import time
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Callable, Optional

import mpmath
import numpy as np
from mpmath import libmp

from ..catalog import cites
from ..precision import (
    Domain,
    frac_gcd,
    check,
    check_seq,
    mpf_to_fraction,
)
from ..simulate.rogers2016_games import StoppingTimeAdversary, iv_context

__all__ = [
    "AccState", "View", "Target", "Adversary", "VerifierResult", "verify",
    "Homogeneous", "Alternating", "LossChasing", "VarianceSpender", "StoppingTime", "RandomAdaptive",
    "DeltaSpender", "FunctionAdversary", "UNIT_ROUNDOFF",
]

W22 = "whitehouse2022"
R16 = "rogers2016"
UNIT_ROUNDOFF = Fraction(1, 2 ** 53)
_TINY = Fraction(1, 2 ** 1074)
_NN = Domain.nonnegative()
_P = Domain.positive()
_U0 = Domain.unit_nonneg()


def _lattice(menu: tuple, rounds: int) -> tuple:
    """(u, w, a, dd, J) of a menu: eps unit u and delta unit w (gcds), the items in those units, the V cap J.

    ``J = rounds * min(a)^2`` in units of u^2: paths with V <= J (so the longest has ``rounds`` steps).
    One function for the verifier and the game engine, so a policy computed by one replays on the same horizon.
    """
    u = frac_gcd([e for e, _ in menu])
    w_unit = frac_gcd([d for _, d in menu]) or Fraction(1)
    a = tuple(int(e / u) for e, _ in menu)
    dd = tuple(int(d / w_unit) for _, d in menu)
    return u, w_unit, a, dd, rounds * min(a) ** 2


def _exact_key(st: "AccState") -> tuple:
    """The exact state a target's answer depends on: (V, delta spent, eps multiset or None); the memo key."""
    if st.counts is None:
        return (st.V, st.delta_spent, None)
    return (st.V, st.delta_spent, tuple(sorted(st.eps_counts().items())))


# ===========================================================================
# Accountant states, views, targets, adversaries
# ===========================================================================

@cites(W22, "Theorem 1 (the accountant state V_n, sum delta_m)", "Lemma 3")
@dataclass(frozen=True)
class AccState:
    """whitehouse2022 Theorem 1 / rogers2016 Section 3: the exact accountant state after the steps so far.

    ``V = sum eps_m^2`` and ``delta_spent = sum delta_m`` (exact Fractions), ``counts`` the number
    of times each menu item was used (a tuple aligned with ``menu``) or ``None`` when the engine
    merges states of equal V (then only V and delta_spent are known), ``menu`` the adversary's
    exact (eps, delta) items.
    """

    V: Fraction
    delta_spent: Fraction
    counts: Optional[tuple]
    menu: tuple

    def eps_counts(self) -> dict:
        """``{eps: count}`` of the past steps (requires ``counts``); items with equal eps are merged."""
        if self.counts is None:
            raise ValueError("counts are not tracked for this target (stat == 'V')")
        out: dict = {}
        for (e, _), c in zip(self.menu, self.counts):
            if c:
                out[e] = out.get(e, 0) + c
        return out

    @property
    def n(self) -> Optional[int]:
        """Number of past steps (``None`` when counts are not tracked)."""
        return None if self.counts is None else sum(self.counts)


@cites(W22, "Lemma 3 (adversary's view of conditional randomized response)")
@dataclass(frozen=True)
class View:
    """What an adversary sees at a key: the lattice unit ``u``, ``j`` (V = j u^2), ``m`` (delta spent = m w), the state.

    ``loss_index`` (NumPy int64 array) is passed separately to :meth:`Adversary.choose`: the
    realized loss is ``loss_index * u``.  ``a`` are the menu eps in units of u.
    """

    u: Fraction
    j: int
    m: int
    state: AccState
    a: tuple

    @property
    def V(self) -> Fraction:
        return self.state.V


@cites(W22, "Theorem 1", "Theorem 2")
class Target:
    """whitehouse2022 Theorems 1-2 / rogers2016 Definitions 3.1-3.2: a filter or odometer as seen by :func:`verify`.

    Subclasses set ``name``, ``kind`` (``"filter"`` or ``"odometer"``), ``eps`` (filters: the eps of
    the (eps, delta)-DP claim, an exact Fraction), ``delta`` (the claimed delta / failure
    probability, exact), ``stat`` (``"V"`` if decisions depend only on (V, delta spent);
    ``"counts"`` otherwise), ``supports_delta`` (steps with delta_n > 0 allowed) and
    ``two_sided`` (odometers: bad event ``|L| > u``).  Filters implement
    ``admits(state, eps_n, delta_n) -> bool`` (exact), odometers ``bound(state) -> Fraction | None``
    (the odometer value as an exact rational, ``None`` = +inf).  ``bind(menu)`` is called once
    per run with the exact menu.  Implementations must be deterministic: :func:`verify` memoises
    the answers on the instance (``_verifier_memo``, keyed by the exact V, delta spent and eps
    multiset), so one target object can be reused across adversaries.
    """

    name = "target"
    kind = "filter"
    eps: Optional[Fraction] = None
    delta: Fraction = Fraction(0)
    stat = "V"
    supports_delta = False
    two_sided = False
    description = ""

    def bind(self, menu: tuple) -> None:
        """Called once per run with the exact menu ((eps, delta) pairs); default: nothing."""

    def admits(self, state: AccState, eps_n: Fraction, delta_n: Fraction) -> bool:
        """Filters: whether the step (eps_n, delta_n) runs from the exact accountant ``state``."""
        raise TypeError(f"{type(self).__name__} ({self.kind}) does not decide admission: only filter targets define admits()")

    def bound(self, state: AccState) -> Optional[Fraction]:
        """Odometers: the (rounded-up, rational) bound u_n at ``state``; None means +inf."""
        raise TypeError(f"{type(self).__name__} ({self.kind}) has no running bound: only odometer targets define bound()")

    @property
    def allowed(self) -> Fraction:
        """The delta the target claims (hockey-stick bound for filters, failure probability for odometers)."""
        return self.delta

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r})"


@cites(W22, "Lemma 3 (adaptive adversary choosing (eps_n, delta_n))")
class Adversary:
    """whitehouse2022 Lemma 3 / rogers2016 Algorithm 2: a deterministic adaptive adversary on a finite menu.

    ``menu``: tuple of exact (eps, delta) pairs (eps > 0, delta in [0, 1)).  ``choose(view, k)``
    returns an int array (same shape as ``k``) of menu indices, ``-1`` meaning *stop*; it may
    depend on the realized loss ``k * view.u``, on ``view.V``, ``view.state.delta_spent`` and, when
    tracked, ``view.state.counts``.  Must be a pure function (the engine calls it once per key).
    ``name`` labels it in tables.  If ``retry`` is honoured by :func:`verify`, a refused choice
    is replaced by the admitted item of largest eps not above it (a predictable probe).
    """

    name = "adversary"
    menu: tuple = ()

    def choose(self, view: View, k: np.ndarray) -> np.ndarray:
        """Menu index per loss index ``k`` (-1 stops); every concrete adversary defines it."""
        raise TypeError(f"{type(self).__name__} defines no choose(view, k): subclass Adversary and define it")

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r})"


def _menu(items, name="menu") -> tuple:
    out = []
    for i, it in enumerate(items):
        if isinstance(it, (tuple, list)):
            e, d = it
        else:
            e, d = it, 0
        out.append((check(f"{name}[{i}].eps", e, _P), check(f"{name}[{i}].delta", d, _U0)))
    if not out:
        raise ValueError(f"{name} must contain at least one (eps, delta) item, found none")
    return tuple(out)


def _units(view: View, x: Fraction, name: str) -> int:
    q = x / view.u
    if q.denominator != 1:
        raise ValueError(f"{name} = {x} is not a multiple of the lattice unit {view.u}")
    return int(q)


@cites(W22, "Theorem 1 (homogeneous workload)")
class Homogeneous(Adversary):
    """whitehouse2022 Theorem 1 on a homogeneous workload: always (eps0, delta0); the non-adaptive baseline.

    Against the homogeneous adversary a filter's achieved delta is the optimal (KOV) composition
    of the admitted number of rounds.  Preconditions: eps0 > 0, delta0 in [0, 1).
    """

    def __init__(self, eps0, delta0=0):
        self.menu = _menu([(eps0, delta0)])
        self.name = f"homogeneous({self.menu[0][0]}{',' + str(self.menu[0][1]) if self.menu[0][1] else ''})"

    def choose(self, view, k):
        return np.zeros(k.shape, dtype=np.int64)


@cites(W22, "Theorem 1 (alternating workload)")
class Alternating(Adversary):
    """whitehouse2022 Theorem 1: alternate a large and a small step (big, small, big, ...), predictable from V.

    After 2t steps V = t (big^2 + small^2), after 2t + 1 steps V = t (big^2 + small^2) + big^2, so the
    parity is read off V exactly (no round counter needed).  Preconditions: big > small > 0.
    """

    def __init__(self, big, small):
        b, s = check("big", big, _P), check("small", small, _P)
        if not b > s:
            raise ValueError(f"big must exceed small, found big={big!r}, small={small!r}")
        self.menu = ((b, Fraction(0)), (s, Fraction(0)))
        self.name = f"alternating({b},{s})"

    def choose(self, view, k):
        B, S = view.a
        period = B * B + S * S
        nxt = 0 if view.j % period == 0 else 1
        return np.full(k.shape, nxt, dtype=np.int64)


@cites(W22, "Theorem 1 (loss-dependent adversary)")
class LossChasing(Adversary):
    """whitehouse2022 Theorem 1: raise eps after a high realized loss, lower it after a low one.

    "High" means above the drift: ``L > pivot * V`` (default pivot 1/2, the P-mean of the loss
    is about V/2), so the choice depends on both the loss and V.  Menu (up, down).
    Preconditions: up, down > 0, pivot >= 0.
    """

    def __init__(self, up, down, pivot=Fraction(1, 2)):
        self.menu = _menu([up, down])
        self.pivot = check("pivot", pivot, _NN)
        self.name = f"loss_chasing({self.menu[0][0]},{self.menu[1][0]})"

    def choose(self, view, k):
        # k u > pivot j u^2  <=>  k > pivot j u   (exact: compare k * den > num)
        t = self.pivot * view.j * view.u
        return np.where(k * t.denominator > t.numerator, 0, 1).astype(np.int64)


@cites(W22, "Theorem 1 (variance-spending adversary)")
class VarianceSpender(Adversary):
    """whitehouse2022 Theorem 1: small steps while V < v_switch, then large ones, but only while the loss is high.

    Once V >= v_switch the adversary spends its remaining variance in large steps when
    ``L > pivot * V`` and keeps small steps otherwise (loss- and V-dependent).  Menu (big, small).
    Preconditions: eps_small, eps_big > 0, v_switch >= 0.
    """

    def __init__(self, eps_small, eps_big, v_switch, pivot=Fraction(1, 2)):
        self.menu = _menu([eps_big, eps_small])
        self.v_switch = check("v_switch", v_switch, _NN)
        self.pivot = check("pivot", pivot, _NN)
        self.name = f"variance_spender({self.menu[1][0]},{self.menu[0][0]},V>={self.v_switch})"

    def choose(self, view, k):
        if view.V < self.v_switch:
            return np.ones(k.shape, dtype=np.int64)
        t = self.pivot * view.j * view.u
        return np.where(k * t.denominator > t.numerator, 0, 1).astype(np.int64)


@cites(R16, "Algorithm 5 (stopping time adversary)", "Theorem 6.1")
class StoppingTime(Adversary):
    """rogers2016 Algorithm 5: RR_eps every round, stop the first time the loss crosses Algorithm 5's boundary.

    Wraps :class:`reference.simulate.rogers2016_games.StoppingTimeAdversary` (its exact, cached threshold
    ``threshold_tops(i)``): after i rounds (i = V/eps^2, exact) the adversary stops iff the number
    of top outcomes, ``(loss/eps + i)/2``, is at least ``threshold_tops(i)``, and after ``k`` rounds.
    Parameters as in rogers2016 Algorithm 5: eps > 0, delta > 0 with log(n) > delta, C > 0, n >= 2,
    k (default n).
    """

    _SHARED: dict = {}  # exact parameters -> StoppingTimeAdversary (its threshold cache is shared across instances)

    def __init__(self, eps, delta, C, n, k=None):
        key = tuple(check(nm, v, _P) for nm, v in (("eps", eps), ("delta", delta), ("C", C), ("n", n))) + (k,)
        inner = self._SHARED.get(key)
        if inner is None:
            inner = self._SHARED[key] = StoppingTimeAdversary(eps, delta, C, n, k)
        self.inner = inner
        self.menu = ((self.inner.eps, Fraction(0)),)
        self.name = f"stopping_time(eps={self.inner.eps},C={self.inner.C},n={self.inner.n})"

    def choose(self, view, k):
        a = view.a[0]
        i, r = divmod(view.j, a * a)
        if r:
            raise ValueError("StoppingTime: V is not a multiple of eps^2 (mixed menus are not Algorithm 5)")
        if i >= self.inner.k:
            return np.full(k.shape, -1, dtype=np.int64)
        if i == 0:
            return np.zeros(k.shape, dtype=np.int64)
        T = self.inner.threshold_tops(i)
        # tops = (k/a + i)/2 >= T  <=>  k >= a (2T - i)
        return np.where(k >= a * (2 * T - i), -1, 0).astype(np.int64)


@cites(W22, "Lemma 3 (random adaptive adversaries: mixtures of deterministic ones)")
class RandomAdaptive(Adversary):
    """whitehouse2022 Lemma 3: a seeded random deterministic strategy, adaptive in the loss and V.

    The loss is bucketed by ``z = (L - V/2)/sqrt(V)`` (cut points -1, 0, 1; computed exactly on
    rationals via squares) and V by ``floor(V/v_bucket)``; for each (z bucket, V bucket) the item
    (or stop, with probability ``p_stop``) is drawn from ``numpy.random.default_rng((seed, V bucket))``.
    Reproducible: same seed, same strategy.  Preconditions: menu non-empty, v_bucket > 0,
    p_stop in [0, 1).
    """

    def __init__(self, seed: int, menu, v_bucket=Fraction(1, 20), p_stop=0):
        self.menu = _menu(menu)
        self.seed = int(check("seed", seed, Domain.integers_from(0)))
        self.v_bucket = check("v_bucket", v_bucket, _P)
        self.p_stop = float(check("p_stop", p_stop, _U0))
        self.name = f"random_adaptive(seed={self.seed})"
        self._table: dict = {}

    def _row(self, vb: int) -> np.ndarray:
        r = self._table.get(vb)
        if r is None:
            rng = np.random.default_rng([self.seed, vb])
            r = rng.integers(0, len(self.menu), size=4)
            r = np.where(rng.random(4) < self.p_stop, -1, r)
            self._table[vb] = r = r.astype(np.int64)
        return r

    def choose(self, view, k):
        V = view.V
        row = self._row(int(V // self.v_bucket))
        if V == 0:
            return np.full(k.shape, row[2] if row[2] >= 0 else 0, dtype=np.int64)
        # z = (k u - V/2)/sqrt(V), u = p/q, V = j u^2: sign(z) = sign(2kq - jp); |z| >= 1 <=> (2kq - jp)^2 >= 4 j q^2
        p, q, j = view.u.numerator, view.u.denominator, view.j
        if max(abs(int(k.min())), abs(int(k.max()))) * q + j * p < 2 ** 30:
            t = 2 * k * q - j * p
            pos = t > 0
            big = t * t >= 4 * j * q * q
        else:  # exact Python integers
            t = [2 * int(x) * q - j * p for x in k]
            pos = np.array([x > 0 for x in t], dtype=bool)
            big = np.array([x * x >= 4 * j * q * q for x in t], dtype=bool)
        b = np.where(pos, np.where(big, 3, 2), np.where(big, 0, 1))
        return row[b]


@cites(W22, "Theorem 1 (steps with delta_n > 0)")
class DeltaSpender(Adversary):
    """whitehouse2022 Theorem 1 with delta_n > 0: (eps_hi, delta_n) steps while the loss is high, else (eps_lo, 0).

    Stresses the delta'' budget: each (eps_hi, delta_n) step reveals the input with probability
    delta_n.  Preconditions: eps_hi, eps_lo > 0, delta_n in (0, 1).
    """

    def __init__(self, eps_hi, eps_lo, delta_n, pivot=Fraction(1, 2), delta_cap=None):
        self.menu = _menu([(eps_hi, delta_n), (eps_lo, 0)])
        if self.menu[0][1] == 0:
            raise ValueError(f"delta_n must be positive, found {delta_n!r}")
        self.pivot = check("pivot", pivot, _NN)
        self.delta_cap = None if delta_cap is None else check("delta_cap", delta_cap, _NN)
        self.name = f"delta_spender({self.menu[0][0]},{self.menu[1][0]},delta_n={self.menu[0][1]})"

    def choose(self, view, k):
        if self.delta_cap is not None and view.state.delta_spent + self.menu[0][1] > self.delta_cap:
            return np.ones(k.shape, dtype=np.int64)
        t = self.pivot * view.j * view.u
        return np.where(k * t.denominator > t.numerator, 0, 1).astype(np.int64)


@cites(W22, "Lemma 3 (an arbitrary deterministic Markov adversary)")
class FunctionAdversary(Adversary):
    """Wrap ``fn(view, k) -> int array`` with a menu as an :class:`Adversary` (for tests and negative controls)."""

    def __init__(self, menu, fn: Callable, name: str = "function"):
        self.menu = _menu(menu)
        self._fn = fn
        self.name = name

    def choose(self, view, k):
        return np.asarray(self._fn(view, k), dtype=np.int64)


# ===========================================================================
# The engine
# ===========================================================================

@cites(W22, "Theorem 1", "Theorem 2", "Lemma 3")
@dataclass
class VerifierResult:
    """Result of :func:`verify`: the certified enclosure ``[lo, hi]`` of the achieved delta and its verdict.

    ``allowed`` is the target's claimed delta; ``verdict`` is ``"pass"`` if ``hi <= allowed``,
    ``"FAIL"`` if ``lo > allowed`` (caught), ``"undecided"`` otherwise.  ``slack = hi/allowed``
    (a float, for display).  ``keys``/``cells`` count processed states and loss cells,
    ``max_rounds`` the longest path, ``chain`` the rounding depth D and ``rel_err`` = D u_m/(1 - D u_m).
    """

    target: str
    adversary: str
    kind: str
    eps: Optional[Fraction]
    allowed: Fraction
    lo: mpmath.mpf
    hi: mpmath.mpf
    keys: int
    cells: int
    max_rounds: int
    chain: int
    rel_err: float
    seconds: float
    float_value: float = 0.0
    extra: dict = field(default_factory=dict)

    @property
    def verdict(self) -> str:
        if mpf_to_fraction(self.hi) <= self.allowed:
            return "pass"
        if mpf_to_fraction(self.lo) > self.allowed:
            return "FAIL"
        return "undecided"

    @property
    def slack(self) -> float:
        return float(self.hi) / float(self.allowed) if self.allowed else math.inf

    def as_dict(self) -> dict:
        return {"target": self.target, "adversary": self.adversary, "kind": self.kind,
                "eps": None if self.eps is None else str(self.eps), "allowed": str(self.allowed),
                "lo": mpmath.nstr(self.lo, 17), "hi": mpmath.nstr(self.hi, 17), "slack": self.slack,
                "verdict": self.verdict, "keys": self.keys, "cells": self.cells, "max_rounds": self.max_rounds,
                "rel_err": self.rel_err, "seconds": round(self.seconds, 3)}


def _to_float(x, rnd: str) -> float:
    return libmp.to_float(x, rnd=rnd)


class _Weights:
    """Hockey-stick weights ``(1 - e^{eps - k u})_+`` enclosed in intervals, rounded outward to doubles, per loss index k."""

    def __init__(self, eps: Fraction, u: Fraction):
        self.eps, self.u = eps, u
        self.k0 = int(math.floor(eps / u)) + 1  # least k with k u > eps
        self.lo = np.zeros(0)
        self.hi = np.zeros(0)
        self.c = iv_context(120)

    def _extend(self, kmax: int) -> None:
        n_old = len(self.lo)
        n_new = max(kmax - self.k0 + 1, 2 * n_old, 64)
        c = self.c
        lo = np.empty(n_new)
        hi = np.empty(n_new)
        lo[:n_old], hi[:n_old] = self.lo, self.hi
        for i in range(n_old, n_new):
            x = self.eps - (self.k0 + i) * self.u  # < 0, exact
            if x < -800:
                lo[i], hi[i] = 1.0 - 2.0 ** -52, 1.0
                continue
            w = 1 - c.exp(c.mpf(x.numerator) / x.denominator)
            a, b = w._mpi_
            lo[i] = _to_float(a, "f")
            hi[i] = _to_float(b, "c")
        self.lo, self.hi = lo, hi

    def slices(self, off: int, L: int):
        """(start index into the vector, w_lo, w_hi) for loss indices off..off+L-1 above eps; None if none."""
        kmax = off + L - 1
        if kmax < self.k0:
            return None
        if kmax - self.k0 + 1 > len(self.lo):
            self._extend(kmax)
        s = max(self.k0 - off, 0)
        a, b = off + s - self.k0, kmax - self.k0 + 1
        return s, self.lo[a:b], self.hi[a:b]


def _trans(e: Fraction, d: Fraction, c) -> tuple[float, float, float]:
    """Doubles nearest to (1 - d) sigma(e), (1 - d) sigma(-e), d (each within 2 roundings of the exact value)."""
    one_d = c.mpf((1 - d).numerator) / (1 - d).denominator
    ee = c.mpf(e.numerator) / e.denominator
    up = one_d / (1 + c.exp(-ee))
    dn = one_d / (1 + c.exp(ee))
    out = []
    for x in (up, dn):
        a, b = x._mpi_
        mid = libmp.mpf_shift(libmp.mpf_add(a, b, 200), -1)
        out.append(_to_float(mid, "n"))
    out.append(float(d))  # float(Fraction) is correctly rounded
    return out[0], out[1], out[2]


def _add_into(rec: list, o: int, v: np.ndarray) -> None:
    """rec = [off, arr, nmax]: add v (starting at loss index o) into rec's vector, growing it as needed."""
    off, arr = rec[0], rec[1]
    if arr is None:
        rec[0], rec[1] = o, v.copy()
        return
    lo, hi = min(off, o), max(off + len(arr), o + len(v))
    if lo < off or hi > off + len(arr):
        new = np.zeros(hi - lo)
        new[off - lo: off - lo + len(arr)] = arr
        arr = new
        rec[0], rec[1] = lo, arr
        off = lo
    arr[o - off: o - off + len(v)] += v


@cites(W22, "Theorem 1", "Theorem 2", "Lemma 3")
def verify(target: Target, adversary: Adversary, rounds: Optional[int] = None, *, max_V=None, retry: bool = True,
           progress: Optional[Callable[[int, int], None]] = None) -> VerifierResult:
    """whitehouse2022 Theorems 1-2 via Lemma 3: certified enclosure of the delta a target achieves against an adversary.

    Contract: runs the adaptive RR composition of ``adversary`` (menu, ``choose``) for paths with
    ``V <= rounds * (min menu eps)^2`` (so the longest path has ``rounds`` steps), stopped by the
    target if it is a filter, and returns a :class:`VerifierResult` with ``[lo, hi]`` enclosing

    * filters: ``E_P[(1 - e^{eps - L_N})_+]`` (the hockey-stick divergence at the target's eps of
      the stopped transcript, reveal outcomes counting 1);
    * odometers: ``P(exists n: L_n > u_n)`` (``|L_n| > u_n`` when ``target.two_sided``), the
      reveal outcome crossing every finite u_n.

    ``retry`` (default True): a refused choice is replaced by the admitted item of largest eps not
    above it (a predictable probe; the interaction stops if there is none).

    ``max_V`` replaces the horizon derived from ``rounds``: paths with ``V <= max_V`` (a
    nonnegative rational), or ``math.inf`` for none at all (filters only: the filter's refusals
    and the adversary's stops end every path; use it to replay a policy of
    :func:`reference.verify.game.optimal_adversary` computed on the target's own horizon, whose
    :class:`~reference.verify.game.PolicyAdversary` stops outside its finite table).  A horizon
    is a stop of the adversary, so the enclosure is always that of an actual analyst.
    Preconditions: exactly one of ``rounds`` (integer >= 1) and ``max_V``; menu deltas > 0 only if
    ``target.supports_delta``.
    Rounding: see the module docstring (rigorous a-posteriori float bound).  ``progress(done, j_max)``
    is called with the current V index.
    """
    if (rounds is None) == (max_V is None):
        raise ValueError(f"give exactly one of rounds and max_V, found rounds={rounds!r}, max_V={max_V!r}")
    if rounds is not None:
        rounds = int(check("rounds", rounds, Domain.integers_from(1)))
    if not isinstance(target, Target):
        raise TypeError(f"target must be a Target, found {type(target).__name__}")
    if not isinstance(adversary, Adversary):
        raise TypeError(f"adversary must be an Adversary, found {type(adversary).__name__}")
    menu = tuple(adversary.menu)
    if any(d for _, d in menu) and not target.supports_delta:
        raise ValueError(f"adversary {adversary.name} uses delta_n > 0 but target {target.name} does not take delta_n")
    t0 = time.perf_counter()
    target.bind(menu)
    M = len(menu)
    if rounds is not None:
        u, w_unit, a, dd, J = _lattice(menu, rounds)
    else:
        u, w_unit, a, dd, _ = _lattice(menu, 1)
        if isinstance(max_V, float) and max_V == math.inf:
            if target.kind != "filter":
                raise ValueError(f"max_V = inf needs a filter target (an odometer never stops a path), found {target.kind}")
            J = math.inf
        else:
            J = math.floor(check("max_V", max_V, _NN) / (u * u))
    counts_mode = target.stat == "counts"
    c = iv_context(120)
    probs = [_trans(e, d, c) for e, d in menu]
    order = sorted(range(M), key=lambda i: (menu[i][0], -menu[i][1]), reverse=True)  # retry order: larger eps first
    is_filter = target.kind == "filter"
    if is_filter:
        if target.eps is None:
            raise ValueError(f"filter target {target.name} has no eps")
        weights = _Weights(target.eps, u)

    states: dict = {}
    dec_cache: dict = {}
    bound_cache: dict = {}
    memo = target.__dict__.setdefault("_verifier_memo", {})  # persistent across runs: exact state -> answer

    exact_key = _exact_key

    def state_of(j, m, x):
        key = (j, m, x)
        s = states.get(key)
        if s is None:
            s = states[key] = AccState(j * u * u, m * w_unit, x, menu)
        return s

    def threshold(j, m, x):
        """Largest loss index k with k u <= u_n (None: +inf)."""
        key = (j, m, x)
        if key in bound_cache:
            return bound_cache[key]
        st = state_of(j, m, x)
        mk = ("bound",) + exact_key(st)
        if mk in memo:
            b = memo[mk]
        else:
            b = memo[mk] = target.bound(st)
        if b is None:
            t = None
        elif getattr(target, "at_equality", False):  # crossing means L >= u_n
            t = -(-Fraction(b) // u) - 1
        else:  # crossing means L > u_n
            t = math.floor(Fraction(b) / u)
        bound_cache[key] = t
        return t

    # accumulators (lists of nonnegative doubles, fsum'ed at the end)
    acc_lo: list = []
    acc_hi: list = []
    n_mult = 0
    cells = 0
    max_rounds = 0
    max_len = 1
    pending: dict = {(0, 0, (0,) * M if counts_mode else None): [0, np.ones(1), 0]}
    heap = [(0, 0, 0)]
    keyof = {0: (0, 0, (0,) * M if counts_mode else None)}
    seq = 1
    nkeys = 0
    last_j = 0
    while heap:
        j, _, sid = heapq.heappop(heap)
        last_j = j
        key = keyof.pop(sid)
        rec = pending.pop(key)
        _, m, x = key
        off, arr, nmax = rec
        nz = np.flatnonzero(arr)
        if len(nz) == 0:
            continue
        arr = arr[nz[0]: nz[-1] + 1]
        off += int(nz[0])
        L = len(arr)
        nkeys += 1
        cells += L
        max_len = max(max_len, L)
        max_rounds = max(max_rounds, nmax)
        if progress is not None and nkeys % 64 == 0:
            progress(j, J)
        kk = np.arange(off, off + L, dtype=np.int64)
        st = state_of(j, m, x)
        if not is_filter:
            t = threshold(j, m, x)
            if t is not None:
                bad = kk > t
                if target.two_sided:
                    bad |= kk < -t
                if bad.any():
                    s = float(arr[bad].sum())
                    acc_lo.append(s)
                    acc_hi.append(s)
                    arr = np.where(bad, 0.0, arr)
        choice = np.asarray(adversary.choose(View(u, j, m, st, a), kk), dtype=np.int64)
        if choice.shape != kk.shape or (choice.size and (choice.min() < -1 or choice.max() >= M)):
            raise ValueError(f"adversary {adversary.name}.choose returned invalid indices")
        # resolve each item: horizon, filter decision, retry
        res = np.full(M + 1, -1, dtype=np.int64)
        for i in range(M):
            cand = [i] + ([o for o in order if o != i and menu[o][0] <= menu[i][0] and menu[o][1] <= menu[i][1]]
                          if retry else [])
            for o in cand:
                if j + a[o] ** 2 > J:
                    continue
                if is_filter:
                    dk = (j, m, x, o)
                    ok = dec_cache.get(dk)
                    if ok is None:
                        mk = ("admits", menu[o]) + exact_key(st)
                        ok = memo.get(mk)
                        if ok is None:
                            ok = memo[mk] = bool(target.admits(st, menu[o][0], menu[o][1]))
                        dec_cache[dk] = ok
                    if not ok:
                        continue
                res[i] = o
                break
        ch = res[choice]  # choice -1 -> res[-1] = res[M] = -1
        if is_filter:
            stop = ch < 0
            if stop.any():
                sl = weights.slices(off, L)
                if sl is not None:
                    s0, wlo, whi = sl
                    v = np.where(stop[s0:], arr[s0:], 0.0)
                    acc_lo.append(float(np.dot(v, wlo)))
                    acc_hi.append(float(np.dot(v, whi)))
                    n_mult += len(v)
        for i in range(M):
            sel = ch == i
            if not sel.any():
                continue
            v = np.where(sel, arr, 0.0)
            pu, pd, pr = probs[i]
            j2, m2 = j + a[i] ** 2, m + dd[i]
            if counts_mode:
                x2 = x[:i] + (x[i] + 1,) + x[i + 1:]
            else:
                x2 = None
            key2 = (j2, m2, x2)
            r2 = pending.get(key2)
            if r2 is None:
                r2 = pending[key2] = [0, None, 0]
                keyof[seq] = key2
                heapq.heappush(heap, (j2, seq, seq))
                seq += 1
            r2[2] = max(r2[2], nmax + 1)
            _add_into(r2, off + a[i], v * pu)
            _add_into(r2, off - a[i], v * pd)
            n_mult += 2 * L
            if pr:
                s = float(v.sum()) * pr
                n_mult += 1
                crosses = True if is_filter else threshold(j2, m2, x2) is not None
                if crosses:
                    acc_lo.append(s)
                    acc_hi.append(s)
    # rigorous bounds
    D = max_rounds * (3 + 2 * M) + max_len + 8
    if D * UNIT_ROUNDOFF >= Fraction(1, 2):
        raise ArithmeticError(f"rounding chain {D} too long for a float64 bound")
    A = n_mult * 2 * _TINY
    s_lo = Fraction(math.fsum(acc_lo))
    s_hi = Fraction(math.fsum(acc_hi))
    one_m = 1 - D * UNIT_ROUNDOFF
    hi = (s_hi + A) / one_m
    lo = max(Fraction(0), (s_lo - A) * one_m)
    hi = min(hi, Fraction(1))
    hi_m = mpmath.mpf(libmp.from_rational(hi.numerator, hi.denominator, 64, "c"))
    lo_m = mpmath.mpf(libmp.from_rational(lo.numerator, lo.denominator, 64, "f"))
    if progress is not None:
        progress(J, J) if J != math.inf else progress(last_j, last_j)
    return VerifierResult(target.name, adversary.name, target.kind, target.eps, target.allowed, lo_m, hi_m, nkeys,
                          cells, max_rounds, D, float(D * UNIT_ROUNDOFF / one_m), time.perf_counter() - t0,
                          float_value=float(math.fsum(acc_hi)),
                          extra={"u": str(u), "J": J, "decisions": len(dec_cache), "bounds": len(bound_cache)})
