#!/usr/bin/env python3
"""Exports a MiniLM-L6-shaped BERT encoder to ONNX, with random weights, and a token dataset for it.

The shape of sentence-transformers' all-MiniLM-L6-v2 (6 layers, hidden 384, 12 heads of 32, feed-forward 1536,
GELU, post-layer-norm, vocabulary 30522, 512 positions, 2 token types), written here as a plain PyTorch module: no
checkpoint is downloaded (none is packaged for Debian), so the weights are random (seeded). That serves for speed
and for comparing quantizers with each other; task quality needs real weights.

Outputs (into --out, default models/minilm/out/, which git ignores):
  model.onnx  inputs input_ids, attention_mask, token_type_ids (INT64 [batch, sequence]); outputs
              last_hidden_state (FP32 [batch, sequence, 384]) and sentence_embedding (FP32 [batch, 384], the mean of
              last_hidden_state over the unmasked tokens); opset 17
  data.npz    --samples rows of the three inputs, sequence --seq-len: token ids uniform in [1000, 30522), each row
              a random length in [8, seq-len] (the rest padding: id 0, mask 0)

Run with Debian's interpreter, which has python3-torch and python3-onnx:
  /usr/bin/python3 models/minilm/export_minilm.py [--out DIR] [--samples 512] [--seq-len 128] [--seed 1]
"""
import argparse
import math
import os

import numpy as np
import onnx
import torch
from torch import nn

HIDDEN, HEADS, LAYERS, FFN, VOCAB, POSITIONS = 384, 12, 6, 1536, 30522, 512


class Layer(nn.Module):
    def __init__(self):
        super().__init__()
        self.query, self.key, self.value = nn.Linear(HIDDEN, HIDDEN), nn.Linear(HIDDEN, HIDDEN), nn.Linear(HIDDEN, HIDDEN)
        self.attention_output = nn.Linear(HIDDEN, HIDDEN)
        self.attention_norm = nn.LayerNorm(HIDDEN, eps=1e-12)
        self.intermediate = nn.Linear(HIDDEN, FFN)
        self.output = nn.Linear(FFN, HIDDEN)
        self.output_norm = nn.LayerNorm(HIDDEN, eps=1e-12)

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
        self.norm = nn.LayerNorm(HIDDEN, eps=1e-12)
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
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    torch.manual_seed(args.seed)
    torch.set_num_threads(2)
    model = Encoder().eval()
    data = make_data(args.samples, args.seq_len, np.random.default_rng(args.seed))
    example = tuple(torch.from_numpy(data[k][:2]) for k in ("input_ids", "attention_mask", "token_type_ids"))
    path = os.path.join(args.out, "model.onnx")
    dynamic = {0: "batch", 1: "sequence"}
    with torch.no_grad():
        torch.onnx.export(model, example, path, opset_version=17, do_constant_folding=True,
                          input_names=["input_ids", "attention_mask", "token_type_ids"],
                          output_names=["last_hidden_state", "sentence_embedding"],
                          dynamic_axes={"input_ids": dynamic, "attention_mask": dynamic, "token_type_ids": dynamic,
                                        "last_hidden_state": dynamic, "sentence_embedding": {0: "batch"}})
    onnx.checker.check_model(onnx.load(path))
    np.savez(os.path.join(args.out, "data.npz"), **data)
    params = sum(p.numel() for p in model.parameters())
    print(f"wrote {path} ({os.path.getsize(path) / 2**20:.1f} MiB, {params / 1e6:.1f} M parameters) and "
          f"{os.path.join(args.out, 'data.npz')} ({args.samples} samples x {args.seq_len} tokens)")


if __name__ == "__main__":
    main()
