"""The planner: choose a fully adaptive filter BEFORE the interaction (``fullyadaptive plan``, :mod:`reference.cli.plan`).

For a target (eps, delta) and a workload anticipated before the interaction, lists every valid
fully adaptive filter that accepts the workload's steps, the number of steps it admits (exact
decisions, the filters' own rules), the optimal non-adaptive limit when it is computable, the
percentage of that limit, and recommends the filter admitting the most steps.  The choice (the
filter, and the Renyi order alpha) must be fixed before the first step runs: choosing after seeing
outputs is not covered by any of the filters' theorems.

Workload syntax (items separated by ``;`` or ``,``; a workload is run as a cycle, repeated until
the filter stops):

* ``rr:EPS`` or ``dp:EPS`` -- an EPS-DP step (randomized response is the worst case);
* ``gaussian:sigma=S[:sensitivity=D]`` -- a Gaussian mechanism (mu = D/S, D = 1 by default);
* ``gdp:MU`` -- a MU-GDP step;
* a suffix ``*N`` repeats an item N times in the cycle (``rr:0.01*3;gaussian:sigma=40``).

For pure-DP workloads the list includes the game-certified filter
(:mod:`reference.bounds.game_filter`, grid = the smallest eps of the cycle, every step up to the
budget's reach certified), with its certificate (``row["certificate"]``: B*, the certified game
value at B* and at B* + 1, the menu, the engine version).

Optimal non-adaptive limits: homogeneous RR -- the exact optimal composition of Kairouz, Oh,
Viswanath (:func:`reference.bounds.baselines.optimal_rounds_homogeneous`); Gaussian/GDP-only
workloads -- the largest n with delta_{sqrt(sum mu^2)}(eps) <= delta (dong2022 Cor. 2.13 and 3.3,
attained by Gaussian mechanisms); mixed RR workloads -- the certified optimal composition of the fixed cycle (murtagh2016: that of
randomized responses; ``reference.bounds.game.cycle_optimal_rounds``) when it is short enough,
else ``n/a``; workloads mixing RR with Gaussian steps -- not computed (``n/a``).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Callable, Sequence

__all__ = ["Step", "parse_workload", "plan", "render_plan", "FILTERS"]

MAX_COUNT = 10 ** 6  # a step repeated more than this in one cycle is refused (the cycle is explicit)

#: Each row's key -> (the name the plan prints, the stateful filter of :mod:`reference.accountants` whose exact rule the
#: row counts).  A row carries ``row["accountant"] = {"class": ..., "params": {...}}`` (exact decimal strings): that
#: filter, built with those parameters and fed the cycle, admits exactly ``row["rounds"]`` steps; ``None`` where the
#: class does not charge every step kind of the cycle (the calibrated filters take eps-DP steps only).
FILTERS = {
    "gdp_filter": ("Gaussian-DP filter", "GaussianDPFilter"),
    "calibrated_zcdp_filter": ("calibrated zCDP filter", "CalibratedZCDPFilter"),
    "calibrated_renyi_filter": ("calibrated Renyi filter", "CalibratedRenyiFilter"),
    "whitehouse_filter": ("Whitehouse et al. filter", "DPFilter"),
    "feldman_zrnic_filter": ("Feldman-Zrnic DP filter", "RenyiDPFilter"),
    "game_filter": ("game-certified filter", "GameFilter"),
}


def _accountant(key: str, **params) -> dict:
    return {"class": FILTERS[key][1], "params": {k: str(v) for k, v in params.items()}}


@dataclass(frozen=True)
class Step:
    """One anticipated step: ``kind`` is ``"dp"`` (value = eps) or ``"gdp"`` (value = mu, Gaussian steps included)."""

    kind: str
    value: Fraction
    label: str


def _num(x: str, name: str) -> Fraction:
    from ..precision import Domain, check

    return check(name, x, Domain.positive())


def parse_workload(spec: str) -> tuple[Step, ...]:
    """Parse a workload string (see the module docstring) into a cycle of :class:`Step` (exact values).

    Raises ``ValueError`` naming the item on a malformed spec.
    """
    from ..precision import Domain, check

    if not isinstance(spec, str) or not spec.strip():
        raise ValueError("workload must be a non-empty string such as 'rr:0.01' or 'gaussian:sigma=20'")
    out: list[Step] = []
    for raw in spec.replace(";", ",").split(","):
        item = raw.strip()
        if not item:
            continue
        count = 1
        if "*" in item:
            item, _, c = item.rpartition("*")
            try:
                count = int(c)
            except ValueError:
                raise ValueError(f"workload item {raw.strip()!r}: the repeat count after '*' must be an integer") from None
            if not 1 <= count <= MAX_COUNT:
                raise ValueError(f"workload item {raw.strip()!r}: the repeat count must lie in [1, {MAX_COUNT}]")
        kind, _, rest = item.partition(":")
        kind = kind.strip().lower()
        if kind in ("rr", "dp"):
            st = Step("dp", _num(rest.strip(), f"workload item {item!r} eps"), item)
        elif kind == "gdp":
            st = Step("gdp", _num(rest.strip(), f"workload item {item!r} mu"), item)
        elif kind in ("gaussian", "gauss"):
            kv = {}
            for part in rest.split(":"):
                if not part.strip():
                    continue
                k, eq, v = part.partition("=")
                if not eq or k.strip() not in ("sigma", "sensitivity"):
                    raise ValueError(f"workload item {item!r}: expected sigma=S[:sensitivity=D], found {part!r}")
                kv[k.strip()] = v.strip()
            if "sigma" not in kv:
                raise ValueError(f"workload item {item!r}: sigma is required (gaussian:sigma=S)")
            s = _num(kv["sigma"], f"workload item {item!r} sigma")
            D = check(f"workload item {item!r} sensitivity", kv.get("sensitivity", "1"), Domain.positive())
            st = Step("gdp", D / s, item)
        else:
            raise ValueError(f"workload item {item!r}: the kind must be rr, dp, gaussian or gdp")
        out.extend([st] * count)
    if not out:
        raise ValueError("workload must contain at least one item")
    return tuple(out)


# ---------------------------------------------------------------------------
# Counting: the largest n such that the first n steps of the cycle fit a rule
# ---------------------------------------------------------------------------

def _runs_at(cycle: Sequence[Step], n: int) -> dict:
    """Exact multiset {Step: count} of the first n steps of the repeated cycle."""
    m = len(cycle)
    q, r = divmod(n, m)
    out: dict = {}
    for i, s in enumerate(cycle):
        out[s] = out.get(s, 0) + q + (1 if i < r else 0)
    return {s: c for s, c in out.items() if c}


def _count(fits: Callable[[dict], bool], cycle: Sequence[Step], guess: int, cap: int = 10 ** 9) -> int:
    from ..precision import last_true

    return last_true(lambda n: n == 0 or (n <= cap and fits(_runs_at(cycle, n))), max(0, min(guess, cap)))


def _float_charge(cycle, charge) -> float:
    return sum(charge(s) for s in cycle) / len(cycle)


def _rr_kinds(cycle) -> bool:
    return all(s.kind == "dp" for s in cycle)


def _rules(cycle: Sequence[Step], eps: Fraction, delta: Fraction, max_bytes=None, deadline=None) -> list[dict]:
    """Every valid filter that accepts the cycle's steps: name, citation, rounds, parameters."""
    from ..bounds.calibrated import (
        ALPHA_GRID_DENOMINATOR,
        _float_budget,
        _float_log,
        _float_rr,
        cks_rdp_budget_q,
        rr_calibrated_alpha,
        zcdp_improved_budget_q,
    )
    from ..bounds.classical import _rr_curve
    from ..bounds.dong2022 import gdp_mu
    from ..bounds.feldman2021 import dp_filter_admits
    from ..bounds.smith2022 import dp_step_mu_q, gdp_filter_admits
    from ..bounds.whitehouse2023 import filter_admits
    from ..precision import sign_of

    rows = []
    dp_only = _rr_kinds(cycle)
    ef = float(eps)

    def mu_of(s: Step) -> Fraction:
        return s.value if s.kind == "gdp" else dp_step_mu_q(s.value)

    # --- Gaussian-DP filter (smith2022) --------------------------------------
    mus = {s: mu_of(s) for s in set(cycle)}
    mu_star = float(gdp_mu(eps, delta, dps=15))
    guess = int(mu_star ** 2 / _float_charge(cycle, lambda s: float(mus[s]) ** 2))
    n_gdp = _count(lambda runs: gdp_filter_admits(sum((c * mus[s] ** 2 for s, c in runs.items()), Fraction(0)), eps, delta),
                   cycle, guess)
    rows.append({"key": "gdp_filter", "filter": FILTERS["gdp_filter"][0], "cite": "smith2022 (arXiv 2210.17520)",
                 "rounds": n_gdp, "params": f"mu* = {mu_star:.6g}; eps-DP steps charged 2 Phi^-1(e^eps/(1+e^eps))",
                 "accountant": _accountant("gdp_filter", eps=eps, delta=delta)})

    # --- calibrated zCDP filter (feldman2021 Remark 4.4 + CKS20 Prop. 12) ------
    rho = zcdp_improved_budget_q(eps, delta)

    def zcdp_fits(runs):
        gauss = sum((c * s.value ** 2 / 2 for s, c in runs.items() if s.kind == "gdp"), Fraction(0))
        rr = [(s.value, c) for s, c in runs.items() if s.kind == "dp"]

        def f(ctx, r, g):
            t = ctx.mpf(0)
            for e, c in rr:
                ee = ctx.mpf(e.numerator) / e.denominator
                t = t + c * ee * (1 - 2 / (ctx.exp(ee) + 1))
            return t + g - r
        return sign_of(f, (rho, gauss)) <= 0

    def zc(s):
        return float(s.value) ** 2 / 2 if s.kind == "gdp" else float(s.value) * math.tanh(float(s.value) / 2)
    n_z = _count(zcdp_fits, cycle, int(float(rho) / _float_charge(cycle, zc)))
    rows.append({"key": "calibrated_zcdp_filter", "filter": FILTERS["calibrated_zcdp_filter"][0],
                 "cite": "feldman2021 Remark 4.4 + canonne2020 Prop. 12", "rounds": n_z, "params": f"rho* = {float(rho):.6g}",
                 "accountant": _accountant("calibrated_zcdp_filter", eps=eps, delta=delta) if dp_only else None})

    # --- calibrated Renyi filter: alpha fixed in advance for this workload ---------
    def renyi_fits(a: Fraction, B: Fraction):
        def fits(runs):
            gauss = sum((c * a * s.value ** 2 / 2 for s, c in runs.items() if s.kind == "gdp"), Fraction(0))
            rr = [(s.value, c) for s, c in runs.items() if s.kind == "dp"]

            def f(ctx, aa, BB, g):
                t = ctx.mpf(0)
                for e, c in rr:
                    t = t + c * _rr_curve(ctx, aa, ctx.mpf(e.numerator) / e.denominator)
                return t + g - BB
            return sign_of(f, (a, B, gauss)) <= 0
        return fits

    def rdp_float(a: float, s: Step) -> float:
        return a * float(s.value) ** 2 / 2 if s.kind == "gdp" else _float_rr(a, float(s.value))

    def n_at(a: Fraction) -> int:
        B = cks_rdp_budget_q(a, eps, delta)
        if B <= 0:
            return 0
        return _count(renyi_fits(a, B), cycle, int(float(B) / _float_charge(cycle, lambda s: rdp_float(float(a), s))))

    if dp_only and len(set(cycle)) == 1:
        a_best = rr_calibrated_alpha(cycle[0].value, eps, delta)
        n_r = n_at(a_best)
    else:
        def ratio(u):
            a = 1 + math.exp(u)
            try:
                return _float_budget(a, ef, _float_log(delta)) / _float_charge(cycle, lambda s: rdp_float(a, s))
            except (ValueError, ZeroDivisionError, OverflowError):
                return -math.inf
        us = [i / 8 for i in range(-40, 121)]
        ib = max(range(len(us)), key=lambda i: ratio(us[i]))
        j0 = max(1, round(math.exp(us[ib]) * ALPHA_GRID_DENOMINATOR))
        best = None
        for j in sorted({max(1, round(j0 * f)) for f in (0.9, 0.95, 1, 1.05, 1.1)}):
            a = 1 + Fraction(j, ALPHA_GRID_DENOMINATOR)
            k = n_at(a)
            if best is None or k > best[0]:
                best = (k, a)
        n_r, a_best = best
    rows.append({"key": "calibrated_renyi_filter", "filter": FILTERS["calibrated_renyi_filter"][0],
                 "cite": "feldman2021 Theorem 4.3 + canonne2020 Prop. 12", "rounds": n_r,
                 "params": f"alpha = {a_best} (fixed in advance for this workload)",
                 "accountant": (_accountant("calibrated_renyi_filter", eps=eps, delta=delta, alpha=a_best) if dp_only
                                else None)})

    # --- DP-step filters (pure DP workloads only) --------------------------------
    if dp_only:
        def V(runs):
            return sum((c * s.value ** 2 for s, c in runs.items()), Fraction(0))
        g = int(2 * ef / _float_charge(cycle, lambda s: float(s.value) ** 2))
        rows.append({"key": "whitehouse_filter", "filter": FILTERS["whitehouse_filter"][0], "cite": "whitehouse2022 Theorem 1",
                     "rounds": _count(lambda r: filter_admits(V(r), eps, delta), cycle, g), "params": "delta' = delta",
                     "accountant": _accountant("whitehouse_filter", eps=eps, delta_prime=delta)})
        rows.append({"key": "feldman_zrnic_filter", "filter": FILTERS["feldman_zrnic_filter"][0],
                     "cite": "feldman2021 Remark 4.4 + Fact 2.4", "rounds": _count(lambda r: dp_filter_admits(V(r), eps, delta),
                                                                                    cycle, g), "params": "",
                     "accountant": _accountant("feldman_zrnic_filter", eps=eps, delta=delta)})
        row = _game_row(cycle, eps, delta, max_bytes, deadline)
        if row is not None:
            rows.append(row)
    return rows


_GAME = {"key": "game_filter", "filter": "game-certified filter",
         "cite": "whitehouse2022 Lemma 3 + kairouz2015 Thm 3.3 (exact adaptive game, certified)"}


def _game_row(cycle: Sequence[Step], eps: Fraction, delta: Fraction, max_bytes=None, deadline=None) -> dict:
    """The game-certified filter on a pure-DP cycle: grid = the smallest eps of the cycle, menu up to its largest.

    Rounds: the largest n whose first n steps' integer charges sum to at most B* (exact).  When the
    game cannot be computed within its budgets (more than :data:`reference.bounds.game_filter.MAX_BUDGET`
    units, rows beyond ``max_bytes``, the sweep past ``deadline``: :func:`reference.bounds.game_filter.game_budget`)
    the row says so: ``rounds`` None and ``not_computed`` the reason.
    """
    from .game import GameMemoryError, GameTimeout
    from .game_filter import GameTooLarge, charge_index, game_budget

    grid = min(s.value for s in cycle)
    top = max(s.value for s in cycle)
    try:  # game_budget refuses a too-fine grid or rows over max_bytes before any sweep
        gb = game_budget(eps, delta, grid, max_bytes=max_bytes, deadline=deadline)
        if top > gb.eps_max:
            gb = game_budget(eps, delta, grid, top, max_bytes=max_bytes, deadline=deadline)
    except (GameTooLarge, GameMemoryError) as exc:
        return {**_GAME, "rounds": None, "params": "", "accountant": None,
                "not_computed": f"not computed: {' '.join(str(exc).split())}"}
    except GameTimeout:
        return {**_GAME, "rounds": None, "params": "", "accountant": None,
                "not_computed": "not computed: the game did not finish within the time limit (max_seconds)"}
    charge = [gb.steps[charge_index(s.value, grid, gb.steps)] ** 2 for s in cycle]
    per_cycle = sum(charge)
    q, rem = divmod(gb.budget, per_cycle)
    n = q * len(cycle)
    for c in charge:
        if c > rem:
            break
        rem -= c
        n += 1
    cert = gb.as_dict()
    return {**_GAME, "filter": FILTERS["game_filter"][0], "rounds": n,
            "accountant": _accountant("game_filter", eps=eps, delta=delta, grid=grid, eps_max=gb.eps_max),
            "params": (f"grid = {grid}, B* = {gb.budget} units, steps up to eps_max = {gb.eps_max}; game value at B* <= "
                       f"{float(gb.upper_at_budget):.6g}, at B*+1 >= {float(gb.lower_above):.6g}"),
            "certificate": cert}


def _optimal(cycle: Sequence[Step], eps: Fraction, delta: Fraction, rows: Sequence[dict] = ()) -> tuple[int | None, str]:
    from ..bounds.baselines import optimal_rounds_homogeneous
    from ..bounds.dong2022 import gdp_mu
    from ..bounds.smith2022 import gdp_filter_admits

    kinds = {s.kind for s in cycle}
    if kinds == {"dp"} and len(set(cycle)) == 1:
        return optimal_rounds_homogeneous(cycle[0].value, eps, delta), "kairouz2015 Theorem 3.3 (exact optimal composition of RR)"
    if kinds == {"dp"}:
        from .game import cycle_optimal_rounds

        known = max([r["rounds"] for r in rows if r["key"] == "game_filter" and r["rounds"] is not None] or [0])  # fits
        res = cycle_optimal_rounds([s.value for s in cycle], eps, delta, n_start=known)
        if res is not None and res[1]:
            return res[0], ("murtagh2016 Theorem 1.5 (the optimal composition of the fixed sequence is that of randomized "
                            "responses), certified forward convolution")
        return None, "not computed: the mixed pure-DP cycle is too long for the certified convolution"
    if kinds == {"gdp"}:
        mu_star = float(gdp_mu(eps, delta, dps=15))
        guess = int(mu_star ** 2 / _float_charge(cycle, lambda s: float(s.value) ** 2))
        n = _count(lambda runs: gdp_filter_admits(sum((c * s.value ** 2 for s, c in runs.items()), Fraction(0)), eps, delta),
                   cycle, guess)
        return n, "dong2022 Corollaries 2.13 and 3.3 (the composition of Gaussian mechanisms is exactly sqrt(sum mu^2)-GDP)"
    return None, "not computed for mixed workloads"


def plan(eps, delta, workload, *, max_bytes=None, deadline=None) -> dict:
    """Rounds admitted by every valid filter on the anticipated ``workload`` at target (eps, delta), against the optimal limit.

    Returns ``{"eps", "delta", "workload", "optimal", "optimal_source", "rows", "recommended", "note"}``; each row has
    ``key, filter, cite, rounds, percent_of_optimal, params, accountant``.  Rows are sorted by rounds (most first).
    ``accountant`` (:data:`reference.bounds.planner.FILTERS`) names the stateful filter and its exact parameters:
    built so and fed the cycle until it refuses, it admits exactly ``rounds`` steps (``tests/test_plan_replay.py``).
    ``max_bytes`` (the game's rows) and ``deadline`` (a ``time.monotonic()`` instant) bound the game filter's row;
    a row not computed within them has ``rounds`` None and ``not_computed`` (its reason), sorts last and is never
    recommended.  Preconditions: eps > 0, 0 < delta < 1; ``workload`` a string (module docstring) or a sequence of
    :class:`Step`.
    """
    from ..bounds.baselines import percent_of_optimal
    from ..precision import Domain, check

    e = check("eps", eps, Domain.positive())
    d = check("delta", delta, Domain.open_unit())
    cycle = parse_workload(workload) if isinstance(workload, str) else tuple(workload)
    rows = _rules(cycle, e, d, max_bytes, deadline)
    try:
        opt, src = _optimal(cycle, e, d, rows)
    except ValueError as exc:  # a route beyond its range (e.g. more rounds than the exact KOV sum takes)
        opt, src = None, f"not computed: {' '.join(str(exc).split())}"
    for r in rows:
        p = None if r["rounds"] is None else percent_of_optimal(r["rounds"], opt)
        r["percent_of_optimal"] = None if p is None else float(p)
    rows.sort(key=lambda r: (r["rounds"] is None, -(r["rounds"] or 0)))
    rec = rows[0]
    return {"eps": e, "delta": d, "workload": [s.label for s in cycle], "optimal": opt, "optimal_source": src,
            "rows": rows, "recommended": rec["key"],
            "note": ("Fix the filter (and its parameters, e.g. the Renyi order) BEFORE the first step: the recommendation "
                     "is computed from the anticipated workload only; switching filters or re-choosing alpha after seeing "
                     "outputs is not covered by any of these theorems.")}


def render_plan(p: dict) -> str:
    """Plain-text table of :func:`plan`."""
    head = ["filter", "rounds", "% of optimal", "source", "parameters"]
    body = [[r["filter"], "not computed", "n/a", r["cite"], r["not_computed"]] if r["rounds"] is None else
            [r["filter"], str(r["rounds"]), "n/a" if r["percent_of_optimal"] is None else f"{r['percent_of_optimal']:.1f}%",
             r["cite"], r["params"]] for r in p["rows"]]
    opt = "n/a" if p["optimal"] is None else str(p["optimal"])
    body.append(["optimal non-adaptive limit", opt, "100%" if p["optimal"] else "n/a", p["optimal_source"], ""])
    w = [max(len(head[i]), *(len(b[i]) for b in body)) for i in range(len(head))]
    cyc = ", ".join(p["workload"]) if len(p["workload"]) <= 8 else ", ".join(p["workload"][:8]) + f", ... ({len(p['workload'])} steps)"
    L = [f"Plan for target (eps, delta) = ({p['eps']}, {p['delta']}), anticipated workload (repeated): {cyc}", ""]
    L.append("  ".join(h.ljust(w[i]) for i, h in enumerate(head)))
    L.append("-" * len(L[-1]))
    L += ["  ".join(c.ljust(w[i]) for i, c in enumerate(b)) for b in body]
    rec = next(r for r in p["rows"] if r["key"] == p["recommended"])
    L += ["", f"Recommended: {rec['filter']} ({rec['rounds']} rounds; {rec['params'] or rec['cite']}).", p["note"]]
    return "\n".join(L)
