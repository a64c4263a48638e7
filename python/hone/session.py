"""hone.Session: a model loaded by hone's runtime, run on numpy arrays in this process."""

from __future__ import annotations

import os
from typing import Mapping, NamedTuple, Optional, Sequence

import numpy as np

from . import _hone
from .errors import InvalidArgumentError


class TensorInfo(NamedTuple):
    """One input or output of a model: its name, numpy dtype name, shape (None for a dynamic dimension) and the
    dimensions' symbolic names ("" for fixed or unnamed ones)."""

    name: str
    dtype: str
    shape: tuple[Optional[int], ...]
    symbols: tuple[str, ...]


class Session:
    """A model loaded with ONNX Runtime through hone's runtime, the same code `hone bench` and `hone serve` run.

    >>> import numpy as np, hone
    >>> s = hone.Session("model.onnx", threads=2)
    >>> [i.name for i in s.inputs]
    ['input']
    >>> out = s.run({"input": np.zeros((1, 1, 28, 28), np.float32)})
    >>> out["logits"].shape
    (1, 10)

    ``threads``: ONNX Runtime's intra-op threads (0: its default, one per core). ``inter_op_threads``: for models
    with parallel branches (0: default). ``optimization``: ONNX Runtime's graph optimization level, one of
    "disable", "basic", "extended", "all". ``allow_spinning``: let idle threads spin between runs (lower latency,
    more CPU).

    ``run`` reads C-contiguous inputs of the model's dtype where they are and returns ONNX Runtime's output buffers
    as numpy arrays without a copy; it releases the GIL while the model runs, so threads can run one session at the
    same time. Errors are `hone.Error` subclasses with hone's messages.
    """

    def __init__(self, path: str | os.PathLike, *, threads: int = 0, inter_op_threads: int = 0,
                 optimization: str = "all", allow_spinning: bool = True):
        self._impl = _hone.Session(os.fspath(path), threads, inter_op_threads, optimization, allow_spinning)
        self.inputs: tuple[TensorInfo, ...] = tuple(TensorInfo(n, d, tuple(s), tuple(y))
                                                   for n, d, s, y in self._impl.inputs())
        self.outputs: tuple[TensorInfo, ...] = tuple(TensorInfo(n, d, tuple(s), tuple(y))
                                                    for n, d, s, y in self._impl.outputs())
        # numpy's dtype objects, compared by identity first: reading dtype.name costs a call more than the model.
        self._dtypes = {i.name: np.dtype(i.dtype) for i in self.inputs if i.dtype not in ("bytes", "bfloat16")}

    @property
    def path(self) -> str:
        """The model file."""
        return self._impl.path

    def run(self, inputs: Mapping[str, np.ndarray], output_names: Sequence[str] | None = None) -> dict[str, np.ndarray]:
        """Runs the model on every input by name; returns every output by name (or those in ``output_names``).

        Arrays of the model's dtype are used where they are when C-contiguous, copied to be contiguous otherwise.
        Lists and scalars become arrays of the input's dtype; an array of another dtype is an InvalidArgumentError
        naming the input (hone does not cast silently).
        """
        feeds = {}
        for name, value in inputs.items():
            expected = self._dtypes.get(name)
            if not isinstance(value, np.ndarray):
                value = np.asarray(value, dtype=expected)
            elif expected is not None and value.dtype != expected:
                raise InvalidArgumentError(f"input '{name}' is {value.dtype.name}; the model takes {expected.name}")
            feeds[name] = value if value.flags.c_contiguous else np.ascontiguousarray(value)
        outputs = self._impl.run(feeds)
        if output_names is None:
            return outputs
        missing = [n for n in output_names if n not in outputs]
        if missing:
            raise InvalidArgumentError(f"the model has no output {missing[0]!r} (its outputs: {', '.join(outputs)})")
        return {n: outputs[n] for n in output_names}

    def __repr__(self) -> str:
        return f"hone.Session({self.path!r})"
