#!/usr/bin/python3
"""Train a small Fashion-MNIST CNN and export it to ONNX for hone's tests and examples.

Run with Debian's Python (python3-torch, python3-onnx, python3-numpy):

    /usr/bin/python3 models/fashion_mnist/train_export.py

Data: the Debian package `dataset-fashion-mnist` (gzipped IDX files under
/usr/share/datasets/fashion-mnist). Nothing is downloaded.

Outputs, next to this script:

- model.onnx            input "image" float32 [batch,1,28,28], pixels scaled to [0,1] (the model normalizes
                        internally); output "logits" float32 [batch,10]; opset 17; dynamic batch axis.
- test.npz              the held-out labeled test set: the FIRST 2,000 images of the official Fashion-MNIST
                        test split (t10k), in file order. Keys: "image" float32 [2000,1,28,28] in [0,1],
                        "label" int64 [2000]. None of these images is used for training (training uses only
                        the 60,000-image train split).
- reference_logits.npy  PyTorch's logits for the 2,000 held-out images, float32 [2000,10], so a runtime
                        (e.g. hone's ONNX Runtime side) can compare its outputs against them.
- export_report.json    versions, seed, epochs, accuracies, export-check numbers, parameter count, file sizes.

Export check: onnx.checker.check_model, then the exported graph is executed on the 2,000 held-out images by a
small NumPy interpreter in this file (Debian's onnx 1.12 has no onnx.reference) and, if `onnxruntime` happens
to be importable, by ONNX Runtime as well. Each executor's max abs difference against the PyTorch logits must
be <= TOLERANCE (1e-4), or the script fails.

Reproducible: fixed seeds for torch and numpy, single fixed shuffling generator, 2 CPU threads.
"""

import gzip
import json
import os
import sys
import time

import numpy as np
import onnx
import torch
import torch.nn as nn
import torch.nn.functional as F
from onnx import numpy_helper

SEED = 20240531
EPOCHS = 3
BATCH_SIZE = 128
LEARNING_RATE = 2e-3
OPSET = 17
HELD_OUT = 2000
TOLERANCE = 1e-4  # max abs difference between exported-graph logits and PyTorch logits
THREADS = 2

DATA_DIR = "/usr/share/datasets/fashion-mnist"
OUT_DIR = os.path.dirname(os.path.abspath(__file__))

CLASSES = [
    "T-shirt/top", "Trouser", "Pullover", "Dress", "Coat",
    "Sandal", "Shirt", "Sneaker", "Bag", "Ankle boot",
]

# Mean and standard deviation of the Fashion-MNIST train pixels in [0,1]; baked into the model as constants.
PIXEL_MEAN = 0.2860
PIXEL_STD = 0.3530


def read_idx(path):
    """Parse a gzipped IDX file (big-endian header: magic, dims) into a numpy array."""
    with gzip.open(path, "rb") as f:
        data = f.read()
    magic = int.from_bytes(data[0:4], "big")
    if magic >> 8 != 0x08:  # 0x08 = unsigned byte
        raise ValueError(f"{path}: unsupported IDX magic {magic:#x}")
    ndim = magic & 0xFF
    dims = [int.from_bytes(data[4 + 4 * i: 8 + 4 * i], "big") for i in range(ndim)]
    offset = 4 + 4 * ndim
    arr = np.frombuffer(data, dtype=np.uint8, offset=offset)
    if arr.size != int(np.prod(dims)):
        raise ValueError(f"{path}: expected {np.prod(dims)} values, found {arr.size}")
    return arr.reshape(dims)


def load_split(prefix):
    images = read_idx(os.path.join(DATA_DIR, f"{prefix}-images-idx3-ubyte.gz"))
    labels = read_idx(os.path.join(DATA_DIR, f"{prefix}-labels-idx1-ubyte.gz"))
    x = (images.astype(np.float32) / np.float32(255.0)).reshape(-1, 1, 28, 28)
    y = labels.astype(np.int64)
    return x, y


class FashionCNN(nn.Module):
    """conv(1->16,3x3) ReLU maxpool, conv(16->32,3x3) ReLU maxpool, flatten, linear(->64) ReLU, linear(->10)."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 16, 3, padding=1)
        self.conv2 = nn.Conv2d(16, 32, 3, padding=1)
        self.fc1 = nn.Linear(32 * 7 * 7, 64)
        self.fc2 = nn.Linear(64, 10)

    def forward(self, image):
        x = (image - PIXEL_MEAN) / PIXEL_STD
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)  # 16x14x14
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)  # 32x7x7
        x = torch.flatten(x, 1)
        x = F.relu(self.fc1(x))
        return self.fc2(x)


def predict(model, x, batch=1000):
    model.eval()
    outs = []
    with torch.no_grad():
        for i in range(0, len(x), batch):
            outs.append(model(torch.from_numpy(x[i:i + batch])).numpy())
    return np.concatenate(outs).astype(np.float32)


# ---------------------------------------------------------------------------------------------------------------
# A minimal NumPy executor for the handful of ONNX operators this export produces. It exists only to check the
# exported graph where no ONNX runtime is installed; any other operator raises NotImplementedError.


def _attrs(node):
    return {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}


def _conv(x, w, b, at):
    if at.get("group", 1) != 1 or any(d != 1 for d in at.get("dilations", [1, 1])):
        raise NotImplementedError("Conv with groups/dilations")
    kh, kw = w.shape[2], w.shape[3]
    if at.get("auto_pad", b"NOTSET") not in (b"NOTSET", "NOTSET"):
        raise NotImplementedError("Conv auto_pad")
    pt, pl, pb, pr = at.get("pads", [0, 0, 0, 0])
    sh, sw = at.get("strides", [1, 1])
    x = np.pad(x, ((0, 0), (0, 0), (pt, pb), (pl, pr)))
    n, c, h, wd = x.shape
    oh, ow = (h - kh) // sh + 1, (wd - kw) // sw + 1
    cols = np.empty((n, c, kh, kw, oh, ow), dtype=np.float64)
    for i in range(kh):
        for j in range(kw):
            cols[:, :, i, j] = x[:, :, i:i + sh * oh:sh, j:j + sw * ow:sw]
    y = np.einsum("nckloq,mckl->nmoq", cols, w.astype(np.float64), optimize=True)
    if b is not None:
        y = y + b.reshape(1, -1, 1, 1)
    return y


def _maxpool(x, at):
    kh, kw = at["kernel_shape"]
    sh, sw = at.get("strides", [1, 1])
    if any(at.get("pads", [0, 0, 0, 0])) or at.get("ceil_mode", 0) or any(d != 1 for d in at.get("dilations", [1, 1])):
        raise NotImplementedError("MaxPool with pads/ceil_mode/dilations")
    n, c, h, w = x.shape
    oh, ow = (h - kh) // sh + 1, (w - kw) // sw + 1
    y = np.full((n, c, oh, ow), -np.inf, dtype=x.dtype)
    for i in range(kh):
        for j in range(kw):
            y = np.maximum(y, x[:, :, i:i + sh * oh:sh, j:j + sw * ow:sw])
    return y


def numpy_run(model_proto, feeds):
    """Evaluate the graph in float64 and return the outputs cast to float32."""
    env = {init.name: numpy_helper.to_array(init).astype(np.float64) if numpy_helper.to_array(init).dtype.kind == "f"
           else numpy_helper.to_array(init) for init in model_proto.graph.initializer}
    env.update({k: v.astype(np.float64) for k, v in feeds.items()})
    for node in model_proto.graph.node:
        at = _attrs(node)
        ins = [env[n] if n else None for n in node.input]
        op = node.op_type
        if op == "Conv":
            out = _conv(ins[0], ins[1], ins[2] if len(ins) > 2 else None, at)
        elif op == "MaxPool":
            out = _maxpool(ins[0], at)
        elif op == "Relu":
            out = np.maximum(ins[0], 0)
        elif op == "Sub":
            out = ins[0] - ins[1]
        elif op == "Div":
            out = ins[0] / ins[1]
        elif op == "Add":
            out = ins[0] + ins[1]
        elif op == "Mul":
            out = ins[0] * ins[1]
        elif op == "Constant":
            out = numpy_helper.to_array(at["value"])
            if out.dtype.kind == "f":
                out = out.astype(np.float64)
        elif op == "Flatten":
            axis = at.get("axis", 1)
            out = ins[0].reshape(int(np.prod(ins[0].shape[:axis])), -1)
        elif op == "Reshape":
            out = ins[0].reshape([d if d != 0 else ins[0].shape[i] for i, d in enumerate(ins[1].tolist())])
        elif op == "Gemm":
            a = ins[0].T if at.get("transA", 0) else ins[0]
            b = ins[1].T if at.get("transB", 0) else ins[1]
            out = at.get("alpha", 1.0) * (a @ b)
            if len(ins) > 2 and ins[2] is not None:
                out = out + at.get("beta", 1.0) * ins[2]
        elif op == "MatMul":
            out = ins[0] @ ins[1]
        else:
            raise NotImplementedError(f"numpy executor: operator {op}")
        env[node.output[0]] = out
    return [env[o.name].astype(np.float32) for o in model_proto.graph.output]


def file_size(name):
    return os.path.getsize(os.path.join(OUT_DIR, name))


def main():
    t_start = time.time()
    torch.set_num_threads(THREADS)
    torch.manual_seed(SEED)
    np.random.seed(SEED)
    torch.use_deterministic_algorithms(True)

    x_train, y_train = load_split("train")
    x_test, y_test = load_split("t10k")
    assert x_train.shape == (60000, 1, 28, 28) and x_test.shape == (10000, 1, 28, 28)
    print(f"loaded train {x_train.shape}, test {x_test.shape} from {DATA_DIR}")

    model = FashionCNN()
    n_params = sum(p.numel() for p in model.parameters())
    opt = torch.optim.Adam(model.parameters(), lr=LEARNING_RATE)
    steps_per_epoch = (len(x_train) + BATCH_SIZE - 1) // BATCH_SIZE
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=LEARNING_RATE, epochs=EPOCHS,
                                                steps_per_epoch=steps_per_epoch)
    rng = np.random.default_rng(SEED)
    xt, yt = torch.from_numpy(x_train), torch.from_numpy(y_train)
    for epoch in range(EPOCHS):
        model.train()
        perm = torch.from_numpy(rng.permutation(len(x_train)))
        total_loss = 0.0
        for i in range(0, len(perm), BATCH_SIZE):
            idx = perm[i:i + BATCH_SIZE]
            loss = F.cross_entropy(model(xt[idx]), yt[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total_loss += loss.item() * len(idx)
        acc = float((predict(model, x_test).argmax(1) == y_test).mean())
        print(f"epoch {epoch + 1}/{EPOCHS}: train loss {total_loss / len(perm):.4f}, "
              f"test acc {acc:.4f} ({time.time() - t_start:.0f} s)")

    model.eval()
    logits_test = predict(model, x_test)
    acc_full = float((logits_test.argmax(1) == y_test).mean())
    x_held, y_held = np.ascontiguousarray(x_test[:HELD_OUT]), y_test[:HELD_OUT]
    ref_logits = predict(model, x_held)
    acc_held = float((ref_logits.argmax(1) == y_held).mean())
    print(f"PyTorch accuracy: held-out {HELD_OUT} = {acc_held:.4f}, full 10k test = {acc_full:.4f}")

    # Export.
    onnx_path = os.path.join(OUT_DIR, "model.onnx")
    torch.onnx.export(
        model, torch.from_numpy(x_held[:1]), onnx_path,
        input_names=["image"], output_names=["logits"],
        dynamic_axes={"image": {0: "batch"}, "logits": {0: "batch"}},
        opset_version=OPSET, do_constant_folding=True,
    )
    np.savez_compressed(os.path.join(OUT_DIR, "test.npz"), image=x_held, label=y_held.astype(np.int64))
    np.save(os.path.join(OUT_DIR, "reference_logits.npy"), ref_logits)

    # Check the export.
    proto = onnx.load(onnx_path)
    onnx.checker.check_model(proto, full_check=True)
    ops = sorted({n.op_type for n in proto.graph.node})
    print(f"onnx.checker: ok; opset {proto.opset_import[0].version}; operators {ops}")

    checks = {}
    np_logits = numpy_run(proto, {"image": x_held})[0]
    checks["numpy_executor"] = float(np.abs(np_logits - ref_logits).max())
    try:
        import onnxruntime as ort  # optional; not a dependency of this script
    except ImportError:
        ort = None
    if ort is not None:
        sess = ort.InferenceSession(onnx_path, providers=["CPUExecutionProvider"])
        ort_logits = sess.run(["logits"], {"image": x_held})[0]
        checks[f"onnxruntime {ort.__version__}"] = float(np.abs(ort_logits - ref_logits).max())
    for name, diff in checks.items():
        print(f"export check ({name}): max abs diff vs PyTorch logits = {diff:.3e} (tolerance {TOLERANCE:g})")

    files = ["model.onnx", "test.npz", "reference_logits.npy", "export_report.json"]
    report = {
        "torch_version": torch.__version__,
        "onnx_version": onnx.__version__,
        "numpy_version": np.__version__,
        "onnx_opset": OPSET,
        "operators": ops,
        "training_epochs": EPOCHS,
        "batch_size": BATCH_SIZE,
        "seed": SEED,
        "threads": THREADS,
        "held_out": f"first {HELD_OUT} images of the official Fashion-MNIST test split (t10k)",
        "accuracy_held_out_2000": acc_held,
        "accuracy_test_10000": acc_full,
        "export_check_tolerance_max_abs": TOLERANCE,
        "export_check_max_abs_diff": checks,
        "parameter_count": int(n_params),
        "classes": CLASSES,
        "input": {"name": "image", "dtype": "float32", "shape": ["batch", 1, 28, 28], "range": [0.0, 1.0]},
        "output": {"name": "logits", "dtype": "float32", "shape": ["batch", 10]},
        "train_seconds": round(time.time() - t_start, 1),
    }
    report_path = os.path.join(OUT_DIR, "export_report.json")
    # The report lists its own size, so write it twice: the second write settles the number.
    for _ in range(3):
        report["file_sizes_bytes"] = {f: (file_size(f) if os.path.exists(os.path.join(OUT_DIR, f)) else 0)
                                      for f in files}
        with open(report_path, "w") as f:
            json.dump(report, f, indent=2)
            f.write("\n")
    print(json.dumps(report, indent=2))

    failed = {k: v for k, v in checks.items() if not v <= TOLERANCE}
    if failed:
        print(f"FAIL: export check exceeds tolerance {TOLERANCE:g}: {failed}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
