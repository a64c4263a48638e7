#!/usr/bin/env python3
"""Exports a MiniLM-L6-shaped BERT encoder to ONNX, with random weights and a token dataset, or with the real weights.

The shape of sentence-transformers' all-MiniLM-L6-v2 (6 layers, hidden 384, 12 heads of 32, feed-forward 1536,
GELU, post-layer-norm, vocabulary 30522, 512 positions, 2 token types), written here as a plain PyTorch module.
Without --weights the weights are random (seeded): that serves for speed and for comparing quantizers with each
other (scripts/compare-ort-quantizer). With --weights the module gets the real checkpoint (scripts/fetch-models
brings it: the sentence-transformers folder of all-MiniLM-L6-v2), for task quality.

Outputs (into --out, default models/minilm/out/, which git ignores):
  model.onnx  inputs input_ids, attention_mask, token_type_ids (INT64 [batch, sequence]); outputs
              last_hidden_state (FP32 [batch, sequence, 384]) and sentence_embedding (FP32 [batch, 384], the mean of
              last_hidden_state over the unmasked tokens, not L2-normalised); opset 17; written to a temporary file
              and renamed, so a reader never sees half a model
  data.npz    (not with --onnx) --samples rows of the three inputs, sequence --seq-len: token ids uniform in
              [1000, 30522), each row a random length in [8, seq-len] (the rest padding: id 0, mask 0)

--weights DIR_OR_SAFETENSORS: a folder with model.safetensors and config.json (Hugging Face BertModel names, as
sentence-transformers saves them), or the .safetensors file with its config.json beside it. config.json must
describe the module above (hidden 384, 6 layers, 12 heads, feed-forward 1536, vocabulary 30522, gelu, layer-norm
epsilon 1e-12, ...), every module parameter must come from exactly one checkpoint tensor of the same shape, and
every checkpoint tensor must be used exactly once, except two that the encoder has no use for, each checked:
embeddings.position_ids (a buffer, must be 0..511) and pooler.dense.* (BERT's tanh pooler over [CLS], which
sentence-transformers' mean pooling does not use). Anything else is an error that names the tensor.
--onnx PATH writes the model there instead of OUT/model.onnx (and no data.npz).
--embed TOKENS.npz OUT.npz runs the module instead of exporting it: TOKENS.npz holds input_ids and
token_type_ids (INT64, the texts' tokens end to end) and lengths (INT64 [texts]); each text runs alone (batch 1,
no padding); OUT.npz gets last_hidden_state (FP32 [sum(lengths), 384], end to end) and sentence_embedding
(FP32 [texts, 384]). models/minilm/check_minilm.py uses it as the PyTorch reference.

Run with Debian's interpreter, which has python3-torch and python3-onnx:
  /usr/bin/python3 models/minilm/export_minilm.py [--out DIR] [--samples 512] [--seq-len 128] [--seed 1]
  /usr/bin/python3 models/minilm/export_minilm.py --weights CHECKPOINT_DIR --onnx PATH/model.onnx
  /usr/bin/python3 models/minilm/export_minilm.py --weights CHECKPOINT_DIR --embed tokens.npz out.npz
"""
import argparse
import math
import os
import warnings

import numpy as np
import onnx
import torch
from torch import nn

import minilm_weights

HIDDEN, HEADS, LAYERS, FFN, VOCAB, POSITIONS = 384, 12, 6, 1536, 30522, 512
LAYER_NORM_EPS = 1e-12
# config.json fields (Hugging Face BertConfig) that must hold for the module to be the checkpoint's architecture
CONFIG = {"model_type": "bert", "hidden_size": HIDDEN, "num_hidden_layers": LAYERS, "num_attention_heads": HEADS,
          "intermediate_size": FFN, "vocab_size": VOCAB, "max_position_embeddings": POSITIONS, "type_vocab_size": 2,
          "hidden_act": "gelu", "layer_norm_eps": LAYER_NORM_EPS, "position_embedding_type": "absolute"}


class Layer(nn.Module):
    def __init__(self):
        super().__init__()
        self.query, self.key, self.value = nn.Linear(HIDDEN, HIDDEN), nn.Linear(HIDDEN, HIDDEN), nn.Linear(HIDDEN, HIDDEN)
        self.attention_output = nn.Linear(HIDDEN, HIDDEN)
        self.attention_norm = nn.LayerNorm(HIDDEN, eps=LAYER_NORM_EPS)
        self.intermediate = nn.Linear(HIDDEN, FFN)
        self.output = nn.Linear(FFN, HIDDEN)
        self.output_norm = nn.LayerNorm(HIDDEN, eps=LAYER_NORM_EPS)

    def heads(self, x):
        b, s, _ = x.shape
        return x.view(b, s, HEADS, HIDDEN // HEADS).transpose(1, 2)

    def forward(self, x, mask_bias):
        q, k, v = self.heads(self.query(x)), self.heads(self.key(x)), self.heads(self.value(x))
        scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(HIDDEN // HEADS) + mask_bias
        context = torch.matmul(torch.softmax(scores, dim=-1), v)
        b, _, s, _ = context.shape
        context = context.transpose(1, 2).reshape(b, s, HIDDEN)
        x = self.attention_norm(x + self.attention_output(context))
        return self.output_norm(x + self.output(nn.functional.gelu(self.intermediate(x))))


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.words = nn.Embedding(VOCAB, HIDDEN)
        self.positions = nn.Embedding(POSITIONS, HIDDEN)
        self.token_types = nn.Embedding(2, HIDDEN)
        self.norm = nn.LayerNorm(HIDDEN, eps=LAYER_NORM_EPS)
        self.layers = nn.ModuleList(Layer() for _ in range(LAYERS))

    def forward(self, input_ids, attention_mask, token_type_ids):
        positions = torch.arange(input_ids.shape[1], device=input_ids.device).unsqueeze(0)
        x = self.norm(self.words(input_ids) + self.positions(positions) + self.token_types(token_type_ids))
        mask = attention_mask.to(torch.float32)
        mask_bias = (1.0 - mask)[:, None, None, :] * -10000.0
        for layer in self.layers:
            x = layer(x, mask_bias)
        pooled = (x * mask[:, :, None]).sum(1) / mask.sum(1, keepdim=True).clamp(min=1.0)
        return x, pooled


def checkpoint_names():
    """{module parameter name: Hugging Face BertModel tensor name}."""
    names = {"words.weight": "embeddings.word_embeddings.weight",
             "positions.weight": "embeddings.position_embeddings.weight",
             "token_types.weight": "embeddings.token_type_embeddings.weight",
             "norm.weight": "embeddings.LayerNorm.weight", "norm.bias": "embeddings.LayerNorm.bias"}
    per_layer = {"query": "attention.self.query", "key": "attention.self.key", "value": "attention.self.value",
                 "attention_output": "attention.output.dense", "attention_norm": "attention.output.LayerNorm",
                 "intermediate": "intermediate.dense", "output": "output.dense", "output_norm": "output.LayerNorm"}
    for n in range(LAYERS):
        for ours, theirs in per_layer.items():
            for kind in ("weight", "bias"):
                names[f"layers.{n}.{ours}.{kind}"] = f"encoder.layer.{n}.{theirs}.{kind}"
    return names


def load_weights(model, weights):
    """Copies the checkpoint at `weights` into `model`; raises ValueError naming the first tensor at fault."""
    safetensors, config = minilm_weights.resolve(weights)
    minilm_weights.check_config(config, CONFIG)
    tensors = minilm_weights.read_safetensors(safetensors)
    unused = set(tensors)
    params = dict(model.named_parameters())
    names = checkpoint_names()
    missing_params = sorted(set(params) - set(names))
    if missing_params:  # the mapping must cover the module; a new parameter needs a line in checkpoint_names()
        raise ValueError(f"module parameter '{missing_params[0]}' has no checkpoint tensor in checkpoint_names()")
    with torch.no_grad():
        for ours, theirs in names.items():
            if theirs not in tensors:
                raise ValueError(f"{safetensors}: tensor '{theirs}' (for module parameter '{ours}') is missing")
            if theirs not in unused:
                raise ValueError(f"{safetensors}: tensor '{theirs}' would be used twice")
            array = tensors[theirs]
            param = params[ours]
            if tuple(array.shape) != tuple(param.shape) or array.dtype != np.float32:
                raise ValueError(f"{safetensors}: tensor '{theirs}': expected F32 {list(param.shape)} (module "
                                 f"parameter '{ours}'), got {array.dtype} {list(array.shape)}")
            param.copy_(torch.from_numpy(array.copy()))
            unused.discard(theirs)
    if "embeddings.position_ids" in unused:  # a buffer of BertEmbeddings: the module computes arange itself
        ids = tensors["embeddings.position_ids"]
        if ids.size != POSITIONS or not np.array_equal(ids.reshape(-1), np.arange(POSITIONS)):
            raise ValueError(f"{safetensors}: tensor 'embeddings.position_ids' is not 0..{POSITIONS - 1}: the "
                             "module's positions (arange) would not match")
        unused.discard("embeddings.position_ids")
    for name in ("pooler.dense.weight", "pooler.dense.bias"):  # BertPooler over [CLS]: not in the sentence embedding
        unused.discard(name)
    if unused:
        raise ValueError(f"{safetensors}: tensor '{sorted(unused)[0]}' is not used by the module "
                         f"({len(unused)} unused in all: {', '.join(sorted(unused)[:5])})")
    return safetensors


def export(model, example, path):
    """Exports to a temporary file beside `path`, checks it, then renames it over `path`."""
    tmp = f"{path}.tmp-{os.getpid()}"
    dynamic = {0: "batch", 1: "sequence"}
    try:
        with torch.no_grad(), warnings.catch_warnings():
            # torch 1.13 (Debian) warns about prim::Constant for every export; the checker below is what counts
            warnings.filterwarnings("ignore", message="The shape inference of prim::Constant type is missing")
            torch.onnx.export(model, example, tmp, opset_version=17, do_constant_folding=True,
                              input_names=["input_ids", "attention_mask", "token_type_ids"],
                              output_names=["last_hidden_state", "sentence_embedding"],
                              dynamic_axes={"input_ids": dynamic, "attention_mask": dynamic,
                                            "token_type_ids": dynamic, "last_hidden_state": dynamic,
                                            "sentence_embedding": {0: "batch"}})
        onnx.checker.check_model(onnx.load(tmp))
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def embed(model, tokens_path, out_path):
    tokens = np.load(tokens_path)
    ids, types, lengths = tokens["input_ids"], tokens["token_type_ids"], tokens["lengths"]
    hidden, pooled, start = [], [], 0
    with torch.no_grad():
        for length in lengths:
            row = slice(start, start + int(length))
            start += int(length)
            x, p = model(torch.from_numpy(ids[row][None]), torch.ones(1, int(length), dtype=torch.int64),
                         torch.from_numpy(types[row][None]))
            hidden.append(x[0].numpy())
            pooled.append(p[0].numpy())
    tmp = f"{out_path}.tmp-{os.getpid()}.npz"
    np.savez(tmp, last_hidden_state=np.concatenate(hidden), sentence_embedding=np.stack(pooled))
    os.replace(tmp, out_path)


def make_data(samples, seq_len, rng):
    ids = rng.integers(1000, VOCAB, size=(samples, seq_len), dtype=np.int64)
    mask = np.zeros((samples, seq_len), dtype=np.int64)
    for row, length in enumerate(rng.integers(8, seq_len + 1, size=samples)):
        mask[row, :length] = 1
    ids[mask == 0] = 0
    ids[:, 0] = 101  # [CLS]
    return {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "out"))
    parser.add_argument("--samples", type=int, default=512)
    parser.add_argument("--seq-len", type=int, default=128)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--weights", metavar="DIR_OR_SAFETENSORS",
                        help="the real checkpoint (model.safetensors + config.json) instead of random weights")
    parser.add_argument("--onnx", metavar="PATH", help="where model.onnx goes (default OUT/model.onnx; no data.npz)")
    parser.add_argument("--embed", nargs=2, metavar=("TOKENS_NPZ", "OUT_NPZ"),
                        help="run the module on these tokens instead of exporting")
    args = parser.parse_args()
    torch.manual_seed(args.seed)
    torch.set_num_threads(2)
    model = Encoder().eval()
    source = "random weights"
    if args.weights:
        try:
            source = f"weights of {load_weights(model, args.weights)}"
        except (ValueError, FileNotFoundError) as e:
            parser.exit(1, f"export_minilm.py: {e}\n")
    if args.embed:
        torch.set_num_threads(1)  # a reference, not a benchmark: leave the other core alone
        embed(model, *args.embed)
        print(f"wrote {args.embed[1]} (the module with {source})")
        return
    data = make_data(args.samples, args.seq_len, np.random.default_rng(args.seed))
    example = tuple(torch.from_numpy(data[k][:2]) for k in ("input_ids", "attention_mask", "token_type_ids"))
    path = args.onnx or os.path.join(args.out, "model.onnx")
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    if args.weights and os.path.exists(path) and os.path.samefile(path, minilm_weights.resolve(args.weights)[0]):
        parser.exit(2, f"export_minilm.py: --onnx {path} is the checkpoint itself\n")
    export(model, example, path)
    params = sum(p.numel() for p in model.parameters())
    wrote = f"wrote {path} ({os.path.getsize(path) / 2**20:.1f} MiB, {params / 1e6:.1f} M parameters, {source})"
    if args.onnx is None:
        np.savez(os.path.join(args.out, "data.npz"), **data)
        wrote += f" and {os.path.join(args.out, 'data.npz')} ({args.samples} samples x {args.seq_len} tokens)"
    print(wrote)

if __name__ == "__main__":
    main()
