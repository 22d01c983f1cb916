"""Run every check of the supermartingale checker and collect the rows of its report.

Rows (one per process/boundary and condition):

* ``X_0 <= 1 (exact)`` for each process;
* ``one-step (exact)``: ``E[X_n | F_{n-1}] <= X_{n-1}`` on the grid, decided exactly;
* ``one-step (Monte Carlo)``: the same condition by sampling, rejected only when a
  lower confidence bound at level ``alpha`` (Bonferroni over the grid) exceeds 1;
* ``crossing``: for each boundary, the worst adversary's crossing frequency: "fail"
  only if the certified Clopper-Pearson lower bound at level ``alpha``, minus the
  draw-rounding slack ``T 2^-32``, exceeds the claimed probability; otherwise "pass"
  with the Clopper-Pearson upper bound (plus the slack) reported.

Negative controls (``include_negative_controls``) must come out "fail"; the report's
``exit_status`` is 0 when every genuine row passes and every negative control fails,
1 when a genuine row fails (or is undecided), 3 when a negative control escapes.
"""
from __future__ import annotations

import json
import platform
import sys
import time
from dataclasses import asdict, dataclass, field
from fractions import Fraction

import mpmath
import numpy as np

from ..precision import Domain, check, directed_decimal
from .backend import get_backend
from .boundaries import make_boundaries
from .processes import (
    NEGATIVE_PROCESSES,
    PROCESSES,
    default_grid,
    one_step_exact,
    one_step_mc,
    x0_exact,
)
from .simulate import default_adversaries, make_plan, simulate
from .stats import binomial_exceeds, clopper_pearson

__all__ = ["CheckConfig", "Row", "run_checks", "render_table", "EXIT_OK", "EXIT_FAIL", "EXIT_CONTROL_ESCAPED"]

F = Fraction
EXIT_OK, EXIT_FAIL, EXIT_CONTROL_ESCAPED = 0, 1, 3


@dataclass
class CheckConfig:
    """Settings of a run (validated exactly; ``quick`` shrinks grids, paths, steps and samples)."""

    backend: str = "numpy"
    paths: int = 100_000
    steps: int = 1000
    seed: int = 0
    delta: Fraction = F(1, 10)
    alpha: Fraction = F(1, 10 ** 9)
    mc_samples: int = 100_000
    quick: bool = False
    include_negative_controls: bool = False
    threads: int | None = None
    unit: Fraction = F(1, 20)
    n_records: int = 100

    def __post_init__(self):
        self.delta = check("delta", self.delta, Domain.open_unit())
        self.alpha = check("alpha", self.alpha, Domain.open_unit())
        for name in ("paths", "steps", "mc_samples"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
                raise ValueError(f"{name} must be a positive integer, found {v!r}")
        if isinstance(self.seed, bool) or not isinstance(self.seed, (int, np.integer)) or self.seed < 0:
            raise ValueError(f"seed must be a non-negative integer, found {self.seed!r}")
        if self.steps > 2 ** 20:
            raise ValueError(f"steps must be at most 2^20, found {self.steps}")


@dataclass
class Row:
    """One line of the summary table (and its JSON details)."""

    process: str
    condition: str
    worst_state: str
    margin: str
    verdict: str
    kind: str
    negative_control: bool = False
    details: dict = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return (self.verdict == "fail") if self.negative_control else (self.verdict == "pass")


def _margin_text(x, digits: int = 4) -> str:
    if x is None:
        return "n/a"
    if isinstance(x, Fraction):
        return directed_decimal(x, digits, "lower") if x != 0 else "0"
    return f"{x:.{digits}g}"


def _progress(total: int, desc: str, unit: str, enabled: bool):
    if not enabled:
        return None
    from tqdm import tqdm

    return tqdm(total=total, desc=desc, unit=unit, file=sys.stderr, leave=False, dynamic_ncols=True)


def run_checks(cfg: CheckConfig, *, progress: bool = False, log=None) -> dict:
    """Run all checks of ``cfg``; returns the report dict (rows, config, timings, exit status)."""
    t_start = time.perf_counter()
    be = get_backend(cfg.backend, threads=cfg.threads) if cfg.backend == "numpy" else get_backend(cfg.backend)
    rows: list[Row] = []
    procs = list(PROCESSES.values()) + (list(NEGATIVE_PROCESSES.values()) if cfg.include_negative_controls else [])

    # --- one-step conditions ------------------------------------------------------
    grids = {p.key: default_grid(p, cfg.quick) for p in procs}
    bar = _progress(2 * sum(len(g) for g in grids.values()), "one-step", "state", progress)
    for p in procs:
        if not p.negative_control:
            ok, text = x0_exact(p, grids[p.key])
            rows.append(Row(p.key, "X_0 <= 1 (exact)", "M=0, V=0", "0" if ok else "n/a",
                            "pass" if ok else "fail", "x0", False, {"title": p.title, "citation": p.citation, "value": text}))
        ex = one_step_exact(p, grids[p.key], progress=bar)
        rows.append(Row(p.key, "E[X_n|F] <= X_{n-1} (exact)", ex.worst_state, _margin_text(ex.margin), ex.verdict,
                        "one-step-exact", p.negative_control,
                        {"title": p.title, "citation": p.citation, "formula": p.formula, "states": ex.n_states, "ties": ex.ties,
                         "undecided": ex.undecided, "grid": ex.details}))
        mc = one_step_mc(p, be, n=cfg.mc_samples, seed=cfg.seed, alpha=float(cfg.alpha), grid=grids[p.key], progress=bar)
        rows.append(Row(p.key, f"E[X_n|F] <= X_{{n-1}} (MC, LCB at {float(cfg.alpha):g})", mc.worst_state,
                        _margin_text(mc.margin), mc.verdict, "one-step-mc", p.negative_control,
                        {"title": p.title, "citation": p.citation, "route": mc.route, "states": mc.n_states, "grid": mc.details}))
    if bar is not None:
        bar.close()

    # --- crossing frequencies ------------------------------------------------------
    T, N = cfg.steps, cfg.paths
    V_ref = F(T) * (2 * cfg.unit) ** 2
    advs = default_adversaries(cfg.unit)
    # the Renyi odometer's R >= kappa V needs every step's eps <= eps_max: the adversaries' largest eps
    eps_max = max(a.eps(k) for a in advs for k in range(len(a.levels)))
    genuine = make_boundaries(cfg.delta, V_ref, n_records=cfg.n_records, eps_max=eps_max)
    groups = [("up", genuine)]
    if cfg.include_negative_controls:
        negs = [b for b in make_boundaries(cfg.delta, V_ref, n_records=cfg.n_records, include_negative=True,
                                           eps_max=eps_max) if b.negative_control]
        groups.append(("down", negs))
    slack = F(T, 2 ** 32)
    cp_cache: dict = {}

    def cp(n_, k_):  # equal counts recur (boundaries that coincide on an adversary, zero counts): compute once
        key_ = (n_, k_)
        if key_ not in cp_cache:
            cp_cache[key_] = clopper_pearson(n_, k_, cfg.alpha)
        return cp_cache[key_]

    bar = _progress(len(advs) * len(groups) * N, "crossings", "path", progress)
    per_boundary: dict[str, list] = {}
    sims = []
    for rounding, bset in groups:
        for adv in advs:
            plan = make_plan(adv, bset, T, rounding=rounding, seed=cfg.seed)
            res = simulate(plan, N, seed=cfg.seed, backend=be, progress=bar)
            sims.append({"adversary": adv.key, "rounding": rounding, "paths": N, "steps": T,
                         "seconds": res.seconds, "path_steps_per_second": res.path_steps_per_second,
                         "backend": res.backend, "source": res.source, "threads": res.threads,
                         "kernel": res.kernel})
            for b, k, a in zip(bset, res.crossed, res.ambiguous):
                per_boundary.setdefault(b.key, [b, []])[1].append((adv, k, a, rounding))
    if bar is not None:
        bar.close()
    for key, (b, items) in per_boundary.items():
        det = []
        any_fail = False
        worst = None
        for adv, k, a, rounding in items:
            fails = binomial_exceeds(N, k, min(F(1), b.delta_claim + slack), cfg.alpha)
            lo, hi = cp(N, k)
            _, hi2 = cp(N, k + a) if a else (lo, hi)
            upper = min(F(1), hi2 + slack)
            lower = max(F(0), lo - slack)
            any_fail |= fails
            d = {"adversary": adv.key, "crossed": k, "ambiguous": a, "paths": N, "freq": k / N,
                 "cp_lower": float(lower), "cp_upper": float(upper), "fail": fails, "rounding": rounding}
            det.append(d)
            score = (fails, float(lower), k)
            if worst is None or score > worst[0]:
                worst = (score, d)
        wd = worst[1]
        margin = float(b.delta_claim) - wd["cp_upper"]
        rows.append(Row(b.key, b.event, f"{wd['adversary']}: {wd['crossed']}/{N} crossed, CP upper {wd['cp_upper']:.4g}",
                        _margin_text(margin), "fail" if any_fail else "pass", "crossing", b.negative_control,
                        {"title": b.title, "citation": b.citation, "boundary": b.key, "target": b.target, "strict": b.strict,
                         "delta_claim": str(b.delta_claim), "params": {k2: str(v) for k2, v in b.params.items()},
                         "as_printed": b.as_printed, "two_sided": b.two_sided, "adversaries": det}))

    # every Monte Carlo "fail" is a test at level alpha: one per (boundary, adversary) and one per one-step MC row
    n_tests = sum(len(r.details.get("adversaries", [])) for r in rows) + sum(1 for r in rows if r.kind == "one-step-mc")
    genuine_bad = [r for r in rows if not r.negative_control and r.verdict != "pass"]
    escaped = [r for r in rows if r.negative_control and r.verdict != "fail"]
    status = EXIT_FAIL if genuine_bad else (EXIT_CONTROL_ESCAPED if escaped else EXIT_OK)
    return {
        "config": {k: (str(v) if isinstance(v, Fraction) else v) for k, v in asdict(cfg).items()},
        "backend": {"name": be.name, "device": be.device, "threads": be.threads},
        "versions": {"python": platform.python_version(), "numpy": np.__version__, "mpmath": mpmath.__version__},
        "rows": [asdict(r) for r in rows],
        "simulations": sims,
        "seconds": time.perf_counter() - t_start,
        "exit_status": status,
        "summary": {"rows": len(rows), "genuine_failures": len(genuine_bad), "negative_controls_escaped": len(escaped),
                    "monte_carlo_tests": n_tests, "family_false_alarm_bound": float(n_tests * cfg.alpha)},
    }


def render_table(report: dict, width: int = 200) -> str:
    """The summary table: process | condition | worst state | margin | verdict."""
    headers = ("process", "condition", "worst state", "margin", "verdict")
    lim = (46, 50, 58, 11, 22)
    rows = []
    for r in report["rows"]:
        v = r["verdict"]
        if r["negative_control"]:
            v = f"{v} (expected fail)" if v == "fail" else f"{v} (CONTROL ESCAPED)"
        cells = (r["process"], r["condition"], r["worst_state"], r["margin"], v)
        rows.append(tuple(_trunc(c, n) for c, n in zip(cells, lim)))
    widths = [max([len(h)] + [len(x[i]) for x in rows]) for i, h in enumerate(headers)]
    line = lambda cells: "  ".join(c.ljust(w) for c, w in zip(cells, widths)).rstrip()  # noqa: E731
    out = [line(headers), line(["-" * w for w in widths])] + [line(x) for x in rows]
    s = report["summary"]
    out.append("")
    out.append(f"{s['rows']} rows; genuine failures: {s['genuine_failures']}; negative controls escaped: "
               f"{s['negative_controls_escaped']}; exit status {report['exit_status']}; {report['seconds']:.1f} s")
    for sim in report["simulations"]:
        out.append(f"  {sim['adversary']:16s} rounding={sim['rounding']:4s} {sim['paths']} paths x {sim['steps']} steps: "
                   f"{sim['path_steps_per_second']:.3g} path-steps/s ({sim['backend']}, {sim['source']}, {sim['threads']} threads, "
                   f"{sim.get('kernel', 'numpy')} kernel)")
    return "\n".join(out) + "\n"


def _trunc(s: str, n: int) -> str:
    s = " ".join(str(s).split())
    return s if len(s) <= n else s[: n - 3] + "..."


def to_json(report: dict) -> str:
    return json.dumps(report, indent=2, default=str)
