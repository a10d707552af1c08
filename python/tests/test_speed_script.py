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


def test_recipe_speed_script_reports_every_route_it_is_given():
    script = SCRIPT.parent / "recipe_speed.py"
    p = subprocess.run([sys.executable, str(script), "--cases", "20", "--repeats", "1", "--lanes", "256",
                        "--routes", "read_table,write_loc"], capture_output=True, text=True, env=dict(os.environ),
                       timeout=300)
    assert p.returncode == 0, p.stderr
    rows = [line.split() for line in p.stdout.splitlines()[2:]]
    assert [r[0] for r in rows] == ["read_table", "write_loc"]
    for r in rows:
        full, core, adj, share = float(r[1]), float(r[3]), float(r[4]), float(r[5])
        assert full > 0 and core > 0 and adj >= 0 and 0 <= share <= 1


def test_timers_and_profile_run_on_the_cpu(tmp_path):
    for extra in (["--timers"], ["--profile", str(tmp_path)]):
        p = subprocess.run([sys.executable, str(SCRIPT), "--device", "cpu", "--seconds", "0.2", "--lanes", "256",
                            "--routes", "write_loc", *extra], capture_output=True, text=True, env=dict(os.environ),
                           timeout=300)
        assert p.returncode == 0, p.stderr
        draw = [line for line in p.stdout.splitlines() if line.strip().startswith("draw recipe")]
        assert len(draw) == 1 and float(draw[0].split()[-1]) > 0, p.stdout
    assert (tmp_path / "write_loc.pstats").is_file()


def test_binding_speed_script_reports_every_route_it_is_given():
    script = SCRIPT.parent / "binding_speed.py"
    p = subprocess.run([sys.executable, str(script), "--calls", "10", "--json", "--routes",
                        "token_translate,decode_metadata,kv_indices_inplace"], capture_output=True, text=True,
                       env=dict(os.environ), timeout=300)
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    assert out["empty_call_us"] > 0
    assert [r["route"] for r in out["routes"]] == ["token_translate", "decode_metadata", "kv_indices_inplace"]
    for r in out["routes"]:
        assert r["us_per_call"] > 0 and abs(r["times_empty_call"] * out["empty_call_us"] / r["us_per_call"] - 1) < 1e-9
