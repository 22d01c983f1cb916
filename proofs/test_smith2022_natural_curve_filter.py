"""The natural privacy-curve filter is NOT a valid fully adaptive filter (refuted with a certified counterexample).

Rule under test.  Compose the exact privacy curves of the steps admitted so far (as if they had
been fixed in advance) and admit the next step iff the composed curve stays above the target's,
i.e. (for a target (eps, delta)) iff the optimal composition of the realized eps_1..eps_t has
delta(eps) <= delta.  Dong, Roth, Su's Corollary 3.3 / Kairouz-Oh-Viswanath give that bound for
parameters fixed in advance; Smith and Thakurta (smith2022) prove the GDP special case survives
full adaptivity.  The general curve rule does not.

Counterexample (:data:`reference.verify.calibrated.NATURAL_CURVE_EXAMPLE`): target (1, 3/40); step 1
is 1/10-RR; after "+" the analyst runs 11/10-RR and stops; after "-" 4/5-RR, then 2/5-RR ("-+") or
3/10-RR ("--").  Every realized sequence composes to delta(1) <= 0.07488 < 3/40, so the rule admits
every step; the adaptive transcript has hockey-stick divergence 0.09007 > 3/40 at eps = 1.

Routes: (1) the exact verifier's certified enclosure (the shipped adapter, the engine's interval
bounds); (2) a 60-digit enumeration of the 8 outcome paths, independent of the engine; (3) each
path's non-adaptive composition by a 60-digit enumeration of its sign patterns, against the
certified Murtagh-Vadhan value the rule uses.  (Found by a random search over depth-3 analysts on
the grid eps in {0, 0.1, ..., 3}; depth-2 analysts never beat the rule in that search.)
The verdict agrees with the abstract of arXiv 2602.06756 v1 ("f-Differential Privacy Filters:
Validity and Approximate Solutions"), which reports the natural f-DP filter invalid in general;
the counterexample here is our own and is checked, not quoted.
"""
from __future__ import annotations

import itertools
from fractions import Fraction as F

import mpmath

from reference.bounds.classical import hetero_optimal_delta
from reference.precision import mpf_to_fraction
from reference.verify.calibrated import NATURAL_CURVE_EXAMPLE as EX
from reference.verify.calibrated import NaturalCurveFilter, natural_curve_adversary
from reference.verify.engine import AccState, verify

PATHS = {  # realized outcome prefix -> the full step sequence it runs
    "+": [EX["first"], EX["after"]["+"]],
    "-+": [EX["first"], EX["after"]["-"], EX["after"]["-+"]],
    "--": [EX["first"], EX["after"]["-"], EX["after"]["--"]],
}


def p_plus(e):
    E = mpmath.exp(mpmath.mpf(e.numerator) / e.denominator)
    return E / (1 + E)


def composed_delta(seq, eps, dps=60):
    """Non-adaptive composition of RR steps at eps: sum over sign patterns (60 digits)."""
    with mpmath.workdps(dps):
        t = mpmath.mpf(0)
        ep = mpmath.mpf(eps.numerator) / eps.denominator
        for signs in itertools.product((1, -1), repeat=len(seq)):
            pr, L = mpmath.mpf(1), mpmath.mpf(0)
            for s, e in zip(signs, seq):
                pe = p_plus(e)
                pr *= pe if s > 0 else 1 - pe
                L += s * mpmath.mpf(e.numerator) / e.denominator
            t += pr * max(mpmath.mpf(0), 1 - mpmath.exp(ep - L))
        return t


def adaptive_delta(dps=60):
    """Hockey-stick at eps of the adaptive transcript, by enumerating the analyst's tree (60 digits)."""
    with mpmath.workdps(dps):
        ep = mpmath.mpf(EX["eps"].numerator) / EX["eps"].denominator
        total = mpmath.mpf(0)

        def walk(prefix, steps, pr, L):
            nonlocal total
            nxt = EX["first"] if prefix == "" else EX["after"].get(prefix)  # any other prefix: the analyst stops
            if nxt is None:
                total += pr * max(mpmath.mpf(0), 1 - mpmath.exp(ep - L))
                return
            pe = p_plus(nxt)
            e = mpmath.mpf(nxt.numerator) / nxt.denominator
            walk(prefix + "+", steps + [nxt], pr * pe, L + e)
            walk(prefix + "-", steps + [nxt], pr * (1 - pe), L - e)

        walk("", [], mpmath.mpf(1), mpmath.mpf(0))
        return total


def test_every_realized_sequence_fits_the_target_non_adaptively():
    """delta_{eps_1..eps_T}(1) <= 3/40 for each of the three realized sequences (certified and 60-digit routes)."""
    worst = 0
    for seq in PATHS.values():
        up = mpf_to_fraction(hetero_optimal_delta(seq, [0] * len(seq), EX["eps"], dps=30))
        naive = composed_delta(seq, EX["eps"])
        assert up <= EX["delta"]
        with mpmath.workdps(60):
            assert abs(naive - mpmath.mpf(up.numerator) / up.denominator) < mpmath.mpf(10) ** -25
        worst = max(worst, up)
    assert worst > EX["delta"] * F(99, 100)  # tight: the rule is nearly binding on one path


def test_the_rule_admits_every_step_of_the_analyst():
    """The shipped NaturalCurveFilter adapter admits each step along each path (exact engine states)."""
    t = NaturalCurveFilter(EX["eps"], EX["delta"])
    adv = natural_curve_adversary()
    menu = adv.menu
    idx = {e: i for i, (e, _) in enumerate(menu)}
    for seq in PATHS.values():
        counts = [0] * len(menu)
        for e in seq:
            st = AccState(sum((c * m[0] ** 2 for c, m in zip(counts, menu)), F(0)), F(0), tuple(counts), menu)
            assert t.admits(st, e, F(0)), (seq, e)
            counts[idx[e]] += 1


def test_adaptive_transcript_exceeds_the_claimed_delta_certified():
    """The hockey-stick divergence of the adaptive transcript at eps = 1 is 0.0900696... > 3/40 (verifier + enumeration)."""
    res = verify(NaturalCurveFilter(EX["eps"], EX["delta"]), natural_curve_adversary(), 150)
    assert res.verdict == "FAIL"
    assert mpf_to_fraction(res.lo) > EX["delta"]
    a = adaptive_delta()
    with mpmath.workdps(60):
        assert res.lo <= a * (1 + mpmath.mpf(10) ** -12) and a <= res.hi * (1 + mpmath.mpf(10) ** -12)
        assert a > mpmath.mpf(EX["delta"].numerator) / EX["delta"].denominator * mpmath.mpf("1.19")
