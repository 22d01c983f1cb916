"""Rogers, Roth, Ullman, Vadhan: *Privacy Odometers and Filters: Pay-as-you-Go Composition*.

Paper key ``rogers2016`` (seed ``003_05a378efbd63455f.txt``, the NeurIPS 2016 text,
arXiv 1605.08294); result numbers follow the seed.  Closed forms of the paper:

* Definition 2.6: ``RR_{eps,delta}`` on outputs ``{0, 'top', 'bot', 1}`` and its
  relabelling to Whitehouse et al.'s Definition 6 (:func:`to_whitehouse_label`);
* Lemma 2.3 (pointwise indistinguishability <-> DP), Theorem 2.9 (basic
  composition), Theorem 2.10 (advanced composition, the DRV10 form printed in the seed);
* Lemma 3.5 as two combinators, :func:`lemma3_5_odometer` and
  :func:`lemma3_5_filter`, which turn a ``delta_i = 0`` odometer/filter into one that
  accepts ``delta_i > 0``; Theorem 3.6 (basic odometer and filter) is built with them.
  For the loss of the adversary's real view the odometer extension is refuted (errata
  R16-LEM3-5-LOSS): the odometers of Theorem 3.6, Lemma 6.4 and Theorem 6.5 refuse
  ``delta_i > 0`` (a machine-readable :class:`reference.catalog.Restriction`), and compute
  the printed extension only when called with ``lemma3_5_as_printed=True``;
* Lemma 4.1, Lemma 4.2, Theorem 4.3, Lemma 4.4 (the concentration toolkit);
* Theorem 5.1 (advanced privacy filter, eq. (12)), corrected and as printed;
* Lemma 6.3 (anti-concentration: exact crossing probability), Lemma 6.4 and
  Theorem 6.5 (advanced privacy odometer, eqs. (17)/(18)) with the granularity
  generalisation, corrected and as printed.

Every function parses its inputs exactly, evaluates in interval arithmetic and rounds
once in the direction stated in its docstring (:mod:`reference.precision`).  Decisions
(filter CONT/HALT, "does the loss exceed the odometer") are exact.  Where the printed
formula is not what its proof yields, the corrected form has the plain name and the
printed one ends in ``_as_printed`` (errata ``R16-*``, checks in
``proofs/errata_rogers2016.py``).

Notation: ``V = sum_i eps_i^2``; ``M = sum_i eps_i (e^{eps_i} - 1)/2`` (Lemma 4.4's bound on
the summed conditional mean privacy losses); ``L = log(1/delta_g)``.
"""
from __future__ import annotations

from collections import Counter
from fractions import Fraction
from typing import Callable, Sequence

import mpmath
from mpmath.ctx_mp import MPContext

from ..catalog import Param, Restriction, cites, register
from ..precision import (rational, 
    DEFAULT_DPS,
    INF,
    Domain,
    certified,
    check,
    check_dps,
    check_seq,
    compare_exp_rational,
    mpf_to_fraction,
    sign_of,
    to_exact,
)

__all__ = [
    "HALT", "CONT", "RR_OUTPUTS", "ROGERS_TO_WHITEHOUSE", "WHITEHOUSE_TO_ROGERS", "CONSTANT_28_04",
    # Definition 2.6
    "rr_output_distribution", "rr_output_law_affine", "rr_privacy_loss_distribution",
    "to_whitehouse_label", "to_rogers_label", "relabel_to_whitehouse",
    # Lemma 2.3 and exact finite-distribution checks
    "pdp_to_dp_eps", "pdp_to_dp_delta", "dp_to_pdp_eps", "dp_to_pdp_delta", "dp_to_pdp_delta_as_printed",
    "dp_delta_exceeds", "is_dp", "pointwise_bad_mass",
    # Theorems 2.9, 2.10
    "basic_composition_eps", "basic_composition_delta", "advanced_composition_eps", "advanced_composition_delta",
    # Lemma 3.5, Theorem 3.6
    "lemma3_5_odometer", "lemma3_5_filter", "basic_odometer", "basic_filter", "basic_filter_as_printed",
    "basic_filter_stop_index",
    # Section 4
    "self_normalized_bound", "hoeffding_mgf_bound", "martingale_bound", "expected_loss_bound",
    # Theorem 5.1
    "advanced_filter_K", "advanced_filter_K_as_printed", "advanced_filter", "advanced_filter_as_printed",
    "advanced_filter_stop_index", "advanced_filter_stop_index_as_printed", "advanced_filter_rounds_homogeneous",
    "advanced_filter_admits", "constant_objective", "optimal_constant",
    # Section 6
    "crossing_probability", "crossing_probability_exact", "lemma6_4_odometer", "advanced_odometer",
    "advanced_odometer_as_printed", "advanced_odometer_granular", "advanced_odometer_granular_as_printed",
    "beta_grid", "odometer_exceeded", "EpsStats", "OdometerSpec", "ODOMETER_KINDS",
]

R16 = "rogers2016"
HALT = "HALT"
CONT = "CONT"
#: The constant of eq. (12), exactly 28.04.
CONSTANT_28_04 = Fraction(2804, 100)

P = Domain.positive()
NN = Domain.nonnegative()
U = Domain.open_unit()
CU = Domain.closed_unit()
U0 = Domain.unit_nonneg()
_TIE_PREC = 1 << 14  # precision (bits) at which an undecided filter comparison is resolved conservatively



def _cites(*results: str):
    """Citations of rogers2016 for an unregistered public object (see :func:`reference.catalog.cites`)."""
    return cites(R16, *results)


# ===========================================================================
# Exact parameter parsing shared by the sequence-valued results
# ===========================================================================

@_cites("Section 3 (sufficient statistics of the realized privacy parameters)")
class EpsStats:
    """Exact sufficient statistics of realized epsilons: the multiset {eps: count}, ``V`` and ``sum eps``.

    Immutable; ``plus`` returns a new object.  Every bound of the paper for
    ``delta_i = 0`` is a function of these (Theorems 3.6, 5.1, 6.5, Lemma 6.4).
    """

    __slots__ = ("counts", "V", "S")

    def __init__(self, counts: dict | None = None):
        c = {Fraction(k): int(v) for k, v in (counts or {}).items() if v}
        self.counts = dict(sorted(c.items()))
        self.V = sum((k * k * v for k, v in self.counts.items()), Fraction(0))
        self.S = sum((k * v for k, v in self.counts.items()), Fraction(0))

    @classmethod
    def of(cls, eps: Sequence[Fraction]) -> "EpsStats":
        return cls(Counter(eps))

    def plus(self, eps: Fraction, count: int = 1) -> "EpsStats":
        c = dict(self.counts)
        c[eps] = c.get(eps, 0) + count
        return EpsStats(c)

    @property
    def n(self) -> int:
        return sum(self.counts.values())

    def flat(self) -> tuple:
        """``(eps_1, count_1, eps_2, count_2, ...)`` over the distinct nonzero epsilons (Fractions)."""
        out: list = []
        for k, v in self.counts.items():
            if k:
                out += [k, Fraction(v)]
        return tuple(out)

    def __eq__(self, other) -> bool:
        return isinstance(other, EpsStats) and self.counts == other.counts

    def __repr__(self) -> str:
        return f"EpsStats({{{', '.join(f'{k}: {v}' for k, v in self.counts.items())}}})"


def _eps_delta(eps, delta) -> tuple[tuple[Fraction, ...], tuple[Fraction, ...]]:
    es = check_seq("eps", eps, NN)
    ds = check_seq("delta", delta, U0)
    if len(es) != len(ds):
        raise ValueError(f"eps and delta must have the same length, found {len(es)} and {len(ds)}")
    return es, ds


def _check_inv_e(name: str, value, strict: bool) -> Fraction:
    """Parse ``value`` in (0, 1/e) (``strict``) or (0, 1/e], decided exactly (e is irrational)."""
    q = check(name, value, P)
    # q <= 1/e  <=>  exp(1) <= 1/q ; equality is impossible for rational q
    if q >= 1 or compare_exp_rational(Fraction(1), 1 / q) > 0:
        dom = "(0, 1/e)" if strict else "(0, 1/e]"
        raise ValueError(f"{name} must lie in {dom}, found {value!r}")
    return q


def _mu_sum(c, flat):
    """Interval of ``sum_j count_j eps_j (e^{eps_j} - 1)/2`` (Lemma 4.4 bound, summed)."""
    tot = c.mpf(0)
    for i in range(0, len(flat), 2):
        e = flat[i]
        tot = tot + flat[i + 1] * e * (c.exp(e) - 1)
    return tot / 2


def _sign_minus(formula: Callable, args: tuple, q: Fraction, *, tie: int | None) -> int:
    """Exact sign of ``formula(args) - q``.  ``tie`` is returned if 2^14 bits cannot separate them (None: raise)."""
    def diff(c, qq, *a):
        return formula(c, *a) - qq

    return sign_of(diff, (q,) + tuple(args), tie=None if tie is None else (lambda: tie), max_prec=_TIE_PREC)


# ===========================================================================
# Definition 2.6: randomized response RR_{eps, delta} : {0,1} -> {0, top, bot, 1}
# ===========================================================================

#: Outputs of RR_{eps,delta} in the paper's labels: 0 and 1 are the "delta" outputs.
RR_OUTPUTS = (0, "top", "bot", 1)
#: Relabelling of Definition 2.6 (rogers2016) onto Definition 6 (whitehouse2022) / Definition 7 (whitehouse2023).
ROGERS_TO_WHITEHOUSE = {0: "bot", "top": 0, "bot": 1, 1: "top"}
WHITEHOUSE_TO_ROGERS = {v: k for k, v in ROGERS_TO_WHITEHOUSE.items()}


def _bit(b) -> int:
    q = check("b", b, Domain.interval(0, 1, True, True))
    if q.denominator != 1:
        raise ValueError(f"b must be 0 or 1, found {b!r}")
    return int(q)


@_cites("Definition 2.6")
def rr_output_law_affine(eps, delta, b) -> dict:
    """rogers2016 Definition 2.6: the law of RR_{eps,delta}(b) as exact affine forms in s = e^eps/(1+e^eps).

    Returns ``{output: (a, c)}`` with ``P[RR(b) = output] = a + c * s`` and ``a, c`` exact
    ``Fraction``: for b = 0, ``0 -> (delta, 0)``, ``top -> (0, 1-delta)``,
    ``bot -> (1-delta, -(1-delta))``, ``1 -> (0, 0)``; b = 1 mirrors it.  Exact (no rounding).
    Preconditions: eps >= 0, delta in [0, 1], b in {0, 1}.
    """
    check("eps", eps, NN)
    d = check("delta", delta, CU)
    bb = _bit(b)
    keep, flip, zero = (Fraction(0), 1 - d), (1 - d, -(1 - d)), (Fraction(0), Fraction(0))
    if bb == 0:
        return {0: (d, Fraction(0)), "top": keep, "bot": flip, 1: zero}
    return {0: zero, "top": flip, "bot": keep, 1: (d, Fraction(0))}


def _sigmoid(c, e):
    return 1 / (1 + c.exp(-e))


@_cites("Definition 2.6")
def rr_output_distribution(eps, delta, b, *, dps: int = DEFAULT_DPS) -> dict:
    """rogers2016 Definition 2.6: probabilities of the outputs 0, 'top', 'bot', 1 of RR_{eps,delta}(b).

    ``RR(0)``: 0 w.p. delta, top w.p. (1-delta) e^eps/(1+e^eps), bot w.p. (1-delta)/(1+e^eps), 1 never;
    ``RR(1)`` is the mirror image (0 <-> 1, top <-> bot).  Rounding: each probability
    to nearest, certified to ``dps`` digits.  Preconditions: eps >= 0, delta in [0, 1], b in {0, 1}.
    """
    e = check("eps", eps, NN)
    d = check("delta", delta, CU)
    bb = _bit(b)
    keep = certified(lambda c, e, d: (1 - d) * _sigmoid(c, e), (e, d), "exact", dps)
    flip = certified(lambda c, e, d: (1 - d) * _sigmoid(c, -e), (e, d), "exact", dps)
    dd = rational(d, "exact", dps)
    z = mpmath.mpf(0)
    if bb == 0:
        return {0: dd, "top": keep, "bot": flip, 1: z}
    return {0: z, "top": flip, "bot": keep, 1: dd}


@_cites("Definition 2.6", "Definition 2.4 (privacy loss)")
def rr_privacy_loss_distribution(eps, delta, b=0, *, dps: int = DEFAULT_DPS) -> dict:
    """rogers2016 Definition 2.6: law of Loss(a) = log(P[RR(b)=a]/P[RR(1-b)=a]) for a ~ RR_{eps,delta}(b).

    Returns ``{loss: probability}``: ``+inf`` w.p. delta (the output only b can produce),
    ``+eps`` w.p. (1-delta) e^eps/(1+e^eps), ``-eps`` w.p. (1-delta)/(1+e^eps) (merged into 0
    when eps = 0).  Same for b = 0 and b = 1.  Rounding: nearest, certified.
    """
    e = check("eps", eps, NN)
    d = check("delta", delta, CU)
    _bit(b)
    out: dict = {}
    if e == 0:
        out[mpmath.mpf(0)] = certified(lambda c, d: 1 - d, (d,), "exact", dps)
    else:
        ev = rational(e, "exact", dps)
        out[ev] = certified(lambda c, e, d: (1 - d) * _sigmoid(c, e), (e, d), "exact", dps)
        out[-ev] = certified(lambda c, e, d: (1 - d) * _sigmoid(c, -e), (e, d), "exact", dps)
    if d:
        out[INF] = rational(d, "exact", dps)
    return out


@_cites("Definition 2.6 (relabelled onto whitehouse2022 Definition 6)")
def to_whitehouse_label(z):
    """rogers2016 Definition 2.6 -> whitehouse2022 Definition 6 label: 0 -> 'bot', 'top' -> 0, 'bot' -> 1, 1 -> 'top'.

    Under this bijection RR_{eps,delta}(b) of Rogers et al. has exactly the law of
    R(b) of Whitehouse et al. for both b (proved exactly in tests/test_rogers2016.py).
    """
    try:
        return ROGERS_TO_WHITEHOUSE[z]
    except (KeyError, TypeError):
        raise ValueError(f"z must be one of {RR_OUTPUTS}, found {z!r}") from None


@_cites("Definition 2.6 (relabelled from whitehouse2022 Definition 6)")
def to_rogers_label(w):
    """whitehouse2022 Definition 6 -> rogers2016 Definition 2.6 label (inverse of :func:`to_whitehouse_label`)."""
    try:
        return WHITEHOUSE_TO_ROGERS[w]
    except (KeyError, TypeError):
        raise ValueError(f"w must be one of (0, 1, 'top', 'bot'), found {w!r}") from None


@_cites("Definition 2.6 (relabelled onto whitehouse2022 Definition 6)")
def relabel_to_whitehouse(dist: dict) -> dict:
    """rogers2016 Definition 2.6: a law ``{rogers_label: p}`` re-keyed by Whitehouse et al.'s labels (values untouched)."""
    return {to_whitehouse_label(k): v for k, v in dist.items()}


# ===========================================================================
# Lemma 2.3: point-wise indistinguishability <-> indistinguishability
# ===========================================================================

_eps_p = Param("eps", P, default="1", doc="epsilon > 0")
_delta_cu = Param("delta", CU, default="1e-6", doc="delta in [0, 1]")


_LEM35_RESTRICT = ("every round (eps_i, 0)-DP (delta_i = 0), so that the loss of the adversary's real view is "
                   "bounded like that of randomized response; with delta_i > 0 the loss bound fails (errata R16-LEM3-5-LOSS)")
#: The same restriction, machine-readable: the odometers of Theorem 3.6, Lemma 6.4 and Theorem 6.5 refuse a delta
#: sequence with an element > 0 unless ``lemma3_5_as_printed=True`` asks for the printed (refuted) extension.
_LEM35 = Restriction("delta", "all zero", "R16-LEM3-5-LOSS", printed="lemma3_5_as_printed")


@register("rogers2016_lem2_3_pdp_to_dp_eps", paper=R16, result="Lemma 2.3 (first claim)", direction="exact",
          summary="(eps, delta)-point-wise indistinguishable implies (eps, delta)-indistinguishable: the epsilon eps",
          params=(Param("eps", NN, default="1", doc="epsilon >= 0"),),
          note="Holds: P(S) <= P(S and |L| <= eps) + P(|L| > eps) <= e^eps Q(S) + delta; tested exactly on random finite laws.")
def pdp_to_dp_eps(eps, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """rogers2016 Lemma 2.3, first claim: pointwise (eps, delta) gives (eps, delta)-DP; returns eps (exact, rounded to nearest)."""
    e = check("eps", eps, NN)
    return rational(e, "exact", dps)


@register("rogers2016_lem2_3_pdp_to_dp_delta", paper=R16, result="Lemma 2.3 (first claim)", direction="exact",
          summary="(eps, delta)-point-wise indistinguishable implies (eps, delta)-indistinguishable: the delta delta",
          params=(_delta_cu,))
def pdp_to_dp_delta(delta, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """rogers2016 Lemma 2.3, first claim: returns delta (exact, rounded to nearest)."""
    d = check("delta", delta, CU)
    return rational(d, "exact", dps)


@register("rogers2016_lem2_3_dp_to_pdp_eps", paper=R16, result="Lemma 2.3 (second claim)", direction="upper",
          summary="(eps, delta)-indistinguishable implies (2 eps, delta')-point-wise indistinguishable: the epsilon 2 eps",
          params=(_eps_p,))
def dp_to_pdp_eps(eps, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """rogers2016 Lemma 2.3, second claim: the point-wise epsilon ``2 eps``, rounded up. Precondition: eps > 0."""
    e = check("eps", eps, P)
    return certified(lambda c, e: 2 * e, (e,), "upper", dps)


@register("rogers2016_lem2_3_dp_to_pdp_delta_as_printed", paper=R16, result="Lemma 2.3 (second claim)", direction="exact",
          summary="Printed point-wise delta 2 delta/e^eps; FALSE for every eps > 0 (errata R16-LEM2-3-PDP)",
          params=(_eps_p, _delta_cu), provenance="as printed",
          note="Refuted by an exact two-point law (proofs/errata_rogers2016.py); the true worst case is delta (e^2eps + 1)/(e^eps (e^eps - 1)).", validity="false as printed", erratum="R16-LEM2-3-PDP")
def dp_to_pdp_delta_as_printed(eps, delta, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """rogers2016 Lemma 2.3 as printed: ``2 delta / e^eps`` (rounded to nearest).  False as printed, not a bound; see errata R16-LEM2-3-PDP."""
    e = check("eps", eps, P)
    d = check("delta", delta, CU)
    return certified(lambda c, e, d: 2 * d * c.exp(-e), (e, d), "exact", dps)


@register("rogers2016_lem2_3_dp_to_pdp_delta", paper=R16, result="Lemma 2.3 (second claim, corrected)", direction="upper",
          summary="Corrected point-wise delta: delta/(1 - e^-eps) + delta/(e^eps (e^eps - 1)) = delta (e^2eps + 1)/(e^eps (e^eps - 1))",
          params=(_eps_p, _delta_cu), provenance="corrected",
          note="Derived: on S = {L > 2eps}, P(S) <= e^eps Q(S) + delta < e^-eps P(S) + delta; on T = {L < -2eps}, "
               "e^2eps P(T) < Q(T) <= e^eps P(T) + delta. The upper-tail term is attained in the limit, so no bound "
               "below delta/(1 - e^-eps) holds. Same value as whitehouse2022 Lemma 1 (corrected).")
def dp_to_pdp_delta(eps, delta, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """rogers2016 Lemma 2.3, corrected: (eps, delta)-DP implies (2 eps, delta')-point-wise, delta' rounded up.

    ``delta' = delta/(1 - e^-eps) + delta/(e^eps (e^eps - 1)) = delta (e^{2 eps} + 1)/(e^eps (e^eps - 1))``.
    Derivation in the catalog note; the printed ``2 delta/e^eps`` is refuted by an exact
    law for every eps > 0 (errata R16-LEM2-3-PDP).  Preconditions: eps > 0, delta in [0, 1].
    The value may exceed 1 (then the conversion is vacuous).
    """
    e = check("eps", eps, P)
    d = check("delta", delta, CU)
    return certified(lambda c, e, d: d * (c.exp(2 * e) + 1) / (c.exp(e) * (c.exp(e) - 1)), (e, d), "upper", dps)


def _finite_laws(P_, Q_):
    Pq = {k: to_exact(v, f"P[{k!r}]") for k, v in dict(P_).items()}
    Qq = {k: to_exact(v, f"Q[{k!r}]") for k, v in dict(Q_).items()}
    for name, D in (("P", Pq), ("Q", Qq)):
        if any(v < 0 for v in D.values()) or sum(D.values()) != 1:
            raise ValueError(f"{name} must be a probability law (nonnegative, summing exactly to 1), found {D!r}")
    return Pq, Qq


def _ratio_exceeds_exp(p: Fraction, q: Fraction, eps: Fraction) -> bool:
    """Exact test p > e^eps q (p, q >= 0)."""
    if p == 0:
        return False
    if q == 0:
        return True
    return compare_exp_rational(eps, p / q) < 0


@_cites("Definition 2.1 (indistinguishability, decided exactly)")
def dp_delta_exceeds(P_, Q_, eps, delta) -> bool:
    """rogers2016 Definition 2.1 on finite laws: True iff some event S has P(S) > e^eps Q(S) + delta (exact).

    The worst event is S* = {a: P(a) > e^eps Q(a)}; the test P(S*) - delta > e^eps Q(S*) is
    decided with :func:`reference.precision.compare_exp_rational`.  ``P_``/``Q_`` map outcomes
    to exact probabilities (missing outcomes have probability 0).
    """
    Pq, Qq = _finite_laws(P_, Q_)
    e = check("eps", eps, NN)
    d = check("delta", delta, CU)
    keys = set(Pq) | set(Qq)
    S = [a for a in keys if _ratio_exceeds_exp(Pq.get(a, Fraction(0)), Qq.get(a, Fraction(0)), e)]
    pS = sum((Pq.get(a, Fraction(0)) for a in S), Fraction(0))
    qS = sum((Qq.get(a, Fraction(0)) for a in S), Fraction(0))
    return _ratio_exceeds_exp(pS - d, qS, e) if pS > d else False


@_cites("Definition 2.1 (indistinguishability, decided exactly)")
def is_dp(P_, Q_, eps, delta) -> bool:
    """rogers2016 Definition 2.1: True iff P and Q (finite laws, exact probabilities) are (eps, delta)-indistinguishable, both directions, exactly."""
    return not dp_delta_exceeds(P_, Q_, eps, delta) and not dp_delta_exceeds(Q_, P_, eps, delta)


@_cites("Definition 2.2 (point-wise indistinguishability, decided exactly)")
def pointwise_bad_mass(P_, Q_, eps) -> Fraction:
    """rogers2016 Definition 2.2: ``max(P(|L| > eps), Q(|L| > eps))`` with L = log(P(a)/Q(a)), exact Fraction.

    P and Q are (eps, delta)-point-wise indistinguishable iff the returned value is <= delta.
    Outcomes with P(a) > 0 = Q(a) (or the reverse) have ``|L|`` = inf.
    """
    Pq, Qq = _finite_laws(P_, Q_)
    e = check("eps", eps, NN)
    bad = [a for a in set(Pq) | set(Qq)
           if _ratio_exceeds_exp(Pq.get(a, Fraction(0)), Qq.get(a, Fraction(0)), e)
           or _ratio_exceeds_exp(Qq.get(a, Fraction(0)), Pq.get(a, Fraction(0)), e)]
    return max(sum((Pq.get(a, Fraction(0)) for a in bad), Fraction(0)), sum((Qq.get(a, Fraction(0)) for a in bad), Fraction(0)))


# ===========================================================================
# Theorems 2.9 and 2.10: composition with parameters fixed in advance
# ===========================================================================

_epsseq = Param("eps", NN, kind="sequence", default="0.1,0.2,0.05", doc="per-round epsilons eps_i >= 0")
_deltaseq = Param("delta", U0, kind="sequence", default="0,0,0", doc="per-round deltas delta_i in [0, 1)")


@register("rogers2016_thm2_9_eps", paper=R16, result="Theorem 2.9", direction="upper",
          summary="Basic composition: eps_g = sum_i eps_i", params=(_epsseq,))
def basic_composition_eps(eps: Sequence, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """rogers2016 Theorem 2.9 (basic composition): ``sum_i eps_i`` (exact rational, rounded up).

    Preconditions: non-empty sequence of eps_i >= 0 fixed in advance.
    """
    es = check_seq("eps", eps, NN)
    return rational(sum(es), "upper", dps)


@register("rogers2016_thm2_9_delta", paper=R16, result="Theorem 2.9", direction="upper",
          summary="Basic composition: delta_g = sum_i delta_i", params=(_deltaseq,))
def basic_composition_delta(delta: Sequence, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """rogers2016 Theorem 2.9 (basic composition): ``sum_i delta_i`` (exact rational, rounded up)."""
    ds = check_seq("delta", delta, U0)
    return rational(sum(ds), "upper", dps)


_k = Param("k", Domain.integers_from(1), kind="integer", default="100", doc="number of rounds k >= 1")
_dhat = Param("delta_hat", U, default="1e-6", doc="delta-hat in (0, 1)")


@register("rogers2016_thm2_10_eps", paper=R16, result="Theorem 2.10", direction="upper",
          summary="Advanced composition (DRV10 form as printed): eps_g = eps (e^eps - 1) k + eps sqrt(2 k log(1/delta_hat))",
          params=(Param("eps", NN, default="0.01", doc="per-round epsilon eps >= 0"), _k, _dhat),
          note="Lower-order term k eps (e^eps - 1) with constant 1 (Dwork-Rothblum-Vadhan 2010), twice the "
               "eps(e^eps - 1)/2 of Lemma 4.4 and larger than KOV's k eps tanh(eps/2). Checked exactly against the "
               "optimal k-fold composition of RR_{eps,delta} (binomial hockey-stick) in tests.")
def advanced_composition_eps(eps, k, delta_hat, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """rogers2016 Theorem 2.10: ``eps_g = eps (e^eps - 1) k + eps sqrt(2 k log(1/delta_hat))``, rounded up.

    Preconditions: eps >= 0, integer k >= 1, delta_hat in (0, 1) (the printed "delta_hat > 0";
    delta_hat >= 1 makes the statement vacuous and the square root undefined).
    Guarantee: interval-certified upper bound.
    """
    e = check("eps", eps, NN)
    kk = check("k", k, Domain.integers_from(1))
    dh = check("delta_hat", delta_hat, U)
    return certified(lambda c, e, k, dh: e * (c.exp(e) - 1) * k + e * c.sqrt(-2 * k * c.log(dh)), (e, kk, dh), "upper", dps)


@register("rogers2016_thm2_10_delta", paper=R16, result="Theorem 2.10", direction="upper",
          summary="Advanced composition: delta_g = k delta + delta_hat",
          params=(Param("delta", U0, default="0", doc="per-round delta in [0, 1)"), _k, _dhat))
def advanced_composition_delta(delta, k, delta_hat, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """rogers2016 Theorem 2.10: ``delta_g = k delta + delta_hat`` (exact rational, rounded up)."""
    d = check("delta", delta, U0)
    kk = check("k", k, Domain.integers_from(1))
    dh = check("delta_hat", delta_hat, U)
    return rational(kk * d + dh, "upper", dps)


# ===========================================================================
# Lemma 3.5: extending a delta_i = 0 odometer / filter to delta_i > 0
# ===========================================================================

@_cites("Lemma 3.5 (odometer part)")
def lemma3_5_odometer(pure_odometer: Callable, delta_prime_g) -> Callable:
    """rogers2016 Lemma 3.5: turn a valid ``delta_i = 0`` odometer into one for arbitrary delta_i.

    The construction as printed: the returned ``odometer(eps, delta, *, dps)`` returns ``inf``
    when ``sum_i delta_i > delta'_g`` (exact rational test) and ``pure_odometer(eps)`` otherwise,
    where ``pure_odometer(eps_seq, *, dps)`` (a tuple of exact eps_i -> mpf rounded up) is a valid
    privacy odometer with failure probability delta_g when every delta_i = 0.
    Guarantee: with every delta_i = 0 it is that odometer.  The printed claim (failure probability
    ``delta_g + delta'_g`` for delta_i > 0) holds for the randomized-response view of the proof,
    whose delta_i outcomes reveal the input, but not for the loss of the adversary's real view
    (errata R16-LEM3-5-LOSS); the catalog odometers built with it (Theorem 3.6, Lemma 6.4,
    Theorem 6.5) therefore refuse delta_i > 0 unless called with ``lemma3_5_as_printed=True``.
    Preconditions: delta'_g >= 0.  The returned function validates its own inputs.
    """
    dpg = check("delta_prime_g", delta_prime_g, NN)

    def odometer(eps, delta, *, dps: int = DEFAULT_DPS):
        es, ds = _eps_delta(eps, delta)
        check_dps(dps)
        if sum(ds) > dpg:
            return INF
        return pure_odometer(es, dps=dps)

    odometer.__doc__ = f"rogers2016 Lemma 3.5 extension (delta'_g = {dpg}) of {getattr(pure_odometer, '__name__', 'an odometer')}."
    odometer.__citations__ = lemma3_5_odometer.__citations__
    odometer.pure = pure_odometer
    odometer.delta_prime_g = dpg
    return odometer


@_cites("Lemma 3.5 (filter part)")
def lemma3_5_filter(pure_filter: Callable, delta_prime_g) -> Callable:
    """rogers2016 Lemma 3.5: turn a valid ``delta_i = 0`` filter into one for arbitrary delta_i.

    Contract: if ``pure_filter(eps_seq)`` (tuple of exact eps_i -> ``'CONT'``/``'HALT'`` or
    True/False for CONT/HALT) is a valid filter for (eps_g, delta_g) when every delta_i = 0,
    the returned ``filt(eps, delta) -> 'CONT' | 'HALT'`` is a valid filter for
    (eps_g, delta_g + delta'_g): HALT when ``sum_i delta_i > delta'_g`` (exact), else the
    pure filter's answer.  Preconditions: delta'_g >= 0.
    """
    dpg = check("delta_prime_g", delta_prime_g, NN)

    def filt(eps, delta) -> str:
        es, ds = _eps_delta(eps, delta)
        if sum(ds) > dpg:
            return HALT
        r = pure_filter(es)
        if r in (True, CONT):
            return CONT
        if r in (False, HALT):
            return HALT
        raise TypeError(f"pure_filter must return 'CONT'/'HALT' or a bool, found {r!r}")

    filt.__doc__ = f"rogers2016 Lemma 3.5 extension (delta'_g = {dpg}) of {getattr(pure_filter, '__name__', 'a filter')}."
    filt.__citations__ = lemma3_5_filter.__citations__
    filt.pure = pure_filter
    filt.delta_prime_g = dpg
    return filt


def _lem35_odometer(spec: "OdometerSpec", eps, delta, dps: int, as_printed, where: str) -> mpmath.mpf:
    """The Lemma 3.5 odometer of ``spec`` at (eps, delta): refuses delta_i > 0 (``_LEM35``) unless ``as_printed`` is True."""
    if as_printed is not True and as_printed is not False:
        raise TypeError(f"lemma3_5_as_printed must be True or False, found {type(as_printed).__name__} {as_printed!r}")
    es, ds = _eps_delta(eps, delta)
    if not as_printed:
        _LEM35.enforce(where, ds)
    return spec.odometer()(es, ds, dps=dps)


# ===========================================================================
# Theorem 3.6: basic composition odometer and filter
# ===========================================================================

_dpg = Param("delta_prime_g", Domain.nonnegative(), default="1e-6", doc="budget delta'_g >= 0 for the sum of the deltas")


@register("rogers2016_thm3_6_odometer", paper=R16, result="Theorem 3.6 (odometer)", direction="upper",
          summary="Basic odometer sum eps_i for (eps_i, 0)-DP rounds (delta_i > 0 refused: the printed extension is not a loss bound)",
          params=(_epsseq, _deltaseq, _dpg),
          note="Lemma 3.5 applied to the pure odometer sum eps_i, whose failure probability is 0.", validity="valid under a restriction", erratum="R16-LEM3-5-LOSS", restriction=_LEM35_RESTRICT, checks=(_LEM35,))
def basic_odometer(eps: Sequence, delta: Sequence, delta_prime_g, *, dps: int = DEFAULT_DPS,
                   lemma3_5_as_printed: bool = False) -> mpmath.mpf:
    """rogers2016 Theorem 3.6 (odometer): ``sum_i eps_i`` (rounded up), a privacy odometer for (eps_i, 0)-DP rounds.

    Built as ``lemma3_5_odometer(sum eps_i, delta'_g)``; with every delta_i = 0 it holds on every
    view (failure probability 0).  Preconditions: equal-length sequences, eps_i >= 0,
    delta_i in [0, 1), delta'_g >= 0.

    **Restriction** (errata R16-LEM3-5-LOSS): every delta_i = 0; a delta sequence with an element > 0
    raises ``ValueError``, because with delta_i > 0 the loss of the adversary's real view is not
    bounded (one (0, 1/10)-DP round has ``|Loss|`` = log(10/9) > COMP surely).
    ``lemma3_5_as_printed=True`` computes the printed Lemma 3.5 extension anyway (``inf`` once
    sum delta_i exceeds the threshold, else the pure odometer): the refuted claim, not a bound.
    """
    return _lem35_odometer(OdometerSpec("basic", delta_prime_g=delta_prime_g), eps, delta, dps, lemma3_5_as_printed,
                           "rogers2016_thm3_6_odometer")


def _basic_pure_filter(eg: Fraction) -> Callable:
    def pure(es) -> bool:
        return sum(es, Fraction(0)) <= eg

    pure.__name__ = f"sum_eps_le_{eg}"
    return pure


@_cites("Theorem 3.6 (filter, corrected: delta'_g read as delta_g)")
def basic_filter(eps: Sequence, delta: Sequence, eps_g, delta_g) -> str:
    """rogers2016 Theorem 3.6 (filter): ``'HALT'`` if sum delta_i > delta_g or sum eps_i > eps_g, else ``'CONT'``.

    Exact rational decision, built as ``lemma3_5_filter(sum eps_i <= eps_g, delta_g)``.  The
    seed prints the delta threshold as the undefined delta'_g; it must be delta_g
    (errata R16-THM3-6-DELTA).  Preconditions: eps_g >= 0, delta_g >= 0.
    """
    eg = check("eps_g", eps_g, NN)
    dg = check("delta_g", delta_g, NN)
    return lemma3_5_filter(_basic_pure_filter(eg), dg)(eps, delta)


@_cites("Theorem 3.6 (filter, as printed with a free delta'_g)")
def basic_filter_as_printed(eps: Sequence, delta: Sequence, eps_g, delta_g, delta_prime_g) -> str:
    """rogers2016 Theorem 3.6 (filter) as printed: HALT iff sum delta_i > delta'_g or sum eps_i > eps_g.

    ``delta_g`` does not enter the rule as printed (only the validity claim); it is validated and
    otherwise ignored.  Valid only when delta'_g <= delta_g (errata R16-THM3-6-DELTA).
    """
    check("delta_g", delta_g, NN)
    eg = check("eps_g", eps_g, NN)
    return lemma3_5_filter(_basic_pure_filter(eg), delta_prime_g)(eps, delta)


@register("rogers2016_thm3_6_stop_index", paper=R16, result="Theorem 3.6 (filter)", direction="exact", returns="int",
          summary="Rounds run by the basic filter in PrivacyFilterComp (Algorithm 3): first i with sum_{j<=i} delta_j > delta_g or sum eps_j > eps_g, minus 1",
          params=(_epsseq, _deltaseq, Param("eps_g", NN, default="0.3", doc="budget eps_g >= 0"),
                  Param("delta_g", NN, default="1e-6", doc="budget delta_g >= 0")),
          provenance="corrected", note="delta'_g of the printed rule read as delta_g (errata R16-THM3-6-DELTA).")
def basic_filter_stop_index(eps: Sequence, delta: Sequence, eps_g, delta_g) -> int:
    """rogers2016 Theorem 3.6 (filter) in Algorithm 3: the number of rounds run before the first HALT (exact).

    Round i runs iff COMP(eps_1, delta_1, ..., eps_i, delta_i) = CONT.  Returns len(eps) if
    no listed round halts.
    """
    es, ds = _eps_delta(eps, delta)
    eg = check("eps_g", eps_g, NN)
    dg = check("delta_g", delta_g, NN)
    S = D = Fraction(0)
    for i, (e, d) in enumerate(zip(es, ds)):
        S += e
        D += d
        if D > dg or S > eg:
            return i
    return len(es)


# ===========================================================================
# Section 4: Lemma 4.1, Lemma 4.2, Theorem 4.3, Lemma 4.4
# ===========================================================================

_delta_e = Param("delta", Domain.interval(0, Fraction(36787944117144232, 10**17), False, True), default="1e-6",
                 doc="failure probability delta in (0, 1/e] (checked exactly against 1/e)")
_beta = Param("beta", P, default="0.01", doc="tuning parameter beta > 0 (fixed in advance)")


def _self_normalized(c, B2, beta, d):
    return c.sqrt((B2 + beta) * (2 + c.log(B2 / beta + 1)) * (-c.log(d)))


@register("rogers2016_lem4_1", paper=R16, result="Lemma 4.1", direction="upper",
          summary="Self-normalized bound: P[|A| >= sqrt((B^2 + beta)(2 + log(B^2/beta + 1)) log(1/delta))] <= delta",
          params=(Param("B2", NN, default="1", doc="the (realized) B^2 >= 0"), _beta, _delta_e),
          note="de la Pena, Klass, Lai (2004) Corollary 2.2 with x^2 = 2 log(1/delta); x >= sqrt(2) is delta <= 1/e.")
def self_normalized_bound(B2, beta, delta, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """rogers2016 Lemma 4.1: ``sqrt((B^2 + beta)(2 + log(B^2/beta + 1)) log(1/delta))``, rounded up.

    Contract: if E[exp(lambda A - lambda^2 B^2/2)] <= 1 for all real lambda, then ``|A|`` reaches
    this value (with the random B^2) with probability at most delta.
    Preconditions: B^2 >= 0, beta > 0 fixed in advance, 0 < delta <= 1/e (decided exactly;
    ``ValueError`` otherwise).
    """
    b2 = check("B2", B2, NN)
    be = check("beta", beta, P)
    d = _check_inv_e("delta", delta, strict=False)
    return certified(_self_normalized, (b2, be, d), "upper", dps)


@register("rogers2016_lem4_2_mgf", paper=R16, result="Lemma 4.2", direction="upper",
          summary="Hoeffding step of exp(lambda M_k - lambda^2 U_k^2/8): E[exp(lambda X) | F] <= exp(lambda^2 (D - C)^2/8)",
          params=(Param("lam", Domain(), default="1", doc="lambda (any real)"),
                  Param("width", NN, default="2", doc="D_i - C_i >= 0 (predictable range of X_i)")),
          note="van de Geer (2002) Lemma 2.4: the one-step inequality behind the supermartingale; checked exactly for RR steps.")
def hoeffding_mgf_bound(lam, width, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """rogers2016 Lemma 4.2 (one step): ``exp(lambda^2 (D - C)^2 / 8)``, rounded up.

    Contract: a mean-zero X in [C, D] with C, D predictable has
    E[exp(lambda X) | F_{i-1}] <= this value; hence exp(lambda M_k - lambda^2 U_k^2/8) is a
    supermartingale.  Preconditions: lambda real, width = D - C >= 0.
    """
    la = check("lam", lam, Domain())
    w = check("width", width, NN)
    return certified(lambda c, q: c.exp(q), (la * la * w * w / 8,), "upper", dps)


def _thm4_3(c, U2, beta, d):
    return c.sqrt((U2 / 4 + beta) * (2 + c.log(U2 / (4 * beta) + 1)) * (-c.log(d)))


@register("rogers2016_thm4_3", paper=R16, result="Theorem 4.3", direction="upper",
          summary="P[|M_k| >= sqrt((U_k^2/4 + beta)(2 + log(U_k^2/(4 beta) + 1)) log(1/delta))] <= delta",
          params=(Param("U2", NN, default="4", doc="U_k^2 = sum_i (D_i - C_i)^2 >= 0"), _beta, _delta_e),
          note="Lemma 4.1 with A = M_k and B^2 = U_k^2/4 (Lemma 4.2 gives condition (8)); test checks the identity.")
def martingale_bound(U2, beta, delta, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """rogers2016 Theorem 4.3: ``sqrt((U^2/4 + beta)(2 + log(U^2/(4 beta) + 1)) log(1/delta))``, rounded up.

    Contract: for the martingale (9) with predictable ranges (Lemma 4.2), fixed k >= 1,
    fixed beta > 0 and delta <= 1/e, ``|M_k|`` reaches this value (at the realized U_k^2)
    with probability at most delta.  Preconditions: U^2 >= 0, beta > 0, 0 < delta <= 1/e
    (exact check; ``ValueError`` naming ``delta`` otherwise).
    """
    u2 = check("U2", U2, NN)
    be = check("beta", beta, P)
    d = _check_inv_e("delta", delta, strict=False)
    return certified(_thm4_3, (u2, be, d), "upper", dps)


@register("rogers2016_lem4_4", paper=R16, result="Lemma 4.4", direction="upper",
          summary="Conditional mean privacy loss of an (eps, 0)-DP step: mu_i <= eps (e^eps - 1)/2",
          params=(Param("eps", NN, default="0.1", doc="epsilon >= 0"),),
          note="Dwork-Rothblum 2016. The exact maximum (randomized response) is eps tanh(eps/2) <= eps^2/2 <= eps(e^eps - 1)/2.")
def expected_loss_bound(eps, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """rogers2016 Lemma 4.4: ``eps (e^eps - 1)/2``, rounded up. Precondition: eps >= 0."""
    e = check("eps", eps, NN)
    return certified(lambda c, e: e * (c.exp(e) - 1) / 2, (e,), "upper", dps)


# ===========================================================================
# Theorem 5.1: the advanced privacy filter, eq. (12)
# ===========================================================================

def _K_formula(printed: bool) -> Callable:
    """Interval formula of K, eq. (12): args (V, eps_g, delta_g, constant, *flat)."""
    def f(c, V, eg, dg, const, *flat):
        L = -c.log(dg)
        beta = eg * eg / (const * L)
        core = 2 * (V + beta) * (1 + c.log(V / beta + 1) / 2)
        l2 = c.log(2) - c.log(dg)
        tail = c.sqrt(core) * l2 if printed else c.sqrt(core * l2)
        return _mu_sum(c, flat) + tail
    return f


_K_CORRECTED = _K_formula(False)
_K_PRINTED = _K_formula(True)


def _thm5_1_params(eps_g, delta_g, constant):
    eg = check("eps_g", eps_g, P)
    dg = _check_inv_e("delta_g", delta_g, strict=True)
    const = check("constant", constant, P)
    return eg, dg, const


_epsg = Param("eps_g", P, default="1", doc="privacy budget eps_g > 0")
_deltag = Param("delta_g", Domain.interval(0, Fraction(36787944117144232, 10**17), False, True), default="1e-6",
                doc="global delta_g in (0, 1/e) (checked exactly)")
_const = Param("constant", P, default="28.04", doc="the constant of eq. (12) (28.04 in the paper)")


@register("rogers2016_thm5_1_k", paper=R16, result="Theorem 5.1", equation="(12)", direction="upper",
          summary="Advanced filter statistic K = sum eps_j(e^eps_j - 1)/2 + sqrt(2 (V + beta)(1 + log(V/beta + 1)/2) log(2/delta_g)), beta = eps_g^2/(28.04 log(1/delta_g))",
          params=(_epsseq, _epsg, _deltag, _const), provenance="re-derived from the described proof",
          note="The proof applies Theorem 4.3 with delta = delta_g/2, U_k^2 = 4 V, beta = eps_g^2/(28.04 log(1/delta_g)): "
               "log(2/delta_g) belongs INSIDE the square root (eq. (12) prints it outside; errata R16-EQ12-LOG). "
               "The sum term eps_j(e^eps_j - 1)/2 is Lemma 4.4 (the proof's last line drops the /2; errata R16-THM5-1-HALF). "
               "Equals Lemma 6.4 at that beta.")
def advanced_filter_K(eps: Sequence, eps_g, delta_g, constant=CONSTANT_28_04, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """rogers2016 Theorem 5.1, eq. (12) as derived: the filter statistic K, rounded up.

    ``K = sum_j eps_j (e^{eps_j} - 1)/2 + sqrt(2 (V + beta)(1 + log(V/beta + 1)/2) log(2/delta_g))``
    with ``V = sum eps_i^2`` and ``beta = eps_g^2 / (constant * log(1/delta_g))``.
    The filter halts when K > eps_g (or sum delta_i > delta_g/2).
    Preconditions: eps_i >= 0, eps_g > 0, delta_g in (0, 1/e) (exact), constant > 0.
    Deviation from eq. (12): log(2/delta_g) is inside the square root, as Theorem 4.3 yields
    (errata R16-EQ12-LOG).
    """
    es = check_seq("eps", eps, NN)
    eg, dg, const = _thm5_1_params(eps_g, delta_g, constant)
    st = EpsStats.of(es)
    return certified(_K_CORRECTED, (st.V, eg, dg, const) + st.flat(), "upper", dps)


@register("rogers2016_thm5_1_k_as_printed", paper=R16, result="Theorem 5.1", equation="(12)", direction="upper",
          summary="Eq. (12) as printed: log(2/delta_g) multiplies the square root (larger than the derived K whenever delta_g < 2/e)",
          params=(_epsseq, _epsg, _deltag, _const), provenance="as printed",
          note="See errata R16-EQ12-LOG: a valid but loose filter (it halts earlier than the derived one).")
def advanced_filter_K_as_printed(eps: Sequence, eps_g, delta_g, constant=CONSTANT_28_04, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """rogers2016 Theorem 5.1, eq. (12) exactly as printed (log(2/delta_g) outside the square root), rounded up."""
    es = check_seq("eps", eps, NN)
    eg, dg, const = _thm5_1_params(eps_g, delta_g, constant)
    st = EpsStats.of(es)
    return certified(_K_PRINTED, (st.V, eg, dg, const) + st.flat(), "upper", dps)


def advanced_filter_admits(stats: EpsStats, eps_g: Fraction, delta_g: Fraction, constant: Fraction = CONSTANT_28_04,
                           *, printed: bool = False) -> bool:
    """rogers2016 Theorem 5.1: exact test ``K <= eps_g`` for the statistics ``stats`` of the realized eps_i.

    Inputs must already be validated ``Fraction`` values.  Decided by interval refinement;
    if K and eps_g cannot be separated at 2^14 bits the step is refused (conservative;
    such a tie would need K = eps_g exactly, which no rational input is known to give).
    """
    f = _K_PRINTED if printed else _K_CORRECTED
    return _sign_minus(f, (stats.V, eps_g, delta_g, constant) + stats.flat(), eps_g, tie=1) <= 0


advanced_filter_admits = _cites("Theorem 5.1")(advanced_filter_admits)


def _advanced_pure_filter(eg, dg, const, printed):
    def pure(es) -> bool:
        return advanced_filter_admits(EpsStats.of(es), eg, dg, const, printed=printed)

    pure.__name__ = "K_le_eps_g" + ("_as_printed" if printed else "")
    return pure


@_cites("Theorem 5.1")
def advanced_filter(eps: Sequence, delta: Sequence, eps_g, delta_g, constant=CONSTANT_28_04) -> str:
    """rogers2016 Theorem 5.1 (derived form): ``'HALT'`` if sum delta_i > delta_g/2 or K > eps_g, else ``'CONT'``.

    Built as ``lemma3_5_filter(K <= eps_g, delta_g/2)``: the pure filter fails with
    probability delta_g/2 (Theorem 4.3 at delta_g/2), the delta budget adds delta_g/2.
    Exact decision (see :func:`advanced_filter_admits`).
    """
    eg, dg, const = _thm5_1_params(eps_g, delta_g, constant)
    return lemma3_5_filter(_advanced_pure_filter(eg, dg, const, False), dg / 2)(eps, delta)


@_cites("Theorem 5.1 (eq. (12) as printed)")
def advanced_filter_as_printed(eps: Sequence, delta: Sequence, eps_g, delta_g, constant=CONSTANT_28_04) -> str:
    """rogers2016 Theorem 5.1 with eq. (12) as printed: HALT if sum delta_i > delta_g/2 or K_printed > eps_g."""
    eg, dg, const = _thm5_1_params(eps_g, delta_g, constant)
    return lemma3_5_filter(_advanced_pure_filter(eg, dg, const, True), dg / 2)(eps, delta)


def _adv_stop(eps, delta, eps_g, delta_g, constant, printed) -> int:
    es, ds = _eps_delta(eps, delta)
    eg, dg, const = _thm5_1_params(eps_g, delta_g, constant)
    st, D = EpsStats(), Fraction(0)
    for i, (e, d) in enumerate(zip(es, ds)):
        st, D = st.plus(e), D + d
        if D > dg / 2 or not advanced_filter_admits(st, eg, dg, const, printed=printed):
            return i
    return len(es)


_epsseq_f = Param("eps", NN, kind="sequence", default="0.05,0.05,0.1,0.05", doc="per-round epsilons eps_i >= 0")


@register("rogers2016_thm5_1_stop_index", paper=R16, result="Theorem 5.1", direction="exact", returns="int",
          summary="Rounds run by the advanced filter in Algorithm 3 (derived eq. (12)): first i with sum delta > delta_g/2 or K > eps_g, minus 1",
          params=(_epsseq_f, Param("delta", U0, kind="sequence", default="0,0,0,0", doc="per-round deltas"), _epsg, _deltag, _const),
          provenance="re-derived from the described proof")
def advanced_filter_stop_index(eps: Sequence, delta: Sequence, eps_g, delta_g, constant=CONSTANT_28_04) -> int:
    """rogers2016 Theorem 5.1 in Algorithm 3: number of rounds run before the first HALT (exact decisions)."""
    return _adv_stop(eps, delta, eps_g, delta_g, constant, False)


@register("rogers2016_thm5_1_stop_index_as_printed", paper=R16, result="Theorem 5.1", direction="exact", returns="int",
          summary="Rounds run by the advanced filter with eq. (12) as printed",
          params=(_epsseq_f, Param("delta", U0, kind="sequence", default="0,0,0,0", doc="per-round deltas"), _epsg,
                  _deltag, _const),
          provenance="as printed")
def advanced_filter_stop_index_as_printed(eps: Sequence, delta: Sequence, eps_g, delta_g, constant=CONSTANT_28_04) -> int:
    """rogers2016 Theorem 5.1 (eq. (12) as printed) in Algorithm 3: rounds run before the first HALT (exact)."""
    return _adv_stop(eps, delta, eps_g, delta_g, constant, True)


@register("rogers2016_thm5_1_rounds_homogeneous", paper=R16, result="Theorem 5.1", direction="exact", returns="int",
          summary="Rounds the advanced filter (derived eq. (12)) admits for a homogeneous workload (eps0, delta0)",
          params=(Param("eps0", P, default="0.01", doc="per-round epsilon > 0"),
                  Param("delta0", U0, default="0", doc="per-round delta in [0, 1)"), _epsg, _deltag, _const),
          provenance="re-derived from the described proof",
          note="K is increasing in k, so the count is found by exact bisection on k.")
def advanced_filter_rounds_homogeneous(eps0, delta0, eps_g, delta_g, constant=CONSTANT_28_04, *, printed: bool = False) -> int:
    """rogers2016 Theorem 5.1: ``max{k: K(k copies of eps0) <= eps_g and k delta0 <= delta_g/2}`` (exact).

    K grows with k, so the answer is found by bisection with exact decisions.  ``printed=True``
    uses eq. (12) as printed.
    """
    e0 = check("eps0", eps0, P)
    d0 = check("delta0", delta0, U0)
    eg, dg, const = _thm5_1_params(eps_g, delta_g, constant)

    def ok(k):
        return k == 0 or advanced_filter_admits(EpsStats({e0: k}), eg, dg, const, printed=printed)

    if not ok(1):
        k = 0
    else:
        hi = 2
        while ok(hi):
            hi *= 2
        lo = hi // 2  # ok(lo), not ok(hi)
        while hi - lo > 1:
            mid = (lo + hi) // 2
            lo, hi = (mid, hi) if ok(mid) else (lo, mid)
        k = lo
    if d0 > 0:
        k = min(k, int((dg / 2) / d0))
    return k


@register("rogers2016_thm5_1_constant_objective", paper=R16, result="Theorem 5.1 (remark after eq. (12))", direction="upper",
          summary="g(c) = (1 + 8/c)(1 + log(1 + c/8)/2): K's square root at eps_i = eps, eps_g = eps sqrt(8 k log(1/delta_g)) is eps sqrt(2 k g(c) log(2/delta_g))",
          params=(Param("constant", P, default="28.04", doc="the constant c > 0"),), provenance="derived",
          note="With V = k eps^2 and eps_g^2 = 8 V log(1/delta_g): beta = 8V/c, so V + beta = V(1 + 8/c) and V/beta = c/8.")
def constant_objective(constant, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """rogers2016 Theorem 5.1, remark on 28.04: ``g(c) = (1 + 8/c)(1 + log(1 + c/8)/2)`` rounded up; minimised at c*.

    Derivation: at eps_i = eps (k rounds) and eps_g = eps sqrt(8 k log(1/delta_g)), the square
    root term of K is ``eps sqrt(2 k g(c) log(2/delta_g))`` whatever eps, k, delta_g.
    """
    cc = check("constant", constant, P)
    return certified(lambda c, x: (1 + 8 / x) * (1 + c.log(1 + x / 8) / 2), (cc,), "upper", dps)


def _optimal_u(dps: int):
    """Root u* > 1 of u - log u = 3, as a rigorous interval ``(lo, hi)`` of Fractions."""
    mp = MPContext()
    mp.dps = dps + 30
    u = mp.findroot(lambda x: x - mp.log(x) - 3, mp.mpf("4.5"))
    h = mp.mpf(10) ** -(dps + 20) * u
    lo, hi = mpf_to_fraction(mp.mpf(u - h)), mpf_to_fraction(mp.mpf(u + h))
    f = lambda c, x: x - c.log(x) - 3  # increasing on (1, inf)
    if not (sign_of(f, (lo,)) < 0 < sign_of(f, (hi,))):  # pragma: no cover - findroot converged elsewhere
        raise ArithmeticError("could not bracket u* - log u* = 3")
    return lo, hi


@register("rogers2016_thm5_1_optimal_constant", paper=R16, result="Theorem 5.1 (remark after eq. (12))", direction="exact",
          summary="The minimiser c* = 8 (u* - 1) of g(c), u* - log u* = 3: c* = 28.0418..., so 28.04 is c* to 4 digits",
          params=(), provenance="derived",
          note="g'(c) = 0 <=> t = 2 + log(1 + t) with t = c/8; at the optimum 2 g(c*) = 1 + t* = u*. "
               "Certified by a bracketing sign change of u - log u - 3 (increasing on (1, inf)).")
def optimal_constant(*, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """rogers2016 Theorem 5.1, remark: the constant c* minimising :func:`constant_objective`, to nearest.

    ``c* = 8 (u* - 1)`` where ``u* > 1`` solves ``u - log u = 3``; the paper's 28.04 is c*
    truncated to four significant digits (c* = 28.0418...).  Guarantee: u* is enclosed by an
    exact sign change, then rounded once.
    """
    dps = check_dps(dps)
    lo, hi = _optimal_u(dps)
    return certified(lambda c, a, b: 8 * (c.mpf([a.a, b.b]) - 1), (lo, hi), "exact", dps)


# ===========================================================================
# Lemma 6.3: anti-concentration, exact crossing probability
# ===========================================================================

#: Largest horizon n of the exact O(n^2) dynamic programme of Lemma 6.3.
CROSSING_MAX_N = 4000


@_cites("Lemma 6.3 (exact crossing probability)")
def crossing_probability_exact(gamma, C, delta, n) -> Fraction:
    """rogers2016 Lemma 6.3: exact ``P[exists t in [n]: M_t >= C sigma sqrt(t log(log(n)/delta))]``.

    M_t = sum_{i<=t} (xi_i - mu) for i.i.d. xi_i in {-1, +1} with P[xi = 1] = gamma, mu = 2 gamma - 1,
    sigma^2 = 1 - mu^2 (eq. (14)-(15)).  Computed by dynamic programming over the number of +1's
    with integer weights over the common denominator q^t (gamma = p/q), so the result is an
    exact ``Fraction``; each crossing threshold is decided exactly by interval refinement.
    Preconditions: gamma rational in [1/2, 1), C > 0, delta > 0 with log(n) > delta, integer n >= 2.
    Cost O(n^2) big-integer operations (n = 2000 takes seconds), so n is limited to
    ``CROSSING_MAX_N`` (a larger n is refused at once with a ``ValueError`` naming n).
    """
    g = check("gamma", gamma, Domain.interval(Fraction(1, 2), 1, True, False))
    Cq = check("C", C, P)
    d = check("delta", delta, P)
    nn = int(check("n", n, Domain.integers_from(2)))
    if nn > CROSSING_MAX_N:
        raise ValueError(f"n must be at most {CROSSING_MAX_N} for the exact crossing probability (its cost grows as n^2), found {n!r}")
    # log(n)/delta > 1  <=>  n > e^delta
    if compare_exp_rational(d, Fraction(nn)) >= 0:
        raise ValueError(f"delta must satisfy log(n) > delta (so that log(log(n)/delta) > 0), found delta={delta!r}, n={nn}")
    mu = 2 * g - 1
    s2 = 1 - mu * mu
    p, q = g.numerator, g.denominator
    w = [1]  # w[j] / q^t = P[j plus-ones after t steps, not yet crossed]
    crossed = Fraction(0)

    def crosses(j: int, t: int) -> bool:
        x = 2 * j - t * (1 + mu)
        if x < 0:
            return False
        # x >= C sigma sqrt(t l)  <=>  x^2 / (C^2 sigma^2 t) >= l = log(log(n)/delta)
        A = x * x / (Cq * Cq * s2 * t)
        return sign_of(lambda c, a, dd, m: a - c.log(c.log(m) / dd), (A, d, Fraction(nn))) >= 0

    jmin_prev = 0
    for t in range(1, nn + 1):
        nw = [0] * (len(w) + 1)
        for j, x in enumerate(w):
            if x:
                nw[j] += x * (q - p)
                nw[j + 1] += x * p
        # smallest crossing j at time t (crossing is monotone in j)
        lo = max(0, jmin_prev - 1)
        while lo <= t and not crosses(lo, t):
            lo += 1
        while lo > 0 and crosses(lo - 1, t):
            lo -= 1
        jmin_prev = lo
        if lo <= t:
            crossed += Fraction(sum(nw[lo:]), q ** t)
            nw = nw[:lo]
        w = nw
    return crossed


@register("rogers2016_lem6_3_crossing_probability", paper=R16, result="Lemma 6.3", direction="exact",
          summary="P[exists t <= n: M_t >= C sigma sqrt(t log(log(n)/delta))] for the +-1 walk of eq. (14)-(15), exact",
          params=(Param("gamma", Domain.interval(Fraction(1, 2), 1, True, False), default="1/2", doc="P[xi = 1] in [1/2, 1)"),
                  Param("C", P, default="1/2", doc="the constant C > 0"), Param("delta", P, default="0.1", doc="delta > 0"),
                  Param("n", Domain.integers_from(2), kind="integer", default="50", doc="horizon n >= 2")),
          provenance="derived",
          note="Lemma 6.3 asserts this is >= delta for some C and n large; the function gives the exact value to check it.")
def crossing_probability(gamma, C, delta, n, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """rogers2016 Lemma 6.3: the crossing probability of :func:`crossing_probability_exact`, rounded to nearest."""
    return rational(crossing_probability_exact(gamma, C, delta, n), "exact", dps)


# ===========================================================================
# Lemma 6.4 and Theorem 6.5: advanced privacy odometers
# ===========================================================================

def _lemma6_4_formula(c, V, beta, dg, *flat):
    return _mu_sum(c, flat) + c.sqrt(2 * (V + beta) * (1 + c.log(V / beta + 1) / 2) * (c.log(2) - c.log(dg)))


def _ceil_log2_inv(g: Fraction) -> int:
    """ceil(log2(1/g)) for 0 < g < 1, exactly: the least m with 2^m g >= 1."""
    m = max(0, (g.denominator // g.numerator).bit_length() - 1)
    while Fraction(2) ** m * g < 1:
        m += 1
    while m > 0 and Fraction(2) ** (m - 1) * g >= 1:
        m -= 1
    return m


@_cites("Theorem 6.5 (proof: the grid D_n of beta values)")
def beta_grid(gamma) -> tuple[Fraction, ...]:
    """rogers2016 Theorem 6.5 proof: the smallest doubling grid ``{gamma, 2 gamma, ..., 2^{m-1} gamma}`` covering [gamma, 1].

    Every V in [gamma, 1] has a grid point beta with V/2 <= beta <= V (ratio V/beta in [1, 2]),
    which is what (17) uses.  m = max(1, ceil(log2(1/gamma))).  The printed
    D_n = {1/n^2, 2/n^2, ..., 1/2, 1} adds the unneeded point 1 (errata R16-THM6-5-UNION).
    """
    g = check("gamma", gamma, U)
    m = max(1, _ceil_log2_inv(g))
    return tuple(g * 2**j for j in range(m))


def _thm6_5_formula(in_range: bool, log_arg: Callable) -> Callable:
    """Interval formula of eq. (17) (``in_range``) or (18), F = log(log_arg(c, gamma)/delta_g); args (V, gamma, delta_g, *flat)."""
    if in_range:
        def f(c, V, g, dg, *fl):
            F = c.log(log_arg(c, g)) - c.log(dg)
            return _mu_sum(c, fl) + 2 * c.sqrt(V * (1 + c.log(3) / 2) * F)
    else:
        def f(c, V, g, dg, *fl):
            F = c.log(log_arg(c, g)) - c.log(dg)
            return _mu_sum(c, fl) + c.sqrt(2 * (g + V) * (1 + c.log(1 + V / g) / 2) * F)
    return f


ODOMETER_KINDS = ("basic", "lemma6_4", "thm6_5", "thm6_5_as_printed", "granular", "granular_as_printed")


@_cites("Theorem 3.6 (odometer)", "Lemma 6.4", "Theorem 6.5", "Lemma 3.5")
class OdometerSpec:
    """rogers2016 odometers as data: a ``delta_i = 0`` odometer plus the Lemma 3.5 threshold delta'_g.

    ``kind`` and its parameters (validated exactly):

    * ``'basic'`` (Theorem 3.6): ``delta_prime_g``; pure odometer ``sum eps_i`` (failure 0).
    * ``'lemma6_4'`` (Lemma 6.4): ``delta_g`` in (0, 1/e), ``beta`` > 0; threshold delta_g/2.
    * ``'thm6_5'`` / ``'thm6_5_as_printed'`` (Theorem 6.5): ``delta_g``, integer ``n`` >= 2.
    * ``'granular'`` / ``'granular_as_printed'`` (remark after Theorem 6.5): ``delta_g``, ``gamma``.

    :meth:`value` is the odometer COMP (rounded up; ``inf`` once sum delta_i > delta'_g);
    :meth:`exceeded` decides ``|Loss| > COMP`` exactly.  Both take the exact statistics
    (:class:`EpsStats`) of the realized eps_i and the exact sum of the delta_i.
    """

    def __init__(self, kind: str, **params):
        if kind not in ODOMETER_KINDS:
            raise ValueError(f"kind must be one of {ODOMETER_KINDS}, found {kind!r}")
        self.kind = kind
        want = {"basic": ("delta_prime_g",), "lemma6_4": ("delta_g", "beta"), "thm6_5": ("delta_g", "n"),
                "thm6_5_as_printed": ("delta_g", "n"), "granular": ("delta_g", "gamma"),
                "granular_as_printed": ("delta_g", "gamma")}[kind]
        if set(params) != set(want):
            raise TypeError(f"odometer kind {kind!r} takes exactly the parameters {want}, found {tuple(params)}")
        p: dict = {}
        if kind == "basic":
            p["delta_prime_g"] = check("delta_prime_g", params["delta_prime_g"], NN)
            self.delta_prime_g = p["delta_prime_g"]
        else:
            p["delta_g"] = _check_inv_e("delta_g", params["delta_g"], strict=True)
            self.delta_prime_g = p["delta_g"] / 2
        if kind == "lemma6_4":
            p["beta"] = check("beta", params["beta"], P)
        elif kind.startswith("thm6_5"):
            p["n"] = int(check("n", params["n"], Domain.integers_from(2)))
            self.gamma = Fraction(1, p["n"] ** 2)
        elif kind == "granular":
            p["gamma"] = self.gamma = check("gamma", params["gamma"], U)
        elif kind == "granular_as_printed":
            p["gamma"] = self.gamma = check("gamma", params["gamma"], Domain.interval(0, Fraction(1, 2), False, True))
        self.params = p
        if kind in ("thm6_5", "granular"):
            m = len(beta_grid(self.gamma))
            self._log_arg = lambda c, g: c.mpf(2 * m)  # corrected: log(2 |D| / delta_g)
        elif kind == "thm6_5_as_printed":
            n = p["n"]
            self._log_arg = lambda c, g: 4 * c.log(n) / c.log(2)  # printed: log(4 log2(n) / delta_g)
        elif kind == "granular_as_printed":
            self._log_arg = lambda c, g: -2 * c.log(g) / c.log(2)  # printed: log(2 log2(1/gamma) / delta_g)

    def parts(self, st: EpsStats) -> tuple[Callable, tuple]:
        """The interval formula and its exact arguments for the pure odometer at ``st``."""
        if self.kind == "basic":
            return (lambda c, s: s), (st.S,)
        if self.kind == "lemma6_4":
            return _lemma6_4_formula, (st.V, self.params["beta"], self.params["delta_g"]) + st.flat()
        return (_thm6_5_formula(self.gamma <= st.V <= 1, self._log_arg),
                (st.V, self.gamma, self.params["delta_g"]) + st.flat())

    def pure_value(self, st: EpsStats, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
        """The ``delta_i = 0`` odometer at ``st``, rounded up."""
        f, a = self.parts(st)
        return certified(f, a, "upper", dps)

    def value(self, st: EpsStats, delta_sum: Fraction = Fraction(0), *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
        """COMP at ``st``: ``inf`` if ``delta_sum > delta'_g`` (Lemma 3.5), else the pure odometer, rounded up."""
        if delta_sum > self.delta_prime_g:
            return INF
        return self.pure_value(st, dps=dps)

    def exceeded(self, loss, st: EpsStats, delta_sum: Fraction = Fraction(0)) -> bool:
        """Exact test ``|loss| > COMP(st, delta_sum)`` (Definition 3.1's bad event for one view).

        ``loss``: exact rational, or a float/mpf infinity.  An infinite COMP is never exceeded,
        an infinite loss exceeds every finite COMP.
        """
        if delta_sum > self.delta_prime_g:
            return False
        if (isinstance(loss, float) and loss in (float("inf"), float("-inf"))) or (
                isinstance(loss, mpmath.mpf) and mpmath.isinf(loss)):
            return True
        L = abs(to_exact(loss, "loss"))
        if self.kind == "basic":
            return L > st.S
        f, a = self.parts(st)
        return _sign_minus(f, a, L, tie=None) < 0

    def odometer(self) -> Callable:
        """The closed form ``COMP(eps, delta, *, dps)`` on sequences, built with :func:`lemma3_5_odometer`."""
        return lemma3_5_odometer(lambda es, *, dps=DEFAULT_DPS: self.pure_value(EpsStats.of(es), dps=dps), self.delta_prime_g)

    def __repr__(self) -> str:
        return f"OdometerSpec({self.kind!r}, " + ", ".join(f"{k}={v}" for k, v in self.params.items()) + ")"


@register("rogers2016_lem6_4", paper=R16, result="Lemma 6.4", direction="upper",
          summary="Odometer for a fixed beta and (eps_i, 0)-DP rounds: sum eps(e^eps - 1)/2 + sqrt(2(V + beta)(1 + log(V/beta + 1)/2) log(2/delta_g))",
          params=(_epsseq, _deltaseq, _deltag, _beta),
          note="Theorem 4.3 at delta_g/2 with U^2 = 4V, plus Lemma 4.4 and Lemma 3.5 (delta'_g = delta_g/2).", validity="valid under a restriction", erratum="R16-LEM3-5-LOSS", restriction=_LEM35_RESTRICT, checks=(_LEM35,))
def lemma6_4_odometer(eps: Sequence, delta: Sequence, delta_g, beta, *, dps: int = DEFAULT_DPS,
                      lemma3_5_as_printed: bool = False) -> mpmath.mpf:
    """rogers2016 Lemma 6.4: the odometer for a beta fixed in advance, rounded up.

    ``sum_j eps_j(e^{eps_j} - 1)/2 + sqrt(2 (V + beta)(1 + log(V/beta + 1)/2) log(2/delta_g))``,
    valid with failure probability delta_g/2 for (eps_i, 0)-DP rounds.  Built with
    :func:`lemma3_5_odometer` (threshold delta_g/2).
    Preconditions: delta_g in (0, 1/e) (exact), beta > 0 chosen before the interaction (a
    temporal hypothesis no argument can show).

    **Restriction** (errata R16-LEM3-5-LOSS): every delta_i = 0; a delta sequence with an element > 0
    raises ``ValueError``, because with delta_i > 0 the loss of the adversary's real view is not
    bounded (one (0, 1/10)-DP round has ``|Loss|`` = log(10/9) > COMP surely).
    ``lemma3_5_as_printed=True`` computes the printed Lemma 3.5 extension anyway (``inf`` once
    sum delta_i exceeds the threshold, else the pure odometer): the refuted claim, not a bound.
    """
    return _lem35_odometer(OdometerSpec("lemma6_4", delta_g=delta_g, beta=beta), eps, delta, dps, lemma3_5_as_printed,
                           "rogers2016_lem6_4")


_n = Param("n", Domain.integers_from(2), kind="integer", default="10000", doc="dataset size n >= 2")
_gamma = Param("gamma", U, default="1e-8", doc="granularity gamma in (0, 1)")


@register("rogers2016_thm6_5", paper=R16, result="Theorem 6.5", equation="(17)-(18)", direction="upper",
          summary="Advanced odometer (corrected union bound): eqs. (17)/(18) with log(2 ceil(log2 n^2)/delta_g) in place of log(4 log2(n)/delta_g)",
          params=(_epsseq, _deltaseq, _deltag, _n), provenance="corrected",
          note="The proof unions Lemma 6.4 over a doubling grid of beta in [1/n^2, 1]; the smallest such grid has "
               "ceil(log2 n^2) points (the printed D_n has one more), so Theorem 4.3 must be applied at "
               "delta_g/(2 ceil(log2 n^2)). Equal to the printed form when n is a power of 2 (errata R16-THM6-5-UNION).", validity="valid under a restriction", erratum="R16-LEM3-5-LOSS", restriction=_LEM35_RESTRICT, checks=(_LEM35,))
def advanced_odometer(eps: Sequence, delta: Sequence, delta_g, n, *, dps: int = DEFAULT_DPS,
                      lemma3_5_as_printed: bool = False) -> mpmath.mpf:
    """rogers2016 Theorem 6.5 (advanced privacy odometer), union bound corrected; rounded up.

    For (eps_i, 0)-DP rounds, with V = sum eps_i^2, M = sum eps_i(e^{eps_i}-1)/2
    and ``F = log(2 m / delta_g)``, ``m = ceil(log2(n^2))`` (the number of grid points):
    ``M + 2 sqrt(V (1 + log sqrt 3) F)`` if V in [1/n^2, 1] (eq. (17)), else
    ``M + sqrt(2 (1/n^2 + V)(1 + log(1 + n^2 V)/2) F)`` (eq. (18)).
    Preconditions: delta_g in (0, 1/e) (exact), integer n >= 2.
    Deviation: eqs. (17)/(18) print F = log(4 log2(n)/delta_g) (errata R16-THM6-5-UNION).

    **Restriction** (errata R16-LEM3-5-LOSS): every delta_i = 0; a delta sequence with an element > 0
    raises ``ValueError``, because with delta_i > 0 the loss of the adversary's real view is not
    bounded (one (0, 1/10)-DP round has ``|Loss|`` = log(10/9) > COMP surely).
    ``lemma3_5_as_printed=True`` computes the printed Lemma 3.5 extension anyway (``inf`` once
    sum delta_i exceeds the threshold, else the pure odometer): the refuted claim, not a bound.
    """
    return _lem35_odometer(OdometerSpec("thm6_5", delta_g=delta_g, n=n), eps, delta, dps, lemma3_5_as_printed,
                           "rogers2016_thm6_5")


@register("rogers2016_thm6_5_as_printed", paper=R16, result="Theorem 6.5", equation="(17)-(18)", direction="upper",
          summary="Advanced odometer, eqs. (17)/(18) as printed (F = log(4 log2(n)/delta_g))",
          params=(_epsseq, _deltaseq, _deltag, _n), provenance="as printed",
          note="Its proof's union bound is short by one grid point unless n is a power of 2 (errata R16-THM6-5-UNION).", validity="valid under a restriction", erratum="R16-LEM3-5-LOSS", restriction=_LEM35_RESTRICT, checks=(_LEM35,))
def advanced_odometer_as_printed(eps: Sequence, delta: Sequence, delta_g, n, *, dps: int = DEFAULT_DPS,
                                 lemma3_5_as_printed: bool = False) -> mpmath.mpf:
    """rogers2016 Theorem 6.5, eqs. (17)/(18) exactly as printed (union bound of errata R16-THM6-5-UNION), rounded up.

    Preconditions: delta_g in (0, 1/e) (exact), integer n >= 2.

    **Restriction** (errata R16-LEM3-5-LOSS): every delta_i = 0; a delta sequence with an element > 0
    raises ``ValueError``, because with delta_i > 0 the loss of the adversary's real view is not
    bounded (one (0, 1/10)-DP round has ``|Loss|`` = log(10/9) > COMP surely).
    ``lemma3_5_as_printed=True`` computes the printed Lemma 3.5 extension anyway (``inf`` once
    sum delta_i exceeds the threshold, else the pure odometer): the refuted claim, not a bound.
    """
    return _lem35_odometer(OdometerSpec("thm6_5_as_printed", delta_g=delta_g, n=n), eps, delta, dps,
                           lemma3_5_as_printed, "rogers2016_thm6_5_as_printed")


@register("rogers2016_thm6_5_granular", paper=R16, result="Theorem 6.5 (granularity remark)", direction="upper",
          summary="Advanced odometer with granularity gamma in place of 1/n^2 (corrected union bound: F = log(2 max(1, ceil(log2(1/gamma)))/delta_g))",
          params=(_epsseq, _deltaseq, _deltag, _gamma), provenance="corrected",
          note="The remark after the proof: replace 1/n^2 by gamma and log2(n^2) by log2(1/gamma).", validity="valid under a restriction", erratum="R16-LEM3-5-LOSS", restriction=_LEM35_RESTRICT, checks=(_LEM35,))
def advanced_odometer_granular(eps: Sequence, delta: Sequence, delta_g, gamma, *, dps: int = DEFAULT_DPS,
                               lemma3_5_as_printed: bool = False) -> mpmath.mpf:
    """rogers2016 Theorem 6.5, granularity remark (corrected): eqs. (17)/(18) with 1/n^2 -> gamma; rounded up.

    ``F = log(2 m/delta_g)``, ``m = max(1, ceil(log2(1/gamma)))``; (17) applies when V in [gamma, 1].
    With gamma = 1/n^2 it equals :func:`advanced_odometer`.  Preconditions: delta_g in (0, 1/e), gamma in (0, 1).

    **Restriction** (errata R16-LEM3-5-LOSS): every delta_i = 0; a delta sequence with an element > 0
    raises ``ValueError``, because with delta_i > 0 the loss of the adversary's real view is not
    bounded (one (0, 1/10)-DP round has ``|Loss|`` = log(10/9) > COMP surely).
    ``lemma3_5_as_printed=True`` computes the printed Lemma 3.5 extension anyway (``inf`` once
    sum delta_i exceeds the threshold, else the pure odometer): the refuted claim, not a bound.
    """
    return _lem35_odometer(OdometerSpec("granular", delta_g=delta_g, gamma=gamma), eps, delta, dps, lemma3_5_as_printed,
                           "rogers2016_thm6_5_granular")


@register("rogers2016_thm6_5_granular_as_printed", paper=R16, result="Theorem 6.5 (granularity remark)", direction="upper",
          summary="Granular advanced odometer as printed: F = log(2 log2(1/gamma)/delta_g)",
          params=(_epsseq, _deltaseq, _deltag, Param("gamma", Domain.interval(0, Fraction(1, 2), False, True), default="1e-8",
                                                      doc="granularity gamma in (0, 1/2]")),
          provenance="as printed", validity="valid under a restriction", erratum="R16-LEM3-5-LOSS", restriction=_LEM35_RESTRICT, checks=(_LEM35,))
def advanced_odometer_granular_as_printed(eps: Sequence, delta: Sequence, delta_g, gamma, *, dps: int = DEFAULT_DPS,
                                          lemma3_5_as_printed: bool = False) -> mpmath.mpf:
    """rogers2016 Theorem 6.5, granularity remark as printed (log2(n^2) -> log2(1/gamma)), rounded up.

    Precondition gamma in (0, 1/2] (for gamma > 1/2 the printed log argument 2 log2(1/gamma) < 2).

    **Restriction** (errata R16-LEM3-5-LOSS): every delta_i = 0; a delta sequence with an element > 0
    raises ``ValueError``, because with delta_i > 0 the loss of the adversary's real view is not
    bounded (one (0, 1/10)-DP round has ``|Loss|`` = log(10/9) > COMP surely).
    ``lemma3_5_as_printed=True`` computes the printed Lemma 3.5 extension anyway (``inf`` once
    sum delta_i exceeds the threshold, else the pure odometer): the refuted claim, not a bound.
    """
    return _lem35_odometer(OdometerSpec("granular_as_printed", delta_g=delta_g, gamma=gamma), eps, delta, dps,
                           lemma3_5_as_printed, "rogers2016_thm6_5_granular_as_printed")


@_cites("Definition 3.1 (exact test of the odometer's bad event)")
def odometer_exceeded(loss, eps: Sequence, delta: Sequence, kind: str, **params) -> bool:
    """rogers2016 Definition 3.1: exact test ``|Loss| > COMP(eps_1, delta_1, ...)`` for one realized view.

    ``kind``/``params`` as in :class:`OdometerSpec`.  ``loss`` is an exact rational or +-inf.
    """
    es, ds = _eps_delta(eps, delta)
    return OdometerSpec(kind, **params).exceeded(loss, EpsStats.of(es), sum(ds, Fraction(0)))
