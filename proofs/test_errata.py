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
    """f(y*_printed) = sqrt(2 L y) + y/2 is far from eps; f(y*_corrected) = eps."""
    L = mpmath.log(10**6)
    f = lambda y: mpmath.sqrt(2 * L * y) + y / 2
    return abs(f(W.y_star_as_printed(1, "1e-6")) - 1) > mpmath.mpf("0.4") and abs(f(W.y_star(1, "1e-6")) - 1) < mpmath.mpf(10) ** -45


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
    """Two-point mechanism: exactly (1, 1/100)-DP, yet P(|L| > 2) = 3/200 > 2 delta/(eps e^eps)."""
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
    printed = W.dp_to_pdp_delta(1, delta)
    return tail > mpf_to_fraction(printed) and tail <= mpf_to_fraction(W.dp_to_pdp_delta_corrected(1, delta))


def check_rogers_quote():
    """The two printings differ, and neither is Rogers et al.'s eq. (17) for a homogeneous workload."""
    V, dp, n = F(1, 2), F(1, 10**6), 10**4
    a = W.rogers_odometer_quoted_2022(V, dp, n)
    b = W.rogers_odometer_quoted_2023(V, dp, n)
    # Rogers et al. (2016) eq. (17): k steps of eps0 with k eps0^2 = V, delta_g = delta'
    k, e0 = 5000, mpmath.mpf("0.01")
    eq17 = k * e0 * (mpmath.exp(e0) - 1) / 2 + 2 * mpmath.sqrt(V * (1 + mpmath.log(mpmath.sqrt(3))) * mpmath.log(4 * mpmath.log(n, 2) / dp))
    return abs(a - b) > mpmath.mpf("0.01") and abs(a - eq17) > mpmath.mpf("0.01") and abs(b - eq17) > mpmath.mpf("0.01")


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
    keys = {"id", "seed", "location", "printed", "corrected", "check", "evidence", "consequence", "impact"}
    for e in LEDGER["entries"]:
        assert set(e) == keys, e["id"]
        assert e["consequence"] in CONSEQUENCES
        assert e["check"] == f"proofs/test_errata.py::test_erratum[{e['id']}]"
    assert len(set(IDS)) == len(IDS)
    assert set(IDS) == set(CHECKS), "every ledger entry needs a check and every check a ledger entry"


@pytest.mark.parametrize("eid", IDS)
def test_erratum(eid):
    assert CHECKS[eid]() is True
