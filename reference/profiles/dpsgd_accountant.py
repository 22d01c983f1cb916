"""A certified DP-SGD accountant with Opacus's accountant interface, and a certified noise calibration.

:class:`CertifiedAccountant` keeps the history Opacus keeps -- a list of ``(noise_multiplier,
sample_rate, num_steps)``, consecutive identical steps merged -- and answers ``get_epsilon(delta)``
with the certified UPPER end of the eps(delta) bracket of the whole run, so a training loop that
stops when ``get_epsilon`` reaches its budget never overspends it.  The bracket is that of
:func:`reference.profiles.check.profile` for the run as a composition of Poisson-subsampled
Gaussian phases (heterogeneous phases composed by the certified PLD engine of :mod:`.sgm_pld`,
intersected with the closed forms of :mod:`.sgm_closed`, the Renyi route and the moment bracket;
every end certified, rounded outward), under add/remove adjacency with L2 sensitivity 1 (the
clipping norm), as Opacus accounts.  Where Opacus is importable the class subclasses
``opacus.accountants.IAccountant`` (so ``get_optimizer_hook_fn`` and the type checks of
``PrivacyEngine`` work), and :func:`register_with_opacus` makes ``PrivacyEngine(accountant=
"certified-pld")`` create it; without Opacus (or torch) it is a plain class with the same methods.

:func:`get_noise_multiplier` is the certified counterpart of ``opacus.accountants.utils.
get_noise_multiplier``: the smallest noise multiplier on a stated grid whose certified upper end
meets the target, with the brackets at it and one grid step below.

Floats: a float argument (Opacus passes floats) is taken as its exact binary value, the number the
training run uses; nothing is rounded before the certified computation, and the epsilon returned
is the bracket's upper end rounded UP to a double.
"""
from __future__ import annotations

import math
from collections import OrderedDict
from dataclasses import dataclass
from fractions import Fraction

import mpmath

from ..catalog import cites
from ..precision import Domain, check as _check, last_true, mpf_to_fraction
from . import sgm_pld
from .check import parse_spec, profile
from .conversions import Bracket

try:  # Opacus's interface when it is installed (importing it imports torch); the class works without it
    from opacus.accountants import IAccountant as _Base
except (ImportError, OSError):  # pragma: no cover - depends on the environment
    _Base = object

__all__ = ["CertifiedAccountant", "NoiseMultiplier", "get_noise_multiplier", "register_with_opacus", "MECHANISM",
           "SIGMA_GRID", "SIGMA_MAX"]

#: The name :meth:`CertifiedAccountant.mechanism` returns (and :func:`register_with_opacus` registers).
MECHANISM = "certified-pld"
#: The default grid of :func:`get_noise_multiplier`: noise multipliers j / 100, j = 1, 2, ... (each the smallest double
#: at or above j / 100, so that the float returned is exactly the value certified).
SIGMA_GRID = Fraction(1, 100)
#: The largest noise multiplier :func:`get_noise_multiplier` tries (Opacus's ``MAX_SIGMA``).
SIGMA_MAX = Fraction(10 ** 6)

_Q = Domain.half_open_unit()
_S = Domain.positive()
_D = Domain.open_unit()
_E = Domain.nonnegative()


def _exact(x, name: str, domain: Domain) -> Fraction:
    """A float as its exact binary value (deliberate: the number the run uses), anything else parsed exactly."""
    if isinstance(x, float) and math.isfinite(x):
        x = Fraction(x)
    elif type(x).__module__ == "torch" and hasattr(x, "item"):  # a 0-d tensor
        x = x.item()
        x = Fraction(x) if isinstance(x, float) and math.isfinite(x) else x
    return _check(name, x, domain)


def _up(x) -> float:
    """The smallest double >= the mpf ``x`` (inf stays inf)."""
    if not mpmath.isfinite(x):
        return math.inf
    q = mpf_to_fraction(x)
    f = float(q) if q < Fraction(10 ** 308) else math.inf
    if Fraction(f) < q:
        f = math.nextafter(f, math.inf)
    return f


def _down(x) -> float:
    """The largest double <= the mpf ``x`` (at least 0)."""
    if not mpmath.isfinite(x):
        return math.inf if x > 0 else 0.0
    q = mpf_to_fraction(x)
    f = float(q) if q < Fraction(10 ** 308) else 1.7976931348623157e308
    if Fraction(f) > q:
        f = math.nextafter(f, -math.inf)
    return max(f, 0.0)


def _steps(history) -> tuple:
    """The history as composition items (ValueError naming the entry and parameter that is out of its domain)."""
    items = []
    for i, h in enumerate(history):
        try:
            sigma, q, n = h
        except (TypeError, ValueError):
            raise ValueError(f"history[{i}] must be (noise_multiplier, sample_rate, num_steps), found {h!r:.80}") from None
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            raise ValueError(f"history[{i}]: num_steps must be an integer >= 1, found {n!r:.40}")
        items.append({"mechanism": "subsampled-gaussian", "q": _exact(q, "sample_rate", _Q),
                      "sigma": _exact(sigma, "noise_multiplier", _S), "count": n})
    return parse_spec(items) if items else ()


@cites("yousefpour2021", "the accountant interface (opacus.accountants.IAccountant: step, get_epsilon, history, "
       "state_dict, load_state_dict, mechanism, __len__)")
@cites("koskela2020", "PLD accountant (the certified engine of reference.profiles.sgm_pld, catalog "
       "koskela2020_pld_sgm_delta: valid)")
class CertifiedAccountant(_Base):
    """Opacus-compatible DP-SGD accountant whose epsilon is a certified upper bound (module docstring).

    ``precision``: the target relative width of the PLD eps bracket (default 1%; in [1e-6, 1/2],
    smaller costs more time); it moves the upper end's slack, never its validity.

    Contract: after any sequence of ``step`` calls, ``get_epsilon(delta) >= eps(delta)`` of the run
    (the true privacy curve of the Poisson-subsampled Gaussian steps taken, add/remove adjacency,
    sensitivity 1), and ``get_epsilon_bracket(delta)`` encloses it.  ``__len__`` is the length of the
    history (Opacus's ``RDPAccountant`` convention); :attr:`num_steps` is the number of steps.
    Not thread-safe (Opacus calls it from the optimizer's step).
    """

    def __init__(self, precision=None):
        self.history: list[tuple] = []
        self.precision = None if precision is None else _check("precision", precision, sgm_pld.PDOM)
        self._cache: dict = {}

    @classmethod
    def mechanism(cls) -> str:
        """The accounting mechanism's name, :data:`MECHANISM` (the key of :func:`register_with_opacus`)."""
        return MECHANISM

    def step(self, *, noise_multiplier, sample_rate) -> None:
        """Record one step of the Poisson-subsampled Gaussian (merged into the last history entry when identical).

        ValueError naming the argument when noise_multiplier is not > 0 or sample_rate not in (0, 1].
        """
        _exact(noise_multiplier, "noise_multiplier", _S)
        _exact(sample_rate, "sample_rate", _Q)
        if self.history and self.history[-1][0] == noise_multiplier and self.history[-1][1] == sample_rate:
            s, q, n = self.history[-1]
            self.history[-1] = (s, q, n + 1)
        else:
            self.history.append((noise_multiplier, sample_rate, 1))

    def __len__(self) -> int:
        return len(self.history)

    @property
    def num_steps(self) -> int:
        """The number of steps recorded (the sum of the history's counts)."""
        return sum(int(n) for _, _, n in self.history)

    def get_epsilon_bracket(self, delta) -> Bracket:
        """The certified bracket [lo, hi] of eps(delta) of the run so far (lo rounded down, hi up; [0, 0] before any step).

        ValueError when delta is not in (0, 1) or the history holds an entry out of its domain.
        """
        d = _exact(delta, "delta", _D)
        steps = _steps(self.history)
        if not steps:
            z = mpmath.mpf(0)
            return Bracket("eps", z, z, True, "no step taken: the output does not depend on the data")
        key = (tuple(steps), d, self.precision)
        if key not in self._cache:
            self._cache.clear()  # one entry: the latest run (each new step makes a new run)
            self._cache[key] = profile(steps, "eps", d, precision=self.precision)
        return self._cache[key]

    def get_epsilon(self, delta, *args, **kwargs) -> float:
        """The certified upper end of eps(delta), rounded up to a double (inf where no finite eps is certified).

        Extra arguments of other accountants (``alphas``, ``eps_error``, ...) are refused with a
        TypeError: this accountant has no such knob (``precision`` is set at construction).
        """
        if args or kwargs:
            raise TypeError(f"CertifiedAccountant.get_epsilon takes only delta, found extra arguments "
                            f"{list(args) + sorted(kwargs)}")
        return _up(self.get_epsilon_bracket(delta).hi)

    def state_dict(self, destination=None):
        """The state as Opacus stores it: ``history`` (a copy) and ``mechanism`` (the name), plus ``precision``."""
        if destination is None:
            destination = OrderedDict()
        destination["history"] = [tuple(h) for h in self.history]
        destination["mechanism"] = self.mechanism()
        destination["precision"] = None if self.precision is None else str(self.precision)
        return destination

    def load_state_dict(self, state_dict) -> None:
        """Restore a state saved by :meth:`state_dict` (ValueError naming what is missing or wrong)."""
        if not state_dict:
            raise ValueError("state_dict is None or empty: nothing to load into the accountant")
        for key in ("history", "mechanism"):
            if key not in state_dict:
                raise ValueError(f"state_dict has no key {key!r}")
        mech = state_dict["mechanism"]
        mech = mech() if callable(mech) else mech
        if mech != self.mechanism():
            raise ValueError(f"state_dict of mechanism {mech!r} cannot be loaded into an accountant of mechanism "
                             f"{self.mechanism()!r}")
        history = [tuple(h) for h in state_dict["history"]]
        _steps(history)  # validated before anything is replaced
        prec = state_dict.get("precision")
        self.precision = None if prec is None else _check("precision", prec, sgm_pld.PDOM)
        self.history = history
        self._cache = {}


@cites("yousefpour2021", "opacus.accountants.register_accountant (the accountants PrivacyEngine(accountant=...) creates)")
def register_with_opacus() -> str:
    """Register :class:`CertifiedAccountant` with Opacus under :data:`MECHANISM`; returns the name.

    Afterwards ``PrivacyEngine(accountant="certified-pld")`` creates one.  RuntimeError when Opacus
    is not installed or has no registry (before 1.5: set ``engine.accountant = CertifiedAccountant()``).
    """
    if _Base is object:
        raise RuntimeError("Opacus is not installed (pip install 'fullyadaptive[opacus]')")
    try:
        from opacus.accountants.registry import register_accountant
    except ImportError:  # pragma: no cover - opacus < 1.5
        raise RuntimeError("this Opacus has no accountant registry; set engine.accountant = CertifiedAccountant()") from None
    try:
        register_accountant(MECHANISM, CertifiedAccountant, force=True)  # idempotent (opacus 1.6: force)
    except TypeError:  # pragma: no cover - a registry without ``force``
        register_accountant(MECHANISM, CertifiedAccountant)
    return MECHANISM


@dataclass(frozen=True)
class NoiseMultiplier:
    """The answer of :func:`get_noise_multiplier`; ``float(result)`` is the noise multiplier.

    ``noise_multiplier``: the float to train with (exactly the value certified); ``bracket``: the
    certified eps(delta) bracket at it (``bracket.hi <= target_epsilon``); ``below`` / ``below_bracket``:
    the grid point one step below and its bracket (None when the answer is the first grid point);
    ``minimal``: ``"certified"`` when the lower end at ``below`` exceeds the target (no smaller grid
    point meets it, the truth being nonincreasing in sigma), ``"upper end only"`` when only its upper
    end does (a tighter bracket might admit it); ``steps``: the run's number of steps; ``grid``.
    """

    noise_multiplier: float
    bracket: Bracket
    below: float | None
    below_bracket: Bracket | None
    minimal: str
    steps: int
    grid: Fraction

    def __float__(self) -> float:
        return self.noise_multiplier

    @property
    def epsilon(self) -> float:
        """The certified upper end of eps at the noise multiplier, rounded up to a double."""
        return _up(self.bracket.hi)


def _grid_value(j: int, grid: Fraction) -> float:
    """The smallest double >= j * grid."""
    x = j * grid
    f = float(x)
    return math.nextafter(f, math.inf) if Fraction(f) < x else f


@cites("yousefpour2021", "opacus.accountants.utils.get_noise_multiplier (the interface: target_epsilon, target_delta, "
       "sample_rate, epochs or steps)")
@cites("koskela2020", "PLD accountant (catalog koskela2020_pld_sgm_delta: valid): every bracket certified")
def get_noise_multiplier(target_epsilon, target_delta, sample_rate, epochs=None, steps=None, *, grid=SIGMA_GRID,
                         sigma_max=SIGMA_MAX, precision=None) -> NoiseMultiplier:
    """The smallest noise multiplier on the grid {j * grid} whose certified eps(target_delta) upper end is at most target_epsilon.

    The run: ``steps`` Poisson-subsampled Gaussian steps at ``sample_rate``, or ``epochs`` epochs,
    i.e. ceil(epochs / sample_rate) steps (rounded up, never fewer than Opacus's
    int(epochs / sample_rate)); give exactly one of the two.  Grid: sigma_j = the smallest double
    >= j * ``grid`` (default 1/100), j = 1, 2, ..., up to ``sigma_max`` (default 10^6).

    Search: a gallop and bisection over j (:func:`reference.precision.last_true`) from an RDP
    estimate, assuming the certified upper end is nonincreasing in sigma (the truth is: a larger
    noise is a post-processing of a smaller one; the computed upper end is within ``precision`` of
    it); the answer is then checked as stated: its upper end meets the target (certified) and the
    upper end one grid step below does not (computed, and labelled ``minimal``).
    Contract: ``result.bracket.hi <= target_epsilon`` for the run at ``float(result)``, so training
    with it is (target_epsilon, target_delta)-DP.  ValueError naming the parameter for bad input
    (both or neither of epochs/steps, sample_rate outside (0, 1], delta outside (0, 1), a negative
    epsilon, a grid <= 0) and when no grid point up to sigma_max meets the target.
    """
    e = _exact(target_epsilon, "target_epsilon", _E)
    d = _exact(target_delta, "target_delta", _D)
    q = _exact(sample_rate, "sample_rate", _Q)
    if (epochs is None) == (steps is None):
        raise ValueError(f"give exactly one of epochs and steps, found epochs={epochs!r}, steps={steps!r}")
    if steps is not None:
        if isinstance(steps, bool) or not isinstance(steps, int) or steps < 1:
            raise ValueError(f"steps must be an integer >= 1, found {steps!r:.40}")
        k = steps
    else:
        ep = _exact(epochs, "epochs", Domain.positive())
        k = math.ceil(ep / q)
    if k > sgm_pld.K_MAX:
        raise ValueError(f"steps = {k} exceeds the PLD engine's K_MAX = {sgm_pld.K_MAX}")
    g = _exact(grid, "grid", _S)
    smax = _exact(sigma_max, "sigma_max", _S)
    jmax = math.floor(smax / g)
    if jmax < 1:
        raise ValueError(f"sigma_max = {sigma_max} is below one grid step ({grid})")
    prec = None if precision is None else _check("precision", precision, sgm_pld.PDOM)
    brackets: dict[int, Bracket] = {}

    def bracket(j: int) -> Bracket:
        if j not in brackets:
            s = _grid_value(j, g)
            steps_ = parse_spec([{"mechanism": "subsampled-gaussian", "q": q, "sigma": Fraction(s), "count": k}])
            brackets[j] = profile(steps_, "eps", d, precision=prec)
        return brackets[j]

    def meets(j: int) -> bool:
        hi = bracket(j).hi
        return mpmath.isfinite(hi) and mpf_to_fraction(hi) <= e

    j = _search(meets, bracket, float(e), g, jmax, _rdp_sigma_guess(float(q), k, float(d), float(e)))
    if j is None:
        raise ValueError(f"target_epsilon = {target_epsilon} is not met at target_delta = {target_delta} by any noise "
                         f"multiplier up to sigma_max = {sigma_max} ({k} steps at sample_rate {sample_rate})")
    b = bracket(j)
    if j == 1:
        return NoiseMultiplier(_grid_value(1, g), b, None, None, "certified (the first grid point)", k, g)
    bb = bracket(j - 1)
    certain = not mpmath.isfinite(bb.lo) or mpf_to_fraction(bb.lo) > e
    minimal = "certified" if certain else "upper end only"
    return NoiseMultiplier(_grid_value(j, g), b, _grid_value(j - 1, g), bb, minimal, k, g)


def _search(meets, bracket, e: float, g: Fraction, jmax: int, guess: float) -> int | None:
    """The smallest j in [1, jmax] with ``meets(j)`` (None when jmax does not meet), assuming ``meets`` is monotone: a multiplicative
    gallop from the guess to a bracket [j_fail, j_meet], then regula falsi on (log sigma, log eps upper end) with a
    bisection whenever an end is kept twice (a choice of cost only: every answer is checked by ``meets``)."""
    j = min(max(1, math.ceil(guess / float(g))), jmax)
    if meets(j):
        j_meet, j_fail = j, 0
        while j_meet > 1:
            jf = max(1, min(j_meet - 1, math.floor(j_meet * 0.85)))
            if not meets(jf):
                j_fail = jf
                break
            j_meet = jf
        if j_fail == 0:
            return 1
    else:
        j_fail = j
        while True:
            if j_fail >= jmax:
                return None
            jm = min(jmax, max(j_fail + 1, math.ceil(j_fail * 1.2)))
            if meets(jm):
                j_meet = jm
                break
            j_fail = jm
    last, stall = None, False
    while j_meet - j_fail > 1:
        c = None
        hf, hm = bracket(j_fail).hi, bracket(j_meet).hi
        if not stall and mpmath.isfinite(hf) and hm > 0 and e > 0 and hf > hm:
            xf, xm = math.log(j_fail), math.log(j_meet)
            yf, ym, y = float(mpmath.log(hf)), float(mpmath.log(hm)), math.log(e)
            c = math.ceil(math.exp(xf + (y - yf) * (xm - xf) / (ym - yf)))
        if c is None:
            c = (j_fail + j_meet) // 2
        c = min(max(c, j_fail + 1), j_meet - 1)
        side = "meet" if meets(c) else "fail"
        if side == "meet":
            j_meet = c
        else:
            j_fail = c
        stall, last = side == last, side
    return j_meet


def _rdp_sigma_guess(q: float, k: int, delta: float, eps: float) -> float:
    """A float estimate of the noise multiplier meeting eps at delta (summed RDP of :func:`.sgm_pld._eps_guess`,
    bisected in sigma; a starting point only)."""
    lo, hi = 0.05, 1.0
    while hi < 1e6 and sgm_pld._eps_guess(((q, hi, k),), delta) > eps:
        lo, hi = hi, hi * 2
    for _ in range(30):
        mid = (lo + hi) / 2
        if sgm_pld._eps_guess(((q, mid, k),), delta) > eps:
            lo = mid
        else:
            hi = mid
    return hi
