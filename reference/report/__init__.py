"""The ``fullyadaptive report``: the catalog and the paper's headline comparison at its own settings.

The report evaluates, at :data:`DEFAULTS` (the setting of Whitehouse et al.:
target ``eps = 1``, ``delta' = 1e-6``, ``delta'' = 0``, a homogeneous workload of
``eps0 = 0.01``-DP steps):

(a) every catalog entry at its default parameters, printed with directed
    rounding (an upper bound rounded up, a lower bound rounded down);
(b) how many rounds the privacy filter (Theorem 1 of whitehouse2022) admits,
    against advanced composition, eq. (2), at the same ``(eps, delta')`` and
    against basic composition ``floor(eps/eps0)``;
(c) the privacy odometers (filter, mixture, stitched, and Rogers et al. as
    quoted) after ``n`` rounds of the workload, i.e. at ``V = n eps0^2``;
(d) the amplification bounds of Balle et al. at a few (eps0, n);
(e) the exact verifier's slack table: every filter and odometer of the seeds
    against adaptive randomized-response adversaries, the certified delta
    achieved against the delta allowed, and the negative controls it catches
    (:mod:`reference.verify.targets`; about half a minute; ``verify=False``
    or ``fullyadaptive report --no-verify`` leaves it out);
(f) the errata in ``reference/data/errata.json`` (when that file exists).

Every number comes from :mod:`reference.bounds.whitehouse2023` or from the exact helpers
below; the round counts are exact decisions, not rounded values.
"""
from __future__ import annotations

import functools
import inspect
import json
import math
import os
import re
import subprocess
import tempfile
from fractions import Fraction
from pathlib import Path
from typing import Iterable

import mpmath

from .. import __version__
from ..catalog import VALIDITIES, Entry, entries
from ..precision import (
    DEFAULT_DPS,
    Domain,
    certified,
    check,
    check_dps,
    directed_decimal,
    sign_of,
)

__all__ = [
    "DEFAULTS",
    "ERRATA_PATH",
    "COMMIT_SOURCES",
    "build_info",
    "clear_provenance_cache",
    "git_commit",
    "provenance",
    "validity_counts",
    "render_summary",
    "prepare_arguments",
    "evaluate_entry",
    "format_value",
    "advcomp_eps_homogeneous",
    "advcomp_admits_homogeneous",
    "advcomp_rounds_homogeneous",
    "basic_rounds_homogeneous",
    "load_errata",
    "build_report",
    "render_markdown",
    "write_report",
    "new_file_mode",
    "Progress",
]

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
}

#: Where the lead keeps the list of errata (absent until written).
ERRATA_PATH = Path(__file__).resolve().parents[1] / "data" / "errata.json"

_ERRATUM_FIELDS = ("location", "printed", "corrected", "consequence", "check", "seed")


# --------------------------------------------------------------------------
# Which code made a number: version and commit (in every JSON output)
# --------------------------------------------------------------------------

#: The folder that holds the ``reference`` package: a git checkout when run from the repository.
_SOURCE_ROOT = Path(__file__).resolve().parents[2]
_HEX = re.compile(r"[0-9a-f]{4,64}")
#: Values of ``"commit_source"``: where the commit in :func:`build_info` came from.
COMMIT_SOURCES = ("git checkout", "stamped at build", "unknown")


def _git(*args: str) -> str | None:
    """Output of ``git -C <source root> args`` (stripped), or None when git is missing or fails; never raises."""
    try:
        p = subprocess.run(["git", "-C", str(_SOURCE_ROOT), *args], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError, ValueError):
        return None
    return p.stdout.strip() if p.returncode == 0 else None


@functools.lru_cache(maxsize=None)
def _checkout() -> dict | None:
    """``{"commit", "commit_full", "dirty"}`` of the git checkout the package runs from, or None.

    Asks git only when the package's parent directory is itself a git checkout (an installed
    wheel has none, and a repository that merely contains a virtual environment must not be
    named).  ``dirty``: a tracked file differs from the commit (None when git cannot tell).
    """
    if not (_SOURCE_ROOT / ".git").exists():
        return None
    full, short = _git("rev-parse", "HEAD"), _git("rev-parse", "--short", "HEAD")
    if not (full and short and _HEX.fullmatch(full) and _HEX.fullmatch(short)):
        return None
    status = _git("status", "--porcelain", "--untracked-files=no")
    return {"commit": short, "commit_full": full, "dirty": None if status is None else bool(status)}


@functools.lru_cache(maxsize=None)
def _stamped() -> dict | None:
    """``{"commit", "commit_full", "dirty"}`` written into the package when it was built, or None.

    The build hook (``build_stamp.py`` in the repository) writes ``reference/_build_info.py``
    into a wheel; a source checkout has no such file.  A stamp of another version than the
    running code (a stale file) or one without hexadecimal hashes is ignored.
    """
    try:
        from .. import _build_info as b  # type: ignore[attr-defined]
    except ImportError:
        return None
    commit, full, dirty = getattr(b, "COMMIT", None), getattr(b, "COMMIT_FULL", None), getattr(b, "DIRTY", None)
    if getattr(b, "VERSION", None) != __version__ or not all(
            isinstance(c, str) and _HEX.fullmatch(c) for c in (commit, full)):
        return None
    return {"commit": commit, "commit_full": full, "dirty": dirty if isinstance(dirty, bool) else None}


def clear_provenance_cache() -> None:
    """Forget the cached answers of git and of the build stamp (the next call asks again)."""
    _checkout.cache_clear()
    _stamped.cache_clear()


def git_commit() -> str:
    """The short git commit of the checkout this package runs from, or ``"unknown"``; never raises.

    Only a live ``git rev-parse --short HEAD`` of the checkout: see :func:`build_info` for
    the commit an installed wheel was built from.
    """
    c = _checkout()
    return c["commit"] if c else "unknown"


def provenance() -> dict:
    """Which code is running: version, commit, where the commit came from, and where the package lives.

    Returns ``{"version", "commit", "commit_full", "commit_source", "dirty", "package_path",
    "data_path"}``.  Contract: ``commit`` is the short hash of the git checkout the package
    runs from (``commit_source`` ``"git checkout"``: an editable install or the repository
    itself); else the one stamped into the package when it was built (``"stamped at
    build"``: an installed wheel); else ``"unknown"`` (``commit_full`` None).  ``dirty``:
    tracked files differed from that commit (None when unknown).  ``package_path`` is the
    folder of the ``reference`` package that is imported, ``data_path`` the folder its data
    files (catalog audits, errata, golden vectors) are read from.  Never raises; git is asked
    once per process.
    """
    pkg = Path(__file__).resolve().parents[1]
    for source, info in (("git checkout", _checkout()), ("stamped at build", _stamped())):
        if info:
            break
    else:
        source, info = "unknown", {"commit": "unknown", "commit_full": None, "dirty": None}
    return {"version": __version__, "commit": info["commit"], "commit_full": info["commit_full"],
            "commit_source": source, "dirty": info["dirty"], "package_path": str(pkg),
            "data_path": str(pkg / "data")}


def build_info() -> dict:
    """``{"version", "commit", "commit_source", "dirty"}`` of the running code: in every JSON output.

    The fields of :func:`provenance` that name the code (not where it is installed): the
    package version and the git commit (``"unknown"`` when neither a checkout nor the
    build's stamp tells it).
    """
    p = provenance()
    return {k: p[k] for k in ("version", "commit", "commit_source", "dirty")}


# --------------------------------------------------------------------------
# Evaluating one catalog entry (shared with ``fullyadaptive eval``)
# --------------------------------------------------------------------------

def prepare_arguments(entry: Entry, given: dict[str, str]) -> tuple[dict, dict[str, str], list[str]]:
    """Merge ``given`` (name -> text) with the entry's defaults and convert by parameter kind.

    Returns ``(kwargs, texts, defaulted)``: the keyword arguments for the entry's
    function, the text of every parameter used, and the names taken from defaults.

    Raises:
        KeyError: for a name the entry does not take (the message lists the valid names).
        ValueError: for a required parameter that was not given and has no default.
    """
    params = {p.name: p for p in entry.params}
    aliases = entry.aliases()
    for name in given:
        if name not in params and name not in aliases:
            raise KeyError(f"{entry.id} has no parameter {name!r}; its parameters are: {', '.join(params) or '(none)'}"
                           + (f" (also accepted: {', '.join(f'{a} for {n}' for a, n in aliases.items())})" if aliases else ""))
    try:
        given = entry.resolve(given)
    except TypeError as exc:
        raise KeyError(str(exc)) from None
    defaults = entry.defaults()
    kwargs: dict = {}
    texts: dict[str, str] = {}
    defaulted: list[str] = []
    for name, p in params.items():
        if name in given:
            raw = given[name]
        elif name in defaults:
            raw = defaults[name]
            defaulted.append(name)
        else:
            raise ValueError(f"{entry.id}: parameter {name!r} is required (domain {p.domain})")
        texts[name] = raw if isinstance(raw, str) else str(raw)
        if p.kind in ("sequence", "text") and isinstance(raw, str) and "," in raw:
            items = [s.strip() for s in raw.split(",")]
            if any(not s for s in items):  # "0.1,,0.2" is a typo, not a two-item list
                k = next(i for i, s in enumerate(items) if not s)
                raise ValueError(f"{name}: empty item {name}[{k}] in the comma-separated list {raw!r}")
        if p.kind == "sequence" and isinstance(raw, str):
            kwargs[name] = [s.strip() for s in raw.split(",") if s.strip()]
        else:
            kwargs[name] = raw
    return kwargs, texts, defaulted


def _accepts_dps(entry: Entry) -> bool:
    return "dps" in inspect.signature(entry.func).parameters


def evaluate_entry(entry: Entry, kwargs: dict, *, digits: int, dps: int | None = None):
    """Call the entry's function with ``dps = max(dps, digits + 5)`` when it takes ``dps``."""
    if dps is None:
        dps = DEFAULT_DPS
    if _accepts_dps(entry):
        return entry.func(**kwargs, dps=check_dps(max(dps, digits + 5)))
    return entry.func(**kwargs)


def format_value(entry: Entry, value, digits: int) -> str:
    """Text of a result: the int for int-valued entries, else ``digits`` digits rounded in the entry's direction."""
    if entry.returns == "int":
        return str(int(value))
    return directed_decimal(value, digits, entry.direction)


from .progress import Progress  # noqa: E402
from ..bounds.baselines import (  # noqa: E402  (re-exported: the report's round counts)
    advcomp_admits_homogeneous,
    advcomp_eps_homogeneous,
    advcomp_rounds_homogeneous,
    basic_rounds_homogeneous,
)


# --------------------------------------------------------------------------
# Errata
# --------------------------------------------------------------------------

def load_errata(path: Path | str | None = None) -> tuple[list[dict] | None, str | None]:
    """Read the errata list; returns ``(items, problem)``.

    ``items`` is ``None`` when the file is absent or unreadable; ``problem``
    then says why (``None`` when the file simply does not exist yet).
    """
    p = Path(path) if path is not None else ERRATA_PATH
    if not p.exists():
        return None, None
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        return None, f"could not read {p.name}: {exc}"
    if isinstance(data, dict):  # {"schema": ..., "entries": [...]} (or "errata")
        for key in ("entries", "errata"):
            if isinstance(data.get(key), list):
                data = data[key]
                break
    if not isinstance(data, list):
        return None, f"{p.name} holds neither a JSON list nor an object with an 'entries' list"
    return [d if isinstance(d, dict) else {"printed": d} for d in data], None


# --------------------------------------------------------------------------
# The report
# --------------------------------------------------------------------------

def _dec(x, digits: int, direction: str = "upper") -> str:
    return directed_decimal(x, digits, direction)


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
    """How many catalog entries have each validity (every value of :data:`VALIDITIES`, zeros included)."""
    counts = {v: 0 for v in VALIDITIES}
    for e in (entries() if ents is None else ents):
        counts[e.validity] = counts.get(e.validity, 0) + 1
    return counts


def _rounds(cfg: dict) -> dict:
    from ..bounds.whitehouse2023 import filter_rounds_homogeneous

    et, dp, d2 = cfg["eps_target"], cfg["delta_prime"], cfg["delta_second"]

    from ..bounds.baselines import rounds_comparison

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


def build_report(config: dict | None = None, *, progress: "bool | Progress" = False) -> dict:
    """Compute the report (a JSON-ready dict) at ``DEFAULTS`` updated with ``config``.

    ``progress``: a :class:`~reference.report.progress.Progress` to drive, ``True`` for one of
    its own on stderr, ``False`` for none.  The report names the version and the git commit
    that made it (:func:`build_info`).
    """
    cfg = {**DEFAULTS, **(config or {})}
    digits = int(cfg["digits"])
    own = not isinstance(progress, Progress)
    prog = Progress("fullyadaptive report", enabled=bool(progress)) if own else progress
    try:
        errata, problem = load_errata(cfg.get("errata_path"))
        settings = {k: (list(v) if isinstance(v, tuple) else v) for k, v in cfg.items() if k != "errata_path"}
        info = build_info()
        return {
            "generated_by": f"fullyadaptive {info['version']} (commit {info['commit']})",
            **info,
            "settings": settings,
            "catalog": _catalog_rows(digits, prog),
            "validity_counts": validity_counts(),
            "rounds": _rounds(cfg),
            "odometers": _odometers(cfg, digits),
            "amplification": _amplification(cfg, digits),
            "verification": _verification(cfg, prog),
            "falsification": _falsification(cfg, prog),
            "errata": errata,
            "errata_problem": problem,
        }
    finally:
        if own:
            prog.close()


def _md_cell(x) -> str:
    if isinstance(x, (list, tuple)) and all(isinstance(y, str) for y in x):
        s = ", ".join(x)
    else:
        s = x if isinstance(x, str) else json.dumps(x, ensure_ascii=False)
    return s.replace("|", "\\|").replace("\n", " ")


def _table(headers: Iterable[str], rows: Iterable[Iterable]) -> list[str]:
    headers = list(headers)
    out = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    out += ["| " + " | ".join(_md_cell(c) for c in r) + " |" for r in rows]
    return out


def render_markdown(rep: dict, figures: list | None = None) -> str:
    """Markdown text of a report made by :func:`build_report`.

    ``figures``: ``[(name, relative path), ...]`` of figures written beside the report
    (:func:`write_report` with ``figures=True``), embedded in a last section.
    """
    s = rep["settings"]
    r = rep["rounds"]
    o = rep["odometers"]
    L: list[str] = []
    L.append("# fullyadaptive report")
    L.append("")
    L.append(f"Generated by {rep['generated_by']}. Setting of Whitehouse et al.: target eps = {s['eps_target']}, "
             f"delta' = {s['delta_prime']}, delta'' = {s['delta_second']}, homogeneous workload of "
             f"eps0 = {s['eps0']}-DP steps (delta0 = {s['delta0']}). Upper bounds are rounded up, lower bounds "
             f"down, exact values to nearest, to {s['digits']} significant digits.")
    L.append("")
    L.append("## Rounds admitted on the homogeneous workload")
    L.append("")
    L.append(f"With eps0 = {r['eps0']}: the privacy filter (Theorem 1) admits **{r['filter']}** rounds; "
             f"advanced composition, eq. (2), allows **{r['advanced_composition']}** rounds fixed in advance; "
             f"basic composition allows **{r['basic_composition']}**.")
    L.append("")
    L += _table(["eps0", "filter (Thm 1)", "advanced composition (eq. 2)", "basic composition"],
                [[x["eps0"], str(x["filter"]), str(x["advanced_composition"]), str(x["basic_composition"])]
                 for x in r["sweep"]])
    L.append("")
    L.append("The filter's lower-order term V/2 = sum eps_m^2/2 is slightly larger than advanced composition's "
             "sum eps_m tanh(eps_m/2) (Figure 1a), so on a homogeneous workload it admits at most as many rounds; "
             "what it buys is that the eps_m may be chosen adaptively. All counts are exact decisions.")
    L.append("")
    from ..bounds.baselines import ROUND_RULES

    L.append(f"Every filter of the seeds against the yardsticks, target (eps, delta) = ({s['eps_target']}, "
             f"{s['delta_prime']}). Optimal composition (Kairouz, Oh, Viswanath) is the most any valid rule can "
             "admit on eps0-randomized response; eq. (12) of Rogers et al. as printed (log outside the root) "
             "admits nothing at this delta.")
    L.append("")
    from ..bounds.baselines import best_filter, percent_of_optimal

    def _pct(c):  # the best valid filter of the row against optimal composition
        b = best_filter(c)
        p = None if b is None else percent_of_optimal(b[1], c.get("optimal"))
        return "n/a" if p is None else f"{float(p):.1f}% ({b[0]})"

    L += _table(["eps0"] + [f"{label} ({cite})" for _, label, cite in ROUND_RULES] + ["% of optimal (best filter)"],
                [[x["eps0"]] + ["n/a" if x["comparison"].get(k) is None else str(x["comparison"][k])
                               for k, _, _ in ROUND_RULES] + [_pct(x["comparison"])] for x in r["sweep"]])
    L.append("")
    if r.get("gaussian"):
        L.append("Gaussian workloads (sensitivity 1, noise sigma): the optimal non-adaptive limit is exact "
                 "(dong2022: a composition of Gaussian mechanisms is sqrt(sum mu^2)-GDP); `fullyadaptive plan` "
                 "reproduces every row.")
        L.append("")
        names = [x["filter"] for x in r["gaussian"][0]["rows"]]
        L += _table(["sigma", "optimal"] + names,
                    [[g["sigma"], str(g["optimal"])] + [next(f"{x['rounds']} ({x['percent']:.1f}%)" for x in g["rows"]
                                                             if x["filter"] == n) for n in names] for g in r["gaussian"]])
        L.append("")
    L.append("## Odometers after n rounds (V = n eps0^2)")
    L.append("")
    L.append(f"Filter odometer tuned at eps = {o['eps_target']}; mixture odometer with rho = y*({o['eps_target']}) = "
             f"{o['rho']}; stitched odometer with v0 = eps0^2 = {o['v0']}. For comparison, advanced composition with n "
             f"fixed in advance, and basic composition n eps0: these are upper bounds on the privacy loss "
             f"(delta' = {s['delta_prime']}). The column 'Rogers (quoted, FALSE)' is the Rogers et al. odometer as "
             f"quoted in whitehouse2023 Lemma 3 with |x| = {o['n_records']}, kept because the paper plots it: it is "
             f"false as printed (errata W22-LEM4-QUOTE), the printed formula's value, not a bound.")
    if o.get("delta_stopping_time") is None:
        L.append("Every step has delta_n = 0, so the steps are also eps0-pDP (as the odometers require) and the "
                 "delta budget never sends them to inf.")
    else:
        L.append(f"The delta budget stops the odometers after N = {o['delta_stopping_time']} steps (inf beyond).")
    L.append("")
    L += _table(["n", "V", "filter", "mixture", "stitched", "Rogers (quoted, FALSE)", "adv. comp. (fixed n)", "basic"],
                [[str(x["n"]), x["V"], x["filter"], x["mixture"], x["stitched"], x["rogers_quoted"],
                  x["advanced_composition_fixed_n"], x["basic_composition"]] for x in o["rows"]])
    L.append("")
    a = rep["amplification"]
    L.append("## Amplification by random check-ins and shuffling (Balle et al.)")
    L.append("")
    L.append(f"Central epsilon at delta = {a['delta']} of eps0-DP local randomizers: random check-ins with a fixed "
             "window m = n and p0 = 1 (Theorem 3.2), shuffling (Theorem 5.1) and Erlingsson et al. 2019 (Theorem 7, "
             "only for eps0 < 1/2, n >= 1000). Provenance: re-derived from the seed's proof sketch (the published "
             "displays were stripped); see the README. A bound marked **no** does not amplify (eps >= eps0) and is vacuous.")
    L.append("")

    def _amp(x):
        return "n/a" if x is None else f"{x['eps']} ({'yes' if x['amplifies'] else '**no**'})"

    L += _table(["eps0", "n", "check-ins Thm 3.2", "shuffling Thm 5.1", "Erlingsson et al. Thm 7"],
                [[r_["eps0"], str(r_["n"]), _amp(r_["checkins_thm3_2"]), _amp(r_["shuffling_thm5_1"]),
                  _amp(r_["erlingsson2019_thm7"])] for r_ in a["rows"]])
    L.append("")
    L.append("Smallest n at which Theorem 5.1 amplifies: " +
             ", ".join(f"eps0 = {k}: n = {v}" for k, v in a["min_n_shuffling"].items()) + ".")
    L.append("")
    v = rep.get("verification")
    if v is not None:
        L.append("## Exact verification on adaptive randomized response")
        L.append("")
        L.append("By the reduction to conditional randomized response (whitehouse2022 Lemma 3; rogers2016 Theorem 2.7, "
                 "Lemma 3.4) adaptive RR is the worst case for a DP conclusion (a filter). It is NOT the worst case for a "
                 "privacy-loss tail (an odometer, a loss-form filter): the loss of a post-processed view is not the "
                 "post-processed loss, and two printed theorems fail exactly there (errata W22-THM2-DELTA, R16-LEM3-5-LOSS). "
                 "The column 'steps checked' says what each row establishes; the falsifier (next section) covers general "
                 "step laws. For each target and each adversary "
                 "(homogeneous, alternating, loss-chasing, variance-spender, Rogers et al.'s Algorithm 5, random adaptive, "
                 "delta-spender) the verifier computes the law of the privacy loss exactly on a lattice, with a rigorous "
                 "enclosure [lo, hi] of the delta achieved: the hockey-stick divergence of the stopped transcript for a "
                 "filter, P(exists n: L_n > u_n) for an odometer. A target passes when hi <= allowed for every adversary; "
                 "slack = hi/allowed for the worst one. `fullyadaptive verify` reruns it (options: --target, --adversary, "
                 "--rounds, --json).")
        L.append("")
        L += _table(["target", "kind", "eps", "delta allowed", "worst adversary", "achieved (certified hi)", "slack",
                     "verdict", "steps checked"],
                    [[t["target"], t["kind"], t["eps"] or "-", t["allowed"], t["worst_adversary"], t["achieved_hi"],
                      t["slack"], t["verdict"], t.get("steps_checked") or "RR"] for t in v["targets"]])
        L.append("")
        if v.get("general_step_laws"):
            L.append("The same shipped objects on general finite step laws (the falsifier's candidate laws, menus of one or "
                     "two laws, its adaptive adversaries; worst certified value over all runs):")
            L.append("")
            L += _table(["target", "step family", "runs", "worst (certified lo)", "worst adversary", "allowed", "verdict"],
                        [[g["target"], g["step_family"], str(g["runs"]), g["worst_lo"], g["worst_adversary"], g["allowed"],
                          g["verdict"]] for g in v["general_step_laws"]])
            L.append("")
        L.append("Negative controls: rules known to be invalid, each with the adversary that breaks it. FAIL means "
                 "caught (the certified lower bound of the delta achieved exceeds the delta allowed).")
        L.append("")
        L += _table(["control", "adversary", "delta allowed", "achieved (certified lo)", "verdict"],
                    [[c["control"], c["adversary"], c["allowed"], c["achieved_lo"], c["verdict"]]
                     for c in v["negative_controls"]])
        L.append("")
    fz = rep.get("falsification")
    if fz is not None:
        L.append("## The falsifier: every claim attacked beyond randomized response")
        L.append("")
        L.append("`fullyadaptive falsify` composes general finite step laws (post-processings of randomized response on up "
                 "to 4 outcomes, atoms charged by one side only, threshold splits; each decided exactly against the claim's "
                 "hypothesis), chosen adaptively, and evaluates each claim's conclusion exactly. A false claim must yield a "
                 "certified counterexample, a valid one none, and each deliberately broken control must be caught.")
        L.append("")
        L += _table(["claim", "source", "catalog says", "search found", "probability > promised", "agrees"],
                    [[c["claim"], c["source"], c["catalog_says"] + (" (control)" if c["control"] else ""), c["verdict"],
                      f"{c['probability']} > {c['promised']}" if c["probability"] else "-", "yes" if c["agrees"] else "NO"]
                     for c in fz["claims"]])
        L.append("")
    L.append("## Catalog at default parameters")
    L.append("")
    vc = rep.get("validity_counts")
    if vc:
        L.append("Validity of the claims: " + ", ".join(f"{n} {k}" for k, n in vc.items()) + " (an entry that is "
                 "false as printed is the printed formula's value, never a bound; see `fullyadaptive describe ID`).")
        L.append("")
    crow = []
    for c in rep["catalog"]:
        crow.append([f"`{c['id']}`", c["result"], c["direction"], c.get("validity", "valid"),
                     c["value"] if c.get("value") is not None else f"error: {c.get('error')}"])
    L += _table(["id", "result", "direction", "validity", "value"], crow)
    L.append("")
    L.append("Parameters: each entry's defaults (`fullyadaptive list --json` shows them; "
             "`fullyadaptive eval ID name=value` evaluates elsewhere).")
    L.append("")
    L.append("## Errata")
    L.append("")
    errata = rep.get("errata")
    if errata is None:
        if rep.get("errata_problem"):
            L.append(f"The errata file could not be rendered: {rep['errata_problem']}.")
        else:
            L.append("No errata file (reference/data/errata.json) is present in this installation.")
    elif not errata:
        L.append("The errata file lists no errata.")
    else:
        for i, it in enumerate(errata, 1):
            title = it.get("id") or f"erratum {i}"
            retracted = it.get("status") == "retracted"
            L.append(f"### {_md_cell(title)}" + (" (RETRACTED)" if retracted else ""))
            L.append("")
            if retracted:
                L.append(f"- **retracted**: {_md_cell(it.get('retraction'))}")
            for f in _ERRATUM_FIELDS:
                if f in it and it[f] not in (None, ""):
                    L.append(f"- **{f}**: {_md_cell(it[f])}")
            for f, v in it.items():
                if f not in ("id", "retraction") and f not in _ERRATUM_FIELDS and v not in (None, ""):
                    L.append(f"- **{f}**: {_md_cell(v)}")
            L.append("")
    if figures:
        from .figures import FIGURES

        L.append("## Figures")
        L.append("")
        L.append("Recomputed from the catalog when this report was written (each states its parameters); "
                 "`fullyadaptive figures` draws them as PNG.")
        L.append("")
        for name, rel in figures:
            doc = (FIGURES[name][0].__doc__ or name).strip().splitlines()[0]
            L.append(f"### {_md_cell(name)}")
            L.append("")
            L.append(_md_cell(doc))
            L.append("")
            L.append(f"![{name}]({rel})")
            L.append("")
    return "\n".join(L).rstrip() + "\n"


def render_summary(rep: dict, paths: tuple | None = None) -> str:
    """The headline of a report, at most 40 lines: rounds, the verifier's verdict, validity counts, where the rest is.

    ``paths`` are the files the full report was written to (``(report.md, report.json)``).
    """
    from ..bounds.baselines import ROUND_RULES

    s = rep["settings"]
    r = rep["rounds"]
    L = [f"fullyadaptive report: {rep.get('generated_by', '')}",
         f"Setting of Whitehouse et al.: target eps = {s['eps_target']}, delta' = {s['delta_prime']}, "
         f"delta'' = {s['delta_second']}, homogeneous eps0-DP steps (delta0 = {s['delta0']}).",
         "",
         "Rounds admitted (exact decisions; n/a: outside the rule's regime):"]
    # one row per rule, one column per eps0: the table grows downwards as rules are added
    sweep = r["sweep"] or [{"eps0": r["eps0"], "comparison": r.get("comparison", {})}]
    head = ["rule"] + [f"eps0={x['eps0']}" for x in sweep]
    rows = [[label] + ["n/a" if x["comparison"].get(k) is None else str(x["comparison"][k]) for x in sweep]
            for k, label, _ in ROUND_RULES]
    w = [max(len(h), *(len(row[i]) for row in rows)) for i, h in enumerate(head)]
    L.append("  " + "  ".join(h.ljust(w[0]) if i == 0 else h.rjust(w[i]) for i, h in enumerate(head)))
    L += ["  " + "  ".join(c.ljust(w[0]) if i == 0 else c.rjust(w[i]) for i, c in enumerate(row)) for row in rows]
    from ..bounds.baselines import best_filter, percent_of_optimal
    pcts = []
    for x in sweep:
        b = best_filter(x["comparison"])
        pc = None if b is None else percent_of_optimal(b[1], x["comparison"].get("optimal"))
        pcts.append("n/a" if pc is None else f"{float(pc):.1f}%")
    L.append("  " + "  ".join(c.ljust(w[0]) if i == 0 else c.rjust(w[i])
                              for i, c in enumerate(["best filter, % of optimal"] + pcts)))
    for g in r.get("gaussian", []):
        best = g["rows"][0]
        L.append(f"Gaussian steps (sigma = {g['sigma']}): {best['filter']} admits {best['rounds']} of the optimal "
                 f"{g['optimal']} ({best['percent']:.1f}%).")
    L.append(f"At eps0 = {r['eps0']}: the filter (Theorem 1) admits {r['filter']} rounds, advanced composition "
             f"(eq. 2) {r['advanced_composition']} fixed in advance, basic composition {r['basic_composition']}.")
    L.append("")
    v = rep.get("verification")
    if v is None:
        L.append("Exact verifier: not run (--no-verify).")
    else:
        t = v["targets"]
        ok = [x for x in t if x["verdict"] == "pass"]
        caught = [c for c in v["negative_controls"] if c["verdict"] == "FAIL"]
        bad = [x["target"] for x in t if x["verdict"] != "pass"]
        verdict = "PASS" if not bad and len(caught) == len(v["negative_controls"]) else "FAIL"
        L.append(f"Exact verifier: {verdict}: {len(ok)}/{len(t)} filters and odometers achieve at most the delta "
                 f"they claim on adaptive RR (exact for DP conclusions); {len(caught)}/{len(v['negative_controls'])} "
                 f"negative controls caught" + (f"; failing: {', '.join(bad)}" if bad else "") + ".")
        gen = v.get("general_step_laws") or []
        if gen:
            gbad = [g["target"] for g in gen if g["verdict"] != "pass"]
            L.append(f"On general step laws: {len(gen) - len(gbad)}/{len(gen)} pass" + (f"; failing: {', '.join(gbad)}" if gbad else "") + ".")
    fz = rep.get("falsification")
    if fz is not None:
        cl = fz["claims"]
        refuted = [c["claim"] + (f" (errata {c['erratum']})" if c.get("erratum") not in (None, c["claim"]) else "")
                   for c in cl if c["verdict"].startswith("certified") and not c["control"]]
        disagree = [c["claim"] for c in cl if not c["agrees"]]
        L.append(f"Falsifier: {len(cl)} claims; refuted as printed: {', '.join(refuted)}; "
                 + ("all results agree with the catalog." if not disagree else f"DISAGREE: {', '.join(disagree)}."))
    vc = rep.get("validity_counts") or {}
    cat = rep.get("catalog", [])
    errors = sum(1 for c in cat if c.get("value") is None)
    L.append(f"Catalog: {len(cat)} results; validity: " + ", ".join(f"{n} {k}" for k, n in vc.items())
             + (f"; {errors} could not be evaluated at their defaults" if errors else "") + ".")
    errata = rep.get("errata")
    if errata is not None:
        L.append(f"Errata: {len(errata)} in the ledger (reference/data/errata.json).")
    L.append("")
    if paths:
        md, js = paths
        L.append(f"Full report (catalog values, odometers, amplification, slack table, errata): {md} and {js}.")
    L.append("Print it all with: fullyadaptive report --full")
    return "\n".join(L) + "\n"


def _umask() -> int:
    """The process's file mode creation mask, read without changing it where the system allows."""
    try:  # Linux >= 4.7: read-only, so no other thread ever sees a changed mask
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def new_file_mode() -> int:
    """``0o666 & ~umask``: the permissions ``open()`` gives a new file, for files first written to a temporary name.

    ``tempfile.mkstemp`` creates its file with mode 0600 whatever the umask; a report or a
    figure renamed into place from it would be unreadable to the colleagues the user's umask
    lets read it.  Contract: the mode a plain ``open(path, "w")`` would have given.
    """
    return 0o666 & ~_umask()


def _write_atomic(path: Path, text: str) -> None:
    """Write ``text`` to a temporary file in ``path``'s directory, then ``os.replace`` it onto ``path``.

    A reader sees the old file or the new one, never a half-written one; an interrupted
    run leaves no partial file behind.  The file gets the mode a plain ``open()`` would give
    it (:func:`new_file_mode`), not the temporary file's 0600.
    """
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, new_file_mode())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def write_report(rep: dict, out_dir: str | os.PathLike, *, figures: bool = False, progress=None) -> tuple[Path, Path]:
    """Write ``report.md`` and ``report.json`` into ``out_dir`` (created if needed), each atomically.

    With ``figures=True`` and matplotlib installed (the ``[plots]`` extra), every figure of
    :data:`reference.report.figures.FIGURES` is drawn as SVG into ``out_dir/figures/`` (the
    verifier's figure from the report's own verifier results) and embedded in ``report.md``;
    without matplotlib the report is written without them.
    Raises ``ValueError`` for an empty ``out_dir`` and ``OSError`` when it cannot be written.
    """
    if not str(out_dir).strip():
        raise ValueError("the output directory must not be empty (use --out . for the current directory)")
    d = Path(out_dir)
    d.mkdir(parents=True, exist_ok=True)
    md, js = d / "report.md", d / "report.json"
    embedded = None
    if figures:
        from . import figures as F

        if F.have_matplotlib():
            names = [n for n in F.FIGURES if n != "verifier_delta" or rep.get("verification")]
            data = {"verifier_delta": F.verifier_delta_data(rep["verification"])} if rep.get("verification") else {}
            written = F.draw(names, d / "figures", progress=progress, fmt="svg", data=data)
            embedded = [(n, p.relative_to(d).as_posix()) for n, p in written]
    _write_atomic(md, render_markdown(rep, embedded))
    _write_atomic(js, json.dumps(rep, indent=2, ensure_ascii=False) + "\n")
    return md, js
