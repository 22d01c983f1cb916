"""The exact adaptive game: the best fully adaptive adversary against a filter, by backward induction.

The game
--------
An analyst runs steps that are conditionally eps_n-DP given the past, eps_n chosen adaptively from
a menu, and may stop at any time; a filter refuses steps by its rule.  By whitehouse2022 Lemma 3
(conditional randomized response; kairouz2015 Theorem 3.3 for one step, rogers2016 Theorem 2.7
for adaptive sequences) every such step is a post-processing of randomized response RR_{eps_n}
given the past, and a randomized analyst is a mixture of deterministic ones (the hockey-stick
divergence is jointly convex), so the largest hockey-stick divergence of the stopped transcript,

    G = sup over deterministic adaptive policies of E_P[(1 - e^{eps - L_tau})_+],

is attained on the RR transcript, where L is the privacy loss (under P one step of RR_e moves L
by +e with probability e^e/(1+e^e), by -e otherwise).  The filter is (eps, delta)-DP against every
analyst on the menu iff G <= delta.  Larger eps in a menu cell only helps the analyst (RR_e is a
post-processing of RR_e' for e <= e'), so a filter that charges every eps in (g m_{k-1}, g m_k]
the same is attacked with eps = g m_k, and the loss lives on the lattice gZ.

The value function V(state, l) (state = what the filter's decision depends on, l the loss index)
satisfies V = max(stop payoff, max over admitted k of p_k V(next, l + m_k) + q_k V(next, l - m_k)).
Continuing never loses (e^{-L} is a P-martingale and the payoff is convex in e^{-L}), but the
stop option is kept in the recursion: it is what the formula says.

Two engines
-----------
* :func:`threshold_game`: filters of the form "admit a step of charge c while c <= R", R the
  remaining integer budget (the game filter, and every budget rule once charges are integers).
  One sweep over R = 0..R_max gives the game value for every budget at once (V is monotone in R).
  The loss window is finite: leaving it ends the game with payoff 1 above and with an
  Azuma-Hoeffding bound below (both are upper bounds of the true value), so the computed number
  is an upper bound; the lower bound subtracts the (Ville + Hoeffding) probability of leaving.
* :func:`optimal_adversary`: any :class:`reference.verify.engine.Target` filter, keys as in
  :func:`reference.verify.engine.verify` (V = sum eps^2, plus the count vector when the target
  needs it), every reachable loss kept (no truncation).  It returns the upper bound and the argmax
  policy as an :class:`Adversary`; replaying it in :func:`reference.verify.engine.verify` (which
  drives the target's own exact decisions) gives the certified lower bound.

Rounding (both engines)
-----------------------
Each DP value is ``max_k fl(fl(p_k a) + fl(q_k b))`` with p_k, q_k and the payoffs rounded *up*
to doubles from 120-bit interval enclosures.  With u = 2^-53 and t = 2^-1074 (underflow), by
induction over the depth D (every step consumes at least one unit of budget / one round):
``(1 - u)^{2D} V_exact - 3 D t <= V_float <= (1 + u)^{4D+2} V_exact + 3 D t``, and
``(1 - u)^{-n}``, ``(1 + u)^n <= 1/(1 - n u)``.  The certified ends are formed in exact rational
arithmetic.  Every operation is one IEEE-754 double operation (NumPy elementwise multiply, add,
maximum: no fused or reassociated arithmetic), so the floats, hence the integer budgets derived
from them, are the same on every machine.  Rows read only by steps of charge above ``NEAR``
are kept as float32 rounded *up* (one ulp above the round-to-nearest value where that is below):
the upper end is unaffected (larger inputs, monotone recursion); the lower end divides by
(1 + 2^-23) per such read on a path and subtracts 2^-148 per read (float32 subnormals).
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Callable, Optional, Sequence

import mpmath
import numpy as np
from mpmath import libmp

from ..catalog import cites
from ..precision import Domain, check, mpf_to_fraction
from .engine import Adversary, AccState, Target, View, _Weights, _frac_gcd, _menu, _to_float, iv_context

__all__ = ["GameTable", "threshold_game", "hoeffding_exit", "OptimalResult", "optimal_adversary",
           "PolicyAdversary", "TablePolicy", "ENGINE_VERSION", "MAX_CELLS", "MAX_BYTES", "NEAR"]

W22, K15, R16 = "whitehouse2022", "kairouz2015", "rogers2016"
ENGINE_VERSION = "game-1"
MAX_CELLS = 2 ** 26          # float64 cells of the generic engine's vectors (512 MiB); requests beyond are refused
MAX_BYTES = 900 * 2 ** 20     # memory of threshold_game's value rows; requests beyond are refused
NEAR = 4096                  # charges up to NEAR read float64 rows; larger charges read float32 rows rounded up
U = Fraction(1, 2 ** 53)
TINY = Fraction(1, 2 ** 1074)
U32 = Fraction(1, 2 ** 23)     # one float32 ulp up, relative (normal numbers)
F32_TINY = Fraction(1, 2 ** 148)  # one float32 ulp up, absolute (subnormal float32), doubled
_IV = iv_context(120)


def _rr_probs_up(e: Fraction) -> tuple[float, float]:
    """Doubles >= the exact e^e/(1+e^e) and 1/(1+e^e) (each at most 2 ulps above)."""
    ee = _IV.mpf(e.numerator) / e.denominator
    up = 1 / (1 + _IV.exp(-ee))
    dn = 1 / (1 + _IV.exp(ee))
    return _to_float(up._mpi_[1], "c"), _to_float(dn._mpi_[1], "c")


def _payoff_up(eps: Fraction, g: Fraction, lo: int, n: int) -> np.ndarray:
    """Doubles >= (1 - e^{eps - l g})_+ for l = lo..lo+n-1 (0 where l g <= eps)."""
    out = np.zeros(n)
    w = _Weights(eps, g)
    sl = w.slices(lo, n)
    if sl is not None:
        s0, _, whi = sl
        out[s0:] = whi
    return out


def _frac_up(x: mpmath.mpf) -> Fraction:
    """The exact rational value of an mpf (mpf values are dyadic rationals)."""
    return mpf_to_fraction(x)


@cites(W22, "Theorem 1 (proof: Azuma-Hoeffding supermartingale with Ville's inequality)")
def hoeffding_exit(a: Fraction, var: Fraction, drift: Fraction) -> Fraction:
    """Upper bound of P(exists t: S_t >= a) for a loss walk with sum eps_i^2 <= var and drift <= ``drift``.

    Contract: S_t = sum of steps +-eps_i (eps_i predictable), E[step | past] <= eps_i^2/2 summed to
    at most ``drift``; Hoeffding's lemma makes exp(lam (S - drift) - lam^2 var/2) a supermartingale
    and Ville's inequality gives exp(-(a - drift)^2 / (2 var)) for a > drift (1 otherwise).
    Rounding: returned as an exact rational >= the bound (mpmath exp at 80 bits rounded up).
    """
    if var <= 0:
        return Fraction(0) if a > 0 else Fraction(1)
    if a <= drift:
        return Fraction(1)
    x = (a - drift) ** 2 / (2 * var)
    with mpmath.workprec(80):
        v = mpmath.exp(-mpmath.mpf(x.numerator) / x.denominator) * (1 + mpmath.mpf(2) ** -70)
    return min(Fraction(1), _frac_up(v))


def _dyadic(q: Fraction, rnd: str) -> Fraction:
    """``q`` rounded (``"c"`` up, ``"f"`` down) to a 64-bit-mantissa dyadic rational (short certificates)."""
    if q == 0:
        return q
    sign, man, exp, _ = libmp.from_rational(q.numerator, q.denominator, 64, rnd)  # a raw tuple: no context rounding
    v = Fraction(man) * (Fraction(2) ** exp)
    return -v if sign else v


def _cert_hi(raw: float, D: int) -> Fraction:
    return _dyadic((Fraction(raw) + 3 * D * TINY) / (1 - 2 * D * U), "c")


def _cert_lo(raw: float, D: int) -> Fraction:
    return _dyadic(max(Fraction(0), (Fraction(raw) - 3 * D * TINY) * (1 - (4 * D + 2) * U)), "f")


# ===========================================================================
# Threshold filters: admit a step of integer charge c while c <= remaining budget
# ===========================================================================

@cites(W22, "Lemma 3 (conditional randomized response)", "Theorem 1 (filter semantics)")
@dataclass
class GameTable:
    """The game values of a threshold filter for every remaining budget R = 0..R_max, from loss 0.

    ``unit`` g: the loss lattice (menu eps are ``g * steps[k]``); ``charges[k]`` the integer charge
    of menu item k; ``raw[R]`` the double computed for budget R; :meth:`upper` / :meth:`lower` the
    certified ends of the exact game value G_R; ``window`` the loss indices kept; ``exit_hi`` the
    bound on the probability of leaving the window upwards, ``pad_lo`` the payoff used below it.
    ``policy`` (if kept) is an int8 array (R_max+1, window width): the argmax menu index, -1 = stop.
    """

    eps: Fraction
    unit: Fraction
    steps: tuple
    charges: tuple
    R_max: int
    window: tuple
    raw: np.ndarray
    exit_hi: Fraction
    pad_lo: Fraction
    policy: Optional[np.ndarray] = None
    seconds: float = 0.0
    cells: int = 0
    far_hops: int = 0

    def upper(self, R: int) -> Fraction:
        """Exact rational >= G_R (the sup over adaptive analysts with remaining budget R)."""
        return _cert_hi(float(self.raw[R]), R + 1)

    def lower(self, R: int) -> Fraction:
        """Exact rational <= G_R: the float's lower end minus the probability of leaving the window."""
        H = self.far_hops
        x = (Fraction(float(self.raw[R])) - 3 * (R + 1) * TINY - H * F32_TINY) * (1 - (4 * R + 6) * U - H * U32)
        return _dyadic(max(Fraction(0), x - self.exit_hi - self.pad_lo), "f")

    def largest_budget(self, delta) -> int:
        """Largest R <= R_max with ``upper(R) <= delta`` (-1 if none): the certified budget B*.

        ``upper`` is nondecreasing in R (the float recursion is monotone), so this is a bisection.
        """
        delta = Fraction(delta)
        lo, hi = -1, self.R_max
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if self.upper(mid) <= delta:
                lo = mid
            else:
                hi = mid - 1
        return lo

    def decided(self, delta) -> tuple[int, bool]:
        """(B*, whether B*+1 is certified to exceed delta, i.e. ``lower(B*+1) > delta``)."""
        b = self.largest_budget(delta)
        if b >= self.R_max:
            return b, False
        return b, self.lower(b + 1) > Fraction(delta)

    def action(self, R: int, l: int) -> int:
        """The policy's menu index at remaining budget R and loss index l (-1: stop)."""
        if self.policy is None:
            raise ValueError("policy was not kept: call threshold_game(..., keep_policy=True)")
        lo, hi = self.window
        if not lo <= l <= hi:
            return -1
        return int(self.policy[R, l - lo])


@cites(W22, "Lemma 3 (conditional randomized response)", "Theorem 1 (filter semantics)")
@cites(K15, "Theorem 3.3 (randomized response dominates every eps-DP step)")
def threshold_game(eps, unit, steps: Sequence[int], charges: Sequence[int], R_max: int, *, eta=Fraction(1, 10 ** 30),
                   keep_policy: bool = False, max_bytes: int = MAX_BYTES, near: int = NEAR,
                   progress: Optional[Callable[[int, int], None]] = None) -> GameTable:
    """Certified game values G_R, R = 0..R_max, of the filter "admit item k while charges[k] <= R".

    Contract: the analyst picks, adaptively and with stopping, menu items k (an eps-DP step with
    eps <= unit*steps[k], modelled by RR_{unit*steps[k]}), each consuming ``charges[k]`` of the
    remaining budget R; G_R is the largest hockey-stick divergence at ``eps`` of the stopped
    transcript from loss 0.  Returns a :class:`GameTable` with certified ends for every R.
    Preconditions: eps >= 0, unit > 0 (exact rationals); steps positive integers; charges positive
    integers; R_max >= 0; eta in (0, 1): the target for the window's exit bound.
    Rounding: upper ends are upper bounds of G_R, lower ends lower bounds (module docstring);
    the window is chosen so that leaving it has probability <= eta/2 above and the payoff used
    below it is <= eta/2 (hoeffding_exit with sum eps^2 <= s R_max g^2, s = max steps^2/charges).
    Memory: a ring of (largest charge <= ``near``) + 1 float64 rows of the window (plus pads) and,
    when some charge exceeds ``near``, every row again in float32 rounded UP (read only by those
    large steps, at most R_max / (least large charge) times on any path, which the lower end
    accounts for); more than ``max_bytes`` is refused before anything is allocated.
    """
    eps = check("eps", eps, Domain.nonnegative())
    g = check("unit", unit, Domain.positive())
    if not steps or len(steps) != len(charges):
        raise ValueError(f"steps and charges must be non-empty and of equal length, found {len(steps)} and {len(charges)}")
    for name, xs in (("steps", steps), ("charges", charges)):
        for i, x in enumerate(xs):
            if not isinstance(x, (int, np.integer)) or isinstance(x, bool) or x < 1:
                raise ValueError(f"{name}[{i}] must be a positive integer, found {x!r}")
    if not isinstance(R_max, (int, np.integer)) or R_max < 0:
        raise ValueError(f"R_max must be an integer >= 0, found {R_max!r}")
    eta = check("eta", eta, Domain.open_unit())
    t0 = time.perf_counter()
    order = sorted(range(len(steps)), key=lambda k: (charges[k], -steps[k]))
    steps = tuple(int(steps[k]) for k in order)
    charges = tuple(int(charges[k]) for k in order)
    R_max = int(R_max)
    s = max(Fraction(m * m, c) for m, c in zip(steps, charges))
    var = s * R_max * g * g
    drift = var / 2
    # window: above, exit probability <= eta/2; below, payoff bound <= eta/2
    reach = drift + _sqrt_up(2 * var * _log_up(2 / eta))
    l_hi = max(int(math.ceil(reach / g)) - 1, 0)
    l_lo = min(int(math.floor((eps - reach) / g)) + 1, 0)
    exit_hi = hoeffding_exit((l_hi + 1) * g, var, drift)
    pad_lo = hoeffding_exit(eps - (l_lo - 1) * g, var, drift) if eps - (l_lo - 1) * g > 0 else Fraction(1)
    W = l_hi - l_lo + 1
    mmax, cmax = max(steps), max(charges)
    near_c = [c for c in charges if c <= near]
    c_ring = max(near_c) if near_c else 0
    far = [k for k, c in enumerate(charges) if c > c_ring]
    pad = max([m for m, c in zip(steps, charges) if c <= c_ring], default=0)
    nbytes = (c_ring + 1) * (W + 2 * pad) * 8 + ((R_max + 1) * W * 4 if far else 0)
    cells = nbytes // 8
    if nbytes > max_bytes:
        raise ValueError(f"the game needs {nbytes} bytes (window {W}, budget horizon {R_max}, largest charge {cmax}), more "
                         f"than max_bytes = {max_bytes}: lower eps_max (the largest step) or coarsen the grid")
    if keep_policy and (R_max + 1) * W > max_bytes:
        raise ValueError(f"keeping the policy needs {(R_max + 1) * W} bytes, more than max_bytes = {max_bytes}: "
                         f"keep_policy=False")
    pad_lo_f = _to_float(libmp.from_rational(pad_lo.numerator, pad_lo.denominator, 60, "c"), "c")
    ring = c_ring + 1
    buf = np.empty((ring, W + 2 * pad))
    buf[:, :pad] = pad_lo_f
    buf[:, pad + W:] = 1.0
    # far rows (charges above ``near``): float32 rounded UP, read with the pads filled in
    arch = np.empty((R_max + 1, W), dtype=np.float32) if far else None
    far_hops = R_max // min(charges[k] for k in far) if far else 0
    f = _payoff_up(eps, g, l_lo, W)
    probs = [_rr_probs_up(m * g) for m in steps]
    raw = np.empty(R_max + 1)
    pol = np.full((R_max + 1, W), -1, dtype=np.int8) if keep_policy else None
    i0 = -l_lo
    new, cand, tmp = np.empty(W), np.empty(W), np.empty(W)
    up_f, dn_f = np.empty(W), np.empty(W)
    better = np.empty(W, dtype=bool)
    inf32 = np.float32(np.inf)

    def read_far(row: np.ndarray, shift: int, out: np.ndarray) -> np.ndarray:
        a, b = max(0, -shift), min(W, W - shift)
        out[:a] = pad_lo_f
        out[b:] = 1.0
        if b > a:
            out[a:b] = row[a + shift: b + shift]
        return out

    for R in range(R_max + 1):
        new[:] = f
        for k, (m, c) in enumerate(zip(steps, charges)):
            if c > R:
                break
            pu, pd = probs[k]
            if c <= c_ring:
                src = buf[(R - c) % ring]
                up, dn = src[pad + m: pad + m + W], src[pad - m: pad - m + W]
            else:
                row = arch[R - c]
                up, dn = read_far(row, m, up_f), read_far(row, -m, dn_f)
            np.multiply(up, pu, out=cand)
            np.multiply(dn, pd, out=tmp)
            cand += tmp
            if pol is not None:
                np.greater(cand, new, out=better)
                pol[R][better] = k
            np.maximum(new, cand, out=new)
        if ring:
            buf[R % ring, pad: pad + W] = new
        if arch is not None:
            r32 = arch[R]
            r32[:] = new                       # round to nearest ...
            low = r32 < new                    # ... then one float32 ulp up where that went below
            r32[low] = np.nextafter(r32[low], inf32)
        raw[R] = new[i0]
        if progress is not None and (R % 1024 == 0 or R == R_max):
            progress(R, R_max)
    return GameTable(eps, g, steps, charges, R_max, (l_lo, l_hi), raw, exit_hi, pad_lo, pol,
                     time.perf_counter() - t0, cells, far_hops)


def _log_up(x: Fraction) -> Fraction:
    with mpmath.workprec(80):
        return _frac_up(mpmath.log(mpmath.mpf(x.numerator) / x.denominator) * (1 + mpmath.mpf(2) ** -70))


def _sqrt_up(x: Fraction) -> Fraction:
    with mpmath.workprec(80):
        return _frac_up(mpmath.sqrt(mpmath.mpf(x.numerator) / x.denominator) * (1 + mpmath.mpf(2) ** -70))


@cites(W22, "Lemma 3 (an adaptive analyst on a finite menu)")
class TablePolicy(Adversary):
    """The argmax policy of a :class:`GameTable` started at budget B, as an adversary for :func:`verify`.

    Requires charges[k] == steps[k]^2 (then the verifier's V index j is the charge spent, and the
    remaining budget is B - j).  The menu is ``[(unit * steps[k], 0)]``.
    """

    def __init__(self, table: GameTable, B: int, name: Optional[str] = None):
        if table.policy is None:
            raise ValueError("the table has no policy: threshold_game(..., keep_policy=True)")
        if any(c != m * m for m, c in zip(table.steps, table.charges)):
            raise ValueError("TablePolicy needs charges == steps^2 (the verifier's V index is then the charge spent)")
        if math.gcd(*table.steps) != 1 if len(table.steps) > 1 else table.steps[0] != 1:
            raise ValueError(f"TablePolicy needs gcd(steps) = 1 so that the verifier's lattice is the table's, found {table.steps}")
        if not 0 <= B <= table.R_max:
            raise ValueError(f"B must lie in [0, {table.R_max}], found {B}")
        self.table, self.B = table, int(B)
        self.menu = tuple((table.unit * m, Fraction(0)) for m in table.steps)
        self.name = name or f"game-optimal[B={B}]"

    def choose(self, view: View, k: np.ndarray) -> np.ndarray:
        R = self.B - view.j
        lo, hi = self.table.window
        out = np.full(k.shape, -1, dtype=np.int64)
        if R < 0:
            return out
        inside = (k >= lo) & (k <= hi)
        out[inside] = self.table.policy[R, k[inside] - lo]
        return out


# ===========================================================================
# Any filter target: keys as in the verifier, every reachable loss kept
# ===========================================================================

@dataclass
class OptimalResult:
    """Result of :func:`optimal_adversary`: the certified upper end of the game value and the argmax policy."""

    target: str
    eps: Fraction
    menu: tuple
    upper: Fraction
    raw: float
    keys: int
    cells: int
    depth: int
    adversary: "PolicyAdversary"
    seconds: float = 0.0
    extra: dict = field(default_factory=dict)


@cites(W22, "Lemma 3 (an adaptive analyst on a finite menu)")
class PolicyAdversary(Adversary):
    """A policy computed by :func:`optimal_adversary`: ``{key: (offset, int array)}`` with key = (j, counts)."""

    def __init__(self, menu: tuple, policy: dict, counts_mode: bool, name: str = "game-optimal"):
        self.menu, self.policy, self.counts_mode, self.name = menu, policy, counts_mode, name

    def choose(self, view: View, k: np.ndarray) -> np.ndarray:
        key = (view.j, view.state.counts if self.counts_mode else None)
        out = np.full(k.shape, -1, dtype=np.int64)
        rec = self.policy.get(key)
        if rec is None:
            return out
        off, arr = rec
        idx = k - off
        inside = (idx >= 0) & (idx < len(arr))
        out[inside] = arr[idx[inside]]
        return out


@cites(W22, "Lemma 3 (conditional randomized response)", "Theorem 1 (filter semantics)")
@cites(K15, "Theorem 3.3 (randomized response dominates every eps-DP step)")
def optimal_adversary(target: Target, menu, rounds: int, *, max_keys: int = 200_000,
                      max_cells: int = MAX_CELLS) -> OptimalResult:
    """The best adaptive analyst on ``menu`` (pure eps-DP steps) against a filter target, by backward induction.

    Contract: over every deterministic adaptive policy choosing menu items (or stopping) from the
    full transcript, subject to the target's exact decisions (``target.admits``) and to the
    verifier's horizon (paths with V <= rounds * (min eps)^2), returns the certified upper end of
    the largest hockey-stick divergence at ``target.eps`` of the stopped RR transcript, and the
    argmax policy as a :class:`PolicyAdversary` (replay it with :func:`verify` for the certified
    lower end: that is the value of an actual analyst).  Keys are (j, counts) with V = j u^2 and
    counts only when ``target.stat == "counts"``: the target's decision depends on nothing else.
    Preconditions: a filter target; pure steps (delta = 0); integer rounds >= 1.
    Rounding: module docstring (upper end); no truncation (all reachable losses are kept).
    """
    rounds = int(check("rounds", rounds, Domain.integers_from(1)))
    if not isinstance(target, Target) or target.kind != "filter":
        raise ValueError(f"target must be a filter Target, found {target!r}")
    menu = _menu(menu)
    if any(d for _, d in menu):
        raise ValueError("optimal_adversary takes pure steps only (menu deltas must be 0)")
    if target.eps is None:
        raise ValueError(f"filter target {target.name} has no eps")
    t0 = time.perf_counter()
    target.bind(menu)
    M = len(menu)
    u = _frac_gcd([e for e, _ in menu])
    a = tuple(int(e / u) for e, _ in menu)
    J = rounds * min(a) ** 2
    counts_mode = target.stat == "counts"
    memo = target.__dict__.setdefault("_verifier_memo", {})

    def exact_key(st: AccState):
        if st.counts is None:
            return (st.V, st.delta_spent, None)
        return (st.V, st.delta_spent, tuple(sorted(st.eps_counts().items())))

    def admitted(j, x, i):
        st = AccState(j * u * u, Fraction(0), x, menu)
        mk = ("admits", menu[i]) + exact_key(st)
        ok = memo.get(mk)
        if ok is None:
            ok = memo[mk] = bool(target.admits(st, menu[i][0], menu[i][1]))
        return ok

    root = (0, (0,) * M if counts_mode else None)
    children: dict = {}
    reach: dict = {root: 0}          # largest |loss index| reachable at the key
    depth: dict = {root: 0}
    order = [root]
    seen = {root}
    # forward: reachable keys (j increases strictly along edges, so sorting by j is topological)
    frontier = [root]
    while frontier:
        nxt = []
        for key in frontier:
            j, x = key
            ch = []
            for i in range(M):
                j2 = j + a[i] ** 2
                if j2 > J or not admitted(j, x, i):
                    continue
                x2 = (x[:i] + (x[i] + 1,) + x[i + 1:]) if counts_mode else None
                k2 = (j2, x2)
                ch.append((i, k2))
                if k2 not in seen:
                    seen.add(k2)
                    nxt.append(k2)
                    order.append(k2)
                    if len(seen) > max_keys:
                        raise ValueError(f"more than max_keys = {max_keys} filter states: use a smaller menu or fewer rounds")
            children[key] = ch
        # reach/depth in topological order is done below
        frontier = nxt
    order.sort(key=lambda kk: kk[0])
    for key in order:
        for i, k2 in children.get(key, ()):
            reach[k2] = max(reach.get(k2, 0), reach[key] + a[i])
            depth[k2] = max(depth.get(k2, 0), depth[key] + 1)
    cells = sum(2 * r + 1 for r in reach.values())
    if cells > max_cells:
        raise ValueError(f"the game needs {cells} cells, more than max_cells = {max_cells}: use a smaller menu or fewer rounds")
    weights = _Weights(target.eps, u)
    probs = [_rr_probs_up(e) for e, _ in menu]
    vals: dict = {}
    policy: dict = {}
    D = max(depth.values()) + 1
    for key in reversed(order):
        r = reach[key]
        n = 2 * r + 1
        new = np.zeros(n)
        sl = weights.slices(-r, n)
        if sl is not None:
            s0, _, whi = sl
            new[s0:] = whi
        pol = np.full(n, -1, dtype=np.int8)
        for i, k2 in children.get(key, ()):
            r2 = reach[k2]
            child = vals[k2]
            ai = a[i]
            # child index of loss l is l + r2; l ranges over -r..r
            up = child[r2 - r + ai: r2 + r + ai + 1]
            dn = child[r2 - r - ai: r2 + r - ai + 1]
            pu, pd = probs[i]
            cand = up * pu
            cand += dn * pd
            better = cand > new
            pol[better] = i
            np.maximum(new, cand, out=new)
        vals[key] = new
        policy[key] = (-r, pol)
    raw = float(vals[root][reach[root]])
    hi = min(Fraction(1), _cert_hi(raw, D))
    adv = PolicyAdversary(menu, policy, counts_mode, name=f"game-optimal[{','.join(str(e) for e, _ in menu)}]")
    return OptimalResult(target.name, target.eps, menu, hi, raw, len(order), cells, D, adv, time.perf_counter() - t0,
                         {"u": str(u), "J": J})
