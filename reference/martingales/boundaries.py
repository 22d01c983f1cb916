"""The boundaries and odometers whose crossing frequencies are checked, with certified per-step thresholds.

A boundary is ``b(V)``, a function of intrinsic time ``V = sum eps_m^2``, applied
either to the centred martingale ``M_n = sum (l_m - mu_m)`` (``target = "M"``,
whitehouse2022 Theorems 3-5) or to the privacy loss ``L_n = sum l_m`` (``target = "L"``,
the odometers of whitehouse2022 Theorem 2 and the Rogers et al. odometer as quoted
in whitehouse2022 Lemma 4 / whitehouse2023 Lemma 3, the corrected rogers2016 Theorem 6.5
odometer and the feldman2021 Renyi odometer).  The claim checked is
``P(exists n >= 1: target_n >= b(V_n)) <= delta`` (``strict``: ``>``, the odometer
definition, whitehouse2022 Definition 5); ``two_sided`` boundaries (rogers2016
Definition 3.1 bounds ``|Loss|``) claim ``P(exists n: |L_n| > b(V_n)) <= delta``.

Two odometers are not functions of V alone; the checked boundary is a function of V
that is *below* the odometer on every path of the checker's adversaries, so a crossing
of the odometer implies a crossing of the checked boundary and a "pass" is conservative:

* rogers2016 Theorem 6.5: its mean term ``sum eps_i (e^eps_i - 1)/2`` is replaced by
  ``V/2 = sum eps_i^2/2`` (``e^x - 1 >= x``);
* the feldman2021 Renyi odometer ``min_alpha alpha R + log(|A|/delta)/(alpha - 1)`` with
  ``R = sum rho_i``, RR(eps) steps viewed as ``rho = eps tanh(eps/2)``-zCDP (rho = the
  KL divergence; the one-step condition of the supermartingale behind it is checked by
  the process ``feldman2021_renyi_odometer_kl``): ``R >= kappa V`` with ``kappa`` a
  rational lower bound of ``tanh(eps_max/2)/eps_max`` (decreasing in eps), valid for
  every step with ``eps <= eps_max``.

Each boundary has an interval formula (used for exact thresholds; cross-checked in
the tests against the public functions of :mod:`reference.bounds.whitehouse2023`) and a
float64 mirror written against an array module (used for the tables of the
state-dependent adversaries, with a relative safety band).

Negative controls (must be rejected): ``nc_mixture_half_log`` (Theorem 4's boundary
with its log term halved), ``nc_fixed_time_odometer`` (``sqrt(2 V log(1/delta)) + V/2``,
valid at one fixed time only, used at every n), ``nc_renyi_odometer_no_union`` (the Renyi
odometer without its union bound: ``log(1/delta)`` in place of ``log(|A|/delta)``, i.e. the
order picked after the fact), ``nc_renyi_odometer_quarter_log`` (its log term divided
by 4) and ``nc_rogers_odometer_no_union_quarter_log`` (rogers2016 Theorem 6.5, eqs. (17)/(18),
two-sided, with ``F = log(2|D|/delta_g)`` replaced by ``log(1/delta_g)/4``: no union bound over
the grid D nor over the two sides, and that log divided by 4, i.e. the no-union deviation term halved).
The Renyi controls use the upper bound ``R <= V/2`` (``eps tanh(eps/2) <= eps^2/2``) and the
Rogers control the upper bound ``sum eps (e^eps - 1)/2 <= k_U V/2``, ``k_U`` = :func:`rogers_mean_kappa`
(``eps_max``) ``>= (e^eps_max - 1)/eps_max`` (increasing in eps), so each checked control is *above*
the broken odometer on every path with steps ``eps <= eps_max`` and a "fail" is conservative too.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Callable

import mpmath

from ..bounds import feldman2021 as fz
from ..bounds import rogers2016 as r16
from ..bounds import whitehouse2023 as wh
from ..precision import certified, iv_const, mpf_to_fraction
from ._iv import ends, ivctx

__all__ = ["Boundary", "make_boundaries", "BOUNDARY_KEYS", "NEGATIVE_BOUNDARY_KEYS", "ceil_certified",
           "floor_certified", "rogers_mean_kappa"]

F = Fraction
BIG = 2 ** 31 - 1  # "never crossed" threshold


@dataclass(frozen=True, eq=False)
class Boundary:
    """A boundary ``b(V)`` with its claim ``P(exists n: target_n (>=|>) b(V_n)) <= delta_claim``.

    ``iv(c, V)``: interval value at an exact V (a Fraction); ``np(xp, V)``: float64
    mirror on an array of V (``inf`` where the boundary is infinite); ``finite(V)``:
    whether ``b(V) < inf`` (exact); ``reference(V)``: the public function this mirrors.
    """

    key: str
    title: str
    citation: str
    target: str
    strict: bool
    delta_claim: Fraction
    params: dict
    iv: Callable = field(repr=False)
    np: Callable = field(repr=False)
    finite: Callable = field(repr=False, default=lambda V: True)
    reference: Callable | None = field(repr=False, default=None)
    negative_control: bool = False
    as_printed: bool = False
    two_sided: bool = False

    def __post_init__(self):
        if self.two_sided and self.target != "L":
            raise ValueError("two_sided boundaries must have target 'L'")

    @property
    def signature(self) -> tuple:
        """What determines the formula: key, parameters, claim (used as a cache key)."""
        return (self.key, tuple(sorted((k, str(v)) for k, v in self.params.items())), str(self.delta_claim))

    def __hash__(self):
        return hash(self.signature)

    def __eq__(self, other):
        return isinstance(other, Boundary) and self.signature == other.signature

    @property
    def event(self) -> str:
        t = "M_n" if self.target == "M" else ("|L_n|" if self.two_sided else "L_n")
        return f"P(exists n: {t} {'>' if self.strict else '>='} b(V_n)) <= {float(self.delta_claim):.6g}"


BOUNDARY_KEYS = ("whitehouse2022_thm3_linear", "whitehouse2022_thm4_mixture", "whitehouse2022_thm5_stitched",
                 "whitehouse2022_thm2_filter_odometer", "whitehouse2022_thm2_mixture_odometer",
                 "whitehouse2022_thm2_stitched_odometer", "whitehouse2022_lem4_rogers_odometer_as_quoted",
                 "whitehouse2023_lem3_rogers_odometer_as_quoted", "rogers2016_thm6_5_odometer",
                 "feldman2021_renyi_odometer_zcdp")
NEGATIVE_BOUNDARY_KEYS = ("nc_mixture_half_log", "nc_fixed_time_odometer", "nc_renyi_odometer_no_union",
                          "nc_renyi_odometer_quarter_log", "nc_rogers_odometer_no_union_quarter_log")

#: The Renyi odometer's default order grid (reference.bounds.feldman2021._ALPHAS_DEFAULT), fixed before the interaction.
RENYI_ALPHAS = tuple(F(a) for a in ("5/4", "3/2", "2", "3", "4", "6", "8", "12", "16", "24", "32", "64", "128"))


def _round_up(x: Fraction | mpmath.mpf, digits: int = 12) -> Fraction:
    q = x if isinstance(x, Fraction) else mpf_to_fraction(x)
    s = F(10) ** digits
    return F(math.ceil(q * s), s)


def renyi_kappa(eps_max) -> Fraction:
    """A rational ``kappa <= tanh(eps_max/2)/eps_max`` (certified, 15 digits): ``R = sum eps_i tanh(eps_i/2) >= kappa V`` if all eps_i <= eps_max."""
    e = F(eps_max)
    q = mpf_to_fraction(certified(lambda c, e: (1 - 2 / (c.exp(e) + 1)) / e, (e,), "lower", 30))
    s = F(10) ** 15
    return F(math.floor(q * s), s)


def rogers_mean_kappa(eps_max) -> Fraction:
    """A rational ``k_U >= (e^eps_max - 1)/eps_max`` (certified, 15 digits): ``sum eps_i (e^eps_i - 1)/2 <= k_U V/2`` if all eps_i <= eps_max.

    ``(e^x - 1)/x`` is increasing in x > 0, so ``eps (e^eps - 1) <= k_U eps^2`` for every ``eps <= eps_max``.
    """
    e = F(eps_max)
    q = mpf_to_fraction(certified(lambda c, e: (c.exp(e) - 1) / e, (e,), "upper", 30))
    s = F(10) ** 15
    return F(math.ceil(q * s), s)


def _renyi_min_iv(c, V, alphas, kappa, d, k_log, scale):
    """Enclosure of ``min_a (a kappa V + scale (log(k_log) - log d)/(a - 1))`` (min of enclosures: ends are mins)."""
    VV, kk, dd = iv_const(c, V), iv_const(c, kappa), iv_const(c, d)
    lg = (c.log(c.mpf(k_log)) - c.log(dd)) * iv_const(c, scale)
    vals = [iv_const(c, a) * kk * VV + lg / iv_const(c, a - 1) for a in alphas]
    return c.mpf([min(v.a for v in vals), min(v.b for v in vals)])


def _renyi_min_np(xp, V, alphas, kappa, d, k_log, scale):
    lg = scale * (math.log(k_log) - math.log(d))
    out = None
    for a in alphas:
        v = a * kappa * V + lg / (a - 1)
        out = v if out is None else xp.minimum(out, v)
    return out


def make_boundaries(delta, V_ref, *, n_records: int = 100, include_negative: bool = False,
                    eps_max=F(1, 5)) -> list[Boundary]:
    """The checked boundaries at crossing level ``delta``, tuned to the intrinsic time ``V_ref``.

    Parameters (all exact): Theorem 3 with ``a = V_ref/2``, ``b = sqrt(2 a log(1/delta))``
    rounded up to 12 digits (claim ``exp(-b^2/(2a)) <= delta``); mixtures with
    ``rho = V_ref/10``; stitching with ``v0 = V_ref/100``; the filter odometer with
    the target eps of ``y* = V_ref/2`` rounded up to 6 digits; the Rogers et al.
    Theorem 6.5 (corrected) with ``n = n_records``, valid for ``delta <= 1/e`` (the odometer as quoted by whitehouse2022 Lemma 4 is false as printed and not checked); the Renyi odometer on the
    grid ``RENYI_ALPHAS`` with ``R >= kappa V``, ``kappa`` = ``renyi_kappa`` (``eps_max``):
    valid for adversaries whose steps have ``eps <= eps_max`` (default 1/5, the checker's 4 x 1/20); ``eps_max``
    also sets the Rogers control's mean-term bound ``k_U`` (:func:`rogers_mean_kappa`).
    """
    d = F(delta)
    Vr = F(V_ref)
    out: list[Boundary] = []

    # Theorem 3 (v2022) = Theorem 4 (v2023): linear boundary b/2 + b V/(2a)
    a = Vr / 2
    b = _round_up(certified(lambda c, a, d: c.sqrt(-2 * a * c.log(d)), (a, d), "upper", 30))
    claim3 = _round_up(certified(lambda c, a, b: c.exp(-b * b / (2 * a)), (a, b), "upper", 30), 15)
    out.append(Boundary(
        "whitehouse2022_thm3_linear", f"linear b/2 + b V/(2a) (a={_f(a)}, b={float(b):.6g})",
        "whitehouse2022 Theorem 3 = whitehouse2023 Theorem 4", "M", False, claim3, {"a": a, "b": b},
        iv=lambda c, V, a=a, b=b: iv_const(c, b / 2 + b * V / (2 * a)),
        np=lambda xp, V, a=float(a), b=float(b): b / 2 + b * V / (2 * a),
        reference=lambda V, a=a, b=b: wh.linear_boundary(a, b, V)))

    rho = Vr / 10
    v0 = Vr / 100

    def mix(c, V, rho=rho, d=d, half=False):
        r, dd, VV = iv_const(c, rho), iv_const(c, d), iv_const(c, V)
        lg = c.log((VV + r) / r) / 2 - c.log(dd)
        return c.sqrt((1 if half else 2) * (VV + r) * lg)

    def mix_np(xp, V, rho=float(rho), d=float(d), half=False):
        return xp.sqrt((1.0 if half else 2.0) * (V + rho) * (xp.log((V + rho) / rho) / 2 - math.log(d)))

    def stit(c, V, v0=v0, d=d):
        VV, m, dd = iv_const(c, V), iv_const(c, v0), iv_const(c, d)
        inner = c.log(c.log(2 * VV / m)) + c.mpf(72) / 100 * c.log(c.mpf(52) / 10 / dd)
        return c.mpf(17) / 10 * c.sqrt(VV * inner)

    def stit_np(xp, V, v0=float(v0), d=float(d)):
        Vs = xp.maximum(V, v0)
        val = 1.7 * xp.sqrt(Vs * (xp.log(xp.log(2 * Vs / v0)) + 0.72 * math.log(5.2 / d)))
        return xp.where(V >= v0, val, xp.inf)

    out.append(Boundary(
        "whitehouse2022_thm4_mixture", f"normal mixture (rho={_f(rho)})",
        "whitehouse2022 Theorem 4 = whitehouse2023 Theorem 5", "M", False, d, {"rho": rho},
        iv=mix, np=mix_np, reference=lambda V, rho=rho, d=d: wh.mixture_boundary(V, rho, d)))
    out.append(Boundary(
        "whitehouse2022_thm5_stitched", f"stitched 1.7 sqrt(V(loglog(2V/v0) + 0.72 log(5.2/delta))) (v0={_f(v0)})",
        "whitehouse2022 Theorem 5 = whitehouse2023 Theorem 6", "M", False, d, {"v0": v0},
        iv=stit, np=stit_np, finite=lambda V, v0=v0: V >= v0,
        reference=lambda V, v0=v0, d=d: wh.stitched_boundary(V, v0, d)))

    # Theorem 2 (v2022) = Theorem 3 (v2023): odometers on the privacy loss (strict: Definition 5)
    y = Vr / 2
    eps_t = _round_up(certified(lambda c, y, d: c.sqrt(-2 * c.log(d) * y) + y / 2, (y, d), "upper", 30), 6)

    def filt(c, V, e=eps_t, d=d):
        VV, dd, ee = iv_const(c, V), iv_const(c, d), iv_const(c, e)
        L2 = -2 * c.log(dd)
        s = c.sqrt(L2 + 2 * ee) + c.sqrt(L2)
        ys = 4 * ee * ee / (s * s)
        return c.sqrt(ys * L2) / 2 + c.sqrt(L2) / (2 * c.sqrt(ys)) * VV + VV / 2

    def filt_np(xp, V, e=float(eps_t), d=float(d)):
        L2 = -2 * math.log(d)
        s = math.sqrt(L2 + 2 * e) + math.sqrt(L2)
        ys = 4 * e * e / (s * s)
        return math.sqrt(ys * L2) / 2 + math.sqrt(L2) / (2 * math.sqrt(ys)) * V + V / 2

    out.append(Boundary(
        "whitehouse2022_thm2_filter_odometer", f"filter odometer (eps={float(eps_t):.6g}, y*~{_f(y)})",
        "whitehouse2022 Theorem 2 (filter) = whitehouse2023 Theorem 3", "L", True, d, {"eps": eps_t},
        iv=filt, np=filt_np, reference=lambda V, e=eps_t, d=d: wh.filter_odometer(V, e, d)))
    out.append(Boundary(
        "whitehouse2022_thm2_mixture_odometer", f"mixture odometer (rho={_f(rho)})",
        "whitehouse2022 Theorem 2 (mixture) = whitehouse2023 Theorem 3", "L", True, d, {"rho": rho},
        iv=lambda c, V: mix(c, V) + iv_const(c, V) / 2, np=lambda xp, V: mix_np(xp, V) + V / 2,
        reference=lambda V, rho=rho, d=d: wh.mixture_odometer(V, rho, d)))
    out.append(Boundary(
        "whitehouse2022_thm2_stitched_odometer", f"stitched odometer (v0={_f(v0)})",
        "whitehouse2022 Theorem 2 (stitched) = whitehouse2023 Theorem 3", "L", True, d, {"v0": v0},
        iv=lambda c, V: stit(c, V) + iv_const(c, V) / 2, np=lambda xp, V: stit_np(xp, V) + V / 2,
        finite=lambda V, v0=v0: V >= v0, reference=lambda V, v0=v0, d=d: wh.stitched_odometer(V, v0, d)))

    # Rogers et al. Theorem 6.5 *as quoted* in whitehouse2022 Lemma 4 / whitehouse2023 Lemma 3 is not a genuine
    # boundary: it is false as printed (errata W22-LEM4-QUOTE; fullyadaptive falsify W22-LEM4-QUOTE).


    # rogers2016 Theorem 6.5, union bound corrected (reference.bounds.rogers2016.advanced_odometer), two-sided
    # (Definition 3.1 bounds |Loss|), mean term sum eps(e^eps - 1)/2 replaced by its lower bound V/2
    if d < F(36787944117144232, 10 ** 17) and n_records >= 2:
        n = int(n_records)
        gam = F(1, n * n)
        m_grid = len(r16.beta_grid(gam))

        def rog65(c, V, gam=gam, m=m_grid, d=d):
            VV, gg, dd = iv_const(c, V), iv_const(c, gam), iv_const(c, d)
            Fv = c.log(c.mpf(2 * m)) - c.log(dd)
            if gam <= V <= 1:
                return VV / 2 + 2 * c.sqrt(VV * (1 + c.log(c.mpf(3)) / 2) * Fv)
            return VV / 2 + c.sqrt(2 * (gg + VV) * (1 + c.log(1 + VV / gg) / 2) * Fv)

        def rog65_np(xp, V, gam=float(gam), m=m_grid, d=float(d)):
            Fv = math.log(2 * m) - math.log(d)
            in_rng = V / 2 + 2 * xp.sqrt(V * (1 + math.log(3) / 2) * Fv)
            out_rng = V / 2 + xp.sqrt(2 * (gam + V) * (1 + xp.log1p(V / gam) / 2) * Fv)
            return xp.where((V >= gam) & (V <= 1.0), in_rng, out_rng)

        def rog65_ref(V, gam=gam, d=d, n=n):
            spec = r16.OdometerSpec("thm6_5", delta_g=d, n=n)
            f = r16._thm6_5_formula(gam <= V <= 1, spec._log_arg)
            return certified(lambda c, V, g, dg: f(c, V, g, dg) + V / 2, (V, gam, d), "upper", 50)

        out.append(Boundary(
            "rogers2016_thm6_5_odometer", f"Rogers et al. Thm 6.5 odometer, corrected union bound (|x|={n}, |D|={m_grid}), mean term V/2",
            "rogers2016 Theorem 6.5 (corrected: log(2|D|/delta_g))", "L", True, d, {"n_records": n, "grid_points": m_grid},
            iv=rog65, np=rog65_np, reference=rog65_ref, two_sided=True))

    # feldman2021 Renyi odometer (derived from the Theorem 3.1 supermartingale; reference.bounds.feldman2021.renyi_odometer_zcdp)
    kap = renyi_kappa(eps_max)
    A = RENYI_ALPHAS
    out.append(Boundary(
        "feldman2021_renyi_odometer_zcdp", f"Renyi odometer min_a a R + log(|A|/delta)/(a-1), |A|={len(A)}, R >= {float(kap):.6g} V",
        "feldman2021 Renyi odometer (Theorem 3.1 supermartingale + Ville + union over A)", "L", False, d,
        {"kappa": kap, "eps_max": F(eps_max), "alphas": ",".join(_f(a) for a in A)},
        iv=lambda c, V, A=A, kap=kap, d=d: _renyi_min_iv(c, V, A, kap, d, len(A), F(1)),
        np=lambda xp, V, A=tuple(float(a) for a in A), kap=float(kap), d=float(d): _renyi_min_np(xp, V, A, kap, d, len(A), 1.0),
        reference=lambda V, A=A, kap=kap, d=d: fz.renyi_odometer_zcdp(kap * V, d, A)))

    if include_negative:
        out.append(Boundary(
            "nc_mixture_half_log", f"NEGATIVE CONTROL: mixture boundary with its log term halved (rho={_f(rho)})",
            "negative control (wrong constant)", "M", False, d, {"rho": rho},
            iv=lambda c, V: mix(c, V, half=True), np=lambda xp, V: mix_np(xp, V, half=True), negative_control=True))
        out.append(Boundary(
            "nc_fixed_time_odometer", "NEGATIVE CONTROL: sqrt(2 V log(1/delta)) + V/2 at every n (fixed-time bound)",
            "negative control (advanced composition used time-uniformly)", "L", True, d, {},
            iv=lambda c, V, d=d: c.sqrt(-2 * iv_const(c, V) * c.log(iv_const(c, d))) + iv_const(c, V) / 2,
            np=lambda xp, V, d=float(d): xp.sqrt(-2 * V * math.log(d)) + V / 2, negative_control=True))
        out.append(Boundary(
            "nc_renyi_odometer_no_union", "NEGATIVE CONTROL: Renyi odometer without the union bound, log(1/delta) (R <= V/2)",
            "negative control (Renyi odometer, order chosen after the fact)", "L", False, d, {"alphas": len(A)},
            iv=lambda c, V, A=A, d=d: _renyi_min_iv(c, V, A, F(1, 2), d, 1, F(1)),
            np=lambda xp, V, A=tuple(float(a) for a in A), d=float(d): _renyi_min_np(xp, V, A, 0.5, d, 1, 1.0),
            negative_control=True))
        out.append(Boundary(
            "nc_renyi_odometer_quarter_log", "NEGATIVE CONTROL: Renyi odometer with log(|A|/delta)/4 (R <= V/2)",
            "negative control (Renyi odometer, log term divided by 4)", "L", False, d, {"alphas": len(A)},
            iv=lambda c, V, A=A, d=d: _renyi_min_iv(c, V, A, F(1, 2), d, len(A), F(1, 4)),
            np=lambda xp, V, A=tuple(float(a) for a in A), d=float(d): _renyi_min_np(xp, V, A, 0.5, d, len(A), 0.25),
            negative_control=True))
        # rogers2016 Theorem 6.5 with F = log(1/delta)/4 in place of log(2|D|/delta) (two-sided, like the genuine one);
        # mean term k_U V/2 >= sum eps(e^eps - 1)/2: the checked control lies above the broken odometer
        if d < F(36787944117144232, 10 ** 17) and n_records >= 2:
            n = int(n_records)
            gam = F(1, n * n)
            kU = rogers_mean_kappa(eps_max)

            def rog_nc(c, V, gam=gam, d=d, kU=kU):
                VV, gg, k = iv_const(c, V), iv_const(c, gam), iv_const(c, kU)
                Fq = -c.log(iv_const(c, d)) / 4
                if gam <= V <= 1:
                    return k * VV / 2 + 2 * c.sqrt(VV * (1 + c.log(c.mpf(3)) / 2) * Fq)
                return k * VV / 2 + c.sqrt(2 * (gg + VV) * (1 + c.log(1 + VV / gg) / 2) * Fq)

            def rog_nc_np(xp, V, gam=float(gam), d=float(d), kU=float(kU)):
                Fq = -math.log(d) / 4
                in_rng = kU * V / 2 + 2 * xp.sqrt(V * (1 + math.log(3) / 2) * Fq)
                out_rng = kU * V / 2 + xp.sqrt(2 * (gam + V) * (1 + xp.log1p(V / gam) / 2) * Fq)
                return xp.where((V >= gam) & (V <= 1.0), in_rng, out_rng)

            out.append(Boundary(
                "nc_rogers_odometer_no_union_quarter_log",
                f"NEGATIVE CONTROL: Rogers et al. Thm 6.5 odometer with F = log(1/delta)/4 (|x|={n}), mean term {float(kU):.6g} V/2",
                "negative control (rogers2016 Theorem 6.5 without its union bound, log term divided by 4)", "L", True, d,
                {"n_records": n, "k_U": kU, "eps_max": F(eps_max)},
                iv=rog_nc, np=rog_nc_np, negative_control=True, two_sided=True))
    return out


def _f(q: Fraction) -> str:
    return str(q.numerator) if q.denominator == 1 else f"{q.numerator}/{q.denominator}"


# ---------------------------------------------------------------------------
# certified integer rounding of an interval formula
# ---------------------------------------------------------------------------

def _enclose(formula, prec: int):
    return ends(formula(ivctx(prec)))


def _ceil(q: Fraction) -> int:
    return -((-q.numerator) // q.denominator)


def _floor(q: Fraction) -> int:
    return q.numerator // q.denominator


def ceil_certified(formula, precs=(64, 128, 256, 1024, 4096)) -> int:
    """``ceil(x)`` for ``x = formula(ctx)`` (an interval formula), decided exactly.

    Raises ``ArithmeticError`` if the enclosure still straddles an integer at the
    largest precision (x equal to an integer but not provably so).
    """
    for prec in precs:
        lo, hi = _enclose(formula, prec)
        if lo == hi:
            return _ceil(lo)
        if _ceil(lo) == _ceil(hi):
            return _ceil(lo)
    raise ArithmeticError(f"ceil undecided: enclosure [{float(lo)}, {float(hi)}]")


def floor_certified(formula, precs=(64, 128, 256, 1024, 4096)) -> int:
    """``floor(x)`` for ``x = formula(ctx)``, decided exactly (see :func:`ceil_certified`)."""
    for prec in precs:
        lo, hi = _enclose(formula, prec)
        if lo == hi:
            return _floor(lo)
        if _floor(lo) == _floor(hi):
            return _floor(lo)
    raise ArithmeticError(f"floor undecided: enclosure [{float(lo)}, {float(hi)}]")
