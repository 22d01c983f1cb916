"""One workload syntax for ``plan`` and ``check``: the optimum number of cycles k*, exact or certified, beside the filters.

``fullyadaptive plan --workload SPEC`` takes the composition syntax of ``fullyadaptive check``
(:func:`reference.profiles.check.parse_spec`: ``rr:0.01``, ``gaussian:sigma=2,sensitivity=2x500``,
``laplace:b=1,sensitivity=1x2+laplace:b=1,sensitivity=2x2``,
``subsampled-gaussian:q=0.01,sigma=1.1x100``, ``zcdp:rho=0.1``, a JSON list or file).  The spec is
ONE CYCLE of the workload: the count after ``x`` is how many times the item occurs in the cycle
(as ``*N`` did in the old plan syntax), and the plan asks how many repetitions of the cycle fit
the (eps, delta) budget.  A spec without counts is a cycle of single steps, so ``rr:0.01`` asks
for the number of eps = 0.01 randomized-response steps.

The old plan syntax (``rr:EPS``/``dp:EPS``, ``gaussian:sigma=S[:sensitivity=D]``, ``gdp:MU``,
items joined by ``;`` or ``,``, ``*N`` repeats; :func:`reference.bounds.planner.parse_workload`)
is still accepted, as a deprecated alias, when the check syntax does not read the spec.

:func:`plan_workload` reports

* **k\\***: the largest k such that the k-fold composition of the cycle is (eps, delta)-DP.  Its
  ends come from the certified delta(eps) brackets that ``check`` uses
  (:func:`reference.profiles.check.profile`): ``k_lo`` is a k whose certified upper end of delta
  is <= delta, ``k_hi + 1`` a k whose certified lower end is > delta.  Since delta(eps) of the
  k-fold composition does not decrease with k (dropping a cycle is post-processing), every such
  k bounds k*, so ``k_lo <= k* <= k_hi`` whatever the brackets' shapes; the search is a
  doubling then two bisections (one per end), at most :data:`MAX_EVALUATIONS` brackets and
  ``max_seconds`` seconds, and stops with a message naming the cap when one is reached (the ends
  found so far stay certified).  ``k_lo == k_hi`` is the exact k*: for randomized response
  (kairouz2015 Thm 3.3 / murtagh2016), Gaussian mechanisms (dong2022 Cor. 2.13, 3.3) and one Laplace
  scale (sommer2019) the brackets are exact enclosures and decide every k away from a tie.
* the filters' rows of :func:`reference.bounds.planner.plan` (rounds in steps, exact decisions),
  with their complete cycles (rounds // steps per cycle) and that count's percentage of k*.
  The filters take eps-DP steps and Gaussian (GDP) steps: a Laplace step of scale b and
  sensitivity s enters as an (s/b)-DP step (it is one; its exact profile is used for k*).  A cycle
  of subsampled-Gaussian steps only gets the DP-SGD game filter's row and a Renyi filter's
  (:mod:`reference.profiles.sgm_plan`; the menu is the cycle's items or ``--menu``); a cycle mixing
  a subsampled-Gaussian, zCDP or (eps, delta > 0) item with other steps has no filter rows (no
  shipped filter charges such a cycle) and only k* is reported.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from fractions import Fraction

from ..bounds.planner import MAX_COUNT, Step as PlanStep, parse_workload, plan
from ..precision import Domain, bounded_decimal, check as _check, compact_text
from ..bounds.game import MAX_BYTES
from .check import Step, parse_spec, profile
from .sgm_plan import MENU_BITS, render_menu_items, sgm_rows

__all__ = ["MAX_EVALUATIONS", "K_MAX", "Optimum", "parse_cycle", "optimum_cycles", "plan_workload", "render_workload_plan"]

#: Most certified brackets one search evaluates (a doubling and two bisections need about 3 log2(k*)).
MAX_EVALUATIONS = 120
#: Largest number of cycles the doubling tries; beyond it k* is reported as at least k_lo, with no upper end.
K_MAX = 2 ** 40
#: Default wall-clock limit of one search, in seconds (the subsampled-Gaussian brackets cost 0.1-10 s each).
MAX_SECONDS = 300.0


@dataclass
class Optimum:
    """The optimum number of cycles: ``k_lo <= k* <= k_hi`` (``k_hi`` ``None`` when no certified upper end was found).

    ``exact`` is ``k_lo == k_hi``; ``evaluations`` lists ``(k, delta lower, delta upper, status)`` of each bracket
    evaluated (status ``in``, ``over`` or ``undecided`` against delta); ``stopped`` names the cap that ended the
    search early, else ``""``; ``source`` the route of the brackets.
    """

    k_lo: int
    k_hi: int | None
    evaluations: list = field(default_factory=list)
    stopped: str = ""
    source: str = ""
    exact_route: bool = False

    @property
    def exact(self) -> bool:
        return self.k_hi is not None and self.k_lo == self.k_hi

    def as_dict(self) -> dict:
        return {"k_lo": self.k_lo, "k_hi": self.k_hi, "exact": self.exact, "k_star": self.k_lo if self.exact else None,
                "stopped": self.stopped or None, "source": self.source, "exact_route": self.exact_route,
                "evaluations": [{"k": k, "delta_lower": lo, "delta_upper": hi, "status": st}
                                for k, lo, hi, st in self.evaluations]}


def parse_cycle(spec) -> tuple[tuple[Step, ...], str]:
    """``(cycle, syntax)``: the cycle as check steps, and ``"check"`` or ``"plan (deprecated)"``.

    The check syntax is tried first; a spec it cannot read but the old plan syntax can is converted
    (``dp:EPS`` -> ``rr:EPS``, ``gdp:MU`` and ``gaussian:sigma=S:sensitivity=D`` -> a Gaussian of noise 1/MU at
    sensitivity 1).  Raises ``ValueError`` with the check syntax's message when neither reads it.
    """
    try:
        return parse_spec(spec), "check"
    except (ValueError, OSError) as exc:
        first = exc
    if not isinstance(spec, str):
        raise ValueError(f"workload: {first}")
    try:
        old = parse_workload(spec)
    except ValueError as exc:
        raise ValueError(f"workload: {first} (check syntax, e.g. 'rr:0.01x10+gaussian:sigma=2,sensitivity=2x5'); "
                         f"read as the deprecated plan syntax: {exc}") from None
    out: list[Step] = []
    for st in old:
        s = (Step("rr", (("eps", st.value), ("delta", Fraction(0))), 1) if st.kind == "dp" else
             Step("gaussian", (("sigma", 1 / st.value), ("sensitivity", Fraction(1))), 1))
        if out and out[-1].mechanism == s.mechanism and out[-1].params == s.params:
            out[-1] = Step(s.mechanism, s.params, out[-1].count + 1)
        else:
            out.append(s)
    return tuple(out), "plan (deprecated)"


def _times(cycle, k: int) -> tuple[Step, ...]:
    return tuple(Step(s.mechanism, s.params, s.count * k) for s in cycle)


def optimum_cycles(cycle, eps, delta, *, max_evaluations: int = MAX_EVALUATIONS, max_seconds: float = MAX_SECONDS,
                   k_max: int = K_MAX, evaluate=None) -> Optimum:
    """Certified ends of k*, the largest k whose k-fold composition of ``cycle`` is (eps, delta)-DP (module docstring).

    kairouz2015 Thm 3.3 / murtagh2016 (rr, dp), dong2022 Cor. 2.13 and 3.3 (Gaussian), sommer2019 (Laplace), the
    subsampled-Gaussian and mixture brackets of :func:`reference.profiles.check.profile`.  ``cycle``: a check spec or
    a tuple of its steps.  ``max_evaluations``, ``max_seconds``, ``k_max`` bound the search.  ``evaluate(steps,
    eps, seconds)`` (default: :func:`~reference.profiles.check.profile` of delta at eps, in this process) computes one
    bracket within ``seconds`` (the time left) or raises ``TimeoutError``, e.g. in a worker process that is killed
    at the limit, so that one slow bracket cannot overrun ``max_seconds``.  A bracket that times out, or that a
    route refuses (``ValueError``, e.g. beyond its largest count), ends the search with the reason in ``stopped``;
    the ends found so far stay certified.
    """
    from .pure_dp import _cmp

    steps = cycle if (isinstance(cycle, tuple) and all(isinstance(s, Step) for s in cycle)) else parse_spec(cycle)
    e = _check("eps", eps, Domain.nonnegative())
    d = _check("delta", delta, Domain.unit_nonneg())
    max_evaluations = int(_check("max_evaluations", max_evaluations, Domain.integers_from(2)))
    if not (isinstance(max_seconds, (int, float)) and max_seconds > 0):
        raise ValueError(f"max_seconds must be a positive number of seconds, found {max_seconds!r}")
    t0 = time.perf_counter()
    out = Optimum(0, None)
    status: dict[int, str] = {}

    class _Cap(Exception):
        pass

    def ev(k: int) -> str:
        if k in status:
            return status[k]
        if len(out.evaluations) >= max_evaluations:
            raise _Cap(f"stopped after {max_evaluations} certified brackets (max_evaluations)")
        left = max_seconds - (time.perf_counter() - t0)
        if left <= 0:
            raise _Cap(f"stopped after {max_seconds:.3g} s (max_seconds) and {len(out.evaluations)} certified brackets")
        try:
            b = profile(_times(steps, k), "delta", e) if evaluate is None else evaluate(_times(steps, k), e, left)
        except TimeoutError:
            raise _Cap(f"stopped after {max_seconds:.3g} s (max_seconds) while computing the bracket at k = {k} cycles, "
                       f"after {len(out.evaluations)} certified brackets") from None
        except ValueError as exc:
            raise _Cap(f"stopped at k = {k} cycles, whose bracket was refused ({' '.join(str(exc).split())}), after "
                       f"{len(out.evaluations)} certified brackets") from None
        st = "in" if _cmp(b.hi, d) <= 0 else ("over" if _cmp(b.lo, d) > 0 else "undecided")
        out.source = b.source if b.exact else f"lower end: {b.lo_source or b.source}; upper end: {b.hi_source or b.source}"
        out.exact_route = bool(b.exact)
        out.evaluations.append((k, bounded_decimal(b.lo, 8, "lower", probability=True),
                                bounded_decimal(b.hi, 8, "upper", probability=True), st))
        status[k] = st
        return st

    def known_in() -> int:
        return max([k for k, s in status.items() if s == "in"] + [0])

    def known_over():
        return min([k for k, s in status.items() if s == "over"], default=None)

    try:
        k = 1
        while known_over() is None:  # doubling until a certified "over"
            if k > k_max:
                out.stopped = f"no certified upper end up to k_max = {k_max} cycles"
                break
            ev(k)
            k *= 2
        hi_bad = known_over()
        # bisection 1: the largest certified "in" below the first k not certified in
        a = known_in()
        b = min([x for x, s in status.items() if s != "in" and x > a], default=None)
        while b is not None and b - a > 1:
            m = (a + b) // 2
            if ev(m) == "in":
                a = m
            else:
                b = m
        # bisection 2: the smallest certified "over" above the last k not certified over
        hi_bad = known_over()
        if hi_bad is not None:
            a2 = max([x for x, s in status.items() if s != "over" and x < hi_bad] + [0])
            b2 = hi_bad
            while b2 - a2 > 1:
                m = (a2 + b2) // 2
                if ev(m) == "over":
                    b2 = m
                else:
                    a2 = m
    except _Cap as cap:
        out.stopped = str(cap)
    out.k_lo = known_in()
    over = known_over()
    out.k_hi = None if over is None else over - 1
    return out


def _plan_steps(cycle) -> tuple[tuple[PlanStep, ...] | None, str]:
    """The cycle as the filters' steps (expanded), or ``(None, why)`` when a step has no filter or the cycle is too long."""
    out: list[PlanStep] = []
    total = sum(s.count for s in cycle)
    if total > MAX_COUNT:
        return None, f"the cycle has {total} steps; the filters' rows are computed for cycles of at most {MAX_COUNT}"
    for s in cycle:
        if s.mechanism in ("rr", "dp") and s.p("delta") == 0:
            st = PlanStep("dp", s.p("eps"), s.text())
        elif s.mechanism == "laplace":
            st = PlanStep("dp", s.p("sensitivity") / s.p("b"), s.text() + " (as an (s/b)-DP step)")
        elif s.mechanism == "gaussian":
            st = PlanStep("gdp", s.p("sensitivity") / s.p("sigma"), s.text())
        else:
            return None, (f"no shipped filter charges a {s.mechanism} step"
                          + (" with delta > 0" if s.mechanism in ("rr", "dp") else "") + "; only k* is reported")
        if st.value <= 0:
            return None, f"{s.text()} is a step of zero privacy loss; the filters' rows need positive charges"
        out.extend([st] * s.count)
    return tuple(out), ""


def plan_workload(eps, delta, workload, *, max_evaluations: int = MAX_EVALUATIONS,
                  max_seconds: float = MAX_SECONDS, max_bytes: int | None = None, evaluate=None, menu=None,
                  bits: int = MENU_BITS, certify=None, block=None) -> dict:
    """The plan of ``fullyadaptive plan`` for a workload cycle in the check syntax (or the deprecated plan syntax).

    Returns ``{"eps", "delta", "syntax", "cycle", "steps_per_cycle", "optimum", "rows", "recommended",
    "optimal_steps" (alias "optimal"), "optimal_source", "filters_note", "note"}``: ``optimum`` is ``Optimum.as_dict()`` (k* in
    cycles, kairouz2015 / dong2022 / sommer2019 exact, else the certified brackets of check); ``rows`` the filters
    of :func:`reference.bounds.planner.plan` (whitehouse2022 Thm 1, feldman2021, smith2022, the game filter), each
    with ``cycles`` (complete cycles admitted) and ``percent_of_k_star`` (``[of k_hi, of k_lo]``).
    Budgets: ``max_seconds`` bounds the whole plan (the filters' rows first, then the search for k* with the time
    left: :func:`optimum_cycles`, ``evaluate`` passed on); ``max_bytes`` caps the game filter's rows.  A row that
    cannot be computed within them (the game filter's, :func:`reference.bounds.planner.plan`) is reported as not
    computed (``rounds`` None, ``not_computed`` its reason) and the other rows are kept.
    A cycle of subsampled-Gaussian steps only gets the rows of :func:`reference.profiles.sgm_plan.sgm_rows` instead:
    the DP-SGD game filter on ``menu`` (a ``;``-joined spec; default the cycle's distinct items) at the grid
    2^-``bits`` (``block``: the block filter's lengths, None per-step), its certificate computed by ``certify`` (default in this process; the CLI's runs in a worker
    process stopped at the time left), and a Renyi filter; each row's ``items`` say what a homogeneous run of each
    menu item gets.  ``menu`` with any other cycle is a ``ValueError``.
    Preconditions: eps > 0, 0 < delta < 1.
    """
    e = _check("eps", eps, Domain.positive())
    d = _check("delta", delta, Domain.open_unit())
    if not (isinstance(max_seconds, (int, float)) and max_seconds > 0):
        raise ValueError(f"max_seconds must be a positive number of seconds, found {max_seconds!r}")
    t0 = time.monotonic()
    cycle, syntax = parse_cycle(workload)
    m = sum(s.count for s in cycle)
    sgm, sgm_note = sgm_rows(e, d, cycle, menu, bits=bits, max_bytes=MAX_BYTES if max_bytes is None else max_bytes,
                             deadline=t0 + max_seconds, certify=certify, block=block)
    psteps, why = _plan_steps(cycle) if not sgm else (None, "")
    p = plan(e, d, psteps, max_bytes=max_bytes, deadline=t0 + max_seconds) if psteps is not None else None
    left = max(max_seconds - (time.monotonic() - t0), 1e-3)
    opt = optimum_cycles(cycle, e, d, max_evaluations=max_evaluations, max_seconds=left, evaluate=evaluate)
    rows, rec, opt_steps, opt_src, note = [], None, None, "", ""
    if sgm:
        rows, rec, note = sgm, sgm[0]["key"], sgm_note
    if p is not None:
        note = p["note"]
        rows, rec, opt_steps, opt_src = p["rows"], p["recommended"], p["optimal"], p["optimal_source"]
        if any(s.mechanism == "laplace" for s in cycle):  # the planner's limit is that of RR steps of the same eps
            opt_steps, opt_src = None, "not given: the planner's limit treats Laplace steps as randomized response"
    if rows:
        for r in rows:
            c = None if r["rounds"] is None else r["rounds"] // m
            r["cycles"] = c
            r["percent_of_k_star"] = [None if not opt.k_hi or c is None else 100.0 * c / opt.k_hi,
                                      None if not opt.k_lo or c is None else 100.0 * c / opt.k_lo]
    return {"eps": e, "delta": d, "syntax": syntax, "cycle": [s.text() for s in cycle], "steps_per_cycle": m,
            "optimum": opt.as_dict(), "rows": rows, "recommended": rec, "optimal_steps": opt_steps,
            "optimal": opt_steps,  # the key of reference.bounds.planner.plan (steps), kept for its readers
            "optimal_source": opt_src, "filters_note": why,
            "note": ("k* counts repetitions of the whole cycle (the count after 'x' is the item's multiplicity in one "
                     "cycle); the filters count steps (partial cycles included). " + (note or "Fix the filter BEFORE "
                                                                                      "the first step."))}


def _pct(v) -> str:
    return "n/a" if v is None else f"{v:.1f}%"


def render_workload_plan(p: dict) -> str:
    """Plain text of :func:`plan_workload`."""
    o = p["optimum"]
    cyc = " + ".join(p["cycle"])
    L = [f"Plan for target (eps, delta) = ({compact_text(p['eps'], ratio=True)}, {compact_text(p['delta'], ratio=True)}); one cycle = {cyc} ({p['steps_per_cycle']} steps)", ""]
    if o["exact"]:
        L.append(f"optimum k* = {o['k_lo']} cycles (decided: certified delta <= target at k*, > target at k* + 1; "
                 f"{o['source']})")
    else:
        hi = "unknown" if o["k_hi"] is None else str(o["k_hi"])
        L.append(f"optimum k* in [{o['k_lo']}, {hi}] cycles (certified bracket; {o['source'] or 'no bracket computed'})")
    if o["stopped"]:
        L.append(f"  search {o['stopped']}; the ends above are still certified")
    L.append(f"  ({len(o['evaluations'])} certified brackets evaluated)")
    L.append("")
    if not p["rows"]:
        L.append(f"filters: {p['filters_note']}")
    else:
        head = ["filter", "rounds (steps)", "complete cycles", "% of optimal k*", "source", "parameters"]
        body = []
        for r in p["rows"]:
            if r["rounds"] is None:
                body.append([r["filter"], "not computed", "-", "n/a", r["cite"], r["not_computed"]])
                continue
            lo, hi = r["percent_of_k_star"]
            pct = _pct(lo) if lo == hi else f"{_pct(lo)} to {_pct(hi)}"
            body.append([r["filter"], str(r["rounds"]), str(r["cycles"]), pct, r["cite"], r["params"]])
        w = [max(len(head[i]), *(len(b[i]) for b in body)) for i in range(len(head))]
        L.append("  ".join(h.ljust(w[i]) for i, h in enumerate(head)))
        L.append("-" * len(L[-1]))
        L += ["  ".join(c.ljust(w[i]) for i, c in enumerate(b)) for b in body]
        if p["optimal_steps"] is not None:
            L.append(f"optimal non-adaptive limit in steps: {p['optimal_steps']} ({p['optimal_source']})")
        L += render_menu_items(p["rows"])
        rec = next(r for r in p["rows"] if r["key"] == p["recommended"])
        L.append(f"Recommended: {rec['filter']} ({rec['rounds']} steps; {rec['params'] or rec['cite']}).")
    L.append(p["note"])
    return "\n".join(L)
