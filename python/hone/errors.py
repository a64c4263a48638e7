"""Errors hone raises: one class per status code of hone's C++ core, all of them `hone.Error`.

Each carries the message the command line prints for the same failure, its code (``"INVALID_ARGUMENT"``) and the
exit status the command line would end with (2 for bad input or usage, 1 otherwise). Classes that match a Python
built-in also derive from it, so ``except FileNotFoundError`` catches a missing model too.
"""

from __future__ import annotations


class Error(Exception):
    """Any error from hone. ``code`` is the status code's name, ``exit_status`` the command line's exit status."""

    code = "UNKNOWN"
    exit_status = 1


class InvalidArgumentError(Error, ValueError):
    """Bad input: a malformed file, a wrong dtype or shape, an option out of range. Do not retry."""

    code = "INVALID_ARGUMENT"
    exit_status = 2


class NotFoundError(Error, FileNotFoundError):
    """A file, model, input or output that does not exist."""

    code = "NOT_FOUND"
    exit_status = 2


class UnimplementedError(Error, NotImplementedError):
    """A feature, data type or operator hone does not support."""

    code = "UNIMPLEMENTED"
    exit_status = 2


class FailedPreconditionError(Error):
    """The system is not in a state to do this."""

    code = "FAILED_PRECONDITION"


class ResourceExhaustedError(Error, MemoryError):
    """A limit was hit (memory, sizes)."""

    code = "RESOURCE_EXHAUSTED"


class UnavailableError(Error):
    """Transient: retry."""

    code = "UNAVAILABLE"


class InternalError(Error):
    """A bug or a broken invariant inside hone or ONNX Runtime."""

    code = "INTERNAL"


_BY_CODE = {cls.code: cls for cls in (Error, InvalidArgumentError, NotFoundError, UnimplementedError,
                                      FailedPreconditionError, ResourceExhaustedError, UnavailableError,
                                      InternalError)}


def error_class(code: str) -> type[Error]:
    """The class for a status code's name; `Error` for codes without a class of their own."""
    return _BY_CODE.get(code, Error)
