"""hone: benchmark-driven ML inference optimization, from Python.

The same C++ core as the `hone` command (which this package installs too):

>>> import hone
>>> session = hone.Session("model.onnx")
>>> outputs = session.run({"input": batch})
>>> report = hone.bench("model.onnx", concurrency=[1, 8])      # every command, in process, as a typed report

Errors are `hone.Error` subclasses (hone.errors) carrying the command line's messages.
"""

from __future__ import annotations

from . import _hone
from .errors import (Error, FailedPreconditionError, InternalError, InvalidArgumentError, NotFoundError,
                     ResourceExhaustedError, UnavailableError, UnimplementedError)
from .commands import (BenchPoint, BenchReport, CompareReport, EvaluateReport, Interrupted, Report, TuneReport,
                       VariantReport,
                       bench, compare, convert, evaluate, info, profile, quantize, run, tune)
from .export import ExportMismatchError, ExportReport, export
from .output import set_log, set_progress
from .serving import Server, serve
from .session import Session, TensorInfo

__version__: str = _hone.__version__


def onnxruntime_version() -> str:
    """The version of the ONNX Runtime library hone loaded (bundled in this package)."""
    return _hone.onnxruntime_version()


__all__ = ["set_progress", "set_log", "Session", "TensorInfo", "serve", "Server", "export", "ExportReport", "ExportMismatchError", "run", "info", "bench", "compare", "evaluate", "quantize", "convert", "profile",
           "tune", "Report", "BenchReport", "BenchPoint", "CompareReport", "EvaluateReport", "VariantReport",
           "TuneReport", "Interrupted", "Error", "InvalidArgumentError", "NotFoundError", "UnimplementedError",
           "FailedPreconditionError", "ResourceExhaustedError", "UnavailableError", "InternalError",
           "onnxruntime_version", "__version__"]
