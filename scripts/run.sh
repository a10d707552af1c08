#!/usr/bin/env bash
# kvaddr's one entry script (run as root on Debian 12, or as a user with the packages present).
#   scripts/run.sh verify   install what is missing, build, run `kvaddr verify` on embedded defaults
#   scripts/run.sh test     install what is missing, build everything with the test-only route in the
#                           route list (-DKVADDR_TEST_ROUTE=ON, docs/adding-a-route.md) in its own build
#                           dir, run the whole test suite (ctest) and the packaging checks, then the
#                           sanitizer leg (see `sanitize`)
#   scripts/run.sh sanitize the host libraries and host tests built with ASan + UBSan
#                           (-fno-sanitize-recover) in a second build dir, no CUDA, no Python, no
#                           proofs/ or props/; runs their tests and the fuzz targets (label fuzz)
#   scripts/run.sh build    install what is missing and build only
# Build dirs: `verify` and `build` configure BUILD_DIR (default build) with the production route list;
# `test` configures TEST_BUILD_DIR (default build-test) with the test route, so running both never
# reconfigures one dir back and forth (the Route enum differs, so each switch would rebuild nearly all).
# Environment: BUILD_DIR, TEST_BUILD_DIR, ASAN_BUILD_DIR (default build-asan), JOBS (default nproc),
# KVADDR_NO_INSTALL=1 skips apt-get, KVADDR_NO_SANITIZE=1 skips the sanitizer leg of `test`,
# KVADDR_SANITIZE_FULL=1 builds proofs/ and props/ in the sanitizer leg and runs its proofs, zoo and
# slurm labels too (see below).
set -euo pipefail
# shellcheck source=scripts/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
BUILD_DIR="${BUILD_DIR:-build}"
TEST_BUILD_DIR="${TEST_BUILD_DIR:-build-test}"
JOBS="${JOBS:-$(nproc)}"
mode="${1:-test}"

packages=(build-essential cmake ninja-build pkg-config git
          libz3-dev librapidcheck-dev libgtest-dev libgmock-dev libbenchmark-dev
          nlohmann-json3-dev libcli11-dev libfmt-dev
          python3-dev pybind11-dev python3-numpy python3-pytest python3-hypothesis
          python3-venv python3-pip python3-setuptools python3-wheel librsvg2-bin
          clang libclang-rt-14-dev
          slurm-wlm munge)

install_missing() {
  [ "${KVADDR_NO_INSTALL:-0}" = 1 ] && return 0
  local missing=()
  for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "kvaddr: installing ${missing[*]}"
  local sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

# ccache (when installed) as the compiler launcher: a rebuild of an unchanged tree costs seconds.
launcher_flags() {
  if command -v ccache >/dev/null 2>&1; then
    echo "-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache"
  fi
}

# build DIR ROUTE_FLAG [TARGET...]: configure DIR (ROUTE_FLAG: -DKVADDR_TEST_ROUTE=ON or OFF), then build
# the named targets (all of them when none is named).
build() {
  local dir="$1" route="$2"
  shift 2
  # shellcheck disable=SC2046
  # -O2 without -g (KVADDR_DEBUG_INFO=OFF): the same test speed, a fifth less build CPU (docs/ci.md).
  # The test executables' own sources at -O0 (KVADDR_TEST_OPT, cmake/areas.cmake): they are a third of
  # this build and compile in half the time, while the code they check stays -O2 (docs/ci.md, fifth round).
  # No GPU here (CI): the CUDA kernels are compiled to be checked, never run: their device code unoptimised
  # (KVADDR_CUDA_CHECK_ONLY, CMakeLists.txt; docs/ci.md sixth round). With a GPU they are built to run.
  local cuda_check=OFF
  nvidia-smi -L 2>/dev/null | grep -q GPU || cuda_check=ON
  cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKVADDR_DEBUG_INFO=OFF -DKVADDR_TEST_OPT=-O0 \
    -DKVADDR_CUDA_CHECK_ONLY="$cuda_check" "$route" $(launcher_flags)
  local targets=()
  for t in "$@"; do targets+=(--target "$t"); done
  cmake --build "$dir" -j "$JOBS" "${targets[@]}"
}

# The sanitizer leg's scope (docs/ci.md has the figures behind it). It builds the host tree (no CUDA, no
# Python) without proofs/ and props/ (Z3 and RapidCheck under ASan: about a fifth of this build and most of
# its test time besides fuzzing; both run in the plain leg, the test route's obligation and generated
# property included), and builds and runs under ASan + UBSan every other label's tests but these (their
# test executables are not built here: CMake option KVADDR_SKIP_TEST_LABELS); all of them run in the plain
# build:
#   zoo: the kill matrix and mutation campaign, 137 s of the leg's 759 s of test time, 0 reports: it drives
#     the same host routes as the translate suite through planted variants and reads no outside input;
#   slurm: the Slurm campaigns (RUN_SERIAL, 29 s) run `kvaddr props` and shell scripts; their merge code is
#     under ASan through fuzz_merge and the cli suite.
# The test route stays on here too (it costs this leg nothing: the leg is its own build), so the
# route_list suite checks it under ASan. KVADDR_SANITIZE_FULL=1 builds proofs/ and props/ and runs the
# proofs, zoo and slurm labels too (props stays out: 330 s under ASan + UBSan, docs/reliability.md).
SANITIZE_PROOFS_PROPS=OFF
SANITIZE_SKIP_LABELS="props;zoo;slurm"
if [ "${KVADDR_SANITIZE_FULL:-0}" = 1 ]; then
  SANITIZE_SKIP_LABELS="props"
  SANITIZE_PROOFS_PROPS=ON
fi
# Tests left out of the sanitizer leg by name (with KVADDR_SANITIZE_FULL=1, where proofs/ is built):
#   the all-dcp_size obligations (route.dcp_read_translate.all_dcp_sizes and the vacuity test that
#   first proves it): Z3 closes that query in about 1 s of CPU when the terms are built in GCC's
#   argument evaluation order; built by Clang (this leg's compiler) the same query comes back
#   unknown after the 60 s limit. A solver-robustness gap of that obligation (docs/proofs.md), not a
#   memory error; the plain build runs both.
SANITIZE_EXCLUDE_TESTS="route_dcp_read_translate_all_dcp_sizes|Vacuity\.AllDcpSizeRoutesRefuteWrongCollapses"

sanitize() {
  local dir="${ASAN_BUILD_DIR:-build-asan}"
  # Line tables only (file:line in every report's stack), no full debug information.
  local cxx=g++ cc=gcc extra="" lines="-g1"
  if command -v clang++ >/dev/null 2>&1; then
    cxx=clang++
    cc=clang
    lines="-gline-tables-only"
    # Coverage feedback for libFuzzer in every library the fuzz targets link.
    echo 'int main(){}' | clang++ -x c++ -fsanitize=fuzzer-no-link - -o /dev/null 2>/dev/null && extra="-fsanitize=fuzzer-no-link"
  fi
  local flags="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer $lines $extra"
  # shellcheck disable=SC2046
  cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKVADDR_DEBUG_INFO=OFF $(launcher_flags) \
    -DCMAKE_C_COMPILER="$cc" -DCMAKE_CXX_COMPILER="$cxx" \
    -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" \
    -DCMAKE_SHARED_LINKER_FLAGS="-fsanitize=address,undefined" \
    -DCMAKE_CUDA_COMPILER=NOTFOUND -DKVADDR_ENABLE_KERNELS=OFF -DCMAKE_DISABLE_FIND_PACKAGE_Python3=ON \
    -DKVADDR_FUZZ=ON -DKVADDR_TEST_ROUTE=ON -DKVADDR_TEST_OPT=-O0 \
    -DKVADDR_ENABLE_PROOFS="$SANITIZE_PROOFS_PROPS" -DKVADDR_ENABLE_PROPS="$SANITIZE_PROOFS_PROPS" \
    -DKVADDR_SKIP_TEST_LABELS="$SANITIZE_SKIP_LABELS"
  cmake --build "$dir" -j "$JOBS"
  ASAN_OPTIONS="detect_leaks=1:abort_on_error=1" UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1" \
    ctest --test-dir "$dir" --output-on-failure -j "$JOBS" -E "$SANITIZE_EXCLUDE_TESTS"
}

case "$mode" in
  verify)
    install_missing
    # `kvaddr verify` runs every check in its own process (cli/src/verify*.cpp: grids, variants,
    # proofs, props, the differential): the CLI and the libraries it links are all it needs.
    build "$BUILD_DIR" -DKVADDR_TEST_ROUTE=OFF kvaddr
    "./$BUILD_DIR/kvaddr" verify
    ;;
  test)
    install_missing
    # The whole plain suite (CLI, zoo, props, proofs, the Python binding and python/tests, packaging) with
    # the test-only route added through the real route list: issue 34's proof that a route is three files.
    build "$TEST_BUILD_DIR" -DKVADDR_TEST_ROUTE=ON
    ctest --test-dir "$TEST_BUILD_DIR" --output-on-failure -j "$JOBS"
    bash scripts/check-packaging.sh "$TEST_BUILD_DIR"
    [ "${KVADDR_NO_SANITIZE:-0}" = 1 ] || sanitize
    ;;
  sanitize)
    install_missing
    sanitize
    ;;
  build)
    install_missing
    build "$BUILD_DIR" -DKVADDR_TEST_ROUTE=OFF
    ;;
  *)
    echo "usage: scripts/run.sh verify|test|sanitize|build" >&2
    exit 2
    ;;
esac
