"""Random check-in protocols of Balle et al. (balle2020) as running, vectorised, seeded NumPy code.

Balle, Kairouz, McMahan, Thakkar, Thakurta, *Privacy Amplification via Random
Check-Ins* (NeurIPS 2020, arXiv 2007.06605; paper key ``balle2020``):

* :func:`random_checkin` -- Definition 3.1: a client with window R and probability
  p checks in at a uniformly random step of R with probability p, else abstains;
* :func:`fixed_window_schedule` -- Algorithm 1: at each of m steps the server takes
  one uniformly random checked-in client, else a dummy update;
* :func:`averaged_schedule` -- Algorithm 2: the server averages the updates of all
  clients checked in at a step and skips empty steps;
* :func:`sliding_window_schedule` -- Section 4.2: client i wakes at step i and
  checks into its window {i, ..., i+m-1}; the server starts after an (m-1)-step
  warm-up;
* pluggable local randomizers (:class:`RandomizedResponse`,
  :class:`LaplaceRandomizer`, :class:`GaussianRandomizer`);
* a small learning task (:func:`make_logistic_task`): DP-SGD for logistic
  regression where each client's clipped gradient is privatised locally;
* :func:`run_protocol`: end-to-end training returning a :class:`ProtocolResult`
  with ``summary()`` (utility, dummy updates, the privacy guarantee from
  :mod:`reference.bounds.balle2020`);
* :func:`simulate_dummy_updates` (Propositions 3.4 and 4.4) and
  :func:`simulate_rr_outputs` (the protocols' released bits, compared with the
  exact laws of :mod:`reference.verify.checkins_exact`).

Simulations are floating point (NumPy ``Generator``, seeded); parameters are
validated exactly (:func:`reference.precision.check`) before being converted.
Time steps are 0-based in code (step ``j`` of the paper is ``j - 1`` here).
Array code is written against NumPy only.
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from fractions import Fraction
from typing import Optional, Sequence

import mpmath
import numpy as np
from mpmath.ctx_mp import MPContext

from ..bounds import balle2020 as B
from ..bounds.balle2020 import cites
from ..precision import (
    Domain,
    check,
    directed_decimal,
    mpf_to_fraction,
    sign_of,
)

__all__ = [
    "RandomizedResponse", "LaplaceRandomizer", "GaussianRandomizer", "gaussian_delta0", "smallest_delta1",
    "random_checkin", "select_one_per_step", "fixed_window_schedule", "averaged_schedule", "sliding_window_schedule",
    "simulate_dummy_updates", "simulate_rr_outputs",
    "LogisticTask", "make_logistic_task", "ProtocolResult", "run_protocol",
]

_HALF = Domain.half_open_unit()


def _rng(seed) -> np.random.Generator:
    return seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)


# ===========================================================================
# Local randomizers (Section 2: an eps0-DP local randomizer A_ldp)
# ===========================================================================

@cites('Section 2 (local randomizer)')
class RandomizedResponse:
    """Binary randomized response, an eps0-DP local randomizer (balle2020 Section 2; Warner 1965).

    Keeps the bit with probability ``e^eps0/(1 + e^eps0)``.  ``dummy_input`` is the
    bit 0 (the dummy record of Algorithm 1's dummy updates).
    """

    pure = True

    def __init__(self, eps0):
        self.eps0 = check("eps0", eps0, Domain.positive())
        self.delta0 = Fraction(0)
        self.keep = 1.0 / (1.0 + math.exp(-float(self.eps0)))

    def __call__(self, bits, rng) -> np.ndarray:
        bits = np.asarray(bits)
        flip = _rng(rng).random(bits.shape) >= self.keep
        return np.where(flip, 1 - bits, bits)

    def dummy_input(self, shape=()) -> np.ndarray:
        return np.zeros(shape, dtype=np.int64)

    def debias(self, mean_output: float) -> float:
        """Unbiased estimate of the mean bit from the mean released bit."""
        q = 1.0 - self.keep
        return (mean_output - q) / (self.keep - q)

    def __repr__(self) -> str:
        return f"RandomizedResponse(eps0={self.eps0})"


def _clip_rows(X: np.ndarray, C: float, ord_: int) -> np.ndarray:
    norms = np.linalg.norm(X, ord=ord_, axis=-1, keepdims=True)
    scale = np.minimum(1.0, C / np.maximum(norms, 1e-300))
    return X * scale


@cites('Section 2 (local randomizer)')
class LaplaceRandomizer:
    """Laplace local randomizer (balle2020 Section 2): clip to L1 norm C, add Laplace(2C/eps0) per coordinate; eps0-DP.

    Two clipped vectors differ by at most 2C in L1 norm (replacement neighbours),
    so the Laplace mechanism with scale 2C/eps0 is eps0-DP; the dummy input (the
    zero vector) is in the clipped domain, so dummy updates are covered too.
    """

    pure = True

    def __init__(self, eps0, clip="1"):
        self.eps0 = check("eps0", eps0, Domain.positive())
        self.clip = check("clip", clip, Domain.positive())
        self.delta0 = Fraction(0)
        self.scale = 2.0 * float(self.clip) / float(self.eps0)

    def __call__(self, X, rng) -> np.ndarray:
        X = _clip_rows(np.asarray(X, dtype=float), float(self.clip), 1)
        return X + _rng(rng).laplace(0.0, self.scale, X.shape)

    def dummy_input(self, shape) -> np.ndarray:
        return np.zeros(shape)

    @property
    def noise_second_moment_per_coordinate(self) -> float:
        return 2.0 * self.scale**2

    def __repr__(self) -> str:
        return f"LaplaceRandomizer(eps0={self.eps0}, clip={self.clip})"


@cites('Theorem 3.5')
def gaussian_delta0(eps0, sigma, sensitivity, *, dps: int = 40) -> mpmath.mpf:
    """Analytic Gaussian mechanism (Balle and Wang 2018, Theorem 8), used by balle2020's Gaussian local randomizer.

    ``delta0 = Phi(D/(2s) - eps s/D) - e^eps Phi(-D/(2s) - eps s/D)`` for noise
    N(0, s^2 I) and L2 sensitivity D: the smallest delta0 making the mechanism
    (eps0, delta0)-DP.  Numeric (not interval-certified): evaluated at ``dps + 20``
    digits in a private context, then padded up by ``10^-dps`` relative and
    absolute, so it is an upper bound unless mpmath's erfc errs beyond that margin.
    """
    e = check("eps0", eps0, Domain.nonnegative())
    s = check("sigma", sigma, Domain.positive())
    D = check("sensitivity", sensitivity, Domain.positive())
    c = MPContext()
    c.dps = dps + 20
    ee = c.mpf(e.numerator) / e.denominator
    ss = c.mpf(s.numerator) / s.denominator
    DD = c.mpf(D.numerator) / D.denominator
    Phi = lambda x: c.erfc(-x / c.sqrt(2)) / 2
    val = Phi(DD / (2 * ss) - ee * ss / DD) - c.exp(ee) * Phi(-DD / (2 * ss) - ee * ss / DD)
    val = max(val, c.mpf(0))
    pad = val * c.mpf(10) ** -dps + c.mpf(10) ** -dps
    return mpmath.mpf(min(val + pad, c.mpf(1)))


@cites('Theorem 3.5', 'Theorem 4.2')
class GaussianRandomizer:
    """Gaussian local randomizer (balle2020 Theorems 3.5/4.2): clip to L2 norm C, add N(0, sigma^2 I); (eps0, delta0)-DP.

    ``delta0`` is the analytic-Gaussian delta at ``eps0`` for sensitivity 2C
    (:func:`gaussian_delta0`).  Privacy of the protocols then needs the
    (eps0, delta0) clauses of Theorems 3.2/4.1/4.3 (conversion to 8 eps0).
    """

    pure = False

    def __init__(self, sigma, clip="1", eps0="1"):
        self.sigma = check("sigma", sigma, Domain.positive())
        self.clip = check("clip", clip, Domain.positive())
        self.eps0 = check("eps0", eps0, Domain.positive())
        self.delta0 = mpf_to_fraction(gaussian_delta0(self.eps0, self.sigma, 2 * self.clip))

    def __call__(self, X, rng) -> np.ndarray:
        X = _clip_rows(np.asarray(X, dtype=float), float(self.clip), 2)
        return X + _rng(rng).normal(0.0, float(self.sigma), X.shape)

    def dummy_input(self, shape) -> np.ndarray:
        return np.zeros(shape)

    @property
    def noise_second_moment_per_coordinate(self) -> float:
        return float(self.sigma) ** 2

    def __repr__(self) -> str:
        return f"GaussianRandomizer(sigma={self.sigma}, clip={self.clip}, eps0={self.eps0}, delta0={float(self.delta0):.3g})"


@cites('Theorem 3.2')
def smallest_delta1(eps0, delta0) -> Optional[Fraction]:
    """Smallest delta1 (to 3 significant digits, rounded up) admitted by the (eps0, delta0) -> 8 eps0 conversion (balle2020 Thm 3.2 clause).

    The returned value satisfies ``delta0 <= cheu_delta0_max(eps0, delta1)`` exactly
    (checked with :func:`reference.precision.sign_of`).  ``None`` if even delta1
    close to 1 is not admitted.  ``delta0 = 0`` returns ``Fraction(0)``.
    """
    e = check("eps0", eps0, Domain.positive())
    d0 = check("delta0", delta0, Domain.closed_unit())
    if d0 == 0:
        return Fraction(0)

    def ok(d1: Fraction) -> bool:
        return sign_of(lambda c, e, d0, d1: B._cheu_max(c, e, d1) - d0, (e, d0, d1)) >= 0

    hi = Fraction(99, 100)
    if not ok(hi):
        return None
    lo = Fraction(1, 10**300)
    if ok(lo):
        return lo
    for _ in range(200):  # bisection on log scale
        mid = Fraction(math.sqrt(lo * hi)) if lo > 0 else hi / 2
        if ok(mid):
            hi = mid
        else:
            lo = mid
        if hi / lo < Fraction(1001, 1000):
            break
    # round hi up to 3 significant digits (stays admissible: the max delta0 grows with delta1)
    e10 = math.floor(math.log10(hi))
    q = Fraction(math.ceil(hi / Fraction(10) ** (e10 - 2))) * Fraction(10) ** (e10 - 2)
    return q if ok(q) and q < 1 else hi


# ===========================================================================
# Definition 3.1: random check-ins; the three server protocols
# ===========================================================================

@cites('Definition 3.1')
def random_checkin(n: int, window_start, window_len: int, p0, rng, trials: int = 1) -> np.ndarray:
    """Definition 3.1 (balle2020): every client performs an (R_i, p0)-check-in with R_i = {start_i, ..., start_i + len - 1}.

    Returns an int array of shape ``(trials, n)``: the step each client checked
    into, or -1 if it abstained (probability 1 - p0).  ``window_start`` is an int or
    an array of n ints (0-based steps); the step is uniform in the window.
    """
    n = int(check("n", n, Domain.integers_from(1)))
    w = int(check("window_len", window_len, Domain.integers_from(1)))
    p = float(check("p0", p0, _HALF))
    trials = int(check("trials", trials, Domain.integers_from(1)))
    g = _rng(rng)
    start = np.broadcast_to(np.asarray(window_start, dtype=np.int64), (n,))
    slot = start[None, :] + g.integers(0, w, size=(trials, n))
    go = g.random((trials, n)) < p
    return np.where(go, slot, -1)


@cites('Algorithm 1')
def select_one_per_step(slots: np.ndarray, n_steps: int, rng, step_offset: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Algorithm 1's server rule (balle2020): per step, one uniformly random checked-in client.

    ``slots`` as returned by :func:`random_checkin`; steps ``step_offset, ...,
    step_offset + n_steps - 1`` are served.  Returns ``(selected, counts)``, both of
    shape ``(trials, n_steps)``: the chosen client (-1 for a dummy step) and the
    number of clients checked in at each step.
    """
    slots = np.atleast_2d(slots)
    trials, n = slots.shape
    valid = (slots >= step_offset) & (slots < step_offset + n_steps)
    t_idx, c_idx = np.nonzero(valid)
    key = t_idx * n_steps + (slots[t_idx, c_idx] - step_offset)
    counts = np.bincount(key, minlength=trials * n_steps).reshape(trials, n_steps)
    selected = np.full(trials * n_steps, -1, dtype=np.int64)
    if key.size:
        prio = _rng(rng).random(key.size)
        order = np.lexsort((prio, key))  # by key, then by random priority
        uniq, first = np.unique(key[order], return_index=True)
        selected[uniq] = c_idx[order][first]
    return selected.reshape(trials, n_steps), counts


@cites('Algorithm 1')
def fixed_window_schedule(n: int, m: int, p0, rng, trials: int = 1):
    """Algorithm 1 (balle2020): check-ins into the fixed window [m] and the per-step selection.

    Returns ``(selected, counts)`` of shape ``(trials, m)`` (selected = -1: dummy update).
    """
    g = _rng(rng)
    slots = random_checkin(n, 0, m, p0, g, trials)
    return select_one_per_step(slots, int(m), g)


@cites('Algorithm 2')
def averaged_schedule(n: int, m: int, p0, rng) -> list[np.ndarray]:
    """Algorithm 2 (balle2020): the clients checked in at each of the m steps (an empty array = skipped step)."""
    g = _rng(rng)
    slots = random_checkin(n, 0, m, p0, g, 1)[0]
    order = np.argsort(slots, kind="stable")
    s = slots[order]
    bounds = np.searchsorted(s, np.arange(int(m) + 1))
    return [order[bounds[j]:bounds[j + 1]] for j in range(int(m))]


@cites('Section 4.2')
def sliding_window_schedule(n: int, m: int, p0, rng, T: Optional[int] = None, trials: int = 1):
    """Section 4.2 (balle2020): sliding windows; client i (0-based) checks into {i, ..., i+m-1}.

    The server serves ``T`` steps starting after an (m-1)-step warm-up, i.e. the
    0-based times ``m-1, ..., m-2+T`` (default ``T = n - m + 1``, ending at client
    n's wake-up).  Returns ``(selected, counts)`` of shape ``(trials, T)``.
    """
    n = int(check("n", n, Domain.integers_from(1)))
    m = int(check("m", m, Domain.integers_from(1)))
    if T is None:
        if n < m:
            raise ValueError(f"n must be >= m for the default T = n - m + 1, found n={n}, m={m}")
        T = n - m + 1
    T = int(check("T", T, Domain.integers_from(1)))
    g = _rng(rng)
    slots = random_checkin(n, np.arange(n), m, p0, g, trials)
    return select_one_per_step(slots, T, g, step_offset=m - 1)


@cites('Proposition 3.4', 'Proposition 4.4')
def simulate_dummy_updates(protocol: str, n: int, m: int, p0, trials: int, seed=0, T: Optional[int] = None) -> np.ndarray:
    """Propositions 3.4 / 4.4 (balle2020) by simulation: the number of dummy updates in each of ``trials`` runs.

    ``protocol`` is ``"fixed"`` (Algorithm 1, m steps) or ``"sliding"`` (Section
    4.2, T server steps).  For Algorithm 2 the same count is the number of
    skipped steps (use ``"fixed"``).  Vectorised over trials.
    """
    g = _rng(seed)
    if protocol in ("fixed", "averaged"):
        _, counts = fixed_window_schedule(n, m, p0, g, trials)
    elif protocol == "sliding":
        _, counts = sliding_window_schedule(n, m, p0, g, T, trials)
    else:
        raise ValueError(f"protocol must be 'fixed', 'averaged' or 'sliding', found {protocol!r}")
    return (counts == 0).sum(axis=1)


@cites('Algorithm 1', 'Algorithm 2', 'Section 4.2')
def simulate_rr_outputs(protocol: str, bits: Sequence[int], m: int, p0, eps0, trials: int, seed=0,
                        T: Optional[int] = None, dummy_bit: int = 0) -> np.ndarray:
    """The bits released by a protocol with randomized-response clients (balle2020 Algorithms 1, 2, Section 4.2).

    ``"fixed"`` / ``"sliding"``: array ``(trials, steps)`` of released bits (dummy steps
    release RR(dummy_bit)).  ``"averaged"``: array ``(trials, m, 2)`` of (count,
    sum of randomized bits) per step.  Same code path as :func:`run_protocol`.
    """
    bits = np.asarray(bits, dtype=np.int64)
    n = bits.size
    g = _rng(seed)
    rr = RandomizedResponse(eps0)
    if protocol in ("fixed", "sliding"):
        if protocol == "fixed":
            sel, _ = fixed_window_schedule(n, m, p0, g, trials)
        else:
            sel, _ = sliding_window_schedule(n, m, p0, g, T, trials)
        inp = np.where(sel >= 0, bits[np.maximum(sel, 0)], dummy_bit)
        return rr(inp, g)
    if protocol == "averaged":
        slots = random_checkin(n, 0, m, p0, g, trials)
        y = rr(np.broadcast_to(bits, slots.shape), g)
        out = np.zeros((trials, int(m), 2), dtype=np.int64)
        for j in range(int(m)):
            here = slots == j
            out[:, j, 0] = here.sum(axis=1)
            out[:, j, 1] = (here & (y == 1)).sum(axis=1)
        return out
    raise ValueError(f"protocol must be 'fixed', 'averaged' or 'sliding', found {protocol!r}")


# ===========================================================================
# The learning task: DP-SGD for logistic regression on synthetic data
# ===========================================================================

@cites('Theorem 3.5', 'Theorem 4.2')
@dataclass
class LogisticTask:
    """A synthetic logistic-regression task for balle2020's distributed DP-SGD (each client holds one example).

    Features have L2 norm <= 1, so the per-example logistic-loss gradient has norm
    <= 1 (the loss is 1-Lipschitz in the model).  The model space is the L2 ball of
    radius ``radius`` (diameter ``2 radius``); updates are projected onto it.
    """

    X: np.ndarray
    y: np.ndarray
    X_test: np.ndarray
    y_test: np.ndarray
    w_true: np.ndarray
    radius: float

    @property
    def d(self) -> int:
        return self.X.shape[1]

    def grads(self, idx, theta) -> np.ndarray:
        X = self.X[idx]
        z = X @ theta
        return (1.0 / (1.0 + np.exp(-z)) - self.y[idx])[:, None] * X

    def loss(self, theta, test: bool = True) -> float:
        X, y = (self.X_test, self.y_test) if test else (self.X, self.y)
        z = X @ theta
        return float(np.mean(np.logaddexp(0.0, z) - y * z))

    def accuracy(self, theta, test: bool = True) -> float:
        X, y = (self.X_test, self.y_test) if test else (self.X, self.y)
        return float(np.mean(((X @ theta) > 0) == (y == 1)))

    def project(self, theta) -> np.ndarray:
        nrm = np.linalg.norm(theta)
        return theta if nrm <= self.radius else theta * (self.radius / nrm)


@cites('Theorem 3.5', 'Theorem 4.2')
def make_logistic_task(n: int, d: int = 5, rng=0, n_test: int = 4000, radius: float = 5.0, signal: float = 4.0) -> LogisticTask:
    """A synthetic task for balle2020's DP-SGD (Theorems 3.5/4.2 setting): n training clients, d features, unit-norm-bounded.

    ``x = g/max(1, ||g||)`` with ``g ~ N(0, I/d)``; ``y ~ Bernoulli(sigmoid(<w, x>))``
    with ``||w|| = signal``.
    """
    n = int(check("n", n, Domain.integers_from(1)))
    d = int(check("d", d, Domain.integers_from(1)))
    g = _rng(rng)
    w = g.normal(size=d)
    w *= signal / np.linalg.norm(w)

    def draw(k):
        X = g.normal(size=(k, d)) / math.sqrt(d)
        X /= np.maximum(1.0, np.linalg.norm(X, axis=1, keepdims=True))
        y = (g.random(k) < 1.0 / (1.0 + np.exp(-(X @ w)))).astype(float)
        return X, y

    X, y = draw(n)
    Xt, yt = draw(n_test)
    return LogisticTask(X, y, Xt, yt, w, float(radius))


# ===========================================================================
# run_protocol
# ===========================================================================

@cites('Algorithm 1', 'Algorithm 2', 'Section 4.2')
@dataclass
class ProtocolResult:
    """Outcome of :func:`run_protocol` (balle2020 Algorithms 1, 2, Section 4.2): utility, dummy updates, privacy."""

    protocol: str
    task: str
    randomizer: str
    n: int
    m: int
    p0: Fraction
    steps: int
    real_updates: int
    dummy_updates: int
    skipped_steps: int
    participants: int
    expected_dummy_updates: Optional[mpmath.mpf]
    utility: dict
    eps: Optional[mpmath.mpf]
    delta: object  # the exact target delta (Fraction) or an mpf upper bound
    theorem: Optional[str]
    amplifies: Optional[bool]
    utility_bound: Optional[mpmath.mpf] = None
    utility_theorem: Optional[str] = None
    notes: list = field(default_factory=list)
    seed: object = None

    def summary(self) -> str:
        """A plain-text report (privacy numbers printed rounded up, as upper bounds)."""
        up = _up
        lines = [
            f"random check-ins ({self.protocol}, balle2020) on task {self.task!r} with {self.randomizer}",
            f"  clients n = {self.n}, window m = {self.m}, check-in probability p0 = {self.p0}, server steps = {self.steps}",
            f"  real updates = {self.real_updates}, dummy updates = {self.dummy_updates}, skipped steps = {self.skipped_steps}, "
            f"clients whose data was used = {self.participants}",
        ]
        if self.expected_dummy_updates is not None:
            lines.append(f"  expected dummy updates (Prop. 3.4/4.4) = {directed_decimal(self.expected_dummy_updates, 6, 'exact')}")
        lines.append("  utility: " + ", ".join(f"{k} = {v:.4g}" for k, v in self.utility.items()))
        if self.utility_bound is not None:
            lines.append(f"  utility bound ({self.utility_theorem}): expected excess risk <= {up(self.utility_bound)}")
        if self.eps is None:
            lines.append("  privacy: no guarantee from the bounds for these parameters")
        else:
            lines.append(f"  privacy ({self.theorem}): (eps, delta) = ({up(self.eps)}, {up(self.delta)})"
                         f"{'' if self.amplifies else '  [no amplification: eps >= eps0]'}")
        lines += [f"  note: {t}" for t in self.notes]
        return "\n".join(lines)

    def as_dict(self) -> dict:
        d = asdict(self)
        for k in ("p0",):
            d[k] = str(d[k])
        for k in ("eps", "delta", "utility_bound"):
            if d[k] is not None:
                d[k] = _up(d[k], 17)
        if d["expected_dummy_updates"] is not None:
            d["expected_dummy_updates"] = directed_decimal(d["expected_dummy_updates"], 17, "exact")
        return d


def _up(x, digits: int = 6) -> str:
    """Decimal rounded up; huge values (where exact conversion is impractical) are printed safely."""
    if x is None:
        return "n/a"
    if isinstance(x, Fraction):
        return directed_decimal(x, digits, "upper")
    if mpmath.isinf(x):
        return "inf"
    if abs(x) < mpmath.mpf(10) ** 60:
        return directed_decimal(x, digits, "upper")
    y = x * (1 + mpmath.mpf(10) ** -(digits + 2))  # pad before the (nearest) printing
    return mpmath.nstr(y, digits) + " (vacuous)"


def _make_randomizer(kind: str, task: str, eps0, sigma, clip):
    if task == "mean_bit":
        if kind != "rr":
            raise ValueError(f"randomizer must be 'rr' for task 'mean_bit', found {kind!r}")
        return RandomizedResponse(eps0)
    if kind == "laplace":
        return LaplaceRandomizer(eps0, clip)
    if kind == "gaussian":
        if sigma is None:
            raise ValueError("sigma must be given for the Gaussian randomizer")
        return GaussianRandomizer(sigma, clip, eps0)
    raise ValueError(f"randomizer must be 'laplace' or 'gaussian' for task 'logreg' ('rr' for 'mean_bit'), found {kind!r}")


def _privacy(protocol, rz, n, m, p0, delta, T):
    """(eps, delta, theorem id, notes) from the bounds of reference.balle2020."""
    notes = []
    if protocol == "averaged" and p0 != 1:
        return None, None, None, ["Theorem 4.1 covers p0 = 1 only"]
    if rz.pure:
        dm = delta  # exact
        if protocol == "fixed":
            return B.thm3_2_eps(rz.eps0, m, p0, delta), dm, "balle2020_thm3_2_eps", notes
        if protocol == "averaged":
            return B.thm4_1_eps(rz.eps0, n, delta), dm, "balle2020_thm4_1_eps", notes
        return B.thm4_3_eps(rz.eps0, m, p0, delta), dm, "balle2020_thm4_3_eps", notes
    d1 = smallest_delta1(rz.eps0, rz.delta0)
    if d1 is None:
        return None, None, None, [f"delta0 = {float(rz.delta0):.3g} too large for the (eps0, delta0) -> 8 eps0 conversion"]
    if d1 == 0:
        d1 = Fraction(1, 10**300)
    notes.append(f"(eps0, delta0) = ({rz.eps0}, {float(rz.delta0):.3g}) converted to 8 eps0 with delta1 = {float(d1):.3g}")
    if protocol == "fixed":
        return (B.thm3_2_approx_eps(rz.eps0, m, p0, delta),
                B.thm3_2_approx_delta(rz.eps0, rz.delta0, m, p0, delta, d1), "balle2020_thm3_2_approx_eps", notes)
    if protocol == "averaged":
        return (B.thm4_1_approx_eps(rz.eps0, n, delta),
                B.thm4_1_approx_delta(rz.eps0, rz.delta0, n, delta, d1), "balle2020_thm4_1_approx_eps", notes)
    return (B.thm4_3_approx_eps(rz.eps0, m, p0, delta),
            B.thm4_3_approx_delta(rz.eps0, rz.delta0, m, p0, delta, d1, T), "balle2020_thm4_3_approx_eps", notes)


@cites('Algorithm 1', 'Algorithm 2', 'Section 4.2', 'Theorem 3.2', 'Theorem 4.1', 'Theorem 4.3')
def run_protocol(protocol: str = "fixed", *, n: int = 1000, m: Optional[int] = None, p0=None, task: str = "logreg",
                 randomizer: str = "laplace", eps0="1", sigma=None, clip="1", d: int = 5, lr=None,
                 delta="1e-6", T: Optional[int] = None, seed=0) -> ProtocolResult:
    """Run a balle2020 random check-in protocol end to end and report utility, dummy updates and privacy.

    ``protocol``: ``"fixed"`` (Algorithm 1), ``"averaged"`` (Algorithm 2) or
    ``"sliding"`` (Section 4.2).  ``task``: ``"logreg"`` (DP-SGD for logistic
    regression, :func:`make_logistic_task`; randomizer ``"laplace"`` (eps0-DP) or
    ``"gaussian"`` (noise ``sigma``, (eps0, delta0)-DP)) or ``"mean_bit"`` (clients'
    bits, randomized response, the server estimates the mean).

    Defaults: ``m = max(1, n // 10)``; ``p0 = m/n`` for Algorithm 1 (Remark 1),
    ``1`` otherwise; ``T = n - m + 1`` server steps for sliding windows; learning
    rate ``R / sqrt(steps (L^2 + noise second moment))`` (Theorems 3.5/4.2, L = clip,
    R = model diameter).  The privacy guarantee is the matching bound of
    :mod:`reference.bounds.balle2020` at ``delta`` (its (eps0, delta0) clause for the
    Gaussian randomizer).  Deterministic given ``seed``.
    """
    if protocol not in ("fixed", "averaged", "sliding"):
        raise ValueError(f"protocol must be 'fixed', 'averaged' or 'sliding', found {protocol!r}")
    if task not in ("logreg", "mean_bit"):
        raise ValueError(f"task must be 'logreg' or 'mean_bit', found {task!r}")
    n = int(check("n", n, Domain.integers_from(1)))
    m = max(1, n // 10) if m is None else int(check("m", m, Domain.integers_from(1)))
    if p0 is None:
        p0 = Fraction(min(m, n), n) if protocol == "fixed" else Fraction(1)
    p0 = check("p0", p0, _HALF)
    dl = check("delta", delta, Domain.open_unit())
    if protocol == "sliding":
        if T is None:
            if n < m:
                raise ValueError(f"n must be >= m for sliding windows with the default T = n - m + 1, found n={n}, m={m}")
            T = n - m + 1
        T = int(check("T", T, Domain.integers_from(1)))
    rz = _make_randomizer(randomizer, task, eps0, sigma, clip)
    g = np.random.default_rng(seed)

    # --- schedule -----------------------------------------------------------
    if protocol == "fixed":
        sel, counts = fixed_window_schedule(n, m, p0, g)
        plan = [np.array([c]) if c >= 0 else np.array([], dtype=np.int64) for c in sel[0]]
    elif protocol == "sliding":
        sel, counts = sliding_window_schedule(n, m, p0, g, T)
        plan = [np.array([c]) if c >= 0 else np.array([], dtype=np.int64) for c in sel[0]]
    else:
        plan = averaged_schedule(n, m, p0, g)
    steps = len(plan)
    empty = sum(1 for s in plan if s.size == 0)
    dummy = empty if protocol != "averaged" else 0
    skipped = empty if protocol == "averaged" else 0
    used = np.unique(np.concatenate([s for s in plan if s.size] or [np.array([], dtype=np.int64)]))
    expected_dummy = None
    if protocol == "fixed":
        expected_dummy = B.prop3_4_expected_dummies(n, m, p0)
    elif protocol == "sliding" and T == n - m + 1:
        expected_dummy = B.prop4_4_expected_dummies(n, m, p0)

    # --- training / estimation ---------------------------------------------
    utility: dict = {}
    ubound = uthm = None
    notes: list = []
    if task == "logreg":
        tk = make_logistic_task(n, d, g)
        L = float(clip)
        Rdiam = 2 * tk.radius
        noise2 = rz.noise_second_moment_per_coordinate
        G2 = L * L + d * noise2
        eta = float(lr) if lr is not None else Rdiam / math.sqrt(steps * G2)
        theta = np.zeros(d)
        acc_sum, acc_cnt = np.zeros(d), 0
        for members in plan:
            if members.size == 0:
                if protocol == "averaged":
                    continue
                gvec = rz(rz.dummy_input((1, d)), g)[0]
            else:
                acc_sum += theta
                acc_cnt += 1
                gvec = rz(tk.grads(members, theta), g).mean(axis=0)
            theta = tk.project(theta - eta * gvec)
        theta_avg = acc_sum / max(acc_cnt, 1)
        utility = {"test_loss_final": tk.loss(theta), "test_accuracy_final": tk.accuracy(theta),
                   "test_loss_avg": tk.loss(theta_avg), "test_accuracy_avg": tk.accuracy(theta_avg),
                   "test_loss_true_model": tk.loss(tk.w_true)}
        sig_eq = math.sqrt(noise2)
        if lr is None and acc_cnt:
            sig_q = Fraction(sig_eq).limit_denominator(10**12) + Fraction(1, 10**12)  # rounded up
            if protocol in ("fixed", "sliding"):
                ubound = B.thm3_5_excess_risk(Fraction(L), Fraction(Rdiam), d, sig_q, steps, acc_cnt)
                uthm = "balle2020_thm3_5_excess_risk"
            else:
                ks = [int(s.size) for s in plan]
                ubound = B.thm4_2_convex(Fraction(L), Fraction(Rdiam), d, sig_q, ks)
                uthm = "balle2020_thm4_2_convex"
            if randomizer == "laplace":
                notes.append("utility bound uses the Laplace noise's second moment in place of d sigma^2 (the derivation uses only that)")
    else:
        bits = (g.random(n) < 0.3).astype(np.int64)
        outs = []
        for members in plan:
            if members.size:
                outs.append(rz(bits[members], g))
        released = np.concatenate(outs) if outs else np.array([])
        est = rz.debias(float(released.mean())) if released.size else float("nan")
        utility = {"true_mean": float(bits.mean()), "estimate": est, "abs_error": abs(est - float(bits.mean()))}

    eps, dd, thm, pn = _privacy(protocol, rz, n, m, p0, dl, T)
    notes = pn + notes
    amp = None if eps is None else B.amplifies(eps, rz.eps0)
    return ProtocolResult(protocol=protocol, task=task, randomizer=repr(rz), n=n, m=m, p0=p0, steps=steps,
                          real_updates=steps - empty, dummy_updates=dummy, skipped_steps=skipped,
                          participants=int(used.size), expected_dummy_updates=expected_dummy, utility=utility,
                          eps=eps, delta=dd, theorem=thm, amplifies=amp, utility_bound=ubound, utility_theorem=uthm,
                          notes=notes, seed=seed)
