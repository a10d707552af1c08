#!/usr/bin/env bash
# The GPU leg of kvaddr, for a machine with an NVIDIA GPU (sm_90 by default) and the CUDA toolkit:
# builds everything that the machine's packages allow, then runs the gpu tests, compute-sanitizer
# (memcheck, initcheck, racecheck) over them, the B09 memcheck demonstration, `kvaddr verify`,
# `kvaddr diff`, `kvaddr zoo` and `kvaddr bench`, and where Python has torch + Triton + pybind11 the Triton peer
# (bench/peer.py) and the Python GPU leg (harness/gpu_tests/python_gpu_leg.sh: GPU pytest, harness speed, the
# campaign with CAMPAIGN_LANES lanes per subject). Logs go to $OUT (default ./gpu-check-out).
#   ARCH=90 BUILD_DIR=build-gpu OUT=... scripts/gpu-check.sh [STAGE...]
# Stages (default: build test run sanitize bench, in this order): build, gpu (the gpu tests alone), test (the
# gpu tests and the rest of the suite), sanitize, run, bench, peer, python.
set -uo pipefail
# shellcheck source=scripts/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
ARCH="${ARCH:-90}"
BUILD_DIR="${BUILD_DIR:-build-gpu}"
OUT="${OUT:-$here/gpu-check-out}"
mkdir -p "$OUT"
export PATH="/usr/local/cuda/bin:$PATH"
status=0
step() {  # step NAME CMD...: run, log to $OUT/NAME.log, remember failures
  local name="$1"; shift
  echo "== $name: $*"
  "$@" >"$OUT/$name.log" 2>&1
  local rc=$?
  tail -n 25 "$OUT/$name.log"
  echo "== $name: exit $rc"
  [ $rc -eq 0 ] || status=1
}

stages="${*:-build test run sanitize bench}"
has() { [[ " $stages " == *" $1 "* ]]; }

if has build; then
py_flags=()
if python3 -c "import pybind11" >/dev/null 2>&1; then  # the Python module (kvaddr._core, kvaddr._gpu) for this python3
  py_flags=(-DPython3_EXECUTABLE="$(command -v python3)" -Dpybind11_DIR="$(python3 -m pybind11 --cmakedir)")
fi
step configure cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES="$ARCH" \
  -DBUILD_TESTING=ON "${py_flags[@]}"
step build cmake --build "$BUILD_DIR" -j "$(nproc)" -- -k 0
fi
if has test || has gpu; then
step gpu-tests ctest --test-dir "$BUILD_DIR" -L gpu --output-on-failure
fi
if has test; then
step all-tests ctest --test-dir "$BUILD_DIR" -j "$(nproc)" --output-on-failure -LE gpu
fi
if has sanitize; then
gpu_tests="$BUILD_DIR/tests/kvaddr_gpu_tests"
filter='-*Budget*:*Throughput*'   # the 10^8-lane budget is run above; sanitizers take the rest
# racecheck looks for shared-memory hazards only; the streaming kernels use no shared memory, and their
# shape sweep (GpuStreamPaths) did not finish under racecheck within a 600 s device call, so racecheck skips it.
for tool in memcheck initcheck racecheck; do
  f="$filter"; [ "$tool" = racecheck ] && f="$filter:*GpuStreamPaths*"
  step "sanitizer-$tool" compute-sanitizer --tool "$tool" --error-exitcode 1 "$gpu_tests" --gtest_filter="$f"
done
step b09-production compute-sanitizer --tool memcheck --error-exitcode 1 "$BUILD_DIR/kernels/kvaddr_b09_oob" production
# The planted bug must be reported: success means compute-sanitizer found the out-of-bounds read.
echo "== b09-planted (memcheck must report an invalid read)"
compute-sanitizer --tool memcheck --error-exitcode 1 "$BUILD_DIR/kernels/kvaddr_b09_oob" b09 >"$OUT/b09-planted.log" 2>&1
if grep -q "Invalid __global__ read" "$OUT/b09-planted.log"; then echo "== b09-planted: reported"; else echo "== b09-planted: NOT reported"; status=1; fi
fi
if has run; then
step verify "$BUILD_DIR/kvaddr" verify
step diff "$BUILD_DIR/kvaddr" diff --cases 400 --seed 20261129
if "$BUILD_DIR/kvaddr" --help | grep -q " zoo"; then step zoo "$BUILD_DIR/kvaddr" zoo --json; fi
fi
if has bench; then
step bench "$BUILD_DIR/kvaddr" bench
fi
if has peer; then
step peer env PYTHONPATH="$BUILD_DIR/python/package" PYTHONUNBUFFERED=1 python3 bench/peer.py
fi
if has python; then
step python env B="$BUILD_DIR" OUT="$OUT/python" SKIP_N24=1 DEADLINE_S="${LEG_S:-200}" PYTEST_S="${PYTEST_S:-90}" \
  harness/gpu_tests/python_gpu_leg.sh "${CAMPAIGN_LANES:-1e7}"
fi
exit $status
