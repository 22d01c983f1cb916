"""What every subcommand shares: the program's name and exit statuses, the one-line error format, the parser classes.

Subcommand modules (:data:`reference.cli.app.EXTENSIONS`) import these from here, never from the
package :mod:`reference.cli`, which re-exports them.
"""
from __future__ import annotations

import argparse
import sys
import textwrap

__all__ = ["PROG", "EXIT_INTERRUPTED", "EXIT_INTERNAL", "DEBUG_ENV", "UsageError", "error_line", "build_info",
           "HelpFormatter", "ArgumentParser"]

PROG = "fullyadaptive"
#: Exit status after Ctrl-C (128 + SIGINT), as a shell reports it.
EXIT_INTERRUPTED = 130
#: Exit status of an unexpected internal error (distinct from every command's own statuses 0-3).
EXIT_INTERNAL = 4
#: Set to 1 to print the traceback of an internal error (after its one line).
DEBUG_ENV = "FULLYADAPTIVE_DEBUG"


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
