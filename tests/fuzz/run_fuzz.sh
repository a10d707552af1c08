#!/bin/sh
# run_fuzz.sh MIN_RUNS FUZZER ARGS...: runs one fuzz target and fails unless it exits 0 after at
# least MIN_RUNS inputs (read from the "stat::number_of_executed_units" line both libFuzzer and
# the in-tree driver print).
min="$1"
shift
log="$(mktemp)"
"$@" >"$log" 2>&1
status=$?
tail -n 40 "$log"
done=$(sed -n 's/^stat::number_of_executed_units: *\([0-9]*\).*/\1/p' "$log" | tail -n 1)
rm -f "$log"
if [ "$status" -ne 0 ]; then
  echo "run_fuzz: $1 exited with status $status" >&2
  exit 1
fi
if [ -z "$done" ] || [ "$done" -lt "$min" ]; then
  echo "run_fuzz: only ${done:-0} inputs tried, fewer than $min" >&2
  exit 1
fi
echo "run_fuzz: $done inputs, no crash"
