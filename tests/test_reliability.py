"""Reliability of the filter state (reference/accountants/base.py): it always saves, resumes
exactly, can be authenticated, and a refusal is always a BudgetExceeded."""
import hashlib
import json
import threading
from fractions import Fraction

import pytest

from reference.accountants import DPFilter, ZCDPFilter
from reference.accountants.base import BudgetExceeded, _digest, _exact_json, _exact_str
from reference.accountants.rogers2016 import Lemma35Filter


def _primes(k):
    """The first k primes (a small sieve, independent of the package)."""
    n = 120_000
    sieve = bytearray([1]) * n
    sieve[0] = sieve[1] = 0
    for i in range(2, int(n ** 0.5) + 1):
        if sieve[i]:
            sieve[i * i::i] = bytearray(len(sieve[i * i::i]))
    ps = [i for i in range(n) if sieve[i]]
    assert len(ps) >= k
    return ps[:k]


def test_ten_thousand_steps_of_one_over_p_save_and_resume_exactly():
    """10^4 admitted steps rho = 1/p (p prime): the exact sum has a ~45000-digit denominator,
    far beyond CPython's 4300-digit int/str limit that broke to_json after ~1230 steps."""
    ps = _primes(10_000)
    f = ZCDPFilter("1000", "1e-6")
    for p in ps:
        f.run(Fraction(1, p))
    s = f.to_json()
    g = ZCDPFilter.from_json(s)
    assert g.n == f.n == 10_000
    P = 1
    for p in ps:
        P *= p
    assert g.rho_spent == f.rho_spent == Fraction(sum(P // p for p in ps), P)  # second route: one common denominator
    assert g.history_runs == f.history_runs
    assert g.to_json() == s
    # the resumed filter decides as the original: the next step that exactly fills rho is admitted
    rest = Fraction(1000) - f.rho_spent
    assert g.can_run(rest) and f.can_run(rest) and not g.can_run(rest + Fraction(1, 10**60))


def test_dp_filter_with_700_steps_of_one_over_p_saves():
    """DPFilter: V = sum 1/p^2 overflowed the int/str limit after ~670 steps."""
    f = DPFilter("100", "1e-6")
    for p in _primes(700):
        f.run(Fraction(1, p))
    g = DPFilter.from_json(f.to_json())
    assert g.V == f.V and g.n == 700


def test_one_tiny_step_saves_and_resumes():
    f = DPFilter("1", "1e-6", "1e-5000")
    f.run("1e-5000", "1e-5000")
    g = DPFilter.from_json(f.to_json())
    assert g.V == Fraction(1, 10**10000) and g.delta_spent == Fraction(1, 10**5000)
    assert "1e-5000" in repr(g) or "about" in repr(g)


def test_hex_form_round_trips_and_small_values_keep_the_old_form():
    for q in (Fraction(1, 3), Fraction(-7, 2**20000), Fraction(3**9000), Fraction(0)):
        assert _exact_str(_exact_json(q), "x") == q
    assert _exact_json(Fraction(1, 3)) == "1/3"  # unchanged below the limit
    assert _exact_json(Fraction(1, 10**5000)).startswith("0x1/0x")


def test_old_state_still_loads():
    """A version-1 state written before hex values and HMAC existed (literal text)."""
    old = ('{"schema": "fullyadaptive.filters.ZCDPFilter", "version": 1, "params": {"rho": "1", "delta": "0"}, '
           '"state": {"n": 2, "rho_spent": "1/6", "delta_spent": "0"}, "history": [["1/12", "0", 2]], "digest": "%s"}')
    body = {"schema": "fullyadaptive.filters.ZCDPFilter", "version": 1, "params": {"rho": "1", "delta": "0"},
            "state": {"n": 2, "rho_spent": "1/6", "delta_spent": "0"}, "history": [["1/12", "0", 2]]}
    canon = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    s = old % hashlib.sha256(canon.encode("ascii")).hexdigest()
    g = ZCDPFilter.from_json(s)
    assert g.n == 2 and g.rho_spent == Fraction(1, 6)
    f = ZCDPFilter(1)
    f.run("1/12")
    f.run("1/12")
    assert json.loads(f.to_json()) == json.loads(s)  # unkeyed output format unchanged


@pytest.mark.parametrize("make, step", [
    (lambda: ZCDPFilter("1e-5000"), "3e-5000"),
    (lambda: DPFilter("1e-5000", "1e-6"), "1e-4000"),
    (lambda: DPFilter("1", "1e-6", "1e-5000"), "0"),
])
def test_refusal_with_more_than_4300_digits_is_budget_exceeded(make, step):
    f = make()
    with pytest.raises(BudgetExceeded) as ei:
        if isinstance(f, DPFilter) and step == "0":
            f.run(0, "2e-5000")
        else:
            f.run(step)
    assert "Exceeds the limit" not in str(ei.value)
    assert f.n == 0


def test_refusal_after_many_steps_of_one_over_p_is_budget_exceeded():
    f = ZCDPFilter("1/2")
    for p in _primes(1500):
        if not f.try_run(Fraction(1, p * p)):
            break
    with pytest.raises(BudgetExceeded, match="refused"):
        f.run(Fraction(1, 2))


def test_lock_is_reentrant_a_rule_may_read_its_own_filter():
    box = {}

    def at_most_three_rounds(stats):
        return box["f"].n < 3  # reads the filter while it decides, under its lock

    box["f"] = f = Lemma35Filter(at_most_three_rounds, 0)
    out = []

    def work():
        out.append([f.try_run("0.1") for _ in range(5)])

    t = threading.Thread(target=work, daemon=True)
    t.start()
    t.join(10)
    assert not t.is_alive(), "deadlock: the rule re-entered the filter's lock"
    assert out == [[True, True, True, False, False]]


# --------------------------------------------------------------------------
# HMAC-authenticated state
# --------------------------------------------------------------------------

KEY = b"curator secret"


def _keyed():
    f = DPFilter("10", "1e-6")
    f.run("0.1")
    f.run("0.2")
    return f


def _redigest(d):
    d["digest"] = _digest({k: v for k, v in d.items() if k not in ("digest", "hmac")})
    return d


def test_keyed_state_round_trips():
    f = _keyed()
    s = f.to_json(key=KEY)
    assert "hmac" in json.loads(s)
    g = DPFilter.from_json(s, key=KEY)
    assert g.V == f.V and g.n == 2
    assert DPFilter.from_json(s).n == 2  # without a key the hmac is not checked
    assert DPFilter.from_dict(f.to_dict(key="str key"), key="str key").n == 2


def test_analyst_raising_eps_and_recomputing_the_digest_is_refused():
    d = json.loads(_keyed().to_json(key=KEY))
    d["params"]["eps"] = "100"
    _redigest(d)
    assert DPFilter.from_dict(d).eps == 100  # the digest alone does not authenticate
    with pytest.raises(ValueError, match="HMAC mismatch"):
        DPFilter.from_dict(d, key=KEY)


def test_truncated_history_with_recomputed_digest_is_refused():
    d = json.loads(_keyed().to_json(key=KEY))
    d["history"] = d["history"][:1]
    d["state"] = {"n": 1, "V": "1/100", "delta_spent": "0"}
    _redigest(d)
    assert DPFilter.from_dict(d).n == 1
    with pytest.raises(ValueError, match="HMAC mismatch"):
        DPFilter.from_dict(d, key=KEY)
    del d["hmac"]
    with pytest.raises(ValueError, match="no 'hmac'"):
        DPFilter.from_dict(d, key=KEY)


def test_unkeyed_or_wrong_key_state_is_refused_with_a_key():
    f = _keyed()
    with pytest.raises(ValueError, match="no 'hmac'"):
        DPFilter.from_json(f.to_json(), key=KEY)
    with pytest.raises(ValueError, match="HMAC mismatch"):
        DPFilter.from_json(f.to_json(key=b"other"), key=KEY)
    with pytest.raises(ValueError, match="non-empty"):
        f.to_json(key=b"")
    with pytest.raises(TypeError, match="key"):
        f.to_json(key=123)


def test_deeply_nested_json_is_a_value_error():
    with pytest.raises(ValueError):
        DPFilter.from_json("[" * 100_000 + "]" * 100_000)
    with pytest.raises(ValueError):
        DPFilter.from_json('{"a": ' * 100_000 + "1" + "}" * 100_000)


def test_every_accountant_kind_saves_a_step_beyond_the_int_str_limit():
    """Subclass step serialisers that call str() (MixedFilter, the feldman2021 filters) fall back
    to the hexadecimal form instead of failing."""
    from reference.accountants import MixedFilter
    from reference.accountants.feldman2021 import RenyiZCDPFilter

    m = MixedFilter("1", "1e-6")
    m.run_dp("1e-5000")
    m.run_zcdp("1e-5000")
    g = MixedFilter.from_json(m.to_json())
    assert g.n == 2 and g.V == m.V
    r = RenyiZCDPFilter("1")
    r.run("1e-5000")
    assert RenyiZCDPFilter.from_json(r.to_json()).n == 1
