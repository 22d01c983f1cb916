"""``fullyadaptive report``, ``derive`` and ``version``."""
from __future__ import annotations

import json
import sys

from .. import __version__
from .common import PROG, _fail, _progress_of, _truncate

__all__: list[str] = []


# --------------------------------------------------------------------------
# report
# --------------------------------------------------------------------------

def _cmd_report(args) -> int:
    from ..report import build_report, render_summary, write_report

    if not str(args.out).strip():
        return _fail("report", "--out must name a directory, found an empty string (use --out . for the current one)")
    prog = _progress_of(args, "report")
    rep = build_report({"verify": not args.no_verify, "recorded": not args.recompute}, progress=prog)
    try:
        md, js = write_report(rep, args.out, figures=not args.no_figures, progress=prog)
    except (OSError, ValueError) as exc:
        return _fail("report", f"cannot write to {args.out!r}: {exc}")
    finally:
        prog.close()  # no progress line after the results
    if args.json:
        print(json.dumps(rep, indent=2, ensure_ascii=False))
    elif args.full:
        print(md.read_text(encoding="utf-8"), end="")  # exactly the file written (with its figures section)
    else:
        print(render_summary(rep, (md, js)), end="")
    if not args.quiet:
        print(f"wrote {md} and {js}", file=sys.stderr)
    return 0


# --------------------------------------------------------------------------
# derive, version
# --------------------------------------------------------------------------

def _cmd_derive(args) -> int:
    import symbolic

    if args.list or not args.name:
        for qual, fn in symbolic.derivations().items():
            doc = (fn.__doc__ or "").strip().splitlines()
            print(f"{qual:45s} {_truncate(doc[0] if doc else '', 90)}")
        return 0
    from ..report.identifiers import derivations_named  # a derivation's name, or a catalog id it derives

    try:
        found = derivations_named(args.name)
    except KeyError as exc:
        return _fail("derive", exc.args[0])
    print("\n\n".join(fn().as_latex() if args.latex else fn().as_text() for _qual, fn in found))
    return 0


def _cmd_version(args) -> int:
    from ..report import provenance

    p = provenance()
    if args.json:
        print(json.dumps({"program": PROG, **p}, indent=2))
        return 0
    print(f"{PROG} {__version__}")
    state = {True: ", with uncommitted changes", False: "", None: ""}[p["dirty"]]
    where = "" if p["commit_source"] == "unknown" else f" ({p['commit_source']}{state})"
    print(f"commit: {p['commit_full'] or p['commit']}{where}")
    print(f"package: {p['package_path']}")
    print(f"data: {p['data_path']}")
    return 0
