"""/metrics on the metrics port: Triton's series with model and version labels, hone's histograms, and values that
move with inference."""

from __future__ import annotations

import numpy as np
import pytest

import clients as c
from hone_server import http_get
from model_repo import FASHION_INPUT, fashion_data
from prometheus_text import parse, types, value

TRITON_COUNTERS = ["nv_inference_request_success", "nv_inference_request_failure", "nv_inference_count",
                   "nv_inference_exec_count", "nv_inference_request_duration_us", "nv_inference_queue_duration_us",
                   "nv_inference_compute_input_duration_us", "nv_inference_compute_infer_duration_us",
                   "nv_inference_compute_output_duration_us"]
HISTOGRAMS = ["hone_request_duration_seconds", "hone_queue_duration_seconds", "hone_compute_duration_seconds",
              "hone_batch_size"]


def scrape(server, port_url=None):
    status, body, headers = http_get(port_url or server.metrics_url, "/metrics")
    assert status == 200, body
    assert headers.get("content-type", "").startswith("text/plain"), headers
    text = body.decode()
    return text, parse(text)


def test_metrics_series_and_their_movement(serve, repo):
    repo.add_fashion("fashion")
    server = serve(repo.path)
    text, before = scrape(server)
    kinds = types(text)
    labels = {"model": "fashion", "version": "1"}
    for name in TRITON_COUNTERS:
        assert kinds.get(name) == "counter", (name, kinds.get(name))
        assert value(before, name, **labels) == 0, name  # warm-up not counted
    assert kinds.get("nv_inference_pending_request_count") == "gauge"
    for name in HISTOGRAMS:
        assert kinds.get(name) == "histogram", (name, kinds.get(name))

    images, _ = fashion_data()
    n, rows = 5, 3
    cl = c.make_client("http", server)
    try:
        for i in range(n):
            c.infer(cl, "http", "fashion", {FASHION_INPUT: images[i * rows:(i + 1) * rows]})
        with pytest.raises(c.InferenceServerException):
            c.infer(cl, "http", "fashion", {FASHION_INPUT: np.zeros((1, 1, 28, 27), np.float32)})
    finally:
        cl.close()

    _, after = scrape(server)
    assert value(after, "nv_inference_request_success", **labels) == n
    assert value(after, "nv_inference_count", **labels) == n * rows
    assert value(after, "nv_inference_exec_count", **labels) == n  # sequential: one execution each
    assert value(after, "nv_inference_request_failure", **labels) == 1  # the wrong shape, counted once
    # Sequential requests find the instance idle and run at once on the front end's thread: their queue time may be
    # 0, and is less than the time the requests took.
    for name in TRITON_COUNTERS[4:]:
        if name != "nv_inference_queue_duration_us":
            assert value(after, name, **labels) > 0, name
    assert value(after, "nv_inference_queue_duration_us", **labels) < \
        value(after, "nv_inference_request_duration_us", **labels)
    assert value(after, "nv_inference_pending_request_count", **labels) == 0
    # Histograms: one observation per successful request (per execution for the batch size), buckets cumulative.
    for name, count in [("hone_request_duration_seconds", n), ("hone_queue_duration_seconds", n),
                        ("hone_compute_duration_seconds", n), ("hone_batch_size", n)]:
        assert value(after, name + "_count", **labels) == count, name
        if name != "hone_queue_duration_seconds":  # no queue time: see above
            assert value(after, name + "_sum", **labels) > 0, name
        buckets = sorted(((float(l["le"]), v) for nm, l, v in after
                          if nm == name + "_bucket" and l.get("model") == "fashion" and l.get("version") == "1"),
                         key=lambda b: b[0])
        assert buckets and buckets[-1][0] == float("inf") and buckets[-1][1] == count, (name, buckets)
        assert all(a[1] <= b[1] for a, b in zip(buckets, buckets[1:])), (name, buckets)
    assert value(after, "hone_batch_size_sum", **labels) == n * rows


def test_metrics_of_each_version(serve, repo):
    from model_repo import fashion_config
    repo.add_fashion("fashion", versions=[1, 2], config=fashion_config("fashion", extra="version_policy { all { } }"))
    server = serve(repo.path)
    cl = c.make_client("grpc", server)
    try:
        images, _ = fashion_data()
        c.infer(cl, "grpc", "fashion", {FASHION_INPUT: images[:1]}, version="2")
    finally:
        cl.close()
    _, samples = scrape(server)
    assert value(samples, "nv_inference_request_success", model="fashion", version="1") == 0
    assert value(samples, "nv_inference_request_success", model="fashion", version="2") == 1
