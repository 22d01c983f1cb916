"""Whitehouse, Ramdas, Rogers, Wu: *Fully Adaptive Composition in Differential Privacy*.

Two versions are cited (see :data:`reference.catalog.PAPERS`):

* ``whitehouse2022``: the arXiv preprint, seed ``000_8d85c89f0d15dfff.txt``;
* ``whitehouse2023``: the ICML 2023 paper, seed ``001_019b6f2aef040984.txt``.

Every function parses its inputs exactly, evaluates in interval arithmetic and
rounds once in the direction stated in its docstring (see
:mod:`reference.precision`).  Where a printed formula is wrong, the correct
form is the default and the printed one is kept under a name ending in
``_as_printed``; the disagreement is listed in ``reference/data/errata.json``.

Notation: ``L = log(1/delta_prime)``, ``V = sum_m eps_m^2`` (intrinsic time).
"""
from __future__ import annotations

import functools
from fractions import Fraction
from typing import Sequence

import mpmath
from mpmath.ctx_mp import MPContext

from ..catalog import Param, register
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
    mpf_to_fraction,
)

P = Domain.positive()
NN = Domain.nonnegative()
U = Domain.open_unit()
W22, W23 = "whitehouse2022", "whitehouse2023"

# Shared parameter descriptions --------------------------------------------
_eps = Param("eps", P, default="1", doc="privacy parameter epsilon > 0")
_eps0 = Param("eps", NN, default="1", doc="privacy parameter epsilon >= 0")
_dp = Param("delta_prime", U, default="1e-6", doc="failure probability delta' in (0, 1)")
_V = Param("V", NN, default="1", doc="intrinsic time V = sum of eps_m^2 (or of sigma_m^2)")


def _L(ctx, dp):
    """log(1/delta') as an interval."""
    return -ctx.log(dp)


def _tanh_half(ctx, e):
    """tanh(e/2) = (e^e - 1)/(e^e + 1) = 1 - 2/(e^e + 1), written with one occurrence of e."""
    return 1 - 2 / (ctx.exp(e) + 1)


# ===========================================================================
# Definition 6 (v2022) / Definition 7 (v2023): conditional randomized response
# ===========================================================================

RR_OUTPUTS = ("b", "1-b", "top", "bot")


def rr_output_distribution(eps, delta, b: int, *, dps: int = DEFAULT_DPS) -> dict:
    """Definition 6 (whitehouse2022) / Definition 7 (whitehouse2023): law of (eps, delta)-randomized response R(b).

    Returns the probabilities of the outputs ``0, 1, 'top', 'bot'`` for input bit ``b``:
    ``b`` w.p. (1-delta) e^eps/(1+e^eps); ``1-b`` w.p. (1-delta)/(1+e^eps);
    ``top`` w.p. delta if b = 1; ``bot`` w.p. delta if b = 0.

    Preconditions: eps >= 0, delta in [0, 1], b in {0, 1}.
    Rounding: each probability is rounded to nearest (direction ``exact``); the
    enclosure is certified to ``dps`` digits.
    """
    e = check("eps", eps, NN)
    d = check("delta", delta, Domain.closed_unit())
    bb = check("b", b, Domain.interval(0, 1, True, True))
    if bb.denominator != 1:
        raise ValueError(f"b must be 0 or 1, found {b!r}")
    bb = int(bb)
    keep = certified(lambda c, e, d: (1 - d) * _sigmoid(c, e), (e, d), "exact", dps)
    flip = certified(lambda c, e, d: (1 - d) * _sigmoid(c, -e), (e, d), "exact", dps)
    dd = rational(d, "exact", dps)
    zero = mpmath.mpf(0)
    return {bb: keep, 1 - bb: flip, "top": dd if bb == 1 else zero, "bot": dd if bb == 0 else zero}


def _sigmoid(ctx, e):
    """e^e/(1+e^e) = 1/(1+e^-e), one occurrence of e."""
    return 1 / (1 + ctx.exp(-e))


def rr_privacy_loss_distribution(eps, delta, *, dps: int = DEFAULT_DPS) -> dict:
    """Exact privacy-loss distribution of (eps, delta)-randomized response (Definition 6, whitehouse2022).

    Loss L = log(p^{b}(R)/p^{1-b}(R)) with R ~ R(b): ``+eps`` w.p.
    (1-delta) e^eps/(1+e^eps), ``-eps`` w.p. (1-delta)/(1+e^eps), ``+inf`` w.p.
    delta (the output top/bot that only input b can produce).  Returned as
    ``{loss_value: probability}`` with loss values ``mpf`` (``inf`` included).
    Identical for b = 0 and b = 1 by symmetry.  Rounding: nearest, certified.
    """
    e = check("eps", eps, NN)
    d = check("delta", delta, Domain.closed_unit())
    p_plus = certified(lambda c, e, d: (1 - d) * _sigmoid(c, e), (e, d), "exact", dps)
    p_minus = certified(lambda c, e, d: (1 - d) * _sigmoid(c, -e), (e, d), "exact", dps)
    out: dict = {}
    if e == 0:
        out[mpmath.mpf(0)] = certified(lambda c, d: 1 - d, (d,), "exact", dps)
    else:
        out[rational(e, "exact", dps)] = p_plus
        out[-rational(e, "exact", dps)] = p_minus
    if d:
        out[INF] = rational(d, "exact", dps)
    return out


@register("whitehouse2022_def6_hockey_stick", paper=W22, result="Definition 6", direction="upper",
          summary="Hockey-stick divergence delta(eps') = sup_G P(R(b) in G) - e^eps' P(R(1-b) in G) of (eps, delta)-randomized response",
          params=(_eps0, Param("delta", Domain.closed_unit(), default="1e-6", doc="delta in [0, 1]"),
                  Param("eps_prime", NN, default="0.5", doc="evaluation point eps' >= 0")),
          provenance="derived",
          note="Derived from the output law of Definition 6: delta + (1-delta) max(0, (e^eps - e^eps')/(1+e^eps)). At eps' = eps it equals delta, i.e. the mechanism is exactly (eps, delta)-DP.")
@register("whitehouse2023_def7_hockey_stick", paper=W23, result="Definition 7", direction="upper",
          summary="Hockey-stick divergence of (eps, delta)-randomized response (same mechanism, ICML numbering)",
          params=(_eps0, Param("delta", Domain.closed_unit(), default="1e-6", doc="delta in [0, 1]"),
                  Param("eps_prime", NN, default="0.5", doc="evaluation point eps' >= 0")),
          provenance="derived")
def rr_hockey_stick(eps, delta, eps_prime, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """Hockey-stick divergence of (eps, delta)-randomized response at eps' (Definition 6, whitehouse2022).

    Contract: returns an upper bound (rounded up) on
    ``H_{e^eps'}(R(b) || R(1-b)) = delta + (1-delta) * max(0, (e^eps - e^eps')/(1+e^eps))``.
    Preconditions: eps >= 0, delta in [0, 1], eps' >= 0.
    Guarantee: interval-certified; equals delta exactly at eps' = eps.

    >>> from reference.precision import directed_decimal
    >>> directed_decimal(rr_hockey_stick(1, "0.01", 1), 10, "upper")
    '0.01'
    """
    e = check("eps", eps, NN)
    d = check("delta", delta, Domain.closed_unit())
    ep = check("eps_prime", eps_prime, NN)
    if ep >= e:
        return rational(d, "upper", dps)
    return certified(lambda c, e, d, ep: d + (1 - d) * (c.exp(e) - c.exp(ep)) / (1 + c.exp(e)), (e, d, ep), "upper", dps)


# ===========================================================================
# Lemma 6 (v2022) / Lemma 10 (v2023): expected privacy loss; Figure 1a
# ===========================================================================

@register("whitehouse2022_lem6_bound", paper=W22, result="Lemma 6", direction="upper",
          summary="Bound eps^2/2 on the conditional expected privacy loss of an eps-DP algorithm (Bun-Steinke Prop. 3.3)",
          params=(_eps0,))
@register("whitehouse2023_lem10_bound", paper=W23, result="Lemma 10", direction="upper",
          summary="Bound eps^2/2 on the expected privacy loss (ICML numbering)", params=(_eps0,))
def expected_loss_bound(eps, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """Lemma 6 (whitehouse2022): E[L | B] <= eps^2/2 for an eps-DP algorithm; returns eps^2/2 rounded up.

    Preconditions: eps >= 0.  Rounding: up.  Guarantee: exact rational, rounded once.
    """
    e = check("eps", eps, NN)
    return certified(lambda c, e: e * e / 2, (e,), "upper", dps)


@register("whitehouse2022_lem6_rr_expected_loss", paper=W22, result="Lemma 6 (tight case)", direction="exact",
          summary="Exact expected privacy loss of eps-randomized response: eps (e^eps - 1)/(e^eps + 1) = eps tanh(eps/2)",
          params=(_eps0,), equation="eq. (2) lower-order term", provenance="derived",
          note="The expected loss of (eps, 0)-RR is eps*P(+eps) - eps*P(-eps); it is the lower-order term of advanced composition, eq. (2).")
def rr_expected_loss(eps, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """Lemma 6 (whitehouse2022), tight case: exact expected loss of (eps, 0)-randomized response, ``eps * tanh(eps/2)``.

    Derived from Definition 6 (whitehouse2022): the loss is +eps w.p. e^eps/(1+e^eps)
    and -eps w.p. 1/(1+e^eps).  Preconditions: eps >= 0.  Rounding: to nearest,
    certified to ``dps`` digits.  Deviation: evaluated as eps*(1 - 2/(e^eps+1))
    instead of eps*(e^eps-1)/(e^eps+1) (no overflow, one occurrence of eps).
    """
    e = check("eps", eps, NN)
    return certified(lambda c, e: e * _tanh_half(c, e), (e,), "exact", dps)


@register("whitehouse2022_fig1a_gap", paper=W22, result="Figure 1a", direction="exact",
          summary="Gap eps^2/2 - eps tanh(eps/2) >= 0 between the filter's and advanced composition's lower-order terms",
          params=(_eps0,), provenance="derived",
          note="whitehouse2023 (Section 1.2) adds that the gap is O(eps^4); indeed 0 <= gap <= eps^4/24.")
def lower_order_gap(eps, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """Figure 1a (whitehouse2022): ``eps^2/2 - eps*tanh(eps/2)``, the per-step lower-order gap.

    Nonnegative for every eps >= 0 and at most eps^4/24.  Rounding: nearest, certified.
    """
    e = check("eps", eps, NN)
    return certified(lambda c, e: e * e / 2 - e * _tanh_half(c, e), (e,), "exact", dps)


# ===========================================================================
# Equation (2): advanced composition
# ===========================================================================

@register("whitehouse2022_eq2_eps", paper=W22, result="eq. (2)", equation="(2)", direction="upper",
          summary="Advanced composition: eps = sqrt(2 log(1/delta') sum eps_m^2) + sum eps_m (e^eps_m - 1)/(e^eps_m + 1)",
          params=(Param("eps", NN, kind="sequence", default="0.1,0.1,0.1", doc="per-step epsilons (>= 0)"), _dp))
@register("whitehouse2023_eq2_eps", paper=W23, result="eq. (2)", equation="(2)", direction="upper",
          summary="Advanced composition epsilon (ICML version, also eq. (2); same formula)",
          params=(Param("eps", NN, kind="sequence", default="0.1,0.1,0.1", doc="per-step epsilons (>= 0)"), _dp))
def advanced_composition_eps(eps: Sequence, delta_prime, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """Equation (2) (whitehouse2022): the composed epsilon of advanced composition, rounded up.

    ``eps_total = sqrt(2 L sum eps_m^2) + sum eps_m tanh(eps_m/2)`` with L = log(1/delta').
    Preconditions: non-empty sequence of eps_m >= 0 fixed in advance; delta' in (0, 1).
    Guarantee: interval-certified upper bound.  Deviation: ``(e^x-1)/(e^x+1)`` is
    evaluated as ``1 - 2/(e^x+1)`` (no overflow for eps_m = 1000).
    """
    es = check_seq("eps", eps, NN)
    dp = check("delta_prime", delta_prime, U)
    V = sum(x * x for x in es)

    def f(c, dp, V, *es):
        return c.sqrt(2 * _L(c, dp) * V) + sum((x * _tanh_half(c, x) for x in es), c.mpf(0))

    return certified(f, (dp, V) + es, "upper", dps)


@register("whitehouse2022_eq2_delta", paper=W22, result="eq. (2)", equation="(2)", direction="upper",
          summary="Advanced composition: delta = delta' + sum delta_m",
          params=(Param("delta", Domain.closed_unit(), kind="sequence", default="1e-9,1e-9", doc="per-step deltas"), _dp))
def advanced_composition_delta(delta: Sequence, delta_prime, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """Equation (2) (whitehouse2022): ``delta' + sum_m delta_m``, rounded up (exact rational sum)."""
    ds = check_seq("delta", delta, Domain.closed_unit())
    dp = check("delta_prime", delta_prime, U)
    return rational(dp + sum(ds), "upper", dps)


# ===========================================================================
# Lemma 1 (v2022) = Lemma 2 (v2023): DP <-> pDP;  Lemma 1 (v2023): DP <-> approximate zCDP
# ===========================================================================

@register("whitehouse2022_lem1_dp_to_pdp_eps", paper=W22, result="Lemma 1", direction="upper",
          summary="(eps, delta)-DP implies (2 eps, 2 delta/(eps e^eps))-pDP: the epsilon 2 eps (as printed)", params=(_eps,))
@register("whitehouse2023_lem2_dp_to_pdp_eps", paper=W23, result="Lemma 2", direction="upper",
          summary="DP -> pDP conversion epsilon 2 eps (ICML numbering)", params=(_eps,))
def dp_to_pdp_eps(eps, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """Lemma 1 (whitehouse2022), converse direction: the pDP epsilon ``2 eps``. Rounded up. Precondition: eps > 0."""
    e = check("eps", eps, P)
    return certified(lambda c, e: 2 * e, (e,), "upper", dps)


_delta_dp = Param("delta", Domain.closed_unit(), default="1e-6", doc="delta of the (eps, delta)-DP step, in [0, 1]")
_W22_LEM1_RESTRICT = ("false for every eps > 0: a two-tailed (eps, delta)-DP law has P(|L| > 2 eps) up to "
                      "delta (e^{2 eps} + 1)/(e^eps (e^eps - 1)) > 2 delta/(eps e^eps) (errata W22-LEM1-DP-TO-PDP)")


@register("whitehouse2022_lem1_dp_to_pdp_delta_as_printed", paper=W22, result="Lemma 1", direction="exact",
          summary="(eps, delta)-DP implies (2 eps, 2 delta/(eps e^eps))-pDP: the delta as printed (FALSE for every eps > 0)",
          params=(_eps, _delta_dp), validity="false as printed", erratum="W22-LEM1-DP-TO-PDP",
          aliases=("whitehouse2022_lem1_dp_to_pdp_delta",),
          note="Not a bound: the value of the printed formula, rounded to nearest. " + _W22_LEM1_RESTRICT + ". "
               "The valid conversion is whitehouse2022_lem1_dp_to_pdp_delta_corrected.")
@register("whitehouse2023_lem2_dp_to_pdp_delta_as_printed", paper=W23, result="Lemma 2", direction="exact",
          summary="DP -> pDP conversion delta 2 delta/(eps e^eps) as printed (ICML numbering; FALSE for every eps > 0)",
          params=(_eps, _delta_dp), validity="false as printed", erratum="W22-LEM1-DP-TO-PDP",
          aliases=("whitehouse2023_lem2_dp_to_pdp_delta",),
          note="Not a bound (see whitehouse2022_lem1_dp_to_pdp_delta_as_printed).")
def dp_to_pdp_delta_as_printed(eps, delta, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """Lemma 1 (whitehouse2022) = Lemma 2 (whitehouse2023), converse, AS PRINTED: ``2 delta/(eps e^eps)``.

    **False for every eps > 0** (errata W22-LEM1-DP-TO-PDP): not a bound, the value of the
    printed formula rounded to nearest.  The sharp value of ``sup P(|L| > 2 eps)`` over
    (eps, delta)-DP pairs is :func:`dp_to_pdp_delta`, and ``eps (e^{2 eps} + 1) > 2 (e^eps - 1)``
    for every eps > 0 (the difference vanishes at 0 and has derivative
    ``(e^eps - 1)^2 + 2 eps e^{2 eps} > 0``).  Preconditions: eps > 0, delta in [0, 1].
    """
    e = check("eps", eps, P)
    d = check("delta", delta, Domain.closed_unit())
    return certified(lambda c, e, d: 2 * d / (e * c.exp(e)), (e, d), "exact", dps)


@register("whitehouse2022_lem1_dp_to_pdp_delta_corrected", paper=W22, result="Lemma 1 (corrected)", direction="upper",
          summary="Corrected DP -> pDP delta: delta/(1 - e^-eps) + delta/(e^eps (e^eps - 1)) (sharp; the printed 2 delta/(eps e^eps) is false for every eps > 0)",
          params=(_eps, _delta_dp), provenance="corrected",
          note="See errata W22-LEM1-DP-TO-PDP. Upper tail: P(L > 2eps) <= delta/(1 - e^-eps); lower tail: "
               "P(L < -2eps) <= delta/(e^eps (e^eps - 1)); both are approached at once by one law (the falsifier's "
               "threshold split of randomized response), so the sum is sharp.")
def dp_to_pdp_delta(eps, delta, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """Lemma 1 (whitehouse2022) = Lemma 2 (whitehouse2023), corrected converse: (eps, delta)-DP implies (2 eps, delta*)-pDP, rounded up.

    ``delta* = delta/(1 - e^-eps) + delta/(e^eps (e^eps - 1))``.  Derivation: on
    S = {L > 2 eps}, P(S) <= e^eps Q(S) + delta and Q(S) < e^-2eps P(S) give
    P(S) <= delta/(1 - e^-eps); on T = {L < -2 eps}, Q(T) <= e^eps P(T) + delta and
    Q(T) > e^2eps P(T) give P(T) <= delta/(e^eps (e^eps - 1)).  Both tails are approached at
    once by a single (eps, delta)-DP law, so the printed 2 delta/(eps e^eps) (errata
    W22-LEM1-DP-TO-PDP, :func:`dp_to_pdp_delta_as_printed`) fails for every eps > 0.
    Same meaning as :func:`reference.bounds.rogers2016.dp_to_pdp_delta`.
    Preconditions: eps > 0, delta in [0, 1].
    """
    e = check("eps", eps, P)
    d = check("delta", delta, Domain.closed_unit())
    return certified(lambda c, e, d: d / (1 - c.exp(-e)) + d / (c.exp(e) * (c.exp(e) - 1)), (e, d), "upper", dps)


#: Deprecated name of :func:`dp_to_pdp_delta` (the corrected conversion); one name, one meaning.
dp_to_pdp_delta_corrected = dp_to_pdp_delta


@register("whitehouse2023_lem1_dp_to_zcdp_rho", paper=W23, result="Lemma 1", direction="upper",
          summary="(eps, delta)-DP implies delta-approximate (eps^2/2)-zCDP: rho = eps^2/2", params=(_eps0,))
def dp_to_zcdp_rho(eps, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """Lemma 1 (whitehouse2023, Bun-Steinke 2016): (eps, delta)-DP is delta-approximate ``eps^2/2``-zCDP. Rounded up."""
    e = check("eps", eps, NN)
    return certified(lambda c, e: e * e / 2, (e,), "upper", dps)


_rho = Param("rho", NN, default="0.5", doc="zCDP parameter rho >= 0")


@register("whitehouse2023_lem1_zcdp_to_dp_eps", paper=W23, result="Lemma 1", direction="upper",
          summary="delta-approximate rho-zCDP implies (rho + 2 sqrt(rho log(1/delta')), delta + (1-delta) delta')-DP: the epsilon",
          params=(_rho, _dp))
def zcdp_to_dp_eps(rho, delta_prime, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """Lemma 1 (whitehouse2023): epsilon ``rho + 2 sqrt(rho log(1/delta'))``, rounded up.

    Preconditions: rho >= 0, delta' in (0, 1).  Interval-certified.
    """
    r = check("rho", rho, NN)
    dp = check("delta_prime", delta_prime, U)
    return certified(lambda c, r, dp: r + 2 * c.sqrt(r * _L(c, dp)), (r, dp), "upper", dps)


@register("whitehouse2023_lem1_zcdp_to_dp_delta", paper=W23, result="Lemma 1", direction="upper",
          summary="delta-approximate rho-zCDP -> DP: the delta, delta + (1 - delta) delta'",
          params=(Param("delta", Domain.closed_unit(), default="0", doc="delta of delta-approximate rho-zCDP, in [0, 1]"), _dp))
def zcdp_to_dp_delta(delta, delta_prime, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """Lemma 1 (whitehouse2023): the DP delta ``delta + (1 - delta) delta'`` (exact rational, rounded up)."""
    d = check("delta", delta, Domain.closed_unit())
    dp = check("delta_prime", delta_prime, U)
    return rational(d + (1 - d) * dp, "upper", dps)


# ===========================================================================
# Theorem 3 (v2022) = Theorem 4 (v2023): the linear boundary
# ===========================================================================

_a = Param("a", P, default="1", doc="slope parameter a > 0")
_b = Param("b", P, default="5", doc="intercept parameter b > 0")


@register("whitehouse2022_thm3_boundary", paper=W22, result="Theorem 3", direction="upper",
          summary="Linear boundary b/2 + b/(2a) V crossed with probability <= exp(-b^2/(2a))", params=(_a, _b, _V))
@register("whitehouse2023_thm4_boundary", paper=W23, result="Theorem 4", direction="upper",
          summary="Linear boundary b/2 + b/(2a) V (ICML numbering)", params=(_a, _b, _V))
def linear_boundary(a, b, V, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """Theorem 3 (whitehouse2022): the boundary ``b/2 + b V/(2a)``, rounded up (exact rational).

    Contract: for a martingale with sigma_n^2-subGaussian increments,
    P(exists n: M_n >= b/2 + b V_n/(2a)) <= exp(-b^2/(2a)).
    """
    aa, bb, v = check("a", a, P), check("b", b, P), check("V", V, NN)
    return rational(bb / 2 + bb * v / (2 * aa), "upper", dps)


@register("whitehouse2022_thm3_crossing_probability", paper=W22, result="Theorem 3", direction="upper",
          summary="Crossing probability bound exp(-b^2/(2a)) of the linear boundary", params=(_a, _b))
@register("whitehouse2023_thm4_crossing_probability", paper=W23, result="Theorem 4", direction="upper",
          summary="Crossing probability bound exp(-b^2/(2a)) (ICML numbering)", params=(_a, _b))
def linear_boundary_crossing_probability(a, b, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """Theorem 3 (whitehouse2022): ``exp(-b^2/(2a))``, rounded up (a probability bound)."""
    aa, bb = check("a", a, P), check("b", b, P)
    return certified(lambda c, q: c.exp(-q), (bb * bb / (2 * aa),), "upper", dps)


# ===========================================================================
# y*, a, b (proof of Lemma 2, eq. (6)); the filter's privacy-spent function f
# ===========================================================================

def _ystar(c, dp, e):
    L2 = 2 * _L(c, dp)
    s = c.sqrt(L2 + 2 * e) + c.sqrt(L2)
    return 4 * e * e / (s * s)


def _ystar_printed(c, dp, e):
    L2 = 2 * _L(c, dp)
    s = c.sqrt(L2 + e) + c.sqrt(L2)
    return e * e / (s * s)


@register("whitehouse2022_eq6_ystar", paper=W22, result="eq. (6), proof of Lemma 2", equation="(6)", direction="exact",
          summary="y*: the root of f(y) = sqrt(2 log(1/delta') y) + y/2 = eps, i.e. (sqrt(2L + 2 eps) - sqrt(2L))^2",
          params=(_eps, _dp), provenance="corrected",
          note="Printed as (-sqrt(2L) + sqrt(2L + eps))^2, which solves f(y) = eps only approximately for eps/2; see errata W22-EQ6-YSTAR. Evaluated as 4 eps^2/(sqrt(2L+2eps)+sqrt(2L))^2 (no cancellation).")
@register("whitehouse2023_thm3_ystar", paper=W23, result="Theorem 3 (filter odometer y*)", direction="exact",
          summary="y* of the filter odometer (corrected; ICML numbering)", params=(_eps, _dp), provenance="corrected")
def y_star(eps, delta_prime, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """y* of eq. (6) (whitehouse2022), corrected: the unique y >= 0 with ``sqrt(2 L y) + y/2 = eps``.

    ``y* = (sqrt(2L + 2 eps) - sqrt(2L))^2 = 4 eps^2 / (sqrt(2L + 2 eps) + sqrt(2L))^2``.
    Preconditions: eps > 0, delta' in (0, 1).  Rounding: nearest, certified to
    ``dps`` digits.  Deviation: the printed eq. (6) has ``2L + eps`` under the
    second root (errata W22-EQ6-YSTAR); that form is :func:`y_star_as_printed`.
    """
    e = check("eps", eps, P)
    dp = check("delta_prime", delta_prime, U)
    return certified(_ystar, (dp, e), "exact", dps)


@register("whitehouse2022_eq6_ystar_as_printed", paper=W22, result="eq. (6), proof of Lemma 2", equation="(6)", direction="exact",
          summary="y* exactly as printed: (-sqrt(2L) + sqrt(2L + eps))^2 (does not solve f(y) = eps)",
          params=(_eps, _dp), provenance="as printed", note="Kept to reproduce the paper; see errata W22-EQ6-YSTAR.")
def y_star_as_printed(eps, delta_prime, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """y* exactly as printed in eq. (6) of whitehouse2022 and Theorem 3 of whitehouse2023: ``(sqrt(2L+eps) - sqrt(2L))^2``.

    This value does NOT solve ``f(y) = eps`` (errata W22-EQ6-YSTAR); kept so users
    can reproduce the printed numbers.  Rounding: nearest, certified.
    """
    e = check("eps", eps, P)
    dp = check("delta_prime", delta_prime, U)
    return certified(_ystar_printed, (dp, e), "exact", dps)


@register("whitehouse2022_lem2_a", paper=W22, result="Lemma 2 (proof)", direction="exact",
          summary="The slope parameter a = y* that turns Theorem 3 into the filter", params=(_eps, _dp), provenance="corrected")
def lemma2_a(eps, delta_prime, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """Proof of Lemma 2 (whitehouse2022): ``a = y*`` (corrected y*).  Rounding: nearest, certified."""
    return y_star(eps, delta_prime, dps=dps)


@register("whitehouse2022_lem2_b", paper=W22, result="Lemma 2 (proof)", direction="exact",
          summary="The intercept b = sqrt(2 log(1/delta') y*), so that exp(-b^2/(2a)) = delta'",
          params=(_eps, _dp), provenance="corrected",
          note="Printed as b = sqrt(2 log(1/delta')) y* with exp(-b^2/a); only b = sqrt(2 L y*) with exp(-b^2/(2a)) gives delta' (errata W22-LEM2-B).")
def lemma2_b(eps, delta_prime, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """Proof of Lemma 2 (whitehouse2022): ``b = sqrt(2 L y*)``.  Rounding: nearest, certified.

    With a = y* this gives exp(-b^2/(2a)) = delta' exactly and b/2 + b y*/(2a) + y*/2 = eps.
    """
    e = check("eps", eps, P)
    dp = check("delta_prime", delta_prime, U)
    return certified(lambda c, dp, e: c.sqrt(2 * _L(c, dp) * _ystar(c, dp, e)), (dp, e), "exact", dps)


@register("whitehouse2022_thm1_spent", paper=W22, result="Theorem 1", direction="upper",
          summary="Privacy spent by the filter at intrinsic time V: sqrt(2 log(1/delta') V) + V/2 (a step is admitted while this is <= eps)",
          params=(_V, _dp))
@register("whitehouse2023_thm2_spent", paper=W23, result="Theorem 2", direction="upper",
          summary="Privacy spent sqrt(2 log(1/delta') V) + V/2 of the (eps, delta)-DP filter (ICML numbering)", params=(_V, _dp))
def filter_spent(V, delta_prime, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """Theorem 1 (whitehouse2022): ``f(V) = sqrt(2 log(1/delta') V) + V/2``, rounded up.

    The filter admits step n+1 iff f(V_{n+1}) <= eps (and the delta budget holds);
    decisions use :func:`filter_admits`, which is exact, not this rounded value.
    """
    v = check("V", V, NN)
    dp = check("delta_prime", delta_prime, U)
    return certified(lambda c, v, dp: c.sqrt(2 * _L(c, dp) * v) + v / 2, (v, dp), "upper", dps)


def filter_admits(V: Fraction, eps: Fraction, delta_prime: Fraction) -> bool:
    """Exact test of ``sqrt(2 log(1/delta') V) + V/2 <= eps`` for rationals (Theorem 1, whitehouse2022).

    Equivalent rational form: D = eps - V/2 >= 0 and (V == 0 or
    log(1/delta') <= D^2/(2V)), i.e. ``exp(D^2/(2V)) >= 1/delta'``, decided
    exactly by :func:`reference.precision.compare_exp_rational`.  Inputs must
    already be validated ``Fraction`` values (V >= 0, eps > 0, 0 < delta' < 1).
    """
    D = eps - V / 2
    if D < 0:
        return False
    if V == 0:
        return True
    q = D * D / (2 * V)
    return compare_exp_rational(q, 1 / delta_prime) >= 0


# ===========================================================================
# Theorem 1 (v2022) = Theorem 2 (v2023): the stopping rule N
# ===========================================================================

_deltas = Param("delta", Domain.closed_unit(), kind="sequence", default="0,0,0", doc="per-step deltas delta_n")
_epss = Param("eps", NN, kind="sequence", default="0.1,0.2,0.3", doc="per-step epsilons eps_n")
_dpp = Param("delta_second", Domain.unit_nonneg(), default="0", doc="delta'' >= 0 reserved for the steps' deltas")
_epsT = Param("eps_target", P, default="1", doc="target epsilon > 0")


@register("whitehouse2022_thm1_stop_index", paper=W22, result="Theorem 1", direction="exact", returns="int",
          summary="The stopping time N = inf{n: eps < sqrt(2 log(1/delta') V_{n+1}) + V_{n+1}/2 or delta'' < sum_{m<=n+1} delta_m}",
          params=(_epss, _deltas, _epsT, _dp, _dpp),
          note="Returns N for the given (finite) parameter sequence; if every listed step is admitted, returns len(eps) (the filter has not stopped yet).")
@register("whitehouse2023_thm2_stop_index", paper=W23, result="Theorem 2", direction="exact", returns="int",
          summary="Stopping time N of the (eps, delta)-DP filter (ICML numbering; same rule)",
          params=(_epss, _deltas, _epsT, _dp, _dpp))
def filter_stop_index(eps: Sequence, delta: Sequence, eps_target, delta_prime, delta_second) -> int:
    """Theorem 1 (whitehouse2022): number N of steps the (eps, delta)-DP filter lets run.

    ``N = inf{n >= 0: eps_target < f(V_{n+1}) or delta'' < sum_{m<=n+1} delta_m}``,
    with f(V) = sqrt(2 log(1/delta') V) + V/2; the composed A_{1:N} is
    (eps_target, delta' + delta'')-DP for conditionally (eps_n, delta_n)-DP steps.
    Decided exactly (no rounding).  If all listed steps are admitted, returns len(eps).
    """
    es = check_seq("eps", eps, NN)
    ds = check_seq("delta", delta, Domain.closed_unit())
    if len(es) != len(ds):
        raise ValueError(f"eps and delta must have the same length, found {len(es)} and {len(ds)}")
    et = check("eps_target", eps_target, P)
    dp = check("delta_prime", delta_prime, U)
    d2 = check("delta_second", delta_second, Domain.unit_nonneg())
    V, S = Fraction(0), Fraction(0)
    for n, (e, d) in enumerate(zip(es, ds)):
        V += e * e
        S += d
        if S > d2 or not filter_admits(V, et, dp):
            return n
    return len(es)


@register("whitehouse2022_thm1_rounds_homogeneous", paper=W22, result="Theorem 1", direction="exact", returns="int",
          summary="Rounds the filter admits for a homogeneous workload (eps0, delta0): max k with f(k eps0^2) <= eps and k delta0 <= delta''",
          params=(Param("eps0", P, default="0.01", doc="per-step epsilon"), Param("delta0", Domain.closed_unit(), default="0", doc="per-step delta"),
                  _epsT, _dp, _dpp), provenance="derived",
          note="Computed exactly from y*: k = floor(y*/eps0^2), checked and corrected by the exact decision; works for 10^12 rounds.")
def filter_rounds_homogeneous(eps0, delta0, eps_target, delta_prime, delta_second) -> int:
    """Theorem 1 (whitehouse2022) on a homogeneous workload: the exact number of admitted rounds.

    ``K = max{k >= 0: f(k eps0^2) <= eps_target and k delta0 <= delta''}``.  The
    candidate floor(y*/eps0^2) is verified with the exact decision rule, so
    rounding can never add or remove a round.
    """
    e0 = check("eps0", eps0, P)
    d0 = check("delta0", delta0, Domain.closed_unit())
    et = check("eps_target", eps_target, P)
    dp = check("delta_prime", delta_prime, U)
    d2 = check("delta_second", delta_second, Domain.unit_nonneg())
    v0 = e0 * e0
    # floor of y*/eps0^2 from a y* with enough digits to resolve k to a few units; the exact
    # decision rule settles the count
    ys = mpf_to_fraction(y_star(et, dp, dps=30 + digits_of_inverse(v0)))
    k = last_true(lambda j: filter_admits(j * v0, et, dp), int(ys / v0))
    if d0 > 0:
        k = min(k, int(d2 / d0))
    return k


# ===========================================================================
# Theorem 4 (v2022) = Theorem 5 (v2023): normal mixture boundary
# ===========================================================================

_rhomix = Param("rho", P, default="1", doc="mixture tuning parameter rho > 0 (gamma in whitehouse2023)")
_delta_conf = Param("delta", U, default="1e-6", doc="crossing probability delta in (0, 1)")


def _mixture(c, V, r, d):
    return c.sqrt(2 * (V + r) * (c.log((V + r) / r) / 2 - c.log(d)))


@register("whitehouse2022_thm4_boundary", paper=W22, result="Theorem 4", direction="upper",
          summary="Normal-mixture boundary sqrt(2 (V + rho) log(sqrt((V + rho)/rho)/delta)), crossed w.p. <= delta",
          params=(_V, _rhomix, _delta_conf),
          note="whitehouse2022 assumes both +dM and -dM subGaussian; whitehouse2023 (Theorem 5) states it assuming only +dM.")
@register("whitehouse2023_thm5_boundary", paper=W23, result="Theorem 5", direction="upper",
          summary="Normal-mixture boundary (ICML numbering; tuning parameter called gamma)", params=(_V, _rhomix, _delta_conf))
def mixture_boundary(V, rho, delta, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """Theorem 4 (whitehouse2022): ``sqrt(2 (V + rho) log(sqrt((V + rho)/rho) / delta))``, rounded up.

    Preconditions: V >= 0, rho > 0, delta in (0, 1).  Deviation: the log is
    evaluated as ``log((V+rho)/rho)/2 - log(delta)`` (no overflow for delta = 1e-300).
    """
    v, r, d = check("V", V, NN), check("rho", rho, P), check("delta", delta, U)
    return certified(_mixture, (v, r, d), "upper", dps)


# ===========================================================================
# Theorem 5 (v2022) = Theorem 6 (v2023): stitched boundary; Howard et al. 2021 stitching
# ===========================================================================

_v0 = Param("v0", P, default="0.01", doc="starting intrinsic time v0 > 0")


def _stitched(c, V, v0, d):
    inner = c.log(c.log(2 * V / v0)) + c.mpf(72) / 100 * c.log(c.mpf(52) / 10 / d)
    return c.mpf(17) / 10 * c.sqrt(V * inner)


@register("whitehouse2022_thm5_boundary", paper=W22, result="Theorem 5", direction="upper",
          summary="Stitched boundary 1.7 sqrt(V (log log(2V/v0) + 0.72 log(5.2/delta))) for V >= v0 (inf before)",
          params=(_V, _v0, _delta_conf),
          note="Simplifies howard2021_thm1_stitching with eta = 2, s = 1.4 (constants 1.6985.., 1/1.4, 5.1878.. rounded up).")
@register("whitehouse2023_thm6_boundary", paper=W23, result="Theorem 6", direction="upper",
          summary="Stitched boundary (ICML numbering)", params=(_V, _v0, _delta_conf))
def stitched_boundary(V, v0, delta, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """Theorem 5 (whitehouse2022) as printed: ``1.7 sqrt(V (loglog(2V/v0) + 0.72 log(5.2/delta)))`` if V >= v0, else ``inf``.

    Rounded up.  Preconditions: V >= 0, v0 > 0, delta in (0, 1).
    """
    v, m, d = check("V", V, NN), check("v0", v0, P), check("delta", delta, U)
    if v < m:
        return INF
    return certified(_stitched, (v, m, d), "upper", dps)


@functools.lru_cache(maxsize=256)
def _zeta_bounds(s: Fraction, prec: int):
    mp = MPContext()
    mp.prec = prec + 40
    z = mp.zeta(mp.mpf(s.numerator) / s.denominator)
    return z * (1 - mp.ldexp(1, -(prec + 8))), z * (1 + mp.ldexp(1, -(prec + 8)))


def _zeta_enclosure(c, s: Fraction):
    """Enclosure of zeta(s), s > 1 rational: mpmath's zeta at 40 extra bits, widened by 2^-(prec+8) relative.

    mpmath's zeta is accurate to its working precision; the widening is 2^32
    times its error budget.  This is the one non-interval-certified step.
    Cached per (s, precision): it dominated the stitching boundary's cost.
    """
    return c.mpf(list(_zeta_bounds(s, c.prec)))


@register("howard2021_thm1_stitching", paper="howard2021", result="Theorem 1 (sub-Gaussian case, h(k) = zeta(s)(k+1)^s)",
          direction="upper", provenance="published statement",
          summary="General stitching boundary k1 sqrt(v l(v)), v = max(V, m), l(v) = s log(log(eta v/m)/log eta) + log(zeta(s)/delta), k1 = (eta^1/4 + eta^-1/4)/sqrt 2",
          params=(_V, Param("m", P, default="0.01", doc="starting intrinsic time m > 0 (v0)"), _delta_conf,
                  Param("eta", Domain.interval(1, None), default="2", doc="geometric spacing eta > 1"),
                  Param("s", Domain.interval(1, None), default="1.4", doc="exponent s > 1")),
          note="Published statement of Howard, Ramdas, McAuliffe, Sekhon (2021), Theorem 1 with c = 0 (sub-Gaussian) and eq. (11)'s h; whitehouse2022 Theorem 5 is its eta = 2, s = 1.4 case with constants rounded up. zeta(s) is computed by mpmath at extra precision (not interval-certified).")
def stitching_boundary(V, m, delta, eta, s, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """Howard et al. (2021) Theorem 1, sub-Gaussian case: ``k1 sqrt(v l(v))`` with ``v = max(V, m)``.

    ``l(v) = s log(log(eta v/m)/log(eta)) + log(zeta(s)/delta)``,
    ``k1 = (eta^(1/4) + eta^(-1/4))/sqrt(2)``.  Valid for all V (it uses V v m).
    Rounded up.  Preconditions: V >= 0, m > 0, delta in (0, 1), eta > 1, s > 1.
    Guarantee: interval-certified except zeta(s) (mpmath at +40 bits, widened).
    """
    v = check("V", V, NN)
    mm = check("m", m, P)
    d = check("delta", delta, U)
    et = check("eta", eta, Domain.interval(1, None))
    ss = check("s", s, Domain.interval(1, None))
    v = max(v, mm)

    def f(c, v, mm, d, et, sv):
        z = _zeta_enclosure(c, ss)
        k1 = (c.exp(c.log(et) / 4) + c.exp(-c.log(et) / 4)) / c.sqrt(2)
        ell = sv * c.log(c.log(et * v / mm) / c.log(et)) + c.log(z) - c.log(d)
        return k1 * c.sqrt(v * ell)

    return certified(f, (v, mm, d, et, ss), "upper", dps)


# ===========================================================================
# Theorem 2 (v2022) = Theorem 3 (v2023): the three odometers (as functions of V)
# ===========================================================================

_THM2_RESTRICT = ("every step (eps_n, 0)-pDP (delta_n = 0). For delta_n > 0 the V/2 drift term must be replaced by "
                  "sum_m pdp_drift_two_sided(eps_m, delta_m) (whitehouse2022_thm2_pdp_drift_two_sided), as the shipped Odometer "
                  "does, or by the looser sum_m pdp_drift(eps_m, delta_m) (whitehouse2022_thm2_pdp_drift); "
                  "as printed it fails (errata W22-THM2-DELTA)")
#: Why the restriction cannot be checked: the odometers are functions of V alone.
_THM2_UNCHECKED = ("the hypothesis delta_n = 0 is on the steps, and these functions receive only V = sum eps_m^2; "
                   "reference.accountants.whitehouse2023.Odometer, which sees each step, applies the corrected drift")

@register("whitehouse2022_thm2_filter", paper=W22, result="Theorem 2 (filter odometer)", direction="upper",
          summary="Filter odometer sqrt(2 y* L)/2 + sqrt(2L)/(2 sqrt(y*)) V + V/2 with the corrected y*",
          params=(_V, _eps, _dp), validity="valid under a restriction", erratum="W22-THM2-DELTA", restriction=_THM2_RESTRICT, unchecked=_THM2_UNCHECKED, provenance="corrected",
          note="Uses the corrected y* (errata W22-EQ6-YSTAR); equals eps at V = y*. Infinite for n > N (handled by reference.accountants.whitehouse2023.Odometer).")
@register("whitehouse2023_thm3_filter", paper=W23, result="Theorem 3 (filter odometer)", direction="upper",
          summary="Filter odometer with the corrected y* (ICML numbering)", params=(_V, _eps, _dp), validity="valid under a restriction", erratum="W22-THM2-DELTA", restriction=_THM2_RESTRICT, unchecked=_THM2_UNCHECKED, provenance="corrected")
def filter_odometer(V, eps, delta_prime, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """Theorem 2 (whitehouse2022), filter odometer: ``sqrt(2 y* L)/2 + sqrt(2L) V/(2 sqrt(y*)) + V/2``, rounded up.

    y* is the corrected root of eq. (6).  Any y > 0 in place of y* gives a valid
    odometer (it is Theorem 3 with a = y, b = sqrt(2 L y)); y* makes it tangent
    to ``f`` at V = y*, where it equals eps.  Preconditions: V >= 0, eps > 0,
    delta' in (0, 1).  Validity also needs n <= N (see :class:`reference.accountants.whitehouse2023.Odometer`).
    """
    v = check("V", V, NN)
    e = check("eps", eps, P)
    dp = check("delta_prime", delta_prime, U)

    def f(c, v, dp, e):
        L = _L(c, dp)
        y = _ystar(c, dp, e)
        return c.sqrt(2 * y * L) / 2 + c.sqrt(2 * L) / (2 * c.sqrt(y)) * v + v / 2

    return certified(f, (v, dp, e), "upper", dps)


@register("whitehouse2022_thm2_filter_as_printed", paper=W22, result="Theorem 2 (filter odometer)", direction="upper",
          summary="Filter odometer with y* exactly as printed (valid, but tangent near eps/2 instead of eps)",
          params=(_V, _eps, _dp), validity="valid under a restriction", erratum="W22-THM2-DELTA", restriction=_THM2_RESTRICT, unchecked=_THM2_UNCHECKED, provenance="as printed")
def filter_odometer_as_printed(V, eps, delta_prime, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """Theorem 2 (whitehouse2022) filter odometer with the printed y* (errata W22-EQ6-YSTAR). Rounded up.

    Still a valid odometer (any y > 0 is), but its tangent point is not V = y*(eps).
    """
    v = check("V", V, NN)
    e = check("eps", eps, P)
    dp = check("delta_prime", delta_prime, U)

    def f(c, v, dp, e):
        L = _L(c, dp)
        y = _ystar_printed(c, dp, e)
        return c.sqrt(2 * y * L) / 2 + c.sqrt(2 * L) / (2 * c.sqrt(y)) * v + v / 2

    return certified(f, (v, dp, e), "upper", dps)


@register("whitehouse2022_thm2_mixture", paper=W22, result="Theorem 2 (mixture odometer)", direction="upper",
          summary="Mixture odometer sqrt(2 log(sqrt((V + rho)/rho)/delta') (rho + V)) + V/2", params=(_V, _rhomix, _dp), validity="valid under a restriction", erratum="W22-THM2-DELTA", restriction=_THM2_RESTRICT, unchecked=_THM2_UNCHECKED)
@register("whitehouse2023_thm3_mixture", paper=W23, result="Theorem 3 (mixture odometer)", direction="upper",
          summary="Mixture odometer (ICML numbering; tuning parameter gamma)", params=(_V, _rhomix, _dp), validity="valid under a restriction", erratum="W22-THM2-DELTA", restriction=_THM2_RESTRICT, unchecked=_THM2_UNCHECKED)
def mixture_odometer(V, rho, delta_prime, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """Theorem 2 (whitehouse2022), mixture odometer: Theorem 4's boundary at delta' plus V/2, rounded up."""
    v, r, dp = check("V", V, NN), check("rho", rho, P), check("delta_prime", delta_prime, U)
    return certified(lambda c, v, r, d: _mixture(c, v, r, d) + v / 2, (v, r, dp), "upper", dps)


@register("whitehouse2022_thm2_stitched", paper=W22, result="Theorem 2 (stitched odometer)", direction="upper",
          summary="Stitched odometer 1.7 sqrt(V (log log(2V/v0) + 0.72 log(5.2/delta'))) + V/2 for V >= v0 (inf before)",
          params=(_V, _v0, _dp), validity="valid under a restriction", erratum="W22-THM2-DELTA", restriction=_THM2_RESTRICT, unchecked=_THM2_UNCHECKED)
@register("whitehouse2023_thm3_stitched", paper=W23, result="Theorem 3 (stitched odometer)", direction="upper",
          summary="Stitched odometer (ICML numbering)", params=(_V, _v0, _dp), validity="valid under a restriction", erratum="W22-THM2-DELTA", restriction=_THM2_RESTRICT, unchecked=_THM2_UNCHECKED)
def stitched_odometer(V, v0, delta_prime, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """Theorem 2 (whitehouse2022), stitched odometer: Theorem 5's boundary at delta' plus V/2; ``inf`` if V < v0. Rounded up."""
    v, m, dp = check("V", V, NN), check("v0", v0, P), check("delta_prime", delta_prime, U)
    if v < m:
        return INF
    return certified(lambda c, v, m, d: _stitched(c, v, m, d) + v / 2, (v, m, dp), "upper", dps)


@register("whitehouse2022_thm2_pdp_drift", paper=W22, result="Theorem 2 (delta_n > 0: drift of one pDP step on its good event)",
          direction="upper",
          summary="Drift bound of one (eps, delta)-pDP step, killed at its first bad outcome: e~ tanh(e~/2) + l with "
                  "l = log(1/(1 - delta (1 + e^-eps))), e~ = eps + l; equals eps tanh(eps/2) at delta = 0",
          params=(Param("eps", NN, default="0.1", doc="pDP epsilon of the step, eps >= 0"),
                  Param("delta", Domain.unit_nonneg(), default="0.01",
                        doc="pDP delta of the step, with delta (1 + e^-eps) < 1 (checked exactly)")),
          provenance="derived",
          note="Replaces the eps_n^2/2 drift that Theorem 2's 'delta_n = 0 analysis' uses and that pDP with delta_n > 0 does not give "
               "(errata W22-THM2-DELTA). Derivation (KL route) in the docstring; checked exactly against every pDP candidate law of "
               "the falsifier (proofs/test_whitehouse2022_thm2.py). Valid but loose: whitehouse2022_thm2_pdp_drift_two_sided, "
               "the least upper bound on the same quantity, is smaller for every delta > 0 and is what the shipped Odometer charges.")
def pdp_drift(eps, delta, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """whitehouse2022 Theorem 2 (delta_n > 0, corrected; derived): upper bound on ``E_P[L 1_G]`` for one (eps, delta)-pDP step, rounded up.

    ``G = {|L| <= eps}`` is the step's good event.  Valid but not tight: :func:`pdp_drift_two_sided`
    bounds the same quantity by its least upper bound, smaller for every delta > 0 (e.g. 0.547
    against 0.741 at eps = 1, delta = 0.1), and is the drift the shipped Odometer charges; this
    KL-route bound is kept as the looser variant (the errata ledger's first correction).

    Source: the corrected delta_n > 0 case of whitehouse2022 Theorem 2 / whitehouse2023 Theorem 3
    (errata W22-THM2-DELTA): the printed proof reuses E[L_n | F] <= eps_n^2/2, which fails for
    pDP with delta_n > 0 (a step whose loss is log(1/(1 - delta)) with probability one is
    (eps, delta)-pDP for delta <= 1 - e^-eps).

    Derivation.  Let a = P(G) >= 1 - delta and b = Q(G).  Off G, Q puts mass < e^-eps P(L > eps)
    <= e^-eps delta on {L > eps} and <= delta on {L < -eps} (the pDP condition for the swapped
    pair), so b >= 1 - delta (1 + e^-eps) =: 1 - c.  With p~ = P(.|G), q~ = Q(.|G):
    ``E_P[L 1_G] = a KL(p~ || q~) + a log(a/b) <= KL(p~ || q~) + log(1/(1 - c))``, and
    ``|log(p~/q~)| <= eps + log(b/a)^{+-} <= eps + l``, l = log(1/(1 - c)), so KL <= e~ tanh(e~/2)
    (the bound of whitehouse2022 Lemma 6 for pairs with ``|log ratio| <= e~``).  Hence
    ``d(eps, delta) = e~ tanh(e~/2) + l``.  The step's loss killed at its first bad outcome lies in
    [-eps, eps], so its centred increments stay eps^2-sub-Gaussian (Hoeffding) and Theorems 3-5
    apply to it with V unchanged; the bad outcomes cost sum delta_m <= delta''.

    Preconditions: eps >= 0, delta in [0, 1) with delta (1 + e^-eps) < 1 (exact test; else
    ``ValueError``).  Guarantee: the returned value is >= d(eps, delta) (rounded up).
    """
    e = check("eps", eps, NN)
    d = check("delta", delta, Domain.unit_nonneg())
    if d > 0 and compare_exp_rational(-e, (1 - d) / d) >= 0:  # d (1 + e^-e) >= 1  <=>  e^-e >= (1 - d)/d
        raise ValueError(f"delta must satisfy delta (1 + e^-eps) < 1, found eps={eps!r}, delta={delta!r}")

    def f(c, e, d):
        ell = -c.log(1 - d * (1 + c.exp(-e)))
        et = e + ell
        return et * (1 - 2 / (c.exp(et) + 1)) + ell  # tanh(x/2) = 1 - 2/(e^x + 1)

    return certified(f, (e, d), "upper", dps)


@register("whitehouse2022_thm2_pdp_drift_two_sided", paper=W22,
          result="Theorem 2 (delta_n > 0: drift of one pDP step on its good event, two-sided pDP)",
          direction="upper",
          summary="Least upper bound on E_P[L 1_{|L| <= eps}] over (eps, delta)-pDP pairs (Definition 3, both orders of the "
                  "neighbours): eps tanh(eps/2) + eps delta/sinh(eps) for delta < 1 - e^-eps, else eps; "
                  "equals eps tanh(eps/2) at delta = 0",
          params=(Param("eps", NN, default="0.1", doc="pDP epsilon of the step, eps >= 0"),
                  Param("delta", Domain.closed_unit(), default="0.01", doc="pDP delta of the step, delta in [0, 1]")),
          provenance="derived",
          note="The drift the shipped Odometer charges a delta_n > 0 step (errata W22-THM2-DELTA). Uses Q(|L| <= eps) >= "
               "1 - delta, the pDP condition for the swapped neighbours, where whitehouse2022_thm2_pdp_drift uses only "
               "1 - delta (1 + e^-eps); never larger than that drift, equal to it only at delta = 0, and attained by a "
               "three-atom pDP law (proofs/test_whitehouse2022_thm2.py; derivation: symbolic.whitehouse2023.pdp_drift_two_sided).")
def pdp_drift_two_sided(eps, delta, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """whitehouse2022 Theorem 2 (delta_n > 0, corrected; derived): the least upper bound on ``E_P[L 1_G]`` over (eps, delta)-pDP steps, rounded up.

    Contract: for every pair of output laws P (input x) and Q (neighbour x') with
    ``P(|L| > eps) <= delta`` and ``Q(|L| > eps) <= delta`` (whitehouse2022 Definition 3 applied
    to (x, x') and to (x', x); L = log(dP/dQ)), and ``G = {|L| <= eps}``, ::

        E_P[L 1_G] <= D(eps, delta) = eps tanh(eps/2) + eps delta / sinh(eps)   if delta < 1 - e^-eps,
                                      eps                                          otherwise,

    and D is attained, so no smaller drift bounds every such step.  Equivalently
    ``D = min(eps, (1 - delta) eps tanh(eps/2) + delta eps coth(eps))``; D(0, delta) = 0 and
    D(eps, 0) = eps tanh(eps/2) (whitehouse2022 Lemma 6's bound).

    Derivation.  On [-eps, eps] the line t lies below the concave curve
    ``alpha + beta e^-t`` that meets it at t = +-eps: ``alpha = eps coth(eps)``,
    ``beta = -eps/sinh(eps)``.  At a point of G with likelihood ratio p/q = e^t this reads
    ``p t <= alpha p + beta q``; summing over G gives ``E_P[L 1_G] <= alpha P(G) + beta Q(G)
    <= alpha - beta (1 - delta)`` (alpha > 0, beta < 0, P(G) <= 1, Q(G) >= 1 - delta), which is
    the first branch; and ``E_P[L 1_G] <= eps P(G) <= eps``.  The first branch is below eps iff
    delta < 1 - e^-eps.  Attained: for delta < 1 - e^-eps by P = (p1, p2, 0),
    Q = (p1 e^-eps, p2 e^eps, delta), p1 = (e^eps - 1 + delta)/(2 sinh eps), p2 = 1 - p1;
    otherwise by P = (1, 0), Q = (e^-eps, 1 - e^-eps).  The looser
    :func:`pdp_drift` bounds the same quantity with Q(G) >= 1 - delta (1 + e^-eps) and a KL
    argument; ``D <= eps tanh(eps/2) + delta < pdp_drift(eps, delta)`` for delta > 0.  How the
    drift enters the odometer is unchanged (see :func:`pdp_drift`): the step's loss killed at its
    first bad outcome lies in [-eps, eps], so its centred increments are eps^2-sub-Gaussian and
    its conditional mean is at most D.

    Preconditions: eps >= 0, delta in [0, 1] (pDP with delta = 1 says nothing; D = eps still
    holds).  The branch is decided exactly (``delta >= 1 - e^-eps`` iff ``e^-eps >= 1 - delta``,
    by :func:`reference.precision.compare_exp_rational`).  Rounding: the returned value is >= D
    (interval-certified, rounded up once); on the second branch it is eps rounded up.

    >>> from reference.precision import directed_decimal
    >>> directed_decimal(pdp_drift_two_sided(1, "0.1"), 6, "upper")
    '0.547209'
    """
    e = check("eps", eps, NN)
    d = check("delta", delta, Domain.closed_unit())
    if compare_exp_rational(-e, 1 - d) >= 0:  # e^-eps >= 1 - delta: the bound eps P(G) <= eps is the smaller one
        return rational(e, "upper", dps)

    def f(c, e, d):
        E = c.exp(e)
        # (1 - d) e tanh(e/2) + d e coth(e); tanh(e/2) = 1 - 2/(E + 1), coth(e) = 1 + 2/(E^2 - 1)
        return (1 - d) * e * (1 - 2 / (E + 1)) + d * e * (1 + 2 / (E * E - 1))

    return certified(f, (e, d), "upper", dps)


# ===========================================================================
# Lemma 4 (v2022) = Lemma 3 (v2023): the Rogers et al. odometer as quoted
# ===========================================================================

_dpR = Param("delta_prime", Domain.interval(0, Fraction(36787944117144232, 10**17), False, True), default="1e-6",
             doc="delta' in (0, 1/e] (checked exactly against 1/e)")
_nx = Param("n_records", Domain.integers_from(2), default="10000", doc="dataset size |x| >= 2")


def _check_rogers(V, delta_prime, n_records):
    v = check("V", V, NN)
    dp = check("delta_prime", delta_prime, Domain.positive())
    # exact test delta' <= 1/e  <=>  exp(-1) >= delta'  <=>  exp(1) <= 1/delta'
    if compare_exp_rational(Fraction(1), 1 / dp) > 0:
        raise ValueError(f"delta_prime must lie in (0, 1/e], found {delta_prime!r}")
    n = check("n_records", n_records, Domain.integers_from(2))
    return v, dp, n


def _log2(c, x):
    return c.log(x) / c.log(2)


@register("whitehouse2022_lem4_as_printed", paper=W22, result="Lemma 4 (Rogers et al. Theorem 6.5, as quoted)", direction="exact",
          summary="Rogers et al. odometer as printed in whitehouse2022 (V/2 inside the square roots)",
          params=(_V, _dpR, _nx), provenance="as printed", validity="false as printed", erratum="W22-LEM4-QUOTE",
          aliases=("whitehouse2022_lem4",),
          note="Parenthesisation differs from whitehouse2023 Lemma 3, and both differ from Rogers et al. (2016) Theorem 6.5 (eqs. (17)-(18)); see errata.")
def rogers_odometer_quoted_2022_as_printed(V, delta_prime, n_records, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """Lemma 4 (whitehouse2022) exactly as printed, rounded to nearest: NOT a valid odometer (errata W22-LEM4-QUOTE).

    On non-adaptive randomized-response steps with a small ``|x|`` and a small delta' its crossing
    probability exceeds delta' by orders of magnitude (``fullyadaptive falsify W22-LEM4-QUOTE``);
    kept only to reproduce the paper's comparison curves.

    For V in ``[1/|x|^2, 1]``: ``sqrt(2V(log(110e) + 2 log(log|x|/delta')) + V/2)``;
    otherwise ``sqrt(2(1/|x|^2 + V)(1 + 1/2 log(1 + |x|^2 V) loglog(4 log2(|x|)/delta') + V/2))``.
    Preconditions: V >= 0, 0 < delta' <= 1/e, integer ``|x| >= 2``.  Infinite for n > N.
    """
    v, dp, n = _check_rogers(V, delta_prime, n_records)
    n2 = n * n
    if Fraction(1, 1) / n2 <= v <= 1:
        f = lambda c, v, dp, n: c.sqrt(2 * v * (c.log(110) + 1 + 2 * c.log(c.log(n) / dp)) + v / 2)
    else:
        f = lambda c, v, dp, n: c.sqrt(2 * (1 / (n * n) + v) * (1 + c.log(1 + n * n * v) / 2 * c.log(c.log(4 * _log2(c, n) / dp)) + v / 2))
    return certified(f, (v, dp, n), "exact", dps)


@register("whitehouse2023_lem3_as_printed", paper=W23, result="Lemma 3 (Rogers et al. Theorem 6.5, as quoted)", direction="exact",
          summary="Rogers et al. odometer as printed in whitehouse2023 (V/2 outside the square roots)",
          params=(_V, _dpR, _nx), provenance="as printed", validity="false as printed", erratum="W22-LEM4-QUOTE",
          aliases=("whitehouse2023_lem3",),
          note="See errata: the quote differs from Rogers et al. (2016) Theorem 6.5.")
def rogers_odometer_quoted_2023_as_printed(V, delta_prime, n_records, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """Lemma 3 (whitehouse2023) exactly as printed, rounded to nearest: NOT a valid odometer (errata W22-LEM4-QUOTE).

    ``fullyadaptive falsify W23-LEM3-QUOTED`` gives a certified counterexample; kept only for the
    paper's comparison curves.

    For V in ``[1/|x|^2, 1]``: ``sqrt(2V(log(110e) + 2 log(log|x|/delta'))) + V/2``;
    otherwise ``sqrt(2(1/|x|^2 + V)(1 + 1/2 log(1 + |x|^2 V)) loglog(4 log2(|x|)/delta')) + V/2``.
    """
    v, dp, n = _check_rogers(V, delta_prime, n_records)
    n2 = n * n
    if Fraction(1, 1) / n2 <= v <= 1:
        f = lambda c, v, dp, n: c.sqrt(2 * v * (c.log(110) + 1 + 2 * c.log(c.log(n) / dp))) + v / 2
    else:
        f = lambda c, v, dp, n: c.sqrt(2 * (1 / (n * n) + v) * (1 + c.log(1 + n * n * v) / 2) * c.log(c.log(4 * _log2(c, n) / dp))) + v / 2
    return certified(f, (v, dp, n), "exact", dps)


# ===========================================================================
# Theorem 7 (v2022) = Theorem 1 (v2023): approximate-zCDP filter;  Theorem 6 (v2022): mixed filter
# ===========================================================================

@register("whitehouse2022_thm7_stop_index", paper=W22, result="Theorem 7", direction="exact", returns="int",
          summary="Approximate-zCDP filter: N = inf{n: rho < sum_{m<=n+1} rho_m or delta < sum_{m<=n+1} delta_m}",
          params=(Param("rhos", NN, kind="sequence", default="0.1,0.2,0.3", doc="per-step rho_n"),
                  Param("deltas", Domain.closed_unit(), kind="sequence", default="0,0,0", doc="per-step delta_n"),
                  Param("rho", P, default="0.5", doc="target rho > 0"), Param("delta", Domain.closed_unit(), default="1e-6", doc="target delta")))
@register("whitehouse2023_thm1_stop_index", paper=W23, result="Theorem 1", direction="exact", returns="int",
          summary="Approximate-zCDP filter stopping time (ICML numbering)",
          params=(Param("rhos", NN, kind="sequence", default="0.1,0.2,0.3", doc="per-step rho_n"),
                  Param("deltas", Domain.closed_unit(), kind="sequence", default="0,0,0", doc="per-step delta_n"),
                  Param("rho", P, default="0.5", doc="target rho > 0"),
                  Param("delta", Domain.closed_unit(), default="1e-6", doc="target delta")))
def zcdp_filter_stop_index(rhos: Sequence, deltas: Sequence, rho, delta) -> int:
    """Theorem 7 (whitehouse2022) / Theorem 1 (whitehouse2023): steps the approximate-zCDP filter lets run.

    ``N = inf{n: rho < sum_{m<=n+1} rho_m or delta < sum_{m<=n+1} delta_m}``;
    A_{1:N} is delta-approximate rho-zCDP.  Exact rational decision.
    """
    rs = check_seq("rhos", rhos, NN)
    ds = check_seq("deltas", deltas, Domain.closed_unit())
    if len(rs) != len(ds):
        raise ValueError(f"rhos and deltas must have the same length, found {len(rs)} and {len(ds)}")
    R = check("rho", rho, P)
    D = check("delta", delta, Domain.closed_unit())
    sr = sd = Fraction(0)
    for n, (r, d) in enumerate(zip(rs, ds)):
        sr += r
        sd += d
        if sr > R or sd > D:
            return n
    return len(rs)


@register("whitehouse2023_thm2_delta_via_zcdp", paper=W23, result="Theorem 2 (proof via Theorem 1 and Lemma 1)", direction="upper",
          summary="delta certified by the zCDP route of the DP filter: delta'' + (1 - delta'') delta' <= delta' + delta''",
          params=(_dp, _dpp), provenance="derived")
def dp_filter_delta_via_zcdp(delta_prime, delta_second, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """Theorem 2 (whitehouse2023) proof: the zCDP route certifies ``delta'' + (1 - delta'') delta'`` (rounded up).

    It never exceeds the ``delta' + delta''`` the theorem states.
    """
    dp = check("delta_prime", delta_prime, U)
    d2 = check("delta_second", delta_second, Domain.unit_nonneg())
    return rational(d2 + (1 - d2) * dp, "upper", dps)


@register("whitehouse2022_thm6_stop_index", paper=W22, result="Theorem 6", direction="exact", returns="int",
          summary="Mixed DP/zCDP filter: steps 'dp:eps:delta' or 'zcdp:rho' (eps^2 = 2 rho); same N as Theorem 1",
          params=(Param("steps", "list of 'dp:EPS:DELTA' or 'zcdp:RHO'", kind="text", default="dp:0.1:0,zcdp:0.005,dp:0.2:1e-9",
                        doc="comma-separated steps: 'dp:EPS:DELTA' an (eps, delta)-DP step, 'zcdp:RHO' a rho-zCDP step"),
                  _epsT, _dp, _dpp))
def mixed_filter_stop_index(steps, eps_target, delta_prime, delta_second) -> int:
    """Theorem 6 (whitehouse2022): the Theorem 1 stopping rule for steps that are DP or zCDP.

    A zCDP step ``rho_n`` (an ``(1/2) eps_n^2``-zCDP step) contributes
    ``eps_n^2 = 2 rho_n`` to V and 0 to the delta sum.  Exact decision.
    ``steps`` is a list of tuples ``("dp", eps, delta)`` / ``("zcdp", rho)`` or a
    comma-separated string ``"dp:0.1:0,zcdp:0.005"``.
    """
    parsed = parse_steps(steps)
    et = check("eps_target", eps_target, P)
    dp = check("delta_prime", delta_prime, U)
    d2 = check("delta_second", delta_second, Domain.unit_nonneg())
    V = S = Fraction(0)
    for n, (v2, d) in enumerate(parsed):
        V += v2
        S += d
        if S > d2 or not filter_admits(V, et, dp):
            return n
    return len(parsed)


def parse_steps(steps) -> list[tuple[Fraction, Fraction]]:
    """Parse mixed steps into ``(eps_n^2, delta_n)`` pairs (Theorem 6, whitehouse2022)."""
    if isinstance(steps, str):
        items = [tuple(s.strip().split(":")) for s in steps.split(",") if s.strip()]
    else:
        items = [tuple(s) for s in steps]
    if not items:
        raise ValueError("steps must be a non-empty sequence, found an empty one")
    out = []
    for i, it in enumerate(items):
        kind = str(it[0]).lower()
        if kind == "dp" and len(it) == 3:
            e = check(f"steps[{i}].eps", it[1], NN)
            d = check(f"steps[{i}].delta", it[2], Domain.closed_unit())
            out.append((e * e, d))
        elif kind == "zcdp" and len(it) == 2:
            r = check(f"steps[{i}].rho", it[1], NN)
            out.append((2 * r, Fraction(0)))
        else:
            raise ValueError(f"steps[{i}] must be ('dp', eps, delta) or ('zcdp', rho), found {it!r}")
    return out


#: Former names of functions renamed so that the name says they compute a printed formula that is false
#: (errata W22-LEM4-QUOTE): {old name: new name}.
_RENAMED = {"rogers_odometer_quoted_2022": "rogers_odometer_quoted_2022_as_printed",
            "rogers_odometer_quoted_2023": "rogers_odometer_quoted_2023_as_printed"}


def __getattr__(name: str):
    """A former name of :data:`_RENAMED` resolves to the renamed function, with a ``DeprecationWarning`` naming it."""
    new = _RENAMED.get(name)
    if new is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import warnings

    warnings.warn(f"{__name__}.{name} is the printed (false) formula, now named {new}", DeprecationWarning, stacklevel=2)
    return globals()[new]
