"""The installed wheel, in a fresh venv (scripts/build-wheel --test): the package is the installed one, not the
source tree; hone.Session runs the bundled Fashion-MNIST CNN as PyPI's onnxruntime of the same release does;
outputs are ONNX Runtime's buffers, kept alive by the arrays; errors are hone.Error subclasses with hone's
messages; threads run one session at once (the GIL is released); the `hone` console entry is the real binary.
"""

from __future__ import annotations

import concurrent.futures
import gc
import os
import pathlib
import subprocess
import sys

import numpy as np
import onnxruntime
import pytest

import hone

ROOT = pathlib.Path(os.environ.get("HONE_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2]))
MODEL = ROOT / "models" / "fashion_mnist" / "model.onnx"
DATA = ROOT / "models" / "fashion_mnist" / "test.npz"
HONE = pathlib.Path(sys.executable).parent / "hone"


@pytest.fixture(scope="module")
def images():
    return np.load(DATA)["image"][:64]


@pytest.fixture(scope="module")
def session():
    return hone.Session(MODEL, threads=2)


def test_the_installed_package_is_the_one_imported():
    package = pathlib.Path(hone.__file__).resolve().parent
    assert package.is_relative_to(pathlib.Path(sys.prefix).resolve()), package
    assert not package.is_relative_to((ROOT / "python").resolve()), "the source tree was imported, not the wheel"
    cmake = (ROOT / "CMakeLists.txt").read_text()
    assert f"project(hone VERSION {hone.__version__}" in cmake
    assert hone.onnxruntime_version() == "1.30.0"
    assert (package / "lib" / "libonnxruntime.so.1").is_file()
    assert "MIT License" in (package / "lib" / "onnxruntime" / "LICENSE").read_text()


def test_metadata_names_the_inputs_and_outputs(session):
    (image,) = session.inputs
    assert (image.name, image.dtype, image.shape, image.symbols) == ("image", "float32", (None, 1, 28, 28),
                                                                     ("batch", "", "", ""))
    assert [o.name for o in session.outputs] == ["logits"]
    assert session.path == str(MODEL)


def test_run_gives_what_onnxruntime_gives(session, images):
    ort = onnxruntime.InferenceSession(str(MODEL), providers=["CPUExecutionProvider"])
    for batch in (images[:1], images[:7], images):
        ours = session.run({"image": batch})["logits"]
        theirs = ort.run(["logits"], {"image": batch})[0]
        assert ours.shape == (len(batch), 10) and ours.dtype == np.float32
        np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-5)
    # A strided view is made contiguous first, and lists become arrays of the input's dtype.
    strided = np.asfortranarray(images[:3])
    np.testing.assert_array_equal(session.run({"image": strided})["logits"],
                                  session.run({"image": np.ascontiguousarray(strided)})["logits"])
    listed = session.run({"image": images[:2].tolist()})["logits"]
    np.testing.assert_array_equal(listed, session.run({"image": images[:2]})["logits"])


def test_outputs_are_onnxruntimes_buffers_and_outlive_the_session(images):
    s = hone.Session(MODEL, threads=1)
    out = s.run({"image": images[:4]})["logits"]
    expected = out.copy()
    assert not out.flags.owndata, "the array views ONNX Runtime's buffer, no copy"
    del s
    gc.collect()
    np.testing.assert_array_equal(out, expected)


def test_errors_are_hone_errors_with_hones_messages(session, images):
    with pytest.raises(hone.NotFoundError) as e:
        hone.Session("/nonexistent/model.onnx")
    assert "/nonexistent/model.onnx" in str(e.value)
    assert isinstance(e.value, FileNotFoundError) and e.value.exit_status == 2
    with pytest.raises(hone.InvalidArgumentError, match="input 'image' is float64; the model takes float32"):
        session.run({"image": images[:1].astype(np.float64)})
    with pytest.raises(hone.InvalidArgumentError, match="input 'image' is missing"):
        session.run({})
    with pytest.raises(hone.InvalidArgumentError, match=r"the model has no input 'pixels' \(its inputs: image\)"):
        session.run({"image": images[:1], "pixels": images[:1]})
    with pytest.raises(hone.InvalidArgumentError, match="image"):
        session.run({"image": images[:1, 0]})  # rank 3, the model takes rank 4
    with pytest.raises(ValueError, match="optimization must be one of"):
        hone.Session(MODEL, optimization="maximal")
    with pytest.raises(hone.InvalidArgumentError):
        hone.Session(DATA)  # not an ONNX model
    # The extension module itself never reads a strided array through a copy it has freed: it refuses it.
    with pytest.raises(hone.InvalidArgumentError, match="C-contiguous"):
        session._impl.run({"image": np.asfortranarray(images[:2])})
    assert session.run({"image": images[:1]})["logits"].shape == (1, 10), "still usable after the errors"


def test_threads_run_one_session_together(session, images):
    alone = [session.run({"image": images[i:i + 8]})["logits"] for i in range(0, 64, 8)]
    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        together = list(pool.map(lambda i: session.run({"image": images[i:i + 8]})["logits"], range(0, 64, 8)))
    for a, b in zip(alone, together):
        np.testing.assert_array_equal(a, b)


def test_the_console_entry_is_the_hone_binary(tmp_path):
    assert HONE.exists(), HONE
    info = subprocess.run([str(HONE), "info", str(MODEL)], capture_output=True, text=True)
    assert info.returncode == 0, info.stderr
    assert "image" in info.stdout and "logits" in info.stdout
    bad = subprocess.run([str(HONE), "bench", str(MODEL), "--concurrency", "zero"], capture_output=True, text=True)
    assert bad.returncode == 2 and "concurrency" in bad.stderr
    version = subprocess.run([str(HONE), "--version"], capture_output=True, text=True)
    assert hone.__version__ in version.stdout + version.stderr
