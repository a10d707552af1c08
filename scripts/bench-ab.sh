#!/usr/bin/env bash
# A/B of `kvaddr bench` in one device call: the tree at BASE_SRC (a source copy of an earlier commit, made
# beforehand with `mkdir abbase && git archive <rev> | tar -x -C abbase`, since the device has no git history)
# and this tree, built side by side, then benched interleaved (base, new, base, new, ...) so that both sit in
# the same run. Prints the rows matching ROWS of every run; full outputs go to $OUT.
#   BASE_SRC=abbase RUNS=2 ROWS='^(canonical_page_table|read_table)/ps64:' scripts/bench-ab.sh
set -uo pipefail
export PATH="/usr/local/cuda/bin:$PATH"
BASE_SRC="${BASE_SRC:?set BASE_SRC to the source copy of the base commit}"
RUNS="${RUNS:-2}"
ROWS="${ROWS:-^[a-z_]+/ps(1|64)[_a-z0-9]*:}"
OUT="${OUT:-./bench-ab-out}"
ARCH="${ARCH:-90}"
mkdir -p "$OUT"
for side in base new; do
  src=.; [ "$side" = base ] && src="$BASE_SRC"
  cmake -S "$src" -B "build-ab-$side" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES="$ARCH" \
    -DBUILD_TESTING=OFF >"$OUT/$side-configure.log" 2>&1 &&
    cmake --build "build-ab-$side" -j "$(nproc)" --target kvaddr >"$OUT/$side-build.log" 2>&1 ||
    { echo "bench-ab: the $side build failed (see $OUT/$side-build.log)"; exit 1; }
done
for i in $(seq 1 "$RUNS"); do
  for side in base new; do
    "build-ab-$side/kvaddr" bench --quiet >"$OUT/$side-$i.txt" 2>&1 || echo "bench-ab: $side run $i failed"
    echo "== $side $i"
    grep -E "$ROWS" "$OUT/$side-$i.txt" | cut -c1-120
  done
done
