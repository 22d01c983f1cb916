"""Check a claimed (eps, delta) for a composition of standard mechanisms against its certified privacy profile.

:func:`parse_spec` reads a composition (``rr:0.01x1000``, ``gaussian:sigma=2x500``,
``subsampled-gaussian:q=0.01,sigma=1.1x10000``, ``laplace:b=10x50``, ``zcdp:rho=0.1``; items
joined by ``+`` or ``;``; or a JSON list of ``{"mechanism": ..., <params>, "count": n}``).
:func:`profile` returns the certified brackets of delta(eps) and eps(delta) for it, choosing
the exact profile when one applies and an honest bracket otherwise:

==========================  =============================================================  =====
composition                 route                                                          exact
==========================  =============================================================  =====
rr / dp (pure, +delta0)     kairouz2015 Thm 3.3 / murtagh2016 (:mod:`.pure_dp`)            yes
gaussian (any sigmas)       mu-GDP with mu^2 = sum (Delta/sigma_i)^2 (:mod:`.gaussian`)    yes
laplace, one scale          exact k-fold Laplace PLD (:mod:`.laplace`)                     yes
laplace, several scales     [best sub-composition, optimal pure-DP composition]            no
subsampled-gaussian         [binary / PLD lower, min(MTZ19 RDP, certified PLD) upper]      no
several sgm items           [best single item, summed RDP / the PLD hook]                  no
zcdp (+ gaussian)           [Gaussian with the same rho, improved zCDP conversion]         no
sgm + gaussian/laplace/rr   [the above, tightened by the PLD of every item's pair]         no
any mixture                 [best exact sub-composition, summed integer-order RDP]         no
==========================  =============================================================  =====

A mixture of subsampled-Gaussian items with Gaussian, Laplace, randomized-response or (eps, delta)-DP items (no
zCDP) is also composed by the PLD engine, every item's dominating pair on one grid (:mod:`.sgm_pld`, docstring step
7): ``subsampled-gaussian:q=0.1,sigma=1x10+laplace:b=2x5`` at delta = 1e-5 has eps in [4.5555, 4.5774] there, where
the best sub-composition and the summed RDP curves gave [2.848, 5.279].
Subsampled-Gaussian items first pass a closed-form front door (``_sgm_front``, :mod:`.sgm_closed`: one step's
exact profile below, the composed Gaussian with mu^2 = sum k_i/sigma_i^2 and the total variation bound above); when
it settles the question -- a claim decided, eps(delta) = 0 certified, a bracket within the requested precision, or
steps so near no privacy loss that the PLD grid cannot resolve them (tiny q, huge sigma) -- the routes of the table
are not run, otherwise it tightens their bracket.

Every bracket that is not exact is then intersected with the moment bracket of
:mod:`.concentration` (both are certified, so their intersection is; two that do not meet raise
ArithmeticError): Cantelli's inequality on the composed privacy loss with certified per-step
means and variances below, the summed Renyi divergences at a real order in (1, 2] (a Chernoff
bound) above.  Its two ends meet at relative order K^(-1/2) in the number of steps K, so it is
what decides huge counts: ``rr:0.01x10^12`` at delta = 1e-6 has eps in [4.99996e7, 5.00522e7]
(the closed forms gave [96.7, 5.0e7]), ``subsampled-gaussian:q=0.01,sigma=1.1x10^12`` at 1e-5 in
[6.3079e7, 6.3210e7] (integer-order RDP and a 5000-step sub-composition gave [3.5, 1.29e8]).  Where
its lower end is positive, the sub-composition lower ends of huge items (10^6 of the steps of a
randomized response beyond 10^7, 5000 of a subsampled Gaussian beyond 10^9) are not computed:
they are far below it (tightness only).

Identical items are merged first (counts added); counts are used in closed form and never
expanded into lists (:func:`.pure_dp.pure_dp_profile`, :func:`.laplace.laplace_profile_delta`
take (value, count) pairs); a Laplace item of sensitivity s and scale b is the item of scale
b/s at sensitivity 1.  Where an exact route's cost or range ends (rr beyond 10^7 steps, Laplace
beyond 2000, mu^2 beyond MU2_MAX, sigma below SGM_SIGMA_MIN, delta below 1e-300) the answer is
a certified bracket rather than a refusal.  At delta = 0, eps(0) is the largest composed loss
(the sum of the steps' largest losses; infinite for the Gaussian, the subsampled Gaussian and
rho > 0 zCDP).

:func:`check` compares a claim with the bracket: *valid* when the certified upper end is
below the claim (tight when within ``tol``, relative, else loose by the gap), *invalid*
(anti-conservative by the gap) when the certified lower end is above it, *undecided* when the
bracket straddles it; and when a valid claim beats the best generic conversion, it names the
exact profile that explains it.
"""
from __future__ import annotations

import contextvars
import json
import math
import re
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path

import mpmath

from ..bounds import classical as cl
from ..precision import Domain, bounded_decimal, certified, check as _check, compact_text, mpf_to_fraction, to_exact
from . import laplace as lap
from . import concentration as conc
from . import dp_events, pure_dp, subsampled_gaussian as sgm
from .conversions import Bracket, integer_order_delta, integer_order_eps, round_down, round_up

__all__ = ["Step", "parse_spec", "profile", "check", "intersect", "Verdict", "MECHANISMS", "event_for", "event_to_spec"]

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
        """The item as a spec text, for display (a count or value beyond 32 characters is shortened by ``_fmt``)."""
        inner = ",".join(f"{k}={_fmt(v)}" for k, v in self.params)
        return f"{self.mechanism}:{inner}" + (f"x{_fmt(Fraction(self.count))}" if self.count != 1 else "")


#: Longest text :func:`_fmt` prints as it is; a longer one is replaced by :func:`reference.precision.compact_text`.
FMT_MAX_CHARS = 32


def _fmt(q: Fraction) -> str:
    """A text for a rational of at most FMT_MAX_CHARS characters: an integer, a float's repr or hex, a finite decimal
    (scientific beyond 30 digits of zeros), or p/q when that is short; else :func:`~reference.precision.compact_text`
    (exact when 17 significant digits suffice, e.g. 1e300 or 1e-400, else marked with '~')."""
    if max(q.numerator.bit_length(), q.denominator.bit_length()) > 200:  # more than 60 digits: never short
        return compact_text(q)
    s = _fmt_exact(q)
    return s if len(s) <= FMT_MAX_CHARS else compact_text(q)


def _fmt_exact(q: Fraction) -> str:
    if q.denominator == 1:
        return str(q.numerator)
    f = float(q) if abs(q) < 1e300 else math.inf
    if math.isfinite(f) and Fraction(f) == q:
        return float.hex(f) if Fraction(repr(f)) != q else repr(f)
    d, twos, fives = q.denominator, 0, 0
    while d % 2 == 0:
        d //= 2
        twos += 1
    while d % 5 == 0:
        d //= 5
        fives += 1
    if d == 1:  # a finite decimal: N / 10^n exactly
        n = max(twos, fives)
        N = q.numerator * 10 ** n // q.denominator
        sign, digits = ("-" if N < 0 else ""), str(abs(N))
        if n <= 30:
            whole, frac = (digits[:-n] or "0", digits[-n:].rjust(n, "0")) if len(digits) > n else ("0", digits.rjust(n, "0"))
            return f"{sign}{whole}.{frac}".rstrip("0").rstrip(".")
        mant = digits.rstrip("0")
        exp = len(digits) - 1 - n
        return f"{sign}{mant[0]}{'.' + mant[1:] if len(mant) > 1 else ''}e{exp}"
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
    k = _count(mech, count)
    return Step(mech, tuple((n, _value(full[n], n, binary)) for n in names), k)


#: Most digits of a repetition count (a count of 10^4000 steps is far beyond any route's certified reach anyway).
COUNT_MAX_DIGITS = 4000


def _count(mech: str, count) -> int:
    """The repetition count of an item: an int >= 1, or a string of ASCII digits (a JSON number must be an integer).

    Raises ValueError naming the count, its domain and the text found (never blaming a parameter)."""
    if isinstance(count, int) and not isinstance(count, bool):
        n = count
    else:
        text = count if isinstance(count, str) else repr(count)
        t = text.strip()
        if not (t.isascii() and t.isdigit()) or len(t) > COUNT_MAX_DIGITS:
            shown = t if len(t) <= 40 else t[:37] + "..."
            raise ValueError(f"{mech}: the repetition count must be a positive integer (at most {COUNT_MAX_DIGITS} "
                             f"ASCII digits), found {shown!r}")
        n = int(t)
    if n < 1:
        raise ValueError(f"{mech}: the repetition count must be a positive integer, found {_fmt(Fraction(n))}")
    return n


#: An item: mechanism, ':', its parameters (no count separator in them), then optionally a separator and the count.
#: The count is anything after the first separator, so that a malformed count ('x-5', 'x1.5', 'x') is refused as a
#: count; a multiplication sign '×' is read as a separator only to say that the separator is the ASCII 'x'.
_ITEM = re.compile(r"^\s*([A-Za-z_-]+)\s*:\s*([^xX*×]*?)\s*(?:([xX*×])\s*(.*?))?\s*$", re.DOTALL)


#: Deepest nesting of arrays and objects read from a JSON composition (a composition needs 3: an object holding a list
#: of items); deeper input is refused before it is parsed (the JSON reader recurses once per level).
MAX_JSON_DEPTH = 64


def _json_depth_at_most(text: str, limit: int) -> bool:
    """Whether the arrays/objects of the JSON ``text`` nest at most ``limit`` deep (brackets inside strings skipped)."""
    depth, in_str, esc = 0, False, False
    for ch in text:
        if in_str:
            if esc:
                esc = False
            elif ch == "\\":
                esc = True
            elif ch == '"':
                in_str = False
        elif ch == '"':
            in_str = True
        elif ch in "[{":
            depth += 1
            if depth > limit:
                return False
        elif ch in "]}":
            depth -= 1
    return True


def parse_spec(spec, *, binary: bool = False) -> tuple[Step, ...]:
    """Parse a composition: a spec string, a path to a JSON file, or a list of dicts / Steps.

    ``binary``: read decimal strings as the double nearest to them (the exact binary value a
    float peer computed with); JSON numbers are always read as their binary value, JSON
    strings as exact decimals.  A dp-accounting ``DpEvent`` (or its named-tuple or JSON-object form)
    is read by :func:`.dp_events.event_items` (exact; ValueError naming an event type outside its
    table).  Raises ValueError naming the bad item.
    """
    if dp_events.is_event(spec) or (isinstance(spec, dict) and "class_name" in spec):
        return parse_spec(dp_events.event_items(spec), binary=binary)
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
        if not _json_depth_at_most(text, MAX_JSON_DEPTH):
            raise ValueError(f"the JSON composition nests arrays/objects more than MAX_JSON_DEPTH = {MAX_JSON_DEPTH} "
                             f"levels deep (a composition needs 3)")
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
        mech, body, sep, cnt = m.group(1), m.group(2), m.group(3), m.group(4)
        if sep is not None and "=" in cnt:  # the letter is inside a parameter ('rr:ex=1'): no count, name it below
            body, sep = part.split(":", 1)[1].strip(), None
        mech_n = ALIASES.get(mech.lower(), mech.lower())
        if mech_n not in MECHANISMS:
            raise ValueError(f"unknown mechanism {mech!r} in {part.strip()!r}; known: {sorted(MECHANISMS)}")
        if sep == "×":
            raise ValueError(f"{mech}: the repetition count's separator is the ASCII letter 'x' (e.g. 'rr:0.01x10'), "
                             f"found '×' (the multiplication sign) in {part.strip()[:60]!r}")
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
        out.append(_step(mech_n, params, 1 if sep is None else cnt, binary))
    if not out:
        raise ValueError("the composition is empty")
    return tuple(out)


def event_for(spec, *, binary: bool = False):
    """The dp-accounting ``DpEvent`` of a composition (:func:`.dp_events.event_from_items`; needs ``dp_accounting``).

    Contract: each item becomes its event (gaussian, laplace, subsampled-gaussian, zcdp; counts as
    ``SelfComposedDpEvent``, several items as ``ComposedDpEvent`` in order), its parameters rounded
    to doubles in the conservative direction (noise down, q and rho up: the event is at least as
    lossy as the composition; exact when a value is a double).  ValueError for ``rr`` / ``dp`` items
    (dp-accounting has no event with their exact profile) and for bad specs.
    """
    return dp_events.event_from_items((s.mechanism, dict(s.params), s.count) for s in parse_spec(spec, binary=binary))


event_for.__citations__ = dp_events.event_from_items.__citations__


def _exact_text(q: Fraction) -> str:
    """A text of a rational that :func:`parse_spec` reads back to exactly it: an integer, a float's repr when that is
    exact, the full decimal expansion of a dyadic rational (every double is one), else :func:`_fmt_exact` (a finite
    decimal or p/q)."""
    if q.denominator == 1:
        return str(q.numerator)
    if abs(q) < 1e300 and Fraction(repr(float(q))) == q:
        return repr(float(q))
    k = q.denominator.bit_length() - 1
    if q.denominator == 1 << k:
        digits = str(abs(q.numerator) * 5 ** k).rjust(k + 1, "0")
        return ("-" if q < 0 else "") + (digits[:-k] + "." + digits[-k:]).rstrip("0")
    s = _fmt_exact(q)
    return s if "x" not in s.lower() else f"{q.numerator}/{q.denominator}"


def event_to_spec(event, *, binary: bool = False, rr: str = "refuse") -> str:
    """The spec text of a dp-accounting event (:func:`.dp_events.event_items`), one item per line of its table.

    Contract: ``parse_spec(event_to_spec(e)) == parse_spec(e)``: every float parameter is written as
    the exact decimal of its binary value (no rounding).  With ``binary=True`` a parameter is
    written as the float's shortest repr instead, which ``parse_spec(..., binary=True)`` (the
    CLI's ``--binary``) reads back to the same double.  ``rr="upper"``: a ``RandomizedResponseDpEvent``
    becomes ``rr:EPS`` with EPS rounded up (then only the spec's certified UPPER ends hold for the
    event; :func:`.dp_events.event_items`).  Raises ValueError as :func:`.dp_events.event_items`.
    """
    out = []
    for s in parse_spec(dp_events.event_items(event, rr=rr)):
        if binary:
            inner = ",".join(f"{k}={_fmt_exact(v) if v.denominator == 1 else repr(float(v))}" for k, v in s.params)
        else:
            inner = ",".join(f"{k}={_exact_text(v)}" for k, v in s.params)
        out.append(f"{s.mechanism}:{inner}" + (f"x{s.count}" if s.count != 1 else ""))
    return " + ".join(out)


event_to_spec.__citations__ = dp_events.event_items.__citations__


# ---------------------------------------------------------------------------
# Profiles of a composition
# ---------------------------------------------------------------------------

#: Below this delta, eps(delta) is found from the certified delta(eps) brackets (the RDP conversions and
#: the Gaussian inverse choose their starting points in double precision, whose range ends near 1e-308).
DELTA_FLOAT_MIN = Fraction(1, 10 ** 300)
#: Above this eps, delta(eps) is bounded by delta(EPS_FLOAT_MAX) (delta is nonincreasing in eps), for the same reason.
EPS_FLOAT_MAX = Fraction(10 ** 300)
#: Largest mu^2 = sum (Delta/sigma_i)^2 (= 2 rho) of the exact Gaussian route; beyond it the truth is
#: delta(eps) ~ 1 and eps(delta) ~ mu^2/2, and a bracket is returned (lower end at mu^2 = MU2_MAX).
MU2_MAX = Fraction(10 ** 40)
#: Smallest noise multiplier of the subsampled-Gaussian routes (their Renyi curve forms e^((j^2-j)/(2 sigma^2)));
#: below it the lower end is taken at sigma = SGM_SIGMA_MIN (adding noise is post-processing) and the upper
#: end is the total variation bound 1 - prod (1 - q_i)^(k_i).
SGM_SIGMA_MIN = Fraction(1, 10)
#: Steps of the sub-composition that gives the lower end of a subsampled-Gaussian item beyond sgm.K_MAX steps
#: or below SGM_SIGMA_MIN (the binary lower end of :mod:`.subsampled_gaussian` is fast, and safe at any eps, up to 5000).
SGM_SUB_K = 5000
#: The discretised PLD is asked for delta(eps) only up to this eps (its loss grid is finite).
PLD_EPS_MAX = Fraction(10 ** 4)
SOURCE_EPS0 = ("eps(0) is the largest composed privacy loss: the sum of the steps' largest losses (pure-DP basic "
               "composition, attained), infinite when a step's loss is unbounded (Gaussian, subsampled Gaussian, "
               "rho > 0 zCDP) or a step has delta_i > 0")
SOURCE_ZCDP_STD = "bun2016 Proposition 1.3 (rho-zCDP is (rho + 2 sqrt(rho log(1/delta)), delta)-DP for every delta)"
SOURCE_TV = ("total variation: each subsampled-Gaussian step is (0, q)-DP, and (0, q_i)-DP steps compose to "
             "(0, 1 - prod (1 - q_i)^(k_i))-DP (kairouz2015 Thm 3.3 / murtagh2016 at eps0 = 0)")


def _kinds(steps) -> set[str]:
    return {("dp" if s.mechanism == "rr" else s.mechanism) for s in steps}


def _merge(steps) -> tuple[Step, ...]:
    """Identical items (same mechanism, same parameters) merged into one by adding their counts (first-appearance order)."""
    counts: dict[tuple, int] = {}
    for s in steps:
        key = (s.mechanism, s.params)
        counts[key] = counts.get(key, 0) + s.count
    return tuple(Step(m, p, n) for (m, p), n in counts.items())


def _gauss_mu2(steps) -> Fraction:
    return sum((s.count * (s.p("sensitivity") / s.p("sigma")) ** 2 for s in steps), Fraction(0))


def _rho(steps) -> Fraction:
    """The zCDP parameter of zcdp and Gaussian steps: sum k_i rho_i + sum k_i (Delta/sigma_i)^2 / 2."""
    return sum((s.count * s.p("rho") for s in steps if s.mechanism == "zcdp"), Fraction(0)) + _gauss_mu2(
        [s for s in steps if s.mechanism == "gaussian"]) / 2


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


def _zcdp_huge(rho: Fraction, quantity: str, at: Fraction, dps: int) -> Bracket:
    """A bracket for a Gaussian / zCDP composition with 2 rho > MU2_MAX, where the exact Gaussian route is out of reach.

    Lower end: the Gaussian with mu^2 = MU2_MAX <= 2 rho (a Gaussian with a smaller mu is a
    post-processing: scale the output and add independent noise; and it is rho-zCDP).  Upper end:
    bun2016 Proposition 1.3, eps(delta) <= rho + 2 sqrt(rho log(1/delta)), i.e.
    delta(eps) <= exp(-(eps - rho)^2/(4 rho)) for eps > rho (1 otherwise).
    """
    low = _gaussian(MU2_MAX, quantity, max(at, DELTA_FLOAT_MIN) if quantity == "eps" else at, dps)  # eps falls in delta
    if quantity == "eps":
        hi = certified(lambda c, r, d: r + 2 * c.sqrt(r * c.log(1 / d)), (rho, at), "upper", dps)
    elif at > rho:
        hi = min(certified(lambda c, r, e: c.exp(-(e - r) ** 2 / (4 * r)), (rho, at), "upper", dps), mpmath.mpf(1))
    else:
        hi = mpmath.mpf(1)
    return Bracket(quantity, low.lo, max(hi, low.lo), False, "bracket",
                   lo_source=f"the Gaussian mechanism with mu^2 = {_fmt(MU2_MAX)} <= 2 rho (post-processing): {low.source}",
                   hi_source=SOURCE_ZCDP_STD)


def _lse(xs) -> float:
    m = max(xs)
    return m + math.log(sum(math.exp(x - m) for x in xs))


def _rdp_float(s: Step, a: int) -> float:
    """Float estimate of a step's composed RDP at order a (to choose the order only; inf where doubles overflow)."""
    try:
        return _rdp_float_raw(s, a)
    except (OverflowError, ZeroDivisionError, ValueError):
        return math.inf


def _rdp_float_raw(s: Step, a: int) -> float:
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
    prec = cl._bits(dps) + 8
    if m in ("rr", "dp"):
        if s.p("eps") == 0:
            return mpmath.mpf(0)
        return mpmath.fmul(s.count, cl.rr_rdp(a, s.p("eps"), dps=dps), prec=prec, rounding="u")
    if m == "gaussian":
        return round_up(s.count * a * (s.p("sensitivity") / s.p("sigma")) ** 2 / 2, dps)
    if m == "laplace":
        return mpmath.fmul(s.count, cl.laplace_rdp(a, s.p("b") / s.p("sensitivity"), dps=dps), prec=prec, rounding="u")
    if m == "zcdp":
        return round_up(s.count * a * s.p("rho"), dps)
    return mpmath.fmul(s.count, sgm.sgm_rdp(s.p("q"), s.p("sigma"), a, dps=dps), prec=prec, rounding="u")


def _rdp_ok(s: Step) -> bool:
    """Whether the step's Renyi curve can be formed (finite, and its parameters within the routes' ranges)."""
    m = s.mechanism
    if m in ("rr", "dp"):
        return s.p("delta") == 0 and s.p("eps") <= pure_dp.EPS0_MAX
    if m == "laplace":
        return s.p("sensitivity") / s.p("b") <= pure_dp.EPS0_MAX
    if m == "gaussian":
        return (s.p("sensitivity") / s.p("sigma")) ** 2 <= MU2_MAX
    if m == "zcdp":
        return 2 * s.p("rho") <= MU2_MAX
    return s.p("sigma") >= SGM_SIGMA_MIN


def _rdp_bracket_end(steps, quantity: str, at: Fraction, dps: int):
    """Upper end from the summed integer-order RDP curve (improved conversion); None if a step has no usable curve."""
    if not all(_rdp_ok(s) for s in steps):
        return None
    if (quantity == "eps" and at < DELTA_FLOAT_MIN) or (quantity == "delta" and at > EPS_FLOAT_MAX):
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


#: The finest PLD precision :func:`check` reaches on its own when a subsampled-Gaussian claim lies inside the bracket at
#: the default precision (1/100, then 1/400, 1/1600, 1/6400: each about twice the cost of the one before).
AUTO_PRECISION_MIN = Fraction(1, 6400)

#: The claim (eps, delta) being checked and the target relative width of the PLD eps bracket, set by :func:`check` and
#: :func:`profile` so that both brackets of one check come from one composition (:func:`_sgm_pld_phases`).
_PLD_HINT: contextvars.ContextVar = contextvars.ContextVar("pld_hint", default=None)
_PLD_PRECISION: contextvars.ContextVar = contextvars.ContextVar("pld_precision", default=None)


def _sgm_pld_phases(steps, quantity: str, at: Fraction):
    """The certified PLD bracket (:mod:`.sgm_pld`, catalog ``koskela2020_pld_sgm_delta``: valid) of one or several
    subsampled-Gaussian items (phases, composed in order), or None where it does not apply (more than
    ``sgm_pld.K_MAX`` steps, sigma below 0.001, eps beyond :data:`PLD_EPS_MAX`, or a request beyond the engine's memory
    budget: then the Renyi bracket stands alone and names its source)."""
    from . import sgm_pld

    if sum(s.count for s in steps) > sgm_pld.K_MAX or (quantity == "delta" and at > PLD_EPS_MAX):
        return None
    phases = [_pld_phase(s) for s in steps]
    if any(isinstance(ph, tuple) and ph[1] < Fraction(1, 1000) for ph in phases):
        return None
    kw = {}
    hint = _PLD_HINT.get()
    if hint is not None and 0 < hint[1] < 1:
        kw["delta_hint"] = hint[1]  # check(): one composition sized for the claimed delta serves both brackets
    elif quantity == "eps":
        kw["delta_hint"] = at
    else:
        kw["eps_hint"] = at
    if _PLD_PRECISION.get() is not None:
        kw["precision"] = _PLD_PRECISION.get()
    try:
        comp = sgm_pld.sgm_pld_phases(phases, **kw)
    except ValueError as exc:
        if ("MAX_LEN" in str(exc) or "memory budget" in str(exc) or "sigma must be" in str(exc)
                or "loss spread" in str(exc)):
            return None
        raise
    return comp.delta_bracket(at) if quantity == "delta" else comp.eps_bracket(at)


def _pld_phase(s: Step):
    """The PLD engine's phase of an item (:mod:`.sgm_pld`, docstring step 7): a subsampled Gaussian (q, sigma, k); a
    Gaussian of noise sigma at sensitivity s the phase (1, sigma/s, k); Laplace and (eps, delta)-DP / randomized
    response steps a :class:`.sgm_pld.PairPhase`."""
    from .sgm_pld import PairPhase

    m = s.mechanism
    if m == "subsampled-gaussian":
        return (s.p("q"), s.p("sigma"), s.count)
    if m == "gaussian":
        return (Fraction(1), s.p("sigma") / s.p("sensitivity"), s.count)
    if m == "laplace":
        return PairPhase("laplace", s.p("sensitivity") / s.p("b"), Fraction(0), s.count)
    if m in ("rr", "dp"):
        return PairPhase("dp", s.p("eps"), s.p("delta"), s.count)
    raise ValueError(f"no PLD phase for the mechanism {m!r} (internal)")


#: the kinds the PLD engine composes with subsampled-Gaussian items (:func:`_pld_phase`); zCDP items have no pair
PLD_KINDS = frozenset({"subsampled-gaussian", "gaussian", "laplace", "dp"})


def _sgm_pld(s: Step, quantity: str, at: Fraction):
    """The discretised-PLD bracket of one subsampled-Gaussian item (:func:`_sgm_pld_phases`), or None."""
    return _sgm_pld_phases((s,), quantity, at)


def _sgm_pld_multi(steps, quantity: str, at: Fraction):
    """The certified PLD bracket of several subsampled-Gaussian items (heterogeneous phases), or None
    (:func:`_sgm_pld_phases`); :func:`_tighter` combines it with the summed-RDP bracket."""
    return _sgm_pld_phases(tuple(steps), quantity, at)


def _tighter(a: Bracket, b: Bracket | None) -> Bracket:
    """Both brackets are certified: the larger lower end and the smaller upper end, each naming its source."""
    if b is None:
        return a
    lo_a, lo_b = a.lo, b.lo
    hi_a, hi_b = a.hi, b.hi
    lo, lo_src = (lo_b, b.lo_source) if lo_b > lo_a else (lo_a, a.lo_source or a.source)
    hi, hi_src = (hi_b, b.hi_source) if hi_b < hi_a else (hi_a, a.hi_source or a.source)
    return Bracket(a.quantity, min(lo, hi), hi, False, "bracket", lo_source=lo_src, hi_source=hi_src)


def _pld_decides(b: Bracket | None) -> bool:
    """Whether a PLD bracket is finite and within 1% relative: then the binary lower end (seconds at k = 1e5, never
    tighter there) is not computed."""
    return (b is not None and mpmath.isfinite(b.hi) and b.hi > 0 and b.lo > 0
            and b.hi - b.lo <= b.hi * mpmath.mpf("0.01"))


def _sgm_single(s: Step, quantity: str, at: Fraction, dps: int) -> Bracket:
    """One subsampled-Gaussian item within the routes' limits: the RDP / binary bracket, tightened by the PLD; where the
    PLD bracket decides to 1% it stands alone (the Renyi upper end, about 0.4 s at k = 1e5, could move its upper end by
    less than 1% -- it is never below the truth, which the PLD's lower end bounds -- and the binary lower end, seconds
    at k = 1e5, is never tighter there)."""
    pld = _sgm_pld(s, quantity, at)
    if _pld_decides(pld):
        return pld
    return _tighter(_sgm_renyi_binary(s, quantity, at, dps), pld)


def _sgm_renyi_binary(s: Step, quantity: str, at: Fraction, dps: int) -> Bracket:
    """One subsampled-Gaussian item's Renyi upper end and binary lower end (:mod:`.subsampled_gaussian`)."""
    q, sigma = s.p("q"), s.p("sigma")
    if quantity == "eps":
        return sgm.sgm_eps_bracket(q, sigma, s.count, at, dps=dps)
    try:
        return sgm.sgm_delta_bracket(q, sigma, s.count, at, dps=dps)
    except RecursionError:
        # sgm_delta_lower_binary (k > 5000) recurses in mpmath's interval loggamma when eps exceeds the
        # thresholded composition's largest loss, where that lower end is 0; keep the upper end
        return Bracket("delta", mpmath.mpf(0), sgm.sgm_delta(q, sigma, s.count, at, dps=dps), False, "bracket",
                       lo_source="0 (trivial)", hi_source=sgm.SOURCE_UP)


def _sgm_tv(steps, dps: int) -> mpmath.mpf:
    """1 - prod (1 - q_i)^(k_i) rounded up: the total variation bound on delta(eps) of subsampled-Gaussian steps (SOURCE_TV)."""
    if any(s.p("q") == 1 for s in steps):
        return mpmath.mpf(1)
    qs = tuple(s.p("q") for s in steps)
    ns = tuple(s.count for s in steps)
    return certified(lambda c, *x: 1 - c.exp(sum((n * c.log(1 - v) for v, n in zip(x, ns)), c.mpf(0))), qs, "upper", dps)


def _sgm_front(steps, quantity: str, at: Fraction, dps: int) -> tuple[Bracket | None, bool]:
    """The closed-form front door of the subsampled-Gaussian routes (:mod:`.sgm_closed`): (bracket or None, final).

    The bracket is certified (one step exactly, below; the composed Gaussian with mu^2 = sum k_i/sigma_i^2 and the total
    variation bound, above: :mod:`.sgm_closed`, module docstring).  It is final -- the grid engine and the Renyi routes
    are not run -- when it settles the question: a claim of :func:`check` decided by a cheap certified test
    (:func:`.sgm_closed.sgm_closed_decides`), eps(delta) = 0 certified by the total variation bound, a bracket within
    the requested relative precision, or a run whose steps the grid does not resolve (:func:`.sgm_pld.resolves`: a
    step near no privacy loss, where the closed forms are the tight route and the double-precision ones overflow)."""
    from . import sgm_closed, sgm_pld

    phases = tuple((s.p("q"), s.p("sigma"), s.count) for s in steps)
    near_null = not all(sgm_pld.resolves(q, sg) for q, sg, _ in phases)
    hint = _PLD_HINT.get()
    decided = hint is not None and 0 < hint[1] < 1 and sgm_closed.sgm_closed_decides(phases, hint[0], hint[1]) is not None
    if quantity == "eps":
        if not (decided or near_null):
            if sgm_closed._cmp_gt(sgm_closed.sgm_tv_upper(phases), at):
                return None, False
        b = sgm_closed.sgm_closed_eps_bracket(phases, at, dps=dps)
        return b, decided or near_null or b.hi == 0
    b = sgm_closed.sgm_closed_delta_bracket(phases, at, dps=dps)
    prec = _PLD_PRECISION.get() or sgm_pld.DEFAULT_PRECISION
    tight = b.hi - b.lo <= b.hi * mpmath.mpf(prec.numerator) / prec.denominator
    return b, decided or near_null or tight


def _sgm_bracket(steps, quantity: str, at: Fraction, dps: int) -> Bracket:
    """Subsampled-Gaussian items (module docstring table); counts are never expanded.  The closed forms come first
    (:func:`_sgm_front`): when they settle the question the other routes are not run, else they tighten them (and
    are reported at once as a partial answer, :func:`_partial`, in case the slower routes run out of time)."""
    front, final = _sgm_front(steps, quantity, at, dps)
    if final:
        return front
    if front is not None:
        _partial(steps, quantity, at, front)
    return _tighter(_sgm_routes(steps, quantity, at, dps), front)


def _sgm_routes(steps, quantity: str, at: Fraction, dps: int) -> Bracket:
    """The Renyi, binary and PLD routes of subsampled-Gaussian items (module docstring table)."""
    plain = [s.p("sigma") >= SGM_SIGMA_MIN and s.count <= sgm.K_MAX for s in steps]
    if len(steps) == 1 and plain[0]:
        return _sgm_single(steps[0], quantity, at, dps)
    lo, lo_src = mpmath.mpf(0), "0 (trivial)"
    moments_low = _decisive_lower(_concentration(steps, quantity, at, dps))
    whole = _sgm_pld_multi(steps, quantity, at) if len(steps) > 1 else None
    hi = _rdp_bracket_end(steps, quantity, at, dps)
    hi_src = "summed integer-order RDP curves + improved conversion (balle2020hyp Thm 21)"
    tv = _sgm_tv(steps, dps)
    if quantity == "delta" and (hi is None or tv < hi):
        hi, hi_src = tv, SOURCE_TV
    elif quantity == "eps" and hi is None:
        hi, hi_src = (mpmath.mpf(0), SOURCE_TV) if pure_dp._cmp(tv, at) <= 0 else (cl.INF, "trivial")
    # lower end: the best single item (dropping items is post-processing); not computed where the whole run's PLD
    # bracket decides to 1% (a single item's eps is below the run's, which that bracket holds within 1%: each item
    # would cost a refined PLD of its own for a lower end that is not the larger one; a choice of cost only)
    for s, ok in ([] if _pld_decides(whole) else zip(steps, plain)):
        if not ok and moments_low and s.count > sgm.K_MAX:
            continue  # its 5000-step sub-composition is far below the moment lower end (_decisive_lower)
        if ok:
            b = _sgm_single(s, quantity, at, dps)
        else:
            # a stand-in item (sigma raised, count cut: post-processing) serves only its lower end: where the binary
            # one already lies within 1% of the run's upper end (nearly deterministic steps), its PLD is not computed
            sub = Step(s.mechanism, (("q", s.p("q")), ("sigma", max(s.p("sigma"), SGM_SIGMA_MIN))), min(s.count, SGM_SUB_K))
            b = _sgm_renyi_binary(sub, quantity, at, dps)
            if not (mpmath.isfinite(hi) and b.lo > 0 and hi - b.lo <= hi * mpmath.mpf("0.01")):
                b = _tighter(b, _sgm_pld(sub, quantity, at))
        if b.lo > lo:
            lo, lo_src = b.lo, (b.lo_source or b.source) + ("" if ok else f" of {sub.text()} (post-processing of {s.text()})")
    base = Bracket(quantity, lo, max(hi, lo), False, "bracket", lo_source=lo_src, hi_source=hi_src)
    return _tighter(base, whole) if len(steps) > 1 else base


def _eps_at_zero(steps, dps: int) -> Bracket:
    """eps(0), the smallest eps with delta(eps) = 0 (SOURCE_EPS0): exact, possibly infinite."""
    tot = Fraction(0)
    for s in steps:
        m = s.mechanism
        if m in ("rr", "dp") and s.p("delta") == 0:
            tot += s.count * s.p("eps")
        elif m == "laplace":
            tot += s.count * s.p("sensitivity") / s.p("b")
        elif m == "zcdp" and s.p("rho") == 0:
            continue
        else:
            return Bracket("eps", cl.INF, cl.INF, True, SOURCE_EPS0)
    return Bracket("eps", round_down(tot, dps), round_up(tot, dps), True, SOURCE_EPS0)


def _eps_by_inversion(steps, d: Fraction, dps: int) -> Bracket:
    """eps(d) for 0 < d < DELTA_FLOAT_MIN from certified delta(eps) brackets, by bisection.

    eps is nonincreasing in delta, so eps(d) >= the lower end at DELTA_FLOAT_MIN; an e with a
    certified delta(e) <= d is an upper end (eps(d) <= e), an e with a certified delta(e) > d a
    lower end (eps(d) > e).  Exact when every bracket used is exact and the ends meet to ``dps`` digits.
    """
    base = _group_bracket(steps, "eps", DELTA_FLOAT_MIN, dps)
    if not mpmath.isfinite(base.hi):  # no finite upper end at 1e-300 (or eps = inf): none below it either
        return Bracket("eps", base.lo, base.hi, base.exact, base.source,
                       lo_source=f"eps at delta = 1e-300 (eps is nonincreasing in delta): {base.lo_source or base.source}",
                       hi_source=base.hi_source)
    cache: dict[Fraction, Bracket] = {}

    def at(e: Fraction) -> Bracket:
        if e not in cache:
            cache[e] = _group_bracket(steps, "delta", e, dps)
        return cache[e]

    lo_ok = mpf_to_fraction(base.lo)  # certified: eps(d) >= lo_ok
    hi_ok = None
    x = max(mpf_to_fraction(base.hi) if mpmath.isfinite(base.hi) else Fraction(1), lo_ok, Fraction(1)) * 2
    for _ in range(64):
        if pure_dp._cmp(at(x).hi, d) <= 0:
            hi_ok = x
            break
        x *= 2
    if hi_ok is None:
        return Bracket("eps", base.lo, cl.INF, False, "bracket", lo_source=f"eps at delta = 1e-300: {base.lo_source or base.source}",
                       hi_source="trivial")
    exact = base.exact and at(hi_ok).exact
    # exact profiles: both ends to dps - 4 digits; brackets: the upper end to 1e-3 relative, the lower end
    # stays the one at DELTA_FLOAT_MIN (raised where an evaluation certifies more), each evaluation being costly
    tol = Fraction(1, 10 ** max(dps - 4, 6)) if exact else Fraction(1, 10 ** 3)
    u_bad, l_bad = lo_ok, (hi_ok if exact else lo_ok)  # no certified upper end at u_bad; no lower end at l_bad
    for _ in range(400):
        if hi_ok - u_bad <= tol * hi_ok and l_bad - lo_ok <= tol * hi_ok:
            break
        if hi_ok - u_bad > tol * hi_ok:
            m = (u_bad + hi_ok) / 2
            b = at(m)
            exact = exact and b.exact
            if pure_dp._cmp(b.hi, d) <= 0:
                hi_ok = m
                l_bad = min(l_bad, m)
            else:
                u_bad = m
                if pure_dp._cmp(b.lo, d) > 0:
                    lo_ok = max(lo_ok, m)
                    l_bad = max(l_bad, lo_ok)
        if l_bad - lo_ok > tol * hi_ok:
            m = (lo_ok + l_bad) / 2
            b = at(m)
            exact = exact and b.exact
            if pure_dp._cmp(b.lo, d) > 0:
                lo_ok = m
            else:
                l_bad = m
    src = f"certified delta(eps) brackets inverted by bisection ({at(hi_ok).hi_source or at(hi_ok).source})"
    lo_src = src if lo_ok != mpf_to_fraction(base.lo) else (
        f"eps at delta = 1e-300 (eps is nonincreasing in delta): {base.lo_source or base.source}")
    exact = exact and hi_ok - lo_ok <= tol * hi_ok
    return Bracket("eps", round_down(lo_ok, dps), round_up(hi_ok, dps), exact, src if exact else "bracket",
                   lo_source=lo_src, hi_source=src)


def _concentration(steps, quantity: str, at: Fraction, dps: int) -> Bracket | None:
    """The moment bracket of :mod:`.concentration` (Cantelli below, real-order Renyi / Chernoff above), or None.

    Memoised per call of :func:`check` / :func:`profile` through the steps (a tuple of frozen
    Steps), so the routes below that consult it to skip a slower, weaker lower end do not pay twice.
    """
    key = (steps, quantity, at, dps)
    memo = _CONC_MEMO.get()
    if memo is not None and key in memo:
        return memo[key]
    try:
        b = conc.concentration_bracket(steps, quantity, at, dps=dps)
    except (ValueError, ArithmeticError, OverflowError):
        b = None
    if memo is not None:
        memo[key] = b
    return b


#: The memo of :func:`_concentration` of the current :func:`check` / :func:`profile` call (None outside one).
_CONC_MEMO: contextvars.ContextVar = contextvars.ContextVar("conc_memo", default=None)


def _decisive_lower(c: Bracket | None) -> bool:
    """Whether the moment bracket has a positive lower end (then the sub-composition lower ends of huge items, which
    keep at most 10^6 (rr) or 5000 (sgm) of their steps, are not computed: they are far below it)."""
    return c is not None and c.lo > 0


#: (steps, quantity, at, report) of the bracket :func:`check` is computing, or None: a route that has a certified bracket
#: of that very question before its slower routes finish passes it to ``report`` (:func:`_partial`)
_PARTIAL: contextvars.ContextVar = contextvars.ContextVar("partial", default=None)


def _partial(steps, quantity: str, at: Fraction, b: Bracket) -> None:
    """Report ``b`` as a partial answer when it answers the question :func:`check` is computing (the same merged
    steps, quantity and point; a sub-composition's or another point's bracket is never reported)."""
    want = _PARTIAL.get()
    if want is not None and want[0] == _merge(steps) and want[1] == quantity and want[2] == at:
        want[3](b)


def intersect(a: Bracket | None, b: Bracket | None) -> Bracket | None:
    """Two certified brackets of the same quantity, intersected (the larger lower end, the smaller upper end, each
    naming its source); None where both are None."""
    if a is None:
        return b
    if b is not None and a.quantity != b.quantity:
        raise ValueError(f"brackets of different quantities: {a.quantity!r} and {b.quantity!r}")
    return _tighter(a, b) if b is not None else a


def _group_bracket(steps, quantity, at, dps) -> Bracket:
    """The profile of a composition (module docstring table), tightened by the moment bracket where it is not exact.

    Both brackets are certified, so their intersection is; two that do not meet raise
    ArithmeticError (a certified end is wrong) instead of being silently clamped.
    """
    steps = _merge(steps)
    b = _group_bracket_routes(steps, quantity, at, dps)
    if b.exact or (quantity == "eps" and at == 0):
        return b
    c = _concentration(steps, quantity, at, dps)
    if c is None:
        return b
    if c.lo > b.hi or b.lo > c.hi:
        raise ArithmeticError(f"inconsistent certified brackets of {quantity} for {[s.text() for s in steps]} at {_fmt(at)}: "
                              f"[{b.lo}, {b.hi}] ({b.lo_source or b.source}; {b.hi_source or b.source}) and "
                              f"[{c.lo}, {c.hi}] (moments)")
    return _tighter(b, c)


def _group_bracket_routes(steps, quantity, at, dps) -> Bracket:
    """The profile of a composition by the routes of the module docstring table (before the moment bracket)."""
    steps = _merge(steps)
    kinds = _kinds(steps)
    if quantity == "eps" and at == 0:
        return _eps_at_zero(steps, dps)
    huge = kinds <= {"zcdp", "gaussian"} and 2 * _rho(steps) > MU2_MAX
    if not kinds <= {"dp", "laplace"}:  # these routes are exact rationals and intervals; the others pass through doubles
        if quantity == "eps" and at < DELTA_FLOAT_MIN and not huge:
            return _eps_by_inversion(steps, at, dps)
        if quantity == "delta" and at > EPS_FLOAT_MAX:
            b = _group_bracket(steps, "delta", EPS_FLOAT_MAX, dps)
            return Bracket("delta", mpmath.mpf(0), b.hi, False, "bracket", lo_source="0 (trivial)",
                           hi_source=f"delta at eps = 1e300 (delta is nonincreasing in eps): {b.hi_source or b.source}")
    if kinds == {"dp"}:
        huge_dp = sum(s.count for s in steps) > pure_dp.HOM_K_MAX and _decisive_lower(_concentration(steps, quantity, at, dps))
        return pure_dp.pure_dp_profile([(s.p("eps"), s.p("delta"), s.count) for s in steps], quantity, at,
                                       lower=not huge_dp, dps=dps)
    if kinds == {"laplace"}:  # Laplace(b) at sensitivity s has the profile of Laplace(b/s) at sensitivity 1
        fn = lap.laplace_profile_delta if quantity == "delta" else lap.laplace_profile_eps
        return fn([s.p("b") / s.p("sensitivity") for s in steps], at, counts=[s.count for s in steps], dps=dps)
    if kinds == {"subsampled-gaussian"}:
        return _sgm_bracket(steps, quantity, at, dps)
    if kinds <= {"zcdp", "gaussian"}:
        rho = _rho(steps)
        if huge:
            return _zcdp_huge(rho, quantity, at, dps)
        if kinds == {"gaussian"}:
            return _gaussian(2 * rho, quantity, at, dps)
        low = _gaussian(2 * rho, quantity, at, dps)
        if quantity == "eps":
            hi = cl.zcdp_to_dp_eps_improved(rho, at, dps=dps)
        else:
            hi = _rdp_bracket_end([Step("zcdp", (("rho", rho),), 1)], "delta", at, dps)
        return Bracket(quantity, low.lo, max(hi, low.lo), False, "bracket",
                       lo_source="the Gaussian mechanism with the same rho (it is rho-zCDP): " + low.source,
                       hi_source="improved zCDP -> DP conversion (balle2020hyp Thm 21 / canonne2020 Prop. 12)")
    # a mixture of kinds: lower = best exactly known sub-composition, upper = summed RDP.  Each group
    # below has a single kind, so it is answered by a branch above and never comes back here.
    groups: dict[str, list] = {}
    for s in steps:
        groups.setdefault("dp" if s.mechanism == "rr" else s.mechanism, []).append(s)
    if len(groups) < 2:  # pragma: no cover - every single kind has its branch above
        raise AssertionError(f"no route for the composition {[s.text() for s in steps]}")
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
    base = Bracket(quantity, lo, max(hi, lo), False, "bracket",
                   lo_source="the largest exactly known sub-composition (dropping mechanisms is post-processing)",
                   hi_source="summed integer-order RDP curves + improved conversion (balle2020hyp Thm 21)")
    if "subsampled-gaussian" in kinds and kinds <= PLD_KINDS:
        # the certified PLD of the whole mixture (every item's pair on one grid, sgm_pld docstring step 7)
        return _tighter(base, _sgm_pld_phases(steps, quantity, at))
    return base


def profile(spec, quantity: str, at, *, binary: bool = False, dps: int = 20, precision=None) -> Bracket:
    """Certified bracket of delta(eps = at) (``quantity="delta"``) or eps(delta = at) (``"eps"``; delta in [0, 1)) of a composition.

    ``precision``: the target relative width of the subsampled-Gaussian PLD eps bracket (default
    ``sgm_pld.DEFAULT_PRECISION``, 1%; smaller costs more time and memory).
    """
    steps = spec if (isinstance(spec, tuple) and all(isinstance(s, Step) for s in spec)) else parse_spec(spec, binary=binary)
    if quantity == "delta":
        a = _check("eps", at, NN)
    elif quantity == "eps":
        a = _check("delta", at, D0)
    else:
        raise ValueError(f"quantity must be 'delta' or 'eps', found {quantity!r}")
    tok, mtok = _PLD_PRECISION.set(_precision(precision)), _CONC_MEMO.set({})
    try:
        return _group_bracket(steps, quantity, a, dps)
    finally:
        _PLD_PRECISION.reset(tok)
        _CONC_MEMO.reset(mtok)


def _precision(precision):
    """The PLD precision parsed (exact; in [1e-6, 1/2]) or None."""
    if precision is None:
        return None
    from .sgm_pld import PDOM

    return _check("precision", precision, PDOM)


def generic_conversions(steps, delta: Fraction, dps: int = 20) -> dict[str, mpmath.mpf]:
    """The generic eps(delta) upper bounds a peer might use instead of the exact profile (each certified, rounded up).

    zCDP compositions (gaussian, zcdp): the improved conversion (balle2020hyp Thm 21, alpha
    optimised) and the standard rho + 2 sqrt(rho log(1/delta)); any composition with finite
    Renyi curves: the summed integer-order RDP conversion; pure compositions: basic composition.
    At delta = 0 only basic composition applies; the conversions that choose their order in
    double precision are left out below DELTA_FLOAT_MIN.
    """
    out = {}
    kinds = _kinds(steps)
    if kinds <= {"gaussian", "zcdp"} and delta > 0:
        rho = _rho(steps)
        if delta >= DELTA_FLOAT_MIN and 2 * rho <= MU2_MAX:
            out["zCDP -> DP, improved (balle2020hyp Thm 21)"] = cl.zcdp_to_dp_eps_improved(rho, delta, dps=dps)
        out["zCDP -> DP, standard rho + 2 sqrt(rho log(1/delta))"] = certified(
            lambda c, r, d: r + 2 * c.sqrt(r * c.log(1 / d)), (rho, delta), "upper", dps)
    if kinds != {"subsampled-gaussian"} and delta > 0:  # for the SGM the summed RDP is already the bracket's upper end
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
    stopped: str = ""  # why the brackets were not refined further (a deadline), else ""

    @property
    def exit_status(self) -> int:
        return {"valid": 0, "invalid": 1, "undecided": 3}[self.status]

    def as_dict(self, digits: int = 17) -> dict:
        return {
            "composition": self.composition, "claim": {"eps": _fmt(self.eps_claim), "delta": _fmt(self.delta_claim)},
            "status": self.status, "tight": self.tight, "message": self.message,
            "delta_at_claimed_eps": self.delta_bracket.as_dict(digits),
            "eps_at_claimed_delta": self.eps_bracket.as_dict(digits),
            "gap_eps": None if self.gap_eps is None else bounded_decimal(self.gap_eps, 6, "exact"),
            "explanation": self.explanation,
            "generic_conversions": {k: bounded_decimal(v, digits, "upper") for k, v in self.generic.items()},
            "exit_status": self.exit_status, "stopped": self.stopped or None,
        }


def _reported_bracket(steps, quantity: str, at: Fraction, dps: int, report, known: Bracket | None) -> Bracket:
    """The bracket of the question :func:`check` is computing, intersected with ``known`` (a certified bracket of the
    same question, or None); while it is computed, routes report partial brackets to ``report`` (:func:`_partial`),
    and the result is reported too."""
    tok = _PARTIAL.set((steps, quantity, at, report)) if report is not None else None
    try:
        b = intersect(_group_bracket(steps, quantity, at, dps), known)
    finally:
        if tok is not None:
            _PARTIAL.reset(tok)
    if report is not None:
        report(b)
    return b


def _shown_above(lo, claim: Fraction) -> str:
    """A certified lower end ``lo`` > ``claim`` printed rounded down with as many digits (6 to 30) as it takes to read
    above the claim ("1.81001e-34 > 1.81e-34", not "1.81e-34 > 1.81e-34")."""
    for digits in (6, 10, 15, 20, 30):
        text = bounded_decimal(lo, digits, "lower", probability=True)
        try:
            if Fraction(text) > claim:
                return text
        except (ValueError, ZeroDivisionError):
            return text
    return text


def _trivial(quantity: str, why: str) -> Bracket:
    """The bracket every composition has: delta(eps) in [0, 1], eps(delta) in [0, inf]."""
    return Bracket(quantity, mpmath.mpf(0), mpmath.mpf(1) if quantity == "delta" else cl.INF, False, "bracket",
                   lo_source=f"0 (trivial; {why})", hi_source=f"{'1' if quantity == 'delta' else 'inf'} (trivial; {why})")


def check(spec, eps, delta, *, tol="0.01", binary: bool = False, dps: int = 20, precision=None, deadline=None,
          report=None, known=None) -> Verdict:
    """Is the composition ``spec`` (eps, delta)-DP?  A certified verdict (module docstring).

    ``eps``/``delta`` are parsed exactly (``binary``: decimal strings as their nearest double);
    delta = 0 asks for pure DP (eps(0) is the largest composed loss, infinite for a Gaussian);
    ``tol`` is the relative slack under which a valid claim counts as tight; ``precision`` the
    target relative width of a subsampled-Gaussian PLD eps bracket (:func:`profile`).  The claim is valid
    when a certified upper end (of delta at eps, or of eps at delta) meets it, invalid when a
    certified lower end exceeds it; two certified ends that disagree raise ArithmeticError.

    Time: ``deadline`` (a ``time.monotonic()`` instant, default none) is checked before each bracket and each
    finer precision; past it no new bracket is started and the verdict uses the best brackets computed (the
    trivial [0, 1] / [0, inf] where none was), with ``stopped`` saying so (usually undecided, exit status 3).
    ``report(bracket)`` is called with each bracket as it is computed (a parent process keeps them when it stops
    this one); ``known`` = (delta bracket, eps bracket), each certified for this very composition and claim or
    None, is where the brackets start (e.g. those a stopped process reported).
    """
    import time
    steps = _merge(parse_spec(spec, binary=binary))
    e = _value(eps, "eps", binary)
    d = _value(delta, "delta", binary)  # in [0, 1)
    t = to_exact(tol, "tol")
    prec = _precision(precision)
    # a subsampled-Gaussian claim inside the bracket at the default precision is retried on finer grids (each step
    # divides the target width by 4, about twice the cost) before it is called undecided; an explicit precision is kept
    auto = prec is None and any(s.mechanism == "subsampled-gaussian" for s in steps)
    prec = prec if prec is not None else Fraction(1, 100)
    db, eb = known if known is not None else (None, None)
    stopped = ""

    def late(what: str) -> bool:
        nonlocal stopped
        if deadline is not None and time.monotonic() > deadline:
            stopped = f"stopped at the time limit before the {what} (precision {prec}) was computed"
        return bool(stopped)

    while not late("delta bracket"):
        toks = _PLD_HINT.set((e, d)), _PLD_PRECISION.set(prec), _CONC_MEMO.set({})
        try:
            db = _reported_bracket(steps, "delta", e, dps, report, db)
            if late("eps bracket"):
                break
            eb = _reported_bracket(steps, "eps", d, dps, report, eb)
        finally:
            _PLD_HINT.reset(toks[0])
            _PLD_PRECISION.reset(toks[1])
            _CONC_MEMO.reset(toks[2])
        decided = (pure_dp._cmp(db.hi, d) <= 0 or pure_dp._cmp(eb.hi, e) <= 0 or pure_dp._cmp(db.lo, d) > 0
                   or pure_dp._cmp(eb.lo, e) > 0)
        if decided or not auto or prec <= AUTO_PRECISION_MIN:
            break
        prec = prec / 4
    db = db if db is not None else _trivial("delta", stopped or "not computed")
    eb = eb if eb is not None else _trivial("eps", stopped or "not computed")
    comp = " + ".join(s.text() for s in steps)
    ehi = mpf_to_fraction(eb.hi) if mpmath.isfinite(eb.hi) else None
    elo = mpf_to_fraction(eb.lo) if mpmath.isfinite(eb.lo) else None
    # mpf against rational without forming the mpf's exact value (delta can be e^-(10^9))
    valid = pure_dp._cmp(db.hi, d) <= 0 or pure_dp._cmp(eb.hi, e) <= 0
    invalid = pure_dp._cmp(db.lo, d) > 0 or pure_dp._cmp(eb.lo, e) > 0
    if valid and invalid:
        raise ArithmeticError(f"inconsistent certified brackets for {comp} at (eps, delta) = ({_fmt(e)}, {_fmt(d)}): "
                              f"delta in [{db.lo}, {db.hi}], eps in [{eb.lo}, {eb.hi}]")
    if valid:
        gap = e - ehi if ehi is not None and ehi <= e else None
        tight = gap is not None and gap <= t * max(ehi, Fraction(1, 10 ** 30)) and eb.exact
        if tight:
            msg = f"valid and tight: the certified eps at delta = {_fmt(d)} is at most {bounded_decimal(eb.hi, 8, 'upper')} (within {_fmt(t)} relative)"
        else:
            msg = (f"valid but loose by {bounded_decimal(gap, 4, 'lower')} in eps: the certified eps at delta = {_fmt(d)} is at most "
                   f"{bounded_decimal(eb.hi, 8, 'upper')}" if gap is not None else
                   f"valid: the certified delta at eps = {_fmt(e)} is at most {bounded_decimal(db.hi, 6, 'upper', probability=True)}")
            if not eb.exact:
                msg += " (an upper bound; the exact value may be smaller still)"
        expl = ""
        gen = generic_conversions(steps, d, dps=20)
        below = {k: v for k, v in gen.items() if pure_dp._cmp(v, e) > 0}
        if below:
            names = "; ".join(f"{k} gives {bounded_decimal(v, 6, 'upper')}" for k, v in below.items())
            expl = (f"the claim is below the generic conversion(s) ({names}); it holds because of "
                    f"{eb.hi_source or eb.source} (certified eps <= {bounded_decimal(eb.hi, 6, 'upper')})")
        return Verdict("valid", bool(tight), msg, comp, e, d, db, eb, round_down(gap, 20) if gap is not None else None, expl, gen,
                       stopped)
    if invalid:
        gap = (elo - e) if elo is not None and elo > e else None
        if gap is not None:
            head = (f"anti-conservative by {bounded_decimal(gap, 4, 'lower')} in eps: the true eps at delta = {_fmt(d)} is at least "
                    f"{bounded_decimal(eb.lo, 8, 'lower')}")
        elif not mpmath.isfinite(eb.lo):
            head = f"the true eps at delta = {_fmt(d)} is infinite (no finite eps holds at this delta)"
        else:
            head = ""
        tail = (f"the true delta at eps = {_fmt(e)} is at least {_shown_above(db.lo, d)} > {_fmt(d)}"
                if pure_dp._cmp(db.lo, d) > 0 else "")
        msg = "INVALID: " + ", and ".join(x for x in (head, tail) if x)
        src = (db.lo_source or db.source) if tail else (eb.lo_source or eb.source)
        return Verdict("invalid", False, msg, comp, e, d, db, eb, -round_down(gap, 20) if gap is not None else None,
                       f"lower end: {src}", stopped=stopped)
    msg = (f"undecided: the certified delta at eps = {_fmt(e)} lies in [{bounded_decimal(db.lo, 6, 'lower', probability=True)}, "
           f"{bounded_decimal(db.hi, 6, 'upper', probability=True)}], which contains the claimed {_fmt(d)}")
    if stopped:
        msg += f" ({stopped})"
    expl = f"lower end: {db.lo_source or db.source}; upper end: {db.hi_source or db.source}"
    return Verdict("undecided", False, msg, comp, e, d, db, eb, None, expl, stopped=stopped)
