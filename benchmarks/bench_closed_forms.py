#!/usr/bin/env python3
"""Benchmark of the closed forms and of the filter's per-step decision (a script, not a test).

Targets:

(i)  every catalog entry with direction upper/lower/exact that returns an ``mpf``:
     the median time of one evaluation at its default parameters at 50 digits, 1 ms for a
     closed form; entries that optimise, solve or enumerate (ids containing one of
     :data:`NUMERIC_MARKERS`: an order alpha optimised, a root, an exact dynamic programme)
     are listed separately against 1 s;
(ii) if :mod:`reference.accountants.whitehouse2023` has ``DPFilter``: the per-step decision time of
     ``DPFilter.try_run`` over 10^4 steps of eps = 0.001 (delta' = 1e-6, target eps = 1,
     so every step is admitted and every decision is a full exact test).

Prints a table, the worst case and each ratio to its target (ratio < 1 means
the target is met).  Exits non-zero on a missed target only with ``--strict``.

The default run takes about a minute on 2 cores: each entry is timed for about
:data:`QUICK_BUDGET_S` (the number of evaluations per repeat adapts to the entry's speed),
over 5 repeats, and the filter over 2000 steps.  ``--full`` is the long run (31 repeats of
20 evaluations per entry, 10^4 filter steps; many minutes).  A progress line goes to stderr
every few seconds.

    python benchmarks/bench_closed_forms.py [--full] [--strict] [--repeat R] [--number N] [--steps S]
"""
from __future__ import annotations

import argparse
import inspect
import statistics
import sys
import time
import timeit
from pathlib import Path

try:
    import reference  # noqa: F401
except ImportError:  # run from a checkout without installing
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from reference.catalog import entries  # noqa: E402
from reference.report import prepare_arguments  # noqa: E402

TARGET_S = 1e-3
NUMERIC_TARGET_S = 1.0
DPS = 50
#: Catalog ids containing one of these are numerical procedures, not closed forms; so is
#: every entry whose result is an inverse (a root solved for: "inverse: eps for a target delta").
NUMERIC_MARKERS = ("_opt_", "crossing_probability", "optimal_constant")
#: Default run: seconds spent timing one entry (all repeats together), roughly.
QUICK_BUDGET_S = 0.3
#: Seconds between two progress lines on stderr.
PROGRESS_EVERY_S = 5.0


def is_numerical_procedure(entry) -> bool:
    """Whether an entry optimises, solves or enumerates (target 1 s) rather than evaluating a closed form (1 ms)."""
    return any(m in entry.id for m in NUMERIC_MARKERS) or "inverse" in entry.result.lower()


class _Ticker:
    """One progress line on stderr every :data:`PROGRESS_EVERY_S` seconds."""

    def __init__(self, what: str, total: int):
        self.what, self.total, self.t0, self.last = what, total, time.monotonic(), time.monotonic()

    def tick(self, i: int, label: str = "") -> None:
        now = time.monotonic()
        if now - self.last >= PROGRESS_EVERY_S:
            self.last = now
            print(f"bench_closed_forms: {self.what} {i}/{self.total} {label} ({now - self.t0:.0f} s)",
                  file=sys.stderr, flush=True)


def bench_closed_forms(repeat: int, number: int | None) -> list[tuple[str, float]]:
    """Median seconds per evaluation for each eligible entry, sorted slowest first.

    ``number=None`` adapts the evaluations per repeat so that one entry takes about
    :data:`QUICK_BUDGET_S` seconds in all (at least one evaluation per repeat).
    """
    out = []
    todo = [e for e in entries() if e.direction in ("upper", "lower", "exact") and e.returns == "mpf"]
    ticker = _Ticker("entries", len(todo))
    for i, e in enumerate(todo):
        ticker.tick(i, e.id)
        kwargs, _, _ = prepare_arguments(e, {})
        if "dps" in inspect.signature(e.func).parameters:
            kwargs["dps"] = DPS
        fn = e.func
        t0 = time.perf_counter()
        fn(**kwargs)  # warm-up: caches of mpmath constants, the thread's interval context
        first = time.perf_counter() - t0
        n = number if number is not None else max(1, min(20, int(QUICK_BUDGET_S / repeat / max(first, 1e-6))))
        times = timeit.Timer(lambda: fn(**kwargs)).repeat(repeat=repeat, number=n)
        out.append((e.id, statistics.median(times) / n))
    out.sort(key=lambda t: -t[1])
    return out


def _kw_for(params, values: dict[str, object]) -> dict:
    """Map a callable's parameter names to benchmark values (robust to naming)."""
    kw = {}
    for name, p in params.items():
        if name in ("self", "dps") or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue
        for key, val in values.items():
            if name == key or name.startswith(key):
                kw[name] = val
                break
        else:
            if p.default is inspect.Parameter.empty:
                raise TypeError(f"do not know what to pass for parameter {name!r}")
    return kw


def bench_filter(steps: int):
    """Per-step times (seconds) of DPFilter.try_run, or a string saying why it was skipped."""
    try:
        from reference.accountants import whitehouse2023 as filters
    except ImportError as exc:
        return f"skipped: reference.accountants.whitehouse2023 is not importable ({exc})"
    DPFilter = getattr(filters, "DPFilter", None)
    if DPFilter is None:
        return "skipped: reference.accountants.whitehouse2023 has no DPFilter"
    try:
        ctor = inspect.signature(DPFilter).parameters
        f = DPFilter(**_kw_for(ctor, {"eps_target": "1", "eps": "1", "epsilon": "1", "delta_prime": "1e-6",
                                      "delta_second": "0", "delta": "0"}))
        step_kw = _kw_for(inspect.signature(f.try_run).parameters,
                          {"eps": "0.001", "epsilon": "0.001", "delta": "0"})
    except Exception as exc:  # the API is someone else's: say so instead of crashing
        return f"skipped: could not set up DPFilter ({type(exc).__name__}: {exc})"
    per_step = []
    admitted = 0
    clock = time.perf_counter_ns
    ticker = _Ticker("filter steps", steps)
    for i in range(steps):
        if i % 256 == 0:
            ticker.tick(i)
        t0 = clock()
        r = f.try_run(**step_kw)
        per_step.append((clock() - t0) * 1e-9)
        admitted += bool(r)
    return per_step, admitted


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--strict", action="store_true", help="exit 1 if a target is missed (default: off)")
    ap.add_argument("--full", action="store_true",
                    help="the long run: 31 repeats x 20 evaluations per entry, 10^4 filter steps (default: off, "
                         "about a minute)")
    ap.add_argument("--repeat", type=int, default=None,
                    help="timeit repeats per entry, median taken (default 5; 31 with --full)")
    ap.add_argument("--number", type=int, default=None,
                    help="evaluations per timeit repeat (default: adapted to each entry's speed; 20 with --full)")
    ap.add_argument("--steps", type=int, default=None, help="filter steps (default 2000; 10000 with --full)")
    args = ap.parse_args(argv)
    if args.repeat is None:
        args.repeat = 31 if args.full else 5
    if args.number is None and args.full:
        args.number = 20
    if args.steps is None:
        args.steps = 10_000 if args.full else 2000
    missed = []
    t_start = time.monotonic()

    per = f"{args.number} evaluations" if args.number else f"about {QUICK_BUDGET_S:g} s of evaluations"
    print(f"(i) closed forms at {DPS} digits: median of {args.repeat} repeats of {per} per entry, at defaults"
          f"{' (--full)' if args.full else ' (quick run; --full for the long one)'}")
    allrows = bench_closed_forms(args.repeat, args.number)
    numeric_ids = {e.id for e in entries() if is_numerical_procedure(e)}
    numeric = [(i, t) for i, t in allrows if i in numeric_ids]
    rows = [(i, t) for i, t in allrows if i not in numeric_ids]
    w = max(len(i) for i, _ in allrows)
    for title, group, target, label, tag in (("closed forms", rows, TARGET_S, "1 ms", "closed forms"),
                                            ("numerical procedures", numeric, NUMERIC_TARGET_S, "1 s",
                                             "numerical procedures")):
        if not group:
            continue
        print(f"-- {title} (target {label})")
        print(f"{'id':<{w}}  {'median':>10}  ratio to {label}")
        for i, t in group:
            print(f"{i:<{w}}  {t * 1e6:>8.1f}us  {t / target:.3f}")
        worst_id, worst = group[0]
        ratio = worst / target
        print(f"worst case: {worst_id} {worst * 1e6:.1f}us, ratio {ratio:.3f} "
              f"({'meets' if ratio <= 1 else 'MISSES'} the {label} target); {len(group)} entries")
        if ratio > 1:
            missed.append(tag)

    print()
    print(f"(ii) DPFilter.try_run per-step decision over {args.steps} steps (eps=0.001, delta'=1e-6, target eps=1)")
    res = bench_filter(args.steps)
    if isinstance(res, str):
        print(res)
    else:
        per, admitted = res
        per_sorted = sorted(per)
        med = statistics.median(per)
        p99 = per_sorted[min(len(per) - 1, int(0.99 * len(per)))]
        mean = sum(per) / len(per)
        print(f"admitted {admitted}/{len(per)} steps")
        print(f"median {med * 1e6:.1f}us  mean {mean * 1e6:.1f}us  p99 {p99 * 1e6:.1f}us  max {per_sorted[-1] * 1e6:.1f}us")
        r = med / TARGET_S
        print(f"ratio to 1 ms (median): {r:.3f} ({'meets' if r <= 1 else 'MISSES'} the target); "
              f"p99 ratio {p99 / TARGET_S:.3f}")
        if r > 1:
            missed.append("filter step")

    print(f"\ntotal {time.monotonic() - t_start:.0f} s")
    if missed:
        print(f"\nmissed targets: {', '.join(missed)}")
        return 1 if args.strict else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
