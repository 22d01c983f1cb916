"""What every subcommand shares: the program's name and exit statuses, the one-line error format, the parser classes.

Subcommand modules (:data:`reference.cli.app.EXTENSIONS`) import these from here, never from the
package :mod:`reference.cli`, which re-exports them.
"""
from __future__ import annotations

import argparse
import sys
import textwrap

__all__ = ["PROG", "EXIT_INTERRUPTED", "EXIT_INTERNAL", "DEBUG_ENV", "UsageError", "error_line", "build_info",
           "HelpFormatter", "ArgumentParser", "DEFAULT_MAX_SECONDS", "DEFAULT_MAX_MEMORY", "parse_seconds",
           "parse_memory", "format_bytes", "run_in_child"]

PROG = "fullyadaptive"
#: Exit status after Ctrl-C (128 + SIGINT), as a shell reports it.
EXIT_INTERRUPTED = 130
#: Exit status of an unexpected internal error (distinct from every command's own statuses 0-3).
EXIT_INTERNAL = 4
#: Set to 1 to print the traceback of an internal error (after its one line).
DEBUG_ENV = "FULLYADAPTIVE_DEBUG"
#: Default ``--max-seconds`` of ``check``, ``plan`` and ``game``.
DEFAULT_MAX_SECONDS = 300.0
#: Default ``--max-memory`` of ``game`` and ``plan`` (bytes): 2 GiB.
DEFAULT_MAX_MEMORY = 2 * 2 ** 30
_UNITS = {"": 1, "B": 1, "K": 2 ** 10, "KB": 2 ** 10, "KIB": 2 ** 10, "M": 2 ** 20, "MB": 2 ** 20, "MIB": 2 ** 20,
          "G": 2 ** 30, "GB": 2 ** 30, "GIB": 2 ** 30, "T": 2 ** 40, "TB": 2 ** 40, "TIB": 2 ** 40}


class UsageError(Exception):
    """An error in the user's input: reported on stderr, exit status 2."""


def _fail(cmd: str, msg: str) -> int:
    """Print ``fullyadaptive <cmd>: error: <msg>`` (one line) on stderr; returns the exit status 2."""
    print(error_line(cmd, msg), file=sys.stderr)
    return 2


def error_line(cmd: str, msg: str) -> str:
    """The one error format of every subcommand: ``fullyadaptive <cmd>: error: <msg>`` on one line."""
    return f"{PROG} {cmd}: error: {' '.join(str(msg).split())}"


def build_info() -> dict:
    """``{"version", "commit", "commit_source", "dirty"}`` of the running code: in every ``--json`` output.

    See :func:`~reference.report.version.build_info`.
    """
    from ..report import build_info as _info

    return _info()


def parse_seconds(value, option: str = "--max-seconds") -> float:
    """A positive, finite number of seconds (``UsageError`` naming ``option`` otherwise)."""
    import math

    try:
        x = float(value)
    except (TypeError, ValueError):
        raise UsageError(f"{option} must be a positive number of seconds, found {value!r}") from None
    if not (math.isfinite(x) and x > 0):
        raise UsageError(f"{option} must be a positive number of seconds, found {value!r}")
    return x


def parse_memory(value, option: str = "--max-memory") -> int:
    """Bytes from ``2G``, ``500M``, ``1.5GiB``, ``4096`` (binary units K, M, G, T; B/KB/KiB spellings); positive."""
    import math
    import re

    m = re.fullmatch(r"\s*([0-9]+(?:\.[0-9]*)?(?:[eE][0-9]+)?)\s*([A-Za-z]*)\s*", str(value))
    unit = m.group(2).upper() if m else None
    if not m or unit not in _UNITS:
        raise UsageError(f"{option} must be a size such as 2G, 500M or 1048576 (bytes; units K, M, G, T, binary), "
                         f"found {value!r}")
    x = float(m.group(1)) * _UNITS[unit]
    if not (math.isfinite(x) and x >= 1):
        raise UsageError(f"{option} must be at least 1 byte, found {value!r}")
    return int(x)


def format_bytes(n: int) -> str:
    """``n`` bytes as ``X.Y MiB`` / ``GiB`` (one decimal, rounded up, so a refusal never understates an estimate)."""
    import math

    for unit, size in (("GiB", 2 ** 30), ("MiB", 2 ** 20), ("KiB", 2 ** 10)):
        if n >= size:
            return f"{math.ceil(10 * n / size) / 10:.1f} {unit}"
    return f"{n} B"


def _child(conn, fn, args, kwargs) -> None:  # pragma: no cover - runs in the worker process
    """Worker of :func:`run_in_child`: sends ``("partial", x)`` for each ``report(x)``, then the outcome."""
    import pickle
    import traceback

    try:
        out = fn(*args, report=lambda x: conn.send(("partial", x)), **kwargs)
        conn.send(("ok", out))
    except BaseException as exc:  # noqa: BLE001 - re-raised in the parent, which decides
        tb = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
        try:
            blob = pickle.dumps(exc)
            pickle.loads(blob)
        except Exception:  # noqa: BLE001 - an exception that does not pickle is described instead
            blob = None
        conn.send(("raise", blob, f"{type(exc).__name__}: {exc}", tb))
    finally:
        conn.close()


def run_in_child(fn, args=(), kwargs=None, *, seconds: float) -> tuple[bool, object, list]:
    """Run ``fn(*args, report=..., **kwargs)`` in a worker process, stopped (killed) after ``seconds``.

    Returns ``(finished, result, partials)``: ``partials`` are the values ``fn`` passed to
    ``report`` (in order; they arrive while it runs, so they survive the kill), ``result`` its
    return value when ``finished``.  An exception in ``fn`` is raised again here, the same type
    with the same message (the worker's traceback attached as a note), so that the caller's
    statuses are those of a run in this process; one that cannot be pickled is raised as
    ``RuntimeError`` naming it.  The worker is forked where the platform allows it (``fn`` need
    not be picklable then; its results and partials must be).
    """
    import multiprocessing as mp
    import pickle
    import time

    ctx = mp.get_context("fork" if "fork" in mp.get_all_start_methods() else "spawn")
    recv, send = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_child, args=(send, fn, tuple(args), dict(kwargs or {})), daemon=True)
    end = time.monotonic() + seconds
    proc.start()
    send.close()
    partials: list = []
    msg = None
    try:
        while msg is None:
            left = end - time.monotonic()
            if left <= 0 or not recv.poll(left):
                break
            try:
                m = recv.recv()
            except EOFError:
                raise RuntimeError(f"the worker process died (exit status {proc.exitcode})") from None
            if m[0] == "partial":
                partials.append(m[1])
            else:
                msg = m
    finally:
        recv.close()
        if proc.is_alive():
            proc.terminate()
            proc.join(1)
            if proc.is_alive():
                proc.kill()
        proc.join(1)
    if msg is None:
        return False, None, partials
    if msg[0] == "ok":
        return True, msg[1], partials
    _, blob, what, tb = msg
    exc = pickle.loads(blob) if blob is not None else RuntimeError(what)
    if hasattr(exc, "add_note"):
        exc.add_note(f"(in the worker process)\n{tb}")
    raise exc


def _truncate(s: str, n: int) -> str:
    s = " ".join(s.split())
    return s if len(s) <= n else s[: n - 3] + "..."


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Wraps each line of a description to the terminal, keeping line breaks and indentation as written;
    appends ``(default: X)`` to an option's help unless it states its default."""

    def _fill_text(self, text, width, indent):
        out = []
        for line in text.splitlines():
            lead = line[: len(line) - len(line.lstrip())]
            out.append(textwrap.fill(line, width, initial_indent=indent, subsequent_indent=indent + lead)
                       if line.strip() else "")
        return "\n".join(out)

    def _get_help_string(self, action):
        h = action.help or ""
        if h is argparse.SUPPRESS or "default" in h.lower() or not action.option_strings:
            return h
        if isinstance(action, (argparse._HelpAction, argparse._VersionAction)):
            return h
        d = action.default
        if d is argparse.SUPPRESS:
            return h
        if isinstance(action, (argparse._StoreTrueAction, argparse._StoreFalseAction)):
            shown = "on" if d else "off"
        elif d is None:
            shown = "none"
        else:
            shown = "%(default)s"
        return f"{h} (default: {shown})"


class ArgumentParser(argparse.ArgumentParser):
    """An argparse parser whose usage errors are one line, ``fullyadaptive <cmd>: error: <msg>``, exit status 2."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("formatter_class", HelpFormatter)
        super().__init__(*args, **kwargs)

    def error(self, message):  # noqa: D401 - argparse API
        text = " ".join(f"{message} (see {self.prog} --help)".split())
        self.exit(2, f"{self.prog}: error: {text}\n")  # prog is "fullyadaptive <subcommand>" (or "fullyadaptive")


def _progress_of(args, cmd: str):
    """The run's :class:`~reference.report.progress.Progress` (made by :func:`main`), or a silent one."""
    p = getattr(args, "_progress", None)
    if p is None:
        from ..report.progress import Progress

        p = Progress(f"{PROG} {cmd}", enabled=False)
    return p
