"""Failing harness cases as replay directories (docs/replay.md), and replaying a kernel on them.

A directory holds manifest.json + one .npy per array (readable by `kvaddr replay DIR` and
kvaddr.replay), plus harness.json with what the manifest format has no key for: the visible width of
each padded output, the strided inputs, aliasing, adjacent slices of one allocation (kvaddr.adjacent; also
named in the manifest's note), and the failure that was found.
"""
from __future__ import annotations

import json
import pathlib

import numpy as np

from . import harness
from .adjacent import describe as layout
from .cases import Case
from .harness import check_case


def write_case(root, case, result, variant, seed, index, name=None, graph=False):
    """Write `case` (with the kernel's outputs as the *after* buffers) under root; returns the directory."""
    d = pathlib.Path(root) / f"{case.route}-seed{seed}-case{index}"
    d.mkdir(parents=True, exist_ok=True)
    for old in d.glob("*.npy"):
        old.unlink()
    inputs = {}
    for k, v in case.inputs.items():
        if v is not None:
            np.save(d / f"in.{k}.npy", np.ascontiguousarray(v))
            inputs[k] = f"in.{k}.npy"
    outputs = {}
    for k, v in case.outputs.items():
        after = result.actual.get(k, v)
        outputs[k] = _guarded_output(d, k, v, after, getattr(result, "backing", {}).get(k))
    scalars = {k: (bool(v) if isinstance(v, (bool, np.bool_)) else int(v)) for k, v in case.scalars.items()}
    call = {"route": case.route, "name": name or f"kvaddr.check {case.route} seed {seed} case {index}",
            "variant": variant, "scalars": scalars, "inputs": inputs, "outputs": outputs,
            "note": f"kvaddr.check: {result.kind}" + (f" ({result.detail})" if result.detail else "")}
    if case.adjacent:  # the manifest has no key for a shared allocation: the layout is in the note and harness.json
        call["note"] += f"; layout: {layout(case)} (harness.json \"adjacent\"; replayed from separate buffers by " \
                        "kvaddr replay)"
    (d / "manifest.json").write_text(json.dumps({"format": "kvaddr-replay", "version": 1, "calls": [call]}, indent=2))
    side = {"widths": case.widths, "strided": list(case.strided), "alias": list(case.alias),
            "adjacent": [list(case.adjacent[0]), int(case.adjacent[1])] if case.adjacent else [],
            "kind": result.kind,
            "detail": result.detail, "seed": int(seed), "case": int(index), "variant": variant, "graph": bool(graph),
            "first_lanes": [str(lane) for lane in result.first]}
    (d / "harness.json").write_text(json.dumps(side, indent=2))
    return str(d)


def _guarded_output(d, name, before, after, backing):
    """Save one output; with the kernel's guarded backing (GUARD lanes each side, kvaddr.present) the parent is
    recorded with its guard regions (offset GUARD), so a store past the buffer is a recorded lane for replay."""
    from .cases import GUARD
    from .present import guarded

    files = {"before": f"out.{name}.before.npy", "after": f"out.{name}.after.npy"}
    if backing is None or np.asarray(backing).size != before.size + 2 * GUARD:
        np.save(d / files["before"], np.ascontiguousarray(before))
        np.save(d / files["after"], np.ascontiguousarray(after))
        return files
    parent_after = np.array(backing).ravel().astype(before.dtype)
    parent_after[GUARD:GUARD + before.size] = np.ascontiguousarray(after).ravel()
    np.save(d / files["before"], guarded(before).astype(before.dtype))
    np.save(d / files["after"], parent_after)
    return {**files, "offset": GUARD, "size": int(before.size), "shape": [int(n) for n in before.shape]}


def _load_output(d, spec):
    """The *before* buffer of one recorded output (the view of a guarded parent where one was recorded)."""
    arr = np.load(d / spec["before"])
    if "offset" in spec:
        arr = arr[spec["offset"]:spec["offset"] + spec["size"]].reshape(spec.get("shape", [spec["size"]]))
    return arr


def load_case(directory):
    """The Case of a directory written by write_case (or any one-call replay directory). Returns (case, variant)."""
    d = pathlib.Path(directory)
    manifest = json.loads((d / "manifest.json").read_text())
    call = manifest["calls"][0]
    side = json.loads((d / "harness.json").read_text()) if (d / "harness.json").exists() else {}
    inputs = {k: np.load(d / f) for k, f in call.get("inputs", {}).items()}
    if call["route"] == "flashmla_block_table":
        inputs.setdefault("kv_start_idx", None)
    outputs = {k: _load_output(d, f) for k, f in call["outputs"].items()}
    adj = side.get("adjacent") or ()
    case = Case(call["route"], dict(call.get("scalars", {})), inputs, outputs, dict(side.get("widths", {})),
                tuple(side.get("strided", ())), tuple(side.get("alias", ())),
                (tuple(adj[0]), int(adj[1])) if adj else ())
    return case, call.get("variant", "production")


def assert_replay(kernel, directory, *, device="cpu", array=None):
    """Re-run `kernel` on the case recorded in `directory` and raise AssertionError if it still fails."""
    case, variant = load_case(directory)
    res = check_case(kernel, case, device=device, array=array, variant=variant)
    if res.kind != "ok":
        lanes = "\n".join(f"  {lane}" for lane in res.first)
        raise AssertionError(f"kvaddr replay {directory}: {res.kind}"
                             + (f" ({res.detail})" if res.detail else "") + (f"\n{lanes}" if lanes else ""))
    return res


harness.register(write_case=write_case)  # kvaddr.check(replay_dir=...) writes the failing case here
