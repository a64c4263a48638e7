"""The Python half of scripts/compare-olive.

  split:  (standard library only) writes an .npz of rows FROM..END of every array of an .npz, for hone evaluate and
          hone bench on the held-out rows.
  olive:  (inside .venv-olive, with olive-ai) builds an Olive workflow for the model and runs it: ONNX Runtime
          quantization (OnnxQuantization: dynamic or static, per-channel or not, static calibrated on the first
          CAL_ROWS rows) followed by ONNX Runtime session-parameter tuning (OrtSessionParamsTuning: intra-op threads
          and execution mode), searched pass by pass, every search point scored by Olive's evaluator: accuracy on the
          held-out rows with labels (goal: at most 0.01 below the input model's) and average latency at batch 1 (the
          objective). Writes OUT/workflow.json, OUT/olive.log and OUT/choice.json (the chosen model file, its
          session settings, how it was made, and every candidate Olive scored).
  repo:   (standard library only) writes a model repository serving choice.json's model under the name "olive",
          with the ONNX Runtime session settings Olive chose and no batching.
  table:  (standard library only) reads every hone bench and hone evaluate report and prints the comparison.
  point:  (standard library only) one hone bench report in a line.

This file is also the Olive workflow's user_script: imported by Olive, it registers the data set ("hone_npz_rows")
and the post-processing ("hone_argmax") that the workflow's data configs name.
"""
import argparse
import ast
import json
import os
import statistics
import struct
import sys
import zipfile

# ---------------------------------------------------------------------------------------------------------------
# .npz without numpy (the plain python3 on PATH may not have it): C-order arrays, sliced along the first axis.

ITEM_SIZES = {"b1": 1, "i1": 1, "u1": 1, "i2": 2, "u2": 2, "f2": 2, "i4": 4, "u4": 4, "f4": 4, "i8": 8, "u8": 8,
              "f8": 8}


def read_npy(raw):
    if raw[:6] != b"\x93NUMPY":
        raise ValueError("not an .npy member")
    major = raw[6]
    if major == 1:
        (hlen,), start = struct.unpack("<H", raw[8:10]), 10
    else:
        (hlen,), start = struct.unpack("<I", raw[8:12]), 12
    header = ast.literal_eval(raw[start:start + hlen].decode("latin1"))
    if header["fortran_order"]:
        raise ValueError("Fortran-order arrays are not supported")
    return header["descr"], tuple(header["shape"]), raw[start + hlen:]


def write_npy(descr, shape, data):
    text = "{'descr': %r, 'fortran_order': False, 'shape': %r, }" % (descr, tuple(shape))
    pad = 64 - (10 + len(text) + 1) % 64
    header = (text + " " * (pad % 64) + "\n").encode("latin1")
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header + data


def cmd_split(args):
    with zipfile.ZipFile(args.data) as src, zipfile.ZipFile(args.out, "w", zipfile.ZIP_STORED) as dst:
        for name in src.namelist():
            descr, shape, data = read_npy(src.read(name))
            row = ITEM_SIZES[descr.lstrip("<>|=")]
            for d in shape[1:]:
                row *= d
            end = shape[0] if args.end is None else min(args.end, shape[0])
            dst.writestr(name, write_npy(descr, (end - args.start,) + shape[1:], data[args.start * row:end * row]))


# ---------------------------------------------------------------------------------------------------------------
# Olive's data components (registered when Olive imports this file as the workflow's user_script).

try:
    from olive.data.registry import Registry
except ImportError:
    Registry = None

if Registry is not None:
    import numpy as np
    import torch

    class NpzRows(torch.utils.data.Dataset):
        """Rows START..END of an .npz: ({input name: one sample}, label)."""

        def __init__(self, path, input_name, label_name, start, end):
            data = np.load(path)
            self.inputs = np.ascontiguousarray(data[input_name][start:end], dtype=np.float32)
            self.labels = data[label_name][start:end].astype(np.int64)
            self.input_name = input_name

        def __len__(self):
            return len(self.labels)

        def __getitem__(self, i):
            return {self.input_name: self.inputs[i]}, self.labels[i]

    @Registry.register_dataset("hone_npz_rows")
    def hone_npz_rows(path, start, end, input_name="image", label_name="label", **kwargs):
        return NpzRows(path, input_name, label_name, start, end)

    @Registry.register_post_process("hone_argmax")
    def hone_argmax(output, **kwargs):
        return output.argmax(dim=-1)


def search(values):
    return {"olive_parameter_type": "SearchParameter", "type": "Categorical", "support": values}


def workflow(args):
    script = os.path.abspath(__file__)
    held = {"path": os.path.abspath(args.data), "start": args.cal_rows, "end": args.end}

    def data_config(name, params, batch_size, post=None):
        config = {"name": name, "user_script": script,
                  "load_dataset_config": {"type": "hone_npz_rows", "params": params},
                  "dataloader_config": {"type": "default_dataloader", "params": {"batch_size": batch_size}}}
        if post:
            config["post_process_data_config"] = {"type": post}
        return config

    return {
        "workflow_id": "compare_olive",
        "input_model": {"type": "ONNXModel", "model_path": os.path.abspath(args.model)},
        "systems": {"local": {"type": "LocalSystem", "accelerators": [
            {"device": "cpu", "execution_providers": ["CPUExecutionProvider"]}]}},
        "data_configs": [
            data_config("calibration", {"path": held["path"], "start": 0, "end": args.cal_rows}, 16),
            data_config("held_out", held, 100, "hone_argmax"),
            data_config("latency", held, 1),
        ],
        # "type" given: without it Olive 0.13 fails before the run (its resource scan reads the evaluator's
        # "type": null as a resource type and raises AttributeError: 'NoneType' object has no attribute 'lower').
        "evaluators": {"accuracy_and_latency": {"type": "OnnxEvaluator", "metrics": [
            {"name": "accuracy", "type": "accuracy", "data_config": "held_out", "sub_types": [
                {"name": "accuracy_score", "priority": 2, "goal": {"type": "max-degradation", "value": 0.01},
                 "metric_config": {"task": "multiclass", "num_classes": 10}}]},
            {"name": "latency", "type": "latency", "data_config": "latency", "sub_types": [
                {"name": "avg", "priority": 1,
                 "metric_config": {"warmup_num": args.warmup, "repeat_test_num": args.repeat}},
                {"name": "p90"}]},
        ]}},
        "passes": {
            "quantization": {
                "type": "OnnxQuantization",
                "quant_mode": search(["dynamic", "static"]),
                "per_channel": search([False, True]),
                "reduce_range": args.reduce_range,
                "precision": "int8",
                "quant_preprocess": True,
                "data_config": "calibration",
                "calibrate_method": "MinMax",
                "quant_format": "QDQ",
                "activation_type": "uint8",
            },
            "session_params_tuning": {
                "type": "OrtSessionParamsTuning",
                "data_config": "latency",
                "intra_thread_num_list": search(args.threads),
                "execution_mode_list": search([0, 1]),
            },
        },
        "engine": {
            "search_strategy": {"execution_order": "pass-by-pass", "sampler": "sequential"},
            "evaluator": "accuracy_and_latency",
            "evaluate_input_model": True,
            "host": "local",
            "target": "local",
            "cache_dir": os.path.join(os.path.abspath(args.out), "cache"),
            "output_dir": os.path.join(os.path.abspath(args.out), "output"),
            "log_severity_level": 1,
        },
    }


def metric_values(metrics):
    """{"accuracy-accuracy_score": 0.9, "latency-avg": 0.2, ...} from a footprint node's or output's metrics."""
    if metrics is None:
        return {}
    value = metrics.get("value", metrics) if isinstance(metrics, dict) else metrics.value.to_json()
    return {k: (v["value"] if isinstance(v, dict) else v) for k, v in value.items()}


def cmd_olive(args):
    import logging

    import onnxruntime
    import olive
    from olive.workflows import run as olive_run

    os.makedirs(args.out, exist_ok=True)
    config = workflow(args)
    with open(os.path.join(args.out, "workflow.json"), "w") as f:
        json.dump(config, f, indent=2)
    handler = logging.FileHandler(os.path.join(args.out, "olive.log"))
    handler.setFormatter(logging.Formatter("%(asctime)s %(name)s %(levelname)s %(message)s"))
    logging.getLogger("olive").addHandler(handler)

    output = olive_run(config)
    if output is None or not output.has_output_model():
        raise SystemExit("compare_olive: Olive produced no output model (olive.log says why)")
    best = output.get_best_candidate()
    footprint = output.footprint

    def made_by(model_id):
        """The pass configs on the way from the input model to model_id, first pass first."""
        steps, node = [], footprint.nodes[model_id]
        while node.parent_model_id is not None:
            run = node.pass_run_config or {}
            steps.append({"pass": node.from_pass, "config": run.get("config", run)})
            node = footprint.nodes[node.parent_model_id]
        return list(reversed(steps))

    def summary(model_id, node):
        cfg = (node.model_config_data or {}).get("config", {})
        return {"model_id": model_id, "model_path": cfg.get("model_path"),
                "inference_settings": cfg.get("inference_settings"),
                "metrics": metric_values({"value": node.metrics.value.to_json()}), "made_by": made_by(model_id)}

    candidates = [summary(k, v) for k, v in footprint.nodes.items() if v.metrics and v.parent_model_id is not None]
    # The footprint's node keeps the session settings (the saved output's model_config loses them).
    best_node = summary(best.model_id, footprint.nodes[best.model_id])
    choice = {
        "olive_version": getattr(olive, "__version__", None),
        "onnxruntime_version": onnxruntime.__version__,
        "model_path": best.model_path,
        "model_id": best.model_id,
        "inference_settings": best_node["inference_settings"],
        "metrics": metric_values(best.metrics),
        "made_by": made_by(best.model_id),
        "input_model_metrics": metric_values(output.get_input_model_metrics()),
        "candidates": candidates,
    }
    with open(os.path.join(args.out, "choice.json"), "w") as f:
        json.dump(choice, f, indent=2, default=str)
    print(f"olive: chose {best.model_path} ({describe_olive(choice)}; session: {session_words(choice)})")


# ---------------------------------------------------------------------------------------------------------------
# What Olive chose, in words and as a model repository.

def session_options(choice):
    return (choice.get("inference_settings") or {}).get("session_options") or {}


def session_words(choice):
    opts = session_options(choice)
    mode = {0: "sequential", 1: "parallel"}.get(opts.get("execution_mode"), "default mode")
    words = [f"intra_op_threads={opts.get('intra_op_num_threads', 'default')}", mode]
    if opts.get("execution_mode") == 1:
        words.append(f"inter_op_threads={opts.get('inter_op_num_threads', 'default')}")
    if opts.get("graph_optimization_level") is not None:
        words.append(f"graph level {opts['graph_optimization_level']}")
    return ", ".join(words)


def quant_config(choice):
    for step in choice.get("made_by", []):
        if "quantiz" in str(step.get("pass", "")).lower():
            return step.get("config") or {}
    return None


def describe_olive(choice):
    q = quant_config(choice)
    if q is None:
        return "fp32"
    mode = q.get("quant_mode", "?")
    words = [f"int8 {mode}"]
    if mode == "static":
        words.append(f"{q.get('quant_format', '?')} {q.get('calibrate_method', '?')}")
        words.append(f"activations {q.get('activation_type', '?')}")
    words.append("per-channel" if q.get("per_channel") else "per-tensor")
    if q.get("reduce_range"):
        words.append("reduce_range")
    return ", ".join(words)


# ONNX Runtime's GraphOptimizationLevel -> Triton's optimization.graph.level (as hone serve reads it).
GRAPH_LEVELS = {0: 2, 1: -1, 2: 1, 99: 0}


def cmd_repo(args):
    with open(args.choice) as f:
        choice = json.load(f)
    opts = session_options(choice)
    params = {}
    if opts.get("intra_op_num_threads") is not None:
        params["intra_op_thread_count"] = opts["intra_op_num_threads"]
    if opts.get("execution_mode") is not None:
        params["execution_mode"] = opts["execution_mode"]
        if opts["execution_mode"] == 1 and opts.get("inter_op_num_threads") is not None:
            params["inter_op_thread_count"] = opts["inter_op_num_threads"]
    lines = ['name: "olive"', 'platform: "onnxruntime_onnx"', "max_batch_size: 0",
             f'input [ {{ name: "{args.input}" data_type: TYPE_FP32 dims: [ {args.input_dims} ] }} ]',
             f'output [ {{ name: "{args.output}" data_type: TYPE_FP32 dims: [ {args.output_dims} ] }} ]',
             "instance_group [ { count: 1 kind: KIND_CPU } ]"]
    for key, value in params.items():
        lines.append(f'parameters {{ key: "{key}" value {{ string_value: "{value}" }} }}')
    level = opts.get("graph_optimization_level")
    if level is not None:
        lines.append(f"optimization {{ graph {{ level: {GRAPH_LEVELS[int(level)]} }} }}")
    os.makedirs(os.path.join(args.out, "olive", "1"), exist_ok=True)
    with open(os.path.join(args.out, "olive", "config.pbtxt"), "w") as f:
        f.write("\n".join(lines) + "\n")
    with open(choice["model_path"], "rb") as src, open(os.path.join(args.out, "olive", "1", "model.onnx"), "wb") as dst:
        dst.write(src.read())
    words = ", ".join(f"{k} {v}" for k, v in params.items()) or "ONNX Runtime's defaults"
    served = f"no batching, 1 instance, {words}"
    with open(os.path.join(args.out, "served.txt"), "w") as f:
        f.write(served + "\n")
    print(served)


# ---------------------------------------------------------------------------------------------------------------
# The table.

def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def bench_point(path):
    report = load(path)
    if not report:
        return None
    point = report["bench"]["points"][0]
    return {"sps": point["throughput"]["samples_per_s"], "p99": point["latency_us"]["p99"] / 1000,
            "p50": point["latency_us"]["p50"] / 1000, "stable": point["stable"], "errors": point.get("errors", 0)}


def accuracy(path):
    report = load(path)
    if not report:
        return None
    return report["evaluate"]["candidate"]["quality"]["classification"]["accuracy"]


def spread(values, fmt):
    if not values:
        return "-"
    med = statistics.median(values)
    return f"{fmt.format(med)} ({fmt.format(min(values))}..{fmt.format(max(values))})"


def cmd_table(args):
    olive_dir, hone_dir = os.path.join(args.dir, "olive"), os.path.join(args.dir, "hone")
    choice = load(os.path.join(olive_dir, "choice.json"))
    report = load(os.path.join(hone_dir, "tune", "report.json"))
    failed = None
    if os.path.exists(os.path.join(olive_dir, "failed.txt")):
        with open(os.path.join(olive_dir, "failed.txt")) as f:
            failed = f.read().strip()
    rows = []
    olive_row = {"who": "Olive " + (choice or {}).get("olive_version", "") if choice else "Olive",
                 "model": f"Olive's best ({describe_olive(choice)})" if choice else "-",
                 "served": "-", "file": "Olive's output model.onnx" if choice else "-", "failed": failed}
    if os.path.exists(os.path.join(olive_dir, "repository", "served.txt")):
        with open(os.path.join(olive_dir, "repository", "served.txt")) as f:
            olive_row["served"] = f.read().strip()
    rows.append(("olive", olive_row))
    hone_row = {"who": "hone tune", "model": "-", "served": "-", "file": "repository/model/1/model.onnx"}
    if report:
        winner = report["tune"]["winner"]
        hone_row["model"] = f"{winner['id']} ({winner['settings']['precision']})"
        hone_row["served"] = winner["settings"]["description"]
    rows.append(("hone", hone_row))

    slo_ms = args.slo_ms
    print()
    print(f"Olive and hone tune on {args.model}, each served by hone serve and measured by the same hone bench over "
          f"HTTP (binary tensors, closed loop, concurrency {args.concurrency}, one sample a request, the held-out rows "
          f"as inputs); {args.rounds} rounds in the order Olive,hone,hone,Olive,Olive,hone; median (min..max) of the "
          f"rounds. Accuracy: hone evaluate on rows {args.held_out} (the same rows for both).")
    print()
    print(f"| who | model (precision) | served config | samples/s at concurrency {args.concurrency} | p99 ms | "
          f"accuracy on held-out rows | meets p99<={slo_ms:g}ms |")
    print("|---|---|---|---|---|---|---|")
    medians = {}
    for who, row in rows:
        d = os.path.join(args.dir, who)
        rounds = [p for p in (bench_point(os.path.join(d, f"served.{r}.json")) for r in range(1, args.rounds + 1))
                  if p]
        acc = accuracy(os.path.join(d, "evaluate.json"))
        acc_text = "-" if acc is None else f"{acc:.4f}"
        if not rounds:
            reason = row.get("failed") or "not measured"
            print(f"| {row['who']} | {row['model']} | {row['served']} | not measured: {reason} | - | {acc_text} | - |")
            continue
        sps = [p["sps"] for p in rounds]
        p99 = [p["p99"] for p in rounds]
        medians[who] = statistics.median(sps)
        met = sum(v <= slo_ms for v in p99)
        notes = []
        unstable = sum(not p["stable"] for p in rounds)
        errors = sum(p["errors"] for p in rounds)
        if unstable:
            notes.append(f"{unstable} of {len(rounds)} rounds unstable")
        if errors:
            notes.append(f"{errors} errors")
        note = f" ({'; '.join(notes)})" if notes else ""
        print(f"| {row['who']} | {row['model']} | {row['served']} | {spread(sps, '{:.0f}')}{note} | "
              f"{spread(p99, '{:.2f}')} | {acc_text} | "
              f"{'yes' if statistics.median(p99) <= slo_ms else 'no'} ({met} of {len(rounds)} rounds) |")
    print()
    if "olive" in medians and "hone" in medians:
        print(f"throughput hone/Olive (medians): {medians['hone'] / medians['olive']:.2f}x")
    else:
        print("throughput hone/Olive: - (one side was not measured)")
    print()
    print(f"Context: the bare model files in process (hone bench MODEL --concurrency {args.concurrency}, no server, "
          f"ONNX Runtime's default threads, one run each)")
    print()
    print("| who | model file | samples/s | p50 ms | p99 ms |")
    print("|---|---|---|---|---|")
    for who, row in rows:
        point = bench_point(os.path.join(args.dir, who, "inprocess.json"))
        if point is None:
            print(f"| {row['who']} | {row['file']} | - | - | - |")
            continue
        flag = "" if point["stable"] else " (unstable)"
        print(f"| {row['who']} | {row['file']} | {point['sps']:.0f}{flag} | {point['p50']:.3f} | {point['p99']:.3f} |")
    if choice:
        print()
        print("Olive's own scores (its evaluator: accuracy on the held-out rows, average latency of one sample at a "
              "time in process, fastest first; * = its choice)")
        print()
        print("| passes | session settings | accuracy | latency avg ms |")
        print("|---|---|---|---|")
        base = choice.get("input_model_metrics") or {}
        if base:
            print(f"| (input model, fp32) | ONNX Runtime's defaults | {base.get('accuracy-accuracy_score', 0):.4f} | "
                  f"{base.get('latency-avg', 0):.4f} |")
        for c in sorted(choice["candidates"], key=lambda c: c["metrics"].get("latency-avg", float("inf"))):
            passes = describe_olive(c) if quant_config(c) is not None else "-"
            session = session_words(c) if c.get("inference_settings") else "ONNX Runtime's defaults"
            mark = "*" if c["model_id"] == choice["model_id"] else ""
            print(f"| {mark}{passes} | {session} | {c['metrics'].get('accuracy-accuracy_score', 0):.4f} | "
                  f"{c['metrics'].get('latency-avg', 0):.4f} |")


def cmd_point(args):
    point = bench_point(args.json)
    if point:
        print(f"   {args.label}: {point['sps']:.0f} samples/s, p99 {point['p99']:.2f} ms"
              f"{'' if point['stable'] else ' (unstable)'}")


def main():
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="command", required=True)
    s = sub.add_parser("split")
    s.add_argument("--data", required=True)
    s.add_argument("--start", type=int, required=True)
    s.add_argument("--end", type=int)
    s.add_argument("--out", required=True)
    o = sub.add_parser("olive")
    o.add_argument("--model", required=True)
    o.add_argument("--data", required=True)
    o.add_argument("--cal-rows", type=int, required=True)
    o.add_argument("--end", type=int, required=True)
    o.add_argument("--threads", type=int, nargs="+", required=True)
    o.add_argument("--reduce-range", action="store_true")
    o.add_argument("--warmup", type=int, default=100)
    o.add_argument("--repeat", type=int, default=1000)
    o.add_argument("--out", required=True)
    r = sub.add_parser("repo")
    r.add_argument("--choice", required=True)
    r.add_argument("--input", default="image")
    r.add_argument("--input-dims", default="-1, 1, 28, 28")
    r.add_argument("--output", default="logits")
    r.add_argument("--output-dims", default="-1, 10")
    r.add_argument("--out", required=True)
    t = sub.add_parser("table")
    t.add_argument("--dir", required=True)
    t.add_argument("--model", required=True)
    t.add_argument("--rounds", type=int, required=True)
    t.add_argument("--concurrency", type=int, required=True)
    t.add_argument("--slo-ms", type=float, required=True)
    t.add_argument("--held-out", required=True)
    pt = sub.add_parser("point")
    pt.add_argument("--json", required=True)
    pt.add_argument("--label", required=True)
    args = parser.parse_args()
    {"split": cmd_split, "olive": cmd_olive, "repo": cmd_repo, "table": cmd_table, "point": cmd_point}[args.command](
        args)


if __name__ == "__main__":
    sys.exit(main())
