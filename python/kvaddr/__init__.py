"""kvaddr: reference model, host routes and differential harness for SGLang's KV address translation.

The compiled extension ``kvaddr._core`` holds the model formulas, ``Geometry``, every host route and
replay (docs/python.md); this package re-exports all of it and adds the harness (docs/harness.md):
``check``, ``assert_check``, ``cases`` and ``strategies``.
"""
import sys as _sys

from . import _core
from ._core import *  # noqa: F401,F403  (routes, model formulas, Geometry, errors, replay)
from ._core import Error, InvalidArgument, OutOfRange, Overflow, BufferTooSmall, InvalidState  # noqa: F401

model = _core.model
_sys.modules[__name__ + ".model"] = model
__version__ = _core.__version__

from . import cases, conventions  # noqa: E402
from .harness import (  # noqa: E402,F401
    CaseResult, CheckFailed, Failure, Lane, Report, assert_check, behaves_like, check, check_case,
)
from .record import assert_replay, load_case, write_case  # noqa: E402,F401

HARNESS_ROUTES = cases.ROUTES
