#!/usr/bin/env python3
"""A retrieval corpus every Debian machine has: the one-line descriptions of the packages `apt-cache dumpavail`
lists (at least 4 words each, de-duplicated), the first --count in SHA-256 order of their text (deterministic for a
given package index), tokenized with the example's tokenizer.json as sentence-transformers does for
all-MiniLM-L6-v2 (truncation at 256, padding to the longest).

Writes OUT/apt.txt (one description a line: raw input for `hone bench --data`) and OUT/apt_tokens.npz (input_ids,
attention_mask, token_type_ids: INT64 [count, tokens], for `hone evaluate` on the encoder). With the tests' venv:
  .venv-test/bin/python models/minilm/apt_corpus.py --out out/apt [--count 2000]
Then, e.g., recall@10 of an INT8 encoder against the float one:
  build/hone quantize examples/text-embedding/minilm_encoder/1/model.onnx -o out/apt/int8.onnx --mode dynamic ...
  build/hone evaluate out/apt/int8.onnx --data out/apt/apt_tokens.npz --task embedding \\
      --against examples/text-embedding/minilm_encoder/1/model.onnx --output-name sentence_embedding --batch 50
"""
import argparse
import hashlib
import os
import pathlib
import subprocess

import numpy as np
from tokenizers import Tokenizer

ROOT = pathlib.Path(__file__).resolve().parents[2]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", required=True)
    parser.add_argument("--count", type=int, default=2000)
    parser.add_argument("--tokenizer", default=str(ROOT / "examples/text-embedding/minilm_tokenize/1/tokenizer.json"))
    args = parser.parse_args()
    listing = subprocess.run(["apt-cache", "dumpavail"], capture_output=True, text=True, check=True).stdout
    texts = {line[len("Description: "):].strip() for line in listing.splitlines() if line.startswith("Description: ")}
    texts = sorted((t for t in texts if len(t.split()) >= 4), key=lambda t: hashlib.sha256(t.encode()).hexdigest())
    texts = texts[:args.count]
    tokenizer = Tokenizer.from_file(args.tokenizer)
    tokenizer.enable_truncation(256)
    tokenizer.enable_padding()
    encoded = tokenizer.encode_batch(texts)
    arrays = {name: np.array([getattr(e, attr) for e in encoded], dtype=np.int64)
              for name, attr in (("input_ids", "ids"), ("attention_mask", "attention_mask"),
                                 ("token_type_ids", "type_ids"))}
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for name, write in (("apt.txt", lambda p: p.write_text("\n".join(texts) + "\n", encoding="utf-8")),
                        ("apt_tokens.npz", lambda p: np.savez(p, **arrays))):
        tmp = out / f".{name}.tmp-{os.getpid()}"
        write(tmp)
        if name.endswith(".npz") and not tmp.exists():  # np.savez adds .npz to a name without it
            tmp = tmp.with_name(tmp.name + ".npz")
        os.replace(tmp, out / name)
    print(f"{len(texts)} descriptions, {arrays['input_ids'].shape[1]} tokens at most -> {out}/apt.txt, "
          f"{out}/apt_tokens.npz")


if __name__ == "__main__":
    main()
