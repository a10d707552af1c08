"""A recorded call checked end to end from Python, and the replay report through the module."""
import json
import pathlib

import numpy as np
import pytest

import kvaddr
from conftest import DATA

DATA_MODES = DATA / "modes"


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


# ---- #35 item 4: a failure replays where it was found ---------------------------------------------------
def test_guard_after_failure_replays_with_the_same_lanes(tmp_path):
    import np_kernels as K

    rep = kvaddr.check("token_translate", K.translate_v2p_oob, cases=20, seed=1, params={"adjacent": False},
                       replay_dir=tmp_path)
    f = rep.failure
    assert f.kind == "out_of_bounds" and f.first and all(lane.region == "guard_after" for lane in f.first)
    n = f.case.outputs["out"].size
    # kvaddr replay (the C++ reader, as the CLI runs it) reports the same lanes: flat = n + k for the k-th lane
    # after the buffer
    r = kvaddr.replay(f.replay_dir)
    call = r["calls"][0]
    assert call["status"] == "differs" and call["lanes_differing"] == f.differing
    assert [(d["region"], d["flat"], d["expected"], d["recorded"]) for d in call["diffs"]] == \
        [("guard after", n + lane.index[0], lane.expected, lane.actual) for lane in f.first]
    assert "(guard after)" in kvaddr.replay_text(f.replay_dir)
    with pytest.raises(AssertionError, match="guard after the buffer"):
        kvaddr.assert_replay(K.translate_v2p_oob, f.replay_dir)
    kvaddr.assert_replay(K.translate_v2p, f.replay_dir)
    assert f"kvaddr.assert_replay(my_kernel, {f.replay_dir!r}, device='cpu', array='numpy')" in f.snippet


def test_snippet_names_the_device_and_array_library_of_the_run():
    class Fam:
        name, device = "torch", "cuda:1"

    s = kvaddr.harness.pytest_snippet("/tmp/d", "read_table", 2, 12, Fam())
    assert "kvaddr.assert_replay(my_kernel, '/tmp/d', device='cuda:1', array='torch')" in s
    assert 'device="cpu"' not in s


def _strided_eager_case():
    from kvaddr import cases as C

    recipe = {"page_size": 1, "multiplier": 2, "v2p": np.array([0, 4, 1], np.int64),
              "page_table": np.array([[0, 1], [2, -1]], np.int64), "alias": False, "overlap": False, "pad": 1,
              "strided": True}
    return C.build("eager_funnel", recipe)


def test_strided_inputs_and_widths_are_recorded_and_read_back(tmp_path):
    import np_kernels as K

    case = _strided_eager_case()
    assert case.strided == ("page_table",) and case.widths == {"out": 2}
    res = kvaddr.harness.check_case(K.eager_funnel, case)
    assert res.kind == "ok"
    d = kvaddr.record.write_case(tmp_path, case, res, "production", 0, 0)
    call = json.loads((tmp_path / "eager_funnel-seed0-case0" / "manifest.json").read_text())["calls"][0]
    assert call["inputs"]["page_table"]["strides"] == [5, 1] and call["inputs"]["page_table"]["shape"] == [2, 2]
    assert call["presented"] == {"widths": {"out": 2}}
    assert call["outputs"]["out"]["offset"] == 64 and call["outputs"]["out"]["shape"] == [2, 3]
    assert kvaddr.replay(d)["calls"][0]["status"] == "equal"
    back, variant = kvaddr.load_case(d)
    assert variant == "production" and back.strided == ("page_table",) and back.widths == {"out": 2}
    np.testing.assert_array_equal(back.inputs["page_table"], case.inputs["page_table"])
    np.testing.assert_array_equal(back.outputs["out"], case.outputs["out"])
    kvaddr.assert_replay(K.eager_funnel, d)


def test_stride0_input_is_read_as_one_element_per_lane(tmp_path):
    np.save(tmp_path / "parent.npy", np.array([1, 0], np.int64))
    np.save(tmp_path / "v2p.npy", np.array([3, 5], np.int64))
    np.save(tmp_path / "before.npy", np.full(3, -1, np.int64))
    np.save(tmp_path / "after.npy", np.full(3, 5, np.int64))
    call = {"route": "token_translate", "scalars": {"page_size": 1},
            "inputs": {"ids": {"file": "parent.npy", "shape": [3], "strides": [0]}, "v2p": "v2p.npy"},
            "outputs": {"out": {"before": "before.npy", "after": "after.npy"}}}
    (tmp_path / "manifest.json").write_text(json.dumps({"version": 2, "calls": [call]}))
    assert kvaddr.replay(tmp_path)["calls"][0]["status"] == "equal"
    case, _ = kvaddr.load_case(tmp_path)
    assert case.inputs["ids"].tolist() == [1, 1, 1] and case.strided == ()


# ---- #36 item 3: assert_replay reads inside the directory, as kvaddr replay does -----------------------
def test_assert_replay_confines_every_path(tmp_path):
    import os

    import np_kernels as K

    rep = kvaddr.check("token_translate", K.translate_v2p_doc_formula, cases=50, seed=1, replay_dir=tmp_path / "r")
    d = pathlib.Path(rep.failure.replay_dir)
    m = json.loads((d / "manifest.json").read_text())
    ids = m["calls"][0]["inputs"]["ids"]  # a file name, or a strided entry naming its file
    (tmp_path / "x.npy").write_bytes((d / (ids["file"] if isinstance(ids, dict) else ids)).read_bytes())
    if isinstance(ids, dict):
        ids["file"] = "../../x.npy"
    else:
        m["calls"][0]["inputs"]["ids"] = "../../x.npy"
    (d / "manifest.json").write_text(json.dumps(m))
    for load in (lambda **kw: kvaddr.load_case(d, **kw), lambda **kw: kvaddr.assert_replay(K.translate_v2p, d, **kw)):
        with pytest.raises(kvaddr.IoError, match="not a file inside the replay directory"):
            load()
    assert kvaddr.replay(d)["calls"][0]["status"] == "error"
    kvaddr.assert_replay(K.translate_v2p, d, allow_outside=True)
    # manifest.json itself as a link out of the directory: refused, and nothing of the file is shown
    (tmp_path / "secret.txt").write_text("TOP-SECRET-LINE-1 abcdef\n")
    os.remove(d / "manifest.json")
    os.symlink(tmp_path / "secret.txt", d / "manifest.json")
    with pytest.raises(kvaddr.IoError) as e:
        kvaddr.assert_replay(K.translate_v2p, d)
    assert "TOP-SECRET" not in str(e.value)
    with pytest.raises(kvaddr.FormatError) as e:
        kvaddr.load_case(d, allow_outside=True)
    assert "TOP-SECRET" not in str(e.value) and "byte 0: not valid JSON" in str(e.value)
    r = kvaddr.replay(d)
    assert "TOP-SECRET" not in json.dumps(r) and r["error_kind"] == "io"


def test_replay_search_budget(example_dir):
    r = kvaddr.replay(example_dir, search_budget=1)
    assert r["summary"] == kvaddr.replay(example_dir)["summary"]  # the statuses do not depend on the search
    # every route with a variant besides production stops after its first candidate (mamba_translate has none)
    assert [c.get("search_stopped_after") for c in r["calls"]] == \
        [1 if len(kvaddr.variants(c["route"])) > 1 else None for c in r["calls"]]
    assert "search stopped after 1 candidates" in kvaddr.replay_text(example_dir, search_budget=1)
    assert all("search_stopped_after" not in c for c in kvaddr.replay(example_dir)["calls"])
    assert {c.get("search_stopped_after") for c in kvaddr.replay(example_dir, search_seconds=0)["calls"]} == {0}
    bad_options = ({"search_budget": 0}, {"search_budget": -5}, {"search_seconds": -1.0}, {"search_seconds": float("nan")})
    for bad in bad_options:
        with pytest.raises(kvaddr.InvalidArgument):
            kvaddr.replay(example_dir, **bad)


def test_store_into_an_adjacent_argument_replays_with_kvaddr_replay(tmp_path):
    import np_kernels as K

    # seed 10: its first case is laid out out | v2p (as in test_adjacent.py)
    rep = kvaddr.check("token_translate", K.translate_v2p_oob, cases=20, seed=10, params={"adjacent": "always"},
                       replay_dir=tmp_path)
    f = rep.failure
    assert f.case.adjacent == (("out", "v2p"), 0) and [lane.region for lane in f.first] == ["neighbour_after"]
    call = kvaddr.replay(f.replay_dir)["calls"][0]
    n = f.case.outputs["out"].size
    assert call["status"] == "differs"
    assert [(d["region"], d["flat"], d["expected"], d["recorded"]) for d in call["diffs"]] == \
        [("guard after", n, lane.expected, lane.actual) for lane in f.first]
    back, _ = kvaddr.load_case(f.replay_dir)
    assert back.adjacent == (("out", "v2p"), 0)
    np.testing.assert_array_equal(back.outputs["out"], f.case.outputs["out"])


# ---- #35 / #33: the upstream call modes replay where kvaddr.check found them ----------------------------
def _lanes_of_replay(call):
    return [(d["output"], tuple(d["index"]), d["expected"], d["recorded"]) for d in call["diffs"]]


def _lanes_of_report(f):
    return [(lane.output, tuple(lane.index), lane.expected, lane.actual) for lane in f.first]


# (route, mode, planted subject, correct subject, the variant replay names or None, what the manifest records)
MODE_FAULTS = [
    ("canonical_page_table", "static", "canonical_static_floor", "canonical_static", None, "no v2p"),
    ("decode_metadata", "static", "decode_static_full_width", "decode_modes", "full_width_page_table", "no v2p"),
    ("decode_metadata", "canonical_source", "decode_canonical_batch_rows", "decode_modes", "e10_batch_index_rows",
     "src_is_kernel_page_table"),
    ("decode_metadata", "swa_token_map", "decode_swa_map_no_guard", "decode_modes", "swa_no_padding_guard",
     "full_to_swa_index_mapping"),
]


@pytest.mark.parametrize("route,mode,planted,correct,named,field", MODE_FAULTS, ids=[m[1] + "-" + m[2] for m in MODE_FAULTS])
def test_failure_in_each_call_mode_replays_with_the_same_lanes(tmp_path, route, mode, planted, correct, named, field):
    import np_mode_kernels as M

    rep = kvaddr.check(route, getattr(M, planted), cases=200, seed=3, mode=mode, replay_dir=tmp_path)
    f = rep.failure
    assert f is not None and f.kind == "mismatch" and f.replay_dir
    call = json.loads((pathlib.Path(f.replay_dir) / "manifest.json").read_text())["calls"][0]
    if field == "no v2p":
        assert "v2p" not in call["inputs"] and call["scalars"]["multiplier"] == 1
    elif field == "src_is_kernel_page_table":
        assert call["scalars"][field] is True and "v2p" not in call["inputs"]
    else:  # the map as the slice of its guarded parent the kernel read (map[-1] = the guard page 9001)
        assert call["inputs"][field]["offset"] == 8 and "swa_page_table" in call["outputs"]
    r = kvaddr.replay(f.replay_dir)["calls"][0]
    assert r["status"] == "differs" and r["lanes_differing"] == f.differing
    assert _lanes_of_replay(r) == _lanes_of_report(f)
    if named:
        assert named in f.behaves_like and named in r["matching_variants"]
    else:
        assert r["matching_variants"] == [] and f.behaves_like == []
    with pytest.raises(AssertionError):
        kvaddr.assert_replay(getattr(M, planted), f.replay_dir)
    kvaddr.assert_replay(getattr(M, correct), f.replay_dir)  # the loaded case keeps the mode's arguments


def test_mode_recordings_shipped_replay(tmp_path):
    r = kvaddr.replay(DATA_MODES)
    assert r["summary"] == {"calls": 11, "equal": 7, "differs": 4, "error": 0}
    assert [c["matching_variants"] for c in r["calls"] if c["status"] == "differs"] == \
        [["e10_batch_index_rows"], ["swa_no_padding_guard"], ["full_width_page_table"], []]


@pytest.mark.parametrize("route", ["flashmla_block_table", "read_table", "full_prefill_table"])
def test_static_failure_of_every_table_route_replays_with_the_same_lanes(tmp_path, route):
    """kvaddr's host route in the static call with one planted store: the first lane of the output's first live
    row is off by one. kvaddr replay on the written directory lists the lanes the report lists."""
    host = kvaddr.conventions.host_kernel(route)
    out_name = "kv_indices" if route == "flashmla_block_table" else "out"

    def off_by_one(**kw):
        host(**kw)
        out = kw[out_name]
        if out.shape[0] and out.shape[1]:
            out[0, 0] += 1

    rep = kvaddr.check(route, off_by_one, cases=20, seed=4, mode="static", replay_dir=tmp_path)
    f = rep.failure
    assert f is not None and f.kind == "mismatch", str(rep)
    call = json.loads((pathlib.Path(f.replay_dir) / "manifest.json").read_text())["calls"][0]
    assert "v2p" not in call["inputs"] and call["scalars"]["multiplier"] == 1
    r = kvaddr.replay(f.replay_dir)["calls"][0]
    assert r["status"] == "differs" and r["lanes_differing"] == f.differing == 1
    assert _lanes_of_replay(r) == _lanes_of_report(f) == [(out_name, (0, 0), f.first[0].expected,
                                                           f.first[0].expected + 1)]
    kvaddr.assert_replay(host, f.replay_dir)


def test_a_fortran_order_npy_reads_as_the_same_array(tmp_path):
    """numpy.save writes a Fortran-contiguous array in Fortran order; replay reads the same array (C order)."""
    from kvaddr import _core

    a = np.asfortranarray(np.arange(24, dtype=np.int32).reshape(2, 3, 4))
    np.save(tmp_path / "t.npy", a)
    assert b"'fortran_order': True" in (tmp_path / "t.npy").read_bytes()[:128]
    got = _core.replay_read_npy(tmp_path, "t.npy")
    assert got.dtype == np.int32 and got.shape == (2, 3, 4) and np.array_equal(got, a)
