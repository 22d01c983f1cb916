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
  :mod:`reference.bounds.classical` (``rdp_to_dp_eps``), reused here.
* Section 4: the closed forms of the Renyi filter (Definition 4.1, Algorithm 2,
  Theorem 4.3: stopping index, rounds), Remark 4.4 (zCDP filter to DP), the
  Renyi odometer and the approximate-DP filter's budget (re-derived).

Elsewhere, by role: the stateful :class:`.RenyiFilter`, :class:`.RenyiZCDPFilter` and
:class:`.RenyiDPFilter` are in :mod:`reference.accountants.feldman2021`; the exact
checkers of Theorem 3.1, Corollary 3.2 and Algorithm 3 / Theorem 4.5 on small discrete
instances in :mod:`reference.verify.feldman2021`.  The
NumPy demo of Algorithm 3 (noisy gradient descent) is :mod:`reference.simulate.individual`.

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

from fractions import Fraction
from typing import Callable, Iterable, Sequence

import mpmath

from ..catalog import PAPERS, Param, register
from .classical import gaussian_rdp
from ..precision import (rational, 
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
    "renyi_filter_stop_index",
    "renyi_filter_rounds",
    "zcdp_filter_dp_eps",
    "zcdp_best_alpha",
    "dp_filter_rho_budget",
    "dp_filter_admits",
    "dp_filter_rounds_homogeneous",
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
    return rational(a * L * L * x * x / (2 * s * s), "upper", dps)


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
    return rational(2 * s * s * b / a, "exact", dps)


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
    are inactive at time t and ``|q_t| <= 1``.
    Preconditions: sigma > 0, beta in (0, 1), m >= 0 integer.  Rounding: up.
    """
    s = check("sigma", sigma, P_)
    b = check("beta", beta, U)
    m = check("n_inactive", n_inactive, Domain.integers_from(0))
    return certified(lambda c, s, b, m: m + s * c.sqrt(2 * c.log(2 / b)), (s, b, m), "upper", dps)


def prop2_9_active_sets(q_values, alpha, sigma, B) -> list[frozenset]:
    """feldman2021 Proposition 2.9: the active sets ``S_t = {i: sum_{j<=t} q_j(X_i)^2 <= 2 sigma^2 B/alpha}``, exactly.

    ``q_values[t][i]`` is q_{t+1}(X_i) (parsed exactly; ``|q| <= 1`` is the Proposition's setting,
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
    advance (a privacy odometer in the sense of whitehouse2022 Definition 5; the filter is Definition 4).
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
