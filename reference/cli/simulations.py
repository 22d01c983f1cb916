"""Subcommands that run simulations on arrays (see ``reference.cli.app.EXTENSIONS``).

* ``fullyadaptive individual-filter``: Feldman and Zrnic's individual privacy
  filter (feldman2021 Algorithm 3 / Theorem 4.5) on noisy gradient descent for
  logistic regression on a seeded synthetic dataset (:mod:`reference.simulate.individual`).
* ``fullyadaptive checkins``: a random check-in protocol of Balle et al. run end to end
  (:func:`reference.simulate.checkins.run_protocol`).
"""
from __future__ import annotations

import json
import sys

from .common import build_info, error_line


def _individual(args) -> int:
    from ..simulate.individual import run_individual_filter

    kw = {k: getattr(args, k) for k in ("alpha", "sigma", "clip", "budget", "lr", "delta", "seed")}
    kw = {k: v for k, v in kw.items() if v is not None}
    try:
        res = run_individual_filter(args.n, args.d, args.steps, readmit=not args.no_readmit, **kw)
    except (ValueError, TypeError) as exc:
        print(error_line("individual-filter", str(exc)), file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps({**res.as_dict(), **build_info()}, indent=2))
    else:
        print(res.summary())
    return 0


def _add_individual(sub) -> list[str]:
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
    p.add_argument("--json", action="store_true", help="print the full run as JSON (with version and commit)")
    p.set_defaults(func=_individual)
    return ["individual-filter"]


def _add_checkins(sub) -> list[str]:
    """Register ``fullyadaptive checkins``: run a balle2020 protocol end to end (see :func:`run_protocol`)."""
    p = sub.add_parser(
        "checkins", help="run a random check-in protocol (balle2020) and report utility and privacy",
        description="Runs a random check-in protocol of Balle et al. end to end on a seeded synthetic task: DP-SGD "
                    "for logistic regression with local randomizers (task logreg), or a mean estimate of the "
                    "clients' bits by randomized response (task mean_bit). Reports utility, dummy updates against "
                    "Propositions 3.4/4.4, and the central (eps, delta) of the matching amplification bound "
                    "(reference.bounds.balle2020). Deterministic given --seed. Numbers are parsed exactly.")
    p.add_argument("--protocol", choices=("fixed", "averaged", "sliding"), default="fixed",
                   help="fixed window (Algorithm 1), averaged updates (Algorithm 2) or sliding windows (Section 4.2) "
                        "(default: fixed)")
    p.add_argument("--task", choices=("logreg", "mean_bit"), default="logreg",
                   help="logistic regression by DP-SGD, or the mean of the clients' bits (default: logreg)")
    p.add_argument("--randomizer", choices=("laplace", "gaussian", "rr"), default=None,
                   help="local randomizer: laplace (eps0-DP) or gaussian (needs --sigma) for logreg, rr for mean_bit "
                        "(default: laplace for logreg, rr for mean_bit)")
    p.add_argument("--n", type=int, default=1000, help="number of clients (default 1000)")
    p.add_argument("--m", type=int, default=None, help="number of server steps (window size) (default: max(1, n // 10))")
    p.add_argument("--p0", default=None,
                   help="check-in probability, in (0, 1] (default: m/n for the fixed window (Remark 1), 1 otherwise)")
    p.add_argument("--eps0", default="1", help="the local randomizer's epsilon (default 1)")
    p.add_argument("--sigma", default=None,
                   help="noise standard deviation of the Gaussian randomizer (default: none; required for gaussian)")
    p.add_argument("--clip", default="1", help="clipping norm of the clients' gradients, L in Theorem 3.5 (default 1)")
    p.add_argument("--d", type=int, default=5, help="dimension of the logistic regression task (default 5)")
    p.add_argument("--delta", default="1e-6", help="delta of the central (eps, delta) guarantee, in (0, 1) (default 1e-6)")
    p.add_argument("--T", type=int, default=None,
                   help="server steps of the sliding-window protocol (default: n - m + 1)")
    p.add_argument("--seed", type=int, default=0, help="seed of the data, the check-ins and the noise (default 0)")
    p.add_argument("--json", action="store_true", help="print the full run as JSON (with version and commit)")

    def run(args) -> int:
        from ..simulate.checkins import run_protocol

        rzk = args.randomizer or ("rr" if args.task == "mean_bit" else "laplace")
        try:
            res = run_protocol(args.protocol, n=args.n, m=args.m, p0=args.p0, task=args.task, randomizer=rzk,
                               eps0=args.eps0, sigma=args.sigma, clip=args.clip, d=args.d, delta=args.delta,
                               T=args.T, seed=args.seed)
        except (ValueError, TypeError) as exc:
            print(error_line("checkins", str(exc)), file=sys.stderr)
            return 2
        print(json.dumps({**res.as_dict(), **build_info()}, indent=2, default=str) if args.json else res.summary())
        return 0

    p.set_defaults(func=run)
    return ["checkins"]


def add_cli(sub) -> list[str]:
    """Register the simulation subcommands on ``sub`` (an argparse subparsers object); returns their names."""
    return _add_individual(sub) + _add_checkins(sub)
