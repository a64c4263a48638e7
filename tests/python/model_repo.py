"""Builders of Triton-style model repositories for the tests: the bundled Fashion-MNIST model under any name,
version and config, plus small ONNX models made here (a slow one, a broken file).

    repo = ModelRepo(tmp_path / "repo")
    repo.add_fashion("fashion", versions=[1, 2], config=fashion_config("fashion", max_batch_size=8))
    repo.add_model("slow", slow_model_bytes(iterations=4000), config=slow_config("slow"))
    repo.add_broken("broken")

Layout written: <repo>/<model>/config.pbtxt (when a config is given) and <repo>/<model>/<version>/model.onnx.
"""

from __future__ import annotations

import functools
import pathlib
import shutil
import textwrap

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[2]
FASHION_DIR = ROOT / "models" / "fashion_mnist"
FASHION_ONNX = FASHION_DIR / "model.onnx"

FASHION_INPUT = "image"  # FP32 [batch, 1, 28, 28]
FASHION_OUTPUT = "logits"  # FP32 [batch, 10]
FASHION_TOLERANCE = 1e-4  # max abs difference from reference_logits.npy

# What a file that is not an ONNX model looks like to the server.
BROKEN_MODEL_BYTES = b"this is not an ONNX model\n" * 8


@functools.lru_cache(maxsize=1)
def fashion_data() -> tuple[np.ndarray, np.ndarray]:
    """(images FP32 [2000,1,28,28], reference logits FP32 [2000,10]) of the bundled model."""
    with np.load(FASHION_DIR / "test.npz") as npz:
        images = np.ascontiguousarray(npz["image"], dtype=np.float32)
    reference = np.load(FASHION_DIR / "reference_logits.npy").astype(np.float32)
    return images, reference


def fashion_config(name: str, max_batch_size: int = 8, dynamic_batching: str | None = "max_queue_delay_microseconds: 1000",
                   extra: str = "") -> str:
    """config.pbtxt text for the Fashion-MNIST model. dynamic_batching: the block's body, or None for none."""
    text = f"""\
        name: "{name}"
        platform: "onnxruntime_onnx"
        max_batch_size: {max_batch_size}
        input [ {{ name: "{FASHION_INPUT}" data_type: TYPE_FP32 dims: [ 1, 28, 28 ] }} ]
        output [ {{ name: "{FASHION_OUTPUT}" data_type: TYPE_FP32 dims: [ 10 ] }} ]
        """
    text = textwrap.dedent(text)
    if dynamic_batching is not None:
        text += f"dynamic_batching {{ {dynamic_batching} }}\n"
    return text + textwrap.dedent(extra)


# --- the slow model ---------------------------------------------------------------------------------------------
# SLOW_INPUT FP32 [batch, 4] -> SLOW_OUTPUT FP32 [batch, 4], equal to the input, computed through a Loop of
# `iterations` pairs of negations: the time per request grows with `iterations` and the result is exact.
SLOW_INPUT = "x"
SLOW_OUTPUT = "y"
SLOW_WIDTH = 4


@functools.lru_cache(maxsize=8)
def slow_model_bytes(iterations: int) -> bytes:
    import onnx
    from onnx import TensorProto, helper

    body = helper.make_graph(
        [
            helper.make_node("Identity", ["cond_in"], ["cond_out"]),
            helper.make_node("Neg", ["v_in"], ["v_neg"]),
            helper.make_node("Neg", ["v_neg"], ["v_out"]),
        ],
        "body",
        [
            helper.make_tensor_value_info("i", TensorProto.INT64, []),
            helper.make_tensor_value_info("cond_in", TensorProto.BOOL, []),
            helper.make_tensor_value_info("v_in", TensorProto.FLOAT, None),
        ],
        [
            helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
            helper.make_tensor_value_info("v_out", TensorProto.FLOAT, None),
        ],
    )
    graph = helper.make_graph(
        [helper.make_node("Loop", ["trip_count", "", SLOW_INPUT], [SLOW_OUTPUT], body=body)],
        "slow",
        [helper.make_tensor_value_info(SLOW_INPUT, TensorProto.FLOAT, ["batch", SLOW_WIDTH])],
        [helper.make_tensor_value_info(SLOW_OUTPUT, TensorProto.FLOAT, ["batch", SLOW_WIDTH])],
        initializer=[helper.make_tensor("trip_count", TensorProto.INT64, [], [iterations])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="hone-tests")
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model.SerializeToString()


def slow_config(name: str, max_batch_size: int = 8, dynamic_batching: str | None = "max_queue_delay_microseconds: 1000",
                extra: str = "") -> str:
    text = f"""\
        name: "{name}"
        platform: "onnxruntime_onnx"
        max_batch_size: {max_batch_size}
        input [ {{ name: "{SLOW_INPUT}" data_type: TYPE_FP32 dims: [ {SLOW_WIDTH} ] }} ]
        output [ {{ name: "{SLOW_OUTPUT}" data_type: TYPE_FP32 dims: [ {SLOW_WIDTH} ] }} ]
        """
    text = textwrap.dedent(text)
    if dynamic_batching is not None:
        text += f"dynamic_batching {{ {dynamic_batching} }}\n"
    return text + textwrap.dedent(extra)


class ModelRepo:
    """A model repository directory that tests fill."""

    def __init__(self, path: pathlib.Path):
        self.path = pathlib.Path(path)
        self.path.mkdir(parents=True, exist_ok=True)

    def __str__(self) -> str:
        return str(self.path)

    def model_dir(self, name: str) -> pathlib.Path:
        return self.path / name

    def write_config(self, name: str, config: str) -> None:
        d = self.model_dir(name)
        d.mkdir(parents=True, exist_ok=True)
        (d / "config.pbtxt").write_text(config)

    def write_version(self, name: str, version: int, model: bytes | pathlib.Path) -> None:
        d = self.model_dir(name) / str(version)
        if d.exists():
            shutil.rmtree(d)
        d.mkdir(parents=True)
        if isinstance(model, (bytes, bytearray)):
            (d / "model.onnx").write_bytes(model)
        else:
            shutil.copyfile(model, d / "model.onnx")

    def remove_version(self, name: str, version: int) -> None:
        shutil.rmtree(self.model_dir(name) / str(version))

    def add_model(self, name: str, model: bytes | pathlib.Path, versions=(1,), config: str | None = None) -> None:
        for v in versions:
            self.write_version(name, v, model)
        if config is not None:
            self.write_config(name, config)

    def add_fashion(self, name: str = "fashion", versions=(1,), config: str | None = "default") -> None:
        """The bundled model; config "default": fashion_config(name); None: no config.pbtxt."""
        if config == "default":
            config = fashion_config(name)
        self.add_model(name, FASHION_ONNX, versions, config)

    def add_slow(self, name: str = "slow", iterations: int = 20000, versions=(1,), config: str | None = "default") -> None:
        if config == "default":
            config = slow_config(name)
        self.add_model(name, slow_model_bytes(iterations), versions, config)

    def add_broken(self, name: str = "broken", versions=(1,), config: str | None = None) -> None:
        self.add_model(name, BROKEN_MODEL_BYTES, versions, config)
