"""The ``check-martingales`` subcommand: ``add_cli(subparsers)`` registers it, ``run_cli(args)`` runs it.

``fullyadaptive check-martingales [--backend numpy|cupy] [--paths N] [--steps T]
[--seed S] [--delta D] [--alpha A] [--mc-samples N] [--threads K] [--json] [--quick]
[--include-negative-controls]``

Prints the summary table (process, condition, worst state, margin, verdict) or,
with ``--json``, the full report.  Exit status: 0 every genuine check passes (and,
with ``--include-negative-controls``, every negative control is rejected); 1 a
genuine check fails or is undecided; 2 a usage error (bad value, unavailable
backend); 3 a negative control was not rejected (the run lacks power: more paths).
"""
from __future__ import annotations

import argparse
import sys

from ..martingales.backend import BackendUnavailable
from ..martingales.check import (
    CheckConfig,
    render_table,
    run_checks,
    to_json,
)

__all__ = ["add_cli", "run_cli", "COMMAND"]

COMMAND = "check-martingales"
PROG = "fullyadaptive"
QUICK = {"paths": 50_000, "steps": 200, "mc_samples": 20_000}
FULL = {"paths": 100_000, "steps": 1000, "mc_samples": 100_000}


def add_cli(subparsers) -> list[str]:
    """Register ``check-martingales`` on an argparse subparsers object; returns the command names added."""
    p = subparsers.add_parser(
        COMMAND, help="check the supermartingales and boundaries behind the filters/odometers (exact + Monte Carlo)",
        description="Checks X_0 <= 1 and the one-step supermartingale condition of each process exactly (interval "
                    "arithmetic) and by Monte Carlo, and the crossing frequencies of the boundaries and odometers "
                    "under adaptive randomized-response adversaries with certified Clopper-Pearson bounds. "
                    "Exit status: 0 all genuine checks pass (and negative controls are rejected), 1 a genuine check "
                    "fails, 2 usage error, 3 a negative control escaped.")
    p.add_argument("--backend", choices=("numpy", "cupy"), default="numpy", help="array backend (default numpy)")
    p.add_argument("--paths", type=int, default=None, metavar="N",
                   help=f"Monte Carlo paths per adversary (default {FULL['paths']}, quick {QUICK['paths']})")
    p.add_argument("--steps", type=int, default=None, metavar="T",
                   help=f"steps per path (default {FULL['steps']}, quick {QUICK['steps']})")
    p.add_argument("--seed", type=int, default=0, metavar="S", help="random seed (default 0)")
    p.add_argument("--delta", default="0.1", metavar="D", help="crossing probability of the boundaries (default 0.1; exact decimal)")
    p.add_argument("--alpha", default="1e-9", metavar="A", help="false-alarm level of every Monte Carlo test (default 1e-9)")
    p.add_argument("--mc-samples", type=int, default=None, metavar="N",
                   help=f"samples per grid state of the one-step Monte Carlo route (default {FULL['mc_samples']}, quick {QUICK['mc_samples']})")
    p.add_argument("--threads", type=int, default=None, metavar="K", help="CPU threads (numpy backend; default: CPUs available)")
    p.add_argument("--json", action="store_true", help="print the full JSON report instead of the table")
    p.add_argument("--quick", action="store_true", help="small grids, fewer paths/steps/samples (seconds)")
    p.add_argument("--include-negative-controls", action="store_true",
                   help="also run the deliberately broken processes/boundaries; they must come out 'fail'")
    p.add_argument("--no-progress", action="store_true", help="no progress messages on stderr")
    p.set_defaults(func=run_cli)
    return [COMMAND]


def run_cli(args) -> int:
    """Run ``check-martingales`` for a parsed namespace; prints the table (or JSON) and returns the exit status."""
    base = QUICK if getattr(args, "quick", False) else FULL
    try:
        cfg = CheckConfig(
            backend=args.backend,
            paths=args.paths if args.paths is not None else base["paths"],
            steps=args.steps if args.steps is not None else base["steps"],
            seed=args.seed,
            delta=args.delta,
            alpha=args.alpha,
            mc_samples=args.mc_samples if args.mc_samples is not None else base["mc_samples"],
            quick=bool(args.quick),
            include_negative_controls=bool(args.include_negative_controls),
            threads=args.threads,
        )
        # A bar on a terminal when tqdm is installed; otherwise the heartbeat of reference.cli.main
        # (periodic one-line messages) is the progress.
        progress = (not args.json) and sys.stderr.isatty() and _have_tqdm()
        if progress and getattr(args, "_progress", None) is not None:
            args._progress.close()  # tqdm's bars replace the status line: one display on the terminal
        report = run_checks(cfg, progress=progress)
    except (ValueError, TypeError, BackendUnavailable) as exc:
        print(f"{PROG} {COMMAND}: error: {' '.join(str(exc).split())}", file=sys.stderr)
        return 2
    report["command"] = " ".join([PROG, COMMAND] + _argv_of(args))
    from ..report import build_info

    report.update(build_info())
    if args.json:
        print(to_json(report))
    else:
        print(render_table(report), end="")
    return int(report["exit_status"])


def _have_tqdm() -> bool:
    try:
        import tqdm  # noqa: F401
    except ImportError:
        return False
    return True


def _argv_of(args) -> list[str]:
    out = []
    for name in ("backend", "paths", "steps", "seed", "delta", "alpha", "mc_samples", "threads"):
        v = getattr(args, name, None)
        if v is not None:
            out += [f"--{name.replace('_', '-')}", str(v)]
    for flag in ("json", "quick", "include_negative_controls"):
        if getattr(args, flag, False):
            out.append(f"--{flag.replace('_', '-')}")
    return out


def main(argv=None) -> int:  # pragma: no cover - convenience entry point: python -m reference.martingales
    parser = argparse.ArgumentParser(prog=f"{PROG}")
    sub = parser.add_subparsers(dest="command")
    add_cli(sub)
    args = parser.parse_args([COMMAND] + list(sys.argv[1:] if argv is None else argv))
    return args.func(args)
