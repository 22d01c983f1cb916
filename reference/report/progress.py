"""Progress of a long run on stderr: a one-line status on a terminal, periodic one-line messages otherwise.

Nothing is printed during the first ``START_S`` seconds, so a quick command stays silent.
On a terminal the status line is redrawn in place (``\\r``) and erased at the end; when
stderr is a file or a pipe (CI logs, ``2> log``) a plain line is printed every
``interval`` seconds (``INTERVAL_ENV``, default ``DEFAULT_INTERVAL_S``), e.g.::

    fullyadaptive report: catalog 73/151 (48%) whitehouse2022_thm1, 6 s elapsed

A stage (``stage(desc, total)`` then ``update(i, label)``) says how far the run is; a
command whose work has no stages still gets the elapsed-time heartbeat.  Needs no
third-party package.
"""
from __future__ import annotations

import sys
import threading
import time

__all__ = ["Progress", "START_S", "DEFAULT_INTERVAL_S", "INTERVAL_ENV"]

# The silence before the first message, the period of the lines and its environment variable are defined once,
# by the executor of the layer below (reference.profiles.executor), and shared here.
from ..profiles.executor import DEFAULT_INTERVAL_S, INTERVAL_ENV, START_S  # noqa: E402,F401
from ..profiles.executor import progress_interval as _interval_from_env  # noqa: E402


class Progress:
    """The progress of one run, written to stderr by a background thread; ``enabled=False`` prints nothing.

    Use as a context manager or call :meth:`close`.  ``callback(desc)`` returns a function
    ``(i, n, label)`` for code that reports progress that way (the verifier's slack table).
    """

    def __init__(self, prog: str, *, enabled: bool = True, interval: float | None = None,
                 start: float | None = None, stream=None, tty: bool | None = None):
        self.prog = prog
        self.enabled = enabled
        self._stream = stream
        self.interval = _interval_from_env() if interval is None else float(interval)
        self.start_s = START_S if start is None else float(start)
        try:
            self.tty = bool(self.stream.isatty()) if tty is None else bool(tty)
        except (AttributeError, ValueError):
            self.tty = False
        self.t0 = time.monotonic()
        self._lock = threading.Lock()
        self._desc: str | None = None
        self._i = 0
        self._n: int | None = None
        self._label = ""
        self._drawn = 0  # width of the status line drawn on a terminal
        self.lines = 0   # plain lines printed (not on a terminal)
        self._stop = threading.Event()
        self._thread = None
        if enabled:
            self._thread = threading.Thread(target=self._run, name="fullyadaptive-progress", daemon=True)
            self._thread.start()

    # -- the state -------------------------------------------------------------------
    @property
    def stream(self):
        return self._stream if self._stream is not None else sys.stderr

    def stage(self, desc: str, total: int | None = None) -> "Progress":
        """Start a stage named ``desc`` of ``total`` units (``None``: unknown)."""
        with self._lock:
            self._desc, self._i, self._n, self._label = desc, 0, total, ""
        return self

    def update(self, i: int, label: str = "", total: int | None = None) -> None:
        """``i`` units of the current stage are done; ``label`` names the unit under way."""
        with self._lock:
            self._i = i
            self._label = label
            if total is not None:
                self._n = total

    def callback(self, desc: str):
        """A ``progress(i, n, label)`` function that drives a stage named ``desc``."""
        self.stage(desc)

        def cb(i, n, label=""):
            self.update(i, label, total=n)
        return cb

    def done(self) -> None:
        """The current stage is over (the heartbeat falls back to the elapsed time)."""
        with self._lock:
            self._desc = None

    def message(self) -> str:
        """The status line: ``prog: stage i/n (p%) label, s elapsed``."""
        el = time.monotonic() - self.t0
        with self._lock:
            desc, i, n, label = self._desc, self._i, self._n, self._label
        if desc is None:
            return f"{self.prog}: running, {el:.0f} s elapsed"
        if n is not None:
            part = f" {i}/{n} ({100 * i // n if n else 100}%)"
        else:
            part = f" {i}" if i else ""
        lab = f" {label[:50]}" if label else ""
        return f"{self.prog}: {desc}{part}{lab}, {el:.0f} s elapsed"

    # -- the writer ------------------------------------------------------------------
    def _write(self, text: str) -> None:
        try:
            self.stream.write(text)
            self.stream.flush()
        except (OSError, ValueError):  # stderr closed: progress is not worth an error
            self._stop.set()

    def _run(self) -> None:
        if self._stop.wait(self.start_s):
            return
        if self.tty:
            while True:
                msg = self.message()
                self._write("\r" + msg.ljust(self._drawn))
                self._drawn = len(msg)
                if self._stop.wait(0.5):
                    return
        while True:
            self._write(self.message() + "\n")
            self.lines += 1
            if self._stop.wait(self.interval):
                return

    def close(self) -> None:
        """Stop the thread; on a terminal, erase the status line."""
        self._stop.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=2)
        if self.tty and self._drawn:
            self._write("\r" + " " * self._drawn + "\r")
            self._drawn = 0

    def __enter__(self) -> "Progress":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
