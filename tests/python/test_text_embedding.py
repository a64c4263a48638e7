"""The text-embedding example served as it is: examples/text-embedding, the ensemble `minilm` (hone_tokenizer ->
the real all-MiniLM-L6-v2 encoder -> hone_pooling), against the Python reference that scripts/fetch-models wrote
(Hugging Face `tokenizers` + onnxruntime + numpy mean pooling, examples/text-embedding/reference.npz), over HTTP
(JSON and binary) and gRPC with tritonclient; and bad text answered with a 400 naming the fault while the server
stays ready.

Needs scripts/fetch-models (scripts/test runs it); skipped with that reason when its outputs are missing.
"""

from __future__ import annotations

import json
import pathlib

import numpy as np
import pytest
import tritonclient.grpc as grpcclient
import tritonclient.http as httpclient
from tritonclient.utils import InferenceServerException

ROOT = pathlib.Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "text-embedding"
REFERENCE = EXAMPLE / "reference.npz"
TEXTS = ROOT / "tests" / "data" / "tokenizer_texts.jsonl"

pytestmark = pytest.mark.skipif(
    not (EXAMPLE / "minilm_encoder" / "1" / "model.onnx").exists() or not REFERENCE.exists(),
    reason="the real MiniLM is not fetched: run scripts/fetch-models")


@pytest.fixture(scope="module")
def server(module_serve):
    return module_serve(EXAMPLE)


@pytest.fixture(scope="module")
def reference():
    ref = np.load(REFERENCE)
    texts = [json.loads(line) for line in TEXTS.read_text(encoding="utf-8").splitlines()]
    return [texts[i] for i in ref["line"]], ref


def as_bytes_array(texts):
    return np.array([[t.encode("utf-8")] for t in texts], dtype=object)


def embed(client_module, url, texts, binary=True):
    client = client_module.InferenceServerClient(url)
    data = as_bytes_array(texts)
    inp = client_module.InferInput("text", list(data.shape), "BYTES")
    if client_module is httpclient:
        inp.set_data_from_numpy(data, binary_data=binary)
        out = [httpclient.InferRequestedOutput("embedding", binary_data=binary)]
    else:
        inp.set_data_from_numpy(data)
        out = [grpcclient.InferRequestedOutput("embedding")]
    return client.infer("minilm", [inp], outputs=out).as_numpy("embedding")


def cosines(a, b):
    return np.sum(a * b, axis=1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))


@pytest.mark.parametrize("protocol", ["http-binary", "http-json", "grpc"])
def test_embeddings_match_the_python_reference(server, reference, protocol):
    texts, ref = reference
    if protocol == "http-json":
        # JSON strings must be valid UTF-8 text; the set's control characters and NULs travel fine escaped.
        module, url, binary = httpclient, server.http_url, False
    elif protocol == "grpc":
        module, url, binary = grpcclient, server.grpc_url, True
    else:
        module, url, binary = httpclient, server.http_url, True
    got = np.concatenate([embed(module, url, texts[i:i + 16], binary) for i in range(0, len(texts), 16)])
    assert got.shape == (len(texts), 384)
    cos = cosines(got, ref["embeddings"])
    worst = int(np.argmin(cos))
    assert cos.min() >= 0.9999, f"text {worst} {texts[worst][:60]!r}: cosine {cos[worst]:.6f}"
    np.testing.assert_allclose(np.linalg.norm(got, axis=1), 1.0, atol=1e-5)


def test_token_ids_match_tokenizers(server, reference):
    texts, ref = reference
    client = httpclient.InferenceServerClient(server.http_url)
    for start in range(0, len(texts), 16):
        batch = texts[start:start + 16]
        data = as_bytes_array(batch)
        inp = httpclient.InferInput("text", list(data.shape), "BYTES")
        inp.set_data_from_numpy(data)
        result = client.infer("minilm_tokenize", [inp])
        ids, mask = result.as_numpy("input_ids"), result.as_numpy("attention_mask")
        assert ids.shape[1] == max(int(n) for n in ref["lengths"][start:start + 16]), "padded to the batch's longest"
        for row in range(len(batch)):
            n = int(ref["lengths"][start + row])
            assert int(mask[row].sum()) == n, f"text {start + row} {batch[row][:60]!r}: {mask[row].sum()} tokens, expected {n}"
            assert ids[row, :n].tolist() == ref["input_ids"][start + row, :n].tolist(), \
                f"text {start + row} {batch[row][:60]!r}"


def test_each_stage_counts_its_requests(server):
    # The server is the module's: earlier tests have counted requests too, so one request must add exactly one
    # success to the ensemble and to each of its steps, and no failure.
    client = httpclient.InferenceServerClient(server.http_url)
    stages = ("minilm", "minilm_tokenize", "minilm_encoder", "minilm_pool")

    def counts():
        by_name = {s["name"]: s["inference_stats"] for s in client.get_inference_statistics("")["model_stats"]}
        return {name: (by_name[name]["success"]["count"], by_name[name]["fail"]["count"]) for name in stages}

    before = counts()
    embed(httpclient, server.http_url, ["one", "two", "three"])
    after = counts()
    for name in stages:
        assert after[name] == (before[name][0] + 1, before[name][1]), (name, before[name], after[name])


def test_bad_text_gets_a_400_naming_the_fault_and_the_server_stays_ready(server):
    client = httpclient.InferenceServerClient(server.http_url)
    bad = np.array([[b"ok"], [b"\xff\xfe not UTF-8"]], dtype=object)
    inp = httpclient.InferInput("text", [2, 1], "BYTES")
    inp.set_data_from_numpy(bad)
    with pytest.raises(InferenceServerException) as e:
        client.infer("minilm", [inp])
    assert e.value.status() == "400"
    assert "step 'minilm_tokenize'" in e.value.message() and "invalid UTF-8" in e.value.message()
    # A text far over the maximum length is truncated (256 tokens), not refused; an empty one is two tokens.
    got = embed(httpclient, server.http_url, ["word " * 5000, ""])
    np.testing.assert_allclose(np.linalg.norm(got, axis=1), 1.0, atol=1e-5)
    # The wrong shape for a BYTES input, and a number where a string should be.
    with pytest.raises(InferenceServerException) as e:
        inp = httpclient.InferInput("text", [2], "BYTES")
        inp.set_data_from_numpy(np.array([b"a", b"b"], dtype=object))
        client.infer("minilm", [inp])
    assert e.value.status() == "400"
    assert client.is_server_ready()
    assert client.is_model_ready("minilm")


@pytest.mark.parametrize("where", ["url", "in-process"])
def test_bench_reports_each_stage(hone_bin, server, tmp_path, where):
    """hone bench on the ensemble with raw text, over the network or in process: each step's share of the
    server-side time beside the totals."""
    import subprocess
    import sys

    sys.path.insert(0, str(pathlib.Path(__file__).parent))
    from test_report_schemas import validate

    texts = tmp_path / "texts.txt"
    texts.write_text("A man is playing guitar.\nThe stock market fell today.\nHow do I reset my password?\n")
    target = ["--url", server.http_url] if where == "url" else ["--model-repository", str(EXAMPLE)]
    r = subprocess.run([str(hone_bin), "bench", "minilm", *target, "--data", str(texts),
                        "--concurrency", "1", "--window-ms", "300", "--min-duration-s", "0.5",
                        "--warmup-requests", "5", "--warmup-s", "0.2", "--stability-percent", "100",
                        "--quiet", "--json", "-"],  # a test of the report, not of the machine: any spread is stable
                       capture_output=True, text=True, timeout=120)
    # A busy machine may still call a point unstable (exit 1); the report is what this test reads.
    assert r.returncode == 0 or (r.returncode == 1 and "some points were unstable" in r.stderr), r.stderr
    report = json.loads(r.stdout)
    validate(report)
    point = report["bench"]["points"][0]
    assert [s["model"] for s in point["stages"]] == ["minilm_tokenize", "minilm_encoder", "minilm_pool"]
    shares = [s["share"] for s in point["stages"]]
    assert all(0 < s < 1 for s in shares) and sum(shares) <= 1.001, shares
    assert point["stages"][1]["share"] == max(shares), "the encoder is the bottleneck here"
    assert "step minilm_encoder" in r.stderr
    # --quiet keeps the in-process server's information lines (model loads, thread splits) off standard error.
    assert not any(line.startswith("I 20") for line in r.stderr.splitlines()), r.stderr


def test_evaluate_a_pipeline_against_itself(hone_bin, tmp_path):
    """hone evaluate on the served ensemble from raw text, against the same pipeline in another repository: the
    embedding metrics of two identical pipelines are perfect (the INT8 figures are in docs/pipelines.md)."""
    import subprocess

    texts = tmp_path / "texts.txt"
    texts.write_text("\n".join(["A man is playing guitar.", "Someone plays a guitar.", "The stock market fell.",
                                "How do I reset my password?", "Forgot my login", "Stocks dropped sharply."]))
    r = subprocess.run([str(hone_bin), "evaluate", "minilm", "--model-repository", str(EXAMPLE),
                        "--against-repository", str(EXAMPLE), "--data", str(texts), "--recall-k", "2",
                        "--quiet", "--json", "-"], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    metrics = {name: m["value"] for name, m in json.loads(r.stdout)["evaluate"]["metrics"].items()}
    assert metrics["cosine_min"] > 0.99999 and metrics["recall_at_2"] == 1.0, metrics
