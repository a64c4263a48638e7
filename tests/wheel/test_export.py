"""hone.export with torch (Debian's python3-torch 1.13, in a venv that sees the system's packages:
scripts/build-wheel --test makes one when /usr/bin/python3 has torch; elsewhere these tests skip, saying so).

What it shows: a CNN and a transformer encoder with dynamic batch and sequence axes export and verify at two
shapes; a module whose traced export is wrong (a data-dependent branch the trace fixed) fails with the output and
the rule, writes nothing at the path and keeps the model and inputs for reproduction; bad arguments are named.
"""

from __future__ import annotations

import os
import pathlib

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="hone.export needs torch (Debian's python3-torch)")

import hone  # noqa: E402

ROOT = pathlib.Path(os.environ.get("HONE_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2]))
DATA = ROOT / "models" / "fashion_mnist" / "test.npz"


class Encoder(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = torch.nn.Embedding(100, 32)
        layer = torch.nn.TransformerEncoderLayer(32, 4, 64, batch_first=True)
        self.encoder = torch.nn.TransformerEncoder(layer, 2)
        self.head = torch.nn.Linear(32, 8)

    def forward(self, ids):
        return self.head(self.encoder(self.embed(ids)).mean(1))


class Branchy(torch.nn.Module):
    """Traced with a positive example, the export keeps `x * 2` for every input."""

    def forward(self, x):
        if x.sum() > 0:
            return x * 2
        return x + 1


def test_a_cnn_exports_and_verifies_at_two_batch_sizes(tmp_path):
    torch.manual_seed(0)
    cnn = torch.nn.Sequential(torch.nn.Conv2d(1, 8, 3), torch.nn.ReLU(), torch.nn.MaxPool2d(2), torch.nn.Flatten(),
                              torch.nn.Linear(8 * 13 * 13, 10))
    images = np.load(DATA)["image"][:16]
    path = tmp_path / "cnn.onnx"
    report = hone.export(cnn, torch.zeros(1, 1, 28, 28), path, input_names=["image"], output_names=["logits"],
                         dynamic_axes={"image": {0: "batch"}, "logits": {0: "batch"}}, data={"image": images})
    assert report.shapes_checked == [{"image": (16, 1, 28, 28)}, {"image": (15, 1, 28, 28)}]
    assert all(c.passed for c in report.comparisons)
    out = hone.Session(path).run({"image": images})["logits"]
    with torch.no_grad():
        np.testing.assert_allclose(out, cnn(torch.from_numpy(images)).numpy(), rtol=1e-4, atol=1e-5)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cnn.onnx"], "no staging file left behind"


def test_a_transformer_encoder_with_dynamic_batch_and_sequence(tmp_path):
    torch.manual_seed(0)
    ids = torch.randint(0, 100, (4, 12))
    report = hone.export(Encoder(), ids, tmp_path / "encoder.onnx", input_names=["ids"], output_names=["out"],
                         dynamic_axes={"ids": {0: "batch", 1: "sequence"}, "out": {0: "batch"}})
    assert report.shapes_checked == [{"ids": (4, 12)}, {"ids": (3, 11)}]
    assert all(c.passed for c in report.comparisons)
    (ids_input,) = hone.Session(tmp_path / "encoder.onnx").inputs
    assert ids_input.shape == (None, None) and ids_input.symbols == ("batch", "sequence")


def test_a_wrong_export_fails_naming_the_output_and_keeps_what_reproduces_it(tmp_path):
    path = tmp_path / "branchy.onnx"
    path.write_bytes(b"the user's previous file")
    with pytest.raises(hone.ExportMismatchError) as e:
        hone.export(Branchy(), torch.ones(2, 3), path, input_names=["x"], output_names=["y"],
                    dynamic_axes={"x": {0: "n"}}, data={"x": -np.ones((4, 3), np.float32)})
    message = str(e.value)
    assert "differs from the module on inputs x [4, 3]" in message
    assert "output 'y'" in message and "cosine similarity" in message
    assert "Converting a tensor to a Python boolean" in message, "the exporter's own warning is passed on"
    assert path.read_bytes() == b"the user's previous file", "nothing is written to the path on a mismatch"
    kept = hone.Session(f"{path}.failed.onnx").run(dict(np.load(f"{path}.mismatch-inputs.npz")))["y"]
    np.testing.assert_array_equal(kept, -2 * np.ones((4, 3), np.float32)), "the kept model reproduces it"
    assert e.value.exit_status == 1


def test_bad_arguments_are_named(tmp_path):
    with pytest.raises(hone.InvalidArgumentError, match="2 input names for 1 example inputs"):
        hone.export(Branchy(), torch.ones(2, 3), tmp_path / "m.onnx", input_names=["a", "b"])
    with pytest.raises(hone.InvalidArgumentError, match="data has no array for input 'x'"):
        hone.export(Branchy(), torch.ones(2, 3), tmp_path / "m.onnx", input_names=["x"], data={"y": np.ones(3)})
    with pytest.raises(hone.InvalidArgumentError, match="does not exist"):
        hone.export(Branchy(), torch.ones(2, 3), tmp_path / "missing" / "m.onnx")


def test_the_hone_export_command_takes_torchscript_and_module_paths(tmp_path):
    import subprocess
    import sys
    hone_cmd = str(pathlib.Path(sys.executable).parent / "hone")
    torch.manual_seed(0)
    cnn = torch.nn.Sequential(torch.nn.Conv2d(1, 4, 3), torch.nn.ReLU(), torch.nn.Flatten(), torch.nn.Linear(4 * 26 * 26, 10))
    torch.jit.save(torch.jit.trace(cnn, torch.zeros(1, 1, 28, 28)), tmp_path / "cnn.pt")
    ok = subprocess.run([hone_cmd, "export", str(tmp_path / "cnn.pt"), "-o", str(tmp_path / "cnn.onnx"), "--input",
                         "image:float32:1x1x28x28", "--output-name", "logits", "--dynamic", "image:0:batch",
                         "logits:0:batch", "--data", str(DATA)], capture_output=True, text=True)
    assert ok.returncode == 0, ok.stderr
    assert "outputs logits match the module on 2 input shape(s): image [2000, 1, 28, 28]; image [1999, 1, 28, 28]" \
        in ok.stdout
    (tmp_path / "planted.py").write_text(
        "import torch\n"
        "class Branchy(torch.nn.Module):\n"
        "    def forward(self, x):\n"
        "        return x * 2 if x.sum() > 0 else x + 1\n")
    np.savez(tmp_path / "positive.npz", x=np.full((4, 3), 3.0, np.float32))  # x * 2 = 6 in torch, x + 1 = 4 exported
    bad = subprocess.run([hone_cmd, "export", "planted:Branchy", "-o", str(tmp_path / "b.onnx"), "--input",
                          "x:float32:2x3", "--data", str(tmp_path / "positive.npz")], capture_output=True, text=True,
                         cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(tmp_path)})
    # Traced on the zeros example (the `x + 1` branch); the data takes the other one in torch.
    assert bad.returncode == 1, bad.stderr
    assert "differs from the module on inputs x [4, 3]" in bad.stderr and not (tmp_path / "b.onnx").exists()
    usage = subprocess.run([hone_cmd, "export", "nothing:here", "-o", str(tmp_path / "n.onnx"), "--input",
                            "x:float32:2x3"], capture_output=True, text=True)
    assert usage.returncode == 2 and "No module named 'nothing'" in usage.stderr
    # Other commands are the binary's.
    assert subprocess.run([hone_cmd, "info", str(tmp_path / "cnn.onnx")], capture_output=True).returncode == 0
