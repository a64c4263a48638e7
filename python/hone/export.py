"""hone.export: a PyTorch module to ONNX, verified before it is trusted.

The export is the first step where a model silently changes: a traced Python branch keeps the one path the example
took, a size read as a Python int becomes a constant, an op exports with other semantics. So after
``torch.onnx.export``:

1. ONNX's checker and shape inference run on the file (libonnx, as hone's other commands use it);
2. hone's runtime loads it with ONNX Runtime's CPU provider (an op it cannot run is an error naming it);
3. the module in torch and the file in ONNX Runtime run on representative inputs (the user's ``data``, else the
   example), and again at other sizes of every dynamic axis (axes that share a name change together), and every
   output is judged by `hone compare`'s rules and messages (cosine and range error by default; ``atol``/``rtol``,
   ``validate`` and the rest as its flags), the torch outputs as the saved reference;
4. only then is the file moved to ``path`` (written beside it and renamed: an existing file is never half
   replaced). On a mismatch nothing is written to ``path``; the exported model and the inputs that show the mismatch
   are kept beside it for reproduction (``<path>.failed.onnx``, ``<path>.mismatch-inputs.npz``) and
   `hone.ExportMismatchError` names the output, the rule and the worst element.
"""

from __future__ import annotations

import os
import warnings
from typing import Any, Mapping, NamedTuple, Optional, Sequence

import numpy as np

from . import _hone
from .commands import CompareReport, compare
from .errors import Error, InvalidArgumentError, UnimplementedError
from .session import Session


class ExportMismatchError(Error):
    """The exported model's outputs differ from the module's beyond the rule (exit meaning of a failed check)."""

    code = "EXPORT_MISMATCH"
    exit_status = 1


class ExportReport(NamedTuple):
    path: str
    input_names: list[str]
    output_names: list[str]
    shapes_checked: list[dict[str, tuple[int, ...]]]  # the input shapes of each verified run
    comparisons: list[CompareReport]
    warnings: list[str]  # what the exporter warned about (TracerWarning: a traced value may not generalise)


def _as_tuple(x) -> tuple:
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def _load_data(data, input_names) -> dict[str, np.ndarray]:
    if isinstance(data, (str, os.PathLike)):
        with np.load(data) as f:
            data = {k: f[k] for k in f.files}
    missing = [n for n in input_names if n not in data]
    if missing:
        raise InvalidArgumentError(f"data has no array for input '{missing[0]}' (it has: {', '.join(data)})")
    return {n: np.asarray(data[n]) for n in input_names}


def _dynamic(dynamic_axes, input_names) -> dict[str, dict[int, str]]:
    """{input: {axis: symbolic name}} from torch's dynamic_axes (a list of axes names them after the input)."""
    out: dict[str, dict[int, str]] = {}
    for name, axes in (dynamic_axes or {}).items():
        if name not in input_names:
            continue
        out[name] = dict(axes) if isinstance(axes, Mapping) else {a: f"{name}_{a}" for a in axes}
    return out


def _resized(inputs: dict[str, np.ndarray], dynamic: dict[str, dict[int, str]]) -> Optional[dict[str, np.ndarray]]:
    """The same inputs with every dynamic axis at another size (one less, or twice when it is 1), axes that share a
    symbolic name changed alike; None when there is no dynamic axis."""
    sizes: dict[str, int] = {}
    for name, axes in dynamic.items():
        for axis, symbol in axes.items():
            n = inputs[name].shape[axis]
            sizes.setdefault(symbol, n - 1 if n > 1 else 2)
    if not sizes:
        return None
    out = {}
    for name, x in inputs.items():
        for axis, symbol in dynamic.get(name, {}).items():
            want = sizes[symbol]
            if want <= x.shape[axis]:
                x = np.take(x, range(want), axis=axis)
            else:
                reps = [1] * x.ndim
                reps[axis] = -(-want // x.shape[axis])
                x = np.take(np.tile(x, reps), range(want), axis=axis)
        out[name] = np.ascontiguousarray(x)
    return out


def export(module, example_inputs, path: str | os.PathLike, *, input_names: Optional[Sequence[str]] = None,
           output_names: Optional[Sequence[str]] = None, dynamic_axes: Optional[Mapping] = None, opset: int = 17,
           data: Any = None, **compare_options: Any) -> ExportReport:
    """Exports ``module`` with ``torch.onnx.export`` and verifies the file against the module (see the module's
    docstring); returns what was checked, or raises.

    ``example_inputs``: a tensor or a tuple of tensors, as torch.onnx.export takes. ``input_names`` and
    ``output_names`` default to input_0..., output_0.... ``dynamic_axes``: torch's ``{name: {axis: "symbol"}}``.
    ``data``: representative inputs, a dict of arrays by input name or an .npz (samples along axis 0 where the
    inputs share a batch axis). Other keywords are `hone compare`'s flags (``atol=1e-4``, ``validate=True``).

    >>> report = hone.export(model, torch.zeros(1, 1, 28, 28), "model.onnx", input_names=["image"],
    ...                      output_names=["logits"], dynamic_axes={"image": {0: "batch"}}, data="test.npz")
    """
    import tempfile

    import torch  # here: only export needs it

    args = _as_tuple(example_inputs)
    input_names = list(input_names or [f"input_{i}" for i in range(len(args))])
    if len(input_names) != len(args):
        raise InvalidArgumentError(f"{len(input_names)} input names for {len(args)} example inputs")
    path = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise InvalidArgumentError(f"the folder '{folder}' of '{path}' does not exist")
    module = module.eval()
    with torch.no_grad():
        probe = _as_tuple(module(*args))
    output_names = list(output_names or [f"output_{i}" for i in range(len(probe))])
    if len(output_names) != len(probe):
        raise InvalidArgumentError(f"{len(output_names)} output names for the module's {len(probe)} outputs")

    staged = tempfile.NamedTemporaryFile(dir=folder, prefix=".hone-export-", suffix=".onnx", delete=False)
    staged.close()
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            torch.onnx.export(module, args, staged.name, input_names=input_names, output_names=output_names,
                              dynamic_axes=dict(dynamic_axes or {}), opset_version=opset, do_constant_folding=True)
        exporter_warnings = sorted({str(w.message).splitlines()[0] for w in caught})
        _hone.check_onnx(staged.name)
        try:
            Session(staged.name, threads=1)
        except Error as e:
            raise UnimplementedError(f"ONNX Runtime's CPU provider cannot run the exported model: {e}") from e

        first = (_load_data(data, input_names) if data is not None
                 else {n: a.detach().cpu().numpy() for n, a in zip(input_names, args)})
        runs = [first]
        resized = _resized(first, _dynamic(dynamic_axes, input_names))
        if resized is not None:
            runs.append(resized)
        comparisons, shapes = [], []
        with tempfile.TemporaryDirectory(prefix="hone-export-") as tmp:
            for i, inputs in enumerate(runs):
                with torch.no_grad():
                    outputs = _as_tuple(module(*(torch.from_numpy(inputs[n]) for n in input_names)))
                reference = os.path.join(tmp, f"torch-{i}.npz")
                np.savez(reference, **{n: o.detach().cpu().numpy() for n, o in zip(output_names, outputs)})
                feeds = os.path.join(tmp, f"inputs-{i}.npz")
                np.savez(feeds, **inputs)
                report = compare(reference, staged.name, data=feeds, **compare_options)
                comparisons.append(report)
                shapes.append({n: tuple(inputs[n].shape) for n in input_names})
                if not report.passed:
                    kept_model, kept_inputs = path + ".failed.onnx", path + ".mismatch-inputs.npz"
                    os.replace(staged.name, kept_model)
                    np.savez(kept_inputs, **inputs)
                    shape_text = ", ".join(f"{n} {list(s)}" for n, s in shapes[-1].items())
                    raise ExportMismatchError(
                        f"the exported model differs from the module on inputs {shape_text}:\n"
                        f"{report.text.strip()}\nkept for reproduction: {kept_model} and {kept_inputs}"
                        + (f"\nthe exporter warned: {'; '.join(exporter_warnings)}" if exporter_warnings else ""))
        # NamedTemporaryFile made it owner-only; a model is read by servers running as other users.
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(staged.name, 0o666 & ~umask)
        os.replace(staged.name, path)
        return ExportReport(path, input_names, output_names, shapes, comparisons, exporter_warnings)
    finally:
        if os.path.exists(staged.name):
            os.unlink(staged.name)
