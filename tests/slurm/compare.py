#!/usr/bin/env python3
"""compare.py MERGED WHOLE [FIELD...]: exit 0 when the merged report of a Slurm campaign equals the
unsharded run's report. Timing fields (seconds, total_seconds, steps_per_second, lanes_per_second)
are left out at every level. With FIELDs, only those top-level fields are compared (a planted
variant: the verdict and the first mismatch; the counts differ because every shard stops at its own
first mismatch)."""
import json
import sys

TIMING = {"seconds", "total_seconds", "steps_per_second", "lanes_per_second"}


def strip(v):
    if isinstance(v, dict):
        return {k: strip(x) for k, x in v.items() if k not in TIMING}
    if isinstance(v, list):
        return [strip(x) for x in v]
    return v


def main():
    merged, whole = (strip(json.load(open(p))) for p in sys.argv[1:3])
    fields = sys.argv[3:]
    if fields:
        merged = {f: merged.get(f) for f in fields}
        whole = {f: whole.get(f) for f in fields}
    if merged == whole:
        print("merged report == unsharded report" + (f" (fields {', '.join(fields)})" if fields else ""))
        return 0
    for k in sorted(set(merged) | set(whole)):
        if merged.get(k) != whole.get(k):
            print(f"differs at {k!r}:\n  merged:    {json.dumps(merged.get(k))[:400]}\n  unsharded: {json.dumps(whole.get(k))[:400]}")
    return 1


if __name__ == "__main__":
    sys.exit(main())
