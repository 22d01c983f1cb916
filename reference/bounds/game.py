"""The exact adaptive game against a threshold filter (budget rule), certified: the engine behind the game filter.

Threshold filters admit a step of integer charge c while c is at most the remaining budget R.
:func:`threshold_game` sweeps R = 0..R_max once and returns the certified game value of every
budget (the sup over fully adaptive analysts, stopping allowed, of the hockey-stick divergence of
the stopped RR transcript, from loss 0).  The reduction to randomized response, the recursion,
the window and the rounding argument are in :mod:`reference.verify.game`'s docstring (which also
holds the engine for arbitrary filter targets and the policy replay); this module is the
computation only, so that the budget (:mod:`reference.bounds.game_filter`) sits in the bounds layer.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass
from fractions import Fraction
from typing import Callable, Optional, Sequence

import mpmath
import numpy as np
from mpmath import libmp
from mpmath.ctx_iv import MPIntervalContext

from ..catalog import cites
from ..precision import Domain, check, frac_gcd, mpf_to_fraction

__all__ = ["GameMemoryError", "GameTimeout", "GameTable", "largest_within", "threshold_game_size", "threshold_game", "hoeffding_exit", "payoff_up", "rr_probs_up", "rr_reveal_probs_up", "cert_hi", "cert_lo",
           "ENGINE_VERSION", "MAX_CELLS", "MAX_BYTES", "NEAR"]

W22, K15 = "whitehouse2022", "kairouz2015"

ENGINE_VERSION = "game-1"
MAX_CELLS = 2 ** 26          # float64 cells of the generic engine's vectors (512 MiB); requests beyond are refused
MAX_BYTES = 900 * 2 ** 20     # memory of threshold_game's value rows; requests beyond are refused
HOEFFDING_FLOOR = Fraction(1, 2 ** 2000)  # hoeffding_exit never returns less (an upper bound may be rounded up)
NEAR = 4096                  # charges up to NEAR read float64 rows; larger charges read float32 rows rounded up
U = Fraction(1, 2 ** 53)
TINY = Fraction(1, 2 ** 1074)
U32 = Fraction(1, 2 ** 23)     # one float32 ulp up, relative (normal numbers)
F32_TINY = Fraction(1, 2 ** 148)  # one float32 ulp up, absolute (subnormal float32), doubled
_IV = MPIntervalContext()
_IV.prec = 120


@cites(W22, "Lemma 3 (randomized response RR_eps: the moves +eps, -eps of the loss under P)")
def rr_probs_up(e: Fraction) -> tuple[float, float]:
    """Doubles >= the exact e^e/(1+e^e) and 1/(1+e^e) (each at most 2 ulps above)."""
    ee = _IV.mpf(e.numerator) / e.denominator
    up = 1 / (1 + _IV.exp(-ee))
    dn = 1 / (1 + _IV.exp(ee))
    return _to_float(up._mpi_[1], "c"), _to_float(dn._mpi_[1], "c")


class GameMemoryError(ValueError):
    """The game's rows would exceed ``max_bytes``: refused before anything is allocated."""


class GameTimeout(TimeoutError):
    """The game's sweep passed its ``deadline`` (a ``time.monotonic()`` instant): stopped, nothing certified returned."""


def _to_float(x, rnd: str) -> float:
    return libmp.to_float(x, rnd=rnd)


@cites(W22, "Lemma 3 (conditional RR_{eps,delta}: the moves +eps, -eps and the reveal)")
def rr_reveal_probs_up(e: Fraction, d: Fraction) -> tuple[float, float, float]:
    """Doubles >= (1 - d) e^e/(1+e^e), (1 - d)/(1+e^e) and d: conditional RR_{e, d}'s moves +e, -e and reveal (+inf)."""
    one_d = _IV.mpf((1 - d).numerator) / (1 - d).denominator
    ee = _IV.mpf(e.numerator) / e.denominator
    up = one_d / (1 + _IV.exp(-ee))
    dn = one_d / (1 + _IV.exp(ee))
    dv = _IV.mpf(d.numerator) / d.denominator
    return _to_float(up._mpi_[1], "c"), _to_float(dn._mpi_[1], "c"), _to_float(dv._mpi_[1], "c")


@cites(W22, "Definition 1 (DP: sup_G P(G) - e^eps Q(G) <= delta, i.e. E_P[(1 - e^{eps - L})_+] <= delta, the payoff)")
def payoff_up(eps: Fraction, g: Fraction, lo: int, n: int) -> np.ndarray:
    """Doubles >= (1 - e^{eps - l g})_+ for l = lo..lo+n-1 (0 where l g <= eps; 1 where eps - l g < -800)."""
    out = np.zeros(n)
    k0 = int(math.floor(eps / g)) + 1          # least l with l g > eps
    for i in range(max(0, k0 - lo), n):
        x = eps - (lo + i) * g
        if x < -800:
            out[i] = 1.0
            continue
        w = 1 - _IV.exp(_IV.mpf(x.numerator) / x.denominator)
        out[i] = _to_float(w._mpi_[1], "c")
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
    Rounding: returned as an exact rational >= the bound (mpmath exp at 80 bits rounded up), and
    never below ``HOEFFDING_FLOOR`` = 2^-2000 (returned whenever x >= 1387 > 2000 log 2, where
    exp(-x) < 2^-2000: still an upper bound, and a short rational where exp(-x) as an exact
    rational would have billions of digits, e.g. a grid of 1e-9 against eps = 1).
    """
    a, var, drift = Fraction(a), Fraction(var), Fraction(drift)
    if var < 0 or drift < 0:
        raise ValueError(f"var and drift must be >= 0, found var = {var}, drift = {drift}")
    if var == 0:
        return Fraction(0) if a > drift else Fraction(1)
    if a <= drift:
        return Fraction(1)
    x = (a - drift) ** 2 / (2 * var)
    if x >= 1387:
        return HOEFFDING_FLOOR
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


@cites(W22, "Lemma 3 (the game value; a-posteriori bound of its double-precision recursion)")
def cert_hi(raw: float, D: int) -> Fraction:
    """Exact rational >= the value whose double recursion of depth D (two roundings per level) gave ``raw``."""
    return _dyadic((Fraction(raw) + 3 * D * TINY) / (1 - 2 * D * U), "c")


@cites(W22, "Lemma 3 (the game value; a-posteriori bound of its double-precision recursion)")
def cert_lo(raw: float, D: int) -> Fraction:
    """Exact rational <= the value whose double recursion of depth D (at most four roundings per level) gave ``raw``."""
    return _dyadic(max(Fraction(0), (Fraction(raw) - 3 * D * TINY) * (1 - (4 * D + 2) * U)), "f")


def largest_within(upper: Callable[[int], Fraction], R_max: int, delta) -> int:
    """Largest R in [0, R_max] with ``upper(R) <= delta`` (-1 if none), for ``upper`` nondecreasing in R: a bisection."""
    delta = Fraction(delta)
    lo, hi = -1, int(R_max)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if upper(mid) <= delta:
            lo = mid
        else:
            hi = mid - 1
    return lo


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
        return cert_hi(float(self.raw[R]), R + 1)

    def lower(self, R: int) -> Fraction:
        """Exact rational <= G_R: the float's lower end minus the probability of leaving the window."""
        H = self.far_hops
        x = (Fraction(float(self.raw[R])) - 3 * (R + 1) * TINY - H * F32_TINY) * (1 - (4 * R + 6) * U - H * U32)
        return _dyadic(max(Fraction(0), x - self.exit_hi - self.pad_lo), "f")

    def largest_budget(self, delta) -> int:
        """Largest R <= R_max with ``upper(R) <= delta`` (-1 if none): the certified budget B*.

        ``upper`` is nondecreasing in R (the float recursion is monotone), so this is a bisection.
        """
        return largest_within(self.upper, self.R_max, delta)

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
                   progress: Optional[Callable[[int, int], None]] = None, deadline: Optional[float] = None) -> GameTable:
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
    accounts for); more than ``max_bytes`` is refused before anything is allocated
    (:class:`reference.bounds.game.GameMemoryError`; :func:`reference.bounds.game.threshold_game_size`
    gives the same count without the sweep).  Time: ``deadline`` (a ``time.monotonic()`` instant,
    default none) is checked every 256 budgets of the sweep; past it the sweep stops with
    :class:`reference.bounds.game.GameTimeout` (no partial table is returned).
    """
    t0 = time.perf_counter()
    lay = _layout(eps, unit, steps, charges, R_max, eta, near)
    eps, g, steps, charges, R_max = lay["eps"], lay["unit"], lay["steps"], lay["charges"], lay["R_max"]
    l_lo, l_hi, exit_hi, pad_lo, W = lay["l_lo"], lay["l_hi"], lay["exit_hi"], lay["pad_lo"], lay["window"]
    c_ring, far, pad, nbytes, cmax = lay["c_ring"], lay["far"], lay["pad"], lay["bytes"], max(lay["charges"])
    cells = nbytes // 8
    if nbytes > max_bytes:
        raise GameMemoryError(f"the game needs {nbytes} bytes (window {W}, budget horizon {R_max}, largest charge {cmax}), more "
                         f"than max_bytes = {max_bytes}: lower eps_max (the largest step) or coarsen the grid")
    if keep_policy and (R_max + 1) * W > max_bytes:
        raise ValueError(f"keeping the policy needs {(R_max + 1) * W} bytes, more than max_bytes = {max_bytes}: "
                         f"keep_policy=False")
    return _sweep(eps, g, steps, charges, R_max, l_lo, l_hi, exit_hi, pad_lo, W, c_ring, far, pad, cells, keep_policy,
                  progress, deadline, t0)


def _layout(eps, unit, steps, charges, R_max, eta, near) -> dict:
    """The checked arguments, the window and the memory of :func:`threshold_game` (its docstring), nothing allocated."""
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
    near_c = [c for c in charges if c <= near]
    c_ring = max(near_c) if near_c else 0
    far = [k for k, c in enumerate(charges) if c > c_ring]
    pad = max([m for m, c in zip(steps, charges) if c <= c_ring], default=0)
    nbytes = (c_ring + 1) * (W + 2 * pad) * 8 + ((R_max + 1) * W * 4 if far else 0)
    updates = (R_max + 1) * W + sum(max(0, R_max + 1 - c) for c in charges) * W
    return {"eps": eps, "unit": g, "steps": steps, "charges": charges, "R_max": R_max, "l_lo": l_lo, "l_hi": l_hi,
            "exit_hi": exit_hi, "pad_lo": pad_lo, "window": W, "c_ring": c_ring, "far": far, "pad": pad, "bytes": nbytes,
            "updates": updates}


@cites(W22, "Lemma 3 (conditional randomized response)", "Theorem 1 (filter semantics)")
def threshold_game_size(eps, unit, steps: Sequence[int], charges: Sequence[int], R_max: int, *, eta=Fraction(1, 10 ** 30),
                        near: int = NEAR) -> dict:
    """The size of :func:`threshold_game` with these arguments, computed without allocating or sweeping anything.

    Returns ``{"bytes", "window", "R_max", "updates"}``: ``bytes`` is exactly the count that
    threshold_game compares with ``max_bytes`` (its value rows: the float64 ring and, when a
    charge exceeds ``near``, the float32 rows), ``window`` the loss cells per row, ``updates`` the
    cell updates of the sweep (sum over budgets R of the window times the menu items with charge
    <= R, plus one per row: the time is proportional).  Same preconditions as threshold_game;
    exact integers (this project, derived from threshold_game's allocation).
    """
    lay = _layout(eps, unit, steps, charges, R_max, eta, near)
    return {k: lay[k] for k in ("bytes", "window", "R_max", "updates")}


def _sweep(eps, g, steps, charges, R_max, l_lo, l_hi, exit_hi, pad_lo, W, c_ring, far, pad, cells, keep_policy, progress,
           deadline, t0) -> GameTable:
    """The backward-induction sweep of :func:`threshold_game` over R = 0..R_max (arguments from :func:`_layout`)."""
    pad_lo_f = _to_float(libmp.from_rational(pad_lo.numerator, pad_lo.denominator, 60, "c"), "c")
    ring = c_ring + 1
    buf = np.empty((ring, W + 2 * pad))
    buf[:, :pad] = pad_lo_f
    buf[:, pad + W:] = 1.0
    # far rows (charges above ``near``): float32 rounded UP, read with the pads filled in
    arch = np.empty((R_max + 1, W), dtype=np.float32) if far else None
    far_hops = R_max // min(charges[k] for k in far) if far else 0
    f = payoff_up(eps, g, l_lo, W)
    probs = [rr_probs_up(m * g) for m in steps]
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
        if deadline is not None and R % 256 == 255 and time.monotonic() > deadline:
            raise GameTimeout(f"the game's sweep passed its deadline at budget {R} of {R_max}")
    return GameTable(eps, g, steps, charges, R_max, (l_lo, l_hi), raw, exit_hi, pad_lo, pol,
                     time.perf_counter() - t0, cells, far_hops)


def _log_up(x: Fraction) -> Fraction:
    with mpmath.workprec(80):
        return _frac_up(mpmath.log(mpmath.mpf(x.numerator) / x.denominator) * (1 + mpmath.mpf(2) ** -70))


def _sqrt_up(x: Fraction) -> Fraction:
    with mpmath.workprec(80):
        return _frac_up(mpmath.sqrt(mpmath.mpf(x.numerator) / x.denominator) * (1 + mpmath.mpf(2) ** -70))


@cites(W22, "Definition 1 (DP: sup_G P(G) - e^eps Q(G) <= delta, i.e. E_P[(1 - e^{eps - L})_+] <= delta, the payoff)")
def payoff_down(eps: Fraction, g: Fraction, lo: int, n: int) -> np.ndarray:
    """Doubles <= (1 - e^{eps - l g})_+ for l = lo..lo+n-1 (0 where l g <= eps)."""
    out = np.zeros(n)
    k0 = int(math.floor(eps / g)) + 1
    for i in range(max(0, k0 - lo), n):
        x = eps - (lo + i) * g
        if x < -800:
            out[i] = 1.0 - 2.0 ** -52
            continue
        w = 1 - _IV.exp(_IV.mpf(x.numerator) / x.denominator)
        out[i] = _to_float(w._mpi_[0], "f")
    return out


@cites("murtagh2016", "Theorem 1.5 (the optimal composition of eps_i-DP mechanisms is that of randomized responses)")
@cites(K15, "Theorem 3.3 (randomized response dominates every eps-DP step)")
def cycle_optimal_rounds(cycle, eps, delta, *, n_start: int = 0, max_cells: int = 2 * 10 ** 8,
                         trace: Optional[list] = None) -> Optional[tuple[int, bool]]:
    """Largest n such that the first n steps of the repeated ``cycle`` (eps_i-DP, fixed in advance) compose to (eps, delta)-DP.

    Contract: the optimal (non-adaptive) composition of a fixed sequence of eps_i-DP mechanisms
    is that of randomized responses RR_{eps_i} (murtagh2016), whose loss lives on uZ with u the
    gcd of the eps_i; one forward pass computes delta_n(eps) = E_P[(1 - e^{eps - L_n})_+] for
    every n, certified: probabilities and payoffs rounded up (upper end) or down (lower end) from
    120-bit intervals, ``(1 - u)^{2n+2}`` and ``(1 + u)^{4n+2}`` a-posteriori factors as in
    :func:`threshold_game`.  Returns ``(n, decided)`` with ``upper(delta_n) <= delta`` and
    ``decided`` iff ``lower(delta_{n+1}) > delta``; ``None`` when the pass would exceed
    ``max_cells`` loss cells (n x support), i.e. too long a workload for this route.
    ``n_start``: a count already known to fit (e.g. a valid filter's rounds on the same cycle:
    a fixed sequence is one adaptive analyst); delta_n is evaluated only from there on (delta_n
    grows with n).  ``trace`` (a list) receives ``(n, lower end, upper end)`` of every delta_n evaluated.
    Preconditions: a non-empty sequence of eps_i > 0; eps > 0; 0 < delta < 1; n_start >= 0.
    """
    es = [check(f"cycle[{i}]", e, Domain.positive()) for i, e in enumerate(cycle)]
    if not es:
        raise ValueError("cycle must contain at least one eps_i > 0, found none")
    eps = check("eps", eps, Domain.positive())
    delta = check("delta", delta, Domain.open_unit())
    u = frac_gcd(es)
    a = [int(e / u) for e in es]
    probs = [rr_probs_up(e) for e in es]
    per_cycle = sum(a)
    vec = np.ones(1)
    off = 0  # loss index of vec[0]
    cells = 0
    n = 0
    w_hi = w_lo = None
    w_off, w_len = 0, 0

    def weights(lo, length):
        nonlocal w_hi, w_lo, w_off, w_len
        if w_hi is None or lo < w_off or lo + length > w_off + w_len:
            w_off, w_len = lo - 4 * per_cycle, length + 8 * per_cycle
            w_hi, w_lo = payoff_up(eps, u, w_off, w_len), payoff_down(eps, u, w_off, w_len)
        s = lo - w_off
        return w_hi[s: s + length], w_lo[s: s + length]

    n_start = int(n_start)
    est = (n_start + 1) ** 2 * per_cycle // len(es)
    if est > max_cells:
        return None
    last_ok = 0
    while True:
        i = n % len(es)
        m = a[i]
        pu, pd = probs[i]
        new = np.zeros(len(vec) + 2 * m)
        new[2 * m:] += vec * pu
        new[:len(vec)] += vec * pd
        vec, off = new, off - m
        n += 1
        cells += len(vec)
        if cells > max_cells:
            return None
        if n <= n_start:
            last_ok = n
            continue
        wh, wl = weights(off, len(vec))
        k = n + 1
        s_hi = math.fsum((vec * wh).tolist())
        s_lo = math.fsum((vec * wl).tolist())
        add = 3 * k * len(vec) * 2.0 ** -1074
        hi = (Fraction(s_hi) + Fraction(add)) / (1 - (2 * k + 2) * U)
        lo = (Fraction(s_lo) - Fraction(add)) * (1 - (4 * k + 2) * U)
        if trace is not None:
            trace.append((n, lo, hi))
        if hi <= delta:
            last_ok = n
            continue
        return last_ok, (last_ok == n - 1 and lo > delta)
