#!/usr/bin/env python3
"""Builds the ONNX decoder (with KV cache) of a llama-architecture LLM: SmolLM2-135M-Instruct from its GGUF file, or
a tiny random-weight model of the same graph for fast tests.

  /usr/bin/python3 models/smollm2/build_decoder.py --gguf FILE.gguf --out DIR [--source TEXT]
      the real model: every tensor of the GGUF dequantised to FP32 with PyPI `gguf` (gguf.quants.dequantize; put it
      on PYTHONPATH), the llama.cpp row permutation of attn_q/attn_k undone (see unpermute()), so that the graph
      applies Hugging Face's rotate_half RoPE; writes DIR/model.onnx and DIR/tokenizer.json (a Hugging Face
      tokenizer.json made from the GGUF's tokenizer metadata, see tokenizer_json())
  /usr/bin/python3 models/smollm2/build_decoder.py --random --layers 2 --hidden 64 --heads 4 --kv-heads 2 \\
      --vocab-from TOKENIZER_JSON --seed 1 --out DIR
      a tiny model with seeded random weights (vocabulary = that tokenizer's, added tokens included; context 256
      unless --context); writes DIR/model.onnx and a copy of the tokenizer as DIR/tokenizer.json

Both go through build_model(), so the graph is the same. Run with Debian's interpreter (python3-onnx,
python3-numpy). Outputs are written to a temporary file and renamed.

The ONNX contract (the C++ engine depends on it): opset 17, standard ops only, FP32, one file.
  inputs   input_ids INT64 [batch, sequence]; attention_mask INT64 [batch, total_sequence] (total = past + sequence);
           position_ids INT64 [batch, sequence]; num_logits_to_keep INT64 [] (0: logits of every position, N > 0:
           only of the last N positions of each row); past_key_values.{i}.key / .value FP32
           [batch, kv_heads, past_sequence, head_size] for each layer i (past_sequence may be 0)
  outputs  logits FP32 [batch, kept, vocab]; present.{i}.key / .value FP32 [batch, kv_heads, total_sequence,
           head_size] = concat(past, new) on axis 2; keys are stored after RoPE
  query i of row b (key slot past + i) attends key slot j iff attention_mask[b, j] == 1 and j <= past + i; masked
  scores are set to the lowest float with Where (never added), so a row with every key masked stays finite. RoPE
  angles come from position_ids (not from slots), so a row's slots may have masked gaps. GQA: query head h uses
  KV head h // (heads / kv_heads), done by viewing the queries of a KV head's group as one longer sequence.
  Linear layers are MatMul with FP32 [in, out] initializers (lm_head too: its own [hidden, vocab] initializer, a
  transposed copy of the tied embedding); per layer, q, k and v are one MatMul (self_attn.qkv_proj.weight, [hidden,
  (heads + 2 kv_heads) * hs], then Split) and gate and up one (mlp.gate_up_proj.weight, [hidden, 2 * inter]); the
  embedding is a Gather on a [vocab, hidden] initializer. RMSNorm is x / sqrt(mean(x^2) + eps) * weight with Pow,
  which ONNX Runtime fuses into SimplifiedLayerNormalization at load.
  --layout paged (hone's own layout, which only hone runs): no attention_mask, past_key_values or present; instead
  inputs   kv_cache FP16 [blocks, layers, 2, kv_heads, block_tokens, head_size] (the engine's block pool, written in
           place), block_table INT32 [batch, width] (each row's blocks in position order), past_lengths INT32 [batch]
           (positions each row has in its blocks); with --kv-dtype int8, kv_cache is INT8 and kv_scales FP16
           [blocks, layers, 2, kv_heads, block_tokens, head_size / 32] holds a scale per 32 elements; each layer's
           attention is one ai.hone.PagedAttention node
           (src/runtime/custom_ops.h) on the packed q/k/v projection and position_ids: it applies RoPE, stores the
           new keys and values in the blocks and attends over positions <= past + i.
  metadata_props: hone.architecture=llama, hone.context_length, hone.bos_token_id, hone.eos_token_id,
  hone.chat_template, hone.source
"""
import argparse
import json
import os
import shutil
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 17

# SmolLM2-Instruct's ChatML template (the GGUF's tokenizer.chat_template), for the random model's metadata
CHATML_TEMPLATE = (
    "{% for message in messages %}{% if loop.first and messages[0]['role'] != 'system' %}"
    "{{ '<|im_start|>system\nYou are a helpful AI assistant named SmolLM, trained by Hugging Face<|im_end|>\n' }}"
    "{% endif %}{{'<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>' + '\n'}}"
    "{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}")


class Config:
    def __init__(self, **kw):
        self.layers = kw["layers"]
        self.hidden = kw["hidden"]
        self.heads = kw["heads"]
        self.kv_heads = kw["kv_heads"]
        self.head_size = kw.get("head_size") or self.hidden // self.heads
        self.intermediate = kw["intermediate"]
        self.vocab = kw["vocab"]
        self.eps = float(kw["eps"])
        self.theta = float(kw["theta"])
        self.context = int(kw["context"])
        self.bos = int(kw["bos"])
        self.eos = int(kw["eos"])
        self.chat_template = kw["chat_template"]
        self.source = kw["source"]
        if self.heads % self.kv_heads:
            raise SystemExit(f"heads {self.heads} is not a multiple of kv_heads {self.kv_heads}")
        if self.head_size % 2:
            raise SystemExit(f"head size {self.head_size} is odd")


# ---------------------------------------------------------------------------------------------------------------
# the graph


class Graph:
    def __init__(self):
        self.nodes, self.inits, self.count = [], [], 0

    def name(self, hint):
        self.count += 1
        return f"{hint}_{self.count}"

    def op(self, op_type, inputs, hint=None, **attrs):
        out = self.name(hint or op_type.lower())
        self.nodes.append(helper.make_node(op_type, inputs, [out], name=out + "_node", **attrs))
        return out

    def op_to(self, op_type, inputs, output, **attrs):
        self.nodes.append(helper.make_node(op_type, inputs, [output], name=output + "_node", **attrs))
        return output

    def init(self, name, array):
        self.inits.append(numpy_helper.from_array(np.ascontiguousarray(array), name))
        return name

    def const(self, array, hint="const"):
        return self.init(self.name(hint), np.asarray(array))


def build_model(cfg, w, packed=True, layout="dense", kv_dtype="float16"):
    """packed=False writes the graph before packing (q, k, v, gate and up each a MatMul, RMSNorm in the Mul form ONNX
    Runtime leaves unfused), for decoder_levers.py to measure against. layout="paged": attention is hone's
    ai.hone.PagedAttention over a block KV cache (see the module doc), not the standard ops over dense past/present;
    kv_dtype (paged only) is that cache's element type, "float16" or "int8" (with kv_scales).
    w: FP32 numpy arrays, Hugging Face layout and RoPE (rotate_half), linear weights as [in, out]:
    embed [vocab, hidden], lm_head [hidden, vocab], norm [hidden], and for each layer i the keys
    f"{i}.attn_norm", "q" [hidden, heads*hs], "k"/"v" [hidden, kv*hs], "o" [heads*hs, hidden], "ffn_norm",
    "gate"/"up" [hidden, inter], "down" [inter, hidden]."""
    g = Graph()
    hs, nh, nkv = cfg.head_size, cfg.heads, cfg.kv_heads
    group = nh // nkv
    f32 = np.float32

    paged = layout == "paged"
    assert layout in ("dense", "paged") and (packed or not paged), (layout, packed)
    int8_kv = kv_dtype == "int8"
    assert kv_dtype in ("float16", "int8") and (paged or not int8_kv) and (not int8_kv or hs % 32 == 0), \
        (kv_dtype, layout, hs)
    inputs = [
        helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "sequence"]),
        helper.make_tensor_value_info("position_ids", TensorProto.INT64, ["batch", "sequence"]),
        helper.make_tensor_value_info("num_logits_to_keep", TensorProto.INT64, []),
    ]
    outputs = [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", "kept", cfg.vocab])]
    if paged:
        inputs += [
            helper.make_tensor_value_info("kv_cache", TensorProto.INT8 if int8_kv else TensorProto.FLOAT16,
                                          ["blocks", cfg.layers, 2, nkv, "block_tokens", hs]),
            helper.make_tensor_value_info("block_table", TensorProto.INT32, ["batch", "table_width"]),
            helper.make_tensor_value_info("past_lengths", TensorProto.INT32, ["batch"]),
        ]
        if int8_kv:
            inputs.append(helper.make_tensor_value_info("kv_scales", TensorProto.FLOAT16,
                                                        ["blocks", cfg.layers, 2, nkv, "block_tokens", hs // 32]))
    else:
        inputs.insert(1, helper.make_tensor_value_info("attention_mask", TensorProto.INT64,
                                                       ["batch", "total_sequence"]))
    for i in range(cfg.layers if not paged else 0):
        for kind in ("key", "value"):
            inputs.append(helper.make_tensor_value_info(f"past_key_values.{i}.{kind}", TensorProto.FLOAT,
                                                        ["batch", nkv, "past_sequence", hs]))
            outputs.append(helper.make_tensor_value_info(f"present.{i}.{kind}", TensorProto.FLOAT,
                                                         ["batch", nkv, "total_sequence", hs]))

    # constants shared by the layers
    c_axes1 = g.const(np.array([1], np.int64), "axes1")
    c_zero = g.const(np.array(0, np.int64), "zero")
    c_one = g.const(np.array(1, np.int64), "one")
    c_one_1d = g.const(np.array([1], np.int64), "one_1d")
    c_eps = g.const(np.array(cfg.eps, f32), "rms_eps")
    c_scale = g.const(np.array(1.0 / np.sqrt(hs), f32), "attn_scale")
    c_lowest = g.const(np.array(np.finfo(f32).min, f32), "lowest")
    c_q_shape = g.const(np.array([0, 0, nh, hs], np.int64), "q_shape")
    c_kv_shape = g.const(np.array([0, 0, nkv, hs], np.int64), "kv_shape")
    c_q_group_shape = g.const(np.array([0, nkv, -1, hs], np.int64), "q_group_shape")  # [B, nh, S, hs] -> grouped
    c_q_heads_shape = g.const(np.array([0, nh, -1, hs], np.int64), "q_heads_shape")
    c_merge_shape = g.const(np.array([0, 0, nh * hs], np.int64), "merge_shape")
    c_half_split = g.const(np.array([hs // 2, hs // 2], np.int64), "half_split")
    c_qkv_split = g.const(np.array([nh * hs, nkv * hs, nkv * hs], np.int64), "qkv_split")
    c_inter_split = g.const(np.array([cfg.intermediate, cfg.intermediate], np.int64), "inter_split")
    c_two = g.const(np.array(2.0, f32), "two")
    c_tile = g.const(np.array([1, 1, group, 1], np.int64), "mask_tile")
    inv_freq = (1.0 / (cfg.theta ** (np.arange(0, hs, 2, dtype=np.float64) / hs))).astype(f32)
    c_inv_freq = g.const(np.concatenate([inv_freq, inv_freq]).reshape(1, 1, hs), "inv_freq")  # [1, 1, hs]

    # sizes, the attention mask and the RoPE tables: the dense layout's only (PagedAttention masks by past_lengths
    # and applies RoPE itself)
    if not paged:
        ids_shape = g.op("Shape", ["input_ids"], "ids_shape")
        seq = g.op("Gather", [ids_shape, c_one], "seq", axis=0)  # scalar S
        mask_shape = g.op("Shape", ["attention_mask"], "mask_shape")
        total = g.op("Gather", [mask_shape, c_one], "total", axis=0)  # scalar T
        past = g.op("Sub", [total, seq], "past")  # scalar P

        # attention mask [B, 1, group*S, T] (bool): key j allowed for query i iff mask[b, j] == 1 and j <= P + i
        key_slots = g.op("Range", [c_zero, total, c_one], "key_slots")  # [T]
        query_end = g.op("Add", [past, seq], "query_end")
        query_slots = g.op("Range", [past, query_end, c_one], "query_slots")  # [S]
        query_col = g.op("Unsqueeze", [query_slots, c_axes1], "query_col")  # [S, 1]
        causal = g.op("LessOrEqual", [key_slots, query_col], "causal")  # [S, T]
        mask_bool = g.op("Equal", ["attention_mask", c_one], "mask_bool")  # [B, T]
        mask_b11t = g.op("Unsqueeze", [mask_bool, g.const(np.array([1, 2], np.int64), "axes12")], "mask_b11t")
        allowed = g.op("And", [mask_b11t, causal], "allowed")  # [B, 1, S, T]
        allowed_grouped = g.op("Tile", [allowed, c_tile], "allowed_grouped")  # [B, 1, group*S, T]: row g*S+i is query i

        # RoPE tables from position_ids: cos/sin [B, 1, S, hs], angle = pos * inv_freq (Hugging Face: float32)
        pos_f = g.op("Cast", ["position_ids"], "pos_f", to=TensorProto.FLOAT)  # [B, S]
        pos_col = g.op("Unsqueeze", [pos_f, g.const(np.array([2], np.int64), "axes2")], "pos_col")  # [B, S, 1]
        angles = g.op("Mul", [pos_col, c_inv_freq], "angles")  # [B, S, hs]
        angles4 = g.op("Unsqueeze", [angles, c_axes1], "angles4")  # [B, 1, S, hs]
        cos = g.op("Cos", [angles4], "rope_cos")
        sin = g.op("Sin", [angles4], "rope_sin")

    def split(x, sizes, parts):  # along the last axis
        outs = [g.name("part") for _ in range(parts)]
        g.nodes.append(helper.make_node("Split", [x, sizes], outs, name=outs[0] + "_node", axis=-1))
        return outs

    def rope(x):  # x [B, H, S, hs]: x * cos + rotate_half(x) * sin, rotate_half = concat(-x2, x1)
        x1, x2 = split(x, c_half_split, 2)
        neg = g.op("Neg", [x2], "rope_neg")
        rot = g.op("Concat", [neg, x1], "rope_rot", axis=-1)
        return g.op("Add", [g.op("Mul", [x, cos], "rope_xc"), g.op("Mul", [rot, sin], "rope_rs")], "rope")

    def rms_norm(x, weight_name, weight):
        # Pow, not Mul: ONNX Runtime fuses this form into one kernel
        sq = g.op("Pow", [x, c_two], "rms_sq") if packed else g.op("Mul", [x, x], "rms_sq")
        mean = g.op("ReduceMean", [sq], "rms_mean", axes=[-1], keepdims=1)
        std = g.op("Sqrt", [g.op("Add", [mean, c_eps], "rms_add")], "rms_std")
        normed = g.op("Div", [x, std], "rms_div")
        return g.op("Mul", [normed, g.init(weight_name, weight.astype(f32))], "rms_out")

    def linear(x, weight_name, weight):
        return g.op("MatMul", [x, g.init(weight_name, weight.astype(f32))], weight_name.replace(".", "_") + "_out")

    def mlp(h, i, p):  # the feed-forward half of layer i, with its residual
        x = rms_norm(h, f"{p}.post_attention_layernorm.weight", w[f"{i}.ffn_norm"])
        if packed:
            gate_up = linear(x, f"{p}.mlp.gate_up_proj.weight", np.concatenate([w[f"{i}.gate"], w[f"{i}.up"]], 1))
            gate, up = split(gate_up, c_inter_split, 2)
        else:
            gate, up = (linear(x, f"{p}.mlp.{n}_proj.weight", w[f"{i}.{n}"]) for n in ("gate", "up"))
        act = g.op("Mul", [gate, g.op("Sigmoid", [gate], "silu_sig")], "silu")
        return g.op("Add", [h, linear(g.op("Mul", [act, up], "gated"), f"{p}.mlp.down_proj.weight", w[f"{i}.down"])],
                    "mlp_residual")

    # named embed_node (as lm_head is logits_node), for hone quantize --nodes
    h = g.op_to("Gather", [g.init("model.embed_tokens.weight", w["embed"].astype(f32)), "input_ids"], "embed", axis=0)
    for i in range(cfg.layers):
        p = f"model.layers.{i}"
        x = rms_norm(h, f"{p}.input_layernorm.weight", w[f"{i}.attn_norm"])
        # one MatMul for queries, keys and values and one for gate and up: the weights side by side. Fewer, wider
        # products (after hone quantize, fewer MatMulNBits and block-offset corrections) made a decode step 1.05x
        # to 1.11x faster (models/smollm2/decoder_levers.py); quantization blocks run along the input, so packing
        # changes none of them.
        if packed:
            qkv = linear(x, f"{p}.self_attn.qkv_proj.weight", np.concatenate([w[f"{i}.q"], w[f"{i}.k"], w[f"{i}.v"]], 1))
            if paged:
                # one node: RoPE on q and k, k and v into the layer's blocks of kv_cache, attention over the row's
                # positions there; [B, S, nh*hs] out, as o_proj takes it
                ctx = g.op("PagedAttention", [qkv, "position_ids", "kv_cache", "block_table", "past_lengths"]
                           + (["kv_scales"] if int8_kv else []),
                           "paged_attention", domain="ai.hone", layer=i, scale=float(1.0 / np.sqrt(hs)),
                           rotary_theta=float(cfg.theta))
                h = g.op("Add", [h, linear(ctx, f"{p}.self_attn.o_proj.weight", w[f"{i}.o"])], "attn_residual")
                h = mlp(h, i, p)
                continue
            q, k, v = split(qkv, c_qkv_split, 3)  # [B, S, nh*hs], [B, S, nkv*hs] x 2
        else:
            q, k, v = (linear(x, f"{p}.self_attn.{n}_proj.weight", w[f"{i}.{n}"]) for n in "qkv")
        q = g.op("Transpose", [g.op("Reshape", [q, c_q_shape], "q_r")], "q_t", perm=[0, 2, 1, 3])  # [B, nh, S, hs]
        k = g.op("Transpose", [g.op("Reshape", [k, c_kv_shape], "k_r")], "k_t", perm=[0, 2, 1, 3])  # [B, nkv, S, hs]
        v = g.op("Transpose", [g.op("Reshape", [v, c_kv_shape], "v_r")], "v_t", perm=[0, 2, 1, 3])
        q = rope(q)
        k = rope(k)
        k_all = g.op_to("Concat", [f"past_key_values.{i}.key", k], f"present.{i}.key", axis=2)  # [B, nkv, T, hs]
        v_all = g.op_to("Concat", [f"past_key_values.{i}.value", v], f"present.{i}.value", axis=2)
        qg = g.op("Reshape", [q, c_q_group_shape], "q_grouped")  # [B, nkv, group*S, hs]
        kt = g.op("Transpose", [k_all], "k_all_t", perm=[0, 1, 3, 2])  # [B, nkv, hs, T]
        scores = g.op("Mul", [g.op("MatMul", [qg, kt], "qk"), c_scale], "scores")  # [B, nkv, group*S, T]
        scores = g.op("Where", [allowed_grouped, scores, c_lowest], "scores_masked")
        probs = g.op("Softmax", [scores], "probs", axis=-1)
        ctx = g.op("MatMul", [probs, v_all], "ctx")  # [B, nkv, group*S, hs]
        ctx = g.op("Reshape", [ctx, c_q_heads_shape], "ctx_heads")  # [B, nh, S, hs]
        ctx = g.op("Reshape", [g.op("Transpose", [ctx], "ctx_t", perm=[0, 2, 1, 3]), c_merge_shape], "ctx_merged")
        h = g.op("Add", [h, linear(ctx, f"{p}.self_attn.o_proj.weight", w[f"{i}.o"])], "attn_residual")
        h = mlp(h, i, p)
    h = rms_norm(h, "model.norm.weight", w["norm"])
    # keep the last N positions: Slice from -N (N == 0: from 0, every position; N > S clamps to 0)
    start = g.op("Neg", [g.op("Reshape", ["num_logits_to_keep", c_one_1d], "keep_1d")], "keep_start")
    end = g.const(np.array([np.iinfo(np.int64).max], np.int64), "keep_end")
    kept = g.op("Slice", [h, start, end, c_axes1], "kept")
    g.op_to("MatMul", [kept, g.init("lm_head.weight", w["lm_head"].astype(f32))], "logits")

    used = {name for node in g.nodes for name in node.input}  # the paged graph leaves the mask's constants unused
    graph = helper.make_graph(g.nodes, "llama_decoder", inputs, outputs,
                              initializer=[t for t in g.inits if t.name in used])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)] + ([helper.make_opsetid("ai.hone", 1)] if paged else []), producer_name="hone",
                              producer_version="models/smollm2/build_decoder.py")
    model.ir_version = 8
    meta = {"hone.architecture": "llama", "hone.context_length": str(cfg.context), "hone.bos_token_id": str(cfg.bos),
            "hone.eos_token_id": str(cfg.eos), "hone.chat_template": cfg.chat_template, "hone.source": cfg.source}
    onnx.helper.set_model_props(model, meta)
    return model


# ---------------------------------------------------------------------------------------------------------------
# the GGUF


def unpermute(w, n_head):
    """Undoes llama.cpp's convert_hf_to_gguf.py permute() of the attn_q / attn_k rows (w: [out, in], GGUF's numpy
    layout). llama.cpp's RoPE (mode 0) rotates adjacent pairs (2i, 2i+1) of each head; the converter reorders each
    head's rows from Hugging Face's halves (i, i + hs/2) into those pairs: reshape(heads, 2, hs/2, in).swapaxes(1, 2).
    The inverse: reshape(heads, hs/2, 2, in).swapaxes(1, 2)."""
    out = w.shape[0]
    return w.reshape(n_head, out // n_head // 2, 2, *w.shape[1:]).swapaxes(1, 2).reshape(w.shape)


def field_value(reader, key, default=None):
    f = reader.fields.get(key)
    return default if f is None else f.contents()


def read_gguf(path, source):
    try:
        import gguf
        from gguf.quants import dequantize
    except ImportError as e:
        raise SystemExit(f"build_decoder: cannot import PyPI gguf ({e}): scripts/fetch-models installs gguf==0.19.0 "
                         "into ${HONE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/hone}/downloads/gguf-0.19.0; put that "
                         "folder on PYTHONPATH")
    reader = gguf.GGUFReader(path)
    arch = field_value(reader, "general.architecture")
    if arch != "llama":
        raise SystemExit(f"{path}: general.architecture is {arch!r}, not 'llama'")
    a = lambda k, d=None: field_value(reader, f"llama.{k}", d)  # noqa: E731
    hidden, heads = a("embedding_length"), a("attention.head_count")
    tokens = field_value(reader, "tokenizer.ggml.tokens")
    cfg = Config(layers=a("block_count"), hidden=hidden, heads=heads, kv_heads=a("attention.head_count_kv", heads),
                 head_size=a("attention.key_length", hidden // heads), intermediate=a("feed_forward_length"),
                 vocab=len(tokens), eps=a("attention.layer_norm_rms_epsilon"), theta=a("rope.freq_base", 10000.0),
                 context=a("context_length"), bos=field_value(reader, "tokenizer.ggml.bos_token_id"),
                 eos=field_value(reader, "tokenizer.ggml.eos_token_id"),
                 chat_template=field_value(reader, "tokenizer.chat_template", ""), source=source)
    if a("rope.dimension_count", cfg.head_size) != cfg.head_size:
        raise SystemExit("partial RoPE (rope.dimension_count != head size) is not supported")
    if a("rope.scaling.type") not in (None, "none"):
        raise SystemExit(f"RoPE scaling {a('rope.scaling.type')!r} is not supported")

    raw = {}
    for t in reader.tensors:
        arr = dequantize(t.data, t.tensor_type).astype(np.float32)
        raw[t.name] = arr.reshape([int(d) for d in reversed(t.shape.tolist())])  # numpy order: [out, in]
    used = set()

    def take(name):
        used.add(name)
        return raw[name]

    w = {"embed": take("token_embd.weight"), "norm": take("output_norm.weight")}
    w["lm_head"] = (take("output.weight") if "output.weight" in raw else w["embed"]).T
    for i in range(cfg.layers):
        b = f"blk.{i}"
        w[f"{i}.attn_norm"] = take(f"{b}.attn_norm.weight")
        w[f"{i}.q"] = unpermute(take(f"{b}.attn_q.weight"), cfg.heads).T
        w[f"{i}.k"] = unpermute(take(f"{b}.attn_k.weight"), cfg.kv_heads).T
        w[f"{i}.v"] = take(f"{b}.attn_v.weight").T
        w[f"{i}.o"] = take(f"{b}.attn_output.weight").T
        w[f"{i}.ffn_norm"] = take(f"{b}.ffn_norm.weight")
        w[f"{i}.gate"] = take(f"{b}.ffn_gate.weight").T
        w[f"{i}.up"] = take(f"{b}.ffn_up.weight").T
        w[f"{i}.down"] = take(f"{b}.ffn_down.weight").T
    unused = sorted(set(raw) - used)
    if unused:
        raise SystemExit(f"{path}: tensors not used by the graph: {unused}")
    expect = {"embed": (cfg.vocab, hidden), "0.q": (hidden, heads * cfg.head_size),
              "0.k": (hidden, cfg.kv_heads * cfg.head_size), "0.down": (cfg.intermediate, hidden)}
    for k, shape in expect.items():
        if w[k].shape != shape:
            raise SystemExit(f"{path}: {k} has shape {w[k].shape}, expected {shape}")
    return cfg, w, tokenizer_json(reader)


def tokenizer_json(reader):
    """A Hugging Face tokenizer.json from the GGUF's tokenizer metadata, in the layout of SmolLM2's own: byte-level
    BPE, pre-tokenizer Digits(individual) then ByteLevel(no prefix space, GPT-2 regex) (llama.cpp's "smollm"
    pre-tokenizer: the regexes \\p{N} then GPT-2's), control tokens as special added tokens, user-defined tokens as
    non-special added tokens, no normalizer, a ByteLevel post-processor (adds no BOS) and decoder."""
    model = field_value(reader, "tokenizer.ggml.model")
    pre = field_value(reader, "tokenizer.ggml.pre")
    if model != "gpt2":
        raise SystemExit(f"tokenizer.ggml.model is {model!r}: only byte-level BPE ('gpt2') is supported")
    if pre not in ("smollm", "starcoder", "refact"):  # the same regexes in llama.cpp's llama-vocab.cpp
        raise SystemExit(f"tokenizer.ggml.pre is {pre!r}: only 'smollm' (Digits + GPT-2 regex) is supported")
    tokens = field_value(reader, "tokenizer.ggml.tokens")
    types = field_value(reader, "tokenizer.ggml.token_type")
    merges = field_value(reader, "tokenizer.ggml.merges")
    if field_value(reader, "tokenizer.ggml.add_bos_token", False):
        raise SystemExit("tokenizer.ggml.add_bos_token is true: SmolLM2 adds no BOS, this builder neither")
    added = []
    for i, (tok, typ) in enumerate(zip(tokens, types)):
        if typ in (3, 4):  # CONTROL, USER_DEFINED
            added.append({"id": i, "content": tok, "single_word": False, "lstrip": False, "rstrip": False,
                          "normalized": typ == 4, "special": typ == 3})
        elif typ != 1:
            raise SystemExit(f"token {i} {tok!r} has token_type {typ}: only normal, control and user-defined tokens")
    byte_level = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True}
    return {
        "version": "1.0", "truncation": None, "padding": None, "added_tokens": added, "normalizer": None,
        "pre_tokenizer": {"type": "Sequence", "pretokenizers": [{"type": "Digits", "individual_digits": True},
                                                                byte_level]},
        "post_processor": dict(byte_level), "decoder": dict(byte_level),
        "model": {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": None,
                  "end_of_word_suffix": None, "fuse_unk": False, "byte_fallback": False, "ignore_merges": False,
                  "vocab": {t: i for i, t in enumerate(tokens)}, "merges": [m.split(" ", 1) for m in merges]},
    }


# ---------------------------------------------------------------------------------------------------------------
# the random model


def random_weights(cfg, seed):
    """Seeded weights scaled so that activations, attention and logits are not degenerate: linear weights with
    standard deviation 1/sqrt(in) (the output projections half that), embedding 0.25 (tied lm_head: logits of
    standard deviation about 0.25*sqrt(hidden)), norm weights 1 + N(0, 0.1)."""
    rng = np.random.default_rng(seed)
    f32 = np.float32
    n = lambda shape, std: (rng.standard_normal(shape) * std).astype(f32)  # noqa: E731
    H, I, q_out, kv_out = cfg.hidden, cfg.intermediate, cfg.heads * cfg.head_size, cfg.kv_heads * cfg.head_size
    w = {"embed": n((cfg.vocab, H), 0.25), "norm": 1 + n((H,), 0.1)}
    w["lm_head"] = w["embed"].T.copy()
    for i in range(cfg.layers):
        w[f"{i}.attn_norm"] = 1 + n((H,), 0.1)
        w[f"{i}.q"] = n((H, q_out), H ** -0.5)
        w[f"{i}.k"] = n((H, kv_out), H ** -0.5)
        w[f"{i}.v"] = n((H, kv_out), H ** -0.5)
        w[f"{i}.o"] = n((q_out, H), 0.5 * q_out ** -0.5)
        w[f"{i}.ffn_norm"] = 1 + n((H,), 0.1)
        w[f"{i}.gate"] = n((H, I), H ** -0.5)
        w[f"{i}.up"] = n((H, I), H ** -0.5)
        w[f"{i}.down"] = n((I, H), 0.5 * I ** -0.5)
    return w


def tokenizer_vocab_size(tok):
    ids = list(tok["model"]["vocab"].values()) + [t["id"] for t in tok.get("added_tokens", [])]
    return max(ids) + 1


def token_id(tok, content, default):
    for t in tok.get("added_tokens", []):
        if t["content"] == content:
            return t["id"]
    return tok["model"]["vocab"].get(content, default)


# ---------------------------------------------------------------------------------------------------------------


def write_atomic(path, data):
    tmp = f"{path}.tmp-{os.getpid()}"
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, path)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True, help="folder for model.onnx and tokenizer.json")
    ap.add_argument("--gguf", help="the GGUF file (real weights)")
    ap.add_argument("--source", help="hone.source metadata (default: the GGUF's file name)")
    ap.add_argument("--random", action="store_true", help="random weights")
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--hidden", type=int, default=64)
    ap.add_argument("--heads", type=int, default=4)
    ap.add_argument("--kv-heads", type=int, default=2)
    ap.add_argument("--intermediate", type=int, help="default: 2 * hidden")
    ap.add_argument("--context", type=int, default=256)
    ap.add_argument("--theta", type=float, default=100000.0)
    ap.add_argument("--eps", type=float, default=1e-5)
    ap.add_argument("--vocab-from", help="tokenizer.json whose vocabulary the random model gets")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--layout", choices=("dense", "paged"), default="dense",
                    help="dense: standard ops over past/present tensors (any ONNX Runtime runs it); paged: hone's "
                         "ai.hone.PagedAttention over the block KV cache (hone runs it)")
    ap.add_argument("--kv-dtype", choices=("float16", "int8"), default="float16",
                    help="with --layout paged, the KV cache's element type: float16, or int8 with a float16 scale "
                         "per 32 elements (kv_scales input; 34/64 of float16's bytes, as llama.cpp's q8_0 cache)")
    args = ap.parse_args()
    if bool(args.gguf) == args.random:
        ap.error("give exactly one of --gguf FILE and --random")
    os.makedirs(args.out, exist_ok=True)
    if args.gguf:
        cfg, w, tok = read_gguf(args.gguf, args.source or os.path.basename(args.gguf))
        tok_bytes = json.dumps(tok, ensure_ascii=False, indent=2).encode("utf-8")
    else:
        if not args.vocab_from:
            ap.error("--random needs --vocab-from TOKENIZER_JSON")
        with open(args.vocab_from, "rb") as f:
            tok_bytes = f.read()
        tok = json.loads(tok_bytes)
        cfg = Config(layers=args.layers, hidden=args.hidden, heads=args.heads, kv_heads=args.kv_heads,
                     intermediate=args.intermediate or 2 * args.hidden, vocab=tokenizer_vocab_size(tok),
                     eps=args.eps, theta=args.theta, context=args.context,
                     bos=token_id(tok, "<|im_start|>", 0), eos=token_id(tok, "<|im_end|>", 0),
                     chat_template=CHATML_TEMPLATE,
                     source=f"random (build_decoder.py --random --seed {args.seed}, vocabulary of "
                            f"{os.path.basename(args.vocab_from)})")
        w = random_weights(cfg, args.seed)
    if args.kv_dtype == "int8" and args.layout != "paged":
        ap.error("--kv-dtype int8 needs --layout paged (hone's PagedAttention reads the int8 blocks)")
    model = build_model(cfg, w, layout=args.layout, kv_dtype=args.kv_dtype)
    del w
    onnx.checker.check_model(model) if model.ByteSize() < 2**31 - 2**20 else None
    data = model.SerializeToString()
    del model
    write_atomic(os.path.join(args.out, "model.onnx"), data)
    write_atomic(os.path.join(args.out, "tokenizer.json"), tok_bytes)
    print(f"build_decoder: wrote {args.out}/model.onnx ({len(data) / 1e6:.1f} MB: {cfg.layers} layers, hidden "
          f"{cfg.hidden}, {cfg.heads} heads / {cfg.kv_heads} KV heads of {cfg.head_size}, intermediate "
          f"{cfg.intermediate}, vocabulary {cfg.vocab}, rope theta {cfg.theta:g}, eps {cfg.eps:g}, context "
          f"{cfg.context}, bos {cfg.bos}, eos {cfg.eos}, {args.layout} attention"
          f"{', int8 KV cache' if args.kv_dtype == 'int8' else ''}) and {args.out}/tokenizer.json")


if __name__ == "__main__":
    sys.exit(main())
