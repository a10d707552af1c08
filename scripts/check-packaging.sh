#!/usr/bin/env bash
# Packaging checks run by `scripts/run.sh test` after the test suite:
#   1. `cmake --install` the build, then configure, build and run tests/consumer against it
#      (find_package(kvaddr) and the kvaddr:: targets);
#   2. the same consumer through add_subdirectory (KVADDR_BUILD_TESTS defaults to OFF there): configured (every
#      kvaddr:: target it names must exist, no test suite may be generated), its main.cpp compiled against the
#      three libraries' usage requirements (include paths, definitions, the C++ standard), and kvaddr_translate
#      built there (library sources compile under a consumer's defaults). It is not linked: the libraries it
#      links (harness, hence kernels' CUDA sources at the consumer's default flags) cost 41 s of a 2-core CI run
#      (docs/ci.md, sixth round), and step 1 links the same main.cpp and runs it;
#   (the pip install of docs/python.md is ctest's python_pip_install, run before this script).
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
ninja -C "$work/subdir" -j "${JOBS:-$(nproc)}" CMakeFiles/consumer.dir/main.cpp.o kvaddr/translate/libkvaddr_translate.a \
  > "$work/subdir-build.log" || { cat "$work/subdir-build.log" >&2; exit 1; }
echo "consumer: main.cpp compiles and kvaddr_translate builds under add_subdirectory"

# The pip install is not repeated here: ctest's python_pip_install (tests/install/check_pip_install.py) runs
# docs/python.md's install line verbatim in a fresh venv and checks the same translation, the version and
# that no build tree is left in the source. Running it here too built the extension a second time.
