"""The ``fullyadaptive plan`` subcommand (see :data:`reference.cli.EXTENSIONS`): choose a filter BEFORE the interaction.

The computation is :func:`reference.bounds.planner.plan` (workload syntax in that module's docstring).
"""
from __future__ import annotations

import json
import sys

from ..bounds.planner import Step, parse_workload, plan, render_plan  # noqa: F401  (re-exported)

__all__ = ["Step", "parse_workload", "plan", "render_plan", "add_cli"]


def _plan(args) -> int:
    from .common import build_info, error_line

    try:
        p = plan(args.eps, args.delta, args.workload)
    except (ValueError, TypeError) as exc:
        print(error_line("plan", str(exc)), file=sys.stderr)
        return 2
    if args.json:
        out = {**p, "eps": str(p["eps"]), "delta": str(p["delta"]), **build_info()}
        print(json.dumps(out, indent=2, default=str))
    else:
        print(render_plan(p))
    return 0


def add_cli(sub) -> list[str]:
    """Register ``plan`` on ``sub`` (an argparse subparsers object); returns the command names."""
    p = sub.add_parser(
        "plan",
        help="choose a fully adaptive filter before the interaction: rounds of every valid filter vs the optimal limit",
        description="For a target (eps, delta) and an anticipated workload, list every valid fully adaptive filter's "
                    "admitted rounds (exact decisions) against the optimal non-adaptive limit, with a '% of optimal' "
                    "column, and recommend one. The choice must be fixed before the interaction. Workload items "
                    "(';' or ',' separated, repeated as a cycle): rr:EPS, dp:EPS, gaussian:sigma=S[:sensitivity=D], "
                    "gdp:MU, each optionally followed by *N.")
    p.add_argument("--eps", required=True, help="target epsilon > 0 (exact decimal, e.g. 1)")
    p.add_argument("--delta", required=True, help="target delta in (0, 1) (exact decimal, e.g. 1e-6)")
    p.add_argument("--workload", required=True, help="anticipated workload, e.g. rr:0.01 or 'gaussian:sigma=20;rr:0.01*2'")
    p.add_argument("--json", action="store_true", help="print the plan as JSON (with version and commit)")
    p.set_defaults(func=_plan)
    return ["plan"]
