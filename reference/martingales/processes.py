"""The (super)martingales behind the seeds' filters and odometers, and exact / Monte Carlo checks of their one-step condition.

Each process is ``X_n = X_{n-1} * R_n`` with a one-step ratio of the form
``R_n = sqrt(A2) exp(A l^2 + B l + G)`` where ``l`` is the step's privacy loss and
``A2, A, B, G`` depend on the state before the step (see :mod:`reference.martingales.laws`).  The
supermartingale condition ``E[X_n | F_{n-1}] <= X_{n-1}`` is ``E R_n <= 1``.

Processes (``key``: citation):

* ``whitehouse_exp``: whitehouse2022 Theorem 3 (proof, Appendix B) = whitehouse2023
  Theorem 4: ``X_n = exp(lam M_n - lam^2 V_n/2)``, ``M_n = sum_m (l_m - mu_m)`` the
  privacy-loss martingale (``mu_m`` the true conditional mean), ``V_n = sum sigma_m^2``
  with ``sigma^2 = eps^2`` (eps-DP steps) or ``2 rho`` (rho-zCDP, Theorem 6); lam > 0.
* ``rogers_lem4_2``: rogers2016 Lemma 4.2 (van de Geer 2002, Lemma 2.4):
  ``exp(lam M_k - lam^2 U_k^2/8)``, ``U_k^2 = sum (D_i - C_i)^2`` with
  ``C_i = -eps_i - mu_i <= X_i <= eps_i - mu_i = D_i``; all real lam; bounded steps only.
* ``whitehouse_mixture``: whitehouse2022 Theorem 4 / whitehouse2023 Theorem 5, the
  normal-mixture process ``sqrt(rho/(V_n + rho)) exp(M_n^2/(2 (V_n + rho)))``
  (= the exp process mixed over lam ~ N(0, 1/rho)); depends on (M, V, rho).
* ``whitehouse2023_lem6_renyi``: whitehouse2023 Lemma 6, eqs. (9)-(10):
  ``X_n = exp((lam - 1) M_n)``, ``M_n = sum_m (log(P/Q)(A_m) - lam rho_m)`` under P,
  rho_m the step's zCDP parameter (eps^2/2 for eps-DP steps); lam >= 1.
* ``feldman2021_thm3_1``: feldman2021 Theorem 3.1 (proof): under the second input's
  law Q, ``X_t = prod_{i<=t} (P_i/Q_i)^alpha exp(-(alpha - 1) rho_i^(alpha))``
  (``E_Q (P/Q)^alpha = exp((alpha-1) D_alpha)``), rho^(alpha) the step's declared RDP at
  order alpha: ``min(alpha eps^2/2, eps)`` for eps-DP steps (Bun-Steinke 2016),
  ``alpha rho`` for the Gaussian (exact: a tie).
* ``feldman2021_renyi_odometer_kl``: the supermartingale behind the feldman2021 Renyi
  odometer (``reference.bounds.feldman2021.renyi_odometer_zcdp``) with each step viewed as
  ``rho``-zCDP for ``rho`` = its KL divergence = its mean loss (``eps tanh(eps/2)`` for
  RR, ``eps - 1 + e^-eps`` for Laplace, ``rho`` for the Gaussian): under P,
  ``X_t = exp((alpha - 1)(L_t - alpha sum_{s<=t} rho_s))``, on the odometer's order grid.
  The condition ``E_P exp((alpha-1) l) <= exp((alpha-1) alpha KL)``, i.e.
  ``D_alpha(P||Q) <= alpha KL(P||Q)``, is what makes "RR steps viewed as
  ``eps tanh(eps/2)``-zCDP" (the crossing check of the odometer) legitimate.

Negative control ``nc_variance_inflated``: the ``whitehouse_exp`` process whose
steps are really RR(3 eps/2) while V counts eps^2: the condition fails exactly.

Exact route (:func:`one_step_exact`): the sign of ``1 - E R`` is decided in
interval arithmetic with increasing precision (Laplace with A != 0: also more
Riemann pieces); Gaussian steps are decided with exact rationals
(:func:`reference.precision.compare_exp_rational`), so martingale ties (E R = 1)
are recognised exactly.  Monte Carlo route (:func:`one_step_mc`): samples of
``R`` with a lower confidence bound at level ``alpha`` (Hoeffding / empirical
Bernstein for bounded ratios; for unbounded ratios the bound on
``E min(R, cap) <= E R``), Bonferroni over the grid; "fail" iff some state's
lower bound exceeds 1.
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Callable, Iterable

from ..precision import compare_exp_rational, iv_const
from ._iv import ends, ivctx
from .laws import StepLaw
from .stats import mean_lcb, mean_ucb

__all__ = ["Process", "PROCESSES", "NEGATIVE_PROCESSES", "StateResult", "OneStepReport",
           "one_step_exact", "one_step_mc", "x0_exact", "default_grid", "ratio_coefficients"]

F = Fraction


@dataclass(frozen=True)
class Process:
    """A process ``X_n = X_{n-1} sqrt(A2) exp(A l^2 + B l + G)``: its citation and how its coefficients follow from the state.

    ``coeffs(state, law, mu, num)`` returns ``(A2, A, B, G)``; ``mu`` is the true
    mean loss (an interval, or a Fraction for Gaussian steps) and ``num`` converts a
    Fraction into the arithmetic of ``mu``.  ``A2`` and ``A`` are always Fractions.
    ``measure`` is "P" or "Q" (the law under which the process is a supermartingale).
    """

    key: str
    title: str
    citation: str
    formula: str
    params: tuple[str, ...]
    laws: tuple[str, ...]
    coeffs: Callable = field(repr=False)
    a_zero: bool = True
    measure: str = "P"
    negative_control: bool = False
    degenerate: Callable = field(default=lambda st: False, repr=False)


def _exp_coeffs(state, law, mu, num):
    lam = state["lam"]
    return F(1), F(0), lam, -num(lam) * mu - num(lam * lam * law.v / 2)


def _rogers_coeffs(state, law, mu, num):
    lam = state["lam"]
    w = law.width
    return F(1), F(0), lam, -num(lam) * mu - num(lam * lam * w * w / 8)


def _mixture_coeffs(state, law, mu, num):
    M, V, rho = state["M"], state["V"], state["rho"]
    W1 = V + rho
    W2 = V + law.v + rho
    A = 1 / (2 * W2)
    d = num(M) - mu
    return W1 / W2, A, d / num(W2), d * d / num(2 * W2) - num(M * M / (2 * W1))


def _renyi_coeffs(state, law, mu, num):
    lam = state["lam"]
    return F(1), F(0), lam - 1, num(-(lam - 1) * lam * law.zcdp_rho)


def _kl_zcdp_coeffs(state, law, mu, num):
    al = state["alpha"]
    return F(1), F(0), al - 1, -num((al - 1) * al) * mu


def _feldman_coeffs(state, law, mu, num):
    al = state["alpha"]
    return F(1), F(0), al, num(-(al - 1) * law.rdp(al))


PROCESSES: dict[str, Process] = {
    "whitehouse_exp": Process(
        "whitehouse_exp", "exp(lam M - lam^2 V/2)",
        "whitehouse2022 Theorem 3 (proof) = whitehouse2023 Theorem 4",
        "X_n = exp(lam M_n - lam^2 V_n / 2), M_n = sum (l_m - mu_m), V_n = sum sigma_m^2",
        ("lam",), ("rr", "laplace", "gaussian"), _exp_coeffs,
        degenerate=lambda st: st["lam"] == 0),
    "rogers_lem4_2": Process(
        "rogers_lem4_2", "exp(lam M - lam^2 U^2/8)",
        "rogers2016 Lemma 4.2 (van de Geer 2002 Lemma 2.4)",
        "X_k = exp(lam M_k - lam^2 U_k^2 / 8), U_k^2 = sum (D_i - C_i)^2, D_i - C_i = 2 eps_i",
        ("lam",), ("rr", "laplace"), _rogers_coeffs,
        degenerate=lambda st: st["lam"] == 0),
    "whitehouse_mixture": Process(
        "whitehouse_mixture", "normal mixture sqrt(rho/(V+rho)) exp(M^2/(2(V+rho)))",
        "whitehouse2022 Theorem 4 = whitehouse2023 Theorem 5 (method of mixtures)",
        "X_n = sqrt(rho/(V_n+rho)) exp(M_n^2/(2(V_n+rho)))",
        ("rho", "M", "V"), ("rr", "laplace", "gaussian"), _mixture_coeffs, a_zero=False),
    "whitehouse2023_lem6_renyi": Process(
        "whitehouse2023_lem6_renyi", "Renyi exp((lam-1) M)",
        "whitehouse2023 Lemma 6, eqs. (9)-(10)",
        "X_n = exp((lam-1) M_n), M_n = sum (log(P/Q)(A_m) - lam rho_m)",
        ("lam",), ("rr", "laplace", "gaussian"), _renyi_coeffs,
        degenerate=lambda st: st["lam"] == 1),
    "feldman2021_thm3_1": Process(
        "feldman2021_thm3_1", "RDP exp(alpha Loss - (alpha-1) sum rho^(alpha)) under Q",
        "feldman2021 Theorem 3.1 (proof)",
        "X_t = prod (P_i/Q_i)^alpha exp(-(alpha-1) rho_i^(alpha)) under Q",
        ("alpha",), ("rr", "laplace", "gaussian"), _feldman_coeffs, measure="Q",
        degenerate=lambda st: False),
    "feldman2021_renyi_odometer_kl": Process(
        "feldman2021_renyi_odometer_kl", "Renyi odometer step exp((alpha-1)(L - alpha sum KL)), rho = KL",
        "feldman2021 Renyi odometer (Theorem 3.1 supermartingale, steps as KL-zCDP)",
        "X_t = exp((alpha-1)(L_t - alpha sum_s rho_s)), rho_s = KL(P_s||Q_s) = E_P l_s (RR: eps tanh(eps/2))",
        ("alpha",), ("rr", "laplace", "gaussian"), _kl_zcdp_coeffs,
        degenerate=lambda st: st["alpha"] == 1),
}

NEGATIVE_PROCESSES: dict[str, Process] = {
    "nc_variance_inflated": Process(
        "nc_variance_inflated", "NEGATIVE CONTROL: exp(lam M - lam^2 V/2), steps RR(3eps/2), V counts eps^2",
        "negative control (variance-inflated steps)",
        "X_n = exp(lam M_n - lam^2 V_n / 2) with true steps RR(1.5 eps) and V_n = sum eps_m^2",
        ("lam",), ("rr",), _exp_coeffs, negative_control=True,
        degenerate=lambda st: st["lam"] == 0),
}

INFLATION = {"nc_variance_inflated": F(3, 2)}


def default_grid(process: Process, quick: bool = False) -> list[tuple[dict, StepLaw]]:
    """The grid of (state, step law) pairs checked for ``process`` (smaller when ``quick``)."""
    eps = [F(1, 100), F(1, 10), F(1, 2), F(1), F(2), F(5)] if not quick else [F(1, 10), F(1), F(3)]
    rhos = [F(1, 200), F(1, 20), F(1, 2), F(2)] if not quick else [F(1, 20), F(1)]
    infl = INFLATION.get(process.key, F(1))
    laws = []
    for kind in process.laws:
        for x in (rhos if kind == "gaussian" else eps):
            laws.append(StepLaw(kind, x, infl))
    if process.key in ("whitehouse_exp", "nc_variance_inflated"):
        states = [{"lam": x} for x in ([F(1, 10), F(1, 2), F(1), F(2), F(5), F(20)] if not quick else [F(1, 2), F(2), F(10)])]
    elif process.key == "rogers_lem4_2":
        states = [{"lam": x} for x in ([F(-5), F(-1), F(-1, 10), F(1, 10), F(1), F(5)] if not quick else [F(-2), F(1, 2), F(3)])]
    elif process.key == "whitehouse2023_lem6_renyi":
        states = [{"lam": x} for x in ([F(11, 10), F(3, 2), F(2), F(5), F(20)] if not quick else [F(3, 2), F(4)])]
    elif process.key == "feldman2021_renyi_odometer_kl":
        from .boundaries import RENYI_ALPHAS

        states = [{"alpha": x} for x in (RENYI_ALPHAS if not quick else (F(5, 4), F(2), F(16), F(128)))]
    elif process.key == "feldman2021_thm3_1":
        states = [{"alpha": x} for x in ([F(11, 10), F(3, 2), F(2), F(5), F(20)] if not quick else [F(3, 2), F(4)])]
    elif process.key == "whitehouse_mixture":
        rho_m = [F(1, 10), F(1), F(10)] if not quick else [F(1, 2), F(5)]
        Ms = [F(-3), F(-1, 2), F(0), F(1), F(4)] if not quick else [F(-1), F(0), F(2)]
        Vs = [F(0), F(1, 2), F(5)] if not quick else [F(0), F(2)]
        states = [{"rho": r, "M": m, "V": v} for r, m, v in itertools.product(rho_m, Ms, Vs)]
        if quick:
            laws = [l for l in laws if l.kind != "laplace" or l.param in (F(1, 10), F(1))]
    else:  # pragma: no cover
        raise KeyError(process.key)
    return [(s, l) for l in laws for s in states]


def ratio_coefficients(process: Process, state: dict, law: StepLaw, c=None):
    """``(A2, A, B, G)`` of the one-step ratio; exact Fractions for Gaussian steps, else intervals of ``c``.

    Under Q (``process.measure == "Q"``) B is negated: E_Q f(l) = E_P f(-l).
    """
    if law.kind == "gaussian":
        A2, A, B, G = process.coeffs(state, law, law.mean_exact(), lambda q: q)
    else:
        A2, A, B, G = process.coeffs(state, law, law.mean_iv(c), lambda q: iv_const(c, q))
    if process.measure == "Q":
        B = -B
    return A2, A, B, G


@dataclass
class StateResult:
    """The one-step check at one grid state: sign of ``1 - E R`` and its certified enclosure."""

    state: dict
    law: str
    sign: int | None          # +1 strict supermartingale step, 0 martingale (tie), -1 violated, None undecided
    margin_lo: Fraction | None  # certified lower bound on 1 - E R
    margin_hi: Fraction | None  # certified upper bound on 1 - E R
    note: str = ""


def _state_text(state: dict, law: StepLaw) -> str:
    parts = [f"{k}={_fmt(v)}" for k, v in state.items()]
    return ", ".join(parts + [law.label])


def _fmt(q: Fraction) -> str:
    return str(q.numerator) if q.denominator == 1 else f"{q.numerator}/{q.denominator}"


def one_step_exact_state(process: Process, state: dict, law: StepLaw) -> StateResult:
    """Exact one-step check at one state: decides the sign of ``1 - E[X_n/X_{n-1} | F_{n-1}]``.

    Gaussian steps: exact rational decision (ties are found exactly).  RR, Laplace:
    interval arithmetic at 64, 128, ..., 2048 bits (and 64 .. 4096 Riemann pieces for
    Laplace with A != 0) until the enclosure excludes 0; undecided otherwise.
    A degenerate state (lam = 0, or lam = 1 for the Renyi process) is an exact tie.
    """
    label = law.label
    if process.degenerate(state):
        return StateResult(state, label, 0, F(0), F(0), "degenerate: X_n = X_{n-1}")
    if law.kind == "gaussian":
        A2, A, B, G = ratio_coefficients(process, state, law)
        form = law.expect_exp_quadratic_gaussian(A, B, G)
        if form is None:
            return StateResult(state, label, -1, None, None, "E X_n = infinity")
        D, E = form
        # ratio = sqrt(A2/D) exp(E) <= 1  <=>  exp(2E) <= D/A2
        s = compare_exp_rational(2 * E, D / A2)
        c = ivctx(128)
        m = 1 - c.sqrt(iv_const(c, A2 / D)) * c.exp(iv_const(c, E))
        if s == 0:
            return StateResult(state, label, 0, F(0), F(0), "exact tie: E X_n = X_{n-1}")
        lo, hi = ends(m)
        # the sign is exact; keep the reported enclosure on its side of 0
        lo, hi = (max(lo, F(0)), max(hi, F(0))) if s < 0 else (min(lo, F(0)), min(hi, F(0)))
        return StateResult(state, label, -s, lo, hi)
    pieces_seq = (64,) if process.a_zero or law.kind != "laplace" else (64, 256, 1024, 4096)
    for pieces in pieces_seq:
        for prec in (64, 128, 256, 512, 2048):
            c = ivctx(prec)
            A2, A, B, G = ratio_coefficients(process, state, law, c)
            e = law.expect_exp_quadratic_iv(c, iv_const(c, A), B, G, process.a_zero, pieces)
            m = 1 - c.sqrt(iv_const(c, A2)) * e
            lo, hi = ends(m)
            if lo > 0:
                return StateResult(state, label, 1, lo, hi)
            if hi < 0:
                return StateResult(state, label, -1, lo, hi)
            if law.kind == "laplace" and not process.a_zero and prec >= 128:
                break  # the Riemann width, not the precision, limits: more pieces
    return StateResult(state, label, None, lo, hi, "undecided: enclosure contains 0")


@dataclass
class OneStepReport:
    """Result of the one-step check of one process over its grid (exact or Monte Carlo)."""

    process: str
    citation: str
    route: str
    verdict: str              # "pass" / "fail" / "undecided"
    worst_state: str
    margin: Fraction | float | None
    n_states: int
    ties: int = 0
    undecided: int = 0
    details: list = field(default_factory=list)
    negative_control: bool = False


def one_step_exact(process: Process, grid: Iterable[tuple[dict, StepLaw]] | None = None,
                   quick: bool = False, progress=None) -> OneStepReport:
    """Exact one-step check of ``process`` on its grid: "fail" iff some state has ``E R > 1`` (decided exactly).

    ``margin`` is the smallest certified lower bound of ``1 - E R`` over the grid
    (a Fraction; 0 at exact ties); ``worst_state`` the state attaining it.
    """
    grid = list(default_grid(process, quick) if grid is None else grid)
    results = []
    for state, law in grid:
        results.append((state, law, one_step_exact_state(process, state, law)))
        if progress is not None:
            progress.update(1)
    neg = [r for r in results if r[2].sign == -1]
    und = [r for r in results if r[2].sign is None]
    ties = sum(1 for r in results if r[2].sign == 0)
    pool = neg or und or results

    def key(r):
        lo = r[2].margin_lo
        return lo if lo is not None else F(-10 ** 9)

    worst = min(pool, key=key)
    verdict = "fail" if neg else ("undecided" if und else "pass")
    return OneStepReport(process.key, process.citation, "exact", verdict, _state_text(worst[0], worst[1]),
                         worst[2].margin_lo, len(results), ties, len(und),
                         [{"state": _state_text(s, l), "sign": r.sign,
                           "margin_lo": None if r.margin_lo is None else str(r.margin_lo),
                           "note": r.note} for s, l, r in results],
                         process.negative_control)


def _float_coeffs(process: Process, state: dict, law: StepLaw):
    """Float coefficients of the ratio as a function of the loss under the process's own measure (no P/Q flip)."""
    if law.kind == "gaussian":
        A2, A, B, G = process.coeffs(state, law, law.mean_exact(), lambda q: q)
        return float(A2), float(A), float(B), float(G)
    c = ivctx(80)
    A2, A, B, G = process.coeffs(state, law, law.mean_iv(c), lambda q: iv_const(c, q))

    def mid(x):
        if isinstance(x, Fraction):
            return float(x)
        a, b = ends(x)
        return float((a + b) / 2)

    return float(A2), float(A), mid(B), mid(G)


def _ratio_range(coef, bound: float):
    """Range [lo, hi] of sqrt(A2) exp(A l^2 + B l + G) for l in [-bound, bound] (float, widened by 1e-12 relative)."""
    A2, A, B, G = coef
    pts = [-bound, bound]
    if A != 0:
        v = -B / (2 * A)
        if -bound < v < bound:
            pts.append(v)
    vals = [A * l * l + B * l + G for l in pts]
    lo, hi = min(vals), max(vals)
    s = math.sqrt(A2)
    return s * math.exp(lo) * (1 - 1e-12), s * math.exp(hi) * (1 + 1e-12)


def one_step_mc(process: Process, backend, *, n: int = 100_000, seed: int = 0, alpha: float = 1e-9,
                grid=None, quick: bool = False, progress=None) -> OneStepReport:
    """Monte Carlo one-step check (second route): "fail" iff some state's lower confidence bound on E R exceeds 1.

    Per state ``n`` i.i.d. ratios ``R = X_n/X_{n-1}``; bounded laws: Hoeffding /
    empirical Bernstein lower and upper bounds at level ``alpha/#states``
    (Bonferroni, so the whole grid's false-alarm probability is <= alpha);
    Gaussian steps: lower bound on ``E min(R, cap)``, cap = the ratio at 8 standard
    deviations (fixed before sampling).  ``margin`` = min over states of
    ``1 - LCB`` (negative: rejected).  Seeded: same seed and backend -> same result.
    """
    grid = list(default_grid(process, quick) if grid is None else grid)
    xp = backend.xp
    a = alpha / max(1, len(grid))
    out = []
    for idx, (state, law) in enumerate(grid):
        gen = _mc_generator(backend, seed, idx, process.key)
        coef = _float_coeffs(process, state, law)
        A2, A, B, G = coef
        ell = law.sample(xp, gen, n)
        if process.measure == "Q":
            ell = -ell  # under Q each loss is distributed as -l under P (symmetric mechanisms)
        expo = A * ell * ell + B * ell + G
        bound = law.loss_bound()
        if bound is not None:
            lo, hi = _ratio_range(coef, float(bound))
            r = math.sqrt(A2) * xp.exp(expo)
            cap = None
        else:
            m, s = float(law.true_param), math.sqrt(2 * float(law.true_param))
            if process.measure == "Q":
                m = -m
            cands = [m - 8 * s, m + 8 * s]  # R is log-convex in l: its maximum on [m-8s, m+8s] is at an end
            cap = max(math.sqrt(A2) * math.exp(min(A * l * l + B * l + G, 700.0)) for l in cands)
            r = xp.minimum(math.sqrt(A2) * xp.exp(xp.minimum(expo, 700.0)), cap)
            lo, hi = 0.0, cap
        mean = float(r.mean())
        var = float(r.var(ddof=1))
        lcb = mean_lcb(mean, var, n, lo, hi, a)
        ucb = mean_ucb(mean, var, n, lo, hi, a) if cap is None else None
        out.append((state, law, mean, lcb, ucb))
        if progress is not None:
            progress.update(1)
    rejected = [o for o in out if o[3] > 1.0]
    worst = max(out, key=lambda o: o[3])
    verdict = "fail" if rejected else "pass"
    return OneStepReport(process.key, process.citation, f"monte-carlo (n={n}, alpha={alpha:g})", verdict,
                         _state_text(worst[0], worst[1]), 1.0 - worst[3], len(out), 0, 0,
                         [{"state": _state_text(s, l), "mean": m, "lcb": lc, "ucb": uc} for s, l, m, lc, uc in out],
                         process.negative_control)


def _mc_generator(backend, seed: int, idx: int, key: str):
    from .rng import stream_tag

    if backend.name == "cupy":
        import cupy

        ss = __import__("numpy").random.SeedSequence(int(seed), spawn_key=(stream_tag(key), idx))
        return cupy.random.RandomState(int(ss.generate_state(1, dtype="uint64")[0] % (2 ** 63)))
    import numpy as np

    return np.random.Generator(np.random.PCG64DXSM(np.random.SeedSequence(int(seed), spawn_key=(stream_tag(key), idx))))


def x0_exact(process: Process, grid=None) -> tuple[bool, str]:
    """X_0 <= 1, decided exactly at every grid state: each process starts at M_0 = 0, V_0 = 0 (empty sums).

    X_0 = sqrt(A0) exp(B0) with rationals: exp-type processes exp(lam 0 - lam^2 0/2) = (1, 0);
    the mixture sqrt(rho/(V_0 + rho)) exp(M_0^2/(2 (V_0 + rho))) = (rho/rho, 0) for each grid rho.
    Decided by :func:`~reference.precision.compare_exp_rational` (``exp(2 B0) <= 1/A0``).
    """
    grid = default_grid(process, quick=False) if grid is None else grid
    M0 = V0 = F(0)
    if process.key == "whitehouse_mixture":
        pairs = {(st["rho"] / (V0 + st["rho"]), M0 * M0 / (2 * (V0 + st["rho"]))) for st, _ in grid}
        text = "sqrt(rho/(0+rho)) exp(0/(2 rho)) = 1"
    else:
        pairs = {(F(1), F(0))}
        text = "exp(0) = 1"
    ok = all(compare_exp_rational(2 * b0, 1 / a0) <= 0 for a0, b0 in pairs)
    return ok, text
