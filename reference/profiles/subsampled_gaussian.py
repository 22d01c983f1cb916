"""The Poisson-subsampled Gaussian mechanism: exact Renyi DP at integer orders, and a certified (eps, delta) bracket of its k-fold composition.

Source: Mironov, Talwar, Zhang, *Renyi Differential Privacy of the Sampled Gaussian Mechanism*
(arXiv 1908.10530, v1), Section 3.3 (integer orders): with sampling rate q, noise multiplier sigma
(sensitivity 1) and integer alpha >= 2, the SGM is (alpha, eps(alpha))-RDP with::

    eps(alpha) = log(A_alpha)/(alpha - 1),
    A_alpha = sum_{j=0}^{alpha} C(alpha, j) (1 - q)^{alpha - j} q^j exp((j^2 - j)/(2 sigma^2))     (binomial expansion)

(A_alpha = E_{z ~ mu0}[(mu(z)/mu0(z))^alpha] with mu0 = N(0, sigma^2), mu = (1-q) mu0 + q N(1, sigma^2);
MTZ19 show this direction dominates for the add/remove relation).  Every term is positive, so
the interval sum is tight; composition adds the curves (Mironov 2017, Proposition 1).

k-fold composition, eps(delta) and delta(eps):

* upper end: the improved RDP -> DP conversion (balle2020hyp Theorem 21 = canonne2020
  Proposition 12) minimised over the integer orders 2 .. ``MAX_ORDER`` (certified at the chosen
  order; the choice affects tightness only), or, where smaller, the same conversion at a
  *rational* order near the continuous optimum (:func:`sgm_eps_continuous`,
  :func:`sgm_delta_continuous`), with eps(alpha) at real alpha > 1 certified by
  :func:`sgm_rdp_continuous`: A_alpha as the integral above, enclosed by Arb's rigorous quadrature
  (python-flint) with closed-form tail bounds, since MTZ19's fractional-order series converges only
  polynomially and has no stated remainder bound (dp-accounting sums its terms' absolute values,
  an upper bound that exceeds the integral by up to ~10% at small fractional orders, e.g. 0.0087331
  against 0.0079574 for log A_2.5 at q = 0.256, sigma = 4);
* lower end: the exact composition of a *post-processed* step (derived): thresholding each
  output at tau gives Bern(p1) vs Bern(p0), p1 = (1-q) Phi(-tau/sigma) + q Phi((1-tau)/sigma),
  p0 = Phi(-tau/sigma); by the data-processing inequality the hockey-stick divergence of
  Bin(k, p1) vs Bin(k, p0) is a lower bound on the true delta(eps).  Its terms are summed in
  interval arithmetic (dropping terms only lowers a lower bound); tau is chosen by a float scan.

The bracket is honest, not tight: the true value lies between the two ends (``exact`` False).
"""
from __future__ import annotations

import math
import threading
from contextlib import contextmanager
from fractions import Fraction
from functools import lru_cache

import flint
import mpmath
from flint import acb, arb, fmpq
from mpmath import libmp

from ..bounds.dong2022 import phi_iv
from ..catalog import Param, register
from ..precision import (DEFAULT_DPS, MAX_PREC_BITS, Certified, Domain, Enclosure, _target_bits, certified, check,
                         check_dps, mpf_to_fraction)
from .conversions import (Bracket, continuous_order_delta, continuous_order_eps, integer_order_delta,
                          integer_order_eps, round_down, round_up)

__all__ = ["MAX_ORDER", "K_MAX", "sgm_rdp", "sgm_rdp_float", "sgm_eps", "sgm_delta", "sgm_eps_bracket",
           "sgm_delta_bracket", "sgm_delta_lower_binary", "sgm_rdp_continuous", "sgm_rdp_continuous_enclosure",
           "sgm_rdp_continuous_model", "sgm_eps_continuous", "sgm_delta_continuous", "ORDER_GRID"]

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
SOURCE_NO_LOWER = "0 (trivial: the binary lower end was not requested)"
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
    >>> directed_decimal(sgm_rdp(1, 1, 2, dps=20), 8, "upper")  # the exact value 1, enclosed and rounded up
    '1.0000001'
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
    every order, the order is optimised over ``ORDERS``.
    """
    dps = check_dps(dps)
    qq, s, kk = _parse(q, sigma, k)
    d = check("delta", delta, U)
    return _int_eps(qq, s, kk, d, dps)[0]


def _int_eps(qq: Fraction, s: Fraction, kk: int, d: Fraction, dps: int) -> tuple[mpmath.mpf, int]:
    """(:func:`sgm_eps`, the integer order it used) for parsed inputs."""
    up, fl = _curves(((qq, s, kk),))
    return integer_order_eps(up, fl, d, ORDERS, dps=dps)


@register("mironov2019_sec3_3_opt_delta", paper="mironov2019", result="Section 3.3 + CKS Proposition 12 (best integer order)",
          direction="upper", summary="delta(eps) of k-fold Poisson-subsampled Gaussian from its integer-order RDP (CKS conversion)",
          params=(_q, _sigma, _k, _eps), provenance="derived", note=_CONV)
def sgm_delta(q, sigma, k, eps, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """mironov2019 Section 3.3 + canonne2020 Proposition 12: an upper bound on delta(eps) of k-fold Poisson-subsampled Gaussian (rounded up, at most 1)."""
    dps = check_dps(dps)
    qq, s, kk = _parse(q, sigma, k)
    e = check("eps", eps, NN)
    return _int_delta(qq, s, kk, e, dps)[0]


def _int_delta(qq: Fraction, s: Fraction, kk: int, e: Fraction, dps: int) -> tuple[mpmath.mpf, int]:
    """(:func:`sgm_delta`, the integer order it used) for parsed inputs."""
    up, fl = _curves(((qq, s, kk),))
    return integer_order_delta(up, fl, e, ORDERS, dps=dps)


# ---------------------------------------------------------------------------
# Continuous orders: A_alpha at a rational alpha > 1 by certified Arb quadrature
# ---------------------------------------------------------------------------

#: Orders of the continuous search are the rationals n / ORDER_GRID.
ORDER_GRID = 1024
ALPHA_CONT = Domain(lo=Fraction(1), hi=Fraction(MAX_ORDER * 4), lo_closed=False, hi_closed=True)
_LN2 = 0.6931471805599453  # a double literal: the cut-offs below are chosen with IEEE +, *, sqrt only (same everywhere)
_MODEL_PREC, _MODEL_GOAL = 64, 40
_FLINT_LOCK = threading.RLock()  # python-flint's working precision is process-global state
SOURCE_UP_CONT = ("mironov2019 Sec. 3.3 (RDP of the SGM at the rational order alpha = {alpha}: A_alpha = E_mu0[(mu/mu0)^alpha] "
                  "enclosed by Arb quadrature with bounded tails) + balle2020hyp Thm 21 (improved conversion, continuous order)")
SOURCE_UP_CONT_DELTA = ("mironov2019 Sec. 3.3 (RDP of the SGM at the rational order alpha = {alpha}: A_alpha = E_mu0[(mu/mu0)^alpha] "
                        "enclosed by Arb quadrature with bounded tails) + canonne2020 Prop. 12 (continuous order)")


@contextmanager
def _flint_prec(prec: int):
    """python-flint at ``prec`` bits for the block, restored afterwards (serialised by a lock)."""
    with _FLINT_LOCK:
        old = flint.ctx.prec
        flint.ctx.prec = prec
        try:
            yield
        finally:
            flint.ctx.prec = old


def _arbq(x: Fraction) -> arb:
    """A ball containing the rational ``x`` (at the current precision)."""
    return arb(fmpq(x.numerator, x.denominator))


def _Phi(x: arb) -> arb:
    """Standard normal cdf, Phi(x) = erfc(-x/sqrt 2)/2, as a ball."""
    return (-x / arb(2).sqrt()).erfc() / 2


def _raw(x: arb) -> tuple:
    """The exact libmp value of an exact ball (an end point from ``lower()``/``upper()``)."""
    man, exp = x.man_exp()
    return libmp.from_man_exp(int(man), int(exp))


class _Setup:
    """The quantities of A_alpha's integral at the current flint precision (see :func:`_log_a_ball`)."""

    def __init__(self, q: Fraction, s: Fraction, a: Fraction):
        self.q, self.s, self.a = q, s, a
        self.qa, self.sa, self.aa = _arbq(q), _arbq(s), _arbq(a)
        self.h = 1 / (2 * self.sa * self.sa)              # 1/(2 sigma^2)
        self.top = (self.aa * self.aa - self.aa) * self.h  # log E_mu0[e^(alpha w)] = (alpha^2 - alpha)/(2 sigma^2)
        self.etop = self.top.exp()

    def left_tail(self, lo: Fraction) -> arb:
        """Upper bound on int_{-inf}^{lo} phi_sigma(z) r(z)^alpha dz (r = mu/mu0): Jensen, and r <= 1 below 1/2."""
        lob = _arbq(lo)
        jensen = (1 - self.qa) * _Phi(lob / self.sa) + self.qa * self.etop * _Phi((lob - self.aa) / self.sa)
        return jensen.min(_Phi(lob / self.sa)) if lo <= Fraction(1, 2) else jensen

    def right_tail(self, hi: Fraction) -> arb:
        """Upper bound on int_{hi}^{inf} phi_sigma(z) r(z)^alpha dz for hi >= 1/2: Jensen, and r <= rho e^w there."""
        hib = _arbq(hi)
        up = _Phi((self.aa - hib) / self.sa)
        jensen = (1 - self.qa) * _Phi(-hib / self.sa) + self.qa * self.etop * up
        rho = (1 - self.qa) * (-(2 * hib - 1) * self.h).exp() + self.qa
        return jensen.min((self.aa * rho.log() + self.top).exp() * up)


def _k0(st: _Setup) -> int:
    """An integer <= about log A_alpha: A_alpha >= max(1, q^alpha e^((alpha^2-alpha)/(2 sigma^2))) (scale only)."""
    v = float((st.aa * st.qa.log() + st.top).mid())
    return max(0, math.floor(v)) if math.isfinite(v) else 0


def _log_a_ball(st: _Setup, goal: int, K: int) -> arb:
    """A ball containing log A_alpha (0 < q < 1), computed at the current flint precision.

    A_alpha = (J e^K) / (sigma sqrt(2 pi)), J = int f, f(z) = exp(alpha log r(z) - z^2/(2 sigma^2) - K),
    r(z) = (1-q) + q exp((2z - 1)/(2 sigma^2)) = mu(z)/mu0(z).  J over [lo, hi] is enclosed by
    ``acb.integral`` (Petras' Gauss-Legendre with rigorous error bounds, Arb; f is entire except
    where r vanishes, and the logarithm is evaluated with ``analytic=True`` so that a ball touching
    its branch cut is refused and subdivided); the two tails are bounded above by
    :meth:`_Setup.left_tail` / :meth:`_Setup.right_tail` and below by 0 (the integrand is positive),
    so the ball for J is [J_lo, J_hi + tails].  ``goal`` and ``K`` only steer the work (error goal
    sigma 2^-goal on J, and the scale e^K): the enclosure is valid for every choice.
    """
    q, s, a = st.q, st.s, st.a
    qa, sa, aa, h = st.qa, st.sa, st.aa, st.h
    root = (2 * arb.pi()).sqrt()
    budget = (arb(K) - goal * arb.const_log2()).exp() / root  # each tail of int phi r^alpha below this
    sf, af, topf = float(s), float(a), float(st.top.mid())
    t_l = math.sqrt(2 * goal * _LN2 + 1) + 1
    t_r = math.sqrt(2 * (goal * _LN2 + max(0.0, topf - K)) + 1) + 1
    lo0 = Fraction(-math.ceil(sf * t_l * 16), 16)
    hi0 = max(a, Fraction(1, 2)) + Fraction(math.ceil(sf * t_r * 16), 16)
    for _ in range(64):  # the safe cuts, widened until their certified tail bounds meet the budget
        if st.left_tail(lo0) <= budget:
            break
        lo0 -= Fraction(math.ceil(sf * 16), 16)
    for _ in range(64):
        if st.right_tail(hi0) <= budget:
            break
        hi0 += Fraction(math.ceil(sf * 16), 16)
    # tighter cuts on a grid of [lo0, hi0] (the mass may sit far from both ends): the largest lo and
    # smallest hi >= 1/2 whose tail bounds still meet the budget (both bounds are monotone)
    grid = [lo0 + (hi0 - lo0) * i / 64 for i in range(65)]
    i0, i1 = 0, 64
    while i1 - i0 > 1:
        m = (i0 + i1) // 2
        if st.left_tail(grid[m]) <= budget:
            i0 = m
        else:
            i1 = m
    lo = grid[i0]
    j0 = next(j for j in range(65) if grid[j] >= max(lo, Fraction(1, 2))) if hi0 > max(lo, Fraction(1, 2)) else 64
    j1 = 64
    while j1 - j0 > 1:
        m = (j0 + j1) // 2
        if st.right_tail(grid[m]) <= budget:
            j1 = m
        else:
            j0 = m
    hi = grid[j1]
    if not hi > lo:
        lo, hi = lo0, hi0
    tails = (st.left_tail(lo) + st.right_tail(hi)) * sa * root * arb(-K).exp()

    one_q, cq, ca, ch, cK = acb(1 - qa), acb(qa), acb(aa), acb(h), acb(K)

    def f(z, analytic):
        r = one_q + cq * ((2 * z - 1) * ch).exp()
        return (ca * r.log(analytic=analytic) - z * z * ch - cK).exp()

    tol = arb(2) ** (-goal)
    J = acb.integral(f, _arbq(lo), _arbq(hi), abs_tol=sa * tol, rel_tol=tol).real
    J = J.union(J + tails)
    return J.log() + K - (sa * root).log()


@lru_cache(maxsize=4096)
def _model(q: Fraction, s: Fraction, a: Fraction) -> float:
    """log A_alpha to about 10 digits (a deterministic 64-bit Arb evaluation; used to choose orders and scales)."""
    with _flint_prec(_MODEL_PREC):
        st = _Setup(q, s, a)
        if q == 1:
            return float(st.top.mid())
        # scale of log A near alpha = 1 or q = 0: its leading term C(alpha, 2) q^2 (e^(1/sigma^2) - 1)
        lead = float((st.aa * (st.aa - 1) / 2 * st.qa * st.qa * (2 * st.h).expm1()).mid())
        extra = max(0, math.ceil(-math.log2(lead))) if 0 < lead < 1 else 0
        for prec in (_MODEL_PREC, 2 * _MODEL_PREC):
            flint.ctx.prec = prec + extra
            L = _log_a_ball(_Setup(q, s, a), _MODEL_GOAL + extra, _k0(st))
            if L.is_finite():
                return float(L.mid())
    return math.inf


def _log_a_enclosure(q: Fraction, s: Fraction, a: Fraction, bits: int) -> tuple[tuple, tuple, int]:
    """(lo, hi, prec): exact libmp ends of an enclosure of eps(alpha) = log(A_alpha)/(alpha-1), aiming at ``bits + 8`` bits tight.

    The error goal and working precision start from the model's log A (a tiny log A needs an
    absolute goal below it) and are raised until the relative width is met (at most four times;
    every enclosure found is valid, only its width depends on them)."""
    L0 = _model(q, s, a)
    K = max(0, math.floor(L0)) if math.isfinite(L0) else None
    small = L0 if math.isfinite(L0) and L0 > 0 else 2.0 ** -64
    goal = bits + 16 + max(0, math.ceil(-math.log2(small)))
    prec = goal + 32 + (abs(K or 0) + 1).bit_length()
    best = None
    for _ in range(5):  # tightness only: after four doublings the (valid) enclosure found is returned as it is
        with _flint_prec(prec):
            st = _Setup(q, s, a)
            if q == 1:
                e = st.top / (st.aa - 1)
            else:
                e = _log_a_ball(st, goal, _k0(st) if K is None else K) / (st.aa - 1)
            if e.is_finite():
                lo = e.lower()
                best = (libmp.fzero if lo < 0 else _raw(lo), _raw(e.upper()), prec)  # A_alpha >= 1: eps >= 0
                if e.rel_accuracy_bits() >= bits + 8 or prec >= MAX_PREC_BITS:
                    return best
                m = float(e.mid()) * float(a - 1)
                if m > 0:
                    goal = max(goal, bits + 16 + max(0, math.ceil(-math.log2(m))))
        goal += 16
        prec = min(max(2 * prec, goal + 40), MAX_PREC_BITS)
    if best is None:
        raise ArithmeticError(f"could not enclose A_alpha of the subsampled Gaussian at q={q}, sigma={s}, alpha={a}")
    return best


def sgm_rdp_continuous_enclosure(q, sigma, alpha, *, dps: int = DEFAULT_DPS) -> Enclosure:
    """A certified enclosure ``lo <= eps(alpha) <= hi`` of the SGM's Renyi DP at a rational order alpha > 1 (see :func:`sgm_rdp_continuous`)."""
    dps = check_dps(dps)
    qq = check("q", q, QDOM)
    s = check("sigma", sigma, P)
    a = check("alpha", alpha, ALPHA_CONT)
    bits = _target_bits(dps)
    lo, hi, prec = _log_a_enclosure(qq, s, a, bits)
    return Enclosure(mpmath.mp.make_mpf(libmp.mpf_pos(lo, bits, "f")), mpmath.mp.make_mpf(libmp.mpf_pos(hi, bits, "c")), prec)


def sgm_rdp_continuous(q, sigma, alpha, *, dps: int = DEFAULT_DPS) -> mpmath.mpf:
    """mironov2019 Section 3.3 at a real order: Renyi DP eps(alpha) of the Poisson-subsampled Gaussian at a rational alpha > 1, rounded up.

    Contract: returns a value >= eps(alpha) = log(A_alpha)/(alpha - 1), A_alpha = E_{z~mu0}[(mu(z)/mu0(z))^alpha],
    mu0 = N(0, sigma^2), mu = (1-q) N(0, sigma^2) + q N(1, sigma^2) (Mironov, Talwar, Zhang, arXiv 1908.10530 v1,
    Section 3.3, the quantity their fractional-order series computes; dp-accounting's
    ``_compute_log_a_frac`` sums that series in floats and stops at a relative e^-30).  At an integer
    alpha it is the binomial formula of :func:`sgm_rdp` (tests/test_sgm_rdp_continuous.py checks that
    the enclosures agree).

    Preconditions: 0 < q <= 1, sigma > 0, rational 1 < alpha <= 1024 (any exact input; a float is
    its binary value).  q = 1 gives the Gaussian curve alpha/(2 sigma^2) (mironov2017 Prop. 7).

    Method (deviation from the printed series, which converges only polynomially at fractional
    alpha and has no stated remainder bound): the integral itself, by Arb's rigorous
    Gauss-Legendre quadrature (``flint.acb.integral``, python-flint) on [lo, hi], with the tails
    outside bounded by closed forms: r^alpha <= (1-q) + q e^(alpha w) (Jensen, x^alpha convex),
    r <= 1 for z <= 1/2, and r <= ((1-q) e^(-w(hi)) + q) e^w for z >= hi, each integrated against
    phi_sigma exactly (Gaussian cdfs).  Working precision and error goal are raised until the
    enclosure of eps(alpha) is ``dps`` digits (plus 8 bits) tight.

    Rounding: up (the right end of the enclosure, rounded up once to ``dps`` digits' worth of bits).
    Guarantee: interval-certified (Arb ball arithmetic; every parameter that steers the work is
    derived from Arb balls and IEEE ``+``, ``*``, ``sqrt``, never from libm, so the value is the same on every
    machine with the same python-flint).  Typical cost 3-30 ms at dps = 50 for alpha <= 128.

    >>> from reference.precision import directed_decimal
    >>> directed_decimal(sgm_rdp_continuous("0.01", "1.1", "3/2", dps=20), 12, "upper")
    '0.0000955452857188'
    """
    dps = check_dps(dps)
    qq = check("q", q, QDOM)
    s = check("sigma", sigma, P)
    a = check("alpha", alpha, ALPHA_CONT)
    bits = _target_bits(dps)
    _, hi, _ = _log_a_enclosure(qq, s, a, bits)
    raw = libmp.mpf_pos(hi, bits, "c")
    return Certified._make(raw, raw, raw, None)


def sgm_rdp_continuous_model(q, sigma, alpha) -> float:
    """A float estimate (about 10 digits) of :func:`sgm_rdp_continuous`, deterministic; used only to choose orders."""
    qq, s, a = check("q", q, QDOM), check("sigma", sigma, P), check("alpha", alpha, ALPHA_CONT)
    L = _model(qq, s, a)
    return L / float(a - 1) if math.isfinite(L) else math.inf


def _cont_curves(qq: Fraction, s: Fraction, kk: int):
    """(certified composed curve at a rational order, its float model) of k-fold SGM."""
    def up(alpha: Fraction, dps: int) -> mpmath.mpf:
        _, hi, _ = _log_a_enclosure(qq, s, alpha, _target_bits(dps))
        return round_up(kk * mpf_to_fraction(mpmath.mp.make_mpf(hi)), dps)

    def fl(alpha: Fraction) -> float:
        L = _model(qq, s, alpha)
        return kk * L / float(alpha - 1) if math.isfinite(L) else math.inf

    return up, fl


def _search_range(order: int) -> tuple[Fraction, Fraction]:
    """The orders between the neighbours of the best integer order in ``ORDERS`` (below 2: down to 1)."""
    i = ORDERS.index(order)
    lo = Fraction(ORDERS[i - 1]) if i > 0 else Fraction(ORDER_GRID + 1, ORDER_GRID)
    hi = Fraction(ORDERS[i + 1]) if i + 1 < len(ORDERS) else Fraction(order)
    return lo, hi


def sgm_eps_continuous(q, sigma, k, delta, *, dps: int = DEFAULT_DPS) -> tuple[mpmath.mpf, Fraction]:
    """mironov2019 Section 3.3 at a real order + balle2020hyp Theorem 21: an upper bound on eps(delta) of k-fold SGM, and the order used.

    Contract: k-fold Poisson-subsampled Gaussian is (returned eps, delta)-DP.  The order is a
    rational n/1024 found by a deterministic golden-section search on the 64-bit model of the
    composed curve (:func:`sgm_rdp_continuous_model`) between the neighbours of the best integer
    order; the value is Theorem 21 at that order with the certified curve k * :func:`sgm_rdp_continuous`
    (composition: Mironov 2017, Prop. 1).  The order affects tightness only, never validity.
    Preconditions: as :func:`sgm_eps`.  Rounding: up.
    """
    dps = check_dps(dps)
    qq, s, kk = _parse(q, sigma, k)
    d = check("delta", delta, U)
    return _cont_eps(qq, s, kk, d, dps, _int_eps(qq, s, kk, d, dps)[1])


def _cont_eps(qq: Fraction, s: Fraction, kk: int, d: Fraction, dps: int, order: int) -> tuple[mpmath.mpf, Fraction]:
    up, fl = _cont_curves(qq, s, kk)
    return continuous_order_eps(up, fl, d, *_search_range(order), dps=dps, grid=ORDER_GRID)


def sgm_delta_continuous(q, sigma, k, eps, *, dps: int = DEFAULT_DPS) -> tuple[mpmath.mpf, Fraction]:
    """mironov2019 Section 3.3 at a real order + canonne2020 Proposition 12: an upper bound on delta(eps) of k-fold SGM (at most 1), and the order used.

    As :func:`sgm_eps_continuous`, for delta(eps).
    """
    dps = check_dps(dps)
    qq, s, kk = _parse(q, sigma, k)
    e = check("eps", eps, NN)
    return _cont_delta(qq, s, kk, e, dps, _int_delta(qq, s, kk, e, dps)[1])


def _cont_delta(qq: Fraction, s: Fraction, kk: int, e: Fraction, dps: int, order: int) -> tuple[mpmath.mpf, Fraction]:
    up, fl = _cont_curves(qq, s, kk)
    return continuous_order_delta(up, fl, e, *_search_range(order), dps=dps, grid=ORDER_GRID)


def _upper_eps(qq, s, kk, d, dps, hi_int, order) -> tuple[mpmath.mpf, str]:
    """min(integer-order, continuous-order) upper bound on eps(delta) and the source of the one used."""
    try:
        hc, alpha = _cont_eps(qq, s, kk, d, dps, order)
    except ArithmeticError:  # no enclosure of A_alpha (not seen in the tested range): the integer orders stand
        return hi_int, SOURCE_UP
    return (hc, SOURCE_UP_CONT.format(alpha=alpha)) if hc < hi_int else (hi_int, SOURCE_UP)


def _upper_delta(qq, s, kk, e, dps) -> tuple[mpmath.mpf, str]:
    """min(integer-order, continuous-order) upper bound on delta(eps) and the source of the one used."""
    hi_int, order = _int_delta(qq, s, kk, e, dps)
    try:
        hc, alpha = _cont_delta(qq, s, kk, e, dps, order)
    except ArithmeticError:
        return hi_int, SOURCE_UP
    return (hc, SOURCE_UP_CONT_DELTA.format(alpha=alpha)) if hc < hi_int else (hi_int, SOURCE_UP)


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
        # past the mode the P-masses fall; once exp(l1) underflows to 0.0 every later term adds exactly 0.0 (without
        # this stop an all-zero sum, tot = 0, ran to j = k: a million terms at k = 1e6, q = 1e-9)
        if j > mode and (t < tot * 1e-18 and tot > 0 or l1 < -746):
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



def sgm_delta_bracket(q, sigma, k, eps, *, dps: int = DEFAULT_DPS, lower: bool = True) -> Bracket:
    """Certified bracket of delta(eps) of k-fold Poisson-subsampled Gaussian (module docstring); ``exact`` False."""
    dps = check_dps(dps)
    qq, s, kk = _parse(q, sigma, k)
    e = check("eps", eps, NN)
    hi, hi_source = _upper_delta(qq, s, kk, e, dps)
    if not lower:
        return Bracket("delta", mpmath.mpf(0), hi, False, "bracket", lo_source=SOURCE_NO_LOWER, hi_source=hi_source)
    lo, tau = sgm_delta_lower_binary(qq, s, kk, e, dps=min(dps, 30))
    return Bracket("delta", min(lo, hi), hi, False, "bracket", lo_source=SOURCE_LO + f" (tau = {float(tau):.6g})",
                   hi_source=hi_source)


def sgm_eps_bracket(q, sigma, k, delta, *, dps: int = DEFAULT_DPS, lower: bool = True) -> Bracket:
    """Certified bracket of eps(delta) of k-fold Poisson-subsampled Gaussian; ``exact`` False.

    Upper end: the smaller of :func:`sgm_eps` (best integer order) and :func:`sgm_eps_continuous`
    (a rational order near the continuous optimum), ``hi_source`` naming the one used.  Lower end:
    the largest eps on a float grid below the integer-order upper end whose certified binary lower
    bound on delta(eps) exceeds delta (then eps(delta) > that eps).  ``lower=False`` skips that
    search (seconds at k = 1e5) and returns the trivial lower end 0, for callers holding a tighter one.
    """
    dps = check_dps(dps)
    qq, s, kk = _parse(q, sigma, k)
    d = check("delta", delta, U)
    hi_int, order = _int_eps(qq, s, kk, d, dps)
    hi, hi_source = _upper_eps(qq, s, kk, d, dps, hi_int, order)
    if not lower:
        return Bracket("eps", mpmath.mpf(0), hi, False, "bracket", lo_source=SOURCE_NO_LOWER, hi_source=hi_source)
    fh = float(hi_int)  # the lower end's search is as before the continuous orders (its result does not move)
    # float search for the largest eps with binary delta(eps) > delta, then certify it
    lo_f, hi_f = 0.0, fh

    tau_box = [_best_tau(float(qq), float(s), kk, 0.7 * fh)]

    def fdelta(x):
        p1, p0 = _p_float(float(qq), float(s), float(tau_box[0]))
        return _float_binary_delta(p1, p0, kk, x)

    if fdelta(0.0) <= float(d) * 1.001:
        return Bracket("eps", mpmath.mpf(0), hi, False, "bracket", lo_source="0 (trivial)", hi_source=hi_source)
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
                           lo_source=SOURCE_LO, hi_source=hi_source)
        cand = cand * Fraction(9, 10)
    return Bracket("eps", mpmath.mpf(0), hi, False, "bracket", lo_source="0 (trivial)", hi_source=hi_source)


