#!/usr/bin/env bash
# The Python GPU leg of the harness on one device (docs/harness.md, "The GPU campaign"): build kvaddr_python
# (kvaddr._core + kvaddr._gpu) into $B, run the GPU pytest of kvaddr.gpu, harness_speed on the device (graph
# overhead per small case; device-reference lanes/s at N = 2^24) and the campaign. Logs go to $OUT (default
# /tmp/kvaddr-gpu-leg). Usage, from the repository root:  harness/gpu_tests/python_gpu_leg.sh [CAMPAIGN_LANES]
set -u -o pipefail
B=${B:-/tmp/b}
OUT=${OUT:-/tmp/kvaddr-gpu-leg}
LANES=${1:-1e7}
mkdir -p "$OUT"
t0=$(date +%s)
cmake -S . -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DPython3_EXECUTABLE="$(which python3)" -Dpybind11_DIR="$(python3 -m pybind11 --cmakedir)" -DBUILD_TESTING=ON \
  > "$OUT/configure.log" 2>&1 || { tail -30 "$OUT/configure.log"; exit 1; }
cmake --build "$B" -j"$(nproc)" --target kvaddr_python > "$OUT/build.log" 2>&1 || { tail -40 "$OUT/build.log"; exit 1; }
echo "build: $(( $(date +%s) - t0 )) s"
export PYTHONPATH=$B/python/package:tests/harness_subjects:python/tests PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1
rc=0
timeout "${PYTEST_S:-110}" python3 -m pytest -q -rs -p no:cacheprovider --durations=6 \
  python/tests/test_gpu_kernels.py python/tests/test_gpu_api.py > "$OUT/pytest.log" 2>&1 || rc=1
tail -25 "$OUT/pytest.log"
echo "pytest done: $(( $(date +%s) - t0 )) s"
timeout 45 python3 python/bench/harness_speed.py --device cuda --graph --seconds 2 --lanes 64 \
  --routes token_translate,write_loc,read_table,decode_metadata 2>&1 | tee "$OUT/speed_graph.log" || rc=1
[ -n "${SKIP_N24:-}" ] || timeout 45 python3 python/bench/harness_speed.py --device cuda --seconds 3 --lanes 16777216 \
  --routes token_translate,swa_translate,dcp_read_translate,transfer_ids,write_loc 2>&1 | tee "$OUT/speed_n24.log" || rc=1
echo "speed done: $(( $(date +%s) - t0 )) s"
left=$(( ${DEADLINE_S:-100000} - ( $(date +%s) - t0 ) ))
timeout "$left" python3 tests/harness_subjects/run_campaign.py "$OUT/camp" "$LANES" > "$OUT/campaign.log" 2>&1 || rc=1
grep -E "^(kvaddr.gpu|triton) |CAMPAIGN|Error|error" "$OUT/campaign.log" | cut -c1-400 | tail -30
echo "all done: $(( $(date +%s) - t0 )) s, rc $rc"
exit $rc
