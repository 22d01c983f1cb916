"""Exact central privacy of the random check-in protocols and of shuffling, on small instances (balle2020).

Balle, Kairouz, McMahan, Thakkar, Thakurta, *Privacy Amplification via Random
Check-Ins* (NeurIPS 2020, arXiv 2007.06605; paper key ``balle2020``) bound the
central privacy of three check-in protocols (Algorithm 1, Algorithm 2, the
sliding window of Section 4.2) and of shuffling (Section 5, after Erlingsson et
al. 2019).  This module computes the *exact* privacy curve of each protocol when
the local randomizer is binary randomized response with ``e^eps0 = E`` rational,
for one pair of neighbouring datasets (they differ in one client's bit), so that
every bound of :mod:`reference.bounds.balle2020` can be checked against the truth.

Everything is exact: probabilities are ``Fraction`` (or integers over a common
denominator), the set ``{y : P(y) > e^eps Q(y)}`` is decided exactly
(:func:`reference.precision.compare_exp_rational`), and the hockey-stick
divergence ``delta(eps) = sum_y max(0, P(y) - e^eps Q(y))`` is then one
interval-certified expression rounded in the requested direction.

Outputs observed by the adversary (the view whose privacy is computed):

* Algorithm 1 / sliding window: the sequence of released bits, one per server
  step (a dummy step releases the randomizer applied to a dummy record ``⊥``);
* Algorithm 2: per step, the number of checked-in clients and the sum of their
  randomized bits (this pair is sufficient for every model update the server can
  make from an average, so its privacy upper-bounds that of the model sequence);
* shuffling: the histogram (number of ones) of the ``n`` randomized bits, which is
  sufficient for the shuffled sequence when the randomizers are identical.

For Algorithm 1 the output law is exchangeable over steps, so outcomes are grouped
by their number of ones (the likelihood ratio is constant on each class).

Routes: each protocol has two independent exact computations (a dynamic program
and a brute-force enumeration over all check-in patterns); the closed form
:func:`fixed_window_special_masses` (others' bits equal to the dummy record) is a
third route for Algorithm 1 and scales to ``n, m ~ 10^4``.
"""
from __future__ import annotations

import itertools
import math
from fractions import Fraction
from typing import Sequence

import mpmath

from ..bounds.balle2020 import cites
from ..precision import (
    DEFAULT_DPS,
    Domain,
    certified,
    check,
    compare_exp_rational,
    mpf_to_fraction,
)

__all__ = [
    "rr_probabilities",
    "hockey_stick",
    "privacy_delta",
    "privacy_eps",
    "fixed_window_masses",
    "fixed_window_masses_bruteforce",
    "fixed_window_special_masses",
    "averaged_distribution",
    "averaged_distribution_bruteforce",
    "sliding_window_distribution",
    "shuffle_masses",
    "shuffle_masses_bruteforce",
    "composed_masses",
    "pair_from_dists",
    "Pair",
]

_HALF_OPEN = Domain.half_open_unit()
_POS = Domain.positive()


# ---------------------------------------------------------------------------
# Randomized response with a rational e^eps0
# ---------------------------------------------------------------------------

@cites('Section 2 (local randomizer)')
def rr_probabilities(E) -> tuple[Fraction, Fraction]:
    """Binary randomized response with ``e^eps0 = E`` (Definition 2.1 local randomizer, balle2020 Section 2).

    Returns ``(p, q)`` with ``p = P(RR(1) = 1) = E/(1+E)`` and ``q = P(RR(0) = 1) = 1/(1+E)``.
    The mechanism is exactly ``log(E)``-LDP.  Precondition: ``E >= 1`` (rational).
    """
    e = check("E", E, Domain.interval(1, None, lo_closed=True))
    return e / (1 + e), 1 / (1 + e)


def _dummy_p1(E: Fraction, dummy) -> Fraction:
    """P(dummy output = 1): the randomizer applied to the dummy record ``⊥``.

    ``dummy`` is 0 or 1 (⊥ is that bit) or ``"half"`` (⊥ releases a fair coin, a
    mixture of RR(0) and RR(1), hence still log(E)-indistinguishable from both).
    """
    p, q = rr_probabilities(E)
    if dummy == 0:
        return q
    if dummy == 1:
        return p
    if dummy == "half":
        return Fraction(1, 2)
    raise ValueError(f"dummy must be 0, 1 or 'half', found {dummy!r}")


# ---------------------------------------------------------------------------
# Hockey-stick divergence, exactly decided and certified
# ---------------------------------------------------------------------------

@cites('Definition 2.1')
class Pair:
    """balle2020 exact privacy (Definition 2.1): two output laws ``P`` (dataset D) and ``Q`` (neighbour D') on the same outcome classes.

    ``P`` and ``Q`` are sequences of non-negative rationals (``Fraction`` or ``int``)
    divided by the common positive rational ``den``; entry ``i`` of each is the mass
    of outcome class ``i`` (a class must have a constant likelihood ratio).
    """

    def __init__(self, P: Sequence, Q: Sequence, den=1):
        if len(P) != len(Q):
            raise ValueError(f"P and Q must have the same length, found {len(P)} and {len(Q)}")
        self.P = [Fraction(x) for x in P]
        self.Q = [Fraction(x) for x in Q]
        self.den = Fraction(den)
        if self.den <= 0 or any(x < 0 for x in self.P + self.Q):
            raise ValueError("masses must be non-negative and den positive")

    def swapped(self) -> "Pair":
        return Pair(self.Q, self.P, self.den)

    def total(self) -> tuple[Fraction, Fraction]:
        return sum(self.P) / self.den, sum(self.Q) / self.den


def _exp_enclosure(eps: Fraction) -> tuple[Fraction, Fraction]:
    lo = mpf_to_fraction(certified(lambda c, e: c.exp(e), (eps,), "lower", 30))
    hi = mpf_to_fraction(certified(lambda c, e: c.exp(e), (eps,), "upper", 30))
    return lo, hi


@cites('Definition 2.1')
def hockey_stick(pair: Pair, eps, *, direction: str = "upper", dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """Exact hockey-stick divergence ``H_{e^eps}(P || Q) = sum max(0, P - e^eps Q)`` (balle2020, Definition 2.1).

    A mechanism is (eps, delta)-DP on this pair (in this direction) iff the value is
    ``<= delta``.  The set ``{P > e^eps Q}`` is decided exactly (ratios compared with
    a rational enclosure of e^eps, ties refined by :func:`~reference.precision.compare_exp_rational`);
    the sum ``P(S) - e^eps Q(S)`` is evaluated once in interval arithmetic and
    rounded in ``direction`` (``"upper"`` or ``"lower"``).  ``eps`` is parsed
    exactly (an ``mpf`` bound is taken at its exact binary value); ``eps >= 0``.
    """
    e = check("eps", eps, Domain.nonnegative())
    enc = None  # rational enclosure of e^eps, computed lazily (never for huge eps)
    PS = QS = Fraction(0)
    for p, q in zip(pair.P, pair.Q):
        if p == 0:
            continue
        if q == 0:
            PS += p
            continue
        r = p / q
        # cheap exclusion: log r <= (bits(num) - bits(den) + 1) log 2
        if (r.numerator.bit_length() - r.denominator.bit_length() + 1) * 0.6931471805599454 < float(e) - 1:
            continue
        if enc is None and e <= 10**4:
            enc = _exp_enclosure(e)
        if enc is not None and r > enc[1]:
            inside = True
        elif enc is not None and r < enc[0]:
            inside = False
        else:
            inside = compare_exp_rational(e, r) < 0  # e^eps < r
        if inside:
            PS += p
            QS += q
    PS /= pair.den
    QS /= pair.den
    if PS == 0:
        return mpmath.mpf(0)
    val = certified(lambda c, a, b, e: a - c.exp(e) * b, (PS, QS, e), direction, dps)
    if direction == "lower" and val < 0:
        return mpmath.mpf(0)
    return val


@cites('Definition 2.1')
def privacy_delta(pair: Pair, eps, *, direction: str = "upper", dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """``max(H(P||Q), H(Q||P))``: the smallest delta with (eps, delta)-DP on this neighbouring pair (balle2020 Def. 2.1)."""
    return max(hockey_stick(pair, eps, direction=direction, dps=dps),
               hockey_stick(pair.swapped(), eps, direction=direction, dps=dps))


@cites('Definition 2.1')
def privacy_eps(pair: Pair, delta, *, tol=Fraction(1, 10**8), dps: int = 30) -> tuple[Fraction, Fraction]:
    """Enclosure ``(lo, hi)`` of the smallest eps >= 0 with ``privacy_delta(pair, eps) <= delta`` (balle2020 Def. 2.1).

    Rigorous: ``privacy_delta(hi) <= delta`` is certified (upper rounding) and
    ``privacy_delta(lo) > delta`` is certified (lower rounding) unless ``lo == 0``.
    ``hi - lo <= tol`` (bisection on rationals).  ``delta`` in [0, 1).
    """
    d = check("delta", delta, Domain.interval(0, 1, lo_closed=True))

    def le(x, dps_=dps):  # certified: privacy_delta(x) <= d
        return mpf_to_fraction(privacy_delta(pair, x, dps=dps_)) <= d

    def gt(x):  # certified: privacy_delta(x) > d
        return mpf_to_fraction(privacy_delta(pair, x, direction="lower", dps=dps)) > d

    if le(Fraction(0)):
        return Fraction(0), Fraction(0)
    lo, hi = Fraction(0), Fraction(1)
    while not le(hi):
        lo, hi = hi, 2 * hi
        if hi > 10**6:
            raise ArithmeticError("privacy_eps: no finite eps found (delta below the mass of disjoint outcomes)")
    while hi - lo > tol:
        mid = (lo + hi) / 2
        if le(mid):
            hi = mid
        elif gt(mid):
            lo = mid
        elif le(mid, 4 * dps):
            hi = mid
        else:  # undecidable at this precision: stop with a certified (wider) enclosure
            break
    return lo, hi


# ---------------------------------------------------------------------------
# Algorithm 1 (fixed window, one client per step, dummy when empty)
# ---------------------------------------------------------------------------

def _check_common(n, m, p0, E):
    nn = check("n", n, Domain.integers_from(1))
    mm = check("m", m, Domain.integers_from(1))
    pp = check("p0", p0, _HALF_OPEN)
    EE = check("E", E, Domain.interval(1, None, lo_closed=True))
    return int(nn), int(mm), pp, EE


def _check_bits(b1, k_ones, n):
    if b1 not in (0, 1):
        raise ValueError(f"b1 must be 0 or 1, found {b1!r}")
    k = check("k_ones", k_ones, Domain.integers_from(0))
    if k > n - 1:
        raise ValueError(f"k_ones must lie in [0, n-1] = [0, {n - 1}], found {k_ones!r}")
    return int(k)


def _select_p1(c0: int, c1: int, v: int, b1: int, p: Fraction, q: Fraction, pd: Fraction) -> Fraction:
    """P(step output = 1) when c0 zero-clients, c1 one-clients and (v=1) client 1 (bit b1) checked in."""
    t = c0 + c1 + v
    if t == 0:
        return pd
    return (c0 * q + c1 * p + v * (p if b1 else q)) / t


@cites('Algorithm 1', 'Theorem 3.2')
def fixed_window_masses(n, m, p0, E, b1: int, k_ones: int = 0, dummy=0) -> list[Fraction]:
    """Algorithm 1 (balle2020): exact law of the number of ones among the m released bits.

    Client 1 holds bit ``b1``; ``k_ones`` of the other ``n-1`` clients hold 1, the
    rest 0.  Every client performs a ``([m], p0)``-check-in (Definition 3.1); at each
    step the server takes one uniformly random checked-in client, else a dummy
    (randomizer applied to ``⊥``, see ``dummy``); the local randomizer is
    randomized response with ``e^eps0 = E``.  The law is exchangeable over steps,
    so entry ``s`` is ``C(m, s) P(y = 1^s 0^(m-s))``.

    Route: dynamic program over steps on (unassigned zero-clients, unassigned
    one-clients, client 1 placed?), with multinomial check-in weights; exact.
    Cost ``O(m^2 n^4)`` rationals: small instances only.
    """
    n, m, p0, E = _check_common(n, m, p0, E)
    k = _check_bits(b1, k_ones, n)
    p, q = rr_probabilities(E)
    pd = _dummy_p1(E, dummy)
    r = p0 / m
    n1, n0 = k, n - 1 - k
    out = []
    for s in range(m + 1):
        states = {(n0, n1, 0): Fraction(1)}
        for j in range(m):
            yj = 1 if j < s else 0
            new: dict = {}
            for (r0, r1, u), w in states.items():
                for c0 in range(r0 + 1):
                    w0 = w * math.comb(r0, c0)
                    for c1 in range(r1 + 1):
                        w1 = w0 * math.comb(r1, c1)
                        for v in ((0, 1) if u == 0 else (0,)):
                            p1 = _select_p1(c0, c1, v, b1, p, q, pd)
                            py = p1 if yj else 1 - p1
                            if py == 0:
                                continue
                            key = (r0 - c0, r1 - c1, u | v)
                            new[key] = new.get(key, 0) + w1 * r ** (c0 + c1 + v) * py
            states = new
        tot = sum(w * (1 - p0) ** (r0 + r1 + (1 - u)) for (r0, r1, u), w in states.items())
        out.append(math.comb(m, s) * tot)
    return out


def _pattern_weights(n: int, choices: Sequence[Sequence[int]], p0: Fraction, m: int):
    """All check-in patterns (one slot per client, -1 = abstain) with their probabilities."""
    for pat in itertools.product(*choices):
        w = Fraction(1)
        for s in pat:
            w *= (1 - p0) if s < 0 else p0 / m
        yield pat, w


@cites('Algorithm 1', 'Theorem 3.2')
def fixed_window_masses_bruteforce(n, m, p0, E, bits: Sequence[int], dummy=0) -> list[Fraction]:
    """Algorithm 1 (balle2020) by enumeration of all ``(m+1)^n`` check-in patterns: law of the number of ones.

    ``bits[i]`` is client i's bit (any clients, not grouped).  Second route to
    :func:`fixed_window_masses` (shares no code with it).  Tiny instances only.
    """
    n, m, p0, E = _check_common(n, m, p0, E)
    if len(bits) != n or any(b not in (0, 1) for b in bits):
        raise ValueError(f"bits must be n = {n} values in {{0, 1}}, found {bits!r}")
    p, q = rr_probabilities(E)
    pd = _dummy_p1(E, dummy)
    law = [p if b else q for b in bits]
    dist: dict = {}
    for pat, w in _pattern_weights(n, [range(-1, m)] * n, p0, m):
        step_p1 = []
        for j in range(m):
            here = [law[i] for i in range(n) if pat[i] == j]
            step_p1.append(sum(here) / len(here) if here else pd)
        for y in itertools.product((0, 1), repeat=m):
            pr = w
            for j in range(m):
                pr *= step_p1[j] if y[j] else 1 - step_p1[j]
            dist[y] = dist.get(y, 0) + pr
    out = [Fraction(0)] * (m + 1)
    for y, pr in dist.items():
        out[sum(y)] += pr
    return out


@cites('Algorithm 1', 'Theorem 3.2')
def fixed_window_special_masses(n, m, p0, E) -> Pair:
    """Algorithm 1 (balle2020), closed form when every other client and the dummy record hold bit 0.

    Client 1 holds 1 (law ``P``) or 0 (law ``Q``).  Then all non-client-1 releases are
    RR(0) and client 1 is used with probability ``w = m (1 - (1 - p0/m)^n)/n``
    (``E[1/(1+Bin(n-1, p0/m))] = (1 - (1-p0/m)^n)/(n p0/m)``), at a uniform step.
    With ``s`` ones among the ``m`` releases the likelihood ratio is
    ``1 - w + (w/m)(s E + (m - s)/E)``.  Returns the class masses (by ``s``) as
    integers over a common denominator ``(1+E)^m`` -- exact, ``O(m)`` big integers.
    """
    n, m, p0, E = _check_common(n, m, p0, E)
    a, b = E.numerator, E.denominator  # E = a/b; q = b/(a+b), p = a/(a+b)
    w = m * (1 - (1 - p0 / m) ** n) / n
    Nw, Dw = w.numerator, w.denominator
    # ratio_s = ((Dw - Nw) m a b + Nw (s a^2 + (m - s) b^2)) / (Dw m a b): all integers
    P, Q = [], []
    for s in range(m + 1):
        base = math.comb(m, s) * b**s * a ** (m - s)  # C(m,s) q^s p^(m-s) * (a+b)^m
        P.append(base * ((Dw - Nw) * m * a * b + Nw * (s * a * a + (m - s) * b * b)))
        Q.append(base * Dw * m * a * b)
    return Pair(P, Q, Fraction(a + b) ** m * Dw * m * a * b)


# ---------------------------------------------------------------------------
# Algorithm 2 (averaged updates; empty steps skipped)
# ---------------------------------------------------------------------------

def _sum_law(n1: int, n0: int, p: Fraction, q: Fraction) -> list[Fraction]:
    """Law of Bin(n1, p) + Bin(n0, q) (sum of randomized bits of n1 ones and n0 zeros)."""
    a = [math.comb(n1, j) * p**j * (1 - p) ** (n1 - j) for j in range(n1 + 1)]
    b = [math.comb(n0, j) * q**j * (1 - q) ** (n0 - j) for j in range(n0 + 1)]
    out = [Fraction(0)] * (n1 + n0 + 1)
    for i, x in enumerate(a):
        if x:
            for j, y in enumerate(b):
                out[i + j] += x * y
    return out


@cites('Algorithm 2', 'Theorem 4.1')
def averaged_distribution(n, m, E, b1: int, k_ones: int = 0, p0=1) -> dict:
    """Algorithm 2 (balle2020): exact law of the per-step (count, sum of randomized bits) sequence.

    Outcome: a tuple of ``m`` pairs ``(K_j, S_j)``; ``K_j = 0`` is a skipped step.
    Client 1 holds ``b1``, ``k_ones`` others hold 1.  Route: forward recursion over
    steps on (unassigned zeros, unassigned ones, client 1 placed?) with the output
    prefix in the key.  Tiny instances only.
    """
    n, m, p0, E = _check_common(n, m, p0, E)
    k = _check_bits(b1, k_ones, n)
    p, q = rr_probabilities(E)
    r = p0 / m
    states = {((n - 1 - k, k, 0), ()): Fraction(1)}
    for _ in range(m):
        new: dict = {}
        for ((r0, r1, u), pre), w in states.items():
            for c0 in range(r0 + 1):
                for c1 in range(r1 + 1):
                    for v in ((0, 1) if u == 0 else (0,)):
                        wt = w * math.comb(r0, c0) * math.comb(r1, c1) * r ** (c0 + c1 + v)
                        law = _sum_law(c1 + v * b1, c0 + v * (1 - b1), p, q)
                        kk = c0 + c1 + v
                        for sj, ps in enumerate(law):
                            key = ((r0 - c0, r1 - c1, u | v), pre + ((kk, sj),))
                            new[key] = new.get(key, 0) + wt * ps
        states = new
    dist: dict = {}
    for ((r0, r1, u), pre), w in states.items():
        dist[pre] = dist.get(pre, 0) + w * (1 - p0) ** (r0 + r1 + 1 - u)
    return dist


@cites('Algorithm 2', 'Theorem 4.1')
def averaged_distribution_bruteforce(n, m, E, bits: Sequence[int], p0=1) -> dict:
    """Algorithm 2 (balle2020) by enumeration of all check-in patterns and all randomized bits (second route).

    ``bits[i]`` is client i's bit.  Outcome as in :func:`averaged_distribution`.
    """
    n, m, p0, E = _check_common(n, m, p0, E)
    p, q = rr_probabilities(E)
    law = [p if b else q for b in bits]
    dist: dict = {}
    for pat, w in _pattern_weights(n, [range(-1, m)] * n, p0, m):
        for y in itertools.product((0, 1), repeat=n):
            pr = w
            for i in range(n):
                if pat[i] >= 0:
                    pr *= law[i] if y[i] else 1 - law[i]
                elif y[i]:
                    pr = None
                    break
            if pr is None:
                continue
            out = tuple((sum(1 for i in range(n) if pat[i] == j), sum(y[i] for i in range(n) if pat[i] == j))
                        for j in range(m))
            dist[out] = dist.get(out, 0) + pr
    return dist


@cites('Definition 2.1')
def pair_from_dists(dP: dict, dQ: dict) -> Pair:
    """balle2020 exact privacy (Definition 2.1): align two outcome -> probability dicts into a :class:`Pair` (one class per outcome)."""
    keys = sorted(set(dP) | set(dQ), key=repr)
    return Pair([dP.get(k, 0) for k in keys], [dQ.get(k, 0) for k in keys])


# ---------------------------------------------------------------------------
# Sliding windows (Section 4.2)
# ---------------------------------------------------------------------------

@cites('Section 4.2', 'Theorem 4.3')
def sliding_window_distribution(n, m, p0, E, bits: Sequence[int], T=None, dummy=0) -> dict:
    """Section 4.2 (balle2020): exact law of the released bits of the sliding-window protocol.

    Client ``i`` (1-based) wakes at step ``i`` and performs a ``({i, ..., i+m-1}, p0)``
    check-in; the server runs steps ``m, ..., m+T-1`` (default ``T = n - m + 1``:
    after an (m-1)-step warm-up, until client n's wake-up), taking one uniformly
    random checked-in client per step, else a dummy.  Returns outcome (tuple of T
    bits) -> probability.  Route: enumeration of all check-in patterns (tiny ``n``).
    """
    n, m, p0, E = _check_common(n, m, p0, E)
    if T is None:
        if n < m:
            raise ValueError(f"n must be >= m for the default T = n - m + 1, found n={n}, m={m}")
        T = n - m + 1
    T = int(check("T", T, Domain.integers_from(1)))
    p, q = rr_probabilities(E)
    pd = _dummy_p1(E, dummy)
    law = [p if b else q for b in bits]
    steps = list(range(m, m + T))  # 1-based times
    choices = [[-1] + list(range(i + 1, i + 1 + m)) for i in range(n)]
    dist: dict = {}
    for pat in itertools.product(*choices):
        w = Fraction(1)
        for s in pat:
            w *= (1 - p0) if s < 0 else p0 / m
        step_p1 = []
        for t in steps:
            here = [law[i] for i in range(n) if pat[i] == t]
            step_p1.append(sum(here) / len(here) if here else pd)
        for y in itertools.product((0, 1), repeat=T):
            pr = w
            for j in range(T):
                pr *= step_p1[j] if y[j] else 1 - step_p1[j]
            dist[y] = dist.get(y, 0) + pr
    return dist


# ---------------------------------------------------------------------------
# Shuffling (Section 5; Erlingsson et al. 2019): the histogram of n RR bits
# ---------------------------------------------------------------------------

@cites('Theorem 5.1')
def shuffle_masses(n, E, k_ones: int = 0) -> Pair:
    """Section 5 (balle2020): exact law of the number of ones among n shuffled RR bits, for both neighbours.

    ``P``: client 1 holds 1; ``Q``: client 1 holds 0; ``k_ones`` of the other n-1
    hold 1.  With ``E = a/b`` the masses are integers over ``(a+b)^n``
    (RR(1) has weights (b, a) on outputs (0, 1), RR(0) has (a, b)).  Cost: O(n) for
    ``k_ones`` in {0, n-1}, O(k (n-k)) big-integer products otherwise.
    """
    nn = int(check("n", n, Domain.integers_from(1)))
    EE = check("E", E, Domain.interval(1, None, lo_closed=True))
    k = _check_bits(1, k_ones, nn)
    a, b = EE.numerator, EE.denominator
    n1, n0 = k, nn - 1 - k
    ones = [math.comb(n1, j) * a**j * b ** (n1 - j) for j in range(n1 + 1)]
    zeros = [math.comb(n0, j) * b**j * a ** (n0 - j) for j in range(n0 + 1)]
    if n1 == 0:
        R = zeros
    elif n0 == 0:
        R = ones
    else:
        R = [0] * (nn)
        for i, x in enumerate(ones):
            for j, y in enumerate(zeros):
                R[i + j] += x * y
    # client 1: bit 1 -> (b, a); bit 0 -> (a, b) on outputs (0, 1)
    P = [(b * R[c] if c < len(R) else 0) + (a * R[c - 1] if c >= 1 else 0) for c in range(nn + 1)]
    Q = [(a * R[c] if c < len(R) else 0) + (b * R[c - 1] if c >= 1 else 0) for c in range(nn + 1)]
    return Pair(P, Q, Fraction(a + b) ** nn)


@cites('Theorem 5.1')
def shuffle_masses_bruteforce(n, E, bits: Sequence[int]) -> list[Fraction]:
    """Section 5 (balle2020) by enumeration of all 2^n randomized-bit vectors: law of the number of ones (second route)."""
    p, q = rr_probabilities(E)
    law = [p if b else q for b in bits]
    out = [Fraction(0)] * (len(bits) + 1)
    for y in itertools.product((0, 1), repeat=len(bits)):
        pr = Fraction(1)
        for i, yi in enumerate(y):
            pr *= law[i] if yi else 1 - law[i]
        out[sum(y)] += pr
    return out


# ---------------------------------------------------------------------------
# Independent repetitions (Corollary 3.3)
# ---------------------------------------------------------------------------

@cites('Corollary 3.3')
def composed_masses(pair: Pair, k: int) -> Pair:
    """Exact law of ``k`` independent runs of a protocol (Corollary 3.3, balle2020), grouped by likelihood ratio.

    The privacy loss of a product adds up, so outcomes are grouped by the
    multiset of per-run classes; classes with equal ratio are merged afterwards.
    ``pair`` must have classes of constant ratio (as every Pair here does).
    """
    kk = int(check("k", k, Domain.integers_from(1)))
    # group the single-run classes by exact likelihood ratio first
    groups: dict = {}
    for p, q in zip(pair.P, pair.Q):
        if p == 0 and q == 0:
            continue
        key = "inf" if q == 0 else p / q
        gp, gq = groups.get(key, (Fraction(0), Fraction(0)))
        groups[key] = (gp + p / pair.den, gq + q / pair.den)
    cur = {Fraction(1): (Fraction(1), Fraction(1))}
    inf_p = Fraction(0)
    for _ in range(kk):
        nxt: dict = {}
        for r1, (p1, q1) in cur.items():
            for r2, (p2, q2) in groups.items():
                if r2 == "inf":
                    inf_p += p1 * p2
                    continue
                r = r1 * r2
                a, b = nxt.get(r, (Fraction(0), Fraction(0)))
                nxt[r] = (a + p1 * p2, b + q1 * q2)
        # mass already sent to "inf" in earlier rounds is carried by inf_p (any later run)
        cur = nxt
    keys = list(cur)
    P = [cur[k][0] for k in keys] + [inf_p]
    Q = [cur[k][1] for k in keys] + [Fraction(0)]
    return Pair(P, Q)
