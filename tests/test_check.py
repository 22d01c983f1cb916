"""``fullyadaptive check`` and :func:`reference.profiles.check.check`: parsing, verdicts, exit statuses, JSON.

Verdicts are decided against certified brackets; the numbers quoted come from the exact
profiles (tests/test_profiles.py checks those against second routes).  Each verdict class has
a case on both sides of the boundary, so a checker that always says "valid" (or "invalid")
fails here.
"""
from __future__ import annotations

import json
from fractions import Fraction

import pytest

from reference.cli import main
from reference.profiles.check import check, parse_spec, profile


def test_parse_spec_forms(tmp_path):
    a = parse_spec("rr:0.01x1000 + gaussian:sigma=2x500; laplace:b=10x50")
    assert [s.mechanism for s in a] == ["rr", "gaussian", "laplace"]
    assert [s.count for s in a] == [1000, 500, 50]
    assert a[0].p("eps") == Fraction(1, 100)  # a decimal string is exact
    s = parse_spec("subsampled-gaussian:q=0.01,sigma=1.1x10000")[0]
    assert (s.p("q"), s.p("sigma"), s.count) == (Fraction(1, 100), Fraction(11, 10), 10000)
    assert parse_spec("zcdp:rho=0.1")[0].count == 1
    # --binary: the double nearest to 0.1, as a float peer computed with
    assert parse_spec("rr:0.1", binary=True)[0].p("eps") == Fraction(0.1) != Fraction(1, 10)
    f = tmp_path / "c.json"
    f.write_text(json.dumps([{"mechanism": "gaussian", "sigma": 0.5, "count": 3}, {"mechanism": "rr", "eps": "0.5"}]))
    b = parse_spec(str(f))
    assert b[0].p("sigma") == Fraction(1, 2) and b[0].count == 3 and b[1].p("eps") == Fraction(1, 2)


@pytest.mark.parametrize("bad", ["foo:1", "gaussian:s=2", "gaussian:sigma=-1", "rr:0.1x0", "", "laplace:b=10,b=3,zz"])
def test_parse_spec_refuses(bad):
    with pytest.raises(ValueError):
        parse_spec(bad)


def test_rr_verdicts_on_both_sides_of_the_exact_eps():
    """1000-fold 0.01-RR at delta = 1e-6: exact eps = 1.36544671 (KOV15), so 1.3 is invalid and 1.37 valid and tight."""
    v = check("rr:0.01x1000", "1.3", "1e-6")
    assert v.status == "invalid" and v.exit_status == 1
    assert "1.3654467" in v.message
    w = check("rr:0.01x1000", "1.37", "1e-6")
    assert w.status == "valid" and w.tight and w.exit_status == 0
    x = check("rr:0.01x1000", "2", "1e-6")
    assert x.status == "valid" and not x.tight and "loose by" in x.message


def test_gaussian_claim_below_the_zcdp_conversion_is_explained():
    """rho = 0.1 Gaussian at delta = 1e-6: exact eps 1.9945 < improved zCDP conversion 2.1419; a claim of 2 is valid because of the exact profile."""
    v = check("gaussian:sigma=2.2360679774997896949", "2", "1e-6")  # rho = 1/(2 sigma^2) = 0.1 (to 19 digits)
    assert v.status == "valid"
    assert "1.99452" in v.message
    assert "zCDP" in v.explanation and "dong2022" in v.explanation
    assert "2.1419" in v.explanation


def test_zcdp_alone_is_undecided_between_gaussian_and_conversion():
    v = check("zcdp:rho=0.1", "2", "1e-6")
    assert v.status == "undecided" and v.exit_status == 3
    lo, hi = v.eps_bracket.lo, v.eps_bracket.hi
    assert 1.9945 < lo < 1.9946 and 2.1419 < hi < 2.1420
    assert check("zcdp:rho=0.1", "2.15", "1e-6").status == "valid"
    assert check("zcdp:rho=0.1", "1.99", "1e-6").status == "invalid"


def test_laplace_and_sgm_examples():
    assert check("laplace:b=10x50", "3.2", "1e-6").status == "valid"
    assert check("laplace:b=10x50", "3.1", "1e-6").status == "invalid"
    v = check("subsampled-gaussian:q=0.01,sigma=1.1x10000", "6", "1e-5")
    assert v.status == "valid" and not v.eps_bracket.exact
    assert check("subsampled-gaussian:q=0.01,sigma=1.1x10000", "3", "1e-5").status == "invalid"


def test_mixture_bracket_is_ordered():
    b = profile("rr:0.1x10+gaussian:sigma=5x3", "eps", "1e-6")
    assert 0 < b.lo <= b.hi and not b.exact


def test_cli_check_json_and_exit_status(capsys):
    assert main(["check", "rr:0.01x1000", "--eps", "1.3", "--delta", "1e-6", "--json"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert out["status"] == "invalid" and out["exit_status"] == 1
    assert out["eps_at_claimed_delta"]["lower"].startswith("1.3654467")
    assert main(["check", "laplace:b=10x50", "--eps", "3.2", "--delta", "1e-6"]) == 0
    assert "valid" in capsys.readouterr().out
    assert main(["check", "nonsense", "--eps", "1", "--delta", "1e-6"]) == 2
    assert "fullyadaptive check: error:" in capsys.readouterr().err


def test_crosscheck_grades_a_fake_peer(monkeypatch):
    """The crosscheck grades a peer's doubles against the certified intervals: an exact answer agrees, a
    slightly small one is ANTI-CONSERVATIVE, a large one conservative, an exception is an error."""
    from reference.profiles import peers
    from reference.profiles import vectors as V

    def fake(name, x):
        if name != "pure_dp_eps":
            raise peers.Unsupported(name)
        case = next(c for c in V.load(name)["cases"] if c["inputs"] == x)
        lo = float.fromhex(case["lower_double"])
        return {"exact": lo, "small": lo * (1 - 1e-9), "large": lo * 1.5, "boom": RuntimeError("overflow")}

    monkeypatch.setitem(peers.PEERS, "fake", ("math", fake))
    rep = peers.run_crosscheck(["fake"])
    rows = rep["peers"]["fake"]["results"]
    verdicts = {r["case"].rsplit("[", 1)[1][:-1]: r["verdict"] for r in rows if r["case"].startswith("pure_dp_eps#1")}
    assert verdicts["exact"] == "agree"
    assert verdicts["small"].startswith("ANTI-CONSERVATIVE")
    assert verdicts["large"].startswith("conservative")
    assert verdicts["boom"] == "error"
    assert rep["summary"]["anti_conservative"] >= 1
    assert not any("huge-k" in r["case"] for r in rows)  # pure_dp_eps#5 (k = 10^5) is skipped by default
    assert all(not r["case"].startswith("pure_dp_eps#5") for r in rows)


def test_crosscheck_reports_a_missing_peer(monkeypatch):
    from reference.profiles import peers

    monkeypatch.setitem(peers.PEERS, "absent", ("no_such_module_xyz", None))
    rep = peers.run_crosscheck(["absent"])
    assert rep["peers"]["absent"]["status"].startswith("not installed")


def test_an_invalid_delta_reads_above_the_claim():
    """A certified lower end just above the claim is printed with the digits it takes to read above it."""
    import mpmath

    import reference.profiles.check as C

    claim = Fraction("1.81e-34")
    lo = mpmath.mpf("1.8100062788e-34")
    text = C._shown_above(lo, claim)
    assert Fraction(text) > claim and Fraction(text) <= Fraction(mpmath.nstr(lo, 30))
    assert C._shown_above(mpmath.mpf("0.5"), Fraction(1, 10 ** 6)) == "0.5"
