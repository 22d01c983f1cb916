"""reference.profiles.executor: one ``map`` in this process, on a process pool or on Dask, in the items' order.

The golden vectors and the crosscheck must come out the same whichever executor runs them:
the vectors are regenerated here on a subset of the cases (the first two of every file)
serially, on a pool of two processes and on a Dask ``LocalCluster`` of two workers, and
compared with each other and with the stored files; the crosscheck of dp_accounting on a few
cases likewise (skipped without dp_accounting; CI installs it).  The Dask tests are skipped
only when dask.distributed is not installed (``pip install '.[distributed]'``).
"""
from __future__ import annotations

import io
import json
import os
import time

import pytest

from reference.profiles import executor as E
from reference.profiles import peers as P
from reference.profiles import vectors as V

IDS = {1, 2}
NAMES = sorted(V.FILES)
# a few dp_accounting cases: a PLD and an RDP answer each, one non-finite, one anti-conservative
CC_CASES = {"gaussian_eps#3", "gaussian_eps#4", "laplace_delta#2", "pure_dp_eps#3", "sgm_rdp#6"}


def _slow_identity(x):
    time.sleep(0.05 * (x % 3 == 0))  # the items finish out of order
    return x * x


def _fails_on_three(x):
    if x == 3:
        raise ArithmeticError("three")
    return x


def _have_distributed() -> bool:
    try:
        import distributed  # noqa: F401
    except ImportError:
        return False
    return True


needs_distributed = pytest.mark.skipif(not _have_distributed(),
                                       reason="dask.distributed is not installed: pip install '.[distributed]'")


@pytest.fixture(scope="module")
def local_cluster():
    """A Dask cluster in this process (two workers, one thread each); closed after the module."""
    if not _have_distributed():
        pytest.skip("dask.distributed is not installed: pip install '.[distributed]'")
    from distributed import LocalCluster

    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=":0")
    yield cluster
    cluster.close()


def test_make_executor_kinds():
    assert isinstance(E.make_executor(None, 1), E.SerialExecutor)
    with E.make_executor(None, 2) as ex:
        assert isinstance(ex, E.PoolExecutor) and ex.workers == 2
    with E.make_executor(None, None) as ex:
        assert isinstance(ex, E.PoolExecutor) and ex.workers == E.default_workers()
    with pytest.raises(ValueError, match="--workers"):
        E.make_executor(None, 0)


def test_scheduler_without_distributed_names_the_extra(monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed -> ImportError
    with pytest.raises(RuntimeError, match=r"fullyadaptive\[distributed\]"):
        E.make_executor("tcp://127.0.0.1:8786", None)


@pytest.mark.parametrize("workers", [1, 2])
def test_map_keeps_the_order_and_raises_a_workers_exception(workers):
    items = list(range(12))
    with E.make_executor(None, workers, progress=False) as ex:
        assert ex.map(_slow_identity, items) == [x * x for x in items]
        assert ex.map(_slow_identity, []) == []
        with pytest.raises(ArithmeticError, match="three"):
            ex.map(_fails_on_three, items)


def test_progress_sink_and_lines(monkeypatch):
    seen = []
    with E.make_executor(None, 1, progress=lambda i, n, label: seen.append((i, n, label))) as ex:
        ex.map(_slow_identity, [1, 2], label=lambda x: f"item {x}")
    assert seen == [(0, 2, ""), (1, 2, "item 1"), (2, 2, "item 2")]
    # not a terminal: one plain line per interval once START_S has passed (both zero here)
    monkeypatch.setattr(E, "START_S", 0.0)
    monkeypatch.setenv(E.INTERVAL_ENV, "1e-9")
    buf = io.StringIO()
    bar = E._Progress("golden vectors", 2, None, stream=buf)
    bar.update("a#1")
    bar.update("a#2")
    bar.close()
    lines = buf.getvalue().splitlines()
    assert lines[-1].startswith("golden vectors: 2/2 (100%) a#2, ") and lines[-1].endswith("s elapsed")


def _stored_subset():
    return {n: [c for c in V.load(n)["cases"] if c["id"] in IDS] for n in NAMES}


def _vectors(ex):
    docs = V.generate_all(NAMES, ex, ids=IDS)
    return {n: d["cases"] for n, d in docs.items()}


def test_vectors_serial_and_pool_are_identical_to_the_stored_files():
    serial = _vectors(E.make_executor(None, 1, progress=False))
    with E.make_executor(None, 2, progress=False) as ex:
        pool = _vectors(ex)
    assert json.dumps(serial) == json.dumps(pool)
    assert serial == _stored_subset()


@needs_distributed
def test_vectors_on_dask_are_identical(local_cluster):
    with E.make_executor(local_cluster.scheduler_address, None, progress=False) as ex:
        assert ex.kind == "dask" and ex.workers == 2
        assert json.dumps(_vectors(ex)) == json.dumps(_stored_subset())


def test_vectors_cli_with_workers(tmp_path):
    assert V.main(["--out", str(tmp_path), "--only", "sgm_rdp", "--workers", "2", "--quiet"]) == 0
    assert json.loads((tmp_path / "sgm_rdp.json").read_text()) == V.load("sgm_rdp")
    assert (tmp_path / "schema.json").exists()


def _crosscheck(ex):
    return P.run_crosscheck(["dp_accounting"], cases=CC_CASES, executor=ex)


@pytest.fixture(scope="module")
def dp_accounting_serial():
    if P.installed("dp_accounting") is None:
        if os.environ.get("CI"):
            pytest.fail("dp_accounting is not installed; CI must install the peers: pip install '.[test]' (it pins them)")
        pytest.skip("dp_accounting is not installed: pip install '.[test]' (it pins the peers)")
    rep = _crosscheck(E.make_executor(None, 1, progress=False))
    # pld and rdp; pure_dp_eps: pld, pld-accountant and advanced-composition; sgm_rdp: rdp only
    assert len(rep["peers"]["dp_accounting"]["results"]) == 10
    return rep


def test_crosscheck_serial_and_pool_are_identical(dp_accounting_serial):
    with E.make_executor(None, 2, progress=False) as ex:
        assert _crosscheck(ex) == dp_accounting_serial


@needs_distributed
def test_crosscheck_on_dask_is_identical(dp_accounting_serial, local_cluster):
    with E.make_executor(local_cluster.scheduler_address, None, progress=False) as ex:
        assert _crosscheck(ex) == dp_accounting_serial


@needs_distributed
def test_crosscheck_on_dask_worker_processes_is_identical(dp_accounting_serial):
    """Dask's worker processes start with one BLAS thread; the peers run with one everywhere, so the bits agree."""
    with E.make_executor("local", 2, progress=False) as ex:
        assert ex.workers == 2
        assert _crosscheck(ex) == dp_accounting_serial


def test_crosscheck_cli_refuses_zero_workers(capsys):
    from reference.cli import main

    assert main(["crosscheck", "--peer", "opendp", "--workers", "0"]) == 2
    assert "fullyadaptive crosscheck: error:" in capsys.readouterr().err


def test_base_executor_says_what_is_missing():
    """The base class is not an executor: map() raises a TypeError naming the method a subclass must define."""
    with pytest.raises(TypeError, match="must define _map"):
        E.Executor().map(abs, [1, 2])


def test_progress_interval_reads_the_environment(monkeypatch):
    from reference.report import progress as RP

    monkeypatch.setenv(E.INTERVAL_ENV, "0.25")
    assert E.progress_interval() == 0.25 == RP._interval_from_env()
    for bad in ("-1", "0", "soon"):
        monkeypatch.setenv(E.INTERVAL_ENV, bad)
        assert E.progress_interval() == E.DEFAULT_INTERVAL_S
    assert RP.START_S == E.START_S and RP.INTERVAL_ENV == E.INTERVAL_ENV
