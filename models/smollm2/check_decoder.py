#!/usr/bin/env python3
"""Checks a decoder built by build_decoder.py with PyPI onnxruntime against an independent plain-numpy forward, and
its tokenizer.json with PyPI tokenizers. Exit status 0 when every check passes, 1 otherwise.

  python models/smollm2/check_decoder.py --model DIR/model.onnx --tokenizer DIR/tokenizer.json --gguf FILE.gguf
      the reference takes its weights from the GGUF (dequantised with PyPI gguf, on PYTHONPATH), as llama.cpp does:
      attn_q/attn_k rows as stored (llama.cpp's permuted order) with llama.cpp's RoPE (mode 0: adjacent pairs
      2i, 2i+1), and compares the ONNX model's keys after mapping that layout to Hugging Face's halves; so the
      builder's un-permutation and its rotate_half RoPE are checked, not assumed
  python models/smollm2/check_decoder.py --model DIR/model.onnx --tokenizer DIR/tokenizer.json [--theta --eps]
      (a --random model) the reference takes the model's own initializers, with rotate_half RoPE

The reference runs in float64, a whole sequence at a time, without a cache. The ONNX model runs (batch 2, two
prompts of different lengths):
  1. batched prefill, the short row padded on the right (logits of every position: num_logits_to_keep 0), then
     greedy decode steps with the cache, the short row's new tokens after its masked padding slots;
  2. prefill of each row alone (batch 1, num_logits_to_keep 1), their caches joined with the short one padded with
     garbage (large random values, masked), then decode steps; the present keys and values of the first and last
     layers are compared with the reference's too;
  3. chunked prefill (a second chunk of several tokens on a past), num_logits_to_keep 3 and an over-long 1000;
  4. a row with every slot masked (an unused batch slot): its logits must be finite, the other row's unchanged.
Every logit must be within --tol (absolute, default 1e-3 * (1 + max |reference logit|)) of the reference, and the
greedy tokens must agree except where the reference's top two are closer than that tolerance.
The tokenizer: vocabulary = the model's; "<|im_start|>" / "<|im_end|>" (where present) are single special tokens
equal to the model's hone.bos_token_id / hone.eos_token_id; no BOS or EOS is added; digits split one by one; every
text of --texts (tests/data/tokenizer_texts.jsonl, one JSON string per line) decodes back to itself, except texts
with a byte whose byte-level symbol the vocabulary lacks (SmolLM2's lacks 21, e.g. c0 c1 f5-ff, some controls).
"""
import argparse
import json
import os
import sys
import time

import numpy as np
import onnx
import onnxruntime as ort

PROMPTS = ["The capital of France is", "Water boils at a temperature of 100 degrees Celsius, which is 212 degrees in"]
failures = []
# GPT-2's byte-to-unicode table: the 256 symbols of a byte-level BPE's base alphabet
_printable = list(range(33, 127)) + list(range(161, 173)) + list(range(174, 256))
BYTE_LEVEL_ALPHABET = [chr(b) for b in _printable] + [chr(256 + n) for n in range(256 - len(_printable))]
BYTE_LEVEL_BYTES = _printable + [b for b in range(256) if b not in _printable]  # the byte of each symbol


def check(ok, what):
    print(f"  {'ok  ' if ok else 'FAIL'} {what}")
    if not ok:
        failures.append(what)


class Reference:
    """A llama decoder in float64 numpy. w: [out, in] linear weights, q/k rows in `rope` layout ("pairs": llama.cpp's
    adjacent pairs, "halves": Hugging Face's rotate_half)."""

    def __init__(self, w, layers, heads, kv_heads, head_size, eps, theta, rope):
        self.w, self.layers, self.heads, self.kv_heads, self.hs = w, layers, heads, kv_heads, head_size
        self.eps, self.theta, self.rope_kind = eps, theta, rope

    def rms(self, x, weight):
        return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + self.eps) * weight

    def rope(self, x, pos):  # x [heads, S, hs]
        hs = self.hs
        freqs = self.theta ** (-np.arange(0, hs, 2, dtype=np.float64) / hs)  # [hs/2]
        ang = pos[:, None].astype(np.float64) * freqs[None, :]  # [S, hs/2]
        c, s = np.cos(ang), np.sin(ang)
        if self.rope_kind == "pairs":
            a, b = x[..., 0::2], x[..., 1::2]
            out = np.empty_like(x)
            out[..., 0::2] = a * c - b * s
            out[..., 1::2] = a * s + b * c
            return out
        a, b = x[..., : hs // 2], x[..., hs // 2:]
        return np.concatenate([a * c - b * s, b * c + a * s], axis=-1)

    def to_halves(self, k):  # keys of the reference's layout -> Hugging Face's (the ONNX model's)
        return np.concatenate([k[..., 0::2], k[..., 1::2]], axis=-1) if self.rope_kind == "pairs" else k

    def forward(self, ids):
        """ids [S] -> logits [S, vocab], [(key [kv, S, hs] after RoPE in HF layout, value) per layer]"""
        w, S, hs = self.w, len(ids), self.hs
        pos = np.arange(S)
        h = w["embed"][np.asarray(ids)]
        causal = np.tril(np.ones((S, S), bool))
        cache = []
        group = self.heads // self.kv_heads
        for i in range(self.layers):
            x = self.rms(h, w[f"{i}.attn_norm"])
            q = (x @ w[f"{i}.q"].T).reshape(S, self.heads, hs).transpose(1, 0, 2)
            k = (x @ w[f"{i}.k"].T).reshape(S, self.kv_heads, hs).transpose(1, 0, 2)
            v = (x @ w[f"{i}.v"].T).reshape(S, self.kv_heads, hs).transpose(1, 0, 2)
            q, k = self.rope(q, pos), self.rope(k, pos)
            cache.append((self.to_halves(k), v))
            kr, vr = np.repeat(k, group, axis=0), np.repeat(v, group, axis=0)  # query head h -> KV head h // group
            scores = q @ kr.transpose(0, 2, 1) / np.sqrt(hs)
            scores = np.where(causal, scores, -np.inf)
            p = np.exp(scores - scores.max(-1, keepdims=True))
            p /= p.sum(-1, keepdims=True)
            ctx = (p @ vr).transpose(1, 0, 2).reshape(S, self.heads * hs)
            h = h + ctx @ w[f"{i}.o"].T
            x = self.rms(h, w[f"{i}.ffn_norm"])
            gate, up = x @ w[f"{i}.gate"].T, x @ w[f"{i}.up"].T
            h = h + (gate / (1 + np.exp(-gate)) * up) @ w[f"{i}.down"].T
        h = self.rms(h, w["norm"])
        return h @ w["lm_head"].T, cache


def reference_from_gguf(path, f64):
    import gguf
    from gguf.quants import dequantize
    r = gguf.GGUFReader(path)

    def meta(key, default=None):
        f = r.fields.get(key)
        return default if f is None else f.contents()

    raw = {t.name: dequantize(t.data, t.tensor_type).reshape([int(d) for d in reversed(t.shape.tolist())])
           for t in r.tensors}
    layers, heads = meta("llama.block_count"), meta("llama.attention.head_count")
    kv_heads, hidden = meta("llama.attention.head_count_kv"), meta("llama.embedding_length")
    names = {"attn_norm": "attn_norm", "q": "attn_q", "k": "attn_k", "v": "attn_v", "o": "attn_output",
             "ffn_norm": "ffn_norm", "gate": "ffn_gate", "up": "ffn_up", "down": "ffn_down"}
    w = {"embed": raw["token_embd.weight"], "norm": raw["output_norm.weight"],
         "lm_head": raw.get("output.weight", raw["token_embd.weight"])}
    for i in range(layers):
        for k, n in names.items():
            w[f"{i}.{k}"] = raw[f"blk.{i}.{n}.weight"]
    w = {k: v.astype(f64) for k, v in w.items()}
    eps, theta = meta("llama.attention.layer_norm_rms_epsilon"), meta("llama.rope.freq_base", 10000.0)
    print(f"reference: {path} (dequantised with gguf), {layers} layers, {heads}/{kv_heads} heads, eps {eps:g}, "
          f"rope theta {theta:g}, llama.cpp's RoPE on the stored (permuted) attn_q/attn_k rows")
    return Reference(w, layers, heads, kv_heads, hidden // heads, eps, theta, "pairs")


def reference_from_onnx(model, eps, theta, f64):
    from onnx import numpy_helper
    inits = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
    layers = sum(1 for i in model.graph.input if i.name.endswith(".key"))
    kv_in = next(i for i in model.graph.input if i.name == "past_key_values.0.key")
    dims = kv_in.type.tensor_type.shape.dim
    kv_heads, hs = dims[1].dim_value, dims[3].dim_value
    p = "model.layers"
    w = {"embed": inits["model.embed_tokens.weight"], "norm": inits["model.norm.weight"],
         "lm_head": inits["lm_head.weight"].T}
    names = {"attn_norm": "input_layernorm", "o": "self_attn.o_proj", "ffn_norm": "post_attention_layernorm",
             "down": "mlp.down_proj"}
    for i in range(layers):
        for k, n in names.items():
            a = inits[f"{p}.{i}.{n}.weight"]
            w[f"{i}.{k}"] = a.T if a.ndim == 2 else a
        # packed: q, k, v side by side in qkv_proj ([hidden, (heads + 2 kv_heads) hs]), gate and up in gate_up_proj
        qkv = inits[f"{p}.{i}.self_attn.qkv_proj.weight"]
        kv_width = kv_heads * hs
        q_width = qkv.shape[1] - 2 * kv_width
        w[f"{i}.q"], w[f"{i}.k"], w[f"{i}.v"] = (a.T for a in np.split(qkv, [q_width, q_width + kv_width], axis=1))
        w[f"{i}.gate"], w[f"{i}.up"] = (a.T for a in np.split(inits[f"{p}.{i}.mlp.gate_up_proj.weight"], 2, axis=1))
    w = {k: v.astype(f64) for k, v in w.items()}
    heads = w["0.q"].shape[0] // hs
    print(f"reference: the model's own initializers, {layers} layers, {heads}/{kv_heads} heads, eps {eps:g}, "
          f"rope theta {theta:g}, rotate_half RoPE")
    return Reference(w, layers, heads, kv_heads, hs, eps, theta, "halves")


class Runner:
    def __init__(self, path, layers, kv_heads, hs):
        so = ort.SessionOptions()
        so.intra_op_num_threads = 2
        so.inter_op_num_threads = 1
        self.sess = ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])
        self.layers, self.kv, self.hs = layers, kv_heads, hs

    def empty_past(self, batch):
        z = np.zeros((batch, self.kv, 0, self.hs), np.float32)
        return [(z, z) for _ in range(self.layers)]

    def run(self, ids, mask, pos, keep, past):
        feeds = {"input_ids": np.asarray(ids, np.int64), "attention_mask": np.asarray(mask, np.int64),
                 "position_ids": np.asarray(pos, np.int64), "num_logits_to_keep": np.array(keep, np.int64)}
        for i, (k, v) in enumerate(past):
            feeds[f"past_key_values.{i}.key"], feeds[f"past_key_values.{i}.value"] = k, v
        out = self.sess.run(None, feeds)
        names = [o.name for o in self.sess.get_outputs()]
        d = dict(zip(names, out))
        present = [(d[f"present.{i}.key"], d[f"present.{i}.value"]) for i in range(self.layers)]
        return d["logits"], present


class Compare:
    def __init__(self, ref, tol):
        self.ref, self.tol, self.max_diff, self.max_key_diff, self.memo = ref, tol, 0.0, 0.0, {}
        self.argmax_total = self.argmax_same = 0

    def reference(self, ids):
        key = tuple(ids)
        if key not in self.memo:
            self.memo[key] = self.ref.forward(list(ids))
        return self.memo[key]

    def logits(self, got, ids, positions, what):
        """got [n, vocab] = the ONNX logits of `positions` of the sequence ids"""
        ref = self.reference(ids)[0][positions]
        tol = self.tol if self.tol else 1e-3 * (1 + np.abs(ref).max())
        diff = float(np.abs(got - ref).max())
        self.max_diff = max(self.max_diff, diff)
        ok = diff <= tol and np.isfinite(got).all()
        for g, r in zip(got, ref):
            top2 = np.sort(r)[-2:]
            self.argmax_total += 1
            same = int(np.argmax(g)) == int(np.argmax(r))
            self.argmax_same += same
            ok &= same or top2[1] - top2[0] <= tol
        check(ok, f"{what}: max |logit diff| {diff:.2e} (tolerance {tol:.2e}), argmax agrees")
        return diff

    def present(self, present, row, ids, slots, what):
        """present[layer] = (key, value) [batch, kv, T, hs]; slots: the slots of row that hold ids' tokens"""
        cache = self.reference(ids)[1]
        worst = 0.0
        for layer in (0, len(cache) - 1):
            rk, rv = cache[layer]
            k, v = present[layer][0][row][:, slots], present[layer][1][row][:, slots]
            worst = max(worst, float(np.abs(k - rk).max()), float(np.abs(v - rv).max()))
        self.max_key_diff = max(self.max_key_diff, worst)
        tol = 1e-3 * (1 + max(np.abs(cache[0][0]).max(), np.abs(cache[-1][0]).max()))
        check(worst <= tol, f"{what}: present keys (after RoPE) and values of the first and last layers, "
                            f"max diff {worst:.2e} (tolerance {tol:.2e})")


def check_model(args):
    model = onnx.load(args.model)
    meta = {p.key: p.value for p in model.metadata_props}
    print(f"model: {args.model}")
    for k in ("hone.architecture", "hone.context_length", "hone.bos_token_id", "hone.eos_token_id", "hone.source"):
        print(f"  {k} = {meta.get(k)}")
    check(meta.get("hone.architecture") == "llama" and all(
        k in meta for k in ("hone.context_length", "hone.bos_token_id", "hone.eos_token_id", "hone.chat_template",
                            "hone.source")), "metadata_props complete")
    check(all(o.domain in ("", "ai.onnx") and o.version == 17 for o in model.opset_import), "opset 17, standard ops")
    check(not any(t.data_location == onnx.TensorProto.EXTERNAL for t in model.graph.initializer), "no external data")
    f64 = np.float64
    if args.gguf:
        ref = reference_from_gguf(args.gguf, f64)
    else:
        ref = reference_from_onnx(model, args.eps, args.theta, f64)
    vocab = ref.w["embed"].shape[0]
    del model
    runner = Runner(args.model, ref.layers, ref.kv_heads, ref.hs)
    cmp = Compare(ref, args.tol)
    return meta, vocab, runner, cmp, ref


def run_scenarios(runner, cmp, prompts, steps):
    a, b = prompts
    assert len(a) > len(b) + 2, "the first prompt must be longer"
    La, Lb = len(a), len(b)
    pad = 0

    print("1. batched prefill (short row padded on the right), then cached greedy decode")
    ids = np.full((2, La), pad)
    ids[0], ids[1, :Lb] = a, b
    mask = np.zeros((2, La), np.int64)
    mask[0], mask[1, :Lb] = 1, 1
    pos = np.tile(np.arange(La), (2, 1))
    logits, past = runner.run(ids, mask, pos, 0, runner.empty_past(2))
    check(logits.shape == (2, La, cmp.ref.w["embed"].shape[0]), f"prefill logits shape {logits.shape}")
    cmp.logits(logits[0], a, list(range(La)), "prefill row 0, every position")
    cmp.logits(logits[1, :Lb], b, list(range(Lb)), "prefill row 1, its valid positions")
    check(np.isfinite(logits).all(), "prefill logits finite at padding positions too")
    seqs = [list(a), list(b)]
    nxt = [int(np.argmax(logits[0, La - 1])), int(np.argmax(logits[1, Lb - 1]))]
    for step in range(steps):
        for r in range(2):
            seqs[r].append(nxt[r])
        mask = np.concatenate([mask, np.ones((2, 1), np.int64)], axis=1)
        pos = np.array([[len(seqs[0]) - 1], [len(seqs[1]) - 1]])
        logits, past = runner.run(np.array([[nxt[0]], [nxt[1]]]), mask, pos, 1, past)
        check(logits.shape[:2] == (2, 1) and past[0][0].shape[2] == mask.shape[1],
              f"step {step + 1}: logits {logits.shape}, present {past[0][0].shape}")
        for r in range(2):
            cmp.logits(logits[r], seqs[r], [len(seqs[r]) - 1],
                       f"step {step + 1} row {r} (past {mask.shape[1] - 1}, position {len(seqs[r]) - 1})")
        nxt = [int(np.argmax(logits[0, 0])), int(np.argmax(logits[1, 0]))]
    gen = seqs

    print("2. each row prefilled alone, caches joined (the short one padded with masked garbage), decode")
    rng = np.random.default_rng(0)
    la, pa = runner.run([a], [[1] * La], [list(range(La))], 1, runner.empty_past(1))
    lb, pb = runner.run([b], [[1] * Lb], [list(range(Lb))], 1, runner.empty_past(1))
    cmp.logits(la[0], a, [La - 1], "row 0 alone, last position (num_logits_to_keep 1)")
    cmp.logits(lb[0], b, [Lb - 1], "row 1 alone, last position")
    past = []
    for (ka, va), (kb, vb) in zip(pa, pb):
        junk = lambda x: (rng.standard_normal((1,) + x.shape[1:2] + (La - Lb,) + x.shape[3:]) * 50).astype(np.float32)  # noqa: E731,E501
        past.append((np.concatenate([ka, np.concatenate([kb, junk(kb)], axis=2)]),
                     np.concatenate([va, np.concatenate([vb, junk(vb)], axis=2)])))
    mask = np.zeros((2, La), np.int64)
    mask[0], mask[1, :Lb] = 1, 1
    seqs = [list(a), list(b)]
    slots = [list(range(La)), list(range(Lb))]
    for step in range(steps):
        tok = [gen[r][len(seqs[r])] for r in range(2)]
        for r in range(2):
            seqs[r].append(tok[r])
            slots[r].append(mask.shape[1])
        mask = np.concatenate([mask, np.ones((2, 1), np.int64)], axis=1)
        pos = np.array([[len(seqs[0]) - 1], [len(seqs[1]) - 1]])
        logits, past = runner.run(np.array([[tok[0]], [tok[1]]]), mask, pos, 1, past)
        for r in range(2):
            cmp.logits(logits[r], seqs[r], [len(seqs[r]) - 1],
                       f"step {step + 1} row {r} (slot {slots[r][-1]}, position {len(seqs[r]) - 1}, "
                       f"{mask.shape[1] - int(mask[r].sum())} masked slots)")
    for r in range(2):
        cmp.present(past, r, seqs[r], slots[r], f"row {r} cache after {steps} steps")

    print("3. chunked prefill: a chunk of several tokens on a past; num_logits_to_keep 3 and 1000")
    seq = gen[0]
    cut = len(seq) // 2
    _, past = runner.run([seq[:cut]], [[1] * cut], [list(range(cut))], 1, runner.empty_past(1))
    rest = len(seq) - cut
    logits, _ = runner.run([seq[cut:]], [[1] * len(seq)], [list(range(cut, len(seq)))], 3, past)
    check(logits.shape[1] == 3, f"num_logits_to_keep 3 -> logits {logits.shape}")
    cmp.logits(logits[0], seq, list(range(len(seq) - 3, len(seq))), f"chunk of {rest} on a past of {cut}, last 3")
    logits, _ = runner.run([seq[cut:]], [[1] * len(seq)], [list(range(cut, len(seq)))], 1000, past)
    check(logits.shape[1] == rest, f"num_logits_to_keep 1000 > sequence {rest} -> logits {logits.shape}")
    cmp.logits(logits[0], seq, list(range(cut, len(seq))), f"chunk of {rest} on a past of {cut}, every position")

    print("4. a row with every slot masked")
    logits, _ = runner.run([a, a], [[1] * La, [0] * La], [list(range(La))] * 2, 1, runner.empty_past(2))
    check(np.isfinite(logits).all(), "logits finite (no NaN) for the all-masked row")
    cmp.logits(logits[0], a, [La - 1], "the other row unchanged")
    _, past = runner.run([a], [[1] * La], [list(range(La))], 1, runner.empty_past(1))
    past2 = [(np.concatenate([k, k]), np.concatenate([v, v])) for k, v in past]
    logits, _ = runner.run([[gen[0][La]], [gen[0][La]]], [[1] * (La + 1), [0] * (La + 1)], [[La], [La]], 1, past2)
    check(np.isfinite(logits).all(), "decode step: logits finite for the all-masked row")
    cmp.logits(logits[0], gen[0][:La + 1], [La], "decode step: the other row unchanged")
    return gen


def check_tokenizer(args, meta, vocab):
    from tokenizers import Tokenizer
    print(f"tokenizer: {args.tokenizer}")
    tok = Tokenizer.from_file(args.tokenizer)
    if tok.truncation:
        print(f"  (its truncation {tok.truncation} switched off for the checks)")
        tok.no_truncation()
    check(tok.get_vocab_size(with_added_tokens=True) == vocab,
          f"vocabulary {tok.get_vocab_size(with_added_tokens=True)} == the model's {vocab}")
    bos, eos = int(meta["hone.bos_token_id"]), int(meta["hone.eos_token_id"])
    for name, want in (("<|im_start|>", bos), ("<|im_end|>", eos)):
        got = tok.token_to_id(name)
        if got is not None:
            check(got == want, f"{name} is id {got}, the model's {'bos' if want == bos else 'eos'} id {want}")
    chat = "<|im_start|>user\nWhat is 2+2?<|im_end|>\n<|im_start|>assistant\n"
    enc = tok.encode(chat)
    print(f"  {chat!r} -> {enc.ids}")
    check(enc.ids[0] == tok.token_to_id("<|im_start|>") and tok.token_to_id("<|im_end|>") in enc.ids,
          "special tokens are single ids, no BOS added in front")
    enc = tok.encode("Hello, world! 12345")
    print(f"  'Hello, world! 12345' -> {enc.ids} {enc.tokens}")
    check(enc.tokens[-5:] == list("12345"), "digits split one by one")
    check(tok.decode(enc.ids) == "Hello, world! 12345", "decodes back")
    missing = {b for b, c in zip(BYTE_LEVEL_BYTES, BYTE_LEVEL_ALPHABET) if tok.token_to_id(c) is None}
    if missing:
        print(f"  (the vocabulary lacks {len(missing)} of the 256 byte-level symbols, bytes "
              f"{' '.join(f'{b:02x}' for b in sorted(missing))}: texts with them cannot round-trip)")
    if args.texts and os.path.exists(args.texts):
        with open(args.texts, encoding="utf-8") as f:
            texts = [json.loads(line) for line in f if line.strip()]
        skipped = [t for t in texts if set(t.encode("utf-8")) & missing]
        texts = [t for t in texts if t not in skipped]
        bad = [t for t in texts if tok.decode(tok.encode(t).ids, skip_special_tokens=False) != t]
        n = sum(len(tok.encode(t).ids) for t in texts)
        check(not bad, f"{len(texts)} texts of {args.texts} ({n} tokens) decode back to themselves"
                       + (f" ({len(skipped)} with bytes outside the vocabulary skipped)" if skipped else "")
                       + (f"; first failure {bad[0][:60]!r}" if bad else ""))
    return tok


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--model", required=True)
    ap.add_argument("--tokenizer", required=True)
    ap.add_argument("--gguf", help="take the reference's weights from this GGUF (the real model)")
    ap.add_argument("--eps", type=float, default=1e-5, help="without --gguf: the RMSNorm epsilon of the model")
    ap.add_argument("--theta", type=float, default=100000.0, help="without --gguf: the RoPE theta of the model")
    ap.add_argument("--tol", type=float, help="absolute logits tolerance (default 1e-3 * (1 + max |logit|))")
    ap.add_argument("--steps", type=int, default=4, help="decode steps")
    ap.add_argument("--texts", default="tests/data/tokenizer_texts.jsonl")
    args = ap.parse_args()
    t0 = time.time()
    meta, vocab, runner, cmp, ref = check_model(args)
    tok = check_tokenizer(args, meta, vocab)
    prompts = [tok.encode(p).ids for p in PROMPTS]
    prompts.sort(key=len, reverse=True)
    print(f"prompts: {len(prompts[0])} and {len(prompts[1])} tokens")
    gen = run_scenarios(runner, cmp, prompts, args.steps)
    print(f"greedy continuations: {[tok.decode(g[len(p):]) for g, p in zip(gen, prompts)]}")
    print(f"check_decoder: max |logit diff| {cmp.max_diff:.3e}, max cache diff {cmp.max_key_diff:.3e}, argmax "
          f"agreement {cmp.argmax_same}/{cmp.argmax_total}, {len(failures)} failure(s), {time.time() - t0:.1f} s")
    if failures:
        print("check_decoder: FAILED: " + "; ".join(failures), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
