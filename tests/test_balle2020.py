"""balle2020 bounds (reference/bounds/balle2020.py): second routes, SymPy derivations, orderings, preconditions, data.

Second routes used here: the SymPy derivation chain of symbolic/balle2020.py
(evaluated at 60 digits with mpf inputs), naive high-precision sums, exact rational
enumeration (Lemma A.1 on random finite LDP mechanisms; dummy-update expectations
by enumerating check-in patterns), and orderings between bounds.  The exact
privacy comparisons are in tests/test_checkins_exact.py.
"""
import itertools
import math
import random
from fractions import Fraction as F

import mpmath
import pytest
import sympy as sp
from hypothesis import example, given, strategies as st

from reference.bounds import balle2020 as B
from reference.catalog import CATALOG, PROVENANCES
from reference.precision import certified, mpf_to_fraction
from symbolic import balle2020 as S

_D = {}


def D(name):
    """Each derivation computed once per session (SymPy simplification is slow)."""
    if name not in _D:
        _D[name] = S.DERIVATIONS[name]()
    return _D[name]


IDS = sorted(k for k in CATALOG if k.startswith("balle2020_") or k.startswith("erlingsson2019_"))


def num(expr, **vals):
    """Evaluate a SymPy expression at 60 digits with mpf inputs (never float)."""
    syms = sorted(expr.free_symbols, key=lambda s: s.name)
    f = sp.lambdify(syms, expr, modules="mpmath")
    with mpmath.workdps(60):
        return f(*[mpmath.mpf(vals[s.name]) if not isinstance(vals[s.name], F)
                   else mpmath.mpf(vals[s.name].numerator) / vals[s.name].denominator for s in syms])


def close(a, b, tol=40):
    return abs(a - b) <= mpmath.mpf(10) ** -tol * max(abs(a), abs(b), mpmath.mpf(10) ** -300)


def rng_points(k, seed):
    r = random.Random(seed)
    return [(F(r.randint(1, 3000), 1000), r.randint(1, 10**5), F(r.randint(1, 1000), 1000), F(1, 10 ** r.randint(1, 60)))
            for _ in range(k)]


# ---------------------------------------------------------------------------
# Catalog
# ---------------------------------------------------------------------------

def test_catalog_entries_present_with_citations_and_honest_provenance():
    expected = {"balle2020_lema_1_eps", "balle2020_lema_2_eps", "balle2020_lema_2_eq2_eps", "balle2020_thm3_2_eps",
                "balle2020_thm3_2_eps_refined", "balle2020_thm3_2_simplified", "balle2020_thm3_2_approx_eps",
                "balle2020_thm3_2_approx_delta", "balle2020_thm3_2_delta0_max", "balle2020_cor3_3_eps",
                "balle2020_cor3_3_delta", "balle2020_prop3_4_expected_dummies", "balle2020_prop3_4_bound",
                "balle2020_thm3_5_excess_risk", "balle2020_thm3_5_expected_excess_risk", "balle2020_thm4_1_eps",
                "balle2020_thm4_1_approx_eps", "balle2020_thm4_1_approx_delta", "balle2020_thm4_2_convex",
                "balle2020_thm4_2_smooth", "balle2020_thm4_3_eps", "balle2020_thm4_3_approx_eps",
                "balle2020_thm4_3_approx_delta", "balle2020_prop4_4_expected_dummies", "balle2020_prop4_4_bound",
                "balle2020_thm5_1_eps", "balle2020_thm5_1_eps_refined", "balle2020_thm5_1_approx_eps",
                "balle2020_thm5_1_approx_delta", "erlingsson2019_thm7_eps", "balle2020_thm5_1_min_n",
                "balle2020_thm3_2_min_m"}
    assert expected <= set(IDS)
    for i in IDS:
        e = CATALOG[i]
        assert e.provenance in PROVENANCES and e.provenance != "as printed"  # every formula is stripped in the seed
        assert e.note, f"{i}: the note must give the source"
        assert any(c["id"] == i for c in e.func.__citations__)
        first = e.func.__doc__.strip().splitlines()[0]
        assert any(w in first for w in ("Theorem", "Lemma", "Proposition", "Corollary", "Figure", "Table", "balle2020", "erlingsson2019"))
        if e.provenance == "published statement":
            assert "UNVERIFIED" in e.note or "KOV" in e.note or "Kairouz" in e.note


@pytest.mark.parametrize("i", IDS)
def test_every_entry_evaluates_at_its_defaults(i):
    e = CATALOG[i]
    v = e.func(**e.defaults())
    assert v is not None and (isinstance(v, int) or mpmath.isfinite(v))


# ---------------------------------------------------------------------------
# SymPy derivations vs reference at random points (60 digits, mpf inputs)
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("e0,m,p0,d", rng_points(10, 1))
def test_thm3_2_matches_derivation(e0, m, p0, d):
    expr = D("thm3_2_fixed_window").result
    got = num(expr, epsilon_0=e0, m=m, p_0=p0, delta=d)
    assert close(got, B.thm3_2_eps(e0, m, p0, d))
    assert B.thm3_2_eps(e0, m, p0, d) >= got  # rounded up
    # refined constant: the derivation's C2 step before 1/(1 - a) <= E
    C2r = D("thm3_2_fixed_window").steps[2][1]
    c2 = num(C2r, E=mpmath.exp(mpmath.mpf(e0.numerator) / e0.denominator), m=m, p_0=p0)
    lem = num(D("lemma_a2_composition").result, C_2=c2, epsilon_0=e0, delta=d)
    assert close(lem, B.thm3_2_eps_refined(e0, m, p0, d), 35)


@pytest.mark.parametrize("e0,n,_p,d", rng_points(10, 2))
def test_thm5_1_matches_derivation(e0, n, _p, d):
    got = num(D("thm5_1_shuffling").result, epsilon_0=e0, n=n, delta=d)
    assert close(got, B.thm5_1_eps(e0, n, d))
    Ev = mpmath.exp(mpmath.mpf(e0.numerator) / e0.denominator)
    c2 = num(D("thm5_1_shuffling").steps[2][1], E=Ev, n=n) + mpmath.mpf(1) / n**2
    assert close(num(D("lemma_a2_composition").result, C_2=c2, epsilon_0=e0, delta=d), B.thm5_1_eps_refined(e0, n, d), 35)
    assert B.thm4_1_eps(e0, n, d) == B.thm5_1_eps(e0, n, d)


@pytest.mark.parametrize("e0,m,q,d", rng_points(8, 3))
def test_lemmas_match_derivations(e0, m, q, d):
    assert close(num(D("lemma_a1_mixture").result, q=q, epsilon_0=e0), B.lemma_a1_eps(q, e0))
    cs = [q] * (m % 7 + 1)
    C2 = sum(x * x for x in cs)
    assert close(num(D("lemma_a2_composition").result, C_2=C2, epsilon_0=e0, delta=d), B.lemma_a2_eps(cs, e0, d))
    post = num(D("posterior_bound").result, pi=q / 2, s=q / 3, epsilon_0=e0)
    assert mpf_to_fraction(post) >= q / 2 * (1 - F(1, 10**50))  # the posterior bound exceeds the prior


def test_dummy_and_utility_derivations_match():
    for n, m, p0 in ((100, 100, F(1)), (1000, 37, F(1, 3)), (50, 10, F(7, 10))):
        assert close(num(D("prop3_4_dummies").result, m=m, n=n, p_0=p0), B.prop3_4_bound(n, m, p0))
        assert close(num(D("prop3_4_dummies").steps[0][1], m=m, n=n, p_0=p0), B.prop3_4_expected_dummies(n, m, p0))
        assert close(num(D("prop4_4_dummies").result, m=m, n=n, p_0=p0), B.prop4_4_bound(n, m, p0))
        assert close(num(D("prop4_4_dummies").steps[0][1], m=m, n=n, p_0=p0), B.prop4_4_expected_dummies(n, m, p0))
    G = mpmath.sqrt(mpmath.mpf(1) + 10 * mpmath.mpf(2) ** 2)
    assert close(num(D("thm3_5_utility").result, G=G, R=3, m=500, s=321), B.thm3_5_excess_risk(1, 3, 10, 2, 500, 321))
    counts = [3, 0, 5, 2]
    V = sum(F(1 + 10 * 4, k) for k in counts if k)
    assert close(num(D("thm4_2_smooth_utility").result, R=3, T=3, V=V, beta=F(1, 2)), B.thm4_2_smooth(1, 3, 10, 2, F(1, 2), counts))
    assert close(num(D("thm3_2_simplified_constant").result), mpmath.sqrt(2 * mpmath.e) * (mpmath.e - 1)
                 + mpmath.e * (mpmath.e - 1) ** 2 / (2 * mpmath.sqrt(mpmath.log(100))))
    assert num(D("thm3_2_simplified_constant").result) <= B.SIMPLIFIED_CONSTANT


def test_cor3_3_and_approx_clause_match_derivations():
    e0, n, m, dr, dc = F(1, 2), 10**4, 100, F(1, 10**8), F(1, 10**7)
    lead = num(D("cor3_3_repetitions").result, E=mpmath.exp(mpmath.mpf(1) / 2), L_rep=mpmath.log(10**8), L_comp=mpmath.log(10**7), n=n)
    tot = B.cor3_3_eps(e0, n, m, dr, dc)
    assert lead <= tot <= lead * F(11, 10)  # the leading term dominates here
    ep = B.thm3_2_approx_eps("0.1", 1000, 1, "1e-6")
    dl = B.thm3_2_approx_delta("0.1", "1e-30", 1000, 1, "1e-6", "1e-9")
    want = num(D("approx_dp_clause").result, delta=F(1, 10**6), delta_1=F(1, 10**9), k=1000, **{"epsilon'": ep})
    assert close(want, dl, 30)
    assert ep == B.thm3_2_eps("0.8", 1000, 1, "1e-6")


def test_every_derivation_renders():
    for name, f in S.DERIVATIONS.items():
        d = f()
        assert name in d.as_text() and d.as_latex() and d.steps


def test_symbolic_identities():
    """Lemma A.1's key identity and Theorem 5.1's integral are exact symbolic facts."""
    ident = D("lemma_a1_mixture").steps[5][1]
    assert sp.simplify(ident - S.x * (1 - S.x) * (S.E - 1) ** 2 / S.E) == 0
    assert D("thm5_1_shuffling").steps[3][1] == 0
    assert sp.simplify(D("thm3_2_fixed_window").steps[3][1] - (S.E - 1) * (1 - S.p0)) == 0
    assert D("prop3_4_dummies").steps[4][1] == sp.exp(-1)


# Lemma A.1 against random finite LDP mechanisms (every event, exact rationals), its tightness and a
# halved-bound control: proofs/test_balle2020_lema_1.py.


@given(st.lists(st.fractions(min_value=0, max_value=1), min_size=1, max_size=12),
       st.fractions(min_value=F(1, 1000), max_value=5), st.sampled_from([F(1, 10), F(1, 10**6), F(1, 10**300)]))
@example([F(1)], F(5), F(1, 10**300))
def test_lemma_a2_closed_form_dominates_kov_composition(cs, e0, d):
    """Second route: KOV's heterogeneous composition with the exact per-step epsilons (eq. (2)) <= the closed form."""
    assert B.lemma_a2_eq2_eps(cs, e0, d) <= B.lemma_a2_eps(cs, e0, d)


# ---------------------------------------------------------------------------
# Orderings, monotonicity, precision ladder, extremes
# ---------------------------------------------------------------------------

@given(st.fractions(min_value=F(1, 10**6), max_value=40), st.integers(1, 10**12), st.fractions(min_value=F(1, 10**6), max_value=1),
       st.sampled_from([F(1, 2), F(1, 10**6), F(1, 10**300)]))
@example(F(40), 1, F(1), F(1, 10**300))
@example(F(1, 10**6), 10**12, F(1, 10**6), F(1, 2))
def test_thm3_2_orderings(e0, m, p0, d):
    eb = B.thm3_2_eps(e0, m, p0, d)
    assert B.thm3_2_eps_refined(e0, m, p0, d) <= eb
    assert B.thm4_3_eps(e0, m, p0, d) == eb
    assert B.thm3_2_eps(e0, m + 1, p0, d) <= eb
    assert B.thm3_2_eps(e0 * F(11, 10), m, p0, d) >= eb
    # Lemma A.2 at the sequence q_bar_j = p0/(m - a(j-1)) is below the closed form (small m only)
    if m <= 30:
        Ev = mpf_to_fraction(certified(lambda c, e: c.exp(e), (e0,), "upper", 30))
        a = p0 * (1 - 1 / Ev)
        cs = [min(F(1), p0 / (m - a * (j - 1))) for j in range(1, m + 1)]
        assert B.lemma_a2_eps(cs, e0, d) <= eb * (1 + F(1, 10**20))


@given(st.fractions(min_value=F(1, 100), max_value=1), st.integers(1, 10**9), st.fractions(min_value=F(1, 100), max_value=1),
       st.sampled_from([F(1, 100), F(1, 10**6), F(1, 10**300)]))
@example(F(1), 1, F(1), F(1, 100))
def test_simplified_form_dominates_in_its_regime(e0, m, p0, d):
    assert B.thm3_2_eps_simplified(e0, m, p0, d) >= B.thm3_2_eps(e0, m, p0, d)


@given(st.fractions(min_value=F(1, 10**4), max_value=30), st.integers(1, 10**15), st.sampled_from([F(1, 3), F(1, 10**300)]))
@example(F(30), 1, F(1, 10**300))
def test_thm5_1_orderings_and_vs_erlingsson(e0, n, d):
    eb = B.thm5_1_eps(e0, n, d)
    assert B.thm5_1_eps_refined(e0, n, d) <= eb
    assert B.thm5_1_eps(e0, n + 1, d) <= eb
    if e0 < F(1, 2) and n >= 1000 and d < F(1, 100):
        assert eb <= B.erlingsson2019_thm7_eps(e0, n, d)  # 'exponentially improve'


def test_precision_ladder_and_direction():
    """Upper bounds at 20 digits are >= certified lower enclosures at 100 digits of the same formula."""
    for e0, m, p0, d in rng_points(6, 9):
        hi = B.thm3_2_eps(e0, m, p0, d, dps=20)
        lo = certified(B._thm32, (e0, F(m), p0, d), "lower", 100)
        assert hi >= lo and close(hi, lo, 18)
        hi5 = B.thm5_1_eps(e0, m, d, dps=20)
        assert hi5 >= certified(B._thm51, (e0, F(m), d), "lower", 100)


def test_naive_float_second_route():
    """Naive double-precision evaluation agrees to ~1e-12 relative (a sanity check of the interval code)."""
    e0, m, p0, d = 0.5, 1000, 0.25, 1e-6
    E = math.exp(e0)
    naive = p0 * (E - 1) * math.sqrt(2 * E * math.log(1 / d) / m) + p0**2 * E * (E - 1) ** 2 / (2 * m)
    assert abs(float(B.thm3_2_eps(e0, m, p0, d)) - naive) <= 1e-12 * naive
    naive5 = (E - 1) * math.sqrt(2 * E**3 * math.log(1 / d) / m) + E**3 * (E - 1) ** 2 / (2 * m)
    assert abs(float(B.thm5_1_eps(e0, m, d)) - naive5) <= 1e-12 * naive5


# ---------------------------------------------------------------------------
# Dummy updates: exact expectation vs enumeration of check-in patterns
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("n,m,p0", [(1, 1, F(1)), (2, 3, F(1, 2)), (3, 2, F(2, 3)), (4, 3, F(1))])
def test_prop3_4_expectation_by_enumeration(n, m, p0):
    tot = F(0)
    for pat in itertools.product(range(-1, m), repeat=n):
        w = math.prod((1 - p0) if s < 0 else p0 / m for s in pat)
        tot += w * sum(1 for j in range(m) if j not in pat)
    assert close(B.prop3_4_expected_dummies(n, m, p0), mpmath.mpf(tot.numerator) / tot.denominator)
    assert B.prop3_4_bound(n, m, p0) >= B.prop3_4_expected_dummies(n, m, p0)


def test_prop3_4_m_over_e_at_p0_m_over_n():
    for n, m in ((10, 10), (1000, 100), (10**6, 10**3)):
        assert B.prop3_4_expected_dummies(n, m, F(m, n)) <= B.prop3_4_bound(n, m, F(m, n))
        assert close(B.prop3_4_bound(n, m, F(m, n)), m / mpmath.e, 45)


@pytest.mark.parametrize("n,m,p0", [(2, 1, F(1)), (3, 2, F(1, 2)), (4, 2, F(1)), (4, 3, F(3, 4))])
def test_prop4_4_expectation_by_enumeration(n, m, p0):
    tot = F(0)
    steps = range(m, n + 1)
    for pat in itertools.product(*[[-1] + list(range(i, i + m)) for i in range(1, n + 1)]):
        w = math.prod((1 - p0) if s < 0 else p0 / m for s in pat)
        tot += w * sum(1 for t in steps if t not in pat)
    assert close(B.prop4_4_expected_dummies(n, m, p0), mpmath.mpf(tot.numerator) / tot.denominator)
    assert B.prop4_4_bound(n, m, p0) >= B.prop4_4_expected_dummies(n, m, p0)


# ---------------------------------------------------------------------------
# Amplification thresholds, data for Figure 2 / Table 1
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("e0,d", [(F(1, 2), F(1, 10**6)), (F(2), F(1, 10**6)), (F(1, 10), F(1, 10**30))])
def test_min_n_and_min_m_are_exact_thresholds(e0, d):
    n = B.thm5_1_min_n(e0, d)
    assert B.amplifies(B.thm5_1_eps(e0, n, d), e0)
    assert n == 1 or not B.amplifies(certified(B._thm51, (e0, F(n - 1), d), "lower"), e0)
    m = B.thm3_2_min_m(e0, 1, d)
    assert B.amplifies(B.thm3_2_eps(e0, m, 1, d), e0)
    assert m == 1 or not B.amplifies(certified(B._thm32, (e0, F(m - 1), F(1), d), "lower"), e0)


def test_figure2_and_table1_data():
    fig = B.figure2_data(ns=(1000, 10**5), eps0_grid=["0.1", "0.4", "0.5", "2"])
    assert fig["x"] == [F(1, 10), F(2, 5), F(1, 2), F(2)] and len(fig["series"]) == 4
    ours, theirs = fig["series"][0], fig["series"][1]
    assert theirs["y"][2] is None and theirs["y"][3] is None  # [19] needs eps0 < 1/2
    assert all(a < b for a, b in zip(ours["y"][:2], theirs["y"][:2]))
    assert ours["amplifies"] == [B.amplifies(y, x) for y, x in zip(ours["y"], fig["x"])]
    assert fig["series"][2]["y"][0] < ours["y"][0]  # more users, smaller eps
    fu = B.figure2_vs_users(eps0_values=["0.25", "1"], ns=[100, 1000, 10**5])
    assert fu["x"] == [100, 1000, 10**5] and len(fu["series"]) == 4
    assert fu["series"][1]["y"][0] is None and fu["series"][3]["y"] == [None] * 3  # n < 1000; eps0 >= 1/2
    assert fu["series"][0]["y"][2] < fu["series"][0]["y"][1] < fu["series"][0]["y"][0]
    rows = B.table1_rows(n=10**6, eps0=2)
    assert [r["source"].split(" (")[0] for r in rows] == ["None", "Uniform subsampling", "Shuffling", "Shuffling", "Random check-ins with a fixed window"]
    assert rows[2]["value"] is None  # eps0 = 2 is outside [19, Thm 7]
    assert rows[4]["value"] < rows[3]["value"]  # e^(1.5 eps0) vs e^(2.5 eps0)
    assert B.table1_rows(n=10**6, eps0="0.25")[2]["value"] is not None


# ---------------------------------------------------------------------------
# Preconditions: ValueError naming the parameter
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("call,name", [
    (lambda: B.thm3_2_eps(0, 10, 1, "1e-6"), "eps0"),
    (lambda: B.thm3_2_eps(1, 0, 1, "1e-6"), "m"),
    (lambda: B.thm3_2_eps(1, 10, 0, "1e-6"), "p0"),
    (lambda: B.thm3_2_eps(1, 10, "1.5", "1e-6"), "p0"),
    (lambda: B.thm3_2_eps(1, 10, 1, 1), "delta"),
    (lambda: B.thm3_2_eps_simplified(2, 10, 1, "1e-6"), "eps0"),
    (lambda: B.thm3_2_eps_simplified("0.5", 10, 1, "0.5"), "delta"),
    (lambda: B.thm3_2_approx_delta("0.5", "1e-3", 10, 1, "1e-6", "1e-9"), "delta0"),
    (lambda: B.erlingsson2019_thm7_eps("0.5", 1000, "1e-6"), "eps0"),
    (lambda: B.erlingsson2019_thm7_eps("0.25", 999, "1e-6"), "n"),
    (lambda: B.erlingsson2019_thm7_eps("0.25", 1000, "0.01"), "delta"),
    (lambda: B.cor3_3_eps(1, 100, 30, "1e-6", "1e-6"), "m"),
    (lambda: B.prop4_4_expected_dummies(5, 10, 1), "m"),
    (lambda: B.thm3_5_excess_risk(1, 1, 1, 1, 10, 11), "s"),
    (lambda: B.thm4_2_convex(1, 1, 1, 1, [0, 0]), "counts"),
    (lambda: B.thm5_1_eps(1, "2.5", "1e-6"), "n"),
    (lambda: B.lemma_a1_eps("1.5", 1), "q_bar"),
    (lambda: B.lemma_a2_eps([F(1, 2), 2], 1, "1e-6"), "c[1]"),
])
def test_bad_inputs_raise_naming_the_parameter(call, name):
    with pytest.raises(ValueError, match=name.replace("[", r"\[").replace("]", r"\]")):
        call()


def test_cheu_condition_boundary():
    e0, d1 = F(1, 2), F(1, 10**9)
    mx = mpf_to_fraction(B.cheu_delta0_max(e0, d1))
    B.thm3_2_approx_delta(e0, mx, 10, 1, "1e-6", d1)  # admitted (rounded down)
    with pytest.raises(ValueError, match="delta0"):
        B.thm3_2_approx_delta(e0, mx * F(1001, 1000), 10, 1, "1e-6", d1)
    assert mpf_to_fraction(B.thm3_2_approx_delta(e0, 0, 10, 1, "1e-6", d1)) > F(1, 10**6)


def test_every_public_helper_carries_citations():
    """Unregistered public helpers of the three balle2020 modules carry __citations__ and a citing first docstring line."""
    from reference.simulate import checkins
    from reference.verify import checkins_exact
    for mod in (B, checkins, checkins_exact):
        for name in mod.__all__:
            obj = getattr(mod, name)
            if not callable(obj) or name in ("cite", "cites", "add_cli"):
                continue
            assert getattr(obj, "__citations__", None), f"{mod.__name__}.{name} lacks __citations__"
            first = (obj.__doc__ or "").strip().splitlines()[0]
            assert "balle2020" in first or "erlingsson2019" in first or any(
                w in first for w in ("Theorem", "Lemma", "Proposition", "Corollary", "Algorithm", "Definition", "Section", "Figure", "Table")), f"{name}: {first!r}"
