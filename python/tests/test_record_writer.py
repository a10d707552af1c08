"""kvaddr.check's replay directories, written by replay's one C++ writer (_core.write_recording).

tests/data/record_golden holds the directories the former Python writer (json.dump + np.save in
kvaddr/record.py) wrote for one planted case of each layout kind: plain inputs with a guarded table, a
store past the buffer, an aliased and a partially overlapping output, a strided input, rank-2 ids, an
adjacent layout (one shared allocation), a strided 2-D table with visible widths, an aliased table. The
cases are built by hand (kvaddr.cases.build), not drawn, so that they do not move with the generator.
Writing them again must give byte-identical .npy files and key/value-identical JSON, and kvaddr replay must
read them. Regenerate (only when the recorded form changes on purpose):
    python3 python/tests/test_record_writer.py tests/data/record_golden
"""
import dataclasses
import json
import os
import pathlib
import sys

import numpy as np
import pytest

import kvaddr
from kvaddr import _core
from kvaddr import cases as C

GOLDEN = pathlib.Path(__file__).resolve().parents[2] / "tests" / "data" / "record_golden"


def _token(**kw):
    r = {"page_size": 2, "multiplier": 1, "overlap": 0, "alias": False, "rank2": False, "strided": False,
         "ids": np.array([0, 1, 5, 2], np.int64), "v2p": np.array([3, 0, 1, -1], np.int64)}
    r.update(kw)
    return C.build("token_translate", r)


def _eager(**kw):
    r = {"page_size": 1, "multiplier": 2, "v2p": np.array([0, 4, 1], np.int64),
         "page_table": np.array([[0, 1], [2, -1]], np.int64), "alias": False, "overlap": False, "pad": 1,
         "strided": False}
    r.update(kw)
    return C.build("eager_funnel", r)


# name -> (case, kernel of np_kernels, graph flag, what kvaddr replay says of the directory)
def _scenarios():
    return {
        "tok_plain": (_token(), "translate_v2p_doc_formula", True, "differs"),
        "tok_guard_after": (_token(), "translate_v2p_oob", False, "differs"),
        "tok_alias": (_token(alias=True), "translate_v2p_doc_formula", False, "differs"),
        "tok_overlap": (_token(overlap=2), "translate_v2p_doc_formula", False, "differs"),
        "tok_strided": (_token(strided=True), "translate_v2p_doc_formula", False, "differs"),
        "tok_rank2": (_token(rank2=True), "translate_v2p_doc_formula", False, "differs"),
        "tok_adjacent": (dataclasses.replace(_token(), adjacent=(("out", "v2p"), 0)), "translate_v2p_oob", False,
                         "differs"),
        "eager_strided": (_eager(strided=True), "eager_funnel_unclamped", False, "equal"),
        "eager_alias": (_eager(alias=True), "eager_funnel_unclamped", False, "equal"),
    }


def write_all(root):
    """Record every scenario under root/<name>; returns {name: directory}."""
    import np_kernels as K

    out = {}
    for name, (case, kernel, graph, _) in _scenarios().items():
        res = kvaddr.harness.check_case(getattr(K, kernel), case)
        out[name] = pathlib.Path(kvaddr.record.write_case(pathlib.Path(root) / name, case, res, "production", 7, 3,
                                                          graph=graph))
    return out


def _files(d):
    return sorted(p.name for p in d.iterdir())


@pytest.mark.parametrize("name", sorted(_scenarios()))
def test_recording_is_identical_to_the_former_writer(tmp_path, name):
    d = write_all(tmp_path)[name]
    gold = GOLDEN / name / d.name
    assert _files(d) == _files(gold)
    for f in _files(gold):
        if f.endswith(".npy"):
            assert (d / f).read_bytes() == (gold / f).read_bytes(), f
        else:
            assert json.loads((d / f).read_text()) == json.loads((gold / f).read_text()), f
    assert kvaddr.replay(d)["calls"][0]["status"] == _scenarios()[name][3]


def test_every_layout_kind_is_covered():
    forms = set()
    for name in _scenarios():
        (d,) = (GOLDEN / name).iterdir()
        call = json.loads((d / "manifest.json").read_text())["calls"][0]
        for e in call["inputs"].values():
            forms.add("strided" if isinstance(e, dict) and "strides" in e else "slice" if isinstance(e, dict) else "file")
        forms.update(k for k in call.get("presented", {}))
        forms.update(f"out{len(e['shape'])}" for e in call["outputs"].values())
    assert forms == {"file", "slice", "strided", "alias", "adjacent", "widths", "out1", "out2"}


def test_rewriting_a_directory_removes_its_stale_arrays(tmp_path):
    d = write_all(tmp_path)["tok_plain"]
    (d / "stale.npy").write_bytes(b"x")
    (d / "keep.txt").write_text("kept")
    write_all(tmp_path)
    assert not (d / "stale.npy").exists() and (d / "keep.txt").read_text() == "kept"


# ---- _core.write_recording: every rule on both sides of its boundary, nothing written when it fails --------
def _call(**entries):
    call = {"route": "token_translate", "scalars": {"page_size": 1},
            "inputs": {"ids": "ids.npy", "v2p": "v2p.npy"}, "outputs": {"out": {"before": "b.npy", "after": "a.npy"}}}
    call.update(entries)
    return call


def _arrays(**over):
    a = {"ids.npy": np.array([0, 1], np.int64), "v2p.npy": np.array([3, 5], np.int64),
         "b.npy": np.full(2, -1, np.int64), "a.npy": np.array([3, 5], np.int64)}
    a.update(over)
    return {k: v for k, v in a.items() if v is not None}


def _write(d, call=None, arrays=None, **desc):
    _core.write_recording(d, {"version": 2, "calls": [call or _call()], **desc},
                          _arrays() if arrays is None else arrays)  # desc may replace version and calls


def _refused(tmp_path, err, match, **kw):
    d = tmp_path / "rec"
    with pytest.raises(err, match=match):
        _write(d, **kw)
    assert not d.exists()  # nothing written


def test_a_valid_recording_replays(tmp_path):
    _write(tmp_path / "rec")
    assert _files(tmp_path / "rec") == ["a.npy", "b.npy", "ids.npy", "manifest.json", "v2p.npy"]
    assert kvaddr.replay(tmp_path / "rec")["calls"][0]["status"] == "equal"


def test_dtype_must_be_int32_or_int64(tmp_path):
    _write(tmp_path / "i32", arrays=_arrays(**{"ids.npy": np.array([0, 1], np.int32)}))
    assert np.load(tmp_path / "i32" / "ids.npy").dtype == np.int32
    for bad in (np.array([0, 1], np.uint32), np.array([0, 1], np.int16), np.array([0.0, 1.0]),
                np.array([0, 1], ">i8")):
        _refused(tmp_path, kvaddr.InvalidArgument, r"arrays\[ids.npy\].*must be int32 or int64",
                 arrays=_arrays(**{"ids.npy": bad}))
    _refused(tmp_path, kvaddr.InvalidArgument, r"arrays\[ids.npy\].*numpy.ndarray", arrays=_arrays(**{"ids.npy": [0, 1]}))


def test_output_before_and_after_agree(tmp_path):
    _refused(tmp_path, kvaddr.InvalidArgument, r"calls\[0\].outputs.out.*before has shape \(2,\) but after \(3,\)",
             arrays=_arrays(**{"a.npy": np.array([3, 5, 0], np.int64)}))
    _refused(tmp_path, kvaddr.InvalidArgument, r"before is int64 but after is int32",
             arrays=_arrays(**{"a.npy": np.array([3, 5], np.int32)}))


def test_slice_must_lie_inside_its_backing(tmp_path):
    arrays = _arrays(**{"v2p.npy": np.array([-1, 3, 5, -1], np.int64)})
    inside = _call(inputs={"ids": "ids.npy", "v2p": {"file": "v2p.npy", "offset": 1, "size": 3}})
    _write(tmp_path / "ok", call=inside, arrays=arrays)  # offset + size == 4 == the backing
    past = _call(inputs={"ids": "ids.npy", "v2p": {"file": "v2p.npy", "offset": 2, "size": 3}})
    _refused(tmp_path, kvaddr.InvalidArgument, r"calls\[0\].inputs.v2p.*offset 2 \+ size 3 is past the parent's 4",
             call=past, arrays=arrays)
    out_ok = {"before": "b.npy", "after": "a.npy", "offset": 1, "size": 1, "shape": [1]}
    _write(tmp_path / "ok2", call=_call(outputs={"out": out_ok}))
    out_bad = dict(out_ok, shape=[2])
    _refused(tmp_path, kvaddr.InvalidArgument, r"shape has 2 elements but size is 1", call=_call(outputs={"out": out_bad}))


def test_strided_view_must_lie_inside_its_backing(tmp_path):
    arrays = _arrays(**{"ids.npy": np.array([0, 9, 1, 9], np.int64)})
    _write(tmp_path / "ok", call=_call(inputs={"ids": {"file": "ids.npy", "shape": [2], "strides": [2]}, "v2p": "v2p.npy"}),
           arrays=arrays)  # last element at 2 < 4
    _refused(tmp_path, kvaddr.InvalidArgument, r"calls\[0\].inputs.ids",
             call=_call(inputs={"ids": {"file": "ids.npy", "shape": [2], "strides": [4]}, "v2p": "v2p.npy"}),
             arrays=arrays)  # last element at 4: past the 4 elements


def test_row_stride_covers_the_window(tmp_path):
    arrays = _arrays(**{"b.npy": np.full(8, -1, np.int64), "a.npy": np.full(8, -1, np.int64)})
    table = {"before": "b.npy", "after": "a.npy", "offset": 1, "size": 6, "shape": [2, 2], "row_stride": 3}
    _write(tmp_path / "ok", call=_call(outputs={"out": table}), arrays=arrays)  # 2 rows x 3 = 6 lanes, 3 >= 2
    _write(tmp_path / "ok2", call=_call(outputs={"out": dict(table, size=4, row_stride=2)}), arrays=arrays)
    _refused(tmp_path, kvaddr.InvalidArgument, r"calls\[0\].outputs.out = .*: row_stride = 1 is below the table's 2 columns",
             call=_call(outputs={"out": dict(table, size=2, row_stride=1)}), arrays=arrays)
    _refused(tmp_path, kvaddr.InvalidArgument, r"calls\[0\].outputs.out = .*: size = 5 but rows \* row_stride = 2 \* 3",
             call=_call(outputs={"out": dict(table, size=5)}), arrays=arrays)
    _refused(tmp_path, kvaddr.InvalidArgument, r"offset 3 \+ size 6 is past the parent's 8",
             call=_call(outputs={"out": dict(table, offset=3)}), arrays=arrays)
    _refused(tmp_path, kvaddr.InvalidArgument, r"a row_stride needs \"shape\"",
             call=_call(outputs={"out": {k: v for k, v in table.items() if k != "shape"}}), arrays=arrays)


def test_description_fields_on_both_sides(tmp_path):
    _write(tmp_path / "v1", version=1, description="text", clear_npy=False)
    assert json.loads((tmp_path / "v1" / "manifest.json").read_text())["version"] == 1
    _write(tmp_path / "flags", call=_call(scalars={"page_size": 1, "flag": True}))  # a boolean scalar is kept
    _refused(tmp_path, kvaddr.InvalidArgument, r"version = 0", version=0)
    _refused(tmp_path, kvaddr.InvalidArgument, r"clear_npy = 1: must be true or false", clear_npy=1)
    _refused(tmp_path, kvaddr.InvalidArgument, r"calls\[0\].scalars.page_size = 9223372036854775808",
             call=_call(scalars={"page_size": 2**63}))
    _write(tmp_path / "max", call=_call(scalars={"page_size": 2**63 - 1}))  # the largest int64 scalar
    _refused(tmp_path, kvaddr.InvalidArgument, r"calls = a JSON array: a recording holds a non-empty list", calls=[])
    # a description JSON cannot hold (an object, NaN) is refused naming it; a finite float is JSON
    _refused(tmp_path, kvaddr.InvalidArgument, r"^description = dict: not JSON-serialisable",
             call=_call(scalars={"page_size": object()}))
    _refused(tmp_path, kvaddr.InvalidArgument, r"^description = dict: not JSON-serialisable",
             call=_call(scalars={"page_size": float("nan")}))
    _refused(tmp_path, kvaddr.InvalidArgument, r"calls\[0\].scalars.page_size = 0.5",  # JSON, refused by the writer
             call=_call(scalars={"page_size": 0.5}))


def test_unknown_form_and_unnamed_files_are_refused(tmp_path):
    _refused(tmp_path, kvaddr.InvalidArgument, r"calls\[0\].inputs.v2p = bytes: unknown key of a sliced input",
             call=_call(inputs={"ids": "ids.npy", "v2p": {"file": "v2p.npy", "offset": 0, "size": 2, "bytes": 1}}))
    _refused(tmp_path, kvaddr.InvalidArgument, r"calls\[0\].outputs.out = .*an output is",
             call=_call(outputs={"out": "a.npy"}))
    _refused(tmp_path, kvaddr.InvalidArgument, r"calls\[0\] = colour: unknown key of a call", call=_call(colour="red"))
    _refused(tmp_path, kvaddr.InvalidArgument, r"calls\[0\].inputs.ids = \"nope.npy\": names no array",
             call=_call(inputs={"ids": "nope.npy", "v2p": "v2p.npy"}))
    _refused(tmp_path, kvaddr.InvalidArgument, r"plain file name", call=_call(inputs={"ids": "../ids.npy", "v2p": "v2p.npy"}))
    _refused(tmp_path, kvaddr.InvalidArgument, r"arrays\[extra.npy\].*named by no entry",
             arrays=_arrays(**{"extra.npy": np.zeros(1, np.int64)}))
    _refused(tmp_path, kvaddr.InvalidArgument, r"calls\[0\].route = no_such_route: unknown route", call=_call(route="no_such_route"))
    _refused(tmp_path, kvaddr.InvalidArgument, r"version", version=3)
    _refused(tmp_path, kvaddr.InvalidArgument, r"description = bogus: unknown key", bogus=1)
    _refused(tmp_path, kvaddr.InvalidArgument, r"calls\[0\].scalars.page_size", call=_call(scalars={"page_size": 1.5}))
    # a side file may name an array the manifest does not (cxx_case.json's case arrays)
    _write(tmp_path / "side", arrays=_arrays(**{"extra.npy": np.zeros(1, np.int64)}),
           side_files={"harness.json": {"case": "extra.npy"}})
    assert json.loads((tmp_path / "side" / "harness.json").read_text()) == {"case": "extra.npy"}
    _refused(tmp_path, kvaddr.InvalidArgument, r"side_files = manifest.json", side_files={"manifest.json": {}})


def test_description_and_arrays_must_be_dicts(tmp_path):
    with pytest.raises(kvaddr.InvalidArgument, match="description = list: expected a dict"):
        _core.write_recording(tmp_path / "r", [], _arrays())
    with pytest.raises(kvaddr.InvalidArgument, match="arrays = list: expected a dict"):
        _core.write_recording(tmp_path / "r", {"version": 2, "calls": [_call()]}, [])
    assert not (tmp_path / "r").exists()


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into a read-only directory")
def test_an_unwritable_directory_is_an_io_error(tmp_path):
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o500)
    try:
        with pytest.raises(kvaddr.IoError, match="cannot create"):
            _write(ro / "rec")
        _write(tmp_path / "rw" / "rec")  # the same recording where it may be written
    finally:
        ro.chmod(0o700)


def test_a_file_in_place_of_the_directory_is_an_io_error(tmp_path):
    (tmp_path / "f").write_text("")
    with pytest.raises(kvaddr.IoError, match="dir = .*cannot create the directory"):
        _write(tmp_path / "f")


if __name__ == "__main__":
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
    for n, d in write_all(sys.argv[1]).items():
        print(n, d)


# ---- kvaddr.record.load_case / assert_replay: their arguments ------------------------------------------------
@pytest.mark.parametrize("directory", [5, None, b"rec", "", 1.5])
def test_a_directory_that_is_not_a_path_is_named(directory):
    with pytest.raises(kvaddr.InvalidArgument) as e:
        kvaddr.assert_replay(lambda **kw: None, directory)
    assert (e.value.argument, e.value.value) == ("directory", repr(directory))


def test_allow_outside_must_be_a_bool(tmp_path):
    _write(tmp_path / "rec")
    with pytest.raises(kvaddr.InvalidArgument) as e:
        kvaddr.record.load_case(tmp_path / "rec", allow_outside="yes")
    assert (e.value.argument, e.value.value) == ("allow_outside", "'yes'")
    for d in (tmp_path / "rec", str(tmp_path / "rec")):  # a str and an os.PathLike both load
        case, variant = kvaddr.record.load_case(d, allow_outside=False)
        assert case.route == "token_translate" and variant == "production"
        assert case.inputs["ids"].tolist() == [0, 1] and case.outputs["out"].tolist() == [-1, -1]


def test_read_input_of_an_empty_view_numpy_cannot_hold_is_typed(tmp_path):
    """replay reads a strided view of shape (0, 2^62) as nothing; as a numpy array that shape cannot exist: an
    InvalidArgument naming the shape (not numpy's ValueError); (0, 2^20) comes back empty."""
    np.save(tmp_path / "p.npy", np.arange(7, dtype=np.int64))
    (tmp_path / "manifest.json").write_text('{"calls": []}')

    def entry(shape):
        return json.dumps({"file": "p.npy", "offset": 0, "shape": shape, "strides": [1, 1]})

    got = _core.replay_read_input(str(tmp_path), entry([0, 1 << 20]))
    assert got.shape == (0, 1 << 20) and got.dtype == np.int64
    with pytest.raises(kvaddr.InvalidArgument, match=r"^shape = \(0, 4611686018427387904\): not representable"):
        _core.replay_read_input(str(tmp_path), entry([0, 1 << 62]))
