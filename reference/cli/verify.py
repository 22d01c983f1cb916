"""The ``fullyadaptive verify`` subcommand (see :data:`reference.cli.EXTENSIONS`).

Runs the exact verifier (:mod:`reference.verify.engine`) of every shipped filter/odometer
(:data:`reference.verify.targets.TARGETS`) against the standard adaptive randomized-response
adversaries and prints the certified slack table; ``--negative-controls`` also runs the
deliberately broken targets, which must be caught.
"""
from __future__ import annotations

import json
import sys


def _verify(args) -> int:
    from ..verify.targets import negative_control_table, render_table, slack_table

    bar = None
    progress = None
    if not args.no_progress:
        try:
            from tqdm import tqdm
        except ImportError:  # pragma: no cover - tqdm is a dependency
            tqdm = None
        if tqdm is not None:
            def progress(i, n, label):
                nonlocal bar
                if bar is None:
                    bar = tqdm(total=n, desc="verify", unit="run", file=sys.stderr, leave=False)
                bar.set_postfix_str(label[:60], refresh=False)
                bar.n = i
                bar.refresh()
    try:
        rows = slack_table(args.target, args.adversary, args.rounds, progress=progress)
        neg = negative_control_table() if args.negative_controls else []
    except (ValueError, TypeError) as exc:
        if bar is not None:
            bar.close()
        print(f"fullyadaptive verify: error: {exc}", file=sys.stderr)
        return 2
    if bar is not None:
        bar.close()
    if args.json:
        def conv(r):
            d = {k: (str(v) if k in ("eps", "allowed", "achieved_lo", "achieved_hi") and v is not None else v)
                 for k, v in r.items()}
            return d
        out = {"rows": [conv(r) for r in rows], "negative_controls": [r.as_dict() for r in neg]}
        print(json.dumps(out, indent=2, default=str))
    else:
        print(render_table(rows))
        if neg:
            print()
            print(render_table(neg, title="Negative controls (must be FAIL = caught)"))
    bad = [r["target"] for r in rows if r["verdict"] != "pass"] + [r.extra["control"] for r in neg if r.verdict != "FAIL"]
    return 1 if bad else 0


def add_cli(sub) -> list[str]:
    """Register ``verify`` on ``sub`` (an argparse subparsers object); returns the command names."""
    p = sub.add_parser(
        "verify",
        help="exact verifier: certified delta achieved by each filter/odometer against adaptive RR adversaries",
        description="By the reduction to conditional randomized response (whitehouse2022 Lemma 3, rogers2016 Thm 2.7/"
                    "Lemma 3.4) an adaptive RR composition is the worst case. For every shipped filter (hockey-stick "
                    "of the stopped transcript at eps) and odometer (P(exists n: L_n > u_n)) this computes a certified "
                    "enclosure of the achieved delta against loss- and V-dependent adversaries and prints the slack "
                    "table (verdict pass iff the certified upper bound is <= the claimed delta). Exit status 1 if any "
                    "target fails or a negative control is not caught.")
    p.add_argument("--target", default="all", help="target name or 'all' (default); see reference.verify.targets.TARGETS")
    p.add_argument("--adversary", default="all",
                   help="adversary name or 'all' (default): homogeneous, alternating, loss_chasing, variance_spender, "
                        "stopping_time, random_adaptive, delta_spender")
    p.add_argument("--rounds", type=int, default=None, help="horizon in rounds of the smallest step (default: per target)")
    p.add_argument("--negative-controls", action="store_true", help="also run the broken targets (must be caught)")
    p.add_argument("--json", action="store_true", help="print the rows (and per-adversary results) as JSON")
    p.add_argument("--no-progress", action="store_true", help="no tqdm progress bar")
    p.set_defaults(func=_verify)
    return ["verify"]
