"""The falsifier's pieces against their definitions: the crossing event, the certified hockey-stick, the searched space.

* ``_crosses`` with ``two_sided`` is the event |log R| > u (both tails), with ``at_eq`` also equality;
* ``Outcome.value`` is a certified lower bound and ``Outcome.upper`` an upper bound of the
  hockey-stick divergence sum_t (P(t) - e^eps Q(t))_+ of the transcript (second route: the same
  sum over the transcript's exact law at 60 digits);
* a probe keeps, per step parameter, the ``max_laws`` most extreme candidates (none dropped is more
  extreme than one kept), and the search runs every adversary of every menu of every probe.
"""
from __future__ import annotations

import math
from fractions import Fraction as F

import mpmath
import pytest

from reference.falsify import engine as E
from reference.falsify import search as S
from reference.falsify.claims import Probe, _extremeness
from reference.falsify.laws import StepLaw, dp_candidates, is_dp, is_pdp, rational_below_exp, rr_atoms


@pytest.mark.parametrize("R,u,two,eq,want", [
    (F(1, 10), F(1), True, False, True),     # log R = -2.30 < -1: the lower tail crosses
    (F(1, 10), F(1), False, False, False),   # one-sided: only log R > u counts
    (F(10), F(1), False, False, True),
    (F(2), F(1), True, False, False),        # |log 2| < 1
    (F(1), F(0), True, False, False),        # log R = 0 = u: equality only with at_eq
    (F(1), F(0), True, True, True),
    (None, F(5), False, False, True),        # an outcome only x produces: L = +inf
    (F(1, 10 ** 9), None, True, False, False),  # u = +inf: nothing crosses
])
def test_crosses_is_the_tail_event(R, u, two, eq, want):
    assert E._crosses(R, u, two, eq) is want


class _AdmitAll(E.Target):
    kind, stat, supports_delta = "filter", "counts", False
    name = "admit_all"
    eps, delta = F(1, 4), F(1, 10)

    def bind(self, menu):
        pass

    def admits(self, state, e, d):
        return True


def _naive_hockey(law: StepLaw, n: int, eps: F) -> mpmath.mpf:
    """sum over the n-fold product outcomes of (P - e^eps Q)_+ at 60 digits (the exact transcript law)."""
    with mpmath.workdps(60):
        dist = {(): (mpmath.mpf(1), mpmath.mpf(1))}
        for _ in range(n):
            nxt = {}
            for k, (p, q) in dist.items():
                for o, (a, b) in enumerate(zip(law.p, law.q)):
                    nxt[k + (o,)] = (p * mpmath.mpf(a.numerator) / a.denominator, q * mpmath.mpf(b.numerator) / b.denominator)
            dist = nxt
        ee = mpmath.exp(mpmath.mpf(eps.numerator) / eps.denominator)
        return sum((max(mpmath.mpf(0), p - ee * q) for p, q in dist.values()), mpmath.mpf(0))


@pytest.mark.parametrize("n", [1, 3])
def test_engine_hockey_stick_ends_enclose_the_exact_sum(n):
    """n steps of a 1/2-RR law (ratio just below e^(1/2)) at eps = 1/4: value <= exact <= upper, at 60 digits."""
    r = rational_below_exp(F(1, 2))
    law = StepLaw((r / (1 + r), 1 / (1 + r)), (1 / (1 + r), r / (1 + r)), F(1, 2), F(0))
    t = _AdmitAll()
    out = E.run(t, (law,), E.Homogeneous(0), n)
    exact = _naive_hockey(law, n, t.eps)
    assert exact > 0
    with mpmath.workdps(60):
        lo = mpmath.mpf(out.value.numerator) / out.value.denominator
        hi = mpmath.mpf(out.upper.numerator) / out.upper.denominator
        assert lo <= exact <= hi and lo < hi


def test_probe_keeps_the_most_extreme_laws():
    """Per step parameter, no dropped candidate is more extreme (one-sided atoms, fewer outcomes) than a kept one."""
    steps = [(F(1, 4), F(1, 20)), (F(1, 2), F(1, 100))]
    pr = Probe(lambda: None, steps, "dp", 4, max_laws=3)
    kept = pr.laws()
    assert len(kept) == 6
    for i, (e, d) in enumerate(steps):
        cand = dp_candidates(e, d)
        mine = kept[3 * i: 3 * i + 3]
        assert all(is_dp(x) for x in mine)
        worst_kept = min(_extremeness(x) for x in mine)
        dropped = [x for x in cand if x not in mine]
        assert dropped and all(_extremeness(x) <= worst_kept for x in dropped)
        assert any(_extremeness(x) < worst_kept for x in dropped) or len({_extremeness(x) for x in cand}) == 1


def test_dp_candidates_include_randomized_response_at_the_rational_below_e_eps():
    """Randomized response itself, with the largest rational ratio r <= e^eps (12 digits) and reveal mass delta, is a
    candidate (every (eps, delta)-DP step is a post-processing of it): its four atoms form one of the laws."""
    for eps, delta in ((F(1, 4), F(1, 20)), (F(1), F(1, 100)), (F(1, 100), F(0))):
        r = rational_below_exp(eps)
        rr = sorted(rr_atoms(r, delta))
        cand = dp_candidates(eps, delta)
        assert any(sorted(zip(x.p, x.q)) == rr for x in cand), (eps, delta)


def test_pdp_counts_both_tails_together():
    """(eps, delta)-pDP bounds P(|L| > eps), both tails at once.  With eps = 1, delta = 1/10: an atom only x produces
    (mass 1/10, L = +inf) and an atom with L = log(1/5) < -1 (P-mass 1/100) give P(|L| > 1) = 11/100 > 1/10, although
    each tail alone, and the reversed loss's upper tail (Q-mass 1/20), stay within 1/10."""
    law = StepLaw((F(1, 10), F(1, 100), F(89, 100)), (F(0), F(1, 20), F(19, 20)), F(1), F(1, 10))
    bad_p = sum((a for a, b in zip(law.p, law.q) if a and (b == 0 or abs(math.log(a / b)) > 1)), F(0))  # ratios 1/5, 89/95
    assert bad_p == F(11, 100)
    assert not is_pdp(law)
    assert is_pdp(law, delta=F(11, 100))


@pytest.mark.parametrize("cid", ["CAL-ZCDP-FILTER", "S22-GDP-FILTER"])
def test_search_runs_every_adversary_of_every_menu(cid, monkeypatch):
    """A valid claim's search runs the whole space: each menu of each probe against each adversary of adversaries_for."""
    seen = set()
    real = S.run

    def spy(target, menu, adversary, horizon, **kw):
        seen.add((tuple((x.p, x.q) for x in menu), adversary.name))
        return real(target, menu, adversary, horizon, **kw)

    monkeypatch.setattr(S, "run", spy)
    claim = S.get_claim(cid)
    (res,) = S.falsify(cid)
    assert not res.found
    want = {(tuple((x.p, x.q) for x in m), a.name) for pr in claim.probes(False) for m in pr.menus()
            for a in E.adversaries_for(len(m))}
    assert want and want <= seen
    assert any(len(m) == 2 for m, _ in want)  # adaptive adversaries on pairs of laws are part of it


def test_the_falsifiers_random_adversaries_stop_sometimes():
    """The seeded random adversaries may stop (about 1 choice in p_stop = 8 after the first step): an adversary that
    never stops explores fewer stopping rules, and a filter's guarantee covers every stopping time."""
    from fractions import Fraction as _F

    from reference.falsify.engine import RandomAdaptive, adversaries_for
    from reference.verify.engine import AccState

    rand = [a for a in adversaries_for(2) if isinstance(a, RandomAdaptive)]
    assert len(rand) >= 2
    acc = AccState(_F(0), _F(0), (0, 0), ((_F(1, 4), _F(0)), (_F(1, 2), _F(0))))
    for adv in rand:
        picks = [adv.choose(n, R, acc, last) for n in range(1, 41) for R in (_F(1, 2), _F(1), _F(2), None)
                 for last in (-1, 0, 1)]
        stops = sum(p is None for p in picks)
        assert 1 / 16 <= stops / len(picks) <= 1 / 4, (adv.name, stops, len(picks))
        assert {p for p in picks if p is not None} == {0, 1}
        assert adv.choose(0, _F(1), acc, 0) is not None  # the first step is always taken


class _AdmitFirst(E.Target):
    """A planted filter: admits the first ``k`` steps whatever they are, and promises ``delta`` at eps = 1/4."""

    kind, stat, supports_delta = "filter", "counts", False
    name = "admit_first_k"
    eps = F(1, 4)

    def __init__(self, k: int, delta: F):
        self.k, self.delta = k, delta

    def admits(self, state, e, d):
        return sum(state.counts) < self.k


def _just_below(x: mpmath.mpf, factor: str) -> F:
    """A rational a little below x / factor (12 digits): the promise the planted target makes."""
    with mpmath.workdps(60):
        return F(int(mpmath.floor(x / mpmath.mpf(factor) * 10 ** 12)), 10 ** 12)


@pytest.mark.parametrize("factor", ["1.01", "1.03", "1.05"])
def test_a_small_certified_excess_over_the_promise_is_a_violation(factor):
    """The engine reports every certified excess: a planted filter whose stopped transcript (3 steps of a 1/2-RR law at
    eps = 1/4) has a hockey-stick divergence 1.01-1.05 times its promise is violated (value > allowed exactly; no slack
    factor such as 1.1 may hide it), and the search turns it into a certified counterexample.  Second route: the exact
    transcript law summed at 60 digits.  Negative control: a promise just above the divergence is not violated."""
    r = rational_below_exp(F(1, 2))
    law = StepLaw((r / (1 + r), 1 / (1 + r)), (1 / (1 + r), r / (1 + r)), F(1, 2), F(0))
    exact = _naive_hockey(law, 3, F(1, 4))
    promise = _just_below(exact, factor)
    out = E.run(_AdmitFirst(3, promise), (law,), E.Homogeneous(0), 3)
    assert out.allowed == promise
    assert out.violated and out.value > promise
    assert out.value < promise * F(11, 10)  # the excess is under 10%: a 1.1 slack would miss it
    with mpmath.workdps(60):
        assert mpmath.mpf(out.value.numerator) / out.value.denominator <= exact
    above = _just_below(exact, "0.999999")
    ok = E.run(_AdmitFirst(3, above), (law,), E.Homogeneous(0), 3)
    assert ok.upper < above and not ok.violated

    # through the search: a planted claim whose one probe holds that law (re-checked 1/2-DP by the probe)
    from reference.falsify.claims import Claim

    probe = Probe(lambda: _AdmitFirst(3, promise), [(F(1, 2), F(0))], "dp", 3, max_laws=0, label="planted",
                  extra=lambda e, d: [law])
    assert [(x.p, x.q) for x in probe.laws()] == [(law.p, law.q)]
    claim = Claim("NC-PLANTED-SMALL-EXCESS", "planted: a filter promising a little less than its divergence", "test",
                  (), "dp", "dp", "false", lambda deep: [probe], control=True)
    res = S._search(claim, False)
    assert res.found and F(res.counterexample["probability_lower"]) > promise
    assert F(res.counterexample["promised"]) == promise
