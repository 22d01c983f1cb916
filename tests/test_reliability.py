"""Reliability of the filter state (reference/accountants/base.py): it always saves, resumes
exactly, can be authenticated, and a refusal is always a BudgetExceeded."""
import hashlib
import json
import threading
from fractions import Fraction

import pytest

from reference.accountants import DPFilter, ZCDPFilter
from reference.accountants.base import BudgetExceeded, StateJournal, _digest, _exact_json, _exact_str, _mac
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


# --------------------------------------------------------------------------
# Roll-back: identity and sequence number under the HMAC, checked against a journal
# --------------------------------------------------------------------------

def _two_saves(journal):
    """A keyed filter saved after 2 steps (seq 1) and after 3 steps (seq 2), both saves recorded in ``journal``."""
    f = _keyed()
    old = f.to_json(key=KEY, journal=journal)
    f.run("0.3")
    new = f.to_json(key=KEY, journal=journal)
    return f, old, new


@pytest.mark.parametrize("where", ["memory", "file"])
def test_a_replayed_older_keyed_state_is_refused_and_the_newest_is_accepted(tmp_path, where):
    """The analyst kept the genuine keyed file of 2 steps; the curator saved 3 since.  With the journal the old file is
    refused (its spent step would be forgotten), the newest loads, and loads again (a restart after a crash)."""
    journal = StateJournal() if where == "memory" else str(tmp_path / "filter.journal")
    f, old, new = _two_saves(journal)
    assert (json.loads(old)["seq"], json.loads(new)["seq"]) == (1, 2)
    assert json.loads(old)["instance"] == json.loads(new)["instance"] == f.instance_id
    assert DPFilter.from_json(old, key=KEY).n == 2  # the HMAC alone cannot tell: the old file is genuine
    with pytest.raises(ValueError, match="rolled-back"):
        DPFilter.from_json(old, key=KEY, journal=journal)
    g = DPFilter.from_json(new, key=KEY, journal=journal)
    assert g.n == 3 and g.seq == 2 and g.instance_id == f.instance_id
    assert DPFilter.from_json(new, key=KEY, journal=journal).n == 3
    g.run("0.1")
    newer = g.to_json(key=KEY, journal=journal)
    assert json.loads(newer)["seq"] == 3
    with pytest.raises(ValueError, match="rolled-back"):
        DPFilter.from_json(new, key=KEY, journal=journal)
    assert DPFilter.from_json(newer, key=KEY, journal=journal).n == 4
    if where == "file":  # the file is the journal: a fresh object on the same path knows the newest state
        assert StateJournal(journal).newest == 3 and StateJournal(journal).instance == f.instance_id
        with pytest.raises(ValueError, match="rolled-back"):
            DPFilter.from_json(old, key=KEY, journal=StateJournal(journal))


def test_tampering_with_the_sequence_number_or_the_identity_breaks_the_hmac():
    journal = StateJournal()
    _, old, _ = _two_saves(journal)
    for field, value in (("seq", 99), ("instance", "0" * 32)):
        d = json.loads(old)
        d[field] = value
        _redigest(d)
        assert DPFilter.from_dict(d).n == 2  # without a key nothing is authenticated
        with pytest.raises(ValueError, match="HMAC mismatch"):
            DPFilter.from_dict(d, key=KEY)
        with pytest.raises(ValueError, match="HMAC mismatch"):
            DPFilter.from_dict(d, key=KEY, journal=journal)
    assert journal.newest == 2  # a refused state records nothing


def test_a_journal_belongs_to_one_filter_and_refuses_a_second_copy_that_saves_late():
    journal = StateJournal()
    f, _, new = _two_saves(journal)
    other = DPFilter("10", "1e-6")
    with pytest.raises(ValueError, match="journal records filter"):
        DPFilter.from_json(other.to_json(key=KEY), key=KEY, journal=journal)
    a = DPFilter.from_json(new, key=KEY, journal=journal)
    b = DPFilter.from_json(new, key=KEY, journal=journal)  # two live copies of the newest state
    a.run("0.1")
    b.run("0.1")
    a.to_json(key=KEY, journal=journal)
    with pytest.raises(ValueError, match="another copy"):
        b.to_json(key=KEY, journal=journal)
    assert b.seq == 2 and journal.newest == 3


def test_journal_needs_a_key_and_a_state_with_a_sequence_number(tmp_path):
    f = _keyed()
    with pytest.raises(ValueError, match="journal needs key"):
        f.to_json(journal=StateJournal())
    with pytest.raises(ValueError, match="journal needs key"):
        DPFilter.from_json(f.to_json(), journal=StateJournal())
    with pytest.raises(TypeError, match="journal"):
        f.to_json(key=KEY, journal=3)
    legacy = f.to_dict()  # a keyed state written before sequence numbers: version 1 with an HMAC
    legacy["hmac"] = _mac(KEY, {k: v for k, v in legacy.items() if k != "hmac"})
    assert DPFilter.from_dict(legacy, key=KEY).n == 2
    with pytest.raises(ValueError, match="no sequence number"):
        DPFilter.from_dict(legacy, key=KEY, journal=StateJournal())
    assert f.to_dict()["version"] == 1 and "seq" not in f.to_dict()  # unkeyed states are unchanged


def test_a_damaged_journal_file_refuses_everything(tmp_path):
    path = tmp_path / "j"
    f, _, new = _two_saves(str(path))
    path.write_text(path.read_text() + "not json\n")
    with pytest.raises(ValueError, match="damaged"):
        DPFilter.from_json(new, key=KEY, journal=str(path))
    with pytest.raises(ValueError, match="damaged"):
        f.to_json(key=KEY, journal=path)


def test_a_pickled_copy_keeps_its_identity_and_sequence_number():
    import pickle

    f = _keyed()
    f.to_json(key=KEY)
    g = pickle.loads(pickle.dumps(f))
    assert (g.instance_id, g.seq, g.n) == (f.instance_id, 1, 2)


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
