"""The image-classification example served as it is: examples/image-classification, the ensemble `fashion`
(hone_image -> the bundled Fashion-MNIST CNN -> hone_classify), given the first 1000 test images as PNG and JPEG
files over HTTP (binary) and gRPC with tritonclient, against the same model run in Python with onnxruntime on the
same rows of models/fashion_mnist/test.npz; and broken images answered with a 400 naming the fault while the server
stays ready.

The PNGs hold the .npz pixels exactly, so the served accuracy must equal the Python one (and every prediction
agree); the JPEGs are lossy (quality 90), so their accuracy is reported, not asserted equal.

Needs scripts/fetch-models (scripts/test runs it); skipped with that reason when its outputs are missing.
"""

from __future__ import annotations

import pathlib
import struct
import zlib

import numpy as np
import onnxruntime as ort
import pytest
import tritonclient.grpc as grpcclient
import tritonclient.http as httpclient
from tritonclient.utils import InferenceServerException

ROOT = pathlib.Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "image-classification"
IMAGES = EXAMPLE / "images"
FASHION = ROOT / "models" / "fashion_mnist"
LABELS = (EXAMPLE / "fashion_classify" / "1" / "labels.txt").read_text(encoding="utf-8").splitlines()
BATCH = 50

pytestmark = pytest.mark.skipif(
    not (EXAMPLE / "fashion_model" / "1" / "model.onnx").exists() or not (IMAGES / "MANIFEST").exists(),
    reason="the example's model and images are not written: run scripts/fetch-models")


@pytest.fixture(scope="module")
def server(module_serve):
    return module_serve(EXAMPLE)


def files(kind: str) -> list[pathlib.Path]:
    return sorted((IMAGES / kind).iterdir())


def row_and_label(path: pathlib.Path) -> tuple[int, int]:
    row, label = path.stem.split("_label")
    return int(row), int(label)


@pytest.fixture(scope="module")
def python_reference():
    """The bundled model's logits on the same rows of test.npz, with onnxruntime."""
    rows = [row_and_label(p)[0] for p in files("png")]
    data = np.load(FASHION / "test.npz")
    session = ort.InferenceSession(str(FASHION / "model.onnx"), providers=["CPUExecutionProvider"])
    logits = session.run(["logits"], {"image": data["image"][rows]})[0]
    return logits, data["label"][rows]


def classify(client_module, url: str, paths: list[pathlib.Path]):
    """(class_index, class_name, score) for each file, in BATCH-file requests."""
    client = client_module.InferenceServerClient(url)
    index, name, score = [], [], []
    for start in range(0, len(paths), BATCH):
        data = np.array([[p.read_bytes()] for p in paths[start:start + BATCH]], dtype=object)
        inp = client_module.InferInput("image", list(data.shape), "BYTES")
        inp.set_data_from_numpy(data)
        result = client.infer("fashion", [inp])
        index.append(result.as_numpy("class_index")[:, 0])
        name += [n.decode("utf-8") for n in result.as_numpy("class_name")[:, 0]]
        score.append(result.as_numpy("score")[:, 0])
    return np.concatenate(index), name, np.concatenate(score)


def softmax(x: np.ndarray) -> np.ndarray:
    e = np.exp(x.astype(np.float64) - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


@pytest.mark.parametrize("protocol", ["http", "grpc"])
def test_png_accuracy_equals_the_models_on_the_npz(server, python_reference, protocol):
    logits, labels = python_reference
    module, url = (httpclient, server.http_url) if protocol == "http" else (grpcclient, server.grpc_url)
    paths = files("png")
    assert [row_and_label(p)[1] for p in paths] == labels.tolist(), "file names carry test.npz's labels"
    index, name, score = classify(module, url, paths)
    expected = logits.argmax(axis=1)
    served_accuracy = float((index == labels).mean())
    python_accuracy = float((expected == labels).mean())
    print(f"{protocol}: accuracy on {len(paths)} PNGs {served_accuracy:.4f}, "
          f"bundled model on test.npz (onnxruntime) {python_accuracy:.4f}")
    assert served_accuracy == python_accuracy
    disagree = np.flatnonzero(index != expected)
    assert disagree.size == 0, f"rows {disagree[:10].tolist()} predicted differently from onnxruntime on the .npz"
    assert name == [LABELS[i] for i in index]
    # Scores are the softmax probabilities of the predicted class.
    np.testing.assert_allclose(score, softmax(logits)[np.arange(len(index)), index], atol=1e-5)


def test_jpeg_accuracy_is_reported(server, python_reference):
    logits, labels = python_reference
    index, name, _ = classify(grpcclient, server.grpc_url, files("jpeg"))
    jpeg_accuracy = float((index == labels).mean())
    npz_accuracy = float((logits.argmax(axis=1) == labels).mean())
    agree = float((index == logits.argmax(axis=1)).mean())
    # JPEG is lossy: not asserted equal. The accuracy and the difference go into the report (pytest -s shows them).
    print(f"accuracy on {len(labels)} JPEGs (quality 90) {jpeg_accuracy:.4f}, on the .npz {npz_accuracy:.4f} "
          f"(difference {jpeg_accuracy - npz_accuracy:+.4f}); predictions agree on {agree:.1%} of the images")
    assert name == [LABELS[i] for i in index]
    assert abs(jpeg_accuracy - npz_accuracy) < 0.05, "quality-90 JPEGs should barely move the accuracy"


def test_class_names_are_the_labels_file(server):
    assert len(LABELS) == 10 and LABELS[0] == "T-shirt/top" and LABELS[9] == "Ankle boot"
    paths = [p for p in files("png") if row_and_label(p)[1] in (0, 9)][:4]
    _, name, score = classify(httpclient, server.http_url, paths)
    assert set(name) <= set(LABELS)
    assert ((score > 0) & (score <= 1)).all()


def png_bomb() -> bytes:
    """A 69-byte PNG whose header claims 100000 x 100000 gray pixels."""
    def chunk(tag: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data))
    header = struct.pack(">IIBBBBB", 100000, 100000, 8, 0, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(b"\x00" * 64)) +
            chunk(b"IEND", b""))


@pytest.mark.parametrize("bad, fault", [
    ("truncated-jpeg", "row 1: JPEG data is truncated"),
    ("png-bomb", "row 1: PNG header claims 100000 x 100000 pixels (10000000000), more than max_pixels 40000000"),
    ("empty", "row 1: empty: expected the contents of a PNG or JPEG file"),
    ("not-an-image", "row 1: not a PNG or JPEG file"),
])
def test_broken_images_get_a_400_naming_the_fault_and_the_server_stays_ready(server, bad, fault):
    good = files("png")[0].read_bytes()
    jpeg = files("jpeg")[0].read_bytes()
    payload = {"truncated-jpeg": jpeg[: len(jpeg) // 2], "png-bomb": png_bomb(), "empty": b"",
               "not-an-image": b"GIF89a\x01\x00\x01\x00"}[bad]
    client = httpclient.InferenceServerClient(server.http_url)
    data = np.array([[good], [payload]], dtype=object)
    inp = httpclient.InferInput("image", [2, 1], "BYTES")
    inp.set_data_from_numpy(data)
    with pytest.raises(InferenceServerException) as e:
        client.infer("fashion", [inp])
    assert e.value.status() == "400", e.value.message()
    assert "step 'fashion_decode'" in e.value.message() and f"input 'image' {fault}" in e.value.message(), \
        e.value.message()
    # gRPC gets the same fault as INVALID_ARGUMENT.
    g = grpcclient.InferenceServerClient(server.grpc_url)
    ginp = grpcclient.InferInput("image", [2, 1], "BYTES")
    ginp.set_data_from_numpy(data)
    with pytest.raises(InferenceServerException) as ge:
        g.infer("fashion", [ginp])
    assert "INVALID_ARGUMENT" in str(ge.value.status()) and fault in ge.value.message()
    # The server is still ready and still classifies.
    assert client.is_server_ready()
    assert client.is_model_ready("fashion")
    index, _, _ = classify(httpclient, server.http_url, files("png")[:3])
    assert len(index) == 3


def test_evaluate_on_the_ensemble_from_image_files(hone_bin, python_reference, tmp_path):
    """hone evaluate on the served pipeline, from the image files and their labels: the accuracy of the model on
    the .npz rows, and a report that keeps its schema."""
    import json
    import subprocess
    import sys

    sys.path.insert(0, str(pathlib.Path(__file__).parent))
    from test_report_schemas import validate

    r = subprocess.run([str(hone_bin), "evaluate", "fashion", "--model-repository", str(EXAMPLE),
                        "--output-name", "logits", "--data", str(IMAGES / "png"),
                        "--labels-file", str(IMAGES / "labels.txt"), "--quiet", "--json", "-"],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    report = json.loads(r.stdout)
    validate(report)
    metrics = {name: m["value"] for name, m in report["evaluate"]["metrics"].items()}
    logits, labels = python_reference
    expected = float(np.mean(np.argmax(logits, axis=1) == labels))
    assert abs(metrics["accuracy"] - expected) < 1e-9, (metrics["accuracy"], expected)
    # Labels that do not match the samples are named.
    short = tmp_path / "labels.txt"
    short.write_text("1\n2\n")
    r = subprocess.run([str(hone_bin), "evaluate", "fashion", "--model-repository", str(EXAMPLE),
                        "--output-name", "logits", "--data", str(IMAGES / "png"), "--labels-file", str(short),
                        "--quiet"], capture_output=True, text=True, timeout=300)
    assert r.returncode == 2 and "2 labels for 1000 samples" in r.stderr, r.stderr
