"""Files written atomically, with the mode a plain ``open()`` would give them (the report and its figures)."""
from __future__ import annotations

import os
import tempfile
from pathlib import Path

__all__ = ["new_file_mode"]


def _umask() -> int:
    """The process's file mode creation mask, read without changing it where the system allows."""
    try:  # Linux >= 4.7: read-only, so no other thread ever sees a changed mask
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def new_file_mode() -> int:
    """``0o666 & ~umask``: the permissions ``open()`` gives a new file, for files first written to a temporary name.

    ``tempfile.mkstemp`` creates its file with mode 0600 whatever the umask; a report or a
    figure renamed into place from it would be unreadable to the colleagues the user's umask
    lets read it.  Contract: the mode a plain ``open(path, "w")`` would have given.
    """
    return 0o666 & ~_umask()


def _write_atomic(path: Path, text: str) -> None:
    """Write ``text`` to a temporary file in ``path``'s directory, then ``os.replace`` it onto ``path``.

    A reader sees the old file or the new one, never a half-written one; an interrupted
    run leaves no partial file behind.  The file gets the mode a plain ``open()`` would give
    it (:func:`new_file_mode`), not the temporary file's 0600.
    """
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, new_file_mode())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
