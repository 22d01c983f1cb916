"""Errata checks for whitehouse2023 (seed 001_019b6f2aef040984.txt, ICML 2023 version).

Each function returns True when the disagreement it records is demonstrated; they are
merged into ``proofs/test_errata.py::CHECKS``.  Self-contained (mpmath and Fractions only).
Disagreements shared with the arXiv version are listed under their W22-* ids.
"""
from __future__ import annotations

from fractions import Fraction as F

import mpmath
from mpmath.ctx_mp import MPContext


def _ctx(dps=40):
    c = MPContext()
    c.dps = dps
    return c


def check_thm5_one_sided():
    """Theorem 5 assumes only dM_n sigma^2-sub-Gaussian for lam >= 0; the two-sided normal mixture is then not a supermartingale.

    X = +1 w.p. 49/50, -49 w.p. 1/50 (mean 0).  sigma^2 = 50 satisfies E e^{lam X} <= e^{lam^2 sigma^2/2} for every lam >= 0
    (checked on a geometric grid with a monotone cell bound and a Taylor bound near 0), yet
    int E e^{lam X - lam^2 sigma^2/2} dN(0, 1)(lam) > 1, because the negative-lam half blows up.
    """
    c = _ctx(30)
    a, b, p = c.mpf(1), c.mpf(49), c.mpf(1) / 50
    mgf = lambda l: (1 - p) * c.exp(l * a) + p * c.exp(-l * b)
    s2 = c.mpf(50)
    var = (1 - p) * a * a + p * b * b                 # = 49
    h, r, Lam = c.mpf(1) / 10**4, c.mpf(1001) / 1000, c.mpf(40)
    ok = var + h * a ** 3 * c.exp(h * a) / 3 <= s2 and 2 * a / Lam <= s2
    l0 = h
    while l0 < Lam and ok:
        l1 = l0 * r
        ok = 2 * c.log(mgf(l1)) / l0 ** 2 <= s2       # psi nondecreasing on lam >= 0 (E X = 0)
        l0 = l1
    dens = lambda l: c.exp(-l * l / 2) / c.sqrt(2 * c.pi)
    mean = c.quad(lambda l: mgf(l) * c.exp(-l * l * s2 / 2) * dens(l), [-c.inf, -5, 0, 5, c.inf])
    return bool(ok and mean > 1)


def check_thm5_one_sided_retraction():
    """Retraction of W23-THM5-ONESIDED: under the one-sided hypothesis the printed boundary holds (Ville on a half-normal mixture).

    H(M, V) = int_{lam >= 0} exp(lam M - lam^2 V/2) 2 N(0, 1/gamma)(d lam) = 2 Phi(M/sqrt(V + gamma)) G(M, V), with
    G = sqrt(gamma/(V + gamma)) exp(M^2/(2 (V + gamma))) the two-sided mixture.  Checked: (1) the closed form against
    quadrature; (2) H >= G on M >= 0; (3) for the old counterexample law X (one-sided sigma^2 = 50), E[H(M + X, V + 50)]
    <= H(M, V) on a grid of (M, V), i.e. H is a supermartingale where G is not; (4) the old observation (G is not) stands.
    """
    c = _ctx(40)
    g = c.mpf(1)
    G = lambda M, V: c.sqrt(g / (V + g)) * c.exp(M * M / (2 * (V + g)))
    H = lambda M, V: 2 * c.ncdf(M / c.sqrt(V + g)) * G(M, V)
    ok = True
    for M, V in ((c.mpf(0), c.mpf(1)), (c.mpf(3), c.mpf(10)), (c.mpf(-2), c.mpf(5))):
        quad = c.quad(lambda l: c.exp(l * M - l * l * V / 2) * 2 * c.exp(-l * l * g / 2) * c.sqrt(g / (2 * c.pi)), [0, 1, 5, c.inf])
        ok &= abs(quad - H(M, V)) < c.mpf(10) ** -25 * H(M, V)
        if M >= 0:
            ok &= H(M, V) >= G(M, V)
    p, s2 = c.mpf(1) / 50, c.mpf(50)
    for M in (-20, -5, 0, 3, 10, 40):
        for V in (0, 25, 100, 1000):
            M_, V_ = c.mpf(M), c.mpf(V)
            nxt = (1 - p) * H(M_ + 1, V_ + s2) + p * H(M_ - 49, V_ + s2)
            ok &= nxt <= H(M_, V_) * (1 + c.mpf(10) ** -30)
    return bool(ok and check_thm5_one_sided())


def check_condition2_direction():
    """Condition 2 as printed bounds D_lam(P'||Q') twice; one direction does not give the other.

    P = (1/2, 1/2), Q = (1/10, 9/10): a rigorous upper bound rho on sup_{lam>1} D_lam(Q||P)/lam (D_lam nondecreasing,
    D_lam <= D_inf = log(9/5)) is below D_{1.0001}(P||Q)/1.0001, so with delta = 0 (P' = P, Q' = Q) the printed
    Condition 2 holds with rho while Condition 1 (both directions) fails.
    """
    c = _ctx(50)
    P, Q = (c.mpf(1) / 2, c.mpf(1) / 2), (c.mpf(1) / 10, c.mpf(9) / 10)
    D = lambda A, B, lam: c.log(sum(x ** lam * y ** (1 - lam) for x, y in zip(A, B))) / (lam - 1)
    grid = [1 + c.mpf(j) / 400 for j in range(1, 401)]
    rho = c.log(c.mpf(9) / 5) / grid[-1]
    prev = c.mpf(1)
    for lam in grid:
        rho = max(rho, D(Q, P, lam) / prev)
        prev = lam
    lam = c.mpf("1.0001")
    return bool(D(P, Q, lam) > rho * lam)


def check_def6_index():
    """Helper (the ledger entry is W22-DEF5-ARITY, to be extended to seed 001): Definition 6 evaluates U_n = u_n(eps_{1:n-1}, delta_{1:n-1}); read so, Theorem 3's filter odometer fails.

    One RR step with eps_1 = 3 (predictable, chosen before the data), target eps = 1, delta' = 1/10: the definition's
    U_1 = u_1() sees V_0 = 0 and equals sqrt(2 y* L)/2 < 1 < 3 = L_1 on the event of probability e^3/(1+e^3) = 0.95 > delta'.
    With u_n(eps_{1:n}) (Theorem 3 and its proof, Appendix E) U_1 = u(V_1 = 9) >= 3, so that reading holds.
    """
    c = _ctx(40)
    L, eps = -c.log(c.mpf(1) / 10), c.mpf(1)
    s = c.sqrt(2 * L + 2 * eps) + c.sqrt(2 * L)
    y = 4 * eps ** 2 / s ** 2
    u = lambda V: c.sqrt(2 * y * L) / 2 + c.sqrt(2 * L) / (2 * c.sqrt(y)) * V + V / 2
    e1 = c.mpf(3)
    prob_cross_def = c.exp(e1) / (1 + c.exp(e1)) if e1 > u(0) else c.mpf(0)
    return bool(prob_cross_def > c.mpf(1) / 10 and u(e1 ** 2) >= e1)


CHECKS = {
    "W23-THM5-ONESIDED": check_thm5_one_sided_retraction,
    "W23-COND2-DIRECTION": check_condition2_direction,
}
