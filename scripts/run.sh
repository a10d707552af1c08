#!/usr/bin/env bash
# kvaddr's one entry script (run as root on Debian 12, or as a user with the packages present).
#   scripts/run.sh verify   install what is missing, build, run `kvaddr verify` on embedded defaults
#   scripts/run.sh test     install what is missing, build, run the whole test suite (ctest)
#   scripts/run.sh build    install what is missing and build only
# Environment: BUILD_DIR (default build), JOBS (default nproc), KVADDR_NO_INSTALL=1 skips apt-get.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$here"
BUILD_DIR="${BUILD_DIR:-build}"
JOBS="${JOBS:-$(nproc)}"
mode="${1:-test}"

packages=(build-essential cmake ninja-build pkg-config git
          libz3-dev librapidcheck-dev libgtest-dev libgmock-dev libbenchmark-dev
          nlohmann-json3-dev libcli11-dev libfmt-dev
          python3-dev pybind11-dev python3-numpy python3-pytest python3-hypothesis
          python3-venv python3-pip python3-setuptools python3-wheel librsvg2-bin)

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

build() {
  cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo
  cmake --build "$BUILD_DIR" -j "$JOBS"
}

case "$mode" in
  verify)
    install_missing
    build
    "./$BUILD_DIR/kvaddr" verify
    ;;
  test)
    install_missing
    build
    ctest --test-dir "$BUILD_DIR" --output-on-failure -j "$JOBS"
    bash scripts/check-packaging.sh "$BUILD_DIR"
    ;;
  build)
    install_missing
    build
    ;;
  *)
    echo "usage: scripts/run.sh verify|test|build" >&2
    exit 2
    ;;
esac
