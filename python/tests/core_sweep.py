"""A random-argument sweep over every function of kvaddr._core (run as a script by test_core_sweep.py, in a child
process so that a crash is a finding, not the end of the test run).

Each call gets values of the types its signature names (pybind11's first docstring line): small and boundary
integers (sizes that allocate: small or past their bound), the routes' and variants' names, int64 / int32 arrays of small shapes (sometimes strided, transposed,
read-only, another dtype, or an array passed twice). A call must return or raise kvaddr.Error / TypeError; a call
that raises must leave every array it was given unchanged. Anything else (another exception, MemoryError, a
signal) is a finding; the line of the call is printed to stderr before the call, so a crash names it.

    python3 core_sweep.py SEED CALLS
prints "findings N" last and exits 0 with N = 0, 1 otherwise.
"""
import random
import re
import sys

import numpy as np

from kvaddr import _core

# Functions that write files or read a path's whole tree: not for random strings.
# Arguments that size an array the call allocates and fills (graph_draw's rows x cols may be 2^31 elements, 16 GiB):
# drawn small or past their bound, so that the sweep checks the bound without allocating gigabytes.
SIZES = {"rows", "cols"}
SKIP = {"write_recording", "replay", "read_stream", "replay_text", "replay_read_manifest", "replay_read_npy",
        "replay_read_input"}


def signature(f):
    """[(name, type, has_default)] of pybind11's first docstring line; '*' marks keyword-only from there; None when
    the line has no signature."""
    m = re.match(r"\w+\((.*)\) ->", (f.__doc__ or "").split("\n")[0])
    if not m:
        return None
    params, depth, cur = [], 0, ""
    for ch in m.group(1) + ",":
        depth += ch in "([{"
        depth -= ch in ")]}"
        if ch == "," and depth == 0:
            if cur.strip():
                params.append(cur.strip())
            cur = ""
        else:
            cur += ch
    out = []
    for p in params:
        name, _, rest = p.partition(":")
        typ, _, default = rest.partition("=")
        out.append((name.strip(), typ.strip().lower(), bool(default.strip())))
    return out


class Draw:
    def __init__(self, seed):
        self.rng = random.Random(seed)
        self.names = list(_core.routes()) + ["production", "", "nope", "b17_doc_formula", "x\0y", "a" * 300]

    def integer(self):
        r = self.rng
        return r.choice([r.randrange(-3, 9), r.randrange(-3, 9), r.randrange(0, 5),
                         r.choice([0, 1, -1, 4096, 2**31 - 1, 2**31, 2**62, -2**63, 2**63 - 1])])

    def array(self):
        r = self.rng
        dt = r.choice([np.int64] * 6 + [np.int32] * 3 + [r.choice([np.uint8, np.float64, np.int16, bool])])
        shape = tuple(r.choice([0, 1, 2, 3, 5, 8]) for _ in range(r.choice([1, 1, 2, 0, 3])))
        a = np.random.RandomState(r.randrange(2**31)).randint(-3, 12, size=shape).astype(dt)
        if r.random() < 0.2 and a.ndim >= 1 and a.shape[0] > 1:
            a = a[::2]
        if r.random() < 0.1 and a.ndim == 2:
            a = a.T
        if r.random() < 0.1:
            a.setflags(write=False)
        return a

    def value(self, typ, arrays, name=""):
        r = self.rng
        if r.random() < 0.05:
            return None
        if name in SIZES:  # a size the call may allocate in full: small, or past its bound (never 2^31 in range)
            return r.choice([-1, 0, 1, 2, 5, 64, 2**31 + 1, 2**62])
        if "handle" in typ or "array" in typ:
            if arrays and r.random() < 0.1:
                return r.choice(arrays)  # the same array as another argument
            return self.array() if r.random() < 0.9 else r.choice([self.integer(), "x", [1, 2]])
        if "list" in typ or "sequence" in typ:
            return [r.choice([self.integer(), self.array(), "out", ["out", 0]]) for _ in range(r.randrange(4))]
        if "dict" in typ:
            keys = ["out", "ids", "v2p", "page_size", "loc", "x"]
            return {r.choice(keys): r.choice([self.integer(), self.array(), "s"]) for _ in range(r.randrange(4))}
        if "int" in typ:
            return self.integer()
        if "str" in typ:
            return r.choice(self.names)
        if "bool" in typ:
            return r.choice([True, False, 1, None])
        if "float" in typ:
            return r.choice([0.0, -1.0, float("nan"), float("inf"), 1e300, 0.5])
        return self.array() if r.random() < 0.8 else r.choice([self.integer(), "x", None])


def main(seed, calls):
    draw = Draw(seed)
    funcs = [(n, getattr(_core, n)) for n in sorted(dir(_core)) if not n.startswith("_") and n not in SKIP
             and type(getattr(_core, n)).__name__ == "builtin_function_or_method"]
    funcs = [(n, f, s) for n, f in funcs for s in [signature(f)] if s is not None]
    findings = 0
    for _ in range(calls):
        name, f, sig = draw.rng.choice(funcs)
        args, kw, arrays, keyword = [], {}, [], False
        for pname, typ, has_default in sig:
            if pname == "*":
                keyword = True
                continue
            if has_default and draw.rng.random() < 0.5:
                keyword = True  # a later argument can only be passed by name
                continue
            v = draw.value(typ, arrays, pname)
            if isinstance(v, np.ndarray):
                arrays.append(v)
            if keyword or kw or draw.rng.random() < 0.3:
                kw[pname] = v
            else:
                args.append(v)
        before = [a.copy() for a in arrays]
        call = f"{name}({', '.join(map(repr, args))}{', ' if args and kw else ''}" \
               f"{', '.join(f'{k}={v!r}' for k, v in kw.items())})"
        print(call, file=sys.stderr, flush=True)
        try:
            f(*args, **kw)
        except (_core.Error, TypeError):
            if any(not np.array_equal(a, b, equal_nan=True) for a, b in zip(arrays, before) if a.shape == b.shape):
                print(f"FINDING wrote into an argument and raised: {call}")
                findings += 1
        except Exception as e:  # noqa: BLE001 - every other exception is what the sweep looks for
            print(f"FINDING {type(e).__name__}: {e}: {call}")
            findings += 1
    print(f"findings {findings}")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main(int(sys.argv[1]), int(sys.argv[2])))
