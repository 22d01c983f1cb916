"""Fused CUDA kernels (CuPy ``RawModule``) for the crossing simulations: one thread per path, Philox per thread.

Semantics are those of :mod:`reference.martingales.simulate` with ``source="philox"``,
bit for bit: the draw of path ``i`` at step ``n`` is word ``n mod 4`` of
Philox4x32-10 at counter ``(n div 4, i mod 2^32, i div 2^32, tag)`` and key
``(seed mod 2^32, seed div 2^32)``; the float comparisons of the Markov kernel are
compiled with ``--fmad=false`` so that ``g*I - sum mu`` rounds exactly as in NumPy.

The per-path functions are ``__host__ __device__``: the same source compiles as
plain C++ (the tests build a host harness with ``g++`` when one is available and
compare it with the NumPy Philox route), and ``nvcc -ptx`` checks the device code
when ``nvcc`` is installed.  On a GPU, :func:`simulate_cuda` launches one thread
per path and reduces the crossing flags with warp ballots and 64-bit atomics.
"""
from __future__ import annotations

import functools

import numpy as np

from .rng import split_seed

__all__ = ["KERNEL_SOURCE", "simulate_cuda"]

KERNEL_SOURCE = r"""
#if !defined(__CUDACC__) && !defined(__CUDACC_RTC__)
#include <math.h>
#define __host__
#define __device__
#define __forceinline__ inline
#endif

typedef unsigned int fa_u32;
typedef unsigned long long fa_u64;

__host__ __device__ __forceinline__ fa_u32 fa_mulhi(fa_u32 a, fa_u32 b) {
#if defined(__CUDA_ARCH__)
    return __umulhi(a, b);
#else
    return (fa_u32)(((fa_u64)a * (fa_u64)b) >> 32);
#endif
}

/* Philox4x32-10 (Salmon, Moraes, Dror, Shaw 2011), as in Random123. */
__host__ __device__ __forceinline__ void fa_philox(fa_u32 c0, fa_u32 c1, fa_u32 c2, fa_u32 c3,
                                                   fa_u32 k0, fa_u32 k1, fa_u32* out) {
    for (int r = 0; r < 10; ++r) {
        if (r) { k0 += 0x9E3779B9u; k1 += 0xBB67AE85u; }
        fa_u32 hi0 = fa_mulhi(0xD2511F53u, c0), lo0 = 0xD2511F53u * c0;
        fa_u32 hi1 = fa_mulhi(0xCD9E8D57u, c2), lo1 = 0xCD9E8D57u * c2;
        fa_u32 n0 = hi1 ^ c1 ^ k0, n2 = hi0 ^ c3 ^ k1;
        c0 = n0; c1 = lo1; c2 = n2; c3 = lo0;
    }
    out[0] = c0; out[1] = c1; out[2] = c2; out[3] = c3;
}

__host__ __device__ __forceinline__ fa_u32 fa_word(const fa_u32* w, int i) {
    return i == 0 ? w[0] : (i == 1 ? w[1] : (i == 2 ? w[2] : w[3]));
}

/* Fixed schedule: P_n += coef[n] * [u <= thr[n]]; bit j set iff P_n >= tau[n*nb + j] or P_n <= tau_lo[n*nb + j]
   for some n (tau_lo = -BIG for one-sided boundaries; tmin/tlomax: the row minimum/maximum, a cheap pre-test). */
__host__ __device__ fa_u32 fa_det_path(fa_u64 pid, const fa_u32* thr, const int* coef, const int* tau,
                                       const int* tmin, const int* tau_lo, const int* tlomax,
                                       int T, int nb, fa_u32 k0, fa_u32 k1, fa_u32 tag) {
    fa_u32 mask = 0u, w[4] = {0u, 0u, 0u, 0u};
    int P = 0;
    for (int n = 0; n < T; ++n) {
        if ((n & 3) == 0) fa_philox((fa_u32)(n >> 2), (fa_u32)pid, (fa_u32)(pid >> 32), tag, k0, k1, w);
        fa_u32 u = fa_word(w, n & 3);
        if (u <= thr[n]) P += coef[n];
        const fa_u64 row = (fa_u64)n * (fa_u64)nb;
        if (P >= tmin[n]) {
            const int* t = tau + row;
            for (int j = 0; j < nb; ++j) if (P >= t[j]) mask |= (1u << j);
        }
        if (P <= tlomax[n]) {
            const int* t = tau_lo + row;
            for (int j = 0; j < nb; ++j) if (P <= t[j]) mask |= (1u << j);
        }
    }
    return mask;
}

/* State-dependent adversary (policy 0: loss-chasing ladder, 1: random table by (n, L_n > 0)). */
__host__ __device__ void fa_markov_path(fa_u64 pid, const int* c_lv, const fa_u32* thr_lv, const double* mu_lv,
                                        int K, int policy, int start, const int* table,
                                        const int* tauI, const int* L_index, const int* L_two, int nL,
                                        const double* bM, const int* M_index, int nM, const double* tol,
                                        int Jmax, double gf, int T, fa_u32 k0, fa_u32 k1, fa_u32 tag,
                                        fa_u32* cross_out, fa_u32* amb_out) {
    fa_u32 cm = 0u, am = 0u, w[4] = {0u, 0u, 0u, 0u};
    int k = start, I = 0, J = 0;
    double mus = 0.0;
    const fa_u64 stride = (fa_u64)Jmax + 1ull;
    for (int n = 0; n < T; ++n) {
        if ((n & 3) == 0) fa_philox((fa_u32)(n >> 2), (fa_u32)pid, (fa_u32)(pid >> 32), tag, k0, k1, w);
        fa_u32 u = fa_word(w, n & 3);
        if (policy == 1) k = table[2 * n + (I > 0 ? 1 : 0)];
        int c = c_lv[k];
        int sgn = (u <= thr_lv[k]) ? 1 : -1;
        I += c * sgn;
        J += c * c;
        mus += mu_lv[k];
        for (int a = 0; a < nL; ++a) {
            const int t = tauI[(fa_u64)a * stride + (fa_u64)J];
            if (I >= t || (L_two[a] && -I >= t)) cm |= (1u << L_index[a]);
        }
        if (nM > 0) {
            double Mf = gf * (double)I;
            Mf = Mf - mus;
            double tl = tol[n];
            for (int a = 0; a < nM; ++a) {
                double d = Mf - bM[(fa_u64)a * stride + (fa_u64)J];
                if (d >= tl) cm |= (1u << M_index[a]);
                if (fabs(d) < tl) am |= (1u << M_index[a]);
            }
        }
        if (policy == 0) { k += sgn; if (k < 0) k = 0; if (k > K - 1) k = K - 1; }
    }
    *cross_out = cm;
    *amb_out = am & ~cm;
}

#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
__device__ __forceinline__ void fa_reduce(fa_u32 mask, int nb, fa_u64* counts) {
    for (int j = 0; j < nb; ++j) {
        fa_u32 b = __ballot_sync(0xffffffffu, (mask >> j) & 1u);
        if ((threadIdx.x & 31u) == 0u && b) atomicAdd(&counts[j], (fa_u64)__popc(b));
    }
}

extern "C" __global__ void fa_det_kernel(const fa_u32* thr, const int* coef, const int* tau, const int* tmin,
                                         const int* tau_lo, const int* tlomax,
                                         int T, int nb, fa_u64 n_paths, fa_u64 path0,
                                         fa_u32 k0, fa_u32 k1, fa_u32 tag, fa_u64* counts) {
    fa_u64 i = (fa_u64)blockIdx.x * (fa_u64)blockDim.x + (fa_u64)threadIdx.x;
    fa_u32 mask = 0u;
    if (i < n_paths) mask = fa_det_path(path0 + i, thr, coef, tau, tmin, tau_lo, tlomax, T, nb, k0, k1, tag);
    fa_reduce(mask, nb, counts);
}

extern "C" __global__ void fa_markov_kernel(const int* c_lv, const fa_u32* thr_lv, const double* mu_lv,
                                            int K, int policy, int start, const int* table,
                                            const int* tauI, const int* L_index, const int* L_two, int nL,
                                            const double* bM, const int* M_index, int nM, const double* tol,
                                            int Jmax, double gf, int T, int nb, fa_u64 n_paths, fa_u64 path0,
                                            fa_u32 k0, fa_u32 k1, fa_u32 tag, fa_u64* counts, fa_u64* amb) {
    fa_u64 i = (fa_u64)blockIdx.x * (fa_u64)blockDim.x + (fa_u64)threadIdx.x;
    fa_u32 cm = 0u, am = 0u;
    if (i < n_paths)
        fa_markov_path(path0 + i, c_lv, thr_lv, mu_lv, K, policy, start, table, tauI, L_index, L_two, nL,
                       bM, M_index, nM, tol, Jmax, gf, T, k0, k1, tag, &cm, &am);
    fa_reduce(cm, nb, counts);
    fa_reduce(am, nb, amb);
}
#endif
"""

THREADS = 256
MAX_PATHS_PER_LAUNCH = 1 << 26


@functools.lru_cache(maxsize=1)
def _module():
    import cupy

    # no --std: the source is plain C++11, and NVRTC's default dialect (C++17 on CUDA 12/13) accepts it, while
    # CUDA 13 toolchains deprecate the C++11 dialect.  --fmad=false: g*I - sum mu rounds as in NumPy.
    return cupy.RawModule(code=KERNEL_SOURCE, options=("--fmad=false",))


def _lower_arrays(plan):
    """Host arrays ``(tau_lo [T*nb], tlomax [T])`` of a fixed-schedule plan (int32; ``-BIG``: no lower crossing)."""
    T, nb = plan.T, len(plan.boundaries)
    lo = plan.tau_lo if plan.tau_lo is not None else np.full((T, nb), -(2 ** 31 - 1), np.int64)
    lo = np.ascontiguousarray(lo.astype(np.int32))
    tlomax = lo.max(axis=1) if nb else np.full(T, -(2 ** 31 - 1), np.int64)
    return (lo.ravel() if nb else np.zeros(1, np.int32)), np.ascontiguousarray(tlomax.astype(np.int32))


def _l_two(plan):
    """int32 flags [max(nL, 1)]: 1 iff the a-th L-target boundary of a Markov plan is two-sided."""
    two = plan.L_two if plan.L_two is not None and len(plan.L_two) else np.zeros(1, np.int32)
    return np.ascontiguousarray(np.asarray(two, dtype=np.int32))


def _launches(n_paths: int):
    """``(offset, count, blocks)`` of each launch: at most MAX_PATHS_PER_LAUNCH paths, THREADS threads per block."""
    for off in range(0, n_paths, MAX_PATHS_PER_LAUNCH):
        n = min(MAX_PATHS_PER_LAUNCH, n_paths - off)
        yield off, n, (n + THREADS - 1) // THREADS


def simulate_cuda(plan, n_paths: int, *, seed: int, tag: int):
    """Run ``plan`` on the GPU; returns ``(crossed, ambiguous)`` lists of per-boundary counts (host ints).

    Every kernel argument is passed with an explicit NumPy scalar type matching the C signature
    (``np.int32`` for ``int``, ``np.uint32`` for ``fa_u32``, ``np.uint64`` for ``fa_u64``,
    ``np.float64`` for ``double``) and every array is a contiguous device copy of the C element
    type, created once before the launches (RawKernel does no conversion: a Python int would be
    passed as a 64-bit integer).  Path indices and counts are 64-bit (10^11 path-steps and beyond);
    the grid is at most ``MAX_PATHS_PER_LAUNCH / THREADS = 2^18`` blocks per launch.
    """
    import cupy as cp

    if isinstance(n_paths, bool) or int(n_paths) < 1:
        raise ValueError(f"paths must be a positive integer, found {n_paths!r}")
    n_paths = int(n_paths)
    k0, k1 = split_seed(seed)
    tag = int(tag) & 0xFFFFFFFF
    nb = len(plan.boundaries)
    if nb > 32:
        raise ValueError("at most 32 boundaries per simulation (one bit each)")
    T = int(plan.T)
    counts = cp.zeros(max(nb, 1), dtype=cp.uint64)
    amb = cp.zeros(max(nb, 1), dtype=cp.uint64)
    mod = _module()

    def dev(a, dt):
        return cp.asarray(np.ascontiguousarray(np.asarray(a).astype(dt)).ravel())

    if plan.adversary.deterministic:
        thr = dev(plan.thr_levels[plan.level_seq], np.uint32)
        coef = dev(plan.c_levels[plan.level_seq], np.int32)
        tau_h = np.ascontiguousarray(plan.tau.astype(np.int32))
        tmin_h = tau_h.min(axis=1) if nb else np.full(T, 2 ** 31 - 1, np.int32)
        tau = dev(tau_h if nb else np.zeros(1), np.int32)
        tmin = dev(tmin_h, np.int32)
        lo_h, tlomax_h = _lower_arrays(plan)
        tau_lo, tlomax = dev(lo_h, np.int32), dev(tlomax_h, np.int32)
        kern = mod.get_function("fa_det_kernel")
        for off, n, blocks in _launches(n_paths):
            kern((blocks,), (THREADS,), (thr, coef, tau, tmin, tau_lo, tlomax, np.int32(T), np.int32(nb), np.uint64(n),
                                         np.uint64(off), np.uint32(k0), np.uint32(k1), np.uint32(tag), counts))
    else:
        policy = 0 if plan.adversary.policy == "chasing" else 1
        table = dev(plan.table if plan.table is not None else np.zeros((T, 2)), np.int32)
        nL, nM = len(plan.L_index), len(plan.M_index)
        tauI = dev(plan.tauI, np.int32) if nL else cp.zeros(1, cp.int32)
        bM = dev(plan.bM, np.float64) if nM else cp.zeros(1, cp.float64)
        Li = dev(np.array(plan.L_index or [0]), np.int32)
        L2 = dev(_l_two(plan), np.int32)
        Mi = dev(np.array(plan.M_index or [0]), np.int32)
        tol = dev(plan.tol if plan.tol is not None else np.zeros(T), np.float64)
        c_lv, thr_lv, mu_lv = dev(plan.c_levels, np.int32), dev(plan.thr_levels, np.uint32), dev(plan.mu_levels, np.float64)
        kern = mod.get_function("fa_markov_kernel")
        for off, n, blocks in _launches(n_paths):
            kern((blocks,), (THREADS,), (c_lv, thr_lv, mu_lv, np.int32(plan.K), np.int32(policy),
                                         np.int32(plan.adversary.start), table, tauI, Li, L2, np.int32(nL), bM, Mi,
                                         np.int32(nM), tol, np.int32(plan.Jmax), np.float64(float(plan.adversary.unit)),
                                         np.int32(T), np.int32(nb), np.uint64(n), np.uint64(off), np.uint32(k0),
                                         np.uint32(k1), np.uint32(tag), counts, amb))
    cp.cuda.Stream.null.synchronize()
    c = [int(x) for x in cp.asnumpy(counts)[:nb]]
    a = [int(x) for x in cp.asnumpy(amb)[:nb]]
    return c, a


# ---------------------------------------------------------------------------
# host harness: the same per-path functions compiled as C++ (test support)
# ---------------------------------------------------------------------------

HOST_HARNESS = KERNEL_SOURCE + r"""
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void* fa_read(const char* dir, const char* name, long* n_bytes) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE* f = fopen(path, "rb");
    if (!f) { fprintf(stderr, "cannot open %s\n", path); exit(2); }
    fseek(f, 0, SEEK_END); long n = ftell(f); fseek(f, 0, SEEK_SET);
    void* p = malloc(n > 0 ? n : 1);
    if (n > 0 && fread(p, 1, n, f) != (size_t)n) { fprintf(stderr, "short read %s\n", path); exit(2); }
    fclose(f);
    if (n_bytes) *n_bytes = n;
    return p;
}

int main(int argc, char** argv) {
    if (argc != 2) { fprintf(stderr, "usage: harness DIR\n"); return 2; }
    const char* d = argv[1];
    long long* P = (long long*)fa_read(d, "params.bin", 0);
    int kind = (int)P[0], T = (int)P[1], nb = (int)P[2];
    fa_u64 n_paths = (fa_u64)P[3];
    fa_u32 k0 = (fa_u32)P[4], k1 = (fa_u32)P[5], tag = (fa_u32)P[6];
    fa_u32* out = (fa_u32*)malloc(2 * n_paths * sizeof(fa_u32));
    if (kind == 0) {
        fa_u32* thr = (fa_u32*)fa_read(d, "thr.bin", 0);
        int* coef = (int*)fa_read(d, "coef.bin", 0);
        int* tau = (int*)fa_read(d, "tau.bin", 0);
        int* tmin = (int*)fa_read(d, "tmin.bin", 0);
        int* tau_lo = (int*)fa_read(d, "tau_lo.bin", 0);
        int* tlomax = (int*)fa_read(d, "tlomax.bin", 0);
        for (fa_u64 i = 0; i < n_paths; ++i) {
            out[2 * i] = fa_det_path(i, thr, coef, tau, tmin, tau_lo, tlomax, T, nb, k0, k1, tag);
            out[2 * i + 1] = 0u;
        }
    } else {
        int K = (int)P[7], policy = (int)P[8], start = (int)P[9], nL = (int)P[10], nM = (int)P[11], Jmax = (int)P[12];
        double* gf = (double*)fa_read(d, "gf.bin", 0);
        int* c_lv = (int*)fa_read(d, "c_lv.bin", 0);
        fa_u32* thr_lv = (fa_u32*)fa_read(d, "thr_lv.bin", 0);
        double* mu_lv = (double*)fa_read(d, "mu_lv.bin", 0);
        int* table = (int*)fa_read(d, "table.bin", 0);
        int* tauI = (int*)fa_read(d, "tauI.bin", 0);
        int* Li = (int*)fa_read(d, "Li.bin", 0);
        int* L2 = (int*)fa_read(d, "L2.bin", 0);
        double* bM = (double*)fa_read(d, "bM.bin", 0);
        int* Mi = (int*)fa_read(d, "Mi.bin", 0);
        double* tol = (double*)fa_read(d, "tol.bin", 0);
        for (fa_u64 i = 0; i < n_paths; ++i)
            fa_markov_path(i, c_lv, thr_lv, mu_lv, K, policy, start, table, tauI, Li, L2, nL, bM, Mi, nM, tol,
                           Jmax, gf[0], T, k0, k1, tag, &out[2 * i], &out[2 * i + 1]);
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/out.bin", d);
    FILE* f = fopen(path, "wb");
    fwrite(out, sizeof(fa_u32), 2 * n_paths, f);
    fclose(f);
    return 0;
}
"""


def run_host_harness(plan, n_paths: int, *, seed: int, tag: int, workdir, compiler: str = "g++"):
    """Run the CUDA source's per-path functions on the CPU (compiled as C++); returns (cross_masks, amb_masks) uint32 arrays.

    Test support: shows that the kernel source computes what the NumPy Philox route computes.
    """
    import os
    import subprocess

    os.makedirs(workdir, exist_ok=True)
    src = os.path.join(workdir, "harness.cpp")
    exe = os.path.join(workdir, "harness")
    if not os.path.exists(exe):
        with open(src, "w") as fh:
            fh.write(HOST_HARNESS)
        subprocess.run([compiler, "-O2", "-std=c++11", "-ffp-contract=off", "-x", "c++", src, "-o", exe],
                       check=True, capture_output=True)
    k0, k1 = split_seed(seed)
    T, nb = plan.T, len(plan.boundaries)

    def w(name, arr):
        np.ascontiguousarray(arr).tofile(os.path.join(workdir, name))

    if plan.adversary.deterministic:
        tau = np.ascontiguousarray(plan.tau.astype(np.int32))
        w("thr.bin", plan.thr_levels[plan.level_seq].astype(np.uint32))
        w("coef.bin", plan.c_levels[plan.level_seq].astype(np.int32))
        w("tau.bin", tau)
        w("tmin.bin", (tau.min(axis=1) if nb else np.full(T, 2 ** 31 - 1)).astype(np.int32))
        tau_lo, tlomax = _lower_arrays(plan)
        w("tau_lo.bin", tau_lo)
        w("tlomax.bin", tlomax)
        params = [0, T, nb, n_paths, k0, k1, tag, 0, 0, 0, 0, 0, 0]
    else:
        policy = 0 if plan.adversary.policy == "chasing" else 1
        w("gf.bin", np.array([float(plan.adversary.unit)], dtype=np.float64))
        w("c_lv.bin", plan.c_levels.astype(np.int32))
        w("thr_lv.bin", plan.thr_levels.astype(np.uint32))
        w("mu_lv.bin", plan.mu_levels.astype(np.float64))
        w("table.bin", (plan.table if plan.table is not None else np.zeros((T, 2))).astype(np.int32))
        w("tauI.bin", plan.tauI.astype(np.int32) if len(plan.L_index) else np.zeros(1, np.int32))
        w("Li.bin", np.array(plan.L_index or [0], dtype=np.int32))
        w("L2.bin", _l_two(plan))
        w("bM.bin", plan.bM.astype(np.float64) if len(plan.M_index) else np.zeros(1))
        w("Mi.bin", np.array(plan.M_index or [0], dtype=np.int32))
        w("tol.bin", plan.tol.astype(np.float64))
        params = [1, T, nb, n_paths, k0, k1, tag, plan.K, policy, plan.adversary.start, len(plan.L_index),
                  len(plan.M_index), plan.Jmax]
    w("params.bin", np.array(params, dtype=np.int64))
    subprocess.run([exe, workdir], check=True, capture_output=True)
    out = np.fromfile(os.path.join(workdir, "out.bin"), dtype=np.uint32).reshape(-1, 2)
    return out[:, 0], out[:, 1]
