#!/usr/bin/env python3
"""Measures graph-level levers on SmolLM2's decode step, each on its own, with ONNX Runtime's Python package (not in
scripts/test: about five minutes). Three graphs of the same GGUF weights, each made INT4 the way scripts/compare-llm
makes hone's variant (hone quantize: 4-bit blocks with each block's minimum, lm_head at 8 bits, accuracy level 4):

  separate  build_decoder.build_model(packed=False), the graph it wrote before 2026-12-06: attention in standard
            ONNX ops (mask, RoPE, Concat of past and new keys, MatMul, Where, Softmax, MatMul), q, k, v, gate and up
            each their own MatMul,
            RMSNorm as Mul/ReduceMean/Add/Sqrt/Div/Mul (which ONNX Runtime leaves unfused)
  packed    build_decoder.py's graph now: the same attention; q, k and v from one MatMul and gate and up from one
            (weights side by side: blocks run along the input, so quantization sees the same blocks), RMSNorm
            written with Pow so that ONNX Runtime fuses it into SimplifiedLayerNormalization at load
  gqa       packed, and com.microsoft GroupQueryAttention (rotary inside, packed QKV, past and new keys written to
            present in one kernel), SkipSimplifiedLayerNormalization for every residual add and the norm after it.
            GroupQueryAttention wants right-padded rows (each row's valid positions first, seqlens_k from
            attention_mask), a layout hone's engine does not feed: this graph is measured, not served.

Each decode step: batch B rows of one new token after 160 past positions (random past keys and values: the time
does not depend on them), the graphs alternating in rounds; medians and ranges in ms, ratios to separate; then one
ONNX Runtime profile per graph at batch 1 (kernel time by op type; the profiler adds its own cost per node).

  PYTHONPATH=~/.cache/hone/downloads/gguf-0.19.0 .venv-test/bin/python models/smollm2/decoder_levers.py \\
      --gguf ~/.cache/hone/downloads/SmolLM2-135M-Instruct-0.1.2.Q4_1.gguf --hone build/hone --work out/levers
"""
import argparse
import collections
import json
import os
import platform
import statistics
import subprocess
import sys
import time

import numpy as np
import onnxruntime as ort
from onnx import TensorProto, helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import build_decoder as bd  # noqa: E402

MS = "com.microsoft"
QUANTIZE = "--mode weight-only --bits 4 --block-offset --exclude-nodes logits_node --accuracy-level 4"
QUANTIZE_HEAD = "--mode weight-only --bits 8 --nodes logits_node --accuracy-level 4"


def build_gqa(cfg, w, io):
    """build_decoder's packed graph with GroupQueryAttention and SkipSimplifiedLayerNormalization; io: the inputs and
    outputs of build_decoder's graph (position_ids dropped: GroupQueryAttention derives positions from the mask)."""
    g = bd.Graph()
    hs, nh, nkv, f32 = cfg.head_size, cfg.heads, cfg.kv_heads, np.float32
    inputs = [i for i in io[0] if i.name != "position_ids"]
    c = {k: g.const(np.array(v, np.int64), k) for k, v in {
        "one": 1, "axes1": [1], "one_1d": [1], "inter_split": [cfg.intermediate, cfg.intermediate],
        "keep_end": [np.iinfo(np.int64).max]}.items()}
    two, eps = g.const(np.array(2.0, f32), "two"), g.const(np.array(cfg.eps, f32), "eps")

    def linear(x, name, weight):
        return g.op("MatMul", [x, g.init(name, weight.astype(f32))], name.replace(".", "_") + "_out")

    def add_norm(h, delta, name, weight):  # (norm(h + delta), h + delta)
        out, total = g.name("skip_norm"), g.name("residual")
        g.nodes.append(helper.make_node("SkipSimplifiedLayerNormalization", [h, delta, g.init(name, weight.astype(f32))],
                                        [out, "", "", total], name=out + "_node", domain=MS, epsilon=cfg.eps))
        return out, total

    ones = g.op("ReduceSum", ["attention_mask", c["axes1"]], "mask_ones", keepdims=0)
    seqlens_k = g.op("Cast", [g.op("Sub", [ones, c["one"]], "seqlens64")], "seqlens_k", to=TensorProto.INT32)
    width = g.op("Gather", [g.op("Shape", ["attention_mask"], "mask_shape"), c["one"]], "width", axis=0)
    total_len = g.op("Cast", [width], "total_len", to=TensorProto.INT32)
    inv_freq = (1.0 / (cfg.theta ** (np.arange(0, hs, 2, dtype=np.float64) / hs))).astype(f32)
    angles = np.arange(cfg.context, dtype=f32)[:, None] * inv_freq[None, :]
    cos_cache, sin_cache = g.const(np.cos(angles), "cos_cache"), g.const(np.sin(angles), "sin_cache")

    h = g.op("Gather", [g.init("model.embed_tokens.weight", w["embed"].astype(f32)), "input_ids"], "embed", axis=0)
    # the first norm follows no residual add: the Pow form, which ONNX Runtime fuses
    mean = g.op("ReduceMean", [g.op("Pow", [h, two], "rms_sq")], "rms_mean", axes=[-1], keepdims=1)
    std = g.op("Sqrt", [g.op("Add", [mean, eps], "rms_add")], "rms_std")
    x = g.op("Mul", [g.op("Div", [h, std], "rms_div"), g.init("model.layers.0.input_layernorm.weight",
                                                               w["0.attn_norm"].astype(f32))], "rms_out")
    for i in range(cfg.layers):
        p = f"model.layers.{i}"
        qkv = linear(x, f"{p}.self_attn.qkv_proj.weight", np.concatenate([w[f"{i}.q"], w[f"{i}.k"], w[f"{i}.v"]], 1))
        ctx = g.name("attn")
        g.nodes.append(helper.make_node(
            "GroupQueryAttention", [qkv, "", "", f"past_key_values.{i}.key", f"past_key_values.{i}.value",
                                    seqlens_k, total_len, cos_cache, sin_cache],
            [ctx, f"present.{i}.key", f"present.{i}.value"], name=ctx + "_node", domain=MS,
            num_heads=nh, kv_num_heads=nkv, do_rotary=1, rotary_interleaved=0))
        x, h = add_norm(h, linear(ctx, f"{p}.self_attn.o_proj.weight", w[f"{i}.o"]),
                        f"{p}.post_attention_layernorm.weight", w[f"{i}.ffn_norm"])
        gate_up = linear(x, f"{p}.mlp.gate_up_proj.weight", np.concatenate([w[f"{i}.gate"], w[f"{i}.up"]], 1))
        gate, up = g.name("gate"), g.name("up")
        g.nodes.append(helper.make_node("Split", [gate_up, c["inter_split"]], [gate, up], name=gate + "_node", axis=-1))
        act = g.op("Mul", [gate, g.op("Sigmoid", [gate], "silu_sig")], "silu")
        mlp = linear(g.op("Mul", [act, up], "gated"), f"{p}.mlp.down_proj.weight", w[f"{i}.down"])
        last = i + 1 == cfg.layers
        x, h = add_norm(h, mlp, "model.norm.weight" if last else f"model.layers.{i + 1}.input_layernorm.weight",
                        w["norm"] if last else w[f"{i + 1}.attn_norm"])
    start = g.op("Neg", [g.op("Reshape", ["num_logits_to_keep", c["one_1d"]], "keep_1d")], "keep_start")
    kept = g.op("Slice", [x, start, c["keep_end"], c["axes1"]], "kept")
    g.op_to("MatMul", [kept, g.init("lm_head.weight", w["lm_head"].astype(f32))], "logits")
    graph = helper.make_graph(g.nodes, "llama_decoder", inputs, list(io[1]), initializer=g.inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", bd.OPSET), helper.make_opsetid(MS, 1)])
    model.ir_version = 8
    return model


def quantize(hone, src, out_dir):
    os.makedirs(out_dir, exist_ok=True)
    body, out = os.path.join(out_dir, "body.onnx"), os.path.join(out_dir, "model.onnx")
    for a, b, args in ((src, body, QUANTIZE), (body, out, QUANTIZE_HEAD)):
        subprocess.run([hone, "quantize", a, "-o", b, *args.split(), "--no-verify"], check=True,
                       stdout=subprocess.DEVNULL)
    os.remove(body)
    return out


def session(path, threads, profile_prefix=None):
    so = ort.SessionOptions()
    so.log_severity_level = 3
    so.intra_op_num_threads = threads
    if profile_prefix:
        so.enable_profiling = True
        so.profile_file_prefix = profile_prefix
    return ort.InferenceSession(path, so)


def feeds(s, batch, past, rng):
    want = {i.name: i for i in s.get_inputs()}
    f = {"input_ids": rng.integers(0, 49152, (batch, 1)), "num_logits_to_keep": np.array(1, np.int64),
         "attention_mask": np.ones((batch, past + 1), np.int64), "position_ids": np.full((batch, 1), past, np.int64)}
    for name, spec in want.items():
        if name.startswith("past_key_values."):
            f[name] = rng.standard_normal((batch, spec.shape[1], past, spec.shape[3])).astype(np.float32)
    return {k: v for k, v in f.items() if k in want}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--gguf", required=True)
    ap.add_argument("--hone", required=True, help="the hone binary (hone quantize makes the INT4 variants)")
    ap.add_argument("--work", required=True, help="folder for the graphs (about 700 MB)")
    ap.add_argument("--batches", default="1,4,16")
    ap.add_argument("--past", type=int, default=160)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--runs", type=int, default=5, help="steps per variant per round")
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    args = ap.parse_args()
    cfg, w, _ = bd.read_gguf(args.gguf, os.path.basename(args.gguf))
    paths = {}
    io = None
    for name in ("packed", "separate", "gqa"):  # packed first: its inputs and outputs are the gqa graph's too
        src = os.path.join(args.work, name, "float.onnx")
        os.makedirs(os.path.dirname(src), exist_ok=True)
        if name == "gqa":
            model = build_gqa(cfg, w, io)
        else:
            model = bd.build_model(cfg, w, packed=name == "packed")
            io = io or (list(model.graph.input), list(model.graph.output))
        bd.write_atomic(src, model.SerializeToString())
        paths[name] = quantize(args.hone, src, os.path.join(args.work, name))
        os.remove(src)
    del w
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
    flags = set(next((l.split(":", 1)[1].split() for l in open("/proc/cpuinfo") if l.startswith("flags")), []))
    feats = [f for f in ("avx2", "avx512f", "avx512_vnni", "avx512_bf16", "amx_int8") if f in flags]
    print(f"machine: {cpu}, {os.cpu_count()} cores, {' '.join(feats)}; onnxruntime {ort.__version__} (Python), "
          f"{args.threads} intra-op threads; python {platform.python_version()}")
    print(f"decode step, INT4 ({QUANTIZE}; lm_head {QUANTIZE_HEAD}), {args.past} past positions, "
          f"{args.rounds} rounds x {args.runs} steps, variants alternating; ms per step, median (range), ratio to "
          f"separate (above 1 is faster)")
    rng = np.random.default_rng(0)
    order = ("separate", "packed", "gqa")
    sessions = {n: session(paths[n], args.threads) for n in order}
    for batch in (int(b) for b in args.batches.split(",")):
        f = {n: feeds(s, batch, args.past, rng) for n, s in sessions.items()}
        for n, s in sessions.items():
            for _ in range(3):
                s.run(None, f[n])
        times = {n: [] for n in sessions}
        for _ in range(args.rounds):
            for n, s in sessions.items():
                t = time.perf_counter()
                for _ in range(args.runs):
                    s.run(None, f[n])
                times[n].append((time.perf_counter() - t) / args.runs * 1e3)
        base = statistics.median(times["separate"])
        print(f"  batch {batch:2d}: " + "; ".join(
            f"{n} {statistics.median(t):.2f} ({min(t):.2f}-{max(t):.2f}) {base / statistics.median(t):.2f}x"
            for n, t in times.items()), flush=True)
    del sessions
    print("profile at batch 1 (ONNX Runtime's profiler, 20 steps): kernel ms per step by op type, the top 8")
    for n in order:
        s = session(paths[n], args.threads, os.path.join(args.work, n, "profile"))
        f = feeds(s, 1, args.past, rng)
        for _ in range(20):
            s.run(None, f)
        events = json.load(open(s.end_profiling()))
        by_op, runs = collections.Counter(), 0
        for e in events:
            if e.get("cat") == "Node" and e["name"].endswith("_kernel_time"):
                by_op[e["args"]["op_name"]] += e["dur"]
            runs += e.get("cat") == "Session" and e["name"] == "model_run"
        total = sum(by_op.values())
        print(f"  {n}: {total / runs / 1e3:.2f} ms in kernels; " + ", ".join(
            f"{op} {d / runs / 1e3:.2f} ({100 * d / total:.0f}%)" for op, d in by_op.most_common(8)))


if __name__ == "__main__":
    sys.exit(main())
