"""Declared properties of every catalog entry, used by ``proofs/test_catalog_invariants.py``.

* :data:`MONOTONE`: for every catalog id and every parameter, the monotonicity the
  mathematics implies (``"increasing"``, ``"decreasing"``, ``"constant"``) or ``None``
  with a one-line reason.  A sequence parameter is declared element-wise (raise one
  element, keep the others).  A declaration may hold only on part of the domain; then
  ``where`` restricts the sampled range of some parameters *for that test only*
  and the reason says why.  Each declaration below is derived from the formula the
  entry implements (see its docstring), not from running it.
* :data:`RANGES`: per id, sampling ranges (or explicit choices) that keep the
  evaluations cheap or satisfy cross-parameter preconditions (``m`` divides ``n``,
  ``s <= m``, ``log n > delta``, ...).  Points outside them are still valid inputs;
  they are simply not sampled.
* :data:`SLOW`: ids whose single evaluation costs ~50 ms or more, with the number of
  hypothesis examples per test (instead of the profile's) and the working dps of the
  monotonicity test.
* :data:`INF_OK`: ids that may return ``mpmath.inf`` (documented), and why.

Notation: E = e^eps0, L = log(1/delta).
"""
from __future__ import annotations

from dataclasses import dataclass, field

INC, DEC, CONST = "increasing", "decreasing", "constant"
KINDS = (INC, DEC, CONST, None)


@dataclass
class Mono:
    """Monotonicity of an entry in one parameter (others fixed)."""

    kind: str | None
    reason: str = ""
    #: param -> (lo, hi) (Fractions/str; None = unbounded): the declaration is claimed
    #: (and tested) only when those parameters lie in these ranges.
    where: dict = field(default_factory=dict)


def inc(reason: str = "", **where) -> Mono:
    return Mono(INC, reason, where)


def dec(reason: str = "", **where) -> Mono:
    return Mono(DEC, reason, where)


def const(reason: str) -> Mono:
    return Mono(CONST, reason)


def no(reason: str) -> Mono:
    """Not monotone (or no order on the parameter): ``reason`` says why."""
    assert reason, "a None declaration needs a reason"
    return Mono(None, reason)


I, D = inc(), dec()

# ---------------------------------------------------------------------------
# Shared declarations (functions registered under several ids)
# ---------------------------------------------------------------------------

_thm32 = {"eps0": inc("(E-1) sqrt(E) increasing"), "m": dec("C2 = p0^2 E/m"), "p0": I, "delta": dec("L = log(1/delta)")}
_thm51 = {"eps0": inc("(E-1) E^1.5 increasing"), "n": dec("C2 = E^3/n"), "delta": dec("L = log(1/delta)")}
_approx_delta_common = {
    "eps0": inc("eps'(8 eps0) increasing, delta + k(e^eps'+1) delta1 increasing in eps'"),
    "delta0": const("delta0 only enters the precondition delta0 <= cheu_delta0_max, not the value"),
    "delta": no("d/d delta = 1 - k delta1 e^eps' a/(2 delta sqrt(L)) changes sign (eps' = a sqrt(L) + b falls in delta)"),
    "delta1": inc("linear in delta1 (min with 1 keeps order)"),
}
_rdp_eps_improved = {
    "alpha": no("the order is a free parameter: log(1-1/alpha) rises, log(1/delta)/(alpha-1) falls"),
    "eps_alpha": inc("additive eps_alpha (clip at 0 keeps order)"),
    "delta": dec("-(log delta)/(alpha-1)"),
}
_rdp_eps_standard = {"alpha": dec("log(1/delta)/(alpha-1) falls in alpha"), "eps_alpha": I, "delta": D}
_opt_zcdp = {"rho": inc("objective at every alpha increases in rho; min of increasing functions"),
             "delta": dec("objective at every alpha decreases in delta")}
_opt_rr = {"eps0": inc("Renyi curve of RR and k eps0 increase in eps0; min keeps order"), "k": inc("k-fold curve and k eps0"),
           "delta": dec("objective at every alpha decreases in delta")}
_opt_laplace = {"b": dec("Laplace curve increases in 1/b, so does k/b"), "k": inc("k-fold curve and k/b"),
                "delta": dec("objective at every alpha decreases in delta")}
_opt_gauss = {"sigma": dec("rho = k Delta^2/(2 sigma^2)"), "sensitivity": inc("rho = k Delta^2/(2 sigma^2)"),
              "k": inc("rho linear in k"), "delta": dec("objective at every alpha decreases in delta")}
_hockey = {"eps": inc("(e^eps - e^eps')/(1+e^eps) increasing in eps; equals delta for eps <= eps'"),
           "delta": inc("d + (1-d) r, r in [0,1)"), "eps_prime": dec("-e^eps' term; constant delta for eps' >= eps")}
_dp_to_pdp_delta_corr = {"eps": dec("(x^2+1)/(x(x-1)), x = e^eps: derivative numerator -x^2-2x+1 < 0"), "delta": inc("linear in delta")}
_ystar = {"eps": inc("y* solves sqrt(2Ly) + y/2 = eps"), "delta_prime": inc("L falls in delta', so y* rises")}
_spent = {"V": inc("sqrt(2LV) + V/2"), "delta_prime": dec("L = log(1/delta')")}
_filter_odo = {
    "V": inc("affine in V with positive slope"),
    "eps": no("tangent point y*(eps) moves: intercept sqrt(2 y* L)/2 rises, slope sqrt(2L)/(2 sqrt y*) falls"),
    "delta_prime": dec("L y* increases with L (so sqrt(y* L) falls in delta') and L/y* increases with L"),
}
_mixture_rho = no("(V+rho)(log(1+V/rho)/2 + L): derivative log(1+t)/2 + L - t/2 (t = V/rho) changes sign")
_mixture_odo = {"V": inc("(V+rho) and log((V+rho)/rho) increase, plus V/2"), "rho": _mixture_rho, "delta_prime": dec("-log(delta')")}
_mixture_bd = {"V": inc("(V+rho) and log((V+rho)/rho) increase"), "rho": _mixture_rho, "delta": dec("-log(delta)")}
_STITCH_WHERE = {"V": ("1", None), "v0": (None, "1")}
_stitched = {
    "V": inc("V (loglog(2V/v0) + 0.72 log(5.2/delta)) increases for V >= v0 (inner term >= log log 2 + 0.72 log 5.2 > 0); "
             "the value is inf for V < v0, so the claim is restricted to V >= 1 >= v0", **_STITCH_WHERE),
    "v0": dec("loglog(2V/v0) falls in v0 while V >= v0 (inf once v0 > V); restricted to v0 <= 1 <= V", **_STITCH_WHERE),
}
_rogers_quote = {
    "V": no("piecewise as printed: at V = 1 the value drops, e.g. wh22 lem4 (V=1: 8.720, V=1.01: 7.525; 1e-6, n=10^4)"),
    "delta_prime": dec("log(log|x|/delta') and loglog(4 log2|x|/delta') both fall in delta'"),
    "n_records": no("the branch [1/|x|^2, 1] moves with |x|; on (18) 1/|x|^2 + V falls while log(1 + |x|^2 V) rises"),
}
_linear_bd = {"a": dec("b V/(2a)"), "b": inc("b/2 + b V/(2a)"), "V": inc("slope b/(2a) > 0")}
_cross = {"a": inc("exp(-b^2/(2a))"), "b": dec("exp(-b^2/(2a))")}
_stop_index_w = {"eps": dec("raising eps_m raises V_n for n >= m: the stopping rule triggers no later"),
                 "delta": dec("raising delta_m raises the delta sums"), "eps_target": inc("f(V) <= eps_target is easier"),
                 "delta_prime": inc("f(V) = sqrt(2 log(1/delta') V) + V/2 falls in delta'"),
                 "delta_second": inc("the delta budget delta'' grows")}
_zcdp_stop = {"rhos": dec("prefix sums grow"), "deltas": dec("prefix sums grow"), "rho": inc("budget grows"), "delta": inc("budget grows")}
_THM65_N = no("on (18) (V < 1/n^2) 1/n^2 + V shrinks while F = log(2 ceil(log2 n^2)/delta_g) grows; branches move with n")
_THM65_EPS = inc("V and M grow with each eps_i; (17)->(18) at V = 1 drops unless n >= 9 (2(1 + log(1+n^2)/2) >= 4(1 + log 3/2)), "
                 "so restricted to n >= 9", n=("9", None))
_GRAN_EPS = inc("as rogers2016_thm6_5: the drop at V = 1 is absent iff log(1 + 1/gamma) >= 4.197 (gamma <= 0.0153); "
                "restricted to gamma <= 1/100", gamma=(None, "1/100"))
_odo_delta = no("delta_i = 0 is the restriction these odometers enforce (errata R16-LEM3-5-LOSS): any other delta "
                "sequence is refused, so there is no order to check (RANGES samples only zeros)")
_odo_dg = dec("F = log(.../delta_g) falls in delta_g and the Lemma 3.5 threshold delta_g/2 rises")
_K_BETA = "beta = eps_g^2/(c log(1/delta_g)) enters h(beta) = (V+beta)(1 + log(V/beta+1)/2), whose derivative 1 + (log(1+t) - t)/2 (t = V/beta) changes sign"
_K = {"eps": inc("V and sum eps(e^eps-1)/2 grow with each eps_i"),
      "eps_g": no(_K_BETA),
      "delta_g": no(_K_BETA + "; e.g. eps=[3.9], eps_g=100: K = 130.18, 126.79, 130.18 at log(1/delta_g) = 1.01, 3, 10"),
      "constant": no(_K_BETA)}
_K_printed = dict(_K, delta_g=dec("K - mu = sqrt(2 h(beta)) log(2/delta_g) = (eps_g/sqrt c) sqrt(2 (y+1)(1 + log(1+y)/2)) (log2 + L)/sqrt(L), "
                                   "y = c L V/eps_g^2: increasing in L = log(1/delta_g) for L > log 2"))
_K_OVER_EG = "K/eps_g decreases in eps_g (mu/eps_g, V/eps_g^2 + 1/(cL) and log(cLV/eps_g^2 + 1) all fall), so K <= eps_g is easier"
_adv_stop = {"eps": dec("K grows with each eps_i"), "delta": dec("delta sums grow"), "eps_g": inc(_K_OVER_EG),
             "delta_g": no("K is not monotone in delta_g (see rogers2016_thm5_1_k)"),
             "constant": no("rounds are maximised near the optimal constant c* (g(c) of the constant objective)")}
_adv_stop_printed = dict(_adv_stop, delta_g=inc("printed K decreases in delta_g (see rogers2016_thm5_1_k_as_printed) and the "
                                                 "threshold delta_g/2 rises"))
_lem41_beta = no("(B^2 + beta)(2 + log(B^2/beta + 1)): derivative 2 + log(1+t) - t (t = B^2/beta) changes sign")
_sym = lambda: {"P": no("probability vector: entries constrained to sum to 1, no coordinate-wise order"),  # noqa: E731
                "Q": no("probability vector: entries constrained to sum to 1, no coordinate-wise order"),
                "alpha": inc("Renyi divergence is nondecreasing in the order alpha")}

MONOTONE: dict[str, dict[str, Mono]] = {
    # ----------------------------------------------------------------- balle2020
    "balle2020_cor3_3_delta": {"n": inc("(n/m) delta_rep"), "m": dec("(n/m) delta_rep"), "delta_rep": I, "delta_comp": I},
    "balle2020_cor3_3_eps": {
        "eps0": inc("eps_r increases in eps0, eps increases in eps_r"),
        "n": dec("p0 = m/n: sqrt(k) eps_r = A/sqrt(n) + B sqrt(m)/n^1.5 and k eps_r = A'/sqrt(m) + B'/n fall in n"),
        "m": inc("sqrt(k) eps_r = A/sqrt(n) + B sqrt(m)/n^1.5 and k eps_r^(j+1) = (n/m) eps_r^(j+1) (eps_r ~ sqrt(m)) rise in m"),
        "delta_rep": dec("eps_r falls in delta_rep"), "delta_comp": dec("log(1/delta_comp)")},
    "balle2020_lema_1_eps": {"q_bar": I, "eps0": I},
    "balle2020_lema_2_eps": {"c": inc("C2 = sum c_i^2"), "eps0": I, "delta": D},
    "balle2020_lema_2_eq2_eps": {"c": inc("eps_i = log(1 + c_i(E-1)) increasing; KOV form increasing in each eps_i"), "eps0": I, "delta": D},
    "balle2020_prop3_4_bound": {"n": dec("e^(-p0 n/m)"), "m": inc("d/dm m e^(-pn/m) = e^(-pn/m)(1 + pn/m) > 0"), "p0": D},
    "balle2020_prop3_4_expected_dummies": {"n": dec("(1 - p0/m)^n"), "m": inc("d/dm log = 1/m + n p/(m^2 (1-p/m)) > 0"), "p0": D},
    "balle2020_prop4_4_bound": {"n": I, "m": dec("(n - m + 1)"), "p0": D},
    "balle2020_prop4_4_expected_dummies": {"n": I, "p0": D,
                                          "m": no("(n-m+1) falls while (1-p0/m)^m rises (e.g. n=1000, p0=1: 0 at m=1, 249.75 at m=2)")},
    "balle2020_thm3_2_approx_delta": dict(_approx_delta_common, p0=inc("eps' increases in p0"),
                                          m=no("m (e^eps'(m) + 1): m grows while eps'(m) falls (d/dm sign 1 - a/(2 sqrt m) - b/m)")),
    "balle2020_thm3_2_approx_eps": _thm32,
    "balle2020_thm3_2_delta0_max": {"eps0": no("~ eps0 delta1/8 for small eps0, ~ e^(-eps0) e^(-5 eps0) for large eps0"),
                                    "delta1": inc("delta1/(2 + log(2/delta1)/c) increasing")},
    "balle2020_thm3_2_eps": _thm32,
    "balle2020_thm3_2_eps_refined": {"eps0": inc("E-1 and C2 = p0^2/(m(1 - p0(1-1/E))) increase"), "m": D,
                                     "p0": inc("p0^2 rises, 1 - p0(1-1/E) falls"), "delta": D},
    "balle2020_thm3_2_min_m": {"eps0": inc("eps(m)/eps0 increases in eps0 ((E-1)/eps0 and E increase)"),
                               "p0": inc("eps(m) increases in p0"), "delta": dec("eps(m) decreases in delta")},
    "balle2020_thm3_2_simplified": _thm32,
    "balle2020_thm3_5_excess_risk": {"L": I, "R": I, "d": I, "sigma": I, "m": inc("sqrt(m)"), "s": dec("1/s")},
    "balle2020_thm3_5_expected_excess_risk": {
        "L": I, "R": I, "d": I, "sigma": I,
        "n": no("mu^2/(2n) with mu = m(1-(1-p0/m)^n): ~ p0^2 n/2 for n << m (rising), ~ m^2/(2n) for n >> m (falling)"),
        "m": no("sqrt(m)/mu: ~ sqrt(m)/(p0 n) for m >> n (rising), ~ 1/sqrt(m) for m << n (falling)"),
        "p0": dec("mu increases in p0: both terms fall")},
    "balle2020_thm4_1_approx_delta": dict(_approx_delta_common,
                                          n=no("n (e^eps'(n) + 1): n grows while eps'(n) falls")),
    "balle2020_thm4_1_approx_eps": _thm51,
    "balle2020_thm4_1_eps": _thm51,
    "balle2020_thm4_2_convex": {"L": I, "R": I, "d": I, "sigma": I,
                                "counts": no("raising a positive K_j lowers the sum, raising a zero K_j adds a step (T grows)")},
    "balle2020_thm4_2_smooth": {"L": I, "R": I, "d": I, "sigma": I, "beta": I,
                                "counts": no("raising a positive K_j lowers V, raising a zero K_j adds a step (T grows)")},
    "balle2020_thm4_3_approx_delta": dict(_approx_delta_common, p0=inc("eps' increases in p0"),
                                          m=dec("eps'(m) falls in m, the multiplier is T"), T=inc("linear in T")),
    "balle2020_thm4_3_approx_eps": _thm32,
    "balle2020_thm4_3_eps": _thm32,
    "balle2020_thm5_1_approx_delta": dict(_approx_delta_common, n=no("n (e^eps'(n) + 1): n grows while eps'(n) falls")),
    "balle2020_thm5_1_approx_eps": _thm51,
    "balle2020_thm5_1_eps": _thm51,
    "balle2020_thm5_1_eps_refined": {
        "eps0": inc("E-1 increases; C2 increases as u = e^-eps0 falls"),
        "n": no("C2 = 1/n^2 + (n-1)/((1+(n-1)u^2)(1+(n-1)u)) ~ n-1 while n << e^eps0 (eps0=5: 14372 at n=2, 23766 at n=3; falls again for n >> e^(2 eps0))"),
        "delta": D},
    "balle2020_thm5_1_min_n": {"eps0": inc("eps(n)/eps0 increases in eps0"), "delta": dec("eps(n) decreases in delta")},
    "erlingsson2019_thm7_eps": {"eps0": I, "n": D, "delta": D},
    # --------------------------------------------------- balle2020hyp / canonne2020 / mironov2017 / bunsteinke2016
    "balle2020hyp_thm21_eps": _rdp_eps_improved,
    "canonne2020_prop12_eps": _rdp_eps_improved,
    "balle2020hyp_thm21_opt_gaussian": _opt_gauss,
    "mironov2017_prop3_opt_gaussian": _opt_gauss,
    "balle2020hyp_thm21_opt_laplace": _opt_laplace,
    "mironov2017_prop3_opt_laplace": _opt_laplace,
    "balle2020hyp_thm21_opt_rr": _opt_rr,
    "mironov2017_prop3_opt_rr": _opt_rr,
    "balle2020hyp_thm21_opt_zcdp": _opt_zcdp,
    "canonne2020_prop12_opt_zcdp": _opt_zcdp,
    "mironov2017_prop3_opt_zcdp": _opt_zcdp,
    "bunsteinke2016_gaussian_zcdp_rho": {"sigma": D, "sensitivity": I},
    "bunsteinke2016_laplace_zcdp_rho": {"b": dec("eps + e^-eps - 1 increases in eps = 1/b")},
    "bunsteinke2016_rr_zcdp_rho": {"eps0": inc("eps0 tanh(eps0/2)")},
    "canonne2020_prop12_delta": {"alpha": no("free order: (alpha-1)(tau-eps) and the (1-1/alpha)^alpha/(alpha-1) factor move differently"),
                                 "eps_alpha": I, "eps": D},
    "feldman2021_ex2_7_individual_rdp": {"alpha": I, "sigma": D, "phi_norm": I},
    "feldman2021_ex2_8_individual_rdp": {"alpha": I, "sigma": D, "lipschitz": I, "x_norm": I},
    "feldman2021_fact2_4": _rdp_eps_standard,
    "mironov2017_prop3_rdp_to_dp": _rdp_eps_standard,
    "mironov2017_gaussian_rdp": {"alpha": I, "sigma": D, "sensitivity": I},
    "mironov2017_table2_laplace_rdp": {"alpha": inc("Renyi divergence nondecreasing in the order"), "b": dec("privacy loss 1/b")},
    "mironov2017_table2_rr_rdp": {"alpha": inc("Renyi divergence nondecreasing in the order"), "eps0": inc("RR with larger eps0 dominates")},
    # ----------------------------------------------------------------- feldman2021
    "feldman2021_prop2_9_accuracy": {"sigma": I, "beta": D, "n_inactive": I},
    "feldman2021_prop2_9_threshold": {"alpha": D, "sigma": I, "B": I},
    "feldman2021_prop2_9_worst_case_queries": {"alpha": D, "sigma": I, "B": I, "bound": D},
    "feldman2021_rem4_4_best_alpha": {"rho": dec("1 + sqrt(L/rho)"), "delta": dec("1 + sqrt(L/rho)")},
    "feldman2021_rem4_4_dp_eps": {"rho": I, "delta": D},
    "feldman2021_renyi_odometer_zcdp": {"rho_sum": inc("alpha rho_sum, min over the grid"), "delta": D,
                                        "alphas": no("a grid point may move away from or towards the optimum")},
    "feldman2021_sec2_renyi_divergence": _sym(),
    "feldman2021_sec2_renyi_divergence_sym": _sym(),
    "feldman2021_thm4_3_rounds": {"rho": D, "B": I},
    "feldman2021_thm4_3_stop_index": {"rho": dec("prefix sums grow"), "B": inc("budget grows")},
    "feldman2021_thm4_7_rho_budget": {"eps": inc("root of rho + 2 sqrt(rho L) = eps"), "delta": inc("L falls, root rises")},
    "feldman2021_thm4_7_rounds_homogeneous": {"eps0": D, "eps": I, "delta": inc("rho* rises in delta")},
    # ----------------------------------------------------------------- howard2021
    "howard2021_thm1_stitching": {
        "V": inc("v = max(V, m) and l(v) increase"),
        "m": no("v = max(V, m): for V > m log(eta V/m) falls in m; for V <= m the value k1 sqrt(m log(zeta(s)/delta)) rises"),
        "delta": dec("log(zeta(s)/delta)"),
        "eta": no("k1 = (eta^1/4 + eta^-1/4)/sqrt2 rises, log(1 + log(v/m)/log eta) falls"),
        "s": no("s log(..) rises, log zeta(s) falls")},
    # ----------------------------------------------------------------- sommer2019 / mironov2019 (reference.profiles)
    "sommer2019_laplace_kfold_delta": {"b": dec("eps0 = 1/b falls: each step's PLD is dominated (post-processing of Lap(b') by extra noise)"),
                                       "k": inc("k+1 fold includes k fold composed with a trivial mechanism"),
                                       "eps": dec("hockey-stick divergence decreases in eps")},
    "sommer2019_laplace_kfold_delta_lower": {"b": dec("as sommer2019_laplace_kfold_delta"), "k": inc("as the upper end"),
                                             "eps": dec("hockey-stick divergence decreases in eps")},
    "sommer2019_laplace_kfold_eps": {"b": dec("inverse of a family decreasing in b"), "k": inc("inverse of a family increasing in k"),
                                     "delta": dec("inverse of a decreasing delta(eps)")},
    "mironov2019_sec3_3_rdp": {"q": inc("D_alpha((1-q) mu0 + q mu1 || mu0) is convex in q and 0 at q = 0"),
                               "sigma": dec("every term e^((j^2-j)/(2 sigma^2)) falls"),
                               "alpha": inc("Renyi divergence is non-decreasing in the order")},
    "mironov2019_sec3_3_opt_eps": {"q": inc("the curve increases at every order; min over orders keeps order"), "sigma": dec("curve falls"),
                                   "k": inc("k times the curve"), "delta": dec("-(log delta)/(alpha-1) at every order")},
    "mironov2019_sec3_3_opt_delta": {"q": inc("curve increases; exp((alpha-1)(eps_alpha - eps)) increases"), "sigma": dec("curve falls"),
                                     "k": inc("k times the curve"), "eps": dec("exp((alpha-1)(eps_alpha - eps)) falls")},
    "koskela2020_pld_sgm_delta": {"q": no("a discretised bound: the true delta rises in q, the grid rounding of the bound need not"),
                                  "sigma": no("a discretised bound: the true delta falls in sigma, the grid rounding need not"),
                                  "k": no("a discretised bound: the FFT error terms depend on the powering chain of k"),
                                  "eps": dec("the same composed vectors; each term m_j (1 - e^(eps - j h))_+ falls in eps")},
    # ----------------------------------------------------------------- kairouz2015 / murtagh2016
    "kairouz2015_thm3_3_delta": {"eps0": inc("the (eps0, delta0)-DP class grows with eps0"), "delta0": inc("class grows"),
                                 "k": inc("k+1 fold includes k fold composed with a trivial mechanism"),
                                 "eps": dec("hockey-stick divergence decreases in eps")},
    "kairouz2015_thm3_3_delta_i": {
        "eps0": inc("sum_{l<i} a_l (1 - e^{-2(i-l)eps0}): the flip count is stochastically smaller and each factor larger as eps0 grows"),
        "delta0": inc("1 - (1-delta0)^k (1 - delta_i)"),
        "k": no("at fixed i the evaluation point (k-2i) eps0 moves with k"),
        "i": inc("eps = (k-2i) eps0 falls in i and delta(eps) decreases in eps")},
    "kairouz2015_thm3_3_eps": {"eps0": inc("inverse of an increasing family"), "delta0": I, "k": I,
                               "delta": dec("inverse of a decreasing delta(eps)")},
    "kairouz2015_thm3_4_delta": {"delta0": I, "k": I, "delta_tilde": inc("dt + D0 (1 - dt), D0 <= 1")},
    "kairouz2015_thm3_4_eps": {"eps0": inc("every branch increases"), "k": inc("every branch increases"),
                               "delta_tilde": dec("branches 2, 3 decrease, branch 1 constant")},
    "kairouz2015_thm3_5_eps": {"eps": inc("every branch increases in each eps_i"), "delta_tilde": dec("branches 2, 3 decrease")},
    "murtagh2016_hetero_optimal_delta": {"eps": inc("the class of (eps_i, delta_i)-DP mechanisms grows"),
                                         "delta": inc("class grows"), "eps_target": dec("hockey-stick divergence decreases")},
    "murtagh2016_hetero_optimal_eps": {"eps": inc("class grows"), "delta": inc("class grows"),
                                       "delta_target": dec("inverse of a decreasing delta(eps)")},
    # ----------------------------------------------------------------- rogers2016
    "rogers2016_lem2_3_dp_to_pdp_delta": _dp_to_pdp_delta_corr,
    "rogers2016_lem2_3_dp_to_pdp_delta_as_printed": {"eps": dec("2 delta e^-eps"), "delta": I},
    "rogers2016_lem2_3_dp_to_pdp_eps": {"eps": I},
    "rogers2016_lem2_3_pdp_to_dp_delta": {"delta": I},
    "rogers2016_lem2_3_pdp_to_dp_eps": {"eps": I},
    "rogers2016_lem4_1": {"B2": inc("both factors increase in B^2"), "beta": _lem41_beta, "delta": D},
    "rogers2016_lem4_2_mgf": {"lam": no("even in lambda: falls on lambda < 0, rises on lambda > 0"), "width": I},
    "rogers2016_lem4_4": {"eps": inc("eps (e^eps - 1)/2")},
    "rogers2016_lem6_3_crossing_probability": {
        "gamma": no("changes the walk (mu = 2 gamma - 1 and sigma^2 = 1 - mu^2 both move)"),
        "C": dec("threshold C sigma sqrt(t log(log n/delta)) rises"),
        "delta": inc("threshold falls as log(log n/delta) falls"),
        "n": no("longer horizon but higher threshold log(log n/delta)")},
    "rogers2016_lem6_4": {"eps": inc("V and M grow"), "delta": _odo_delta,
                          "delta_g": dec("log(2/delta_g) falls and the threshold delta_g/2 rises"),
                          "beta": no("(V+beta)(1 + log(V/beta+1)/2): derivative 1 + (log(1+t) - t)/2 (t = V/beta) changes sign")},
    "rogers2016_thm2_10_delta": {"delta": I, "k": I, "delta_hat": I},
    "rogers2016_thm2_10_eps": {"eps": I, "k": I, "delta_hat": D},
    "rogers2016_thm2_9_delta": {"delta": inc("sum")},
    "rogers2016_thm2_9_eps": {"eps": inc("sum")},
    "rogers2016_thm3_6_odometer": {"eps": inc("sum eps_i"), "delta": _odo_delta,
                                   "delta_prime_g": dec("the Lemma 3.5 threshold grows (inf -> finite)")},
    "rogers2016_thm3_6_stop_index": {"eps": dec("prefix sums grow"), "delta": dec("prefix sums grow"), "eps_g": I, "delta_g": I},
    "rogers2016_thm4_3": {"U2": inc("both factors increase in U^2"), "beta": _lem41_beta, "delta": D},
    "rogers2016_thm5_1_constant_objective": {"constant": no("g(c) = (1+8/c)(1+log(1+c/8)/2) is minimised at c* = 28.04..")},
    "rogers2016_thm5_1_k": _K,
    "rogers2016_thm5_1_k_as_printed": _K_printed,
    "rogers2016_thm5_1_optimal_constant": {},
    "rogers2016_thm5_1_rounds_homogeneous": {"eps0": dec("K(k copies of eps0) increases in eps0"), "delta0": dec("k delta0 <= delta_g/2"),
                                             "eps_g": inc(_K_OVER_EG), "delta_g": no("K is not monotone in delta_g"),
                                             "constant": no("rounds are maximised near c*")},
    "rogers2016_thm5_1_stop_index": _adv_stop,
    "rogers2016_thm5_1_stop_index_as_printed": _adv_stop_printed,
    "rogers2016_thm6_5": {"eps": _THM65_EPS, "delta": _odo_delta, "delta_g": _odo_dg, "n": _THM65_N},
    "rogers2016_thm6_5_as_printed": {"eps": _THM65_EPS, "delta": _odo_delta, "delta_g": _odo_dg, "n": _THM65_N},
    "rogers2016_thm6_5_granular": {"eps": _GRAN_EPS, "delta": _odo_delta, "delta_g": _odo_dg,
                                   "gamma": no("the (17)/(18) branch point gamma and the grid size m = ceil(log2(1/gamma)) both move")},
    "rogers2016_thm6_5_granular_as_printed": {"eps": _GRAN_EPS, "delta": _odo_delta, "delta_g": _odo_dg,
                                              "gamma": no("the branch point gamma and log2(1/gamma) both move")},
    # ----------------------------------------------------------------- whitehouse2022 / whitehouse2023
    "whitehouse2022_def6_hockey_stick": _hockey,
    "whitehouse2023_def7_hockey_stick": _hockey,
    "whitehouse2022_eq2_delta": {"delta": inc("sum"), "delta_prime": I},
    "whitehouse2022_eq2_eps": {"eps": inc("sqrt(2LV) and eps tanh(eps/2) increase"), "delta_prime": D},
    "whitehouse2023_eq2_eps": {"eps": inc("sqrt(2LV) and eps tanh(eps/2) increase"), "delta_prime": D},
    "whitehouse2022_eq6_ystar": _ystar,
    "whitehouse2023_thm3_ystar": _ystar,
    "whitehouse2022_lem2_a": _ystar,
    "whitehouse2022_eq6_ystar_as_printed": {"eps": inc("eps/(sqrt(2L+eps) + sqrt(2L)) increases"), "delta_prime": inc("L falls")},
    "whitehouse2022_fig1a_gap": {"eps": inc("derivative x tanh^2 x + (x - tanh x) > 0, x = eps/2")},
    "whitehouse2022_lem1_dp_to_pdp_delta_as_printed": {"eps": dec("2 delta/(eps e^eps)"), "delta": I},
    "whitehouse2022_thm2_pdp_drift": {"eps": no("e~ = eps + l with l = -log(1 - delta(1 + e^-eps)) falling in eps: "
                                                 "d/d eps of e~ is 1 - delta e^-eps/(1 - c), negative for large delta"),
                                      "delta": inc("c = delta(1 + e^-eps) rises, so l and e~ rise; x tanh(x/2) increases on x >= 0")},
    "whitehouse2022_thm2_pdp_drift_two_sided": {
        "eps": inc("min(eps, (1 - delta) eps tanh(eps/2) + delta eps coth(eps)): eps tanh(eps/2) and eps coth(eps) both increase "
                   "((x coth x)' = (sinh(2x)/2 - x)/sinh(x)^2 > 0); a min of increasing functions"),
        "delta": inc("eps delta/sinh(eps) rises in delta (eps/sinh(eps) > 0); min with eps keeps order")},
    "whitehouse2023_lem2_dp_to_pdp_delta_as_printed": {"eps": dec("2 delta/(eps e^eps)"), "delta": I},
    "whitehouse2022_lem1_dp_to_pdp_delta_corrected": _dp_to_pdp_delta_corr,
    "whitehouse2022_lem1_dp_to_pdp_eps": {"eps": I},
    "whitehouse2023_lem2_dp_to_pdp_eps": {"eps": I},
    "whitehouse2022_lem2_b": {"eps": inc("y* increases"), "delta_prime": dec("L y* = 2 eps^2 (u/(sqrt(u^2+2eps)+u))^2, u = sqrt(2L), increases in L")},
    "whitehouse2022_lem4_as_printed": _rogers_quote,
    "whitehouse2023_lem3_as_printed": _rogers_quote,
    "whitehouse2022_lem6_bound": {"eps": I},
    "whitehouse2023_lem10_bound": {"eps": I},
    "whitehouse2022_lem6_rr_expected_loss": {"eps": inc("eps tanh(eps/2)")},
    "whitehouse2022_thm1_rounds_homogeneous": {"eps0": dec("f(k eps0^2) increases in eps0"), "delta0": dec("k delta0 <= delta''"),
                                               "eps_target": I, "delta_prime": inc("f falls in delta'"), "delta_second": I},
    "whitehouse2022_thm1_spent": _spent,
    "whitehouse2023_thm2_spent": _spent,
    "whitehouse2022_thm1_stop_index": _stop_index_w,
    "whitehouse2023_thm2_stop_index": _stop_index_w,
    "whitehouse2022_thm2_filter": _filter_odo,
    "whitehouse2023_thm3_filter": _filter_odo,
    "whitehouse2022_thm2_filter_as_printed": dict(_filter_odo, delta_prime=dec("L y_printed and L/y_printed increase in L")),
    "whitehouse2022_thm2_mixture": _mixture_odo,
    "whitehouse2023_thm3_mixture": _mixture_odo,
    "whitehouse2022_thm2_stitched": dict(_stitched, delta_prime=dec("log(5.2/delta')")),
    "whitehouse2023_thm3_stitched": dict(_stitched, delta_prime=dec("log(5.2/delta')")),
    "whitehouse2022_thm3_boundary": _linear_bd,
    "whitehouse2023_thm4_boundary": _linear_bd,
    "whitehouse2022_thm3_crossing_probability": _cross,
    "whitehouse2023_thm4_crossing_probability": _cross,
    "whitehouse2022_thm4_boundary": _mixture_bd,
    "whitehouse2023_thm5_boundary": _mixture_bd,
    "whitehouse2022_thm5_boundary": dict(_stitched, delta=dec("log(5.2/delta)")),
    "whitehouse2023_thm6_boundary": dict(_stitched, delta=dec("log(5.2/delta)")),
    "whitehouse2022_thm6_stop_index": {"steps": no("text parameter (list of dp/zcdp steps): no order"),
                                       "eps_target": I, "delta_prime": inc("f falls in delta'"), "delta_second": I},
    "whitehouse2022_thm7_stop_index": _zcdp_stop,
    "whitehouse2023_thm1_stop_index": _zcdp_stop,
    "whitehouse2023_lem1_dp_to_zcdp_rho": {"eps": I},
    "whitehouse2023_lem1_zcdp_to_dp_delta": {"delta": inc("derivative 1 - delta' > 0"), "delta_prime": inc("derivative 1 - delta >= 0")},
    "whitehouse2023_lem1_zcdp_to_dp_eps": {"rho": I, "delta_prime": D},
    "whitehouse2023_thm2_delta_via_zcdp": {"delta_prime": inc("derivative 1 - delta'' > 0"), "delta_second": inc("derivative 1 - delta' > 0")},
}

# ----------------------------------------------------------------- dong2022 / smith2022 (Gaussian DP)
_gdp_delta = {"eps": dec("delta_mu(eps) = sup_x [P(x) - e^eps Q(x)]_+ falls in eps"),
              "mu": inc("GDP curves are nested: G_mu decreases in mu, so delta_mu(eps) increases")}
MONOTONE.update({
    "dong2022_cor2_13_delta": _gdp_delta,
    "dong2022_cor2_13_delta_lower": _gdp_delta,
    "dong2022_cor2_13_eps": {"delta": dec("inverse of a decreasing curve: a larger delta is met earlier"),
                             "mu": inc("delta_mu(eps) increases in mu, so the root moves right")},
    "dong2022_cor2_13_mu": {"eps": inc("delta_mu(eps) falls in eps: a larger mu fits"),
                            "delta": inc("delta_mu(eps) increases in mu: a larger delta admits a larger mu")},
    "dong2022_cor3_3_mu": {"mus": inc("sqrt of a sum of squares of nonnegative terms")},
    "smith2022_dp_step_mu": {"eps": inc("Phi^{-1} increasing, e^eps/(1+e^eps) increasing")},
    "smith2022_filter_rounds_gaussian": {"mu0": dec("k mu0^2 <= mu*^2"), "eps": inc("mu*(eps, delta) increases in eps"),
                                         "delta": inc("mu*(eps, delta) increases in delta")},
    "smith2022_filter_rounds_dp": {"eps0": dec("k mu(eps0)^2 <= mu*^2, mu(eps0) increasing"), "eps": inc("mu* increases in eps"),
                                   "delta": inc("mu* increases in delta")},
    # ------------------------------------------------------------ conversion-calibrated filters
    "canonne2020_prop12_rdp_budget": {"alpha": no("free order: -log(1-1/alpha) falls, (log delta + log alpha)/(alpha-1) rises"),
                                      "eps": inc("additive eps"), "delta": inc("log delta/(alpha-1) increases in delta")},
    "canonne2020_prop12_zcdp_budget": {"eps": inc("B(alpha)/alpha increases in eps at every alpha; max keeps order"),
                                       "delta": inc("B(alpha)/alpha increases in delta at every alpha")},
    "feldman2021_thm4_3_calibrated_rounds": {"eps0": dec("max over the order grid of floor(B(alpha)/D_alpha(eps0)); D_alpha increases in eps0"),
                                             "eps": inc("B(alpha) increases in eps at every alpha"),
                                             "delta": inc("B(alpha) increases in delta at every alpha")},
    "feldman2021_rem4_4_calibrated_rounds": {"eps0": dec("eps0 tanh(eps0/2) increases"), "eps": inc("rho* increases in eps"),
                                             "delta": inc("rho* increases in delta")},
    # ------------------------------------------------------------ game-certified filter
    "whitehouse2022_game_filter_budget": {"eps": no("the default menu (eps_max = the reach grid isqrt(n_KOV + 1)) grows with the budget, and a richer menu lowers B*"), "delta": no("the default menu (eps_max = the reach grid isqrt(n_KOV + 1)) grows with the budget, and a richer menu lowers B*"),
                           "grid": no("the unit of the budget changes with the grid (B* counts grid^2 units)")},
    "whitehouse2022_game_filter_rounds": {"eps0": no("the grid is eps0: the menu and the unit change with it"), "eps": no("the default menu (eps_max = the reach grid isqrt(n_KOV + 1)) grows with the budget, and a richer menu lowers B*"),
                           "delta": no("the default menu (eps_max = the reach grid isqrt(n_KOV + 1)) grows with the budget, and a richer menu lowers B*")},
    # ------------------------------------------------------------ DP-SGD game filter (default costs)
    "zhu2022_dpsgd_game_filter_budget": {
        "eps": no("B* counts cost units, and the default costs follow each item's own count k0(eps), which changes the unit"),
        "delta": no("B* counts cost units, and the default costs follow each item's own count k0(delta), which changes the unit"),
        "q": no("the default costs follow the items' counts k0(q), which changes the unit of B*"),
        "sigma": no("the default costs follow the items' counts k0(sigma), which changes the unit of B*"),
        "sigma2": no("the default costs follow the items' counts k0(sigma2), which changes the unit of B*"),
        "bits": no("a finer grid changes both the certified values and the items' counts (hence the costs)")},
    # ------------------------------------------------------------ DP-SGD block filter (unit cost per block)
    "zhu2022_dpsgd_block_filter_steps": {
        "eps": no("the block lengths follow each item's own count in blocks of `block` steps at eps, which changes the menu's blocks"),
        "delta": no("the block lengths follow each item's own count at delta, which changes the menu's blocks"),
        "q": no("the block lengths follow the items' counts at q, which changes the menu's blocks"),
        "sigma": no("the block lengths follow the items' counts at sigma, which changes the menu's blocks"),
        "sigma2": no("the second item's block length follows its count at sigma2; a longer block lets the adversary "
                     "switch less often but the first item's blocks are unchanged: not ordered in general"),
        "bits": no("a finer grid changes every item's count, hence the block lengths, and the budget"),
        "block": no("the steps come in multiples of the block length and the game's levels change with it")},
    # ------------------------------------------------------------ per-example DP-SGD filter on the game
    "feldman2021_alg3_game_rounds": {
        "eps": no("the costs are re-chosen from each item's k0 at every eps (default_costs rounds them): floor(B*/c_k) may drop"),
        "delta": no("the costs are re-chosen from each item's k0 at every delta (default_costs rounds them)"),
        "q": no("the costs are re-chosen from each item's k0 at every q (default_costs rounds them)"),
        "sigma": no("the costs are re-chosen from each item's k0 at every sigma (default_costs rounds them)"),
        "scale": no("floor(B*/c_k) with c_k chosen per item by rounding (default_costs): not ordered between items in general"),
        "bits": no("a finer grid changes every item's k0, hence the costs, and the budget")},
})


#: Sampling ranges: id -> {param: (lo, hi)} (strings/Fractions, None = the domain's bound)
#: or {param: [choices]} (explicit values, strings as the CLI would pass them).
#: ``"seq_len"`` caps the common length of the sequence parameters (default 4).
RANGES: dict[str, dict] = {
    # cross-parameter preconditions
    # the Lemma 3.5 odometers refuse delta_i > 0 (their restriction; proofs/test_catalog_invariants.py section 7)
    **{eid: {"delta": ("0", "0")} for eid in ("rogers2016_thm3_6_odometer", "rogers2016_lem6_4", "rogers2016_thm6_5",
                                             "rogers2016_thm6_5_as_printed", "rogers2016_thm6_5_granular",
                                             "rogers2016_thm6_5_granular_as_printed")},
    "whitehouse2022_thm2_pdp_drift": {"delta": ("0", "0.45")},  # delta (1 + e^-eps) < 1 for every eps >= 0
    "balle2020_cor3_3_delta": {"m": ["1", "2", "4", "5", "10", "20", "25", "50", "100"], "n": ("100", "1000000"),
                               "n_multiple_of": 100},
    "balle2020_prop4_4_bound": {"n": ("1000", None), "m": ("1", "1000")},
    "balle2020_prop4_4_expected_dummies": {"n": ("1000", "1000000"), "m": ("1", "1000")},
    "balle2020_thm3_5_excess_risk": {"m": ("100", None), "s": ("1", "100")},
    "kairouz2015_thm3_3_delta_i": {"k": ("10", "200"), "i": ("0", "5"), "eps0": ("1/1000", "20")},
    "rogers2016_lem6_3_crossing_probability": {"n": ("2", "40"), "delta": (None, "1/2"),
                                               "gamma": ["1/2", "3/5", "2/3", "3/4", "9/10", "99/100"], "C": ("1/100", "10")},
    "feldman2021_sec2_renyi_divergence": {"P": ["3/4,1/4", "1/2,1/2", "1/3,2/3", "1/10,9/10", "1,0", "0,1", "999/1000,1/1000"],
                                          "Q": ["3/4,1/4", "1/2,1/2", "1/3,2/3", "1/10,9/10", "1,0", "0,1", "999/1000,1/1000"],
                                          "alpha": (None, "1000")},
    "feldman2021_sec2_renyi_divergence_sym": {"P": ["3/4,1/4", "1/2,1/2", "1/3,2/3", "1/10,9/10", "1,0", "0,1", "999/1000,1/1000"],
                                              "Q": ["3/4,1/4", "1/2,1/2", "1/3,2/3", "1/10,9/10", "1,0", "0,1", "999/1000,1/1000"],
                                              "alpha": (None, "1000")},
    "whitehouse2022_thm6_stop_index": {"steps": ["dp:0.1:0,zcdp:0.005,dp:0.2:1e-9", "zcdp:0.5", "dp:1:0", "dp:0.01:0,dp:0.01:0",
                                                 "zcdp:0.001,zcdp:0.002,dp:0.3:1e-12", "dp:0:0"]},
    # the (eps0, delta0) clause needs delta0 <= cheu_delta0_max(eps0, delta1)
    "balle2020_thm3_2_approx_delta": {"eps0": ("1/1000", "5"), "delta0": ["0", "1e-80", "1e-60"], "delta1": ("1e-12", None),
                                      "m": (None, "10000000"), "p0": ("1/1000", None)},
    "balle2020_thm4_1_approx_delta": {"eps0": ("1/1000", "5"), "delta0": ["0", "1e-80", "1e-60"], "delta1": ("1e-12", None)},
    "balle2020_thm4_3_approx_delta": {"eps0": ("1/1000", "5"), "delta0": ["0", "1e-80", "1e-60"], "delta1": ("1e-12", None)},
    "balle2020_thm5_1_approx_delta": {"eps0": ("1/1000", "5"), "delta0": ["0", "1e-80", "1e-60"], "delta1": ("1e-12", None)},
    # cost: 1 - e^(-5 eps0) needs ~7 eps0 bits of working precision
    "balle2020_thm3_2_delta0_max": {"eps0": (None, "100")},
    # cost: searches whose length grows with the answer
    "balle2020_thm3_2_min_m": {"eps0": ("1e-6", "8")},
    "balle2020_thm5_1_min_n": {"eps0": ("1e-6", "8")},
    "rogers2016_thm5_1_rounds_homogeneous": {"eps0": ("1/1000", None)},
    # cost: e^(eps_r) with eps_r ~ e^(2.5 eps0) takes seconds at eps0 = 1000; sampled up to 50.
    "balle2020_cor3_3_eps": {"m": ["1", "2", "4", "5", "10", "20", "25", "50", "100"], "n": ("100", "1000000"),
                             "n_multiple_of": 100, "eps0": (None, "50")},
    # cost: KOV sums grow with k (and with 1/eps0 in guard bits)
    "kairouz2015_thm3_3_delta": {"k": ("1", "300")},
    "kairouz2015_thm3_3_eps": {"k": ("1", "300")},
    # cost: the exact Laplace spline is O(k^2) big-rational terms; the inverse bisects it
    "sommer2019_laplace_kfold_delta": {"k": ("1", "20"), "b": ("1/10", "1e6")},
    "sommer2019_laplace_kfold_delta_lower": {"k": ("1", "20"), "b": ("1/10", "1e6")},
    "sommer2019_laplace_kfold_eps": {"k": ("1", "12"), "b": ("1/5", "1e4"), "delta": ("1e-30", None)},
    # cost: sum of alpha + 1 exponentials (and 72 orders for the conversions); sigma bounded so e^(alpha^2/sigma^2) stays small
    "mironov2019_sec3_3_rdp": {"sigma": ("1/4", "1e4"), "alpha": ("2", "256"), "q": ("1e-12", None)},
    "mironov2019_sec3_3_opt_eps": {"sigma": ("1/2", "1e3"), "k": ("1", "1000000"), "q": ("1e-9", None), "delta": ("1e-100", None)},
    "mironov2019_sec3_3_opt_delta": {"sigma": ("1/2", "1e3"), "k": ("1", "1000000"), "q": ("1e-9", None), "eps": (None, "100")},
    # cost: bucket masses in interval arithmetic (~0.2 s per (q, sigma)) and an FFT composition growing with k
    "koskela2020_pld_sgm_delta": {"q": ["1/100", "1/10", "1/2", "1"], "sigma": ["1", "11/10", "2"], "k": ("1", "64"), "eps": (None, "20")},
    # cost: lattice enumeration (2^len patterns)
    "murtagh2016_hetero_optimal_delta": {"seq_len": 3},
    "murtagh2016_hetero_optimal_eps": {"seq_len": 3},
    # cost: numerically optimised order alpha (k-fold curves)
    "balle2020hyp_thm21_opt_rr": {"k": ("1", "1000")},
    "mironov2017_prop3_opt_rr": {"k": ("1", "1000")},
    "balle2020hyp_thm21_opt_laplace": {"k": ("1", "1000")},
    "mironov2017_prop3_opt_laplace": {"k": ("1", "1000")},
    # cost: mu = 1e-300 puts the GDP curve at exp(-1e600): exact, but ~3 s per point (2000-bit exponent)
    "dong2022_cor2_13_delta": {"mu": ("1e-6", "1000")},
    "dong2022_cor2_13_delta_lower": {"mu": ("1e-6", "1000")},
    "dong2022_cor2_13_eps": {"mu": ("1e-6", "1000"), "delta": ("1e-100", None)},
    "dong2022_cor2_13_mu": {"delta": ("1e-100", None)},
    # cost: counts grow like 1/eps0^2 and the order rule evaluates exact counts
    "smith2022_dp_step_mu": {"eps": ("1e-30", "1000")},
    "smith2022_filter_rounds_gaussian": {"mu0": ("1/1000", "10"), "eps": ("1/100", "100"), "delta": ("1e-30", "1/2")},
    "smith2022_filter_rounds_dp": {"eps0": ("1/1000", "10"), "eps": ("1/100", "100"), "delta": ("1e-30", "1/2")},
    "canonne2020_prop12_rdp_budget": {"alpha": (None, "1e6")},
    "feldman2021_thm4_3_calibrated_rounds": {"eps0": ("1/200", "5"), "eps": ("1/10", "10"), "delta": ("1e-12", "1/10")},
    # the game sweep costs about B* x menu x window: keep B* in the hundreds
    "whitehouse2022_game_filter_budget": {"eps": ("1/2", "2"), "delta": ("1e-8", "1/10"), "grid": ("1/50", "1/2")},
    "whitehouse2022_game_filter_rounds": {"eps0": ("1/50", "1/2"), "eps": ("1/2", "2"), "delta": ("1e-8", "1/10")},
    # the DP-SGD game costs about (B* / least cost) x window per direction: keep the counts in the tens
    "zhu2022_dpsgd_game_filter_budget": {"eps": ("4", "8"), "delta": ("1e-4", "1/100"), "q": ("1/20", "1/5"),
                                         "sigma": ("1/2", "1"), "sigma2": ("1/2", "1"), "bits": ("2", "4")},
    "feldman2021_rem4_4_calibrated_rounds": {"eps0": ("1/1000", "10"), "eps": ("1/100", "100"), "delta": ("1e-30", "1/2")},
    # the block game costs about (single-item counts in blocks) x window: keep the blocks in the tens
    "zhu2022_dpsgd_block_filter_steps": {"eps": ("4", "8"), "delta": ("1e-4", "1/100"), "q": ("1/20", "1/5"),
                                         "sigma": ("1/2", "1"), "sigma2": ("1/2", "1"), "bits": ("2", "4"),
                                         "block": ("1", "3")},
    # cost: one menu certificate (about 2 s at bits 4) per (eps, delta, q, sigma, bits); scale is free (cached)
    "feldman2021_alg3_game_rounds": {"eps": ["2", "4"], "delta": ["1/1000"], "q": ["1/10"], "sigma": ["1"],
                                     "scale": ("1/8", "1"), "bits": ["4"]},
}

#: id -> {name: value}: the point at which the deterministic sweeps (over extremes, over the domain) hold the other
#: parameters, where a default is outside the entry's RANGES (costs minutes there); inside RANGES, so the sweeps run
#: the same branches as the random tests.  The swept parameter itself takes every value of its sweep.
SWEEP_BASE: dict[str, dict] = {
    # k = 1000 composes 1000 steps at every eps of the sweep (its grid follows eps): ~10 s a point; k = 64 is the
    # same integer composition by the same squaring chain, inside RANGES
    "koskela2020_pld_sgm_delta": {"k": "64"},
}

#: id -> (max hypothesis examples per test, dps of the monotonicity test).  These
#: evaluate in ~20-60 ms (order alpha optimised by a grid scan + golden section).
SLOW: dict[str, tuple[int, int]] = {
    "balle2020hyp_thm21_opt_gaussian": (4, 20),
    "sommer2019_laplace_kfold_delta": (4, 20),
    "sommer2019_laplace_kfold_delta_lower": (4, 20),
    "sommer2019_laplace_kfold_eps": (3, 20),
    "mironov2019_sec3_3_opt_eps": (3, 20),
    "koskela2020_pld_sgm_delta": (3, 20),
    "mironov2019_sec3_3_opt_delta": (3, 20),
    "balle2020hyp_thm21_opt_laplace": (4, 20),
    "balle2020hyp_thm21_opt_rr": (4, 20),
    "balle2020hyp_thm21_opt_zcdp": (4, 20),
    "canonne2020_prop12_opt_zcdp": (4, 20),
    "mironov2017_prop3_opt_gaussian": (4, 20),
    "mironov2017_prop3_opt_laplace": (4, 20),
    "mironov2017_prop3_opt_rr": (4, 20),
    "mironov2017_prop3_opt_zcdp": (4, 20),
    "rogers2016_lem6_3_crossing_probability": (8, 30),
    "dong2022_cor2_13_eps": (4, 20),
    "dong2022_cor2_13_mu": (4, 20),
    "feldman2021_thm4_3_calibrated_rounds": (2, 20),
    "whitehouse2022_game_filter_budget": (3, 20),
    "whitehouse2022_game_filter_rounds": (3, 20),
    "zhu2022_dpsgd_game_filter_budget": (2, 20),
    "zhu2022_dpsgd_block_filter_steps": (2, 20),
    "feldman2021_rem4_4_calibrated_rounds": (3, 20),
    "smith2022_filter_rounds_gaussian": (3, 20),
    "smith2022_filter_rounds_dp": (3, 20),
    "feldman2021_alg3_game_rounds": (3, 20),
}

#: ids documented to return ``mpmath.inf`` for some valid inputs.
INF_OK: dict[str, str] = {
    "feldman2021_sec2_renyi_divergence": "P not absolutely continuous w.r.t. Q",
    "feldman2021_sec2_renyi_divergence_sym": "P, Q not mutually absolutely continuous",
    "kairouz2015_thm3_3_eps": "delta < 1 - (1-delta0)^k: no epsilon suffices",
    "murtagh2016_hetero_optimal_eps": "delta_target < 1 - prod(1-delta_i)",
    "whitehouse2022_thm2_stitched": "V < v0",
    "whitehouse2023_thm3_stitched": "V < v0",
    "whitehouse2022_thm5_boundary": "V < v0",
    "whitehouse2023_thm6_boundary": "V < v0",
}
