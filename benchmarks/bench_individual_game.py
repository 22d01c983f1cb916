#!/usr/bin/env python3
"""Benchmark: throughput of the per-example DP-SGD filter and of the audit of a recorded run (a script, not a test).

Prints, for :class:`reference.accountants.individual_game.IndividualDPSGDGameFilter`:

* the certificate's time (computed once per parameter set; not part of the throughput);
* ``try_run`` over full batches of ``--examples`` norms (all examples, ``ids=None``) and over
  Poisson-like subsets given by ``ids``: example-steps per CPU second (``time.process_time``);
* :func:`reference.accountants.individual_game.audit` of a (``--steps`` x ``--examples``) array of
  norms: CPU seconds, example-steps per CPU second, and the extrapolation to 10^5 examples x
  10^4 steps (linear in the entries; the certificates' time is added once).

Norms are drawn once (seeded exponential, mean 0.5 C; 0.1 C for the audit) before timing.  CPU times, so a loaded
machine inflates wall time but not these numbers much.  Usage::

    PYTHONPATH=$PWD python benchmarks/bench_individual_game.py [--examples 100000] [--calls 50] [--steps 1000] [--bits 6]
"""
from __future__ import annotations

import argparse
import time

import numpy as np

from reference.accountants.individual_game import IndividualDPSGDGameFilter, audit


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--examples", type=int, default=100_000)
    ap.add_argument("--calls", type=int, default=50, help="try_run calls timed")
    ap.add_argument("--steps", type=int, default=1000, help="steps of the audited array")
    ap.add_argument("--audit-examples", type=int, default=10_000, help="examples of the audited array")
    ap.add_argument("--bits", type=int, default=6)
    a = ap.parse_args(argv)
    rng = np.random.default_rng(0)
    t0 = time.process_time()
    f = IndividualDPSGDGameFilter("4", "1e-3", "0.1", "1", "1", a.examples, bits=a.bits)
    t_cert = time.process_time() - t0
    print(f"certificate: costs {list(f.costs)}, B* = {f.budget}, {t_cert:.2f} CPU s (once)")
    batches = [rng.exponential(0.5, a.examples) for _ in range(4)]
    t0 = time.process_time()
    for i in range(a.calls):
        f.try_run(batches[i % 4])
    dt = time.process_time() - t0
    print(f"try_run, full batch of {a.examples}: {a.calls * a.examples / dt:.3g} example-steps/CPU s "
          f"({dt / a.calls * 1e3:.2f} ms per call)")
    m = max(1, a.examples // 10)
    ids = [rng.choice(a.examples, m, replace=False) for _ in range(4)]
    sub = [rng.exponential(0.5, m) for _ in range(4)]
    t0 = time.process_time()
    for i in range(a.calls):
        f.try_run(sub[i % 4], ids=ids[i % 4])
    dt = time.process_time() - t0
    print(f"try_run, subsets of {m} by ids: {a.calls * m / dt:.3g} example-steps/CPU s")
    norms = rng.exponential(0.1, (a.steps, a.audit_examples))   # smaller norms: some examples fit B*
    t0 = time.process_time()
    audit(norms[:1], "0.1", "1", "4", "1e-3", "1", bits=a.bits)            # certificates (cached) outside the timing
    t_grid = time.process_time() - t0
    print(f"audit certificates (target eps and the default grid of 6 eps, once): {t_grid:.1f} CPU s")
    t0 = time.process_time()
    res = audit(norms, "0.1", "1", "4", "1e-3", "1", bits=a.bits)
    dt = time.process_time() - t0
    rate = norms.size / dt
    print(f"audit {a.steps} x {a.audit_examples}: {dt:.2f} CPU s, {rate:.3g} example-steps/CPU s; "
          f"within B*: {int(res.within.sum())} of {a.audit_examples}")
    print(f"extrapolated to 10^5 examples x 10^4 steps: {1e9 / rate:.0f} CPU s + {t_grid:.0f} CPU s of certificates")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
