"""examples/text-embedding's pipeline written in Python, as a team would write it today: a KServe v2 HTTP server
(kserve_http.py: FastAPI + uvicorn + orjson) for one model `minilm`: input `text` BYTES [batch, 1] (JSON strings,
or UTF-8 in binary tensors) -> Hugging Face `tokenizers` on the example's own tokenizer.json -> onnxruntime on the
example's model.onnx (one session, its default threads) -> numpy mean pooling over the attention mask and L2
normalisation -> output `embedding` FP32 [batch, 384].

    python text_app.py --port 18750 --example examples/text-embedding

The tokenizer is set up as sentence-transformers sets up all-MiniLM-L6-v2, which is also how the example's
hone_tokenizer is configured: truncation at 256 tokens and padding to the batch's longest text (tokenizer.json
itself says truncation at 128 and fixed padding to 128; both are overridden here).
"""
import argparse
import os

import numpy as np
import onnxruntime as ort
from tokenizers import Tokenizer

import kserve_http

MAX_LENGTH = 256  # sentence-transformers' max_seq_length for all-MiniLM-L6-v2


def load_tokenizer(path, max_length=MAX_LENGTH):
    tokenizer = Tokenizer.from_file(path)
    tokenizer.enable_truncation(max_length)
    pad = tokenizer.padding or {}
    # length None: pad to the batch's longest, not to the file's fixed 128.
    tokenizer.enable_padding(pad_id=pad.get("pad_id", 0), pad_type_id=pad.get("pad_type_id", 0),
                             pad_token=pad.get("pad_token", "[PAD]"), length=None)
    return tokenizer


class TextEmbedding:
    name = "minilm"
    inputs = [{"name": "text", "datatype": "BYTES", "shape": [-1, 1]}]
    outputs = [{"name": "embedding", "datatype": "FP32", "shape": [-1, 384]}]
    max_batch_size = 64  # as the example's ensemble says; perf_analyzer then sends [1, 1] to both servers

    def __init__(self, example):
        self.tokenizer = load_tokenizer(os.path.join(example, "minilm_tokenize", "1", "tokenizer.json"))
        self.session = ort.InferenceSession(os.path.join(example, "minilm_encoder", "1", "model.onnx"),
                                            providers=["CPUExecutionProvider"])

    def infer(self, inputs):
        if not inputs["text"]:
            raise kserve_http.BadRequest("input 'text': an empty batch")
        try:  # str from a JSON tensor, bytes (UTF-8) from a binary one
            texts = [t.decode() if isinstance(t, bytes) else t for t in inputs["text"]]
        except UnicodeDecodeError as e:
            raise kserve_http.BadRequest(f"input 'text': not UTF-8: {e}") from None
        encodings = self.tokenizer.encode_batch(texts)
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
        types = np.array([e.type_ids for e in encodings], dtype=np.int64)
        (hidden,) = self.session.run(["last_hidden_state"],
                                     {"input_ids": ids, "attention_mask": mask, "token_type_ids": types})
        weights = mask[:, :, None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
        pooled /= np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)
        return [("embedding", pooled.astype(np.float32, copy=False))]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--example", required=True, help="examples/text-embedding (the model repository)")
    args = parser.parse_args()
    kserve_http.serve([TextEmbedding(args.example)], args.host, args.port)


if __name__ == "__main__":
    main()
