#!/usr/bin/python3
"""Writes the tiny ONNX models that runtime's tests load. Run with Debian's python3 (python3-onnx):
    /usr/bin/python3 src/runtime/testdata/make_models.py
"""
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

here = os.path.dirname(os.path.abspath(__file__))


def save(model, name):
    onnx.checker.check_model(model)
    onnx.save(model, os.path.join(here, name))


# affine.onnx: y = x * 2 + 1, x: FP32 [batch, 4] -> y: FP32 [batch, 4]
x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 4])
y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 4])
two = numpy_helper.from_array(np.array(2.0, dtype=np.float32), "two")
one = numpy_helper.from_array(np.array(1.0, dtype=np.float32), "one")
graph = helper.make_graph(
    [helper.make_node("Mul", ["x", "two"], ["x2"]), helper.make_node("Add", ["x2", "one"], ["y"])],
    "affine", [x], [y], [two, one])
save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="hone-tests"),
     "affine.onnx")

# two_inputs.onnx: ids: INT64 [batch, seq], mask: INT64 [batch, seq] -> sum: INT64 [batch, seq] (ids + mask),
# and count: INT64 [batch] (ReduceSum of mask over seq). Two dynamic dims, one unnamed.
ids = helper.make_tensor_value_info("ids", TensorProto.INT64, ["batch", "seq"])
mask = helper.make_tensor_value_info("mask", TensorProto.INT64, ["batch", None])
total = helper.make_tensor_value_info("sum", TensorProto.INT64, ["batch", "seq"])
count = helper.make_tensor_value_info("count", TensorProto.INT64, ["batch"])
axes = numpy_helper.from_array(np.array([1], dtype=np.int64), "axes")
graph = helper.make_graph(
    [helper.make_node("Add", ["ids", "mask"], ["sum"]),
     helper.make_node("ReduceSum", ["mask", "axes"], ["count"], keepdims=0)],
    "two_inputs", [ids, mask], [total, count], [axes])
save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="hone-tests"),
     "two_inputs.onnx")

# stateful.onnx: a streaming model shaped like Silero VAD, with no shared batch dimension:
#   input: FP32 [1, N], state: FP32 [2, 1, 128], sr: INT64 [] (a scalar)
#   -> output: FP32 [1, N] = input * sr, stateN: FP32 [2, 1, 128] = state + 1
inp = helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, "N"])
state = helper.make_tensor_value_info("state", TensorProto.FLOAT, [2, 1, 128])
sr = helper.make_tensor_value_info("sr", TensorProto.INT64, [])
out = helper.make_tensor_value_info("output", TensorProto.FLOAT, [1, "N"])
state_n = helper.make_tensor_value_info("stateN", TensorProto.FLOAT, [2, 1, 128])
graph = helper.make_graph(
    [helper.make_node("Cast", ["sr"], ["sr_f"], to=TensorProto.FLOAT),
     helper.make_node("Mul", ["input", "sr_f"], ["output"]),
     helper.make_node("Add", ["state", "one"], ["stateN"])],
    "stateful", [inp, state, sr], [out, state_n], [one])
save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="hone-tests"),
     "stateful.onnx")
