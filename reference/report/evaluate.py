"""Evaluating one catalog entry at given or default parameters, shared by the report and ``fullyadaptive eval``."""
from __future__ import annotations

import inspect

from ..catalog import Entry
from ..precision import DEFAULT_DPS, bounded_decimal, check_dps

__all__ = ["prepare_arguments", "evaluate_entry", "format_value"]


def prepare_arguments(entry: Entry, given: dict[str, str]) -> tuple[dict, dict[str, str], list[str]]:
    """Merge ``given`` (name -> text) with the entry's defaults and convert by parameter kind.

    Returns ``(kwargs, texts, defaulted)``: the keyword arguments for the entry's
    function, the text of every parameter used, and the names taken from defaults.

    :raises KeyError: for a name the entry does not take (the message lists the valid names).
    :raises ValueError: for a required parameter that was not given and has no default.
    """
    params = {p.name: p for p in entry.params}
    aliases = entry.aliases()
    for name in given:
        if name not in params and name not in aliases:
            raise KeyError(f"{entry.id} has no parameter {name!r}; its parameters are: {', '.join(params) or '(none)'}"
                           + (f" (also accepted: {', '.join(f'{a} for {n}' for a, n in aliases.items())})" if aliases else ""))
    try:
        given = entry.resolve(given)
    except TypeError as exc:
        raise KeyError(str(exc)) from None
    defaults = entry.defaults()
    kwargs: dict = {}
    texts: dict[str, str] = {}
    defaulted: list[str] = []
    for name, p in params.items():
        if name in given:
            raw = given[name]
        elif name in defaults:
            raw = defaults[name]
            defaulted.append(name)
        else:
            raise ValueError(f"{entry.id}: parameter {name!r} is required (domain {p.domain})")
        texts[name] = raw if isinstance(raw, str) else str(raw)
        if p.kind in ("sequence", "text") and isinstance(raw, str) and "," in raw:
            items = [s.strip() for s in raw.split(",")]
            if any(not s for s in items):  # "0.1,,0.2" is a typo, not a two-item list
                k = next(i for i, s in enumerate(items) if not s)
                raise ValueError(f"{name}: empty item {name}[{k}] in the comma-separated list {raw!r}")
        if p.kind == "sequence" and isinstance(raw, str):
            kwargs[name] = [s.strip() for s in raw.split(",") if s.strip()]
        else:
            kwargs[name] = raw
    return kwargs, texts, defaulted


def _accepts_dps(entry: Entry) -> bool:
    return "dps" in inspect.signature(entry.func).parameters


def evaluate_entry(entry: Entry, kwargs: dict, *, digits: int, dps: int | None = None):
    """Call the entry's function with ``dps = max(dps, digits + 5)`` when it takes ``dps``."""
    if dps is None:
        dps = DEFAULT_DPS
    if _accepts_dps(entry):
        return entry.func(**kwargs, dps=check_dps(max(dps, digits + 5)))
    return entry.func(**kwargs)


def format_value(entry: Entry, value, digits: int) -> str:
    """Text of a result: the int for int-valued entries, else ``digits`` digits rounded in the entry's direction
    (:func:`~reference.precision.bounded_decimal`: a bounded length, the direction kept)."""
    if entry.returns == "int":
        return str(int(value))
    return bounded_decimal(value, digits, entry.direction)
