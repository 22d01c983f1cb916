"""Exact enumeration of adaptive randomized-response compositions (small horizons).

By Whitehouse et al. Lemma 3 (whitehouse2022) an adaptive composition of
conditionally (eps_n, 0)-DP steps is a post-processing of conditional
randomized response, so RR is the worst case.  For an adversary choosing
eps_n from the transcript and a stopping rule, this enumerates every path
and returns exact-to-60-digits quantities:

* the hockey-stick divergence sum_paths [P(path) - e^eps Q(path)]_+ of the
  stopped transcript (a filter is valid iff this is <= delta);
* the probability under P that the privacy loss ever exceeds an odometer.
"""
from __future__ import annotations

from fractions import Fraction
from typing import Callable, Optional

import mpmath

Strategy = Callable[[Fraction, Fraction, int], Optional[Fraction]]  # (loss, V, n) -> next eps


def _mpf(q: Fraction):
    return mpmath.mpf(q.numerator) / q.denominator


def stopped_states(strategy: Strategy, admit, horizon: int):
    """Exact law under P of the stopped state (loss, V, n), merging equal states.

    ``strategy(loss, V, n)`` returns eps_{n+1} (a Markov adversary: its choice may
    depend on the realized loss and the accumulated variance) or ``None`` to stop;
    ``admit(V_next, n)`` is the filter (step n+1 with intrinsic time V_next runs
    iff True).  Returns ``{(loss, V, n): probability}`` with probabilities at the
    current mpmath precision.  Cost: O(horizon * number of distinct states).
    """
    level = {(Fraction(0), Fraction(0)): mpmath.mpf(1)}
    stopped: dict = {}
    for n in range(horizon + 1):
        nxt: dict = {}
        for (loss, V), prob in level.items():
            e = strategy(loss, V, n) if n < horizon else None
            if e is None or not admit(V + e * e, n):
                key = (loss, V, n)
                stopped[key] = stopped.get(key, 0) + prob
                continue
            p = 1 / (1 + mpmath.exp(-_mpf(e)))
            for dl, w in ((e, p), (-e, 1 - p)):
                k = (loss + dl, V + e * e)
                nxt[k] = nxt.get(k, 0) + prob * w
        level = nxt
        if not level:
            break
    return stopped


def hockey_stick(strategy: Strategy, admit, horizon: int, eps: Fraction) -> mpmath.mpf:
    """sup_G P(G) - e^eps Q(G) for the stopped transcript = E_P[(1 - e^(eps - L))_+]."""
    total = mpmath.mpf(0)
    for (loss, _, _), prob in stopped_states(strategy, admit, horizon).items():
        if loss > eps:
            total += prob * (1 - mpmath.exp(_mpf(eps - loss)))
    return total


def odometer_crossing(strategy: Strategy, horizon: int, bound: Callable[[Fraction], mpmath.mpf]) -> mpmath.mpf:
    """P(exists n <= horizon: L_n > bound(V_n)) under P (paths are absorbed at their first crossing)."""
    crossed = mpmath.mpf(0)
    level = {(Fraction(0), Fraction(0)): mpmath.mpf(1)}
    for n in range(horizon):
        nxt: dict = {}
        for (loss, V), prob in level.items():
            e = strategy(loss, V, n)
            if e is None:
                continue
            p = 1 / (1 + mpmath.exp(-_mpf(e)))
            for dl, w in ((e, p), (-e, 1 - p)):
                l2, V2 = loss + dl, V + e * e
                if _mpf(l2) > bound(V2):
                    crossed += prob * w
                else:
                    k = (l2, V2)
                    nxt[k] = nxt.get(k, 0) + prob * w
        level = nxt
    return crossed


# Adversaries (Markov: the choice depends on the realized loss, V and n) ---

def homogeneous(e):
    return lambda loss, V, n: e


def alternating(big, small):
    return lambda loss, V, n: big if n % 2 == 0 else small


def loss_chasing(up, down, start):
    """Raise eps after a positive realized loss, lower it after a negative one."""
    return lambda loss, V, n: start if n == 0 else (up if loss > 0 else down)


def variance_spender(eps_small, eps_big, v_switch):
    """Spend small steps until V reaches v_switch, then big ones (stresses the look-ahead)."""
    return lambda loss, V, n: eps_small if V < v_switch else eps_big


def random_adaptive(seed, choices):
    """A fixed random function of (sign of loss, n): adaptive but reproducible."""
    import random

    table: dict = {}

    def s(loss, V, n):
        key = (loss > 0, loss == 0, n)
        if key not in table:
            table[key] = random.Random(f"{seed}-{key}").choice(choices)
        return table[key]
    return s


# ---------------------------------------------------------------------------
# Second route for reference.verify.engine: the same model, state by state, in mpmath
# ---------------------------------------------------------------------------

def exact_verify(target, adversary, rounds: int, *, retry: bool = True, dps: int = 60):
    """Unvectorised high-precision route for :func:`reference.verify.engine.verify` (same model, independent bookkeeping).

    Walks the states ``(loss index, V index, delta index, counts)`` level by level (one step per
    level, no merging across levels), calls the adversary on one loss value at a time and the
    target on every state, and sums with a private ``dps``-digit mpmath context.  Returns the
    hockey-stick (filters) or crossing probability (odometers) as an mpf; its own rounding error is
    about 10^-(dps-5) relative, far below the float engine's enclosure width.
    """
    import math as _math

    import numpy as np
    from mpmath.ctx_mp import MPContext

    from reference.verify.engine import AccState, View

    c = MPContext()
    c.dps = dps
    menu = tuple(adversary.menu)
    M = len(menu)
    eps_list = [e for e, _ in menu]
    den = 1
    for e in eps_list:
        den = den * e.denominator // _math.gcd(den, e.denominator)
    num = 0
    for e in eps_list:
        num = _math.gcd(num, int(e * den))
    u = Fraction(num, den)
    dlist = [d for _, d in menu if d]
    w = Fraction(1)
    if dlist:
        den = 1
        for d in dlist:
            den = den * d.denominator // _math.gcd(den, d.denominator)
        num = 0
        for d in dlist:
            num = _math.gcd(num, int(d * den))
        w = Fraction(num, den)
    a = tuple(int(e / u) for e in eps_list)
    dd = tuple(int(d / w) for _, d in menu)
    J = rounds * min(a) ** 2
    counts_mode = target.stat == "counts"
    target.bind(menu)
    q = lambda x: c.mpf(x.numerator) / x.denominator
    probs = [((q(1 - d)) / (1 + c.exp(-q(e))), q(1 - d) / (1 + c.exp(q(e))), q(d)) for e, d in menu]
    order = sorted(range(M), key=lambda i: (menu[i][0], -menu[i][1]), reverse=True)
    is_filter = target.kind == "filter"

    def st_of(j, m, x):
        return AccState(j * u * u, m * w, x, menu)

    def thr(j, m, x):
        b = target.bound(st_of(j, m, x))
        if b is None:
            return None
        if getattr(target, "at_equality", False):
            return -(-Fraction(b) // u) - 1
        return _math.floor(Fraction(b) / u)

    total = c.mpf(0)
    level = {(0, 0, 0, (0,) * M if counts_mode else None): c.mpf(1)}
    while level:
        nxt: dict = {}
        for (k, j, m, x), p in level.items():
            st = st_of(j, m, x)
            if not is_filter:
                t = thr(j, m, x)
                if t is not None and (k > t or (target.two_sided and k < -t)):
                    total += p
                    continue
            ch = int(np.asarray(adversary.choose(View(u, j, m, st, a), np.array([k], dtype=np.int64)))[0])
            go = -1
            if ch >= 0:
                cand = [ch] + ([o for o in order if o != ch and menu[o][0] <= menu[ch][0] and menu[o][1] <= menu[ch][1]]
                               if retry else [])
                for o in cand:
                    if j + a[o] ** 2 > J:
                        continue
                    if is_filter and not target.admits(st, menu[o][0], menu[o][1]):
                        continue
                    go = o
                    break
            if go < 0:
                if is_filter and k * u > target.eps:
                    total += p * (1 - c.exp(q(target.eps - k * u)))
                continue
            pu, pd, pr = probs[go]
            j2, m2 = j + a[go] ** 2, m + dd[go]
            x2 = (x[:go] + (x[go] + 1,) + x[go + 1:]) if counts_mode else None
            for k2, pp in ((k + a[go], pu), (k - a[go], pd)):
                key = (k2, j2, m2, x2)
                nxt[key] = nxt.get(key, c.mpf(0)) + p * pp
            if pr:
                if is_filter or thr(j2, m2, x2) is not None:
                    total += p * pr
        level = nxt
    return mpmath.mpf(total)
