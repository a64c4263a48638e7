"""ModelStreamInfer (gRPC bidirectional streaming), as tritonclient's start_stream / async_stream_infer and
perf_analyzer --streaming use it against Triton: many requests on one stream, one response each, matched by id;
a bad request gets its error on the stream and the stream goes on."""

from __future__ import annotations

import queue
import subprocess
import time

import numpy as np
import pytest
import tritonclient.grpc as grpcclient

import clients as c
from model_repo import (FASHION_INPUT, FASHION_OUTPUT, FASHION_TOLERANCE, SLOW_INPUT, SLOW_WIDTH, fashion_data,
                        slow_config)
from test_perf_analyzer import SUMMARY, perf_analyzer  # noqa: F401 (the fixture)


def stream_inputs(images: np.ndarray):
    x = grpcclient.InferInput(FASHION_INPUT, list(images.shape), "FP32")
    x.set_data_from_numpy(images)
    return [x]


def open_stream(serve, repo):
    """A server with the bundled model, a client with a stream open on it, and the queue its answers land in."""
    repo.add_fashion("fashion")
    server = serve(repo.path)
    results: queue.Queue = queue.Queue()
    client = grpcclient.InferenceServerClient(server.grpc_url)
    client.start_stream(callback=lambda result, error: results.put((result, error)))
    return server, client, results


def collect(results: queue.Queue, n: int, timeout: float = 60.0) -> list:
    return [results.get(timeout=timeout) for _ in range(n)]


def test_many_requests_on_one_stream_each_answered_by_id(serve, repo):
    server, client, results = open_stream(serve, repo)
    images, reference = fashion_data()
    n = 64
    for i in range(n):  # sent back to back: several are in the server at once, and may batch
        client.async_stream_infer("fashion", stream_inputs(images[i:i + 1]), request_id=str(i),
                                  outputs=[grpcclient.InferRequestedOutput(FASHION_OUTPUT)])
    answers = collect(results, n)
    client.stop_stream()
    client.close()
    seen = set()
    for result, error in answers:
        assert error is None, error
        i = int(result.get_response().id)
        seen.add(i)
        np.testing.assert_allclose(result.as_numpy(FASHION_OUTPUT), reference[i:i + 1], rtol=0, atol=FASHION_TOLERANCE)
    assert seen == set(range(n))


def test_a_bad_request_gets_its_error_and_the_stream_goes_on(serve, repo):
    server, client, results = open_stream(serve, repo)
    images, reference = fashion_data()
    client.async_stream_infer("fashion", stream_inputs(images[:1]), request_id="good-1")
    wrong = grpcclient.InferInput("not_an_input", [1, 1, 28, 28], "FP32")
    wrong.set_data_from_numpy(images[:1])
    client.async_stream_infer("fashion", [wrong], request_id="bad")
    client.async_stream_infer("no_such_model", stream_inputs(images[:1]), request_id="missing")
    client.async_stream_infer("fashion", stream_inputs(images[1:2]), request_id="good-2")
    answers = collect(results, 4)
    client.stop_stream()
    client.close()
    errors = sorted(str(error) for result, error in answers if error is not None)
    good = {result.get_response().id: result.as_numpy(FASHION_OUTPUT) for result, error in answers if error is None}
    assert len(errors) == 2, errors
    assert any("not_an_input" in e for e in errors), errors
    assert any("no_such_model" in e for e in errors), errors
    assert sorted(good) == ["good-1", "good-2"]
    np.testing.assert_allclose(good["good-2"], reference[1:2], rtol=0, atol=FASHION_TOLERANCE)
    # The server still serves.
    again = grpcclient.InferenceServerClient(server.grpc_url)
    out = again.infer("fashion", stream_inputs(images[2:3])).as_numpy(FASHION_OUTPUT)
    np.testing.assert_allclose(out, reference[2:3], rtol=0, atol=FASHION_TOLERANCE)
    again.close()


def test_a_client_that_leaves_mid_stream_leaves_the_server_serving(serve, repo):
    repo.add_slow("slow", iterations=20000, config=slow_config("slow", max_batch_size=1, dynamic_batching=None))
    repo.add_fashion("fashion")
    server = serve(repo.path)
    images, reference = fashion_data()
    client = grpcclient.InferenceServerClient(server.grpc_url)
    client.start_stream(callback=lambda result, error: None)
    for i in range(6):
        x = grpcclient.InferInput(SLOW_INPUT, [1, SLOW_WIDTH], "FP32")
        x.set_data_from_numpy(np.full((1, SLOW_WIDTH), i, np.float32))
        client.async_stream_infer("slow", [x], request_id=str(i))
    c.wait_arrived(server, "slow", 4)
    client.close()  # cancels the stream with requests still queued and running in the server
    again = grpcclient.InferenceServerClient(server.grpc_url)
    assert again.is_server_ready()
    out = again.infer("fashion", stream_inputs(images[:1])).as_numpy(FASHION_OUTPUT)
    np.testing.assert_allclose(out, reference[:1], rtol=0, atol=FASHION_TOLERANCE)
    # Every request the stream sent still ends inside the server (its response has nowhere to go).
    deadline = time.monotonic() + 60
    while (pending := c.pending(server, "slow")) != 0 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert pending == 0
    again.close()


@pytest.mark.perf_analyzer
def test_perf_analyzer_streaming(serve, repo, perf_analyzer):  # noqa: F811
    repo.add_fashion("fashion")
    server = serve(repo.path)
    cmd = [str(perf_analyzer), "-m", "fashion", "-u", server.grpc_url, "-i", "grpc", "--streaming",
           "--concurrency-range", "1:2", "--measurement-interval", "500", "--stability-percentage", "50",
           "--max-trials", "10"]
    run = subprocess.run(cmd, capture_output=True, text=True, timeout=150)
    output = f"$ {' '.join(cmd)}\nexit {run.returncode}\n{run.stdout}\n{run.stderr}"
    assert run.returncode == 0, output
    points = {int(n): float(tput) for n, tput, _ in SUMMARY.findall(run.stdout)}
    assert sorted(points) == [1, 2] and all(t > 0 for t in points.values()), output
