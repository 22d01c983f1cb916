"""rogers2016 (seed 003_05a378efbd63455f.txt) Proposition 3.3.

If COMP_{eps_g,delta_g} is a valid privacy filter then the views V_F^0, V_F^1 of PrivacyFilterComp (Algorithm 3) are
(eps_g, delta_g)-point-wise indistinguishable, hence V_F^0 ~_{eps_g,delta_g} V_F^1:
    P_{v~V_F^b}[|Loss(v)| > eps_g] <= delta_g for b = 0, 1,   sup_S P[V_F^0 in S] - e^{eps_g} P[V_F^1 in S] <= delta_g.

Exact enumeration of both games (b = 0 and b = 1 separately) for the basic filter (Theorem 3.6) and the advanced
filter (Theorem 5.1, derived and as printed) against adaptive adversaries; the hockey-stick is computed from the two
enumerations (not from Loss).  Negative control: an invalid filter (sum eps_i <= 2 eps_g) is caught.
"""
from __future__ import annotations

import math
from fractions import Fraction as F

import mpmath
import pytest

from reference.bounds import rogers2016 as R
from reference.simulate import rogers2016_games as G
from reference.precision import mpf_to_fraction
from test_rogers2016_definitions import table_adversary

X = mpf_to_fraction
UP = lambda x: X(G._ends(x)[1])  # exact upper end of an interval
DOWN = lambda x: X(G._ends(x)[0])


def LE(x, bound) -> bool:
    """x <= bound for an interval enclosure x of a probability that may equal the bound exactly (delta spent in full):
    the lower end must not exceed it and the upper end only by the enclosure width (< 1e-55)."""
    return DOWN(x) <= bound and UP(x) <= bound + F(1, 10**55)


def _two_games(adv, k, comp):
    v0 = {(p.transcript.outputs, p.halted): p for p in G.enumerate_views(adv, k, 0, comp)}
    v1 = {(p.transcript.outputs, p.halted): p for p in G.enumerate_views(adv, k, 1, comp)}
    return v0, v1


def _bad(paths, eg):
    c = G.iv_context(200)
    tot = c.mpf(0)
    for p in paths.values():
        if p.loss in (math.inf, -math.inf) or abs(p.loss) > eg:
            tot += p.prob
    return tot


def _hs(A, B, eg):
    c = G.iv_context(200)
    E = c.exp(c.mpf(eg.numerator) / eg.denominator)
    tot = c.mpf(0)
    for v, p in A.items():
        q = B[v].prob if v in B else c.mpf(0)
        diff = p.prob - E * q
        if diff.b > 0:
            tot += c.mpf([0, diff.b]) if diff.a < 0 else diff
    return tot


def _loss_chaser():
    def choose(t):
        if len(t) >= 10:
            return None
        return (F(1, 10) if t.loss == math.inf or t.loss >= 0 else F(1, 20), F(0), len(t) % 3 == 2)
    return G.FunctionAdversary(choose)


CASES = [
    ("basic", lambda e, d: R.basic_filter(e, d, 1, F(3, 100)), F(1), F(3, 100), lambda: table_adversary([2, 4, 1, 6], 5)),
    ("basic-swaps", lambda e, d: R.basic_filter(e, d, F(1, 2), F(1, 50)), F(1, 2), F(1, 50), lambda: table_adversary([4, 0, 2], 5)),
    ("advanced", lambda e, d: R.advanced_filter(e, d, F(1, 2), F(1, 100)), F(1, 2), F(1, 100), _loss_chaser),
    ("advanced-printed", lambda e, d: R.advanced_filter_as_printed(e, d, F(1, 2), F(1, 100)), F(1, 2), F(1, 100), _loss_chaser),
]


@pytest.mark.parametrize("name, comp, eg, dg, make", CASES, ids=[c[0] for c in CASES])
def test_filtered_views_are_pointwise_and_dp(name, comp, eg, dg, make):
    """Proposition 3.3: P_{V_F^b}[|Loss| > eps_g] <= delta_g (b = 0, 1) and hockey-stick(V_F^0, V_F^1) <= delta_g both ways."""
    adv = make()
    v0, v1 = _two_games(adv, 10, comp)
    assert LE(_bad(v0, eg), dg) and LE(_bad(v1, eg), dg)
    assert LE(_hs(v0, v1, eg), dg) and LE(_hs(v1, v0, eg), dg)


def test_negative_control_invalid_filter_is_caught():
    """A filter that allows sum eps_i up to 4 eps_g is not valid: the exact bad-event probability and the hockey-stick exceed delta_g."""
    eg, dg = F(1, 2), F(1, 100)
    adv = G.FixedScheduleAdversary([(F(1, 4), F(0))] * 10)
    broken = lambda e, d: R.CONT if sum(e) <= 4 * eg else R.HALT
    v0, v1 = _two_games(adv, 10, broken)
    assert DOWN(_bad(v0, eg)) > dg and DOWN(_hs(v0, v1, eg)) > dg
