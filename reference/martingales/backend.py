"""Array backends of the supermartingale checker: NumPy (default) or CuPy (a CUDA device).

All simulation code is written once against an array module ``xp``; the backend
object carries it.  ``get_backend("cupy")`` raises :class:`BackendUnavailable`
(a ``RuntimeError``) with the reason when CuPy is not installed or no CUDA device
is visible, rather than silently falling back to NumPy.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field

import numpy as np

__all__ = ["Backend", "BackendUnavailable", "get_backend", "cupy_available", "default_threads"]


class BackendUnavailable(RuntimeError):
    """The requested array backend cannot run here (e.g. CuPy without a CUDA device)."""


@dataclass(frozen=True)
class Backend:
    """An array module and how to run on it.

    ``name``: ``"numpy"`` or ``"cupy"``; ``xp``: the module; ``threads``: CPU
    threads over disjoint path chunks (NumPy only); ``device``: a description.
    """

    name: str
    xp: object = field(repr=False)
    threads: int = 1
    device: str = "cpu"

    @property
    def is_gpu(self) -> bool:
        return self.name == "cupy"

    def asnumpy(self, a):
        """Copy an array of this backend to host memory (a NumPy array)."""
        if self.name == "cupy":
            return self.xp.asnumpy(a)
        return np.asarray(a)

    def synchronize(self) -> None:
        if self.name == "cupy":
            self.xp.cuda.Stream.null.synchronize()


def default_threads() -> int:
    """Threads for the NumPy backend: the CPUs this process may run on (``os.sched_getaffinity``), at most 64."""
    try:
        n = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # pragma: no cover - non-Linux
        n = os.cpu_count() or 1
    return max(1, min(64, n))


def cupy_available() -> tuple[bool, str]:
    """(True, device name) if CuPy imports and sees a CUDA device; else (False, the reason)."""
    try:
        import cupy  # noqa: F401
    except Exception as exc:  # ImportError, or a CUDA library load error
        return False, f"cupy is not importable ({type(exc).__name__}: {exc})"
    try:
        n = cupy.cuda.runtime.getDeviceCount()
    except Exception as exc:
        return False, f"cupy imports but the CUDA runtime failed ({type(exc).__name__}: {exc})"
    if n < 1:
        return False, "cupy imports but no CUDA device is visible"
    try:
        props = cupy.cuda.runtime.getDeviceProperties(cupy.cuda.Device().id)
        name = props["name"].decode() if isinstance(props["name"], bytes) else str(props["name"])
    except Exception:  # pragma: no cover - informational only
        name = "CUDA device"
    return True, name


def get_backend(name: str = "numpy", *, threads: int | None = None) -> Backend:
    """The array backend ``name`` (``"numpy"`` or ``"cupy"``).

    :raises ValueError: unknown name or a bad ``threads``.
    :raises BackendUnavailable: ``"cupy"`` requested but CuPy or a CUDA device is missing.
    """
    if name == "numpy":
        t = default_threads() if threads is None else threads
        if isinstance(t, bool) or not isinstance(t, int) or t < 1:
            raise ValueError(f"threads must be a positive int, found {threads!r}")
        return Backend("numpy", np, threads=t, device="cpu")
    if name == "cupy":
        ok, info = cupy_available()
        if not ok:
            raise BackendUnavailable(f"backend 'cupy' requested but unavailable: {info}; use --backend numpy")
        import cupy

        return Backend("cupy", cupy, threads=1, device=info)
    raise ValueError(f"backend must be 'numpy' or 'cupy', found {name!r}")
