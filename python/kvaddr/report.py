"""kvaddr.check's results: the lanes that differ, one case's result, the explained failure and the Report (its
text, to_dict, and to_json in the kvaddr.diff/1 schema that `kvaddr merge` joins across shards)."""
from __future__ import annotations

import dataclasses

from . import adjacent
from . import cases as C
from .buffers import Lane  # noqa: F401  (kvaddr.Lane, kvaddr.harness.Lane)
from .overflow import describe as overflow_line

FAILURE_KINDS = ("mismatch", "out_of_bounds", "raised", "bad_return", "timeout", "input_modified", "fault",
                 "not_written")

# The layers above kvaddr.harness (docs/architecture.md, "Python layers"): graph mode (kvaddr.graph), the huge
# case (kvaddr.huge) and replay directories (kvaddr.record) import the harness and register here, through
# kvaddr.harness.register, the entry points check() and the report call: "graph" (run_graph_cases), "huge"
# (run_huge), "huge_line" (the report line of Report.huge), "write_case". kvaddr/__init__ imports all three, so
# they are registered once `kvaddr` is imported.
_ABOVE = {}


def register(**entry_points):
    """Called by the modules above the harness when imported (see _ABOVE)."""
    _ABOVE.update(entry_points)


def _above(name):
    if name not in _ABOVE:
        raise RuntimeError(f"kvaddr.harness: {name} is not registered (import kvaddr, which imports kvaddr.graph, "
                           "kvaddr.huge and kvaddr.record)")
    return _ABOVE[name]


@dataclasses.dataclass
class CaseResult:
    kind: str  # "ok" or one of FAILURE_KINDS
    detail: str = ""
    lanes: int = 0
    differing: int = 0
    first: list = dataclasses.field(default_factory=list)
    actual: dict = dataclasses.field(default_factory=dict)  # output -> host buffer after the call (no guards)
    kernel_seconds: float = 0.0


@dataclasses.dataclass
class Failure:
    kind: str
    case_index: int
    detail: str
    first: list
    differing: int
    case: C.Case
    recipe: dict
    original_sizes: dict
    shrink_steps: int
    behaves_like: list
    replay_dir: str | None
    snippet: str
    # The production preconditions the minimal case breaks (conventions.broken_preconditions), each
    # "row r: ..." / "row r column c: ..." with its numbers; the kernel's output is then named by behaves_like.
    preconditions: list = dataclasses.field(default_factory=list)
    # why no replay directory was written (the harness's own I/O failed: not a directory, unwritable, disk full)
    replay_error: str | None = None
    # what the kernel was seen doing beside the failure (e.g. "reads `loc` as packed: ignores its stride 2")
    behaviour: list = dataclasses.field(default_factory=list)
    # When no catalogue variant names it: the behaviours replay's inference confirms on the recorded case
    # (one line each, with its parameters and the variant to claim), or why none is (issue 33).
    inferred: list = dataclasses.field(default_factory=list)
    not_explained: str = ""


# The share of drawn cases a run may reject under the claimed variant's contract before its verdict says that
# the claim was checked on few cases.
REJECTED_SHARE = 0.10


def _rejected_share(rep):
    drawn = rep.cases + rep.rejected
    if not drawn or rep.rejected <= REJECTED_SHARE * drawn:
        return ""
    return (f" ({100 * rep.rejected / drawn:.0f} % of {drawn} drawn, more than {100 * REJECTED_SHARE:.0f} %: "
            "the claim is checked on few cases)")


@dataclasses.dataclass
class Report:
    route: str
    seed: int
    variant: str
    device: str
    array: str
    graph: bool
    cases: int = 0
    rejected: int = 0  # drawn cases the route's contract rejects under `variant` (not run)
    shard: tuple = (0, 1)  # (i, n): only the case indices k with k % n == i ran
    lanes: int = 0
    seconds: float = 0.0
    kernel_seconds: float = 0.0
    # the batched eager loop: the device time of the kernel's calls of the cases it settled (CUDA events around
    # each call on torch's current stream); kernel_seconds is the host time of those calls
    kernel_device_seconds: float = 0.0
    failure: Failure | None = None
    rejections: dict = dataclasses.field(default_factory=dict)  # reason (error class and argument) -> cases
    overflow: dict = dataclasses.field(default_factory=dict)  # cases past an int32 precondition (kvaddr.overflow)
    reference: str = "host"  # "cuda": kvaddr's CUDA kernels on the device; "host": the host routes; "both"
    huge: dict = dataclasses.field(default_factory=dict)  # the > 2^31-element device case (kvaddr.huge)
    # graph mode: "fast" (kvaddr.graph_fast: drawn, referenced and compared on the device) or "slow" (each case
    # built on the host); graph_note says why the slow loop ran where the fast one was allowed
    graph_loop: str = ""
    graph_note: str = ""
    graph_unconfirmed: int = 0  # fast-loop cases with differing lanes that passed when re-run eagerly
    graph_capture: str = ""  # graph mode: which draw the capture case is (kvaddr.graph.CaptureChoice.note)
    # how the kernel ran: "fork" / "spawn" (a worker process, kvaddr.isolate) or "in-process"; isolation_note
    # says why it ran in process where isolate="auto" could not isolate it
    isolation: str = "in-process"
    isolation_note: str = ""
    contract: dict = dataclasses.field(default_factory=dict)  # the wrapper's contract (kvaddr.contract.as_dict)
    interrupted: str = ""
    # what defines the case space (route, variant, cases, lanes, params, device, array, reference, overflow,
    # contract): equal across the shards of one campaign (to_json's "campaign", checked by kvaddr merge)
    campaign: dict = dataclasses.field(default_factory=dict)  # KeyboardInterrupt / SystemExit raised by the kernel: the report up to that case

    @property
    def ok(self):
        """No failure, and at least one case compared (a run that compared nothing is not ok: see verdict)."""
        return self.failure is None and self.cases > 0 and not self.interrupted

    @property
    def verdict(self):
        """Why the run is (not) ok, in one line."""
        if self.interrupted:
            return f"interrupted after {self.cases} compared cases: {self.interrupted}"
        if self.failure is not None:
            return f"FAILED at case {self.failure.case_index}: {self.failure.kind}"
        if self.cases == 0:
            drawn = self.rejected
            return (f"NOTHING COMPARED: {'all ' if drawn else ''}{drawn} drawn cases were rejected by the claimed "
                    "contract" + (" (" + ", ".join(f"{k} {v}" for k, v in sorted(self.rejections.items())) + ")"
                                  if self.rejections else "") + "; not ok")
        return "OK"

    def __bool__(self):
        return self.ok

    @property
    def lanes_per_second(self):
        """Checked lanes per second of harness time (generation + reference + comparison, kernel excluded)."""
        t = self.seconds - self.kernel_seconds
        return self.lanes / t if t > 0 else float("inf")

    def to_dict(self):
        """The report as plain JSON-able values (lanes as strings)."""
        d = {k: getattr(self, k) for k in ("route", "seed", "variant", "device", "array", "graph", "shard", "cases",
                                             "rejected", "lanes", "seconds", "kernel_seconds", "ok", "reference",
                                             "graph_loop", "graph_note", "graph_unconfirmed", "verdict",
                                             "isolation", "isolation_note", "interrupted", "contract")}
        d["graph_capture"] = self.graph_capture
        d["huge"] = dict(self.huge)
        d["rejections"] = dict(self.rejections)
        d["overflow"] = dict(self.overflow)
        f = self.failure
        if f is not None:
            d["failure"] = {"kind": f.kind, "case_index": f.case_index, "detail": f.detail, "differing": f.differing,
                            "first": [str(lane) for lane in f.first], "minimal_case": describe(f.case),
                            "shrink_steps": f.shrink_steps, "preconditions": list(f.preconditions),
                            "behaves_like": list(f.behaves_like), "replay_dir": f.replay_dir,
                            "replay_error": f.replay_error, "behaviour": list(f.behaviour)}
        return d

    def to_json(self):
        """The report as a kvaddr.diff/1 document (docs/cli-json.md), the schema `kvaddr diff --json` prints and
        `kvaddr merge` joins: the shards of one campaign (shard=(i, n), same seed and campaign) merge into the
        unsharded run's counts and first failing case. Harness fields ride along ("harness": "python", rejections
        as per_kernel edge classes, the failure as first_mismatch). Only what merges is here (no verdict: merge
        keeps the first shard's other fields); "ok" is "no failure" (a shard that compared nothing still has
        cases_run 0, see docs/scaling.md)."""
        f = self.failure
        first = None
        if f is not None:
            first = {"case_index": f.case_index, "kind": f.kind, "detail": f.detail, "differing": f.differing,
                     "first": [str(lane) for lane in f.first], "minimal_case": describe(f.case),
                     "shrink_steps": f.shrink_steps, "behaves_like": list(f.behaves_like),
                     "behaviour": list(f.behaviour), "preconditions": list(f.preconditions),
                     "replay_dir": f.replay_dir, "replay_error": f.replay_error,
                     "replay": f"kvaddr replay {f.replay_dir}" if f.replay_dir else None}
        classes = {"rejected": self.rejected, **{f"rejected {k}": v for k, v in sorted(self.rejections.items())}}
        doc = {"schema": "kvaddr.diff/1", "harness": "python", "seed": self.seed, "campaign": dict(self.campaign),
               "ok": self.failure is None, "skipped": False, "cases_run": self.cases,
               "lanes_translated": self.lanes, "lanes_compared": self.lanes, "model_lanes_compared": 0,
               "per_kernel": {self.route: {"cases": self.cases, "lanes": self.lanes, "edge_classes": classes}},
               "first_mismatch": first}
        if self.shard[1] > 1:
            doc["shard"] = {"index": self.shard[0], "count": self.shard[1]}
        return doc

    def __str__(self):
        head = (f"kvaddr.check {self.route} (variant {self.variant}, seed {self.seed}, {self.device}/{self.array}"
                f"{', graph' if self.graph else ''}{f' ({self.graph_loop} loop)' if self.graph_loop else ''}, "
                f"reference {self.reference}): ")
        extra = []
        if self.rejections:
            extra.append(f"  {self.rejected} drawn cases the claimed contract rejects: "
                         + ", ".join(f"{k} {v}" for k, v in sorted(self.rejections.items())) + _rejected_share(self))
        if self.overflow.get("cases"):
            extra.append(overflow_line(self))
        if self.huge.get("ran"):
            extra.append(_above("huge_line")(self.huge))
        if self.contract:
            extra.append("  the wrapper's contract: " + ", ".join(f"{k} {'/'.join(v.values())}"
                                                                  for k, v in sorted(self.contract.items())))
        if self.graph_capture:
            extra.append(f"  graph mode {self.graph_capture}")
        if self.isolation_note:
            extra.append(f"  the kernel ran in this process: {self.isolation_note}")
        if self.ok:
            return "\n".join([head + f"OK: {self.cases} cases, {self.lanes} lanes checked in {self.seconds:.2f} s"]
                             + extra)
        f = self.failure
        if f is None:
            return "\n".join([head + self.verdict] + extra)
        lines = [head + f"FAILED at case {f.case_index}: {f.kind}" + (f" ({f.detail})" if f.detail else "")]
        lines.append(f"  minimal case after {f.shrink_steps} shrink steps: {describe(f.case)}")
        if f.first:
            lines.append(f"  {f.differing} lanes differ; first:")
            lines += [f"    {lane}" for lane in f.first]
        lines += [f"  precondition broken at {p}" for p in f.preconditions]
        lines += [f"  {b}" for b in f.behaviour]
        if f.behaves_like:
            lines.append("  behaves like " + ", ".join(f.behaves_like))
        elif f.inferred:
            lines += [f"  inferred: {line}" for line in f.inferred]
        elif f.kind in ("mismatch", "out_of_bounds") and not f.behaviour:  # a behaviour line explains it
            lines.append("  behaves like no catalogue variant" + (f"; {f.not_explained}" if f.not_explained else ""))
        if f.replay_dir:
            lines.append(f"  replay: {f.replay_dir}  (kvaddr replay {f.replay_dir})")
            lines.append("  pytest:\n" + "\n".join("    " + s for s in f.snippet.splitlines()))
        elif f.replay_error:
            lines.append(f"  replay: not written ({f.replay_error})")
        if self.interrupted:
            lines.append(f"  {self.verdict}")
        return "\n".join(lines + extra)


def describe(case):
    parts = [f"{k}={v}" for k, v in case.scalars.items()]
    for k, v in case.inputs.items():
        if v is None:
            continue
        if v.size <= 16:
            parts.append(f"{k}={v.tolist()}")
        else:
            parts.append(f"{k}: shape {tuple(v.shape)}")
    for k, v in case.outputs.items():
        width = f" (visible width {case.widths[k]})" if k in case.widths else ""
        parts.append(f"{k}: shape {tuple(v.shape)}{width}")
    if case.strided:
        parts.append("strided " + ",".join(case.strided))
    if case.alias:
        at = f" at element {case.alias[2]}" if len(case.alias) > 2 and case.alias[2] else ""
        parts.append(f"{case.alias[0]} aliases {case.alias[1]}{at}")
    if case.adjacent:
        parts.append(adjacent.describe(case))
    return ", ".join(parts)
