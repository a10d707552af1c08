# Sourced by the entry scripts (run.sh, gpu-check.sh): sets $here to the repository root and makes it the
# working directory.
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$here"
