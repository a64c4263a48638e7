#!/usr/bin/env python3
"""Checks the exported all-MiniLM-L6-v2 encoder (ONNX, real weights) against Python references, and writes the
reference embeddings of a text set for later tests.

What it does, in order:
  1. tokenizes every text of --texts (JSON lines, each a string; default tests/data/tokenizer_texts.jsonl) with
     Hugging Face `tokenizers` and the model's tokenizer.json, truncated to max_seq_length tokens ([CLS] and [SEP]
     included) as sentence-transformers does: 256, from the checkpoint's sentence_bert_config.json. The
     tokenizer.json itself says truncation 128 and fixed padding to 128 (sentence-transformers overrides both on
     every call), so both are overridden here too: truncation 256, no padding.
  2. runs the PyTorch module of export_minilm.py with the same weights (Debian's /usr/bin/python3, through
     `export_minilm.py --embed`), each text alone (batch 1, no padding): the reference
  3. runs the ONNX model with onnxruntime, texts sorted by length in padded batches of --batch (the mask at work)
     and each text alone; mean-pools last_hidden_state over the mask and L2-normalises (sentence-transformers'
     Pooling (mean) and Normalize modules, which are not in the ONNX graph)
  4. compares: ONNX against PyTorch (last_hidden_state on the real tokens, the pooled embedding, cosine), padded
     batches against batch 1, the graph's own sentence_embedding output against pooling in numpy
  5. semantics: cosine similarities of the sentence pairs that sentence-transformers publishes for this model
     (sbert.net, quick start and semantic textual similarity pages, 4 decimals) must match within 1e-3, and a
     paraphrase must score above an unrelated sentence
  6. writes --out (default examples/text-embedding/reference.npz), numbers only: line (INT64 [n], the 0-based line
     of each text in --texts), input_ids / attention_mask / token_type_ids (INT64 [n, longest], padded with 0),
     lengths (INT64 [n]), embeddings (FP32 [n, 384], L2-normalised, from the PyTorch reference),
     max_seq_length (INT64 scalar)
Prints every figure; exits 0 when all checks pass, 1 when one fails (and then writes nothing), 2 on bad usage.

Run with a Python that has tokenizers, onnxruntime and numpy (the tests' venv):
  .venv-test/bin/python models/minilm/check_minilm.py --model M.onnx --tokenizer tokenizer.json --weights CKPT_DIR
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
import onnxruntime as ort
from tokenizers import Tokenizer

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

# Tolerances: ONNX Runtime and PyTorch run the same float32 graph with different kernels (and here, different
# padding), so they agree to rounding, not bit for bit.
HIDDEN_TOL = 1e-3      # max abs diff of last_hidden_state (values up to about 10 in magnitude)
EMBEDDING_TOL = 1e-5   # max abs diff of the L2-normalised embedding
COSINE_MIN = 0.99999   # min cosine between the two normalised embeddings of a text
PUBLISHED_TOL = 1e-3   # sbert.net prints 4 decimals

# all-MiniLM-L6-v2 similarities as sentence-transformers documents them (sbert.net: "Quickstart" and
# "Semantic Textual Similarity" pages): (sentence, sentence, cosine)
PUBLISHED = [
    ("The weather is lovely today.", "It's so sunny outside!", 0.6660),
    ("The weather is lovely today.", "He drove to the stadium.", 0.1046),
    ("It's so sunny outside!", "He drove to the stadium.", 0.1411),
    ("The new movie is awesome", "The dog plays in the garden", 0.0543),
    ("The new movie is awesome", "The new movie is so great", 0.8939),
    ("The new movie is awesome", "A woman watches TV", -0.0502),
    ("The cat sits outside", "The dog plays in the garden", 0.2838),
    ("The cat sits outside", "The new movie is so great", -0.0029),
    ("The cat sits outside", "A woman watches TV", 0.1310),
    ("A man is playing guitar", "The dog plays in the garden", 0.2277),
    ("A man is playing guitar", "The new movie is so great", -0.0136),
    ("A man is playing guitar", "A woman watches TV", -0.0327),
]
# (anchor, paraphrase, unrelated): cos(anchor, paraphrase) must exceed cos(anchor, unrelated)
PARAPHRASES = [
    ("A man is playing guitar.", "Someone plays a guitar.", "The stock market fell today."),
    ("How do I reset my password?", "I forgot my password, how can I change it?", "The recipe needs two eggs."),
    ("The cat sleeps on the sofa.", "A cat is napping on the couch.", "Interest rates rose by half a point."),
]


def load_texts(path):
    lines, texts = [], []
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f):
            if not line.strip():
                continue
            value = json.loads(line)
            text = value.get("text") if isinstance(value, dict) else value
            if not isinstance(text, str):
                raise ValueError(f"{path}:{number + 1}: expected a JSON string (or an object with \"text\")")
            lines.append(number)
            texts.append(text)
    return np.array(lines, dtype=np.int64), texts


def max_seq_length(weights, override):
    if override:
        return override, "--max-seq-length"
    folder = weights if os.path.isdir(weights) else os.path.dirname(os.path.abspath(weights))
    path = os.path.join(folder, "sentence_bert_config.json")
    with open(path, encoding="utf-8") as f:
        return int(json.load(f)["max_seq_length"]), path


def tokenize(tokenizer, texts):
    encodings = tokenizer.encode_batch(texts)
    return [np.array(e.ids, dtype=np.int64) for e in encodings], [np.array(e.type_ids, dtype=np.int64)
                                                                   for e in encodings]


def pad(rows):
    longest = max(len(r) for r in rows)
    out = np.zeros((len(rows), longest), dtype=np.int64)
    mask = np.zeros_like(out)
    for i, r in enumerate(rows):
        out[i, :len(r)] = r
        mask[i, :len(r)] = 1
    return out, mask


def normalise(x):
    return x / np.maximum(np.linalg.norm(x, axis=-1, keepdims=True), 1e-12)


def mean_pool(hidden, mask):
    m = mask[..., None].astype(np.float32)
    return (hidden * m).sum(-2) / np.maximum(m.sum(-2), 1e-9)


def torch_reference(python, weights, ids, types, workdir):
    tokens, out = os.path.join(workdir, "tokens.npz"), os.path.join(workdir, "torch.npz")
    np.savez(tokens, input_ids=np.concatenate(ids), token_type_ids=np.concatenate(types),
             lengths=np.array([len(r) for r in ids], dtype=np.int64))
    subprocess.run([python, os.path.join(HERE, "export_minilm.py"), "--weights", weights, "--embed", tokens, out],
                   check=True, stdout=subprocess.DEVNULL)
    ref = np.load(out)
    lengths = np.cumsum([0] + [len(r) for r in ids])
    hidden = [ref["last_hidden_state"][lengths[i]:lengths[i + 1]] for i in range(len(ids))]
    return hidden, ref["sentence_embedding"]


class Onnx:
    def __init__(self, path, threads):
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        self.session = ort.InferenceSession(path, options, providers=["CPUExecutionProvider"])

    def run(self, ids, types):
        """ids, types: lists of 1-D arrays, run as one padded batch -> ([hidden per row], pooled output)."""
        input_ids, mask = pad(ids)
        token_types, _ = pad(types)
        hidden, pooled = self.session.run(["last_hidden_state", "sentence_embedding"], {
            "input_ids": input_ids, "attention_mask": mask, "token_type_ids": token_types})
        return [hidden[i, :len(r)] for i, r in enumerate(ids)], pooled, mean_pool(hidden, mask)

    def batched(self, ids, types, batch):
        order = sorted(range(len(ids)), key=lambda i: len(ids[i]))
        hidden, pooled, numpy_pooled = [None] * len(ids), np.zeros((len(ids), 384), np.float32), \
            np.zeros((len(ids), 384), np.float32)
        for start in range(0, len(order), batch):
            chunk = order[start:start + batch]
            h, p, q = self.run([ids[i] for i in chunk], [types[i] for i in chunk])
            for j, i in enumerate(chunk):
                hidden[i], pooled[i], numpy_pooled[i] = h[j], p[j], q[j]
        return hidden, pooled, numpy_pooled

    def alone(self, ids, types):
        results = [self.run([i], [t]) for i, t in zip(ids, types)]
        return [r[0][0] for r in results], np.stack([r[2][0] for r in results])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", required=True, help="the exported encoder (model.onnx)")
    parser.add_argument("--tokenizer", required=True, help="tokenizer.json")
    parser.add_argument("--weights", required=True, help="the checkpoint folder (model.safetensors, config.json, "
                                                         "sentence_bert_config.json) or its model.safetensors")
    parser.add_argument("--texts", default=os.path.join(ROOT, "tests", "data", "tokenizer_texts.jsonl"))
    parser.add_argument("--out", default=os.path.join(ROOT, "examples", "text-embedding", "reference.npz"))
    parser.add_argument("--max-seq-length", type=int, default=0, help="default: sentence_bert_config.json")
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--threads", type=int, default=1, help="onnxruntime intra-op threads")
    parser.add_argument("--torch-python", default="/usr/bin/python3",
                        help="the interpreter with torch that runs export_minilm.py --embed")
    args = parser.parse_args()
    for path in (args.model, args.tokenizer, args.texts, args.weights):
        if not os.path.exists(path):
            parser.exit(2, f"check_minilm.py: {path} not found\n")
    started = time.monotonic()

    lines, texts = load_texts(args.texts)
    limit, limit_from = max_seq_length(args.weights, args.max_seq_length)
    tokenizer = Tokenizer.from_file(args.tokenizer)
    file_truncation = tokenizer.truncation
    file_padding = tokenizer.padding
    tokenizer.enable_truncation(limit)
    tokenizer.no_padding()
    extra = sorted({s for a, b, _ in PUBLISHED for s in (a, b)} | {s for row in PARAPHRASES for s in row})
    ids, types = tokenize(tokenizer, texts + extra)
    n = len(texts)
    lengths = np.array([len(r) for r in ids[:n]], dtype=np.int64)
    print(f"texts: {n} from {os.path.relpath(args.texts)} (+{len(extra)} sentences for the semantic checks); "
          f"tokens per text {lengths.min()}..{lengths.max()}, mean {lengths.mean():.1f}; truncation {limit} tokens "
          f"({limit_from}); tokenizer.json itself says truncation "
          f"{file_truncation and file_truncation.get('max_length')}, padding "
          f"{file_padding and file_padding.get('length')} (both overridden)")
    truncated = int((lengths == limit).sum())

    failures = []

    def check(ok, what):
        print(f"  {'ok  ' if ok else 'FAIL'} {what}")
        if not ok:
            failures.append(what)

    with tempfile.TemporaryDirectory() as workdir:
        t0 = time.monotonic()
        torch_hidden, torch_pooled = torch_reference(args.torch_python, args.weights, ids, types, workdir)
        torch_s = time.monotonic() - t0
    onnx = Onnx(args.model, args.threads)
    t0 = time.monotonic()
    hidden, graph_pooled, pooled = onnx.batched(ids, types, args.batch)
    alone_hidden, alone_pooled = onnx.alone(ids, types)
    onnx_s = time.monotonic() - t0
    print(f"PyTorch module (batch 1): {torch_s:.1f} s; onnxruntime {ort.__version__} ({args.threads} thread, "
          f"batches of {args.batch} and batch 1): {onnx_s:.1f} s")

    ref = normalise(torch_pooled)
    emb = normalise(pooled)
    hidden_diff = max(float(np.abs(a - b).max()) for a, b in zip(hidden, torch_hidden))
    hidden_scale = max(float(np.abs(b).max()) for b in torch_hidden)
    emb_diff = float(np.abs(emb - ref).max())
    cos = (emb * ref).sum(-1)
    print("ONNX (padded batches) against the PyTorch module (batch 1), all texts:")
    check(hidden_diff <= HIDDEN_TOL, f"last_hidden_state max abs diff {hidden_diff:.2e} (values up to "
                                     f"{hidden_scale:.1f}; tolerance {HIDDEN_TOL:.0e})")
    check(emb_diff <= EMBEDDING_TOL, f"normalised embedding max abs diff {emb_diff:.2e} (tolerance "
                                     f"{EMBEDDING_TOL:.0e})")
    check(cos.min() >= COSINE_MIN, f"cosine min {cos.min():.8f}, mean {cos.mean():.8f} (at least {COSINE_MIN})")
    print("ONNX, padded batches against batch 1, and the graph's sentence_embedding against numpy pooling:")
    pad_diff = max(float(np.abs(a - b).max()) for a, b in zip(hidden, alone_hidden))
    check(pad_diff <= HIDDEN_TOL, f"last_hidden_state max abs diff, batch {args.batch} padded vs batch 1: "
                                  f"{pad_diff:.2e}")
    alone_diff = float(np.abs(normalise(alone_pooled) - emb).max())
    check(alone_diff <= EMBEDDING_TOL, f"normalised embedding max abs diff, padded vs batch 1: {alone_diff:.2e}")
    graph_diff = float(np.abs(graph_pooled - pooled).max())
    check(graph_diff <= 1e-5, f"sentence_embedding output vs masked mean of last_hidden_state: max abs diff "
                              f"{graph_diff:.2e} (it is the mean, not normalised: norms "
                              f"{np.linalg.norm(graph_pooled, axis=-1).min():.2f}..."
                              f"{np.linalg.norm(graph_pooled, axis=-1).max():.2f})")

    vectors = dict(zip(texts + extra, emb))
    print("semantics (cosine of ONNX embeddings; published: sentence-transformers' figures for this model):")
    worst = max(abs(float(vectors[a] @ vectors[b]) - want) for a, b, want in PUBLISHED)
    for a, b, want in PUBLISHED:
        print(f"    {float(vectors[a] @ vectors[b]):+.4f} (published {want:+.4f})  {a!r} ~ {b!r}")
    check(worst <= PUBLISHED_TOL, f"{len(PUBLISHED)} published similarities matched within {worst:.1e} "
                                  f"(tolerance {PUBLISHED_TOL:.0e})")
    for anchor, near, far in PARAPHRASES:
        s_near, s_far = float(vectors[anchor] @ vectors[near]), float(vectors[anchor] @ vectors[far])
        check(s_near > s_far + 0.2, f"paraphrase {s_near:+.4f} > unrelated {s_far:+.4f} (by 0.2): {anchor!r} ~ "
                                    f"{near!r} vs {far!r}")

    long_rows = [i for i in range(n) if lengths[i] > 128]
    if long_rows:  # what tokenizer.json's own truncation (128) would do to them
        short = [np.concatenate([ids[i][:127], ids[i][-1:]]) for i in long_rows]
        _, _, p128 = onnx.run(short, [np.zeros(len(r), np.int64) for r in short])
        c128 = (normalise(p128) * emb[long_rows]).sum(-1)
        print(f"truncation: {truncated} of {n} texts reach {limit} tokens, {len(long_rows)} exceed 128; truncated at "
              f"128 instead (tokenizer.json's own setting), those {len(long_rows)} would get embeddings at cosine "
              f"{c128.min():.4f}..{c128.max():.4f} to these")

    if failures:
        print(f"check_minilm.py: {len(failures)} check(s) failed; {os.path.relpath(args.out)} not written",
              file=sys.stderr)
        return 1
    ref_ids, ref_mask = pad(ids[:n])
    ref_types, _ = pad(types[:n])
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    tmp = f"{args.out}.tmp-{os.getpid()}.npz"
    np.savez(tmp, line=lines, input_ids=ref_ids, attention_mask=ref_mask, token_type_ids=ref_types,
             lengths=lengths, embeddings=ref[:n].astype(np.float32), max_seq_length=np.int64(limit))
    os.replace(tmp, args.out)
    print(f"wrote {os.path.relpath(args.out)} ({n} texts x {ref_ids.shape[1]} tokens, embeddings FP32 [{n}, 384]) "
          f"in {time.monotonic() - started:.1f} s")
    print("check_minilm.py: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
