"""Composition games of Rogers, Roth, Ullman, Vadhan (rogers2016), Algorithms 1-5, over randomized response.

By Theorem 2.7 (Kairouz-Oh-Viswanath) every (eps, delta)-DP step is a post-processing of
``RR_{eps,delta}`` (Definition 2.6), and by Lemma 3.4 the games may be analysed with
randomized response, so here every mechanism is ``RR_{eps_i,delta_i}`` applied to the
game bit b (or to 1 - b when the adversary *swaps* the neighbouring datasets).

Adversary interface
-------------------
An adversary is any object with

``choose(transcript) -> (eps, delta) | (eps, delta, swap) | None``

called before round i with the rounds so far (a :class:`Transcript`); it returns the
round's parameters (exact values: ints, decimal strings, Fractions; ``swap=True`` means
``x^{i,0}, x^{i,1}`` are exchanged, i.e. RR gets input ``1 - b``) or ``None`` to stop,
which is the same as ``eps_j = delta_j = 0`` for all later rounds (footnote 3).  ``choose``
must be a *pure function of the transcript* (a deterministic adversary, which is without
loss of generality by Lemma 3.4; randomised adversaries are mixtures of these) so that the
exact enumerators can call it on every branch.  Optionally ``post(transcript, z, coin)``
is Algorithm 4's post-processing P_i (default: the identity).

Markov adversaries (those whose choice depends only on the realized loss, ``V`` and the
round count) also expose ``markov(loss, V, n) -> eps | None`` (delta_i = 0, no swap):
:func:`markov_stopped_law` enumerates them exactly over merged (loss, V, n) states.
:class:`StoppingTimeAdversary` (Algorithm 5) has both forms.

What is exact and what is simulated
-----------------------------------
* ``fixed_param_comp``/``adapt_param_comp``/``privacy_filter_comp``/``simulated_comp``/
  ``coupled_simulated_comp`` sample one run with a seeded ``numpy.random.Generator``
  (RR probabilities rounded to double precision for sampling only; losses are exact).
* ``enumerate_views``, ``markov_stopped_law``, ``hockey_stick``,
  ``lemma3_5_discrepancy_probability`` are exact enumerations: every probability is a
  rigorous interval (mpmath interval arithmetic at ``prec`` bits) and every privacy loss
  an exact ``Fraction`` (or +-inf).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Callable, Iterable, Optional

import mpmath
from mpmath.ctx_iv import MPIntervalContext

from ..catalog import cites
from ..precision import (
    Domain,
    check,
    compare_exp_rational,
    sign_of,
)
from ..bounds.rogers2016 import CONT, HALT

__all__ = [
    "Round", "Transcript", "GameResult", "INF_LOSS",
    "round_loss", "sample_rr",
    "fixed_param_comp", "adapt_param_comp", "privacy_filter_comp", "simulated_comp", "coupled_simulated_comp",
    "FixedScheduleAdversary", "FunctionAdversary", "MarkovAdversary", "BoundaryStoppingAdversary",
    "StoppingTimeAdversary",
    "Path", "enumerate_views", "hockey_stick", "probability", "markov_stopped_law",
    "lemma3_5_discrepancy_probability", "iv_context",
]

R16 = "rogers2016"
INF_LOSS = math.inf
_NN = Domain.nonnegative()
_U0 = Domain.unit_nonneg()



def _cites(*results: str):
    """Citations of rogers2016 for an unregistered public object (see :func:`reference.catalog.cites`)."""
    return cites(R16, *results)


# ===========================================================================
# Rounds and transcripts
# ===========================================================================

@_cites("Algorithm 2 (one round of the view)")
@dataclass(frozen=True)
class Round:
    """One round: parameters (exact), whether the datasets were swapped, the RR outcome z, what the adversary saw y, and Loss_i.

    ``loss`` is the exact per-round privacy loss ``log(P[M_i(x^{i,0}) = z]/P[M_i(x^{i,1}) = z])``
    of eq. (1): ``+-eps`` for top/bot, ``+-inf`` for the delta outputs 0/1 (sign flipped by ``swap``).
    """

    eps: Fraction
    delta: Fraction
    swap: bool
    z: object
    y: object
    loss: object  # Fraction or +-math.inf


class Transcript(tuple):
    """rogers2016 Algorithm 2: the rounds so far (a tuple of :class:`Round`) with exact running totals.

    Attributes: ``loss`` (sum of Loss_i, a Fraction or +-inf), ``V`` (sum eps_i^2), ``eps_sum``,
    ``delta_sum`` (exact Fractions), ``outputs`` (the y's the adversary saw).  Totals are
    maintained incrementally by :meth:`plus`.
    """

    def __new__(cls, rounds: Iterable[Round] = ()):
        self = super().__new__(cls, tuple(rounds))
        loss, V, S, D = Fraction(0), Fraction(0), Fraction(0), Fraction(0)
        for r in self:
            loss, V, S, D = loss + r.loss, V + r.eps * r.eps, S + r.eps, D + r.delta
        self._tot = (loss, V, S, D)
        return self

    @property
    def loss(self):
        return self._tot[0]

    @property
    def V(self) -> Fraction:
        return self._tot[1]

    @property
    def eps_sum(self) -> Fraction:
        return self._tot[2]

    @property
    def delta_sum(self) -> Fraction:
        return self._tot[3]

    @property
    def outputs(self) -> tuple:
        return tuple(r.y for r in self)

    @property
    def eps(self) -> tuple:
        return tuple(r.eps for r in self)

    @property
    def delta(self) -> tuple:
        return tuple(r.delta for r in self)

    def plus(self, r: Round) -> "Transcript":
        """A new transcript with ``r`` appended (totals updated in O(1) arithmetic)."""
        new = tuple.__new__(Transcript, tuple(self) + (r,))
        loss, V, S, D = self._tot
        new._tot = (loss + r.loss, V + r.eps * r.eps, S + r.eps, D + r.delta)
        return new


Transcript = _cites("Algorithm 2 (the view)")(Transcript)


@_cites("Algorithms 1-4 (result of one run)")
@dataclass(frozen=True)
class GameResult:
    """One run of a game: the transcript, the view (outputs seen, with ``'HALT'`` appended if a filter stopped it), b.

    ``loss`` is Loss(v) of eq. (1), exact.  ``coins`` are Algorithm 4's R_SIM (or ``()``).
    """

    transcript: Transcript
    b: int
    halted: bool = False
    coins: tuple = ()

    @property
    def loss(self):
        return self.transcript.loss

    @property
    def view(self) -> tuple:
        return self.transcript.outputs + ((HALT,) if self.halted else ())

    @property
    def eps(self) -> tuple:
        return self.transcript.eps

    @property
    def delta(self) -> tuple:
        return self.transcript.delta


# ===========================================================================
# Randomized response (Definition 2.6) in the games
# ===========================================================================

@_cites("Definition 2.6", "eq. (1)")
def round_loss(eps: Fraction, delta: Fraction, swap: bool, z):
    """rogers2016 eq. (1): exact Loss_i for outcome ``z`` of RR_{eps,delta}(b xor swap) (x^{i,0} vs x^{i,1}).

    Unswapped: top -> +eps, bot -> -eps, 0 -> +inf, 1 -> -inf; ``swap`` negates.  An outcome
    impossible under both inputs (top/bot when delta = 1) raises ``ValueError``.
    """
    if z in ("top", "bot"):
        if delta == 1:
            raise ValueError("outcome top/bot is impossible when delta = 1")
        v = eps if z == "top" else -eps
    elif z in (0, 1):
        v = INF_LOSS if z == 0 else -INF_LOSS
    else:
        raise ValueError(f"z must be one of 0, 'top', 'bot', 1, found {z!r}")
    return -v if swap else v


@_cites("Definition 2.6 (sampling)")
def sample_rr(eps: Fraction, delta: Fraction, bit: int, rng) -> object:
    """rogers2016 Definition 2.6: one draw of RR_{eps,delta}(bit) with ``rng`` (a ``numpy.random.Generator``).

    The probabilities are rounded to double precision for sampling (the only inexact step
    of a simulated run).
    """
    u = rng.random()
    if u < float(delta):
        return bit  # the delta output: 0 for input 0, 1 for input 1
    keep = 1.0 / (1.0 + math.exp(-float(eps)))  # P[output favours the input]
    v = rng.random()
    favoured = "top" if bit == 0 else "bot"
    other = "bot" if bit == 0 else "top"
    return favoured if v < keep else other


def _parse_choice(choice, i: int):
    if choice is None:
        return None
    if not isinstance(choice, (tuple, list)) or len(choice) not in (2, 3):
        raise TypeError(f"adversary.choose must return (eps, delta), (eps, delta, swap) or None, found {choice!r}")
    e = check(f"eps_{i}", choice[0], _NN)
    d = check(f"delta_{i}", choice[1], _U0)
    swap = bool(choice[2]) if len(choice) == 3 else False
    return e, d, swap


def _bitcheck(b) -> int:
    if b not in (0, 1) or isinstance(b, bool):
        raise ValueError(f"b must be 0 or 1, found {b!r}")
    return int(b)


def _kcheck(k) -> int:
    return int(check("k", k, Domain.integers_from(0)))


def _play(adversary, k: int, b: int, rng, *, pure: bool = False, comp=None, fixed=None, post: bool = False):
    """Shared loop of Algorithms 1-4."""
    b = _bitcheck(b)
    k = _kcheck(k)
    t = Transcript()
    coins = []
    eps_hist: list = []
    delta_hist: list = []
    stateful = comp is not None and hasattr(comp, "try_run")
    for i in range(1, k + 1):
        choice = _parse_choice(adversary.choose(t) if adversary is not None else fixed[i - 1], i)
        if fixed is not None:
            fe, fd = fixed[i - 1][:2]
            if choice is None or choice[0] != fe or choice[1] != fd:
                raise ValueError(f"FixedParamComp: round {i} must use the fixed parameters ({fe}, {fd}), adversary chose {choice!r}")
        if choice is None:
            break
        e, d, swap = choice
        if comp is not None:
            if stateful:
                go = comp.try_run(e, d)
            else:
                r = comp(tuple(eps_hist) + (e,), tuple(delta_hist) + (d,))
                if r not in (CONT, HALT, True, False):
                    raise TypeError(f"comp must return 'CONT'/'HALT' or a bool, found {r!r}")
                go = r in (CONT, True)
            if not go:
                return GameResult(t, b, halted=True, coins=tuple(coins))
        eps_hist.append(e)
        delta_hist.append(d)
        bit = b ^ int(swap)
        z = sample_rr(e, Fraction(0) if pure else d, bit, rng)
        y = z
        if post:
            coin = rng.random()
            coins.append(coin)
            if hasattr(adversary, "post"):
                y = adversary.post(t, z, coin)
        t = t.plus(Round(e, d, swap, z, y, round_loss(e, Fraction(0) if pure else d, swap, z)))
    return GameResult(t, b, halted=False, coins=tuple(coins))


@_cites("Algorithm 1 (FixedParamComp)")
def fixed_param_comp(eps, delta, b, rng, adversary=None) -> GameResult:
    """rogers2016 Algorithm 1: FixedParamComp with parameters (eps_i, delta_i) fixed in advance; one run.

    Every round runs ``RR_{eps_i,delta_i}(b)`` (or on 1 - b if ``adversary`` swaps).  If an
    adversary is given, its ``choose`` must return exactly the fixed parameters
    (``ValueError`` otherwise): it may only pick the datasets.  Returns a :class:`GameResult`.
    """
    from ..bounds.rogers2016 import _eps_delta

    es, ds = _eps_delta(eps, delta)
    fixed = [(e, d) for e, d in zip(es, ds)]
    return _play(adversary, len(fixed), b, rng, fixed=fixed)


@_cites("Algorithm 2 (AdaptParamComp)")
def adapt_param_comp(adversary, k, b, rng) -> GameResult:
    """rogers2016 Algorithm 2: AdaptParamComp(A, k, b); one run with ``rng``.

    The adversary chooses (eps_i, delta_i[, swap]) from the transcript before each round,
    or ``None`` to stop (= all later parameters 0).  Returns a :class:`GameResult` whose
    ``loss`` is Loss(v) of eq. (1), exact.
    """
    return _play(adversary, k, b, rng)


@_cites("Algorithm 3 (PrivacyFilterComp)")
def privacy_filter_comp(adversary, k, b, comp, rng) -> GameResult:
    """rogers2016 Algorithm 3: PrivacyFilterComp(A, k, b; COMP_{eps_g,delta_g}); one run.

    Before round i the filter is asked about (eps_1, delta_1, ..., eps_i, delta_i); on HALT
    the run stops (the remaining outputs are bot in the paper; here ``halted=True``).
    ``comp`` is either a closed-form filter ``comp(eps_tuple, delta_tuple) -> 'CONT'|'HALT'``
    (e.g. ``functools.partial(reference.bounds.rogers2016.advanced_filter, eps_g=..., delta_g=...)``)
    or a fresh stateful filter object with ``try_run`` (:mod:`reference.accountants.rogers2016`).
    """
    if comp is None:
        raise ValueError("comp must be a filter (callable or object with try_run), found None")
    return _play(adversary, k, b, rng, comp=comp)


@_cites("Algorithm 4 (SimulatedComp)")
def simulated_comp(adversary, k, b, rng, *, pure: bool = False) -> GameResult:
    """rogers2016 Algorithm 4: SimulatedComp(A, k, b); with ``pure=True`` the modified game of Section 3.2.

    Each round draws Z_i = RR_{eps_i,delta_i}(b) (``pure``: RR_{eps_i}(b), delta ignored), a coin
    R_SIM_i (uniform on [0, 1)), and the adversary sees Y_i = ``adversary.post(transcript, Z_i,
    R_SIM_i)`` (identity if it has no ``post``).  The view W = (R_SIM, Z) is
    ``(result.coins, tuple(r.z for r in result.transcript))``; Y is ``result.view``.
    """
    return _play(adversary, k, b, rng, pure=pure, post=True)


@_cites("Lemma 3.5 (proof: the coupling of RR_{eps} and RR_{eps,delta})")
def coupled_simulated_comp(adversary, k, rng) -> tuple[GameResult, GameResult, Optional[int]]:
    """rogers2016 Lemma 3.5 proof: one run of the coupling of SimulatedComp(A, k, 0) and its delta_i = 0 version.

    Each round draws z~ from RR_{eps_i}(input) and sets z = z~ with probability 1 - delta_i,
    otherwise z = the delta output (0 for input 0).  The two games are driven by their own
    transcripts (parameters of the real game from V, of the modified game from V~); they
    agree until the first round t where z_t != z~_t, returned as the third element
    (``None`` if they never differ).  Returns ``(real, modified, t)``.
    """
    k = _kcheck(k)
    t_real, t_pure = Transcript(), Transcript()
    first = None
    live_real = live_pure = True
    for i in range(1, k + 1):
        cr = _parse_choice(adversary.choose(t_real), i) if live_real else None
        cp = _parse_choice(adversary.choose(t_pure), i) if live_pure else None
        live_real, live_pure = cr is not None, cp is not None
        if not (live_real or live_pure):
            break
        if first is None:
            assert cr == cp  # identical transcripts so far: identical (deterministic) choices
            e, d, swap = cr
            zt = sample_rr(e, Fraction(0), int(swap), rng)
            z = zt if rng.random() >= float(d) else int(swap)
            t_pure = t_pure.plus(Round(e, d, swap, zt, zt, round_loss(e, Fraction(0), swap, zt)))
            t_real = t_real.plus(Round(e, d, swap, z, z, round_loss(e, d, swap, z)))
            if z != zt:
                first = i
        else:  # decoupled: continue each game on its own
            if live_real:
                e, d, swap = cr
                z = sample_rr(e, d, int(swap), rng)
                t_real = t_real.plus(Round(e, d, swap, z, z, round_loss(e, d, swap, z)))
            if live_pure:
                e, d, swap = cp
                z = sample_rr(e, Fraction(0), int(swap), rng)
                t_pure = t_pure.plus(Round(e, d, swap, z, z, round_loss(e, Fraction(0), swap, z)))
    return GameResult(t_real, 0), GameResult(t_pure, 0), first


# ===========================================================================
# Adversaries
# ===========================================================================

@_cites("Algorithm 1 / Algorithm 2 (a non-adaptive adversary)")
class FixedScheduleAdversary:
    """A schedule fixed in advance: round i uses ``schedule[i-1]`` = (eps, delta[, swap]); stops after the schedule."""

    def __init__(self, schedule):
        self.schedule = [_parse_choice(s, i + 1) for i, s in enumerate(schedule)]

    def choose(self, transcript):
        i = len(transcript)
        return self.schedule[i] if i < len(self.schedule) else None


@_cites("Algorithm 2 (an arbitrary deterministic adversary)")
class FunctionAdversary:
    """Wrap ``fn(transcript) -> (eps, delta[, swap]) | None`` (and optionally ``post``) as an adversary."""

    def __init__(self, fn: Callable, post: Callable | None = None):
        self._fn = fn
        if post is not None:
            self.post = post

    def choose(self, transcript):
        return self._fn(transcript)


@_cites("Algorithm 2 (Markov adversary: choice from (loss, V, n))")
class MarkovAdversary:
    """Wrap ``strategy(loss, V, n) -> eps | None`` (delta_i = 0, no swap) for at most ``k`` rounds.

    ``loss`` is the realized privacy loss after n rounds (exact), ``V = sum eps_i^2``.
    """

    def __init__(self, strategy: Callable, k: int):
        self._strategy = strategy
        self.k = _kcheck(k)

    def markov(self, loss, V, n):
        if n >= self.k:
            return None
        e = self._strategy(loss, V, n)
        return None if e is None else check("eps", e, _NN)

    def choose(self, transcript):
        e = self.markov(transcript.loss, transcript.V, len(transcript))
        return None if e is None else (e, Fraction(0))


@_cites("Algorithm 5 (generalised boundary)")
class BoundaryStoppingAdversary:
    """Run RR_eps (delta = 0) every round and stop the first time ``stop(loss, i)`` holds, or after k rounds.

    ``loss = sum_{j<=i} X_j`` with X_j = +eps for top and -eps for bot (the realized privacy
    loss under b = 0).  ``stop`` must be an exact predicate; results are cached per (loss, i).
    """

    def __init__(self, eps, k, stop: Callable[[Fraction, int], bool]):
        self.eps = check("eps", eps, Domain.positive())
        self.k = _kcheck(k)
        self._stop = stop
        self._cache: dict = {}

    def stopped(self, loss: Fraction, i: int) -> bool:
        """Whether the adversary stops after round i at realized loss ``loss`` (i = 0: never)."""
        if i == 0:
            return False
        key = (loss, i)
        r = self._cache.get(key)
        if r is None:
            r = self._cache[key] = bool(self._stop(loss, i))
        return r

    def markov(self, loss, V, n):
        """Markov form ``(loss, V, n) -> eps | None``: eps unless n >= k or the boundary was reached after round n."""
        if n >= self.k or self.stopped(loss, n):
            return None
        return self.eps

    def choose(self, transcript):
        e = self.markov(transcript.loss, transcript.V, len(transcript))
        return None if e is None else (e, Fraction(0))


@_cites("Algorithm 5 (stopping time adversary)", "Theorem 6.1 (proof)")
class StoppingTimeAdversary(BoundaryStoppingAdversary):
    """rogers2016 Algorithm 5: the stopping time adversary A_{eps,delta} with constant C.

    Every round it runs RR_eps (datasets {0, 1}, parameters (eps, 0)), records X_i = +eps if
    Y_i = top and -eps if bot, and stops (all later eps_j = 0) the first time::

        sum_{j<=i} (X_j - eps (e^eps - 1)/(e^eps + 1)) >= C eps sqrt(i log(log(n)/delta)),

    or after k rounds (k = n in the proof of Theorem 6.1).  The seed prints ``e^j`` and
    ``sqrt(t ...)`` in the test; they are read as e^eps and i (errata R16-ALG5-EJ).
    Markov form: ``markov(loss, V, n)``.  The test is decided exactly (interval refinement).
    Preconditions: eps > 0, delta > 0 with log(n) > delta, C > 0, integers n >= 2, k >= 1.
    """

    def __init__(self, eps, delta, C, n, k=None):
        e = check("eps", eps, Domain.positive())
        d = check("delta", delta, Domain.positive())
        Cq = check("C", C, Domain.positive())
        nn = int(check("n", n, Domain.integers_from(2)))
        if compare_exp_rational(d, Fraction(nn)) >= 0:
            raise ValueError(f"delta must satisfy log(n) > delta, found delta={delta!r}, n={nn}")
        self.delta, self.C, self.n = d, Cq, nn

        def stop(loss: Fraction, i: int) -> bool:
            # loss - i eps tanh(eps/2) - C eps sqrt(i log(log(n)/delta)) >= 0
            f = lambda c, L, e, C, d, m, i: L - i * e * (1 - 2 / (c.exp(e) + 1)) - C * e * c.sqrt(i * c.log(c.log(m) / d))
            return sign_of(f, (Fraction(loss), e, Cq, d, Fraction(nn), Fraction(i))) >= 0

        super().__init__(e, nn if k is None else k, stop)
        self._jmin: dict = {}

    def threshold_tops(self, i: int) -> int:
        """Least number j of top outcomes in i rounds at which Algorithm 5 stops (i + 1 if none): loss = eps (2j - i).

        The test is monotone in the loss, so j is found by exact bisection and cached.
        """
        j = self._jmin.get(i)
        if j is None:
            lo, hi = 0, i + 1  # stop(lo - 1) false (conceptually), answer in [0, i + 1]
            while lo < hi:
                mid = (lo + hi) // 2
                if self._stop(self.eps * (2 * mid - i), i):
                    hi = mid
                else:
                    lo = mid + 1
            j = self._jmin[i] = lo
        return j

    def stopped(self, loss: Fraction, i: int) -> bool:
        """Exact Algorithm 5 test after round i at realized loss ``loss`` (lattice values use the cached threshold)."""
        if i == 0:
            return False
        x = Fraction(loss) / self.eps + i
        if x.denominator == 1 and x.numerator % 2 == 0 and 0 <= x <= 2 * i:
            return x.numerator // 2 >= self.threshold_tops(i)
        return super().stopped(loss, i)


# ===========================================================================
# Exact enumeration
# ===========================================================================

def iv_context(prec: int = 200) -> MPIntervalContext:
    """A private mpmath interval context at ``prec`` bits (probabilities of the exact enumerators)."""
    c = MPIntervalContext()
    c.prec = prec
    return c


def _ivq(c, q: Fraction):
    return c.mpf(q.numerator) / c.mpf(q.denominator) if q.denominator != 1 else c.mpf(q.numerator)


def _rr_branches(c, e: Fraction, d: Fraction, bit: int, pure: bool):
    """[(z, probability interval)] of RR_{e,d}(bit) (zero-probability outcomes dropped)."""
    dd = Fraction(0) if pure else d
    keep = _ivq(c, 1 - dd) / (1 + c.exp(-_ivq(c, e)))
    flip = _ivq(c, 1 - dd) / (1 + c.exp(_ivq(c, e)))
    fav, oth = ("top", "bot") if bit == 0 else ("bot", "top")
    out = []
    if dd:
        out.append((bit, _ivq(c, dd)))
    if dd != 1:
        out += [(fav, keep), (oth, flip)]
    return out


@_cites("Algorithms 2-3 (exact enumeration of the view)")
@dataclass(frozen=True)
class Path:
    """One view of an enumerated game: the transcript, its probability (interval) under the game bit, and whether a filter halted it."""

    transcript: Transcript
    prob: object  # mpmath interval
    halted: bool

    @property
    def loss(self):
        return self.transcript.loss


@_cites("Algorithm 2 / Algorithm 3 (exact enumeration)")
def enumerate_views(adversary, k, b=0, comp=None, *, pure: bool = False, prec: int = 200) -> list[Path]:
    """rogers2016 Algorithms 2-3: every view of AdaptParamComp (or PrivacyFilterComp with ``comp``) and its probability.

    Deterministic adversaries only (``choose`` a pure function of the transcript);
    post-processing is not applied (it cannot increase the privacy loss).  ``comp`` as in
    :func:`privacy_filter_comp` but only the closed-form (callable) kind.  ``pure=True``
    plays RR_{eps_i} (the modified game).  Cost: up to 3^k views.  Probabilities are
    rigorous intervals at ``prec`` bits; losses exact.
    """
    b = _bitcheck(b)
    k = _kcheck(k)
    c = iv_context(prec)
    out: list[Path] = []
    stack = [(Transcript(), c.mpf(1))]
    while stack:
        t, p = stack.pop()
        i = len(t) + 1
        choice = _parse_choice(adversary.choose(t), i) if i <= k else None
        if choice is None:
            out.append(Path(t, p, False))
            continue
        e, d, swap = choice
        if comp is not None:
            r = comp(t.eps + (e,), t.delta + (d,))
            if r in (HALT, False):
                out.append(Path(t, p, True))
                continue
        for z, q in _rr_branches(c, e, d, b ^ int(swap), pure):
            stack.append((t.plus(Round(e, d, swap, z, z, round_loss(e, Fraction(0) if pure else d, swap, z))), p * q))
    return out


@_cites("Definitions 3.1-3.2 (probability of a bad event, exact)")
def probability(paths: Iterable[Path], predicate: Callable[[Path], bool], *, prec: int = 200) -> tuple[mpmath.mpf, mpmath.mpf]:
    """Rigorous enclosure ``(lo, hi)`` of the probability of the paths satisfying ``predicate`` (interval sum)."""
    c = iv_context(prec)
    tot = c.mpf(0)
    for p in paths:
        if predicate(p):
            tot = tot + p.prob
    return _ends(tot)


def _ends(x) -> tuple[mpmath.mpf, mpmath.mpf]:
    a, b = x._mpi_
    return mpmath.mp.make_mpf(a), mpmath.mp.make_mpf(b)


@_cites("Definition 2.1 / Definition 2.8 (hockey-stick divergence of the two views, exact)")
def hockey_stick(paths0: Iterable[Path], eps_g, *, prec: int = 200) -> tuple[mpmath.mpf, mpmath.mpf]:
    """Rigorous enclosure of ``sup_S P[V^0 in S] - e^{eps_g} P[V^1 in S]`` from the b = 0 enumeration.

    Uses P[V^1 = v] = P[V^0 = v] e^{-Loss(v)} (eq. (1)): the supremum is
    ``sum_v P[V^0 = v] (1 - e^{eps_g - Loss(v)})_+``.  The views must come from
    :func:`enumerate_views` with b = 0 (RR outcomes, no post-processing).
    """
    eg = check("eps_g", eps_g, _NN)
    c = iv_context(prec)
    tot = c.mpf(0)
    for p in paths0:
        L = p.loss
        if L == INF_LOSS:
            w = c.mpf(1)
        elif L == -INF_LOSS or L <= eg:
            continue
        else:
            w = 1 - c.exp(_ivq(c, eg - L))
        tot = tot + p.prob * w
    return _ends(tot)


@_cites("Algorithm 5 / Markov adversaries (exact law of the stopped state)")
def markov_stopped_law(adversary, *, prec: int = 200) -> dict:
    """Exact law under b = 0 of the stopped state ``(loss, V, n)`` of a Markov adversary (delta_i = 0).

    ``adversary.markov(loss, V, n)`` gives eps_{n+1} or ``None`` (stop); equal states are
    merged, so Algorithm 5 over k rounds costs O(k^2) interval operations.  Returns
    ``{(loss, V, n): probability interval}``; the probabilities sum to 1.
    """
    c = iv_context(prec)
    level = {(Fraction(0), Fraction(0)): c.mpf(1)}
    stopped: dict = {}
    ups: dict = {}
    n = 0
    while level:
        nxt: dict = {}
        for (loss, V), p in level.items():
            e = adversary.markov(loss, V, n)
            if e is None:
                stopped[(loss, V, n)] = stopped.get((loss, V, n), c.mpf(0)) + p
                continue
            e = Fraction(e)
            up = ups.get(e)
            if up is None:
                up = ups[e] = 1 / (1 + c.exp(-_ivq(c, e)))
            for dl, w in ((e, up), (-e, 1 - up)):
                key = (loss + dl, V + e * e)
                nxt[key] = nxt.get(key, c.mpf(0)) + p * w
        level = nxt
        n += 1
    return stopped


@_cites("Lemma 3.5 (proof, eq. (7))")
def lemma3_5_discrepancy_probability(adversary, k, delta_prime_g, *, prec: int = 200) -> tuple[mpmath.mpf, mpmath.mpf]:
    """rogers2016 Lemma 3.5, eq. (7): exact enclosure of ``P[W in F and V in G_k]``, claimed <= delta'_g.

    In the coupling of the proof z_t != z~_t exactly when the real game outputs the delta
    output at round t, so F is "some round of the real game (b = 0) produced its delta
    output" and G_k is "sum_t delta_t(v_{<t}) <= delta'_g"; both are read off the exact
    enumeration of the real game.
    """
    dpg = check("delta_prime_g", delta_prime_g, _NN)
    paths = enumerate_views(adversary, k, 0, prec=prec)
    return probability(paths, lambda p: p.transcript.delta_sum <= dpg and any(r.z in (0, 1) for r in p.transcript))
