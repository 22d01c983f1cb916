"""One interface for running independent cases in parallel: in this process, a local process pool, or a Dask cluster.

``make_executor(scheduler, workers)`` returns an :class:`Executor`; ``ex.map(fn, items, desc=...)``
calls ``fn(item)`` for every item and returns the results *in the order of the items*, whatever
order they finish in, so a run gives the same output on one core, on a process pool and on a
cluster.  The golden vectors (``python -m reference.profiles.vectors``) and the crosscheck
(``fullyadaptive crosscheck``) use it; their ``--workers N`` and ``--scheduler ADDRESS`` options
are the two arguments.

* ``scheduler=None, workers=1``: :class:`SerialExecutor`, in this process (monkeypatches and
  in-process state are seen; nothing is pickled).
* ``scheduler=None``, ``workers`` None or > 1: :class:`PoolExecutor`, a
  :class:`concurrent.futures.ProcessPoolExecutor` of ``workers`` processes (default: the usable
  cores), started at the first ``map`` of more than one item.  ``fn`` and the items must pickle
  (``fn`` a module-level function or a :func:`functools.partial` of one).
* ``scheduler=ADDRESS`` (``tcp://host:8786``, or an ``inproc://`` address of a cluster in this
  process): :class:`DaskExecutor`, a ``distributed.Client`` connected to that scheduler; needs
  ``pip install 'fullyadaptive[distributed]'`` here and ``reference`` importable on the workers.
  ``scheduler="local"`` starts a ``distributed.LocalCluster`` of ``workers`` single-threaded
  worker processes for the run.

Progress (on stderr) follows the conventions of :mod:`reference.report.progress`, which this
layer may not import: nothing during the first ``START_S`` seconds; then a tqdm bar on a
terminal, and a plain line every ``INTERVAL_ENV`` seconds (default 5) otherwise.  Pass
``progress=False`` for silence, or a function ``(i, n, label)`` to receive the progress
instead (the command line hands it to its own status line).
"""
from __future__ import annotations

import os
import sys
import time
from typing import Any, Callable, Iterable, Sequence

__all__ = ["Executor", "SerialExecutor", "PoolExecutor", "DaskExecutor", "make_executor", "add_executor_arguments",
           "default_workers", "progress_interval",
           "DISTRIBUTED_HINT"]

#: Seconds of silence before the first progress output (also used by :mod:`reference.report.progress`).
START_S = 2.0
#: Seconds between two progress lines when stderr is not a terminal (also used by :mod:`reference.report.progress`).
DEFAULT_INTERVAL_S = 5.0
#: Environment variable overriding ``DEFAULT_INTERVAL_S`` (seconds, > 0).
INTERVAL_ENV = "FULLYADAPTIVE_PROGRESS_INTERVAL"
DISTRIBUTED_HINT = "--scheduler needs dask.distributed: pip install 'fullyadaptive[distributed]'"


def default_workers() -> int:
    """The number of cores this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def progress_interval() -> float:
    """Seconds between two progress lines: ``INTERVAL_ENV`` when it is a positive number, else the default."""
    try:
        v = float(os.environ.get(INTERVAL_ENV, DEFAULT_INTERVAL_S))
    except ValueError:
        return DEFAULT_INTERVAL_S
    return v if v > 0 else DEFAULT_INTERVAL_S


class _Progress:
    """Counts finished items; shows a tqdm bar (terminal), periodic lines (otherwise), or feeds a callback."""

    def __init__(self, desc: str, total: int, progress, stream=None):
        self.desc, self.total, self.done = desc, total, 0
        self.stream = stream if stream is not None else sys.stderr
        self.sink = progress if callable(progress) else None
        self.enabled = progress is not False
        self.t0 = time.monotonic()
        self.last_line = self.t0 + START_S - progress_interval()  # the first line once START_S has passed
        self.bar = None
        if self.enabled and self.sink is None and _isatty(self.stream):
            try:
                from tqdm import tqdm

                self.bar = tqdm(total=total, desc=desc, unit="case", file=self.stream, leave=False,
                                dynamic_ncols=True, delay=START_S)
            except ImportError:  # pragma: no cover - tqdm is a dependency
                self.bar = None
        if self.sink is not None:
            self.sink(0, total, "")

    def update(self, label: str = "") -> None:
        self.done += 1
        if not self.enabled:
            return
        if self.sink is not None:
            self.sink(self.done, self.total, label)
        elif self.bar is not None:
            self.bar.update(1)
        else:
            now = time.monotonic()
            if now - self.last_line >= progress_interval() and now - self.t0 >= START_S:
                self.last_line = now
                pct = 100 * self.done // self.total if self.total else 100
                try:
                    self.stream.write(f"{self.desc}: {self.done}/{self.total} ({pct}%) {label[:50]}, "
                                      f"{now - self.t0:.0f} s elapsed\n")
                    self.stream.flush()
                except (OSError, ValueError):
                    self.enabled = False

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None


def _isatty(stream) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


def _label(item) -> str:
    return str(item)[:60]


class Executor:
    """``map(fn, items, desc=...)``: ``[fn(x) for x in items]``, maybe in parallel, in the order of ``items``."""

    kind = "abstract"
    workers = 1

    def __init__(self, progress=None):
        self.progress = progress

    def map(self, fn: Callable[[Any], Any], items: Iterable, *, desc: str = "cases",
            label: Callable[[Any], str] = _label) -> list:
        items = list(items)
        bar = _Progress(desc, len(items), self.progress)
        try:
            return self._map(fn, items, bar, label)
        finally:
            bar.close()

    def _map(self, fn, items: Sequence, bar: _Progress, label) -> list:
        """Run ``fn`` over ``items`` in order, counting on ``bar``; each executor defines how."""
        raise TypeError(f"{type(self).__name__} must define _map (how it runs the tasks)")

    def describe(self) -> str:
        return f"{self.kind}, {self.workers} worker{'s' if self.workers != 1 else ''}"

    def close(self) -> None:
        """Release the pool or the cluster connection (a ``with`` block does it)."""

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class SerialExecutor(Executor):
    """Every item in this process, one after the other."""

    kind = "serial"

    def _map(self, fn, items, bar, label):
        out = []
        for x in items:
            out.append(fn(x))
            bar.update(label(x))
        return out


class PoolExecutor(Executor):
    """A local pool of ``workers`` processes (started lazily, reused by later maps, shut down by :meth:`close`)."""

    kind = "process pool"

    def __init__(self, workers: int | None = None, progress=None):
        super().__init__(progress)
        self.workers = int(workers) if workers else default_workers()
        self._pool = None

    def _map(self, fn, items, bar, label):
        if len(items) <= 1 or self.workers == 1:  # not worth starting processes
            return SerialExecutor._map(self, fn, items, bar, label)
        from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait

        if self._pool is None:
            self._pool = ProcessPoolExecutor(max_workers=self.workers)
        futs = {self._pool.submit(fn, x): i for i, x in enumerate(items)}
        out: list = [None] * len(items)
        pending = set(futs)
        try:
            while pending:
                done, pending = wait(pending, return_when=FIRST_COMPLETED)
                for f in done:
                    i = futs[f]
                    out[i] = f.result()  # a worker's exception is raised here, as in a serial run
                    bar.update(label(items[i]))
        except BaseException:
            for f in pending:
                f.cancel()
            raise
        return out

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None


class DaskExecutor(Executor):
    """The workers of a Dask cluster: ``distributed.Client(address)``; ``address="local"`` starts a LocalCluster."""

    kind = "dask"

    def __init__(self, address: str, workers: int | None = None, progress=None):
        super().__init__(progress)
        try:
            from distributed import Client
        except ImportError as exc:
            raise RuntimeError(DISTRIBUTED_HINT) from exc
        self.address = address
        self._cluster = None
        if address == "local":
            from distributed import LocalCluster

            self._cluster = LocalCluster(n_workers=int(workers) if workers else default_workers(),
                                         threads_per_worker=1, processes=True, dashboard_address=":0")
            self.client = Client(self._cluster)
        else:
            self.client = Client(address)
        info = self.client.scheduler_info()
        self.workers = sum(int(w.get("nthreads", 1)) for w in info.get("workers", {}).values()) or 1

    def describe(self) -> str:
        return f"dask at {self.address}, {self.workers} worker thread{'s' if self.workers != 1 else ''}"

    def _map(self, fn, items, bar, label):
        from distributed import as_completed

        if not items:
            return []
        futs = self.client.map(fn, items, pure=False)
        index = {f.key: i for i, f in enumerate(futs)}
        out: list = [None] * len(items)
        try:
            for f in as_completed(futs):
                i = index[f.key]
                out[i] = f.result()
                bar.update(label(items[i]))
        except BaseException:
            self.client.cancel(futs)
            raise
        return out

    def close(self) -> None:
        self.client.close()
        if self._cluster is not None:
            self._cluster.close()
            self._cluster = None


def add_executor_arguments(parser, action: str) -> None:
    """Add ``--workers N`` and ``--scheduler ADDRESS`` (the arguments of :func:`make_executor`) to an argparse ``parser``.

    ``action`` completes the sentence of the ``--scheduler`` help ("run the cases", "grade").
    """
    parser.add_argument("--workers", type=int, default=None,
                        help="processes of the local pool (default: the usable cores; 1: in this process)")
    parser.add_argument("--scheduler", default=None, metavar="ADDRESS",
                        help=f"{action} on the Dask cluster at ADDRESS (tcp://host:8786; 'local': a LocalCluster of "
                             "--workers processes); needs pip install 'fullyadaptive[distributed]'. The output is the "
                             "same either way")


def make_executor(scheduler: str | None = None, workers: int | None = None, *, progress=None) -> Executor:
    """The executor of ``--scheduler`` / ``--workers`` (see the module docstring); use it in a ``with`` block.

    ``progress``: ``None`` (a bar on a terminal, lines otherwise), ``False`` (silent), or a
    function ``(i, n, label)``.  Raises ``ValueError`` for ``workers < 1`` and ``RuntimeError``
    (with the install line) when a scheduler is given but dask.distributed is missing.
    """
    if workers is not None and int(workers) < 1:
        raise ValueError(f"--workers must be >= 1 (got {workers})")
    if scheduler:
        return DaskExecutor(scheduler, workers, progress=progress)
    if workers is not None and int(workers) == 1:
        return SerialExecutor(progress=progress)
    return PoolExecutor(workers, progress=progress)
