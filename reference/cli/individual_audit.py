"""The ``fullyadaptive audit`` subcommand (see ``reference.cli.app.EXTENSIONS``): per-example guarantees of a recorded DP-SGD run.

The computation is :func:`reference.accountants.individual_game.audit`; the stateful filter is
:class:`reference.accountants.individual_game.IndividualDPSGDGameFilter`.
"""
from __future__ import annotations

import json
import sys

__all__ = ["add_cli"]


def _split(value: str | None, option: str):
    if value is None:
        return None
    parts = [p.strip() for p in value.split(",")]
    if not all(parts):
        from .common import UsageError

        raise UsageError(f"{option} must be a comma-separated list of numbers, found {value!r}")
    return parts


def _audit(args) -> int:
    import numpy as np

    from ..accountants.individual_game import DEFAULT_SCALES, audit
    from .common import UsageError, build_info, error_line

    try:
        try:
            norms = np.load(args.norms, mmap_mode="r", allow_pickle=False)
        except FileNotFoundError:
            raise UsageError(f"NORMS must be an existing .npy file, found {args.norms!r} (no such file)") from None
        except (OSError, ValueError) as exc:
            raise UsageError(f"NORMS must be a .npy file of a (steps x examples) array, found {args.norms!r}: {exc}") from None
        if not isinstance(norms, np.ndarray):
            raise UsageError(f"NORMS must hold one array (a .npy file, not .npz), found {args.norms!r}")
        scales = _split(args.scales, "--scales") or list(DEFAULT_SCALES)
        res = audit(norms, args.q, args.sigma, args.eps, args.delta, args.clip, scales=scales, bits=args.bits,
                    costs=_split(args.costs, "--costs"), eps_grid=_split(args.eps_grid, "--eps-grid"))
    except (UsageError, ValueError, TypeError) as exc:
        print(error_line("audit", str(exc)), file=sys.stderr)
        return 2
    s = res.summary()
    if args.per_example:
        np.save(args.per_example, np.stack([res.charges, res.within.astype(np.int64), res.certified_eps_index]))
    if args.json:
        print(json.dumps({**s, **build_info()}, indent=2))
        return 0
    print(f"Per-example audit of {s['steps']} steps x {s['examples']} examples: Poisson rate q = {s['q']}, noise "
          f"sigma = {s['sigma']}, clip C = {s['clip']}, target (eps, delta) = ({s['eps']}, {s['delta']})")
    print(f"  menu: scales {', '.join(s['scales'])} (norm/C rounded up), costs {', '.join(map(str, s['costs']))}; "
          f"certified budget B* = {s['budget']} (grid 2^-{s['bits']})")
    print(f"  within B*: {s['within']} examples; above it: {s['exceeding']} (largest charge {s['max_charge']})")
    print("  least grid eps whose budget covers the charges (ex post: each eps is its own filter's guarantee):")
    for e, b in zip(s["eps_grid"], s["grid_budgets"]):
        print(f"    eps = {e:>8}  B* = {b:>8}  examples: {s['examples_per_certified_eps'][e]}")
    print(f"    none of the grid: {s['examples_per_certified_eps']['none']}")
    return 0


def add_cli(sub) -> list[str]:
    """Register ``audit`` on ``sub`` (an argparse subparsers object); returns the command names."""
    p = sub.add_parser(
        "audit",
        help="per-example guarantees of a recorded DP-SGD run (steps x examples gradient norms), by the exact game",
        description="Replay a recorded (steps x examples) array of per-example gradient norms (0 where an example was "
                    "not used) through the per-example DP-SGD filter certified by the exact adaptive game: each "
                    "example's total charge, whether it fits the certified budget B* at (eps, delta) (then every step of "
                    "it is one the filter admits), and the least eps of a grid whose budget covers it. Scales norm/C "
                    "are rounded up to --scales.")
    p.add_argument("norms", metavar="NORMS.npy", help="a .npy file holding a 2-d float array, steps x examples")
    p.add_argument("--q", required=True, help="Poisson sampling rate in (0, 1] (exact decimal)")
    p.add_argument("--sigma", required=True, help="noise multiplier > 0 (noise standard deviation sigma * clip)")
    p.add_argument("--clip", required=True, help="clipping norm C > 0")
    p.add_argument("--eps", required=True, help="target epsilon > 0")
    p.add_argument("--delta", required=True, help="target delta in (0, 1)")
    p.add_argument("--scales", default=None, help="increasing sensitivity scales in (0, 1], ending at 1, comma-separated "
                                                   "(default 1/4,1/2,3/4,1)")
    p.add_argument("--costs", default=None, help="one positive integer cost per scale, comma-separated (default: "
                                                  "proportional to each scale's own optimum)")
    p.add_argument("--eps-grid", default=None, help="eps values for the per-example certified eps, comma-separated "
                                                     "(default eps times 1/4, 1/2, 3/4, 1, 3/2, 2)")
    p.add_argument("--bits", type=int, default=6, help="loss grid 2^-bits of the game (finer is tighter and slower)")
    p.add_argument("--per-example", default=None, metavar="OUT.npy",
                   help="also save a 3 x examples int64 array: charges, within (0/1), certified grid index (-1: none)")
    p.add_argument("--json", action="store_true", help="print the summary as JSON (with version and commit)")
    p.add_argument("--no-progress", action="store_true", help="no progress messages on stderr")
    p.set_defaults(func=_audit)
    return ["audit"]
