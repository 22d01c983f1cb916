#!/usr/bin/env bash
# GPU check of the supermartingale checker (reference.martingales) on a CUDA machine.
#
#   bash benchmarks/gpu_check.sh            # from the repository root
#
# 1. makes a virtual environment ($VENV, default /tmp/fa-gpu-venv) that sees the launching
#    interpreter's packages (on the lent GPU machines: CuPy, NumPy, mpmath, sympy, pytest,
#    hypothesis are preinstalled and nothing can be downloaded); installs the project into it
#    editable, without dependencies, if CuPy already imports there; otherwise installs ".[gpu,test]"
#    from the package index (needs network; the extra names cupy-cuda12x);
# 2. runs the GPU tests:  pytest -q tests/test_martingales.py -k "cupy or cuda or gpu"
#    (test_cupy_*: fused kernels vs the NumPy Philox route bit for bit, multi-launch offsets, the quick
#    CLI on cupy, the one-step Monte Carlo on cupy; test_cuda_source_*: the kernel source as C++ and
#    through nvcc -ptx);
# 3. runs  fullyadaptive check-martingales --backend cupy --include-negative-controls  (default sizes;
#    JSON report and its table);
# 4. runs  python benchmarks/bench_martingales.py --backend all  ($BENCH_ARGS appended).
#
# Outputs go to $OUT when set (else ./gpu_check_out): env.txt, pytest_gpu.txt, check_cupy.json,
# check_cupy.txt, bench.txt.  Exit status: the first failing step's, else 0 (every step runs).
# Environment: PYTHON (interpreter to build the venv from, default python3), VENV, BENCH_ARGS (extra
# bench flags, e.g. "--repeat 1 --gpu-paths 4194304"), FA_INSTALL=none (never download; a dry run on a
# machine without CuPy then reports the GPU steps as skipped/unavailable).
# On the lent machines (10-minute commands):  run(command="bash benchmarks/gpu_check.sh", timeout_s=600).
set -u
cd "$(dirname "$0")/.."
OUTDIR="${OUT:-$PWD/gpu_check_out}"
mkdir -p "$OUTDIR"
PY="${PYTHON:-python3}"
VENV="${VENV:-/tmp/fa-gpu-venv}"
export PYTHONUNBUFFERED=1
status=0
note() { echo "== $*" | tee -a "$OUTDIR/env.txt"; }
step() {  # step NAME LOGFILE CMD...: run, tee the output, remember the first failure
    local name="$1" log="$2"; shift 2
    note "$name: $*"
    local t0=$(date +%s)
    "$@" 2>&1 | tee "$OUTDIR/$log"
    local rc=${PIPESTATUS[0]}
    note "$name: exit $rc after $(( $(date +%s) - t0 )) s"
    if [ "$rc" -ne 0 ] && [ "$status" -eq 0 ]; then status=$rc; fi
}

: > "$OUTDIR/env.txt"
note "date $(date -u +%FT%TZ); host $(hostname); $(uname -m)"
(nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1 || echo "nvidia-smi unavailable") \
    | tee -a "$OUTDIR/env.txt"
(nvcc --version 2>&1 | tail -1 || true) | tee -a "$OUTDIR/env.txt"

# --- 1. environment -------------------------------------------------------------
if [ ! -x "$VENV/bin/python" ]; then
    "$PY" -m venv --system-site-packages "$VENV" || { note "venv creation failed"; exit 2; }
    # the launching interpreter may itself be a venv (the GPU image's python3 is): expose its packages too
    OUTER_SITE=$("$PY" -c 'import site; print("\n".join(site.getsitepackages()))')
    VSITE=$("$VENV/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
    printf '%s\n' "$OUTER_SITE" > "$VSITE/_fa_outer_site.pth"
fi
VPY="$VENV/bin/python"
if [ "${FA_INSTALL:-auto}" = none ] || "$VPY" -c "import cupy, numpy, mpmath, sympy, pytest, hypothesis" 2>/dev/null; then
    note "installing the project without dependencies (CuPy and the test dependencies importable, or FA_INSTALL=none)"
    "$VPY" -m pip install -q --no-deps --no-build-isolation -e . 2>&1 | tail -3 | tee -a "$OUTDIR/env.txt"
else
    note "installing .[gpu,test] from the package index"
    "$VPY" -m pip install -q -e ".[gpu,test]" 2>&1 | tail -5 | tee -a "$OUTDIR/env.txt"
fi
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
"$VPY" - <<'EOF' 2>&1 | tee -a "$OUTDIR/env.txt"
import platform, numpy, mpmath
print("python", platform.python_version(), "numpy", numpy.__version__, "mpmath", mpmath.__version__)
if not mpmath.__version__.startswith("1.3"):
    print("WARNING: the project pins mpmath>=1.3,<1.4")
try:
    import cupy
    print("cupy", cupy.__version__, "CUDA runtime", cupy.cuda.runtime.runtimeGetVersion())
except Exception as exc:
    print("cupy unavailable:", type(exc).__name__, exc)
from reference.martingales import cupy_available
print("cupy_available:", cupy_available())
EOF
# (PYTHONPATH holds the checkout: works also when the editable install failed, e.g. no 'wheel')
FA="$VENV/bin/fullyadaptive"
[ -x "$FA" ] || FA="$VPY -m reference.cli"

# --- 2. GPU tests -----------------------------------------------------------------
step "pytest (GPU tests)" pytest_gpu.txt "$VPY" -m pytest -q -p no:cacheprovider -rs tests/test_martingales.py \
    -k "cupy or cuda or gpu"

# --- 3. the checker on the GPU ----------------------------------------------------
note "check-martingales --backend cupy --include-negative-controls --json"
t0=$(date +%s)
$FA check-martingales --backend cupy --include-negative-controls --json > "$OUTDIR/check_cupy.json" 2>> "$OUTDIR/env.txt"
rc=$?
note "check-martingales --backend cupy: exit $rc after $(( $(date +%s) - t0 )) s"
if [ "$rc" -ne 0 ] && [ "$status" -eq 0 ]; then status=$rc; fi
"$VPY" - "$OUTDIR/check_cupy.json" <<'EOF' 2>&1 | tee "$OUTDIR/check_cupy.txt"
import json, sys
from reference.martingales import render_table
try:
    rep = json.load(open(sys.argv[1]))
except Exception as exc:
    print("no JSON report:", exc)
    sys.exit(0)
print(render_table(rep), end="")
EOF

# --- 4. throughput ------------------------------------------------------------------
step "bench_martingales --backend all" bench.txt "$VPY" benchmarks/bench_martingales.py --backend all ${BENCH_ARGS:-}

note "overall exit status $status"
exit "$status"
