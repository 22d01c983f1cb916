"""Benchmark: each installed peer's double against the certified value for the same case, with the ratio and the time.

For every case of the golden vectors (``reference/data/vectors``; the huge-k ones only with
``--huge-k``) and every installed peer variant, prints the peer's value, the certified interval,
the ratio peer / certified upper end (> 1: conservative; < lower/upper: anti-conservative) and
the peer's time.  Peers: ``pip install 'fullyadaptive[peers]'``.

Run:  python benchmarks/bench_peers.py [--peer NAME] [--huge-k]
"""
from __future__ import annotations

import argparse
import sys
import time
from fractions import Fraction
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main(argv=None):
    from reference.profiles import peers as P
    from reference.profiles import vectors as V

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--peer", default="all", choices=["all", *P.PEERS])
    ap.add_argument("--huge-k", action="store_true")
    a = ap.parse_args(argv)
    names = list(P.PEERS) if a.peer == "all" else [a.peer]
    for peer in names:
        ver = P.installed(peer)
        print(f"== {peer}: " + (ver or "not installed"), flush=True)
        if ver is None:
            continue
        for name in sorted(V.FILES):
            for case in V.load(name)["cases"]:
                if "huge-k" in case["flags"] and not a.huge_k:
                    continue
                t0 = time.perf_counter()
                try:
                    vals = P.evaluate_peer(peer, name, case["inputs"])
                except P.Unsupported:
                    continue
                except Exception as exc:  # noqa: BLE001
                    vals = {"": exc}
                dt = time.perf_counter() - t0
                up, lo = Fraction(case["upper"]), Fraction(case["lower"])
                for variant, v in vals.items():
                    label = f"{name}#{case['id']} {variant}"
                    if isinstance(v, Exception):
                        print(f"  {label:<28} error {type(v).__name__}: {str(v)[:80]}  ({dt:.3f}s)")
                        continue
                    ratio = float(Fraction(v) / up) if up else float("inf")
                    g = V.grade(case, float(v))[0]
                    print(f"  {label:<28} peer={float(v):<24.17g} certified=[{float(lo):.12g}, {float(up):.12g}]  "
                          f"peer/upper={ratio:.9f}  {g:<18} ({dt:.3f}s)", flush=True)


if __name__ == "__main__":
    main()
