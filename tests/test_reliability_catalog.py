"""Catalog cases that used to run for minutes, exhaust memory or leak interpreter messages:
each must finish or refuse with a ValueError naming the parameter, within a time limit the test
enforces itself (a subprocess with a timeout, so a regression cannot hang the suite)."""
import json
import os
import subprocess
import sys
from fractions import Fraction

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

_CHILD = r"""
import json, sys, time
sys.path.insert(0, {root!r})
from reference.catalog import get
from reference.precision import directed_decimal
cid, kw, digits = json.loads(sys.argv[1])
e = get(cid)
t = time.perf_counter()
try:
    r = e(**{{**e.defaults(), **kw}})
    s = directed_decimal(r, digits, "upper") if not isinstance(r, int) else str(r)
    out = {{"ok": True, "text": s[:200]}}
except ValueError as exc:
    out = {{"ok": False, "type": type(exc).__name__, "msg": str(exc)}}
out["seconds"] = time.perf_counter() - t
print(json.dumps(out))
"""


def _run(cid, kw, digits=50, limit=2.0, hard=60):
    """Run one catalog call in a fresh interpreter; the measured time excludes the imports."""
    code = _CHILD.format(root=ROOT)
    p = subprocess.run([sys.executable, "-c", code, json.dumps([cid, kw, digits])],
                       capture_output=True, text=True, timeout=hard)
    assert p.returncode == 0, p.stderr[-2000:]
    out = json.loads(p.stdout.strip().splitlines()[-1])
    assert out["seconds"] < limit, out
    return out


@pytest.mark.parametrize("cid, kw, param", [
    ("balle2020_thm5_1_min_n", {"eps0": 1000}, None),
    ("balle2020_thm5_1_min_n", {"eps0": 100000}, "eps0"),
    ("balle2020_thm3_2_min_m", {"eps0": 1000}, None),
    ("rogers2016_lem6_3_crossing_probability", {"n": 10**6}, "n"),
    ("balle2020_prop3_4_bound", {"n": 10**18}, None),
    ("canonne2020_prop12_delta", {"alpha": 4001, "eps_alpha": 7000000, "eps": "1e-26"}, None),
    ("balle2020_cor3_3_eps", {"eps0": 40000000000}, "eps0"),
    ("balle2020_cor3_3_eps", {"eps0": 300, "m": 2}, None),
])
def test_catalog_case_finishes_or_refuses_fast(cid, kw, param):
    out = _run(cid, kw)
    if param is None:
        assert out["ok"], out
    else:
        assert not out["ok"] and out["msg"].startswith(param), out
    assert "Exceeds the limit" not in json.dumps(out)


def test_kov_delta_at_ten_thousand_digits():
    out = _run("kairouz2015_thm3_3_delta", {"dps": 10000}, digits=10000, limit=4.0)
    assert out["ok"] and "Exceeds the limit" not in out["text"]


@pytest.mark.parametrize("eps0", ["0.5", "1", "3", "1e-3", "20"])
def test_min_n_from_the_closed_form_guess_is_the_exact_threshold(eps0):
    """The galloping search now starts at the closed-form k*; the answer must still be the exact
    threshold: pred(n) and not pred(n - 1) (second route: the exact decision itself), and equal to
    the search from 0 where that is affordable."""
    from reference.bounds import balle2020 as B
    from reference.precision import sign_of

    e, d = Fraction(eps0), Fraction(1, 10**6)

    def pred(n):
        return sign_of(lambda c, e, n, d: B._thm51(c, e, n, d) - e, (e, Fraction(n), d)) < 0

    n = B.thm5_1_min_n(eps0, d)
    assert pred(n) and (n == 1 or not pred(n - 1))
    if n < 10**12:
        assert n == B._min_int(pred, 1, 0)


def test_cor3_3_guard_keeps_the_supported_range():
    from reference.bounds import balle2020 as B

    assert B.cor3_3_eps(300, 10**6, 2, "1e-8", "1e-7") > 0
    with pytest.raises(ValueError, match="eps0"):
        B.cor3_3_eps(3000, 10**6, 2, "1e-8", "1e-7")


def test_crossing_probability_limit_is_a_value_error_naming_n():
    from reference.bounds import rogers2016 as R

    with pytest.raises(ValueError, match="^n must be at most"):
        R.crossing_probability_exact("1/2", "1/2", "0.1", R.CROSSING_MAX_N + 1)
