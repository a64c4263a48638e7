#!/usr/bin/python3
"""Writes the tiny ONNX models that serve's tests load, each with one property a server must handle. Run with
Debian's python3 (python3-onnx):
    /usr/bin/python3 src/serve/core/testdata/make_models.py
"""
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

here = os.path.dirname(os.path.abspath(__file__))


def save(nodes, name, inputs, outputs, initializers):
    graph = helper.make_graph(nodes, name, inputs, outputs, initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="hone-tests")
    onnx.checker.check_model(model)
    onnx.save(model, os.path.join(here, name + ".onnx"))


def const(name, values, dtype):
    return numpy_helper.from_array(np.array(values, dtype=dtype), name)


# split_in_two: x FP32 [n] -> y FP32 [2, n/2] (Reshape to [2, -1]): n = 1 cannot run, so a warm-up with every
# dynamic dimension 1 fails while the model is valid for any even n.
save([helper.make_node("Reshape", ["x", "shape"], ["y"])], "split_in_two",
     [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n"])],
     [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, None])],
     [const("shape", [2, -1], np.int64)])

# offset_gather: idx INT64 [n] -> y FP32 [n] = table[idx - 4], table of 3 values: index 0 gives -4, out of range
# (zeros fail), index 1 gives -3, the first element (ones run).
save([helper.make_node("Sub", ["idx", "four"], ["at"]), helper.make_node("Gather", ["table", "at"], ["y"])],
     "offset_gather",
     [helper.make_tensor_value_info("idx", TensorProto.INT64, ["n"])],
     [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["n"])],
     [const("four", 4, np.int64), const("table", [10, 20, 30], np.float32)])

# far_gather: idx INT64 [n] -> y FP32 [n] = table[idx + 100]: only indices from -103 to -101 run, which no
# generated input holds (a model hone's default warm-up cannot guess).
save([helper.make_node("Add", ["idx", "hundred"], ["at"]), helper.make_node("Gather", ["table", "at"], ["y"])],
     "far_gather",
     [helper.make_tensor_value_info("idx", TensorProto.INT64, ["n"])],
     [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["n"])],
     [const("hundred", 100, np.int64), const("table", [10, 20, 30], np.float32)])

# whole_norm: x FP32 [batch, 4] -> y FP32 [batch, 4] = x / max(x) over the whole tensor, batch included: its
# shapes say "batchable", but a batch changes every row's answer.
save([helper.make_node("ReduceMax", ["x"], ["m"], keepdims=1), helper.make_node("Div", ["x", "m"], ["y"])],
     "whole_norm",
     [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 4])],
     [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 4])], [])

# big_output: x FP32 [1] -> y FP32 [18350080] (x repeated: 70 MiB, over gRPC's old 64 MiB default).
save([helper.make_node("Expand", ["x", "shape"], ["y"])], "big_output",
     [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])],
     [helper.make_tensor_value_info("y", TensorProto.FLOAT, [70 * 1024 * 1024 // 4])],
     [const("shape", [70 * 1024 * 1024 // 4], np.int64)])
