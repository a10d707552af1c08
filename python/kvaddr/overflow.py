"""Cases past an int32 precondition: the claimed reference raises Overflow (a table entry v2p[p] * M >= 2^31,
prefix sums cu_seqlens_k past int32), so the contract does not admit them, yet GPU kernels run them and
store something. kvaddr.check(..., overflow=) decides what happens to them:

* "observe" (default): run the kernel and compare it with the claimed variant plus ``int32_wrap`` (int32
  stores keep their low 32 bits); the report counts how many such cases behaved like int32_wrap, raised, or
  differed (with the first one), and none of them is a failure.
* "wrap": the same comparison, but a differing case is a failure, explained against the wrap variant.
* "skip": not run (counted as rejected only).

Every such case is counted in ``report.rejected`` and by its reason in ``report.rejections``.
"""
from __future__ import annotations

from . import _core
from .conventions import reference, wrap_variant

MODES = ("observe", "wrap", "skip")


def reason(err):
    """A grouping key for a contract rejection: the error class and the argument it names."""
    msg = str(err)
    arg = msg.split(" = ", 1)[0] if " = " in msg else msg.split(":", 1)[0]
    return f"{type(err).__name__}({arg.strip()})"


def note_rejected(rep, err):
    rep.rejected += 1
    key = reason(err)
    rep.rejections[key] = rep.rejections.get(key, 0) + 1


def check_mode(overflow):
    if overflow not in MODES:
        raise ValueError(f"overflow = {overflow!r}: must be one of {', '.join(MODES)}")
    return overflow


def overflow_case(rep, fam, kernel, index, recipe, case, variant, err, case_timeout, mode, run_case):
    """Handle one case whose claimed reference raised Overflow `err`; returns a failure tuple
    (index, recipe, result, variant) in "wrap" mode when the kernel differs, else None. run_case is
    kvaddr.harness.run_case (the harness, a layer above, passes it)."""
    note_rejected(rep, err)
    wrap = wrap_variant(case.route, variant)
    if mode == "skip" or wrap is None:
        return None
    try:
        expected = reference(case, wrap)
    except _core.Error:
        return None  # outside the wrap variant's contract too
    res = run_case(fam, kernel, case, expected, case_timeout=case_timeout, variant=wrap)
    rep.kernel_seconds += res.kernel_seconds
    o = rep.overflow
    o["cases"] = o.get("cases", 0) + 1
    o["variant"] = wrap
    if res.kind == "ok":
        o["behaves_like_wrap"] = o.get("behaves_like_wrap", 0) + 1
        o["lanes"] = o.get("lanes", 0) + res.lanes
        return None
    if mode == "wrap":
        return index, recipe, res, wrap
    key = "raised" if res.kind == "raised" else "differs"
    o[key] = o.get(key, 0) + 1
    if "first" not in o:
        o["first"] = {"case_index": index, "kind": res.kind, "reason": str(err),
                      "detail": res.detail or (str(res.first[0]) if res.first else "")}
    return None


def describe(rep):
    """The report line for the overflow cases ('' when there were none)."""
    o = rep.overflow
    if not o.get("cases"):
        return ""
    parts = [f"behaves like {o['variant']} in {o.get('behaves_like_wrap', 0)}"]
    if o.get("raised"):
        parts.append(f"raised in {o['raised']}")
    if o.get("differs"):
        parts.append(f"differs in {o['differs']}")
    line = (f"  {o['cases']} cases past an int32 output range (the claimed reference raises Overflow; not failures): "
            + ", ".join(parts))
    f = o.get("first")
    if f:
        line += f"; first other at case {f['case_index']} ({f['reason']}): {f['kind']}: {f['detail']}"
    return line
