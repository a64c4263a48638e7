#!/usr/bin/python3
"""Writes a copy of an ONNX model with one FP32 initializer multiplied by a factor.

    /usr/bin/python3 src/check/testdata/scale_weight.py MODEL TENSOR FACTOR OUT

For showing what `hone compare` and `hone evaluate --against` catch, e.g. fc2.weight of the bundled Fashion-MNIST
model scaled by 1.001. Needs Debian's python3-onnx and python3-numpy. The tests build such models in C++
(src/check/test_models.h); this script is for people at a shell.
"""
import sys

import numpy as np
import onnx
from onnx import numpy_helper


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    model_path, tensor_name, factor, out_path = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4]
    model = onnx.load(model_path)
    for i, init in enumerate(model.graph.initializer):
        if init.name == tensor_name:
            values = numpy_helper.to_array(init)
            if values.dtype != np.float32:
                sys.exit(f"initializer '{tensor_name}' is {values.dtype}, expected float32")
            scaled = numpy_helper.from_array((values * np.float32(factor)).astype(np.float32), tensor_name)
            model.graph.initializer[i].CopyFrom(scaled)
            onnx.save(model, out_path)
            return
    names = ", ".join(init.name for init in model.graph.initializer)
    sys.exit(f"'{model_path}' has no initializer '{tensor_name}' (initializers: {names})")


if __name__ == "__main__":
    main()
