#!/usr/bin/env python3
"""Compares hone's SmolLM2 ONNX decoder and tokenizer.json (built by build_decoder.py from a GGUF) with llama.cpp
(PyPI llama-cpp-python) running that same GGUF. Run by scripts/check-llm-parity, in its venv (.venv-llama-cpp):

  python models/smollm2/check_llama_cpp.py --gguf FILE.gguf --model model.onnx --tokenizer tokenizer.json \\
      [--f32-gguf PATH] [--texts tests/data/tokenizer_texts.jsonl] [--tokens 16] \\
      [--ppl-text /usr/share/common-licenses/GPL-3] [--ppl-tokens 1500] [--ppl-window 512]

llama.cpp runs twice: on the GGUF as shipped (Q4_1 weights: its Q4_1 matrix products quantise the activations to
8 bits, and its KV cache is F16 by default), and on an F32 GGUF that llama.cpp itself dequantises from it
(llama_model_quantize, ftype ALL_F32, written once to --f32-gguf) with an F32 KV cache: the same arithmetic as the
ONNX model, so that column shows whether the two implementations agree, and the first what quantisation adds.
(a) greedy continuations: 6 factual prompts as raw completions (no template) and 2 of them as ChatML
    conversations (rendered with the model's hone.chat_template through jinja2, add_generation_prompt); each side
    tokenizes the prompt itself (llama.cpp's tokenizer, our tokenizer.json) and picks the argmax --tokens times
    (llama.cpp: Llama.eval and its logits, no sampler; ours: onnxruntime, prefill then cached decode steps),
    stopping at the end-of-sequence token. Reported: the common prefix of the continuations, the largest logit
    difference at the first generated position, and where they part, by how much each side preferred its token.
(b) perplexity of the first --ppl-tokens tokens of --ppl-text (our tokenizer's ids, fed to all; the two tokenizers'
    ids for the whole text compared too), in non-overlapping windows of --ppl-window tokens, each evaluated from an
    empty cache; every token but a window's first is scored.
(c) token ids of our tokenizer.json (PyPI tokenizers) vs llama.cpp's tokenizer (Llama.tokenize, add_bos=False,
    special=True) on --texts: the number of texts with identical ids.
The figures are for reading: the script fails only when something cannot run.
"""
import argparse
import json
import math
import os
import sys
import time

import numpy as np
import onnxruntime as ort
from tokenizers import Tokenizer

PROMPTS = [
    "The capital of France is",
    "The largest planet in the solar system is",
    "Water is made of hydrogen and",
    "The author of the play Romeo and Juliet is",
    "The chemical symbol for gold is",
    "The first person to walk on the Moon was",
]
CHAT = [  # user messages, about two of the raw prompts
    "What is the capital of France?",
    "Who wrote the play Romeo and Juliet?",
]


class Onnx:
    def __init__(self, path):
        so = ort.SessionOptions()
        so.intra_op_num_threads = 2
        so.inter_op_num_threads = 1
        self.sess = ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])
        kv = next(i for i in self.sess.get_inputs() if i.name == "past_key_values.0.key")
        self.kv_heads, self.hs = kv.shape[1], kv.shape[3]
        self.layers = sum(1 for i in self.sess.get_inputs() if i.name.endswith(".key"))
        self.out_names = [o.name for o in self.sess.get_outputs()]

    def run(self, ids, start, keep, past=None):
        """ids: the new tokens of one row at positions start.. ; returns (logits [n, vocab], present)"""
        n = len(ids)
        if past is None:
            z = np.zeros((1, self.kv_heads, 0, self.hs), np.float32)
            past = [(z, z)] * self.layers
        feeds = {"input_ids": np.array([ids], np.int64), "attention_mask": np.ones((1, start + n), np.int64),
                 "position_ids": np.arange(start, start + n, dtype=np.int64)[None],
                 "num_logits_to_keep": np.array(keep, np.int64)}
        for i, (k, v) in enumerate(past):
            feeds[f"past_key_values.{i}.key"], feeds[f"past_key_values.{i}.value"] = k, v
        out = dict(zip(self.out_names, self.sess.run(None, feeds)))
        return out["logits"][0], [(out[f"present.{i}.key"], out[f"present.{i}.value"]) for i in range(self.layers)]

    def greedy(self, prompt, steps, eos):
        """-> (tokens, the logits each was picked from)"""
        logits, past = self.run(prompt, 0, 1)
        out, seen, pos = [], [], len(prompt)
        for _ in range(steps):
            seen.append(logits[-1].copy())
            tok = int(np.argmax(logits[-1]))
            out.append(tok)
            if tok == eos:
                break
            logits, past = self.run([tok], pos, 1, past)
            pos += 1
        return out, seen

    def window_logits(self, ids):
        return self.run(ids, 0, 0)[0]


def llama_greedy(llm, prompt, steps, eos):
    llm.reset()
    llm.eval(prompt)
    out, seen = [], []
    for _ in range(steps):
        seen.append(np.array(llm.scores[llm.n_tokens - 1], np.float32))
        tok = int(np.argmax(seen[-1]))
        out.append(tok)
        if tok == eos:
            break
        llm.eval([tok])
    return out, seen


def nll(logits, ids):
    """summed negative log-likelihood of ids[1:] given logits[:-1] (float64), and the count"""
    x = logits[:-1].astype(np.float64)
    m = x.max(-1, keepdims=True)
    logz = m[:, 0] + np.log(np.exp(x - m).sum(-1))
    return float((logz - x[np.arange(len(ids) - 1), ids[1:]]).sum()), len(ids) - 1


def make_f32_gguf(llama_cpp, src, dest):
    """llama.cpp's own dequantisation of src into an all-F32 GGUF (once; temporary file, renamed)"""
    if os.path.exists(dest):
        return
    import ctypes
    params = llama_cpp.llama_model_quantize_default_params()
    params.ftype = 0  # LLAMA_FTYPE_ALL_F32
    params.allow_requantize = True
    params.nthread = 2
    tmp = f"{dest}.tmp-{os.getpid()}"
    print(f"writing {dest} (llama_model_quantize, ftype ALL_F32: llama.cpp dequantises every tensor)", flush=True)
    if llama_cpp.llama_model_quantize(src.encode(), tmp.encode(), ctypes.byref(params)) != 0:
        raise SystemExit("llama_model_quantize failed")
    os.replace(tmp, dest)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--gguf", required=True)
    ap.add_argument("--f32-gguf", help="where llama.cpp's F32 copy of --gguf is (made when missing); "
                                       "default: no F32 run")
    ap.add_argument("--model", required=True)
    ap.add_argument("--tokenizer", required=True)
    ap.add_argument("--texts", default="tests/data/tokenizer_texts.jsonl")
    ap.add_argument("--tokens", type=int, default=16)
    ap.add_argument("--ppl-text", default="/usr/share/common-licenses/GPL-3")
    ap.add_argument("--ppl-tokens", type=int, default=1500)
    ap.add_argument("--ppl-window", type=int, default=512)
    args = ap.parse_args()

    import jinja2
    import llama_cpp

    t0 = time.time()
    ours = Onnx(args.model)
    meta = ours.sess.get_modelmeta().custom_metadata_map
    eos = int(meta["hone.eos_token_id"])
    tok = Tokenizer.from_file(args.tokenizer)
    tok.no_truncation()
    n_ctx = max(args.ppl_window, 1024)
    common = dict(logits_all=True, n_ctx=n_ctx, n_batch=args.ppl_window, n_threads=2, verbose=False)
    sides = [("llama.cpp Q4_1", "llama.cpp on the GGUF as shipped (Q4_1, F16 KV cache)",
              llama_cpp.Llama(model_path=args.gguf, **common))]
    if args.f32_gguf:
        make_f32_gguf(llama_cpp, args.gguf, args.f32_gguf)
        sides.append(("llama.cpp F32", "llama.cpp on its F32 dequantisation of it (F32 KV cache)",
                      llama_cpp.Llama(model_path=args.f32_gguf, type_k=0, type_v=0, **common)))  # GGML_TYPE_F32
    llm = sides[0][2]
    print(f"llama-cpp-python {llama_cpp.__version__}, onnxruntime {ort.__version__}; {args.gguf}; {args.model}")
    print(f"loading: {time.time() - t0:.1f} s")

    # (a) greedy continuations
    t = time.time()
    template = jinja2.Environment().from_string(meta["hone.chat_template"])
    cases = [("raw", p) for p in PROMPTS]
    cases += [("chat", template.render(messages=[{"role": "user", "content": q}], add_generation_prompt=True))
              for q in CHAT]
    print(f"\n(a) greedy continuations, {args.tokens} tokens (stopping at eos {eos})")
    greedy = {name: [] for name, _, _ in sides}  # per side: (kind, prefix, n, first-step max diff)
    for kind, text in cases:
        ids_ours = tok.encode(text).ids
        g_ours, s_ours = ours.greedy(ids_ours, args.tokens, eos)
        short = text if kind == "raw" else "ChatML: " + text.split("<|im_start|>user\n")[1].split("<|im_end|>")[0]
        print(f"  [{kind}] {short!r}")
        print(f"      hone ONNX       {tok.decode(g_ours, skip_special_tokens=False)!r}")
        for name, _, side in sides:
            ids_llama = side.tokenize(text.encode("utf-8"), add_bos=False, special=True)
            g, s = llama_greedy(side, ids_llama, args.tokens, eos)
            k = 0
            while k < min(len(g_ours), len(g)) and g_ours[k] == g[k]:
                k += 1
            n = max(len(g_ours), len(g))
            dmax = float(np.abs(s_ours[0] - s[0]).max())
            note = ""
            if k < min(len(g_ours), len(g)):
                a, b = g_ours[k], g[k]
                note = (f"; they part at token {k}: ONNX {tok.decode([a])!r} by {s_ours[k][a] - s_ours[k][b]:.3f} "
                        f"over {tok.decode([b])!r}, {name} the other way by {s[k][b] - s[k][a]:.3f}")
            print(f"      {name:15} {side.detokenize(g).decode('utf-8', 'replace')!r}")
            print(f"          prompt ids {'same' if ids_ours == ids_llama else 'DIFFER'}, common prefix {k}/{n}, "
                  f"max |logit diff| at the first step {dmax:.3g}{note}")
            greedy[name].append((kind, k, n, dmax))
    time_a = time.time() - t

    # (b) perplexity
    t = time.time()
    with open(args.ppl_text, encoding="utf-8") as f:
        text = f.read()
    ids_all = tok.encode(text).ids
    same_ppl_ids = ids_all == llm.tokenize(text.encode("utf-8"), add_bos=False, special=False)
    ids = ids_all[:args.ppl_tokens]
    W = args.ppl_window
    windows = [ids[i:i + W] for i in range(0, len(ids), W) if len(ids[i:i + W]) >= 2]
    sums = {"hone ONNX": 0.0, **{name: 0.0 for name, _, _ in sides}}
    wdiff = {name: 0.0 for name, _, _ in sides}
    n_scored = 0
    for w in windows:
        lo = ours.window_logits(w)
        a, n = nll(lo, w)
        sums["hone ONNX"] += a
        n_scored += n
        for name, _, side in sides:
            side.reset()
            side.eval(w)
            ll = np.array(side.scores[:len(w)], np.float32)
            wdiff[name] = max(wdiff[name], float(np.abs(lo - ll).max()))
            sums[name] += nll(ll, w)[0]
    ppl = {k: math.exp(v / n_scored) for k, v in sums.items()}
    print(f"\n(b) perplexity: {os.path.basename(args.ppl_text)}, first {len(ids)} tokens (the text has "
          f"{len(ids_all)}; our and llama.cpp's ids of the whole text {'identical' if same_ppl_ids else 'DIFFER'}), "
          f"{len(windows)} windows of up to {W}, {n_scored} tokens scored")
    for k, v in ppl.items():
        print(f"  {k:15} {v:.4f}" + (f"   max |logit diff| to the ONNX model over the windows {wdiff[k]:.3g}"
                                     if k in wdiff else ""))
    time_b = time.time() - t

    # (c) tokenizer ids
    t = time.time()
    with open(args.texts, encoding="utf-8") as f:
        texts = [json.loads(line) for line in f if line.strip()]
    same, first_diff = 0, None
    for s in texts:
        a = tok.encode(s).ids
        b = llm.tokenize(s.encode("utf-8"), add_bos=False, special=True)
        if a == b:
            same += 1
        elif first_diff is None:
            k = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
            first_diff = (s[:60], k, a[k:k + 5], b[k:k + 5])
    print(f"\n(c) token ids on {args.texts}: {same}/{len(texts)} texts identical")
    if first_diff:
        print(f"  first difference: text {first_diff[0]!r}..., token {first_diff[1]}: ours {first_diff[2]}, "
              f"llama.cpp {first_diff[3]}")
    time_c = time.time() - t

    def agree(rows, kind):
        rs = [r for r in rows if r[0] == kind]
        return (f"{sum(r[1] for r in rs)}/{sum(r[2] for r in rs)} tokens in common prefixes, "
                f"{sum(r[1] == r[2] for r in rs)}/{len(rs)} identical")

    names = [name for name, _, _ in sides]
    print("\nhone ONNX = examples/llm/smollm2/1/model.onnx (FP32, weights dequantised by PyPI gguf), onnxruntime CPU;")
    for name, desc, _ in sides:
        print(f"{name} = {desc}")
    print("\n| measure | " + " | ".join(f"{n} vs hone ONNX" for n in names) + " |")
    print("| --- |" + " --- |" * len(names))
    n_raw, n_chat = sum(c[0] == "raw" for c in cases), sum(c[0] == "chat" for c in cases)
    print(f"| greedy {args.tokens} tokens, {n_raw} raw prompts | "
          + " | ".join(agree(greedy[n], "raw") for n in names) + " |")
    print(f"| greedy {args.tokens} tokens, {n_chat} ChatML prompts | "
          + " | ".join(agree(greedy[n], "chat") for n in names) + " |")
    print("| max logit diff, first generated position | "
          + " | ".join(f"{max(r[3] for r in greedy[n]):.3g}" for n in names) + " |")
    print(f"| perplexity, {n_scored} tokens of {os.path.basename(args.ppl_text)}, window {W} (hone ONNX "
          f"{ppl['hone ONNX']:.4f}) | " + " | ".join(f"{ppl[n]:.4f}" for n in names) + " |")
    print("| max logit diff, perplexity windows | " + " | ".join(f"{wdiff[n]:.3g}" for n in names) + " |")
    print(f"| token ids, {len(texts)} texts (tokenizer.json via PyPI tokenizers vs llama.cpp's) | {same}/{len(texts)} "
          f"identical |" + " |" * (len(names) - 1))
    summary = ", ".join(f"{n}: greedy common prefix {sum(r[1] for r in greedy[n])}/{sum(r[2] for r in greedy[n])}, "
                        f"perplexity {ppl[n]:.4f}" for n in names)
    print(f"\ncheck_llama_cpp: hone ONNX perplexity {ppl['hone ONNX']:.4f}; {summary}; tokenizer {same}/{len(texts)}; "
          f"times (a) {time_a:.1f} s, (b) {time_b:.1f} s, (c) {time_c:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
