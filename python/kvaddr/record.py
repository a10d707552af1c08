"""Failing harness cases as replay directories (docs/replay.md), and replaying a kernel on them.

A directory holds manifest.json (format version 2) + one .npy per array, written so that `kvaddr replay DIR`
reproduces what the harness saw: each output is its whole guarded allocation (the guard lanes before and
after it, and the columns past the visible width of a pitched output, compared with their *before*
values), each strided input is its spread backing with its element strides, each guarded table (v2p,
swa_v2p) its parent with the guard pages around it; the call's "presented" object names the visible widths,
aliasing and adjacent slices of one allocation (kvaddr.adjacent). harness.json keeps what the failure was
(kind, detail, seed, case, first lanes).

Writing is replay's one recording writer in the C++ library (kvaddr._core.write_recording, the writer of
kvaddr's own example recordings and of the C++ harness too): this module only decides which manifest form
each array takes (a file, a guarded table's parent slice, a strided backing, a guarded output, an adjacent
layout's shared allocation) and hands the description and the int32 / int64 arrays over; the writer checks
them and writes manifest.json, the .npy files and harness.json.

Reading a directory back (load_case, assert_replay) goes through replay's own readers in the C++ library
(kvaddr._core.replay_read_manifest / replay_read_input / replay_read_npy): the same confinement to the
directory, symbolic links resolved, manifest.json included, the same slice and stride checks, and the same
error texts, which never quote a file's contents.
"""
from __future__ import annotations

import json
import os
import pathlib

import numpy as np

from . import _core
from . import adjacent
from . import cases as C
from . import harness
from . import route_tables
from .adjacent import describe as layout
from .cases import Case
from .check_args import invalid
from .harness import check_case
from .present import STRIDE_PAD, guarded, spread

FORMAT_VERSION = 2


def _save(arrays, name, arr):
    """Keeps `arr` as the recording's file `name` (written by _core.write_recording); returns the name."""
    arrays[name] = arr
    return name


def _input_entry(arrays, case, name, arr, grouped):
    """The manifest entry of one input: a file, a guarded table's parent slice, or a strided backing."""
    plain = name in grouped or (case.alias and case.alias[1] == name)
    if name in case.strided and not plain:
        backing = spread(arr)
        f = _save(arrays, f"in.{name}.npy", backing.ravel())
        strides = [int(backing.shape[1]), 1] if arr.ndim == 2 else [2]
        return {"file": f, "shape": [int(n) for n in arr.shape], "strides": strides}
    if name in C.GUARDED_TABLES and arr.ndim == 1 and not plain:
        return {"file": _save(arrays, f"in.{name}.npy", C.guarded_table(arr)[0]), "offset": C.TABLE_GUARD,
                "size": int(arr.size)}
    return _save(arrays, f"in.{name}.npy", arr)


def _group_entry(arrays, case, name, buf, result):
    """The entry of the one output of an adjacent layout: the whole shared allocation (guards and the other
    members' lanes are then the output's guard lanes, which must keep their values), viewed in the output's
    dtype; None when the layout has several outputs or no recorded allocation."""
    after = getattr(result, "group_backing", None)
    if sum(n in case.outputs for n in adjacent.members(case)) != 1 or after is None:
        return None
    spans, total = adjacent.layout(case)
    lo = next(lo for n, lo, _ in spans if n == name)
    u = buf.itemsize // 4
    if lo % u or total % u:
        return None
    return {"before": _save(arrays, f"out.{name}.before.npy", adjacent.host_backing(case).view(buf.dtype)),
            "after": _save(arrays, f"out.{name}.after.npy", np.ascontiguousarray(after, np.int32).view(buf.dtype)),
            "offset": lo // u, "size": int(buf.size), "shape": [int(n) for n in buf.shape]}


def _output_entry(arrays, case, name, buf, result, grouped):
    """The manifest entry of one output: its guarded allocation before and after the call (the buffer at
    offset GUARD), or for a member of an adjacent layout the shared allocation (plain buffers when that
    cannot be said, e.g. two outputs in one allocation)."""
    actual = result.actual.get(name, buf)
    if name in grouped:
        entry = _group_entry(arrays, case, name, buf, result)
        return entry or {"before": _save(arrays, f"out.{name}.before.npy", buf),
                         "after": _save(arrays, f"out.{name}.after.npy", actual)}
    before = guarded(buf)
    after = getattr(result, "backing", {}).get(name)
    if after is None or after.shape != before.shape:
        after = guarded(actual)  # no backing (the kernel raised, a graph run): the guards as presented
    return {"before": _save(arrays, f"out.{name}.before.npy", before), "after": _save(arrays, f"out.{name}.after.npy", after),
            "offset": C.GUARD, "size": int(buf.size), "shape": [int(n) for n in buf.shape]}


def write_case(root, case, result, variant, seed, index, name=None, graph=False):
    """Write `case` (with the kernel's outputs as the *after* buffers) under root; returns the directory."""
    d = pathlib.Path(root) / f"{case.route}-seed{seed}-case{index}"
    arrays = {}  # file name -> array, written with the manifest
    grouped = adjacent.members(case) if case.adjacent else ()
    inputs = {k: _input_entry(arrays, case, k, v, grouped) for k, v in case.inputs.items() if v is not None}
    outputs = {k: _output_entry(arrays, case, k, v, result, grouped) for k, v in case.outputs.items()}
    scalars = {k: (bool(v) if isinstance(v, (bool, np.bool_)) else int(v)) for k, v in case.scalars.items()}
    call = {"route": case.route, "name": name or f"kvaddr.check {case.route} seed {seed} case {index}",
            "variant": variant, "scalars": scalars, "inputs": inputs, "outputs": outputs,
            "note": f"kvaddr.check: {result.kind}" + (f" ({result.detail})" if result.detail else "")}
    presented = {}
    if case.widths:
        presented["widths"] = {k: int(w) for k, w in case.widths.items()}
    if case.alias:
        presented["alias"] = [case.alias[0], case.alias[1]] + [int(x) for x in case.alias[2:]]
    if case.adjacent:  # the output's entry is the shared allocation; assert_replay rebuilds the layout
        presented["adjacent"] = [list(case.adjacent[0]), int(case.adjacent[1])]
        call["note"] += f"; layout: {layout(case)}"
    if presented:
        call["presented"] = presented
    side = {"kind": result.kind, "detail": result.detail, "seed": int(seed), "case": int(index), "variant": variant,
            "graph": bool(graph), "first_lanes": [str(lane) for lane in result.first]}
    _core.write_recording(d, {"version": FORMAT_VERSION, "calls": [call], "side_files": {"harness.json": side},
                              "clear_npy": True}, arrays)  # stale .npy of an earlier case removed first
    return str(d)


def _spread_like(entry, values):
    """Whether a strided input entry is the harness's spread layout (kvaddr.present.spread) of `values`."""
    if not isinstance(entry, dict) or "strides" not in entry or entry.get("offset", 0) != 0:
        return False
    want = [values.shape[1] + STRIDE_PAD, 1] if values.ndim == 2 else [2]  # as present.spread lays them out
    return entry["strides"] == want


def load_case(directory, *, allow_outside=False):
    """The Case of a directory written by write_case (or any one-call replay directory). Returns (case, variant).
    Every file is read inside `directory` (symbolic links resolved) unless allow_outside=True."""
    if isinstance(directory, bytes) or not isinstance(directory, (str, os.PathLike)):
        raise invalid("directory", repr(directory), "must be a path (str or os.PathLike)")
    d = os.fspath(directory)
    if d == "":
        raise invalid("directory", repr(directory), "must name a replay directory")
    if not isinstance(allow_outside, bool):
        raise invalid("allow_outside", repr(allow_outside), "must be True or False")
    manifest = _core.replay_read_manifest(d, allow_outside=allow_outside)
    call = manifest["calls"][0]

    def read(name):
        return _core.replay_read_npy(d, name, allow_outside=allow_outside)

    # each input as the C++ loader reads it (a file, a slice, a strided view: one reader, one set of checks)
    inputs = {k: _core.replay_read_input(d, json.dumps(e), allow_outside=allow_outside)
              for k, e in call.get("inputs", {}).items()}
    strided = tuple(k for k, e in call.get("inputs", {}).items() if _spread_like(e, inputs[k]))
    # the optional inputs of the route's calling convention that the call leaves out (kv_start_idx; v2p of a static
    # pool) are passed to the kernel as None, as kvaddr.check passed them
    optional = {f[0] for f in route_tables.shape(call["route"])["fields"] if f[1] in ("vec_in", "mat_in") and not f[3]}
    for _, field, _ in route_tables.convention(call["route"]):
        if field in optional:
            inputs.setdefault(field, None)
    outputs = {}
    for k, e in call["outputs"].items():
        before = read(e["before"])
        if "offset" in e:
            before = before.reshape(-1)[e["offset"]:e["offset"] + e["size"]].reshape(e.get("shape", [e["size"]]))
        outputs[k] = before.copy()
    pres = call.get("presented", {})
    alias = pres.get("alias", ())
    adj = pres.get("adjacent") or ()
    case = Case(call["route"], dict(call.get("scalars", {})), inputs, outputs, dict(pres.get("widths", {})),
                strided, tuple(alias), (tuple(adj[0]), int(adj[1])) if adj else ())
    return case, call.get("variant", "production")


def assert_replay(kernel, directory, *, device="cpu", array=None, allow_outside=False):
    """Re-run `kernel` on the case recorded in `directory` and raise AssertionError if it still fails."""
    case, variant = load_case(directory, allow_outside=allow_outside)
    res = check_case(kernel, case, device=device, array=array, variant=variant)
    if res.kind != "ok":
        lanes = "\n".join(f"  {lane}" for lane in res.first)
        raise AssertionError(f"kvaddr replay {directory}: {res.kind}"
                             + (f" ({res.detail})" if res.detail else "") + (f"\n{lanes}" if lanes else ""))
    return res


harness.register(write_case=write_case)  # kvaddr.check(replay_dir=...) writes the failing case here
