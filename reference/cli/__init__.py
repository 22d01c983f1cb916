"""Command line interface: ``fullyadaptive list | eval | report | derive | version`` and more.

* ``fullyadaptive list [--json] [--paper KEY]``: the catalog of implemented results.
* ``fullyadaptive eval ID name=value ... [--digits D] [--dps P] [--json]``: evaluate
  one result; unspecified parameters take the entry's defaults; sequences are
  comma-separated (``eps=0.1,0.2``).  The value is printed with ``D``
  significant digits rounded in the entry's direction (an upper bound is
  rounded up, a lower bound down, an exact value to nearest).
* ``fullyadaptive report [--out DIR] [--json] [--quiet] [--no-verify]``: the report at the
  paper's setting (see :mod:`reference.report`), printed and written to ``DIR``.
* ``fullyadaptive derive [NAME] [--latex] [--list]``: a SymPy derivation, step by step.
* Modules in :data:`EXTENSIONS` add their own subcommands (simulations, checkers).
* ``fullyadaptive version``.

Errors in the user's input exit with status 2 and a one-line message on stderr; an unexpected
internal error (a bug, or a resource running out) exits with status 4 and one line
``fullyadaptive <cmd>: internal error: <type>: <message>`` (the traceback with
``FULLYADAPTIVE_DEBUG=1``), so it is never mistaken for a command's own statuses (``check``:
1 invalid, 3 undecided).
"""
from __future__ import annotations

import argparse
import json
import math
import shlex
import sys
import textwrap

from .. import __version__
from ..catalog import PAPERS, entries, get
from ..precision import DEFAULT_DPS

PROG = "fullyadaptive"
#: Exit status after Ctrl-C (128 + SIGINT), as a shell reports it.
EXIT_INTERRUPTED = 130
#: Exit status of an unexpected internal error (distinct from every command's own statuses 0-3).
EXIT_INTERNAL = 4
#: Set to 1 to print the traceback of an internal error (after its one line).
DEBUG_ENV = "FULLYADAPTIVE_DEBUG"


class UsageError(Exception):
    """An error in the user's input: reported on stderr, exit status 2."""


def _fail(cmd: str, msg: str) -> int:
    """Print ``fullyadaptive <cmd>: error: <msg>`` (one line) on stderr; returns the exit status 2."""
    print(error_line(cmd, msg), file=sys.stderr)
    return 2


def error_line(cmd: str, msg: str) -> str:
    """The one error format of every subcommand: ``fullyadaptive <cmd>: error: <msg>`` on one line."""
    return f"{PROG} {cmd}: error: {' '.join(str(msg).split())}"


def build_info() -> dict:
    """``{"version", "commit", "commit_source", "dirty"}`` of the running code: in every ``--json`` output.

    See :func:`reference.report.build_info`.
    """
    from ..report import build_info as _info

    return _info()


def _truncate(s: str, n: int) -> str:
    s = " ".join(s.split())
    return s if len(s) <= n else s[: n - 3] + "..."


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Wraps each line of a description to the terminal, keeping line breaks and indentation as written;
    appends ``(default: X)`` to an option's help unless it states its default."""

    def _fill_text(self, text, width, indent):
        out = []
        for line in text.splitlines():
            lead = line[: len(line) - len(line.lstrip())]
            out.append(textwrap.fill(line, width, initial_indent=indent, subsequent_indent=indent + lead)
                       if line.strip() else "")
        return "\n".join(out)

    def _get_help_string(self, action):
        h = action.help or ""
        if h is argparse.SUPPRESS or "default" in h.lower() or not action.option_strings:
            return h
        if isinstance(action, (argparse._HelpAction, argparse._VersionAction)):
            return h
        d = action.default
        if d is argparse.SUPPRESS:
            return h
        if isinstance(action, (argparse._StoreTrueAction, argparse._StoreFalseAction)):
            shown = "on" if d else "off"
        elif d is None:
            shown = "none"
        else:
            shown = "%(default)s"
        return f"{h} (default: {shown})"


class ArgumentParser(argparse.ArgumentParser):
    """An argparse parser whose usage errors are one line, ``fullyadaptive <cmd>: error: <msg>``, exit status 2."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("formatter_class", HelpFormatter)
        super().__init__(*args, **kwargs)

    def error(self, message):  # noqa: D401 - argparse API
        text = " ".join(f"{message} (see {self.prog} --help)".split())
        self.exit(2, f"{self.prog}: error: {text}\n")  # prog is "fullyadaptive <subcommand>" (or "fullyadaptive")


def _progress_of(args, cmd: str):
    """The run's :class:`~reference.report.progress.Progress` (made by :func:`main`), or a silent one."""
    p = getattr(args, "_progress", None)
    if p is None:
        from ..report.progress import Progress

        p = Progress(f"{PROG} {cmd}", enabled=False)
    return p


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


def _eval_worker(conn, entry_id: str, kwargs: dict, digits: int, dps: int) -> None:  # pragma: no cover - child
    """Child process of ``eval --max-seconds``: sends ``("ok", text, int)`` or ``("error", message)``."""
    try:
        conn.send(("ok",) + _evaluate(entry_id, kwargs, digits, dps))
    except (ValueError, TypeError, ArithmeticError) as exc:
        conn.send(("error", str(exc)))
    except BaseException as exc:  # noqa: BLE001 - reported to the parent, which decides
        conn.send(("crash", f"{type(exc).__name__}: {exc}"))
    finally:
        conn.close()


def _evaluate_with_limit(entry_id: str, kwargs: dict, digits: int, dps: int, seconds: float) -> tuple[str, int | None]:
    """:func:`_evaluate` in a worker process stopped after ``seconds``; raises ``TimeoutError`` then."""
    import multiprocessing as mp

    ctx = mp.get_context("fork" if "fork" in mp.get_all_start_methods() else "spawn")
    recv, send = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_eval_worker, args=(send, entry_id, kwargs, digits, dps), daemon=True)
    proc.start()
    send.close()
    try:
        if not recv.poll(seconds):
            raise TimeoutError(seconds)
        try:
            msg = recv.recv()
        except EOFError:
            raise RuntimeError(f"the worker evaluating {entry_id} died (exit status {proc.exitcode})") from None
    finally:
        recv.close()
        if proc.is_alive():
            proc.terminate()
            proc.join(2)
            if proc.is_alive():
                proc.kill()
        proc.join(2)
    if msg[0] == "ok":
        return msg[1], msg[2]
    if msg[0] == "error":
        raise ValueError(msg[1])
    raise RuntimeError(msg[1])


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


# --------------------------------------------------------------------------
# report
# --------------------------------------------------------------------------

def _cmd_report(args) -> int:
    from ..report import build_report, render_summary, write_report

    if not str(args.out).strip():
        return _fail("report", "--out must name a directory, found an empty string (use --out . for the current one)")
    prog = _progress_of(args, "report")
    rep = build_report({"verify": not args.no_verify}, progress=prog)
    try:
        md, js = write_report(rep, args.out, figures=not args.no_figures, progress=prog)
    except (OSError, ValueError) as exc:
        return _fail("report", f"cannot write to {args.out!r}: {exc}")
    finally:
        prog.close()  # no progress line after the results
    if args.json:
        print(json.dumps(rep, indent=2, ensure_ascii=False))
    elif args.full:
        print(md.read_text(encoding="utf-8"), end="")  # exactly the file written (with its figures section)
    else:
        print(render_summary(rep, (md, js)), end="")
    if not args.quiet:
        print(f"wrote {md} and {js}", file=sys.stderr)
    return 0


# --------------------------------------------------------------------------
# derive, version
# --------------------------------------------------------------------------

def _cmd_derive(args) -> int:
    import symbolic

    if args.list or not args.name:
        for qual, fn in symbolic.derivations().items():
            doc = (fn.__doc__ or "").strip().splitlines()
            print(f"{qual:45s} {_truncate(doc[0] if doc else '', 90)}")
        return 0
    from ..report.identifiers import derivations_named  # a derivation's name, or a catalog id it derives

    try:
        found = derivations_named(args.name)
    except KeyError as exc:
        return _fail("derive", exc.args[0])
    print("\n\n".join(fn().as_latex() if args.latex else fn().as_text() for _qual, fn in found))
    return 0


#: Modules that add their own subcommands: each defines ``add_cli(subparsers)``,
#: which registers a parser whose ``func`` default returns the exit status.
EXTENSIONS: tuple[str, ...] = ("reference.cli.simulations", "reference.cli.martingales", "reference.cli.verify",
                               "reference.cli.figures", "reference.cli.falsify", "reference.cli.check",
                               "reference.cli.plan", "reference.cli.game")


def _add_extensions(sub) -> list[str]:
    import importlib

    names = []
    for m in EXTENSIONS:
        mod = importlib.import_module(m)
        names.extend(mod.add_cli(sub))
    return names


def _cmd_version(args) -> int:
    from ..report import provenance

    p = provenance()
    if args.json:
        print(json.dumps({"program": PROG, **p}, indent=2))
        return 0
    print(f"{PROG} {__version__}")
    state = {True: ", with uncommitted changes", False: "", None: ""}[p["dirty"]]
    where = "" if p["commit_source"] == "unknown" else f" ({p['commit_source']}{state})"
    print(f"commit: {p['commit_full'] or p['commit']}{where}")
    print(f"package: {p['package_path']}")
    print(f"data: {p['data_path']}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The ``fullyadaptive`` parser with every subcommand (extensions included)."""
    p = ArgumentParser(
        prog=PROG,
        description="Exact reference implementation of fully adaptive privacy composition "
                    "(filters, odometers, their bounds) with conservative rounding.",
        epilog=textwrap.dedent(f"""\
            examples:
              {PROG} list --paper whitehouse2022
              {PROG} describe whitehouse2022_eq6_ystar
              {PROG} eval whitehouse2022_eq6_ystar eps=1 delta_prime=1e-6
              {PROG} eval whitehouse2022_eq2_eps eps=0.1,0.1,0.2 --json
              {PROG} report --out ./fullyadaptive-report

            Errors exit with status 2 and one line 'fullyadaptive <subcommand>: error: ...';
            an internal error with status 4 and one line 'fullyadaptive <subcommand>: internal
            error: <type>: <message>' ({DEBUG_ENV}=1 adds the traceback); Ctrl-C exits with status 130.
            """),
    )
    p.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")

    pl = sub.add_parser("list", help="list the implemented results (catalog)",
                        description="The catalog: one row per implemented result (id, result, direction, provenance, "
                                    "validity, summary). 'fullyadaptive describe ID' shows one entry in full.")
    pl.add_argument("--json", action="store_true",
                    help="print a JSON object: version, commit and 'entries' (every entry's citation and parameters)")
    pl.add_argument("--paper", metavar="KEY", help=f"only this paper ({', '.join(sorted(PAPERS))}; default: all papers)")
    pl.set_defaults(func=_cmd_list)

    pe = sub.add_parser("eval", help="evaluate one result",
                        description="Evaluate one catalog entry. Parameters not given take the entry's defaults; "
                                    "sequences are comma-separated (eps=0.1,0.2; an empty item is refused). Inputs are "
                                    "parsed exactly ('0.1' is 1/10, '1/3' is accepted). An entry whose validity is not "
                                    "'valid' is evaluated with a warning on stderr.")
    pe.add_argument("id", metavar="ID", help="catalog id (see 'fullyadaptive list')")
    pe.add_argument("assignments", nargs="*", metavar="name=value",
                    help="parameter values (see 'fullyadaptive describe ID'); the others take their defaults")
    pe.add_argument("--digits", type=int, default=15, metavar="D",
                    help="significant digits printed, rounded in the result's direction (1 to 9995; default 15)")
    pe.add_argument("--dps", type=int, default=DEFAULT_DPS, metavar="P",
                    help=f"working decimal digits, 5 to 10000; the result is computed at max(P, D+5) "
                         f"(default {DEFAULT_DPS})")
    pe.add_argument("--max-seconds", type=float, default=None, metavar="S",
                    help="stop the evaluation after S seconds (run in a worker process) and exit with status 2 "
                         "(default: no limit)")
    pe.add_argument("--json", action="store_true",
                    help="print value, parameters, validity, citation, version and commit as JSON")
    pe.set_defaults(func=_cmd_eval)

    pdsc = sub.add_parser("describe", help="show one result: parameters, direction, provenance, validity, citation",
                          description="Everything about one catalog entry: its parameters with domains, defaults and "
                                      "docs; its direction (what the rounding guarantees); provenance; validity with "
                                      "the restriction and erratum; the citation; and an example 'fullyadaptive eval' "
                                      "command line.")
    pdsc.add_argument("id", metavar="ID", help="catalog id (see 'fullyadaptive list'), or any name a command prints "
                                                "(falsifier claim, erratum, verifier target, derivation, former id)")
    pdsc.add_argument("--json", action="store_true", help="print it as JSON (with version and commit)")
    pdsc.set_defaults(func=_cmd_describe)

    pr = sub.add_parser("report", help="the report at the paper's setting (catalog, rounds, odometers, errata)",
                        description="Computes the report at the setting of Whitehouse et al. (reference.report.DEFAULTS), "
                                    "writes the full report to DIR/report.md and DIR/report.json (each atomically) and "
                                    "prints a short summary: the rounds table, the exact verifier's verdict and the "
                                    "catalog's validity counts. --full prints the whole Markdown report.")
    pr.add_argument("--out", default="fullyadaptive-report", metavar="DIR",
                    help="directory for report.md and report.json, created if needed (default ./fullyadaptive-report)")
    pr.add_argument("--full", action="store_true", help="print the whole Markdown report instead of the summary")
    pr.add_argument("--json", action="store_true", help="print the whole JSON report (with version and commit)")
    pr.add_argument("--quiet", action="store_true", help="no progress messages, no 'wrote ...' line")
    pr.add_argument("--no-figures", action="store_true",
                    help="do not draw the figures (SVG, embedded in report.md; drawn only when matplotlib is "
                         "installed) (default: drawn)")
    pr.add_argument("--no-verify", action="store_true",
                    help="leave out the exact verifier's slack table (saves about half a minute)")
    pr.set_defaults(func=_cmd_report)

    pd = sub.add_parser("derive", help="print a SymPy derivation step by step (plain text or LaTeX)",
                        description="A derivation of symbolic/ (y*, optimal parameters, constants, conversions), "
                                    "step by step; without NAME, or with --list, the list of derivations.")
    pd.add_argument("name", nargs="?", metavar="NAME",
                    help="derivation name, e.g. y_star or whitehouse2023.y_star, or a catalog id it derives "
                         "(default: list them)")
    pd.add_argument("--latex", action="store_true", help="print LaTeX instead of plain text")
    pd.add_argument("--list", action="store_true", help="list the available derivations")
    pd.set_defaults(func=_cmd_derive)

    _add_extensions(sub)

    pv = sub.add_parser("version", help="print the version, the commit and where the package is installed",
                        description="Print the package version, the git commit (of the checkout the package runs "
                                    "from, else the one stamped into the package when it was built, else 'unknown'; "
                                    "and which of these), and the folders the package and its data files are read "
                                    "from.")
    pv.add_argument("--json", action="store_true",
                    help="print it as JSON: version, commit, commit_full, commit_source, dirty, package_path, "
                         "data_path")
    pv.set_defaults(func=_cmd_version)
    return p


def subcommands(parser: argparse.ArgumentParser | None = None) -> dict[str, argparse.ArgumentParser]:
    """name -> parser of every subcommand."""
    parser = parser or build_parser()
    for a in parser._actions:
        if isinstance(a, argparse._SubParsersAction):
            return dict(a.choices)
    return {}


def _quiet(args) -> bool:
    return bool(getattr(args, "quiet", False) or getattr(args, "no_progress", False))


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``fullyadaptive`` console script; returns the exit status.

    Usage errors exit with status 2 and one line ``fullyadaptive <subcommand>: error: ...``;
    Ctrl-C with status 130 and one line; any other exception (RecursionError, MemoryError,
    OverflowError, ...) with :data:`EXIT_INTERNAL` (4) and one line
    ``fullyadaptive <subcommand>: internal error: <type>: <message>``, its traceback only when
    the environment variable ``FULLYADAPTIVE_DEBUG`` is set to a non-empty value other than 0;
    a run longer than two seconds reports its progress on stderr
    (:class:`reference.report.progress.Progress`) unless ``--quiet``/``--no-progress``.
    """
    from ..report.progress import Progress

    parser = build_parser()
    cmd = "?"
    try:
        args, extra = parser.parse_known_args(argv)
        cmd = getattr(args, "command", None) or "?"
        if extra:  # report it as the subcommand's error, not the top-level parser's
            (subcommands(parser).get(cmd) or parser).error(f"unrecognized arguments: {' '.join(extra)}")
        if getattr(args, "func", None) is None:
            parser.print_help(sys.stderr)
            return 2
        args._progress = Progress(f"{PROG} {cmd}", enabled=not _quiet(args))
        try:
            return args.func(args)
        finally:
            args._progress.close()
    except SystemExit as exc:  # argparse: --help (0) or a usage error (2, already printed)
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
    except KeyboardInterrupt:
        print(f"{PROG} {cmd}: interrupted (Ctrl-C); nothing more was written", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # e.g. ``fullyadaptive list | head``: stop quietly
        import os

        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    except Exception as exc:  # noqa: BLE001 - the one place where an unexpected error becomes status 4
        return _internal_error(cmd, exc)


def _internal_error(cmd: str, exc: BaseException) -> int:
    """Report an unexpected exception as one line on stderr (and its traceback when debugging); returns 4."""
    import os

    if os.environ.get(DEBUG_ENV, "").strip() not in ("", "0"):
        import traceback

        traceback.print_exception(type(exc), exc, exc.__traceback__, file=sys.stderr)
    try:
        msg = " ".join(str(exc).split())
    except Exception:  # noqa: BLE001 - a message that cannot be formed (e.g. a huge integer)
        msg = ""
    if len(msg) > 500:
        msg = msg[:497] + "..."
    what = f"{type(exc).__name__}: {msg}" if msg else type(exc).__name__
    try:
        print(f"{PROG} {cmd}: internal error: {what}", file=sys.stderr)
    except Exception:  # noqa: BLE001 - stderr itself failed; the status still says what happened
        pass
    return EXIT_INTERNAL


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
