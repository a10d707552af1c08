"""kvaddr.check: differential testing of an engine's own kernel against kvaddr's host routes.

    report = kvaddr.check("read_table", my_kernel, cases=200, seed=1, device="cuda")
    assert report.ok, report

Per case: draw a seeded case (kvaddr.cases), present its arrays to the kernel in the route's production
calling convention (kvaddr.conventions; outputs are views into buffers with guard regions before and
after, prefilled with a sentinel pattern), call ``kernel(**kwargs)``, compute the reference for the same inputs
(on CUDA: kvaddr's own CUDA kernel on device copies, compared on the device, kvaddr.device_ref; in the batched
eager loop under reference="auto" the host route's outputs staged on the device, compared there; on the CPU or
without kvaddr._gpu: the host route), and compare every lane of every output buffer, guards included. The first failing case
is shrunk, named by the catalogue variants that reproduce it, and written as a replay directory.
"""
from __future__ import annotations

import dataclasses
import sys
import time
import traceback

import numpy as np

from . import _core
from . import cases as C
from . import adjacent
from . import check_args
from . import contract as contracts
from . import isolate as iso
from .device_ref import BATCH, CallTimes, Counts, DeviceExpected, ReferenceDisagreement, assert_agree  # noqa: F401
from .device_ref import resolve as resolve_reference
from .arrays import family, host_copy  # noqa: F401 - family: kvaddr.harness.family, used by tests
from .conventions import FRESH_RETURN_ROUTES, broken_preconditions, guarded_inputs, output_dtypes, reference, wrap_variant
from .overflow import check_mode as check_overflow_mode
from .route_tables import has_variant
from .overflow import note_rejected, overflow_case
from .shrink import shrink_recipe

# The results (Lane from kvaddr.buffers, CaseResult, Failure, Report) live in kvaddr.report, with the registry
# (register / _above) through which graph mode, the huge case and replay directories, the layers above this
# module, hand check() their entry points.
from .report import FAILURE_KINDS, CaseResult, Failure, Lane, Report, _above, describe, register  # noqa: E402,F401


# ---- presenting a case: kvaddr.present (re-exported here) -------------------------------------
from .present import STRIDE_PAD, Arena, Presented, guarded, spread, strided_view  # noqa: E402,F401


def _lanes_differing(name, case, exp, got):
    """(lanes differing, whether one lies outside the visible lanes, the first 8 as Lanes) of output `name`'s
    guarded backing: the C++ harness's comparison (kvaddr._core.compare_guarded, kvaddr/harness/compare.hpp)."""
    count, outside, first = _core.compare_guarded(name, exp, got, case.outputs[name].shape, case.widths.get(name),
                                                  guard=C.GUARD)
    return count, outside, [Lane(name, idx, region, e, a) for region, idx, e, a in first]


def _check_return(ret, p, result):
    """Accept None, the output buffer(s) themselves, or arrays of exactly the outputs' dtype and shape."""
    if ret is None:
        return None
    names = list(p.case.outputs)
    try:  # a dict / tuple / list subclass of the kernel's may raise from its own methods
        if isinstance(ret, dict):
            items = dict(ret)
        elif isinstance(ret, (tuple, list)):
            items = dict(zip(names, ret))
            if len(ret) != len(names):
                return f"returned {len(ret)} values, the route has {len(names)} outputs ({', '.join(names)})"
        else:
            items = {names[0]: ret}
    except Exception as e:  # noqa: BLE001 - a return that cannot be unpacked is reported, not raised
        return f"returned a {type(ret).__name__} that cannot be unpacked ({type(e).__name__}: {e})"
    copies = {}
    dtypes = output_dtypes(p.case.route)
    for name, val in items.items():
        if name not in p.outs:
            return f"returned an unknown output {name!r}"
        if val is None:
            continue
        try:  # both may convert `val` (np.shares_memory calls its __array__), which may raise
            if p.fam.same_buffer(p.outs[name], val):
                continue
            host = host_copy(val)
        except Exception as e:  # noqa: BLE001 - a non-array return is reported, not raised
            return f"returned {type(val).__name__} for {name}: not an array ({type(e).__name__}: {e})"
        want = tuple(p.outs[name].shape)
        if host.dtype != dtypes[name] or tuple(host.shape) != want:
            return f"returned {name} as {host.dtype}{list(host.shape)}, expected {dtypes[name]}{list(want)}"
        copies[name] = host
    result.returned = copies
    return None


def run_case(fam, kernel, case, expected, *, case_timeout=None, presented=None, launch=None, reference="host",
             variant="production"):
    """Run the kernel on one case and compare every lane with `expected` (the host reference outputs).

    reference="cuda": the expectation is kvaddr's CUDA kernel under `variant`, run on device copies before the
    kernel under test, and the comparison of the outputs (guards included) and of the inputs runs on the
    device; only when something differs are the buffers copied back and compared on the host (for the
    report). "both": the same, after checking that the device expectation equals `expected`."""
    p = presented if presented is not None else Presented(fam, case)
    result = _fresh_result(case)
    dev = None
    if reference in ("cuda", "both"):
        dev = DeviceExpected(fam, case, p, variant)
        if reference == "both":
            assert_agree(case, variant, expected, dev)
    ret, done = _call(fam, kernel, case, p, result, launch, case_timeout)
    return result if done else _judge(fam, case, p, expected, result, ret, dev, variant)


def _fresh_result(case):
    result = CaseResult("ok", lanes=C.lanes_of(case))
    result.returned, result.backing = {}, {}
    return result


def _call(fam, kernel, case, p, result, launch=None, case_timeout=None, wait=True):
    """Call the kernel on presented case `p` (then fam.sync() when `wait`): (its return value, whether `result` is
    final: a fault, a raise or a timeout recorded in it). kernel_seconds is the call's (and the wait's) host time."""
    t0 = time.perf_counter()
    try:
        ret = launch() if launch is not None else kernel(**p.kwargs())
        if wait:
            fam.sync()
    except iso.KernelFault as e:  # the isolated call ended in a fault, a timeout, a raise or a wild store
        result.kind, result.detail, result.traceback = e.kind, e.detail, e.tb
        result.first = [Lane(*lane) for lane in e.lanes]
        result.differing = len(e.lanes)
        for name, buf in case.outputs.items():  # what the call left in the buffers (written back when it returned)
            if name in p.out_backing:
                result.backing[name] = got = fam.get(p.out_backing[name])
                result.actual[name] = got[C.GUARD:C.GUARD + buf.size].reshape(buf.shape).copy()
        return None, True
    except Exception as e:  # noqa: BLE001 - the kernel's failure is the report, not a crash
        _raised(result, e)
        return None, True
    result.kernel_seconds = kernel.seconds if isinstance(kernel, iso.Isolated) else time.perf_counter() - t0
    if case_timeout is not None and result.kernel_seconds > case_timeout:
        result.kind, result.detail = "timeout", f"the call took {result.kernel_seconds:.3f} s > {case_timeout} s"
        return None, True
    return ret, False


def _raised(result, e):
    """Record exception `e` (being handled) as the kernel's "raised" result."""
    result.kind = "raised"
    result.detail = f"{type(e).__name__}: {iso.exception_text(e)}"
    result.traceback = traceback.format_exc()


def _judge(fam, case, p, expected, result, ret, dev, variant):
    """The comparison of run_case after the call returned `ret`: every lane and guard of every output, then the
    inputs (on the device first when `dev`, a DeviceExpected, is given). An output the racing rows of the claimed
    `variant` can leave passes (kvaddr._core.race_allows, the C++ harness's and replay's race rule)."""
    bad = _check_return(ret, p, result)
    if bad:
        result.kind, result.detail = "bad_return", bad
        return result
    if dev is not None:
        if not result.returned:
            differ, name = dev.compare(p)
            if not differ:
                if name is not None:
                    result.kind, result.detail = "input_modified", f"the kernel wrote into its input {name}"
                return result
        expected = dev.host()  # something differs (or fresh arrays came back): the host path reports it
    oob = False
    grouped = adjacent.members(case)
    changed = []
    if grouped:
        oob, changed = _compare_group(fam, case, p, expected, result)
    for name, buf in case.outputs.items():
        if name in grouped:
            continue
        got = fam.get(p.out_backing[name])
        if name in result.returned and case.route not in FRESH_RETURN_ROUTES:
            before = guarded(buf)
            if np.array_equal(got, before) and not np.array_equal(guarded(expected[name]), before):
                result.kind = "not_written"
                result.detail = (f"the kernel returned a fresh {name} and left the {name} buffer it was given untouched: "
                                 f"{case.route} writes {name} in place (the engine reads the buffer it passed)")
                return result
        if name in result.returned:
            view = got[C.GUARD:C.GUARD + buf.size].reshape(buf.shape)
            if name in case.widths:
                view = view[:, :case.widths[name]]
            view[...] = result.returned[name]
        result.actual[name] = got[C.GUARD:C.GUARD + buf.size].reshape(buf.shape).copy()
        result.backing[name] = got
        count, outside, first = _lanes_differing(name, case, guarded(expected[name]), got)
        result.differing += count
        result.first += first
        oob = oob or outside
    if (result.differing and not (oob and grouped) and _core.races_on(case.route, variant)
            and _core.race_allows(case.route, variant, **_engine_case(case, result.actual, result))):
        result.differing, result.first = 0, []
    if result.differing:
        result.first = result.first[:8]
        result.kind = "out_of_bounds" if oob else "mismatch"
        into = sorted({(lane.output, lane.neighbour.split("[")[0]) for lane in result.first
                       if lane.region.startswith("neighbour_")})
        if into:
            result.detail = "; ".join(f"a store outside {o} landed in {n}, the input adjacent to it in one allocation "
                                      f"(or the kernel wrote into {n} there)" for o, n in into)
        return result
    if changed:
        result.kind, result.detail = "input_modified", f"the kernel wrote into its input {changed[0]}"
        result.first = [lane for lane in result.group_lanes if lane.region == "input"][:8]
        return result
    for name, arr in case.inputs.items():
        if arr is None or name not in p.in_backing:
            continue
        got = fam.get(p.in_backing[name])
        if name in case.strided:
            got = strided_view(got, arr)
        elif name in C.GUARDED_TABLES and arr.ndim == 1:
            arr = C.guarded_table(arr)[0]  # the table and the guard pages around it
        if not np.array_equal(got.reshape(arr.shape), arr):
            result.kind, result.detail = "input_modified", f"the kernel wrote into its input {name}"
            return result
    return result


def _compare_group(fam, case, p, expected, result):
    """The whole backing of an adjacent layout against the expected one (the expected outputs and the inputs'
    values in the same layout): fills result.actual for the grouped outputs (kernel-returned arrays written in
    first) and the differing lanes; returns (out_of_bounds, inputs written away from every output)."""
    got = fam.get(p.group)
    result.group_backing = got  # the whole allocation as the kernel left it (kvaddr.record writes it)
    mine = adjacent.views(None, got, case)
    for name in adjacent.members(case):
        if name in result.returned:
            v = mine[name]
            (v[:, :case.widths[name]] if name in case.widths else v)[...] = result.returned[name]
        if name in case.outputs:
            result.actual[name] = mine[name].copy()
    exp = adjacent.host_backing(case, outputs=expected)
    lanes, count, oob, changed = adjacent.attribute(case, exp, got)
    result.group_lanes = lanes
    result.differing += count
    result.first += [lane for lane in lanes if lane.region != "input"]
    return oob, changed


def behaves_like(case, actual, claimed, result=None):
    """Every variant the route accepts (other than `claimed`) whose host output reproduces the kernel's `actual`
    outputs, exactly or as one its racing rows can leave: kvaddr._core.name_case, the C++ harness's naming engine,
    which decides the forms itself (nothing where `actual` is the claimed variant's and the guards are intact; the
    buffers grown by their after-guard rows where `result` holds the guarded backings)."""
    check_args.case(case)
    if not has_variant(case.route):
        return []
    return _core.name_case(case.route, claimed, **_engine_case(case, actual, result))


def _engine_case(case, actual, result=None):
    """The arguments of kvaddr._core.name_case / race_allows for `case` and the kernel's `actual` outputs: the inputs
    (the v2p tables inside their guard pages), the guarded backings before and after the call where `result` has
    them, and for a layout with no C++ form (adjacent or aliased arguments) its own reference."""
    backings = {k: (guarded(case.outputs[k]), b) for k, b in (result.backing if result is not None else {}).items()}
    return dict(inputs=guarded_inputs(case.inputs), scalars=dict(case.scalars), outputs=dict(case.outputs),
                actual=dict(actual), backings=backings, reference=_own_reference(case, table_guards=True))


def _own_reference(case, table_guards=False):
    """For a layout with no C++ form (adjacent or aliased arguments): the engine's reference(variant, outputs), the
    host route on `case` with those output buffers, laid out as the kernel got it, None where the route rejects the
    call; else None."""
    if not (case.adjacent or case.alias):
        return None

    def own(v, outputs):
        try:
            return reference(dataclasses.replace(case, outputs=outputs), v, table_guards=table_guards)
        except _core.Error:
            return None

    return own


# ---- check -------------------------------------------------------------------------------------
def _build(route, recipe):
    """The Case of `recipe` (kvaddr.cases.build) in the call mode of its contract (kvaddr.contract.apply_mode)."""
    return contracts.apply_mode(C.build(route, recipe), recipe.get("contract"))


def shard_indices(shard, cases, start=0):
    """The case indices k of range(start, cases) that shard (i, n) runs: those with k % n == i, ascending, as a
    range (the one partition of a campaign's cases: eager mode, and graph mode's replays from start=1 after the
    capture case 0, which shard 0 owns)."""
    i, n = shard
    first = start + (i - start) % n
    return range(first, max(first, int(cases)), n)


def check(route, kernel, *, cases=100, seed=0, device="cpu", array=None, variant="production", params=None,
          lanes=4096, time_budget=None, lanes_budget=None, case_timeout=None, shrink=True, shrink_seconds=30.0,
          replay_dir=None, graph=False, name=None, shard=(0, 1), overflow="observe", reference="auto", huge=None,
          isolate="auto", contract=None, mode=None):
    """Differentially test `kernel` on `route` (see docs/harness.md); returns a Report (never raises for
    a failing kernel). shard=(i, n) runs only the case indices k in range(cases) with k % n == i (the
    union of the n shards is the unsharded campaign, in graph mode too; docs/scaling.md). Every argument
    is checked before anything runs (kvaddr.check_args): a bad one is kvaddr.InvalidArgument naming it. mode=
    draws every case in an upstream call mode (kvaddr.contract.MODES: "static", "canonical_source",
    "swa_token_map"). isolate="auto" runs the kernel in a worker process wherever it can (kvaddr.isolate);
    KeyboardInterrupt / SystemExit raised by the kernel print the report so far to stderr, attach it as the
    exception's `kvaddr_report`, and propagate."""
    a = check_args.check_arguments(cases=cases, seed=seed, lanes=lanes, time_budget=time_budget,
                                   lanes_budget=lanes_budget, case_timeout=case_timeout, shrink=shrink,
                                   shrink_seconds=shrink_seconds, replay_dir=replay_dir, name=name,
                                   huge=huge, shard_=shard, kernel=kernel)
    cases, seed, lanes, shard = a["cases"], a["seed"], a["lanes"], a["shard"]
    time_budget, lanes_budget, case_timeout = a["time_budget"], a["lanes_budget"], a["case_timeout"]
    check_args.typed(check_overflow_mode, overflow)
    route = check_args.route(route)
    check_args.variant(route, variant)  # a route without variants accepts "production" only
    check_args.params(route, params, mode)
    if params is not None and "contract" in params:
        raise check_args.invalid("params", repr(params), "the wrapper's contract is the argument contract=")
    wrapper = contracts.Contract.of(route, contract, mode)
    if isinstance(graph, bool) is False and graph not in ("fast", "slow"):
        raise check_args.invalid("graph", repr(graph), "must be False, True, 'fast' or 'slow'")
    if mode is not None and graph:
        raise check_args.invalid("mode", repr(mode), "graph mode captures the harness's dense call only")
    if mode is not None and huge:
        raise check_args.invalid("mode", repr(mode), "the huge case is drawn in the dense call only (huge=True)")
    if mode is not None and reference in ("cuda", "both"):
        raise check_args.invalid("reference", repr(reference), f"mode = {mode!r}: a call mode is checked against "
                                 "the host route (kvaddr's CUDA reference runs the harness's dense call)")
    if mode is not None:
        huge, reference = False, "host"
    if wrapper is not None:
        params = {**(params or {}), "contract": wrapper}
    fam = check_args.family(device, array)
    rep = Report(route, seed, variant, device, fam.name, bool(graph), shard=shard,
                 reference=check_args.typed(resolve_reference, reference, fam))
    check_args.runnable(fam, rep.reference, graph, huge)  # graph / huge=True that cannot run here: before any case
    rep.contract = contracts.as_dict(wrapper)
    rep.campaign = {"route": route, "variant": variant, "cases": cases, "lanes": lanes, "device": device,
                    "array": fam.name, "reference": rep.reference, "overflow": overflow, "graph": graph,
                    "lanes_budget": lanes_budget, "time_budget": time_budget, "contract": rep.contract, "mode": mode,
                    "params": {k: v.item() if hasattr(v, "item") else v for k, v in sorted((params or {}).items())
                               if k != "contract"}}
    method, rep.isolation_note = iso.resolve(isolate, fam, kernel, graph)
    run = kernel
    if method is not None:
        run = iso.Isolated(kernel, method, output_dtypes(route), case_timeout)
        rep.isolation = method
    t_start = time.perf_counter()
    try:
        _campaign(rep, fam, run, kernel, route, cases, seed, variant, params, lanes, time_budget, lanes_budget,
                  case_timeout, shard, overflow, graph, huge, shrink, a["shrink_seconds"], replay_dir, name, t_start,
                  host_expected=reference == "auto")
    except (KeyboardInterrupt, SystemExit) as e:
        rep.seconds = time.perf_counter() - t_start
        rep.interrupted = f"{type(e).__name__}: {e}" if str(e) else type(e).__name__
        print(str(rep), file=sys.stderr)
        e.kvaddr_report = rep
        raise
    finally:
        if run is not kernel:
            run.close()
    return rep


def _campaign(rep, fam, run, kernel, route, cases, seed, variant, params, lanes, time_budget, lanes_budget,
              case_timeout, shard, overflow, graph, huge, shrink, shrink_seconds, replay_dir, name, t_start,
              host_expected=False):
    """The cases, the huge case and the explanation of the first failure, recorded in `rep`. `run` is the kernel
    as called (kvaddr.isolate.Isolated when isolated); the huge case calls `kernel` in process. `host_expected`
    (reference="auto"): the batched eager loop stages the host reference's outputs as the expected allocations."""
    if graph:
        failing = _above("graph")(rep, fam, kernel, route, cases, seed, variant, params, lanes, time_budget,
                                   case_timeout, t_start, graph if isinstance(graph, str) else "auto", shard)
    else:
        failing = _run_eager_cases(rep, fam, run, route, cases, seed, variant, params, lanes, time_budget,
                                   lanes_budget, case_timeout, t_start, shard, overflow, host_expected)
    if failing is None and not graph:
        failing = _above("huge")(rep, fam, kernel, route, seed, variant, huge, cases=int(cases))
    rep.seconds = time.perf_counter() - t_start
    if failing is not None and failing[0] == "huge":  # not shrunk: its arrays live on the device only
        _, case, result = failing
        rep.failure = Failure(result.kind, -1, result.detail, result.first, result.differing, case, {}, case.sizes(),
                              0, [], None, "", inferred=list(rep.huge.get("inferred", [])),  # kvaddr.huge's re-run
                              not_explained=rep.huge.get("not_explained", ""))
    elif failing is not None:
        index, recipe, result = failing[:3]
        if len(failing) > 3:  # an overflow case under overflow="wrap": explained against the wrap variant
            variant = failing[3]
        rep.failure = _explain(fam, run, route, variant, index, recipe, result, shrink, shrink_seconds, replay_dir,
                               case_timeout, name, seed, graph)


def _run_eager_cases(rep, fam, kernel, route, cases, seed, variant, params, lanes, time_budget, lanes_budget,
                     case_timeout, t0, shard=(0, 1), overflow="observe", host_expected=False):
    """The eager campaign: case by case (run_recipe), or batched (_EagerBatch) where it applies; the same cases,
    counts and first failure either way."""
    batch = (_EagerBatch(rep, fam, kernel, variant, overflow, host_expected)
             if _EagerBatch.applies(rep, fam, kernel, case_timeout) else None)
    first = True
    try:
        for i in shard_indices(shard, cases):
            if time_budget is not None and not first and time.perf_counter() - t0 > time_budget:
                break
            if lanes_budget is not None and rep.lanes + (batch.lanes if batch else 0) >= lanes_budget:
                break
            first = False
            recipe = C.draw_recipe(route, C.rng_for(seed, i), lanes, params)
            if batch is not None:
                failed = batch.add(i, recipe)
            else:
                failed = run_recipe(rep, fam, kernel, i, recipe, variant, case_timeout, overflow)
            if failed is not None:
                return failed
        return batch.flush() if batch is not None else None
    finally:
        if batch is not None and batch.arena is not None:
            batch.arena.close()


class _EagerBatch:
    """The batched eager loop (the reference resolved to "cuda", torch on CUDA, the kernel in process, no
    case_timeout): per case
    the draw, the build, the host reference (the verdict), the presentation and its twins staged in the arena
    (under reference="auto", `host_expected`, the output twins staged holding the host reference's outputs, with no
    launch; under "cuda", kvaddr's CUDA reference writes them), the kernel's call, as run_case, between two CUDA
    events (CallTimes: its device time, read at the wait, rep.kernel_device_seconds); then, instead of a
    wait and the comparison, one
    device kernel (device_ref.Counts) adds the case's differing elements of every allocation to its slot. One wait
    per BATCH cases reads the counts; in case order a nonzero one goes through _judge on its kept buffers, and the
    first failing case ends the campaign, as case by case. A case the filter cannot take (a returned array, a
    raise, an allocation without a twin) and an overflow case that runs the kernel ("observe" / "wrap") run on the
    per-case path, after the cases before them are settled."""

    @staticmethod
    def applies(rep, fam, kernel, case_timeout):
        return (rep.reference == "cuda" and fam.name == "torch" and fam.device != "cpu" and case_timeout is None
                and not isinstance(kernel, iso.Isolated) and Counts.available())

    def __init__(self, rep, fam, kernel, variant, overflow, host_expected=False):
        self.rep, self.fam, self.kernel, self.variant, self.overflow = rep, fam, kernel, variant, overflow
        self.host_expected = host_expected  # stage the host reference's outputs as the expectation (no launch)
        self.counts = Counts(getattr(fam, "torch", None), fam.device)
        self.times = CallTimes(getattr(fam, "torch", None))  # the device time of each batched case's kernel call
        self.arena = Arena(fam) if fam.name == "torch" and fam.device != "cpu" else None  # the cases' staging memory
        # pending: in case order ("case", index, recipe, case, presented, dev, result, expected) or ("rejected",
        # error); slots: its cases (slots of self.counts); lanes: theirs (the lanes budget counts them as passing);
        # bytes: the device memory their kept allocations hold (each backing and its twin)
        self.pending, self.slots, self.lanes, self.bytes = [], 0, 0, 0

    def add(self, index, recipe):
        """Run case `index` of `recipe`; a failure tuple when it (or a pending case settled now) fails, else None."""
        rep, fam, variant = self.rep, self.fam, self.variant
        case = _build(rep.route, recipe)
        try:
            expected = reference(case, variant, table_guards=True)
        except _core.Overflow as e:
            if self.overflow in (None, "skip") or wrap_variant(rep.route, variant) is None:  # not run: noted in order
                self.pending.append(("rejected", e))
                return None
            return self.flush() or overflow_case(rep, fam, self.kernel, index, recipe, case, variant, e, None,
                                                 self.overflow, run_case)
        except _core.Error as e:
            self.pending.append(("rejected", e))
            return None
        staged = expected if self.host_expected else None
        p = Presented(fam, case, twins=True, arena=self.arena, expected=staged)
        result = _fresh_result(case)
        dev = DeviceExpected(fam, case, p, variant, self.counts.stream, expected=staged)
        self.times.start(self.slots)
        ret, done = _call(fam, self.kernel, case, p, result, wait=False)
        self.times.stop(self.slots)
        pairs = None if done or ret is not None else dev.batch_pairs(p)
        if pairs is None:  # settled on the per-case path, after the pending cases before it
            failed = self.flush()
            if failed is not None:
                return failed
            if not done:
                try:
                    fam.sync()  # run_case's wait after the call
                except Exception as e:  # noqa: BLE001 - the kernel's failure is the report, not a crash
                    _raised(result, e)
                    done = True
            return _tally(rep, index, recipe, result if done else _judge(fam, case, p, expected, result, ret, dev, variant))
        self.counts.add(pairs, self.slots)  # on the current stream, after the kernel's call
        self.pending.append(("case", index, recipe, case, p, dev, result, expected))
        self.slots += 1
        self.lanes += result.lanes
        self.bytes += 2 * p.nbytes  # the backings and their twins
        return self.flush() if self.slots == BATCH or self.bytes >= PENDING_BYTES else None

    def flush(self):
        """Wait once, read the counts and settle the pending cases in order; the first failure tuple or None."""
        pending, self.pending, slots, self.slots, self.lanes, self.bytes = self.pending, [], self.slots, 0, 0, 0
        try:
            counts = self.counts.read() if slots else []
            if slots and self.arena is not None:
                self.arena.release()  # the wait above: the device has run every staged copy and every kernel
            times = self.times.seconds(slots)
        except Exception as e:  # noqa: BLE001 - an asynchronous device error of a kernel call surfaced at the wait
            counts, error = None, e
            err_text = traceback.format_exc()
        j = 0
        for item in pending:
            if item[0] == "rejected":
                note_rejected(self.rep, item[1])
                continue
            _, index, recipe, case, p, dev, result, expected = item
            if counts is None:  # not attributable to one call: the batch's first unsettled case reports it
                result.kind = "raised"
                result.detail = (f"{type(error).__name__}: {iso.exception_text(error)} (raised by the wait after "
                                 f"a batch of {slots} calls, this case's the first; rerun with isolate=True to "
                                 "attribute it)")
                result.traceback = err_text
            else:
                self.rep.kernel_device_seconds += times[j]
                if counts[j]:
                    result = _judge(self.fam, case, p, expected, result, None, dev, self.variant)
            j += 1
            failed = _tally(self.rep, index, recipe, result)
            if failed is not None:
                return failed
        return None


PENDING_BYTES = 1 << 30  # a batch is settled early once its kept device allocations reach this (large cases)


def _tally(rep, index, recipe, res):
    """Count case `index`'s result in `rep`: (index, recipe, res) when it failed, else None."""
    rep.cases += 1
    rep.kernel_seconds += res.kernel_seconds
    if res.kind != "ok":
        return index, recipe, res
    rep.lanes += res.lanes
    return None


def run_recipe(rep, fam, kernel, index, recipe, variant, case_timeout, overflow="observe", presented=None,
               launch=None):
    """Case `index` of a campaign: build `recipe`, compute the reference under `variant`, run the kernel and
    count the case in `rep`. Returns (index, recipe, result[, variant]) when it fails, else None (passed, or
    rejected by the contract and noted in rep.rejections). A case past an int32 output is run as an overflow
    case (kvaddr.overflow) under an `overflow` mode, and counted as rejected with overflow=None. `presented`
    (pointer-stable buffers, graph mode) is loaded with the case, and `launch` replaces the kernel call."""
    case = _build(rep.route, recipe)
    try:
        expected = reference(case, variant, table_guards=True)  # reads before a table read the kernel's guards
    except _core.Overflow as e:
        if overflow is None:
            note_rejected(rep, e)
            return None
        return overflow_case(rep, fam, kernel, index, recipe, case, variant, e, case_timeout, overflow, run_case)
    except _core.Error as e:
        note_rejected(rep, e)
        return None
    if presented is not None:
        presented.load(case)
    res = run_case(fam, kernel, case, expected, case_timeout=case_timeout, presented=presented, launch=launch,
                   reference=rep.reference, variant=variant)
    return _tally(rep, index, recipe, res)


def _explain(fam, kernel, route, variant, index, recipe, result, shrink, shrink_seconds, replay_dir, case_timeout,
             name, seed, graph):
    original = _build(route, recipe).sizes()
    steps = 0
    # a timeout is shrunk only where the worker is killed at case_timeout (isolated): in process each attempt
    # would wait for the hung call
    if shrink and not graph and (result.kind != "timeout" or isinstance(kernel, iso.Isolated)):
        names0 = set(_names(_build(route, recipe), result, variant))
        # a store that landed in an adjacent argument keeps landing in one (the minimal case shows the layout)
        neighbour0 = _neighbours(result)

        def still_fails(r):
            case = _build(route, r)
            try:
                exp = reference(case, variant, table_guards=True)
            except _core.Error:
                return None
            res = run_case(fam, kernel, case, exp, case_timeout=case_timeout, variant=variant)
            if res.kind != result.kind:
                return None
            if neighbour0 and not _neighbours(res):
                return None
            if names0 and not names0.intersection(_names(case, res, variant)):
                return None  # keep the catalogue name the original case had
            return res

        recipe, result, steps = shrink_recipe(route, recipe, result, still_fails, shrink_seconds)
    case = _build(route, recipe)
    named = _names(case, result, variant)

    def rerun(c):
        try:
            return run_case(fam, kernel, c, reference(c, variant, table_guards=True), case_timeout=case_timeout,
                            variant=variant)
        except _core.Error:
            return None

    behaviour = contracts.strided_behaviour(case, rerun) if not graph else []
    out_dir, snippet, replay_error = None, "", None
    if replay_dir is not None:
        try:
            out_dir = _above("write_case")(replay_dir, case, result, variant, seed, index, name, graph)
            snippet = pytest_snippet(out_dir, route, seed, index, fam)
        except (OSError, ValueError) as e:  # the harness's own I/O: the failure stands without its directory
            replay_error = f"{type(e).__name__}: {e}"
    inferred, not_explained = [], ""
    if not named and not behaviour and result.kind in ("mismatch", "out_of_bounds"):
        named, inferred, not_explained = _inferred(case, result, variant, seed, index, graph, out_dir)
    return Failure(result.kind, index, result.detail, result.first, result.differing, case, recipe, original, steps,
                   named, out_dir, snippet, broken_preconditions(case), replay_error, behaviour, inferred, not_explained)


def _inferred(case, result, variant, seed, index, graph, out_dir):
    """What kvaddr's replay makes of a failing case no catalogue variant names here (issue 33): the case is
    recorded (in out_dir, else a temporary directory) with its guarded backings and replayed through
    _core.replay, whose search runs even when the claimed variant raises and whose inference confirms each
    explanation by re-execution. Returns (variants the replay names, inferred lines, why nothing is)."""
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        try:
            d = out_dir or _above("write_case")(tmp, case, result, variant, seed, index, None, graph)
        except (OSError, ValueError):  # the harness's own I/O: nothing to replay
            return [], [], ""
        call = _core.replay(d, allow_outside=False)["calls"][0]
    named = [v for v in call.get("matching_variants", []) if v != variant]
    lines = [f"{i['description']} (claim {i['variant']}; reproduces every recorded lane)" for i in call.get("inferred", [])]
    return named, lines, call.get("not_explained", "")



def pytest_snippet(out_dir, route, seed, index, fam):
    """A pytest regression test replaying the recorded case on the device and array library of the run."""
    return (f"def test_{route}_seed{seed}_case{index}():  # kvaddr.check regression\n"
            f"    import kvaddr\n"
            f"    from my_kernels import my_kernel  # the kernel under test\n"
            f"    kvaddr.assert_replay(my_kernel, {str(out_dir)!r}, device={str(fam.device)!r}, array={fam.name!r})\n")

def _neighbours(result):
    """The adjacent arguments a result's first lanes landed in (kvaddr.adjacent), as a set of names."""
    return {lane.neighbour.split("[")[0] for lane in result.first if lane.region.startswith("neighbour_")}


def _names(case, result, variant):
    """The variants reproducing a wrong output (none for non-output failures; the engine decides the rest)."""
    if result.kind == "raised":
        return crash_variants(case, variant)
    if result.kind not in ("mismatch", "out_of_bounds") or set(result.actual) != set(case.outputs):
        return []  # an isolated call that faulted has no outputs to name
    return behaves_like(case, result.actual, variant, result)


def crash_variants(case, claimed):
    """The catalogue variants whose documented effect is a crash (kvaddr._core.crash_variants, the C++ harness's
    list) and whose host route raises on `case`, where the claimed variant's does not: a raising kernel behaves
    like them (kvaddr._core.crash_names runs each one's reference; an adjacent or aliased layout hands in its own)."""
    return _core.crash_names(case.route, claimed, inputs=case.inputs, scalars=dict(case.scalars),
                             outputs=dict(case.outputs), reference=_own_reference(case))


class CheckFailed(AssertionError):
    """Raised by assert_check / assert_replay; str() is the report."""

    def __init__(self, report):
        super().__init__(str(report))
        self.report = report


def assert_check(route, kernel, **kw):
    """kvaddr.check that raises CheckFailed (an AssertionError) with the report on failure; returns the report."""
    rep = check(route, kernel, **kw)
    if not rep.ok:
        raise CheckFailed(rep)
    return rep


def check_case(kernel, case, *, device="cpu", array=None, variant="production", case_timeout=None, isolate="auto"):
    """Run `kernel` on one given Case (e.g. loaded from a replay directory) and compare; returns a CaseResult
    (kind "rejected", with the reason in detail and the kernel not called, when the contract rejects the case).
    isolate as for kvaddr.check (one worker for this call)."""
    check_args.case(case)
    if not callable(kernel):
        raise check_args.invalid("kernel", repr(kernel), "must be callable (called as kernel(**kwargs))")
    check_args.variant(case.route, variant)  # a route without variants accepts "production" only
    case_timeout = check_args.seconds("case_timeout", case_timeout)
    fam = check_args.family(device, array)
    try:
        expected = reference(case, variant, table_guards=True)
    except _core.Error as e:  # outside the contract under `variant`: not run
        return CaseResult("rejected", f"{type(e).__name__}: {e}")
    method, _ = iso.resolve(isolate, fam, kernel, False)
    run = kernel if method is None else iso.Isolated(kernel, method, output_dtypes(case.route), case_timeout)
    try:
        return run_case(fam, run, case, expected, case_timeout=case_timeout, variant=variant)
    finally:
        if run is not kernel:
            run.close()
