"""scripts/compare-pipelines' Python side, run in .venv-pipelines:

    pipelines.py texts --out DIR [--count 200] [--from FILE] [--tokenizer tokenizer.json]
        the text pipeline's workload: DIR/texts.json (the texts) and DIR/perf.json (perf_analyzer's --input-data:
        one text a request, cycled). By default the first paragraph of the long Description of the installed Debian
        packages (/var/lib/dpkg/status: real prose, 8 to ~120 words), at least 8 words, the COUNT whose package
        names come first in SHA-256 order (deterministic on a machine; installing a package changes at most one).
        --from FILE takes the texts from a JSON-lines file of strings instead (the first COUNT non-empty ones).
        Prints the count, a digest of the texts and their lengths in words and tokens.
    pipelines.py check-text --data DIR --hone URL --python URL --tokenizer tokenizer.json [--tokenize-url URL]
        every text, in requests of 8 (JSON tensors), to hone (the reference) and the Python app: cosine >= --min-cos
        for every text, or exit 1. With --tokenize-url (hone's minilm_tokenize), also compares hone's token ids
        with `tokenizers`' (set up as text_app.py sets it up) and reports any difference (a note, not a failure).
    pipelines.py images --out DIR [--dir examples/image-classification/images] [--count 200] [--format mixed]
        the image pipeline's workload: DIR/images.json (the files and their true labels) and DIR/perf.json
        (perf_analyzer's --input-data: one file a request, cycled, each as base64 of the BYTES tensor's binary
        serialisation: a 4-byte little-endian length, then the file's bytes). The first COUNT of the example's test
        images (Fashion-MNIST's test set in order, written by scripts/fetch-models), as PNG, as JPEG, or (mixed)
        alternating: even rows PNG, odd rows JPEG. Prints the count, a digest of the files and their sizes.
    pipelines.py check-image --data DIR --hone URL --python URL [--max-score-diff 1e-4]
        every image, in requests of 8 (binary tensors in, JSON out), to hone (the reference) and the Python app: the
        same class_index and class_name for every image and scores within --max-score-diff, or exit 1; also prints
        the largest logit difference and both servers' accuracy against the true labels, and checks that one
        request answered with binary outputs (as perf_analyzer asks) says what the JSON answer says, on both.
    pipelines.py report --dir DIR --runs N --concurrency "1 16" --server KEY=LABEL ... [--stages ...]
        the table: for each concurrency and server, the rounds' perf_analyzer CSVs (infer/s, p50, p99) as medians
        with their spread (min-max), the cores the server and the client used, the ratios hone/Python; then where
        hone's server-side time goes, stage by stage, from its /v2/models/stats before and after each point.
"""
import argparse
import base64
import csv
import glob
import hashlib
import json
import os
import re
import statistics
import struct
import sys
import urllib.error
import urllib.request

import numpy as np

DPKG_STATUS = "/var/lib/dpkg/status"


# ---- workload -----------------------------------------------------------------------------------------------------

def package_texts(path=DPKG_STATUS, min_words=8):
    """(package, text) for every installed package whose long description's first paragraph has min_words."""
    out = {}
    with open(path, encoding="utf-8", errors="replace") as f:
        blocks = f.read().split("\n\n")
    for block in blocks:
        package = re.search(r"^Package: *(\S+)", block, re.M)
        description = re.search(r"^Description:[^\n]*\n((?:[ \t][^\n]*(?:\n|$))*)", block, re.M)
        if not package or not description:
            continue
        first = re.split(r"\n[ \t]+\.[ \t]*(?:\n|$)", description.group(1))[0]
        text = " ".join(first.split())
        if len(text.split()) >= min_words:
            out.setdefault(package.group(1), text)  # one a package, whatever its architectures
    return sorted(out.items(), key=lambda kv: hashlib.sha256(kv[0].encode()).hexdigest())


def cmd_texts(args):
    if args.from_file:
        with open(args.from_file, encoding="utf-8") as f:
            texts = [t for t in (json.loads(line) for line in f if line.strip()) if isinstance(t, str) and t.strip()]
        source = args.from_file
    else:
        texts, seen = [], set()
        for _, text in package_texts():
            if text not in seen:
                seen.add(text)
                texts.append(text)
        source = f"{DPKG_STATUS} (the installed packages' descriptions)"
    texts = texts[:args.count]
    if len(texts) < args.count:
        print(f"pipelines.py texts: only {len(texts)} texts from {source}, {args.count} wanted", file=sys.stderr)
        if not texts:
            return 1
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "texts.json"), "w", encoding="utf-8") as f:
        json.dump(texts, f, ensure_ascii=False)
    with open(os.path.join(args.out, "perf.json"), "w", encoding="utf-8") as f:
        json.dump({"data": [{"text": {"content": [t], "shape": [1]}} for t in texts]}, f, ensure_ascii=False)
    digest = hashlib.sha256("\n".join(texts).encode()).hexdigest()[:12]
    words = [len(t.split()) for t in texts]
    line = (f"{len(texts)} texts from {source}, sha256 {digest}; words min {min(words)}, median "
            f"{statistics.median(words):g}, max {max(words)}")
    if args.tokenizer:
        from text_app import MAX_LENGTH, load_tokenizer
        tokenizer = load_tokenizer(args.tokenizer)
        tokenizer.no_padding()
        tokens = [len(e.ids) for e in tokenizer.encode_batch(texts)]
        line += (f"; tokens (with [CLS] and [SEP], truncated at {MAX_LENGTH}) min {min(tokens)}, median "
                 f"{statistics.median(tokens):g}, mean {statistics.mean(tokens):.1f}, max {max(tokens)}")
    print(line)
    return 0


# ---- correctness --------------------------------------------------------------------------------------------------

def post(url, body):
    request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            reply = json.load(response)
    except urllib.error.HTTPError as e:
        raise RuntimeError(f"{url}: HTTP {e.code}: {e.read()[:300]!r}") from None
    except (urllib.error.URLError, OSError) as e:
        raise RuntimeError(f"{url}: {e}") from None
    return {o["name"]: o for o in reply.get("outputs", [])}


def text_request(texts):
    return {"inputs": [{"name": "text", "datatype": "BYTES", "shape": [len(texts), 1], "data": texts}]}


def embed(url, texts):
    out = post(url, text_request(texts)).get("embedding")
    if out is None or list(out["shape"]) != [len(texts), 384]:
        raise RuntimeError(f"{url}: expected an output 'embedding' of shape [{len(texts)}, 384], got "
                           f"{None if out is None else out['shape']}")
    return np.asarray(out["data"], dtype=np.float64).reshape(len(texts), 384)


def cmd_check_text(args):
    texts = json.load(open(os.path.join(args.data, "texts.json"), encoding="utf-8"))
    # Beyond the workload: one text far over the 256-token limit (truncation) and an empty one ([CLS] [SEP]).
    texts = texts + [" ".join(texts[:40]), ""]
    try:
        hone = np.concatenate([embed(args.hone, texts[i:i + 8]) for i in range(0, len(texts), 8)])
        python = np.concatenate([embed(args.python, texts[i:i + 8]) for i in range(0, len(texts), 8)])
    except RuntimeError as e:
        print(f"  FAILED: {e}")
        return 1
    cos = np.sum(hone * python, axis=1) / (np.linalg.norm(hone, axis=1) * np.linalg.norm(python, axis=1))
    worst = int(np.argmin(cos))
    diff = float(np.max(np.abs(hone - python)))
    ok = bool(cos.min() >= args.min_cos)
    print(f"  embeddings of {len(texts)} texts (the workload's, one over 256 tokens, an empty one; requests of 8): "
          f"cosine hone/Python min {cos.min():.7f} (text {worst}: {texts[worst][:40]!r}), median "
          f"{np.median(cos):.7f}; max |difference| {diff:.2e}; {'ok' if ok else f'below {args.min_cos}: WRONG'}")
    norms = np.linalg.norm(python, axis=1)
    if np.max(np.abs(norms - 1)) > 1e-4:
        print(f"  note: the Python app's embeddings are not unit length (norms {norms.min():.6f}-{norms.max():.6f})")
    if args.tokenize_url:
        from text_app import load_tokenizer
        tokenizer = load_tokenizer(args.tokenizer)
        mismatched = []
        for i in range(0, len(texts), 8):
            batch = texts[i:i + 8]
            try:
                out = post(args.tokenize_url, text_request(batch))
            except RuntimeError as e:
                print(f"  FAILED: {e}")
                return 1
            width = out["input_ids"]["shape"][1]
            ids = np.asarray(out["input_ids"]["data"], dtype=np.int64).reshape(len(batch), width)
            mask = np.asarray(out["attention_mask"]["data"], dtype=np.int64).reshape(len(batch), width)
            for row, encoding in enumerate(tokenizer.encode_batch(batch)):
                theirs = [t for t, m in zip(encoding.ids, encoding.attention_mask) if m]
                ours = [int(t) for t, m in zip(ids[row], mask[row]) if m]
                if ours != theirs or width != len(encoding.ids):
                    mismatched.append((i + row, len(ours), len(theirs), width, len(encoding.ids)))
        if mismatched:
            print(f"  note: hone's minilm_tokenize and `tokenizers` differ on {len(mismatched)} of {len(texts)} texts"
                  f" (text, hone tokens, tokenizers tokens, hone width, tokenizers width): {mismatched[:5]}")
        else:
            print(f"  token ids: hone's minilm_tokenize and `tokenizers` agree on all {len(texts)} texts "
                  f"(and on the padded width of every request)")
    return 0 if ok else 1


# ---- the image pipeline -------------------------------------------------------------------------------------------

def serialize_bytes(values):
    """BYTES elements in the binary tensor layout: each a 4-byte little-endian length, then its bytes."""
    return b"".join(struct.pack("<I", len(v)) + v for v in values)


def cmd_images(args):
    found = {}
    for kind, pattern in (("png", "png/*.png"), ("jpeg", "jpeg/*.jpg")):
        for path in glob.glob(os.path.join(args.dir, pattern)):
            match = re.fullmatch(r"(\d+)_label(\d+)\.(?:png|jpg)", os.path.basename(path))
            if match:
                found[kind, int(match.group(1))] = (path, int(match.group(2)))
    rows = []
    for row in range(args.count):
        kind = args.format if args.format != "mixed" else ("png", "jpeg")[row % 2]
        if (kind, row) not in found:
            print(f"pipelines.py images: no {kind} file for row {row} under {args.dir} (scripts/fetch-models writes "
                  f"them)", file=sys.stderr)
            return 1
        path, label = found[kind, row]
        rows.append({"file": os.path.abspath(path), "label": label, "format": kind})
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "images.json"), "w") as f:
        json.dump(rows, f)
    contents = [open(r["file"], "rb").read() for r in rows]
    with open(os.path.join(args.out, "perf.json"), "w") as f:
        # perf_analyzer sends a "b64" content as the tensor's raw data as is: for BYTES that is the binary
        # serialisation (length, then bytes), not the file alone.
        json.dump({"data": [{"image": {"content": {"b64": base64.b64encode(serialize_bytes([c])).decode()},
                                       "shape": [1]}} for c in contents]}, f)
    digest = hashlib.sha256(b"".join(hashlib.sha256(c).digest() for c in contents)).hexdigest()[:12]
    sizes = [len(c) for c in contents]
    kinds = {k: sum(r["format"] == k for r in rows) for k in ("png", "jpeg")}
    layout = {"mixed": "even rows PNG, odd rows JPEG", "png": "PNG", "jpeg": "JPEG (quality 90)"}[args.format]
    print(f"{len(rows)} images from {args.dir}: rows 0-{len(rows) - 1} of Fashion-MNIST's test set, {layout} "
          f"({kinds['png']} PNG, {kinds['jpeg']} JPEG; 28x28 gray), sha256 {digest}; bytes min {min(sizes)}, median "
          f"{statistics.median(sizes):g}, max {max(sizes)}")
    return 0


def infer_binary(url, files, binary_outputs=False):
    """One request of `files` (an [n, 1] BYTES input `image`, a binary tensor) -> {output: ndarray, or a list of
    str for BYTES}, with the outputs answered in binary when binary_outputs."""
    data = serialize_bytes(files)
    header = {"inputs": [{"name": "image", "datatype": "BYTES", "shape": [len(files), 1],
                          "parameters": {"binary_data_size": len(data)}}]}
    if binary_outputs:
        header["parameters"] = {"binary_data_output": True}
    head = json.dumps(header).encode()
    request = urllib.request.Request(url, data=head + data, method="POST",
                                     headers={"Inference-Header-Content-Length": str(len(head)),
                                              "Content-Type": "application/octet-stream"})
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            body, length = response.read(), response.headers.get("Inference-Header-Content-Length")
    except urllib.error.HTTPError as e:
        raise RuntimeError(f"{url}: HTTP {e.code}: {e.read()[:300]!r}") from None
    except (urllib.error.URLError, OSError) as e:
        raise RuntimeError(f"{url}: {e}") from None
    length = int(length) if length is not None else len(body)
    reply, offset, out = json.loads(body[:length]), length, {}
    for o in reply.get("outputs", []):
        size = (o.get("parameters") or {}).get("binary_data_size")
        if size is None:
            values = o["data"]
        else:
            chunk, offset = body[offset:offset + size], offset + size
            if o["datatype"] == "BYTES":
                values, at = [], 0
                while at < len(chunk):
                    (n,) = struct.unpack_from("<I", chunk, at)
                    values.append(chunk[at + 4:at + 4 + n].decode())
                    at += 4 + n
            else:
                values = np.frombuffer(chunk, dtype={"INT64": "<i8", "FP32": "<f4"}[o["datatype"]])
        out[o["name"]] = values if o["datatype"] == "BYTES" else \
            np.asarray(values, dtype={"INT64": np.int64, "FP32": np.float32}[o["datatype"]]).reshape(o["shape"])
    if offset != len(body):
        raise RuntimeError(f"{url}: {len(body) - offset} bytes after the outputs' binary data")
    want = {"class_index": [len(files), 1], "class_name": None, "score": [len(files), 1], "logits": [len(files), 10]}
    for name, shape in want.items():
        if name not in out or (shape and list(np.shape(out[name])) != shape):
            raise RuntimeError(f"{url}: expected an output '{name}'" + (f" of shape {shape}" if shape else "") +
                               f", got {None if name not in out else np.shape(out[name])}")
    return out


def classify(url, files, size=8):
    parts = [infer_binary(url, files[i:i + size]) for i in range(0, len(files), size)]
    return {"class_index": np.concatenate([p["class_index"][:, 0] for p in parts]),
            "class_name": [n for p in parts for n in p["class_name"]],
            "score": np.concatenate([p["score"][:, 0] for p in parts]),
            "logits": np.concatenate([p["logits"] for p in parts])}


def cmd_check_image(args):
    rows = json.load(open(os.path.join(args.data, "images.json")))
    files = [open(r["file"], "rb").read() for r in rows]
    labels = np.array([r["label"] for r in rows])
    try:
        hone, python = classify(args.hone, files), classify(args.python, files)
        # The binary outputs perf_analyzer asks for: one request of the first 8, read both ways, on both servers.
        for url in (args.hone, args.python):
            as_json, as_binary = infer_binary(url, files[:8]), infer_binary(url, files[:8], binary_outputs=True)
            for name in ("class_index", "class_name", "score", "logits"):
                if not np.array_equal(np.asarray(as_json[name]), np.asarray(as_binary[name])):
                    raise RuntimeError(f"{url}: output '{name}' differs between its JSON and binary answers")
    except RuntimeError as e:
        print(f"  FAILED: {e}")
        return 1
    index_diff = np.flatnonzero(hone["class_index"] != python["class_index"])
    name_diff = [i for i, (a, b) in enumerate(zip(hone["class_name"], python["class_name"])) if a != b]
    score_diff = np.abs(hone["score"] - python["score"])
    logit_diff = np.max(np.abs(hone["logits"] - python["logits"]), axis=1)
    worst = int(np.argmax(score_diff))
    ok = not len(index_diff) and not name_diff and bool(score_diff.max() <= args.max_score_diff)
    kinds = ", ".join(f"{k} {sum(r['format'] == k for r in rows)}" for k in ("png", "jpeg")
                      if any(r["format"] == k for r in rows))
    indexes = "equal on all" if not len(index_diff) else \
        f"DIFFERENT on {len(index_diff)}: rows {index_diff[:10].tolist()}"
    names = "equal on all" if not name_diff else f"DIFFERENT on {len(name_diff)}"
    verdict = "ok" if ok else f"WRONG (scores within {args.max_score_diff} wanted)"
    print(f"  {len(rows)} images ({kinds}; requests of 8, binary tensors in, JSON out): class_index {indexes}, "
          f"class_name {names}; |score difference| max {score_diff.max():.2e} (row {worst}, {rows[worst]['format']}), "
          f"median {np.median(score_diff):.2e}; max |logit difference| {logit_diff.max():.2e}; {verdict}")
    print(f"  accuracy against the true labels: hone {np.mean(hone['class_index'] == labels):.3f}, Python "
          f"{np.mean(python['class_index'] == labels):.3f}; the binary outputs (as perf_analyzer asks for them) match "
          f"the JSON ones on both servers")
    return 0 if ok else 1


# ---- report -------------------------------------------------------------------------------------------------------

def read_point(path):
    with open(path) as f:
        row = next(csv.DictReader(f))
    return float(row["Inferences/Second"]), float(row["p50 latency"]), float(row["p99 latency"])


def stats_by_model(path):
    with open(path) as f:
        return {s["name"]: s for s in json.load(f)["model_stats"]}


def per_request(before, after, model, field):
    """Average ns a request of `model` spent in `field` (inference_stats) over the point: delta ns / delta count."""
    b, a = before[model]["inference_stats"][field], after[model]["inference_stats"][field]
    n = a["count"] - b["count"]
    return (a["ns"] - b["ns"]) / n if n > 0 else float("nan")


def stage_breakdown(before_path, after_path, ensemble, stages):
    """ms a request: [request, then for each stage (queue if shown) and compute, then other], and the batched
    stages' average batch size."""
    before, after = stats_by_model(before_path), stats_by_model(after_path)
    request = per_request(before, after, ensemble, "success")
    parts = []
    for model, _, queue, _ in stages:
        if queue:
            parts.append(per_request(before, after, model, "queue"))
        parts.append(per_request(before, after, model, "compute_infer"))
    other = request - sum(parts)
    batches = []
    for model, _, _, batched in stages:
        if batched:
            runs = after[model]["execution_count"] - before[model]["execution_count"]
            rows = after[model]["inference_count"] - before[model]["inference_count"]
            batches.append(rows / runs if runs > 0 else float("nan"))
    return [v / 1e6 for v in [request] + parts + [other]], batches


def spread(values, fmt):
    return f"{fmt(statistics.median(values))} ({fmt(min(values))}-{fmt(max(values))})" if len(values) > 1 else \
        fmt(values[0])


def cmd_report(args):
    servers = [s.partition("=")[::2] for s in args.server]
    labels = dict(servers)
    concurrencies = [int(c) for c in args.concurrency.split()]
    stages = []  # (model, label, queue shown, batched): "batched" shows the queue and the batch size, "queue" the queue
    for spec in args.stage:
        model, _, rest = spec.partition("=")
        label, _, flag = rest.partition(":")
        if flag not in ("", "batched", "queue"):
            print(f"pipelines.py report: --stage {spec}: the flag is batched or queue", file=sys.stderr)
            return 2
        stages.append((model, label or model, flag in ("batched", "queue"), flag == "batched"))
    points, notes = {}, []
    for c in concurrencies:
        for key, label in servers:
            rounds = []
            for r in range(1, args.runs + 1):
                path = os.path.join(args.dir, f"{key}.c{c}.r{r}")
                if not os.path.exists(path + ".csv"):
                    continue
                cpu = open(path + ".cpu").read().split() if os.path.exists(path + ".cpu") else ["nan"] * 2
                point = {"perf": read_point(path + ".csv"), "cpu": tuple(float(v) for v in cpu)}
                if stages and os.path.exists(path + ".stats0.json") and os.path.exists(path + ".stats1.json"):
                    point["stages"] = stage_breakdown(path + ".stats0.json", path + ".stats1.json", args.ensemble,
                                                      stages)
                rounds.append(point)
            if len(rounds) < args.runs:
                notes.append(f"concurrency {c}, {label}: {args.runs - len(rounds)} of {args.runs} rounds had no "
                             f"stable measurement")
            if rounds:
                points[key, c] = rounds

    def ms(us):
        return f"{us / 1000:.2f}"

    ratio_texts = [f"{labels[r.split('/')[0]]} / {labels[r.split('/')[1]]}" for r in args.ratio]
    width = max(len(text) for text in [label for _, label in servers] + ratio_texts) + 2
    print(f"{args.title}: medians of {args.runs} round(s), spread (min-max) in brackets")
    cols = 24  # "median (min-max)"
    print(f"{'conc':>4}  {'server':<{width}}{'infer/s':>{cols}}{'p50 ms':>{cols}}{'p99 ms':>{cols}}{'server CPU':>12}"
          f"{'client CPU':>12}")
    for c in concurrencies:
        first = True
        for key, label in servers:
            lead = f"{c if first else '':>4}  {label:<{width}}"
            first = False
            rounds = points.get((key, c))
            if not rounds:
                print(f"{lead}{'unstable':>{cols}}")
                continue
            col = [[p["perf"][i] for p in rounds] for i in range(3)]
            print(f"{lead}{spread(col[0], lambda v: f'{v:.0f}'):>{cols}}{spread(col[1], ms):>{cols}}"
                  f"{spread(col[2], ms):>{cols}}{statistics.median(p['cpu'][0] for p in rounds):>12.2f}"
                  f"{statistics.median(p['cpu'][1] for p in rounds):>12.2f}")
        for ratio, text in zip(args.ratio, ratio_texts):
            a_key, b_key = ratio.split("/")
            a, b = points.get((a_key, c)), points.get((b_key, c))
            if not a or not b:
                print(f"{'':>6}{text:<{width}}{'-':>{cols}}")
                continue
            med = [[statistics.median(p["perf"][i] for p in x) for i in range(3)] for x in (a, b)]
            print(f"{'':>6}{text:<{width}}" + "".join(f"{med[0][i] / med[1][i]:>{cols - 1}.2f}x" for i in range(3)))
        print()
    print(f"infer/s, p50 and p99: perf_analyzer's (one {args.unit} a request). Ratios of the medians: infer/s above 1")
    print("means hone serves more; p50 and p99 below 1 mean hone answers sooner. server CPU and client CPU: cores the")
    print("server and perf_analyzer used over perf_analyzer's whole run (warm-up included), medians.")

    if stages:
        heads = []
        for _, label, queue, _ in stages:
            if queue:
                heads.append(f"{label} queue")
            heads.append(label)
        heads.append("other")
        print()
        print(f"Where hone's server-side time goes: ms a request spends in each stage (per-request averages from")
        print(f"/v2/models/stats before and after each point, warm-up included; medians of the rounds), and its")
        print(f"share of the request's time in the ensemble '{args.ensemble}' (arrival to response; HTTP parsing and")
        print(f"writing outside it). A batched stage's compute counts whole for every request in the batch.")
        print(f"{'conc':>4}  {'server':<{width}}{'request':>9}" + "".join(f"{h:>17}" for h in heads)
              + "".join(f"{s[1] + ' batch':>15}" for s in stages if s[3]))
        for c in concurrencies:
            for key, label in servers:
                rounds = [p for p in points.get((key, c), []) if "stages" in p]
                if not rounds:
                    continue
                values = [statistics.median(p["stages"][0][i] for p in rounds) for i in range(len(heads) + 1)]
                batches = [statistics.median(p["stages"][1][i] for p in rounds)
                           for i in range(len(rounds[0]["stages"][1]))]
                request = values[0]
                cells = "".join(f"{f'{v:.3f} {100 * v / request:4.1f}%':>17}" for v in values[1:])
                print(f"{c:>4}  {label:<{width}}{request:>9.3f}{cells}" + "".join(f"{b:>15.2f}" for b in batches))
        print("other: the ensemble's own work and the queues of the stages without a queue column (the request's "
              "time less the stages' above).")
    for note in notes:
        print(f"note: {note}")
    if args.cpu_log and os.path.exists(args.cpu_log):
        worst = {}
        for line in open(args.cpu_log):
            _, other, cores = line.split()
            worst[other] = max(worst.get(other, 0.0), float(cores))
        if worst:
            text = ", ".join(f"{k} {v * 100:.1f}%" for k, v in sorted(worst.items()))
            print(f"idle servers: the most CPU each used while the other was measured, in % of one core: {text}")
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("texts")
    p.add_argument("--out", required=True)
    p.add_argument("--count", type=int, default=200)
    p.add_argument("--from", dest="from_file")
    p.add_argument("--tokenizer")
    p = sub.add_parser("check-text")
    p.add_argument("--data", required=True)
    p.add_argument("--hone", required=True)
    p.add_argument("--python", required=True)
    p.add_argument("--tokenizer", required=True)
    p.add_argument("--tokenize-url")
    p.add_argument("--min-cos", type=float, default=0.9999)
    p = sub.add_parser("images")
    p.add_argument("--out", required=True)
    p.add_argument("--dir", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples",
                                                 "image-classification", "images"))
    p.add_argument("--count", type=int, default=200)
    p.add_argument("--format", choices=("mixed", "png", "jpeg"), default="mixed")
    p = sub.add_parser("check-image")
    p.add_argument("--data", required=True)
    p.add_argument("--hone", required=True)
    p.add_argument("--python", required=True)
    p.add_argument("--max-score-diff", type=float, default=1e-4)
    p = sub.add_parser("report")
    p.add_argument("--dir", required=True)
    p.add_argument("--runs", type=int, required=True)
    p.add_argument("--concurrency", required=True)
    p.add_argument("--title", default="")
    p.add_argument("--server", action="append", required=True, metavar="KEY=LABEL")
    p.add_argument("--ratio", action="append", default=[], metavar="KEY/KEY")
    p.add_argument("--ensemble")
    p.add_argument("--stage", action="append", default=[], metavar="MODEL=LABEL[:batched|:queue]")
    p.add_argument("--cpu-log")
    p.add_argument("--unit", default="text", help="what one request carries, for the table's notes")
    args = parser.parse_args()
    return {"texts": cmd_texts, "check-text": cmd_check_text, "images": cmd_images, "check-image": cmd_check_image,
            "report": cmd_report}[args.command](args)


if __name__ == "__main__":
    sys.exit(main())
