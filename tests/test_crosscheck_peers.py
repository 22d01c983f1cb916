"""The crosscheck against the real peers: dp_accounting and opendp, installed with ``pip install '.[peers]'``.

Every golden-vector case but the huge-k ones (which take the peers minutes) is run through the
installed library on a pool of two processes.  Asserted: each adapter answers every case it
supports without raising (an 'error' row is only ever a peer's non-finite value, never an
exception of the adapter), the findings the README lists for dp-accounting 0.6.0 are found
(its PLD accountant returns inf at delta = 1e-300, 1e-100 and 1e-15; it is conservative on
randomized response, 1.78e-4 against the exact 1.083e-4 at k = 1000; it is anti-conservative,
beyond the neighbouring doubles of the certified value, on the k = 500 Gaussian eps(delta)
(PLD) and on the q = 1e-6 subsampled-Gaussian Renyi curve (RDP)), and opendp's zCDP route for
the Gaussian is conservative everywhere (119.304 against the exact 114.813 at k = 500).

Without a peer the test skips locally and fails under CI (the ``CI`` environment variable),
which must install the peers.  The exact list of findings is pinned to the peer versions they
were found with; another version fails with a message saying so.
"""
from __future__ import annotations

import math
import os
import pytest

from reference.profiles import executor as E
from reference.profiles import peers as P
from reference.profiles import vectors as V

INSTALL = "pip install '.[peers]'"
PINNED = {"dp_accounting": "0.6.0", "opendp": "0.16.0"}


def _require(peer: str) -> str:
    ver = P.installed(peer)
    if ver is None:
        if os.environ.get("CI"):
            pytest.fail(f"{peer} is not installed, and CI must run the crosscheck: {INSTALL}")
        pytest.skip(f"{peer} is not installed: {INSTALL}")
    return ver


def _report(peer: str) -> dict:
    with E.make_executor(None, 2, progress=False) as ex:
        rep = P.run_crosscheck([peer], executor=ex)
    info = rep["peers"][peer]
    assert info["status"] == "installed"
    return {"rows": info["results"], "summary": rep["summary"], "version": info["version"]}


def _by_case(rows) -> dict[str, dict]:
    out = {}
    for r in rows:
        key = r["case"].split(" ", 1)[0] + (" [" + r["case"].rsplit("[", 1)[1] if r["case"].endswith("]") else "")
        assert key not in out, f"two rows for {key}"
        out[key] = r
    return out


def _no_adapter_error(rows) -> None:
    for r in rows:
        if r["verdict"] == "error":
            assert r.get("note") == "non-finite value", f"the adapter raised on {r['case']}: {r.get('note')}"
            assert not math.isfinite(float(r["peer_value"]))


def _pin(peer: str, ver: str) -> None:
    if ver != PINNED[peer]:
        pytest.fail(f"{peer} {ver} is installed; the findings here were recorded with {PINNED[peer]}: install "
                    f"{peer.replace('_', '-')}=={PINNED[peer]}, or re-record the findings (README, this file)")


@pytest.fixture(scope="module")
def dpa():
    ver = _require("dp_accounting")
    return _report("dp_accounting") | {"version": ver}


def test_dp_accounting_answers_every_supported_case(dpa):
    rows, s = dpa["rows"], dpa["summary"]
    assert s["unsupported"] == 0  # every vector file has a dp_accounting route
    _no_adapter_error(rows)
    cases = _by_case(rows)
    files = {k.split("#")[0] for k in cases}
    assert files == {"pure_dp_delta", "pure_dp_eps", "gaussian_delta", "gaussian_eps", "laplace_delta", "laplace_eps",
                     "sgm_rdp", "sgm_eps"}
    # both accountants on every composed mechanism (randomized response: the PLD only)
    for k in ("gaussian_delta#2", "laplace_eps#1", "sgm_eps#2"):
        assert {f"{k} [pld]", f"{k} [rdp]"} <= set(cases)


def test_dp_accounting_known_findings(dpa):
    _pin("dp_accounting", dpa["version"])
    cases = _by_case(dpa["rows"])
    nonfinite = {k for k, r in cases.items() if r["verdict"] == "error"}
    assert nonfinite == {"pure_dp_eps#4 [pld]", "gaussian_eps#4 [pld]", "laplace_eps#3 [pld]"}  # delta 1e-300, 1e-100, 1e-15
    anti = {k: r for k, r in cases.items() if r["verdict"].startswith("ANTI-CONSERVATIVE")}
    assert set(anti) == {"gaussian_eps#2 [pld]", "sgm_rdp#6 [rdp]"}
    for k, r in anti.items():  # below the largest double <= the certified lower end
        name, cid = k.split(" ")[0].split("#")
        case = next(c for c in V.load(name)["cases"] if c["id"] == int(cid))
        assert float(r["peer_value"]) < float.fromhex(case["lower_double"])
    rr = cases["pure_dp_delta#1 [pld]"]  # randomized response, eps0 = 0.01, k = 1000, eps = 1
    assert rr["verdict"].startswith("conservative") and 1.778e-4 < float(rr["peer_value"]) < 1.779e-4
    assert 1.0831e-4 < float(rr["lower"]) < 1.0832e-4
    assert dpa["summary"]["anti_conservative"] == 2 and dpa["summary"]["error"] == 3


def test_opendp_gaussian_zcdp_route_is_conservative():
    ver = _require("opendp")
    rep = _report("opendp")
    rows = rep["rows"]
    _no_adapter_error(rows)
    cases = _by_case(rows)
    assert set(cases) == {f"gaussian_eps#{i} [zcdp-curve]" for i in (1, 2, 3, 4)}  # #5 is huge-k
    assert all(r["verdict"].startswith("conservative") for r in rows), rows
    assert rep["summary"]["error"] == 0 and rep["summary"]["anti_conservative"] == 0
    assert rep["summary"]["unsupported"] > 0  # the other quantities have no opendp route here
    _pin("opendp", ver)
    assert 119.30 < float(cases["gaussian_eps#2 [zcdp-curve]"]["peer_value"]) < 119.31
