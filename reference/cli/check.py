"""``fullyadaptive check`` and ``fullyadaptive crosscheck`` (see ``reference.cli.app.EXTENSIONS``).

* ``check SPEC --eps E --delta D``: is the composition SPEC (eps, delta)-DP?  A certified verdict
  from :func:`reference.profiles.check.check`; exit status 0 (valid), 1 (invalid:
  anti-conservative), 3 (undecided: the certified bracket straddles the claim), 2 (bad input, or
  an input beyond a stated limit, refused with a message naming it), 4 (an internal error:
  :func:`~reference.cli.app.main` turns any unexpected exception into one line and status 4, so 1
  always means a certified anti-conservative claim).
* ``check --event FILE.json --eps E --delta D``: the same for a dp-accounting ``DpEvent`` serialised as JSON
  (:mod:`reference.profiles.dp_events`: the fields of its ``to_named_tuple()`` form, nested events as objects).
* ``crosscheck --peer NAME|all``: runs the golden vectors (``reference/data/vectors``) through
  each installed peer library and grades each answer against the certified interval
  (:mod:`reference.profiles.peers`); exit status 1 if a peer is anti-conservative somewhere.
  ``--workers N`` / ``--scheduler ADDRESS`` run the cases on a local process pool (the default)
  or a Dask cluster (:mod:`reference.profiles.executor`).
  ``crosscheck --findings all|ID[,ID]`` instead re-runs recorded peer findings
  (:mod:`reference.profiles.findings`): exit status 1 if one no longer holds, 2 for an unknown id.
"""
from __future__ import annotations

import json
import sys

from .common import DEFAULT_MAX_SECONDS, UsageError, build_info, error_line, parse_seconds, run_in_child


#: Seconds before ``--max-seconds`` at which the worker stops starting new brackets (it is killed at the limit).
MARGIN = 0.5


def _check_limited(steps, args, seconds: float):
    """:func:`reference.profiles.check.check` in a worker process killed after ``seconds``
    (:func:`reference.cli.common.run_in_child`); the worker stops starting brackets ``MARGIN`` s earlier, and
    when it is killed the verdict is formed here from the brackets it reported (trivial where none)."""
    import time

    from ..profiles.check import check, intersect

    kw = dict(tol=args.tol, binary=args.binary, dps=args.dps, precision=args.precision)
    end = time.monotonic() + seconds

    def work(report):
        return check(steps, args.eps, args.delta, deadline=end - min(MARGIN, seconds / 4), report=report, **kw)

    done, v, partials = run_in_child(work, seconds=seconds)
    if done:
        return v
    best: dict = {}
    for b in partials:  # every reported bracket is certified for this claim: keep their intersection
        best[b.quantity] = intersect(best.get(b.quantity), b)
    return check(steps, args.eps, args.delta, deadline=0.0, known=(best.get("delta"), best.get("eps")), **kw)


def _check(args) -> int:
    from ..profiles.check import parse_spec

    try:  # reading the composition: a JSON file may be missing, or hold a value of the wrong type
        seconds = parse_seconds(args.max_seconds)
        if (args.spec is None) == (args.event is None):
            raise UsageError("give exactly one of SPEC and --event FILE.json, found "
                             + ("both" if args.spec is not None else "neither"))
        if args.event is not None:
            from ..profiles.dp_events import read_event_file

            steps = parse_spec(read_event_file(args.event), binary=args.binary)
        else:
            steps = parse_spec(args.spec, binary=args.binary)
    except (UsageError, ValueError, TypeError, OSError) as exc:
        print(error_line("check", str(exc)), file=sys.stderr)
        return 2
    try:  # a refusal names the parameter and its limit; anything else is an internal error (status 4, in main)
        v = _check_limited(steps, args, seconds)
    except ValueError as exc:
        print(error_line("check", str(exc)), file=sys.stderr)
        return 2
    if v.stopped:
        print(f"fullyadaptive check: note: {v.stopped} (--max-seconds {seconds:g}); the brackets printed are "
              f"certified but wider than they could be", file=sys.stderr)
    if args.json:
        print(json.dumps({**v.as_dict(args.digits), **build_info()}, indent=2))
        return v.exit_status
    db, eb = v.delta_bracket, v.eps_bracket
    print(f"composition: {v.composition}")
    print(f"claim:       eps = {args.eps}, delta = {args.delta}")
    d = db.as_dict(args.digits)
    e = eb.as_dict(args.digits)
    kind = "exact profile" if db.exact else "bracket (true value between two certified bounds)"  # of the delta line
    print(f"true delta at eps = {args.eps}:   [{d['lower']}, {d['upper']}]  width {d['width']}  ({kind})")
    print(f"true eps at delta = {args.delta}: [{e['lower']}, {e['upper']}]  width {e['width']}")
    if eb.exact:
        print(f"  source: {eb.source}")
    else:
        print(f"  lower end: {e['lower_source']}")
        print(f"  upper end: {e['upper_source']}")
    print(f"verdict:     {v.message}")
    if v.explanation:
        print(f"why:         {v.explanation}")
    return v.exit_status


def _findings(args) -> int:
    """``crosscheck --findings IDS``: re-run recorded peer findings (:mod:`reference.profiles.findings`)."""
    from ..profiles.findings import load, recheck

    try:
        cap = parse_seconds(args.cap, "--cap") if args.cap is not None else None
        rec = load()["findings"]
        known = [f["id"] for f in rec]
        want = known if args.findings == "all" else [x.strip() for x in args.findings.split(",") if x.strip()]
        unknown = [x for x in want if x not in known]
        if unknown or not want:
            raise UsageError(f"--findings must be 'all' or ids among {', '.join(known)}, found {args.findings!r}")
    except (UsageError, ValueError, OSError) as exc:
        print(error_line("crosscheck", str(exc)), file=sys.stderr)
        return 2
    results = [recheck(f, bracket=not args.no_bracket, cap_s=cap) for f in rec if f["id"] in want]
    if args.json:
        print(json.dumps({"findings": results, **build_info()}, indent=2))
    else:
        byid = {f["id"]: f for f in rec}
        for r in results:
            f, p, b = byid[r["id"]], r["peer"], r["bracket"]
            now = ("peer not installed" if r["peer_installed"] is None else
                   f"now {p['outcome']}" + (f" {p['value']!r}" if p.get("value") is not None else "")
                   + f" ({p['cpu_s']:g} CPU s)")
            cert = f"certified [{b['lower']}, {b['upper']}]" if b else f"recorded [{f['certified']['lower']}, {f['certified']['upper']}]"
            held = {True: "still holds", False: "NO LONGER HOLDS", None: "not re-run"}[r["still_holds"]]
            print(f"{f['id']:<4} {f['peer']} {f['version']} {f['kind']:<17} recorded {f['peer_value'] if f['peer_value'] is not None else f['status']}  "
                  f"{now}  {cert}  {held}")
    return 1 if any(r["still_holds"] is False for r in results) else 0


def _crosscheck(args) -> int:
    if getattr(args, "findings", None):
        return _findings(args)
    from ..profiles.executor import make_executor
    from ..profiles.peers import PEERS, run_crosscheck

    names = list(PEERS) if args.peer == "all" else [args.peer]
    status = getattr(args, "_progress", None)
    if status is not None and sys.stderr.isatty():
        status.close()  # the executor's tqdm bar replaces the status line: one display on the terminal
        progress = None
    else:  # CI logs, pipes: the command's periodic progress lines
        progress = status.callback("grading") if status is not None else False
    try:
        with make_executor(args.scheduler, args.workers, progress=progress) as ex:
            report = run_crosscheck(names, vectors=args.vectors, limit=args.limit,
                                    skip_flags=() if args.huge_k else ("huge-k",), executor=ex)
    except (ValueError, OSError, RuntimeError) as exc:
        print(error_line("crosscheck", str(exc)), file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps({**report, **build_info()}, indent=2))
    else:
        for peer, info in report["peers"].items():
            print(f"== {peer}: {info['status']}" + (f" ({info.get('version')})" if info.get("version") else ""))
            for r in info.get("results", []):
                print(f"  {r['case']:<52} {r['verdict']:<34} peer={r.get('peer_value', '-')}  certified=[{r['lower']}, {r['upper']}]"
                      + (f"  {r['note']}" if r.get("note") else ""))
        s = report["summary"]
        print(f"summary: {s}")
    return 1 if report["summary"].get("anti_conservative", 0) else 0


def add_cli(sub) -> list[str]:
    """Register ``check`` and ``crosscheck`` on ``sub`` (an argparse subparsers object); returns their names."""
    from ..profiles.executor import add_executor_arguments

    p = sub.add_parser(
        "check", help="certify a claimed (eps, delta) for a composition (rr, gaussian, laplace, subsampled-gaussian, zcdp)",
        description="Computes the certified true delta(eps) and eps(delta) of a composition and grades the claim: valid "
                    "and tight, valid but loose by X, invalid (anti-conservative by X; exit status 1), or undecided "
                    "(exit status 3); exit status 0 when valid, 2 for bad input (or an input beyond a stated limit), "
                    "4 for an internal error (one line on stderr; FULLYADAPTIVE_DEBUG=1 adds the traceback). "
                    "SPEC: items 'mechanism:params[xCOUNT]' joined by '+' or ';', e.g. "
                    "'rr:0.01x1000', 'gaussian:sigma=2x500', 'subsampled-gaussian:q=0.01,sigma=1.1x10000', "
                    "'laplace:b=10x50', 'zcdp:rho=0.1', or a JSON file. Numbers are exact decimals unless --binary.")
    p.add_argument("spec", nargs="?", default=None, help="the composition (see above) or a path to a JSON file")
    p.add_argument("--event", default=None, metavar="FILE.json",
                   help="read the composition from a dp-accounting DpEvent in JSON (the fields of its to_named_tuple() "
                        "form, nested events as objects with a 'class_name'; reference.profiles.dp_events) instead of SPEC")
    p.add_argument("--eps", required=True, help="claimed epsilon >= 0")
    p.add_argument("--delta", required=True, help="claimed delta in [0, 1) (0: a pure-DP claim)")
    p.add_argument("--tol", default="0.01", help="relative slack under which a valid claim is 'tight' (default 0.01)")
    p.add_argument("--binary", action="store_true",
                   help="read decimal inputs as the nearest double (the exact binary value a float peer computed with)")
    p.add_argument("--dps", type=int, default=20, help="significant digits of the certified values (default 20)")
    p.add_argument("--precision", default=None,
                   help="target relative width of the subsampled-Gaussian (DP-SGD) eps bracket, in [1e-6, 0.5] "
                        "(default 0.01; smaller refines the grid at more cost, within the memory budget)")
    p.add_argument("--digits", type=int, default=12, help="digits printed (default 12)")
    p.add_argument("--max-seconds", default=str(DEFAULT_MAX_SECONDS), metavar="S",
                   help="time limit: the brackets are computed in a worker process stopped after S seconds; the "
                        "verdict then uses the best certified brackets computed (trivial where none), usually "
                        f"undecided (exit status 3) (default {DEFAULT_MAX_SECONDS:g})")
    p.add_argument("--json", action="store_true", help="print the verdict as JSON (with version and commit)")
    p.set_defaults(func=_check)

    c = sub.add_parser(
        "crosscheck", help="run the golden vectors through installed peer libraries and grade their answers",
        description="For each installed peer (dp_accounting, opendp, autodp, prv_accountant) evaluates the cases of "
                    "reference/data/vectors it supports and prints per case: agree / conservative by X / "
                    "ANTI-CONSERVATIVE by X / error, judged against the certified interval. Exit status 1 if any "
                    "peer is anti-conservative. Install the peers with: pip install 'fullyadaptive[peers]'.")
    c.add_argument("--peer", default="all", choices=("all", "dp_accounting", "opendp", "autodp", "prv_accountant"),
                   help="which peer (default: all installed)")
    c.add_argument("--vectors", default=None, help="a vectors JSON file or folder (default: the packaged vectors)")
    c.add_argument("--limit", type=int, default=None, help="at most this many cases per vector file")
    c.add_argument("--huge-k", action="store_true", help="include the cases flagged huge-k (minutes per peer)")
    add_executor_arguments(c, "grade")
    c.add_argument("--findings", default=None, metavar="all|ID[,ID]",
                   help="instead: re-run recorded peer findings (reference/data/peer_findings.json): each peer call in a "
                        "fresh process under its time cap, and our certified bracket; exit status 1 if one no longer holds")
    c.add_argument("--cap", default=None, metavar="S", help="with --findings: the time cap per peer call (default: the recorded one)")
    c.add_argument("--no-bracket", action="store_true", help="with --findings: do not recompute our brackets")
    c.add_argument("--json", action="store_true", help="print the grades as JSON")
    c.set_defaults(func=_crosscheck)
    return ["check", "crosscheck"]
