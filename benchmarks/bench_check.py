"""Benchmark of ``fullyadaptive check``: each example of the issue, in process and from the command line, against a 2 s target.

Prints, per example, the verdict, the in-process time of :func:`reference.profiles.check.check`
(median of ``--repeat`` runs, caches cleared between runs), the wall time of the command line
``python -m reference check ...`` (interpreter start, imports and ``--json`` build info included)
and the ratio of each to the 2 s target (< 1 is within target).

Run:  python benchmarks/bench_check.py [--repeat N] [--no-cli]
"""
from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

TARGET = 2.0
EXAMPLES = [
    ("rr:0.01x1000", "1.3", "1e-6"),
    ("gaussian:sigma=2x500", "115", "1e-6"),
    ("subsampled-gaussian:q=0.01,sigma=1.1x10000", "6", "1e-5"),
    ("laplace:b=10x50", "3", "1e-6"),
    ("zcdp:rho=0.1", "2", "1e-6"),
    ("gaussian:sigma=2.2360679774997896949", "2", "1e-6"),
]


def _clear_caches():
    from reference.profiles import laplace

    for f in (laplace._spline, laplace._spline_polys, laplace._upper_ends, laplace._exact_parts,
              laplace._eps_free_sums, laplace._c_suffix_polys, laplace._pair):
        f.cache_clear()


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--no-cli", action="store_true", help="skip the command-line timings")
    a = ap.parse_args(argv)
    from reference.profiles.check import check

    root = Path(__file__).resolve().parents[1]
    for spec, eps, delta in EXAMPLES:
        ts = []
        for _ in range(a.repeat):
            _clear_caches()
            t0 = time.perf_counter()
            v = check(spec, eps, delta)
            ts.append(time.perf_counter() - t0)
        t = statistics.median(ts)
        line = f"{spec:<46} eps={eps:<5} delta={delta:<6} {v.status:<10} in-process {t:6.3f}s (x{t / TARGET:5.2f} of 2 s)"
        if not a.no_cli:
            t0 = time.perf_counter()
            r = subprocess.run([sys.executable, "-m", "reference", "check", spec, "--eps", eps, "--delta", delta, "--json"],
                               cwd=root, capture_output=True, text=True)
            tc = time.perf_counter() - t0
            line += f"  command line {tc:6.3f}s (x{tc / TARGET:5.2f} of 2 s, exit {r.returncode})"
        print(line, flush=True)
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-m", "reference", "version", "--json"], cwd=root, capture_output=True)
    print(f"baseline: 'python -m reference version --json' takes {time.perf_counter() - t0:.3f}s (start-up, imports, build info)")


if __name__ == "__main__":
    main()
