"""Certified per-example accounting for DP-SGD: the individual filter of feldman2021 (Algorithm 3) on the exact game.

Each example i carries its own privacy filter.  At step t its clipped gradient has norm
nu_{t,i} = min(||g_{t,i}||, C) (C the clipping norm), so for example i the step is a
Poisson-subsampled Gaussian (q, sigma) with sensitivity scale s_{t,i} = nu_{t,i}/C <= 1 (noise
standard deviation sigma C).  The scale is rounded *up* to a grid 0 < s_1 < ... < s_K = 1; the
menu item k is :class:`reference.bounds.sgm_game.SGMItem` (q, sigma, s_k) with the integer cost
c_k, and one certified budget B* (:func:`reference.bounds.sgm_game.sgm_menu_certificate`,
computed once) serves every example.  A zero norm (the zero vector added, or the example not
used) is the null step, cost 0.  :class:`IndividualDPSGDGameFilter` keeps the spent units of
every example in one NumPy int64 array; :func:`audit` replays a recorded run.

The guarantee (this project, derived from feldman2021 Algorithm 3 / Theorem 4.5 and
:mod:`reference.bounds.pair_game`)
-----------------------------------------------------------------------------------------------
Individual (eps, delta)-DP of example x_i: for every data set D containing x_i and
D' = D minus x_i, the released transcript (the noisy gradient sums, hence the iterates) has
H_{e^eps}(M(D) || M(D')) <= delta and H_{e^eps}(M(D') || M(D)) <= delta.

The mechanism the theorem is about.  At step t, with the past transcript y_{<t} public:

1. every candidate example j has its norm n_{t,j} computed at the current iterate (a function
   of y_{<t} and x_j only), an upper bound of the norm of the vector it would add;
2. the filter admits j iff spent_j + c(n_{t,j}) <= B*, and then charges it (``try_run``);
   c(n) = c_k for the least k with n <= s_k C (c_K when n > C), and c(0) = 0;
3. each *admitted* example is included independently with probability q (Poisson sampling,
   coins independent of everything else), and the release is
   y_t = sum_{j admitted and sampled} v_{t,j} + N(0, sigma^2 C^2 I), ||v_{t,j}|| <= min(n_{t,j}, C),
   divided (if at all) by a public constant, never by a count of admitted or sampled examples.

Proof that each example's run is (eps, delta)-DP.  Fix x_i and the pair (D, D').  Every other
example's norms, decisions and counters are the same functions of the transcript under D and
D'.  Example i's norm n_{t,i}, hence its item k_t and its decision, is a function of y_{<t}
and of the fixed x_i, i.e. of the past only (feldman2021's argument for Algorithm 3).  If i is
admitted at step t, the conditional pair of laws of y_t given y_{<t} is a Poisson-subsampled
Gaussian of sensitivity ||v_{t,i}|| <= s_{k_t} C at noise sigma C: a post-processing of item
k_t's dominating pair (zhu2022 Proposition 30 with sigma/s_{k_t}: a smaller sensitivity is
dominated by a larger one, so rounding the scale up is safe).  If i is not admitted -- refused,
not a candidate, or a zero norm -- the step's law is the same under D and D' (x_i contributes
nothing): a kernel of the past common to both hypotheses, which step 1 of
:mod:`reference.bounds.pair_game` absorbs into the analyst's own randomness (a null step,
uncharged).  So example i's transcript is an adaptive interaction with the menu's pairs in which
each charged step has c_{k_t} <= R_t (R_t = B* - spent before it): exactly the strategies over
which the game value G_{B*} = V(B*, 0) is the supremum (the recursion's maximum over k with
c_k <= R, at every remaining budget).  G_{B*} <= delta in both directions (the certificate)
gives the claim.

Coming back after a refusal (decided: allowed, as in feldman2021 Algorithm 3, which recomputes
the active set at every step).  The proof above never uses that a refused example stays out:
a refusal is a null step, and a later step whose charge fits (a smaller norm, a cheaper item)
is one more move c_k <= R of the same game.  What the proof does use, and the caller must
guarantee:

* a refused (or unlisted) example's gradient is *not used* at that step: not in the sum, not
  in the sampled batch's size, not in any normalisation, not in any other released value;
* the decision uses norms that depend only on the past transcript and the example itself (the
  norm at the current iterate), computed *before* the Poisson coins; an admitted example is
  charged whether or not it is then sampled (the amplification is paid for by the charge);
* the filter's state (spent units, masks) is not released: example i's counter and mask are
  functions of x_i.  Counts over admitted examples are not covered either.

Rounding: every comparison is exact (integers; a norm, a double, is compared with the largest
double <= s_k C, which is exact: n <= s_k C iff n <= that double); the scale is rounded up; B*
is certified from upper ends of the game value.  Scope, as in :mod:`reference.simulate.individual`:
the idealised mechanism whose noise is exactly Gaussian and whose norms are upper bounds of the
vectors actually added.
"""
from __future__ import annotations

import math
import sys
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Optional, Sequence

import numpy as np

from ..bounds.individual_game import DEFAULT_SCALES, check_scales
from ..bounds.individual_game import menu_certificate as _certificate
from ..bounds.sgm_game import SGMItem, sgm_game_budget, sgm_single_item_rounds
from ..catalog import cites
from ..precision import Domain, _describe, check
from .base import KEYED_SCHEMA_VERSION, Remaining, _Accountant, _exact_json, _in

__all__ = ["IndividualDPSGDGameFilter", "IndividualDPSGDGameFilterRemaining", "AuditResult", "audit",
           "DEFAULT_SCALES", "scale_thresholds", "charges_of"]

_P = Domain.positive()
_NN = Domain.nonnegative()
_U = Domain.open_unit()
_U1 = Domain.half_open_unit()
_BITS = Domain(lo=Fraction(1), hi=Fraction(30), lo_closed=True, hi_closed=True, integer=True)
_N1 = Domain.integers_from(1)
_COST = Domain.integers_from(1)

_INT_EXACT = 2 ** 53
_MAX_DOUBLE = Fraction(sys.float_info.max)


def _float_down(x: Fraction) -> float:
    """The largest double <= x (x >= 0; the largest finite double above its range)."""
    if x >= _MAX_DOUBLE:
        return sys.float_info.max
    f = float(x)
    return math.nextafter(f, -math.inf) if Fraction(f) > x else f


def _scales(scales) -> tuple[Fraction, ...]:
    return check_scales(scales)


def _costs(costs, n: int) -> Optional[tuple[int, ...]]:
    if costs is None:
        return None
    if isinstance(costs, (str, bytes)) or not hasattr(costs, "__iter__"):
        raise ValueError(f"costs must be None or a list of positive integers, found {_describe(costs)}")
    out = tuple(int(check(f"costs[{i}]", c, _COST)) for i, c in enumerate(costs))
    if len(out) != n:
        raise ValueError(f"costs must have one entry per scale ({n}), found {len(out)}")
    return out


@cites("feldman2021", "Algorithm 3 (individual filter: a point is charged at the scale of its own gradient)")
def scale_thresholds(scales: Sequence, clip) -> np.ndarray:
    """The doubles t_k = the largest double <= s_k C, so that a double norm n satisfies n <= s_k C iff n <= t_k.

    Contract: ``scales`` strictly increasing in (0, 1] ending at 1, ``clip`` = C > 0 (exact).
    Rounding: each threshold is rounded down, which makes the comparison with a double exact.
    """
    C = check("clip", clip, _P)
    return np.array([_float_down(s * C) for s in _scales(scales)], dtype=np.float64)


def _as_norms(norms, name: str = "norms", row0: int = 0) -> np.ndarray:
    """``norms`` as a float64 array holding the same exact values; ``ValueError`` on NaN, negatives or a lossy dtype.

    ``row0``: the index of the first row in the caller's array (an error names the caller's index)."""
    a = np.asarray(norms)
    k = a.dtype.kind
    if k == "f":
        if a.dtype.itemsize > 8:
            raise ValueError(f"{name} must be float16/32/64 or integers (a wider float would be rounded), found dtype {a.dtype}")
        a = a.astype(np.float64, copy=False)
    elif k in "iu":
        if a.size and (int(a.max()) > _INT_EXACT or int(a.min()) < -_INT_EXACT):
            raise ValueError(f"{name} must be exactly representable as doubles (|n| <= 2^53), found {int(abs(a).max())}")
        a = a.astype(np.float64)
    else:
        raise ValueError(f"{name} must be a real numeric array, found dtype {a.dtype}")
    ok = a >= 0          # False at NaN and at negatives (+inf is allowed: charged at scale 1)
    if not ok.all():
        bad = np.argwhere(~ok)[0]
        where = tuple(int(x) for x in bad)
        shown = (where[0] + row0,) + where[1:]
        raise ValueError(f"{name} must be gradient norms >= 0 (not NaN; +inf is charged at scale 1), found "
                         f"{float(a[where])!r} at index {shown if len(shown) > 1 else shown[0]}")
    return a


def _slots(ext: np.ndarray, norms: np.ndarray) -> np.ndarray:
    """Slot of each validated norm: 0 at n = 0, k for t_{k-1} < n <= t_k (t_0 = 0), K above t_K (the scale rounded UP)."""
    idx = np.searchsorted(ext, norms, side="left")       # #{k: t_k < n}
    np.minimum(idx, len(ext) - 1, out=idx)                 # above C: the top item (scale 1)
    return idx


def charges_of(norms: np.ndarray, thresholds: np.ndarray, costs: Sequence[int]) -> np.ndarray:
    """Per-entry integer charge of validated norms: 0 at 0, c_k for t_{k-1} < n <= t_k (t_0 = 0), c_K above t_K.

    Contract: ``norms`` float64 >= 0 (validated), ``thresholds`` from :func:`scale_thresholds`,
    ``costs`` one positive integer per scale.  Exact (double comparisons with exact thresholds).
    """
    ext = np.concatenate(([0.0], thresholds))
    cost_ext = np.concatenate(([0], np.asarray(costs, dtype=np.int64)))
    return cost_ext[_slots(ext, norms)]


@dataclass(frozen=True, eq=False)
class IndividualDPSGDGameFilterRemaining(Remaining):
    """:meth:`IndividualDPSGDGameFilter.remaining`: exact integers in the menu's cost units (arrays are read-only copies)."""

    budget: int                 #: B*, the same for every example
    costs: tuple                #: c_k, per scale (a zero norm costs 0)
    spent: np.ndarray           #: per example, int64
    remaining: np.ndarray       #: per example, B* - spent (int64)
    active: int                 #: examples that can still take a step at the least positive cost


@cites("feldman2021", "Algorithm 3 and Theorem 4.5 (individual privacy filtering; a refused point may return)")
@cites("zhu2022", "Proposition 30 / Theorem 10 (dominating pairs of the Poisson-subsampled Gaussian)")
class IndividualDPSGDGameFilter(_Accountant):
    """Per-example privacy filters for DP-SGD whose common budget B* is certified by the exact game (derived in this project).

    Contract (module docstring for the proof): example i's step with gradient norm n (an upper
    bound of the norm of the vector it adds; relative scale n/C rounded up to ``scales``) is
    charged c_k and admitted iff spent_i + c_k <= B*; a zero norm is admitted at no charge.  Each
    example's run is individually (eps, delta)-DP, for every example at once, when the caller
    follows the mechanism of the module docstring (Poisson sampling at rate q among the admitted
    examples only, noise sigma C, refused examples' gradients unused).  A refused example may be
    admitted later (feldman2021 Algorithm 3).

    Preconditions: eps > 0, 0 < delta < 1, 0 < q <= 1, sigma > 0, clip C > 0, n_examples >= 1,
    scales strictly increasing in (0, 1] ending at 1, bits in [1, 30], costs None (chosen by
    :func:`reference.bounds.sgm_game.default_costs`) or one positive integer per scale.
    Rounding: charges and decisions exact; B* certified (upper ends of the game value).
    Cost: the certificate is computed once per parameter set and process (seconds at bits 6);
    ``try_run`` is a few NumPy passes over the batch.  Thread-safe; JSON state with digest
    (keyed: HMAC, identity, sequence number) as :class:`reference.accountants.base._Accountant`.
    """

    _PARAMS = (("eps", _P, False), ("delta", _U, False), ("q", _U1, False), ("sigma", _P, False), ("clip", _P, False),
               ("scales", None, False), ("n_examples", _N1, False), ("bits", _BITS, False), ("costs", None, True),
               ("charges", None, True), ("budget", _NN, True), ("value_at_budget", _NN, True),
               ("value_above_budget", _NN, True))
    _STATE = ("spent",)
    #: q scales the leak up (its upper end); sigma and clip down (their lower ends); bits and n_examples are not rounded
    _PARAM_ENDS = {**_Accountant._PARAM_ENDS, "q": "upper", "sigma": "lower", "clip": "lower", "bits": None,
                   "n_examples": None}
    _CERT = ("charges", "budget", "value_at_budget", "value_above_budget")

    def __init__(self, eps, delta, q, sigma, clip, n_examples, scales=DEFAULT_SCALES, bits=6, costs=None):
        """Filters for ``n_examples`` examples at target (eps, delta); ``ValueError`` names a bad parameter."""
        sc = _scales(scales)
        vals = {"eps": eps, "delta": delta, "q": q, "sigma": sigma, "clip": clip, "scales": sc,
                "n_examples": n_examples, "bits": bits, "costs": _costs(costs, len(sc)),
                "charges": None, "budget": None, "value_at_budget": None, "value_above_budget": None}
        self._init_params(vals)
        p = self._p
        self._items = tuple(SGMItem(p["q"], p["sigma"], s) for s in sc)
        cert = _certificate(p["eps"], p["delta"], self._items, int(p["bits"]), p["costs"])
        if cert.budget < 0:  # pragma: no cover - a zero budget's game value is 0 <= delta
            raise ArithmeticError(f"the game certified no budget (internal): {cert.as_dict()}")
        self._cert = cert
        p["charges"] = tuple(cert.costs)
        p["budget"] = Fraction(cert.budget)
        p["value_at_budget"] = cert.upper_at_budget
        p["value_above_budget"] = cert.lower_above
        self._B = int(cert.budget)
        self._thr = scale_thresholds(sc, p["clip"])
        self._ext = np.concatenate(([0.0], self._thr))
        self._cost_ext = np.concatenate(([0], np.asarray(cert.costs, dtype=np.int64)))
        self._spent = np.zeros(int(p["n_examples"]), dtype=np.int64)
        self._admitted = 0   # example-steps admitted so far

    @classmethod
    def _from_params(cls, kw):
        obj = cls(kw["eps"], kw["delta"], kw["q"], kw["sigma"], kw["clip"], int(kw["n_examples"]), kw["scales"],
                  int(kw["bits"]), kw["costs"])
        for name in cls._CERT:
            if kw[name] != obj._p[name]:
                raise ValueError(f"params.{name} = {kw[name]} does not match the recomputed certificate "
                                 f"({obj._p[name]}): refused")
        return obj

    # ---- parameters in the saved state ------------------------------------
    def _param_to_json(self, name: str, v):
        if name == "scales":
            return [_exact_json(s) for s in v]
        if name in ("costs", "charges"):
            return list(v)
        return _exact_json(v)

    @classmethod
    def _param_from_json(cls, name: str, v, where: str):
        if name == "scales":
            if not isinstance(v, list):
                raise ValueError(f"{where} must be a list of exact strings, found {_describe(v)}")
            return tuple(_in(x, f"{where}[{i}]", _U1) for i, x in enumerate(v))
        if name in ("costs", "charges"):
            if not isinstance(v, list) or not all(type(c) is int and c >= 1 for c in v):
                raise ValueError(f"{where} must be a list of positive integers, found {_describe(v)}")
            return tuple(v)
        return super()._param_from_json(name, v, where)

    # ---- the saved state: the spent vector (no per-step history is kept) ----
    def _body(self, version: int) -> dict:
        return {"schema": self._schema(), "version": version,
                "params": {k: (None if v is None else self._param_to_json(k, v)) for k, v in self._p.items()},
                "state": {"n": self._n, "admitted": self._admitted, "spent": self._spent.tolist()},
                "history": []}

    @classmethod
    def _from_dict(cls, d, key: bytes | None = None):
        cls._check_envelope(d, key)
        obj = cls._from_params(cls._params_kw(d["params"]))
        if d["history"] != []:
            raise ValueError(f"history must be [] (the state is the spent vector), found {_describe(d['history'])}")
        st = d["state"]
        if not isinstance(st, dict) or set(st) != {"n", "admitted", "spent"}:
            raise ValueError(f"state must have exactly the keys ['admitted', 'n', 'spent'], found {_describe(st)}")
        for f in ("n", "admitted"):
            if type(st[f]) is not int or st[f] < 0:
                raise ValueError(f"state.{f} must be an int >= 0, found {_describe(st[f])}")
        sp = st["spent"]
        n = int(obj._p["n_examples"])
        if not isinstance(sp, list) or len(sp) != n or not all(type(x) is int for x in sp):
            raise ValueError(f"state.spent must be a list of {n} ints, found {_describe(sp)}")
        arr = np.array(sp, dtype=np.int64) if n else np.zeros(0, np.int64)
        if arr.size and (arr.min() < 0 or arr.max() > obj._B):
            raise ValueError(f"IndividualDPSGDGameFilter state is not reachable: state.spent must lie in [0, {obj._B}] "
                             f"(the budget), found [{int(arr.min())}, {int(arr.max())}]")
        if st["admitted"] > st["n"] * n:
            raise ValueError(f"state.admitted = {st['admitted']} exceeds n * n_examples = {st['n'] * n}: not reachable")
        obj._spent, obj._n, obj._admitted = arr, st["n"], st["admitted"]
        if d["version"] == KEYED_SCHEMA_VERSION:
            obj._instance, obj._seq = d["instance"], d["seq"]
        return obj

    def _state_problem(self) -> str | None:
        if self._spent.size and int(self._spent.max()) > self._B:
            return f"spent {int(self._spent.max())} units exceed the budget {self._B}"
        return None

    # ---- properties ----------------------------------------------------------
    @property
    def eps(self) -> Fraction:
        return self._p["eps"]

    @property
    def delta(self) -> Fraction:
        return self._p["delta"]

    @property
    def n_examples(self) -> int:
        return int(self._p["n_examples"])

    @property
    def scales(self) -> tuple[Fraction, ...]:
        return self._p["scales"]

    @property
    def items(self) -> tuple[SGMItem, ...]:
        """The menu: one :class:`~reference.bounds.sgm_game.SGMItem` (q, sigma, s_k) per scale."""
        return self._items

    @property
    def costs(self) -> tuple[int, ...]:
        return self._p["charges"]

    @property
    def budget(self) -> int:
        """B*: the certified budget, the same for every example (exact int)."""
        return self._B

    @property
    def thresholds(self) -> np.ndarray:
        """t_k, the largest double <= s_k C (a copy)."""
        return self._thr.copy()

    @property
    def admitted(self) -> int:
        """Example-steps admitted so far."""
        with self._lock:
            return self._admitted

    @property
    def certificate(self) -> dict:
        """B* with its certificate (:meth:`reference.bounds.sgm_game.SGMGameCertificate.as_dict`), ``k0`` and ``share``."""
        return {**self._cert.as_dict(), "k0": list(self._cert.extra["k0"]), "share": list(self._cert.extra["share"])}

    # ---- decisions -------------------------------------------------------------
    def _ids(self, ids, m: int):
        if ids is None:
            if m != self.n_examples:
                raise ValueError(f"norms must have one entry per example ({self.n_examples}) when ids is None, found {m}")
            return None
        a = np.asarray(ids)
        if a.ndim != 1 or a.dtype.kind not in "iu":
            raise ValueError(f"ids must be a 1-d integer array of example indices, found dtype {a.dtype} and shape {a.shape}")
        if a.size != m:
            raise ValueError(f"ids must have one entry per norm ({m}), found {a.size}")
        if a.size and (int(a.min()) < 0 or int(a.max()) >= self.n_examples):
            raise ValueError(f"ids must lie in [0, {self.n_examples}), found [{int(a.min())}, {int(a.max())}]")
        srt = np.sort(a)
        if srt.size > 1 and bool((srt[1:] == srt[:-1]).any()):
            raise ValueError("ids must not repeat an example (an example takes at most one step per call)")
        return a.astype(np.intp, copy=False)

    def _slot(self, a: np.ndarray) -> np.ndarray:
        """The slot of each validated norm (:func:`_slots`: the scale rounded up); the one charging rule of the filter."""
        return _slots(self._ext, a)

    def charges(self, norms) -> np.ndarray:
        """The integer charge of each norm (0 at a zero norm; c_k at the least scale s_k with norm <= s_k C; c_K above C)."""
        return self._cost_ext[self._slot(_as_norms(norms))]

    def items_of(self, norms) -> np.ndarray:
        """The menu item (index into :attr:`items`) each norm is charged at; -1 for a zero norm (the null step, free)."""
        return self._slot(_as_norms(norms)) - 1

    def _decide(self, norms, ids, commit: bool) -> np.ndarray:
        a = _as_norms(norms)
        if a.ndim != 1:
            raise ValueError(f"norms must be a 1-d array (one norm per example of the batch), found shape {a.shape}")
        ix = self._ids(ids, a.size)
        c = self._cost_ext[self._slot(a)]
        with self._lock:
            cur = self._spent if ix is None else self._spent[ix]
            new = cur + c
            mask = new <= self._B
            if commit:
                np.multiply(c, mask, out=c)
                if ix is None:
                    self._spent += c
                else:
                    self._spent[ix] = cur + c
                self._n += 1
                self._admitted += int(np.count_nonzero(mask))
        return mask

    def can_run(self, norms, ids=None) -> np.ndarray:
        """The mask ``try_run`` would return, without changing the state."""
        return self._decide(norms, ids, False)

    def try_run(self, norms, ids=None) -> np.ndarray:
        """One step: admit and charge each example whose charge fits its remaining budget; the boolean mask of admitted ones.

        ``norms``: 1-d array, one gradient norm per example (``ids`` None: all ``n_examples`` in
        order; else ``ids[j]`` is the example of ``norms[j]``, no repeats; unlisted examples are
        not admitted and must not be used).  Norms are doubles >= 0 (+inf: scale 1), upper bounds
        of the norms of the vectors added; ``ValueError`` on NaN, negatives, bad shapes or ids
        (state unchanged).  The caller then Poisson-samples at rate q among the admitted examples
        only (module docstring).
        """
        return self._decide(norms, ids, True)

    def remaining(self) -> IndividualDPSGDGameFilterRemaining:
        """``budget`` B*, ``costs``, per-example ``spent`` and ``remaining`` (read-only int64 copies), and ``active``."""
        with self._lock:
            s = self._spent.copy()
        left = self._B - s
        s.flags.writeable = False
        left.flags.writeable = False
        return IndividualDPSGDGameFilterRemaining(budget=self._B, costs=self.costs, spent=s, remaining=left,
                                                  active=int(np.count_nonzero(left >= min(self.costs))))

    def dp_guarantee(self) -> dict:
        """Each example's run is individually ``{"eps": eps, "delta": delta}``-DP (exact), by the game certificate."""
        return {"eps": self._p["eps"], "delta": self._p["delta"]}

    def __repr__(self) -> str:
        return (f"IndividualDPSGDGameFilter(eps={self.eps}, delta={self.delta}, q={self._p['q']}, sigma={self._p['sigma']}, "
                f"clip={self._p['clip']}, n_examples={self.n_examples}, scales={[str(s) for s in self.scales]}, "
                f"costs={list(self.costs)}, budget={self._B}; n={self.n})")


# =====================================================================================
# Audit of a recorded run
# =====================================================================================

@dataclass
class AuditResult:
    """Per-example audit of a recorded run (arrays of length n_examples) and the certificates it used."""

    eps: Fraction
    delta: Fraction
    q: Fraction
    sigma: Fraction
    clip: Fraction
    scales: tuple
    costs: tuple
    budget: int                     #: B* at the target eps
    charges: np.ndarray             #: per example: sum over steps of the charge of its norm (int64)
    within: np.ndarray              #: per example: charges <= budget
    eps_grid: tuple                 #: the stated grid (exact, increasing)
    grid_budgets: tuple             #: B*(eps_g) for each grid point, same costs
    certified_eps_index: np.ndarray  #: per example: the least g with charges <= B*(eps_g), -1 if none
    steps: int
    bits: int

    def certified_eps(self) -> list:
        """Per example: the exact grid value eps_g, or None where no grid point covers its charges."""
        return [None if g < 0 else self.eps_grid[g] for g in self.certified_eps_index.tolist()]

    def summary(self) -> dict:
        """JSON-ready summary: parameters, certificates, counts (never per-example arrays)."""
        counts = np.bincount(self.certified_eps_index + 1, minlength=len(self.eps_grid) + 1)
        return {"eps": str(self.eps), "delta": str(self.delta), "q": str(self.q), "sigma": str(self.sigma),
                "clip": str(self.clip), "scales": [str(s) for s in self.scales], "costs": list(self.costs),
                "bits": self.bits, "budget": self.budget, "steps": self.steps, "examples": int(self.charges.size),
                "within": int(np.count_nonzero(self.within)), "exceeding": int(self.charges.size - np.count_nonzero(self.within)),
                "max_charge": int(self.charges.max()) if self.charges.size else 0,
                "eps_grid": [str(e) for e in self.eps_grid], "grid_budgets": list(self.grid_budgets),
                "examples_per_certified_eps": {**{str(e): int(counts[g + 1]) for g, e in enumerate(self.eps_grid)},
                                               "none": int(counts[0])}}


def _eps_grid(eps: Fraction, grid) -> tuple[Fraction, ...]:
    if grid is None:
        grid = [eps * Fraction(k, 4) for k in (1, 2, 3, 4, 6, 8)]
    if isinstance(grid, (str, bytes)) or not hasattr(grid, "__iter__"):
        raise ValueError(f"eps_grid must be a list of positive numbers, found {_describe(grid)}")
    g = tuple(sorted(set(check(f"eps_grid[{i}]", e, _P) for i, e in enumerate(grid))))
    if not g:
        raise ValueError("eps_grid must hold at least one eps > 0, found an empty list")
    return g


@lru_cache(maxsize=64)
def _grid_budget(eps: Fraction, delta: Fraction, items: tuple, costs: tuple, bits: int) -> int:
    """B*(eps) for the menu at fixed costs; R_max = c_K (k0_K + 1) (safe: B* = R_max would mean "at least R_max")."""
    k0 = sgm_single_item_rounds(eps, delta, items[-1], bits=bits)
    return int(sgm_game_budget(eps, delta, items, costs, bits=bits, R_max=costs[-1] * (k0 + 1), lower=False).budget)


@cites("feldman2021", "Algorithm 3 / Theorem 4.5 (a run whose every step the individual filter admits is a run of the filter)")
@cites("zhu2022", "Proposition 30 / Theorem 10")
def audit(norms, q, sigma, eps, delta, clip, *, scales=DEFAULT_SCALES, bits: int = 6, costs=None, eps_grid=None,
          chunk_entries: int = 1 << 24) -> AuditResult:
    """Replay a recorded (steps x examples) array of gradient norms through the per-example filter: charges, within B*, eps.

    Contract: ``norms[t, i]`` is an upper bound of the norm of example i's contribution at step t
    (0 where i was not used at step t), recorded from a run of the mechanism of the module
    docstring (Poisson rate q, noise sigma C).  Returns per example its total charge under the
    menu (scales, costs of the certificate at the target eps), whether it is within B*(eps) --
    then every step of i is one the filter with budget B*(eps) admits (charges are >= 0, so every
    prefix fits too), and a run under that filter is individually (eps, delta)-DP for i -- and the
    least eps_g of ``eps_grid`` (default eps x (1/4, 1/2, 3/4, 1, 3/2, 2)) whose budget B*(eps_g)
    (same costs, :func:`reference.bounds.sgm_game.sgm_game_budget`) covers the charges.
    Each grid point is its own filter: the guarantee (eps_g, delta) is that of a run made under
    the filter with budget B*(eps_g); the least such eps_g, chosen after the run from the data, is
    an ex-post (data-dependent) description, not an a-priori guarantee.

    Preconditions: as :class:`IndividualDPSGDGameFilter`; ``norms`` a 2-d array (a NumPy memmap
    is read in chunks of about ``chunk_entries`` entries).  ``ValueError`` on NaN or negative
    entries (naming the index), a bad shape, or a bad parameter.  Rounding: exact integer charges;
    budgets certified.
    """
    a = np.asarray(norms) if not isinstance(norms, np.ndarray) else norms
    if a.ndim != 2:
        raise ValueError(f"norms must be a 2-d (steps x examples) array, found shape {a.shape}")
    T, n = a.shape
    eps = check("eps", eps, _P)
    delta = check("delta", delta, _U)
    q = check("q", q, _U1, end="upper")
    sigma = check("sigma", sigma, _P, end="lower")
    C = check("clip", clip, _P, end="lower")
    if not isinstance(bits, int) or not 1 <= bits <= 30:
        raise ValueError(f"bits must be an integer in [1, 30], found {bits!r}")
    sc = _scales(scales)
    grid = _eps_grid(eps, eps_grid)
    cs = _costs(costs, len(sc))
    if not isinstance(chunk_entries, int) or chunk_entries < 1:
        raise ValueError(f"chunk_entries must be a positive int, found {chunk_entries!r}")
    items = tuple(SGMItem(q, sigma, s) for s in sc)
    cert = _certificate(eps, delta, items, bits, cs)
    costs_t = tuple(cert.costs)
    thr = scale_thresholds(sc, C)
    # charge(n) = sum_k (c_k - c_{k-1}) [n > t_{k-1}], t_0 = 0, c_0 = 0: one comparison and one column count per scale
    steps_up = np.diff(np.concatenate(([0], np.asarray(costs_t, dtype=np.int64))))
    lows = np.concatenate(([0.0], thr[:-1]))
    charges = np.zeros(n, dtype=np.int64)
    rows = max(1, chunk_entries // max(n, 1))
    for t0 in range(0, T, rows):
        blk = _as_norms(a[t0: t0 + rows], "norms", t0)
        for d_k, lo in zip(steps_up.tolist(), lows.tolist()):
            cnt = np.count_nonzero(blk > lo, axis=0)
            charges += d_k * cnt.astype(np.int64)
    budgets = [int(cert.budget) if e == eps else _grid_budget(e, delta, items, costs_t, bits) for e in grid]
    idx = np.full(n, -1, dtype=np.int64)
    for g, b in enumerate(budgets):
        idx[(idx < 0) & (charges <= b)] = g
    return AuditResult(eps, delta, q, sigma, C, sc, costs_t, int(cert.budget), charges, charges <= int(cert.budget),
                       grid, tuple(budgets), idx, T, bits)
