"""Cross-version map of Whitehouse, Ramdas, Rogers, Wu, "Fully Adaptive Composition in Differential Privacy".

whitehouse2022 = arXiv version (seed 000_8d85c89f0d15dfff.txt); whitehouse2023 = ICML 2023
version (seed 001_019b6f2aef040984.txt).  :data:`VERSION_MAP` lists, for every numbered
label printed in either seed (plus the equations and informal statements the results rely on),
its counterpart and whether the statement is the "same", "changed: ...", "new: ..." (only in
whitehouse2023) or "removed: ..." (only in whitehouse2022), with the catalog id pairs that
implement both printings.

Tests: every numbered label of both seeds is mapped (regex over both texts); for every
"same" pair the two catalog ids evaluate identically (defaults and further points); for
every changed / new / removed entry the stated difference is demonstrated numerically.
"""
from __future__ import annotations

from fractions import Fraction as F

import mpmath
import pytest

from reference import catalog
from reference.bounds import whitehouse2023 as W

from seedtext import labels as _labels

SEED22, SEED23 = "000_8d85c89f0d15dfff.txt", "001_019b6f2aef040984.txt"


# (whitehouse2022 label, whitehouse2023 label, relation, ((id2022, id2023), ...))
VERSION_MAP = (
    ("Definition 1", "Definition 1", "same", ()),
    ("Definition 2", "Definition 4", "same", ()),
    ("Definition 3", "Definition 5", "same", ()),
    ("Definition 4", None, "removed: the formal privacy-filter definition; whitehouse2023 states the filters' conclusions directly", ()),
    ("Definition 5", "Definition 6", "same: both evaluate U_n = u_n(eps_{1:n-1}, ...) (ledger W22-DEF5-ARITY)", ()),
    ("Definition 6", "Definition 7", "same", (("whitehouse2022_def6_hockey_stick", "whitehouse2023_def7_hockey_stick"),)),
    ("Definition 7", None, "removed: zCDP (eps^2/2-zCDP via the MGF of the loss); subsumed by Definition 3 with delta = 0", ()),
    ("Definition 8", None, "removed: conditional zCDP; subsumed by Definition 3 with delta = 0", ()),
    ("Definition 9", "Definition 2", "changed: whitehouse2023 keeps only the plain Renyi divergence (lam >= 1); the delta-approximate Renyi divergence (inf over decompositions) is dropped", ()),
    ("Definition 10", "Definition 3", "changed: approximate zCDP is one mixture decomposition valid for all lam with BOTH D_lam(P'||Q') and D_lam(Q'||P') <= rho lam, instead of D^delta_lam(A(x)||A(x')) <= rho lam (one direction, decomposition may depend on lam)", ()),
    ("Theorem 1", "Theorem 2", "same", (("whitehouse2022_thm1_stop_index", "whitehouse2023_thm2_stop_index"), ("whitehouse2022_thm1_spent", "whitehouse2023_thm2_spent"))),
    ("Lemma 1", "Lemma 2", "same", (("whitehouse2022_lem1_dp_to_pdp_eps", "whitehouse2023_lem2_dp_to_pdp_eps"), ("whitehouse2022_lem1_dp_to_pdp_delta_as_printed", "whitehouse2023_lem2_dp_to_pdp_delta_as_printed"))),
    ("Lemma 2", "Lemma 9", "same: statement and proof text (including the conditioning step of ledger W22-LEM2-PROOF-CONDITIONING and the displays of W22-LEM2-F/-B)", ()),
    ("Lemma 3", "Lemma 11", "same", ()),
    ("Theorem 2", "Theorem 3", "same", (("whitehouse2022_thm2_filter", "whitehouse2023_thm3_filter"), ("whitehouse2022_thm2_mixture", "whitehouse2023_thm3_mixture"),
                                        ("whitehouse2022_thm2_stitched", "whitehouse2023_thm3_stitched"), ("whitehouse2022_eq6_ystar", "whitehouse2023_thm3_ystar"))),
    ("Lemma 4", "Lemma 3", "changed: parenthesisation of the quoted Rogers et al. odometer (V/2 inside the square roots in whitehouse2022, outside in whitehouse2023; loglog factor inside vs outside the bracket)", (("whitehouse2022_lem4_as_printed", "whitehouse2023_lem3_as_printed"),)),
    ("Lemma 5", "Lemma 4", "same", ()),
    ("Theorem 3", "Theorem 4", "same", (("whitehouse2022_thm3_boundary", "whitehouse2023_thm4_boundary"), ("whitehouse2022_thm3_crossing_probability", "whitehouse2023_thm4_crossing_probability"))),
    ("Theorem 4", "Theorem 5", "changed: hypothesis weakened to one-sided sub-Gaussian increments (whitehouse2022: both dM and -dM); tuning parameter rho renamed gamma; boundary identical", (("whitehouse2022_thm4_boundary", "whitehouse2023_thm5_boundary"),)),
    ("Theorem 5", "Theorem 6", "same", (("whitehouse2022_thm5_boundary", "whitehouse2023_thm6_boundary"),)),
    ("Lemma 6", "Lemma 10", "same", (("whitehouse2022_lem6_bound", "whitehouse2023_lem10_bound"),)),
    ("Lemma 7", "Lemma 12", "same", ()),
    ("Lemma 8", "Lemma 13", "same", ()),
    ("Theorem 6", None, "removed: the mixed DP/zCDP filter; implied by whitehouse2023 Theorem 1 + Lemma 1 (same stopping rule, delta'' + (1 - delta'') delta' <= delta)", ()),
    ("Lemma 9", None, "removed: the pDP/zCDP step of Theorem 6's proof", ()),
    ("Theorem 7", "Theorem 1", "changed: the approximate-zCDP filter's hypothesis uses Definition 3 instead of Definition 10; stopping rule and conclusion identical; the proof is replaced (supermartingale + optional stopping, Lemmas 6-8; the whitehouse2022 proof's eqs. (10)-(13) are wrong, ledger W22-THM7-PROOF-EQ13)", (("whitehouse2022_thm7_stop_index", "whitehouse2023_thm1_stop_index"),)),
    ("Fact 5", "Fact 4", "same: a dangling label in both versions; it refers to Ville's inequality (Lemma 5 resp. Lemma 4)", ()),
    ("Proposition 3.3", "Proposition 3.3", "same: Bun and Steinke (2016) Proposition 3.3, cited for Lemma 6 / Lemma 10", ()),
    ("Theorem 6.5", "Theorem 6.5", "same: Rogers et al. (2016) Theorem 6.5, quoted as Lemma 4 / Lemma 3", ()),
    (None, "Lemma 1", "new: DP <-> approximate zCDP conversions (Bun and Steinke 2016)", ()),
    (None, "Lemma 5", "new: optional stopping theorem for nonnegative supermartingales", ()),
    (None, "Lemma 6", "new: the exponential process of the zCDP filter's proof is a supermartingale", ()),
    (None, "Lemma 7", "new: the Renyi bound for the stopped pure parts", ()),
    (None, "Lemma 8", "new: the stopped likelihoods are (1 - delta)-mixtures of the pure parts", ()),
    (None, "Theorem 7", "new: equivalence of the Bun-Steinke and the mixture definitions of approximate zCDP (Appendix C.1)", ()),
    # unnumbered items the results rely on
    ("eq. (2)", "eq. (2)", "same", (("whitehouse2022_eq2_eps", "whitehouse2023_eq2_eps"),)),
    ("eq. (5)", "eq. (14)", "changed: the compensator is conditioned on F_{m-1} in whitehouse2022 eq. (5) but on F_{n-1} in whitehouse2023 eq. (14) (errata W22-THM2-PROOF-INDEX)", ()),
    ("eq. (6)", "eq. (15)", "same: y* printed identically (both with the typo of errata W22-EQ6-YSTAR)", ()),
    ("Informal Theorem 1", "Informal Theorem 1", "changed: whitehouse2022 allows (eps_n, delta_n)-DP or eps_n^2/2-zCDP steps, whitehouse2023 only DP steps; whitehouse2023 adds that eps^2/2 - eps tanh(eps/2) = O(eps^4)", ()),
    (None, "Appendix F", "new: an (eps, delta)-DP algorithm that is not (eps, delta)-pDP", ()),
)


def test_every_numbered_label_of_both_seeds_is_mapped():
    """Every 'Theorem|Lemma|...|Algorithm <num>' string of seed 000 is a first entry, of seed 001 a second entry."""
    first = {m[0] for m in VERSION_MAP if m[0]}
    second = {m[1] for m in VERSION_MAP if m[1]}
    assert _labels(SEED22) - first == set()
    assert _labels(SEED23) - second == set()


def test_map_is_well_formed():
    for a, b, rel, ids in VERSION_MAP:
        assert a or b
        assert rel == "same" or rel.split(":")[0] in ("same", "changed", "new", "removed")
        if rel.startswith("new"):
            assert a is None
        if rel.startswith("removed"):
            assert b is None
        for i22, i23 in ids:
            assert catalog.get(i22).paper == "whitehouse2022"
            assert catalog.get(i23).paper == "whitehouse2023"


def _args(entry, overrides):
    kw = dict(entry.defaults())
    kw.update(overrides)
    out = {}
    for q in entry.params:
        if q.name not in kw:
            continue
        v = kw[q.name]
        out[q.name] = v.split(",") if q.kind == "sequence" and isinstance(v, str) else v
    return out


EXTRA_POINTS = {
    "whitehouse2022_thm1_stop_index": [dict(eps="0.5,0.5,0.5,0.5", delta="0,0,0,0", eps_target="2", delta_prime="1e-300", delta_second="0")],
    "whitehouse2022_thm1_spent": [dict(V="1e9", delta_prime="1e-300"), dict(V="0", delta_prime="0.5")],
    "whitehouse2022_thm2_filter": [dict(V="1e6", eps="1000", delta_prime="1e-300")],
    "whitehouse2022_thm2_mixture": [dict(V="1e9", rho="1e-9", delta_prime="1e-300")],
    "whitehouse2022_thm2_stitched": [dict(V="1e9", v0="1e-9", delta_prime="1e-300"), dict(V="1e-10", v0="1", delta_prime="0.5")],
    "whitehouse2022_thm4_boundary": [dict(V="1e9", rho="1e-9", delta="1e-300")],
    "whitehouse2022_thm5_boundary": [dict(V="1e9", v0="1e-9", delta="1e-300")],
    "whitehouse2022_thm7_stop_index": [dict(rhos="1e-9,1,2", deltas="0,1e-300,0", rho="1", delta="1e-300")],
    "whitehouse2022_eq6_ystar": [dict(eps="1000", delta_prime="1e-300")],
    "whitehouse2022_lem1_dp_to_pdp_delta_as_printed": [dict(eps="1000", delta="1e-300")],
}

SAME_PAIRS = [ids for a, b, rel, pairs in VERSION_MAP if rel.startswith("same") for ids in pairs]


@pytest.mark.parametrize("i22,i23", SAME_PAIRS)
def test_same_pairs_evaluate_identically(i22, i23):
    """For a 'same' pair both catalog ids take the same parameters and return identical values (defaults and extremes)."""
    e22, e23 = catalog.get(i22), catalog.get(i23)
    assert [q.name for q in e22.params] == [q.name for q in e23.params]
    for pt in [{}] + EXTRA_POINTS.get(i22, []):
        assert e22(**_args(e22, pt)) == e23(**_args(e23, pt))


# --- changed / new / removed: the stated differences, numerically --------------------------------

def test_changed_lemma4_to_lemma3_parenthesisation():
    """Lemma 4 (2022) = sqrt(2V c + V/2) and Lemma 3 (2023) = sqrt(2V c) + V/2 on [1/|x|^2, 1]; they differ (V = 1/2, delta' = 1e-6, |x| = 10^4)."""
    V, dp, n = F(1, 2), F(1, 10**6), 10**4
    c = mpmath.log(110) + 1 + 2 * mpmath.log(mpmath.log(n) * 10**6)
    a = W.rogers_odometer_quoted_2022_as_printed(V, dp, n)
    b = W.rogers_odometer_quoted_2023_as_printed(V, dp, n)
    assert abs(a - mpmath.sqrt(2 * mpmath.mpf(V.numerator) / V.denominator * c + mpmath.mpf(1) / 4)) <= mpmath.mpf(10) ** -40
    assert abs(b - (mpmath.sqrt(c) + mpmath.mpf(1) / 4)) <= mpmath.mpf(10) ** -40
    assert b - a > mpmath.mpf("0.2")
    # the other branch (V > 1): the loglog factor multiplies only log(1 + n^2 V)/2 in 2022, the whole bracket in 2023
    a2 = W.rogers_odometer_quoted_2022_as_printed(4, dp, n)
    b2 = W.rogers_odometer_quoted_2023_as_printed(4, dp, n)
    assert abs(a2 - b2) > 1


def test_changed_theorem4_to_theorem5_same_boundary_weaker_hypothesis():
    """Boundary values agree (ids equal) while the hypothesis differs: see test_whitehouse2023_thm5 for the one-sided example."""
    from test_whitehouse2023_thm5 import mgf, one_sided_variance_proxy_upper
    e22, e23 = catalog.get("whitehouse2022_thm4_boundary"), catalog.get("whitehouse2023_thm5_boundary")
    assert e22(V="3", rho="2", delta="1e-6") == e23(V="3", rho="2", delta="1e-6")
    with mpmath.workdps(30):
        s2 = one_sided_variance_proxy_upper()
        assert mgf(mpmath.mpf(1)) <= mpmath.exp(s2 / 2)           # the 2023 hypothesis holds at lam = 1
        assert mgf(mpmath.mpf(-1)) > mpmath.exp(s2 / 2)           # the 2022 hypothesis (-dM sub-Gaussian) fails


def test_changed_definition9_to_definition2_approximate_part_dropped():
    """For (eps, delta)-RR the plain D_lam (2023 Def. 2) is infinite (the flag T has Q = 0) while the delta-approximate
    divergence of 2022 Def. 9 is at most D_lam(RR_eps) = finite (decomposition (1-delta) RR_eps + delta flag)."""
    p, d = mpmath.mpf(3) / 4, mpmath.mpf(1) / 10
    P = [(1 - d) * p, (1 - d) * (1 - p), d]
    Q = [(1 - d) * (1 - p), (1 - d) * p, mpmath.mpf(0)]
    lam = mpmath.mpf(2)
    terms = [a ** lam * b ** (1 - lam) if b > 0 else mpmath.inf for a, b in zip(P, Q)]
    assert mpmath.isinf(sum(terms))
    approx = mpmath.log(p ** lam * (1 - p) ** (1 - lam) + (1 - p) ** lam * p ** (1 - lam)) / (lam - 1)
    assert approx < mpmath.log(3)


def test_changed_definition10_to_definition3_both_directions():
    """Exact two-point pair: D_lam(Q||P) <= rho lam for all lam (2022-style one direction) but D_lam(P||Q) > rho lam near 1."""
    from test_whitehouse2023_definitions import test_def3_requires_both_directions
    test_def3_requires_both_directions()


def test_changed_theorem7_to_theorem1_same_stopping_rule():
    """The stopping rules agree on a random-looking input (the change is in the hypothesis and the proof)."""
    kw = dict(rhos="1/7,1/3,1/5,1/11", deltas="1e-9,0,2e-9,0", rho="2/3", delta="3e-9")
    assert catalog.get("whitehouse2022_thm7_stop_index")(**_args(catalog.get("whitehouse2022_thm7_stop_index"), kw)) \
        == catalog.get("whitehouse2023_thm1_stop_index")(**_args(catalog.get("whitehouse2023_thm1_stop_index"), kw)) == 2


def test_changed_eq5_to_eq14_compensator_index():
    """The 2023 compensator E(L_m | F_{n-1}) is not predictable: the existing erratum check demonstrates it."""
    from test_errata import check_martingale_index
    assert check_martingale_index() is True


def test_changed_informal_theorem_remark_o_eps4():
    """2023 adds: eps^2/2 - eps tanh(eps/2) = O(eps^4); indeed 0 <= gap <= eps^4/24 (library gap, eps = 1/10 and 1)."""
    for e in ("0.1", "1"):
        g = W.lower_order_gap(e)
        x = mpmath.mpf(e)
        assert 0 <= g <= x ** 4 / 24


def test_removed_theorem6_is_implied_by_theorem1_and_lemma1():
    """2022 Theorem 6's mixed stop index equals the 2023 route: admit while zcdp_to_dp_eps(sum rho_m) <= eps and the deltas fit,
    with rho_m = eps_m^2/2 for DP steps (Lemma 1) and rho_m for zCDP steps (exact rational rho sums, eps compared at 60 digits)."""
    steps = [("dp", "1/10", "0"), ("zcdp", "1/200"), ("dp", "1/5", "1e-9"), ("zcdp", "1/50"), ("dp", "3/10", "0"), ("zcdp", "1/4")]
    eps, dp, d2 = F(1), F(1, 10**3), F(2, 10**9)
    n22 = W.mixed_filter_stop_index(steps, eps, dp, d2)
    R, S, n23 = F(0), F(0), 0
    for s in steps:
        r = F(s[1]) ** 2 / 2 if s[0] == "dp" else F(s[1])
        d = F(s[2]) if s[0] == "dp" else F(0)
        if W.zcdp_to_dp_eps(R + r, dp, dps=60) > mpmath.mpf(eps.numerator) / eps.denominator or S + d > d2:
            break
        R, S, n23 = R + r, S + d, n23 + 1
    assert n22 == n23 == 3   # f(V) at V = 0.06 is 0.94 <= 1, at V = 0.1 it is 1.22 > 1


def test_new_lemma1_has_no_2022_counterpart():
    """Lemma 1 (2023) is new: its catalog ids exist only under whitehouse2023."""
    ids = [e.id for e in catalog.entries() if e.paper in ("whitehouse2022", "whitehouse2023")
           and ("zcdp_to_dp" in e.func.__name__ or "dp_to_zcdp" in e.func.__name__)]
    assert len(ids) == 3 and all(i.startswith("whitehouse2023_lem1_") for i in ids)
