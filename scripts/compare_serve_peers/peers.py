"""scripts/compare-serve-peers' Python side, run in .venv-peers:

    peers.py inputs --npz models/fashion_mnist/test.npz --out DIR
        perf_analyzer's --input-data files: DIR/fashion.json (the first ROWS test images) and DIR/wide.json (ROWS
        rows of uniform [0, 1) floats from a fixed seed), one row a request, cycled by perf_analyzer.
    peers.py check --data DIR --model fashion --model wide --target 'LABEL=URL' ...
        one JSON request with each model's first row to every target (URL with {m} for the model's name; the first
        target is the reference); every other target's logits must match the reference's within --atol. Exit 1
        otherwise.
    peers.py report --dir DIR --runs N ...
        the table: medians of the rounds' perf_analyzer CSVs, per model, concurrency and server, and the ratios.
"""
import argparse
import csv
import json
import os
import statistics
import sys
import urllib.error
import urllib.request

import numpy as np

ROWS = 8
WIDE_SHAPE = [3, 48, 192]


def cmd_inputs(args):
    images = np.load(args.npz)["image"][:ROWS].astype(np.float32)
    wide = np.random.default_rng(12).random((ROWS, *WIDE_SHAPE), dtype=np.float32)
    for name, rows in (("fashion", images), ("wide", wide)):
        with open(os.path.join(args.out, f"{name}.json"), "w") as f:
            json.dump({"data": [{"image": {"content": r.reshape(-1).tolist(), "shape": list(r.shape)}}
                                for r in rows]}, f)


def infer(url, row):
    body = json.dumps({"inputs": [{"name": "image", "datatype": "FP32", "shape": [1] + row["shape"],
                                   "data": row["content"]}]}).encode()
    request = urllib.request.Request(url, data=body, headers={"Content-Type": "application/json"}, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            reply = json.load(response)
    except urllib.error.HTTPError as e:
        raise RuntimeError(f"HTTP {e.code}: {e.read()[:300]!r}") from None
    except (urllib.error.URLError, OSError) as e:
        raise RuntimeError(str(e)) from None
    outputs = {o["name"]: o for o in reply.get("outputs", [])}
    if "logits" not in outputs:
        raise RuntimeError(f"no output 'logits' in the reply: {json.dumps(reply)[:300]}")
    logits = outputs["logits"]
    values = np.asarray(logits["data"], dtype=np.float64).reshape(-1)
    if list(logits["shape"]) != [1, 10] or values.size != 10:
        raise RuntimeError(f"output 'logits': expected shape [1, 10], got {logits['shape']} ({values.size} values)")
    return values


def cmd_check(args):
    targets = [t.partition("=")[::2] for t in args.target]
    failed = False
    for model in args.model:
        row = json.load(open(os.path.join(args.data, f"{model}.json")))["data"][0]["image"]
        reference = None
        for label, url in targets:
            try:
                logits = infer(url.replace("{m}", model), row)
            except RuntimeError as e:
                print(f"  {model:<8} {label:<30} FAILED: {e}")
                failed = True
                continue
            if reference is None:
                reference = logits
                print(f"  {model:<8} {label:<30} reference, argmax {int(np.argmax(logits))}, "
                      f"logits[0] {logits[0]:.6f}")
                continue
            diff = float(np.max(np.abs(logits - reference)))
            ok = diff <= args.atol
            failed |= not ok
            print(f"  {model:<8} {label:<30} max |difference| {diff:.2e} {'ok' if ok else f'> {args.atol:g}: WRONG'}")
        if reference is None:
            failed = True
    return 1 if failed else 0


def read_point(path):
    with open(path) as f:
        row = next(csv.DictReader(f))
    return float(row["Inferences/Second"]), float(row["p50 latency"]), float(row["p99 latency"])


def cmd_report(args):
    servers = [s.partition("=")[::2] for s in args.server]  # key=label
    labels = dict(servers)
    concurrencies = [int(c) for c in args.concurrency.split()]
    medians, notes = {}, []
    for model in args.models.split():
        for c in concurrencies:
            for key, label in servers:
                points = []
                for r in range(1, args.runs + 1):
                    path = os.path.join(args.dir, f"{key}.{model}.c{c}.r{r}")
                    if os.path.exists(path + ".csv"):
                        # infer/s, p50, p99, then the cores the server and the client used
                        cpu = open(path + ".cpu").read().split() if os.path.exists(path + ".cpu") else ["nan"] * 2
                        points.append(read_point(path + ".csv") + tuple(float(v) for v in cpu))
                if len(points) < args.runs:
                    notes.append(f"{model}, concurrency {c}, {label}: {args.runs - len(points)} of {args.runs} "
                                 f"rounds had no stable measurement")
                if points:
                    medians[key, model, c] = tuple(statistics.median(p[i] for p in points) for i in range(5))

    def ms(us):
        return f"{us / 1000:.2f} ms"

    ratios = [(r.split("/")[0], r.split("/")[1], f"hone/{labels[r.split('/')[1]]}") for r in args.ratio]
    ratio_width = max(len(text) for text in [label for _, label in servers] + [t for _, _, t in ratios]) + 2
    print(f"{'model':<9}{'conc':>4}  {'server':<{ratio_width}}{'infer/s':>10}{'p50':>11}{'p99':>11}"
          f"{'server CPU':>12}{'client CPU':>12}")
    for model in args.models.split():
        for i, c in enumerate(concurrencies):
            first = True
            for key, label in servers:
                lead = f"{model if i == 0 and first else '':<9}{c if first else '':>4}  "
                first = False
                m = medians.get((key, model, c))
                if m is None:
                    print(f"{lead}{label:<{ratio_width}}{'unstable':>10}")
                    continue
                print(f"{lead}{label:<{ratio_width}}{m[0]:>10.0f}{ms(m[1]):>11}{ms(m[2]):>11}{m[3]:>12.2f}"
                      f"{m[4]:>12.2f}")
            for reference, peer, text in ratios:
                a, b = medians.get((reference, model, c)), medians.get((peer, model, c))
                if a is None or b is None:
                    print(f"{'':<15}{text:<{ratio_width}}{'-':>10}")
                    continue
                print(f"{'':<15}{text:<{ratio_width}}{a[0] / b[0]:>9.2f}x{a[1] / b[1]:>10.2f}x{a[2] / b[2]:>10.2f}x")
            print()
    print("infer/s, p50 and p99: perf_analyzer's, medians of the rounds. Ratios use hone with JSON tensors: infer/s")
    print("above 1 means hone serves more; p50 and p99 below 1 mean hone answers sooner. server CPU and client CPU:")
    print("cores the server and perf_analyzer used over perf_analyzer's whole run (warm-up included), medians.")
    for note in notes:
        print(f"note: {note}")
    if args.cpu_log and os.path.exists(args.cpu_log):
        worst = {}
        for line in open(args.cpu_log):
            measured, other, cores = line.split()
            worst[other] = max(worst.get(other, 0.0), float(cores))
        if worst:
            text = ", ".join(f"{k} {v * 100:.1f}%" for k, v in sorted(worst.items()))
            print(f"idle servers: the most CPU each used while another was measured, in % of one core: {text}")
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("inputs")
    p.add_argument("--npz", required=True)
    p.add_argument("--out", required=True)
    p = sub.add_parser("check")
    p.add_argument("--data", required=True)
    p.add_argument("--model", action="append", required=True)
    p.add_argument("--target", action="append", required=True, metavar="LABEL=URL")
    p.add_argument("--atol", type=float, default=1e-4)
    p = sub.add_parser("report")
    p.add_argument("--dir", required=True)
    p.add_argument("--runs", type=int, required=True)
    p.add_argument("--models", required=True)
    p.add_argument("--concurrency", required=True)
    p.add_argument("--server", action="append", required=True, metavar="KEY=LABEL")
    p.add_argument("--ratio", action="append", default=[], metavar="KEY/KEY")
    p.add_argument("--cpu-log")
    args = parser.parse_args()
    return {"inputs": lambda: cmd_inputs(args) or 0, "check": lambda: cmd_check(args),
            "report": lambda: cmd_report(args)}[args.command]()


if __name__ == "__main__":
    sys.exit(main())
