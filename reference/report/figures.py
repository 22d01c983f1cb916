"""The papers' figures, recomputed from the catalog and drawn with matplotlib (optional: the ``[plots]`` extra).

Each figure has a *data* function, which calls the library (never stored numbers) and
returns plain floats with the parameters used, and a *draw* function, which plots that
data on a :class:`matplotlib.figure.Figure` whose caption states the parameters and the
version and commit that computed it.  The data functions need no matplotlib.

* ``fig1a_gap``: whitehouse2022 Figure 1a, the per-step lower-order terms of advanced
  composition (eps tanh(eps/2), eq. (2)) and of the filter (eps^2/2, Theorem 1), and their
  gap (catalog ``whitehouse2022_fig1a_gap``);
* ``fig1b_odometers``: whitehouse2022 Figures 1b/3a, the filter, mixture and stitched
  odometers against V = sum eps_m^2 at delta' = 1e-6
  (:func:`reference.bounds.whitehouse2023.filter_odometer`, ``mixture_odometer``,
  ``stitched_odometer``);
* ``rounds_vs_eps0``: the rounds of eps0-DP steps every filter admits against the optimal
  composition limit (:func:`reference.bounds.baselines.rounds_comparison`);
* ``balle_fig2``: balle2020 Figure 2, shuffling amplification (Theorem 5.1) and
  Erlingsson et al. Theorem 7 against the number of users
  (:func:`reference.bounds.balle2020.figure2_vs_users`);
* ``fig3b_pointwise``: whitehouse2022 Figure 3b, the three odometers against advanced
  composition optimised point-wise, sqrt(2 V log(1/delta')) + V/2, which holds at one V fixed
  in advance only (not an odometer);
* ``renyi_alpha``: the calibrated Renyi filter (feldman2021 Theorem 4.3 with the canonne2020
  Prop. 12 budget): rounds of eps0-DP steps admitted at each order alpha fixed in advance,
  the order the rule picks, against the Whitehouse et al. filter and the optimal limit
  (:func:`reference.bounds.calibrated.calibrated_renyi_rounds_at`);
* ``verifier_delta``: the exact verifier's certified delta achieved by every filter and
  odometer (worst adversary) against the delta it claims, and the negative controls
  (:func:`reference.verify.targets.slack_table`, ``negative_control_table``).

:func:`draw` writes PNG (``fullyadaptive figures``) or SVG (embedded in the report).
"""
from __future__ import annotations

import os
import tempfile
from pathlib import Path

__all__ = ["FIGURES", "have_matplotlib", "draw", "fig1a_gap_data", "fig1b_odometers_data", "rounds_vs_eps0_data",
           "balle_fig2_data", "fig3b_pointwise_data", "renyi_alpha_data", "verifier_delta_data"]


def have_matplotlib() -> bool:
    """Whether matplotlib can be imported."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True


def _f(x) -> float:
    """A double near ``x`` (an mpf, Fraction, int or decimal string) for plotting; NaN for ``None``."""
    from fractions import Fraction

    import mpmath

    if x is None:
        return float("nan")
    if isinstance(x, (Fraction, int)):
        return float(x)
    return float(mpmath.mpf(x))


def _logspace(lo: float, hi: float, n: int) -> list[str]:
    """``n`` points from ``lo`` to ``hi``, log-spaced, as short decimal strings (parsed exactly downstream)."""
    import math

    a, b = math.log10(lo), math.log10(hi)
    return [f"{10 ** (a + (b - a) * i / (n - 1)):.4g}" for i in range(n)]


# --------------------------------------------------------------------------
# data (no matplotlib)
# --------------------------------------------------------------------------

def fig1a_gap_data(eps_lo: float = 1e-3, eps_hi: float = 3.0, points: int = 60) -> dict:
    """whitehouse2022 Figure 1a: eps^2/2 (filter), eps tanh(eps/2) (advanced composition) and their gap, per step."""
    from ..catalog import get

    gap = get("whitehouse2022_fig1a_gap")
    xs = _logspace(eps_lo, eps_hi, points)
    g = [_f(gap.func(x)) for x in xs]
    filt = [float(x) ** 2 / 2 for x in xs]
    return {"x": [float(x) for x in xs], "filter_term": filt, "advcomp_term": [f - d for f, d in zip(filt, g)],
            "gap": g, "quartic": [float(x) ** 4 / 24 for x in xs],
            "params": {"eps": f"{eps_lo:g} to {eps_hi:g}", "catalog": gap.id}}


def fig1b_odometers_data(delta_prime: str = "1e-6", eps_target: str = "1", v0: str = "1e-4",
                         v_lo: float = 1e-4, v_hi: float = 10.0, points: int = 60) -> dict:
    """whitehouse2022 Figures 1b/3a: filter (tuned at eps_target), mixture (rho = y*) and stitched (v0) odometers vs V."""
    from ..bounds.whitehouse2023 import filter_odometer, mixture_odometer, stitched_odometer, y_star

    rho = y_star(eps_target, delta_prime)
    xs = _logspace(v_lo, v_hi, points)
    return {"x": [float(v) for v in xs],
            "filter": [_f(filter_odometer(v, eps_target, delta_prime)) for v in xs],
            "mixture": [_f(mixture_odometer(v, rho, delta_prime)) for v in xs],
            "stitched": [_f(stitched_odometer(v, v0, delta_prime)) for v in xs],
            "params": {"delta_prime": delta_prime, "eps_target": eps_target, "rho": f"{_f(rho):.6g}", "v0": v0}}


#: eps0 of the figure of rounds against eps0 (the report records its rows, :mod:`reference.report.recorded`)
ROUNDS_FIGURE_EPS0S = ("0.002", "0.005", "0.01", "0.02", "0.05", "0.1", "0.2", "0.5")


def rounds_vs_eps0_data(eps: str = "1", delta: str = "1e-6", eps0s: tuple = ROUNDS_FIGURE_EPS0S, *,
                        comparison=None) -> dict:
    """Rounds of eps0-DP steps admitted at target (eps, delta) by every rule of ``ROUND_RULES``, against eps0.

    ``comparison``: the function giving a row (default :func:`reference.bounds.baselines.rounds_comparison`;
    the report passes one that recalls its record, :func:`reference.report.build.comparison_from`).
    """
    from ..bounds.baselines import ROUND_RULES, rounds_comparison

    rounds_comparison = comparison or rounds_comparison

    rows = [rounds_comparison(e0, eps, delta) for e0 in eps0s]
    return {"x": [float(e) for e in eps0s],
            "series": [{"key": k, "label": f"{label} ({cite})", "y": [r[k] for r in rows]} for k, label, cite in ROUND_RULES],
            "params": {"eps": eps, "delta": delta}}


def balle_fig2_data() -> dict:
    """balle2020 Figure 2 against the number of users, at the defaults of ``figure2_vs_users``."""
    from ..bounds.balle2020 import figure2_vs_users

    d = figure2_vs_users()
    series = [{"label": s["label"], "eps0": _f(s["eps0"]), "y": [None if y is None else _f(y) for y in s["y"]]}
              for s in d["series"]]
    return {"x": [int(n) for n in d["x"]], "series": series, "params": {"delta": str(d["delta"])}}


def fig3b_pointwise_data(delta_prime: str = "1e-6", eps_target: str = "1", v0: str = "1e-4",
                         v_lo: float = 1e-4, v_hi: float = 10.0, points: int = 60) -> dict:
    """whitehouse2022 Figure 3b: the odometers of Figure 3a against point-wise advanced composition.

    The point-wise curve sqrt(2 V log(1/delta')) + V/2 (Theorem 1's bound at y = V, i.e.
    advanced composition with its lower-order term bounded by V/2) is certified upward at each
    V; it is valid at one V fixed in advance, not uniformly over time.
    """
    from ..precision import certified, to_exact

    d = fig1b_odometers_data(delta_prime, eps_target, v0, v_lo, v_hi, points)
    dp = to_exact(delta_prime, "delta_prime")
    xs = _logspace(v_lo, v_hi, points)
    pw = [_f(certified(lambda c, v, dq: c.sqrt(2 * v * c.log(1 / dq)) + v / 2, (to_exact(v, "V"), dp), "upper", 20))
          for v in xs]
    d["pointwise"] = pw
    return d


def renyi_alpha_data(eps0: str = "0.01", eps: str = "1", delta: str = "1e-6", points: int = 30, *,
                     comparison=None) -> dict:
    """Rounds the calibrated Renyi filter admits at each order alpha (alpha - 1 from 10 to 100), with the rule's alpha.

    ``comparison``: as for :func:`rounds_vs_eps0_data`.
    """
    from ..bounds.baselines import rounds_comparison
    from ..bounds.calibrated import calibrated_renyi_rounds_at, rr_calibrated_alpha

    from fractions import Fraction

    xs = [1 + Fraction(10) + Fraction(90 * i, points - 1) for i in range(points)]  # alpha - 1 from 10 to 100
    ys = [calibrated_renyi_rounds_at(x, eps0, eps, delta) for x in xs]
    a_star = rr_calibrated_alpha(eps0, eps, delta)
    k_star = calibrated_renyi_rounds_at(a_star, eps0, eps, delta)
    cmp = (comparison or rounds_comparison)(eps0, eps, delta)
    return {"x": [float(x) for x in xs], "y": ys, "alpha_star": float(a_star), "alpha_star_exact": str(a_star),
            "k_star": k_star, "optimal": cmp.get("optimal"), "whitehouse": cmp.get("whitehouse_filter"),
            "params": {"eps0": eps0, "eps": eps, "delta": delta}}


def verifier_delta_data(verification: dict | None = None) -> dict:
    """Certified delta achieved (worst adversary, upper end) against the delta claimed, per target, and the controls.

    ``verification``: the ``"verification"`` part of a report (:func:`~reference.report.build.build_report`),
    reused when given; otherwise the verifier runs at its defaults (about 10 s).
    """
    if verification is None:
        from ..verify.targets import negative_control_table, slack_table

        rows = [{"target": r["target"], "kind": r["kind"], "allowed": _f(r["allowed"]), "achieved": _f(r["achieved_hi"])}
                for r in slack_table()]
        controls = [{"target": r.extra.get("control", r.target), "allowed": _f(r.allowed), "achieved": _f(r.lo)}
                    for r in negative_control_table()]
    else:
        rows = [{"target": r["target"], "kind": r["kind"], "allowed": _f(r["allowed"]), "achieved": _f(r["achieved_hi"])}
                for r in verification["targets"]]
        controls = [{"target": r["control"], "allowed": _f(r["allowed"]), "achieved": _f(r["achieved_lo"])}
                    for r in verification["negative_controls"]]
    return {"targets": rows, "controls": controls,
            "params": {"steps": "adaptive randomized response (exact for DP conclusions)"}}


# --------------------------------------------------------------------------
# drawing
# --------------------------------------------------------------------------

def _caption(fig, text: str) -> None:
    from .version import build_info

    info = build_info()
    fig.text(0.01, 0.01, f"{text}  |  fullyadaptive {info['version']} (commit {info['commit']})", fontsize=7,
             ha="left", va="bottom", wrap=True)


def _draw_fig1a(fig, d) -> None:
    ax = fig.add_subplot(1, 1, 1)
    ax.loglog(d["x"], d["filter_term"], label="filter (Thm 1): eps^2/2")
    ax.loglog(d["x"], d["advcomp_term"], "--", label="advanced composition (eq. 2): eps tanh(eps/2)")
    ax.loglog(d["x"], d["gap"], label="gap eps^2/2 - eps tanh(eps/2)")
    ax.loglog(d["x"], d["quartic"], ":", label="eps^4/24 (bound on the gap)")
    ax.set_xlabel("per-step epsilon")
    ax.set_ylabel("lower-order term per step")
    ax.set_title("Whitehouse et al. Figure 1a: lower-order terms")
    ax.legend(fontsize=8)
    _caption(fig, f"eps from {d['params']['eps']}; gap from catalog {d['params']['catalog']}")


def _draw_odometers(fig, d, title: str, note: str, pointwise: bool = False) -> None:
    """Figures 1b/3a and 3b: the three odometers against V (and, for 3b, the point-wise curve)."""
    p = d["params"]
    ax = fig.add_subplot(1, 1, 1)
    ax.loglog(d["x"], d["filter"], label=f"filter odometer (tuned at eps = {p['eps_target']})")
    ax.loglog(d["x"], d["mixture"], "--", label=f"mixture odometer (rho = y* = {p['rho']})")
    ax.loglog(d["x"], d["stitched"], ":", label=f"stitched odometer (v0 = {p['v0']})")
    if pointwise:
        ax.loglog(d["x"], d["pointwise"], color="black", lw=0.8,
                  label="advanced composition point-wise: sqrt(2V log(1/delta')) + V/2 (one fixed V only)")
    ax.set_xlabel("V = sum of eps_m^2")
    ax.set_ylabel("privacy loss bound (upper)")
    ax.set_title(title)
    ax.legend(fontsize=7 if pointwise else 8)
    _caption(fig, f"delta' = {p['delta_prime']}; {note}")


def _draw_fig1b(fig, d) -> None:
    _draw_odometers(fig, d, "Whitehouse et al. Figures 1b/3a: odometers", "upper bounds rounded up, plotted as doubles")


def _draw_rounds(fig, d) -> None:
    p = d["params"]
    ax = fig.add_subplot(1, 1, 1)
    styles = ["-", "--", "-", "-.", ":", "--", ":"]
    markers = ["o", "s", "^", "D", "v", "x", "+"]
    for i, s in enumerate(d["series"]):
        pts = [(x, y) for x, y in zip(d["x"], s["y"]) if y]  # None (outside the regime) and 0 cannot go on a log axis
        if pts:  # coinciding rules stay visible: each its own line style and marker size
            ax.loglog(*zip(*pts), ls=styles[i % 7], marker=markers[i % 7], ms=max(2.5, 8 - 0.5 * i), label=s["label"],
                      lw=2.5 if s["key"] == "optimal" else 1.2)
    ax.set_xlabel("eps0 (every step is eps0-DP)")
    ax.set_ylabel("rounds admitted")
    ax.set_title("Rounds admitted by every filter against the optimal composition")
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0)
    fig.subplots_adjust(left=0.08, right=0.5)
    _caption(fig, f"target (eps, delta) = ({p['eps']}, {p['delta']}); exact decisions; a rule admitting 0 rounds "
                  "is not drawn")


def _draw_balle(fig, d) -> None:
    ax = fig.add_subplot(1, 1, 1)
    for s in d["series"]:
        pts = [(x, y) for x, y in zip(d["x"], s["y"]) if y is not None]
        if pts:
            ax.loglog(*zip(*pts), label=s["label"])
    for e0 in sorted({s["eps0"] for s in d["series"]}):
        ax.axhline(e0, color="grey", lw=0.5, ls=":")
    ax.set_xlabel("number of users n")
    ax.set_ylabel("central epsilon (upper)")
    ax.set_title("Balle et al. Figure 2: amplification by shuffling against n")
    ax.legend(fontsize=6)
    _caption(fig, f"delta = {d['params']['delta']}; dotted lines: eps = eps0 (no amplification above them)")


def _draw_fig3b(fig, d) -> None:
    _draw_odometers(fig, d, "Whitehouse et al. Figure 3b: odometers vs point-wise advanced composition",
                    "the point-wise curve is not time-uniform; upper bounds rounded up", pointwise=True)


def _draw_renyi(fig, d) -> None:
    p = d["params"]
    ax = fig.add_subplot(1, 1, 1)
    pts = [(x - 1, y) for x, y in zip(d["x"], d["y"]) if y > 0]
    ax.plot(*zip(*pts), marker=".", label="calibrated Renyi filter at order alpha (fixed in advance)")
    ax.plot([d["alpha_star"] - 1], [d["k_star"]], "o", ms=8,
            label=f"the rule's alpha = {d['alpha_star_exact']}: {d['k_star']} rounds")
    if d["optimal"]:
        ax.axhline(d["optimal"], color="black", lw=1, label=f"optimal composition (k fixed): {d['optimal']}")
    if d["whitehouse"]:
        ax.axhline(d["whitehouse"], color="grey", ls="--", lw=1, label=f"Whitehouse et al. filter: {d['whitehouse']}")
    ax.set_ylim(0, 1.1 * max([d["optimal"] or 0, d["k_star"]] + list(d["y"])))
    ax.set_xlabel("alpha - 1")
    ax.set_ylabel(f"rounds of {p['eps0']}-DP steps admitted")
    ax.set_title("Calibrated Renyi filter: rounds against alpha - 1 (the Renyi order minus one)")
    ax.legend(fontsize=7)
    _caption(fig, f"target (eps, delta) = ({p['eps']}, {p['delta']}); budget canonne2020 Prop. 12 rounded down; "
                  "exact decisions")


def _draw_verifier(fig, d) -> None:
    ax = fig.add_subplot(1, 1, 1)
    tiny = 1e-12
    for rows, mk, lab in ((d["targets"], "o", "filters and odometers (certified upper end, worst adversary)"),
                          (d["controls"], "x", "negative controls (certified lower end)")):
        xs = [r["allowed"] for r in rows]
        ys = [max(r["achieved"], tiny) for r in rows]
        ax.loglog(xs, ys, mk, ls="none", label=lab)
    lo = min(r["allowed"] for r in d["targets"] + d["controls"]) / 10
    ax.loglog([lo, 1], [lo, 1], color="black", lw=0.8, label="achieved = claimed")
    ax.set_xlabel("delta claimed")
    ax.set_ylabel("delta achieved (certified)")
    ax.set_title("Exact verifier: certified delta against the claimed delta")
    ax.legend(fontsize=7, loc="lower right")
    _caption(fig, f"steps: {d['params']['steps']}; below the line: the claim holds; under 1e-12 drawn at 1e-12")


#: name -> (data function, draw function, file name).
FIGURES: dict = {
    "fig1a_gap": (fig1a_gap_data, _draw_fig1a, "whitehouse2022_fig1a_gap.png"),
    "fig1b_odometers": (fig1b_odometers_data, _draw_fig1b, "whitehouse2022_fig1b_odometers.png"),
    "rounds_vs_eps0": (rounds_vs_eps0_data, _draw_rounds, "rounds_vs_eps0.png"),
    "balle_fig2": (balle_fig2_data, _draw_balle, "balle2020_fig2_vs_users.png"),
    "fig3b_pointwise": (fig3b_pointwise_data, _draw_fig3b, "whitehouse2022_fig3b_pointwise.png"),
    "renyi_alpha": (renyi_alpha_data, _draw_renyi, "calibrated_renyi_rounds_vs_alpha.png"),
    "verifier_delta": (verifier_delta_data, _draw_verifier, "verifier_certified_delta.png"),
}


#: Figure sizes (inches) other than the default 7 x 4.8: the rounds figure keeps its legend beside the axes.
_SIZES = {"rounds_vs_eps0": (12, 5.2)}


def draw(names, out_dir, *, progress=None, fmt: str = "png", data: dict | None = None) -> list[tuple[str, Path]]:
    """Compute and draw the figures ``names`` into ``out_dir`` (``fmt`` ``"png"`` or ``"svg"``, each written atomically).

    ``data`` maps a figure name to precomputed data (e.g. the report's verifier results);
    every other figure's data function runs.  Returns ``[(name, path), ...]``.
    """
    if fmt not in ("png", "svg"):
        raise ValueError(f"fmt must be 'png' or 'svg', found {fmt!r}")
    data = data or {}
    from matplotlib.figure import Figure  # no pyplot: leaves the caller's backend alone

    from .files import new_file_mode

    d = Path(out_dir)
    d.mkdir(parents=True, exist_ok=True)
    out = []
    if progress is not None:
        progress.stage("figures", len(names))
    for i, name in enumerate(names):
        if progress is not None:
            progress.update(i, name)
        data_fn, draw_fn, fname = FIGURES[name]
        fname = fname[: -len(".png")] + "." + fmt
        fig = Figure(figsize=_SIZES.get(name, (7, 4.8)))
        draw_fn(fig, data[name] if name in data else data_fn())
        fig.subplots_adjust(bottom=0.17)
        path = d / fname
        fd, tmp = tempfile.mkstemp(dir=d, prefix=f".{fname}.", suffix=".tmp")
        os.close(fd)
        try:
            fig.savefig(tmp, format=fmt, dpi=120, bbox_inches="tight")  # nothing clipped (legends beside the axes)
            os.chmod(tmp, new_file_mode())  # mkstemp's 0600 would hide the figure from whom the umask lets read it
            os.replace(tmp, path)
        except BaseException:
            if os.path.exists(tmp):
                os.unlink(tmp)
            raise
        out.append((name, path))
    if progress is not None:
        progress.done()
    return out
