"""The ``fullyadaptive`` command: its parser (every subcommand, ``EXTENSIONS`` included) and :func:`main`."""
from __future__ import annotations

import argparse
import sys
import textwrap

from .. import __version__
from ..catalog import PAPERS
from ..precision import DEFAULT_DPS
from .catalog_cmds import _cmd_describe, _cmd_eval, _cmd_list
from .common import DEBUG_ENV, EXIT_INTERNAL, EXIT_INTERRUPTED, PROG, ArgumentParser
from .report_cmds import _cmd_derive, _cmd_report, _cmd_version

__all__ = ["EXTENSIONS", "build_parser", "subcommands", "main"]

#: Modules that add their own subcommands: each defines ``add_cli(subparsers)``,
#: which registers a parser whose ``func`` default returns the exit status.
EXTENSIONS: tuple[str, ...] = ("reference.cli.simulations", "reference.cli.martingales", "reference.cli.verify",
                               "reference.cli.figures", "reference.cli.falsify", "reference.cli.check",
                               "reference.cli.plan", "reference.cli.game", "reference.cli.individual_audit")


def _add_extensions(sub) -> list[str]:
    import importlib

    names = []
    for m in EXTENSIONS:
        mod = importlib.import_module(m)
        names.extend(mod.add_cli(sub))
    return names


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
                                                "(falsifier claim, erratum, verifier target, derivation, former id, "
                                                "a filter's class name or the name 'plan' prints for it)")
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
    pr.add_argument("--recompute", action="store_true",
                    help="compute everything, ignoring the record of the long computations (reference/data/"
                         "report_recorded.json, used only while the code that made it is unchanged; about 90 s)")
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
    OverflowError, ...) with ``EXIT_INTERNAL`` (4) and one line
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
