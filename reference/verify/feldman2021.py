"""Exact checkers of Feldman and Zrnic (paper key ``feldman2021``): Theorem 3.1, Corollary 3.2, Theorem 4.3 and Algorithm 3 / Theorem 4.5 on small discrete instances.

Seed: ``002_485f6b48c71ae221.txt`` (arXiv 2008.11193).  Exact enumeration of adaptive
compositions of discrete mechanisms (small trees of randomized responses with adaptively
chosen parameters): the exact Renyi moment of the joint transcript is compared with the
almost-sure bound, with no rounding (integer orders give rational moments, decided by
:func:`reference.precision.compare_exp_rational`).  The closed forms are in
:mod:`reference.bounds.feldman2021`, the stateful filters in
:mod:`reference.accountants.feldman2021`.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass
from fractions import Fraction
from typing import Callable, Optional, Sequence

from ..bounds.feldman2021 import (
    NN,
    P_,
    U,
    _moment_exact,
    _dist,
)
import mpmath

from ..precision import (
    DEFAULT_DPS,
    Domain,
    certified,
    check,
    compare_exp_rational,
    mpf_to_fraction,
)

__all__ = [
    "randomized_response",
    "CompositionCheck",
    "IndividualCheck",
    "check_adaptive_composition",
    "check_corollary_3_2",
    "check_individual_filter",
]

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


def check_adaptive_composition(strategy: Strategy, alpha, horizon: int, *, rdp_filter=None) -> CompositionCheck:
    """feldman2021 Theorem 3.1 (and Theorem 4.3 with ``rdp_filter``): exact Renyi moments of an adaptive composition.

    Contract: ``strategy(history)`` receives the tuple of earlier outputs (indices) and
    returns the next step as a pair ``(P_t, Q_t)`` of exact conditional output laws under
    the two inputs (e.g. :func:`randomized_response` with a p chosen from the history), or
    ``None`` to stop.  The parameter rho_t = D^<->_alpha(P_t||Q_t) is thus predictable, as in
    eq. (1).  Every transcript of length <= ``horizon`` is enumerated (cost: the tree size).

    With ``rdp_filter`` (a :class:`.RenyiFilter` with the same alpha), Algorithm 2 is run along
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
