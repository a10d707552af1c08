"""python/bench/harness_speed.py runs (a tiny budget here; the figures are in docs/harness.md)."""
import json
import os
import pathlib
import subprocess
import sys

SCRIPT = pathlib.Path(__file__).resolve().parents[1] / "bench" / "harness_speed.py"


def test_speed_script_reports_every_route_it_is_given():
    p = subprocess.run([sys.executable, str(SCRIPT), "--seconds", "0.2", "--lanes", "1024", "--json",
                        "--routes", "token_translate,decode_metadata,eager_funnel,kv_indices_inplace"],
                       capture_output=True, text=True, env=dict(os.environ), timeout=300)
    assert p.returncode == 0, p.stderr
    rows = json.loads(p.stdout)
    assert [r["route"] for r in rows] == ["token_translate", "decode_metadata", "eager_funnel", "kv_indices_inplace"]
    for r in rows:
        assert r["cases"] >= 1 and r["lanes"] > 0 and r["harness_seconds"] > 0
        # lanes / harness seconds (harness_seconds is rounded to the millisecond in the report)
        assert abs(r["lanes_per_second"] * r["harness_seconds"] / r["lanes"] - 1) < 0.05
        # all-in time per case (the kernel included) is at least the harness time per case
        assert r["us_per_case_all"] >= r["us_per_case"] > 0 and r["graph_loop"] == ""
