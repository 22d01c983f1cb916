#!/usr/bin/env python3
"""Benchmark: certified eps(delta) brackets of DP-SGD workloads against the peers' answers and times (a script, not a test).

For each workload (q, sigma, k, delta) -- the k-fold Poisson-subsampled Gaussian with noise
multiplier sigma, sensitivity 1, add/remove adjacency -- prints one row:

* ours: the certified bracket [lo, hi] of eps(delta) from
  ``reference.profiles.check.profile("subsampled-gaussian:q=Q,sigma=S xK", "eps", DELTA)``
  (q, sigma, delta passed as exact decimal strings), its relative width (hi - lo)/hi, the
  routes of its two ends (PLD / RDP / other, from ``lo_source`` / ``hi_source``) and its wall time;
  beside it the time of ``reference.profiles.sgm_pld.sgm_pld(q, sigma, k).eps_bracket(delta)``
  alone ('n/a' where that API is missing or fails) and that bracket's relative width.  Every
  reference cache is cleared before each of our timings, so a time is a first computation.
* dp_accounting PLD: ``pld.PLDAccountant(value_discretization_interval=--pld-interval, 1e-4 by
  default, its own default)`` given ``SelfComposedDpEvent(PoissonSampledDpEvent(q,
  GaussianDpEvent(sigma)), k)``; its (pessimistic) eps and time.
* dp_accounting RDP: ``rdp.RdpAccountant()`` (its default orders) given the same event.
* prv_accountant: ``PRVAccountant(PoissonSubsampledGaussianMechanism(sigma, q),
  max_self_compositions=[k], eps_error=--prv-eps-error (0.01), delta_error=delta / --prv-delta-div
  (delta/1000))``; its (lower, estimate, upper) triple of ``compute_epsilon(delta, [k])`` and time.
* 'in?' columns: PLD: 'yes' if its eps lies in [lo, hi], 'tol' if only within --pld-interval of it,
  else 'ABOVE +x' (more conservative than our certified upper end) or 'BELOW -x' (below our
  certified lower end: anti-conservative); PRV: the same for its estimate with its own eps_error
  as tolerance, and 'UPPER<lo' when even its claimed upper end is below our lower end; RDP
  (an upper bound): 'yes' if >= lo, else 'BELOW'.
* ours/PLD: the ratio of our time (``profile``) to dp_accounting PLD's time.

Timings are single-core by default (``--threads 1`` sets OMP/OPENBLAS/MKL/... thread variables
before numpy is imported; ``--threads 0`` leaves them alone), best of ``--repeat`` runs, after one
untimed warm-up call of each accountant on a tiny workload (lazy imports excluded).  Each of our
calls runs in a forked child process (warm-up, caches cleared, timed call; the time is measured
inside the child), killed after ``--timeout`` seconds and with its address space capped at
``--mem-limit`` GiB, so that a hang in compiled code or a runaway allocation of the engine costs one
cell ('CallTimeout', 'MemoryError', 'ChildDied'), not the run; ``--in-process`` runs them here.
The peers run in this process (SIGALRM timeout).  A failing accountant prints the exception type in
its cell and the run goes on; a peer that does not import prints 'not installed'.
Peers: ``pip install 'fullyadaptive[peers]'``.

Workloads: :data:`WORKLOADS` (20; ``--quick``: the 5 marked quick), or ``--workloads PATH``, a
JSON list of objects {"name": str, "q": "0.01", "sigma": "1.1", "k": 10000, "delta": "1e-5"}
(q, sigma, delta as decimal strings, read exactly by us and as the nearest double by the peers).

CPU ratios (``--ratios [CSV]``): the review's 20 workloads (``benchmarks/data/dpsgd_workloads.csv``, columns id, spec,
delta; heterogeneous runs are specs joined by '+') each run by ``check.profile(spec, "eps", delta)`` and by dp-accounting's
``PLDAccountant()`` at its default interval 1e-4 (a ``ComposedDpEvent`` of the phases), side by side: every call in a
fresh child process, after an untimed warm-up call on a tiny workload there, timed in CPU seconds of that process
(``time.process_time``), best of ``--repeat``.  Prints per row our bracket, its relative width, dp-accounting's eps
and whether it lies inside, both CPU times and their ratio; then the median and the largest ratio and the rows above
2x.  ``--json PATH`` writes the rows.

Run:  python benchmarks/bench_dpsgd.py --ratios [CSV] [--repeat R] [--json PATH]
      python benchmarks/bench_dpsgd.py [--quick] [--json PATH] [--workloads PATH] [--threads 1]
                                      [--repeat R] [--timeout S] [--mem-limit GiB] [--in-process]
                                      [--pld-interval 1e-4] [--prv-eps-error 0.01] [--prv-delta-div 1000]
"""
from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import platform
import sys
import time
from decimal import ROUND_CEILING, ROUND_FLOOR, Context, Decimal
from fractions import Fraction
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: The default workloads.  k = round(epochs / q) for the training-run examples.
WORKLOADS = [
    # the README example of this project, and the same run at smaller delta
    {"name": "README example", "q": "0.01", "sigma": "1.1", "k": 10000, "delta": "1e-5", "quick": True},
    {"name": "README, delta 1e-6", "q": "0.01", "sigma": "1.1", "k": 10000, "delta": "1e-6"},
    {"name": "README, delta 1e-8", "q": "0.01", "sigma": "1.1", "k": 10000, "delta": "1e-8"},
    {"name": "README, delta 1e-10", "q": "0.01", "sigma": "1.1", "k": 10000, "delta": "1e-10", "quick": True},
    # prv_accountant's README example (compute-dp-epsilon --sampling-probability 5e-3 --noise-multiplier 0.8 ...)
    {"name": "prv_accountant README", "q": "0.005", "sigma": "0.8", "k": 1000, "delta": "1e-6", "quick": True},
    # Opacus-style training runs: batch 256, k = epochs / q
    {"name": "CIFAR-10 b256 100 ep", "q": "0.00512", "sigma": "1.1", "k": 19531, "delta": "1e-5", "quick": True},
    {"name": "MNIST b256 60 ep", "q": "0.004266666666666667", "sigma": "1.0", "k": 14063, "delta": "1e-5"},
    # the Fourier accountant's README example (Koskela et al.)
    {"name": "Koskela FFT README", "q": "0.01", "sigma": "4", "k": 1000, "delta": "1e-5"},
    # Abadi et al. 2016 MNIST (lot 600 of 60000), medium noise, 100 epochs
    {"name": "Abadi MNIST s=2 100 ep", "q": "0.01", "sigma": "2", "k": 10000, "delta": "1e-5"},
    # large-batch ImageNet-style run (batch 16384 of ~1.28M, 90 epochs)
    {"name": "ImageNet-style b16k", "q": "0.0128", "sigma": "2.5", "k": 7031, "delta": "1e-6"},
    # NLP fine-tuning style: few steps at a high sampling rate
    {"name": "fine-tuning b1024 3 ep", "q": "0.0152", "sigma": "0.7", "k": 197, "delta": "1e-5"},
    # the corners of q in [1e-4, 0.1], sigma in [0.5, 5], k up to 1e5, delta in [1e-10, 1e-3]
    {"name": "q=1e-4 s=0.5 k=1e5", "q": "0.0001", "sigma": "0.5", "k": 100000, "delta": "1e-10"},
    {"name": "q=1e-4 s=1 k=1e5", "q": "0.0001", "sigma": "1", "k": 100000, "delta": "1e-8"},
    {"name": "q=3e-4 s=0.7 k=3e4", "q": "0.0003", "sigma": "0.7", "k": 30000, "delta": "1e-10"},
    {"name": "q=1e-3 s=0.6 k=5e4", "q": "0.001", "sigma": "0.6", "k": 50000, "delta": "1e-6"},
    {"name": "q=4e-3 s=3 k=1e5", "q": "0.004", "sigma": "3", "k": 100000, "delta": "1e-8"},
    {"name": "q=0.02 s=0.8 k=5e3", "q": "0.02", "sigma": "0.8", "k": 5000, "delta": "1e-5"},
    {"name": "q=0.05 s=1.5 k=2e3", "q": "0.05", "sigma": "1.5", "k": 2000, "delta": "1e-3"},
    {"name": "q=0.1 s=0.5 k=100", "q": "0.1", "sigma": "0.5", "k": 100, "delta": "1e-3", "quick": True},
    {"name": "q=0.1 s=5 k=1e4", "q": "0.1", "sigma": "5", "k": 10000, "delta": "1e-10"},
]

THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMEXPR_NUM_THREADS",
               "VECLIB_MAXIMUM_THREADS", "BLIS_NUM_THREADS")


# ---------------------------------------------------------------------------
# small helpers
# ---------------------------------------------------------------------------

class CallTimeout(Exception):
    """The call did not return within --timeout seconds."""


@contextlib.contextmanager
def _alarm(timeout_s: float | None):
    """Raise CallTimeout after ``timeout_s`` (SIGALRM, main thread, checked between bytecodes)."""
    import signal

    if not timeout_s or not hasattr(signal, "SIGALRM"):
        yield
        return

    def _raise(signum, frame):
        raise CallTimeout(f"no answer within {timeout_s:g} s")

    old = signal.signal(signal.SIGALRM, _raise)
    signal.setitimer(signal.ITIMER_REAL, timeout_s)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def _clear_reference_caches() -> None:
    """Clear every functools cache at module level of the loaded reference.* modules (a first computation)."""
    import functools

    for name, mod in list(sys.modules.items()):
        if mod is None or not (name == "reference" or name.startswith("reference.")):
            continue
        for obj in list(vars(mod).values()):
            if isinstance(obj, functools._lru_cache_wrapper):  # noqa: SLF001
                obj.cache_clear()


def _timed(fn, repeat: int, timeout_s: float | None, before=None):
    """(best seconds, value or Exception) of ``repeat`` calls; an exception stops the repeats and is the value."""
    import warnings

    best, val = math.inf, None
    for _ in range(max(1, repeat)):
        if before is not None:
            before()
        t0 = time.perf_counter()
        try:
            with warnings.catch_warnings(), _alarm(timeout_s):
                warnings.simplefilter("ignore")
                val = fn()
        except Exception as exc:  # noqa: BLE001 - reported in the row, the run goes on
            return time.perf_counter() - t0, exc
        best = min(best, time.perf_counter() - t0)
    return best, val


def _to_fraction(x) -> Fraction | None:
    """An mpmath mpf / float / str as an exact Fraction; None for inf or nan."""
    try:
        import mpmath

        if isinstance(x, mpmath.mpf):
            if not mpmath.isfinite(x):
                return None
            man, exp = x.man_exp
            return Fraction(int(man)) * (Fraction(2) ** int(exp))
    except ImportError:
        pass
    f = float(x)
    return Fraction(f) if math.isfinite(f) else None


def _dir(x, rnd: str, digits: int = 6) -> str:
    """``x`` to ``digits`` significant digits rounded toward -inf ('lower') or +inf ('upper')."""
    fr = _to_fraction(x)
    if fr is None:
        return str(x)
    ctx = Context(prec=digits, rounding=ROUND_FLOOR if rnd == "lower" else ROUND_CEILING)
    d = ctx.divide(Decimal(fr.numerator), Decimal(fr.denominator))
    return f"{d:.{digits - 1}E}" if (d != 0 and not (1e-3 <= abs(d) < 1e5)) else format(d.normalize(ctx), "f")


def _num(x) -> str:
    return f"{x:.6g}" if isinstance(x, float) else "-"


def _err(v: Exception) -> str:
    return type(v).__name__


def _route(src: str) -> str:
    s = src or ""
    if "trivial" in s:
        return "triv"
    if "PLD" in s:
        return "PLD"
    if "RDP" in s:
        return "RDP"
    if "Bin(" in s or "binary" in s:
        return "bin"
    return (s.split()[0] if s.split() else "?")[:6]


def _installed(mod: str) -> str | None:
    """The peer's version if it imports (reference.profiles.peers.installed when available), else None."""
    try:
        from reference.profiles.peers import PEERS, installed

        if mod in PEERS:
            return installed(mod)
    except Exception:  # noqa: BLE001 - the engine's peer module may be mid-rewrite
        pass
    try:
        import importlib
        from importlib.metadata import version

        importlib.import_module(mod)
        try:
            return version(mod.replace("_", "-"))
        except Exception:  # noqa: BLE001
            return "unknown"
    except Exception:  # noqa: BLE001
        return None


# ---------------------------------------------------------------------------
# the accountants
# ---------------------------------------------------------------------------

def _ours_profile(w):
    from reference.profiles.check import profile

    return profile(f"subsampled-gaussian:q={w['q']},sigma={w['sigma']}x{int(w['k'])}", "eps", w["delta"])


def _ours_sgm_pld(w):
    from reference.profiles.sgm_pld import sgm_pld

    return sgm_pld(w["q"], w["sigma"], int(w["k"])).eps_bracket(w["delta"])


OURS = {"profile": _ours_profile, "sgm_pld": _ours_sgm_pld}
TINY = {"q": "0.01", "sigma": "1.1", "k": 10, "delta": "1e-5"}


def _as_plain(v):
    """Our Bracket as a plain picklable namespace (the engine's classes may change under us)."""
    from types import SimpleNamespace

    return SimpleNamespace(lo=v.lo, hi=v.hi, lo_source=str(getattr(v, "lo_source", "")),
                           hi_source=str(getattr(v, "hi_source", "")))


def _exception(name: str, msg: str) -> Exception:
    """An exception whose type name is ``name`` (the child's exception, re-raised by name only)."""
    return type(name, (Exception,), {})(msg)


def _child(conn, which: str, w: dict, repeat: int, mem_gb: float, warm: bool) -> None:
    """Child process: warm up on a tiny workload (untimed), then time ``OURS[which](w)`` and send the result."""
    t = 0.0
    try:
        sys.stdout.flush()
        os.dup2(2, 1)  # a compiled library's messages (e.g. FLINT's allocation errors) go to stderr, not into the table
        if mem_gb > 0:
            import resource

            with open("/proc/self/statm") as f:
                vm = int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
            lim = vm + int(mem_gb * 2 ** 30)
            resource.setrlimit(resource.RLIMIT_AS, (lim, lim))
        fn = OURS[which]
        if warm:
            _timed(lambda: fn(TINY), 1, None)
        t, v = _timed(lambda: fn(w), repeat, None, before=_clear_reference_caches)
        payload = ("error", type(v).__name__, str(v)[:500], t) if isinstance(v, Exception) else ("ok", _as_plain(v), t)
    except BaseException as exc:  # noqa: BLE001 - MemoryError included
        payload = ("error", type(exc).__name__, str(exc)[:500], t)
    try:
        conn.send(payload)
    except Exception as exc:  # noqa: BLE001 - e.g. an unpicklable value
        conn.send(("error", type(exc).__name__, str(exc)[:500], t))
    conn.close()


def _ours_isolated(which: str, w: dict, a):
    """(seconds, namespace or Exception): our call in a forked child, killed after --timeout, address space capped
    at --mem-limit GiB beyond the parent's, so that a hang in compiled code or a runaway allocation of the engine
    costs one cell, not the run.  In process (SIGALRM only) with --in-process or where fork is unavailable."""
    import multiprocessing as mp

    if a.in_process or "fork" not in mp.get_all_start_methods():
        fn = OURS[which]
        t, v = _timed(lambda: fn(w), a.repeat, a.timeout or None, before=_clear_reference_caches)
        return t, (v if isinstance(v, Exception) else _as_plain(v))
    ctx = mp.get_context("fork")
    rd, wr = ctx.Pipe(duplex=False)
    p = ctx.Process(target=_child, args=(wr, which, w, a.repeat, a.mem_limit, True), daemon=True)
    t0 = time.perf_counter()
    p.start()
    wr.close()
    try:
        if rd.poll(a.timeout or None):
            msg = rd.recv()
        else:
            msg = ("error", "CallTimeout", f"no answer within {a.timeout:g} s (child killed)", time.perf_counter() - t0)
    except EOFError:
        p.join(5)
        msg = ("error", "ChildDied", f"exit code {p.exitcode}", time.perf_counter() - t0)
    finally:
        if p.is_alive():
            p.kill()
        p.join(5)
        rd.close()
    if msg[0] == "ok":
        return msg[2], msg[1]
    return msg[3], _exception(msg[1], msg[2])


def _dpa_event(w):
    import dp_accounting as dpa

    return dpa.SelfComposedDpEvent(dpa.PoissonSampledDpEvent(float(w["q"]), dpa.GaussianDpEvent(float(w["sigma"]))),
                                   int(w["k"]))


def _dpa_pld(w, interval: float):
    from dp_accounting import pld

    acc = pld.PLDAccountant(value_discretization_interval=interval)
    acc.compose(_dpa_event(w))
    return float(acc.get_epsilon(float(w["delta"])))


def _dpa_rdp(w):
    from dp_accounting import rdp

    acc = rdp.RdpAccountant()
    acc.compose(_dpa_event(w))
    return float(acc.get_epsilon(float(w["delta"])))


def _prv(w, eps_error: float, delta_div: float):
    import prv_accountant as pa

    mech = pa.PoissonSubsampledGaussianMechanism(noise_multiplier=float(w["sigma"]), sampling_probability=float(w["q"]))
    d, k = float(w["delta"]), int(w["k"])
    acc = pa.PRVAccountant(prvs=[mech], max_self_compositions=[k], eps_error=eps_error, delta_error=d / delta_div)
    lo, est, up = acc.compute_epsilon(d, [k])
    return float(lo), float(est), float(up)


# ---------------------------------------------------------------------------
# verdicts
# ---------------------------------------------------------------------------

def _inside(v: float, lo: float, hi: float, tol: float) -> tuple[str, bool | None]:
    """Verdict of a peer's estimate against [lo, hi] with the peer's own error ``tol``."""
    if lo <= v <= hi:
        return "yes", True
    if lo - tol <= v <= hi + tol:
        return "tol", True
    if v > hi:
        return f"ABOVE +{v - hi:.2g}", False
    return f"BELOW -{lo - v:.2g}", False


def _bounds(ours) -> tuple[float, float] | None:
    """Our bracket as doubles rounded outward (lo down, hi up); None if ours failed."""
    if isinstance(ours, Exception) or ours is None:
        return None
    lo = _to_fraction(ours.lo)
    hi = _to_fraction(ours.hi)
    lo_f = float(lo) if lo is not None else 0.0
    if lo is not None and Fraction(lo_f) > lo:
        lo_f = math.nextafter(lo_f, -math.inf)
    if hi is None:
        return lo_f, math.inf
    hi_f = float(hi)
    if Fraction(hi_f) < hi:
        hi_f = math.nextafter(hi_f, math.inf)
    return lo_f, hi_f


# ---------------------------------------------------------------------------
# main
# ---------------------------------------------------------------------------

# ---------------------------------------------------------------------------
# --ratios: CPU seconds against dp-accounting on the review's workloads
# ---------------------------------------------------------------------------

REVIEW_CSV = ROOT / "benchmarks" / "data" / "dpsgd_workloads.csv"

_RATIO_CHILD = r"""
import json, sys, time, warnings
from fractions import Fraction
which, spec, delta = sys.argv[1], sys.argv[2], sys.argv[3]
warnings.simplefilter("ignore")

def phases(spec):
    out = []
    for part in spec.split("+"):
        body, k = part.rsplit("x", 1)
        kv = dict(x.split("=") for x in body.split(":", 1)[1].split(","))
        out.append((float(Fraction(kv["q"])), float(Fraction(kv["sigma"])), int(k)))
    return out

if which == "ours":
    from reference.profiles.check import profile
    import functools
    def run(spec, delta):
        b = profile(spec, "eps", delta)
        return [float(b.lo), float(b.hi)]
    def clear():
        for name, mod in list(sys.modules.items()):
            if mod is not None and (name == "reference" or name.startswith("reference.")):
                for obj in list(vars(mod).values()):
                    if isinstance(obj, functools._lru_cache_wrapper):
                        obj.cache_clear()
else:
    import logging
    logging.getLogger("absl").setLevel(logging.ERROR)
    import dp_accounting as dpa
    from dp_accounting import pld
    def run(spec, delta):
        ev = dpa.ComposedDpEvent([dpa.SelfComposedDpEvent(dpa.PoissonSampledDpEvent(q, dpa.GaussianDpEvent(s)), k)
                                  for q, s, k in phases(spec)])
        acc = pld.PLDAccountant()
        acc.compose(ev)
        return [float(acc.get_epsilon(float(delta)))]
    def clear():
        pass
run("subsampled-gaussian:q=0.01,sigma=1.1x10", "1e-5")
clear()
t = time.process_time()
v = run(spec, delta)
print(json.dumps({"cpu": time.process_time() - t, "value": v}))
"""


def _ratio_call(which: str, spec: str, delta: str, timeout: float | None) -> tuple[float, list | str]:
    """(CPU seconds, value or an error line) of one call in a fresh child process."""
    import subprocess

    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    for v in THREAD_VARS:
        env[v] = "1"
    try:
        out = subprocess.run([sys.executable, "-c", _RATIO_CHILD, which, spec, delta], capture_output=True, text=True,
                             timeout=timeout, env=env, cwd=str(ROOT))
    except subprocess.TimeoutExpired:
        return math.inf, f"no answer within {timeout:g} s"
    lines = out.stdout.strip().splitlines()
    if out.returncode != 0 or not lines:
        return math.inf, (out.stderr.strip().splitlines() or ["exit %d" % out.returncode])[-1][:120]
    d = json.loads(lines[-1])
    return d["cpu"], d["value"]


def review_ratios(path, repeat: int = 1, timeout: float | None = 600.0, json_path=None) -> int:
    """The ``--ratios`` mode (module docstring)."""
    import csv

    rows = list(csv.DictReader(Path(path).read_text(encoding="utf-8").splitlines()))
    have = _installed("dp_accounting")
    print(f"# {len(rows)} workloads from {path}; dp-accounting {have or 'not installed'}; CPU seconds, best of {repeat}, "
          f"a fresh process per call; python {platform.python_version()}, {platform.machine()}")
    print(f"{'id':4s} {'ours [lo, hi]':28s} {'width':>7s} {'dp-acc eps':>11s} {'in?':>5s} {'ours s':>7s} "
          f"{'dp-acc s':>8s} {'ratio':>6s}")
    out = []
    for r in rows:
        best = {"ours": (math.inf, None), "dpa": (math.inf, None)}
        for _ in range(max(1, repeat)):
            for which in ("ours", "dpa") if have else ("ours",):
                t, v = _ratio_call(which, r["spec"], r["delta"], timeout)
                if t <= best[which][0] or best[which][1] is None:
                    best[which] = (t, v)
        (to, vo), (td, vd) = best["ours"], best["dpa"]
        ok = isinstance(vo, list)
        width = (vo[1] - vo[0]) / vo[1] if ok and vo[1] > 0 else math.nan
        inside = "-"
        if ok and isinstance(vd, list):
            inside = "yes" if vo[0] <= vd[0] <= vo[1] else ("ABOVE" if vd[0] > vo[1] else "BELOW")
        ratio = to / td if ok and isinstance(vd, list) and td > 0 else math.nan
        cell = f"[{vo[0]:.6g}, {vo[1]:.6g}]" if ok else str(vo)[:28]
        dcell = f"{vd[0]:.6g}" if isinstance(vd, list) else str(vd)[:11]
        print(f"{r['id']:4s} {cell:28s} {100 * width:6.3f}% {dcell:>11s} {inside:>5s} {to:7.2f} {td:8.2f} {ratio:6.2f}",
              flush=True)
        out.append({"id": r["id"], "spec": r["spec"], "delta": r["delta"], "ours": vo, "ours_cpu_s": to,
                    "dp_accounting": vd, "dp_accounting_cpu_s": td, "ratio": ratio, "width": width, "inside": inside})
    ratios = sorted(x["ratio"] for x in out if math.isfinite(x["ratio"]))
    if ratios:
        med = ratios[len(ratios) // 2] if len(ratios) % 2 else (ratios[len(ratios) // 2 - 1] + ratios[len(ratios) // 2]) / 2
        above = [x["id"] + f" {x['ratio']:.2f}x" for x in out if math.isfinite(x["ratio"]) and x["ratio"] > 2]
        print(f"# ours / dp-accounting CPU: median {med:.2f}x, max {ratios[-1]:.2f}x; above 2x: "
              f"{', '.join(above) if above else 'none'}; widest bracket {100 * max(x['width'] for x in out):.3f}%; "
              f"total ours {sum(x['ours_cpu_s'] for x in out):.1f} s, dp-accounting "
              f"{sum(x['dp_accounting_cpu_s'] for x in out if math.isfinite(x['dp_accounting_cpu_s'])):.1f} s")
    if json_path:
        Path(json_path).write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
    return 0


def _parse(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ratios", nargs="?", const=str(REVIEW_CSV), metavar="CSV",
                    help="CPU ratios to dp-accounting on the review's workloads (default file: "
                         "benchmarks/data/dpsgd_workloads.csv); see the module docstring")
    ap.add_argument("--quick", action="store_true", help="only the 5 workloads marked quick")
    ap.add_argument("--json", metavar="PATH", help="write every row (and the settings) to PATH as JSON")
    ap.add_argument("--workloads", metavar="PATH", help="a JSON list of workloads replacing the built-in 20")
    ap.add_argument("--threads", type=int, default=1,
                    help="set OMP/OPENBLAS/MKL/... thread variables to N before numpy is imported "
                         "(default 1: single-core timings; 0: leave the environment alone)")
    ap.add_argument("--repeat", type=int, default=1, help="each timing is the best of R runs (default 1)")
    ap.add_argument("--timeout", type=float, default=600.0,
                    help="seconds per accountant call before it is reported as CallTimeout (default 600; 0: none)")
    ap.add_argument("--pld-interval", type=float, default=1e-4,
                    help="dp_accounting PLDAccountant value_discretization_interval (default 1e-4, its own default)")
    ap.add_argument("--prv-eps-error", type=float, default=0.01, help="prv_accountant eps_error (default 0.01)")
    ap.add_argument("--prv-delta-div", type=float, default=1000.0,
                    help="prv_accountant delta_error = delta / DIV (default 1000)")
    ap.add_argument("--no-sgm-pld", action="store_true", help="skip the separate sgm_pld(...).eps_bracket timing")
    ap.add_argument("--mem-limit", type=float, default=8.0,
                    help="GiB of address space each of our calls may add (its child process; default 8; 0: no cap)")
    ap.add_argument("--in-process", action="store_true",
                    help="run our calls in this process (SIGALRM timeout only) instead of a child per call")
    return ap.parse_args(argv)


def _load_workloads(a) -> list[dict]:
    if a.workloads:
        ws = json.loads(Path(a.workloads).read_text(encoding="utf-8"))
        if isinstance(ws, dict):
            ws = ws.get("workloads", [])
    else:
        ws = WORKLOADS
    out = []
    for i, w in enumerate(ws):
        w = dict(w)
        for key in ("q", "sigma", "delta"):
            w[key] = str(w[key])
        w["k"] = int(w["k"])
        w.setdefault("name", f"#{i + 1}")
        out.append(w)
    if a.quick:
        marked = [w for w in out if w.get("quick")]
        out = marked if marked else out[:5]
    return out


def _progress(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def main(argv=None) -> int:
    a = _parse(argv)
    if a.ratios:
        return review_ratios(a.ratios, a.repeat, a.timeout or None, a.json)
    if a.threads > 0:  # before numpy (and everything that imports it) is imported
        for v in THREAD_VARS:
            os.environ[v] = str(a.threads)
    try:
        import reference  # noqa: F401
    except ImportError:  # run from a checkout without installing
        sys.path.insert(0, str(ROOT))
    workloads = _load_workloads(a)
    timeout = a.timeout or None

    have = {m: _installed(m) for m in ("dp_accounting", "prv_accountant")}
    for m, v in have.items():
        _progress(f"{m}: {v or 'not installed'}")
    if have["dp_accounting"]:  # its RDP accountant logs a warning per order it drops; the answer is what counts
        import logging

        logging.getLogger("absl").setLevel(logging.ERROR)
    try:  # the engine is imported here so that its import failure is reported, not fatal
        import reference.profiles.check  # noqa: F401
        engine_err = None
    except Exception as exc:  # noqa: BLE001
        engine_err = exc
        _progress(f"reference.profiles.check does not import: {type(exc).__name__}: {exc}")

    # warm-up: lazy imports and first-call set-up, on a tiny workload, outside the timings
    tiny = TINY
    _progress("warm-up ...")
    with contextlib.suppress(Exception):  # our modules once here; their first call warms up in each child
        import reference.profiles.sgm_pld  # noqa: F401
    if a.in_process:
        _timed(lambda: _ours_profile(tiny), 1, timeout)
        if not a.no_sgm_pld:
            _timed(lambda: _ours_sgm_pld(tiny), 1, timeout)
    if have["dp_accounting"]:
        _timed(lambda: _dpa_pld(tiny, a.pld_interval), 1, timeout)
        _timed(lambda: _dpa_rdp(tiny), 1, timeout)
    if have["prv_accountant"]:
        _timed(lambda: _prv(tiny, a.prv_eps_error, a.prv_delta_div), 1, timeout)

    rows = []
    n = len(workloads)
    t_run = time.perf_counter()
    for i, w in enumerate(workloads, 1):
        tag = f"[{i}/{n}] {w['name']}"
        row: dict = {"name": w["name"], "q": w["q"], "sigma": w["sigma"], "k": w["k"], "delta": w["delta"]}

        t, v = _ours_isolated("profile", w, a)
        row["ours_s"], row["ours"] = t, v
        if isinstance(v, Exception):
            _progress(f"{tag}: ours {type(v).__name__}: {str(v)[:120]} ({t:.2f}s)")
        else:
            _progress(f"{tag}: ours [{_dir(v.lo, 'lower')}, {_dir(v.hi, 'upper')}] ({t:.2f}s)")

        if a.no_sgm_pld:
            row["sgm_pld_s"], row["sgm_pld"] = None, None
        else:
            t, v = _ours_isolated("sgm_pld", w, a)
            row["sgm_pld_s"], row["sgm_pld"] = t, v
            _progress(f"{tag}: sgm_pld.eps_bracket " + (f"{type(v).__name__}" if isinstance(v, Exception) else
                                                       f"[{_dir(v.lo, 'lower')}, {_dir(v.hi, 'upper')}]") + f" ({t:.2f}s)")

        for key, ok, fn in (("pld", have["dp_accounting"], lambda: _dpa_pld(w, a.pld_interval)),
                            ("rdp", have["dp_accounting"], lambda: _dpa_rdp(w)),
                            ("prv", have["prv_accountant"], lambda: _prv(w, a.prv_eps_error, a.prv_delta_div))):
            if not ok:
                row[f"{key}_s"], row[key] = None, None
                continue
            t, v = _timed(fn, a.repeat, timeout)
            row[f"{key}_s"], row[key] = t, v
            _progress(f"{tag}: {key} " + (f"{type(v).__name__}: {str(v)[:100]}" if isinstance(v, Exception) else
                                          (", ".join(f"{x:.6g}" for x in v) if isinstance(v, tuple) else f"{v:.6g}"))
                      + f" ({t:.2f}s)")
        rows.append(row)
    total = time.perf_counter() - t_run

    _print_table(rows, have, a)
    print(f"# total {total:.1f} s for {n} workloads; python {platform.python_version()}, {platform.machine()}, "
          f"threads {'env ' + str(a.threads) if a.threads > 0 else 'default'}, best of {a.repeat}")
    if engine_err is not None:
        print(f"# reference.profiles.check failed to import: {type(engine_err).__name__}: {engine_err}")
    if a.json:
        Path(a.json).write_text(json.dumps(_json_doc(rows, have, a, total), indent=1) + "\n", encoding="utf-8")
        print(f"# rows written to {a.json}")
    return 0


def _cells(r, have, a) -> dict:
    """The printed cells of one row, and the verdicts (also stored in the JSON)."""
    c: dict = {}
    ours = r["ours"]
    b = _bounds(ours)
    if b is None:
        c["lo"], c["hi"], c["relw"], c["via"] = (_err(ours) if isinstance(ours, Exception) else "-"), "", "", ""
    else:
        c["lo"], c["hi"] = _dir(ours.lo, "lower"), _dir(ours.hi, "upper")
        lo_f, hi_f = b
        c["relw"] = f"{(hi_f - lo_f) / hi_f:.3g}" if math.isfinite(hi_f) and hi_f > 0 else "inf"
        c["via"] = f"{_route(getattr(ours, 'lo_source', ''))}/{_route(getattr(ours, 'hi_source', ''))}"
    c["t_ours"] = f"{r['ours_s']:.3f}"
    s = r["sgm_pld"]
    c["t_sgm"] = "n/a" if s is None or isinstance(s, Exception) else f"{r['sgm_pld_s']:.3f}"
    c["sgm_relw"] = "n/a"
    if isinstance(s, Exception):
        c["sgm_relw"] = _err(s)[:12]
    elif s is not None:
        sb = _bounds(s)
        c["sgm_relw"] = f"{(sb[1] - sb[0]) / sb[1]:.3g}" if math.isfinite(sb[1]) and sb[1] > 0 else "inf"

    def peer(key, installed):
        v = r[key]
        if not installed:
            return "not installed", "", "-", None
        t = f"{r[key + '_s']:.3f}"
        if isinstance(v, Exception):
            return _err(v), t, "-", None
        return v, t, None, None

    # PLD
    v, t, verdict, _ = peer("pld", have["dp_accounting"])
    c["pld"], c["t_pld"] = (_num(v) if isinstance(v, float) else v), t
    if isinstance(v, float):
        verdict, ok = _inside(v, *b, a.pld_interval) if b else ("-", None)
        c["pld_ok"] = ok
    c["pld_in"] = verdict
    # RDP
    v, t, verdict, _ = peer("rdp", have["dp_accounting"])
    c["rdp"], c["t_rdp"] = (_num(v) if isinstance(v, float) else v), t
    if isinstance(v, float):
        ok = None if b is None else v >= b[0]
        verdict = "-" if b is None else ("yes" if ok else f"BELOW -{b[0] - v:.2g}")
        c["rdp_ok"] = ok
    c["rdp_in"] = verdict
    # PRV
    v, t, verdict, _ = peer("prv", have["prv_accountant"])
    if isinstance(v, tuple):
        lo, est, up = v
        c["prv"] = f"({lo:.5g}, {est:.5g}, {up:.5g})"
        if b is None:
            verdict, ok = "-", None
        elif up < b[0]:
            verdict, ok = f"UPPER<lo -{b[0] - up:.2g}", False
        else:
            verdict, ok = _inside(est, *b, a.prv_eps_error)
        c["prv_ok"] = ok
    else:
        c["prv"] = v
    c["t_prv"], c["prv_in"] = t, verdict
    tp = r["pld_s"]
    timed = tp and isinstance(r["pld"], float) and not isinstance(ours, Exception)
    c["ratio"] = f"{r['ours_s'] / tp:.2f}" if timed else "-"
    return c


COLS = [("workload", "name", "<", 22), ("q", "q", ">", 9), ("sigma", "sigma", ">", 5), ("k", "k", ">", 6),
        ("delta", "delta", ">", 5), ("ours lo", "lo", ">", 10), ("ours hi", "hi", ">", 10), ("relw", "relw", ">", 7),
        ("via", "via", "<", 8), ("ours s", "t_ours", ">", 7), ("sgm_pld s", "t_sgm", ">", 9),
        ("sgm relw", "sgm_relw", ">", 8),
        ("PLD eps", "pld", ">", 9), ("PLD s", "t_pld", ">", 7), ("PLD in?", "pld_in", "<", 12),
        ("RDP eps", "rdp", ">", 9), ("RDP s", "t_rdp", ">", 6), ("RDP>=lo", "rdp_in", "<", 11),
        ("PRV (lower, est, upper)", "prv", "<", 29), ("PRV s", "t_prv", ">", 7), ("PRV in?", "prv_in", "<", 12),
        ("ours/PLD", "ratio", ">", 8)]


def _print_table(rows, have, a) -> None:
    print()
    print(f"# DP-SGD eps(delta), k-fold Poisson-subsampled Gaussian, add/remove.  ours = check.profile bracket "
          f"(lo rounded down, hi up, 6 digits); PLD = dp_accounting {have['dp_accounting'] or 'not installed'} "
          f"PLDAccountant(value_discretization_interval={a.pld_interval:g}); RDP = dp_accounting RdpAccountant() "
          f"(default orders); PRV = prv_accountant {have['prv_accountant'] or 'not installed'} PRVAccountant("
          f"eps_error={a.prv_eps_error:g}, delta_error=delta/{a.prv_delta_div:g}); times in seconds; "
          f"via = routes of our lo/hi ends (PLD, RDP, bin = binary post-processing, triv = 0); "
          f"sgm relw = relative width of sgm_pld(q, sigma, k).eps_bracket(delta) (inf: an end is 0 or +inf); "
          f"q shown with ~ is rounded for display (computed exactly)")
    hdr = " ".join(f"{h:{al}{wd}}" for h, _, al, wd in COLS)
    print(hdr)
    print("-" * len(hdr))
    for r in rows:
        c = _cells(r, have, a)
        r["_cells"] = c
        q = r["q"] if len(r["q"]) <= 9 else f"{float(r['q']):.4g}~"
        vals = {"name": r["name"], "q": q, "sigma": r["sigma"], "k": str(r["k"]), "delta": r["delta"], **c}
        print(" ".join(f"{str(vals.get(key, '')):{al}{wd}}" for _, key, al, wd in COLS), flush=True)
    n = len(rows)
    for key, label in (("pld_ok", "PLD estimate in our bracket (+- its interval)"),
                       ("rdp_ok", "RDP >= our lower end"),
                       ("prv_ok", "PRV estimate in our bracket (+- its eps_error)")):
        oks = [r["_cells"].get(key) for r in rows]
        graded = [o for o in oks if o is not None]
        verdicts = [str(r["_cells"].get(key.replace("_ok", "_in"), "")) for r in rows]
        above = sum(v.startswith("ABOVE") for v in verdicts)
        below = sum(v.startswith(("BELOW", "UPPER<lo")) for v in verdicts)
        more = (f"; {above} ABOVE our certified upper end (the peer more conservative than the truth)" if above else "") + \
            f"; {below} below our certified lower end (anti-conservative)"
        print(f"# {label}: {sum(graded)} of {len(graded)} graded ({n - len(graded)} not graded){more}")
    ratios = [float(r["_cells"]["ratio"]) for r in rows if r["_cells"]["ratio"] != "-"]
    if ratios:
        ratios.sort()
        print(f"# ours/PLD time ratio: median {ratios[len(ratios) // 2]:.2f}, max {ratios[-1]:.2f}")


def _json_doc(rows, have, a, total) -> dict:
    def enc(v):
        if v is None:
            return None
        if isinstance(v, Exception):
            return {"error": type(v).__name__, "message": str(v)[:500]}
        if isinstance(v, tuple):
            return {"lower": v[0], "estimate": v[1], "upper": v[2]}
        if isinstance(v, float):
            return v
        if hasattr(v, "lo") and hasattr(v, "hi"):
            return {"lo": _dir(v.lo, "lower", 17), "hi": _dir(v.hi, "upper", 17), "lo_source": getattr(v, "lo_source", ""),
                    "hi_source": getattr(v, "hi_source", "")}
        return repr(v)

    out = []
    for r in rows:
        c = r.get("_cells", {})
        out.append({"name": r["name"], "q": r["q"], "sigma": r["sigma"], "k": r["k"], "delta": r["delta"],
                    "ours": enc(r["ours"]), "ours_s": r["ours_s"], "relative_width": c.get("relw"),
                    "sgm_pld": enc(r["sgm_pld"]), "sgm_pld_s": r["sgm_pld_s"], "sgm_pld_relative_width": c.get("sgm_relw"),
                    "dpa_pld": enc(r["pld"]), "dpa_pld_s": r["pld_s"], "dpa_pld_inside": c.get("pld_in"),
                    "dpa_rdp": enc(r["rdp"]), "dpa_rdp_s": r["rdp_s"], "dpa_rdp_ge_lo": c.get("rdp_in"),
                    "prv": enc(r["prv"]), "prv_s": r["prv_s"], "prv_inside": c.get("prv_in"),
                    "ours_over_pld_time": c.get("ratio")})
    return {"settings": {"threads": a.threads, "repeat": a.repeat, "timeout_s": a.timeout,
                         "pld_value_discretization_interval": a.pld_interval, "prv_eps_error": a.prv_eps_error,
                         "prv_delta_error": f"delta/{a.prv_delta_div:g}", "peers": have,
                         "python": platform.python_version(), "machine": platform.machine(), "total_s": total},
            "rows": out}


if __name__ == "__main__":
    sys.exit(main())
