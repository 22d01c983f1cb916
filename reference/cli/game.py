"""The ``fullyadaptive game`` subcommand (see ``reference.cli.app.EXTENSIONS``): the game filter's certified budget.

The computation is :func:`reference.bounds.game_filter.game_budget`; the stateful filter is
:class:`reference.accountants.game.GameFilter`.  With ``--menu`` (subsampled-Gaussian items) it is
:func:`reference.profiles.sgm_plan.menu_certificate`, the budget of
:class:`reference.accountants.dpsgd_game.DPSGDGameFilter`.
"""
from __future__ import annotations

import json
import sys

from .common import DEFAULT_MAX_SECONDS

__all__ = ["add_cli"]


#: Cell updates per second assumed for the up-front refusal: several times what the engine reaches (about 5e7/s), so
#: that a run refused on time could not have finished; runs below it are stopped by the deadline instead.
FAST_UPDATES_PER_SECOND = 4e8


def _menu_game(args, start: float) -> int:
    """``game --menu``: the DP-SGD game filter's B* and its certificate, computed in a worker process stopped at the limit."""
    import time

    from ..bounds.game import MAX_BYTES, GameMemoryError
    from ..precision import bounded_decimal, compact_text
    from ..profiles.sgm_plan import MENU_BITS, menu_certificate
    from .common import UsageError, build_info, error_line, format_bytes, parse_memory, parse_seconds, run_in_child

    try:
        seconds = parse_seconds(args.max_seconds)
        cap = min(MAX_BYTES, parse_memory(args.max_memory))
        if args.grid is not None or args.eps_max is not None:
            raise UsageError("--grid and --eps-max belong to the pure-DP game; a menu's loss grid is 2^-bits (--bits)")
        bits = MENU_BITS if args.bits is None else args.bits
        costs = None if args.costs is None else [c.strip() for c in args.costs.split(",")]
        from ..bounds.sgm_game import parse_menu
        from ..precision import Domain, check

        eps, delta = check("eps", args.eps, Domain.positive()), check("delta", args.delta, Domain.open_unit())
        parse_menu(args.menu)   # a bad menu is named here, before the worker starts
        if args.block is not None and args.block < 1:
            raise UsageError(f"--block must be an integer >= 1 (steps per block), found {args.block}")
        done, cert, _ = run_in_child(lambda report: menu_certificate(eps, delta, args.menu, bits=bits, costs=costs,
                                                                     max_bytes=cap, block=args.block),
                                     seconds=max(seconds - (time.monotonic() - start), 1e-3))
    except GameMemoryError as exc:
        print(error_line("game", f"{exc} (the engine's cap: min(--max-memory, {format_bytes(MAX_BYTES)}))"), file=sys.stderr)
        return 2
    except (UsageError, ValueError, TypeError) as exc:
        print(error_line("game", str(exc)), file=sys.stderr)
        return 2
    if not done:
        print(error_line("game", f"stopped at the time limit --max-seconds {seconds:g} before the menu's game finished "
                                 f"(nothing certified to print); coarsen the grid (--bits) or raise --max-seconds"),
              file=sys.stderr)
        return 2
    d = {**cert.as_dict(), "k0": list(cert.extra["k0"]), "rounds": [cert.rounds(i) for i in range(len(cert.items))],
         "refuted_by": cert.extra.get("refuted_by", "game" if cert.decided else None)}
    if args.json:
        print(json.dumps({**d, **build_info()}, indent=2))
        return 0
    c = lambda q: compact_text(q, ratio=True)  # noqa: E731
    print(f"DP-SGD game filter for target (eps, delta) = ({c(cert.eps)}, {c(cert.delta)}), loss grid 2^-{cert.bits}, "
          f"menu of {len(cert.items)} subsampled-Gaussian item(s):")
    per = "floor(B*/cost) blocks of its length" if cert.blocks else "floor(B*/cost)"
    print(f"  budget B* = {cert.budget} units; each item's cost, and the steps a homogeneous run of it gets ({per}):")
    for i, it in enumerate(cert.items):
        k0 = cert.extra["k0"][i]
        share = f"{100 * cert.rounds(i) / k0:.1f}% of" if k0 else "of"
        blk = f" per block of {cert.blocks[i]} steps" if cert.blocks else ""
        print(f"    {it}: cost {cert.costs[i]}{blk}, {cert.rounds(i)} steps ({share} k0 = {k0}, the item alone at this grid)")
    if cert.blocks:
        print("  a step inside an open block of an item dominating it is free; any other step opens a block of the item "
              "cheapest per step with q <= q_k and sigma/scale >= sigma_k/scale_k (the rest of the open block is forfeited)")
    else:
        print("  a step (q, sigma, scale) is charged at the cheapest item with q <= q_k and sigma/scale >= sigma_k/scale_k")
    up = bounded_decimal(cert.upper_at_budget, 6, "upper", probability=True)
    if cert.lower_above is None:
        tail = "; B* + 1 not examined (B* is the largest budget searched: safe, perhaps not the largest)"
    elif cert.decided:
        by = cert.extra.get("refuted_by", "game")
        tail = (f"; at B* + 1 >= {bounded_decimal(cert.lower_above, 6, 'lower', probability=True)} > delta "
                f"(B* is the largest budget for this menu" + ("" if by == "game" else f"; by a {by}") + ")")
    else:
        tail = (f"; at B* + 1 >= {bounded_decimal(cert.lower_above, 6, 'lower', probability=True)}, not above delta "
                f"(B* is safe, perhaps not the largest; a finer grid, --bits, tightens the bracket)")
    print(f"  certificate: game value at B* <= {up} <= delta (both add and remove directions)" + tail)
    print(f"  {cert.seconds:.2f} s")
    return 0


def _game(args) -> int:
    import time

    from ..bounds.game import MAX_BYTES, GameMemoryError, GameTimeout
    from ..bounds.game_filter import GameTooLarge, game_budget, game_size
    from ..precision import bounded_decimal, compact_text
    from .common import UsageError, build_info, error_line, format_bytes, parse_memory, parse_seconds

    start = time.monotonic()
    if args.menu is not None:
        return _menu_game(args, start)
    if args.bits is not None or args.costs is not None or args.block is not None:
        print(error_line("game", "--bits, --costs and --block belong to a DP-SGD menu (--menu)"), file=sys.stderr)
        return 2
    if args.grid is None:
        print(error_line("game", "--grid is required (or --menu for a DP-SGD menu)"), file=sys.stderr)
        return 2
    try:
        seconds = parse_seconds(args.max_seconds)
        memory = parse_memory(args.max_memory)
        cap = min(MAX_BYTES, memory)
        size = game_size(args.eps, args.delta, args.grid, args.eps_max, max_bytes=cap)
        if size["too_fine"]:
            raise UsageError(size["too_fine"])
        if size["bytes"] > memory:
            raise UsageError(f"the game needs at least {format_bytes(size['bytes'])} for its rows (horizon >= "
                             f"{size['horizon_min']}, window {size['window']}), more than --max-memory "
                             f"{format_bytes(memory)}; coarsen the grid, lower --eps-max or raise --max-memory")
        fastest = size["updates"] / FAST_UPDATES_PER_SECOND
        if fastest > seconds:
            raise UsageError(f"the game needs at least {size['updates']:.3g} cell updates (horizon >= "
                             f"{size['horizon_min']}), more than {fastest:.0f} s even at {FAST_UPDATES_PER_SECOND:.0e} "
                             f"per second, over --max-seconds {seconds:g}; coarsen the grid or raise --max-seconds")
        gb = game_budget(args.eps, args.delta, args.grid, args.eps_max, max_bytes=cap, deadline=start + seconds)
    except GameTimeout:
        print(error_line("game", f"stopped at the time limit --max-seconds {seconds:g} before the game finished "
                                 f"(nothing certified to print); coarsen the grid or raise --max-seconds"), file=sys.stderr)
        return 2
    except GameMemoryError as exc:
        print(error_line("game", f"{exc} (the engine's cap: min(--max-memory, {format_bytes(MAX_BYTES)}))"), file=sys.stderr)
        return 2
    except (GameTooLarge, UsageError, ValueError, TypeError) as exc:
        print(error_line("game", str(exc)), file=sys.stderr)
        return 2
    cert = gb.as_dict()
    if args.json:
        print(json.dumps({**cert, "seconds": round(gb.seconds, 3), **build_info()}, indent=2))
        return 0
    pct = 100 * gb.budget / gb.kov if gb.kov else 100.0
    c = lambda q: compact_text(q, ratio=True)  # noqa: E731
    print(f"Game-certified filter for target (eps, delta) = ({c(gb.eps)}, {c(gb.delta)}), grid g = {c(gb.grid)}:")
    print(f"  budget B* = {gb.budget} units of g^2: {gb.budget} steps of {c(gb.grid)}-DP "
          f"({pct:.1f}% of the optimal non-adaptive {gb.kov})")
    print(f"  a step eps_t <= eps_max = {c(gb.eps_max)} is charged (g m)^2, m the least menu multiple with g m >= eps_t;")
    print(f"  menu multiples m: {', '.join(map(str, gb.steps))}")
    # the game values are probabilities, printed directed (a double's %g rounds to nearest, and loses digits below 1e-308)
    print(f"  certificate: game value at B* <= {bounded_decimal(gb.upper_at_budget, 6, 'upper', probability=True)} <= delta"
          + (f"; at B* + 1 >= {bounded_decimal(gb.lower_above, 6, 'lower', probability=True)} > delta "
             f"(B* is the largest budget for this menu)"
             if gb.decided else "; B* + 1 not certified above delta (B* is safe, perhaps not the largest)"))
    print(f"  engine {gb.engine}, horizon {gb.R_max}, {gb.seconds:.2f} s")
    return 0


def add_cli(sub) -> list[str]:
    """Register ``game`` on ``sub`` (an argparse subparsers object); returns the command names."""
    p = sub.add_parser(
        "game",
        help="the game-certified filter's budget for a target (eps, delta) and a grid, with its certificate",
        description="Compute, by the exact adaptive game (backward induction over the randomized-response transcript, "
                    "certified), the largest budget B* such that the filter charging each eps_t-DP step (g ceil(eps_t/g))^2 "
                    "on its menu and admitting while the charges fit B* is (eps, delta)-DP against every fully adaptive "
                    "analyst. Prints B* and its certificate (the game value at B* and at B* + 1). With --menu, the same for "
                    "a DP-SGD menu of Poisson-subsampled Gaussian steps (each step charged at the cheapest item "
                    "dominating it), on the loss grid 2^-bits.")
    p.add_argument("--eps", required=True, help="target epsilon > 0 (exact decimal, e.g. 1)")
    p.add_argument("--delta", required=True, help="target delta in [1e-300, 1) (exact decimal, e.g. 1e-6)")
    p.add_argument("--grid", default=None, help="grid unit g > 0, e.g. the workload's eps0 (0.01); required without --menu")
    p.add_argument("--eps-max", default=None, help="largest step certified (default: the budget's reach)")
    p.add_argument("--max-seconds", default=str(DEFAULT_MAX_SECONDS), metavar="S",
                   help=f"stop after S seconds and exit with status 2 naming the limit; a game whose least cell "
                        f"count could not finish within S is refused at once (default {DEFAULT_MAX_SECONDS:g})")
    p.add_argument("--max-memory", default="2G", metavar="SIZE",
                   help="refuse at once (exit status 2, naming the estimate) a game whose rows need more than SIZE "
                        "(e.g. 500M, 2G; the engine's own cap, reference.bounds.game.MAX_BYTES = 900 MiB, also "
                        "applies) (default 2G)")
    p.add_argument("--menu", default=None, metavar="SPEC",
                   help="a DP-SGD menu instead of the pure-DP grid: subsampled-Gaussian items joined by ';', e.g. "
                        "'subsampled-gaussian:q=0.1,sigma=0.5;subsampled-gaussian:q=0.1,sigma=0.625' (optional ,scale=C "
                        "<= 1); prints the DP-SGD game filter's B* with its certificate (reference.bounds.sgm_game)")
    p.add_argument("--bits", type=int, default=None, metavar="N",
                   help="with --menu: the loss grid 2^-N, an integer in [1, 30] (finer: tighter and slower; default "
                        "reference.profiles.sgm_plan.MENU_BITS = 6)")
    p.add_argument("--costs", default=None, metavar="C1,C2,..",
                   help="with --menu: one positive integer cost per item (default: in proportion to each item's own "
                        "optimum, reference.bounds.sgm_game.default_costs)")
    p.add_argument("--block", type=int, default=None, metavar="M",
                   help="with --menu: charge per block (M steps for the item with the fewest blocks in its own optimum, "
                        "longer blocks for the others; one unit per block unless --costs); default: every step charged")
    p.add_argument("--json", action="store_true", help="print the certificate as JSON (with version and commit)")
    p.set_defaults(func=_game)
    return ["game"]
