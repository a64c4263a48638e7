"""`hone export`: hone.export from the command line, for a saved TorchScript file or a module by its import path.

    hone export model.pt -o model.onnx --input image:float32:1x1x28x28 --dynamic image:0:batch --data test.npz
    hone export mypkg.models:build -o model.onnx --input ids:int64:2x16 --dynamic ids:0:batch ids:1:sequence

SOURCE is a TorchScript file (torch.jit.save's .pt) or ``package.module:name``, where name is a torch.nn.Module or
a function that returns one when called without arguments. Only the Python package's `hone` entry has this command
(it needs torch); every other command is the binary's. Exit status: 0 exported and verified, 1 the export differs
from the module (nothing written to OUT; the model and inputs kept beside it), 2 bad usage or input.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys

import numpy as np

from .errors import Error
from .export import ExportMismatchError, export

_DTYPES = {"float32", "float16", "float64", "int64", "int32", "int8", "uint8", "bool"}


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="hone export", description=__doc__.split("\n\n")[0])
    p.add_argument("source", help="a TorchScript file (.pt) or package.module:name")
    p.add_argument("-o", "--output", required=True, help="the .onnx file to write (only once verified)")
    p.add_argument("--input", nargs="+", required=True, metavar="NAME:DTYPE:DIMS",
                   help="each input with the example's dtype and shape, e.g. image:float32:1x1x28x28")
    p.add_argument("--output-name", nargs="+", default=None, metavar="NAME", help="the outputs' names")
    p.add_argument("--dynamic", nargs="+", default=[], metavar="NAME:AXIS:SYMBOL",
                   help="a dynamic axis of an input or output, e.g. image:0:batch")
    p.add_argument("--data", help=".npz of representative inputs (an array per input name); default: the example")
    p.add_argument("--opset", type=int, default=17)
    p.add_argument("--atol", help="hone compare's --atol (elementwise instead of the cosine rule)")
    p.add_argument("--rtol", help="hone compare's --rtol")
    return p


def _load(source: str):
    import torch

    if os.path.exists(source):
        return torch.jit.load(source)
    if ":" not in source:
        raise ValueError(f"'{source}' is neither a file nor package.module:name")
    module_name, attr = source.split(":", 1)
    obj = getattr(importlib.import_module(module_name), attr)
    if not isinstance(obj, torch.nn.Module) and callable(obj):
        obj = obj()
    if not isinstance(obj, torch.nn.Module):
        raise ValueError(f"'{source}' is not a torch.nn.Module nor a function returning one")
    return obj


def main(argv: list[str]) -> int:
    args = _parser().parse_args(argv)
    try:
        import torch

        names, examples = [], []
        for spec in args.input:
            parts = spec.split(":")
            if len(parts) != 3 or parts[1] not in _DTYPES:
                raise ValueError(f"--input '{spec}': expected NAME:DTYPE:DIMS with DTYPE one of {sorted(_DTYPES)}")
            dims = [int(d) for d in parts[2].split("x")]
            names.append(parts[0])
            examples.append(torch.from_numpy(np.zeros(dims, dtype=parts[1])))
        dynamic: dict[str, dict[int, str]] = {}
        for spec in args.dynamic:
            parts = spec.split(":")
            if len(parts) != 3:
                raise ValueError(f"--dynamic '{spec}': expected NAME:AXIS:SYMBOL")
            dynamic.setdefault(parts[0], {})[int(parts[1])] = parts[2]
        options = {k: v for k, v in (("atol", args.atol), ("rtol", args.rtol)) if v is not None}
        report = export(_load(args.source), tuple(examples), args.output, input_names=names,
                        output_names=args.output_name, dynamic_axes=dynamic, opset=args.opset, data=args.data,
                        **options)
    except ExportMismatchError as e:
        print(f"hone export: {e}", file=sys.stderr)
        return 1
    except (Error, ValueError, OSError, ImportError, AttributeError) as e:
        print(f"hone export: {e}", file=sys.stderr)
        return getattr(e, "exit_status", 2)
    shapes = "; ".join(", ".join(f"{n} {list(s)}" for n, s in run.items()) for run in report.shapes_checked)
    print(f"hone export: wrote {report.path}: outputs {', '.join(report.output_names)} match the module "
          f"on {len(report.shapes_checked)} input shape(s): {shapes}")
    return 0
