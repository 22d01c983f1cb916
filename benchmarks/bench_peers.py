"""Benchmark: each installed peer's double against the certified value for the same case, values and times side by side.

For every case of the golden vectors (``reference/data/vectors``; the huge-k ones only with
``--huge-k``) and every installed peer variant, prints the peer's value, the certified interval,
the ratio peer / certified upper end (> 1: conservative; < lower/upper: anti-conservative) and
the peer's time.  The certified interval of the same case is computed in the same run
(:func:`reference.profiles.vectors.evaluate`, 45 digits, caches cleared, best of ``--repeat``),
and a closing table gives, per case, the certified time, the fastest peer's time and their
ratio against the goal: a certified answer within 10x of the fastest peer.
Peers: ``pip install 'fullyadaptive[peers]'``.

The table closes with one line per vector file: its worst ratio (e.g. ``laplace_eps``'s, the exact
k-fold Laplace inversion against autodp and dp_accounting); ``--only laplace_eps`` runs that file alone.

Run:  python benchmarks/bench_peers.py [--peer NAME] [--only FILE ...] [--huge-k] [--repeat R]
"""
from __future__ import annotations

import argparse
import math
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
    ap.add_argument("--only", nargs="+", choices=sorted(V.FILES), metavar="FILE",
                    help="only these vector files (e.g. laplace_eps laplace_delta)")
    ap.add_argument("--repeat", type=int, default=2, help="certified timing: best of R runs (default 2)")
    ap.add_argument("--dps", type=int, default=20,
                    help="digits of the timed certified value (default 20, as `fullyadaptive check`; the stored "
                         "vectors carry 45)")
    a = ap.parse_args(argv)
    names = list(P.PEERS) if a.peer == "all" else [a.peer]
    peer_times: dict = {}  # (file, id) -> {peer: seconds}
    for peer in names:
        ver = P.installed(peer)
        print(f"== {peer}: " + (ver or "not installed"), flush=True)
        if ver is None:
            continue
        for name in sorted(a.only or V.FILES):
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
                peer_times.setdefault((name, case["id"]), {})[peer] = dt
                up, lo = Fraction(case["upper"]), Fraction(case["lower"])
                for variant, v in vals.items():
                    label = f"{name}#{case['id']} {variant}"
                    if isinstance(v, Exception):
                        print(f"  {label:<28} error {type(v).__name__}: {str(v)[:80]}  ({dt:.3f}s)")
                        continue
                    if not math.isfinite(float(v)):
                        print(f"  {label:<28} peer={float(v)!r:<24} non-finite (graded 'error' by the crosscheck)  ({dt:.3f}s)")
                        continue
                    ratio = float(Fraction(v) / up) if up else float("inf")
                    g = V.grade(case, float(v))[0]
                    print(f"  {label:<28} peer={float(v):<24.17g} certified=[{float(lo):.12g}, {float(up):.12g}]  "
                          f"peer/upper={ratio:.9f}  {g:<18} ({dt:.3f}s)", flush=True)
    _side_by_side(V, peer_times, a.repeat, a.dps)


def _clear_caches() -> None:
    """Clear every functools cache of the profile modules, so the certified time is a first computation."""
    import functools

    from reference.profiles import check, gaussian, laplace, pure_dp, subsampled_gaussian

    for mod in (check, gaussian, laplace, pure_dp, subsampled_gaussian):
        for obj in vars(mod).values():
            if isinstance(obj, functools._lru_cache_wrapper):
                obj.cache_clear()


def _side_by_side(V, peer_times: dict, repeat: int, dps: int) -> None:
    """Per case answered by some peer: certified time (best of ``repeat``, ``dps`` digits) against the fastest peer's time."""
    if not peer_times:
        print("no installed peer answered a case: nothing to compare")
        return
    print()
    print(f"certified value at {dps} digits (the interval evaluation of the vector generator, caches cleared) "
          f"against the fastest installed peer's double")
    print(f"{'case':<22} {'certified s':>12} {'fastest peer':<16} {'peer s':>9} {'ratio':>8}  goal (<= 10x)")
    within = 0
    worst: dict = {}  # vector file -> (ratio, case id, fastest peer)
    stored = V.DPS
    for (name, cid), per in sorted(peer_times.items()):
        inputs = V.CASES[name][cid - 1][0]  # the generator's exact inputs (the file spells binary ones as dicts)
        best = float("inf")
        V.DPS = dps
        try:
            for _ in range(max(1, repeat)):
                _clear_caches()
                t0 = time.perf_counter()
                V.evaluate(name, inputs)
                best = min(best, time.perf_counter() - t0)
        finally:
            V.DPS = stored
        fp, ft = min(per.items(), key=lambda kv: kv[1])
        ratio = best / ft if ft > 0 else float("inf")
        ok = ratio <= 10
        within += ok
        worst[name] = max(worst.get(name, (-1.0, 0, "")), (ratio, cid, fp))
        tag = "faster than every peer" if best < min(per.values()) else ("within 10x" if ok else "SLOWER than 10x")
        print(f"{name + '#' + str(cid):<22} {best:>12.4f} {fp:<16} {ft:>9.4f} {ratio:>8.2f}  {tag}", flush=True)
    print(f"{within}/{len(peer_times)} cases within 10x of the fastest peer")
    for name, (ratio, cid, fp) in sorted(worst.items()):
        print(f"{name}: worst certified/fastest-peer ratio {ratio:.2f}x ({name}#{cid} against {fp}; goal <= 10x)")


if __name__ == "__main__":
    main()
