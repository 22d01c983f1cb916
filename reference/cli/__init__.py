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

Errors in the user's input exit with status 2 and a one-line message on stderr.
"""
from __future__ import annotations

import argparse
import json
import sys
import textwrap

from .. import __version__
from ..catalog import PAPERS, entries, get
from ..precision import DEFAULT_DPS

PROG = "fullyadaptive"


class UsageError(Exception):
    """An error in the user's input: reported on stderr, exit status 2."""


def _fail(cmd: str, msg: str) -> int:
    print(f"{PROG} {cmd}: error: {msg}", file=sys.stderr)
    return 2


def _truncate(s: str, n: int) -> str:
    s = " ".join(s.split())
    return s if len(s) <= n else s[: n - 3] + "..."


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
        print(json.dumps([e.as_dict() for e in ents], indent=2, ensure_ascii=False))
        return 0
    headers = ("id", "result", "direction", "provenance", "summary")
    rows = [(e.id, _truncate(e.result, 32), e.direction, e.provenance, _truncate(e.summary, 60)) for e in ents]
    widths = [max([len(h)] + [len(r[i]) for r in rows]) for i, h in enumerate(headers)]
    line = lambda cells: "  ".join(c.ljust(w) for c, w in zip(cells, widths)).rstrip()  # noqa: E731
    print(line(headers))
    print(line(["-" * w for w in widths]))
    for r in rows:
        print(line(r))
    print(f"\n{len(rows)} results. Details: {PROG} list --json; evaluate: {PROG} eval ID name=value ...")
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


def _cmd_eval(args) -> int:
    from ..report import evaluate_entry, format_value, prepare_arguments

    try:
        if args.digits < 1 or args.digits > 9995:
            raise UsageError(f"--digits must be an int in [1, 9995], found {args.digits}")
        try:
            entry = get(args.id)
        except KeyError as exc:
            raise UsageError(exc.args[0]) from None
        given = _parse_assignments(args.assignments)
        try:
            kwargs, texts, defaulted = prepare_arguments(entry, given)
        except KeyError as exc:
            raise UsageError(exc.args[0]) from None
        value = evaluate_entry(entry, kwargs, digits=args.digits, dps=args.dps)
        text = format_value(entry, value, args.digits)
    except UsageError as exc:
        return _fail("eval", str(exc))
    except (ValueError, TypeError, ArithmeticError) as exc:
        return _fail("eval", f"{args.id}: {exc}")
    if args.json:
        cit = entry.as_dict()
        citation = {k: cit[k] for k in ("paper", "paper_key", "arxiv", "source", "result", "equation",
                                        "provenance", "function")}
        out = {
            "id": entry.id,
            "value": int(value) if entry.returns == "int" else text,
            "digits": args.digits,
            "direction": entry.direction,
            "parameters": texts,
            "defaulted": defaulted,
            "citation": citation,
        }
        print(json.dumps(out, indent=2, ensure_ascii=False))
    else:
        print(text)
    return 0


# --------------------------------------------------------------------------
# report
# --------------------------------------------------------------------------

def _cmd_report(args) -> int:
    from ..report import build_report, render_markdown, write_report

    progress = not args.quiet and sys.stderr.isatty()
    rep = build_report({"verify": not args.no_verify}, progress=progress)
    try:
        md, js = write_report(rep, args.out)
    except OSError as exc:
        return _fail("report", f"cannot write to {args.out!r}: {exc}")
    if args.json:
        print(json.dumps(rep, indent=2, ensure_ascii=False))
    else:
        print(render_markdown(rep), end="")
    if not args.quiet:
        print(f"wrote {md} and {js}", file=sys.stderr)
    return 0


# --------------------------------------------------------------------------
# version
# --------------------------------------------------------------------------

def _cmd_derive(args) -> int:
    import symbolic

    if args.list or not args.name:
        for qual, fn in symbolic.derivations().items():
            doc = (fn.__doc__ or "").strip().splitlines()
            print(f"{qual:45s} {_truncate(doc[0] if doc else '', 90)}")
        return 0
    try:
        fn = symbolic.find(args.name)
    except KeyError as exc:
        return _fail("derive", exc.args[0])
    d = fn()
    print(d.as_latex() if args.latex else d.as_text())
    return 0


#: Modules that add their own subcommands: each defines ``add_cli(subparsers)``,
#: which registers a parser whose ``func`` default returns the exit status.
EXTENSIONS: tuple[str, ...] = ("reference.cli.simulations", "reference.cli.martingales", "reference.cli.verify")


def _add_extensions(sub) -> list[str]:
    import importlib

    names = []
    for m in EXTENSIONS:
        mod = importlib.import_module(m)
        names.extend(mod.add_cli(sub))
    return names


def _cmd_version(args) -> int:
    print(f"{PROG} {__version__}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=PROG,
        description="Exact reference implementation of fully adaptive privacy composition "
                    "(filters, odometers, their bounds) with conservative rounding.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=textwrap.dedent(f"""\
            examples:
              {PROG} list --paper whitehouse2022
              {PROG} eval whitehouse2022_eq6_ystar eps=1 delta_prime=1e-6 --digits 20
              {PROG} eval whitehouse2022_eq2_eps eps=0.1,0.1,0.2 --json
              {PROG} report --out ./fullyadaptive-report
            """),
    )
    p.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    sub = p.add_subparsers(dest="command")

    pl = sub.add_parser("list", help="list the implemented results (catalog)")
    pl.add_argument("--json", action="store_true", help="print a JSON list with every entry's citation and parameters")
    pl.add_argument("--paper", metavar="KEY", help=f"only this paper ({', '.join(sorted(PAPERS))})")
    pl.set_defaults(func=_cmd_list)

    pe = sub.add_parser("eval", help="evaluate one result",
                        description="Evaluate one catalog entry. Parameters not given take the entry's defaults; "
                                    "sequences are comma-separated (eps=0.1,0.2). Inputs are parsed exactly "
                                    "('0.1' is 1/10, '1/3' is accepted).")
    pe.add_argument("id", metavar="ID", help="catalog id (see 'fullyadaptive list')")
    pe.add_argument("assignments", nargs="*", metavar="name=value", help="parameter values")
    pe.add_argument("--digits", type=int, default=15, metavar="D",
                    help="significant digits printed, rounded in the result's direction (default 15)")
    pe.add_argument("--dps", type=int, default=DEFAULT_DPS, metavar="P",
                    help=f"working decimal digits; the result is computed at max(P, D+5) (default {DEFAULT_DPS})")
    pe.add_argument("--json", action="store_true", help="print value, parameters and citation as JSON")
    pe.set_defaults(func=_cmd_eval)

    pr = sub.add_parser("report", help="the report at the paper's setting (catalog, rounds, odometers, errata)")
    pr.add_argument("--out", default="fullyadaptive-report", metavar="DIR",
                    help="directory for report.md and report.json (default ./fullyadaptive-report)")
    pr.add_argument("--json", action="store_true", help="print the JSON report instead of the Markdown")
    pr.add_argument("--quiet", action="store_true", help="no progress bar, no 'wrote ...' line")
    pr.add_argument("--no-verify", action="store_true",
                    help="leave out the exact verifier's slack table (saves about half a minute)")
    pr.set_defaults(func=_cmd_report)

    pd = sub.add_parser("derive", help="print a SymPy derivation step by step (plain text or LaTeX)")
    pd.add_argument("name", nargs="?", metavar="NAME", help="derivation name, e.g. y_star or whitehouse2023.y_star")
    pd.add_argument("--latex", action="store_true", help="print LaTeX instead of plain text")
    pd.add_argument("--list", action="store_true", help="list the available derivations")
    pd.set_defaults(func=_cmd_derive)

    _add_extensions(sub)

    pv = sub.add_parser("version", help="print the version")
    pv.set_defaults(func=_cmd_version)
    return p


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``fullyadaptive`` console script; returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "func", None) is None:
        parser.print_help(sys.stderr)
        return 2
    try:
        return args.func(args)
    except BrokenPipeError:  # e.g. ``fullyadaptive list | head``: stop quietly
        import os

        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
