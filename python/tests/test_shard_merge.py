"""Report.to_json (kvaddr.diff/1): the JSON reports of the shards of one kvaddr.check campaign merge with
`kvaddr merge` (cli/src/shard.cpp) into the unsharded run's counts and first failing case (#30 item 3)."""
import json
import os
import pathlib
import shutil
import subprocess
import sys

import pytest

import kvaddr
import np_kernels as K


def cli():
    here = pathlib.Path(kvaddr.__file__).parent  # build/python/package/kvaddr -> build/kvaddr
    for c in (os.environ.get("KVADDR_CLI"), here.parent.parent.parent / "kvaddr", shutil.which("kvaddr")):
        if c and pathlib.Path(c).is_file() and os.access(c, os.X_OK):
            return str(c)
    pytest.skip("the kvaddr CLI is not built (build/kvaddr; or set KVADDR_CLI)")


def merge(tmp_path, docs):
    files = []
    for i, d in enumerate(docs):
        f = tmp_path / f"shard-{i}.json"
        f.write_text(json.dumps(d))
        files.append(str(f))
    p = subprocess.run([cli(), "merge", *files], capture_output=True, text=True, timeout=120)
    assert p.returncode in (0, 1), p.stderr
    return p.returncode, json.loads(p.stdout)


COUNTS = ("cases_run", "lanes_translated", "lanes_compared", "per_kernel", "seed", "campaign", "schema")


def test_three_passing_shards_merge_into_the_unsharded_report(tmp_path):
    whole = kvaddr.check("read_table", K.read_table, cases=24, seed=3, lanes=512).to_json()
    parts = [kvaddr.check("read_table", K.read_table, cases=24, seed=3, lanes=512, shard=(i, 3)).to_json()
             for i in (2, 0, 1)]
    assert [p["shard"] for p in parts] == [{"index": 2, "count": 3}, {"index": 0, "count": 3}, {"index": 1, "count": 3}]
    assert "shard" not in whole and whole["ok"] and whole["first_mismatch"] is None
    code, merged = merge(tmp_path, parts)
    assert code == 0 and merged["ok"] is True and merged["first_mismatch"] is None
    assert {k: merged[k] for k in COUNTS} == {k: whole[k] for k in COUNTS}
    assert merged["per_kernel"]["read_table"]["edge_classes"] == whole["per_kernel"]["read_table"]["edge_classes"]


def test_the_merged_first_failure_is_the_unsharded_one(tmp_path):
    # seed 2 (cases drawn by gen::draw_recipe): the first case without the max_pages bound that spills is case 11
    whole = kvaddr.check("read_table", K.read_table_no_bound, cases=60, seed=2).to_json()
    parts = [kvaddr.check("read_table", K.read_table_no_bound, cases=60, seed=2, shard=(i, 3)).to_json()
             for i in range(3)]
    code, merged = merge(tmp_path, parts)
    assert code == 1 and merged["ok"] is False and whole["ok"] is False
    assert merged["first_mismatch"] == whole["first_mismatch"]  # the same case index, kind, lanes and minimal case
    assert merged["first_mismatch"]["case_index"] == 11 and merged["first_mismatch"]["kind"] == "mismatch"
    assert [m["case_index"] for m in merged["mismatches"]] == sorted(m["case_index"] for m in merged["mismatches"])


def test_shards_of_different_campaigns_do_not_merge(tmp_path):
    a = kvaddr.check("read_table", K.read_table, cases=4, seed=3, lanes=256, shard=(0, 2)).to_json()
    b = kvaddr.check("read_table", K.read_table, cases=4, seed=3, lanes=512, shard=(1, 2)).to_json()
    f = [tmp_path / "a.json", tmp_path / "b.json"]
    f[0].write_text(json.dumps(a))
    f[1].write_text(json.dumps(b))
    p = subprocess.run([cli(), "merge", *map(str, f)], capture_output=True, text=True, timeout=120)
    assert p.returncode == 2 and "campaign mismatch" in p.stderr + p.stdout


def test_the_command_line_prints_shard_reports_that_merge(tmp_path):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([env.get("PYTHONPATH", ""), str(pathlib.Path(__file__).parent)])
    docs = []
    for i in range(2):
        p = subprocess.run([sys.executable, "-m", "kvaddr", "check", "--route", "token_translate",
                            "np_kernels:translate_v2p", "--cases", "10", "--seed", "4", "--shard", f"{i}/2",
                            "--merge-json"], capture_output=True, text=True, env=env, timeout=300)
        assert p.returncode == 0, p.stderr
        docs.append(json.loads(p.stdout))
    code, merged = merge(tmp_path, docs)
    whole = kvaddr.check("token_translate", K.translate_v2p, cases=10, seed=4).to_json()
    assert code == 0 and {k: merged[k] for k in COUNTS} == {k: whole[k] for k in COUNTS}
    p = subprocess.run([sys.executable, "-m", "kvaddr", "check", "--route", "token_translate",
                        "np_kernels:translate_v2p", "--shard", "2/2"], capture_output=True, text=True, env=env,
                       timeout=300)
    assert p.returncode == 2 and "shard = (2, 2): i must be in [0, 1]" in p.stderr
