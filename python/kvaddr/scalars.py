"""Python ints outside int64 passed to the bindings: a typed kvaddr error naming the argument.

pybind11 converts an `int` parameter to int64 and, for a Python int outside [-2^63, 2^63), rejects the
call during overload resolution with a TypeError that names no argument. ``named(fn)`` wraps a binding so
that such a call raises ``kvaddr.OutOfRange`` (``argument``, ``value``, ``reason`` set as on every
kvaddr.Error) for the first argument, by the binding's own parameter names, whose value does not fit;
any other TypeError passes through unchanged.
"""
from __future__ import annotations

import functools
import re

from ._core import OutOfRange

INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
REASON = "does not fit int64 (an integer argument must be in [-2^63, 2^63 - 1])"


def parameter_names(fn):
    """The parameter names of a pybind11 binding, from the signature line of its docstring."""
    doc = (getattr(fn, "__doc__", None) or "").splitlines()
    head = doc[0] if doc else ""
    m = re.match(r"^\w+\((.*)\)(?: -> .*)?$", head)
    if not m:
        return []
    names = []
    for part in m.group(1).split(", "):
        name = part.split(":", 1)[0].split("=", 1)[0].strip()
        if name and name not in ("*", "/", "self"):
            names.append(name)
    return names


def out_of_int64(v):
    return isinstance(v, int) and not isinstance(v, bool) and not INT64_MIN <= v <= INT64_MAX


def error(name, value):
    e = OutOfRange(f"{name} = {value}: {REASON}")
    e.kind, e.argument, e.value, e.reason = "out_of_range", name, str(value), REASON
    return e


def first_too_big(names, args, kwargs):
    for name, v in list(zip(names, args)) + list(kwargs.items()):
        if out_of_int64(v):
            return name, v
    return None


def named(fn, names=None):
    """`fn` raising kvaddr.OutOfRange (naming the argument) for an int outside int64."""
    names = parameter_names(fn) if names is None else names

    @functools.wraps(fn)
    def call(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except TypeError:
            bad = first_too_big(names, args, kwargs)
            if bad is None:
                raise
            raise error(*bad) from None

    return call


def wrap_module(namespace, module):
    """Rebind every pybind11 function of `module` found in `namespace` (a dict) to its named() wrapper."""
    for k in dir(module):
        f = getattr(module, k)
        if type(f).__name__ == "builtin_function_or_method" and getattr(f, "__module__", None) and (
                f.__module__.startswith("kvaddr")):
            if namespace.get(k) is f:
                namespace[k] = named(f)
