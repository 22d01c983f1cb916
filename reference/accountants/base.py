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
  A value whose numerator or denominator exceeds 12000 bits (the exact sum of 10^4 steps
  ``1/p``, or ``1e-5000``) is written in hexadecimal, ``"0x1f/0x3"`` (CPython refuses to
  convert ints above 4300 decimal digits to ``str``; hexadecimal has no such limit and no
  global setting is touched); :meth:`_Accountant.from_json` reads both forms.
* **Authenticated (optional).**  The SHA-256 digest detects corruption, not tampering: anyone
  can recompute it.  ``to_json(key=...)`` adds an ``"hmac"`` field (HMAC-SHA256 of the
  canonical JSON under a secret key held by the curator); ``from_json(key=...)`` refuses a
  state without a valid ``"hmac"``, so an analyst who raises ``eps`` or truncates the
  history and recomputes the digest is refused.  Unkeyed states are unchanged (schema
  version 1; an ``"hmac"`` field is ignored when no key is given).
* **Re-entrant lock.**  Each object holds a :class:`threading.RLock`: a custom rule that
  reads its own filter (``n``, ``history``) while the filter decides cannot deadlock.
"""
from __future__ import annotations

import hashlib
import hmac
import json
import re
import threading
from fractions import Fraction

from ..catalog import PAPERS
from ..precision import Domain, _describe, check, directed_decimal

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
    #: Which end of a :class:`reference.precision.Certified` argument each parameter takes when
    #: its exact value is unknown.  Budgets and failure probabilities take the lower end (a
    #: smaller budget admits less); a parameter that scales a bound up takes the upper end;
    #: tuning parameters (orders, mixture and grid choices), whose guarantee holds at whatever
    #: value is used, take the rounded value (``None``).
    _PARAM_ENDS: dict = {"constant": "upper", "alpha": None, "beta": None, "gamma": None, "n": None,
                         "eps_target": None, "rho": "lower", "v0": None, "n_records": None}

    def _init_params(self, values: dict) -> None:
        self._p: dict[str, Fraction | None] = {}
        for name, dom, optional in self._PARAMS:
            v = values[name]
            if v is None and optional:
                self._p[name] = None
            else:
                self._p[name] = check(name, v, dom, end=self._PARAM_ENDS.get(name, "lower"))
        self._lock = threading.RLock()  # re-entrant: a rule may read its own filter while it decides
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

    def _step_json(self, step: tuple) -> list:
        """``_step_to_json(step)``; a subclass serialiser that fails on a huge value (``str`` of an
        int above 4300 digits) is replaced by the generic form: tags kept, values :func:`_exact_json`."""
        try:
            return self._step_to_json(step)
        except ValueError:
            return [x if isinstance(x, str) else _exact_json(x) for x in step]

    def to_dict(self, *, key=None) -> dict:
        """Snapshot of the filter/odometer of ``__citations__``: exact, versioned dict of parameters, state, run-length history, SHA-256 digest.

        Every value is an exact ``"p/q"`` string (counts and ``n`` are ints); a value with a
        numerator or denominator above 12000 bits is written ``"0x<hex>/0x<hex>"``.
        With ``key`` (``bytes`` or ``str``, the curator's secret), an ``"hmac"`` field holds the
        HMAC-SHA256 of the canonical JSON of the rest, so :meth:`from_dict` with the same key
        detects any edit, even one that recomputes the SHA-256 digest.

        Rounding: none (every value is exact).  Guarantee: ``from_dict(to_dict())``
        rebuilds an object in the same state that makes identical decisions.
        """
        k = None if key is None else _key_bytes(key)
        with self._lock:
            state = {"n": self._n}
            for f in self._STATE:
                state[f] = _exact_json(getattr(self, "_" + f))
            hist = [self._step_json(tuple(r[:-1])) + [r[-1]] for r in self._runs]
        d = {
            "schema": self._schema(),
            "version": SCHEMA_VERSION,
            "params": {name: (None if v is None else _exact_json(v)) for name, v in self._p.items()},
            "state": state,
            "history": hist,
        }
        d["digest"] = _digest(d)
        if k is not None:
            d["hmac"] = _mac(k, d)
        return d

    def to_json(self, *, key=None, **json_kwargs) -> str:
        """Snapshot of the filter/odometer of ``__citations__`` as a JSON string (the :meth:`to_dict` data; exact ``"p/q"`` strings; ``key`` adds an HMAC-SHA256)."""
        return json.dumps(self.to_dict(key=key), **json_kwargs)

    @classmethod
    def from_json(cls, s, *, key=None):
        """Resume the filter/odometer of ``__citations__`` from :meth:`to_json` output; ``ValueError`` on malformed, tampered or inconsistent input.

        Preconditions: ``s`` is a ``str``/``bytes`` holding a JSON object written by
        ``to_json`` of the same class and schema version.  With ``key``, the state must
        carry a valid ``"hmac"`` under that key (see :meth:`from_dict`).
        """
        if not isinstance(s, (str, bytes, bytearray)):
            raise TypeError(f"s must be a JSON str, found {type(s).__name__}")
        try:
            d = json.loads(s)
        except (ValueError, UnicodeDecodeError) as exc:
            raise ValueError(f"s is not valid JSON: {exc}") from None
        except RecursionError:
            raise ValueError("s is not a valid state: JSON nested too deeply") from None
        return cls.from_dict(d, key=key)

    @classmethod
    def from_dict(cls, d, *, key=None):
        """Resume the filter/odometer of ``__citations__`` from :meth:`to_dict` output, re-validating everything; ``ValueError`` otherwise.

        Checks: schema name and version, exact key sets, the digest, every value is an
        exact string in its domain, the stored state equals the sums recomputed from the
        history, and (for filters) the state is admissible under the filter's rule
        (partial sums are monotone, so the final state being admissible means every
        prefix was).  A resumed object therefore decides exactly as the original did.

        With ``key`` (the secret given to :meth:`to_dict`), the state must also carry an
        ``"hmac"`` field equal to the HMAC-SHA256 of the rest under ``key`` (constant-time
        comparison); a state without one, or with a wrong one, is refused.  Without
        ``key``, an ``"hmac"`` field is allowed and not checked.
        """
        k = None if key is None else _key_bytes(key)
        try:
            return cls._from_dict(d, k)
        except (TypeError, KeyError, AttributeError, IndexError) as exc:
            raise ValueError(f"malformed {cls.__name__} dict: {exc}") from None
        except RecursionError:
            raise ValueError(f"malformed {cls.__name__} dict: nested too deeply") from None

    @classmethod
    def _from_dict(cls, d, key: bytes | None = None):
        name = cls.__name__
        if not isinstance(d, dict):
            raise ValueError(f"{name} state must be a JSON object, found {type(d).__name__}")
        keys = {"schema", "version", "params", "state", "history", "digest"}
        if set(d) not in (keys, keys | {"hmac"}):
            raise ValueError(f"{name} state must have exactly the keys {sorted(keys)} (and optionally 'hmac'), "
                             f"found {sorted(map(str, d))}")
        if key is not None:
            if "hmac" not in d:
                raise ValueError(f"{name} state has no 'hmac' field: it was not written with a key, refused")
            body = {k: v for k, v in d.items() if k != "hmac"}
            if not isinstance(d["hmac"], str) or not hmac.compare_digest(d["hmac"], _mac(key, body)):
                raise ValueError(f"{name} state HMAC mismatch: the state was modified or written with another key, refused")
        if d["schema"] != cls._schema():
            raise ValueError(f"schema must be {cls._schema()!r}, found {d['schema']!r}")
        if type(d["version"]) is not int or d["version"] != SCHEMA_VERSION:
            raise ValueError(f"version must be {SCHEMA_VERSION}, found {d['version']!r}")
        body = {k: v for k, v in d.items() if k not in ("digest", "hmac")}
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
        self._lock = threading.RLock()

    def __repr__(self) -> str:
        ps = ", ".join(f"{k}={_short(v)!r}" for k, v in self._p.items() if v is not None)
        return f"{type(self).__name__}({ps}; n={self.n})"


def _canon(body: dict) -> bytes:
    return json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode("ascii")


def _digest(body: dict) -> str:
    return hashlib.sha256(_canon(body)).hexdigest()


def _key_bytes(key) -> bytes:
    """The HMAC key as bytes (``str`` is UTF-8 encoded); an empty key is refused."""
    if isinstance(key, str):
        key = key.encode("utf-8")
    if not isinstance(key, (bytes, bytearray, memoryview)):
        raise TypeError(f"key must be bytes or str, found {type(key).__name__}")
    key = bytes(key)
    if not key:
        raise ValueError("key must be a non-empty secret (bytes or str)")
    return key


def _mac(key: bytes, body: dict) -> str:
    """HMAC-SHA256 (hex) of the canonical JSON of ``body`` (everything but the ``"hmac"`` field)."""
    return hmac.new(key, _canon(body), hashlib.sha256).hexdigest()


#: Above this many bits in the numerator or denominator, values are written in hexadecimal
#: (12000 bits < 3613 digits, well under CPython's 4300-digit int/str conversion limit).
_HEX_ABOVE_BITS = 12_000
_HEX_RE = re.compile(r"(-?)0x([0-9a-f]+)(?:/0x([0-9a-f]+))?")


def _exact_json(q: Fraction) -> str:
    """Exact string of ``q``: ``str(q)`` (``"p/q"``), or ``"0x<p>/0x<q>"`` when it is too long for ``str``."""
    num, den = q.numerator, q.denominator
    if max(abs(num).bit_length(), den.bit_length()) <= _HEX_ABOVE_BITS:
        return str(q)
    sign = "-" if num < 0 else ""
    return f"{sign}{abs(num):#x}" + ("" if den == 1 else f"/{den:#x}")


def _short(q: Fraction) -> str:
    """``str(q)`` when short, else about 20 significant digits (for ``repr``)."""
    s = _exact_json(q)
    return s if len(s) <= 80 else "about " + directed_decimal(q, 20, "exact")


def _exact_str(v, where: str) -> Fraction:
    """Parse a serialised exact value: must be a ``str`` (``"p/q"``, decimal, or ``"0x<p>/0x<q>"``)."""
    if not isinstance(v, str):
        raise ValueError(f"{where} must be an exact string like '1/3', found {type(v).__name__} {_describe(v)}")
    m = _HEX_RE.fullmatch(v)
    if m:
        num = int(m.group(2), 16)
        den = int(m.group(3), 16) if m.group(3) else 1
        if den == 0:
            raise ValueError(f"{where} has a zero denominator, found {_describe(v)}")
        return Fraction(-num if m.group(1) else num, den)
    try:
        return check(where, v, Domain())
    except TypeError as exc:  # pragma: no cover - str never raises TypeError
        raise ValueError(str(exc)) from None


def _in(v, where: str, dom: Domain) -> Fraction:
    """Parse a serialised exact value and check its domain (``ValueError`` naming ``where``)."""
    q = _exact_str(v, where)
    if not dom.contains(q):
        raise ValueError(f"{where} must lie in {dom}, found {_describe(v)}")
    return q


def _pair_to_json(self, step: tuple) -> list:
    return [_exact_json(step[0]), _exact_json(step[1])]


def _eps_delta_from_json(self, run: list, where: str) -> tuple:
    if len(run) != 2:
        raise ValueError(f"{where} must be [eps_n, delta_n, count], found {run!r}")
    return (_in(run[0], f"{where}.eps_n", _NN), _in(run[1], f"{where}.delta_n", _CU))
