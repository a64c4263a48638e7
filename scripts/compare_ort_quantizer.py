"""The Python half of scripts/compare-ort-quantizer (run inside its virtual environment, with PyPI's onnxruntime).

  quantize: ONNX Runtime's quantize_dynamic and quantize_static (QDQ, MinMax, the same calibration rows as hone)
            on one model, writing <out>/<name>.ort-dynamic.onnx and <out>/<name>.ort-static.onnx.
  report:   runs the float model and every variant on held-out rows with onnxruntime, reads each variant's
            `hone bench --json` report, and prints one table: size, p50 and throughput as ratios to the float model,
            max error and cosine similarity of the first output, argmax agreement and accuracy when the data has
            labels.
"""
import argparse
import json
import os
import sys

import numpy as np
import onnx
import onnxruntime as ort
from onnxruntime.quantization import (CalibrationDataReader, CalibrationMethod, QuantFormat, QuantType,
                                      quantize_dynamic, quantize_static)

LABEL_KEYS = ("label", "labels", "target", "targets", "y")


def load_inputs(model_path, data_path):
    names = [i.name for i in onnx.load(model_path, load_external_data=False).graph.input]
    data = np.load(data_path)
    inputs = {n: data[n] for n in names if n in data.files}
    labels = next((data[k] for k in LABEL_KEYS if k in data.files), None)
    return inputs, labels


class Rows(CalibrationDataReader):
    """The first `rows` samples, `batch` at a time: the rows hone's --calibration-samples takes."""

    def __init__(self, inputs, rows, batch=16):
        self.inputs, self.rows, self.batch, self.at = inputs, rows, batch, 0

    def get_next(self):
        if self.at >= self.rows:
            return None
        end = min(self.at + self.batch, self.rows)
        out = {n: a[self.at:end] for n, a in self.inputs.items()}
        self.at = end
        return out


def cmd_quantize(args):
    inputs, _ = load_inputs(args.model, args.data)
    base = os.path.join(args.out, args.name)
    quantize_dynamic(args.model, base + ".ort-dynamic.onnx", per_channel=True, weight_type=QuantType.QInt8,
                     reduce_range=args.reduce_range)
    quantize_static(args.model, base + ".ort-static.onnx", Rows(inputs, args.cal_rows), quant_format=QuantFormat.QDQ,
                    per_channel=True, activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8,
                    calibrate_method=CalibrationMethod.MinMax, reduce_range=args.reduce_range)


def run(path, inputs, batch):
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    session = ort.InferenceSession(path, options, providers=["CPUExecutionProvider"])
    rows = len(next(iter(inputs.values())))
    outs = []
    for at in range(0, rows, batch):
        outs.append(session.run(None, {n: a[at:at + batch] for n, a in inputs.items()})[0])
    return np.concatenate(outs).astype(np.float64)


def bench_figures(path):
    with open(path) as f:
        point = json.load(f)["bench"]["points"][0]
    return point["latency_us"]["p50"], point["throughput"]["samples_per_s"], point["stable"]


def cmd_report(args):
    inputs, labels = load_inputs(args.model, args.data)
    rows = slice(args.cal_rows, args.cal_rows + args.rows)
    held = {n: a[rows] for n, a in inputs.items()}
    labels = labels[rows] if labels is not None else None
    reference = run(args.model, held, args.batch)
    size0 = os.path.getsize(args.model)
    p50_0, tput0, stable0 = bench_figures(args.bench_dir + "/float.json")
    print(f"\n{args.name}: {args.model}; held-out rows {rows.start}..{rows.start + len(reference) - 1} of {args.data}; "
          f"onnxruntime {ort.__version__}; bench: hone bench, closed loop, concurrency 1, batch 1, 1 intra-op thread")
    head = f"{'variant':<14} {'size':>10} {'size x':>7} {'p50 ms':>8} {'speed x':>8} {'thr/s':>8} {'max err':>9} " \
           f"{'cosine':>9} {'argmax =':>9} {'accuracy':>9}"
    print(head)
    print("-" * len(head))
    for variant in ["float"] + args.variants:
        path = args.model if variant == "float" else os.path.join(args.out, f"{args.name}.{variant}.onnx")
        out = reference if variant == "float" else run(path, held, args.batch)
        a, b = reference.reshape(len(reference), -1), out.reshape(len(out), -1)
        err = float(np.max(np.abs(a - b)))
        cosine = float(np.sum(a * b) / (np.linalg.norm(a) * np.linalg.norm(b)))
        agree = acc = "-"
        if reference.ndim == 2:
            agree = f"{100 * np.mean(np.argmax(a, 1) == np.argmax(b, 1)):.2f}%"
            if labels is not None:
                acc = f"{np.mean(np.argmax(b, 1) == labels):.4f}"
        p50, tput, stable = bench_figures(os.path.join(args.bench_dir, variant + ".json"))
        size = os.path.getsize(path)
        flag = "" if stable and stable0 else " (unstable)"
        print(f"{variant:<14} {size / 2**20:>8.2f}Mi {size / size0:>6.2f}x {p50 / 1000:>8.3f} {p50_0 / p50:>7.2f}x "
              f"{tput:>8.1f} {err:>9.4g} {cosine:>9.6f} {agree:>9} {acc:>9}{flag}")
    print("size x: variant bytes / float bytes; speed x: float p50 / variant p50 (above 1 is faster); max err and "
          "cosine: first output against the float model on the held-out rows (argmax =: same predicted class)")


def main():
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="command", required=True)
    q = sub.add_parser("quantize")
    r = sub.add_parser("report")
    for p in (q, r):
        p.add_argument("--model", required=True)
        p.add_argument("--data", required=True)
        p.add_argument("--name", required=True)
        p.add_argument("--out", required=True)
        p.add_argument("--cal-rows", type=int, required=True)
    q.add_argument("--reduce-range", action="store_true")
    r.add_argument("--rows", type=int, default=1500)
    r.add_argument("--batch", type=int, default=32)
    r.add_argument("--bench-dir", required=True)
    r.add_argument("--variants", nargs="+", required=True)
    args = parser.parse_args()
    (cmd_quantize if args.command == "quantize" else cmd_report)(args)


if __name__ == "__main__":
    sys.exit(main())
