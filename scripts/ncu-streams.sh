#!/usr/bin/env bash
# Nsight Compute profiles (full section set, CSV details) of the ps-64 stream workload's kernels, one launch each:
# kvaddr's streaming kernel on token_translate/ps64 (the sixth k_stream_tiles launch of `kvaddr bench`: the
# bench's set-up runs the five harness-row reference launches, on random ids, before any workload), the bench's
# bare-gather floor on the same data under the same cache policy (floor/stream_gather_ps64_plain) and, where torch + Triton + the Python module
# are present, the Triton peer's token kernel from bench/peer.py (FULL=0 skips these). CSVs go to $OUT.
#   B=build-gpu OUT=... scripts/ncu-streams.sh
set -u
export PATH="/usr/local/cuda/bin:$PATH"
B="${B:-build-gpu}"
OUT="${OUT:-./ncu-out}"
mkdir -p "$OUT"
# The kernels and how many launches of each to skip (the harness set-up launches come before the workload).
kstream_re='regex:detail::k_stream_tiles<'; kstream_skip=5
floor_re='regex:k_stream_gather<false>'; floor_skip=0
ncu_csv=(timeout "${NCU_S:-150}" ncu --kernel-name-base demangled --set full --csv --page details -c 1)
if [ "${FULL:-1}" = 1 ]; then
  "${ncu_csv[@]}" -k "$kstream_re" -s "$kstream_skip" "$B/kvaddr" bench --runs 1 --warmup 0 --quiet >"$OUT/ncu-kstream.csv" 2>"$OUT/ncu-kstream.err"
  echo "ncu kvaddr k_stream_tiles: exit $?"
  "${ncu_csv[@]}" -k "$floor_re" -s "$floor_skip" "$B/kvaddr" bench --runs 1 --warmup 0 --quiet >"$OUT/ncu-floor.csv" 2>"$OUT/ncu-floor.err"
  echo "ncu floor k_stream_gather: exit $?"
  PYTHONPATH="$B/python/package" "${ncu_csv[@]}" -k 'regex:^_translate' python3 bench/peer.py --triton-only \
    --only token_translate/ps64 --runs 1 --mode eager >"$OUT/ncu-triton.csv" 2>"$OUT/ncu-triton.err"
  echo "ncu triton _translate: exit $?"
fi
# With SOURCE=1: the per-instruction (SASS) source counters of the kvaddr and floor kernels, where the memory
# sectors of each load and store show (reports kept as $OUT/*.ncu-rep).
if [ "${SOURCE:-0}" = 1 ]; then
  for k in kstream floor; do
    re="$kstream_re"; skip="$kstream_skip"; [ "$k" = floor ] && re="$floor_re" && skip="$floor_skip"
    timeout "${NCU_S:-150}" ncu --kernel-name-base demangled --section SourceCounters --section MemoryWorkloadAnalysis_Tables \
      --metrics l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_write.sum,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum,dram__bytes_read.sum,dram__bytes_write.sum,smsp__inst_executed_op_global_ld.sum,smsp__inst_executed_op_global_st.sum \
      -c 1 -s "$skip" -k "$re" -o "$OUT/$k" -f "$B/kvaddr" bench --runs 1 --warmup 0 --quiet >"$OUT/ncu-$k-src.log" 2>&1
    ncu -i "$OUT/$k.ncu-rep" --page raw --csv >"$OUT/$k-raw.csv" 2>&1
    ncu -i "$OUT/$k.ncu-rep" --page source --csv --print-source sass >"$OUT/$k-sass.csv" 2>&1 ||
      ncu -i "$OUT/$k.ncu-rep" --page source --csv >"$OUT/$k-sass.csv" 2>&1
    echo "ncu source $k: $(wc -c <"$OUT/$k-sass.csv") bytes"
  done
fi
