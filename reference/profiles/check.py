"""Check a claimed (eps, delta) for a composition of standard mechanisms against its certified privacy profile.

:func:`parse_spec` reads a composition (``rr:0.01x1000``, ``gaussian:sigma=2x500``,
``subsampled-gaussian:q=0.01,sigma=1.1x10000``, ``laplace:b=10x50``, ``zcdp:rho=0.1``; items
joined by ``+`` or ``;``; or a JSON list of ``{"mechanism": ..., <params>, "count": n}``).
:func:`profile` returns the certified brackets of delta(eps) and eps(delta) for it, choosing
the exact profile when one applies and an honest bracket otherwise:

==========================  ===========================================================  =====
composition                 route                                                        exact
==========================  ===========================================================  =====
rr / dp (pure, +delta0)     kairouz2015 Thm 3.3 / murtagh2016 (:mod:`.pure_dp`)          yes
gaussian (any sigmas)       mu-GDP with mu^2 = sum (Delta/sigma_i)^2 (:mod:`.gaussian`)   yes
laplace, one scale          exact k-fold Laplace PLD (:mod:`.laplace`)                   yes
laplace, several scales     [best sub-composition, optimal pure-DP composition]         no
subsampled-gaussian         [binary / PLD lower, min(MTZ19 RDP, certified PLD) upper]   no
zcdp (+ gaussian)           [Gaussian with the same rho, improved zCDP conversion]       no
any mixture                 [best exact sub-composition, summed integer-order RDP]       no
==========================  ===========================================================  =====

:func:`check` compares a claim with the bracket: *valid* when the certified upper end is
below the claim (tight when within ``tol``, relative, else loose by the gap), *invalid*
(anti-conservative by the gap) when the certified lower end is above it, *undecided* when the
bracket straddles it; and when a valid claim beats the best generic conversion, it names the
exact profile that explains it.
"""
from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path

import mpmath

from ..bounds import classical as cl
from ..precision import Domain, certified, check as _check, directed_decimal, mpf_to_fraction, to_exact
from . import laplace as lap
from . import pure_dp, subsampled_gaussian as sgm
from .conversions import Bracket, integer_order_delta, integer_order_eps, round_down, round_up

__all__ = ["Step", "parse_spec", "profile", "check", "Verdict", "MECHANISMS"]

P = Domain.positive()
NN = Domain.nonnegative()
U = Domain.open_unit()
D0 = Domain.unit_nonneg()

#: mechanism -> (parameter names, the positional parameter's name, defaults)
MECHANISMS = {
    "rr": (("eps", "delta"), "eps", {"delta": "0"}),
    "dp": (("eps", "delta"), "eps", {"delta": "0"}),
    "gaussian": (("sigma", "sensitivity"), "sigma", {"sensitivity": "1"}),
    "laplace": (("b", "sensitivity"), "b", {"sensitivity": "1"}),
    "subsampled-gaussian": (("q", "sigma"), None, {}),
    "zcdp": (("rho",), "rho", {}),
}
ALIASES = {"pure": "dp", "randomized-response": "rr", "sgm": "subsampled-gaussian", "poisson-gaussian": "subsampled-gaussian",
           "subsampled_gaussian": "subsampled-gaussian", "gauss": "gaussian", "lap": "laplace"}
DOMAINS = {"eps": NN, "delta": D0, "sigma": P, "sensitivity": P, "b": P, "q": Domain.half_open_unit(), "rho": NN}


@dataclass(frozen=True)
class Step:
    """``count`` copies of one mechanism with exact parameters."""

    mechanism: str
    params: tuple[tuple[str, Fraction], ...]
    count: int = 1

    def p(self, name: str) -> Fraction:
        return dict(self.params)[name]

    def text(self) -> str:
        inner = ",".join(f"{k}={_fmt(v)}" for k, v in self.params)
        return f"{self.mechanism}:{inner}" + (f"x{self.count}" if self.count != 1 else "")


def _fmt(q: Fraction) -> str:
    if q.denominator == 1:
        return str(q.numerator)
    f = float(q)
    if Fraction(f) == q:
        return float.hex(f) if Fraction(repr(f)) != q else repr(f)
    d = q.denominator
    while d % 2 == 0:
        d //= 2
    while d % 5 == 0:
        d //= 5
    if d == 1:  # a finite decimal
        from decimal import Decimal, getcontext

        getcontext().prec = 400
        return format(Decimal(q.numerator) / Decimal(q.denominator), "f").rstrip("0")
    return f"{q.numerator}/{q.denominator}"


def _value(v, name: str, binary: bool) -> Fraction:
    """Exact value of an input: a float (a JSON number) is its binary value; with ``binary`` a decimal string too."""
    if binary and isinstance(v, str) and "/" not in v:
        try:
            v = float(v)
        except ValueError:
            raise ValueError(f"{name} must be a number, found {v!r}") from None
    if isinstance(v, float) and v == v and abs(v) != float("inf"):
        v = Fraction(v)  # deliberate: the exact binary value a float peer computed with
    return _check(name, v, DOMAINS[name])


def _step(mech: str, params: dict, count, binary: bool) -> Step:
    mech = ALIASES.get(mech.strip().lower(), mech.strip().lower())
    if mech not in MECHANISMS:
        raise ValueError(f"unknown mechanism {mech!r}; known: {sorted(MECHANISMS)}")
    names, _, defaults = MECHANISMS[mech]
    for k in params:
        if k not in names:
            raise ValueError(f"{mech}: unknown parameter {k!r}; expected {names}")
    full = dict(defaults)
    full.update(params)
    missing = [n for n in names if n not in full]
    if missing:
        raise ValueError(f"{mech}: missing parameter(s) {missing}")
    if isinstance(count, bool) or not isinstance(count, int):
        count = int(str(count))
    if count < 1:
        raise ValueError(f"{mech}: the repetition count must be >= 1, found {count}")
    return Step(mech, tuple((n, _value(full[n], n, binary)) for n in names), count)


_ITEM = re.compile(r"^\s*([A-Za-z_-]+)\s*:\s*(.*?)\s*(?:[xX\*]\s*(\d+))?\s*$")


def parse_spec(spec, *, binary: bool = False) -> tuple[Step, ...]:
    """Parse a composition: a spec string, a path to a JSON file, or a list of dicts / Steps.

    ``binary``: read decimal strings as the double nearest to them (the exact binary value a
    float peer computed with); JSON numbers are always read as their binary value, JSON
    strings as exact decimals.  Raises ValueError naming the bad item.
    """
    if isinstance(spec, (list, tuple)):
        out = []
        for item in spec:
            if isinstance(item, Step):
                out.append(item)
                continue
            if not isinstance(item, dict) or "mechanism" not in item:
                raise ValueError(f"a JSON composition item needs a 'mechanism' key, found {item!r}")
            d = dict(item)
            mech = d.pop("mechanism")
            count = d.pop("count", 1)
            out.append(_step(mech, d, count, binary))
        if not out:
            raise ValueError("the composition is empty")
        return tuple(out)
    s = str(spec).strip()
    if s.endswith(".json") or (s.startswith("[") and s.endswith("]")):
        text = Path(s).read_text(encoding="utf-8") if s.endswith(".json") else s
        data = json.loads(text)
        if isinstance(data, dict):
            data = data.get("composition", data.get("steps"))
        return parse_spec(data, binary=binary)
    out = []
    for part in re.split(r"[+;]", s):
        if not part.strip():
            continue
        m = _ITEM.match(part)
        if not m:
            raise ValueError(f"cannot parse composition item {part.strip()!r}; expected e.g. 'gaussian:sigma=2x500'")
        mech, body, cnt = m.group(1), m.group(2), m.group(3)
        mech_n = ALIASES.get(mech.lower(), mech.lower())
        if mech_n not in MECHANISMS:
            raise ValueError(f"unknown mechanism {mech!r} in {part.strip()!r}; known: {sorted(MECHANISMS)}")
        params = {}
        for tok in [t for t in body.split(",") if t.strip()]:
            if "=" in tok:
                k, v = tok.split("=", 1)
                params[k.strip()] = v.strip()
            else:
                pos = MECHANISMS[mech_n][1]
                if pos is None or pos in params:
                    raise ValueError(f"{mech}: give parameters as name=value, found {tok.strip()!r}")
                params[pos] = tok.strip()
        out.append(_step(mech_n, params, int(cnt) if cnt else 1, binary))
    if not out:
        raise ValueError("the composition is empty")
    return tuple(out)


# ---------------------------------------------------------------------------
# Profiles of a composition
# ---------------------------------------------------------------------------

def _kinds(steps) -> set[str]:
    return {("dp" if s.mechanism == "rr" else s.mechanism) for s in steps}


def _pure_lists(steps):
    es, ds = [], []
    for s in steps:
        es += [s.p("eps")] * s.count
        ds += [s.p("delta")] * s.count
    return es, ds


def _gauss_mu2(steps) -> Fraction:
    return sum((s.count * (s.p("sensitivity") / s.p("sigma")) ** 2 for s in steps), Fraction(0))


def _sqrt_bracket(x: Fraction, bits: int = 200) -> tuple[Fraction, Fraction]:
    """Rationals lo <= sqrt(x) <= hi with hi - lo <= 2^-bits relative (exact integer square roots)."""
    if x == 0:
        return Fraction(0), Fraction(0)
    scale = 1 << (2 * bits)
    n = x.numerator * scale // x.denominator
    r = math.isqrt(n)
    lo = Fraction(r, 1 << bits)
    hi = Fraction(r + 1, 1 << bits)
    if lo * lo > x:
        lo = Fraction(r - 1, 1 << bits)
    while hi * hi < x:
        hi += Fraction(1, 1 << bits)
    return lo, hi


def _gaussian(mu2: Fraction, quantity: str, at: Fraction, dps: int) -> Bracket:
    """Exact Gaussian profile with mu^2 = mu2 via reference.profiles.gaussian (mu bracketed by rationals; delta increases in mu)."""
    from . import gaussian as g

    src = "dong2022 Corollary 2.13 (mu-GDP curve) with mu^2 = sum (Delta/sigma_i)^2 (Corollary 3.3)"
    mlo, mhi = _sqrt_bracket(mu2, bits=4 * dps + 40)
    if quantity == "delta":
        lo = g.gdp_delta_lower(at, mlo, dps=dps) if mlo > 0 else mpmath.mpf(0)
        hi = g.gdp_delta(at, mhi, dps=dps)
        return Bracket("delta", lo, hi, True, src)
    hi = g.gdp_eps(at, mhi, dps=dps)
    if mlo == 0:
        return Bracket("eps", mpmath.mpf(0), hi, True, src)
    # lower end: a point just below the upper end, certified forward (delta_{mlo}(cand) > at => eps > cand)
    base = mpf_to_fraction(hi)
    step = base * Fraction(1, 10 ** max(dps - 4, 3))
    cand = base - step
    for _ in range(40):
        if cand <= 0 or mpf_to_fraction(g.gdp_delta_lower(cand, mlo, dps=dps)) > at:
            break
        step *= 4
        cand = base - step
    lo = max(cand, Fraction(0))
    return Bracket("eps", round_down(lo, dps), hi, True, src)


def _lse(xs) -> float:
    m = max(xs)
    return m + math.log(sum(math.exp(x - m) for x in xs))


def _rdp_float(s: Step, a: int) -> float:
    """Float estimate of a step's composed RDP at order a (to choose the order only)."""
    m = s.mechanism
    if m in ("rr", "dp"):
        if s.p("delta") != 0:
            return math.inf
        e = float(s.p("eps"))
        if e == 0:
            return 0.0
        lp, lq = e - math.log1p(math.exp(e)) if e < 700 else 0.0, -math.log1p(math.exp(e)) if e < 700 else -e
        # D_a(RR_p || RR_{1-p}) = log(p^a (1-p)^(1-a) + (1-p)^a p^(1-a))/(a-1)  (mironov2017 Table II)
        return s.count * _lse([a * lp + (1 - a) * lq, a * lq + (1 - a) * lp]) / (a - 1)
    if m == "gaussian":
        return s.count * a * float(s.p("sensitivity") / s.p("sigma")) ** 2 / 2
    if m == "laplace":
        e = float(s.p("sensitivity") / s.p("b"))
        # mironov2017 Table II: log(a/(2a-1) e^((a-1) e) + (a-1)/(2a-1) e^(-a e))/(a-1)
        return s.count * _lse([math.log(a / (2 * a - 1)) + (a - 1) * e, math.log((a - 1) / (2 * a - 1)) - a * e]) / (a - 1)
    if m == "zcdp":
        return s.count * a * float(s.p("rho"))
    if m == "subsampled-gaussian":
        return s.count * sgm.sgm_rdp_float(float(s.p("q")), float(s.p("sigma")), a)
    raise ValueError(m)


def _rdp_upper(s: Step, a: int, dps: int) -> mpmath.mpf:
    m = s.mechanism
    if m in ("rr", "dp"):
        return s.count * cl.rr_rdp(a, s.p("eps"), dps=dps) if s.p("eps") > 0 else mpmath.mpf(0)
    if m == "gaussian":
        return round_up(s.count * a * (s.p("sensitivity") / s.p("sigma")) ** 2 / 2, dps)
    if m == "laplace":
        return s.count * cl.laplace_rdp(a, s.p("b") / s.p("sensitivity"), dps=dps)
    if m == "zcdp":
        return round_up(s.count * a * s.p("rho"), dps)
    return s.count * sgm.sgm_rdp(s.p("q"), s.p("sigma"), a, dps=dps)


def _rdp_bracket_end(steps, quantity: str, at: Fraction, dps: int):
    """Upper end from the summed integer-order RDP curve (improved conversion); None if a step has no finite curve."""
    if any(s.mechanism in ("rr", "dp") and s.p("delta") != 0 for s in steps):
        return None

    def up(a, d):
        tot = mpmath.mpf(0)
        for s in steps:
            tot = mpmath.fadd(tot, _rdp_upper(s, a, d), rounding="u", prec=cl._bits(d) + 8)
        return tot

    def fl(a):
        return sum(_rdp_float(s, a) for s in steps)

    if quantity == "eps":
        return integer_order_eps(up, fl, at, sgm.ORDERS, dps=dps)[0]
    return integer_order_delta(up, fl, at, sgm.ORDERS, dps=dps)[0]


def _sgm_pld(s: Step, quantity: str, at: Fraction):
    """The discretised-PLD bracket of one subsampled-Gaussian item (:mod:`.sgm_pld`), or None where it does not apply."""
    from . import sgm_pld

    if s.count > sgm_pld.K_MAX:
        return None
    comp = sgm_pld.sgm_pld(s.p("q"), s.p("sigma"), s.count)
    return comp.delta_bracket(at) if quantity == "delta" else comp.eps_bracket(at)


def _tighter(a: Bracket, b: Bracket | None) -> Bracket:
    """Both brackets are certified: the larger lower end and the smaller upper end, each naming its source."""
    if b is None:
        return a
    lo_a, lo_b = a.lo, b.lo
    hi_a, hi_b = a.hi, b.hi
    lo, lo_src = (lo_b, b.lo_source) if lo_b > lo_a else (lo_a, a.lo_source or a.source)
    hi, hi_src = (hi_b, b.hi_source) if hi_b < hi_a else (hi_a, a.hi_source or a.source)
    return Bracket(a.quantity, min(lo, hi), hi, False, "bracket", lo_source=lo_src, hi_source=hi_src)


def _group_bracket(steps, quantity, at, dps) -> Bracket:
    """The profile of a composition (module docstring table)."""
    kinds = _kinds(steps)
    if kinds == {"dp"}:
        es, ds = _pure_lists(steps)
        return (pure_dp.pure_dp_delta if quantity == "delta" else pure_dp.pure_dp_eps)(es, at, delta0s=ds, dps=dps)
    if kinds == {"gaussian"}:
        return _gaussian(_gauss_mu2(steps), quantity, at, dps)
    if kinds == {"laplace"}:
        bs, sens = [], {s.p("sensitivity") for s in steps}
        if len(sens) == 1:
            for s in steps:
                bs += [s.p("b")] * s.count
            fn = lap.laplace_profile_delta if quantity == "delta" else lap.laplace_profile_eps
            return fn(bs, at, sensitivity=sens.pop(), dps=dps)
    if kinds == {"subsampled-gaussian"} and len(steps) == 1:
        s = steps[0]
        fn = sgm.sgm_delta_bracket if quantity == "delta" else sgm.sgm_eps_bracket
        return _tighter(fn(s.p("q"), s.p("sigma"), s.count, at, dps=dps), _sgm_pld(s, quantity, at))
    if kinds <= {"zcdp", "gaussian"}:
        rho = sum((s.count * s.p("rho") for s in steps if s.mechanism == "zcdp"), Fraction(0)) + _gauss_mu2(
            [s for s in steps if s.mechanism == "gaussian"]) / 2
        low = _gaussian(2 * rho, quantity, at, dps)
        if quantity == "eps":
            hi = cl.zcdp_to_dp_eps_improved(rho, at, dps=dps)
        else:
            hi = _rdp_bracket_end([Step("zcdp", (("rho", rho),), 1)], "delta", at, dps)
        return Bracket(quantity, low.lo, max(hi, low.lo), False, "bracket",
                       lo_source="the Gaussian mechanism with the same rho (it is rho-zCDP): " + low.source,
                       hi_source="improved zCDP -> DP conversion (balle2020hyp Thm 21 / canonne2020 Prop. 12)")
    # a mixture: lower = best exactly known sub-composition, upper = summed RDP (and pure-DP optimal if all pure)
    groups: dict[str, list] = {}
    for s in steps:
        groups.setdefault("dp" if s.mechanism == "rr" else s.mechanism, []).append(s)
    lows = []
    for g in groups.values():
        try:
            lows.append(_group_bracket(tuple(g), quantity, at, dps).lo)
        except (ValueError, ArithmeticError):
            continue
    hi = _rdp_bracket_end(steps, quantity, at, dps)
    if hi is None:
        hi = cl.INF if quantity == "eps" else mpmath.mpf(1)
    lo = max(lows) if lows else mpmath.mpf(0)
    return Bracket(quantity, lo, max(hi, lo), False, "bracket",
                   lo_source="the largest exactly known sub-composition (dropping mechanisms is post-processing)",
                   hi_source="summed integer-order RDP curves + improved conversion (balle2020hyp Thm 21)")


def profile(spec, quantity: str, at, *, binary: bool = False, dps: int = 20) -> Bracket:
    """Certified bracket of delta(eps = at) (``quantity="delta"``) or eps(delta = at) (``"eps"``) of a composition."""
    steps = spec if (isinstance(spec, tuple) and all(isinstance(s, Step) for s in spec)) else parse_spec(spec, binary=binary)
    if quantity == "delta":
        a = _check("eps", at, NN)
    elif quantity == "eps":
        a = _check("delta", at, U)
    else:
        raise ValueError(f"quantity must be 'delta' or 'eps', found {quantity!r}")
    return _group_bracket(steps, quantity, a, dps)


def generic_conversions(steps, delta: Fraction, dps: int = 20) -> dict[str, mpmath.mpf]:
    """The generic eps(delta) upper bounds a peer might use instead of the exact profile (each certified, rounded up).

    zCDP compositions (gaussian, zcdp): the improved conversion (balle2020hyp Thm 21, alpha
    optimised) and the standard rho + 2 sqrt(rho log(1/delta)); any composition with finite
    Renyi curves: the summed integer-order RDP conversion; pure compositions: basic composition.
    """
    out = {}
    kinds = _kinds(steps)
    if kinds <= {"gaussian", "zcdp"}:
        rho = sum((s.count * s.p("rho") for s in steps if s.mechanism == "zcdp"), Fraction(0)) + _gauss_mu2(
            [s for s in steps if s.mechanism == "gaussian"]) / 2
        out["zCDP -> DP, improved (balle2020hyp Thm 21)"] = cl.zcdp_to_dp_eps_improved(rho, delta, dps=dps)
        out["zCDP -> DP, standard rho + 2 sqrt(rho log(1/delta))"] = certified(
            lambda c, r, d: r + 2 * c.sqrt(r * c.log(1 / d)), (rho, delta), "upper", dps)
    if kinds != {"subsampled-gaussian"}:  # for the SGM the summed RDP is already the bracket's upper end
        r = _rdp_bracket_end(steps, "eps", delta, dps)
        if r is not None:
            out["summed RDP at integer orders -> DP (balle2020hyp Thm 21)"] = r
    if kinds <= {"dp", "laplace"}:
        tot = sum((s.count * (s.p("eps") if s.mechanism in ("rr", "dp") else s.p("sensitivity") / s.p("b")) for s in steps),
                  Fraction(0))
        out["basic composition (sum of eps_i)"] = round_up(tot, dps)
    return out


# ---------------------------------------------------------------------------
# Verdicts
# ---------------------------------------------------------------------------

@dataclass
class Verdict:
    """The answer of :func:`check`: status, the certified brackets, gaps and explanation."""

    status: str  # "valid", "invalid", "undecided"
    tight: bool
    message: str
    composition: str
    eps_claim: Fraction
    delta_claim: Fraction
    delta_bracket: Bracket
    eps_bracket: Bracket
    gap_eps: mpmath.mpf | None = None  # claim - certified (positive: loose; negative: anti-conservative)
    explanation: str = ""
    generic: dict = field(default_factory=dict)

    @property
    def exit_status(self) -> int:
        return {"valid": 0, "invalid": 1, "undecided": 3}[self.status]

    def as_dict(self, digits: int = 17) -> dict:
        return {
            "composition": self.composition, "claim": {"eps": _fmt(self.eps_claim), "delta": _fmt(self.delta_claim)},
            "status": self.status, "tight": self.tight, "message": self.message,
            "delta_at_claimed_eps": self.delta_bracket.as_dict(digits),
            "eps_at_claimed_delta": self.eps_bracket.as_dict(digits),
            "gap_eps": None if self.gap_eps is None else directed_decimal(self.gap_eps, 6, "exact"),
            "explanation": self.explanation,
            "generic_conversions": {k: directed_decimal(v, digits, "upper") for k, v in self.generic.items()},
            "exit_status": self.exit_status,
        }


def check(spec, eps, delta, *, tol="0.01", binary: bool = False, dps: int = 20) -> Verdict:
    """Is the composition ``spec`` (eps, delta)-DP?  A certified verdict (module docstring).

    ``eps``/``delta`` are parsed exactly (``binary``: decimal strings as their nearest double);
    ``tol`` is the relative slack under which a valid claim counts as tight.
    """
    steps = parse_spec(spec, binary=binary)
    e = _value(eps, "eps", binary)
    d = _value(delta, "delta", binary)
    if not U.contains(d):
        raise ValueError(f"delta must lie in {U}, found {delta!r}")
    t = to_exact(tol, "tol")
    db = _group_bracket(steps, "delta", e, dps)
    eb = _group_bracket(steps, "eps", d, dps)
    comp = " + ".join(s.text() for s in steps)
    dhi, dlo = mpf_to_fraction(db.hi), mpf_to_fraction(db.lo)
    ehi = mpf_to_fraction(eb.hi) if mpmath.isfinite(eb.hi) else None
    elo = mpf_to_fraction(eb.lo) if mpmath.isfinite(eb.lo) else None
    if dhi <= d:
        gap = e - ehi if ehi is not None else None
        tight = gap is not None and gap <= t * max(ehi, Fraction(1, 10 ** 30)) and eb.exact
        if tight:
            msg = f"valid and tight: the certified eps at delta = {_fmt(d)} is at most {directed_decimal(eb.hi, 8, 'upper')} (within {_fmt(t)} relative)"
        else:
            msg = (f"valid but loose by {directed_decimal(gap, 4, 'lower')} in eps: the certified eps at delta = {_fmt(d)} is at most "
                   f"{directed_decimal(eb.hi, 8, 'upper')}" if gap is not None else "valid")
            if not eb.exact:
                msg += " (an upper bound; the exact value may be smaller still)"
        expl = ""
        gen = generic_conversions(steps, d, dps=20)
        below = {k: v for k, v in gen.items() if mpf_to_fraction(v) > e}
        if below:
            names = "; ".join(f"{k} gives {directed_decimal(v, 6, 'upper')}" for k, v in below.items())
            expl = (f"the claim is below the generic conversion(s) ({names}); it holds because of "
                    f"{eb.hi_source or eb.source} (certified eps <= {directed_decimal(eb.hi, 6, 'upper')})")
        return Verdict("valid", bool(tight), msg, comp, e, d, db, eb, round_down(gap, 20) if gap is not None else None, expl, gen)
    if dlo > d:
        gap = (elo - e) if elo is not None else None
        msg = (f"INVALID: anti-conservative by {directed_decimal(gap, 4, 'lower')} in eps: the true eps at delta = {_fmt(d)} is at least "
               f"{directed_decimal(eb.lo, 8, 'lower')}, and the true delta at eps = {_fmt(e)} is at least "
               f"{directed_decimal(db.lo, 6, 'lower')} > {_fmt(d)}" if gap is not None else "INVALID")
        return Verdict("invalid", False, msg, comp, e, d, db, eb, -round_down(gap, 20) if gap is not None else None,
                       f"lower end: {db.lo_source or db.source}")
    msg = (f"undecided: the certified delta at eps = {_fmt(e)} lies in [{directed_decimal(db.lo, 6, 'lower')}, "
           f"{directed_decimal(db.hi, 6, 'upper')}], which contains the claimed {_fmt(d)}")
    expl = f"lower end: {db.lo_source or db.source}; upper end: {db.hi_source or db.source}"
    return Verdict("undecided", False, msg, comp, e, d, db, eb, None, expl)
