"""Health that means what it says: live and ready answered while inference is busy; a model ready only once loaded
and warmed up; strict readiness with a broken model in the repository (live, not ready)."""

from __future__ import annotations

import json
import threading
import time

import numpy as np
import pytest

import clients as c
from hone_server import HoneServer, http_get, port_open
from model_repo import SLOW_INPUT, SLOW_OUTPUT, SLOW_WIDTH, fashion_data, slow_config
from prometheus_text import parse, value


def test_health_answered_while_inference_is_busy(serve, repo):
    """12 requests of about 0.5 s each run one at a time (max_batch_size 1): seconds of queued work. Health,
    readiness, metadata and metrics are asked round after round until that work is done: every question is
    answered (200), and many rounds are answered while requests are still pending; answers that waited behind
    inference would allow only a few."""
    repo.add_slow("slow", iterations=40000, config=slow_config("slow", max_batch_size=1, dynamic_batching=None))
    server = serve(repo.path)
    xs = [np.full((1, SLOW_WIDTH), i, np.float32) for i in range(12)]
    batch = c.Inflight(server, "grpc", "slow", xs, SLOW_INPUT)
    c.wait_arrived(server, "slow", 1)
    health = c.make_client("grpc", server)
    rounds_while_busy = 0
    try:
        while True:
            for path in ("/v2/health/live", "/v2/health/ready", "/v2/models/slow/ready", "/v2"):
                status, _, _ = http_get(server.http_url, path, timeout=60)
                assert status == 200, path
            assert health.is_server_live() and health.is_server_ready() and health.is_model_ready("slow")
            status, body, _ = http_get(server.metrics_url, "/metrics", timeout=60)
            assert status == 200
            pending = value(parse(body.decode()), "nv_inference_pending_request_count", model="slow")
            if not pending:
                break
            rounds_while_busy += 1
            if rounds_while_busy >= 20:
                break
    finally:
        health.close()
    for i, r, e in batch.collect():
        assert e is None, f"request {i}: {e}"
        np.testing.assert_array_equal(r.as_numpy(SLOW_OUTPUT), xs[i])
    assert rounds_while_busy >= 10, f"only {rounds_while_busy} rounds of health answered while inference was busy"


WARMUP = """
model_warmup [ {{
  name: "zeros" batch_size: 1 count: {count}
  inputs {{ key: "x" value: {{ data_type: TYPE_FP32 dims: [ 4 ] zero_data: true }} }}
}} ]
"""


def test_model_ready_only_after_warm_up(serve, repo):
    # Warm-up: 8 runs of about 0.25 s before the model may be ready.
    repo.add_slow("slow", iterations=20000, config=slow_config("slow", extra=WARMUP.format(count=8)))
    server = serve(repo.path, "--model-control-mode", "explicit")
    load_result = {}

    def load():
        load_result["status"] = http_get(server.http_url, "/v2/repository/models/slow/load", method="POST",
                                         body=b"{}", headers={"Content-Type": "application/json"}, timeout=120)

    loader = threading.Thread(target=load)
    loader.start()
    observed = []  # (ready?, index state), asked in that order
    while loader.is_alive():
        status, _, _ = http_get(server.http_url, "/v2/models/slow/ready", timeout=30)
        _, body, _ = http_get(server.http_url, "/v2/repository/index", method="POST", body=b"{}",
                              headers={"Content-Type": "application/json"}, timeout=30)
        state = {m["name"]: m.get("state", "") for m in json.loads(body)}.get("slow")
        observed.append((status == 200, state))
        time.sleep(0.02)
    loader.join()
    assert load_result["status"][0] == 200, load_result
    # While the index says LOADING (warm-up runs), the model was not ready a moment before.
    loading = [ready for ready, state in observed if state == "LOADING"]
    assert loading, f"never saw the model LOADING during seconds of warm-up: {observed[:10]}"
    assert not any(loading), f"ready while still loading: {observed}"
    status, _, _ = http_get(server.http_url, "/v2/models/slow/ready")
    assert status == 200
    cl = c.make_client("grpc", server)
    try:
        (s,) = c.statistics(cl, "grpc", "slow")
        assert s["inference_stats"]["success"]["count"] == 0  # warm-up runs are not client requests
    finally:
        cl.close()


def test_failed_warm_up_leaves_the_model_unavailable(serve, repo):
    bad = """
model_warmup [ {
  name: "from_file" batch_size: 1
  inputs { key: "x" value: { data_type: TYPE_FP32 dims: [ 4 ] input_data_file: "missing.bin" } }
} ]
"""
    repo.add_slow("slow", iterations=10, config=slow_config("slow", extra=bad))
    repo.add_fashion("fashion")
    server = serve(repo.path, "--strict-readiness", "false", "--exit-on-error", "false")
    cl = c.make_client("http", server)
    try:
        assert not cl.is_model_ready("slow")
        idx = {m["name"]: m for m in c.repository_index(cl, "http")}
        assert idx["slow"]["state"] == "UNAVAILABLE" and "missing.bin" in idx["slow"]["reason"], idx
        assert cl.is_model_ready("fashion")
    finally:
        cl.close()


@pytest.mark.parametrize("protocol", c.PROTOCOLS)
def test_strict_readiness_with_a_broken_model(serve, repo, protocol):
    repo.add_fashion("fashion")
    repo.add_broken("broken")
    # --strict-readiness true is the default; --exit-on-error=false keeps the server up beside the broken model.
    server = serve(repo.path, "--exit-on-error", "false", wait="live")
    server.wait_for_log("server live, not ready")  # live comes first: the ports listen before the models load
    cl = c.make_client(protocol, server)
    try:
        assert cl.is_server_live()
        assert not cl.is_server_ready()
        assert cl.is_model_ready("fashion")
        assert not cl.is_model_ready("broken")
        idx = {m["name"]: m for m in c.repository_index(cl, protocol)}
        assert idx["broken"]["state"] == "UNAVAILABLE" and idx["broken"]["reason"], idx
        images, reference = fashion_data()
        from model_repo import FASHION_INPUT, FASHION_OUTPUT
        r = c.infer(cl, protocol, "fashion", {FASHION_INPUT: images[:1]})
        np.testing.assert_allclose(r.as_numpy(FASHION_OUTPUT), reference[:1], atol=1e-4)
    finally:
        cl.close()
    status, _, _ = http_get(server.http_url, "/v2/health/ready")
    assert status != 200


def test_non_strict_readiness_with_a_broken_model(serve, repo):
    repo.add_fashion("fashion")
    repo.add_broken("broken")
    server = serve(repo.path, "--strict-readiness", "false", "--exit-on-error", "false")
    cl = c.make_client("http", server)
    try:
        assert cl.is_server_ready()
        assert not cl.is_model_ready("broken")
    finally:
        cl.close()


def test_ready_means_every_front_end_is_up(hone_bin, repo, tmp_path):
    """The first moment /v2/health/ready answers 200, gRPC and the metrics port already accept connections (a
    client or probe that trusts HTTP readiness must not be refused on gRPC)."""
    repo.add_fashion("fashion")
    server = HoneServer(hone_bin, repo.path, tmp_path)
    server.start(wait=None)
    try:
        deadline = time.monotonic() + 60
        while True:
            assert server.running(), server.log()
            assert time.monotonic() < deadline, server.log()
            try:
                if http_get(server.http_url, "/v2/health/ready", timeout=2)[0] == 200:
                    break
            except OSError:
                pass
            time.sleep(0.002)
        grpc_up, metrics_up = port_open(server.grpc_port), port_open(server.metrics_port)
        assert grpc_up and metrics_up, f"HTTP ready while gRPC up: {grpc_up}, metrics up: {metrics_up}"
    finally:
        server.stop()
