"""The common base of every stateful accountant (filter or odometer) in :mod:`reference.accountants`.

One class, ``_Accountant``, holds what the filters and odometers of every paper share:
exactly parsed parameters, a run-length encoded history of the committed steps, one lock
per object (decide-and-commit is atomic), and the versioned JSON state with its digest.
:class:`BudgetExceeded` is the error every filter's ``run`` raises on a refusal.

Design (shared by all accountants)
----------------------------------
* **Exact state.**  Every parameter is parsed exactly (:func:`reference.precision.to_exact`);
  running sums are :class:`fractions.Fraction`, never floats.
* **Resumable.**  ``_Accountant.to_json`` stores parameters, state and the run-length
  encoded history as exact ``"p/q"`` strings with a schema name, a version and a SHA-256
  digest; ``_Accountant.from_json`` re-validates everything (digest, sums,
  admissibility), so a resumed object makes exactly the decisions the original would have.
  A value whose numerator or denominator exceeds 12000 bits (the exact sum of 10^4 steps
  ``1/p``, or ``1e-5000``) is written in hexadecimal, ``"0x1f/0x3"`` (CPython refuses to
  convert ints above 4300 decimal digits to ``str``; hexadecimal has no such limit and no
  global setting is touched); ``_Accountant.from_json`` reads both forms.
* **Authenticated (optional).**  The SHA-256 digest detects corruption, not tampering: anyone
  can recompute it.  ``to_json(key=...)`` adds an ``"hmac"`` field (HMAC-SHA256 of the
  canonical JSON under a secret key held by the curator); ``from_json(key=...)`` refuses a
  state without a valid ``"hmac"``, so an analyst who raises ``eps`` or truncates the
  history and recomputes the digest is refused.  Unkeyed states are unchanged (schema
  version 1; an ``"hmac"`` field is ignored when no key is given).
* **Roll-back-proof (with a journal).**  A keyed state (schema version 2) also carries, under
  the HMAC, the object's identity (``"instance"``, 128 random bits drawn at construction and
  kept across saves and loads) and a sequence number (``"seq"``) that grows by one at each
  keyed save.  An HMAC alone cannot tell an old genuine state from the newest one, so an
  analyst who kept an earlier file could resume with spent steps forgotten;
  ``from_json(..., key=k, journal=j)`` refuses a state older than the newest one the journal
  has seen (written or loaded) and a state of another filter, and ``to_json(key=k, journal=j)``
  refuses to write behind a newer state (a second copy of the filter running from the same
  file).  A :class:`StateJournal` is a small append-only file or a counter the caller holds.
* **Re-entrant lock.**  Each object holds a :class:`threading.RLock`: a custom rule that
  reads its own filter (``n``, ``history``) while the filter decides cannot deadlock.
"""
from __future__ import annotations

import dataclasses
import hashlib
import hmac
import json
import os
import re
import secrets
import threading
from collections.abc import Mapping
from fractions import Fraction

from ..catalog import PAPERS
from ..precision import Domain, _describe, check, directed_decimal

__all__ = ["SCHEMA_VERSION", "KEYED_SCHEMA_VERSION", "BudgetExceeded", "Remaining", "StateJournal"]

#: Version of the JSON/dict format written by ``to_dict``/``to_json`` without a key.
SCHEMA_VERSION = 1
#: Version of a keyed state: the version 1 fields plus the object's identity and sequence number, all under the HMAC.
KEYED_SCHEMA_VERSION = 2
_INSTANCE_RE = re.compile(r"[0-9a-f]{32}")

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


class Remaining(Mapping):
    """What ``remaining()`` returns: a frozen dataclass of an accountant's budget state that also reads as a mapping.

    Each accountant returns its own subclass, whose fields name (and type) what is left and
    what is spent, in the units and rounding directions its ``remaining()`` documents.
    Guarantee (compatibility with the plain dict returned before): ``r.name`` and
    ``r["name"]`` are the same value; ``keys()``, ``items()``, ``values()``, iteration,
    ``len``, ``in``, ``get``, ``dict(r)``, ``{**r}`` and ``r == {...}`` behave as for a dict of
    the fields in declaration order (an equal dict compares equal).  Unlike the dict it is
    immutable: item or attribute assignment raises, so a caller cannot alter a certified value.
    ``r["unknown"]`` raises ``KeyError``.
    """

    __slots__ = ()

    def _names(self) -> tuple[str, ...]:
        return tuple(f.name for f in dataclasses.fields(self))

    def __getitem__(self, key):
        if isinstance(key, str) and key in self._names():
            return getattr(self, key)
        raise KeyError(key)

    def __iter__(self):
        return iter(self._names())

    def __len__(self) -> int:
        return len(self._names())

    def as_dict(self) -> dict:
        """The fields as a plain (mutable) dict, in declaration order."""
        return {k: getattr(self, k) for k in self._names()}


def _dec(q, direction: str = "exact", digits: int = 12) -> str:
    return directed_decimal(q, digits, direction)


# ==========================================================================
# Shared machinery: validation, run-length history, lock, serialisation
# ==========================================================================

class _Accountant:
    """Common base: parameters, run-length history, lock and (de)serialisation.

    Subclasses define ``_PARAMS`` (tuple of ``(name, domain, optional)``), the state
    fields, ``_step_to_json``/``_step_from_json``, ``_apply``, ``_from_params`` and
    ``_state_problem`` (``None`` when the state is reachable under the rule).  A parameter whose
    domain is ``None`` is structured (a menu of items, a tuple of costs): the subclass parses it
    before ``_init_params``, and writes and reads it with ``_param_to_json``/``_param_from_json``.
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
            elif dom is None:  # structured: already parsed by the subclass
                self._p[name] = v
            else:
                self._p[name] = check(name, v, dom, end=self._PARAM_ENDS.get(name, "lower"))
        self._lock = threading.RLock()  # re-entrant: a rule may read its own filter while it decides
        self._runs: list[list] = []  # [*step_fields, count]
        self._n = 0
        self._instance = secrets.token_hex(16)  # identity of this filter, kept across keyed saves and loads
        self._seq = 0  # sequence number of the last keyed save (or of the keyed state it was loaded from)

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
        """The exact parameters the object was built with (a copy; ``Fraction``, ``None``, or a structured parameter's tuple)."""
        return dict(self._p)

    @property
    def instance_id(self) -> str:
        """The identity written into keyed states: 32 hex digits drawn at construction, kept by a keyed load."""
        return self._instance

    @property
    def seq(self) -> int:
        """The sequence number of the last keyed state written (or loaded); 0 before the first keyed save."""
        with self._lock:
            return self._seq

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

    def to_dict(self, *, key=None, journal=None) -> dict:
        """Snapshot of the filter/odometer of ``__citations__``: exact, versioned dict of parameters, state, run-length history, SHA-256 digest.

        Every value is an exact ``"p/q"`` string (counts and ``n`` are ints); a value with a
        numerator or denominator above 12000 bits is written ``"0x<hex>/0x<hex>"``.
        With ``key`` (``bytes`` or ``str``, the curator's secret) the state is schema version 2:
        it adds the object's identity ``"instance"`` and the next sequence number ``"seq"``
        (one more than the last keyed save), and an ``"hmac"`` field holds the HMAC-SHA256 of
        the canonical JSON of everything else, so :meth:`from_dict` with the same key detects
        any edit, even one that recomputes the SHA-256 digest or changes ``seq``.
        With ``journal`` (a :class:`StateJournal` or the path of its file; needs ``key``) the
        save is recorded there first, and refused (``ValueError``, nothing written, ``seq``
        unchanged) when the journal already holds this filter at the same or a later sequence
        number, i.e. another copy resumed from the same state saved first.

        Rounding: none (every value is exact).  Guarantee: ``from_dict(to_dict())``
        rebuilds an object in the same state that makes identical decisions.
        """
        k = None if key is None else _key_bytes(key)
        j = _journal(journal, k)
        with self._lock:
            d = self._body(SCHEMA_VERSION if k is None else KEYED_SCHEMA_VERSION)
            if k is not None:
                seq = self._seq + 1
                d["instance"], d["seq"] = self._instance, seq
            d["digest"] = _digest(d)
            if k is not None:
                d["hmac"] = _mac(k, d)
                if j is not None:
                    j.record(self._instance, seq, writing=True)
                self._seq = seq
        return d

    def _body(self, version: int) -> dict:
        state = {"n": self._n}
        for f in self._STATE:
            state[f] = _exact_json(getattr(self, "_" + f))
        hist = [self._step_json(tuple(r[:-1])) + [r[-1]] for r in self._runs]
        return {
            "schema": self._schema(),
            "version": version,
            "params": {name: (None if v is None else self._param_to_json(name, v)) for name, v in self._p.items()},
            "state": state,
            "history": hist,
        }

    def to_json(self, *, key=None, journal=None, **json_kwargs) -> str:
        """Snapshot of the filter/odometer of ``__citations__`` as a JSON string (the :meth:`to_dict` data; exact ``"p/q"`` strings; ``key`` adds identity, sequence number and an HMAC-SHA256; ``journal`` records the save)."""
        return json.dumps(self.to_dict(key=key, journal=journal), **json_kwargs)

    @classmethod
    def from_json(cls, s, *, key=None, journal=None):
        """Resume the filter/odometer of ``__citations__`` from :meth:`to_json` output; ``ValueError`` on malformed, tampered, rolled-back or inconsistent input.

        Preconditions: ``s`` is a ``str``/``bytes`` holding a JSON object written by
        ``to_json`` of the same class and schema version.  With ``key``, the state must
        carry a valid ``"hmac"`` under that key; with ``journal`` too, it must not be older
        than the newest state of this filter the journal has seen (see :meth:`from_dict`).
        """
        if not isinstance(s, (str, bytes, bytearray)):
            raise TypeError(f"s must be a JSON str, found {type(s).__name__}")
        try:
            d = json.loads(s)
        except (ValueError, UnicodeDecodeError) as exc:
            raise ValueError(f"s is not valid JSON: {exc}") from None
        except RecursionError:
            raise ValueError("s is not a valid state: JSON nested too deeply") from None
        return cls.from_dict(d, key=key, journal=journal)

    @classmethod
    def from_dict(cls, d, *, key=None, journal=None):
        """Resume the filter/odometer of ``__citations__`` from :meth:`to_dict` output, re-validating everything; ``ValueError`` otherwise.

        Checks: schema name and version, exact key sets, the digest, every value is an
        exact string in its domain, the stored state equals the sums recomputed from the
        history, and (for filters) the state is admissible under the filter's rule
        (partial sums are monotone, so the final state being admissible means every
        prefix was).  A resumed object therefore decides exactly as the original did.

        With ``key`` (the secret given to :meth:`to_dict`), the state must also carry an
        ``"hmac"`` field equal to the HMAC-SHA256 of the rest under ``key`` (constant-time
        comparison); a state without one, or with a wrong one, is refused.  Without
        ``key``, an ``"hmac"`` field is allowed and not checked.  A keyed (version 2) state
        gives the resumed object its identity and sequence number.

        With ``journal`` (a :class:`StateJournal` or the path of its file; needs ``key``):
        the state must carry a sequence number (version 2), belong to the filter the journal
        records, and not be older than the newest state of it the journal has seen; it is
        then recorded.  The same state may be loaded again (after a crash); an older one is
        refused as rolled back.
        """
        k = None if key is None else _key_bytes(key)
        j = _journal(journal, k)
        try:
            obj = cls._from_dict(d, k)
        except (TypeError, KeyError, AttributeError, IndexError) as exc:
            raise ValueError(f"malformed {cls.__name__} dict: {exc}") from None
        except RecursionError:
            raise ValueError(f"malformed {cls.__name__} dict: nested too deeply") from None
        if j is not None:
            if d.get("version") != KEYED_SCHEMA_VERSION:
                raise ValueError(f"{cls.__name__} state has no sequence number (schema version {d.get('version')!r}, "
                                 f"written before version {KEYED_SCHEMA_VERSION}): it cannot be checked against the journal, refused")
            j.record(obj._instance, obj._seq, writing=False)
        return obj

    @classmethod
    def _check_envelope(cls, d, key: bytes | None) -> None:
        """The checks every saved state passes before its body is read: key set, HMAC, schema, version, identity, digest."""
        name = cls.__name__
        if not isinstance(d, dict):
            raise ValueError(f"{name} state must be a JSON object, found {type(d).__name__}")
        keys = {"schema", "version", "params", "state", "history", "digest"}
        if d.get("version") == KEYED_SCHEMA_VERSION:
            keys = keys | {"instance", "seq"}
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
        if type(d["version"]) is not int or d["version"] not in (SCHEMA_VERSION, KEYED_SCHEMA_VERSION):
            raise ValueError(f"version must be {SCHEMA_VERSION} (unkeyed) or {KEYED_SCHEMA_VERSION} (keyed), found {d['version']!r}")
        if d["version"] == KEYED_SCHEMA_VERSION:
            if not isinstance(d["instance"], str) or not _INSTANCE_RE.fullmatch(d["instance"]):
                raise ValueError(f"instance must be 32 lowercase hex digits, found {_describe(d['instance'])}")
            if type(d["seq"]) is not int or d["seq"] < 1:
                raise ValueError(f"seq must be an int >= 1, found {_describe(d['seq'])}")
        body = {k: v for k, v in d.items() if k not in ("digest", "hmac")}
        if not isinstance(d["digest"], str) or d["digest"] != _digest(body):
            raise ValueError(f"{name} state digest mismatch: the data was modified or corrupted")

    @classmethod
    def _params_kw(cls, params) -> dict:
        """The saved parameters parsed back (exact key set; each by :meth:`_param_from_json`)."""
        want = [p[0] for p in cls._PARAMS]
        if not isinstance(params, dict) or set(params) != set(want):
            raise ValueError(f"params must have exactly the keys {sorted(want)}, found {params!r}")
        kw = {}
        for pname, _, optional in cls._PARAMS:
            v = params[pname]
            if v is None and optional:
                kw[pname] = None
            else:
                kw[pname] = cls._param_from_json(pname, v, f"params.{pname}")
        return kw

    @classmethod
    def _from_dict(cls, d, key: bytes | None = None):
        name = cls.__name__
        cls._check_envelope(d, key)
        obj = cls._from_params(cls._params_kw(d["params"]))
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
        if d["version"] == KEYED_SCHEMA_VERSION:
            obj._instance, obj._seq = d["instance"], d["seq"]
        return obj

    def _state_problem(self) -> str | None:
        return None

    def _param_to_json(self, name: str, v):
        """A parameter's saved form: the exact string of a number (a structured parameter's subclass overrides it)."""
        return _exact_json(v)

    @classmethod
    def _param_from_json(cls, name: str, v, where: str):
        """A saved parameter parsed back (the inverse of :meth:`_param_to_json`); ``ValueError`` naming ``where``."""
        return _exact_str(v, where)

    def __getstate__(self):
        with self._lock:
            return {"state": self.to_dict(), "instance": self._instance, "seq": self._seq}

    def __setstate__(self, d):
        lineage = None
        if isinstance(d, dict) and set(d) == {"state", "instance", "seq"}:
            d, lineage = d["state"], (d["instance"], d["seq"])
        other = type(self).from_dict(d)
        self.__dict__.update(other.__dict__)
        self._lock = threading.RLock()
        if lineage is not None:  # a pickled copy keeps the identity and sequence number of the original
            self._instance, self._seq = lineage

    def __repr__(self) -> str:
        ps = ", ".join(f"{k}={_short(v) if isinstance(v, Fraction) else self._param_to_json(k, v)!r}"
                       for k, v in self._p.items() if v is not None)
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


class StateJournal:
    """The newest keyed state of one filter that a curator has written or loaded: refuses to go back to an older one.

    Contract: a journal is bound to one filter (the ``instance`` of its first record) and holds the
    largest sequence number recorded for it.  :meth:`record` on a load refuses (``ValueError``)
    a state of another filter or one with a smaller sequence number (rolled back), and accepts
    the newest again (resuming after a crash); on a save it refuses a sequence number not above
    the newest (another copy of the filter saved first).  Nothing is recorded when it refuses.

    Two forms: ``StateJournal()`` is a counter in memory that the caller holds (and may persist
    itself: rebuild it with ``StateJournal(instance=..., seq=...)`` from :attr:`instance` and
    :attr:`newest`); ``StateJournal(path)`` keeps an append-only file, one JSON line
    ``{"instance": ..., "seq": ...}`` per record, written with ``fsync`` under an exclusive
    ``flock`` where the platform has one, and re-read at every record (so several processes of
    the curator may share it).  A file that does not exist starts an empty journal; a line
    that does not parse makes every record fail (fail closed).

    What it protects against depends on where it lives: it must be kept where the analyst
    cannot write or delete it (an analyst who can truncate or remove the file can roll back
    again).  It does not stop two objects resumed from the newest state from both running
    until one saves: only the second save is refused.
    """

    def __init__(self, path=None, *, instance: str | None = None, seq: int = 0):
        """A journal in the file ``path`` (str or path-like), or in memory (``path=None``) starting at ``(instance, seq)``."""
        if path is not None and instance is not None:
            raise TypeError("instance/seq start an in-memory journal; a file journal reads them from its file")
        if instance is not None and (not isinstance(instance, str) or not _INSTANCE_RE.fullmatch(instance)):
            raise ValueError(f"instance must be 32 lowercase hex digits, found {_describe(instance)}")
        if type(seq) is not int or seq < 0 or (seq > 0 and instance is None):
            raise ValueError(f"seq must be an int >= 0 (and > 0 only with an instance), found {_describe(seq)}")
        self.path = None if path is None else os.fspath(path)
        self._instance, self._seq = instance, seq
        self._lock = threading.Lock()

    @property
    def instance(self) -> str | None:
        """The identity of the filter this journal belongs to (``None`` while it is empty)."""
        return self._read()[0]

    @property
    def newest(self) -> int:
        """The largest sequence number recorded (0 while empty)."""
        return self._read()[1]

    def _read(self) -> tuple[str | None, int]:
        if self.path is None:
            return self._instance, self._seq
        try:
            with open(self.path, "r", encoding="utf-8") as f:
                return _parse_journal(f.read(), self.path)
        except FileNotFoundError:
            return None, 0

    def record(self, instance: str, seq: int, *, writing: bool) -> None:
        """Check ``(instance, seq)`` against the journal and record it; ``ValueError`` (nothing recorded) if refused.

        ``writing``: a save (``seq`` must exceed the newest) rather than a load (``seq`` must not be below it).
        """
        with self._lock:
            if self.path is None:
                self._check(self._instance, self._seq, instance, seq, writing)
                self._instance, self._seq = instance, max(self._seq, seq)
                return
            with open(self.path, "a+", encoding="utf-8") as f:
                _flock(f)
                f.seek(0)
                have, newest = _parse_journal(f.read(), self.path)
                self._check(have, newest, instance, seq, writing)
                f.seek(0, os.SEEK_END)
                f.write(json.dumps({"instance": instance, "seq": seq}, sort_keys=True) + "\n")
                f.flush()
                os.fsync(f.fileno())

    @staticmethod
    def _check(have: str | None, newest: int, instance: str, seq: int, writing: bool) -> None:
        if have is not None and instance != have:
            raise ValueError(f"state belongs to filter {instance}, but the journal records filter {have}: refused")
        if writing and seq <= newest:
            raise ValueError(f"cannot save state seq = {seq}: the journal already holds seq = {newest} of this filter "
                             f"(another copy resumed from the same state saved first); refused")
        if not writing and seq < newest:
            raise ValueError(f"state seq = {seq} is older than seq = {newest}, the newest state of this filter the "
                             f"journal has seen: a rolled-back state, refused")

    def __repr__(self) -> str:
        where = "memory" if self.path is None else repr(self.path)
        inst, newest = self._read()
        return f"StateJournal({where}, instance={inst!r}, newest={newest})"


def _parse_journal(text: str, path: str) -> tuple[str | None, int]:
    """(instance, largest seq) of a journal file's text; ``ValueError`` on a line that is not a record of one filter."""
    inst, newest = None, 0
    for i, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
            ok = (isinstance(rec, dict) and set(rec) == {"instance", "seq"} and isinstance(rec["instance"], str)
                  and _INSTANCE_RE.fullmatch(rec["instance"]) is not None and type(rec["seq"]) is int and rec["seq"] >= 1)
        except ValueError:
            ok = False
        if not ok or (inst is not None and rec["instance"] != inst):
            raise ValueError(f"journal {path!r} line {i} is not a record of this journal's filter, found {line[:80]!r}: "
                             f"the journal is damaged, refused")
        inst, newest = rec["instance"], max(newest, rec["seq"])
    return inst, newest


def _flock(f) -> None:
    """An exclusive lock on an open file until it is closed (POSIX ``flock``; a no-op where there is none)."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX
        return
    fcntl.flock(f.fileno(), fcntl.LOCK_EX)


def _journal(journal, key: bytes | None) -> StateJournal | None:
    """``journal`` as a :class:`StateJournal` (a path opens a file journal); a journal needs a key."""
    if journal is None:
        return None
    if key is None:
        raise ValueError("journal needs key: only a keyed state's identity and sequence number are authenticated")
    if isinstance(journal, StateJournal):
        return journal
    if isinstance(journal, (str, bytes, os.PathLike)):
        return StateJournal(journal)
    raise TypeError(f"journal must be a StateJournal or a file path, found {type(journal).__name__}")


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
