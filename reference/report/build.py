"""Computing the report: every section as a JSON-ready dict, at ``DEFAULTS`` (the setting of Whitehouse et al.).

The sections are listed in :mod:`reference.report`; every number comes from the catalog and the
bounds, with directed rounding; the round counts are exact decisions.
"""
from __future__ import annotations

import math
from fractions import Fraction
from typing import Iterable

import mpmath

from ..bounds.baselines import (
    advcomp_eps_homogeneous,
    advcomp_rounds_homogeneous,
    basic_rounds_homogeneous,
)
from ..catalog import VALIDITIES, Entry, entries
from ..precision import Domain, bounded_decimal, check
from .errata import load_errata
from .figures import ROUNDS_FIGURE_EPS0S
from .evaluate import evaluate_entry, format_value, prepare_arguments
from .progress import Progress
from .recorded import RECORD_PATH, load_record, recall
from .version import build_info

__all__ = ["DEFAULTS", "validity_counts", "build_report", "recorded_computations", "comparison_from"]

#: The paper's setting (Whitehouse et al., Section 1 / Figure 1): the report's defaults.
DEFAULTS: dict = {
    "eps_target": "1",          # the filter's target epsilon
    "delta_prime": "1e-6",      # delta' (the concentration failure probability)
    "delta_second": "0",        # delta'' (budget for the steps' own deltas)
    "eps0": "0.01",             # homogeneous workload: every step is eps0-DP ...
    "delta0": "0",              # ... and delta0 = 0
    "eps0_sweep": ("0.1", "0.05", "0.02", "0.01", "0.005", "0.001"),  # workloads of the rounds table
    "gaussian_sigmas": ("20", "100"),          # Gaussian workloads (sensitivity 1) for the planner's table
    "rounds": (10, 100, 349, 1000, 10000),      # n at which the odometers are evaluated
    "n_records": 10000,         # |x| for the Rogers et al. odometer (as quoted)
    "digits": 12,               # significant digits printed
    # amplification bounds of Balle et al. (random check-ins with m = n, p0 = 1; shuffling)
    "amplification_eps0": ("0.25", "1", "2"),
    "amplification_n": (1000, 100000),
    "amplification_delta": "1e-6",
    "verify": True,             # run the exact verifier (slack table and negative controls)
    "recorded": True,           # print recorded results while the code that made them is unchanged (.recorded)
}



def _dec(x, digits: int, direction: str = "upper") -> str:
    return bounded_decimal(x, digits, direction)


def _catalog_rows(digits: int, progress: Progress) -> list[dict]:
    rows = []
    ents = entries()
    progress.stage("catalog", len(ents))
    for i, e in enumerate(ents):
        progress.update(i, e.id)
        row = {"id": e.id, "result": e.result, "direction": e.direction, "provenance": e.provenance,
               "validity": e.validity}
        try:
            kwargs, texts, _ = prepare_arguments(e, {})
            row["parameters"] = texts
            row["value"] = format_value(e, evaluate_entry(e, kwargs, digits=digits), digits)
        except Exception as exc:  # the report must not die on one entry: show the failure instead
            row["value"] = None
            row["error"] = f"{type(exc).__name__}: {exc}"
        rows.append(row)
    progress.done()
    return rows


def validity_counts(ents: Iterable[Entry] | None = None) -> dict[str, int]:
    """How many catalog entries have each validity (every value of :data:`~reference.catalog.VALIDITIES`, zeros included)."""
    counts = {v: 0 for v in VALIDITIES}
    for e in (entries() if ents is None else ents):
        counts[e.validity] = counts.get(e.validity, 0) + 1
    return counts


def comparison_from(items: dict | None, used: list | None = None):
    """``rounds_comparison(eps0, eps, delta)``, recalled from the record's ``items`` where it holds the exact arguments."""
    from ..bounds.baselines import rounds_comparison

    def comparison(eps0, eps, delta) -> dict:
        return recall(items, "rounds_comparison", {"eps0": str(eps0), "eps": str(eps), "delta": str(delta)},
                      lambda: rounds_comparison(eps0, eps, delta), used)

    return comparison


def _rounds(cfg: dict, rounds_comparison=None) -> dict:
    from ..bounds.whitehouse2023 import filter_rounds_homogeneous

    et, dp, d2 = cfg["eps_target"], cfg["delta_prime"], cfg["delta_second"]
    rounds_comparison = rounds_comparison or comparison_from(None)

    def one(eps0):
        return {
            "eps0": str(eps0),
            "filter": filter_rounds_homogeneous(eps0, cfg["delta0"], et, dp, d2),
            "advanced_composition": advcomp_rounds_homogeneous(eps0, et, dp),
            "basic_composition": basic_rounds_homogeneous(eps0, et),
            # every filter of the seeds and the optimal composition at (eps, delta = delta')
            "comparison": rounds_comparison(eps0, et, dp),
        }

    main = one(cfg["eps0"])
    sweep = [main if str(e) == str(cfg["eps0"]) else one(e) for e in cfg.get("eps0_sweep", ())]
    from ..bounds.planner import plan
    gauss = []
    for sig in cfg.get("gaussian_sigmas", ()):
        pl = plan(et, dp, f"gaussian:sigma={sig}")
        gauss.append({"sigma": str(sig), "optimal": pl["optimal"],
                      "rows": [{"filter": x["filter"], "rounds": x["rounds"], "percent": x["percent_of_optimal"]}
                               for x in pl["rows"]]})
    return {**main, "sweep": sweep, "gaussian": gauss}


def _odometers(cfg: dict, digits: int) -> dict:
    from ..bounds.whitehouse2023 import (
        filter_odometer,
        mixture_odometer,
        rogers_odometer_quoted_2023_as_printed,
        stitched_odometer,
        y_star,
    )

    et, dp = cfg["eps_target"], cfg["delta_prime"]
    e0 = check("eps0", cfg["eps0"], Domain.positive())
    d0 = check("delta0", cfg["delta0"], Domain.closed_unit())
    d2 = check("delta_second", cfg["delta_second"], Domain.unit_nonneg())
    v0 = e0 * e0
    rho = y_star(et, dp)
    n_delta = None if d0 == 0 else math.floor(d2 / d0)  # delta-budget stopping time (inf when delta0 = 0)
    rows = []
    for n in cfg["rounds"]:
        V = n * v0
        over = n_delta is not None and n > n_delta
        inf = mpmath.mpf("inf")
        rows.append({
            "n": int(n),
            "V": _dec(V, digits, "exact"),
            "filter": _dec(inf if over else filter_odometer(V, et, dp), digits),
            "mixture": _dec(inf if over else mixture_odometer(V, rho, dp), digits),
            "stitched": _dec(inf if over else stitched_odometer(V, v0, dp), digits),
            "rogers_quoted": _dec(inf if over else rogers_odometer_quoted_2023_as_printed(V, dp, cfg["n_records"]), digits, "exact"),
            "advanced_composition_fixed_n": _dec(advcomp_eps_homogeneous(e0, n, dp), digits) if n >= 1 else "0",
            "basic_composition": _dec(n * e0, digits),
        })
    return {
        "eps_target": str(et),
        "rho": _dec(rho, digits, "exact"),
        "v0": _dec(v0, digits, "exact"),
        "n_records": int(cfg["n_records"]),
        "delta_stopping_time": None if n_delta is None else n_delta,
        "rows": rows,
    }


def _amplification(cfg: dict, digits: int) -> dict:
    """balle2020 bounds at (eps0, n or m, delta): the central eps and whether it amplifies (eps < eps0)."""
    from ..bounds import balle2020 as B

    delta = cfg["amplification_delta"]
    rows = []
    for e0 in cfg["amplification_eps0"]:
        for n in cfg["amplification_n"]:
            row = {"eps0": str(e0), "n": n}
            for key, fn in (("checkins_thm3_2", lambda: B.thm3_2_eps(e0, n, 1, delta)),
                            ("shuffling_thm5_1", lambda: B.thm5_1_eps(e0, n, delta)),
                            ("erlingsson2019_thm7", lambda: B.erlingsson2019_thm7_eps(e0, n, delta))):
                try:
                    v = fn()
                except ValueError:  # outside the theorem's regime
                    row[key] = None
                    continue
                row[key] = {"eps": _dec(v, digits), "amplifies": B.amplifies(v, e0)}
            rows.append(row)
    return {"delta": str(delta), "rows": rows,
            "min_n_shuffling": {str(e0): B.thm5_1_min_n(e0, delta) for e0 in cfg["amplification_eps0"]}}


def _verification(cfg: dict, progress: Progress) -> dict | None:
    """whitehouse2022 Thm 1-2, rogers2016, feldman2021: the verifier's slack table and negative controls at their defaults."""
    if not cfg.get("verify", True):
        return None
    return _verification_tables(progress)


def _verification_tables(progress: Progress) -> dict:
    from ..verify.targets import negative_control_table, slack_table

    rows = slack_table(progress=progress.callback("exact verifier"))

    def _s(x):
        if x is None:
            return None
        if isinstance(x, Fraction):
            return str(x) if x.denominator < 10**7 else mpmath.nstr(mpmath.mpf(x.numerator) / x.denominator, 6)
        if isinstance(x, float):
            return f"{x:.4g}"
        return mpmath.nstr(x, 6)

    table = [{"target": r["target"], "kind": r["kind"], "eps": _s(r["eps"]), "allowed": _s(r["allowed"]),
              "worst_adversary": r["worst_adversary"], "achieved_lo": _s(r["achieved_lo"]),
              "achieved_hi": _s(r["achieved_hi"]), "slack": _s(r["slack"]), "verdict": r["verdict"],
              "description": r["description"]} for r in rows]
    progress.stage("negative controls")
    controls = [{"control": r.extra.get("control", r.target), "adversary": r.adversary, "allowed": _s(r.allowed),
                 "achieved_lo": _s(r.lo), "achieved_hi": _s(r.hi), "verdict": r.verdict}
                for r in negative_control_table()]
    progress.stage("general step laws")
    from ..falsify.verifier_menu import general_slack_table
    general = [{"target": r["target"], "step_family": r["step_family"], "runs": r["runs"], "allowed": _s(r["allowed"]),
                "worst_lo": _s(r["worst_lo"]), "worst_adversary": r["worst_adversary"], "verdict": r["verdict"]}
               for r in general_slack_table()]
    progress.done()
    for t, r in zip(table, rows):
        t["steps_checked"] = r.get("steps_checked")
    return {"targets": table, "negative_controls": controls, "general_step_laws": general}


def _falsification(cfg: dict, progress: Progress) -> dict | None:
    """The falsifier (reference.falsify): every claim attacked over general finite step laws, at its default space."""
    if not cfg.get("verify", True):
        return None
    return _falsifier_claims(progress)


def _falsifier_claims(progress: Progress) -> dict:
    from ..falsify import falsify
    progress.stage("falsifier")
    out = []
    for r in falsify("all"):
        d = r.as_dict()
        ce = d["counterexample"] or {}
        out.append({"claim": d["claim"], "source": d["source"], "catalog_says": d["catalog_says"],
                    "control": r.claim.control, "verdict": d["verdict"], "agrees": d["agrees_with_catalog"],
                    "probability": ce.get("probability_decimal"), "promised": ce.get("promised_decimal"),
                    "erratum": d["erratum"]})
    progress.done()
    return {"claims": out}


def recorded_computations(config: dict | None = None) -> list:
    """``[(name, args, compute), ...]``: the report's long computations at ``DEFAULTS`` updated with ``config``.

    These are the items :mod:`reference.report.recorded` may keep: each rounds comparison of the
    rounds table and of its figure, the verifier's tables and the falsifier's claims (the last
    two run at their own defaults, whatever the report's setting).
    """
    from ..bounds.baselines import rounds_comparison

    cfg = {**DEFAULTS, **(config or {})}
    et, dp = cfg["eps_target"], cfg["delta_prime"]
    quiet = Progress("recorded", enabled=False)
    out = []
    for e0 in dict.fromkeys([*cfg.get("eps0_sweep", ()), cfg["eps0"], *ROUNDS_FIGURE_EPS0S]):
        out.append(("rounds_comparison", {"eps0": str(e0), "eps": str(et), "delta": str(dp)},
                    lambda e0=e0: rounds_comparison(e0, et, dp)))
    out.append(("verification", {}, lambda: _verification_tables(quiet)))
    out.append(("falsification", {}, lambda: _falsifier_claims(quiet)))
    return out


def build_report(config: dict | None = None, *, progress: "bool | Progress" = False) -> dict:
    """Compute the report (a JSON-ready dict) at ``DEFAULTS`` updated with ``config``.

    ``progress``: a :class:`~reference.report.progress.Progress` to drive, ``True`` for one of
    its own on stderr, ``False`` for none.  The report names the version and the git commit
    that made it (:func:`~reference.report.version.build_info`).  With ``recorded`` (the
    default), the long computations are taken from the record while it matches the running
    code (:mod:`reference.report.recorded`); the report's ``"recorded"`` lists the items taken.
    """
    cfg = {**DEFAULTS, **(config or {})}
    digits = int(cfg["digits"])
    own = not isinstance(progress, Progress)
    prog = Progress("fullyadaptive report", enabled=bool(progress)) if own else progress
    try:
        errata, problem = load_errata(cfg.get("errata_path"))
        settings = {k: (list(v) if isinstance(v, tuple) else v) for k, v in cfg.items()
                    if k not in ("errata_path", "record_path")}
        info = build_info()
        items = load_record(cfg.get("record_path")) if cfg.get("recorded", True) else None
        used: list = []

        def recalled(name, compute):
            return recall(items, name, {}, compute, used) if cfg.get("verify", True) else None

        rep = {
            "generated_by": f"fullyadaptive {info['version']} (commit {info['commit']})",
            **info,
            "settings": settings,
            "catalog": _catalog_rows(digits, prog),
            "validity_counts": validity_counts(),
            "rounds": _rounds(cfg, comparison_from(items, used)),
            "odometers": _odometers(cfg, digits),
            "amplification": _amplification(cfg, digits),
            "verification": recalled("verification", lambda: _verification(cfg, prog)),
            "falsification": recalled("falsification", lambda: _falsification(cfg, prog)),
            "errata": errata,
            "errata_problem": problem,
        }
        rep["recorded"] = {"path": str(cfg.get("record_path") or "reference/data/" + RECORD_PATH.name),
                           "items": sorted(set(used))} if used else None
        return rep
    finally:
        if own:
            prog.close()
