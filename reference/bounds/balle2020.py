"""Balle, Kairouz, McMahan, Thakkar, Thakurta: *Privacy Amplification via Random Check-Ins* (balle2020).

NeurIPS 2020, arXiv 2007.06605; seed ``004_8fba9d9eabe1335c.txt``, in which every
formula is stripped: what survives is the prose, the algorithms' structure, the
proof sketch of Theorem 3.2 and the wording of the statements.  The published
displays could not be recovered (the search corpus holds no copy of the paper's
body), so the bounds here are **re-derived along the route the seed describes**:

1. *amplification by probable replacement*: condition on the other clients'
   check-ins; client 1's record is used at step j with prior probability
   ``pi_j <= p0/m`` and, given the outputs so far, with posterior probability
   ``q_j <= pi_j / (1 - s_j (1 - e^-eps0))`` where ``s_j = sum_{l<j} pi_l``
   (every earlier output has likelihood ratio >= e^-eps0);
2. *overlapping mixtures* (Lemma A.1 here): each step's conditional law is
   ``q A(x1) + (1-q) omega`` with ``omega`` a mixture of the randomizer's outputs on
   other records, hence ``log(1 + q_bar (e^eps0 - 1))``-DP for ``q, q' <= q_bar``;
3. *heterogeneous advanced composition* (Kairouz-Oh-Viswanath 2015) with
   ``log(1+x) <= x`` and ``tanh(x/2) <= x/2`` (Lemma A.2 here), and a sum of
   ``q_bar_j^2`` bounded by an integral.

Each catalog entry says which provenance it has: "re-derived from the described
proof" (the seed describes the route), "derived" (the seed gives the hypotheses
but not the route; our own derivation), or "published statement" (quoted from a
cited paper from recollection; flagged as unverified in its note).  The
derivation chain is in :mod:`symbolic.balle2020` and checked against this module.

Every function parses its inputs exactly, evaluates in interval arithmetic and
rounds once in the stated direction (:mod:`reference.precision`).

Notation: ``E = e^eps0``, ``L = log(1/delta)``, ``m`` steps (check-in window),
``n`` clients, ``p0`` check-in probability, ``C2 = sum_j q_bar_j^2``.
"""
from __future__ import annotations

import math
from fractions import Fraction
from typing import Sequence

import mpmath

from ..catalog import PAPERS, Param, register
from ..precision import (rational, 
    DEFAULT_DPS,
    Domain,
    last_true,
    certified,
    check,
    check_seq,
    enclosure,
    mpf_to_fraction,
    sign_of,
)

__all__ = [
    "cite", "cites",
    "lemma_a1_eps", "lemma_a2_eps", "lemma_a2_eq2_eps",
    "thm3_2_eps", "thm3_2_eps_refined", "thm3_2_eps_simplified", "thm3_2_approx_eps", "thm3_2_approx_delta",
    "cheu_delta0_max", "cor3_3_eps", "cor3_3_delta",
    "prop3_4_expected_dummies", "prop3_4_bound",
    "thm3_5_excess_risk", "thm3_5_learning_rate", "thm3_5_expected_excess_risk",
    "thm4_1_eps", "thm4_1_approx_eps", "thm4_1_approx_delta",
    "thm4_2_convex", "thm4_2_smooth", "thm4_2_learning_rate_convex", "thm4_2_learning_rate_smooth",
    "thm4_3_eps", "thm4_3_approx_eps", "thm4_3_approx_delta",
    "prop4_4_expected_dummies", "prop4_4_bound",
    "thm5_1_eps", "thm5_1_eps_refined", "thm5_1_approx_eps", "thm5_1_approx_delta",
    "erlingsson2019_thm7_eps", "thm5_1_min_n", "thm3_2_min_m",
    "amplifies", "figure2_data", "figure2_vs_users", "table1_rows", "SIMPLIFIED_CONSTANT",
]

B = "balle2020"
RE = "re-derived from the described proof"
P = Domain.positive()
NN = Domain.nonnegative()
U = Domain.open_unit()
HALF = Domain.half_open_unit()
CU = Domain.closed_unit()
INT1 = Domain.integers_from(1)

_eps0 = Param("eps0", P, default="0.5", doc="local randomizer's privacy parameter eps0 > 0")
_m = Param("m", INT1, kind="integer", default="1000", doc="number of steps = check-in window size m >= 1")
_n = Param("n", INT1, kind="integer", default="1000", doc="number of clients n >= 1")
_p0 = Param("p0", HALF, default="1", doc="check-in probability p0 in (0, 1]")
_delta = Param("delta", U, default="1e-6", doc="target delta in (0, 1)")
_delta0 = Param("delta0", Domain.closed_unit(), default="1e-14", doc="local randomizer's delta0 in [0, 1]")
_eps0_approx = Param("eps0", P, default="0.05", doc="eps0 > 0 of the (eps0, delta0)-DP local randomizer")
_delta1 = Param("delta1", U, default="1e-9", doc="total-variation slack delta1 in (0, 1) of the (eps0, delta0) -> 8 eps0 conversion")


def cite(result: str, key: str = "balle2020") -> dict:
    """A machine-readable citation (the catalog's keys) for an unregistered helper."""
    p = PAPERS[key]
    return {"paper": f"{p['authors']}, {p['title']}", "paper_key": key, "arxiv": p["arxiv"],
            "source": f"{p['seed'] or 'not a seed'} ({p['version']})", "result": result}


def cites(*results: str):
    """Decorator: attach ``__citations__`` (balle2020 results) to an unregistered public helper or class."""
    def deco(obj):
        obj.__citations__ = tuple(cite(r) for r in results)
        return obj
    return deco


def _L(c, d):
    return -c.log(d)


def _amp(c, E1, C2, L):
    """(E-1) sqrt(2 C2 L) + C2 (E-1)^2 / 2: Lemma A.2 with C2 = sum of q_bar_j^2."""
    return E1 * c.sqrt(2 * C2 * L) + C2 * E1 * E1 / 2


def _c2_fixed(c, E, m, p):
    """Upper bound p0^2 e^eps0 / m on sum_j q_bar_j^2 for a window of m steps (Theorem 3.2)."""
    return p * p * E / m


def _c2_fixed_refined(c, E, m, p):
    """p0^2 / (m (1 - p0 (1 - 1/E))): the integral bound before 1/(1 - a) <= E."""
    return p * p / (m * (1 - p * (1 - 1 / E)))


def _thm32(c, e, m, p, d):
    E = c.exp(e)
    return _amp(c, E - 1, _c2_fixed(c, E, m, p), _L(c, d))


def _c2_shuffle(c, E, n):
    return E * E * E / n


def _c2_shuffle_refined(c, E, n):
    """1/n^2 + (n-1)/((1 + (n-1) e^-2eps0)(1 + (n-1) e^-eps0)) (Theorem 5.1's exact integral bound)."""
    u = 1 / E
    return 1 / (n * n) + (n - 1) / ((1 + (n - 1) * u * u) * (1 + (n - 1) * u))


def _thm51(c, e, n, d):
    E = c.exp(e)
    return _amp(c, E - 1, _c2_shuffle(c, E, n), _L(c, d))


def _int(name, v, lo=1) -> int:
    return int(check(name, v, Domain.integers_from(lo)))


# ===========================================================================
# Lemma A.1 (overlapping mixtures / probable replacement) and Lemma A.2
# ===========================================================================

@register("balle2020_lema_1_eps", paper=B, result="Lemma A.1", direction="upper",
          summary="A mixture q A(x) + (1-q) omega (omega a mixture of A's outputs) vs q' A(x') + (1-q') omega with q, q' <= q_bar is log(1 + q_bar (e^eps0 - 1))-DP",
          params=(Param("q_bar", CU, default="0.01", doc="upper bound q_bar in [0, 1] on both mixture weights"), _eps0),
          provenance=RE,
          note="Statement stripped in the seed (its proof skeleton survives). Re-derived: the ratio (1 + q(r-1))/(1 + q'(r'-1)) with r, r', r/r' in [1/E, E] is maximised at a vertex, max(1 + q(E-1), 1/(1 - q'(1 - 1/E))) <= 1 + q_bar (E-1) since (1 + x(E-1))(1 - x(1-1/E)) = 1 + x(1-x)(E-1)^2/E >= 1. Tight (q = q' = q_bar, omega = A(x')). Checked against random finite LDP mechanisms exactly.")
def lemma_a1_eps(q_bar, eps0, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """Lemma A.1 (balle2020, re-derived): ``log(1 + q_bar (e^eps0 - 1))``, the privacy of one probable-replacement step.

    Contract: let A be eps0-LDP (over the record domain extended with the dummy
    record), ``omega`` any mixture of A's output laws on records other than x, x';
    then ``M(x) = q A(x) + (1-q) omega`` and ``M'(x') = q' A(x') + (1-q') omega`` with
    ``q, q' <= q_bar`` satisfy ``P(M(x) in S) <= e^eps P(M'(x') in S)`` for every S
    with eps the returned value.  Preconditions: q_bar in [0, 1], eps0 > 0.
    Rounding: up (interval-certified).
    """
    q = check("q_bar", q_bar, CU)
    e = check("eps0", eps0, P)
    return certified(lambda c, q, e: c.log(1 + q * (c.exp(e) - 1)), (q, e), "upper", dps)


@register("balle2020_lema_2_eps", paper=B, result="Lemma A.2", direction="upper",
          summary="Composition of steps that are log(1 + c_i (e^eps0 - 1))-DP: (e^eps0-1) sqrt(2 C2 log(1/delta)) + C2 (e^eps0-1)^2/2 with C2 = sum c_i^2",
          params=(Param("c", CU, kind="sequence", default="0.01,0.01,0.01", doc="per-step mixture-weight bounds c_i in [0, 1]"),
                  _eps0, _delta),
          provenance=RE,
          note="Statement stripped; its proof starts from heterogeneous advanced composition (KOV 2015), eq. (2), and bounds the square-root term with log(1+x) <= x, as the seed's proof of Lemma A.2 says. The lower-order term uses (e^x - 1)/(e^x + 1) <= (e^x - 1)/2. Stated here for an arbitrary sequence c_i; the paper's constants a, b (stripped) parametrise the sequence of Theorem 3.2.")
def lemma_a2_eps(c: Sequence, eps0, delta, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """Lemma A.2 (balle2020, re-derived): ``(E-1) sqrt(2 C2 L) + C2 (E-1)^2/2`` with ``C2 = sum c_i^2``.

    Contract: the adaptive composition of mechanisms M_1..M_k where M_i is
    ``log(1 + c_i (e^eps0 - 1))``-DP (the ``c_i`` fixed in advance) is
    ``(returned value, delta)``-DP.  Preconditions: c_i in [0, 1], eps0 > 0,
    delta in (0, 1).  Rounding: up.  Derivation: KOV heterogeneous composition
    ``sqrt(2 L sum eps_i^2) + sum eps_i tanh(eps_i/2)`` (:func:`lemma_a2_eq2_eps`),
    then ``eps_i <= c_i (E-1)`` and ``eps_i tanh(eps_i/2) <= (e^eps_i - 1) eps_i/2 <= c_i^2 (E-1)^2/2``.
    """
    cs = check_seq("c", c, CU)
    e = check("eps0", eps0, P)
    d = check("delta", delta, U)
    C2 = sum(x * x for x in cs)
    return certified(lambda cc, e, C2, d: _amp(cc, cc.exp(e) - 1, C2, _L(cc, d)), (e, C2, d), "upper", dps)


@register("balle2020_lema_2_eq2_eps", paper=B, result="Lemma A.2 (proof, eq. (2))", equation="(2)", direction="upper",
          summary="Heterogeneous advanced composition (KOV 2015) of eps_i = log(1 + c_i (e^eps0 - 1)): sqrt(2 L sum eps_i^2) + sum eps_i tanh(eps_i/2)",
          params=(Param("c", CU, kind="sequence", default="0.01,0.01,0.01", doc="per-step weights c_i in [0, 1]"), _eps0, _delta),
          provenance="published statement",
          note="Kairouz, Oh, Viswanath 2015 (paper key kairouz2015), Theorem 3.5's third expression, as used in eq. (2) of the proof of Lemma A.2; tighter than lemma_a2_eps, which bounds it.")
def lemma_a2_eq2_eps(c: Sequence, eps0, delta, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """Lemma A.2's eq. (2) (balle2020; KOV 2015 Theorem 3.5): composed epsilon before the closed-form bounding.

    ``sqrt(2 L sum eps_i^2) + sum eps_i (e^eps_i - 1)/(e^eps_i + 1)`` with
    ``eps_i = log(1 + c_i (e^eps0 - 1))``.  Rounding: up.  Deviation: the ratio is
    evaluated as ``1 - 2/(e^eps_i + 1)``.
    """
    cs = check_seq("c", c, CU)
    e = check("eps0", eps0, P)
    d = check("delta", delta, U)

    def f(cc, e, d, *cs):
        E1 = cc.exp(e) - 1
        es = [cc.log(1 + x * E1) for x in cs]
        return cc.sqrt(2 * _L(cc, d) * sum((x * x for x in es), cc.mpf(0))) + sum(
            (x * (1 - 2 / (cc.exp(x) + 1)) for x in es), cc.mpf(0))

    return certified(f, (e, d) + tuple(cs), "upper", dps)


# ===========================================================================
# Theorem 3.2 (fixed window), its refinement, simplified form, (eps0, delta0) version
# ===========================================================================

@register("balle2020_thm3_2_eps", paper=B, result="Theorem 3.2", direction="upper",
          summary="Random check-ins into a fixed window (Algorithm 1): eps = p0 (e^eps0-1) sqrt(2 e^eps0 log(1/delta)/m) + p0^2 e^eps0 (e^eps0-1)^2/(2m)",
          params=(_eps0, _m, _p0, _delta), provenance=RE,
          note="Formula stripped in the seed; re-derived along its proof sketch (probable replacement, overlapping mixtures, heterogeneous advanced composition): q_bar_j = p0/(m - a (j-1)), a = p0 (1 - e^-eps0), sum_j q_bar_j^2 <= p0^2/(m (1-a)) <= p0^2 e^eps0/m. Independent of n (Remark 1: the population size need not be known). The leading term's shape matches Remarks 1-2 (amplification p0/sqrt(m), sqrt(m)/n for p0 = m/n); the lower-order constant may differ from the printed one. Checked: exact privacy of Algorithm 1 with randomized response (reference/verify/checkins_exact.py) never exceeds it.")
def thm3_2_eps(eps0, m, p0, delta, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """Theorem 3.2 (balle2020, re-derived): central eps of Algorithm 1 with an eps0-DP local randomizer.

    ``eps = p0 (E-1) sqrt(2 E L / m) + p0^2 E (E-1)^2 / (2m)``, E = e^eps0, L = log(1/delta).

    Contract: Algorithm 1 (every client performs a ([m], p0)-check-in; one random
    checked-in client per step, else a dummy update computed by the randomizer on a
    dummy record) is (eps, delta)-DP for the released sequence of noisy gradients /
    models, for any n >= 1 and any adaptive eps0-DP randomizer (eps0-DP also with
    respect to the dummy record).  Preconditions: eps0 > 0, m >= 1, p0 in (0, 1],
    delta in (0, 1).  Rounding: up.  The bound amplifies only when it is < eps0
    (see :func:`amplifies`, :func:`thm3_2_min_m`).
    """
    e = check("eps0", eps0, P)
    mm = check("m", m, INT1)
    p = check("p0", p0, HALF)
    d = check("delta", delta, U)
    return certified(_thm32, (e, mm, p, d), "upper", dps)


@register("balle2020_thm3_2_eps_refined", paper=B, result="Theorem 3.2 (refined constant)", direction="upper",
          summary="Theorem 3.2 before the last relaxation: C2 = p0^2/(m (1 - p0 (1 - e^-eps0))) instead of p0^2 e^eps0/m",
          params=(_eps0, _m, _p0, _delta), provenance="derived",
          note="The same derivation as balle2020_thm3_2_eps, stopping before 1/(1 - a) <= e^eps0; never larger (equal at p0 = 1).")
def thm3_2_eps_refined(eps0, m, p0, delta, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """Theorem 3.2 (balle2020), refined: ``(E-1) sqrt(2 C2 L) + C2 (E-1)^2/2`` with ``C2 = p0^2 / (m (1 - p0 (1 - 1/E)))``.

    Same contract and preconditions as :func:`thm3_2_eps`; never larger.  Rounding: up.
    """
    e = check("eps0", eps0, P)
    mm = check("m", m, INT1)
    p = check("p0", p0, HALF)
    d = check("delta", delta, U)

    def f(c, e, m, p, d):
        E = c.exp(e)
        return _amp(c, E - 1, _c2_fixed_refined(c, E, m, p), _L(c, d))

    return certified(f, (e, mm, p, d), "upper", dps)


#: Constant C with thm3_2_eps <= C p0 eps0 sqrt(log(1/delta)/m) for eps0 <= 1, delta <= 1/100:
#: sqrt(2e)(e-1) + e(e-1)^2/(2 sqrt(log 100)) = 5.876... <= 6.
SIMPLIFIED_CONSTANT = 6


@register("balle2020_thm3_2_simplified", paper=B, result="Theorem 3.2 ('in particular' clause)", direction="upper",
          summary="For eps0 <= 1 and delta <= 1/100: eps <= 6 p0 eps0 sqrt(log(1/delta)/m)",
          params=(Param("eps0", Domain.interval(0, 1, hi_closed=True), default="0.5", doc="eps0 in (0, 1]"), _m, _p0,
                  Param("delta", Domain.interval(0, Fraction(1, 100), hi_closed=True), default="1e-6", doc="delta in (0, 1/100]")),
          provenance=RE,
          note="The seed keeps 'In particular, for [eps0 <= ?] and [delta <= ?], we get [eps = O(p0 eps0 sqrt(log(1/delta)/m))]' with the numbers stripped; the regime eps0 <= 1, delta <= 1/100 and the constant 6 are ours: e^eps0 - 1 <= (e-1) eps0 and e^eps0 <= e on [0, 1], and the lower-order term is <= e(e-1)^2/(2 sqrt(log 100)) p0 eps0 sqrt(L/m) because p0, eps0 <= 1 <= sqrt(m), sqrt(L/log 100).")
def thm3_2_eps_simplified(eps0, m, p0, delta, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """Theorem 3.2 (balle2020), 'in particular': ``6 p0 eps0 sqrt(log(1/delta)/m)`` >= :func:`thm3_2_eps`.

    Preconditions (regime of the simplification): 0 < eps0 <= 1, m >= 1, p0 in (0, 1],
    0 < delta <= 1/100; outside it a ValueError names the parameter.  Rounding: up.
    """
    e = check("eps0", eps0, Domain.interval(0, 1, hi_closed=True))
    mm = check("m", m, INT1)
    p = check("p0", p0, HALF)
    d = check("delta", delta, Domain.interval(0, Fraction(1, 100), hi_closed=True))
    return certified(lambda c, e, m, p, d: SIMPLIFIED_CONSTANT * p * e * c.sqrt(_L(c, d) / m), (e, mm, p, d), "upper", dps)


def _cheu_max(c, e, d1):
    return (1 - c.exp(-e)) * d1 / (4 * c.exp(e) * (2 + c.log(2 / d1) / -c.log(1 - c.exp(-5 * e))))


@register("balle2020_thm3_2_delta0_max", paper=B, result="Theorems 3.2, 4.1, 4.3, 5.1 ((eps0, delta0) clause)", direction="lower",
          summary="Largest delta0 for which an (eps0, delta0)-DP randomizer is within total variation delta1 of an 8 eps0-DP one: (1-e^-eps0) delta1 / (4 e^eps0 (2 + ln(2/delta1)/ln(1/(1-e^-5eps0))))",
          params=(_eps0, _delta1), provenance="recalled statement (unverified)", validity="unverified",
          note="UNVERIFIED RECOLLECTION of the conversion lemma of Cheu, Smith, Ullman, Zeber, Zhilyaev 2019 (the seed's reference [12]) that the paper uses for (eps0, delta0)-DP randomizers; the seed strips the condition. No paper key exists for Cheu et al.; the lead should verify it against the published text.")
def cheu_delta0_max(eps0, delta1, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """(eps0, delta0) clause of Theorems 3.2/4.1/4.3/5.1 (balle2020; Cheu et al. 2019 conversion): the largest admissible delta0.

    ``(1 - e^-eps0) delta1 / (4 e^eps0 (2 + ln(2/delta1) / ln(1/(1 - e^-5 eps0))))``.
    Contract (as recalled, unverified): if A is (eps0, delta0)-DP with delta0 at
    most this value, an 8 eps0-DP randomizer A' exists with TV(A(x), A'(x)) <= delta1
    for every x.  Rounding: down (a smaller admissible delta0 is safe).
    """
    e = check("eps0", eps0, P)
    d1 = check("delta1", delta1, U)
    return certified(_cheu_max, (e, d1), "lower", dps)


def _require_cheu(e: Fraction, d0: Fraction, d1: Fraction) -> None:
    if d0 == 0:
        return
    if sign_of(lambda c, e, d0, d1: _cheu_max(c, e, d1) - d0, (e, d0, d1)) < 0:
        raise ValueError(f"delta0 must be <= (1-e^-eps0) delta1 / (4 e^eps0 (2 + ln(2/delta1)/ln(1/(1-e^-5 eps0)))) "
                         f"= {mpmath.nstr(cheu_delta0_max(e, d1, dps=15), 8)} for eps0={e}, delta1={d1} "
                         f"(the (eps0, delta0) -> 8 eps0 conversion), found {d0}")


def _approx_delta(name_steps: str, k: int, e: Fraction, d0: Fraction, d: Fraction, d1: Fraction, eps_formula, args, dps):
    """delta + k (e^eps' + 1) delta1 where eps' = eps_formula(8 eps0, ...)."""
    _require_cheu(e, d0, d1)

    def f(c, e8, d, d1, kk, *rest):
        ep = eps_formula(c, e8, *rest, d)
        return d + kk * (c.exp(ep) + 1) * d1

    val = certified(f, (8 * e, d, d1, Fraction(k)) + tuple(args), "upper", dps)
    return min(val, mpmath.mpf(1))  # every mechanism is (eps, 1)-DP: a delta' above 1 is vacuous


@register("balle2020_thm3_2_approx_eps", paper=B, result="Theorem 3.2 ((eps0, delta0) clause)", direction="upper",
          summary="Algorithm 1 with an (eps0, delta0)-DP randomizer: eps' = Theorem 3.2's eps at 8 eps0",
          params=(_eps0_approx, _m, _p0, _delta), provenance=RE,
          note="Route (seed: 'Furthermore, if A is (eps0, delta0)-DP with delta0 <= [..], then A_fix is (eps', delta')-DP with eps' = [..] and delta' = [..]'): replace A by the 8 eps0-DP A' of the conversion lemma (balle2020_thm3_2_delta0_max), apply Theorem 3.2, pay m delta1 in total variation on each side.")
def thm3_2_approx_eps(eps0, m, p0, delta, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """Theorem 3.2 (balle2020), (eps0, delta0) clause: ``eps' = thm3_2_eps(8 eps0, m, p0, delta)``. Rounding: up.

    Valid together with :func:`thm3_2_approx_delta` when delta0 <= :func:`cheu_delta0_max`.
    """
    e = check("eps0", eps0, P)
    mm = check("m", m, INT1)
    p = check("p0", p0, HALF)
    d = check("delta", delta, U)
    return certified(_thm32, (8 * e, mm, p, d), "upper", dps)


@register("balle2020_thm3_2_approx_delta", paper=B, result="Theorem 3.2 ((eps0, delta0) clause)", direction="upper",
          summary="Algorithm 1 with an (eps0, delta0)-DP randomizer: delta' = delta + m (e^eps' + 1) delta1",
          params=(_eps0_approx, _delta0, _m, _p0, _delta, _delta1), provenance=RE,
          note="P(S) <= P_A'(S) + m delta1 <= e^eps' (Q(S) + m delta1) + delta + m delta1 (m randomizer calls coupled in total variation). Raises ValueError naming delta0 when the conversion's condition fails.")
def thm3_2_approx_delta(eps0, delta0, m, p0, delta, delta1, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """Theorem 3.2 (balle2020), (eps0, delta0) clause: ``delta' = delta + m (e^eps' + 1) delta1``. Rounding: up.

    A value above 1 is returned as 1 (vacuous: every mechanism is (eps, 1)-DP).

    Preconditions: those of :func:`thm3_2_eps`, delta0 in [0, 1] with
    ``delta0 <= cheu_delta0_max(eps0, delta1)`` (else ValueError naming delta0).
    """
    e = check("eps0", eps0, P)
    d0 = check("delta0", delta0, Domain.closed_unit())
    mm = check("m", m, INT1)
    p = check("p0", p0, HALF)
    d = check("delta", delta, U)
    d1 = check("delta1", delta1, U)
    return _approx_delta("m", int(mm), e, d0, d, d1, _thm32, (mm, p), dps)


# ===========================================================================
# Corollary 3.3: n/m adaptive repetitions with p0 = m/n, advanced composition
# ===========================================================================

def _cor33_args(eps0, n, m, delta_rep, delta_comp):
    e = check("eps0", eps0, P)
    nn = check("n", n, INT1)
    mm = check("m", m, INT1)
    if mm > nn or nn % mm:
        raise ValueError(f"m must divide n (n/m repetitions of m steps with p0 = m/n), found n={n}, m={m}")
    dr = check("delta_rep", delta_rep, U)
    dc = check("delta_comp", delta_comp, U)
    return e, nn, mm, dr, dc


#: Corollary 3.3 is refused when its per-run eps_r exceeds 2^COR33_MAX_LOG2_EPS_R (e^eps_r unrepresentable in bounded memory).
COR33_MAX_LOG2_EPS_R = 4096


@register("balle2020_cor3_3_eps", paper=B, result="Corollary 3.3", direction="upper",
          summary="n/m adaptive repetitions of Algorithm 1 with p0 = m/n (n updates): eps = sqrt(2k log(1/delta_comp)) eps_r + k eps_r (e^eps_r - 1), eps_r = Theorem 3.2 at p0 = m/n, k = n/m",
          params=(_eps0, _n, Param("m", INT1, kind="integer", default="100", doc="steps per repetition; must divide n"),
                  Param("delta_rep", U, default="1e-8", doc="delta of each repetition (Theorem 3.2)"),
                  Param("delta_comp", U, default="1e-7", doc="delta' of advanced composition")),
          provenance=RE,
          note="Remark 2: 'repeating the protocol adaptively n/m times ... and applying advanced composition for DP [17]' (Dwork-Rothblum-Vadhan 2010). Leading term 2 (e^eps0-1) e^(eps0/2) sqrt(log(1/delta_rep) log(1/delta_comp)/n) = O~(e^(1.5 eps0)/sqrt(n)) for eps0 > 1 (Table 1). The printed statement's regime conditions are stripped; this explicit form holds for all parameters.")
def cor3_3_eps(eps0, n, m, delta_rep, delta_comp, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """Corollary 3.3 (balle2020, re-derived): eps of k = n/m adaptive runs of Algorithm 1 with p0 = m/n.

    ``eps = sqrt(2 k log(1/delta_comp)) eps_r + k eps_r (e^eps_r - 1)`` with
    ``eps_r = thm3_2_eps(eps0, m, m/n, delta_rep)``; the total delta is
    :func:`cor3_3_delta` = ``k delta_rep + delta_comp``.  Preconditions: eps0 > 0,
    1 <= m <= n with m dividing n, delta_rep, delta_comp in (0, 1).  Rounding: up.
    """
    e, nn, mm, dr, dc = _cor33_args(eps0, n, m, delta_rep, delta_comp)
    k = nn / mm
    # e^eps_r has a binary exponent of about eps_r / log 2: refuse before it needs an int of
    # more than 2^4096 (eps0 = 4e10 needed ~10^10 bits and raised MemoryError)
    er_hi = certified(_thm32, (e, mm, mm / nn, dr), "upper", 15)
    if er_hi > mpmath.ldexp(1, COR33_MAX_LOG2_EPS_R):
        raise ValueError(f"eps0 = {eps0!r} is too large for Corollary 3.3 with these n, m: the per-run eps_r is about "
                         f"2^{int(mpmath.log(er_hi, 2))} and e^eps_r is beyond the supported range "
                         f"(eps_r <= 2^{COR33_MAX_LOG2_EPS_R})")

    def f(c, e, m, p, dr, dc, k):
        er = _thm32(c, e, m, p, dr)
        return c.sqrt(2 * k * _L(c, dc)) * er + k * er * (c.exp(er) - 1)

    return certified(f, (e, mm, mm / nn, dr, dc, k), "upper", dps)


@register("balle2020_cor3_3_delta", paper=B, result="Corollary 3.3", direction="upper",
          summary="Total delta of Corollary 3.3: (n/m) delta_rep + delta_comp",
          params=(_n, Param("m", INT1, kind="integer", default="100", doc="window size m (server steps), 1 <= m <= n"),
                  Param("delta_rep", U, default="1e-8", doc="delta of one run of Algorithm 1, in (0, 1)"),
                  Param("delta_comp", U, default="1e-7", doc="delta' of advanced composition over the n/m runs, in (0, 1)")),
          provenance=RE,
          note="Advanced composition (Dwork-Rothblum-Vadhan 2010): k (eps_r, delta_r)-DP runs are (eps, k delta_r + delta')-DP.")
def cor3_3_delta(n, m, delta_rep, delta_comp, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """Corollary 3.3 (balle2020): ``(n/m) delta_rep + delta_comp`` (exact rational, rounded up)."""
    _, nn, mm, dr, dc = _cor33_args(1, n, m, delta_rep, delta_comp)
    return rational((nn / mm) * dr + dc, "upper", dps)


# ===========================================================================
# Proposition 3.4: expected dummy updates (fixed window)
# ===========================================================================

@register("balle2020_prop3_4_expected_dummies", paper=B, result="Proposition 3.4", direction="exact",
          summary="Expected number of dummy updates of Algorithm 1: m (1 - p0/m)^n (exact)",
          params=(_n, _m, _p0), provenance="derived",
          note="Each of the m steps is empty iff none of the n independent clients checks into it (probability (1 - p0/m)^n). The seed keeps only 'at most [..]' (stripped); this is the exact expectation, bounded by balle2020_prop3_4_bound.")
def prop3_4_expected_dummies(n, m, p0, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """Proposition 3.4 (balle2020): the exact expected number of dummy updates, ``m (1 - p0/m)^n``.

    Preconditions: n, m >= 1, p0 in (0, 1].  Rounding: nearest (certified).
    """
    nn = check("n", n, INT1)
    mm = check("m", m, INT1)
    p = check("p0", p0, HALF)
    N = int(nn)
    return certified(lambda c, m, p: m * (1 - p / m) ** N, (mm, p), "exact", dps)


@register("balle2020_prop3_4_bound", paper=B, result="Proposition 3.4", direction="upper",
          summary="Expected dummy updates of Algorithm 1 are at most m e^(-p0 n/m); for p0 = m/n at most m/e",
          params=(_n, _m, _p0), provenance=RE,
          note="(1 - x)^n <= e^(-x n). With p0 = m/n the bound is m/e, matching the seed's surviving 'For [p0 = m/n] ... we get at most [m/e] expected dummy updates' (the value m/e follows from the formula; the printed display is stripped).")
def prop3_4_bound(n, m, p0, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """Proposition 3.4 (balle2020): ``m e^(-p0 n/m)`` >= the expected number of dummy updates. Rounding: up."""
    nn = check("n", n, INT1)
    mm = check("m", m, INT1)
    p = check("p0", p0, HALF)
    return certified(lambda c, n, m, p: m * c.exp(-p * n / m), (nn, mm, p), "upper", dps)


# ===========================================================================
# Theorem 3.5: utility (convex Lipschitz ERM), Algorithm 1 with Gaussian noise
# ===========================================================================

_Lip = Param("L", P, default="1", doc="Lipschitz constant L > 0 of the loss in the model")
_R = Param("R", P, default="1", doc="diameter R > 0 of the model space")
_d = Param("d", INT1, kind="integer", default="10", doc="model dimension d >= 1")
_sigma = Param("sigma", NN, default="1", doc="per-coordinate standard deviation sigma >= 0 of the Gaussian local noise")


def _G2(L, d, s):
    return L * L + d * s * s


@register("balle2020_thm3_5_excess_risk", paper=B, result="Theorem 3.5", direction="upper",
          summary="Algorithm 1, convex L-Lipschitz loss, Gaussian noise: given s real (non-dummy) steps out of m, E[risk(avg iterate)] - risk* <= R sqrt(m (L^2 + d sigma^2)) / s",
          params=(_Lip, _R, _d, _sigma, _m, Param("s", INT1, kind="integer", default="600", doc="number of non-dummy steps, 1 <= s <= m")),
          provenance="derived",
          note="The seed keeps the hypotheses (L-Lipschitz convex loss, model space of dimension d and diameter R, Gaussian randomizer, per-step learning rate) and strips the bound (O~ form). Our explicit version: condition on the (data-independent) check-in pattern; each real step uses a fresh i.i.d. sample, so projected SGD with eta = R/sqrt(m (L^2 + d sigma^2)) gives 2 eta sum_{real} E[risk - risk*] <= R^2 + eta^2 m (L^2 + d sigma^2); the output is the average of the iterates at which real steps were taken.")
def thm3_5_excess_risk(L, R, d, sigma, m, s, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """Theorem 3.5 (balle2020, derived explicit form): ``R sqrt(m (L^2 + d sigma^2)) / s``.

    Contract: with learning rate :func:`thm3_5_learning_rate` on every step (dummy
    steps move by pure noise), the average of the iterates preceding the s real
    steps has expected excess population risk at most the returned value, given
    the check-in pattern (population risk of an L-Lipschitz convex loss over a
    convex model space of diameter R; gradient plus N(0, sigma^2 I_d) per real step,
    N(0, sigma^2 I_d) per dummy step).  Preconditions: L, R > 0, d >= 1, sigma >= 0,
    1 <= s <= m.  Rounding: up.
    """
    Lq, Rq = check("L", L, P), check("R", R, P)
    dq = check("d", d, INT1)
    sq = check("sigma", sigma, NN)
    mm = check("m", m, INT1)
    ss = check("s", s, INT1)
    if ss > mm:
        raise ValueError(f"s must be <= m (non-dummy steps among m), found s={s}, m={m}")
    return certified(lambda c, R, m, s, G2: R * c.sqrt(m * G2) / s, (Rq, mm, ss, _G2(Lq, dq, sq)), "upper", dps)


@cites('Theorem 3.5')
def thm3_5_learning_rate(L, R, d, sigma, m, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """Theorem 3.5 (balle2020, derived): the constant learning rate ``R / sqrt(m (L^2 + d sigma^2))`` (nearest)."""
    Lq, Rq = check("L", L, P), check("R", R, P)
    dq = check("d", d, INT1)
    sq = check("sigma", sigma, NN)
    mm = check("m", m, INT1)
    return certified(lambda c, R, m, G2: R / c.sqrt(m * G2), (Rq, mm, _G2(Lq, dq, sq)), "exact", dps)


@register("balle2020_thm3_5_expected_excess_risk", paper=B, result="Theorem 3.5", direction="upper",
          summary="Theorem 3.5 averaged over check-ins: 2 R sqrt(m (L^2 + d sigma^2))/mu + L R exp(-mu^2/(2n)), mu = m (1 - (1 - p0/m)^n) expected real steps",
          params=(_Lip, _R, _d, _sigma, _n, _m, _p0), provenance="derived",
          note="The number of real steps S is a function of the n independent check-ins with bounded differences 1, so P(S <= mu/2) <= exp(-mu^2/(2n)) (McDiarmid); on that event the excess risk is at most L R (output theta_0 if S = 0).")
def thm3_5_expected_excess_risk(L, R, d, sigma, n, m, p0, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """Theorem 3.5 (balle2020, derived): expected excess risk over the check-in randomness too. Rounding: up.

    ``2 R sqrt(m G2)/mu + L R exp(-mu^2/(2n))`` with ``G2 = L^2 + d sigma^2`` and
    ``mu = m (1 - (1 - p0/m)^n)``.  Preconditions as in :func:`thm3_5_excess_risk`, n >= 1, p0 in (0, 1].
    """
    Lq, Rq = check("L", L, P), check("R", R, P)
    dq = check("d", d, INT1)
    sq = check("sigma", sigma, NN)
    nn = check("n", n, INT1)
    mm = check("m", m, INT1)
    p = check("p0", p0, HALF)
    N = int(nn)

    def f(c, L, R, n, m, p, G2):
        mu = m * (1 - (1 - p / m) ** N)
        return 2 * R * c.sqrt(m * G2) / mu + L * R * c.exp(-mu * mu / (2 * n))

    return certified(f, (Lq, Rq, nn, mm, p, _G2(Lq, dq, sq)), "upper", dps)


# ===========================================================================
# Theorem 4.1 (averaged updates), via shuffling
# ===========================================================================

@register("balle2020_thm4_1_eps", paper=B, result="Theorem 4.1", direction="upper",
          summary="Algorithm 2 (averaged updates, p0 = 1, non-colluding clients) is (eps, delta)-DP with eps = Theorem 5.1's eps for n clients",
          params=(_eps0, _n, _delta), provenance="derived",
          note="The seed strips the statement (a display with a 'where' clause) and describes no proof. Our derivation: the check-in counts (K_1..K_m) are data-independent; given them, the assignment of clients to steps is a uniformly random permutation cut into blocks, and each block's average (and the skip of empty steps) is a post-processing of the shuffled sequence of adaptive randomizer outputs, so Theorem 5.1 applies; joint convexity removes the conditioning. Only p0 = 1, as in the paper. Checked exactly: Algorithm 2's privacy curve never exceeds the shuffled histogram's.")
def thm4_1_eps(eps0, n, delta, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """Theorem 4.1 (balle2020, derived): central eps of Algorithm 2 with p0 = 1: equals :func:`thm5_1_eps`.

    Contract: Algorithm 2 (each of n clients checks into a uniform step of [m];
    the server averages the eps0-DP randomized gradients of the clients checked in
    at a step, skips empty steps; clients do not see each other's messages) is
    (eps, delta)-DP for the released models, for every m.  Preconditions: eps0 > 0,
    n >= 1, delta in (0, 1).  Rounding: up.
    """
    return thm5_1_eps(eps0, n, delta, dps=dps)


@register("balle2020_thm4_1_approx_eps", paper=B, result="Theorem 4.1 ((eps0, delta0) clause)", direction="upper",
          summary="Algorithm 2 with an (eps0, delta0)-DP randomizer: eps' = Theorem 5.1's eps at 8 eps0", params=(_eps0_approx, _n, _delta),
          provenance="derived", note="As Theorem 4.1 via Theorem 5.1's (eps0, delta0) clause (n randomizer calls).")
def thm4_1_approx_eps(eps0, n, delta, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """Theorem 4.1 (balle2020, derived), (eps0, delta0) clause: ``thm5_1_eps(8 eps0, n, delta)``. Rounding: up."""
    return thm5_1_approx_eps(eps0, n, delta, dps=dps)


@register("balle2020_thm4_1_approx_delta", paper=B, result="Theorem 4.1 ((eps0, delta0) clause)", direction="upper",
          summary="Algorithm 2 with an (eps0, delta0)-DP randomizer: delta' = delta + n (e^eps' + 1) delta1",
          params=(_eps0_approx, _delta0, _n, _delta, _delta1), provenance="derived",
          note="n randomizer calls coupled in total variation; see balle2020_thm3_2_delta0_max.")
def thm4_1_approx_delta(eps0, delta0, n, delta, delta1, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """Theorem 4.1 (balle2020, derived), (eps0, delta0) clause: ``delta + n (e^eps' + 1) delta1``. Rounding: up."""
    return thm5_1_approx_delta(eps0, delta0, n, delta, delta1, dps=dps)


# ===========================================================================
# Theorem 4.2: utility of Algorithm 2 (convex; convex and smooth), given the counts
# ===========================================================================

def _counts(counts) -> tuple[int, ...]:
    ks = check_seq("counts", counts, Domain.integers_from(0))
    ks = tuple(int(k) for k in ks)
    if not any(ks):
        raise ValueError("counts must contain at least one positive entry (a non-skipped step)")
    return ks


@register("balle2020_thm4_2_convex", paper=B, result="Theorem 4.2", direction="upper",
          summary="Algorithm 2, convex L-Lipschitz loss: given per-step counts K_j, E[excess risk] <= R sqrt(sum_{K_j>0} (L^2 + d sigma^2/K_j)) / #{K_j > 0}",
          params=(_Lip, _R, _d, _sigma, Param("counts", Domain.integers_from(0), kind="sequence", default="3,2,0,4",
                                                   doc="clients checked in at each step (K_j >= 0)")),
          provenance="derived",
          note="Statement stripped. Projected SGD over the T = #{K_j > 0} non-skipped steps with the average of K_j fresh clipped gradients plus N(0, sigma^2 I/K_j): second moment <= L^2 + d sigma^2/K_j; eta = R/sqrt(sum (L^2 + d sigma^2/K_j)); output the average of the iterates before each update.")
def thm4_2_convex(L, R, d, sigma, counts, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """Theorem 4.2 (balle2020, derived), convex case: ``R sqrt(sum_j (L^2 + d sigma^2/K_j)) / T`` over non-skipped steps.

    Contract: given the check-in counts, with learning rate
    :func:`thm4_2_learning_rate_convex`, the average of the iterates preceding the
    T updates has expected excess population risk at most the returned value.
    Preconditions: L, R > 0, d >= 1, sigma >= 0, counts >= 0 with one positive.
    Rounding: up.
    """
    Lq, Rq = check("L", L, P), check("R", R, P)
    dq = check("d", d, INT1)
    sq = check("sigma", sigma, NN)
    ks = _counts(counts)
    S = sum(Lq * Lq + dq * sq * sq / k for k in ks if k)
    T = sum(1 for k in ks if k)
    return certified(lambda c, R, S, T: R * c.sqrt(S) / T, (Rq, S, Fraction(T)), "upper", dps)


@cites('Theorem 4.2')
def thm4_2_learning_rate_convex(L, R, d, sigma, counts, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """Theorem 4.2 (balle2020, derived), convex case: learning rate ``R / sqrt(sum_j (L^2 + d sigma^2/K_j))`` (nearest)."""
    Lq, Rq = check("L", L, P), check("R", R, P)
    dq = check("d", d, INT1)
    sq = check("sigma", sigma, NN)
    S = sum(Lq * Lq + dq * sq * sq / k for k in _counts(counts) if k)
    return certified(lambda c, R, S: R / c.sqrt(S), (Rq, S), "exact", dps)


@register("balle2020_thm4_2_smooth", paper=B, result="Theorem 4.2 (smooth case)", direction="upper",
          summary="Algorithm 2, convex beta-smooth L-Lipschitz loss: given counts, E[excess risk] <= beta R^2/T + R sqrt(2 sum_j (L^2 + d sigma^2)/K_j) / T",
          params=(_Lip, _R, _d, _sigma, Param("beta", P, default="1", doc="smoothness beta > 0"),
                  Param("counts", Domain.integers_from(0), kind="sequence", default="3,2,0,4", doc="clients checked in at each step")),
          provenance="derived",
          note="Statement stripped. Derivation: smoothness + convexity + the projection inequality give f(theta_{t+1}) - f* <= (D_t - D_{t+1})/(2 eta) - <xi_t, theta_t - theta*> + eta ||xi_t||^2 for eta <= 1/(2 beta), with variance V_j <= (L^2 + d sigma^2)/K_j; eta = min(1/(2 beta), R/sqrt(2 sum V_j)); output the average of the iterates after each update.")
def thm4_2_smooth(L, R, d, sigma, beta, counts, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """Theorem 4.2 (balle2020, derived), smooth case: ``beta R^2/T + R sqrt(2 V)/T``, ``V = sum_j (L^2 + d sigma^2)/K_j``.

    Contract: given the counts, with learning rate :func:`thm4_2_learning_rate_smooth`
    the average of the T post-update iterates has expected excess risk at most the
    returned value.  Preconditions: as :func:`thm4_2_convex`, beta > 0.  Rounding: up.
    """
    Lq, Rq = check("L", L, P), check("R", R, P)
    dq = check("d", d, INT1)
    sq = check("sigma", sigma, NN)
    bq = check("beta", beta, P)
    ks = _counts(counts)
    V = sum((Lq * Lq + dq * sq * sq) / k for k in ks if k)
    T = sum(1 for k in ks if k)
    return certified(lambda c, R, b, V, T: b * R * R / T + R * c.sqrt(2 * V) / T, (Rq, bq, V, Fraction(T)), "upper", dps)


@cites('Theorem 4.2')
def thm4_2_learning_rate_smooth(L, R, d, sigma, beta, counts, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """Theorem 4.2 (balle2020, derived), smooth case: ``min(1/(2 beta), R/sqrt(2 V))`` rounded down (a smaller rate keeps eta <= 1/(2 beta))."""
    Lq, Rq = check("L", L, P), check("R", R, P)
    dq = check("d", d, INT1)
    sq = check("sigma", sigma, NN)
    bq = check("beta", beta, P)
    V = sum((Lq * Lq + dq * sq * sq) / k for k in _counts(counts) if k)
    a = certified(lambda c, b: 1 / (2 * b), (bq,), "lower", dps)
    b = certified(lambda c, R, V: R / c.sqrt(2 * V), (Rq, V), "lower", dps)
    return min(a, b)


# ===========================================================================
# Theorem 4.3 (sliding windows), Proposition 4.4
# ===========================================================================

@register("balle2020_thm4_3_eps", paper=B, result="Theorem 4.3", direction="upper",
          summary="Random check-ins with sliding windows of size m: eps = p0 (e^eps0-1) sqrt(2 e^eps0 log(1/delta)/m) + p0^2 e^eps0 (e^eps0-1)^2/(2m)",
          params=(_eps0, _m, _p0, _delta), provenance=RE,
          note="Formula stripped. Theorem 3.2's route applies verbatim: a client's record can only be used in the m steps of its window (prior p0/m each, posterior bounded as in Theorem 3.2); every other step is 0-DP for that client. Hence the same expression as balle2020_thm3_2_eps, for any number of server steps and any warm-up.")
def thm4_3_eps(eps0, m, p0, delta, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """Theorem 4.3 (balle2020, re-derived): the sliding-window protocol's eps equals :func:`thm3_2_eps` with window m.

    Contract: clients check in at a uniform step of their own window of m steps
    with probability p0; the server takes one random checked-in client per step,
    else a dummy.  (eps, delta)-DP for the released sequence.  Preconditions and
    rounding as :func:`thm3_2_eps`.
    """
    return thm3_2_eps(eps0, m, p0, delta, dps=dps)


@register("balle2020_thm4_3_approx_eps", paper=B, result="Theorem 4.3 ((eps0, delta0) clause)", direction="upper",
          summary="Sliding windows with an (eps0, delta0)-DP randomizer: eps' = Theorem 4.3's eps at 8 eps0", params=(_eps0_approx, _m, _p0, _delta),
          provenance=RE, note="As balle2020_thm3_2_approx_eps.")
def thm4_3_approx_eps(eps0, m, p0, delta, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """Theorem 4.3 (balle2020), (eps0, delta0) clause: ``thm3_2_eps(8 eps0, m, p0, delta)``. Rounding: up."""
    return thm3_2_approx_eps(eps0, m, p0, delta, dps=dps)


@register("balle2020_thm4_3_approx_delta", paper=B, result="Theorem 4.3 ((eps0, delta0) clause)", direction="upper",
          summary="Sliding windows with an (eps0, delta0)-DP randomizer: delta' = delta + T (e^eps' + 1) delta1 for T server steps",
          params=(_eps0_approx, _delta0, _m, _p0, _delta, _delta1,
                  Param("T", INT1, kind="integer", default="1000", doc="number of server steps (randomizer calls)")),
          provenance=RE, note="T randomizer calls coupled in total variation; see balle2020_thm3_2_delta0_max.")
def thm4_3_approx_delta(eps0, delta0, m, p0, delta, delta1, T, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """Theorem 4.3 (balle2020), (eps0, delta0) clause: ``delta + T (e^eps' + 1) delta1``. Rounding: up."""
    e = check("eps0", eps0, P)
    d0 = check("delta0", delta0, Domain.closed_unit())
    mm = check("m", m, INT1)
    p = check("p0", p0, HALF)
    d = check("delta", delta, U)
    d1 = check("delta1", delta1, U)
    TT = check("T", T, INT1)
    return _approx_delta("T", int(TT), e, d0, d, d1, _thm32, (mm, p), dps)


@register("balle2020_prop4_4_expected_dummies", paper=B, result="Proposition 4.4", direction="exact",
          summary="Expected dummy updates of the sliding-window protocol over server steps m..n: (n - m + 1)(1 - p0/m)^m (exact)",
          params=(_n, Param("m", INT1, kind="integer", default="100", doc="window size m <= n"), _p0), provenance="derived",
          note="Client i's window is {i, ..., i+m-1}; every server step t in {m, ..., n} is covered by exactly m windows, each checking in at t with probability p0/m independently. Statement stripped ('at most [..]').")
def prop4_4_expected_dummies(n, m, p0, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """Proposition 4.4 (balle2020): exact expected dummy updates ``(n - m + 1)(1 - p0/m)^m`` for server steps m..n.

    Preconditions: 1 <= m <= n, p0 in (0, 1].  Rounding: nearest (certified).
    """
    nn = check("n", n, INT1)
    mm = check("m", m, INT1)
    if mm > nn:
        raise ValueError(f"m must be <= n (server steps m..n), found m={m}, n={n}")
    p = check("p0", p0, HALF)
    M = int(mm)
    return certified(lambda c, n, m, p: (n - m + 1) * (1 - p / m) ** M, (nn, mm, p), "exact", dps)


@register("balle2020_prop4_4_bound", paper=B, result="Proposition 4.4", direction="upper",
          summary="Expected dummy updates of the sliding-window protocol are at most (n - m + 1) e^(-p0)",
          params=(_n, Param("m", INT1, kind="integer", default="100", doc="window size m (server steps), 1 <= m <= n"),
                  _p0), provenance="derived",
          note="(1 - p0/m)^m <= e^(-p0).")
def prop4_4_bound(n, m, p0, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """Proposition 4.4 (balle2020): ``(n - m + 1) e^(-p0)``. Preconditions: 1 <= m <= n, p0 in (0, 1]. Rounding: up."""
    nn = check("n", n, INT1)
    mm = check("m", m, INT1)
    if mm > nn:
        raise ValueError(f"m must be <= n (server steps m..n), found m={m}, n={n}")
    p = check("p0", p0, HALF)
    return certified(lambda c, n, m, p: (n - m + 1) * c.exp(-p), (nn, mm, p), "upper", dps)


# ===========================================================================
# Theorem 5.1 (shuffling) and Erlingsson et al. 2019, Theorem 7
# ===========================================================================

@register("balle2020_thm5_1_eps", paper=B, result="Theorem 5.1", direction="upper",
          summary="Amplification by shuffling of adaptive eps0-DP randomizers: eps = (e^eps0-1) sqrt(2 e^(3 eps0) log(1/delta)/n) + e^(3 eps0)(e^eps0-1)^2/(2n)",
          params=(_eps0, _n, _delta), provenance=RE,
          note="Formula stripped. Re-derived with the swapping construction of Erlingsson et al. 2019 (x1 at position 1, others shuffled, swap with a uniform position I) and the paper's two lemmas (A.1, A.2): step 1 has weight 1/n, step j >= 2 has posterior P(I = j | y_<j) <= 1/(1 + (n-j+1) e^-eps0 + (j-2) e^-2eps0), and sum_j q_bar_j^2 <= e^(3 eps0)/n. The e^(2.5 eps0) growth (vs e^(3 eps0) for [19]) matches the prose's 'improve the dependency by a factor' and Table 1. Checked against the exact shuffled randomized-response histogram.")
def thm5_1_eps(eps0, n, delta, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """Theorem 5.1 (balle2020, re-derived): central eps of shuffling n adaptive eps0-DP local randomizers.

    ``eps = (E-1) sqrt(2 E^3 L / n) + E^3 (E-1)^2 / (2n)``.
    Contract: the algorithm that samples a uniform permutation pi of [n] and outputs
    ``y_i = A_i(y_{1:i-1}, x_pi(i))`` with each A_i eps0-DP is (eps, delta)-DP.
    Preconditions: eps0 > 0, n >= 1, delta in (0, 1).  Rounding: up.  Amplifies
    only for n >= :func:`thm5_1_min_n`.
    """
    e = check("eps0", eps0, P)
    nn = check("n", n, INT1)
    d = check("delta", delta, U)
    return certified(_thm51, (e, nn, d), "upper", dps)


@register("balle2020_thm5_1_eps_refined", paper=B, result="Theorem 5.1 (refined constant)", direction="upper",
          summary="Theorem 5.1 with the exact integral bound C2 = 1/n^2 + (n-1)/((1 + (n-1)e^-2eps0)(1 + (n-1)e^-eps0)) in place of e^(3 eps0)/n",
          params=(_eps0, _n, _delta), provenance="derived",
          note="Same derivation as balle2020_thm5_1_eps stopping before the last relaxation; never larger.")
def thm5_1_eps_refined(eps0, n, delta, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """Theorem 5.1 (balle2020), refined: ``(E-1) sqrt(2 C2 L) + C2 (E-1)^2/2`` with the exact integral bound C2. Rounding: up."""
    e = check("eps0", eps0, P)
    nn = check("n", n, INT1)
    d = check("delta", delta, U)

    def f(c, e, n, d):
        E = c.exp(e)
        return _amp(c, E - 1, _c2_shuffle_refined(c, E, n), _L(c, d))

    return certified(f, (e, nn, d), "upper", dps)


@register("balle2020_thm5_1_approx_eps", paper=B, result="Theorem 5.1 ((eps0, delta0) clause)", direction="upper",
          summary="Shuffling (eps0, delta0)-DP randomizers: eps' = Theorem 5.1's eps at 8 eps0", params=(_eps0_approx, _n, _delta),
          provenance=RE, note="As balle2020_thm3_2_approx_eps, with n randomizer calls.")
def thm5_1_approx_eps(eps0, n, delta, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """Theorem 5.1 (balle2020), (eps0, delta0) clause: ``thm5_1_eps(8 eps0, n, delta)``. Rounding: up."""
    e = check("eps0", eps0, P)
    nn = check("n", n, INT1)
    d = check("delta", delta, U)
    return certified(_thm51, (8 * e, nn, d), "upper", dps)


@register("balle2020_thm5_1_approx_delta", paper=B, result="Theorem 5.1 ((eps0, delta0) clause)", direction="upper",
          summary="Shuffling (eps0, delta0)-DP randomizers: delta' = delta + n (e^eps' + 1) delta1",
          params=(_eps0_approx, _delta0, _n, _delta, _delta1), provenance=RE,
          note="n randomizer calls coupled in total variation; see balle2020_thm3_2_delta0_max. The seed keeps '... and delta' = [..]'.")
def thm5_1_approx_delta(eps0, delta0, n, delta, delta1, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """Theorem 5.1 (balle2020), (eps0, delta0) clause: ``delta + n (e^eps' + 1) delta1``. Rounding: up."""
    e = check("eps0", eps0, P)
    d0 = check("delta0", delta0, Domain.closed_unit())
    nn = check("n", n, INT1)
    d = check("delta", delta, U)
    d1 = check("delta1", delta1, U)
    return _approx_delta("n", int(nn), e, d0, d, d1, _thm51, (nn,), dps)


@register("erlingsson2019_thm7_eps", paper="erlingsson2019", result="Theorem 7 (eps0 < 1/2)", direction="upper",
          summary="Amplification by shuffling (Erlingsson et al. 2019) for eps0 < 1/2: eps = 12 eps0 sqrt(log(1/delta)/n)",
          params=(Param("eps0", Domain.interval(0, Fraction(1, 2)), default="0.25", doc="eps0 in (0, 1/2)"),
                  Param("n", Domain.integers_from(1000), kind="integer", default="10000", doc="n >= 1000"),
                  Param("delta", Domain.interval(0, Fraction(1, 100)), default="1e-6", doc="delta in (0, 1/100)")),
          provenance="recalled statement (unverified)", validity="unverified",
          note="Quoted by balle2020 Section 5 ('For comparison, the guarantee in [19, Theorem 7] in the case [eps0 < 1/2] results in [..]', stripped) and plotted in Figure 2. The form 12 eps0 sqrt(log(1/delta)/n) and the regime (eps0 < 1/2, n >= 1000, delta < 1/100) are UNVERIFIED RECOLLECTIONS of Erlingsson et al. 2019; the regime is enforced (refusing is the safe side). Checked not to be violated by the exact shuffled randomized response at n = 1000.")
def erlingsson2019_thm7_eps(eps0, n, delta, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """erlingsson2019 Theorem 7 (as quoted in balle2020 Section 5): ``12 eps0 sqrt(log(1/delta)/n)``.

    Preconditions (enforced): 0 < eps0 < 1/2, n >= 1000, 0 < delta < 1/100.
    Rounding: up.  Provenance: recalled, unverified (see the catalog note).
    """
    e = check("eps0", eps0, Domain.interval(0, Fraction(1, 2)))
    nn = check("n", n, Domain.integers_from(1000))
    d = check("delta", delta, Domain.interval(0, Fraction(1, 100)))
    return certified(lambda c, e, n, d: 12 * e * c.sqrt(_L(c, d) / n), (e, nn, d), "upper", dps)


# ===========================================================================
# Where the bounds stop amplifying
# ===========================================================================

@cites('Figure 2', 'Theorem 5.1')
def amplifies(eps, eps0) -> bool:
    """balle2020 (Figure 2's grey line): True iff the central bound ``eps`` is strictly below ``eps0`` (exact comparison).

    A bound with ``eps >= eps0`` is vacuous: the protocol is eps0-DP anyway, since
    each client's record enters at most one eps0-DP randomizer call.
    """
    a = check("eps", eps, NN)
    b = check("eps0", eps0, P)
    return a < b


def _min_int(pred, start: int = 1, guess: int = 0) -> int:
    """Smallest integer k >= start with pred(k) True, for pred monotone (False then True); galloping search.

    ``guess`` estimates the answer; the search costs O(log |guess - answer| + 1) calls of ``pred``.
    """
    if pred(start):
        return start
    return start + 1 + last_true(lambda j: not pred(start + j), max(guess - start - 1, 0))


#: A threshold count (n or m) above 2^MAX_COUNT_BITS is refused rather than searched for (its exact
#: decision needs about that many bits, below precision.MAX_PREC_BITS).
MAX_COUNT_BITS = 10_000


def _amp_threshold_guess(name: str, value, num, e: Fraction, d: Fraction, extra: tuple = ()) -> int:
    """Estimate of the count k solving ``_amp(E-1, num(E, *extra)/k, L) = e`` (the amplification threshold).

    With x = sqrt(C2): (E-1) sqrt(2L) x + (E-1)^2 x^2 / 2 = e gives
    x = 2e / ((E-1)(sqrt(2L+2e) + sqrt(2L))) (cancellation-free), so k* = num / x^2.  Raises
    ``ValueError`` naming ``name`` when k* exceeds 2^MAX_COUNT_BITS.
    """
    def kstar(c, e, d, *xs):
        E = c.exp(e)
        L = -c.log(d)
        s = c.sqrt(2 * L + 2 * e) + c.sqrt(2 * L)
        return num(c, E, *xs) * ((E - 1) * s) ** 2 / (4 * e * e)

    enc = enclosure(kstar, (e, d, *extra), 20)
    mag = enc.hi._mpf_[2] + enc.hi._mpf_[3] if enc.hi else 0  # log2 of the upper end, within one
    if mag > MAX_COUNT_BITS:
        raise ValueError(f"{name} = {value!r} is too large: the threshold count would exceed 2^{MAX_COUNT_BITS} "
                         f"(about 2^{mag}); supported: thresholds below 2^{MAX_COUNT_BITS}")
    if mag > 60:
        enc = enclosure(kstar, (e, d, *extra), int(mag * 0.302) + 20)
    return math.floor(mpf_to_fraction(enc.lo))  # exact: mpmath.floor would round to the global 53 bits


@register("balle2020_thm5_1_min_n", paper=B, result="Theorem 5.1 / Figure 2 (amplification threshold)", direction="exact",
          summary="Smallest n for which Theorem 5.1's eps is < eps0 (the bound amplifies)",
          params=(_eps0, _delta), provenance="derived", returns="int",
          note="Exact decision of eps(n) < eps0 (interval sign refinement); eps(n) decreases in n, so bisection is exact.")
def thm5_1_min_n(eps0, delta) -> int:
    """Theorem 5.1 (balle2020): the smallest n >= 1 with ``thm5_1_eps(eps0, n, delta) < eps0`` (an exact decision)."""
    e = check("eps0", eps0, P)
    d = check("delta", delta, U)
    guess = _amp_threshold_guess("eps0", eps0, lambda c, E: E * E * E, e, d)
    # eps(n) - eps0 changes by ~eps0/n between neighbours: its sign needs ~bits(n) bits, so start there
    return _min_int(lambda n: sign_of(lambda c, e, n, d: _thm51(c, e, n, d) - e, (e, Fraction(n), d),
                                      start_prec=n.bit_length() + 64) < 0, 1, guess)


@register("balle2020_thm3_2_min_m", paper=B, result="Theorem 3.2 (amplification threshold)", direction="exact",
          summary="Smallest window m for which Theorem 3.2's eps is < eps0 (the bound amplifies)",
          params=(_eps0, _p0, _delta), provenance="derived", returns="int",
          note="Exact decision of eps(m) < eps0; eps(m) decreases in m.")
def thm3_2_min_m(eps0, p0, delta) -> int:
    """Theorem 3.2 (balle2020): the smallest m >= 1 with ``thm3_2_eps(eps0, m, p0, delta) < eps0`` (exact decision)."""
    e = check("eps0", eps0, P)
    p = check("p0", p0, HALF)
    d = check("delta", delta, U)
    guess = _amp_threshold_guess("eps0", eps0, lambda c, E, p: p * p * E, e, d, (p,))
    return _min_int(lambda m: sign_of(lambda c, e, m, p, d: _thm32(c, e, m, p, d) - e, (e, Fraction(m), p, d),
                                      start_prec=m.bit_length() + 64) < 0, 1, guess)


# ===========================================================================
# Figure 2 and Table 1 as data
# ===========================================================================

#: Figure 2's surviving caption fixes delta (stripped); we use delta = 10^-6 and the values below.
FIGURE2_DELTA = Fraction(1, 10**6)
FIGURE2_NS = (10**3, 10**4, 10**5, 10**6)
FIGURE2_EPS0 = tuple(Fraction(k, 20) for k in range(1, 41))  # 0.05, 0.10, ..., 2.0


@cites('Figure 2', 'Theorem 5.1')
def figure2_data(ns: Sequence[int] = FIGURE2_NS, eps0_grid: Sequence = FIGURE2_EPS0, delta=FIGURE2_DELTA,
                 *, dps: int = 20) -> dict:
    """Figure 2 (balle2020) as data: central eps after shuffling vs eps0, Theorem 5.1 (solid) and [19, Thm 7] (dotted).

    Returns ``{"delta", "x" (the eps0 grid), "threshold" (the grey line eps = eps0),
    "series": [{"label", "source", "n", "y", "amplifies"}, ...]}``; ``y[i]`` is an
    upper bound (mpf, rounded up) or ``None`` outside the bound's regime
    (Erlingsson et al. need eps0 < 1/2).  ``amplifies[i]`` is ``y[i] < eps0``.

    Parameter values: the caption's numbers are stripped.  The caption's
    surviving words (one grey line of no amplification, 'after crossing the line
    amplification bounds become vacuous', 'our bounds with [..] and [..] are
    similar to the bounds from [19] with [..] and [..]', and the introduction's
    'reducing the number of required users by one order of magnitude') fit an
    x-axis eps0 with one curve per n; the defaults (delta = 1e-6, n = 10^3..10^6,
    eps0 = 0.05..2) are ours.  Pass other values freely.
    """
    d = check("delta", delta, U)
    xs = [check("eps0", x, P) for x in eps0_grid]
    series = []
    for n in ns:
        nn = int(check("n", n, INT1))
        y = [thm5_1_eps(x, nn, d, dps=dps) for x in xs]
        series.append({"label": f"Theorem 5.1, n = {nn}", "source": "balle2020_thm5_1_eps", "n": nn, "y": y,
                       "amplifies": [amplifies(v, x) for v, x in zip(y, xs)]})
        ye = [erlingsson2019_thm7_eps(x, nn, d, dps=dps) if (x < Fraction(1, 2) and nn >= 1000 and d < Fraction(1, 100)) else None
              for x in xs]
        series.append({"label": f"Erlingsson et al. 2019 Thm 7, n = {nn}", "source": "erlingsson2019_thm7_eps", "n": nn, "y": ye,
                       "amplifies": [None if v is None else amplifies(v, x) for v, x in zip(ye, xs)]})
    return {"delta": d, "x": xs, "threshold": list(xs), "series": series}


FIGURE2_USERS = tuple(int(10 ** (k / 4)) for k in range(8, 29))  # 100 ... 10^7, four per decade
FIGURE2_EPS0_SERIES = (Fraction(1, 10), Fraction(1, 4), Fraction(2, 5), Fraction(1), Fraction(2))


@cites('Figure 2', 'Theorem 5.1')
def figure2_vs_users(eps0_values: Sequence = FIGURE2_EPS0_SERIES, ns: Sequence[int] = FIGURE2_USERS,
                     delta=FIGURE2_DELTA, *, dps: int = 20) -> dict:
    """Figure 2 (balle2020) as data with the number of users on the x-axis: one pair of curves per eps0.

    Returns ``{"delta", "x" (the n grid), "series": [{"label", "source", "eps0", "y",
    "amplifies", "threshold" (= eps0, the no-amplification line)}]}`` with Theorem 5.1
    and [19, Thm 7] (``None`` outside eps0 < 1/2, n >= 1000, delta < 1/100).  Same
    bounds as :func:`figure2_data`, transposed; the parameter values are ours.
    """
    d = check("delta", delta, U)
    xs = [int(check("n", n, INT1)) for n in ns]
    series = []
    for e in eps0_values:
        ee = check("eps0", e, P)
        y = [thm5_1_eps(ee, n, d, dps=dps) for n in xs]
        series.append({"label": f"Theorem 5.1, eps0 = {ee}", "source": "balle2020_thm5_1_eps", "eps0": ee, "y": y,
                       "amplifies": [amplifies(v, ee) for v in y], "threshold": ee})
        ye = [erlingsson2019_thm7_eps(ee, n, d, dps=dps) if (ee < Fraction(1, 2) and n >= 1000 and d < Fraction(1, 100)) else None
              for n in xs]
        series.append({"label": f"Erlingsson et al. 2019 Thm 7, eps0 = {ee}", "source": "erlingsson2019_thm7_eps", "eps0": ee, "y": ye,
                       "amplifies": [None if v is None else amplifies(v, ee) for v in ye], "threshold": ee})
    return {"delta": d, "x": xs, "series": series}


@cites('Table 1')
def table1_rows(n=10**6, eps0=2, delta=Fraction(1, 10**6), *, dps: int = 20) -> list[dict]:
    """Table 1 (balle2020) as data: central eps of one epoch (n updates, batch size 1) per amplification source.

    Each row: ``source``, ``reference``, ``asymptotic`` (our reconstruction of the
    stripped O~ entry for eps0 > 1, written as a power of e^eps0 over sqrt(n)),
    ``exponent`` (c in e^(c eps0)), and ``value``: an explicit upper bound at
    (n, eps0, delta) from this module, or ``None`` where no explicit bound applies.
    The explicit values are our instantiations (e.g. uniform subsampling uses the
    standard per-step ``log(1 + (e^eps0 - 1)/n)`` composed by KOV's heterogeneous
    advanced composition; random check-ins use Theorem 3.2 with m = n, p0 = 1),
    not numbers printed in the paper (the table prints only O~ forms).
    """
    e = check("eps0", eps0, P)
    nn = check("n", n, INT1)
    d = check("delta", delta, U)
    N = int(nn)

    def subsampling(c, e, n, d):
        es = c.log(1 + (c.exp(e) - 1) / n)
        return c.sqrt(2 * n * es * es * _L(c, d)) + n * es * (1 - 2 / (c.exp(es) + 1))

    sub = certified(subsampling, (e, nn, d), "upper", dps)
    efm = erlingsson2019_thm7_eps(e, N, d, dps=dps) if (e < Fraction(1, 2) and N >= 1000 and d < Fraction(1, 100)) else None
    return [
        {"source": "None", "reference": "[14, 33]", "asymptotic": "eps0", "exponent": None,
         "value": rational(e, "upper", dps)},
        {"source": "Uniform subsampling", "reference": "[25, 8, 1]", "asymptotic": "e^eps0 / sqrt(n)", "exponent": 1,
         "value": sub},
        {"source": "Shuffling", "reference": "[19]", "asymptotic": "e^(3 eps0) / sqrt(n)", "exponent": 3,
         "value": efm},
        {"source": "Shuffling (Theorem 5.1, This paper)", "reference": "balle2020_thm5_1_eps",
         "asymptotic": "e^(2.5 eps0) / sqrt(n)", "exponent": Fraction(5, 2), "value": thm5_1_eps(e, N, d, dps=dps)},
        {"source": "Random check-ins with a fixed window (Theorem 3.2, This paper)", "reference": "balle2020_thm3_2_eps",
         "asymptotic": "e^(1.5 eps0) / sqrt(n)", "exponent": Fraction(3, 2), "value": thm3_2_eps(e, N, 1, d, dps=dps)},
    ]
