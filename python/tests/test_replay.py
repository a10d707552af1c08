"""A recorded call checked end to end from Python, and the replay report through the module."""
import numpy as np

import kvaddr


def test_recorded_read_table_call_end_to_end(example_dir):
    # Call 6 of the example: a KVIndexTranslator read table (Era D, zero tail), recorded as .npy.
    load = lambda name: np.load(example_dir / name)
    before = load("c06.out.before.npy")
    after = load("c06.out.after.npy")
    np.testing.assert_array_equal(
        after,
        kvaddr.read_table(
            req_to_token=load("pool.req_to_token.npy"),
            req_pool_indices=load("batch.req_pool_indices.npy"),
            seq_lens=load("batch.seq_lens.npy"),
            v2p=load("pool.v2p.npy"),
            page_size=2,
            multiplier=1,
            max_pages=4,
            zero_tail=True,
            out=before,
        ),
    )


def test_deliberate_b10_recording_does_not_match_production(example_dir):
    load = lambda name: np.load(example_dir / name)
    recorded = load("c07.out.after.npy")
    args = dict(req_to_token=load("pool.req_to_token.npy"), req_pool_indices=load("batch.req_pool_indices.npy"),
                seq_lens=load("batch.seq_lens.npy"), v2p=load("pool.v2p.npy"), page_size=2, multiplier=3,
                max_pages=2, seq_len_delta=1)
    production = kvaddr.read_table(**args, out=load("c07.out.before.npy"))
    assert not np.array_equal(recorded, production)
    np.testing.assert_array_equal(
        recorded, kvaddr.read_table(**args, out=load("c07.out.before.npy"), variant="b10_no_max_pages_bound"))


def test_replay_report(example_dir):
    r = kvaddr.replay(example_dir)
    assert r["summary"] == {"calls": 16, "equal": 14, "differs": 2, "error": 0}
    differing = [c for c in r["calls"] if c["status"] == "differs"]
    assert "era_b_unclamped" in differing[0]["matching_variants"]
    assert "b10_no_max_pages_bound" in differing[1]["matching_variants"]
    assert differing[0]["diffs"][0] == {"output": "kv_indices", "flat": 0, "index": [0, 0], "expected": 0,
                                        "recorded": -3}
    assert "matches variant b10_no_max_pages_bound" in kvaddr.replay_text(example_dir)


def test_replay_missing_dir_is_a_report_not_an_exception(tmp_path):
    r = kvaddr.replay(tmp_path / "nothing")
    assert r["ok"] is False and "missing" in r["error"]


def _copy_example(src, dst):
    import shutil
    shutil.copytree(src, dst)
    return dst


def test_replay_deep_manifest_is_a_report_not_a_crash(tmp_path):
    (tmp_path / "manifest.json").write_text('{"version": ' + "[" * 100000 + "]" * 100000 + ', "calls": []}')
    r = kvaddr.replay(tmp_path)
    assert r["ok"] is False and "nested deeper than 32 levels" in r["error"]
    assert len(r["error"]) < 400


def test_replay_non_utf8_directory_name_keeps_every_call(tmp_path, example_dir):
    import os
    d = os.fsencode(tmp_path) + b"/dir\xff"
    _copy_example(example_dir, os.fsdecode(d))
    r = kvaddr.replay(os.fsdecode(d))
    assert r["summary"] == {"calls": 16, "equal": 14, "differs": 2, "error": 0}
    assert "\ufffd" in r["dir"]
    assert "16 calls: 14 equal" in kvaddr.replay_text(os.fsdecode(d))


def test_replay_confines_reads_unless_allowed(tmp_path, example_dir):
    import json
    d = _copy_example(example_dir, tmp_path / "ex")
    m = json.loads((d / "manifest.json").read_text())
    m["calls"] = m["calls"][:1]
    m["calls"][0]["inputs"]["ids"] = str(d / "c01.ids.npy")  # absolute path
    (d / "manifest.json").write_text(json.dumps(m))
    r = kvaddr.replay(d)
    assert r["calls"][0]["status"] == "error"
    assert "not a file inside the replay directory" in r["calls"][0]["error"]
    assert kvaddr.replay(d, allow_outside=True)["calls"][0]["status"] == "equal"


def test_file_and_format_errors_are_kvaddr_errors():
    assert issubclass(kvaddr.IoError, kvaddr.Error) and issubclass(kvaddr.IoError, OSError)
    assert issubclass(kvaddr.FormatError, kvaddr.Error) and issubclass(kvaddr.FormatError, ValueError)
