"""Every entry of the errata ledger is demonstrated by an exact or high-precision check.

An empty check would make the ledger a list of opinions; each function below
re-establishes the disagreement it records (and the test fails if the printed
form ever turned out to be right).
"""
import json
from fractions import Fraction as F
from importlib import resources

import mpmath
import pytest

from reference.bounds import whitehouse2023 as W
from reference.precision import compare_exp_rational, mpf_to_fraction

LEDGER = json.loads(resources.files("reference").joinpath("data/errata.json").read_text())
IDS = [e["id"] for e in LEDGER["entries"]]
CONSEQUENCES = {"claim is false", "bound still valid but loose", "typo; result unaffected",
                "printed formula differs from the cited source", "proof gap; statement not refuted"}


def check_ystar():
    """f(y*_printed) = eps/2 exactly (for every eps, delta'); f(y*_corrected) = eps."""
    ok = True
    for eps, dp in ((1, "1e-6"), (F(1, 3), "1e-2"), (5, "1e-12")):
        L = -mpmath.log(mpmath.mpf(F(dp).numerator) / F(dp).denominator)
        f = lambda y: mpmath.sqrt(2 * L * y) + y / 2
        e = mpmath.mpf(F(eps).numerator) / F(eps).denominator
        ok &= abs(f(W.y_star_as_printed(eps, dp)) - e / 2) < mpmath.mpf(10) ** -40
        ok &= abs(f(W.y_star(eps, dp)) - e) < mpmath.mpf(10) ** -40
    return bool(ok)


def check_f():
    """The printed f(y) = sqrt(2L) y + y/2 has root eps/(sqrt(2L) + 1/2), not y*."""
    L = mpmath.log(10**6)
    root_printed = 1 / (mpmath.sqrt(2 * L) + mpmath.mpf(1) / 2)
    return abs(root_printed - W.y_star(1, "1e-6")) > mpmath.mpf("0.1")


def check_b():
    """exp(-b^2/(2a)) with the printed b is not delta'; with b = sqrt(2 L y*) it is."""
    a = W.lemma2_a(1, "1e-6")
    L = mpmath.log(10**6)
    b_printed = mpmath.sqrt(2 * L) * a
    b_correct = W.lemma2_b(1, "1e-6")
    d = mpmath.mpf("1e-6")
    return abs(mpmath.exp(-b_printed**2 / (2 * a)) - d) > d / 2 and abs(mpmath.exp(-b_correct**2 / (2 * a)) - d) < d * mpmath.mpf(10) ** -40 \
        and abs(mpmath.exp(-2 * L) - d) > d / 2


def check_dp_to_pdp():
    """False for every eps > 0 (both tails at once); at eps = 1 a two-point mechanism already breaks it with one tail.

    (a) eps (e^{2 eps} + 1) > 2 (e^eps - 1) on a grid down to eps = 1e-6 (the sharp value over the printed one);
    (b) at eps = 1/100, delta = 1/1000 the falsifier's exact (eps, delta)-DP law has P(|L| > 2 eps) above the printed value;
    (c) the two-point mechanism P = (3/200, 197/200), Q = (3/1600, 1597/1600) at eps = 1 (one tail).
    """
    from reference.falsify.laws import dp_candidates, is_dp
    for k in range(-6, 2):
        e = mpmath.mpf(10) ** k
        if not e * (mpmath.exp(2 * e) + 1) > 2 * (mpmath.exp(e) - 1):
            return False
    e, d = F(1, 100), F(1, 1000)
    printed01 = mpf_to_fraction(W.dp_to_pdp_delta_as_printed(e, d)) * (1 + F(1, 10**20))
    best = F(0)
    for law in dp_candidates(e, d, thresholds=(2 * e,)):
        assert is_dp(law)
        bad = sum((a for a, b in zip(law.p, law.q)
                   if a and (b == 0 or compare_exp_rational(2 * e, a / b) < 0 or compare_exp_rational(-2 * e, a / b) > 0)), F(0))
        best = max(best, bad)
    if not best > printed01 or not best <= mpf_to_fraction(W.dp_to_pdp_delta(e, d)):
        return False
    P, Q = (F(3, 200), F(197, 200)), (F(3, 1600), F(1597, 1600))
    delta = F(1, 100)
    # (1, delta)-DP on all four events, both directions: A(G) <= e * B(G) + delta  <=>  e >= (A - delta)/B
    for A, B in ((P, Q), (Q, P)):
        for G in ((), (0,), (1,), (0, 1)):
            a, b = sum(A[i] for i in G), sum(B[i] for i in G)
            if a - delta > 0:
                assert compare_exp_rational(F(1), (a - delta) / b) >= 0
    # L = log(P/Q) on atom 0 is log 8 > 2 = 2 eps  (exp(2) < 8)
    assert compare_exp_rational(F(2), F(8)) < 0
    tail = P[0]
    printed = W.dp_to_pdp_delta_as_printed(1, delta)
    return tail > mpf_to_fraction(printed) * (1 + F(1, 10**20)) and tail <= mpf_to_fraction(W.dp_to_pdp_delta(1, delta))


def check_rogers_quote():
    """The two printings differ, neither is Rogers et al.'s eq. (17), and both are false as odometers.

    Falsity, by an independent route: 24 steps of exact 1/4-randomized response (loss (2k - n)/4, k ~ Bin(n, e^{1/4}/(1 + e^{1/4}))),
    |x| = 2, delta' = 1e-6: P(L_{1:24} > u_24) alone exceeds delta' by far, for both printings (60-digit binomial sums).
    """
    with mpmath.workdps(60):
        n, e = 24, mpmath.mpf(1) / 4
        p = mpmath.exp(e) / (1 + mpmath.exp(e))
        V = F(24, 16)
        for fn in (W.rogers_odometer_quoted_2022_as_printed, W.rogers_odometer_quoted_2023_as_printed):
            u = fn(V, F(1, 10**6), 2, dps=40) * (1 + mpmath.mpf(10) ** -30)
            tail = mpmath.fsum(mpmath.binomial(n, k) * p ** k * (1 - p) ** (n - k) for k in range(n + 1) if (2 * k - n) * e > u)
            if not tail > mpmath.mpf(10) ** -5:
                return False
    V, dp, n = F(1, 2), F(1, 10**6), 10**4
    a = W.rogers_odometer_quoted_2022_as_printed(V, dp, n)
    b = W.rogers_odometer_quoted_2023_as_printed(V, dp, n)
    # Rogers et al. (2016) eq. (17): k steps of eps0 with k eps0^2 = V, delta_g = delta'
    k, e0 = 5000, mpmath.mpf("0.01")
    eq17 = k * e0 * (mpmath.exp(e0) - 1) / 2 + 2 * mpmath.sqrt(V * (1 + mpmath.log(mpmath.sqrt(3))) * mpmath.log(4 * mpmath.log(n, 2) / dp))
    return abs(a - b) > mpmath.mpf("0.01") and abs(a - eq17) > mpmath.mpf("0.01") and abs(b - eq17) > mpmath.mpf("0.01")


def check_thm2_delta():
    """Theorem 2 with delta_n > 0, as printed, fails with probability one; the corrected drift holds on the same path.

    P = (1, 0), Q = (1 - delta, delta) with (eps, delta) = (1/20, 9/200) is (eps, delta)-pDP (log(200/191) <= 1/20 exactly,
    and the x'-only atom has Q-mass delta).  Under x the loss after n steps is n log(200/191) surely.  With delta' = 3/10 and
    delta'' = 3/5 (sum delta_m <= delta'' for n <= 13), at n = 13 it exceeds each printed odometer (60-digit second route),
    while the shipped Odometer (drift pdp_drift_two_sided) stays above it.
    """
    from reference.accountants import Odometer
    e, d, dp, ds = F(1, 20), F(9, 200), F(3, 10), F(3, 5)
    assert compare_exp_rational(e, F(200, 191)) > 0 and compare_exp_rational(-e, F(191, 200)) < 0
    n = 13
    assert n * d <= ds
    with mpmath.workdps(60):
        L = n * mpmath.log(mpmath.mpf(200) / 191)
        V = mpmath.mpf(n) / 400
        lg = -mpmath.log(mpmath.mpf(3) / 10)
        ys = 4 / (mpmath.sqrt(2 * lg + 2) + mpmath.sqrt(2 * lg)) ** 2
        u_filter = mpmath.sqrt(2 * ys * lg) / 2 + mpmath.sqrt(2 * lg) / (2 * mpmath.sqrt(ys)) * V + V / 2
        rho = mpmath.mpf(1) / 100
        u_mix = mpmath.sqrt(2 * mpmath.log(mpmath.sqrt((V + rho) / rho) / (mpmath.mpf(3) / 10)) * (rho + V)) + V / 2
        printed_fail = L > u_filter and L > u_mix
        printed_fail &= L > W.mixture_odometer(F(n, 400), F(1, 100), dp, dps=40) and L > W.filter_odometer(F(n, 400), 1, dp, dps=40)
        o = Odometer(dp, ds, eps_target=1, rho=F(1, 100), v0=F(1, 100))
        for _ in range(n):
            o.record(e, d)
        corrected_hold = all(v > L for v in o.bounds(dps=40).values())
    return bool(printed_fail and corrected_hold)


def check_martingale_index():
    """Two adaptive RR steps: with E(L_m | F_{n-1}) the process is not a martingale; with F_{m-1} it is."""
    e1, e_after = F(1), {1: F(2), -1: F(1, 2)}  # eps_2 chosen from the first loss's sign
    p = lambda e: 1 / (1 + mpmath.exp(-mpmath.mpf(e.numerator) / e.denominator))
    mean = lambda e: mpmath.mpf(e.numerator) / e.denominator * (2 * p(e) - 1)
    # first step: loss +e1 w.p. p(e1), -e1 otherwise; M_1 = L_1 - E L_1 (both forms agree at n = 1)
    ok_correct, ok_printed = True, True
    for s1 in (1, -1):
        L1 = mpmath.mpf(s1) * mpmath.mpf(e1.numerator) / e1.denominator
        M1 = L1 - mean(e1)
        e2 = e_after[s1]
        # E[M_2 | F_1] for the corrected form: L_1 + E[L_2|F_1] - E L_1 - E[L_2|F_1] = M_1
        EM2_correct = L1 - mean(e1)
        # printed form: compensator E(L_m | F_1) for m = 1, 2: E(L_1|F_1) = L_1 so E[M_2|F_1] = 0
        EM2_printed = (L1 + mean(e2)) - (L1 + mean(e2))
        ok_correct &= abs(EM2_correct - M1) < 1e-30
        ok_printed &= abs(EM2_printed - M1) < 1e-30
    return ok_correct and not ok_printed


CHECKS = {
    "W22-EQ6-YSTAR": check_ystar,
    "W22-LEM2-F": check_f,
    "W22-LEM2-B": check_b,
    "W22-LEM1-DP-TO-PDP": check_dp_to_pdp,
    "W22-LEM4-QUOTE": check_rogers_quote,
    "W22-THM2-DELTA": check_thm2_delta,
    "W22-THM2-PROOF-INDEX": check_martingale_index,
}


def _merge_paper_checks() -> None:
    """Checks for the other papers live in ``proofs/errata_<paper>.py``, each exposing ``CHECKS``."""
    import importlib.util
    import pathlib

    for path in sorted(pathlib.Path(__file__).parent.glob("errata_*.py")):
        spec = importlib.util.spec_from_file_location(f"_errata_{path.stem}", path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        clash = set(mod.CHECKS) & set(CHECKS)
        assert not clash, f"{path.name}: erratum ids defined twice: {sorted(clash)}"
        CHECKS.update(mod.CHECKS)


_merge_paper_checks()


def test_ledger_schema():
    assert LEDGER["schema"] == "fullyadaptive-errata/1"
    keys = {"id", "seed", "location", "printed", "corrected", "check", "evidence", "consequence", "impact", "status", "retraction"}
    for e in LEDGER["entries"]:
        assert set(e) == keys, e["id"]
        assert e["consequence"] in CONSEQUENCES
        assert e["status"] in ("confirmed", "retracted"), e["id"]
        # a retracted entry stays visible and says why; a confirmed one has no retraction
        assert (e["status"] == "retracted") == isinstance(e["retraction"], str) and (e["retraction"] is None or len(e["retraction"]) > 80)
        assert e["check"] == f"proofs/test_errata.py::test_erratum[{e['id']}]"
    assert len(set(IDS)) == len(IDS)
    assert set(IDS) == set(CHECKS), "every ledger entry needs a check and every check a ledger entry"


@pytest.mark.parametrize("eid", IDS)
def test_erratum(eid):
    assert CHECKS[eid]() is True
