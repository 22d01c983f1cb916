"""The ``fullyadaptive plan`` subcommand (see ``reference.cli.app.EXTENSIONS``): choose a filter BEFORE the interaction.

The workload is one cycle in the syntax of ``fullyadaptive check`` (the old plan syntax is a
deprecated alias); the computation is :func:`reference.profiles.workload.plan_workload` (the
optimum number of cycles k*, exact or a certified bracket, beside the filters' rounds of
:func:`reference.bounds.planner.plan`).  A cycle of subsampled-Gaussian steps gets the DP-SGD game filter's row
on ``--menu`` (default: the cycle's items) at the grid 2^-``--bits`` and a Renyi filter's
(:mod:`reference.profiles.sgm_plan`); the game's certificate is computed in a worker process stopped at the
time left.
"""
from __future__ import annotations

import json
import sys

from ..bounds.planner import Step, parse_workload, plan, render_plan  # noqa: F401  (re-exported)

from .common import DEFAULT_MAX_SECONDS

__all__ = ["Step", "parse_workload", "plan", "render_plan", "add_cli"]


def _bracket_in_child(steps, eps, seconds):
    """One certified delta(eps) bracket of the k-fold cycle, in a worker process killed after ``seconds``
    (:func:`reference.cli.common.run_in_child`); ``TimeoutError`` then."""
    from ..profiles.check import profile
    from .common import run_in_child

    done, b, _ = run_in_child(lambda st, e, report: profile(st, "delta", e), (steps, eps), seconds=seconds)
    if not done:
        raise TimeoutError(seconds)
    return b


def _certificate_in_child(eps, delta, items, bits, max_bytes, seconds, block=None):
    """The DP-SGD menu's certificate (:func:`reference.bounds.sgm_game.sgm_menu_certificate`) in a worker process killed
    after ``seconds`` (:func:`reference.cli.common.run_in_child`); ``TimeoutError`` then."""
    from ..bounds.sgm_game import sgm_menu_certificate
    from .common import run_in_child

    done, cert, _ = run_in_child(lambda e, d, it, b, m, k, report: sgm_menu_certificate(e, d, it, bits=b, max_bytes=m,
                                                                                        block=k),
                                 (eps, delta, items, bits, max_bytes, block), seconds=seconds if seconds is not None else 1e9)
    if not done:
        raise TimeoutError(seconds)
    return cert


def _plan(args) -> int:
    from ..precision import compact_text
    from ..bounds.game import MAX_BYTES
    from ..profiles.sgm_plan import MENU_BITS
    from ..profiles.workload import plan_workload, render_workload_plan
    from .common import UsageError, build_info, error_line, parse_memory, parse_seconds

    try:
        seconds = parse_seconds(args.max_seconds)
        cap = min(MAX_BYTES, parse_memory(args.max_memory))
        if (args.bits is not None or args.block is not None) and args.menu is None:
            from ..profiles.sgm_plan import sgm_cycle
            from ..profiles.workload import parse_cycle

            if sgm_cycle(parse_cycle(args.workload)[0]) is None:
                raise UsageError("--bits is the DP-SGD game's grid and --block its block length: they need a workload of "
                                 "subsampled-gaussian steps (or --menu)")
        p = plan_workload(args.eps, args.delta, args.workload, max_evaluations=args.max_evaluations,
                          max_seconds=seconds, max_bytes=cap, evaluate=_bracket_in_child, menu=args.menu,
                          bits=MENU_BITS if args.bits is None else args.bits,
                          certify=_certificate_in_child, block=args.block)
    except (UsageError, ValueError, TypeError, OSError) as exc:
        print(error_line("plan", str(exc)), file=sys.stderr)
        return 2
    if p["syntax"] != "check":
        print(f"fullyadaptive plan: note: {args.workload!r} is in the old plan syntax (deprecated); in the check syntax "
              f"it is {' + '.join(p['cycle'])!r}", file=sys.stderr)
    if p["optimum"]["stopped"]:
        print(f"fullyadaptive plan: note: the search for k* {p['optimum']['stopped']}; the bracket printed is certified "
              f"but wider than it could be", file=sys.stderr)
    if args.json:
        out = {**p, "eps": compact_text(p["eps"], ratio=True), "delta": compact_text(p["delta"], ratio=True), **build_info()}
        print(json.dumps(out, indent=2, default=str))
    else:
        print(render_workload_plan(p))
    return 0


def add_cli(sub) -> list[str]:
    """Register ``plan`` on ``sub`` (an argparse subparsers object); returns the command names."""
    p = sub.add_parser(
        "plan",
        help="choose a fully adaptive filter before the interaction: the optimum k* and every valid filter's rounds",
        description="For a target (eps, delta) and one cycle of an anticipated workload, report the optimum k*: the "
                    "largest number of repetitions of the cycle whose composition is (eps, delta)-DP (exact where the "
                    "library has an exact profile, else a certified bracket [k_lo, k_hi] from the brackets 'check' uses), "
                    "and every valid fully adaptive filter's admitted rounds (exact decisions) with their complete "
                    "cycles and percentage of k*; recommend one. The choice must be fixed before the interaction. "
                    "The workload is a 'check' spec: rr:EPS, gaussian:sigma=S,sensitivity=D, laplace:b=B,sensitivity=D, "
                    "subsampled-gaussian:q=Q,sigma=S, zcdp:rho=R, joined by '+' or ';'; the count after 'x' is the "
                    "item's multiplicity in ONE cycle (e.g. rr:0.01x10+gaussian:sigma=50x2 is a cycle of 12 steps). "
                    "The old syntax (gdp:MU, gaussian:sigma=S:sensitivity=D, items joined by ',', '*N') is still "
                    "read, with a deprecation note.")
    p.add_argument("--eps", required=True, help="target epsilon > 0 (exact decimal, e.g. 1)")
    p.add_argument("--delta", required=True, help="target delta in (0, 1) (exact decimal, e.g. 1e-6)")
    p.add_argument("--workload", required=True,
                   help="one cycle of the anticipated workload in the check syntax, e.g. rr:0.01 or "
                        "'subsampled-gaussian:q=0.01,sigma=1.1x100'")
    p.add_argument("--max-evaluations", type=int, default=120, metavar="N",
                   help="most certified brackets the search for k* evaluates (default 120)")
    p.add_argument("--max-seconds", default=str(DEFAULT_MAX_SECONDS), metavar="S",
                   help="the plan's time limit: the filters' rows, then the search for k* with the time left, each "
                        "bracket in a worker process stopped at the limit; the certified ends found are kept and a "
                        f"row not finished is printed as not computed (default {DEFAULT_MAX_SECONDS:g})")
    p.add_argument("--max-memory", default="2G", metavar="SIZE",
                   help="memory for the game filter's rows (e.g. 500M, 2G; also capped by "
                        "reference.bounds.game.MAX_BYTES = 900 MiB); a game over it is printed as not computed, "
                        "with its estimate (default 2G)")
    p.add_argument("--menu", default=None, metavar="SPEC",
                   help="the DP-SGD game filter's menu, for a workload of subsampled-gaussian steps: items joined by ';', "
                        "e.g. 'subsampled-gaussian:q=0.1,sigma=0.5;subsampled-gaussian:q=0.1,sigma=0.625' (optional "
                        ",scale=C <= 1); every workload step must be dominated by an item (q <= item q, sigma/scale >= "
                        "item sigma/scale). Default: the workload's own items")
    p.add_argument("--bits", type=int, default=None, metavar="N",
                   help="the DP-SGD game's loss grid 2^-N, an integer in [1, 30] (finer: tighter and slower; default "
                        "reference.profiles.sgm_plan.MENU_BITS = 6)")
    p.add_argument("--block", type=int, default=None, metavar="M",
                   help="the DP-SGD game filter charges per block: M steps per block for the item with the fewest "
                        "blocks in its own optimum, longer blocks for the others (a step switches items only by opening "
                        "a block; reference.bounds.pair_game step 7). Default: every step is charged")
    p.add_argument("--json", action="store_true", help="print the plan as JSON (with version and commit)")
    p.set_defaults(func=_plan)
    return ["plan"]
