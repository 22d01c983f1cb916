"""dp-accounting's ``DpEvent`` descriptions, read into compositions of :mod:`reference.profiles.check` and written from them.

Google's ``dp_accounting`` library (0.4 and later) describes a mechanism by a tree of ``DpEvent``
objects.  :func:`event_items` reads such a tree -- a ``DpEvent``, its ``to_named_tuple()`` form,
or the JSON form below -- into composition items (mechanism, exact parameters, count), which
:func:`reference.profiles.check.parse_spec` turns into a composition; :func:`event_from_items`
builds the ``DpEvent`` of a composition (it imports ``dp_accounting``; reading never does).

=====================================================  ==============================================  =====
DpEvent                                                composition item                                exact
=====================================================  ==============================================  =====
``GaussianDpEvent(noise_multiplier=s)``                ``gaussian:sigma=s`` (sensitivity 1)            yes
``LaplaceDpEvent(noise_multiplier=b)``                 ``laplace:b=b`` (L1 sensitivity 1)              yes
``PoissonSampledDpEvent(q, GaussianDpEvent(s))``       ``subsampled-gaussian:q=q,sigma=s``             yes
``ZCDpEvent(rho, xi=0)``                               ``zcdp:rho=rho``                                yes
``SelfComposedDpEvent(e, count=n)``                    the items of e, each count times n              yes
``ComposedDpEvent([e1, e2, ...])``                     the items of e1, e2, ... in order                yes
``NoOpDpEvent()``                                      nothing (no privacy loss)                       yes
=====================================================  ==============================================  =====

Every other event is refused with a ValueError naming its type and the reason:
``RandomizedResponseDpEvent`` (its epsilon, log(1 + k (1 - p)/p), is irrational, and for k > 2
buckets its privacy profile is not that of binary randomized response, so no exact item of the
grammar describes it; ``event_items(event, rr="upper")`` writes ``rr:EPS`` with EPS rounded up,
whose certified upper ends hold for the event and lower ends do not),
``SampledWithoutReplacementDpEvent`` / ``SampledWithReplacementDpEvent`` (substitution
adjacency and fixed-size samples: not the add/remove Poisson-subsampled Gaussian of
:mod:`.sgm_pld`), ``PoissonSampledDpEvent`` of anything but one Gaussian (sampling once and then
composing is not the composition of sampled steps), ``NonPrivateDpEvent`` (not DP),
``UnsupportedDpEvent``, and the rest of the menu (``DiscreteLaplaceDpEvent``,
``SingleEpochTreeAggregationDpEvent``, ``RepeatAndSelectDpEvent``,
``MixtureOfGaussiansDpEvent``, ``TruncatedSubsampledGaussianDpEvent``, ZCDpEvent with xi > 0).

Numbers: dp-accounting holds floats, and a float parameter is read as its exact binary value
(the number the library computes with).  Writing, :func:`event_from_items` rounds each parameter
to a double in the conservative direction -- noise parameters (sigma, b) down, the sampling
rate q and rho up -- so the event's privacy loss is at least the composition's; a value that is
a double is kept exactly, so composition -> event -> composition is the identity on such
compositions.

JSON form (``fullyadaptive check --event FILE.json``): dp-accounting serialises an event by
``to_named_tuple()`` (fields ``module_name``, ``class_name`` and the event's attrs fields, nested
events as nested named tuples); the JSON form is that tuple's fields as an object, nested events
as nested objects, e.g. ``{"class_name": "SelfComposedDpEvent", "count": 1000, "event":
{"class_name": "PoissonSampledDpEvent", "sampling_probability": 0.01, "event": {"class_name":
"GaussianDpEvent", "noise_multiplier": 1.1}}}`` (``module_name`` optional, never imported).
:func:`event_to_json` writes it.  Numbers in the file are JSON numbers (doubles, read exactly) or
decimal strings (read as exact decimals).
"""
from __future__ import annotations

import json
import math
from fractions import Fraction
from pathlib import Path

from ..catalog import cites
from ..precision import certified, mpf_to_fraction

__all__ = ["EVENT_ITEMS", "is_event", "event_items", "event_from_items", "event_to_json", "read_event_file"]

#: class name -> the composition item it becomes (the module docstring's table)
EVENT_ITEMS = {
    "GaussianDpEvent": "gaussian", "LaplaceDpEvent": "laplace", "PoissonSampledDpEvent": "subsampled-gaussian",
    "ZCDpEvent": "zcdp", "SelfComposedDpEvent": "(the items of its event, counts multiplied)",
    "ComposedDpEvent": "(the items of its events, in order)", "NoOpDpEvent": "(nothing)",
}

_WHY = {
    "RandomizedResponseDpEvent": "its epsilon log(1 + k (1 - p)/p) is irrational and for k > 2 buckets its profile is "
                                 "not binary randomized response's, so no exact composition item describes it (for "
                                 "certified upper ends only: event_to_spec(event, rr='upper'))",
    "SampledWithoutReplacementDpEvent": "fixed-size sampling under substitution adjacency is not the add/remove "
                                        "Poisson-subsampled Gaussian the certified engine accounts for",
    "SampledWithReplacementDpEvent": "fixed-size sampling with replacement is not the add/remove Poisson-subsampled "
                                     "Gaussian the certified engine accounts for",
    "NonPrivateDpEvent": "the event is not differentially private (every accountant returns an infinite epsilon)",
    "UnsupportedDpEvent": "the event has no privacy description",
}

#: Deepest nesting of events read (a DP-SGD run needs 3 or 4 levels; deeper input is refused before it recurses far).
MAX_EVENT_DEPTH = 64


@cites("dpaccounting", "DpEvent.to_named_tuple / from_named_tuple (the serialised form of an event)")
def is_event(obj) -> bool:
    """Whether ``obj`` is a dp-accounting ``DpEvent`` (or its named-tuple form), recognised without importing it."""
    return (any(c.__name__ == "DpEvent" and c.__module__.startswith("dp_accounting") for c in type(obj).__mro__)
            or (isinstance(obj, tuple) and hasattr(obj, "_fields") and "class_name" in obj._fields))


def _fields(obj) -> tuple[str, dict]:
    """(class name, {field: value}) of an event in any of its three forms."""
    if isinstance(obj, dict):
        name = obj.get("class_name")
        if not isinstance(name, str):
            raise ValueError(f"an event object needs a 'class_name' string, found {obj.get('class_name')!r}")
        return name, {k: v for k, v in obj.items() if k not in ("class_name", "module_name")}
    if isinstance(obj, tuple) and hasattr(obj, "_fields"):
        d = obj._asdict()
        name = d.pop("class_name")
        d.pop("module_name", None)
        return (name.decode() if isinstance(name, bytes) else str(name)), d
    if is_event(obj):
        import attr  # dp-accounting's own dependency: present wherever a DpEvent exists

        return type(obj).__name__, {f.name: getattr(obj, f.name) for f in attr.fields(type(obj))}
    raise ValueError(f"expected a dp_accounting DpEvent (or its JSON / named-tuple form), found {type(obj).__name__} {obj!r:.80}")


def _num(v, field: str, event: str):
    """A float parameter as its exact binary value (an int, a Fraction or a decimal string as it is); the domain is
    checked where the item is parsed (:func:`reference.profiles.check.parse_spec`)."""
    if isinstance(v, bool) or not isinstance(v, (int, float, str, Fraction)):
        raise ValueError(f"{event}.{field} must be a number, found {type(v).__name__} {v!r:.60}")
    if isinstance(v, float):
        if not math.isfinite(v):
            raise ValueError(f"{event}.{field} must be finite, found {v!r}")
        return Fraction(v)
    return v


def _count(v, event: str) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or v < 1:
        raise ValueError(f"{event}.count must be an integer >= 1, found {v!r:.60}")
    return v


@cites("dpaccounting", "DpEvent (dp_event.py: the event classes and their fields; to_named_tuple, the serialised form)")
def event_items(event, _depth: int = 0, *, rr: str = "refuse") -> list[dict]:
    """The composition items of a dp-accounting event tree (module docstring table), in order, with exact parameters.

    Contract: the returned items (dicts ``{"mechanism": ..., <params>, "count": n}``, read by
    :func:`reference.profiles.check.parse_spec`) compose to exactly the mechanism the event
    describes (float parameters taken as their exact binary values; no rounding happens).
    Raises ValueError naming the event type for every event outside the table, and for a tree
    that composes no mechanism at all (only NoOpDpEvent).

    ``rr="upper"``: a ``RandomizedResponseDpEvent(p, k)`` (0 < p <= 1) becomes ``rr:EPS`` with EPS a
    rational rounded UP from log(1 + k (1 - p)/p) (30 digits): the item dominates the event (it is
    EPS-DP, and binary randomized response dominates every EPS-DP step, kairouz2015 Thm 3.3), so the
    composition's certified UPPER ends hold for the event, its lower ends do not.  Default: refused.
    """
    if rr not in ("refuse", "upper"):
        raise ValueError(f"rr must be 'refuse' or 'upper', found {rr!r}")
    if _depth > MAX_EVENT_DEPTH:
        raise ValueError(f"the event tree nests more than MAX_EVENT_DEPTH = {MAX_EVENT_DEPTH} levels")
    name, f = _fields(event)
    if name == "GaussianDpEvent":
        return [{"mechanism": "gaussian", "sigma": _num(f.get("noise_multiplier"), "noise_multiplier", name), "count": 1}]
    if name == "LaplaceDpEvent":
        return [{"mechanism": "laplace", "b": _num(f.get("noise_multiplier"), "noise_multiplier", name), "count": 1}]
    if name == "ZCDpEvent":
        xi = _num(f.get("xi", 0), "xi", name)
        if Fraction(xi) != 0:
            raise ValueError(f"ZCDpEvent with xi = {f.get('xi')!r}: only xi = 0 (rho-zCDP) translates to a composition "
                             f"item ('zcdp:rho=...'); (xi, rho)-zCDP with xi > 0 is not in the grammar")
        return [{"mechanism": "zcdp", "rho": _num(f.get("rho"), "rho", name), "count": 1}]
    if name == "PoissonSampledDpEvent":
        inner_name, inner = _fields(f.get("event"))
        if inner_name != "GaussianDpEvent":
            raise ValueError(f"PoissonSampledDpEvent of {inner_name}: only a Poisson-sampled GaussianDpEvent (one DP-SGD "
                             f"step) translates; sampling once and then composing is not a composition of sampled steps")
        return [{"mechanism": "subsampled-gaussian",
                 "q": _num(f.get("sampling_probability"), "sampling_probability", name),
                 "sigma": _num(inner.get("noise_multiplier"), "noise_multiplier", inner_name), "count": 1}]
    if name == "SelfComposedDpEvent":
        n = _count(f.get("count"), name)
        items = event_items(f.get("event"), _depth + 1, rr=rr)
        return [{**it, "count": it["count"] * n} for it in items]
    if name == "ComposedDpEvent":
        evs = f.get("events")
        if not isinstance(evs, (list, tuple)):
            raise ValueError(f"ComposedDpEvent.events must be a list of events, found {type(evs).__name__}")
        out = [it for e in evs for it in _items_or_empty(e, _depth + 1, rr)]
        if _depth == 0 and not out:
            raise ValueError("the ComposedDpEvent composes no mechanism (it is empty or holds only NoOpDpEvent)")
        return out
    if name == "NoOpDpEvent":
        if _depth == 0:
            raise ValueError("NoOpDpEvent composes no mechanism: there is nothing to account for")
        return []
    if name == "RandomizedResponseDpEvent" and rr == "upper":
        return [{"mechanism": "rr", "eps": _rr_eps_upper(f.get("noise_parameter"), f.get("num_buckets")), "count": 1}]
    why = _WHY.get(name, "it has no exact item in the composition grammar")
    raise ValueError(f"{name} is not supported: {why}; supported: {', '.join(EVENT_ITEMS)}")


def _rr_eps_upper(p, k) -> Fraction:
    """A rational >= log(1 + k (1 - p)/p), the epsilon of k-ary randomized response with noise parameter p (rounded up)."""
    pq = Fraction(_num(p, "noise_parameter", "RandomizedResponseDpEvent"))
    if isinstance(k, bool) or not isinstance(k, int) or k < 2:
        raise ValueError(f"RandomizedResponseDpEvent.num_buckets must be an integer >= 2, found {k!r:.40}")
    if not 0 < pq <= 1:
        raise ValueError(f"RandomizedResponseDpEvent.noise_parameter must be in (0, 1] (p = 0 is not DP), found {p!r:.40}")
    r = 1 + k * (1 - pq) / pq
    return Fraction(0) if r == 1 else mpf_to_fraction(certified(lambda c, x: c.log(x), (r,), "upper", 30))


def _items_or_empty(event, depth: int, rr: str) -> list[dict]:
    name, _ = _fields(event)
    return [] if name == "NoOpDpEvent" else event_items(event, depth, rr=rr)


def _double(x: Fraction, direction: str) -> float:
    """The double nearest ``x`` in ``direction`` ('down': largest double <= x, 'up': smallest double >= x)."""
    f = float(x)
    if direction == "down" and Fraction(f) > x:
        f = math.nextafter(f, -math.inf)
    elif direction == "up" and Fraction(f) < x:
        f = math.nextafter(f, math.inf)
    return f


@cites("dpaccounting", "DpEvent (dp_event.py); the translation and its rounding (to doubles, conservative) are this "
       "project's, derived: a smaller noise or a larger sampling rate is a less private mechanism")
def event_from_items(items):
    """The dp-accounting ``DpEvent`` of a composition: ``items`` are (mechanism, {param: Fraction}, count) triples.

    Contract: one item becomes its event of the module docstring table (a count n > 1 wrapped in
    ``SelfComposedDpEvent(e, n)``); several become a ``ComposedDpEvent`` in order.  Rounding: a
    noise parameter (sigma / sensitivity, b / sensitivity) down to a double, q and rho up (the event
    is at least as lossy as the composition; exact when the value is a double).  Raises ValueError
    for an item dp-accounting has no exact event for (``rr`` / ``dp``: see the module docstring).
    Imports ``dp_accounting`` (the ``test`` or ``peers`` extra).
    """
    from dp_accounting import dp_event as de

    out = []
    for mech, p, count in items:
        if mech == "gaussian":
            e = de.GaussianDpEvent(_double(p["sigma"] / p["sensitivity"], "down"))
        elif mech == "laplace":
            e = de.LaplaceDpEvent(_double(p["b"] / p["sensitivity"], "down"))
        elif mech == "subsampled-gaussian":
            e = de.PoissonSampledDpEvent(min(_double(p["q"], "up"), 1.0), de.GaussianDpEvent(_double(p["sigma"], "down")))
        elif mech == "zcdp":
            e = de.ZCDpEvent(_double(p["rho"], "up"))
        else:
            raise ValueError(f"{mech}: dp-accounting has no event with exactly this privacy profile (binary randomized "
                             f"response and pure (eps, delta)-DP steps have none); supported: gaussian, laplace, "
                             f"subsampled-gaussian, zcdp")
        if any(v == 0 for v in (getattr(e, "noise_multiplier", 1), getattr(getattr(e, "event", None), "noise_multiplier", 1))):
            raise ValueError(f"{mech}: the noise parameter is below the smallest positive double")
        out.append(e if count == 1 else de.SelfComposedDpEvent(e, int(count)))
    if not out:
        raise ValueError("the composition is empty")
    return out[0] if len(out) == 1 else de.ComposedDpEvent(out)


@cites("dpaccounting", "DpEvent.to_named_tuple / from_named_tuple (the serialised form of an event)")
def event_to_json(event) -> dict:
    """The JSON form of an event (module docstring): its ``to_named_tuple()`` fields, nested events as objects."""
    name, f = _fields(event)
    out = {"class_name": name}
    for k, v in f.items():
        if isinstance(v, (list, tuple)) and not hasattr(v, "_fields"):
            out[k] = [event_to_json(x) for x in v]
        elif is_event(v) or isinstance(v, dict):
            out[k] = event_to_json(v)
        else:
            out[k] = v
    return out


@cites("dpaccounting", "DpEvent.to_named_tuple / from_named_tuple (the serialised form of an event)")
def read_event_file(path) -> dict:
    """The JSON form of an event read from ``path`` (module docstring); ValueError when it is not a JSON object."""
    text = Path(path).read_text(encoding="utf-8")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"the event file {path} is not JSON: {exc}") from None
    except RecursionError:
        raise ValueError(f"the event file {path} nests too deeply to read") from None
    if not isinstance(data, dict):
        raise ValueError(f"the event file {path} must hold one JSON object with a 'class_name', found {type(data).__name__}")
    return data
