"""Generic invariants every catalog entry must satisfy, written once over ``reference.catalog``.

For every entry (parametrized from :func:`reference.catalog.entries`, so a new entry is
covered automatically, and the completeness tests fail until it is declared in
:mod:`proofs.catalog_properties`):

1. **Monotonicity** in each parameter as declared in ``MONOTONE`` (derived from the
   mathematics): random pairs x <= x' (hypothesis) and a deterministic sweep over the
   domain's extremes (1e-300, 1e3, the bounds).  Outputs are rounded once, so
   f(x) <= f(x') + 1 ulp at the working dps is required (exactly, for integers).
2. **Direction of rounding**: an upper bound at dps 15 is >= the dps 60 value minus
   1e-58 relative and within 1e-13 relative above it; mirrored for lower bounds;
   'exact' entries agree within 1e-14; integer entries take no dps.
3. **Agreement across precisions** 30, 50, 80: pairwise within the looser precision's
   tolerance, ordered as the direction implies.
4. **Bad input**: for every parameter, values derived from its Domain (below lo, above
   hi, a non-integer for an integer domain, NaN, +-inf, a non-number string) raise
   ``ValueError`` naming the parameter.
5. **Defaults** evaluate to a finite ``mpf`` / ``int``.
6. **CLI**: ``fullyadaptive eval ID`` prints what the Python call returns at the defaults.
7. **Validity**: an entry ``valid under a restriction`` states it machine-readably
   (``Entry.checks`` or why it cannot be checked, ``Entry.unchecked``), and refuses every
   argument outside a checked restriction with a ``ValueError`` naming the parameter and the
   erratum; an entry ``false as printed`` has an id ending in ``_as_printed``; former ids
   (``reference.catalog.ALIASES``) still resolve.
"""
from __future__ import annotations

import contextlib
import inspect
import math
import re
import signal
from fractions import Fraction

import mpmath
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from proofs.catalog_properties import CONST, DEC, INC, INF_OK, KINDS, MONOTONE, RANGES, SLOW, SWEEP_BASE
from reference.catalog import ALIASES, RESTRICTION_RULES, entries, get
from reference.precision import DEFAULT_DPS, Domain, to_exact

ENTRIES = entries()
IDS = [e.id for e in ENTRIES]
HEALTH = [HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large]


# ===========================================================================
# Evaluation helpers
# ===========================================================================

def takes_dps(entry) -> bool:
    return "dps" in inspect.signature(entry.func).parameters


def call(entry, kwargs: dict, dps: int = DEFAULT_DPS):
    kw = dict(kwargs)
    if takes_dps(entry):
        kw["dps"] = dps
    return entry.func(**kw)


def bits_of(dps: int) -> int:
    """Mantissa bits of a result at ``dps`` digits (reference.precision._target_bits)."""
    return int(math.ceil(dps * math.log2(10))) + 4


def ulp(v, dps: int) -> mpmath.mpf:
    """One unit in the last place of a ``dps``-digit result of magnitude |v| (0 for v = 0)."""
    if v == 0 or not mpmath.isfinite(v):
        return mpmath.mpf(0)
    _, e = mpmath.frexp(abs(v))  # |v| = m 2^e, 1/2 <= m < 1
    return mpmath.ldexp(1, int(e) - bits_of(dps))


def is_inf(v) -> bool:
    return isinstance(v, mpmath.mpf) and mpmath.isinf(v)


#: Each (id, parameter) and (id) hypothesis test runs a third of the profile's examples
#: (dev 8, ci 20): with ~390 monotonicity and ~150 rounding tests that is ~3,000 (dev) /
#: ~7,800 (ci) random pairs in all; the ``slow``-marked ``*_full`` variants run the whole profile.
FRACTION = 3


def budget(eid: str, full: bool = False) -> tuple[int, int]:
    """(max examples, monotonicity dps) for ``eid``: a third of the profile's (all with ``full``), fewer if listed in SLOW."""
    n = settings.default.max_examples if full else max(4, settings.default.max_examples // FRACTION)
    if eid in SLOW:
        return min(n, SLOW[eid][0]), SLOW[eid][1]
    return n, DEFAULT_DPS


def run_hypothesis(eid: str, body, max_examples: int | None = None) -> None:
    n = budget(eid)[0] if max_examples is None else max_examples
    settings(settings.default, max_examples=n, deadline=None, suppress_health_check=HEALTH)(given(st.data())(body))()


# ===========================================================================
# Value strategies derived from a parameter's Domain (and RANGES)
# ===========================================================================

#: A sampling range is a Domain (the Param's, or narrowed by RANGES).
Rng = Domain


def rng_for(param, override=None) -> Rng:
    d = param.domain
    lo, loc, hi, hic = d.lo, d.lo_closed, d.hi, d.hi_closed
    if isinstance(override, tuple):
        olo, ohi = (None if x is None else Fraction(to_exact(x, param.name)) for x in override)
        if olo is not None and (lo is None or olo > lo or (olo == lo and not loc)):
            lo, loc = olo, True
            if not d.contains(olo):
                loc = False
        if ohi is not None and (hi is None or ohi < hi or (ohi == hi and not hic)):
            hi, hic = ohi, True
            if not d.contains(ohi):
                hic = False
    return Rng(lo=lo, hi=hi, lo_closed=loc, hi_closed=hic, integer=d.integer)


_REAL_SPECIALS = [Fraction(0), Fraction(1, 10**300), Fraction(1, 10**100), Fraction(1, 10**30), Fraction(1, 10**12),
                  Fraction(1, 10**6), Fraction(1, 1000), Fraction(1, 100), Fraction(1, 10), Fraction(1, 4), Fraction(1, 2),
                  Fraction(9, 10), 1 - Fraction(1, 10**12), Fraction(1), 1 + Fraction(1, 10**12), Fraction(3, 2), Fraction(2),
                  Fraction(3), Fraction(10), Fraction(100), Fraction(1000)]
_INT_SPECIALS = [0, 1, 2, 3, 4, 5, 8, 10, 100, 1000, 10**4, 10**6]


def specials(r: Rng) -> list[Fraction]:
    """The extremes of the sampled range: 1e-300, 1e3, the bounds and points next to them."""
    if r.integer:
        out = {Fraction(k) for k in _INT_SPECIALS}
        for b in (r.lo, r.hi):
            if b is not None:
                out |= {b - 1, b, b + 1}
    else:
        out = set(_REAL_SPECIALS)
        if r.lo is not None and r.hi is not None:
            w = r.hi - r.lo
            out |= {r.lo, r.hi, r.lo + w / 10**12, r.hi - w / 10**12, r.lo + w / 2}
        elif r.lo is not None:
            out |= {r.lo, r.lo + Fraction(1, 10**12), r.lo + 1, r.lo + 1000}
        elif r.hi is not None:
            out |= {r.hi, r.hi - Fraction(1, 10**12)}
        else:
            out |= {-x for x in _REAL_SPECIALS}
    return sorted(q for q in out if r.contains(q))


def value_strategy(r: Rng) -> st.SearchStrategy:
    sp = specials(r)
    parts = [st.sampled_from(sp)] if sp else []
    if r.integer:
        lo = int(r.lo if r.lo_closed else r.lo + 1) if r.lo is not None else 0
        hi = int(r.hi if r.hi_closed else r.hi - 1) if r.hi is not None else None
        top = lambda w: lo + w if hi is None else min(hi, lo + w)  # noqa: E731
        parts.append(st.integers(lo, top(20)))
        parts.append(st.integers(0, 6).flatmap(lambda e: st.integers(lo, top(10**e))))
        return st.one_of(parts).map(Fraction)
    logscale = st.builds(lambda m, e: Fraction(m) * Fraction(10) ** e, st.integers(1, 999), st.integers(-15, 0))
    if r.lo is not None and r.hi is not None:
        w = r.hi - r.lo
        parts.append(st.integers(1, 1023).map(lambda j: r.lo + w * Fraction(j, 1024)))
        parts.append(logscale.filter(lambda v: v < 1).map(lambda v: r.lo + w * v))
        parts.append(logscale.filter(lambda v: v < 1).map(lambda v: r.hi - w * v))
    elif r.lo is not None:
        parts.append(logscale.map(lambda v: r.lo + v * 1000))
    elif r.hi is not None:
        parts.append(logscale.map(lambda v: r.hi - v * 1000))
    else:
        parts.append(st.tuples(st.booleans(), logscale).map(lambda t: (1 if t[0] else -1) * t[1] * 1000))
    return st.one_of(parts).filter(r.contains)


def param_rng(entry, pname: str, where: dict | None = None) -> Rng:
    p = next(q for q in entry.params if q.name == pname)
    ov = dict(RANGES.get(entry.id, {}))
    ov.update(where or {})
    return rng_for(p, ov.get(pname))


def element_strategy(entry, pname: str, where: dict | None = None) -> st.SearchStrategy:
    """Values of one scalar / integer parameter, or of one element of a sequence parameter."""
    ov = dict(RANGES.get(entry.id, {}))
    ov.update(where or {})
    o = ov.get(pname)
    if isinstance(o, list):
        return st.sampled_from(o)
    if pname == "n" and "n_multiple_of" in ov:
        k = ov["n_multiple_of"]
        r = param_rng(entry, pname, where)
        return st.integers(int(r.lo) // k, int(r.hi) // k).map(lambda j: Fraction(j * k))
    return value_strategy(param_rng(entry, pname, where))


@st.composite
def points(draw, entry, where: dict | None = None):
    """A full keyword-argument dict for ``entry`` (sequences share one length)."""
    ov = RANGES.get(entry.id, {})
    n = draw(st.integers(1, ov.get("seq_len", 4)))
    kw = {}
    for p in entry.params:
        if p.kind == "text":
            kw[p.name] = draw(element_strategy(entry, p.name, where)) if p.name in ov else p.default
        elif p.kind == "sequence" and not isinstance(ov.get(p.name), list):
            kw[p.name] = [draw(element_strategy(entry, p.name, where)) for _ in range(n)]
        else:
            kw[p.name] = draw(element_strategy(entry, p.name, where))
    return kw


def try_call(entry, kw, dps):
    """Evaluate; ``None`` when a cross-parameter precondition refuses the point (ValueError)."""
    try:
        return call(entry, kw, dps)
    except ValueError:
        return None


# ===========================================================================
# 0. Completeness: every entry, every parameter is declared
# ===========================================================================

def test_every_catalog_id_has_monotonicity_declarations():
    missing = sorted(set(IDS) - set(MONOTONE))
    stale = sorted(set(MONOTONE) - set(IDS))
    assert not missing, f"declare monotonicity in proofs/catalog_properties.py for: {missing}"
    assert not stale, f"declarations for ids not in the catalog: {stale}"


@pytest.mark.parametrize("eid", IDS)
def test_declaration_covers_every_parameter(eid):
    entry = get(eid)
    decl = MONOTONE[eid]
    names = [p.name for p in entry.params]
    assert sorted(decl) == sorted(names), f"{eid}: declared {sorted(decl)}, parameters {sorted(names)}"
    for name, m in decl.items():
        assert m.kind in KINDS, f"{eid}.{name}: kind {m.kind!r}"
        if m.kind is None:
            assert m.reason.strip(), f"{eid}.{name}: a None declaration needs a reason"
        assert set(m.where) <= set(names), f"{eid}.{name}: 'where' names unknown parameters {set(m.where) - set(names)}"


def test_auxiliary_tables_name_catalog_ids_and_parameters():
    for table in (RANGES, SLOW, INF_OK):
        assert set(table) <= set(IDS), sorted(set(table) - set(IDS))
    for eid, ov in RANGES.items():
        names = {p.name for p in get(eid).params}
        assert set(ov) <= names | {"seq_len", "n_multiple_of"}, (eid, set(ov) - names)
    for eid, base in SWEEP_BASE.items():  # a sweep's base point is a valid point inside the entry's RANGES
        assert eid in IDS and set(base) <= {p.name for p in get(eid).params}, (eid, base)
        for name, value in base.items():
            assert param_rng(get(eid), name).contains(Fraction(to_exact(value, name))), (eid, name, value)


def test_every_parameter_has_a_default():
    """The CLI evaluates an entry with no arguments; invariants 4-6 start from the defaults."""
    for e in ENTRIES:
        for p in e.params:
            assert p.default is not None, f"{e.id}.{p.name} has no default"


# ===========================================================================
# 1. Monotonicity
# ===========================================================================

MONO_CASES = [pytest.param(eid, name, id=f"{eid}-{name}")
              for eid in IDS for name, m in sorted(MONOTONE.get(eid, {}).items()) if m.kind is not None]


def assert_ordered(entry, kind: str, x1, x2, v1, v2, dps: int, what: str) -> None:
    """v1 = f(x1), v2 = f(x2) with x1 <= x2 in the tested parameter."""
    msg = f"{entry.id}: not {kind} in {what}: f({x1}) = {v1}, f({x2}) = {v2}"
    if kind == CONST:
        assert v1 == v2, msg
        return
    lo, hi = (v1, v2) if kind == INC else (v2, v1)  # need lo <= hi (+ 1 ulp)
    if entry.returns == "int":
        assert lo <= hi, msg
        return
    if is_inf(hi) and hi > 0:
        return
    assert not (is_inf(lo) and lo > 0), msg
    slack = max(ulp(lo, dps), ulp(hi, dps))
    assert lo <= hi + slack, msg + f" (difference {lo - hi}, one ulp {slack})"


def _with(kw, name, value, index=None):
    out = {k: (list(v) if isinstance(v, list) else v) for k, v in kw.items()}
    if index is None:
        out[name] = value
    else:
        out[name][index] = value
    return out


@pytest.mark.parametrize("eid,pname", MONO_CASES)
def test_monotone_random_pairs(eid, pname, full=False, kind=None):
    entry = get(eid)
    decl = MONOTONE[eid][pname]
    kind = kind or decl.kind
    param = next(p for p in entry.params if p.name == pname)
    dps = budget(eid)[1]
    vals = element_strategy(entry, pname, decl.where)

    def body(data):
        kw = data.draw(points(entry, decl.where), label="point")
        a, b = sorted((data.draw(vals, label="a"), data.draw(vals, label="b")), key=lambda v: to_exact(v, pname))
        idx = data.draw(st.integers(0, len(kw[pname]) - 1), label="index") if param.kind == "sequence" else None
        x1, x2 = _with(kw, pname, a, idx), _with(kw, pname, b, idx)
        v1 = try_call(entry, x1, dps)
        assume(v1 is not None)
        v2 = try_call(entry, x2, dps)
        assume(v2 is not None)
        assert_ordered(entry, kind, x1, x2, v1, v2, dps, pname if idx is None else f"{pname}[{idx}]")

    run_hypothesis(eid, body, budget(eid, full)[0])


@pytest.mark.slow
@pytest.mark.parametrize("eid,pname", MONO_CASES)
def test_monotone_random_pairs_full(eid, pname):
    test_monotone_random_pairs(eid, pname, full=True)


@pytest.mark.parametrize("eid,pname", MONO_CASES)
def test_monotone_sweep_over_extremes(eid, pname):
    """Deterministic chain: the parameter swept over its range's extremes (1e-300 ... 1e3, the bounds), others at defaults."""
    entry = get(eid)
    decl = MONOTONE[eid][pname]
    param = next(p for p in entry.params if p.name == pname)
    dps = budget(eid)[1]
    base = {p.name: ([s.strip() for s in p.default.split(",")] if p.kind == "sequence" else p.default) for p in entry.params}
    base.update({k: v for k, v in SWEEP_BASE.get(eid, {}).items() if k != pname})
    ov = dict(RANGES.get(eid, {}))
    ov.update(decl.where)
    for name, o in decl.where.items():  # move the defaults into the declaration's range
        if name != pname and isinstance(o, tuple):
            r = param_rng(entry, name, decl.where)
            d = Fraction(to_exact(base[name][0] if isinstance(base[name], list) else base[name], name))
            if not r.contains(d):
                fix = r.lo if r.lo is not None and r.lo_closed else (r.lo + 1 if r.lo is not None else r.hi)
                base[name] = [fix] * len(base[name]) if isinstance(base[name], list) else fix
    if isinstance(ov.get(pname), list):
        grid = list(ov[pname])
        grid.sort(key=lambda s: to_exact(s, pname))
    else:
        grid = specials(param_rng(entry, pname, decl.where))
    if len(grid) > 12 and eid in SLOW:
        grid = grid[:: max(1, len(grid) // 8)] + [grid[-1]]
    prev = None
    for g in grid:
        x = _with(base, pname, g, 0 if param.kind == "sequence" else None)
        v = try_call(entry, x, dps)
        if v is None:
            continue
        if prev is not None:
            assert_ordered(entry, decl.kind, prev[0], x, prev[1], v, dps, pname)
        prev = (x, v)
    assert prev is not None, f"{eid}: no point of the sweep over {pname} was accepted"


# ===========================================================================
# 2./3. Rounding direction and agreement across precisions
# ===========================================================================

def tol(dps: int) -> mpmath.mpf:
    """Relative tolerance of a result at ``dps`` digits: 10^-(dps-2) (1e-13 at 15, 1e-58 at 60)."""
    return mpmath.mpf(10) ** (2 - dps)


def check_pair(entry, lo_dps: int, hi_dps: int, v_lo, v_hi, where: str) -> None:
    """v_lo = f(dps=lo_dps), v_hi = f(dps=hi_dps), lo_dps < hi_dps."""
    msg = f"{entry.id} at {where}: dps {lo_dps} -> {v_lo}, dps {hi_dps} -> {v_hi}"
    if entry.returns == "int":
        assert v_lo == v_hi, msg
        return
    assert not (mpmath.isnan(v_lo) or mpmath.isnan(v_hi)), msg
    if is_inf(v_lo) or is_inf(v_hi):
        assert v_lo == v_hi, msg
        return
    scale = max(abs(v_lo), abs(v_hi))
    if entry.direction == "exact":
        assert abs(v_lo - v_hi) <= tol(lo_dps + 1) * scale, msg
        return
    sign = 1 if entry.direction == "upper" else -1
    d = sign * (v_lo - v_hi)  # >= 0 up to the tight end's own error
    assert d >= -tol(hi_dps) * scale, msg + " (rounded the wrong way)"
    assert d <= tol(lo_dps) * scale, msg + " (not tight)"


def _rounding_body(entry, dpss):
    def body(data):
        kw = data.draw(points(entry), label="point")
        vals = []
        for p in dpss:
            v = try_call(entry, kw, p)
            assume(v is not None)
            vals.append(v)
        for i in range(len(dpss)):
            for j in range(i + 1, len(dpss)):
                check_pair(entry, dpss[i], dpss[j], vals[i], vals[j], str(kw))
    return body


def _rounding_examples(eid, full=False):
    """Half the per-test budget (dev 4, ci 10; all of it with ``full``), a third of that for SLOW ids."""
    n = budget(eid, full)[0] if full else max(2, budget(eid)[0] // 2)
    return max(2, n // 3) if eid in SLOW else n


@pytest.mark.parametrize("eid", IDS)
def test_rounding_direction_dps15_vs_dps60(eid, full=False):
    entry = get(eid)
    if not takes_dps(entry):
        assert entry.returns == "int", f"{eid}: an mpf entry must take dps"
        return  # integers are identical across dps by construction (no dps argument)
    d = entry.defaults()
    check_pair(entry, 15, 60, call(entry, d, 15), call(entry, d, 60), "defaults")
    run_hypothesis(eid, _rounding_body(entry, (15, 60)), _rounding_examples(eid, full))


@pytest.mark.parametrize("eid", IDS)
def test_agreement_dps30_50_80(eid, full=False):
    entry = get(eid)
    if not takes_dps(entry):
        assert entry.returns == "int"
        return
    d = entry.defaults()
    v = [call(entry, d, p) for p in (30, 50, 80)]
    for i, j in ((0, 1), (0, 2), (1, 2)):
        check_pair(entry, (30, 50, 80)[i], (30, 50, 80)[j], v[i], v[j], "defaults")
    run_hypothesis(eid, _rounding_body(entry, (30, 50, 80)), _rounding_examples(eid, full))


@pytest.mark.slow
@pytest.mark.parametrize("eid", IDS)
def test_rounding_full(eid):
    test_rounding_direction_dps15_vs_dps60(eid, full=True)
    test_agreement_dps30_50_80(eid, full=True)


# ===========================================================================
# 4. Bad input
# ===========================================================================

def bad_values(param) -> list[tuple[str, object]]:
    """Out-of-domain values derived from the Param's Domain (label, value)."""
    if param.kind == "text":
        return [("str", "abc"), ("neg", "dp:-1:0"), ("nan", "dp:nan:0"), ("empty", "")]
    d = param.domain
    out = []
    if d.lo is not None:
        out.append(("below", d.lo if not d.lo_closed else d.lo - (1 if d.integer else Fraction(1, 1000))))
    if d.hi is not None:
        out.append(("above", d.hi if not d.hi_closed else d.hi + (1 if d.integer else Fraction(1, 1000))))
    if d.integer:
        out.append(("nonint", (d.lo if d.lo is not None else 0) + Fraction(5, 2)))
    out += [("nan", float("nan")), ("inf", float("inf")), ("-inf", float("-inf")), ("str", "abc")]
    return out



BAD_CASES = []
for _e in ENTRIES:
    for _p in _e.params:
        for _label, _v in bad_values(_p):
            BAD_CASES.append(pytest.param(_e.id, _p.name, _label, _v, id=f"{_e.id}-{_p.name}-{_label}"))


@pytest.mark.parametrize("eid,pname,label,bad", BAD_CASES)
def test_bad_input_raises_naming_the_parameter(eid, pname, label, bad):
    entry = get(eid)
    kw = {}
    for p in entry.params:
        kw[p.name] = [s.strip() for s in p.default.split(",")] if p.kind == "sequence" else p.default
    param = next(p for p in entry.params if p.name == pname)
    if param.kind == "sequence":
        kw[pname][0] = bad
    else:
        kw[pname] = bad
    assert_refuses(entry, kw, pname)


def assert_refuses(entry, kw, pname):
    """``entry(**kw)`` raises ValueError whose message names ``pname`` (as a whole word, or ``pname[i]``)."""
    with pytest.raises(ValueError) as exc:
        call(entry, kw)
    assert re.search(rf"(?<![A-Za-z0-9_]){re.escape(pname)}(?![A-Za-z0-9_])", str(exc.value)), \
        f"{entry.id}: message does not name {pname!r}: {exc.value}"


#: Findings: the Param's Domain is wider than what the function accepts.
DOMAIN_CASES = [pytest.param(e.id, p.name, id=f"{e.id}-{p.name}")
                for e in ENTRIES for p in e.params if p.kind != "text"]


@pytest.mark.parametrize("eid,pname", DOMAIN_CASES)
def test_domain_values_are_accepted(eid, pname):
    """The converse of invariant 4: values inside the Param's Domain (its extremes, within RANGES) are not refused as out of domain."""
    entry = get(eid)
    param = next(p for p in entry.params if p.name == pname)
    base = {p.name: ([s.strip() for s in p.default.split(",")] if p.kind == "sequence" else p.default) for p in entry.params}
    base.update({k: v for k, v in SWEEP_BASE.get(eid, {}).items() if k != pname})
    o = RANGES.get(eid, {}).get(pname)
    grid = o if isinstance(o, list) else specials(param_rng(entry, pname))
    if len(grid) > 12 and eid in SLOW:
        grid = grid[:: max(1, len(grid) // 8)] + [grid[-1]]
    pat = re.compile(rf"^{re.escape(pname)}(\[\d+\])? must lie in")
    for g in grid:
        try:
            call(entry, _with(base, pname, g, 0 if param.kind == "sequence" else None), 20)
        except ValueError as exc:
            assert not pat.match(str(exc)), f"{eid}: {pname}={g} lies in the catalog Domain {param.domain} but: {exc}"


# ===========================================================================
# 5. Defaults
# ===========================================================================

@pytest.mark.parametrize("eid", IDS)
def test_defaults_evaluate_to_a_finite_value(eid):
    entry = get(eid)
    v = call(entry, entry.defaults())
    if entry.returns == "int":
        assert isinstance(v, int) and not isinstance(v, bool), f"{eid}: {v!r} is not an int"
    else:
        assert isinstance(v, mpmath.mpf), f"{eid}: {v!r} is not an mpf"
        assert mpmath.isfinite(v), f"{eid}: {v} at the defaults (inf documented only for: {INF_OK.get(eid)})"


@pytest.mark.parametrize("eid", IDS)
def test_inf_only_where_documented(eid):
    """Random valid points: NaN never, inf only for ids in INF_OK."""
    entry = get(eid)

    def body(data):
        kw = data.draw(points(entry), label="point")
        v = try_call(entry, kw, 20)
        assume(v is not None)
        if entry.returns == "int":
            assert isinstance(v, int)
            return
        assert isinstance(v, mpmath.mpf) and not mpmath.isnan(v), (kw, v)
        if mpmath.isinf(v):
            assert eid in INF_OK and v > 0, f"{eid} returned {v} at {kw}"

    run_hypothesis(eid, body, max(2, budget(eid)[0] // 3))


# ===========================================================================
# 6. CLI
# ===========================================================================

@pytest.mark.parametrize("eid", IDS)
def test_cli_eval_matches_python_call_at_defaults(eid, capsys):
    from reference.cli import main
    from reference.report import evaluate_entry, format_value

    entry = get(eid)
    assert main(["eval", eid]) == 0
    out = capsys.readouterr().out.strip()
    kwargs = {p.name: ([s.strip() for s in p.default.split(",")] if p.kind == "sequence" else p.default) for p in entry.params}
    v = call(entry, kwargs, max(DEFAULT_DPS, 15 + 5))
    assert out == format_value(entry, v, 15)
    assert evaluate_entry(entry, kwargs, digits=15) == v


# ===========================================================================
# 7. Validity: restrictions refused, printed formulas named, former ids resolved
# ===========================================================================

RESTRICTED = [e for e in ENTRIES if e.validity == "valid under a restriction"]
CHECKED = [pytest.param(e.id, i, id=f"{e.id}-{c.param}") for e in RESTRICTED for i, c in enumerate(e.checks)]

#: Random values that break each rule of reference.catalog.RESTRICTION_RULES, given the length of a valid one.
BREAKING = {"all zero": lambda n: st.lists(st.fractions(0, Fraction(99, 100), max_denominator=10**6), min_size=n,
                                          max_size=n).filter(lambda xs: any(xs))}


def test_every_restriction_rule_has_a_breaking_strategy():
    assert set(BREAKING) == set(RESTRICTION_RULES)


@pytest.mark.parametrize("eid", [e.id for e in RESTRICTED])
def test_a_restricted_entry_states_its_restriction_machine_readably(eid):
    """Either the restriction is checked from the arguments (Entry.checks) or the entry says why it cannot be."""
    e = get(eid)
    assert bool(e.checks) != bool(e.unchecked), eid
    d = e.as_dict()
    assert d["restriction_checks"] == [c.as_dict() for c in e.checks] and d["restriction_unchecked"] == (e.unchecked or None)
    for c in e.checks:
        assert c.erratum == e.erratum and c.param in {q.name for q in e.params}


@pytest.mark.parametrize("eid,i", CHECKED)
@settings(max_examples=20, deadline=None)
@given(data=st.data())
def test_an_entry_refuses_arguments_outside_its_restriction(eid, i, data):
    """Property over every checked restriction of the catalog: the defaults satisfy it and evaluate; the rule's own
    breaking value and random breaking values raise ValueError naming the parameter and the erratum (a call outside
    the restriction is never answered with a number); the keyword of the printed formula, where there is one, evaluates."""
    e = get(eid)
    c = e.checks[i]
    base = e.defaults()
    assert c.violation(base[c.param]) is None
    call(e, base, 20)
    n = len(c.violating(base[c.param]))
    for bad in (c.violating(base[c.param]), data.draw(BREAKING[c.rule](n), label=c.param)):
        kw = {**base, c.param: bad}
        with pytest.raises(ValueError, match=re.escape(c.erratum)) as info:
            call(e, kw, 20)
        assert c.param in str(info.value) and c.domain in str(info.value)
        if c.printed:
            e.func(**kw, dps=20, **{c.printed: True})


def test_false_as_printed_ids_say_so_and_former_ids_resolve():
    """A printed formula that is false is reachable only under an id that ends in _as_printed; a former id is not listed
    but still resolves (to the same function, under its new id)."""
    for e in ENTRIES:
        if e.validity == "false as printed":
            assert e.id.endswith("_as_printed"), e.id
    assert ALIASES and not set(ALIASES) & set(IDS)
    for old, new in ALIASES.items():
        assert get(old) is get(new) and new in IDS
    assert get("whitehouse2022_lem1_dp_to_pdp_delta").id == "whitehouse2022_lem1_dp_to_pdp_delta_as_printed"


def test_negative_control_restriction_checker():
    """An entry whose function ignores its declared restriction (answers outside it) is caught by the property."""
    import dataclasses

    e = get("rogers2016_thm3_6_odometer")
    silent = dataclasses.replace(e, func=lambda eps, delta, delta_prime_g, *, dps=DEFAULT_DPS, lemma3_5_as_printed=False:
                                 e.func(eps, delta, delta_prime_g, dps=dps, lemma3_5_as_printed=True))
    c = e.checks[0]
    with pytest.raises(pytest.fail.Exception):
        with pytest.raises(ValueError):
            call(silent, {**e.defaults(), c.param: c.violating(e.defaults()[c.param])}, 20)


# ===========================================================================
# Findings (library bugs the invariants found, now fixed) and witnesses of the None declarations
# ===========================================================================

@contextlib.contextmanager
def time_limit(seconds: int):
    def handler(signum, frame):
        raise TimeoutError(f"no result within {seconds} s")
    old = signal.signal(signal.SIGALRM, handler)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def test_finding_whitehouse2022_rounds_homogeneous_tiny_eps0_terminates():
    """Found by the invariants: stepping k one at a time from a 30-digit estimate never finished at eps0 = 1e-20
    (k ~ 1e38); the search now gallops (reference.precision.last_true) and the count is still exact."""
    from reference.bounds.whitehouse2023 import filter_admits
    with time_limit(3):
        k = get("whitehouse2022_thm1_rounds_homogeneous").func(eps0="1e-20", delta0=0, eps_target=1, delta_prime="1e-6",
                                                               delta_second=0)
    v0, one, dp = Fraction(1, 10**40), Fraction(1), Fraction(1, 10**6)
    assert filter_admits(k * v0, one, dp) and not filter_admits((k + 1) * v0, one, dp)


def test_finding_feldman2021_rounds_homogeneous_tiny_eps0_terminates():
    """Found by the invariants: the same one-step correction from a 40-digit estimate never finished at eps0 = 1e-25."""
    from reference.accountants.feldman2021 import dp_filter_admits
    with time_limit(3):
        k = get("feldman2021_thm4_7_rounds_homogeneous").func(eps0="1e-25", eps=1, delta="1e-6")
    v0, one, d = Fraction(1, 10**50), Fraction(1), Fraction(1, 10**6)
    assert dp_filter_admits(k * v0, one, d) and not dp_filter_admits((k + 1) * v0, one, d)


def _f(eid, dps=20, **kw):
    return call(get(eid), kw, dps)


def test_witness_piecewise_quotes_drop_at_V_1():
    """whitehouse2022_lem4_as_printed / whitehouse2023_lem3_as_printed (as printed) are not monotone in V: the (18) branch just above V = 1 is smaller."""
    for eid in ("whitehouse2022_lem4_as_printed", "whitehouse2023_lem3_as_printed"):
        assert _f(eid, V="1.01", delta_prime="1e-6", n_records=10**4) < _f(eid, V=1, delta_prime="1e-6", n_records=10**4)


def test_witness_thm6_5_drops_at_V_1_for_small_n():
    """rogers2016_thm6_5 (eqs. (17)/(18)) decreases in eps across V = 1 when n <= 8, hence the n >= 9 restriction."""
    for eid in ("rogers2016_thm6_5", "rogers2016_thm6_5_as_printed"):
        lo = _f(eid, eps=["1"], delta=["0"], delta_g="1e-6", n=4)
        hi = _f(eid, eps=["1.001"], delta=["0"], delta_g="1e-6", n=4)
        assert hi < lo
        assert _f(eid, eps=["1.001"], delta=["0"], delta_g="1e-6", n=9) >= _f(eid, eps=["1"], delta=["0"], delta_g="1e-6", n=9)
    for eid in ("rogers2016_thm6_5_granular", "rogers2016_thm6_5_granular_as_printed"):
        assert _f(eid, eps=["1.001"], delta=["0"], delta_g="1e-6", gamma="1/4") < _f(eid, eps=["1"], delta=["0"], delta_g="1e-6", gamma="1/4")


def test_witness_non_monotone_declarations():
    """Concrete counterexamples quoted in the None declarations."""
    r = [_f("balle2020_thm5_1_eps_refined", eps0=5, n=n, delta="1e-6") for n in (2, 3, 10**10)]
    assert r[0] < r[1] and r[2] < r[1]
    q = [_f("balle2020_prop4_4_expected_dummies", n=1000, m=m, p0=1) for m in (1, 2, 1000)]
    assert q[0] < q[1] and q[2] < q[1]
    k = [_f("rogers2016_thm5_1_k", eps=["3.9"], eps_g=100, delta_g=mpmath.exp(-L), constant="28.04") for L in (1.01, 3, 10)]
    assert k[1] < k[0] and k[1] < k[2]
    a = [_f("balle2020_thm3_2_approx_delta", eps0="0.05", delta0=0, m=m, p0=1, delta="1e-6", delta1="1e-12") for m in (1, 2, 1000)]
    assert a[1] < a[0] and a[1] < a[2]


# ===========================================================================
# Negative controls: the checkers catch what they are meant to catch
# ===========================================================================

def test_negative_control_monotonicity_checker():
    """A wrong declaration is refuted by the random pairs; the slack is exactly one ulp."""
    with pytest.raises(AssertionError, match="not increasing"):
        test_monotone_random_pairs("whitehouse2022_eq2_eps", "delta_prime", kind=INC)
    with pytest.raises(AssertionError, match="not decreasing"):
        test_monotone_random_pairs("rogers2016_thm2_10_delta", "k", kind=DEC)
    entry = get("whitehouse2022_thm1_spent")
    v = call(entry, {"V": 1, "delta_prime": "1e-6"})
    u = ulp(v, DEFAULT_DPS)
    assert_ordered(entry, INC, "x", "x'", v + u, v, DEFAULT_DPS, "V")  # one ulp above: allowed
    with pytest.raises(AssertionError):
        assert_ordered(entry, INC, "x", "x'", v + 2 * u, v, DEFAULT_DPS, "V")  # two ulps: refused


def test_negative_control_rounding_checker():
    """An upper bound rounded down (or loose), a lower bound rounded up, a wrong exact value are all refused."""
    up, lo, ex = get("whitehouse2022_thm1_spent"), get("feldman2021_thm4_7_rho_budget"), get("whitehouse2022_eq6_ystar")
    for entry, kw in ((up, {"V": 1, "delta_prime": "1e-6"}), (lo, {"eps": 1, "delta": "1e-6"})):
        hi = call(entry, kw, 60)
        sign = 1 if entry.direction == "upper" else -1
        check_pair(entry, 15, 60, hi + sign * hi * mpmath.mpf(10) ** -16, hi, "control")  # correct side, tight
        with pytest.raises(AssertionError, match="wrong way"):
            check_pair(entry, 15, 60, hi - sign * hi * mpmath.mpf(10) ** -16, hi, "control")
        with pytest.raises(AssertionError, match="not tight"):
            check_pair(entry, 15, 60, hi + sign * hi * mpmath.mpf(10) ** -12, hi, "control")
    v = call(ex, ex.defaults(), 60)
    with pytest.raises(AssertionError):
        check_pair(ex, 15, 60, v * (1 + mpmath.mpf(10) ** -13), v, "control")


def test_negative_control_bad_input_checker():
    """A function that clamps instead of raising, or raises without naming the parameter, is caught."""
    from reference.catalog import Entry, Param
    from reference.precision import Domain

    def clamps(x, *, dps=DEFAULT_DPS):
        return mpmath.mpf(min(max(float(x), 0.0), 1.0)) if x == x else mpmath.mpf(0)

    def anonymous(x, *, dps=DEFAULT_DPS):
        raise ValueError("bad value")

    for fn in (clamps, anonymous):
        fake = Entry(id="fake", paper="rogers2016", result="-", direction="upper", summary="-",
                     params=(Param("x", Domain.open_unit(), default="0.5"),), func=fn)
        with pytest.raises((AssertionError, pytest.fail.Exception)):
            assert_refuses(fake, {"x": 2}, "x")
    assert_refuses(get("whitehouse2022_thm1_spent"), {"V": 1, "delta_prime": 2}, "delta_prime")
    with pytest.raises(AssertionError):  # right error, wrong parameter named
        assert_refuses(get("whitehouse2022_thm1_spent"), {"V": 1, "delta_prime": 2}, "V")
