"""The ``fullyadaptive figures`` subcommand: the papers' figures, drawn from the catalog (needs ``[plots]``).

``fullyadaptive figures [--out DIR] [--only NAME]`` writes one PNG per figure of
:data:`reference.report.figures.FIGURES` into ``DIR``; every value plotted is computed
from the catalog's functions at the parameters printed on the figure, never read from
stored numbers.  Without matplotlib (``pip install 'fullyadaptive[plots]'``) it prints
one line saying so and exits with status 0.
"""
from __future__ import annotations

import sys

from .common import build_info, error_line


def _figures(args) -> int:
    from ..report import figures as F

    if not str(args.out).strip():
        print(error_line("figures", "--out must name a directory, found an empty string"), file=sys.stderr)
        return 2
    if args.only is not None and args.only not in F.FIGURES:
        print(error_line("figures", f"unknown figure {args.only!r}; known: {', '.join(F.FIGURES)}"), file=sys.stderr)
        return 2
    if not F.have_matplotlib():
        print("fullyadaptive figures: skipped: matplotlib is not installed "
              "(python -m pip install 'fullyadaptive[plots]')", file=sys.stderr)
        return 0
    prog = getattr(args, "_progress", None)
    names = [args.only] if args.only else list(F.FIGURES)
    try:
        written = F.draw(names, args.out, progress=prog)
    except OSError as exc:
        print(error_line("figures", f"cannot write to {args.out!r}: {exc}"), file=sys.stderr)
        return 2
    finally:
        if prog is not None:
            prog.close()  # no progress line after the results
    info = build_info()
    for name, path in written:
        print(f"{name}: {path}")
    print(f"{len(written)} figures by fullyadaptive {info['version']} (commit {info['commit']})")
    return 0


def add_cli(sub) -> list[str]:
    """Register ``figures`` on ``sub`` (an argparse subparsers object); returns the command names."""
    from ..report import figures as F  # no matplotlib import: that happens when drawing

    p = sub.add_parser(
        "figures", help="draw the papers' figures from the catalog (PNG; needs the [plots] extra)",
        description="Draws, from the catalog's functions (never from stored numbers), each figure stating its "
                    "parameters: Whitehouse et al. Figure 1a (lower-order terms of advanced composition vs the "
                    "filter), Figures 1b/3a (filter, mixture and stitched odometers against V = sum eps^2), the rounds "
                    "admitted by every filter against the optimal limit as eps0 varies, Balle et al. Figure 2 "
                    "(amplification against the number of users), Whitehouse et al. Figure 3b (odometers against "
                    "point-wise advanced composition), the calibrated Renyi filter's rounds against its order alpha, "
                    "and the exact verifier's certified delta against the claimed delta. Needs matplotlib: "
                    "python -m pip install 'fullyadaptive[plots]'.")
    p.add_argument("--out", default="fullyadaptive-figures", metavar="DIR",
                   help="directory for the PNG files, created if needed (default ./fullyadaptive-figures)")
    p.add_argument("--only", default=None, metavar="NAME",
                   help="draw only this figure (" + ", ".join(F.FIGURES) + ") "
                        "(default: all)")
    p.set_defaults(func=_figures)
    return ["figures"]
