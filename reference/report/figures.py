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
  (:func:`reference.bounds.balle2020.figure2_vs_users`).
"""
from __future__ import annotations

import os
import tempfile
from pathlib import Path

__all__ = ["FIGURES", "have_matplotlib", "draw", "fig1a_gap_data", "fig1b_odometers_data", "rounds_vs_eps0_data",
           "balle_fig2_data"]


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


def rounds_vs_eps0_data(eps: str = "1", delta: str = "1e-6",
                        eps0s: tuple = ("0.002", "0.005", "0.01", "0.02", "0.05", "0.1", "0.2", "0.5")) -> dict:
    """Rounds of eps0-DP steps admitted at target (eps, delta) by every rule of ``ROUND_RULES``, against eps0."""
    from ..bounds.baselines import ROUND_RULES, rounds_comparison

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


# --------------------------------------------------------------------------
# drawing
# --------------------------------------------------------------------------

def _caption(fig, text: str) -> None:
    from . import build_info

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


def _draw_fig1b(fig, d) -> None:
    p = d["params"]
    ax = fig.add_subplot(1, 1, 1)
    ax.loglog(d["x"], d["filter"], label=f"filter odometer (tuned at eps = {p['eps_target']})")
    ax.loglog(d["x"], d["mixture"], "--", label=f"mixture odometer (rho = y* = {p['rho']})")
    ax.loglog(d["x"], d["stitched"], ":", label=f"stitched odometer (v0 = {p['v0']})")
    ax.set_xlabel("V = sum of eps_m^2")
    ax.set_ylabel("privacy loss bound (upper)")
    ax.set_title("Whitehouse et al. Figures 1b/3a: odometers")
    ax.legend(fontsize=8)
    _caption(fig, f"delta' = {p['delta_prime']}; upper bounds rounded up, plotted as doubles")


def _draw_rounds(fig, d) -> None:
    p = d["params"]
    ax = fig.add_subplot(1, 1, 1)
    styles = ["-", "--", "-", "-.", ":", "--", ":"]
    markers = ["o", "s", "^", "D", "v", "x", "+"]
    for i, s in enumerate(d["series"]):
        pts = [(x, y) for x, y in zip(d["x"], s["y"]) if y]  # None (outside the regime) and 0 cannot go on a log axis
        if pts:  # coinciding rules stay visible: each its own line style and marker size
            ax.loglog(*zip(*pts), ls=styles[i % 7], marker=markers[i % 7], ms=7 - 0.7 * i, label=s["label"],
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


#: name -> (data function, draw function, file name).
FIGURES: dict = {
    "fig1a_gap": (fig1a_gap_data, _draw_fig1a, "whitehouse2022_fig1a_gap.png"),
    "fig1b_odometers": (fig1b_odometers_data, _draw_fig1b, "whitehouse2022_fig1b_odometers.png"),
    "rounds_vs_eps0": (rounds_vs_eps0_data, _draw_rounds, "rounds_vs_eps0.png"),
    "balle_fig2": (balle_fig2_data, _draw_balle, "balle2020_fig2_vs_users.png"),
}


#: Figure sizes (inches) other than the default 7 x 4.8: the rounds figure keeps its legend beside the axes.
_SIZES = {"rounds_vs_eps0": (12, 5.2)}


def draw(names, out_dir, *, progress=None) -> list[tuple[str, Path]]:
    """Compute and draw the figures ``names`` into ``out_dir`` (PNG, each written atomically); returns (name, path)."""
    from matplotlib.figure import Figure  # no pyplot: leaves the caller's backend alone

    d = Path(out_dir)
    d.mkdir(parents=True, exist_ok=True)
    out = []
    if progress is not None:
        progress.stage("figures", len(names))
    for i, name in enumerate(names):
        if progress is not None:
            progress.update(i, name)
        data_fn, draw_fn, fname = FIGURES[name]
        fig = Figure(figsize=_SIZES.get(name, (7, 4.8)))
        draw_fn(fig, data_fn())
        fig.subplots_adjust(bottom=0.17)
        path = d / fname
        fd, tmp = tempfile.mkstemp(dir=d, prefix=f".{fname}.", suffix=".tmp")
        os.close(fd)
        try:
            fig.savefig(tmp, format="png", dpi=120, bbox_inches="tight")  # nothing clipped (legends beside the axes)
            os.replace(tmp, path)
        except BaseException:
            if os.path.exists(tmp):
                os.unlink(tmp)
            raise
        out.append((name, path))
    if progress is not None:
        progress.done()
    return out
