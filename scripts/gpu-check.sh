#!/usr/bin/env bash
# The GPU leg of kvaddr, for a machine with an NVIDIA GPU (sm_90 by default) and the CUDA toolkit:
# builds everything that the machine's packages allow, then runs the gpu tests, compute-sanitizer
# (memcheck, initcheck, racecheck) over them, the B09 memcheck demonstration, `kvaddr verify`,
# `kvaddr diff`, `kvaddr zoo` and `kvaddr bench`. Logs go to $OUT (default ./gpu-check-out).
#   ARCH=90 BUILD_DIR=build-gpu OUT=... scripts/gpu-check.sh [STAGE...]
# Stages (default: all, in this order): build test run sanitize bench.
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$here"
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
step configure cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES="$ARCH"
step build cmake --build "$BUILD_DIR" -j "$(nproc)" -- -k 0
fi
if has test; then
step gpu-tests ctest --test-dir "$BUILD_DIR" -L gpu --output-on-failure
step all-tests ctest --test-dir "$BUILD_DIR" -j "$(nproc)" --output-on-failure -LE gpu
fi
if has sanitize; then
gpu_tests="$BUILD_DIR/tests/kvaddr_gpu_tests"
filter='-*Budget*:*Throughput*'   # the 10^8-lane budget is run above; sanitizers take the rest
for tool in memcheck initcheck racecheck; do
  step "sanitizer-$tool" compute-sanitizer --tool "$tool" --error-exitcode 1 "$gpu_tests" --gtest_filter="$filter"
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
exit $status
