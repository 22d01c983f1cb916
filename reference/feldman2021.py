"""Feldman and Zrnic, *Individual Privacy Accounting via a Renyi Filter* (paper key ``feldman2021``).

Seed: ``002_485f6b48c71ae221.txt`` (arXiv 2008.11193; the seed's formulas are
stripped and its text stops inside Section 4.1).  Numbering follows the seed:
Definitions 2.2-2.6, Examples 2.7-2.8, Proposition 2.9, Theorem 3.1,
Corollary 3.2, Definition 4.1, Algorithm 2, Theorem 4.3, Remark 4.4,
Algorithm 3, Theorem 4.5 and (named in the seed's introduction, text not in the
seed) Theorem 4.7.  Where a formula is stripped, it was reconstructed from the
seed's prose and proofs; each entry's ``provenance`` / ``note`` says how.
(Later arXiv versions renumber: v4 has Remark 3.2 for Corollary 3.2 and puts the
approximate-DP filter in Section 4.3.)

Contents
--------
* Section 2: the Renyi divergence of discrete distributions, exact (integer
  order: an exact rational moment) or interval-certified (rational order); its
  symmetric form D^<->; RDP and zCDP (Definitions 2.2-2.3) and individual RDP
  (Definitions 2.5-2.6) as checkable predicates over finite families of
  datasets; Examples 2.7-2.8; Proposition 2.9.  Fact 2.4 lives in
  :mod:`reference.classical` (``rdp_to_dp_eps``), reused here.
* Section 3: Theorem 3.1 and Corollary 3.2 in checkable form: exact
  enumeration of adaptive compositions of discrete mechanisms (small trees of
  randomized responses with adaptively chosen parameters), the exact Renyi
  moment of the joint transcript compared with the almost-sure bound.
* Section 4: :class:`RenyiFilter` (Definition 4.1, Algorithm 2, Theorem 4.3),
  :class:`RenyiZCDPFilter` (Remark 4.4), :class:`RenyiDPFilter` (the
  approximate-DP filter obtained from the Renyi filter, re-derived), and an
  exact checker of Algorithm 3 / Theorem 4.5 on small discrete instances.  The
  NumPy demo of Algorithm 3 (noisy gradient descent) is :mod:`reference.individual`.

Exactness
---------
For an integer order alpha the Renyi moment ``M_alpha(P||Q) = sum_x P(x)^alpha
Q(x)^(1-alpha)`` of rational distributions is rational, and ``D_alpha <= B``
is ``M_alpha <= exp((alpha-1) B)``, decided exactly by
:func:`reference.precision.compare_exp_rational`.  Sums of per-step Renyi
parameters along a path become *products* of rational moments, so Theorem 3.1
is checked with no rounding at all.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass
from fractions import Fraction
from typing import Callable, Iterable, Optional, Sequence

import mpmath

from .catalog import PAPERS, Param, register
from .classical import gaussian_rdp, rdp_to_dp_eps
from .filters import BudgetExceeded, _Accountant, _in
from .precision import (
    DEFAULT_DPS,
    INF,
    Domain,
    digits_of_inverse,
    last_true,
    certified,
    check,
    check_seq,
    compare_exp_rational,
    directed_decimal,
    mpf_to_fraction,
    sign_of,
)

__all__ = [
    "renyi_moment",
    "renyi_divergence",
    "renyi_divergence_lower",
    "renyi_divergence_sym",
    "divergence_at_most",
    "removal_pairs",
    "is_rdp",
    "is_zcdp_on_grid",
    "per_instance_rdp",
    "individual_rdp",
    "is_individual_rdp",
    "linear_query_individual_rdp",
    "linear_query_individual_rdp_closed_form",
    "lipschitz_individual_rdp",
    "prop2_9_threshold",
    "prop2_9_worst_case_queries",
    "prop2_9_accuracy",
    "prop2_9_active_sets",
    "randomized_response",
    "CompositionCheck",
    "check_adaptive_composition",
    "check_corollary_3_2",
    "check_individual_filter",
    "renyi_filter_stop_index",
    "renyi_filter_rounds",
    "zcdp_filter_dp_eps",
    "zcdp_best_alpha",
    "dp_filter_rho_budget",
    "dp_filter_admits",
    "dp_filter_rounds_homogeneous",
    "RenyiFilter",
    "RenyiZCDPFilter",
    "RenyiDPFilter",
    "BudgetExceeded",
]

KEY = "feldman2021"
P_ = Domain.positive()
NN = Domain.nonnegative()
U = Domain.open_unit()
CU = Domain.closed_unit()
ALPHA = Domain.interval(1, None)  # alpha > 1

_alpha = Param("alpha", ALPHA, default="2", doc="Renyi order alpha > 1")
_sigma = Param("sigma", P_, default="1", doc="Gaussian noise standard deviation sigma > 0")
_B = Param("B", P_, default="1", doc="Renyi budget B > 0")
_delta = Param("delta", U, default="1e-6", doc="target delta in (0, 1)")


def _cite(result: str) -> dict:
    p = PAPERS[KEY]
    return {"paper": f"{p['authors']}, {p['title']}", "paper_key": KEY, "arxiv": p["arxiv"],
            "source": f"{p['seed']} ({p['version']})", "result": result}


def _dec(q, direction: str = "exact", digits: int = 12) -> str:
    return directed_decimal(q, digits, direction)


# ==========================================================================
# Section 2: Renyi divergence of discrete distributions
# ==========================================================================

def _dist(name: str, P) -> tuple[Fraction, ...]:
    """Parse a probability vector exactly: entries in [0, 1] summing to exactly 1."""
    ps = check_seq(name, P, CU)
    s = sum(ps, Fraction(0))
    if s != 1:
        raise ValueError(f"{name} must be a probability vector summing to exactly 1, found sum {s}")
    return ps


def _pair(P, Q) -> tuple[tuple[Fraction, ...], tuple[Fraction, ...]]:
    ps, qs = _dist("P", P), _dist("Q", Q)
    if len(ps) != len(qs):
        raise ValueError(f"Q must have the same length as P ({len(ps)}), found length {len(qs)}")
    return ps, qs


def _is_int(a: Fraction) -> bool:
    return a.denominator == 1


def _moment_exact(ps, qs, a: int) -> Fraction | None:
    """sum P^a Q^(1-a) for integer a >= 2; ``None`` means +inf (P not << Q)."""
    m = Fraction(0)
    for p, q in zip(ps, qs):
        if p == 0:
            continue
        if q == 0:
            return None
        m += p ** a / q ** (a - 1)
    return m


def renyi_moment(P, Q, alpha) -> Fraction | None:
    """feldman2021 Section 2 (Renyi divergence): the exact moment ``sum_x P(x)^alpha Q(x)^(1-alpha)`` for integer alpha >= 2.

    Contract: ``D_alpha(P||Q) = log(moment)/(alpha - 1)``.  Returns a ``Fraction``,
    or ``None`` when P is not absolutely continuous w.r.t. Q (divergence +inf).
    Preconditions: P, Q probability vectors of the same length (exact sums 1);
    alpha an integer >= 2.  Rounding: none (exact rational).
    """
    ps, qs = _pair(P, Q)
    a = check("alpha", alpha, Domain.integers_from(2))
    return _moment_exact(ps, qs, int(a))


def _moment_formula(a: Fraction, ps, qs):
    """Interval formula for the moment with a rational (non-integer) order."""
    idx = [i for i, p in enumerate(ps) if p != 0]

    def f(c, aa, *vals):
        n = len(idx)
        tot = c.mpf(0)
        for k in range(n):
            p, q = vals[k], vals[n + k]
            tot += c.exp(aa * c.log(p) + (1 - aa) * c.log(q))
        return tot

    return f, (a, *[ps[i] for i in idx], *[qs[i] for i in idx])


def _renyi(ps, qs, a: Fraction, direction: str, dps: int) -> mpmath.mpf:
    if any(p > 0 and q == 0 for p, q in zip(ps, qs)):
        return INF
    if ps == qs:
        return mpmath.mpf(0)
    if _is_int(a):
        m = _moment_exact(ps, qs, int(a))
        return certified(lambda c, m, a: c.log(m) / (a - 1), (m, a), direction, dps)
    f, args = _moment_formula(a, ps, qs)
    return certified(lambda c, aa, *v: c.log(f(c, aa, *v)) / (aa - 1), args, direction, dps)


_P_param = Param("P", CU, kind="sequence", default="3/4,1/4", doc="probability vector P (exact entries summing to 1)")
_Q_param = Param("Q", CU, kind="sequence", default="1/4,3/4", doc="probability vector Q (same length as P)")


@register("feldman2021_sec2_renyi_divergence", paper=KEY, result="Renyi divergence (Section 2, display before Definition 2.2)",
          direction="upper", summary="D_alpha(P||Q) = log(sum_x P(x)^alpha Q(x)^(1-alpha))/(alpha - 1) of discrete distributions",
          params=(_P_param, _Q_param, _alpha), provenance="published statement",
          note="Standard definition (Renyi 1961; Mironov 2017 Def. 3), stripped from the seed, which names it before Definition 2.2. "
               "Integer alpha: exact rational moment, one certified log; rational alpha: interval sum. +inf if P is not << Q.")
def renyi_divergence(P, Q, alpha, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """feldman2021 Section 2: the Renyi divergence ``D_alpha(P||Q)`` of two discrete distributions, rounded UP.

    Contract: returns ``log(sum_x P(x)^alpha Q(x)^(1-alpha))/(alpha - 1)``; ``inf`` if some
    x has P(x) > 0 = Q(x).
    Preconditions: P, Q probability vectors (sequences of exact values in [0, 1] summing to
    exactly 1, same length); alpha > 1 rational.  ``ValueError`` names the parameter.
    Rounding: up (interval-certified; for integer alpha the moment is an exact rational).
    Guarantee: a valid upper bound on the divergence.

    >>> renyi_divergence(["1/2", "1/2"], ["1/2", "1/2"], 2)
    mpf('0.0')
    """
    ps, qs = _pair(P, Q)
    a = check("alpha", alpha, ALPHA)
    return _renyi(ps, qs, a, "upper", dps)


def renyi_divergence_lower(P, Q, alpha, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """feldman2021 Section 2: the Renyi divergence ``D_alpha(P||Q)`` rounded DOWN (same contract as :func:`renyi_divergence`)."""
    ps, qs = _pair(P, Q)
    a = check("alpha", alpha, ALPHA)
    return _renyi(ps, qs, a, "lower", dps)


@register("feldman2021_sec2_renyi_divergence_sym", paper=KEY, result="D^<-> (Section 2, before Definition 2.2)",
          direction="upper", summary="max(D_alpha(P||Q), D_alpha(Q||P)): the two-direction Renyi divergence used in Definition 2.2",
          params=(_P_param, _Q_param, _alpha), provenance="re-derived from the described proof",
          note="The seed's prose: 'shorthand notation for the maximum of the two directions of Renyi divergence' (formula stripped).")
def renyi_divergence_sym(P, Q, alpha, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """feldman2021 Section 2: ``D^<->_alpha(P||Q) = max(D_alpha(P||Q), D_alpha(Q||P))``, rounded UP.

    Preconditions and rounding as :func:`renyi_divergence`.
    """
    ps, qs = _pair(P, Q)
    a = check("alpha", alpha, ALPHA)
    return max(_renyi(ps, qs, a, "upper", dps), _renyi(qs, ps, a, "upper", dps))


def _divergence_at_most(ps, qs, a: Fraction, bound: Fraction) -> bool:
    """Exact decision ``D_alpha(P||Q) <= bound`` on parsed inputs."""
    if any(p > 0 and q == 0 for p, q in zip(ps, qs)):
        return False
    if ps == qs:
        return bound >= 0
    if bound < 0:
        return False
    if _is_int(a):
        m = _moment_exact(ps, qs, int(a))
        return compare_exp_rational((a - 1) * bound, m) >= 0
    f, args = _moment_formula(a, ps, qs)
    # sign of (alpha - 1) bound - log(moment); an exact tie (a transcendental coincidence)
    # would raise ArithmeticError instead of guessing.
    return sign_of(lambda c, bb, aa, *v: (aa - 1) * bb - c.log(f(c, aa, *v)), (bound, *args)) >= 0


def divergence_at_most(P, Q, alpha, bound) -> bool:
    """feldman2021 Section 2: exact decision of ``D_alpha(P||Q) <= bound``.

    Preconditions: probability vectors P, Q; alpha > 1; bound real (parsed exactly).
    Rounding: none.  Integer alpha: ``moment <= exp((alpha-1) bound)`` decided exactly by
    :func:`reference.precision.compare_exp_rational`.  Non-integer alpha: decided by
    interval refinement; raises ``ArithmeticError`` only in the event of an exact tie
    between two transcendental numbers, never guesses.
    """
    ps, qs = _pair(P, Q)
    a = check("alpha", alpha, ALPHA)
    b = check("bound", bound, Domain())
    return _divergence_at_most(ps, qs, a, b)


# ==========================================================================
# Definitions 2.2, 2.3, 2.5, 2.6 as predicates over finite families
# ==========================================================================

Mechanism = Callable[[tuple], Sequence]  # dataset (tuple) -> output probability vector


def removal_pairs(datasets: Iterable[tuple]) -> list[tuple[tuple, tuple, int]]:
    """feldman2021 Definition 2.2 (neighbouring datasets): every ``(S, S^{-i}, i)`` for S in ``datasets`` and each index i.

    ``S^{-i}`` is S with its i-th element removed (the paper's removal neighbours; the seed,
    Section 2: 'the analyzed dataset after removing point i').
    """
    out = []
    for S in datasets:
        S = tuple(S)
        for i in range(len(S)):
            out.append((S, S[:i] + S[i + 1:], i))
    return out


def _sym_at_most(M: Mechanism, S, T, a: Fraction, eps: Fraction) -> bool:
    ps, qs = _pair(M(S), M(T))
    return _divergence_at_most(ps, qs, a, eps) and _divergence_at_most(qs, ps, a, eps)


def is_rdp(mechanism: Mechanism, datasets: Iterable[tuple], alpha, eps) -> bool:
    """feldman2021 Definition 2.2: True iff ``D^<->_alpha(M(S)||M(S^{-i})) <= eps`` for every S in ``datasets`` and every i.

    Contract: an exact check of (alpha, eps)-RDP restricted to the given finite family of
    datasets (tuples) and their removal neighbours.  ``mechanism(S)`` must return the exact
    output distribution (probability vector over a fixed finite output set).
    Rounding: none (exact decisions, see :func:`divergence_at_most`).
    """
    a = check("alpha", alpha, ALPHA)
    e = check("eps", eps, NN)
    return all(_sym_at_most(mechanism, S, T, a, e) for S, T, _ in removal_pairs(datasets))


def is_zcdp_on_grid(mechanism: Mechanism, datasets: Iterable[tuple], rho, alphas) -> bool:
    """feldman2021 Definition 2.3 on a grid: True iff (alpha, alpha rho)-RDP holds for every alpha in ``alphas``.

    Contract: rho-zCDP means (alpha, alpha rho)-RDP for *all* alpha > 1; a finite grid can
    refute zCDP (False is a proof of violation) but True only certifies the listed orders.
    Rounding: none (exact decisions).
    """
    r = check("rho", rho, NN)
    als = check_seq("alphas", alphas, ALPHA)
    ds = [tuple(S) for S in datasets]
    return all(is_rdp(mechanism, ds, a, a * r) for a in als)


def per_instance_rdp(mechanism: Mechanism, S: tuple, i: int, alpha, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """feldman2021 Definition 2.6: the per-instance individual RDP ``D^<->_alpha(M(S)||M(S^{-i}))`` of point i of the fixed S, rounded UP."""
    a = check("alpha", alpha, ALPHA)
    S = tuple(S)
    if not isinstance(i, int) or isinstance(i, bool) or not 0 <= i < len(S):
        raise ValueError(f"i must be an index of S in [0, {len(S) - 1}], found {i!r}")
    ps, qs = _pair(mechanism(S), mechanism(S[:i] + S[i + 1:]))
    return max(_renyi(ps, qs, a, "upper", dps), _renyi(qs, ps, a, "upper", dps))


def individual_rdp(mechanism: Mechanism, datasets: Iterable[tuple], x, alpha, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """feldman2021 Definition 2.5: ``sup D^<->_alpha(M(S)||M(S^{-i}))`` over S in ``datasets`` with ``S[i] == x``, rounded UP.

    Contract: the smallest eps such that M is (alpha, eps)-individual RDP for the data point
    x, the supremum restricted to the finite family ``datasets``.  Returns 0 if x occurs in
    none of them.  Rounding: each divergence rounded up, then the max (still an upper bound).
    """
    a = check("alpha", alpha, ALPHA)
    best = mpmath.mpf(0)
    for S, T, i in removal_pairs(datasets):
        if S[i] != x:
            continue
        ps, qs = _pair(mechanism(S), mechanism(T))
        best = max(best, _renyi(ps, qs, a, "upper", dps), _renyi(qs, ps, a, "upper", dps))
    return best


def is_individual_rdp(mechanism: Mechanism, datasets: Iterable[tuple], x, alpha, eps) -> bool:
    """feldman2021 Definition 2.5: exact check that M is (alpha, eps)-individual RDP for x over the finite family ``datasets``."""
    a = check("alpha", alpha, ALPHA)
    e = check("eps", eps, NN)
    return all(_sym_at_most(mechanism, S, T, a, e) for S, T, i in removal_pairs(datasets) if S[i] == x)


# ==========================================================================
# Examples 2.7 and 2.8
# ==========================================================================

@register("feldman2021_ex2_7_individual_rdp", paper=KEY, result="Example 2.7", direction="exact",
          summary="Gaussian linear query sum_i phi(X_i) + N(0, sigma^2 I_d): individual RDP alpha ||phi(X_i)||_2^2 / (2 sigma^2)",
          params=(_alpha, _sigma, Param("phi_norm", NN, default="1", doc="||phi(X_i)||_2 >= 0 of the point's query value")),
          provenance="re-derived from the described proof",
          note="Formula stripped in the seed (the published text could not be read here). Re-derived: removing X_i shifts the "
               "Gaussian mean by phi(X_i), and D_alpha(N(0,s^2 I)||N(v,s^2 I)) = alpha||v||^2/(2s^2) in both directions (Mironov 2017 "
               "Prop. 7); agrees with third-party implementations citing arXiv 2008.11193 (PySyft: alpha L^2 ||x||^2/(2 sigma^2) with "
               "L = 1 for linear queries). Tested against mpmath.quad.")
def linear_query_individual_rdp_closed_form(alpha, sigma, phi_norm, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """feldman2021 Example 2.7: individual RDP ``alpha ||phi(X_i)||^2 / (2 sigma^2)`` of the Gaussian linear query.

    Contract: A(S) = sum_{X in S} phi(X) + Z, Z ~ N(0, sigma^2 I_d), is (alpha, value)-individual
    RDP for X_i (Definition 2.5 and, with the same value, Definition 2.6); the value is the
    exact two-direction divergence, so it is also tight.
    Preconditions: alpha > 1, sigma > 0, phi_norm >= 0.  Rounding: to nearest (exact rational).
    """
    a = check("alpha", alpha, ALPHA)
    s = check("sigma", sigma, P_)
    v = check("phi_norm", phi_norm, NN)
    return gaussian_rdp(a, s, v, dps=dps)


def linear_query_individual_rdp(alpha, sigma, phi_values) -> list[Fraction]:
    """feldman2021 Example 2.7 for many points: exact ``alpha ||phi(X_i)||^2/(2 sigma^2)`` for each row of ``phi_values``.

    ``phi_values``: a sequence of per-point vectors (each a sequence of reals, parsed exactly,
    floats as their binary value) or of scalars.  Returns exact ``Fraction`` values.
    """
    a = check("alpha", alpha, ALPHA)
    s = check("sigma", sigma, P_)
    out = []
    for i, row in enumerate(phi_values):
        if isinstance(row, (str, int, float, Fraction, mpmath.mpf)) and not isinstance(row, bool):
            row = [row]
        vec = check_seq(f"phi_values[{i}]", list(row), Domain())
        out.append(a * sum((x * x for x in vec), Fraction(0)) / (2 * s * s))
    return out


@register("feldman2021_ex2_8_individual_rdp", paper=KEY, result="Example 2.8", direction="upper",
          summary="Lipschitz analysis f(S) + N(0, sigma^2 I_d), f L-Lipschitz in coordinate i: individual RDP <= alpha L^2 ||X_i||^2 / (2 sigma^2)",
          params=(_alpha, _sigma, Param("lipschitz", NN, default="1", doc="Lipschitz constant L_i of f in coordinate i (l2 norms)"),
                  Param("x_norm", NN, default="1", doc="||X_i - x0||_2 (x0: the origin used to replace a removed point)")),
          provenance="re-derived from the described proof",
          note="Formula stripped in the seed; the prose survives: f L-Lipschitz in coordinate i, a removed X_i replaced by a point x0 "
               "that is the origin. Re-derived: f moves by at most L ||X_i - x0|| in l2, so the Gaussian divergence is at most "
               "alpha L^2 ||X_i||^2/(2 sigma^2); the same form is used by the PySyft implementation citing arXiv 2008.11193 "
               "(epsilon_spent = alpha L^2 ||x||^2/(2 sigma^2)). An upper bound.")
def lipschitz_individual_rdp(alpha, sigma, lipschitz, x_norm, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """feldman2021 Example 2.8: the individual RDP bound ``alpha L^2 ||X_i||^2 / (2 sigma^2)`` of a Lipschitz analysis, rounded UP.

    Contract: if f is L-Lipschitz in its i-th argument (l2) and a removed point is replaced by
    the origin x0 (f(S^{-i}) := f(S with X_i := x0)), then A(S) = f(S) + N(0, sigma^2 I) is
    (alpha, value)-individual RDP for X_i, with ``x_norm = ||X_i - x0||``.  For noisy gradient
    descent, ``lipschitz * x_norm`` is replaced by the (clipped) per-example gradient norm.
    Preconditions: alpha > 1, sigma > 0, lipschitz >= 0, x_norm >= 0.  Rounding: up.
    """
    a = check("alpha", alpha, ALPHA)
    s = check("sigma", sigma, P_)
    L = check("lipschitz", lipschitz, NN)
    x = check("x_norm", x_norm, NN)
    return certified(lambda c, v: v, (a * L * L * x * x / (2 * s * s),), "upper", dps)


# ==========================================================================
# Proposition 2.9 (warm-up: non-adaptive individual accounting)
# ==========================================================================

@register("feldman2021_prop2_9_threshold", paper=KEY, result="Proposition 2.9", direction="exact",
          summary="Active-set threshold 2 sigma^2 B / alpha on sum_{j<=t} q_j(X_i)^2 for (alpha, B)-RDP Gaussian sums",
          params=(_alpha, _sigma, _B), provenance="re-derived from the described proof",
          note="Seed: the proof 'considers the l2-sensitivity of the entire output'. Point i stays active while "
               "alpha sum_j q_j(X_i)^2/(2 sigma^2) <= B, i.e. sum_j q_j(X_i)^2 <= 2 sigma^2 B/alpha.")
def prop2_9_threshold(alpha, sigma, B, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """feldman2021 Proposition 2.9: the threshold ``2 sigma^2 B / alpha`` on a point's running sum of squared query values.

    Preconditions: alpha > 1, sigma > 0, B > 0.  Rounding: to nearest (exact rational).
    """
    a = check("alpha", alpha, ALPHA)
    s = check("sigma", sigma, P_)
    b = check("B", B, P_)
    return certified(lambda c, v: v, (2 * s * s * b / a,), "exact", dps)


@register("feldman2021_prop2_9_worst_case_queries", paper=KEY, result="Proposition 2.9 (classical count)", direction="exact",
          returns="int",
          summary="Queries the worst-case analysis answers: floor(2 sigma^2 B / (alpha c^2)) for |q_t| <= c",
          params=(_alpha, _sigma, _B, Param("bound", P_, default="1", doc="bound c on |q_t(x)| (or on a clipped norm)")),
          provenance="re-derived from the described proof",
          note="Seed Section 2.2: classical analyses 'would suggest answering at most [stripped] queries'; each costs "
               "alpha c^2/(2 sigma^2) in the worst case, and all points are active for at least this many steps.")
def prop2_9_worst_case_queries(alpha, sigma, B, bound=1) -> int:
    """feldman2021 Proposition 2.9: ``floor(2 sigma^2 B / (alpha c^2))``, the rounds every point is guaranteed to stay active.

    Preconditions: alpha > 1, sigma > 0, B > 0, bound c > 0.  Exact integer.
    """
    a = check("alpha", alpha, ALPHA)
    s = check("sigma", sigma, P_)
    b = check("B", B, P_)
    c = check("bound", bound, P_)
    v = 2 * s * s * b / (a * c * c)
    return v.numerator // v.denominator


@register("feldman2021_prop2_9_accuracy", paper=KEY, result="Proposition 2.9 (accuracy)", direction="upper",
          summary="|a_t - sum_i q_t(X_i)| <= m + sigma sqrt(2 log(2/beta)) w.p. >= 1 - beta when m points are inactive at t",
          params=(_sigma, Param("beta", U, default="0.05", doc="failure probability beta in (0, 1)"),
                  Param("n_inactive", Domain.integers_from(0), kind="integer", default="0", doc="number m of inactive points at time t")),
          provenance="re-derived from the described proof",
          note="The seed's accuracy clause is stripped ('for all [..] such that [..], it holds that [..] with probability at least [..]'). "
               "Re-derived: each inactive point changes the sum by at most |q_t| <= 1 and P(|N(0,sigma^2)| > sigma t) <= 2 exp(-t^2/2). "
               "The published condition/constant were not verified.")
def prop2_9_accuracy(sigma, beta, n_inactive=0, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """feldman2021 Proposition 2.9 (accuracy, re-derived): ``m + sigma sqrt(2 log(2/beta))``, rounded UP.

    Contract: with probability >= 1 - beta, ``|a_t - sum_{i} q_t(X_i)| <= value`` when m points
    are inactive at time t and |q_t| <= 1.
    Preconditions: sigma > 0, beta in (0, 1), m >= 0 integer.  Rounding: up.
    """
    s = check("sigma", sigma, P_)
    b = check("beta", beta, U)
    m = check("n_inactive", n_inactive, Domain.integers_from(0))
    return certified(lambda c, s, b, m: m + s * c.sqrt(2 * c.log(2 / b)), (s, b, m), "upper", dps)


def prop2_9_active_sets(q_values, alpha, sigma, B) -> list[frozenset]:
    """feldman2021 Proposition 2.9: the active sets ``S_t = {i: sum_{j<=t} q_j(X_i)^2 <= 2 sigma^2 B/alpha}``, exactly.

    ``q_values[t][i]`` is q_{t+1}(X_i) (parsed exactly; |q| <= 1 is the Proposition's setting,
    not required here).  The reports are ``a_t = sum_{i in S_t} q_t(X_i) + N(0, sigma^2)``; the
    vector (a_1..a_k) has l2-sensitivity to X_i equal to ``sqrt(sum_{t: i in S_t} q_t(X_i)^2)``
    <= ``sqrt(2 sigma^2 B/alpha)``, hence (alpha, B)-RDP.  S_t is monotone decreasing in t.
    """
    a = check("alpha", alpha, ALPHA)
    s = check("sigma", sigma, P_)
    b = check("B", B, P_)
    K = 2 * s * s * b / a
    rows = [check_seq(f"q_values[{t}]", row, Domain()) for t, row in enumerate(q_values)]
    if not rows:
        return []
    n = len(rows[0])
    cum = [Fraction(0)] * n
    out = []
    for t, row in enumerate(rows):
        if len(row) != n:
            raise ValueError(f"q_values[{t}] must have length {n}, found {len(row)}")
        cum = [c + q * q for c, q in zip(cum, row)]
        out.append(frozenset(i for i in range(n) if cum[i] <= K))
    return out


# ==========================================================================
# Section 3: Theorem 3.1 and Corollary 3.2, checkable form
# ==========================================================================

def randomized_response(p) -> tuple[tuple[Fraction, Fraction], tuple[Fraction, Fraction]]:
    """feldman2021 Theorem 3.1 test mechanism: randomized response with truth probability p, as the pair (law given bit 1, law given bit 0).

    Returns ``((p, 1-p), (1-p, p))`` exactly; its privacy parameter is eps = log(p/(1-p)).
    Precondition: p in (0, 1).
    """
    q = check("p", p, U)
    return (q, 1 - q), (1 - q, q)


Step = tuple  # (P_t, Q_t): the conditional output laws of step t under the two inputs
Strategy = Callable[[tuple], Optional[Step]]


@dataclass(frozen=True)
class CompositionCheck:
    """feldman2021 Theorem 3.1 / Theorem 4.3: exact quantities of an adaptive composition of discrete mechanisms.

    All values are exact ``Fraction`` (integer alpha):

    * ``moment_pq`` = sum over transcripts of P^alpha Q^(1-alpha) (joint laws of the whole
      transcript under the two inputs), so ``D_alpha(P||Q) = log(moment_pq)/(alpha-1)``;
      ``moment_qp`` the reverse direction;
    * ``bound_moment`` = max over transcripts of prod_t s_t, where
      ``s_t = max(M_alpha(P_t||Q_t), M_alpha(Q_t||P_t)) = exp((alpha-1) rho_t)``: this is
      ``exp((alpha-1) B*)`` with ``B*`` the smallest almost-sure bound on ``sum_t rho_t``
      (the hypothesis of Theorem 3.1);
    * ``supermartingale_pq`` = E_Q[(P/Q)^alpha prod_t s_t^{-1}] = the proof's supermartingale
      at the end (<= 1 by the proof), ``supermartingale_qp`` the reverse;
    * ``paths``: number of transcripts; ``max_len``: longest transcript;
    * ``min_path_moment`` = min over transcripts of prod_t s_t (for negative controls: a
      bound that holds on *some* path only is not enough).

    ``holds`` is the conclusion of Theorem 3.1 with B = B*: both moments <= bound_moment.
    """

    alpha: int
    moment_pq: Fraction
    moment_qp: Fraction
    bound_moment: Fraction
    supermartingale_pq: Fraction
    supermartingale_qp: Fraction
    paths: int
    max_len: int
    min_path_moment: Fraction

    @property
    def holds(self) -> bool:
        return self.moment_pq <= self.bound_moment and self.moment_qp <= self.bound_moment

    def holds_for_budget(self, B) -> bool:
        """Exact check of the conclusion ``D^<->_alpha(joint) <= B`` for a rational budget B."""
        b = check("B", B, NN)
        q = (self.alpha - 1) * b
        return all(compare_exp_rational(q, m) >= 0 for m in (self.moment_pq, self.moment_qp))

    def divergence(self, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
        """``D^<->_alpha`` of the joint transcript laws, rounded UP."""
        m = max(self.moment_pq, self.moment_qp)
        return certified(lambda c, m, a: c.log(m) / (a - 1), (m, Fraction(self.alpha)), "upper", dps)

    def divergence_lower(self, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
        """``D^<->_alpha`` of the joint transcript laws, rounded DOWN."""
        m = max(self.moment_pq, self.moment_qp)
        return certified(lambda c, m, a: c.log(m) / (a - 1), (m, Fraction(self.alpha)), "lower", dps)

    def path_bound(self, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
        """``B* = max over transcripts of sum_t rho_t`` (the almost-sure bound), rounded DOWN."""
        return certified(lambda c, m, a: c.log(m) / (a - 1), (self.bound_moment, Fraction(self.alpha)), "lower", dps)


def _step_moment(ps, qs, a: int) -> Fraction:
    m1, m2 = _moment_exact(ps, qs, a), _moment_exact(qs, ps, a)
    return max(m1, m2)


def _rho_upper(s: Fraction, a: int) -> Fraction:
    """A rational upper bound on rho = log(s)/(a-1) (certified, 40 digits)."""
    if s == 1:
        return Fraction(0)
    return mpf_to_fraction(certified(lambda c, s, a: c.log(s) / (a - 1), (s, Fraction(a)), "upper", 40))


def _parse_step(step, where: str) -> tuple:
    if not isinstance(step, (tuple, list)) or len(step) != 2:
        raise ValueError(f"{where} must be a pair (P_t, Q_t) of probability vectors, found {step!r}")
    ps, qs = _dist(f"{where}.P", step[0]), _dist(f"{where}.Q", step[1])
    if len(ps) != len(qs):
        raise ValueError(f"{where}.Q must have the length of {where}.P ({len(ps)}), found {len(qs)}")
    if any((p == 0) != (q == 0) for p, q in zip(ps, qs)):
        raise ValueError(f"{where}: P_t and Q_t must have the same support (mutually absolutely continuous)")
    return ps, qs


def check_adaptive_composition(strategy: Strategy, alpha, horizon: int, *, rdp_filter: "RenyiFilter | None" = None) -> CompositionCheck:
    """feldman2021 Theorem 3.1 (and Theorem 4.3 with ``rdp_filter``): exact Renyi moments of an adaptive composition.

    Contract: ``strategy(history)`` receives the tuple of earlier outputs (indices) and
    returns the next step as a pair ``(P_t, Q_t)`` of exact conditional output laws under
    the two inputs (e.g. :func:`randomized_response` with a p chosen from the history), or
    ``None`` to stop.  The parameter rho_t = D^<->_alpha(P_t||Q_t) is thus predictable, as in
    eq. (1).  Every transcript of length <= ``horizon`` is enumerated (cost: the tree size).

    With ``rdp_filter`` (a :class:`RenyiFilter` with the same alpha), Algorithm 2 is run along
    every path: a rational upper bound of rho_t (certified) is offered to the filter's rule
    with the path's running sum, and the path stops at the first refusal.  Theorem 4.3 then
    claims ``result.holds_for_budget(rdp_filter.B)``.

    Preconditions: alpha an integer >= 2 (exact rational moments); horizon >= 0; each step's
    P_t, Q_t probability vectors with the same support.  Rounding: none.
    """
    a = int(check("alpha", alpha, Domain.integers_from(2)))
    if isinstance(horizon, bool) or not isinstance(horizon, int) or horizon < 0:
        raise ValueError(f"horizon must be an int >= 0, found {horizon!r}")
    if rdp_filter is not None and rdp_filter.alpha != a:
        raise ValueError(f"rdp_filter.alpha must equal alpha = {a}, found {rdp_filter.alpha}")
    tot_pq = Fraction(0)
    tot_qp = Fraction(0)
    sm_pq = Fraction(0)
    sm_qp = Fraction(0)
    bound = Fraction(0)
    low = None
    npaths = 0
    maxlen = 0
    # stack of (history, P(hist), Q(hist), prod s_t, filter spent)
    stack = [((), Fraction(1), Fraction(1), Fraction(1), Fraction(0))]
    while stack:
        h, p, q, prod, spent = stack.pop()
        step = strategy(h) if len(h) < horizon else None
        if step is not None:
            ps, qs = _parse_step(step, f"strategy({h!r})")
            s = _step_moment(ps, qs, a)
            if rdp_filter is not None:
                r = _rho_upper(s, a)
                if not rdp_filter._admits(spent, r):
                    step = None
                else:
                    spent = spent + r
        if step is None:
            npaths += 1
            maxlen = max(maxlen, len(h))
            tot_pq += p ** a / q ** (a - 1)
            tot_qp += q ** a / p ** (a - 1)
            sm_pq += p ** a / q ** (a - 1) / prod
            sm_qp += q ** a / p ** (a - 1) / prod
            bound = max(bound, prod)
            low = prod if low is None else min(low, prod)
            continue
        for y, (py, qy) in enumerate(zip(ps, qs)):
            if py == 0:
                continue
            stack.append((h + (y,), p * py, q * qy, prod * s, spent))
    return CompositionCheck(a, tot_pq, tot_qp, bound, sm_pq, sm_qp, npaths, maxlen, low)


# --------------------------------------------------------------------------
# Corollary 3.2 and Theorem 4.5 on small discrete instances
# --------------------------------------------------------------------------

IndividualMechanism = Callable[[tuple, tuple], Sequence]  # (history, dataset) -> output law


def _subsets(universe: Sequence, max_size: int) -> list[tuple]:
    out = []
    for k in range(0, max_size + 1):
        out.extend(itertools.combinations(tuple(universe), k))
    return out


def _individual_moment(mech: IndividualMechanism, h: tuple, x, datasets: list[tuple], a: int) -> Fraction:
    """exp((alpha-1) rho_t^(x)(h)): eq. (2), the sup over datasets S containing x of the step's D^<->."""
    best = Fraction(1)
    for S in datasets:
        if x not in S:
            continue
        T = tuple(z for z in S if z != x)
        ps, qs = _parse_step((mech(h, S), mech(h, T)), f"mechanism({h!r}, {S!r})")
        best = max(best, _step_moment(ps, qs, a))
    return best


@dataclass(frozen=True)
class IndividualCheck:
    """feldman2021 Corollary 3.2 / Theorem 4.5: worst case over (S, x in S) of the exact joint-transcript moments.

    ``worst_moment`` = max over S in the family and x in S of
    ``max(M_alpha(A(S)||A(S\\x)), M_alpha(A(S\\x)||A(S)))`` (joint transcripts);
    ``bound_moment`` = max over the same (S, x) and transcripts (under S) of
    ``prod_t exp((alpha-1) rho_t^(x))`` (Corollary 3.2's hypothesis) or, for the filter,
    ``exp((alpha-1) B)`` is the target; ``active_steps`` maps x to the largest number of
    steps x was active on any path (filter only).
    """

    alpha: int
    worst_moment: Fraction
    bound_moment: Fraction
    worst_pair: tuple
    active_steps: dict

    @property
    def holds(self) -> bool:
        return self.worst_moment <= self.bound_moment

    def holds_for_budget(self, B) -> bool:
        """Exact check of ``D^<->_alpha(A(S)||A(S\\x)) <= B`` for all (S, x) of the family."""
        b = check("B", B, NN)
        return compare_exp_rational((self.alpha - 1) * b, self.worst_moment) >= 0

    def divergence(self, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
        """The worst joint ``D^<->_alpha`` over the family, rounded UP."""
        return certified(lambda c, m, a: c.log(m) / (a - 1), (self.worst_moment, Fraction(self.alpha)), "upper", dps)


def _transcripts(mech, datasets, S, a, horizon, active_rule, universe):
    """Enumerate transcripts under input S (and its law under S\\x for each x).

    ``active_rule(h, x, prod_x, s_x)`` decides whether x is active at the step (filter);
    ``None`` means every point is always active.  Yields per transcript: its probability
    under S, under each S\\x, and each x's product of individual moments while active.
    """
    # state: history, prob under S, {x: prob under S\x}, {x: prod}, {x: active count}
    others = {x: tuple(z for z in S if z != x) for x in S}
    stack = [((), Fraction(1), {x: Fraction(1) for x in S}, {x: Fraction(1) for x in universe}, {x: 0 for x in universe})]
    while stack:
        h, p, qx, prods, counts = stack.pop()
        if len(h) >= horizon:
            yield p, qx, prods, counts
            continue
        s_all = {x: _individual_moment(mech, h, x, datasets, a) for x in universe}
        if active_rule is None:
            active = set(universe)
        else:
            active = {x for x in universe if active_rule(prods[x], s_all[x])}
        act_S = tuple(z for z in S if z in active)
        law_S = _dist(f"mechanism({h!r}, active {act_S!r})", mech(h, act_S))
        laws_x = {}
        for x in S:
            act_T = tuple(z for z in others[x] if z in active)
            laws_x[x] = _dist(f"mechanism({h!r}, active {act_T!r})", mech(h, act_T))
        new_prods = {x: prods[x] * s_all[x] if x in active else prods[x] for x in universe}
        new_counts = {x: counts[x] + (1 if x in active else 0) for x in universe}
        for y, py in enumerate(law_S):
            if py == 0 and all(laws_x[x][y] == 0 for x in S):
                continue
            stack.append((h + (y,), p * py, {x: qx[x] * laws_x[x][y] for x in S}, new_prods, new_counts))


def _individual_check(mechanism, universe, max_size, alpha, horizon, active_rule) -> IndividualCheck:
    a = int(check("alpha", alpha, Domain.integers_from(2)))
    if isinstance(horizon, bool) or not isinstance(horizon, int) or horizon < 0:
        raise ValueError(f"horizon must be an int >= 0, found {horizon!r}")
    if isinstance(max_size, bool) or not isinstance(max_size, int) or max_size < 1:
        raise ValueError(f"max_size must be an int >= 1, found {max_size!r}")
    universe = tuple(universe)
    if len(set(universe)) != len(universe) or not universe:
        raise ValueError(f"universe must be a non-empty sequence of distinct points, found {universe!r}")
    datasets = _subsets(universe, max_size)
    worst, worst_pair = Fraction(1), None
    bound = Fraction(1)
    active_steps = {x: 0 for x in universe}
    for S in datasets:
        if not S:
            continue
        m_pq = {x: Fraction(0) for x in S}
        m_qp = {x: Fraction(0) for x in S}
        for p, qx, prods, counts in _transcripts(mechanism, datasets, S, a, horizon, active_rule, universe):
            for x in S:
                q = qx[x]
                if p == 0 or q == 0:
                    if p != q:
                        raise ValueError("the mechanism's laws on S and S\\x must have the same support")
                    continue
                m_pq[x] += p ** a / q ** (a - 1)
                m_qp[x] += q ** a / p ** (a - 1)
                bound = max(bound, prods[x])
            for x in universe:
                active_steps[x] = max(active_steps[x], counts[x])
        for x in S:
            m = max(m_pq[x], m_qp[x])
            if m > worst:
                worst, worst_pair = m, (S, x)
    return IndividualCheck(a, worst, bound, worst_pair, active_steps)


def check_corollary_3_2(mechanism: IndividualMechanism, universe: Sequence, max_size: int, alpha, horizon: int) -> IndividualCheck:
    """feldman2021 Corollary 3.2: exact check on the family of all datasets ``S subset universe, |S| <= max_size``.

    Contract: ``mechanism(history, S)`` returns the exact output law of step t (t = len(history)+1)
    on dataset S (a tuple of distinct universe points); its individual parameter
    ``rho_t^(x)(h) = sup_{S containing x} D^<->_alpha(A_t(h, S)||A_t(h, S\\x))`` (eq. (2), sup over
    the family) is predictable.  Returns :class:`IndividualCheck` whose ``bound_moment`` is
    ``exp((alpha-1) B*)`` with B* the largest path sum of rho_t^(x) (the Corollary's
    hypothesis) and ``worst_moment`` the exact worst joint moment; the Corollary claims
    ``holds``.  Preconditions: integer alpha >= 2; horizon >= 0.  Rounding: none.
    """
    return _individual_check(mechanism, universe, max_size, alpha, horizon, None)


def check_individual_filter(mechanism: IndividualMechanism, universe: Sequence, max_size: int, alpha, B, horizon: int,
                            *, admit: Callable[[Fraction, Fraction, Fraction, int], bool] | None = None) -> IndividualCheck:
    """feldman2021 Algorithm 3 / Theorem 4.5: exact check of individual privacy filtering on a small family.

    Contract: at each step every universe point x gets its individual moment
    ``s = exp((alpha-1) rho_t^(x))`` (eq. (2)); x is active iff the Renyi filter of Theorem 4.3
    continues: ``sum_{j<=t} rho_j^(x) <= B`` with rho_j^(x) := 0 on steps where x was inactive,
    i.e. ``prod * s <= exp((alpha-1) B)``, decided exactly.  The step runs on the active part of
    the input.  Theorem 4.5 claims ``result.holds_for_budget(B)``.
    ``admit(prod, s, B, alpha)`` overrides the rule (for negative controls).
    Preconditions: integer alpha >= 2; B > 0 rational.  Rounding: none.
    """
    a = int(check("alpha", alpha, Domain.integers_from(2)))
    b = check("B", B, P_)
    if admit is None:
        def rule(prod, s):
            return compare_exp_rational((a - 1) * b, prod * s) >= 0
    else:
        def rule(prod, s):
            return admit(prod, s, b, a)
    return _individual_check(mechanism, universe, max_size, a, horizon, rule)


# ==========================================================================
# Section 4: the Renyi filter (Definition 4.1, Algorithm 2, Theorem 4.3)
# ==========================================================================

_rhos = Param("rho", NN, kind="sequence", default="0.1,0.2,0.3", doc="per-step Renyi parameters rho_t^(alpha) >= 0")


@register("feldman2021_thm4_3_stop_index", paper=KEY, result="Theorem 4.3", direction="exact", returns="int",
          summary="Steps the Renyi filter F_{alpha,B} admits: largest k with sum_{t<=k} rho_t <= B (Algorithm 2 halts before step k+1)",
          params=(_rhos, _B), provenance="re-derived from the described proof",
          note="Filter formula stripped in the seed; its proof: 'the filter would have halted earlier' unless "
               "sum_{t<=T} rho_t <= B. F(rho_1..rho_t) = HALT iff sum_{j<=t} rho_j > B; Algorithm 2 computes rho_t, queries F, then runs A_t.")
def renyi_filter_stop_index(rho: Sequence, B) -> int:
    """feldman2021 Theorem 4.3: number of steps Algorithm 2 runs with the Renyi filter on the parameter sequence ``rho``.

    ``k = max{k: sum_{t<=k} rho_t <= B}`` over prefixes (returns len(rho) if all are admitted).
    Exact rational arithmetic; the alpha of the filter only enters through the rho_t.
    """
    rs = check_seq("rho", rho, NN)
    b = check("B", B, P_)
    s = Fraction(0)
    for k, r in enumerate(rs):
        s += r
        if s > b:
            return k
    return len(rs)


@register("feldman2021_thm4_3_rounds", paper=KEY, result="Theorem 4.3 (homogeneous workload)", direction="exact", returns="int",
          summary="Rounds the Renyi filter admits when every step has the same rho: floor(B / rho)",
          params=(Param("rho", P_, default="0.1", doc="per-step Renyi parameter rho > 0"), _B), provenance="derived",
          note="k rho <= B < (k+1) rho; equals the usual fixed-parameter RDP composition count.")
def renyi_filter_rounds(rho, B) -> int:
    """feldman2021 Theorem 4.3: ``floor(B / rho)`` rounds on a homogeneous workload (exact integer).

    Preconditions: rho > 0, B > 0.
    """
    r = check("rho", rho, P_)
    b = check("B", B, P_)
    v = b / r
    return v.numerator // v.denominator


@register("feldman2021_rem4_4_dp_eps", paper=KEY, result="Remark 4.4 + Fact 2.4", direction="upper",
          summary="(eps, delta)-DP of a rho-zCDP filter run: inf_alpha [alpha rho + log(1/delta)/(alpha-1)] = rho + 2 sqrt(rho log(1/delta))",
          params=(Param("rho", P_, default="0.5", doc="zCDP budget rho > 0 of the filter"), _delta), provenance="derived",
          note="Remark 4.4: the zCDP filter's stopping rule does not depend on alpha, so the output is (alpha, alpha rho)-RDP for "
               "every alpha; Fact 2.4 minimised over alpha (at alpha* = 1 + sqrt(log(1/delta)/rho)) gives this closed form, which "
               "equals whitehouse2023_lem1_zcdp_to_dp_eps (Bun-Steinke 2016 Prop. 1.3); tested against both.")
def zcdp_filter_dp_eps(rho, delta, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """feldman2021 Remark 4.4 with Fact 2.4 optimised over alpha: ``rho + 2 sqrt(rho log(1/delta))``, rounded UP.

    Contract: the output of a rho-zCDP Renyi filter is (value, delta)-DP.  The value is the
    infimum over alpha > 1 of ``alpha rho + log(1/delta)/(alpha - 1)``, attained at the real
    alpha* of :func:`zcdp_best_alpha`; since every alpha gives a valid guarantee the value is
    valid.  Preconditions: rho > 0, delta in (0, 1).  Rounding: up (interval-certified).
    """
    r = check("rho", rho, P_)
    d = check("delta", delta, U)
    return certified(lambda c, r, d: r + 2 * c.sqrt(-r * c.log(d)), (r, d), "upper", dps)


_ALPHAS_DEFAULT = "1.25,1.5,2,3,4,6,8,12,16,24,32,64,128"


@register("feldman2021_renyi_odometer_zcdp", paper=KEY, result="Renyi odometer (from the Theorem 3.1 supermartingale)",
          direction="upper",
          summary="Time-uniform bound on the realized privacy loss of rho_t-zCDP steps: "
                  "min over a fixed grid A of alpha rho_sum + log(|A|/delta)/(alpha - 1)",
          params=(Param("rho_sum", NN, default="0.05", doc="sum of the predictable zCDP parameters so far"), _delta,
                  Param("alphas", Domain.interval(1, None), kind="sequence", default=_ALPHAS_DEFAULT,
                        doc="the grid of Renyi orders, fixed before the interaction")),
          provenance="derived",
          note="The seed stops before the published odometer and its statement could not be retrieved, so this is our "
               "derivation, not the published form: under the first input's law, exp((alpha-1)(L_t - alpha sum rho_s)) is a "
               "nonnegative supermartingale (the process behind Theorem 3.1; checked by reference.martingales), Ville's "
               "inequality at level delta/|A| and a union bound over the fixed grid A give "
               "P(exists t: L_t >= odometer_t) <= delta. Checked exactly on adaptive randomized-response compositions "
               "in proofs/test_feldman2021_renyi_odometer.py.")
def renyi_odometer_zcdp(rho_sum, delta, alphas=_ALPHAS_DEFAULT, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """feldman2021 Renyi odometer (derived from the Theorem 3.1 supermartingale): ``min_{alpha in A} alpha R + log(|A|/delta)/(alpha-1)``.

    Contract: if step t is rho_t-zCDP conditionally on the past (rho_t predictable), then with
    ``R_t = sum_{s<=t} rho_s`` the realized privacy loss satisfies
    ``P(exists t: L_t >= renyi_odometer_zcdp(R_t, delta, A)) <= delta`` for a grid ``A`` fixed in
    advance (a probabilistic-DP odometer in the sense of whitehouse2022 Definition 4).
    Derivation: for each alpha in A, ``exp((alpha-1)(L_t - alpha R_t))`` is a nonnegative
    supermartingale starting at 1 (E_P[(p/q)^(alpha-1) | past] = exp((alpha-1) D_alpha) <=
    exp((alpha-1) alpha rho_t)); Ville's inequality at level delta/|A| and a union bound over A.
    ``alphas`` may be a comma-separated string or a sequence of rationals > 1.
    Preconditions: rho_sum >= 0, delta in (0, 1), alphas non-empty, each > 1.
    Rounding: each candidate is rounded up; the minimum of upper bounds is an upper bound.
    """
    r = check("rho_sum", rho_sum, NN)
    d = check("delta", delta, U)
    if isinstance(alphas, str):
        alphas = [a for a in alphas.split(",") if a.strip()]
    grid = check_seq("alphas", alphas, Domain.interval(1, None))
    if not grid:
        raise ValueError("alphas must be a non-empty sequence of orders > 1, found an empty sequence")
    k = Fraction(len(set(grid)))
    return min(certified(lambda c, a, r, d, k: a * r + (c.log(k) - c.log(d)) / (a - 1), (a, r, d, k), "upper", dps)
               for a in sorted(set(grid)))


@register("feldman2021_rem4_4_best_alpha", paper=KEY, result="Remark 4.4 + Fact 2.4 (optimal order)", direction="exact",
          summary="The order alpha* = 1 + sqrt(log(1/delta)/rho) minimising alpha rho + log(1/delta)/(alpha-1)",
          params=(Param("rho", P_, default="0.5", doc="zCDP budget rho > 0"), _delta), provenance="derived",
          note="Calculus: d/d alpha [alpha rho + L/(alpha-1)] = rho - L/(alpha-1)^2 = 0. Any alpha > 1 gives a valid bound, so rounding is immaterial.")
def zcdp_best_alpha(rho, delta, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """feldman2021 Remark 4.4: the optimal order ``1 + sqrt(log(1/delta)/rho)`` for Fact 2.4 (to nearest).

    Any alpha > 1 gives a valid DP guarantee; this one gives the smallest epsilon.
    """
    r = check("rho", rho, P_)
    d = check("delta", delta, U)
    return certified(lambda c, r, d: 1 + c.sqrt(-c.log(d) / r), (r, d), "exact", dps)


# --------------------------------------------------------------------------
# The approximate-DP filter obtained from the Renyi filter (seed: "Theorem 4.7")
# --------------------------------------------------------------------------

def _L_iv(c, d):
    return -c.log(d)


@register("feldman2021_thm4_7_rho_budget", paper=KEY, result="Theorem 4.7 (approximate-DP filter via the Renyi filter)",
          direction="lower",
          summary="zCDP budget of the (eps, delta)-DP filter: rho* = (sqrt(log(1/delta) + eps) - sqrt(log(1/delta)))^2, root of rho + 2 sqrt(rho log(1/delta)) = eps",
          params=(Param("eps", P_, default="1", doc="target epsilon > 0"), _delta), provenance="re-derived from the described proof",
          note="The seed names Theorem 4.7 (an (eps, delta)-DP filter 'as tight as advanced composition via zCDP') but its text is "
               "cut before Section 4.2. Re-derived for conditionally eps_t-DP steps: eps_t-DP => (eps_t^2/2)-zCDP (Bun-Steinke 2016 "
               "Prop. 3.3), Renyi filter of Remark 4.4 on rho, Fact 2.4 optimised over alpha. The published version (Section 4.3 of "
               "the NeurIPS/v4 text per Whitehouse et al. 2023, fn. 3) treats (eps_t, delta_t)-pDP steps; that form was not verified.")
def dp_filter_rho_budget(eps, delta, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """feldman2021 Theorem 4.7 (re-derived): the zCDP budget rho* with ``rho* + 2 sqrt(rho* log(1/delta)) = eps``, rounded DOWN.

    Contract: a Renyi zCDP filter with budget rho <= rho* is an (eps, delta)-DP filter.
    Written as ``eps^2 / (sqrt(L + eps) + sqrt(L))^2`` (L = log(1/delta)) to avoid cancellation;
    it replaces the difference-of-roots form ``(sqrt(L + eps) - sqrt(L))^2``.
    Preconditions: eps > 0, delta in (0, 1).  Rounding: down (a smaller budget is safe).
    """
    e = check("eps", eps, P_)
    d = check("delta", delta, U)

    def f(c, e, d):
        L = _L_iv(c, d)
        s = c.sqrt(L + e) + c.sqrt(L)
        return e * e / (s * s)

    return certified(f, (e, d), "lower", dps)


def dp_filter_admits(V: Fraction, eps: Fraction, delta: Fraction) -> bool:
    """feldman2021 Theorem 4.7 (re-derived): exact test of ``V/2 <= rho*``, i.e. ``V/2 + sqrt(2 V log(1/delta)) <= eps``.

    ``V = sum_t eps_t^2`` (so the zCDP spent is V/2).  Since rho + 2 sqrt(rho L) is increasing in
    rho, ``V/2 <= rho*`` iff ``D = eps - V/2 >= 0`` and ``log(1/delta) <= D^2/(2V)``, i.e.
    ``exp(D^2/(2V)) >= 1/delta``, decided exactly.  Inputs: validated Fractions (V >= 0,
    eps > 0, delta in (0, 1)).
    """
    D = eps - V / 2
    if D < 0:
        return False
    if V == 0:
        return True
    return compare_exp_rational(D * D / (2 * V), 1 / delta) >= 0


@register("feldman2021_thm4_7_rounds_homogeneous", paper=KEY, result="Theorem 4.7 (homogeneous workload)", direction="exact",
          returns="int", summary="Rounds of eps0-DP steps the re-derived (eps, delta)-DP filter admits: max k with k eps0^2/2 <= rho*",
          params=(Param("eps0", P_, default="0.01", doc="per-step epsilon eps0 > 0"), Param("eps", P_, default="1", doc="target epsilon > 0"), _delta),
          provenance="derived",
          note="Estimate floor(2 rho*/eps0^2) from a 40-digit rho*, settled by a galloping search with the exact decision dp_filter_admits.")
def dp_filter_rounds_homogeneous(eps0, eps, delta) -> int:
    """feldman2021 Theorem 4.7 (re-derived): ``max{k: k eps0^2/2 + sqrt(2 k eps0^2 log(1/delta)) <= eps}`` (exact integer).

    Preconditions: eps0 > 0, eps > 0, delta in (0, 1).
    """
    e0 = check("eps0", eps0, P_)
    e = check("eps", eps, P_)
    d = check("delta", delta, U)
    v0 = e0 * e0
    r = mpf_to_fraction(dp_filter_rho_budget(e, d, dps=40 + digits_of_inverse(v0)))
    return last_true(lambda j: dp_filter_admits(j * v0, e, d), int(2 * r / v0))


# ==========================================================================
# Stateful filters
# ==========================================================================

def _rho_from_json(self, run: list, where: str) -> tuple:
    if len(run) != 1:
        raise ValueError(f"{where} must be [rho_t, count], found {run!r}")
    return (_in(run[0], f"{where}.rho_t", NN),)


def _single_to_json(self, step: tuple) -> list:
    return [str(step[0])]


class _SumFilter(_Accountant):
    """Shared machinery of the Renyi filters: an exact running sum ``spent`` compared with the budget ``_BUDGET``.

    Step t is admitted iff ``spent + rho_t <= budget`` (look-ahead on the step about to run);
    decide-and-commit is atomic under the object's lock.
    """

    _BUDGET = "B"
    _STATE = ("spent",)
    _step_to_json = _single_to_json
    _step_from_json = _rho_from_json

    @classmethod
    def _from_params(cls, kw):
        return cls(**kw)

    @property
    def spent(self) -> Fraction:
        """``sum_{j<=n} rho_j`` of the committed steps (exact)."""
        with self._lock:
            return self._spent

    def _admits(self, spent: Fraction, rho: Fraction) -> bool:
        """CONT iff ``spent + rho <= budget``."""
        return spent + rho <= self._p[self._BUDGET]

    def _apply(self, step: tuple, count: int = 1) -> None:
        self._spent += count * step[0]

    def _state_problem(self) -> str | None:
        if self._spent > self._p[self._BUDGET]:
            return f"spent = {self._spent} exceeds {self._BUDGET} = {self._p[self._BUDGET]}"
        return None

    def _parse(self, rho_t) -> tuple:
        return (check("rho_t", rho_t, NN),)

    def _refusal(self, step: tuple) -> BudgetExceeded:
        b = self._BUDGET
        return BudgetExceeded(
            f"{type(self).__name__}: step {self._n + 1} (rho_t={_dec(step[0])}) refused: "
            f"sum of rhos would be {_dec(self._spent + step[0])} > {b} = {_dec(self._p[b])}",
            step=self._n + 1, reasons=(b,), requested=step)

    def _can(self, step: tuple) -> bool:
        with self._lock:
            return self._admits(self._spent, step[0])

    def _run(self, step: tuple) -> int:
        with self._lock:
            if not self._admits(self._spent, step[0]):
                raise self._refusal(step)
            self._apply(step)
            self._push(step)
            return self._n

    def _try(self, step: tuple) -> bool:
        with self._lock:
            if not self._admits(self._spent, step[0]):
                return False
            self._apply(step)
            self._push(step)
            return True


class RenyiFilter(_SumFilter):
    """feldman2021 Definition 4.1 / Algorithm 2 / Theorem 4.3: the Renyi privacy filter F_{alpha,B}.

    Contract: step t with Renyi parameter ``rho_t`` (= rho_t^(alpha), the order-alpha RDP
    parameter of A_t conditional on the earlier outputs, eq. (1)) is admitted iff
    ``sum_{j<=t} rho_j <= B`` over the committed steps plus this one.  By Theorem 4.3 the
    interaction made of the admitted steps is (alpha, B)-RDP (Definition 2.2), for a random,
    data-dependent-through-the-outputs number of steps.  Applied to individual parameters
    (eq. (2)) it is the per-point filter of Algorithm 3 (see :mod:`reference.individual`).

    Preconditions: alpha > 1, B > 0 (parsed exactly); per step rho_t >= 0, predictable (chosen
    from the outputs of the committed steps only).  Probing with :meth:`can_run` and retrying
    with a smaller step after a refusal are allowed (the seed, after Lemma 4.2: the analyst
    'can then decide to change the computation at time t retroactively and query the filter
    again').

    Rounding: none; the running sum is an exact ``Fraction``.  Thread-safe (one lock per
    object; decide-and-commit is atomic).  ``to_json``/``from_json`` round-trip exactly with a
    SHA-256 digest (shared machinery of :mod:`reference.filters`).
    """

    __citations__ = (_cite("Definition 4.1"), _cite("Algorithm 2"), _cite("Theorem 4.3"))
    _PARAMS = (("alpha", ALPHA, False), ("B", P_, False))

    def __init__(self, alpha, B):
        """feldman2021 Theorem 4.3: a Renyi filter of order alpha > 1 with budget B > 0.

        ``TypeError``/``ValueError`` name the offending parameter.
        """
        self._init_params({"alpha": alpha, "B": B})
        self._spent = Fraction(0)

    # ---- state ----------------------------------------------------------
    @property
    def alpha(self) -> Fraction:
        """The Renyi order (exact)."""
        return self._p["alpha"]

    @property
    def B(self) -> Fraction:
        """The budget (exact)."""
        return self._p["B"]

    def _gaussian_rho(self, sigma, sensitivity) -> Fraction:
        s = check("sigma", sigma, P_)
        D = check("sensitivity", sensitivity, NN)
        return self._p["alpha"] * D * D / (2 * s * s)

    def can_run(self, rho_t) -> bool:
        """feldman2021 Theorem 4.3: True iff a step with Renyi parameter rho_t would be admitted now (no state change; exact)."""
        return self._can(self._parse(rho_t))

    def run(self, rho_t) -> int:
        """feldman2021 Algorithm 2: commit the next step with parameter rho_t if admitted; returns the new step count.

        Raises :class:`BudgetExceeded` (a ``ValueError``) if ``spent + rho_t > B``; state unchanged.
        Call before running the mechanism.  Exact, atomic.
        """
        return self._run(self._parse(rho_t))

    def try_run(self, rho_t) -> bool:
        """feldman2021 Algorithm 2: commit the next step if admitted; True iff committed (state unchanged otherwise)."""
        return self._try(self._parse(rho_t))

    def can_run_gaussian(self, sigma, sensitivity=1) -> bool:
        """feldman2021 Theorem 4.3 with a Gaussian step (Example 2.7): rho_t = alpha Delta^2/(2 sigma^2) exactly; no state change."""
        return self._can((self._gaussian_rho(sigma, sensitivity),))

    def run_gaussian(self, sigma, sensitivity=1) -> int:
        """feldman2021 Algorithm 2 with a Gaussian step: commit rho_t = alpha Delta^2/(2 sigma^2) (exact) or raise :class:`BudgetExceeded`."""
        return self._run((self._gaussian_rho(sigma, sensitivity),))

    def try_run_gaussian(self, sigma, sensitivity=1) -> bool:
        """feldman2021 Algorithm 2 with a Gaussian step: commit if admitted; True iff committed."""
        return self._try((self._gaussian_rho(sigma, sensitivity),))

    def remaining(self) -> dict:
        """feldman2021 Theorem 4.3: exact budget state: ``rho_left`` = B - spent (the largest next rho_t admitted), ``spent``, ``B``, ``alpha``."""
        with self._lock:
            s = self._spent
        return {"rho_left": self._p["B"] - s, "spent": s, "B": self._p["B"], "alpha": self._p["alpha"]}

    def dp_guarantee(self, delta, *, dps: int = DEFAULT_DPS) -> dict:
        """feldman2021 Theorem 4.3 + Fact 2.4: (eps, delta)-DP of any run of this filter.

        Returns ``{"eps": B + log(1/delta)/(alpha - 1) rounded UP, "delta": delta (exact)}``.
        It uses the target B, not the amount spent: reporting the spent amount after the fact
        would be an odometer, which the seed shows is not valid by simply adding up parameters.
        """
        d = check("delta", delta, U)
        return {"eps": rdp_to_dp_eps(self._p["alpha"], self._p["B"], d, dps=dps), "delta": d}


class RenyiZCDPFilter(_SumFilter):
    """feldman2021 Remark 4.4: the Renyi filter for rho_t-zCDP steps, a rho-zCDP filter whose rule does not depend on alpha.

    Contract: step t, rho_t-zCDP conditional on the earlier outputs (so (alpha, alpha rho_t)-RDP
    for every alpha), is admitted iff ``sum_{j<=t} rho_j <= rho``.  For every alpha this is the
    decision of ``RenyiFilter(alpha, alpha rho)`` on the step ``alpha rho_t``
    (``sum alpha rho_j <= alpha rho``), so the output is (alpha, alpha rho)-RDP for all alpha,
    i.e. rho-zCDP (Definition 2.3).  :meth:`decision_at` exposes the order-alpha decision.

    Preconditions: rho > 0; per step rho_t >= 0, predictable.  Rounding: none (exact).
    Thread-safe; JSON round-trip with digest.
    """

    __citations__ = (_cite("Remark 4.4"), _cite("Theorem 4.3"))
    _PARAMS = (("rho", P_, False),)
    _BUDGET = "rho"

    def __init__(self, rho):
        """feldman2021 Remark 4.4: a zCDP filter with budget rho > 0 (``ValueError`` names rho)."""
        self._init_params({"rho": rho})
        self._spent = Fraction(0)

    @property
    def rho(self) -> Fraction:
        """The zCDP budget (exact)."""
        return self._p["rho"]

    def decision_at(self, alpha, rho_t) -> bool:
        """feldman2021 Remark 4.4: the decision of the order-alpha Renyi filter F_{alpha, alpha rho} on the step ``alpha rho_t``.

        Evaluates ``alpha (spent + rho_t) <= alpha rho`` literally (exact); by Remark 4.4 it equals
        :meth:`can_run` for every alpha > 1.  No state change.
        """
        a = check("alpha", alpha, ALPHA)
        step = self._parse(rho_t)
        with self._lock:
            spent_alpha = a * self._spent
        return spent_alpha + a * step[0] <= a * self._p["rho"]

    def can_run(self, rho_t) -> bool:
        """feldman2021 Remark 4.4: True iff a rho_t-zCDP step would be admitted now (exact; no state change)."""
        return self._can(self._parse(rho_t))

    def run(self, rho_t) -> int:
        """feldman2021 Remark 4.4: commit a rho_t-zCDP step if admitted (new step count) or raise :class:`BudgetExceeded`."""
        return self._run(self._parse(rho_t))

    def try_run(self, rho_t) -> bool:
        """feldman2021 Remark 4.4: commit a rho_t-zCDP step if admitted; True iff committed."""
        return self._try(self._parse(rho_t))

    def run_gaussian(self, sigma, sensitivity=1) -> int:
        """feldman2021 Remark 4.4: commit a Gaussian step, rho_t = Delta^2/(2 sigma^2) (exact), or raise :class:`BudgetExceeded`."""
        s = check("sigma", sigma, P_)
        D = check("sensitivity", sensitivity, NN)
        return self.run(D * D / (2 * s * s))

    def remaining(self) -> dict:
        """feldman2021 Remark 4.4: exact ``rho_left`` = rho - spent, ``spent``, ``rho``."""
        with self._lock:
            s = self._spent
        return {"rho_left": self._p["rho"] - s, "spent": s, "rho": self._p["rho"]}

    def rdp_at(self, alpha) -> Fraction:
        """feldman2021 Remark 4.4: the RDP guarantee alpha rho of the filter's output at order alpha (exact)."""
        a = check("alpha", alpha, ALPHA)
        return a * self._p["rho"]

    def dp_guarantee(self, delta, *, dps: int = DEFAULT_DPS) -> dict:
        """feldman2021 Remark 4.4 + Fact 2.4 optimised over alpha: ``{"eps": rho + 2 sqrt(rho log(1/delta)) (UP), "delta": delta, "alpha": alpha*}``."""
        d = check("delta", delta, U)
        return {"eps": zcdp_filter_dp_eps(self._p["rho"], d, dps=dps), "delta": d,
                "alpha": zcdp_best_alpha(self._p["rho"], d, dps=dps)}


class RenyiDPFilter(_Accountant):
    """feldman2021 Theorem 4.7 (re-derived): an (eps, delta)-DP filter for eps_t-DP steps built from the Renyi filter.

    Contract: step t, eps_t-DP conditional on the earlier outputs, is admitted iff
    ``V/2 + sqrt(2 V log(1/delta)) <= eps`` with ``V = sum_{j<=t} eps_j^2``; equivalently the
    zCDP spent V/2 is at most ``rho* = dp_filter_rho_budget(eps, delta)``.  Proof route: an
    eps_t-DP step is (eps_t^2/2)-zCDP (Bun-Steinke 2016 Prop. 3.3), the zCDP Renyi filter
    (Remark 4.4) makes the output rho*-zCDP, and Fact 2.4 at the best alpha gives
    (rho* + 2 sqrt(rho* log(1/delta)), delta) = (eps, delta)-DP.

    The rule coincides with Whitehouse et al.'s Theorem 1 filter with delta'' = 0; the published
    Feldman-Zrnic version also covers (eps_t, delta_t)-pDP steps (not implemented).
    Preconditions: eps > 0, delta in (0, 1); per step eps_t >= 0.  Rounding: exact decisions.
    Thread-safe; JSON round-trip with digest.
    """

    __citations__ = (_cite("Theorem 4.7 (re-derived)"), _cite("Remark 4.4"), _cite("Fact 2.4"))
    _PARAMS = (("eps", P_, False), ("delta", U, False))
    _STATE = ("V",)
    _step_to_json = _single_to_json

    def __init__(self, eps, delta):
        """feldman2021 Theorem 4.7 (re-derived): an (eps, delta)-DP filter; ``ValueError`` names the parameter."""
        self._init_params({"eps": eps, "delta": delta})
        self._V = Fraction(0)

    @classmethod
    def _from_params(cls, kw):
        return cls(**kw)

    def _step_from_json(self, run: list, where: str) -> tuple:
        if len(run) != 1:
            raise ValueError(f"{where} must be [eps_t, count], found {run!r}")
        return (_in(run[0], f"{where}.eps_t", NN),)

    @property
    def V(self) -> Fraction:
        """``sum_{j<=n} eps_j^2`` (exact); the zCDP spent is V/2."""
        with self._lock:
            return self._V

    @property
    def eps(self) -> Fraction:
        return self._p["eps"]

    @property
    def delta(self) -> Fraction:
        return self._p["delta"]

    def _admits_V(self, V: Fraction) -> bool:
        return dp_filter_admits(V, self._p["eps"], self._p["delta"])

    def _apply(self, step: tuple, count: int = 1) -> None:
        self._V += count * step[0] * step[0]

    def _state_problem(self) -> str | None:
        if not self._admits_V(self._V):
            return f"V/2 + sqrt(2 V log(1/delta)) exceeds eps at V = {self._V}"
        return None

    def _parse(self, eps_t) -> tuple:
        return (check("eps_t", eps_t, NN),)

    def can_run(self, eps_t) -> bool:
        """feldman2021 Theorem 4.7 (re-derived): True iff an eps_t-DP step would be admitted now (exact; no state change)."""
        step = self._parse(eps_t)
        with self._lock:
            return self._admits_V(self._V + step[0] * step[0])

    def run(self, eps_t) -> int:
        """feldman2021 Theorem 4.7 (re-derived): commit an eps_t-DP step if admitted (new count) or raise :class:`BudgetExceeded`."""
        step = self._parse(eps_t)
        with self._lock:
            V1 = self._V + step[0] * step[0]
            if not self._admits_V(V1):
                raise BudgetExceeded(
                    f"RenyiDPFilter: step {self._n + 1} (eps_t={_dec(step[0])}) refused: zCDP spent would be "
                    f"V/2 = {_dec(V1 / 2)} > rho* = {_dec(dp_filter_rho_budget(self._p['eps'], self._p['delta'], dps=15), 'lower')}",
                    step=self._n + 1, reasons=("eps",), requested=step)
            self._apply(step)
            self._push(step)
            return self._n

    def try_run(self, eps_t) -> bool:
        """feldman2021 Theorem 4.7 (re-derived): commit an eps_t-DP step if admitted; True iff committed."""
        step = self._parse(eps_t)
        with self._lock:
            if not self._admits_V(self._V + step[0] * step[0]):
                return False
            self._apply(step)
            self._push(step)
            return True

    def remaining(self, *, dps: int = DEFAULT_DPS) -> dict:
        """feldman2021 Theorem 4.7 (re-derived): ``rho_budget`` (rho*, rounded DOWN), ``rho_spent`` = V/2 (exact), ``V`` (exact)."""
        with self._lock:
            V = self._V
        return {"rho_budget": dp_filter_rho_budget(self._p["eps"], self._p["delta"], dps=dps), "rho_spent": V / 2, "V": V}

    def dp_guarantee(self) -> dict:
        """feldman2021 Theorem 4.7 (re-derived): the target ``{"eps", "delta"}`` (exact): every run is (eps, delta)-DP."""
        return {"eps": self._p["eps"], "delta": self._p["delta"]}
