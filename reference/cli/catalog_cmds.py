"""``fullyadaptive list``, ``eval`` and ``describe``: the catalog on the command line."""
from __future__ import annotations

import json
import math
import shlex
import sys
import textwrap

from ..catalog import PAPERS, entries, get
from .common import PROG, UsageError, _fail, _truncate, build_info, run_in_child

__all__ = ["example_command", "describe_entry"]


# --------------------------------------------------------------------------
# list
# --------------------------------------------------------------------------

def _cmd_list(args) -> int:
    ents = entries()
    if args.paper is not None:
        if args.paper not in PAPERS:
            return _fail("list", f"unknown paper key {args.paper!r}; known keys: {', '.join(sorted(PAPERS))}")
        ents = [e for e in ents if e.paper == args.paper]
    if args.json:
        print(json.dumps({**build_info(), "entries": [e.as_dict() for e in ents]}, indent=2, ensure_ascii=False))
        return 0
    headers = ("id", "result", "direction", "provenance", "validity", "summary")
    rows = [(e.id, _truncate(e.result, 32), e.direction, e.provenance, e.validity, _truncate(e.summary, 60))
            for e in ents]
    widths = [max([len(h)] + [len(r[i]) for r in rows]) for i, h in enumerate(headers)]
    line = lambda cells: "  ".join(c.ljust(w) for c, w in zip(cells, widths)).rstrip()  # noqa: E731
    print(line(headers))
    print(line(["-" * w for w in widths]))
    for r in rows:
        print(line(r))
    print(f"\n{len(rows)} results. Details: {PROG} describe ID (or {PROG} list --json); "
          f"evaluate: {PROG} eval ID name=value ...")
    return 0


# --------------------------------------------------------------------------
# eval
# --------------------------------------------------------------------------

def _parse_assignments(items: list[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for it in items:
        name, sep, value = it.partition("=")
        name = name.strip()
        if not sep or not name:
            raise UsageError(f"expected name=value, found {it!r}")
        if name in out:
            raise UsageError(f"parameter {name!r} given twice")
        out[name] = value.strip()
    return out


def _evaluate(entry_id: str, kwargs: dict, digits: int, dps: int) -> tuple[str, int | None]:
    """``(text, int value or None)`` of one entry; raises what the entry's function raises."""
    from ..report import evaluate_entry, format_value

    entry = get(entry_id)
    value = evaluate_entry(entry, kwargs, digits=digits, dps=dps)
    return format_value(entry, value, digits), (int(value) if entry.returns == "int" else None)


def _evaluate_with_limit(entry_id: str, kwargs: dict, digits: int, dps: int, seconds: float) -> tuple[str, int | None]:
    """:func:`_evaluate` in a worker process stopped after ``seconds`` (:func:`reference.cli.common.run_in_child`);
    raises ``TimeoutError`` then, ``ValueError`` for the entry's own errors and ``RuntimeError`` for any other."""
    def work(report):
        try:
            return _evaluate(entry_id, kwargs, digits, dps)
        except (ValueError, TypeError, ArithmeticError) as exc:
            raise ValueError(str(exc)) from None
        except Exception as exc:  # noqa: BLE001 - reported to the parent as a failure of this evaluation
            raise RuntimeError(f"{type(exc).__name__}: {exc}") from None

    done, out, _ = run_in_child(work, seconds=seconds)
    if not done:
        raise TimeoutError(seconds)
    return out


def _validity_warning(entry) -> str | None:
    """One line for stderr when the entry's claim is not plainly valid (names the validity and the erratum)."""
    if entry.validity == "valid":
        return None
    what = {"false as printed": "the value is the printed formula, not a bound",
            "valid under a restriction": f"it holds only under the restriction: {entry.restriction}",
            "unverified": "a recalled or quoted statement the project could not check"}.get(entry.validity, "")
    err = f"; erratum {entry.erratum} (reference/data/errata.json)" if entry.erratum else ""
    return f"{PROG} eval: warning: {entry.id} is {entry.validity}: {what}{err}"


#: The range of ``dps`` accepted by :func:`reference.precision.check_dps`.
_MIN_DPS, _MAX_DPS = 5, 10000


def _check_number_option(name: str, value, lo, hi) -> None:
    if not (lo <= value <= hi):
        raise UsageError(f"{name} must lie in [{lo}, {hi}], found {value}")


def _cmd_eval(args) -> int:
    from ..report import prepare_arguments

    try:
        _check_number_option("--digits", args.digits, 1, _MAX_DPS - 5)
        _check_number_option("--dps", args.dps, _MIN_DPS, _MAX_DPS)
        if args.max_seconds is not None and not (math.isfinite(args.max_seconds) and args.max_seconds > 0):
            raise UsageError(f"--max-seconds must be a positive number of seconds, found {args.max_seconds}")
        try:
            entry = get(args.id)
        except KeyError as exc:
            raise UsageError(exc.args[0]) from None
        given = _parse_assignments(args.assignments)
        try:
            kwargs, texts, defaulted = prepare_arguments(entry, given)
        except KeyError as exc:
            raise UsageError(exc.args[0]) from None
        if args.max_seconds is None:
            text, ivalue = _evaluate(entry.id, kwargs, args.digits, args.dps)
        else:
            try:
                text, ivalue = _evaluate_with_limit(entry.id, kwargs, args.digits, args.dps, args.max_seconds)
            except TimeoutError:
                raise UsageError(f"{entry.id} did not finish within the time limit --max-seconds {args.max_seconds:g}; "
                                 "stopped (try fewer --digits/--dps or a larger limit)") from None
    except UsageError as exc:
        return _fail("eval", str(exc))
    except (ValueError, TypeError, ArithmeticError, RuntimeError) as exc:
        return _fail("eval", f"{args.id}: {exc}")
    warning = _validity_warning(entry)  # with the value, not with an error
    if warning:
        print(warning, file=sys.stderr)
    if args.json:
        d = entry.as_dict()
        citation = {k: d[k] for k in ("paper", "paper_key", "arxiv", "source", "result", "equation",
                                      "provenance", "function")}
        out = {
            "id": entry.id,
            "value": ivalue if entry.returns == "int" else text,
            "digits": args.digits,
            "direction": entry.direction,
            "validity": entry.validity,
            "restriction": entry.restriction,
            "erratum": entry.erratum,
            "parameters": texts,
            "defaulted": defaulted,
            "citation": citation,
            **build_info(),
        }
        print(json.dumps(out, indent=2, ensure_ascii=False))
    else:
        print(text)
    return 0


# --------------------------------------------------------------------------
# describe
# --------------------------------------------------------------------------

_DIRECTION_TEXT = {
    "upper": "upper bound: the printed value is rounded up, so it is still an upper bound",
    "lower": "lower bound: the printed value is rounded down, so it is still a lower bound",
    "exact": "exact quantity (or a decision): rounded to nearest, certified tight; not a bound",
}


def example_command(entry) -> str:
    """A ``fullyadaptive eval`` command line for ``entry`` with every parameter at its default (shell-quoted)."""
    parts = [PROG, "eval", entry.id]
    for p in entry.params:
        if p.default is not None:
            parts.append(shlex.quote(f"{p.name}={p.default}"))
    return " ".join(parts)


def describe_entry(entry) -> dict:
    """Everything ``fullyadaptive describe`` shows, as a JSON-ready dict."""
    d = entry.as_dict()
    d["direction_meaning"] = _DIRECTION_TEXT[entry.direction]
    d["paper_version"] = PAPERS[entry.paper]["version"]
    d["example"] = example_command(entry)
    return d


def _cmd_describe(args) -> int:
    from ..report.identifiers import render_record, resolve  # every name a command prints (catalog id or record)

    try:
        res = resolve(args.id)
    except KeyError as exc:
        return _fail("describe", exc.args[0])
    if res.deprecated:
        print(f"{PROG} describe: note: {res.deprecated}", file=sys.stderr)
    if res.entry is None:
        print(json.dumps({**res.as_dict(), **build_info()}, indent=2, ensure_ascii=False) if args.json else render_record(res))
        return 0
    entry = res.entry
    d = describe_entry(entry)
    if args.json:
        print(json.dumps({**d, **build_info()}, indent=2, ensure_ascii=False))
        return 0
    eq = f", {d['equation']}" if d.get("equation") else ""
    L = [f"{entry.id}: {d['summary']}",
         "",
         f"  paper       {d['paper']}",
         f"              arXiv:{d['arxiv']}, {d['paper_version']}",
         f"  result      {d['result']}{eq}",
         f"  direction   {entry.direction} ({d['direction_meaning']})",
         f"  provenance  {entry.provenance}",
         f"  validity    {entry.validity}"]
    if entry.restriction:
        L += textwrap.wrap(entry.restriction, width=100, initial_indent="  restriction ", subsequent_indent=" " * 14)
    for c in entry.checks:
        how = f"; {c.printed}=True (Python) gives the printed formula" if c.printed else ""
        L += textwrap.wrap(f"{c.param} must have {c.domain}, refused otherwise{how}", width=100,
                           initial_indent="  checked     ", subsequent_indent=" " * 14)
    if entry.unchecked:
        L += textwrap.wrap(f"not checkable from the arguments: {entry.unchecked}", width=100,
                           initial_indent="  checked     ", subsequent_indent=" " * 14)
    if entry.erratum:
        L.append(f"  erratum     {entry.erratum} (reference/data/errata.json; README 'Errata')")
    L.append(f"  function    {d['function']} (returns {entry.returns})")
    if entry.note:
        L += textwrap.wrap(entry.note, width=100, initial_indent="  note        ", subsequent_indent=" " * 14)
    L.append("")
    L.append("parameters:")
    if not entry.params:
        L.append("  (none)")
    w = max([len(p.name) for p in entry.params] + [4])
    shared = {n: a for a, n in entry.aliases().items()}
    for p in entry.params:
        dflt = "(required)" if p.default is None else str(p.default)
        also = f" (also accepted as {shared[p.name]}=)" if p.name in shared else ""
        L.append(f"  {p.name.ljust(w)}  {p.kind}, domain {p.domain}, default {dflt}{also}")
        if p.doc:
            L += textwrap.wrap(p.doc, width=100, initial_indent=" " * (w + 4), subsequent_indent=" " * (w + 4))
    L.append("")
    L.append("example:")
    L.append(f"  {d['example']}")
    print("\n".join(L))
    return 0
