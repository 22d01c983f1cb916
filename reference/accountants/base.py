"""The common base of every stateful accountant (filter or odometer) in :mod:`reference.accountants`.

One class, :class:`_Accountant`, holds what the filters and odometers of every paper share:
exactly parsed parameters, a run-length encoded history of the committed steps, one lock
per object (decide-and-commit is atomic), and the versioned JSON state with its digest.
:class:`BudgetExceeded` is the error every filter's ``run`` raises on a refusal.

Design (shared by all accountants)
----------------------------------
* **Exact state.**  Every parameter is parsed exactly (:func:`reference.precision.to_exact`);
  running sums are :class:`fractions.Fraction`, never floats.
* **Resumable.**  :meth:`_Accountant.to_json` stores parameters, state and the run-length
  encoded history as exact ``"p/q"`` strings with a schema name, a version and a SHA-256
  digest; :meth:`_Accountant.from_json` re-validates everything (digest, sums,
  admissibility), so a resumed object makes exactly the decisions the original would have.
"""
from __future__ import annotations

import hashlib
import json
import threading
from fractions import Fraction

from ..catalog import PAPERS
from ..precision import Domain, check, directed_decimal

__all__ = ["SCHEMA_VERSION", "BudgetExceeded"]

#: Version of the JSON/dict format written by ``to_dict``/``to_json``.
SCHEMA_VERSION = 1

_P = Domain.positive()
_NN = Domain.nonnegative()
_U = Domain.open_unit()
_CU = Domain.closed_unit()
_U0 = Domain.unit_nonneg()
_NREC = Domain.integers_from(2)


def _cite(key: str, result: str) -> dict:
    p = PAPERS[key]
    seed = p["seed"] or "not a seed"
    return {
        "paper": f"{p['authors']}, {p['title']}",
        "paper_key": key,
        "arxiv": p["arxiv"],
        "source": f"{seed} ({p['version']})",
        "result": result,
    }


class BudgetExceeded(ValueError):
    """A filter refused a step: the step would break the target privacy budget.

    Attributes: ``step`` (1-based index n+1 of the refused step), ``reasons``
    (tuple naming the violated budgets, e.g. ``("eps",)`` or ``("eps", "delta")``),
    ``requested`` (the exact parameters of the refused step).  Raised by ``run``;
    the filter's state is left unchanged.
    """

    def __init__(self, message: str, step: int | None = None, reasons: tuple = (), requested: tuple = ()):
        super().__init__(message)
        self.step = step
        self.reasons = tuple(reasons)
        self.requested = tuple(requested)

    def __reduce__(self):
        return (type(self), (self.args[0], self.step, self.reasons, self.requested))


def _dec(q, direction: str = "exact", digits: int = 12) -> str:
    return directed_decimal(q, digits, direction)


# ==========================================================================
# Shared machinery: validation, run-length history, lock, serialisation
# ==========================================================================

class _Accountant:
    """Common base: parameters, run-length history, lock and (de)serialisation.

    Subclasses define ``_PARAMS`` (tuple of ``(name, domain, optional)``), the state
    fields, ``_step_to_json``/``_step_from_json``, ``_apply``, ``_from_params`` and
    ``_state_problem`` (``None`` when the state is reachable under the rule).
    """

    _PARAMS: tuple = ()
    _STATE: tuple = ()

    def _init_params(self, values: dict) -> None:
        self._p: dict[str, Fraction | None] = {}
        for name, dom, optional in self._PARAMS:
            v = values[name]
            if v is None and optional:
                self._p[name] = None
            else:
                self._p[name] = check(name, v, dom)
        self._lock = threading.Lock()
        self._runs: list[list] = []  # [*step_fields, count]
        self._n = 0

    # ---- history --------------------------------------------------------
    def _push(self, step: tuple, count: int = 1) -> None:
        if self._runs and tuple(self._runs[-1][:-1]) == step:
            self._runs[-1][-1] += count
        else:
            self._runs.append([*step, count])
        self._n += count

    @property
    def n(self) -> int:
        """Number of steps committed so far (exact int)."""
        with self._lock:
            return self._n

    @property
    def history(self) -> list[tuple]:
        """The committed steps, in order, as tuples of exact ``Fraction`` values (a copy)."""
        with self._lock:
            runs = [list(r) for r in self._runs]
        out: list[tuple] = []
        for r in runs:
            out.extend([tuple(r[:-1])] * r[-1])
        return out

    @property
    def history_runs(self) -> list[tuple]:
        """Run-length encoded history: tuples ``(*step, count)`` merging consecutive equal steps (a copy)."""
        with self._lock:
            return [tuple(r) for r in self._runs]

    @property
    def params(self) -> dict:
        """The exact parameters the object was built with (a copy; ``Fraction`` or ``None``)."""
        return dict(self._p)

    # ---- serialisation --------------------------------------------------
    @classmethod
    def _schema(cls) -> str:
        return f"fullyadaptive.filters.{cls.__name__}"

    def to_dict(self) -> dict:
        """Snapshot of the filter/odometer of ``__citations__``: exact, versioned dict of parameters, state, run-length history, SHA-256 digest.

        Every value is an exact ``"p/q"`` string (counts and ``n`` are ints).

        Rounding: none (every value is exact).  Guarantee: ``from_dict(to_dict())``
        rebuilds an object in the same state that makes identical decisions.
        """
        with self._lock:
            state = {"n": self._n}
            for f in self._STATE:
                state[f] = str(getattr(self, "_" + f))
            hist = [self._step_to_json(tuple(r[:-1])) + [r[-1]] for r in self._runs]
        d = {
            "schema": self._schema(),
            "version": SCHEMA_VERSION,
            "params": {k: (None if v is None else str(v)) for k, v in self._p.items()},
            "state": state,
            "history": hist,
        }
        d["digest"] = _digest(d)
        return d

    def to_json(self, **json_kwargs) -> str:
        """Snapshot of the filter/odometer of ``__citations__`` as a JSON string (the :meth:`to_dict` data; exact ``"p/q"`` strings)."""
        return json.dumps(self.to_dict(), **json_kwargs)

    @classmethod
    def from_json(cls, s):
        """Resume the filter/odometer of ``__citations__`` from :meth:`to_json` output; ``ValueError`` on malformed, tampered or inconsistent input.

        Preconditions: ``s`` is a ``str``/``bytes`` holding a JSON object written by
        ``to_json`` of the same class and schema version.
        """
        if not isinstance(s, (str, bytes, bytearray)):
            raise TypeError(f"s must be a JSON str, found {type(s).__name__}")
        try:
            d = json.loads(s)
        except (ValueError, UnicodeDecodeError) as exc:
            raise ValueError(f"s is not valid JSON: {exc}") from None
        return cls.from_dict(d)

    @classmethod
    def from_dict(cls, d):
        """Resume the filter/odometer of ``__citations__`` from :meth:`to_dict` output, re-validating everything; ``ValueError`` otherwise.

        Checks: schema name and version, exact key sets, the digest, every value is an
        exact string in its domain, the stored state equals the sums recomputed from the
        history, and (for filters) the state is admissible under the filter's rule
        (partial sums are monotone, so the final state being admissible means every
        prefix was).  A resumed object therefore decides exactly as the original did.
        """
        try:
            return cls._from_dict(d)
        except (TypeError, KeyError, AttributeError, IndexError) as exc:
            raise ValueError(f"malformed {cls.__name__} dict: {exc}") from None

    @classmethod
    def _from_dict(cls, d):
        name = cls.__name__
        if not isinstance(d, dict):
            raise ValueError(f"{name} state must be a JSON object, found {type(d).__name__}")
        keys = {"schema", "version", "params", "state", "history", "digest"}
        if set(d) != keys:
            raise ValueError(f"{name} state must have exactly the keys {sorted(keys)}, found {sorted(d)}")
        if d["schema"] != cls._schema():
            raise ValueError(f"schema must be {cls._schema()!r}, found {d['schema']!r}")
        if type(d["version"]) is not int or d["version"] != SCHEMA_VERSION:
            raise ValueError(f"version must be {SCHEMA_VERSION}, found {d['version']!r}")
        body = {k: v for k, v in d.items() if k != "digest"}
        if not isinstance(d["digest"], str) or d["digest"] != _digest(body):
            raise ValueError(f"{name} state digest mismatch: the data was modified or corrupted")
        params = d["params"]
        want = [p[0] for p in cls._PARAMS]
        if not isinstance(params, dict) or set(params) != set(want):
            raise ValueError(f"params must have exactly the keys {sorted(want)}, found {params!r}")
        kw = {}
        for pname, _, optional in cls._PARAMS:
            v = params[pname]
            if v is None and optional:
                kw[pname] = None
            else:
                kw[pname] = _exact_str(v, f"params.{pname}")
        obj = cls._from_params(kw)
        hist = d["history"]
        if not isinstance(hist, list):
            raise ValueError(f"history must be a list, found {type(hist).__name__}")
        for i, run in enumerate(hist):
            if not isinstance(run, list) or len(run) < 2:
                raise ValueError(f"history[{i}] must be a list [..., count], found {run!r}")
            cnt = run[-1]
            if type(cnt) is not int or cnt < 1:
                raise ValueError(f"history[{i}] count must be an int >= 1, found {cnt!r}")
            step = obj._step_from_json(run[:-1], f"history[{i}]")
            obj._apply(step, cnt)
            obj._push(step, cnt)
        state = d["state"]
        fields = ["n", *cls._STATE]
        if not isinstance(state, dict) or set(state) != set(fields):
            raise ValueError(f"state must have exactly the keys {sorted(fields)}, found {state!r}")
        if type(state["n"]) is not int or state["n"] != obj._n:
            raise ValueError(f"state.n = {state['n']!r} does not match the history ({obj._n} steps)")
        for f in cls._STATE:
            q = _exact_str(state[f], f"state.{f}")
            if q != getattr(obj, "_" + f):
                raise ValueError(f"state.{f} = {state[f]!r} does not match the history ({getattr(obj, '_' + f)})")
        problem = obj._state_problem()
        if problem:
            raise ValueError(f"{name} state is not reachable: {problem}")
        return obj

    def _state_problem(self) -> str | None:
        return None

    def __getstate__(self):
        return self.to_dict()

    def __setstate__(self, d):
        other = type(self).from_dict(d)
        self.__dict__.update(other.__dict__)
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        ps = ", ".join(f"{k}={str(v)!r}" for k, v in self._p.items() if v is not None)
        return f"{type(self).__name__}({ps}; n={self.n})"


def _digest(body: dict) -> str:
    canon = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(canon.encode("ascii")).hexdigest()


def _exact_str(v, where: str) -> Fraction:
    """Parse a serialised exact value: must be a ``str`` (``"p/q"`` or decimal)."""
    if not isinstance(v, str):
        raise ValueError(f"{where} must be an exact string like '1/3', found {type(v).__name__} {v!r}")
    try:
        return check(where, v, Domain())
    except TypeError as exc:  # pragma: no cover - str never raises TypeError
        raise ValueError(str(exc)) from None


def _in(v, where: str, dom: Domain) -> Fraction:
    """Parse a serialised exact value and check its domain (``ValueError`` naming ``where``)."""
    q = _exact_str(v, where)
    if not dom.contains(q):
        raise ValueError(f"{where} must lie in {dom}, found {v!r}")
    return q


def _pair_to_json(self, step: tuple) -> list:
    return [str(step[0]), str(step[1])]


def _eps_delta_from_json(self, run: list, where: str) -> tuple:
    if len(run) != 2:
        raise ValueError(f"{where} must be [eps_n, delta_n, count], found {run!r}")
    return (_in(run[0], f"{where}.eps_n", _NN), _in(run[1], f"{where}.delta_n", _CU))
