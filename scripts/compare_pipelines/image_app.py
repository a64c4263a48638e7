"""examples/image-classification's pipeline written in Python, as a team would write it today: a KServe v2 HTTP
server (kserve_http.py: FastAPI + uvicorn + orjson) for one model `fashion`: input `image` BYTES [batch, 1], each
the contents of a PNG or JPEG file (in binary tensors: file bytes are not text, so JSON tensors cannot carry them)
-> PIL: decode, convert("L") (gray by ITU-R 601 luma), resize to 28x28 bilinear (the test files are 28x28 already,
so a no-op for them, kept as such an app has it) -> numpy: bytes / 255 as float32 in [0, 1], [batch, 1, 28, 28] ->
onnxruntime on the example's fashion_model/1/model.onnx (one session, its default threads) -> numpy softmax and
top-1, the class's name from fashion_classify/1/labels.txt. Outputs as the example's ensemble `fashion` has them:
`class_index` INT64 [batch, 1], `class_name` BYTES [batch, 1], `score` FP32 [batch, 1] (the top class's
probability) and `logits` FP32 [batch, 10] (the model's own output).

    python image_app.py --port 18750 --example examples/image-classification
"""
import argparse
import io
import os

import numpy as np
import onnxruntime as ort
from PIL import Image, UnidentifiedImageError

import kserve_http

SIZE = 28  # the model's input: 1 x 28 x 28 gray


def load_labels(path):
    with open(path, encoding="utf-8") as f:
        return [line.rstrip("\n") for line in f if line.strip()]


def to_pixels(data):
    """One PNG or JPEG file's bytes -> float32 [28, 28] in [0, 1]."""
    image = Image.open(io.BytesIO(data)).convert("L").resize((SIZE, SIZE), Image.BILINEAR)
    return np.asarray(image, dtype=np.float32) / 255.0


class ImageClassification:
    name = "fashion"
    inputs = [{"name": "image", "datatype": "BYTES", "shape": [-1, 1]}]
    outputs = [{"name": "class_index", "datatype": "INT64", "shape": [-1, 1]},
               {"name": "class_name", "datatype": "BYTES", "shape": [-1, 1]},
               {"name": "score", "datatype": "FP32", "shape": [-1, 1]},
               {"name": "logits", "datatype": "FP32", "shape": [-1, 10]}]
    max_batch_size = 64  # as the example's ensemble says; perf_analyzer then sends [1, 1] to both servers

    def __init__(self, example):
        self.labels = np.array(load_labels(os.path.join(example, "fashion_classify", "1", "labels.txt")),
                               dtype=object)
        self.session = ort.InferenceSession(os.path.join(example, "fashion_model", "1", "model.onnx"),
                                            providers=["CPUExecutionProvider"])

    def infer(self, inputs):
        files = inputs["image"]
        if not files:
            raise kserve_http.BadRequest("input 'image': an empty batch")
        if not all(isinstance(f, bytes) for f in files):
            raise kserve_http.BadRequest("input 'image': send the files' bytes as a binary tensor")
        try:
            pixels = np.stack([to_pixels(f) for f in files])[:, None, :, :]
        except (UnidentifiedImageError, OSError, ValueError) as e:
            raise kserve_http.BadRequest(f"input 'image': {e}") from None
        (logits,) = self.session.run(["logits"], {"image": pixels})
        exp = np.exp(logits - logits.max(axis=1, keepdims=True))
        probabilities = exp / exp.sum(axis=1, keepdims=True)
        best = probabilities.argmax(axis=1)
        return [("class_index", best.astype(np.int64)[:, None]),
                ("class_name", self.labels[best][:, None]),
                ("score", probabilities[np.arange(len(best)), best].astype(np.float32)[:, None]),
                ("logits", logits.astype(np.float32, copy=False))]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--example", required=True, help="examples/image-classification (the model repository)")
    args = parser.parse_args()
    kserve_http.serve([ImageClassification(args.example)], args.host, args.port)


if __name__ == "__main__":
    main()
