"""hone: benchmark-driven ML inference optimization, from Python.

The same C++ core as the `hone` command (which this package installs too):

>>> import hone
>>> session = hone.Session("model.onnx")
>>> outputs = session.run({"input": batch})

Errors are `hone.Error` subclasses (hone.errors) carrying the command line's messages.
"""

from __future__ import annotations

from . import _hone
from .errors import (Error, FailedPreconditionError, InternalError, InvalidArgumentError, NotFoundError,
                     ResourceExhaustedError, UnavailableError, UnimplementedError)
from .session import Session, TensorInfo

__version__: str = _hone.__version__


def onnxruntime_version() -> str:
    """The version of the ONNX Runtime library hone loaded (bundled in this package)."""
    return _hone.onnxruntime_version()


__all__ = ["Session", "TensorInfo", "Error", "InvalidArgumentError", "NotFoundError", "UnimplementedError",
           "FailedPreconditionError", "ResourceExhaustedError", "UnavailableError", "InternalError",
           "onnxruntime_version", "__version__"]
