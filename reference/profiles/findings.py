"""A record of peer defects: each disagreement between a peer accountant's number and a certified bracket.

A *finding* (one entry of ``reference/data/peer_findings.json``) holds: its id, the peer and the
version it was found with, the exact call (a Python snippet a maintainer can paste; it prints the
peer's answer on its last line), the peer's value (or its error text, or the time cap it ran past)
with the CPU seconds the call took, the certified bracket of the same quantity (computed by
:func:`reference.profiles.check.profile` with ``binary=True``, i.e. for the doubles the peer was
given, and its source), a *second route* that confirms or dismisses it, its status and a one-line
summary.

Kinds and statuses:

* ``anti-conservative``: the peer's eps (a value its documentation presents as an eps for the
  composition, or for prv_accountant its reported *upper* end) lies below the certified lower end.
  Confirmed when a second certified route also excludes it: the certified bracket at a finer
  PLD precision, whose lower end is again above the value (and no lower than the first).
* ``crash`` (status ``crash``): the call raises, and raises the same again in a second fresh
  process (else status ``dismissed``), while the certified bracket of the same input exists (the
  question is well posed).
* ``timeout`` (status ``timeout``): the call is killed at the cap (``cap_s`` CPU seconds in a fresh
  process; not re-run when the record is built, a re-run costs the cap), while the certified
  bracket of the same input took the recorded CPU time.
* ``conservative`` findings are not defects and are not recorded.

Each peer call runs in a fresh interpreter (:func:`run_call`) with one BLAS/OpenMP thread and a
hard wall-clock cap; its CPU time is that child's user + system time.
"""
from __future__ import annotations

import json
import math
import os
import resource
import subprocess
import sys
import time
from fractions import Fraction
from pathlib import Path

from ..catalog import cites

__all__ = ["DATA", "load", "call_snippet", "run_call", "peer_value", "certified_bracket", "recheck", "make_finding",
           "KINDS", "STATUSES"]

#: The record of findings.
DATA = Path(__file__).resolve().parent.parent / "data" / "peer_findings.json"

KINDS = ("anti-conservative", "crash", "timeout")
STATUSES = ("confirmed", "dismissed", "crash", "timeout")

#: brackets computed in this process, by (spec, delta, precision) (each is certified; recomputing gives the same)
_BRACKETS: dict = {}

_ONE_THREAD = {v: "1" for v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMEXPR_NUM_THREADS")}


def load(path: Path | str | None = None) -> dict:
    """The record (``{"schema": 1, "findings": [...]}``) read from ``path`` (default :data:`DATA`)."""
    return json.loads(Path(path or DATA).read_text(encoding="utf-8"))


def _items(spec: str) -> list[tuple[float, float, int]]:
    """(q, sigma, k) per item of a subsampled-Gaussian spec, q and sigma the doubles nearest the decimals."""
    out = []
    for item in spec.split("+"):
        mech, _, rest = item.strip().partition(":")
        if mech != "subsampled-gaussian":
            raise ValueError(f"spec: only subsampled-gaussian items are supported here, found {item!r}")
        params, _, count = rest.partition("x")
        kv = dict(p.split("=") for p in params.split(","))
        out.append((float(Fraction(kv["q"])), float(Fraction(kv["sigma"])), int(count or 1)))
    return out


@cites("doroshenko2022", "the peer's PLD accountant (dp_accounting), called as its documentation shows; this project "
       "only writes the call")
def call_snippet(peer: str, variant: str, spec: str, delta: str, **settings) -> str:
    """The exact call of ``peer``/``variant`` for eps(delta) of the subsampled-Gaussian composition ``spec``.

    A self-contained snippet (a maintainer can paste it) that prints the peer's answer on its last
    line: a float, or for prv_accountant ``lower estimate upper``.  Variants: dp_accounting ``pld``
    (``PLDAccountant``; ``settings['value_discretization_interval']`` optional) and ``rdp``
    (``RdpAccountant()``); prv_accountant ``prv`` (``PRVAccountant``, ``eps_error`` and
    ``delta_error`` from ``settings``, default 0.01 and 1e-10 as in :mod:`reference.profiles.peers`).
    The inputs are the doubles nearest the decimals of ``spec`` and ``delta``.
    """
    items, d = _items(spec), float(Fraction(delta))
    if peer == "dp_accounting" and variant in ("pld", "rdp"):
        evs = [f"dpa.SelfComposedDpEvent(dpa.PoissonSampledDpEvent({q!r}, dpa.GaussianDpEvent({s!r})), {k})"
               for q, s, k in items]
        ev = evs[0] if len(evs) == 1 else "dpa.ComposedDpEvent([" + ", ".join(evs) + "])"
        if variant == "pld":
            vdi = settings.get("value_discretization_interval")
            make = "pld.PLDAccountant()" if vdi is None else f"pld.PLDAccountant(value_discretization_interval={vdi!r})"
            mod = "pld"
        else:
            make, mod = "rdp.RdpAccountant()", "rdp"
        return (f"import dp_accounting as dpa\nfrom dp_accounting import {mod}\n"
                f"acc = {make}\nacc.compose({ev})\nprint(repr(float(acc.get_epsilon({d!r}))))\n")
    if peer == "prv_accountant" and variant == "prv":
        ee, de = settings.get("eps_error", 0.01), settings.get("delta_error", 1e-10)
        mechs = ", ".join(f"pa.PoissonSubsampledGaussianMechanism({q!r}, {s!r})" for q, s, _ in items)
        ks = [k for *_, k in items]
        return (f"import prv_accountant as pa\n"
                f"acc = pa.PRVAccountant(prvs=[{mechs}], max_self_compositions={ks}, eps_error={ee!r}, "
                f"delta_error={de!r})\n"
                f"lo, est, up = acc.compute_epsilon({d!r}, {ks})\nprint(repr(float(lo)), repr(float(est)), repr(float(up)))\n")
    raise ValueError(f"peer/variant: one of dp_accounting/pld, dp_accounting/rdp, prv_accountant/prv, "
                     f"found {peer}/{variant}")


@cites("koskela2020", "this project, derived: a peer's answer is taken as printed by a fresh interpreter; a call "
       "still running at the cap is killed and recorded as a timeout (no answer, so nothing is claimed for it)")
def run_call(code: str, cap_s: float = 120.0, wall_cap_s: float | None = None) -> dict:
    """Run ``code`` in a fresh interpreter with one BLAS thread, killed after ``cap_s`` CPU seconds.

    The cap is on the child's CPU time (``RLIMIT_CPU``, so that a loaded machine does not turn a
    slow answer into a timeout), with a wall-clock backstop ``wall_cap_s`` (default ``10 * cap_s``).
    Returns ``{"outcome": "value"|"crash"|"timeout", "stdout_last": str, "error": str, "cpu_s": float,
    "wall_s": float, "killed_by": None|"cpu cap"|"wall cap"}``: ``value`` when it exited 0 (its last
    stdout line is the answer), ``crash`` when it exited non-zero (``error``: the last line of its
    stderr, the exception), ``timeout`` when it was killed at a cap.  ``cpu_s`` is the child's user +
    system time (measured, rounded to 0.1 s; it includes the interpreter's start and the peer's import).
    """
    import signal

    for name, x in (("cap_s", cap_s), ("wall_cap_s", wall_cap_s)):
        if x is None and name == "wall_cap_s":
            continue
        if isinstance(x, bool) or not (isinstance(x, (int, float)) and 0 < x <= 36000):
            raise ValueError(f"{name} must be in (0, 36000] seconds, found {x!r}")
    wall = wall_cap_s if wall_cap_s is not None else 10 * cap_s
    cpu_limit = max(1, math.ceil(cap_s))

    def limit():  # in the child, before exec: SIGXCPU at the soft limit, SIGKILL one second later
        resource.setrlimit(resource.RLIMIT_CPU, (cpu_limit, cpu_limit + 1))

    env = {**os.environ, **_ONE_THREAD, "PYTHONWARNINGS": "ignore"}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    killed = None
    try:
        p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=wall, env=env,
                           preexec_fn=limit)
        if p.returncode in (-signal.SIGXCPU, -signal.SIGKILL):
            killed = "cpu cap"
        outcome = "value" if p.returncode == 0 else "timeout" if killed else "crash"
        out, err = p.stdout.strip().splitlines(), p.stderr.strip().splitlines()
    except subprocess.TimeoutExpired:
        outcome, out, err, killed = "timeout", [], [], "wall cap"
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"outcome": outcome, "stdout_last": out[-1] if out else "", "error": err[-1] if (err and outcome == "crash") else "",
            "cpu_s": round(cpu, 1), "wall_s": round(time.monotonic() - t0, 1), "killed_by": killed}


def peer_value(peer: str, stdout_last: str) -> float:
    """The value a peer's snippet printed that is graded: its eps, or prv_accountant's upper end."""
    parts = stdout_last.replace("np.float64(", "").replace(")", "").split()
    return float(parts[-1]) if peer == "prv_accountant" else float(parts[0])


@cites("koskela2020", "PLD accountant for the subsampled Gaussian, certified (reference.profiles.sgm_pld, through "
       "reference.profiles.check.profile)")
def certified_bracket(spec: str, delta: str, precision: str | None = None) -> dict:
    """The certified eps(delta) bracket of ``spec`` read with ``binary=True`` (the doubles a peer computes with).

    Remembered in this process (the same arguments give the same bracket); returns a copy.
    Returns ``{"lower", "upper"}`` as decimal text (the lower end rounded down, the upper end up, by
    :func:`reference.profiles.check.profile`), their sources, the precision and the CPU seconds.
    """
    from .check import profile

    key = (spec, delta, precision)
    if key in _BRACKETS:
        return dict(_BRACKETS[key])
    t = time.process_time()
    b = profile(spec, "eps", delta, binary=True, precision=precision)
    d = b.as_dict(12)
    out = {"lower": d["lower"], "upper": d["upper"], "precision": precision or "default (1/100)",
            "source": d["source"] if b.exact else f"lower: {d['lower_source']}; upper: {d['upper_source']}",
            "cpu_s": round(time.process_time() - t, 1)}
    _BRACKETS[key] = dict(out)
    return out


def _lower_exceeds(lower_text: str, v: float) -> bool:
    """Exact: is the certified lower end (decimal text) above the double ``v``?"""
    return Fraction(lower_text) > Fraction(v)


@cites("koskela2020", "this project, derived: a finding is confirmed again when the certified lower end (rounded "
       "down) still exceeds the recorded value, compared exactly")
def recheck(finding: dict, *, run_peer: bool = True, bracket: bool = True, cap_s: float | None = None) -> dict:
    """Re-run one finding: the peer's call (if ``run_peer`` and the peer is installed) and our bracket (if ``bracket``).

    Returns ``{"id", "peer_installed", "peer": run_call's dict (+ "value") or None, "bracket": certified_bracket's
    dict or None, "still_holds": bool or None}``.  ``still_holds``: for an anti-conservative finding,
    the recomputed lower end exceeds the recorded value (and the re-run value too, when one was
    obtained); for a crash, the re-run crashed; for a timeout, the re-run ran past the cap; for a
    dismissed claim, the re-run again answers (a timeout) or again lies inside (an eps).  None when
    nothing was re-run.
    """
    from .peers import installed

    ver = installed(finding["peer"])
    res: dict = {"id": finding["id"], "peer_installed": ver, "peer": None, "bracket": None, "still_holds": None}
    holds: list[bool] = []
    if run_peer and ver is not None:
        r = run_call(finding["call"], cap_s or finding.get("cap_s", 120))
        if r["outcome"] == "value":
            r["value"] = peer_value(finding["peer"], r["stdout_last"])
        res["peer"] = r
        kind, status = finding["kind"], finding["status"]
        if status in ("crash", "timeout"):
            holds.append(r["outcome"] == status)
        elif kind == "timeout":  # dismissed: it answered under the cap
            holds.append(r["outcome"] == "value")
        elif r["outcome"] == "value":
            holds.append(_lower_exceeds(finding["certified"]["lower"], r["value"]) == (status == "confirmed"))
        else:
            holds.append(False)
    if bracket and finding.get("spec"):
        b = certified_bracket(finding["spec"], finding["delta"], finding["certified"].get("precision_arg"))
        res["bracket"] = b
        if finding["kind"] == "anti-conservative" and finding["status"] == "confirmed":
            holds.append(_lower_exceeds(b["lower"], float(finding["peer_value"])))
    res["still_holds"] = all(holds) if holds else None
    return res


def _second_route_bracket(spec: str, delta: str, value: float, precision: str) -> dict:
    b = certified_bracket(spec, delta, precision)
    return {"kind": "certified bracket at a finer PLD precision", "precision_arg": precision, **b,
            "excludes_peer_value": _lower_exceeds(b["lower"], value)}


@cites("koskela2020", "this project, derived: the finding's status follows from exact comparisons of the peer's "
       "double with certified ends (rounded down); a crash or a timeout is recorded as such, never graded")
def make_finding(fid: str, peer: str, variant: str, spec: str, delta: str, *, settings: dict | None = None,
                 cap_s: float = 120.0, fine_precision: str = "1/400", peer_fine: dict | None = None,
                 workload: str | None = None, note: str = "", code: str | None = None, run: dict | None = None,
                 run_fine: dict | None = None, claimed: str | None = None) -> dict:
    """Run one peer call, certify the same quantity, and build the finding (see the module docstring).

    ``peer_fine``: settings of the same peer call at a finer setting, run as an extra
    (non-certified) route whose value is recorded for the maintainer.  ``code``: a call written by hand
    (instead of :func:`call_snippet`'s); ``run``: an earlier :func:`run_call` result of that very call,
    used instead of running it again (``run_fine``: the same for the ``peer_fine`` call).  ``claimed``: the
    kind an earlier report claimed for this call; when the call does not reproduce it, the finding
    is recorded with that kind and status ``dismissed``.  Returns the finding's dict;
    its ``kind`` is None when the peer answered inside or above the bracket (not a defect).
    """
    from .peers import installed

    settings = dict(settings or {})
    code = code or call_snippet(peer, variant, spec, delta, **settings)
    r = run if run is not None else run_call(code, cap_s)
    cert = certified_bracket(spec, delta)
    f: dict = {"id": fid, "peer": peer, "version": installed(peer), "variant": variant, "workload": workload,
               "spec": spec, "quantity": "eps", "delta": delta, "settings": settings, "call": code, "cap_s": cap_s,
               "peer_cpu_s": r["cpu_s"], "peer_wall_s": r["wall_s"], "peer_killed_by": r.get("killed_by"),
               "peer_value": None, "peer_output": r["stdout_last"],
               "peer_error": r["error"], "certified": {**cert, "precision_arg": None}, "kind": None, "status": None,
               "second_route": None, "note": note, "summary": ""}
    if r["outcome"] == "timeout":
        f.update(kind="timeout", status="timeout",
                 second_route={"kind": "certified bracket of the same input", "cpu_s": cert["cpu_s"]})
        past = (f"its {cap_s:g} CPU s cap (killed at the CPU cap with {r['cpu_s']:g} CPU s measured, {r['wall_s']:g} s wall"
                if r["killed_by"] == "cpu cap" else
                f"{r['wall_s']:g} s wall (killed at the wall-clock backstop, having used {r['cpu_s']:g} CPU s")
        f["summary"] = (f"{peer} {f['version']} {variant} runs past {past}; a loaded machine) "
                        f"on {spec} at delta = {delta}; certified eps in [{cert['lower']}, {cert['upper']}] in "
                        f"{cert['cpu_s']:g} CPU s")
        return f
    if r["outcome"] == "crash":
        again = run_call(code, cap_s)  # the second route: the same call in another fresh process
        same = again["outcome"] == "crash" and again["error"] == r["error"]
        f.update(kind="crash", status="crash" if same else "dismissed",
                 second_route={"kind": "the same call re-run in a fresh process; the certified bracket of the same "
                                       "input exists (the question is well posed)",
                               "rerun_outcome": again["outcome"], "rerun_error": again["error"],
                               "rerun_cpu_s": again["cpu_s"], "bracket_cpu_s": cert["cpu_s"]})
        f["summary"] = (f"{peer} {f['version']} {variant} raises '{r['error'][:100]}' on {spec} at delta = {delta}; "
                        f"certified eps in [{cert['lower']}, {cert['upper']}]")
        return f
    v = peer_value(peer, r["stdout_last"])
    f["peer_value"] = v
    if not _lower_exceeds(cert["lower"], v):
        if claimed is not None:  # a claimed crash or timeout that did not happen: dismissed
            where = ("above the certified upper end (conservative)" if Fraction(v) > Fraction(cert["upper"])
                     else "inside the certified bracket")
            f.update(kind=claimed, status="dismissed",
                     second_route={"kind": "the same call, run to its answer under the cap", "cpu_s": r["cpu_s"]})
            f["summary"] = (f"dismissed: {peer} {f['version']} {variant} answers {v!r} in {r['cpu_s']:g} CPU s "
                            f"(under the {cap_s:g} CPU s cap; {r['wall_s']:g} s wall on a loaded machine) on {spec} at "
                            f"delta = {delta}, {where} [{cert['lower']}, {cert['upper']}]")
        return f  # inside or above the bracket: not a defect
    sr = _second_route_bracket(spec, delta, v, fine_precision)
    if peer_fine is not None:
        rf = run_fine if run_fine is not None else run_call(call_snippet(peer, variant, spec, delta, **peer_fine), cap_s)
        sr["peer_at_finer_setting"] = {"settings": peer_fine, "outcome": rf["outcome"], "cpu_s": rf["cpu_s"],
                                       "value": peer_value(peer, rf["stdout_last"]) if rf["outcome"] == "value" else None}
    ok = sr["excludes_peer_value"]
    f.update(kind="anti-conservative", status="confirmed" if ok else "dismissed", second_route=sr)
    what = "upper end" if peer == "prv_accountant" else "eps"
    f["summary"] = (f"{peer} {f['version']} {variant} reports {what} {v!r} on {spec} at delta = {delta}, below the "
                    f"certified lower end {cert['lower']} (at precision {fine_precision}: {sr['lower']}): "
                    + ("anti-conservative" if ok else "dismissed: the finer bracket does not exclude it"))
    return f


def main(argv=None) -> int:
    """``python -m reference.profiles.findings [--cap S] ID...``: re-run the recorded findings (all if no id) and
    print one line each: the peer's outcome now, the bracket's lower end and whether the finding still holds."""
    import argparse

    ap = argparse.ArgumentParser(description=main.__doc__)
    ap.add_argument("ids", nargs="*")
    ap.add_argument("--cap", type=float, default=None, help="the time cap per peer call (default: each finding's)")
    ap.add_argument("--no-bracket", action="store_true", help="do not recompute our brackets")
    a = ap.parse_args(argv)
    rows = [f for f in load()["findings"] if not a.ids or f["id"] in a.ids]
    bad = 0
    for f in rows:
        r = recheck(f, bracket=not a.no_bracket, cap_s=a.cap)
        bad += r["still_holds"] is False
        print(json.dumps(r))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
