#!/bin/bash
# campaign_test.sh CASE KVADDR CLUSTER_DIR SLURM_CAMPAIGN: one kvaddr campaign through the one-node
# cluster of cluster.sh (ctest label `slurm`), submitted by scripts/slurm-campaign.sh exactly as
# docs/scaling.md shows it. Cases:
#   props   4 tasks of `kvaddr props`; the merged report equals the unsharded run's; prints the
#           throughput (cases per second through Slurm, and the unsharded run's).
#   diff    4 tasks of `kvaddr diff --host-only` (generator, host route and model on the CPU): the
#           merged report equals the unsharded run's; with a planted variant (--force-variant) the
#           merged verdict and first mismatch equal the unsharded run's.
#   cancel  4 tasks of `kvaddr props` submitted held, task 2 cancelled (scancel <job>_2): the merge job
#           fails naming shard 2; `resubmit --task 2` replaces it and the merge then equals the
#           unsharded report.
# Exit 77 (skip) with a message when the cluster is not there (not root, slurm-wlm or munge absent).
set -u
case_name="$1" kvaddr="$2" cluster="$3" campaign="$4"
here=$(cd "$(dirname "$0")" && pwd)
export SLURM_CONF="$cluster/slurm.conf"
if [ "$(id -u)" -ne 0 ] || ! command -v sbatch >/dev/null 2>&1 || [ ! -s "$SLURM_CONF" ] ||
   ! scontrol ping >/dev/null 2>&1; then
  echo "SKIP: no Slurm cluster (needs root, slurm-wlm and munge; the fixture slurm_cluster_start starts it)"
  exit 77
fi
command -v python3 >/dev/null 2>&1 || { echo "SKIP: python3 absent (compares the reports)"; exit 77; }
work="$cluster/work-$case_name"
rm -rf "$work"
mkdir -p "$work"

fail() {
  echo "FAIL: $*"
  for f in "$work"/*/logs/*.log; do [ -f "$f" ] && { echo "--- $f"; tail -n 20 "$f"; }; done
  exit 1
}
now() { date +%s.%N; }

# run_campaign NAME TASKS ARGS...: unsharded run, then the Slurm campaign; leaves $work/NAME.
run_campaign() {
  local name=$1 tasks=$2
  shift 2
  "$kvaddr" "$@" --json >"$work/$name.whole.json"
  local status=$?
  [ $status -le 1 ] || fail "unsharded kvaddr $* exited $status"
  local t0 t1
  t0=$(now)
  "$campaign" submit --dir "$work/$name" --tasks "$tasks" --kvaddr "$kvaddr" -- "$@" || fail "submit failed"
  "$campaign" wait --dir "$work/$name" --timeout 500
  merged_status=$?
  t1=$(now)
  campaign_seconds=$(python3 -c "print(f'{$t1 - $t0:.2f}')")
  [ $merged_status -eq $status ] || fail "merge verdict $merged_status, unsharded run $status"
}

case "$case_name" in
  props)
    base=(props --cases 40 --stateful-runs 4 --seed 7)
    t0=$(now)
    "$kvaddr" "${base[@]}" --json >/dev/null
    whole_seconds=$(python3 -c "print(f'{$(now) - $t0:.2f}')")
    run_campaign props 4 "${base[@]}"
    python3 "$here/compare.py" "$work/props/merged.json" "$work/props.whole.json" || fail "merged != unsharded"
    cases=$(python3 -c "import json; print(json.load(open('$work/props/merged.json'))['total_cases'])")
    echo "throughput: 4-task props campaign ($cases cases) through Slurm in $campaign_seconds s (submit to merged report),"
    echo "            $(python3 -c "print(f'{$cases / $campaign_seconds:.0f}')") cases/s; the unsharded run: $whole_seconds s"
    ;;
  diff)
    "$kvaddr" diff --help >/dev/null 2>&1 || { echo "SKIP: kvaddr built without kernels/ (no diff subcommand)"; exit 77; }
    base=(diff --host-only --cases 48 --seed 7 --case-lanes 4096)
    run_campaign diff 4 "${base[@]}"
    python3 "$here/compare.py" "$work/diff/merged.json" "$work/diff.whole.json" || fail "merged != unsharded"
    run_campaign planted 4 "${base[@]}" --force-variant "$KVADDR_PLANTED_VARIANT"
    python3 "$here/compare.py" "$work/planted/merged.json" "$work/planted.whole.json" ok first_mismatch ||
      fail "planted: merged verdict / first mismatch != unsharded"
    python3 -c "import json,sys; m=json.load(open('$work/planted/merged.json')); sys.exit(0 if m['ok'] is False and m['first_mismatch'] else 1)" ||
      fail "the planted variant was not found"
    ;;
  cancel)
    base=(props --cases 20 --stateful-runs 2 --seed 9)
    "$kvaddr" "${base[@]}" --json >"$work/cancel.whole.json"
    "$campaign" submit --hold --dir "$work/cancel" --tasks 4 --kvaddr "$kvaddr" -- "${base[@]}" || fail "submit failed"
    array=$(cat "$work/cancel/array.jobid")
    scancel "${array}_2" || fail "scancel ${array}_2"
    scontrol release "$array" || fail "scontrol release $array"
    "$campaign" wait --dir "$work/cancel" --timeout 500
    status=$?
    [ $status -eq 2 ] || fail "merge with task 2 cancelled: verdict $status, expected 2"
    grep -q "missing shard(s) 2 of 4" "$work/cancel/logs/merge.log" || fail "kvaddr merge did not name shard 2"
    grep -q "shard 2 of 4 is missing" "$work/cancel/logs/merge.log" || fail "the merge job did not name shard 2's file"
    [ ! -e "$work/cancel/merged.json" ] || fail "a merged report was written although shard 2 is missing"
    grep -h "missing" "$work/cancel/logs/merge.log"
    "$campaign" resubmit --dir "$work/cancel" --task 2 || fail "resubmit failed"
    "$campaign" wait --dir "$work/cancel" --timeout 500 || fail "merge after the resubmitted task failed"
    python3 "$here/compare.py" "$work/cancel/merged.json" "$work/cancel.whole.json" || fail "merged != unsharded"
    ;;
  *) echo "unknown case $case_name"; exit 2 ;;
esac
rm -rf "$work"
echo "PASS: slurm campaign $case_name"
