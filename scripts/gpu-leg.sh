#!/usr/bin/env bash
# Every GPU check and measurement of one device session, in one command (a machine with an NVIDIA GPU,
# nvcc, cmake, ninja, Python with torch + Triton + pybind11): build the whole tree, run the GPU tests
# (ctest label gpu), kvaddr_bench --report, the Triton peer (bench/peer.py) and the Python GPU leg
# (harness/gpu_tests/python_gpu_leg.sh: GPU pytest, harness speed, the campaign). Logs go to $OUT.
# Usage, from the repository root:  OUT=/tmp/leg scripts/gpu-leg.sh [CAMPAIGN_LANES]
set -u -o pipefail
B=${B:-/tmp/b}
OUT=${OUT:-/tmp/kvaddr-gpu}
mkdir -p "$OUT"
t0=$(date +%s)
stamp() { echo "== $1: $(( $(date +%s) - t0 )) s"; }
cmake -S . -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DPython3_EXECUTABLE="$(which python3)" -Dpybind11_DIR="$(python3 -m pybind11 --cmakedir)" -DBUILD_TESTING=ON \
  > "$OUT/build.log" 2>&1 && cmake --build "$B" -j"$(nproc)" >> "$OUT/build.log" 2>&1 || { tail -60 "$OUT/build.log"; exit 1; }
stamp build
rc=0
ctest --test-dir "$B" -L gpu -j4 --timeout 200 --output-on-failure > "$OUT/ctest_gpu.log" 2>&1 || rc=1
grep -E "tests passed|FAILED|Failed|\*\*\*" "$OUT/ctest_gpu.log" | head -30
stamp "ctest -L gpu"
timeout 150 "$B/bench/kvaddr_bench" --report > "$OUT/bench.txt" 2>&1 || rc=1
cat "$OUT/bench.txt"
stamp bench
PYTHONPATH=$B/python/package PYTHONUNBUFFERED=1 timeout 150 python3 bench/peer.py > "$OUT/peer.txt" 2>&1 || rc=1
cat "$OUT/peer.txt"
stamp peer
B=$B OUT=/tmp/kvaddr-leg SKIP_N24=1 PYTEST_S=${PYTEST_S:-90} DEADLINE_S=${LEG_S:-200} \
  harness/gpu_tests/python_gpu_leg.sh "${1:-1e7}" || rc=1
for f in pytest.log speed_graph.log campaign.log; do cp "/tmp/kvaddr-leg/$f" "$OUT/leg_$f" 2>/dev/null; done
stamp "all (rc $rc)"
exit $rc
