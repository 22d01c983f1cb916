"""Subcommands that run simulations on arrays (see :data:`reference.cli.EXTENSIONS`).

* ``fullyadaptive individual-filter``: Feldman and Zrnic's individual privacy
  filter (feldman2021 Algorithm 3 / Theorem 4.5) on noisy gradient descent for
  logistic regression on a seeded synthetic dataset.
"""
from __future__ import annotations

import json
import sys


def _individual(args) -> int:
    from .individual import run_individual_filter

    kw = {k: getattr(args, k) for k in ("alpha", "sigma", "clip", "budget", "lr", "delta", "seed")}
    kw = {k: v for k, v in kw.items() if v is not None}
    try:
        res = run_individual_filter(args.n, args.d, args.steps, readmit=not args.no_readmit, **kw)
    except (ValueError, TypeError) as exc:
        print(f"fullyadaptive individual-filter: error: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(res.as_dict(), indent=2))
    else:
        print(res.summary())
    return 0


def add_cli(sub) -> list[str]:
    """Register the simulation subcommands on ``sub`` (an argparse subparsers object); returns their names."""
    p = sub.add_parser(
        "individual-filter",
        help="feldman2021 Algorithm 3: individual Renyi filter on noisy gradient descent (NumPy demo)",
        description="Noisy full-batch gradient descent for logistic regression on a seeded synthetic dataset. "
                    "Each point's individual Renyi loss alpha*||clipped grad||^2/(2 sigma^2) is tracked and the point "
                    "is left out of a step that would take it past its budget B (Feldman and Zrnic, Algorithm 3). "
                    "Prints active points per step, utility against worst-case DP-GD, and the (eps, delta)-DP guarantee.")
    p.add_argument("--n", type=int, default=1000, help="number of data points (default 1000)")
    p.add_argument("--d", type=int, default=10, help="dimension (default 10)")
    p.add_argument("--steps", type=int, default=200, help="gradient steps (default 200)")
    p.add_argument("--alpha", help="Renyi order alpha > 1 (default 8)")
    p.add_argument("--sigma", help="noise std on the sum of clipped gradients (default 20)")
    p.add_argument("--clip", help="clipping radius C (default 1)")
    p.add_argument("--budget", help="individual Renyi budget B (default: worst case allows steps/4 steps)")
    p.add_argument("--lr", help="learning rate (default 0.1)")
    p.add_argument("--delta", help="delta of the reported (eps, delta)-DP guarantee (default 1e-5)")
    p.add_argument("--seed", type=int, help="seed of data and noise (default 0)")
    p.add_argument("--no-readmit", action="store_true",
                   help="drop a point for good at its first refusal (published Algorithm 3 re-checks every step)")
    p.add_argument("--json", action="store_true", help="print the full run as JSON")
    p.set_defaults(func=_individual)
    return ["individual-filter"]
