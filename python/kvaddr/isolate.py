"""kvaddr.check(..., isolate=): the kernel under test runs in a child process, so that nothing it does (a segfault,
an abort, a CUDA illegal address that poisons the context, a hang) takes the harness down with it.

`Isolated(kernel, ...)` is a stand-in for the kernel: called with the presented arrays (kvaddr.present), it ships
every allocation they view (the whole backing: guards, spread strides, aliased and adjacent layouts keep their
byte offsets) to a worker process, which rebuilds the same views inside guarded copies (kvaddr.guards: page-
protected pages on the CPU, wide pattern guards on the device), calls the real kernel, and ships the allocations
back; the parent writes them into its own arrays, so the harness compares, shrinks, names and records as in
process. What the worker reports instead of a return becomes a KernelFault the harness turns into a failure:

* ``raised``: the kernel raised (its traceback is kept);
* ``timeout``: no answer within ``case_timeout`` seconds of the call; the worker is killed;
* ``fault``: the worker died of a signal (SIGSEGV, SIGABRT, SIGBUS, ...) or the kernel left the CUDA context
  unusable; the next call starts a fresh worker;
* ``out_of_bounds``: a lane outside every allocation changed (a guard), named by the allocation's argument.
  On the CPU a store past the slack faults on a protected page; the call is then re-run once with the pages
  open to find the lanes (a re-run that stores nothing outside its buffers was a read past one: ``fault``).

Start methods: ``fork`` on the CPU (one worker per check, forked again after a death; the kernel needs no
pickling), ``spawn`` for CUDA (fork is unsafe once CUDA is initialised in the parent): the kernel is pickled by
reference (a module-level function, ``module:function``). KeyboardInterrupt / SystemExit raised by the kernel in
the worker are raised again in the parent."""
from __future__ import annotations

import multiprocessing
import pickle
import signal
import time
import traceback

import numpy as np

from . import guards
from .arrays import host_copy
from .cases import GUARD
from .gpu import invalid, is_torch

MODES = ("auto", True, False)


class KernelFault(Exception):
    """What an isolated call ended in instead of returning: kind (raised / timeout / fault / out_of_bounds),
    detail, lanes [(output, index tuple, region, expected, actual)] and the worker's traceback text."""

    def __init__(self, kind, detail, lanes=(), tb=""):
        super().__init__(detail)
        self.kind, self.detail, self.lanes, self.tb = kind, detail, list(lanes), tb


def resolve(isolate, fam, kernel, graph):
    """(start method or None, note): how `kernel` runs. "auto" isolates wherever it can (fork on the CPU, spawn
    on CUDA for a kernel picklable by reference) and says in the note why it runs in process where it cannot;
    True raises InvalidArgument where it cannot."""
    if isolate is not True and isolate is not False and isolate != "auto":
        raise invalid("isolate", repr(isolate), "must be 'auto', True or False")
    if isolate is False:
        return None, "isolate=False"
    why = None
    if graph:
        why = "graph mode captures the kernel in this process"
    elif fam.name == "cupy":
        why = "CuPy arrays are not shipped to a worker (use torch)"
    method = "fork" if fam.device == "cpu" and "fork" in multiprocessing.get_all_start_methods() else "spawn"
    if why is None and method == "spawn":
        try:
            pickle.dumps(kernel)
        except Exception as e:  # noqa: BLE001 - any pickling failure means: not importable by reference
            why = (f"the kernel cannot be pickled by reference ({type(e).__name__}: {e}); a spawned worker imports "
                   "it as module:function")
    if why is None:
        return method, ""
    if isolate is True:
        raise invalid("isolate", "True", why)
    return None, why


# ---- the parent's side ----------------------------------------------------------------------------
def _np_root(v):
    root = v
    while isinstance(root.base, np.ndarray):
        root = root.base
    if not root.flags.c_contiguous:
        return None, 0
    return root, v.__array_interface__["data"][0] - root.__array_interface__["data"][0]


class Isolated:
    """The kernel run in a worker process (see the module doc); call it as the kernel. `seconds` is the last
    call's time inside the worker."""

    def __init__(self, kernel, method, outputs, case_timeout=None):
        self.kernel, self.method, self.outputs, self.case_timeout = kernel, method, tuple(outputs), case_timeout
        self.proc = self.conn = None
        self.standby = None  # (proc, conn): the next spawned worker, started ahead (see _start)
        self.seconds = 0.0
        self.__name__ = getattr(kernel, "__name__", "kernel")

    # worker lifecycle
    def _spawn(self):
        ctx = multiprocessing.get_context(self.method)
        conn, child = ctx.Pipe()
        proc = ctx.Process(target=serve, args=(child, self.kernel), daemon=True, name="kvaddr-isolated-kernel")
        proc.start()
        child.close()
        return proc, conn

    def _start(self):
        if self.standby is not None and self.standby[0].is_alive():
            (self.proc, self.conn), self.standby = self.standby, None
        else:
            self._drop_standby()
            self.proc, self.conn = self._spawn()
        if self.method == "spawn":
            # A spawned worker takes seconds to start (the interpreter, the kernel's module, torch): the next one
            # starts now, so that the shrinker's attempts after a fault (each kills its worker) do not wait for it.
            self.standby = self._spawn()

    def _drop_standby(self):
        if self.standby is not None:
            proc, conn = self.standby
            self.standby = None
            if proc.is_alive():
                proc.kill()
            proc.join(5)
            conn.close()

    def _kill(self):
        if self.proc is not None:
            if self.proc.is_alive():
                self.proc.kill()
            self.proc.join(5)
            self.conn.close()
        self.proc = self.conn = None

    def close(self):
        if self.proc is not None and self.proc.is_alive():
            try:
                self.conn.send(("exit",))
            except OSError:
                pass
        self._kill()
        self._drop_standby()

    def __del__(self):
        try:
            self._kill()
            self._drop_standby()
        except Exception:  # noqa: BLE001 - interpreter shutdown
            pass

    def _death(self):
        self.proc.join(5)
        code = self.proc.exitcode
        self._kill()
        if code is not None and code < 0:
            try:
                name = signal.Signals(-code).name
            except ValueError:
                name = f"signal {-code}"
            return f"the kernel killed its process with {name} (signal {-code})", True
        return f"the kernel's process exited with status {code}", False

    def _exchange(self, msg):
        """Send one call, wait for 'calling' then the answer (case_timeout after 'calling'); returns the answer
        or raises KernelFault (timeout or the worker's death: ('died', detail, by_signal))."""
        if self.proc is None or not self.proc.is_alive():
            self._start()
        try:
            self.conn.send(msg)
            first = self.conn.recv()
            if first[0] != "calling":
                return first
            if self.case_timeout is not None and not self.conn.poll(self.case_timeout):
                self._kill()
                raise KernelFault("timeout", f"the call did not return within case_timeout = {self.case_timeout} s; "
                                             "its process was killed")
            return self.conn.recv()
        except (EOFError, ConnectionError, BrokenPipeError):
            return ("died",) + self._death()

    def __call__(self, **kw):
        roots, args, index = [], {}, {}
        for k, v in kw.items():
            if isinstance(v, np.ndarray):
                root, off = _np_root(v)
                key = ("np", id(root)) if root is not None else ("copy", k)
                if key not in index:
                    index[key] = len(roots)
                    src = root if root is not None else np.ascontiguousarray(v)
                    roots.append({"obj": root if root is not None else v, "kind": "np", "names": [],
                                  "bytes": src.reshape(-1).view(np.uint8).copy(), "itemsize": src.itemsize,
                                  "dtype": src.dtype.str, "shape": src.shape})
                args[k] = ("np", index[key], v.dtype.str, v.shape, v.strides if root is not None else None, off)
            elif is_torch(v):
                import torch

                st = _untyped_storage(v)
                key = ("torch", st.data_ptr())
                if key not in index:
                    index[key] = len(roots)
                    flat = torch.empty(0, dtype=torch.uint8, device=v.device).set_(st)
                    roots.append({"obj": flat, "kind": "torch", "names": [], "device": str(v.device),
                                  "bytes": flat.cpu().numpy().copy(), "itemsize": v.element_size()})
                args[k] = ("torch", index[key], str(v.dtype).split(".")[-1], tuple(v.shape), tuple(v.stride()),
                           v.storage_offset() * v.element_size())
            else:
                args[k] = ("value", v)
                continue
            roots[index[key]]["names"].append(k)
        payload = [{k: r.get(k) for k in ("kind", "bytes", "device", "dtype", "shape")} for r in roots]
        ans = self._exchange(("call", payload, args, False))
        if ans[0] == "died" and ans[2] and self.method == "fork":  # a signal: re-run with the guard pages open
            again = self._exchange(("call", payload, args, True))
            if again[0] == "done":
                self._write_back(roots, again[2])
                lanes = self._lanes(roots, again[3])
                if lanes:
                    raise KernelFault("out_of_bounds", f"{ans[1]} on a page-protected guard; re-run with the guard "
                                                       f"pages open, it stored past {lanes[0][0]}", lanes)
                raise KernelFault("fault", f"{ans[1]}; re-run once with the guard pages open, it completed and "
                                           "stored nothing outside its buffers: a read past a buffer (into a "
                                           "protected guard page), or a fault that does not repeat")
        return self._answer(ans, roots, kw)

    def _answer(self, ans, roots, kw):
        tag = ans[0]
        if tag == "died":
            raise KernelFault("fault", ans[1])
        if tag == "setup_error":
            self._kill()
            raise RuntimeError(f"kvaddr.isolate: the worker could not present the call (a kvaddr bug):\n{ans[1]}")
        if tag == "interrupt":
            raise {"KeyboardInterrupt": KeyboardInterrupt, "SystemExit": SystemExit}.get(ans[1], KeyboardInterrupt)(
                f"raised by the kernel: {ans[2]}")
        if tag == "raised":
            _, name, text, tb, dead = ans
            if dead:
                self._kill()
                raise KernelFault("fault", f"{name}: {text} (the CUDA context of the kernel's process is no longer "
                                           "usable)", tb=tb)
            raise KernelFault("raised", f"{name}: {text}", tb=tb)
        _, seconds, back, wild, ret = ans
        self.seconds = seconds
        self._write_back(roots, back)
        lanes = self._lanes(roots, wild)
        if lanes:
            side = "after" if lanes[0][2] == "guard_after" else "before"
            raise KernelFault("out_of_bounds", f"a store outside {lanes[0][0]} landed in the guard {side} its "
                                               "allocation", lanes)
        return _decode(ret, kw)

    @staticmethod
    def _write_back(roots, back):
        for r, b in zip(roots, back):
            if r["kind"] == "torch":
                import torch

                r["obj"].copy_(torch.from_numpy(b).to(r["obj"].device))
            elif r["obj"].flags.c_contiguous and r["obj"].nbytes == b.size:
                r["obj"].reshape(-1).view(np.uint8)[...] = b
            else:
                r["obj"][...] = b.view(r["obj"].dtype).reshape(r["obj"].shape)

    def _lanes(self, roots, wild):
        """The changed guard lanes as (argument, index, region, expected, actual), outputs named first; an index
        counts from the allocation's end (guard_after) or start (guard_before) past the harness's own guard."""
        out = []
        for r, (changed, before, after) in zip(roots, wild):
            if not changed:
                continue
            names = sorted(r["names"], key=lambda n: n not in self.outputs)
            size = r["itemsize"]
            own = GUARD if names[0] in self.outputs and r["bytes"].size >= 2 * GUARD * size else 0
            pattern = int.from_bytes(bytes([guards.FILL]) * size, "little", signed=True)
            for _, region, lane in guards.lanes(changed, size, names)[:8]:
                src, at = (after, lane * size) if region == "guard_after" else (before, before.size + lane * size)
                chunk = bytes(src[max(at, 0):at + size]).ljust(size, bytes([guards.FILL]))
                index = own + lane if region == "guard_after" else lane - own
                out.append((names[0], (index,), region, pattern, int.from_bytes(chunk, "little", signed=True)))
        return out


def _decode(ret, kw):
    tag = ret[0]
    if tag == "arg":
        return kw[ret[1]]
    if tag == "seq":
        items = [_decode(x, kw) for x in ret[1]]
        return tuple(items) if ret[2] is tuple else items
    if tag == "dict":
        return {k: _decode(v, kw) for k, v in ret[1].items()}
    return ret[1]


# ---- the worker's side ------------------------------------------------------------------------------
def serve(conn, kernel):
    """The worker loop: one ('call', roots, args, open_pages) at a time until ('exit',) or the pipe closes."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's: it reports, then kills the worker
    while True:
        try:
            msg = conn.recv()
        except (EOFError, OSError):
            return
        if msg[0] != "call":
            return
        try:
            bufs, kw = _present(*msg[1:])
        except Exception:  # noqa: BLE001 - kvaddr's own failure, not the kernel's: the parent raises it
            conn.send(("setup_error", traceback.format_exc()))
            return
        if not _one_call(conn, kernel, bufs, kw):
            return


def _present(payload, args, open_pages):
    """The guarded copies of the shipped allocations and the kernel's kwargs as views of them."""
    bufs, kw = [], {}
    torch = None
    for r in payload:
        if r["kind"] == "torch":
            import torch
        if r["kind"] == "torch" and r["device"] != "cpu":

            t, off = guards.device_guarded(torch, r["bytes"].size, r["device"])
            t[off:off + r["bytes"].size].copy_(torch.from_numpy(r["bytes"]).to(t.device))
            bufs.append(("device", t, off, r["bytes"].size))
        else:
            pb = guards.PagedBuffer(r["bytes"].size, open_pages)
            pb.data[...] = r["bytes"]
            # the allocation as the parent's array (its dtype and shape, its base the mapping): views of it
            # look like the parent's views of its backing (a kernel walking .base finds the allocation)
            root = pb.root(np.dtype(r["dtype"]), r["shape"]) if r["kind"] == "np" else None
            bufs.append(("host", pb, root))
    for k, a in args.items():
        if a[0] == "value":
            kw[k] = a[1]
        elif a[0] == "np":
            _, i, dt, shape, strides, off = a
            kw[k] = np.ndarray(shape, np.dtype(dt), buffer=bufs[i][2], offset=off, strides=strides)
        else:
            _, i, dt, shape, strides, off = a
            dtype = getattr(torch, dt)
            size = torch.empty(0, dtype=dtype).element_size()
            if bufs[i][0] == "device":
                base, start = bufs[i][1], bufs[i][2]
            else:
                base, start = torch.from_numpy(bufs[i][1].data), 0
            kw[k] = torch.empty(0, dtype=dtype, device=base.device).set_(_untyped_storage(base), (start + off) // size,
                                                                        shape, strides)
    return bufs, kw


def _untyped_storage(t):
    """The byte storage under torch tensor `t`: Tensor.untyped_storage() (torch 2), else storage().untyped()
    (torch 1.13, Debian 12's python3-torch, which has no untyped_storage)."""
    get = getattr(t, "untyped_storage", None)
    return get() if get is not None else t.storage().untyped()


def _one_call(conn, kernel, bufs, kw):
    torch = None
    on_device = any(b[0] == "device" for b in bufs)
    if on_device:
        import torch
    conn.send(("calling",))
    t0 = time.perf_counter()
    try:
        ret = kernel(**kw)
        if on_device:
            torch.cuda.synchronize()
        seconds = time.perf_counter() - t0
        back, wild = [], []
        for b in bufs:
            if b[0] == "device":
                t, off, n = b[1], b[2], b[3]
                back.append(t[off:off + n].cpu().numpy().copy())
                wild.append(guards.device_wild(torch, t, n))
            else:
                back.append(b[1].data.copy())
                wild.append(b[1].wild())
        enc = _encode(ret, kw)
    except (KeyboardInterrupt, SystemExit) as e:
        conn.send(("interrupt", type(e).__name__, exception_text(e)))
        return False
    except Exception as e:  # noqa: BLE001 - the kernel's exception is the answer
        dead = on_device and not _context_usable(torch)
        conn.send(("raised", type(e).__name__, exception_text(e), traceback.format_exc(), dead))
        return not dead
    conn.send(("done", seconds, back, wild, enc))
    return True


def exception_text(e):
    """str(e), or what can be said when str() itself raises."""
    try:
        return str(e)
    except Exception as inner:  # noqa: BLE001 - a hostile __str__
        return f"<str() of the exception raised {type(inner).__name__}>"


def _context_usable(torch):
    try:
        torch.cuda.synchronize()
        torch.zeros(1, device="cuda").add_(1).item()
        return True
    except Exception:  # noqa: BLE001 - a sticky CUDA error
        return False


def _encode(ret, kw):
    if ret is None:
        return ("value", None)
    for k, v in kw.items():
        if v is ret:
            return ("arg", k)
    if isinstance(ret, (tuple, list)):
        return ("seq", [_encode(x, kw) for x in ret], tuple if isinstance(ret, tuple) else list)
    if isinstance(ret, dict):
        return ("dict", {k: _encode(v, kw) for k, v in ret.items()})
    if isinstance(ret, np.ndarray) or is_torch(ret):
        for k, v in kw.items():  # a view of an argument's own buffer with its shape: that argument
            if type(v) is type(ret) and tuple(v.shape) == tuple(ret.shape) and _same_data(v, ret):
                return ("arg", k)
        return ("value", host_copy(ret))
    try:
        pickle.dumps(ret)
        return ("value", ret)
    except Exception:  # noqa: BLE001 - an unpicklable return is described
        return ("value", repr(ret))


def _same_data(a, b):
    if isinstance(a, np.ndarray):
        return a.__array_interface__["data"][0] == b.__array_interface__["data"][0]
    return a.data_ptr() == b.data_ptr()
