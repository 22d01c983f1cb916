"""Certified closed-form bounds on the privacy profile of a Poisson-subsampled Gaussian run: the front door of the PLD engine.

A run is a tuple of phases ((q, sigma, k), ...): k_i steps of the Poisson-subsampled Gaussian
mechanism with sampling rate q_i, noise multiplier sigma_i and L2 sensitivity 1, under add/remove
adjacency.  Near no privacy loss (tiny q, huge sigma) the grid engine of :mod:`.sgm_pld` cannot
resolve a step's loss (its spread is far below the finest grid), while the closed forms below
are tight there and cost milliseconds.  :func:`sgm_closed_delta_bracket` and
:func:`sgm_closed_eps_bracket` return certified brackets; :func:`sgm_closed_decides` says whether
they already settle a claimed (eps, delta).

Notation: Q = N(0, sigma^2), N1 = N(1, sigma^2), P = (1 - q) Q + q N1 (the dominating pair of one
step, Zhu, Dong, Wang, AISTATS 2022, Prop. 30: delta(eps) = max(H_g(P^K || Q^K), H_g(Q^K || P^K)),
g = e^eps, for a run the product pairs); H_g(A || B) = sup_E A(E) - g B(E) (the hockey-stick
divergence); G_mu(L) = H_{e^L}(N(mu, 1) || N(0, 1)) = Phi(-L/mu + mu/2) - e^L Phi(-L/mu - mu/2), the
mu-GDP curve (Dong, Roth, Su 2022, Cor. 2.13), certified by :mod:`.gaussian`.

The proofs (this project, derived):

1. **One step, exactly** (:func:`sgm_one_step_delta`).  P-order: P - g Q = q (N1 - c Q) with
   c = (g - 1 + q)/q >= 1, so H_g(P || Q) = q G_{1/sigma}(log1p(expm1(eps)/q)) (the amplification
   identity of Balle, Barthe, Gaboardi 2018, Thm 8, here an equality).  Q-order: Q - g P = B Q -
   g q N1 with B = 1 - g (1 - q) = g q - expm1(eps); if B <= 0 the divergence is 0, else it is
   B H_{gq/B}(Q || N1) = B G_{1/sigma}(log(g q / B)) (the Gaussian pair is symmetric under x -> 1 - x,
   and g q / B >= 1 because g >= 1).  G is nonincreasing in L, so a rational enclosure [L_lo, L_hi]
   of the (irrational) L gives [G_lower(L_hi), G_upper(L_lo)], each a certified Gaussian value; the
   weights q, B are enclosed in Arb.  The bracket is the exact one-step profile up to rounding.
2. **Lower end of a run** (monotonicity in the count): one step of a phase is a post-processing
   (a projection) of the whole run, so delta_run(eps) >= delta_step(eps) for every step, and
   eps_run(delta) >= eps_step(delta); eps(K) is nondecreasing in the count K.
3. **Upper end by domination** (Gaussian): P = K(N1), Q = K(Q) for the Markov kernel K that keeps its
   input with probability q and otherwise replaces it by a fresh N(0, sigma^2) draw; the product
   kernel maps the composed Gaussian pair to the composed subsampled pair, in both orders, so by
   data processing delta_run(eps) <= G_mu(eps) with mu^2 = sum k_i / sigma_i^2 exactly (Dong, Roth,
   Su 2022, Cor. 3.3), and eps_run(delta) <= eps_mu(delta).  mu is enclosed by rationals
   mu_lo <= mu <= mu_hi and G is increasing in mu: the upper end is taken at mu_hi.
4. **Upper end by total variation**: delta(eps) <= delta(0) = TV(P^K, Q^K) <= 1 - prod_i (1 - TV_i)^(k_i)
   (maximal couplings coordinate by coordinate), TV_i = TV(P_i, Q_i) = q_i TV(N1, Q) =
   q_i erf(1 / (2 sqrt(2) sigma_i)).  If that bound is at most delta, eps(delta) = 0 exactly.

Every number is rounded once in the conservative direction (upper ends up, lower ends down), in
Arb (python-flint) or through the certified Gaussian profile; none passes through a double.
"""
from __future__ import annotations

import math
from fractions import Fraction

import mpmath
from mpmath import libmp

from ..catalog import cites
from ..precision import Domain, check, mpf_to_fraction
from .conversions import Bracket, round_down, round_up
from .gaussian import gdp_delta, gdp_delta_lower, gdp_eps
from .sgm_pld import _Prec, _arb_q, _exact

__all__ = ["sgm_one_step_delta", "sgm_tv_upper", "sgm_gauss_mu_bracket", "sgm_closed_delta_bracket",
           "sgm_closed_eps_bracket", "sgm_closed_decides", "SOURCE_CLOSED_LO", "SOURCE_CLOSED_HI", "SOURCE_CLOSED_TV"]

NN = Domain.nonnegative()
U01 = Domain.open_unit()
QDOM = Domain.half_open_unit()
P = Domain.positive()
_ZERO = mpmath.mpf(0)
_ONE = mpmath.mpf(1)
#: working precision (bits) of the Arb enclosures of the weights and arguments; raised up to _PREC_MAX to decide a sign
_PREC0, _PREC_MAX = 192, 4096

SOURCE_CLOSED_LO = ("one step of the run, exact (a projection of the run: eps is nondecreasing in the count): "
                    "H_g(P||Q) = q G_{1/sigma}(log1p(expm1(eps)/q)), H_g(Q||P) = B G_{1/sigma}(log(g q/B)), "
                    "B = 1 - g(1-q) (derived; dong2022 Cor. 2.13)")
SOURCE_CLOSED_HI = ("domination by the composed Gaussian mechanism, mu^2 = sum k_i/sigma_i^2 (subsampling is a "
                    "post-processing; dong2022 Cor. 2.13 / 3.3)")
SOURCE_CLOSED_TV = ("total variation: delta(eps) <= delta(0) <= 1 - prod (1 - q_i erf(1/(2 sqrt2 sigma_i)))^(k_i) "
                    "(coordinatewise maximal couplings; derived)")


def _parse(phases) -> tuple:
    out = []
    for ph in phases:
        if len(ph) != 3:
            raise ValueError(f"a phase is (q, sigma, k), found {ph!r}")
        q, s, k = ph
        kk = check("k", k, P)
        if kk.denominator != 1:
            raise ValueError(f"k must be a positive integer, found {kk}")
        out.append((check("q", q, QDOM), check("sigma", s, P), int(kk)))
    if not out:
        raise ValueError("phases must not be empty")
    return tuple(out)


def _mpf_ends(fl, a) -> tuple[mpmath.mpf, mpmath.mpf]:
    """The two ends of an Arb ball as exact mpf values (any exponent)."""
    def one(p):
        m, e = p.mid().man_exp()
        return mpmath.mpf((int(m), int(e)))
    return one(a.lower()), one(a.upper())


def _rnd(x, dps: int, direction: str) -> mpmath.mpf:
    """An mpf (any exponent) or a rational rounded to ``dps`` digits' worth of bits, down ("d") or up ("u")."""
    bits = math.ceil(dps * 3.3219280948873626) + 4
    if isinstance(x, Fraction):
        return (round_down if direction == "d" else round_up)(x, dps)
    return mpmath.mp.make_mpf(libmp.mpf_pos(x._mpf_, bits, libmp.round_floor if direction == "d" else libmp.round_ceiling))


def _mul_dir(x: mpmath.mpf, y: mpmath.mpf, rnd: str) -> mpmath.mpf:
    return mpmath.fmul(x, y, prec=128, rounding=rnd)


def _gauss_at(L: tuple[Fraction, Fraction], mu: Fraction) -> tuple[mpmath.mpf, mpmath.mpf]:
    """[G_mu(L_hi) lower, G_mu(L_lo) upper] for the rational enclosure L = (L_lo, L_hi) of a loss L >= 0."""
    lo_arg, hi_arg = max(L[0], Fraction(0)), max(L[1], Fraction(0))
    return gdp_delta_lower(hi_arg, mu), gdp_delta(lo_arg, mu)


def _ball_fracs(fl, a) -> tuple[Fraction, Fraction] | None:
    if not a.is_finite():
        return None
    return _exact(fl, a)


@cites("koskela2020", "PLD accountant for the subsampled Gaussian (ZDW22 dominating pairs): one step in closed form, derived")
def sgm_one_step_delta(q, sigma, eps) -> tuple[mpmath.mpf, mpmath.mpf]:
    """A certified enclosure (lo, hi) of the exact delta(eps) of ONE Poisson-subsampled Gaussian step (add/remove).

    Contract: lo <= max(H_g(P || Q), H_g(Q || P)) <= hi, g = e^eps (module docstring, step 1).
    Preconditions: 0 < q <= 1, sigma > 0, eps >= 0.  Rounding: lo down, hi up (mpf values, any
    exponent).  Source: this project, derived from the ZDW22 dominating pair and the mu-GDP curve
    (dong2022 Cor. 2.13) at mu = 1/sigma.
    """
    qq, s, e = check("q", q, QDOM), check("sigma", sigma, P), check("eps", eps, NN)
    mu = 1 / s
    prec = _PREC0
    while True:
        with _Prec(prec) as fl:
            qa, ea = _arb_q(fl, qq), _arb_q(fl, e)
            em1 = ea.expm1()
            Lp = _ball_fracs(fl, (em1 / qa).log1p())  # P-order argument, >= 0
            g = ea.exp()
            B = g * qa - em1  # Q-order weight 1 - g (1 - q)
            B_lo, B_hi = _mpf_ends(fl, B)
            Lq = None
            if B_lo > 0:
                Lq = _ball_fracs(fl, ea + qa.log() - B.log())
            q_lo, q_hi = _mpf_ends(fl, qa)
        decided = Lp is not None and (B_hi <= 0 or (B_lo > 0 and Lq is not None))
        if decided or prec >= _PREC_MAX:
            break
        prec *= 2
    if Lp is None:  # pragma: no cover - log1p of a finite positive ball is finite
        raise ArithmeticError("no enclosure of the one-step P-order argument (internal)")
    glo, ghi = _gauss_at(Lp, mu)
    lo = _mul_dir(q_lo, glo, "d")
    hi = _mul_dir(q_hi, ghi, "u")
    if B_hi > 0:  # the Q-order may be positive
        if B_lo > 0 and Lq is not None:
            hlo, hhi = _gauss_at(Lq, mu)
            lo = max(lo, _mul_dir(B_lo, hlo, "d"))
            hi = max(hi, _mul_dir(B_hi, hhi, "u"))
        else:  # undecided sign of a B of size 2^-4096: H_g(Q || P) <= B_hi G(0) <= B_hi
            hi = max(hi, B_hi)
    return max(lo, _ZERO), min(hi, _ONE)


@cites("koskela2020", "PLD accountant for the subsampled Gaussian: total variation of the run, derived")
def sgm_tv_upper(phases) -> mpmath.mpf:
    """An upper bound on delta(0) = TV of the run, hence on delta(eps) for every eps >= 0 (module docstring, step 4).

    Value: 1 - prod_i (1 - q_i erf(1/(2 sqrt2 sigma_i)))^(k_i), enclosed in Arb and rounded up (at most 1).
    Preconditions: phases ((q, sigma, k), ...) with 0 < q <= 1, sigma > 0, integer k >= 1.
    """
    ph = _parse(phases)
    with _Prec(_PREC0) as fl:
        tot = fl.arb(0)
        for q, s, k in ph:
            tv = _arb_q(fl, q) * (1 / (2 * _arb_q(fl, s) * fl.arb(2).sqrt())).erf()
            tot = tot + k * (-tv).log1p()
        val = -tot.expm1()
        if not val.is_finite():
            return _ONE
        hi = _mpf_ends(fl, val)[1]
    return min(max(hi, _ZERO), _ONE)


def _sqrt_bracket(x: Fraction, bits: int = 160) -> tuple[Fraction, Fraction]:
    """Rationals lo <= sqrt(x) <= hi with hi - lo <= 2^-bits relative (exact integer square roots, x > 0)."""
    e = bits - (x.numerator.bit_length() - x.denominator.bit_length()) // 2  # sqrt(x) 2^e has about `bits` bits
    if e >= 0:
        n = (x.numerator << (2 * e)) // x.denominator
        r = math.isqrt(n)
        return Fraction(r, 1 << e), Fraction(r + 1, 1 << e)
    n = x.numerator // (x.denominator << (-2 * e))
    r = math.isqrt(n)
    return Fraction(r << -e), Fraction((r + 1) << -e)


@cites("dong2022", "Corollary 3.3 (composition of GDP): the Gaussian run that dominates a subsampled one")
def sgm_gauss_mu_bracket(phases) -> tuple[Fraction, Fraction]:
    """Rationals mu_lo <= mu <= mu_hi, mu^2 = sum k_i / sigma_i^2: the GDP parameter of the composed Gaussian run that
    dominates the subsampled one (module docstring, step 3).  Exact inputs; relative width 2^-160."""
    ph = _parse(phases)
    return _sqrt_bracket(sum((Fraction(k) / (s * s) for _, s, k in ph), Fraction(0)))


def _step_lower(ph, eps: Fraction) -> mpmath.mpf:
    """max over the phases of the one-step lower end (step 2)."""
    return max(sgm_one_step_delta(q, s, eps)[0] for q, s, _ in ph)


@cites("koskela2020", "PLD accountant for the subsampled Gaussian: closed-form bracket (one step / Gaussian domination / TV), derived")
def sgm_closed_delta_bracket(phases, eps, *, dps: int = 20) -> Bracket:
    """A certified bracket of delta(eps) of the run from closed forms (module docstring, steps 1-4).

    Contract: lo <= delta(eps) <= hi.  lo: the largest one-step exact lower end (rounded down);
    hi: min(1, the composed Gaussian's delta at mu_hi, the total variation bound), rounded up.
    For a single step (one phase, k = 1) both ends enclose the exact one-step profile.
    Preconditions: phases as :func:`sgm_tv_upper`; eps >= 0.
    """
    ph = _parse(phases)
    e = check("eps", eps, NN)
    if len(ph) == 1 and ph[0][2] == 1:
        lo, hi = sgm_one_step_delta(ph[0][0], ph[0][1], e)
        src = SOURCE_CLOSED_LO.replace("one step of the run", "the step")
        return Bracket("delta", _rnd(lo, dps, "d"), _rnd(hi, dps, "u"), False, "bracket", lo_source=src, hi_source=src)
    lo = _step_lower(ph, e)
    _, mhi = sgm_gauss_mu_bracket(ph)
    hi, src = gdp_delta(e, mhi), SOURCE_CLOSED_HI
    tv = sgm_tv_upper(ph)
    if tv < hi:
        hi, src = tv, SOURCE_CLOSED_TV
    hi = min(hi, _ONE)
    return Bracket("delta", _rnd(min(lo, hi), dps, "d"), _rnd(hi, dps, "u"), False, "bracket",
                   lo_source=SOURCE_CLOSED_LO, hi_source=src)


def _step_eps_lower(q: Fraction, s: Fraction, d: Fraction) -> Fraction:
    """A rational e with a certified one-step delta(e) > d (then eps_step(d) > e, and eps_run(d) > e), or 0.

    Through the P-order: H_g(P || Q) = q G_{1/sigma}(L), L = log1p(expm1(e)/q), exceeds d iff
    G(L) > d/q; a point L* just below the Gaussian eps(d/q) with a certified G_lower(L*) > d/q is
    found, and e is a rational at most log1p(q expm1(L*)) (then L(e) <= L*, G nonincreasing)."""
    if d / q >= 1:
        return Fraction(0)
    # a step with sigma' >= sigma is a post-processing of it: capping mu at 10^6 keeps a valid (lower) end and the
    # Gaussian's root search within doubles
    mu = min(1 / s, Fraction(10 ** 6))
    dq = d / q
    u = gdp_eps(dq, mu)
    if not (mpmath.isfinite(u) and u > 0):
        return Fraction(0)
    base = mpf_to_fraction(u)
    step = base * Fraction(1, 10 ** 12)
    for _ in range(8):
        cand = base - step
        if cand <= 0:
            return Fraction(0)
        if _cmp_gt(gdp_delta_lower(cand, mu), dq):
            with _Prec(_PREC0) as fl:
                v = (_arb_q(fl, cand).expm1() * _arb_q(fl, q)).log1p()
                lo = _exact(fl, v)[0]
            return max(lo, Fraction(0))
        step *= 1000
    return Fraction(0)


def _cmp_gt(x: mpmath.mpf, r: Fraction) -> bool:
    """x > r exactly, for an mpf x of any exponent and a rational r (never forms x's exact value when far from r)."""
    lo = mpmath.mp.make_mpf(libmp.from_rational(r.numerator, r.denominator, 64, libmp.round_floor))
    hi = mpmath.mp.make_mpf(libmp.from_rational(r.numerator, r.denominator, 64, libmp.round_ceiling))
    if x > hi:
        return True
    if x <= lo:
        return False
    return mpf_to_fraction(x) > r


@cites("koskela2020", "PLD accountant for the subsampled Gaussian: closed-form eps bracket (one step / Gaussian domination / TV), derived")
def sgm_closed_eps_bracket(phases, delta, *, dps: int = 20) -> Bracket:
    """A certified bracket of eps(delta) of the run from closed forms (module docstring, steps 1-4).

    Contract: lo <= eps(delta) <= hi.  hi: 0 when the total variation bound is at most delta
    (then eps(delta) = 0 exactly), else the composed Gaussian's eps(delta) at mu_hi (rounded up);
    lo: a rational with a certified one-step delta above delta (the best over the phases), else 0.
    Preconditions: phases as :func:`sgm_tv_upper`; 0 < delta < 1.
    """
    ph = _parse(phases)
    d = check("delta", delta, U01)
    tv = sgm_tv_upper(ph)
    if not _cmp_gt(tv, d):
        return Bracket("eps", _ZERO, _ZERO, False, "bracket", lo_source="eps >= 0", hi_source=SOURCE_CLOSED_TV)
    _, mhi = sgm_gauss_mu_bracket(ph)
    # beyond mu = 10^6 the Gaussian's eps (about mu^2/2) says nothing a user can use: the upper end is left open
    hi = gdp_eps(d, mhi) if mhi <= 10 ** 6 else mpmath.inf
    lo = max(_step_eps_lower(q, s, d) for q, s, _ in ph)
    lo_m = round_down(lo, dps)
    return Bracket("eps", min(lo_m, hi), hi, False, "bracket",
                   lo_source=SOURCE_CLOSED_LO if lo > 0 else "0 (trivial)", hi_source=SOURCE_CLOSED_HI)


def sgm_closed_decides(phases, eps, delta) -> str | None:
    """'valid' when a closed-form upper end of delta(eps) is at most delta, 'invalid' when the one-step lower end
    exceeds it, None otherwise (a cheap certified test: then the grid engine is needed).  0 < delta < 1, eps >= 0."""
    ph = _parse(phases)
    e, d = check("eps", eps, NN), check("delta", delta, U01)
    tv = sgm_tv_upper(ph)
    if not _cmp_gt(tv, d):
        return "valid"
    _, mhi = sgm_gauss_mu_bracket(ph)
    if not _cmp_gt(gdp_delta(e, mhi), d):
        return "valid"
    if _cmp_gt(_step_lower(ph, e), d):
        return "invalid"
    return None
