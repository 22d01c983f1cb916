"""Random streams for the supermartingale checker: seeded, reproducible, written against an array module.

Two generators, both keyed by ``(seed, stream tag, path index, step)`` so that a
result never depends on how paths are split between threads or devices:

* :func:`philox4x32_10` -- the counter-based Philox4x32-10 generator of Salmon,
  Moraes, Dror and Shaw (SC 2011), in NumPy/CuPy array code.  It is what the
  CUDA kernels of :mod:`reference.martingales.cuda` use (the same counters, the
  same words), so the NumPy emulation reproduces a GPU run bit for bit.  Checked
  against the Random123 known-answer vectors (``tests/test_martingales.py``).
* :func:`chunk_bitgen` -- NumPy's PCG64DXSM, one independent stream per chunk of
  paths (``SeedSequence(seed, spawn_key=(tag, chunk))``); its ``random_raw``
  gives 64 bits = two uint32 draws per call at about 1 ns per draw.  This is the
  fast CPU path; it is reproducible per backend (same seed, same chunk size ->
  same draws), not across backends.

Layout of the draws (both generators): the uint32 draw of path ``i`` at step
``n`` decides that step; Philox counter ``(n // 4, i mod 2^32, i // 2^32, tag)``
with key ``(seed mod 2^32, seed // 2^32 mod 2^32)`` gives the four words of steps
``4(n // 4) .. 4(n // 4) + 3``.
"""
from __future__ import annotations

import zlib

import numpy as np

__all__ = ["PHILOX_M0", "PHILOX_M1", "PHILOX_W0", "PHILOX_W1", "philox4x32_10", "philox_draws",
           "stream_tag", "chunk_bitgen", "split_seed"]

PHILOX_M0 = 0xD2511F53
PHILOX_M1 = 0xCD9E8D57
PHILOX_W0 = 0x9E3779B9
PHILOX_W1 = 0xBB67AE85
_MASK32 = 0xFFFFFFFF


def stream_tag(name: str) -> int:
    """A 32-bit tag for a named stream (CRC-32 of its UTF-8 name): different checks get independent draws."""
    return zlib.crc32(name.encode("utf-8")) & _MASK32


def split_seed(seed: int) -> tuple[int, int]:
    """The Philox key ``(seed mod 2^32, (seed >> 32) mod 2^32)`` of a non-negative integer seed."""
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, found {seed!r}")
    s = int(seed)
    return s & _MASK32, (s >> 32) & _MASK32


def _mulhilo(xp, m: int, x):
    prod = x.astype(xp.uint64) * xp.uint64(m)
    return (prod >> xp.uint64(32)).astype(xp.uint32), prod.astype(xp.uint32)


def philox4x32_10(xp, c0, c1, c2, c3, k0: int, k1: int):
    """Philox4x32-10 (Salmon et al. 2011) on arrays of uint32 counters; returns the four uint32 output words.

    ``c0..c3`` are uint32 arrays (or scalars broadcastable to them) of the module
    ``xp``; ``k0, k1`` the 32-bit key.  Ten rounds, the key bumped by the Weyl
    constants (0x9E3779B9, 0xBB67AE85) between rounds, as in Random123.
    """
    c0, c1, c2, c3 = (xp.asarray(c, dtype=xp.uint32) for c in (c0, c1, c2, c3))
    c0, c1, c2, c3 = xp.broadcast_arrays(c0, c1, c2, c3)
    ka, kb = int(k0) & _MASK32, int(k1) & _MASK32
    for r in range(10):
        if r:
            ka = (ka + PHILOX_W0) & _MASK32
            kb = (kb + PHILOX_W1) & _MASK32
        hi0, lo0 = _mulhilo(xp, PHILOX_M0, c0)
        hi1, lo1 = _mulhilo(xp, PHILOX_M1, c2)
        c0, c1, c2, c3 = (hi1 ^ c1 ^ xp.uint32(ka), lo1, hi0 ^ c3 ^ xp.uint32(kb), lo0)
    return c0, c1, c2, c3


def philox_draws(xp, seed: int, tag: int, path0: int, n_paths: int, step0: int, n_steps: int):
    """uint32 draws of paths ``path0 .. path0+n_paths-1`` at steps ``step0 .. step0+n_steps-1``, shape (n_steps, n_paths).

    ``step0`` must be a multiple of 4 (one Philox call yields the words of 4 consecutive steps).
    """
    if step0 % 4:
        raise ValueError(f"step0 must be a multiple of 4, found {step0}")
    k0, k1 = split_seed(seed)
    pid = xp.arange(path0, path0 + n_paths, dtype=xp.uint64)
    lo = (pid & xp.uint64(_MASK32)).astype(xp.uint32)
    hi = (pid >> xp.uint64(32)).astype(xp.uint32)
    out = xp.empty((n_steps + 3) // 4 * 4 * n_paths, dtype=xp.uint32).reshape(-1, n_paths)
    for q in range(out.shape[0] // 4):
        ctr = (step0 // 4 + q) & _MASK32
        words = philox4x32_10(xp, xp.uint32(ctr), lo, hi, xp.uint32(tag & _MASK32), k0, k1)
        for w in range(4):
            out[4 * q + w] = words[w]
    return out[:n_steps]


def chunk_bitgen(seed: int, tag: int, chunk: int) -> np.random.PCG64DXSM:
    """The PCG64DXSM bit generator of one chunk of paths: ``SeedSequence(seed, spawn_key=(tag, chunk))``."""
    split_seed(seed)
    return np.random.PCG64DXSM(np.random.SeedSequence(int(seed), spawn_key=(int(tag), int(chunk))))
