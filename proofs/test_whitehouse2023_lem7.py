"""whitehouse2023 (seed 001_019b6f2aef040984.txt, ICML 2023) Lemma 7 and eq. (11): the stopped pure parts are rho-Renyi close.

Statement (our words).  With X_n of Lemma 6 and the filter's stopping time N,
optional stopping gives

    E_{P'}[X_N] <= E_{P'}[X_0] = 1,                                                (11)

i.e. E_{P'}[(P'(A_{1:N})/Q'(A_{1:N}))^{lam-1} exp(-(lam-1) lam sum_{m<=N} rho_m)] <= 1,
and since sum_{m<=N} rho_m <= rho by the definition of N,

    D_lam(P'(A_{1:N}) || Q'(A_{1:N})) <= rho lam.

New in whitehouse2023.  Checked by exact enumeration of every stopped transcript of
adaptive randomized response (parameters chosen from the transcript, the library's
ZCDPFilter deciding), for several orders lam, with the chain of the proof checked
step by step.
"""
from __future__ import annotations

from fractions import Fraction as F

import mpmath
import pytest

from test_whitehouse2023_thm1 import LAMS, RHO, STRATEGIES, enumerate_stopped, q2m, renyi

MP = mpmath.mpf


def stopped_X_mean(paths, lam):
    """E_{P'}[X_N] = sum_paths P'(path) (P'/Q')^{lam-1} exp(-(lam-1) lam sum_{m<=N} rho_m)."""
    lam = MP(lam)
    s = MP(0)
    for r in paths:
        if r["Pp"] is None:
            continue
        P, Q = q2m(r["Pp"]), q2m(r["Qp"])
        s += P * (P / Q) ** (lam - 1) * mpmath.exp(-(lam - 1) * lam * q2m(r["rho_sum"]))
    return s


@pytest.mark.parametrize("name", sorted(STRATEGIES))
def test_eq11_optional_stopping_of_X(name):
    """E_{P'}[X_N] <= 1 (eq. (11)) on adaptive RR stopped by the filter, every lam in {1.001, ..., 64}."""
    with mpmath.workdps(60):
        paths = enumerate_stopped(STRATEGIES[name], RHO, F(0), horizon=10)
        for lam in LAMS:
            assert stopped_X_mean(paths, lam) <= 1


@pytest.mark.parametrize("name", sorted(STRATEGIES))
def test_lemma7_renyi_bound_follows_from_eq11(name):
    """sum_{m<=N} rho_m <= rho on every path, hence D_lam(P'_{1:N} || Q'_{1:N}) <= (1/(lam-1)) log E[...e^{(lam-1) lam rho}] <= rho lam."""
    with mpmath.workdps(60):
        paths = enumerate_stopped(STRATEGIES[name], RHO, F(0), horizon=10)
        assert all(r["rho_sum"] <= RHO for r in paths)
        for lam in LAMS:
            l = MP(lam)
            D = renyi(paths, lam)
            via_eq11 = (mpmath.log(stopped_X_mean(paths, lam)) + (l - 1) * l * q2m(RHO)) / (l - 1)
            assert D <= via_eq11 * (1 + MP(10) ** -50) + MP(10) ** -50  # the proof's inequality (one-sided)
            assert via_eq11 <= q2m(RHO) * l


def test_negative_control_unstopped_process_exceeds():
    """Without the stopping rule (fixed horizon beyond the budget) D_lam exceeds rho lam: the bound is the filter's doing."""
    from test_whitehouse2023_thm1 import strat_homogeneous
    with mpmath.workdps(60):
        paths = enumerate_stopped(strat_homogeneous(F(3, 4)), F(10), F(0), horizon=3)   # 3 steps of rho ~ 0.549
        assert renyi(paths, "1.001") > q2m(RHO) * MP("1.001")
