"""Exact enumeration of adaptive compositions of general finite step laws.

The verifier (:mod:`reference.verify.engine`) composes randomized-response steps only, which is
exact for *DP conclusions* (every (eps, delta)-DP step is a post-processing of RR, and DP is
closed under post-processing) but not for *privacy-loss tails*: the loss of a post-processed
view is not the post-processed loss.  This engine composes arbitrary finite pairs
``(P, Q)`` (:class:`reference.falsify.laws.StepLaw`) chosen adaptively by an
:class:`Adversary` from the realized state, drives the same :class:`reference.verify.engine.Target`
objects (the shipped filters and odometers, or function-level adapters of printed claims), and
evaluates the claim's conclusion exactly:

* ``"dp"`` (filters): the hockey-stick divergence of the stopped transcript at the target's eps,
  ``sum_t (P(t) - e^eps Q(t))_+``, enclosed with rational bounds of ``e^eps``;
* ``"loss_tail"`` (odometers): ``P(exists n <= H: L_{1:n} > u_n)`` (``|L| > u`` for two-sided
  targets, ``>=`` for targets with ``at_equality``), every crossing decided exactly;
* ``"loss_at_stop"`` (loss-form filters, rogers2016 Definition 3.2): ``P(|L_{1:N}| > eps)``.

State merging: transcripts with equal likelihood ratio ``R = P(t)/Q(t)``, equal counts of the
menu items used and equal adversary memory are merged (``R`` is a sufficient statistic for
every conclusion above), so a homogeneous run of H steps with k-outcome laws has at most
``O(H^(k-1))`` states.  Everything is exact rational arithmetic; the only irrational numbers
(``e^eps`` and the bounds ``u_n``) enter through exact decisions or outward rational bounds, so
a reported violation is certified: its lower bound exceeds the promised level.
"""
from __future__ import annotations

import hashlib
from collections import defaultdict
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Optional, Sequence

from ..catalog import cites
from ..precision import compare_exp_rational
from ..verify.engine import AccState, Target
from .laws import StepLaw, rational_above_exp, rational_below_exp

__all__ = ["Adversary", "Homogeneous", "Alternating", "SignChasing", "LastChasing", "RandomAdaptive",
           "Outcome", "run", "adversaries_for"]

W22 = "whitehouse2022"
INF = None  # the likelihood ratio of a transcript only x can produce


# ===========================================================================
# Adversaries: deterministic functions of the realized state
# ===========================================================================

class Adversary:
    """Chooses the next menu index (or ``None`` to stop) from ``(n, R, acc, last)``.

    ``n`` steps so far, ``R`` the likelihood ratio of the transcript (``None`` = +inf), ``acc`` the
    exact :class:`~reference.verify.engine.AccState`, ``last`` the sign of the last step's loss (+1, -1, 0, or 2 for +inf).
    """

    name = "adversary"

    def choose(self, n: int, R, acc: AccState, last: int) -> Optional[int]:
        raise TypeError(f"{type(self).__name__} must define choose(n, R, acc, last)")

    def __repr__(self):
        return self.name


class Homogeneous(Adversary):
    def __init__(self, i: int = 0):
        self.i, self.name = i, f"homogeneous[{i}]"

    def choose(self, n, R, acc, last):
        return self.i


class Alternating(Adversary):
    def __init__(self, i: int, j: int):
        self.i, self.j, self.name = i, j, f"alternating[{i},{j}]"

    def choose(self, n, R, acc, last):
        return self.i if n % 2 == 0 else self.j


class SignChasing(Adversary):
    """Item ``i`` while the realized loss is >= 0, item ``j`` while it is negative."""

    def __init__(self, i: int, j: int):
        self.i, self.j, self.name = i, j, f"sign-chasing[{i} if L>=0 else {j}]"

    def choose(self, n, R, acc, last):
        return self.i if (R is None or R >= 1) else self.j


class LastChasing(Adversary):
    """Item ``i`` after a step whose loss went up (or at the start), ``j`` after one that went down; stops after +inf."""

    def __init__(self, i: int, j: int):
        self.i, self.j, self.name = i, j, f"last-chasing[{i} after up else {j}]"

    def choose(self, n, R, acc, last):
        if last == 2:
            return None
        return self.i if last >= 0 else self.j


class RandomAdaptive(Adversary):
    """A seeded pseudo-random function of (n, sign of the loss, last sign): item or stop."""

    def __init__(self, seed: int, m: int, p_stop: int = 8):
        self.seed, self.m, self.p_stop = seed, m, p_stop
        self.name = f"random[{seed}]"

    def choose(self, n, R, acc, last):
        sign = 2 if R is None else (R > 1) - (R < 1)
        h = hashlib.sha256(f"{self.seed}:{n}:{sign}:{last}".encode()).digest()
        if n > 0 and h[0] % self.p_stop == 0:
            return None
        return h[1] % self.m


def adversaries_for(m: int, *, seeds: Sequence[int] = (1, 2)) -> list[Adversary]:
    """The adversary menu for a menu of ``m`` laws: homogeneous on each, and for m = 2 the adaptive ones."""
    out: list[Adversary] = [Homogeneous(i) for i in range(m)]
    if m >= 2:
        out += [Alternating(0, 1), SignChasing(0, 1), SignChasing(1, 0), LastChasing(0, 1), LastChasing(1, 0)]
        out += [RandomAdaptive(s, m) for s in seeds]
    return out


# ===========================================================================
# The run
# ===========================================================================

@cites(W22, "Definitions 4-5 (filter and odometer, evaluated exactly on one adversary)")
@dataclass
class Outcome:
    """The exact result of one (target, menu, adversary, horizon) run.

    ``value`` is a certified lower bound of the conclusion's probability (hockey-stick for
    ``"dp"``), ``upper`` an upper bound (equal for exactly decided events), ``allowed`` the
    promised level; ``violated`` iff ``value > allowed``, exactly: any certified excess, however small, is a
    violation (no slack factor; ``tests/test_falsifier_units.py`` plants one of 1%).  ``witness`` describes the event.
    """

    conclusion: str
    value: Fraction
    upper: Fraction
    allowed: Fraction
    states: int
    witness: dict = field(default_factory=dict)

    @property
    def violated(self) -> bool:
        return self.value > self.allowed


def _crosses(R, u: Optional[Fraction], two_sided: bool, at_eq: bool) -> bool:
    """Exact: is log R > u (or >= with ``at_eq``; or |log R| > u when two-sided)?  ``u is None`` = +inf."""
    if u is None:
        return False
    if R is None:
        return True
    c = compare_exp_rational(u, R)  # sign of e^u - R
    if c < 0 or (at_eq and c == 0):
        return True
    if two_sided:
        c2 = compare_exp_rational(-u, R)  # sign of e^-u - R: R < e^-u  <=>  log R < -u
        return c2 > 0 or (at_eq and c2 == 0)
    return False


def _hockey(finals: dict, eps: Fraction) -> tuple[Fraction, Fraction]:
    """Rational enclosure of sum_t (P(t) - e^eps Q(t))_+ from {R: P-mass}."""
    e_hi, e_lo = rational_above_exp(eps, 15), rational_below_exp(eps, 15)
    lo = hi = Fraction(0)
    for R, pm in finals.items():
        if R is None:
            lo += pm
            hi += pm
            continue
        lo += pm * max(Fraction(0), 1 - e_hi / R)
        hi += pm * max(Fraction(0), 1 - e_lo / R)
    return lo, hi


def run(target: Target, menu: Sequence[StepLaw], adversary: Adversary, horizon: int, *,
        conclusion: Optional[str] = None, max_states: int = 200_000) -> Outcome:
    """Compose ``menu`` laws chosen by ``adversary`` for at most ``horizon`` steps, consulting ``target``.

    ``conclusion`` defaults to ``"dp"`` for filters and ``"loss_tail"`` for odometers;
    ``"loss_at_stop"`` evaluates ``P(|L_{1:N}| > target.eps)`` for a filter.  Raises
    ``ValueError`` if the state space exceeds ``max_states`` (bounded memory).
    """
    kind = target.kind
    concl = conclusion or ("dp" if kind == "filter" else "loss_tail")
    pairs = tuple((law.eps, law.delta) for law in menu)
    target.bind(pairs)
    two_sided = bool(getattr(target, "two_sided", False))
    at_eq = bool(getattr(target, "at_equality", False))
    zero = tuple(0 for _ in menu)
    cur: dict = {(Fraction(1), zero, 0): Fraction(1)}
    finals: dict = defaultdict(Fraction)
    crossed = Fraction(0)
    first_cross: Optional[dict] = None
    accs: dict = {}
    bounds: dict = {}
    decisions: dict = {}
    nstates = 1

    def acc_of(counts):
        a = accs.get(counts)
        if a is None:
            V = sum((c * e * e for c, (e, _) in zip(counts, pairs)), Fraction(0))
            S = sum((c * d for c, (_, d) in zip(counts, pairs)), Fraction(0))
            a = accs[counts] = AccState(V, S, counts, pairs)
        return a

    for n in range(horizon):
        nxt: dict = defaultdict(Fraction)
        for (R, counts, last), pm in cur.items():
            acc = acc_of(counts)
            i = adversary.choose(n, R, acc, last)
            if i is None:
                finals[R] += pm
                continue
            if kind == "filter":
                key = (counts, i)
                ok = decisions.get(key)
                if ok is None:
                    ok = decisions[key] = bool(target.admits(acc, pairs[i][0], pairs[i][1]))
                if not ok:
                    finals[R] += pm
                    continue
            law = menu[i]
            c2 = counts[:i] + (counts[i] + 1,) + counts[i + 1:]
            for o, (a, b) in enumerate(zip(law.p, law.q)):
                if a == 0:
                    continue
                r = None if b == 0 else a / b
                R2 = None if (R is None or r is None) else R * r
                sgn = 2 if r is None else (r > 1) - (r < 1)
                nxt[(R2, c2, sgn)] += pm * a
        if kind == "odometer":
            keep: dict = {}
            for (R2, c2, sgn), pm in nxt.items():
                u = bounds.get(c2, 0)
                if u == 0 and c2 not in bounds:
                    u = bounds[c2] = target.bound(acc_of(c2))
                if concl == "loss_tail" and _crosses(R2, u, two_sided, at_eq):
                    crossed += pm
                    if first_cross is None:
                        first_cross = {"step": n + 1, "loss_ratio": "inf" if R2 is None else str(R2),
                                       "bound": None if u is None else str(u), "counts": list(c2)}
                else:
                    keep[(R2, c2, sgn)] = pm
            nxt = keep
        cur = nxt
        nstates += len(cur)
        if nstates > max_states:
            raise ValueError(f"state space exceeds max_states = {max_states} (horizon {horizon}, {len(menu)} laws)")
        if not cur:
            break
    for (R, _, _), pm in cur.items():
        finals[R] += pm

    if concl == "loss_tail":
        return Outcome(concl, crossed, crossed, target.allowed, nstates, first_cross or {})
    if concl == "dp":
        lo, hi = _hockey(finals, target.eps)
        return Outcome(concl, lo, hi, target.allowed, nstates, {"eps": str(target.eps)})
    if concl == "loss_at_stop":
        bad = sum((pm for R, pm in finals.items() if _crosses(R, target.eps, True, False)), Fraction(0))
        return Outcome(concl, bad, bad, target.allowed, nstates, {"event": f"|L_N| > {target.eps}"})
    raise ValueError(f"conclusion must be 'dp', 'loss_tail' or 'loss_at_stop', found {concl!r}")
