"""DPSGDGameFilter: charges at the cheapest dominating menu item, admits exactly the certified budget, saves and resumes.

Every count is checked against exact integer arithmetic on the certificate's own budget and costs
(a second route that does not go through the filter); the certificate itself is tested in
proofs/test_sgm_game*.py.  One certificate at a coarse grid (bits = 4, about 3 s) is shared by
the tests through the per-process cache.
"""
from __future__ import annotations

import json
import threading
from fractions import Fraction as F

import pytest

from reference.accountants import BudgetExceeded, DPSGDGameFilter, StateJournal
from reference.accountants.base import _digest
from reference.bounds.sgm_game import SGMItem

EPS, DELTA, BITS = F(2263, 100), F(1, 1000), 4
MENU = [SGMItem(F(1, 10), F(1, 2)), SGMItem(F(1, 10), F(5, 8))]
STRONG, WEAK = (F(1, 10), F(1, 2)), (F(1, 10), F(5, 8))   # item 0 (the leakier, dearer one) and item 1


def make():
    return DPSGDGameFilter(EPS, DELTA, MENU, bits=BITS)


@pytest.fixture(scope="module")
def cert():
    f = make()
    return f.budget, f.costs


def _rehash(d):
    d["digest"] = _digest({k: v for k, v in d.items() if k not in ("digest", "hmac")})
    return d


def test_the_filter_holds_the_menus_certificate(cert):
    B, c = cert
    f = make()
    d = f.certificate
    assert d["budget"] == B == f.remaining().budget and d["costs"] == list(c) == list(f.costs)
    # the leakier item costs more, and each homogeneous share is at most the item's own optimum
    assert c[0] > c[1] >= 1 and all(B // ck <= k for ck, k in zip(c, d["k0"]))
    assert F(d["game_value_at_budget_upper"]) <= DELTA
    # the spec-string and dict forms parse to the same items (hence the same cached certificate)
    g = DPSGDGameFilter("22.63", "0.001", ["subsampled-gaussian:q=0.1,sigma=0.5",
                                           {"q": "1/10", "sigma": "0.625", "scale": 1}], bits=4)
    assert g.menu == tuple(MENU) and g.budget == B and g.costs == c


@pytest.mark.parametrize("k", [0, 1])
def test_a_homogeneous_run_gets_floor_of_budget_over_cost(cert, k):
    B, c = cert
    f = make()
    n = 0
    while f.try_run(*(STRONG, WEAK)[k]):
        n += 1
    assert n == B // c[k] and f.n == n and f.spent == n * c[k]
    r = f.remaining()
    assert r.remaining == B - n * c[k] < c[k] and r.steps_left[k] == 0
    assert not f.can_run(*(STRONG, WEAK)[k])
    with pytest.raises(BudgetExceeded) as ei:
        f.run(*(STRONG, WEAK)[k])
    assert ei.value.step == n + 1 and f.n == n   # refused: state unchanged


def test_a_mixed_run_matches_the_integer_arithmetic(cert):
    """A pattern of strong, weak and dominated steps: each try is admitted iff spent + cost <= B, computed by hand."""
    B, c = cert
    pattern = [(STRONG, c[0]), (WEAK, c[1]), (WEAK, c[1]), ((F(1, 20), F(3, 4)), c[1]), ((F(1, 10), F(11, 20)), c[0])]
    f = make()
    spent = admitted = 0
    for t in range(400):
        step, cost = pattern[t % len(pattern)]
        want = spent + cost <= B
        assert f.can_run(*step) == want
        assert f.try_run(*step) == want, t
        if want:
            spent, admitted = spent + cost, admitted + 1
    assert (f.spent, f.n) == (spent, admitted) and spent <= B
    assert B - spent < c[1]   # 400 tries exhaust it: not even the cheap item fits
    assert f.remaining().steps_left == tuple((B - spent) // ck for ck in c)
    # a refused dear step leaves room for a cheap one: the filter looks ahead on the step about to run
    g = make()
    g.run(*WEAK)
    while g.try_run(*STRONG):
        pass
    left = B - g.spent
    assert left == (B - c[1]) % c[0] and c[1] <= left < c[0]   # these parameters leave room for a cheap step only
    assert not g.can_run(*STRONG) and g.try_run(*WEAK) and g.spent == B - left + c[1]


def test_a_dominated_step_is_charged_at_the_cheapest_dominating_item(cert):
    _, c = cert
    f = make()
    # smaller q and larger sigma: both items dominate it; the first (dearer) one must not be chosen
    assert f.charged_item(F(1, 20), 1) == 1 and f.charge("0.05", "1") == c[1]
    # sigma between the two items: only item 0 dominates it
    assert f.charged_item("0.1", "0.6") == 0 and f.charge("0.1", "0.6") == c[0]
    # the sensitivity scale enters as sigma / scale: 5/16 at scale 1/2 is item 1's 5/8
    assert f.charged_item("0.1", "5/16", "1/2") == 1
    # a costless tie is broken by order: with equal costs the first dominating item
    assert f.charge(F(1, 10), F(5, 8)) == c[1]


def test_rounding_direction_of_the_charge(cert):
    """Negative control: a step a hair leakier than item 1 (sigma just below 5/8, or q just above) is NOT item 1's."""
    _, c = cert
    f = make()
    assert f.charged_item(F(1, 10), F(5, 8) - F(1, 10 ** 20)) == 0   # closer to 5/8 than any double: exact comparison
    assert f.charged_item(F(1, 10) - F(1, 10 ** 12), F(5, 8)) == 1   # the positive side: a hair less leaky is item 1's
    assert f.charged_item(F(1, 10), F(5, 16) - F(1, 10 ** 20), F(1, 2)) == 0
    with pytest.raises(ValueError, match="no menu item dominates"):
        f.charge(F(1, 10) + F(1, 10 ** 12), F(5, 8))


def test_a_step_outside_the_menu_is_refused_with_the_rule():
    f = make()
    for q, sigma in (("0.2", "1"), ("0.1", "0.49"), ("1", "100")):
        with pytest.raises(ValueError, match=r"no menu item dominates .*q <= item q and step sigma/scale >= item"):
            f.try_run(q, sigma)
    assert f.n == 0 and f.spent == 0


def test_bad_inputs_are_named():
    cases = [
        ((0, DELTA, MENU), "eps"),
        ((EPS, 1, MENU), "delta"),
        ((EPS, DELTA, []), "menu must be a non-empty"),
        ((EPS, DELTA, "subsampled-gaussian:q=0.1,sigma=0.5"), "menu must be a non-empty list"),
        ((EPS, DELTA, ["gaussian:sigma=1"]), r"menu\[0\] must be a spec"),
        ((EPS, DELTA, [MENU[0], "subsampled-gaussian:q=0.1,sigma=0.5,noise=2"]), r"menu\[1\]: each parameter"),
        ((EPS, DELTA, ["subsampled-gaussian:q=1.5,sigma=0.5"]), r"menu\[0\]\.q must lie in \(0, 1\]"),
        ((EPS, DELTA, ["subsampled-gaussian:q=0.1,sigma=-1"]), r"menu\[0\]\.sigma must lie in"),
        ((EPS, DELTA, [{"q": "0.1", "sigma": "1", "scale": "2"}]), r"menu\[0\]\.scale must lie in \(0, 1\]"),
        ((EPS, DELTA, [{"q": "0.1"}]), r"menu\[0\] must give q and sigma"),
        ((EPS, DELTA, [3]), r"menu\[0\] must be an SGMItem"),
    ]
    for args, msg in cases:
        with pytest.raises(ValueError, match=msg):
            DPSGDGameFilter(*args, bits=BITS)
    with pytest.raises(ValueError, match="bits"):
        DPSGDGameFilter(EPS, DELTA, MENU, bits=0)
    with pytest.raises(ValueError, match=r"costs\[1\]"):
        DPSGDGameFilter(EPS, DELTA, MENU, bits=BITS, costs=[5, 0])
    with pytest.raises(ValueError, match="one entry per menu item"):
        DPSGDGameFilter(EPS, DELTA, MENU, bits=BITS, costs=[5])
    f = make()
    for args, msg in (((0, 1), "q must lie"), (("0.1", 0), "sigma must lie"), (("0.1", 1, 2), "scale must lie")):
        with pytest.raises(ValueError, match=msg):
            f.try_run(*args)


def test_save_and_restore(cert):
    B, c = cert
    f = make()
    for step in (STRONG, WEAK, WEAK, (F(1, 20), 1)):
        f.run(*step)
    spent = c[0] + 3 * c[1]
    s = f.to_json()
    g = DPSGDGameFilter.from_json(s)
    assert g.remaining() == f.remaining() and g.spent == spent and g.history == f.history
    assert g.certificate == f.certificate and g.costs == c
    # resumed, it decides exactly as the original
    while f.try_run(*STRONG):
        assert g.try_run(*STRONG)
    assert not g.try_run(*STRONG) and g.spent == f.spent
    # a raised budget (digest recomputed) is refused: the certificate is recomputed on load
    for name, value in (("budget", str(B + 1)), ("charges", [c[0], 1]), ("value_above_budget", "1/2")):
        d = json.loads(s)
        d["params"][name] = value
        with pytest.raises(ValueError, match=name):
            DPSGDGameFilter.from_dict(_rehash(d))
    # a history whose spent exceeds the budget is refused as unreachable
    d = json.loads(s)
    d["history"] = [["1/10", "1/2", "1", B // c[0] + 1]]
    d["state"] = {"n": B // c[0] + 1, "spent": str((B // c[0] + 1) * c[0])}
    with pytest.raises(ValueError, match="exceed the budget"):
        DPSGDGameFilter.from_dict(_rehash(d))
    # a history step outside the menu is refused
    d = json.loads(s)
    d["history"][0][0] = "1/5"
    with pytest.raises(ValueError, match="no menu item dominates"):
        DPSGDGameFilter.from_dict(_rehash(d))


def test_keyed_save_and_restore_with_a_journal():
    f = make()
    f.run(*STRONG)
    j = StateJournal()
    old = f.to_json(key=b"curator", journal=j)
    f.run(*WEAK)
    new = f.to_json(key=b"curator", journal=j)
    g = DPSGDGameFilter.from_json(new, key=b"curator", journal=j)
    assert g.remaining() == f.remaining() and g.instance_id == f.instance_id
    with pytest.raises(ValueError, match="older"):
        DPSGDGameFilter.from_json(old, key=b"curator", journal=j)
    with pytest.raises(ValueError, match="HMAC"):
        DPSGDGameFilter.from_json(new, key=b"another key")
    d = json.loads(new)
    d["params"]["budget"] = str(int(d["params"]["budget"]) + 100)
    with pytest.raises(ValueError, match="HMAC"):
        DPSGDGameFilter.from_dict(_rehash(d), key=b"curator")


def test_threads_never_overspend(cert):
    B, c = cert
    f = make()
    res = []

    def worker(step):
        while True:
            ok = f.try_run(*step)
            res.append(ok)
            if not ok:
                return

    ts = [threading.Thread(target=worker, args=((STRONG, WEAK)[i % 2],)) for i in range(4)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert f.spent <= B and B - f.spent < c[1] and sum(res) == f.n


def test_given_costs_are_the_certificates_costs(cert):
    """Costs given explicitly equal to the default ones reproduce the default certificate (a second computation)."""
    B, c = cert
    f = DPSGDGameFilter(EPS, DELTA, MENU, bits=BITS, costs=list(c))
    assert f.budget == B and f.costs == c
    assert DPSGDGameFilter.from_json(f.to_json()).params["costs"] == c


def test_a_step_given_as_an_enclosure_is_read_at_its_conservative_ends():
    """A sigma known only to lie in [5/8 - 2^-60, 5/8 + 2^-60] (a certified output rounded to nearest) is read at its
    LOWER end, below item 1's noise, so the step is charged at item 0; a q so enclosed is read at its upper end."""
    import mpmath

    from reference.precision import Certified

    def around(x):
        m = mpmath.mpf(x.numerator) / x.denominator
        lo, hi = m - mpmath.mpf(2) ** -60, m + mpmath.mpf(2) ** -60
        return Certified._make(m._mpf_, lo._mpf_, hi._mpf_, None)

    f = make()
    assert f.charged_item(F(1, 10), around(F(5, 8))) == 0          # sigma's upper end would say item 1
    with pytest.raises(ValueError, match="no menu item dominates"):
        f.charge(around(F(1, 10)), F(5, 8))                        # q's upper end is above every item's q
