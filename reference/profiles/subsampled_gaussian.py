"""The Poisson-subsampled Gaussian mechanism: exact Renyi DP at integer orders, and a certified (eps, delta) bracket of its k-fold composition.

Source: Mironov, Talwar, Zhang, *Renyi Differential Privacy of the Sampled Gaussian Mechanism*
(arXiv 1908.10530, v1), Section 3.3 (integer orders): with sampling rate q, noise multiplier sigma
(sensitivity 1) and integer alpha >= 2, the SGM is (alpha, eps(alpha))-RDP with

    eps(alpha) = log(A_alpha)/(alpha - 1),
    A_alpha = sum_{j=0}^{alpha} C(alpha, j) (1 - q)^{alpha - j} q^j exp((j^2 - j)/(2 sigma^2))     (binomial expansion)

(A_alpha = E_{z ~ mu0}[(mu(z)/mu0(z))^alpha] with mu0 = N(0, sigma^2), mu = (1-q) mu0 + q N(1, sigma^2);
MTZ19 show this direction dominates for the add/remove relation).  Every term is positive, so
the interval sum is tight; composition adds the curves (Mironov 2017, Proposition 1).

k-fold composition, eps(delta) and delta(eps):

* upper end: the improved RDP -> DP conversion (balle2020hyp Theorem 21 = canonne2020
  Proposition 12) minimised over the integer orders 2..:data:`MAX_ORDER` (certified at the chosen
  order; the choice affects tightness only);
* lower end: the exact composition of a *post-processed* step (derived): thresholding each
  output at tau gives Bern(p1) vs Bern(p0), p1 = (1-q) Phi(-tau/sigma) + q Phi((1-tau)/sigma),
  p0 = Phi(-tau/sigma); by the data-processing inequality the hockey-stick divergence of
  Bin(k, p1) vs Bin(k, p0) is a lower bound on the true delta(eps).  Its terms are summed in
  interval arithmetic (dropping terms only lowers a lower bound); tau is chosen by a float scan.

The bracket is honest, not tight: the true value lies between the two ends (``exact`` False).
"""
from __future__ import annotations

import math
from fractions import Fraction
from functools import lru_cache

import mpmath

from ..bounds.dong2022 import phi_iv
from ..catalog import Param, register
from ..precision import DEFAULT_DPS, Domain, certified, check, check_dps, mpf_to_fraction
from .conversions import Bracket, integer_order_delta, integer_order_eps, round_down

__all__ = ["MAX_ORDER", "K_MAX", "sgm_rdp", "sgm_rdp_float", "sgm_eps", "sgm_delta", "sgm_eps_bracket",
           "sgm_delta_bracket", "sgm_delta_lower_binary"]

MAX_ORDER = 256
K_MAX = 10 ** 9
ORDERS = tuple(range(2, 65)) + (72, 80, 96, 112, 128, 160, 192, 224, 256)
P = Domain.positive()
NN = Domain.nonnegative()
U = Domain.open_unit()
QDOM = Domain.half_open_unit()  # (0, 1]
ADOM = Domain(lo=Fraction(2), hi=Fraction(MAX_ORDER * 4), lo_closed=True, hi_closed=True, integer=True)
KDOM = Domain(lo=Fraction(1), hi=Fraction(K_MAX), lo_closed=True, hi_closed=True, integer=True)
SOURCE_UP = "mironov2019 Sec. 3.3 (integer-order RDP) + balle2020hyp Thm 21 (improved conversion, best integer order)"
SOURCE_LO = "binary post-processing of each step, exact Bin(k,p1) vs Bin(k,p0) hockey-stick (data processing; derived)"


def _A_formula(c, q, s, alpha: int):
    """A_alpha = sum_j C(alpha,j) (1-q)^(alpha-j) q^j exp((j^2-j)/(2 s^2)) in the interval context."""
    tot = c.mpf(0)
    inv = 1 / (2 * s * s)
    for j in range(alpha + 1):
        tot += math.comb(alpha, j) * (1 - q) ** (alpha - j) * q ** j * c.exp((j * j - j) * inv)
    return tot


def _rdp_formula(c, q, s, alpha: int):
    return c.log(_A_formula(c, q, s, alpha)) / (alpha - 1)


_q = Param("q", QDOM, default="0.01", doc="Poisson sampling rate q in (0, 1]")
_sigma = Param("sigma", P, default="1.1", doc="noise multiplier sigma > 0 (L2 sensitivity 1)")
_alpha = Param("alpha", ADOM, kind="integer", default="8", doc=f"integer Renyi order 2 <= alpha <= {MAX_ORDER * 4}")
_k = Param("k", KDOM, kind="integer", default="1000", doc="number of composed steps, 1 <= k <= 10^9")


@register("mironov2019_sec3_3_rdp", paper="mironov2019", result="Section 3.3 (integer orders, binomial expansion)",
          direction="upper", summary="RDP eps(alpha) = log(sum_j C(alpha,j)(1-q)^(alpha-j) q^j e^((j^2-j)/(2 sigma^2)))/(alpha-1) of the SGM, rounded up",
          params=(_q, _sigma, _alpha), provenance="published statement",
          note="Mironov, Talwar, Zhang 2019 (arXiv 1908.10530 v1), Section 3.3: the sampled Gaussian mechanism at integer "
               "alpha; all terms positive, summed in interval arithmetic.")
def sgm_rdp(q, sigma, alpha, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """mironov2019 Section 3.3: Renyi DP of the Poisson-subsampled Gaussian mechanism at an integer order, rounded up.

    Preconditions: 0 < q <= 1, sigma > 0, integer 2 <= alpha <= 1024.  Rounding: up (certified).
    q = 1 gives the Gaussian curve alpha/(2 sigma^2) (mironov2017 Prop. 7).

    >>> from reference.precision import directed_decimal
    >>> directed_decimal(sgm_rdp(1, 1, 2, dps=20), 8, "upper")
    '1'
    """
    dps = check_dps(dps)
    qq = check("q", q, QDOM)
    s = check("sigma", sigma, P)
    a = int(check("alpha", alpha, ADOM))
    return certified(lambda c, x, y: _rdp_formula(c, x, y, a), (qq, s), "upper", dps)


def sgm_rdp_float(q: float, sigma: float, alpha: int) -> float:
    """A float estimate of :func:`sgm_rdp` (log-sum-exp); used only to choose orders."""
    lq, l1q = math.log(q), (math.log1p(-q) if q < 1 else -math.inf)
    terms = []
    for j in range(alpha + 1):
        t = math.lgamma(alpha + 1) - math.lgamma(j + 1) - math.lgamma(alpha - j + 1) + j * lq
        if alpha - j:
            if l1q == -math.inf:
                continue
            t += (alpha - j) * l1q
        t += (j * j - j) / (2 * sigma * sigma)
        terms.append(t)
    m = max(terms)
    return (m + math.log(sum(math.exp(t - m) for t in terms))) / (alpha - 1)


def _parse(q, sigma, k):
    return check("q", q, QDOM), check("sigma", sigma, P), int(check("k", k, KDOM))


def _curves(steps):
    """(certified composed curve, float composed curve) for steps = [(q, sigma, k), ...]."""
    @lru_cache(maxsize=None)
    def up(a, dps):
        return certified(lambda c, *args: sum(kk * _rdp_formula(c, args[2 * i], args[2 * i + 1], a)
                                              for i, (_, _, kk) in enumerate(steps)),
                         tuple(x for (qq, s, _) in steps for x in (qq, s)), "upper", dps)

    def fl(a):
        return sum(kk * sgm_rdp_float(float(qq), float(s), a) for qq, s, kk in steps)

    return up, fl


_delta = Param("delta", U, default="1e-5", doc="target delta in (0, 1)")
_eps = Param("eps", NN, default="1", doc="target epsilon >= 0")
_CONV = ("MTZ19 Section 3.3 curve at the integer orders 2..64, 72, ..., 256, composed k-fold (Mironov 2017 Prop. 1), "
         "converted by balle2020hyp Theorem 21 / canonne2020 Proposition 12 at the best of these orders (certified there).")


@register("mironov2019_sec3_3_opt_eps", paper="mironov2019", result="Section 3.3 + improved conversion (best integer order)",
          direction="upper", summary="eps(delta) of k-fold Poisson-subsampled Gaussian from its integer-order RDP, improved conversion",
          params=(_q, _sigma, _k, _delta), provenance="derived", note=_CONV)
def sgm_eps(q, sigma, k, delta, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """mironov2019 Section 3.3 + canonne2020 Proposition 12: an upper bound on eps(delta) of k-fold Poisson-subsampled Gaussian (rounded up).

    Preconditions: 0 < q <= 1, sigma > 0, 1 <= k <= 10^9, 0 < delta < 1.  Rounding: up; valid at
    every order, the order is optimised over :data:`ORDERS`.
    """
    dps = check_dps(dps)
    qq, s, kk = _parse(q, sigma, k)
    d = check("delta", delta, U)
    up, fl = _curves(((qq, s, kk),))
    return integer_order_eps(up, fl, d, ORDERS, dps=dps)[0]


@register("mironov2019_sec3_3_opt_delta", paper="mironov2019", result="Section 3.3 + CKS Proposition 12 (best integer order)",
          direction="upper", summary="delta(eps) of k-fold Poisson-subsampled Gaussian from its integer-order RDP (CKS conversion)",
          params=(_q, _sigma, _k, _eps), provenance="derived", note=_CONV)
def sgm_delta(q, sigma, k, eps, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """mironov2019 Section 3.3 + canonne2020 Proposition 12: an upper bound on delta(eps) of k-fold Poisson-subsampled Gaussian (rounded up, at most 1)."""
    dps = check_dps(dps)
    qq, s, kk = _parse(q, sigma, k)
    e = check("eps", eps, NN)
    up, fl = _curves(((qq, s, kk),))
    return integer_order_delta(up, fl, e, ORDERS, dps=dps)[0]


# ---------------------------------------------------------------------------
# Lower end: a post-processed (thresholded) composition, exactly
# ---------------------------------------------------------------------------

def _float_binary_delta(p1: float, p0: float, k: int, eps: float) -> float:
    """Float hockey-stick of Bin(k,p1) vs Bin(k,p0) at eps (to choose the threshold only)."""
    if not (0 < p0 < p1 < 1):
        return 0.0
    lr1, lr0 = math.log(p1 / p0), math.log((1 - p1) / (1 - p0))
    # terms positive for j > j*: j lr1 + (k-j) lr0 > eps
    jstar = (eps - k * lr0) / (lr1 - lr0)
    j0 = max(0, math.floor(jstar) + 1)
    tot = 0.0
    lc = math.lgamma(k + 1)
    mode = max(j0, int(k * p1))
    for j in range(j0, k + 1):
        l1 = lc - math.lgamma(j + 1) - math.lgamma(k - j + 1) + j * math.log(p1) + (k - j) * math.log1p(-p1)
        l0 = l1 - j * lr1 - (k - j) * lr0
        t = math.exp(l1) - math.exp(eps + l0)
        tot += max(t, 0.0)
        if j > mode and t < tot * 1e-18:
            break
    return tot


def _p_float(q, s, tau):
    from math import erfc, sqrt
    phi = lambda x: 0.5 * erfc(-x / sqrt(2))  # noqa: E731
    return (1 - q) * phi(-tau / s) + q * phi((1 - tau) / s), phi(-tau / s)


def _best_tau(q: float, s: float, k: int, eps: float) -> Fraction:
    best, arg = -1.0, 0.5
    for i in range(-10, 31):
        tau = 0.5 + i * 0.5 * s
        p1, p0 = _p_float(q, s, tau)
        v = _float_binary_delta(p1, p0, k, eps)
        if v > best:
            best, arg = v, tau
    # refine
    h = 0.25 * s
    for _ in range(12):
        for t in (arg - h, arg + h):
            p1, p0 = _p_float(q, s, t)
            v = _float_binary_delta(p1, p0, k, eps)
            if v > best:
                best, arg = v, t
        h /= 2
    return Fraction(arg).limit_denominator(1 << 20)


def _binary_window(q: float, s: float, k: int, eps: float, tau: float) -> tuple[int, int]:
    p1, p0 = _p_float(q, s, tau)
    if not (0 < p0 < p1 < 1):
        return (k + 1, k)
    lr1, lr0 = math.log(p1 / p0), math.log((1 - p1) / (1 - p0))
    j0 = max(0, math.floor((eps - k * lr0) / (lr1 - lr0)) + 1)
    lc = math.lgamma(k + 1)
    logs = []
    j1 = j0
    peak = -math.inf
    for j in range(j0, k + 1):
        l1 = lc - math.lgamma(j + 1) - math.lgamma(k - j + 1) + j * math.log(p1) + (k - j) * math.log1p(-p1)
        peak = max(peak, l1)
        j1 = j
        if l1 < peak - 60 and j > k * p1:
            break
        logs.append(l1)
    return j0, j1


def sgm_delta_lower_binary(q, sigma, k, eps, *, dps: int = 20) -> tuple[mpmath.mpf, Fraction]:
    """A certified lower bound on delta(eps) of k-fold Poisson-subsampled Gaussian, and the threshold used.

    Value: sum over j in a window of max(0, Bin(k,p1)(j) - e^eps Bin(k,p0)(j)), p1, p0 the
    probabilities that one (add/remove) step's output exceeds tau (module docstring), enclosed
    in interval arithmetic and rounded down; terms outside the window are dropped (all are >= 0).
    """
    qq, s, kk = _parse(q, sigma, k)
    e = check("eps", eps, NN)
    tau = _best_tau(float(qq), float(s), kk, float(e))
    j0, j1 = _binary_window(float(qq), float(s), kk, float(e), float(tau))
    if j0 > j1:
        return mpmath.mpf(0), tau

    def formula(c, qv, sv, tv, ev):
        p0 = phi_iv(c, -tv / sv)
        p1 = (1 - qv) * p0 + qv * phi_iv(c, (1 - tv) / sv)
        lp1, lq1, lp0, lq0 = c.log(p1), c.log(1 - p1), c.log(p0), c.log(1 - p0)
        tot = c.mpf(0)
        for j in range(j0, j1 + 1):
            lc = c.log(math.comb(kk, j)) if kk <= 5000 else (c.loggamma(kk + 1) - c.loggamma(j + 1) - c.loggamma(kk - j + 1))
            t = c.exp(lc + j * lp1 + (kk - j) * lq1) - c.exp(ev + lc + j * lp0 + (kk - j) * lq0)
            if t.a > 0:
                tot += t
            elif t.b > 0:
                tot += c.mpf([0, t.b])
        return tot

    v = certified(formula, (qq, s, tau, e), "lower", dps)
    return max(v, mpmath.mpf(0)), tau



def sgm_delta_bracket(q, sigma, k, eps, *, dps: int = DEFAULT_DPS) -> Bracket:
    """Certified bracket of delta(eps) of k-fold Poisson-subsampled Gaussian (module docstring); ``exact`` False."""
    dps = check_dps(dps)
    qq, s, kk = _parse(q, sigma, k)
    e = check("eps", eps, NN)
    hi = sgm_delta(qq, s, kk, e, dps=dps)
    lo, tau = sgm_delta_lower_binary(qq, s, kk, e, dps=min(dps, 30))
    return Bracket("delta", min(lo, hi), hi, False, "bracket", lo_source=SOURCE_LO + f" (tau = {float(tau):.6g})",
                   hi_source=SOURCE_UP)


def sgm_eps_bracket(q, sigma, k, delta, *, dps: int = DEFAULT_DPS) -> Bracket:
    """Certified bracket of eps(delta) of k-fold Poisson-subsampled Gaussian; ``exact`` False.

    Upper end: :func:`sgm_eps`.  Lower end: the largest eps on a float grid below the upper end
    whose certified binary lower bound on delta(eps) exceeds delta (then eps(delta) > that eps).
    """
    dps = check_dps(dps)
    qq, s, kk = _parse(q, sigma, k)
    d = check("delta", delta, U)
    hi = sgm_eps(qq, s, kk, d, dps=dps)
    fh = float(hi)
    # float search for the largest eps with binary delta(eps) > delta, then certify it
    lo_f, hi_f = 0.0, fh

    tau_box = [_best_tau(float(qq), float(s), kk, 0.7 * fh)]

    def fdelta(x):
        p1, p0 = _p_float(float(qq), float(s), float(tau_box[0]))
        return _float_binary_delta(p1, p0, kk, x)

    if fdelta(0.0) <= float(d) * 1.001:
        return Bracket("eps", mpmath.mpf(0), hi, False, "bracket", lo_source="0 (trivial)", hi_source=SOURCE_UP)
    for rnd in range(2):
        lo_f, hi_f = 0.0, fh
        for _ in range(30):
            mid = (lo_f + hi_f) / 2
            if fdelta(mid) > float(d):
                lo_f = mid
            else:
                hi_f = mid
        if rnd == 0:
            tau_box[0] = _best_tau(float(qq), float(s), kk, lo_f)
    cand = Fraction(lo_f * (1 - 1e-6)).limit_denominator(10 ** 12)
    for _ in range(8):
        v, _tau = sgm_delta_lower_binary(qq, s, kk, cand, dps=20)
        if mpf_to_fraction(v) > d:
            return Bracket("eps", round_down(cand, dps), hi, False, "bracket",
                           lo_source=SOURCE_LO, hi_source=SOURCE_UP)
        cand = cand * Fraction(9, 10)
    return Bracket("eps", mpmath.mpf(0), hi, False, "bracket", lo_source="0 (trivial)", hi_source=SOURCE_UP)


