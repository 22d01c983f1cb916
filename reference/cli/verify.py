"""The ``fullyadaptive verify`` subcommand (see ``reference.cli.app.EXTENSIONS``).

Runs the exact verifier (:mod:`reference.verify.engine`) of every shipped filter/odometer
(``reference.verify.targets.TARGETS``) against the standard adaptive randomized-response
adversaries and prints the certified slack table; then runs the same objects against the
falsifier's general finite step laws (:mod:`reference.falsify.verifier_menu`), because RR is the
worst case only for DP conclusions, not for loss tails.  ``--negative-controls`` also runs the
deliberately broken targets, which must be caught.  ``verify --help`` lists the target,
adversary and negative-control names (imported from :mod:`reference.verify.targets` only
when the help is shown).
"""
from __future__ import annotations

import json
import sys


def names() -> dict[str, list[str]]:
    """The names ``verify`` accepts: ``{"targets", "adversaries", "negative_controls"}`` (imports the verifier)."""
    from ..verify.targets import NEGATIVE_CONTROLS, TARGETS, default_adversaries

    advs: list[str] = []
    for fac, e0, r in TARGETS.values():
        for a in default_adversaries(fac(), e0, r):
            if a not in advs:
                advs.append(a)
    return {"targets": list(TARGETS), "adversaries": advs, "negative_controls": list(NEGATIVE_CONTROLS)}


def _names_epilog() -> str:
    n = names()
    out = []
    for title, key in (("targets (--target)", "targets"), ("adversaries (--adversary)", "adversaries"),
                       ("negative controls (--negative-controls runs them all)", "negative_controls")):
        out.append(f"{title}:")
        out.append("  " + ", ".join(n[key]))  # wrapped to the terminal by reference.cli.HelpFormatter
    out.append("delta_spender runs only against targets that take per-step deltas.")
    return "\n".join(out)


def _verify(args) -> int:
    from ..verify.targets import negative_control_table, render_table, slack_table
    from .common import build_info, error_line

    prog = getattr(args, "_progress", None)
    cb = None if (prog is None or args.no_progress) else prog.callback("exact verifier")
    from ..report.identifiers import targets_named

    try:
        # a target name, a catalog id the targets drive, or 'all'
        chosen = "all" if args.target == "all" else targets_named(args.target)
        rows = slack_table(chosen, args.adversary, args.rounds, progress=cb)
        if prog is not None and args.negative_controls:
            prog.stage("negative controls")
        neg = negative_control_table() if args.negative_controls else []
        general = []
        if not args.no_general:
            from ..falsify.verifier_menu import general_slack_table
            if prog is not None:
                prog.stage("general step laws")
            general = general_slack_table(chosen)
    except (ValueError, TypeError) as exc:
        print(error_line("verify", str(exc)), file=sys.stderr)
        return 2
    finally:
        if prog is not None:
            prog.close()  # no progress line after the results
    if args.json:
        def conv(r):
            d = {k: (str(v) if k in ("eps", "allowed", "achieved_lo", "achieved_hi") and v is not None else v)
                 for k, v in r.items()}
            return d
        gen = [{k: (str(v) if k in ("allowed", "worst_lo", "worst_hi") else v) for k, v in r.items()} for r in general]
        out = {"rows": [conv(r) for r in rows], "negative_controls": [r.as_dict() for r in neg], "general_step_laws": gen,
               **build_info()}
        print(json.dumps(out, indent=2, default=str))
    else:
        print(render_table(rows))
        if general:
            from ..falsify.verifier_menu import render_general_table
            print()
            print("The same objects on general finite step laws (the falsifier's candidates and adaptive adversaries):")
            print(render_general_table(general))
        if neg:
            print()
            print(render_table(neg, title="Negative controls (must be FAIL = caught)"))
    bad = [r["target"] for r in rows if r["verdict"] != "pass"] + [r.extra["control"] for r in neg if r.verdict != "FAIL"]
    bad += [r["target"] for r in general if r["verdict"] != "pass"]
    return 1 if bad else 0


def add_cli(sub) -> list[str]:
    """Register ``verify`` on ``sub`` (an argparse subparsers object); returns the command names."""
    p = sub.add_parser(
        "verify",
        help="exact verifier: certified delta achieved by each filter/odometer against adaptive RR adversaries",
        description="By the reduction to conditional randomized response (whitehouse2022 Lemma 3, rogers2016 Thm 2.7/"
                    "Lemma 3.4) an adaptive RR composition is the worst case for a DP conclusion (filters). It is NOT "
                    "the worst case for a loss tail (odometers): the loss of a post-processed view is not the "
                    "post-processed loss. For every shipped filter (hockey-stick of the stopped transcript at eps) and "
                    "odometer (P(exists n: L_n > u_n)) this computes a certified enclosure of the achieved delta "
                    "against loss- and V-dependent RR adversaries (the slack table, column 'steps checked'), then "
                    "runs the same objects on the falsifier's general finite step laws (second table). Exit status 1 "
                    "if any target fails or a negative control is not caught; 2 for a usage error. The default run "
                    "takes under a minute on 2 cores.")
    p.add_argument("--target", default="all", metavar="NAME",
                   help="target name, a catalog id (the targets that drive it) or 'all' (default: all); the names "
                        "are listed below")
    p.add_argument("--adversary", default="all", metavar="NAME",
                   help="adversary name or 'all' (default: all); the names are listed below")
    p.add_argument("--rounds", type=int, default=None, metavar="N",
                   help="horizon in rounds of the smallest step (default: each target's own, 120 to 500)")
    p.add_argument("--negative-controls", action="store_true", help="also run the broken targets (must be caught)")
    p.add_argument("--json", action="store_true",
                   help="print the rows (and per-adversary results), version and commit as JSON")
    p.add_argument("--no-progress", action="store_true", help="no progress messages on stderr")
    p.add_argument("--no-general", action="store_true",
                   help="skip the second table (the targets on the falsifier's general step laws)")
    p.set_defaults(func=_verify)

    cls_format_help = type(p).format_help

    def format_help():  # the names come from the verifier, imported only when help is asked for
        if p.epilog is None:
            p.epilog = _names_epilog()
        return cls_format_help(p)

    p.format_help = format_help
    return ["verify"]
