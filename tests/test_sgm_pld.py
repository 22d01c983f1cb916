"""The certified discretised-PLD bracket of the Poisson-subsampled Gaussian (reference.profiles.sgm_pld)."""
from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest

from reference.precision import mpf_to_fraction
from reference.profiles import gaussian as g
from reference.profiles import sgm_pld as m
from reference.profiles import subsampled_gaussian as sgm
from reference.profiles.check import profile

F = mpf_to_fraction


def _hs_closed(q, s, t, reverse=False):
    """H_t(P || Q) (or H_t(Q || P)) of one step, closed form in mpmath (a second route, 40 digits)."""
    q, s, t = mpmath.mpf(q), mpmath.mpf(s), mpmath.mpf(t)
    if t <= 0:
        return mpmath.mpf(1)
    P = lambda x: (1 - q) * mpmath.ncdf(-x / s) + q * mpmath.ncdf(-(x - 1) / s)  # noqa: E731  survival of P at x
    Q = lambda x: mpmath.ncdf(-x / s)  # noqa: E731
    ell = lambda x: mpmath.log(1 - q + q * mpmath.exp((2 * x - 1) / (2 * s * s)))  # noqa: E731
    lt = mpmath.log(t)
    # x* with l(x*) = log t (P || Q) or -l(x*) = log t (Q || P)
    target = -lt if reverse else lt
    if q < 1 and target <= mpmath.log(1 - q):
        x0 = mpmath.ninf
    else:
        x0 = s * s * mpmath.log((mpmath.exp(target) - (1 - q)) / q) + mpmath.mpf(1) / 2 if q < 1 else s * s * target + mpmath.mpf(1) / 2
    if not reverse:  # {l > log t} = {x > x0}
        pm, qm = (1, 1) if x0 == mpmath.ninf else (P(x0), Q(x0))
        return max(mpmath.mpf(0), pm - t * qm)
    # Q || P: {-l > log t} = {x < x0}
    if x0 == mpmath.ninf:
        return mpmath.mpf(0)
    return max(mpmath.mpf(0), (1 - Q(x0)) - t * (1 - P(x0)))


def _truth(q, s, k, eps):
    """delta(eps) of the k-fold composition, k in {1, 2}, by mpmath.quad (k = 2: conditioning on the first step)."""
    mpmath.mp.dps = 40
    e = mpmath.mpf(eps)
    if k == 1:
        return max(_hs_closed(q, s, mpmath.exp(e)), _hs_closed(q, s, mpmath.exp(e), True))
    qq, ss = mpmath.mpf(q), mpmath.mpf(s)
    p = lambda x: (1 - qq) * mpmath.npdf(x, 0, ss) + qq * mpmath.npdf(x, 1, ss)  # noqa: E731
    qd = lambda x: mpmath.npdf(x, 0, ss)  # noqa: E731
    ell = lambda x: mpmath.log(p(x) / qd(x))  # noqa: E731
    f = mpmath.quad(lambda x: p(x) * _hs_closed(q, s, mpmath.exp(e - ell(x))), [-mpmath.inf, -2, 0, 1, 3, mpmath.inf])
    r = mpmath.quad(lambda x: qd(x) * _hs_closed(q, s, mpmath.exp(e + ell(x)), True), [-mpmath.inf, -2, 0, 1, 3, mpmath.inf])
    return max(f, r)


@pytest.mark.parametrize("q,s,k,eps", [("0.01", "1.1", 1, "0.001"), ("0.1", "1", 1, "0.1"), ("0.5", "2", 1, "0.5"),
                                       ("0.1", "1", 2, "0.2"), ("0.5", "1.5", 2, "1"), ("1", "2", 1, "0.5")])
def test_small_k_against_quadrature(q, s, k, eps):
    """A second route (mpmath.quad at 40 digits) lies inside the certified bracket, and the bracket meets the default
    precision (1% relative width in delta, after at most one refinement; both ends are second order in h)."""
    b = m.sgm_pld_delta_bracket(q, s, k, eps)
    t = _truth(q, s, k, eps)
    assert b.lo <= t <= b.hi, (b.lo, t, b.hi)
    assert b.hi - b.lo <= mpmath.mpf("0.01") * b.hi + mpmath.mpf(10) ** -15


def test_negative_control_lower_end_on_shifted_losses_is_caught():
    """A lower end whose optimistic atoms are recorded one grid step too high (the bucket's loss rounded up instead of
    kept within the certified deviation) rises above the truth: the quadrature containment test catches it."""
    C = m.sgm_pld("0.5", "1.5", 2, grid_bits=5)
    t = F(_truth("0.5", "1.5", 2, "1"))
    broken = max(C.lvP.lower(Fraction(1) - 2 * C.lvP.h), C.lvQ.lower(Fraction(1) - 2 * C.lvQ.h))  # every loss + h
    assert broken > t >= C.delta_lower_exact(1)


def test_negative_control_rounded_down_upper_end_is_caught():
    """An 'upper' end read from the split law at eps + h (losses rounded down by one grid step) falls below the truth."""
    C = m.sgm_pld("0.1", "1", 1, eps_hint="0.1")
    t = _truth("0.1", "1", 1, "0.1")
    assert C.delta_upper_exact(Fraction(1, 10) + C.h) < F(t) <= C.delta_upper_exact(Fraction(1, 10))


def test_q_one_is_the_gaussian():
    # q = 1: the Gaussian mechanism, k = 10, sigma = 2: mu = sqrt(10)/2 (dong2022 Cor. 2.13, exact)
    for eps in ("0.5", "2"):
        b = m.sgm_pld_delta_bracket(1, 2, 10, eps)
        lo = g.gdp_delta_lower(Fraction(eps), Fraction(3162277660168379, 2 * 10 ** 15), dps=20)  # mu rounded down
        hi = g.gdp_delta(Fraction(eps), Fraction(3162277660168380, 2 * 10 ** 15), dps=20)  # mu rounded up
        assert b.lo <= hi and lo <= b.hi, (b.lo, lo, hi, b.hi)
        assert b.hi - b.lo < mpmath.mpf("0.05") * hi


def test_lower_below_upper_and_refinement_narrows():
    widths = []
    for bits in (9, 11):
        C = m.sgm_pld("0.05", "1", 100, grid_bits=bits)
        for eps in ("0", "0.5", "1", "2", "4"):
            assert C.delta_lower(eps) <= C.delta_upper(eps)
        widths.append(C.delta_upper("1") - C.delta_lower("1"))
    assert widths[1] < widths[0]


@pytest.mark.parametrize("q,s,k,d", [("0.01", "1.1", 1000, "1e-5"), ("0.1", "1", 50, "1e-6"), ("0.02", "0.8", 300, "1e-3"),
                                     ("0.5", "2", 20, "1e-8")])
def test_eps_bracket_ends_are_checked_against_the_delta_ends(q, s, k, d):
    """The definition each end bounds: delta_upper(eps_hi) <= delta and delta_lower(eps_lo) > delta; and the upper end is
    not loose by a grid step (a dropped '+ 1' -- eps_hi one step low -- violates the first inequality)."""
    C = m.sgm_pld(q, s, k, delta_hint=d)
    b = C.eps_bracket(d)
    hi, lo = F(b.hi), F(b.lo)
    dd = Fraction(d)
    assert C.delta_upper_exact(hi) <= dd
    assert lo == 0 or C.delta_lower_exact(lo) > dd
    assert C.delta_upper_exact(hi - C.h) > dd  # the mutant 'one grid step low' is not an upper bound
    assert lo < hi and (hi - lo) / hi < Fraction(3, 100)


def test_readme_example_tighter_than_rdp_and_one_percent_wide():
    q, s, k = "0.01", "1.1", 10000
    old_e = sgm.sgm_eps_bracket(q, s, k, "1e-5", dps=20)
    e = m.sgm_pld_eps_bracket(q, s, k, "1e-5")
    assert e.lo <= old_e.hi and old_e.lo <= e.hi  # both certified: they overlap
    assert e.hi < old_e.hi
    assert (e.hi - e.lo) / e.hi <= mpmath.mpf("0.01")  # the goal: relative width <= 1%
    assert mpmath.mpf("5.1") < e.lo < e.hi < mpmath.mpf("5.25")


def test_heterogeneous_phases_sit_between_their_parts():
    """Two phases: the composed delta is at least each phase's (dropping a phase is post-processing) and the
    two-phase bracket's ends are consistent with the single-phase ones."""
    a = m.sgm_pld_phases([("0.01", "1", 10)], grid_bits=10)
    b = m.sgm_pld_phases([("0.02", "1", 10)], grid_bits=10)
    ab = m.sgm_pld_phases([("0.01", "1", 10), ("0.02", "1", 10)], grid_bits=10)
    for eps in (Fraction(1, 10), Fraction(1, 2)):
        assert ab.delta_upper_exact(eps) >= max(a.delta_lower_exact(eps), b.delta_lower_exact(eps))
        assert ab.delta_lower_exact(eps) <= ab.delta_upper_exact(eps)
    # same phase twice = one phase with the counts added (same grid): the same composed vectors
    aa = m.sgm_pld_phases([("0.01", "1", 10), ("0.01", "1", 10)], grid_bits=10)
    a20 = m.sgm_pld_phases([("0.01", "1", 20)], grid_bits=10)
    assert aa.delta_lower_exact(Fraction(1, 2)) <= a20.delta_upper_exact(Fraction(1, 2))
    assert a20.delta_lower_exact(Fraction(1, 2)) <= aa.delta_upper_exact(Fraction(1, 2))


def test_two_million_steps_inside_the_renyi_and_binary_bracket():
    """Beyond 10^6 steps the grid engine still answers (its limit is the memory budget, not the count): at 2 x 10^6
    steps of (q, sigma) = (0.001, 1) its eps(1e-6) bracket is at most 1% wide, lies inside the independent bracket of
    the binary lower end and the Renyi upper end (:mod:`.subsampled_gaussian`), and its ends are what its own delta
    bounds say they are."""
    k, d = 2 * 10 ** 6, Fraction(1, 10 ** 6)
    C = m.sgm_pld("0.001", "1", k, delta_hint=d)
    b = C.eps_bracket(d)
    other = sgm.sgm_eps_bracket("0.001", "1", k, d, dps=20)
    assert other.lo <= b.lo < b.hi <= other.hi
    assert (b.hi - b.lo) / b.hi <= mpmath.mpf("0.01")
    assert C.delta_upper_exact(mpf_to_fraction(b.hi)) <= d < C.delta_lower_exact(mpf_to_fraction(b.lo))


@pytest.mark.slow
def test_ten_million_steps_within_one_percent():
    """10^7 steps of (0.001, 1) at delta 1e-6 (the benchmark's k = 10^7 row): a bracket at most 1% wide, inside the
    Renyi / binary bracket."""
    k, d = 10 ** 7, Fraction(1, 10 ** 6)
    b = m.sgm_pld_eps_bracket("0.001", "1", k, d)
    other = sgm.sgm_eps_bracket("0.001", "1", k, d, dps=20)
    assert other.lo <= b.lo < b.hi <= other.hi and (b.hi - b.lo) / b.hi <= mpmath.mpf("0.01")


def test_the_optimistic_offset_is_picked_by_the_divergence_it_keeps(monkeypatch):
    """Where the grid step is near q (here h = 2^-11 against q = 5e-4) the bucket from -infinity holds most of a step's
    mass and the optimistic grid's offset moves the lower end: the offset picked among ``OFFSETS`` (by the divergence
    the bulk's bucketing keeps) gives a delta bracket less than half as wide as the fixed midpoint offset of engine 6
    (the upper end is the same vector), and both lower ends stay below the upper end."""
    phases, e, tl = [("0.0005", "0.6", 2000)], Fraction(1, 2), Fraction(1, 1 << 40)
    C = m.sgm_pld_phases(phases, grid_bits=11, tail=tl)
    m._compose.cache_clear()
    m._lstep.cache_clear()
    m._cores.cache_clear()
    monkeypatch.setattr(m, "OFFSETS", (Fraction(1, 2),))
    D = m.sgm_pld_phases(phases, grid_bits=11, tail=tl)
    m._compose.cache_clear()
    m._lstep.cache_clear()
    m._cores.cache_clear()
    hi = C.delta_upper_exact(e)
    assert D.delta_upper_exact(e) == hi and D.delta_lower_exact(e) < C.delta_lower_exact(e) < hi
    assert 2 * (hi - C.delta_lower_exact(e)) < hi - D.delta_lower_exact(e)


def test_requests_beyond_the_memory_budget_are_refused_at_once():
    import time

    t = time.perf_counter()
    with pytest.raises(ValueError, match="MAX_LEN"):
        m.sgm_pld_phases([("0.5", "0.5", 10 ** 6)], grid_bits=20)
    with pytest.raises(ValueError, match="K_MAX"):
        m.sgm_pld_phases([("0.01", "1", m.K_MAX), ("0.01", "1", 1)])
    assert time.perf_counter() - t < 30


def test_interval_ends_never_read_the_global_mpmath_precision():
    """The engine never reads mpmath's global precision: the same exact rationals at global dps 5, 15 and 300."""
    vals = []
    for dps in (5, 15, 300):
        m._compose.cache_clear()
        with mpmath.workdps(dps):
            C = m.sgm_pld("0.01", "1.1", 100, grid_bits=9)
            vals.append((C.delta_upper_exact("1"), C.delta_lower_exact("1")))
    assert vals[0] == vals[1] == vals[2]


def test_check_grades_dp_sgd_claims_from_one_certified_composition():
    """check(): a claim above the certified upper end is valid (status 0), one below the certified lower end is
    anti-conservative (status 1), and both brackets of one check come from the PLD engine (named as sources)."""
    from reference.profiles.check import check

    spec = "subsampled-gaussian:q=0.01,sigma=1.1x10000"
    ok = check(spec, "5.2", "1e-5")
    bad = check(spec, "5.1", "1e-5")
    assert (ok.status, ok.exit_status) == ("valid", 0) and (bad.status, bad.exit_status) == ("invalid", 1)
    for v in (ok, bad):
        assert "connect the dots" in v.eps_bracket.hi_source and "post-processing" in v.eps_bracket.lo_source
        assert v.eps_bracket.lo < v.eps_bracket.hi and (v.eps_bracket.hi - v.eps_bracket.lo) / v.eps_bracket.hi < 0.01
    # 5.2 lies inside the default (1%) bracket [5.178, 5.207]: check refined once on its own (precision 1/400) and
    # decided; the same composition answers both questions consistently: delta_upper(eps_hi) <= delta
    assert "h = 2^-10" in ok.eps_bracket.hi_source and "h = 2^-9" in bad.eps_bracket.hi_source
    C = m.sgm_pld("0.01", "1.1", 10000, delta_hint="1e-5", precision=Fraction(1, 400))
    assert C.delta_upper_exact(F(ok.eps_bracket.hi)) <= Fraction(1, 10 ** 5)
    assert check(spec, "5.2", "1e-5", precision="0.01").status == "undecided"  # an explicit precision is kept


def test_check_two_phase_dp_sgd_run_against_the_engine_and_its_parts():
    """A two-phase run (q = 0.01 then 0.02, sigma = 1, 10 steps each): check answers (it used to recurse forever); its
    bracket lies between the phases' own lower ends and the phases' summed-RDP upper end (independent routes)."""
    from reference.profiles.check import check, profile

    v = check("subsampled-gaussian:q=0.01,sigma=1x10+subsampled-gaussian:q=0.02,sigma=1x10", "1", "1e-6")
    assert v.status == "invalid" and v.exit_status == 1
    b = v.delta_bracket
    one = profile("subsampled-gaussian:q=0.02,sigma=1x10", "delta", "1")
    assert b.hi >= one.lo  # dropping a phase is post-processing
    from reference.profiles.check import _rdp_bracket_end, parse_spec

    rdp_hi = _rdp_bracket_end(parse_spec("subsampled-gaussian:q=0.01,sigma=1x10+subsampled-gaussian:q=0.02,sigma=1x10"),
                              "delta", Fraction(1), 20)
    assert b.lo <= rdp_hi  # the summed Renyi curve is an independent certified upper bound
    assert b.hi - b.lo < mpmath.mpf("0.1") * b.hi


def test_wide_windows_keep_both_ends_tight():
    """q = 0.5, sigma = 0.01, k = 10: losses in the tens of thousands.  The exponential weights are kept relative to
    the evaluation point (a weight e^-(j h) relative to the window's start underflowed past 700 loss units and
    collapsed the lower end to 658 where the upper end is 50726); both ends now agree to 2%."""
    C = m.sgm_pld("0.5", "0.01", 10, delta_hint="1e-5")
    b = C.eps_bracket("1e-5")
    assert mpmath.mpf(49000) < b.lo < b.hi < mpmath.mpf(51000)
    assert (b.hi - b.lo) / b.hi < mpmath.mpf("0.02")
    assert C.delta_upper_exact(F(b.hi)) <= Fraction(1, 10 ** 5) < C.delta_lower_exact(F(b.lo))


def test_binary_lower_end_only_where_the_pld_does_not_decide(monkeypatch):
    """check skips the binary lower end (seconds at k = 1e5) when the PLD bracket decides to 1%, and keeps it where the
    PLD cannot answer (k beyond its K_MAX): there it is the only lower end (a dropped lower end would read 0)."""
    from reference.profiles.check import _pld_decides

    q, s, k, d = "0.01", "1.1", 10000, "1e-5"
    full = sgm.sgm_eps_bracket(q, s, k, d, dps=20)
    upper_only = sgm.sgm_eps_bracket(q, s, k, d, dps=20, lower=False)
    assert upper_only.lo == 0 and upper_only.hi == full.hi and "not requested" in upper_only.lo_source
    b = profile(f"subsampled-gaussian:q={q},sigma={s}x{k}", "eps", d)
    assert "PLD" in b.lo_source and b.lo > full.lo  # the PLD's lower end, tighter than the binary one
    assert not _pld_decides(None)
    monkeypatch.setattr(m, "K_MAX", 10 ** 6)  # the router reads the engine's limit: a run beyond it
    beyond = profile("subsampled-gaussian:q=0.0001,sigma=1x2000000", "eps", "1e-5")  # k > sgm_pld.K_MAX
    assert beyond.lo > mpmath.mpf("0.4") and "binary" in beyond.lo_source and "PLD" not in beyond.lo_source
