"""Writes the comparison's second model: a small image classifier over 27,648 floats a row.

    python make_model.py OUT.onnx

Input "image" FP32 [-1, 3, 48, 192] (batch, channels, height, width), output "logits" FP32 [-1, 10]:
Conv 3->16, 3x3, stride 2, pad 1 -> Relu -> Conv 16->32, 3x3, stride 2, pad 1 -> Relu -> GlobalAveragePool ->
Flatten -> Gemm 32->10. Weights from numpy's generator with a fixed seed, so every run writes the same file; no
downloads. Needs the onnx and numpy packages (scripts/setup-python's .venv-test has both).
"""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: make_model.py OUT.onnx")
    rng = np.random.default_rng(20240612)

    def weight(name, *shape):
        fan_in = int(np.prod(shape[1:])) if len(shape) > 1 else shape[0]
        values = rng.standard_normal(shape).astype(np.float32) * np.float32(np.sqrt(2.0 / fan_in))
        return numpy_helper.from_array(values, name)

    initializers = [
        weight("conv1.w", 16, 3, 3, 3), numpy_helper.from_array(np.zeros(16, np.float32), "conv1.b"),
        weight("conv2.w", 32, 16, 3, 3), numpy_helper.from_array(np.zeros(32, np.float32), "conv2.b"),
        weight("fc.w", 10, 32), numpy_helper.from_array(rng.standard_normal(10).astype(np.float32) * 0.1, "fc.b"),
    ]
    conv = dict(kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])
    nodes = [
        helper.make_node("Conv", ["image", "conv1.w", "conv1.b"], ["c1"], **conv),
        helper.make_node("Relu", ["c1"], ["r1"]),
        helper.make_node("Conv", ["r1", "conv2.w", "conv2.b"], ["c2"], **conv),
        helper.make_node("Relu", ["c2"], ["r2"]),
        helper.make_node("GlobalAveragePool", ["r2"], ["pooled"]),
        helper.make_node("Flatten", ["pooled"], ["flat"], axis=1),
        helper.make_node("Gemm", ["flat", "fc.w", "fc.b"], ["logits"], transB=1),
    ]
    graph = helper.make_graph(
        nodes, "wide_classifier",
        [helper.make_tensor_value_info("image", TensorProto.FLOAT, ["batch", 3, 48, 192])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", 10])],
        initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="hone-compare")
    model.ir_version = 8
    onnx.checker.check_model(model, full_check=True)
    onnx.save(model, sys.argv[1])


if __name__ == "__main__":
    main()
