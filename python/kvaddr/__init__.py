"""kvaddr: reference model, host routes and differential harness for SGLang's KV address translation.

The compiled extension ``kvaddr._core`` holds the model formulas, ``Geometry``, every host route and
replay (docs/python.md); this package re-exports all of it and adds the harness (docs/harness.md):
``check``, ``assert_check``, ``cases`` and ``strategies``; ``kvaddr.gpu`` runs kvaddr's own CUDA kernels
(the extension ``kvaddr._gpu``, the harness's device reference).
"""
import sys as _sys

from . import _core
from ._core import *  # noqa: F401,F403  (routes, model formulas, Geometry, errors, replay)
from ._core import Error, InvalidArgument, OutOfRange, Overflow, BufferTooSmall, InvalidState  # noqa: F401

model = _core.model
_sys.modules[__name__ + ".model"] = model
__version__ = _core.__version__

# A Python int outside int64 passed to any binding raises kvaddr.OutOfRange naming the argument
# (kvaddr.scalars), not pybind11's TypeError.
from . import scalars as _scalars  # noqa: E402

_scalars.wrap_module(globals(), _core)
for _name in dir(model):
    _f = getattr(model, _name)
    if type(_f).__name__ == "builtin_function_or_method":
        setattr(model, _name, _scalars.named(_f))


class Geometry(_core.Geometry):
    __doc__ = _core.Geometry.__doc__

    def __init__(self, *args, **kwargs):
        try:
            super().__init__(*args, **kwargs)
        except TypeError:
            bad = _scalars.first_too_big(_scalars.parameter_names(_core.Geometry.__init__), args, kwargs)
            if bad is None:
                raise
            raise _scalars.error(*bad) from None

    def kernel_id(self, v2p, t):
        try:
            return super().kernel_id(v2p, t)
        except TypeError:
            if _scalars.out_of_int64(t):
                raise _scalars.error("t", t) from None
            raise

from . import cases, conventions  # noqa: E402
from .harness import (  # noqa: E402,F401
    CaseResult, CheckFailed, Failure, Lane, Report, assert_check, behaves_like, check, check_case,
)
from .record import assert_replay, load_case, write_case  # noqa: E402,F401
from . import gpu  # noqa: E402,F401  (kvaddr's CUDA kernels; imports without a GPU)
from . import graph, huge  # noqa: E402,F401  (they register graph mode and the huge case with kvaddr.harness)

HARNESS_ROUTES = cases.ROUTES
