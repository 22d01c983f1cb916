"""Command line interface: ``fullyadaptive list | eval | report | derive | version`` and more.

* ``fullyadaptive list [--json] [--paper KEY]``: the catalog of implemented results.
* ``fullyadaptive eval ID name=value ... [--digits D] [--dps P] [--json]``: evaluate
  one result; unspecified parameters take the entry's defaults; sequences are
  comma-separated (``eps=0.1,0.2``).  The value is printed with ``D``
  significant digits rounded in the entry's direction (an upper bound is
  rounded up, a lower bound down, an exact value to nearest).
* ``fullyadaptive report [--out DIR] [--json] [--quiet] [--no-verify]``: the report at the
  paper's setting (see :mod:`reference.report`), printed and written to ``DIR``.
* ``fullyadaptive derive [NAME] [--latex] [--list]``: a SymPy derivation, step by step.
* Modules in ``EXTENSIONS`` add their own subcommands (simulations, checkers).
* ``fullyadaptive version``.

Errors in the user's input exit with status 2 and a one-line message on stderr; an unexpected
internal error (a bug, or a resource running out) exits with status 4 and one line
``fullyadaptive <cmd>: internal error: <type>: <message>`` (the traceback with
``FULLYADAPTIVE_DEBUG=1``), so it is never mistaken for a command's own statuses (``check``:
1 invalid, 3 undecided).
"""
from .app import EXTENSIONS, build_parser, main, subcommands
from .catalog_cmds import describe_entry, example_command
from .common import (
    DEBUG_ENV, EXIT_INTERNAL, EXIT_INTERRUPTED, PROG, ArgumentParser, HelpFormatter, UsageError, build_info, error_line)

__all__ = ["main", "build_parser", "subcommands", "EXTENSIONS", "PROG", "EXIT_INTERRUPTED", "EXIT_INTERNAL", "DEBUG_ENV",
           "UsageError", "error_line", "build_info", "HelpFormatter", "ArgumentParser", "example_command", "describe_entry"]
