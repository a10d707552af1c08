#!/usr/bin/env bash
# Packaging checks run by `scripts/run.sh test` after the test suite:
#   1. `cmake --install` the build, then configure, build and run tests/consumer against it
#      (find_package(kvaddr) and the kvaddr:: targets);
#   2. the same consumer through add_subdirectory (KVADDR_BUILD_TESTS defaults to OFF there);
#   3. `pip install .` offline (system setuptools, --no-build-isolation) into a fresh
#      `venv --system-site-packages`, then import the package outside the source tree and check
#      one hand-computed translation.
# Usage: scripts/check-packaging.sh BUILD_DIR
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="$(cd "${1:?usage: check-packaging.sh BUILD_DIR}" && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

echo "kvaddr packaging: cmake --install + tests/consumer"
cmake --install "$build" --prefix "$work/prefix" > "$work/install.log"
cmake -S "$here/tests/consumer" -B "$work/consumer" -G Ninja -DCMAKE_PREFIX_PATH="$work/prefix" > "$work/consumer.log"
cmake --build "$work/consumer" > "$work/consumer-build.log"
"$work/consumer/consumer"

echo "kvaddr packaging: add_subdirectory(kvaddr) from tests/consumer (tests must stay off)"
cmake -S "$here/tests/consumer" -B "$work/subdir" -G Ninja -DKVADDR_SOURCE_DIR="$here" > "$work/subdir.log"
if ninja -C "$work/subdir" -t targets all | grep -q "kvaddr_cli_tests"; then
  echo "kvaddr packaging: add_subdirectory built the test suites" >&2
  exit 1
fi
cmake --build "$work/subdir" --target consumer -j "${JOBS:-$(nproc)}" > "$work/subdir-build.log"
"$work/subdir/consumer"

echo "kvaddr packaging: pip install . (offline) in a fresh venv"
/usr/bin/python3 -m venv --system-site-packages "$work/venv"
(cd "$here" && KVADDR_BUILD_JOBS="${JOBS:-$(nproc)}" "$work/venv/bin/pip" install --no-build-isolation --no-index \
  --quiet "$here")
rm -rf "$here/kvaddr.egg-info"
(cd "$work" && "$work/venv/bin/python" - <<'PY'
import numpy as np
import kvaddr
assert kvaddr.__file__.startswith(__import__("sys").prefix), kvaddr.__file__
# ps = 4, M = 3, v2p = [0, 5, -1, 2, -1]: 5 -> 61, 9 -> 0 (tombstone), 13 -> 25, -1 -> 0.
out = kvaddr.token_translate(np.array([5, 9, 13, -1]), np.array([0, 5, -1, 2, -1]), page_size=4, multiplier=3)
assert list(out) == [61, 0, 25, 0], out
print("kvaddr packaging: the pip-installed module works:", kvaddr.__file__)
PY
)
