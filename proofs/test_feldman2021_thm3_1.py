"""feldman2021 Theorem 3.1 (seed 002_485f6b48c71ae221.txt; Feldman and Zrnic, *Individual Privacy Accounting
via a Renyi Filter*, arXiv 2008.11193 as in the seed; formulas stripped, reconstructed from the proof).

Statement (our words, reconstructed).  Fix alpha > 1, B > 0 and a set S of pairs of datasets.  Let
``rho_t(a^(t-1)) = sup_{(S, S') in S} D^<->_alpha(A_t(a^(t-1), S) || A_t(a^(t-1), S'))`` be the order-alpha
parameter of step t given the earlier outputs (eq. (1)).  If ``sum_t rho_t <= B`` almost surely, then the
adaptive composition (Algorithm 1) satisfies, for every (S, S') in S,

    D^<->_alpha( A^(k)(S) || A^(k)(S') ) <= B.

Proof route (checked here): ``M_t = exp((alpha-1)(L_t - sum_{j<=t} rho_j))`` with ``L_t`` the log-likelihood
ratio of the transcript is a supermartingale under A(S):
``E[exp((alpha-1) l_t) | a^(t-1)] = M_alpha(A_t(.,S) || A_t(.,S')) <= exp((alpha-1) rho_t)``.

Second route: this module enumerates every transcript of small adaptive compositions with exact
``Fraction`` probabilities (its own code, written from the definition) and compares with
``reference.verify.feldman2021.check_adaptive_composition``.  Everything is decided exactly:
``D_alpha <= B  <=>  moment <= exp((alpha-1) B)`` (``compare_exp_rational``).

The helpers :func:`moment`, :func:`enumerate_composition` and :func:`table_strategy` are reused by the
other feldman2021 proof modules.
"""
from __future__ import annotations

from fractions import Fraction as F

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from reference.bounds import feldman2021 as FZ
from reference.verify import feldman2021 as FZV
from reference.precision import compare_exp_rational


# --------------------------------------------------------------------------
# independent exact enumeration (shares no code with reference.bounds.feldman2021)
# --------------------------------------------------------------------------

def moment(P, Q, a: int) -> F:
    """sum_y P(y)^a Q(y)^(1-a) for same-support rational laws (exact)."""
    tot = F(0)
    for p, q in zip(P, Q):
        if p:
            assert q, "same support required"
            tot += p ** a / q ** (a - 1)
    return tot


def sym_moment(P, Q, a: int) -> F:
    """exp((a-1) D^<->_a(P||Q)) = max of the two directions' moments."""
    return max(moment(P, Q, a), moment(Q, P, a))


def enumerate_composition(law, pairs, a: int, horizon: int, *, stop=None, admit=None, param=None):
    """Enumerate all transcripts of the adaptive composition of ``law`` on every dataset of ``pairs``.

    ``law(h, d)``: exact output law (tuple of Fractions) of step len(h)+1 on dataset d given history h.
    ``stop(h)``: True to stop before the next step (adaptive stopping; a function of the history only).
    ``param(h)``: the step's parameter as a moment s = exp((a-1) rho_t(h)); default: the sup over ``pairs``.
    ``admit(prod, s)``: Algorithm 2's filter: run the step iff the path's product with s stays admissible.

    Returns per pair ``(d, d')``: the exact joint moments both ways, the proof's supermartingale at the end
    under each law, and ``max_prod`` = max over transcripts of prod_t s_t (i.e. exp((a-1) B*)).
    """
    datasets = sorted({d for pr in pairs for d in pr}, key=repr)
    if param is None:
        def param(h):
            return max(sym_moment(law(h, d), law(h, e), a) for d, e in pairs)
    # transcripts: (history, {d: prob}, prod)
    stack = [((), {d: F(1) for d in datasets}, F(1))]
    leaves = []
    while stack:
        h, probs, prod = stack.pop()
        go = len(h) < horizon and not (stop and stop(h))
        if go:
            s = param(h)
            if admit is not None and not admit(prod, s):
                go = False
        if not go:
            leaves.append((probs, prod))
            continue
        laws = {d: law(h, d) for d in datasets}
        for y in range(len(laws[datasets[0]])):
            nxt = {d: probs[d] * laws[d][y] for d in datasets}
            if all(v == 0 for v in nxt.values()):
                continue
            stack.append((h + (y,), nxt, prod * s))
    out = {}
    for d, e in pairs:
        m_de = sum((pr[d] ** a / pr[e] ** (a - 1) for pr, _ in leaves if pr[d]), F(0))
        m_ed = sum((pr[e] ** a / pr[d] ** (a - 1) for pr, _ in leaves if pr[e]), F(0))
        sm_de = sum((pr[d] ** a / pr[e] ** (a - 1) / pd for pr, pd in leaves if pr[d]), F(0))
        sm_ed = sum((pr[e] ** a / pr[d] ** (a - 1) / pd for pr, pd in leaves if pr[e]), F(0))
        out[(d, e)] = {"m": max(m_de, m_ed), "m_de": m_de, "m_ed": m_ed, "sm_de": sm_de, "sm_ed": sm_ed}
    max_prod = max(pd for _, pd in leaves)
    return out, max_prod, len(leaves)


def within_budget(m: F, a: int, B: F) -> bool:
    """Exact decision of log(m)/(a-1) <= B."""
    return compare_exp_rational((a - 1) * B, m) >= 0


def rr(p):
    return (p, 1 - p)


# tables of adaptive parameters drawn by hypothesis: p in (1/2, 1), incl. an extreme 1 - 1e-6
P_VALUES = st.one_of(st.fractions(min_value=F(21, 40), max_value=F(19, 20), max_denominator=40),
                     st.just(1 - F(1, 10**6)), st.just(F(1, 2)))


def table_strategy(table):
    """Adaptive randomized response on datasets {0, 1}: bit d is answered truthfully w.p. p(h) = table[f(h)]."""
    k = len(table)

    def law(h, d):
        p = table[(3 * len(h) + 2 * sum(h) + (h[-1] if h else 0)) % k]
        return rr(p) if d == 1 else rr(1 - p)
    return law


# --------------------------------------------------------------------------
# Theorem 3.1 with a set of pairs (three datasets, three pairs)
# --------------------------------------------------------------------------

def family_law(table):
    """Three datasets d in {0, 1, 2}: P(y=1) = 1/2 + d w(h)/5, w(h) in (0, 1] adaptive from the table."""
    k = len(table)

    def law(h, d):
        w = table[(len(h) + 3 * sum(h)) % k]
        p1 = F(1, 2) + d * w / 5
        return (p1, 1 - p1)
    return law


PAIRS3 = [(0, 1), (1, 2), (0, 2)]
WEIGHTS = st.lists(st.fractions(min_value=F(1, 30), max_value=1, max_denominator=30), min_size=1, max_size=5)


@given(WEIGHTS, st.sampled_from([2, 3, 5]), st.integers(1, 6))
@example([F(1)], 2, 6)
@example([F(1, 30), F(1)], 5, 6)
@settings(deadline=None)
def test_theorem_3_1_every_pair_of_the_set(table, a, horizon):
    """Theorem 3.1: for every (S, S') in the set, D^<->_alpha(joint) <= B* := max over transcripts of sum_t rho_t,
    rho_t = sup over the set (eq. (1)); exactly: joint moment <= max_path prod exp((alpha-1) rho_t)."""
    res, max_prod, _ = enumerate_composition(family_law(table), PAIRS3, a, horizon)
    for pair, r in res.items():
        assert r["m"] <= max_prod, pair


@given(WEIGHTS, st.sampled_from([2, 3, 4]), st.integers(1, 6))
@example([F(1)], 4, 6)
@settings(deadline=None)
def test_theorem_3_1_proof_supermartingale(table, a, horizon):
    """Proof of Theorem 3.1: E_{A(S)}[exp((alpha-1)(L_T - sum_t rho_t))] <= 1 (both directions), and each step's
    conditional moment E[exp((alpha-1) l_t) | a^(t-1)] = M_alpha(A_t(S)||A_t(S')) <= exp((alpha-1) rho_t)."""
    law = family_law(table)
    res, _, _ = enumerate_composition(law, PAIRS3, a, horizon)
    for r in res.values():
        assert r["sm_de"] <= 1 and r["sm_ed"] <= 1
    # the one-step inequality that makes M_t a supermartingale, at every history of length < horizon
    hs = [()]
    for _ in range(horizon):
        hs = hs + [h + (y,) for h in hs if len(h) == len(hs[-1]) for y in (0, 1)]
    for h in set(hs):
        s = max(sym_moment(law(h, d), law(h, e), a) for d, e in PAIRS3)
        for d, e in PAIRS3:
            assert moment(law(h, d), law(h, e), a) <= s and moment(law(h, e), law(h, d), a) <= s


@given(st.lists(P_VALUES, min_size=1, max_size=6), st.sampled_from([2, 3, 4]), st.integers(1, 7))
@example([F(3, 4)], 2, 7)
@example([1 - F(1, 10**6), F(11, 20)], 3, 5)
@settings(deadline=None)
def test_theorem_3_1_agrees_with_library_checker(table, a, horizon):
    """Second route: the library's exact checker (check_adaptive_composition) finds the same joint moments and the
    same almost-sure bound B* as this module's enumeration; both satisfy D^<-> <= B*."""
    law = table_strategy(table)
    res, max_prod, n = enumerate_composition(law, [(1, 0)], a, horizon)
    lib = FZV.check_adaptive_composition(lambda h: (law(h, 1), law(h, 0)), a, horizon)
    r = res[(1, 0)]
    assert (lib.moment_pq, lib.moment_qp, lib.bound_moment, lib.paths) == (r["m_de"], r["m_ed"], max_prod, n)
    assert lib.holds and r["m"] <= max_prod


def test_theorem_3_1_conclusion_with_a_rational_budget():
    """D^<->_alpha <= B for a rational B >= B*: decided exactly with compare_exp_rational (not through rounding)."""
    law = table_strategy([F(3, 4), F(3, 5), F(9, 10)])
    for a in (2, 3):
        res, max_prod, _ = enumerate_composition(law, [(1, 0)], a, 6)
        lib = FZV.check_adaptive_composition(lambda h: (law(h, 1), law(h, 0)), a, 6)
        from reference.precision import mpf_to_fraction
        B = mpf_to_fraction(lib.path_bound()) + F(1, 10**30)
        assert within_budget(res[(1, 0)]["m"], a, B) and lib.holds_for_budget(B)


def test_negative_control_bound_on_some_path_only_is_not_enough():
    """Negative control: replacing the almost-sure bound (max over paths) by the min over paths is violated by the
    exact joint moment, so the checker can fail."""
    law = table_strategy([F(11, 20), F(19, 20)])
    # parameters depend on the history: the min-path product is far below the max-path product
    found = False
    for a in (2, 3):
        res, max_prod, _ = enumerate_composition(law, [(1, 0)], a, 6)
        lib = FZV.check_adaptive_composition(lambda h: (law(h, 1), law(h, 0)), a, 6)
        assert res[(1, 0)]["m"] <= max_prod
        found |= res[(1, 0)]["m"] > lib.min_path_moment
    assert found


def test_bad_inputs_name_the_parameter():
    with pytest.raises(ValueError, match="alpha"):
        FZV.check_adaptive_composition(lambda h: None, 1, 3)
    with pytest.raises(ValueError, match="horizon"):
        FZV.check_adaptive_composition(lambda h: None, 2, -1)
