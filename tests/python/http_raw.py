"""Plain HTTP requests in the KServe v2 wire format, for tests of what tritonclient never sends (bad bodies,
limits, odd paths) and for curl-like checks of the JSON API."""

from __future__ import annotations

import json

import numpy as np

from hone_server import http_get
from model_repo import FASHION_INPUT, FASHION_OUTPUT, FASHION_TOLERANCE, fashion_data


def post(server, path, body: bytes, headers=None, timeout=30.0):
    h = {"Content-Type": "application/json"}
    h.update(headers or {})
    return http_get(server.http_url, path, method="POST", body=body, headers=h, timeout=timeout)


def json_infer_body(images, request_id="", outputs=None):
    body = {"inputs": [{"name": FASHION_INPUT, "shape": list(images.shape), "datatype": "FP32",
                        "data": images.flatten().tolist()}]}
    if request_id:
        body["id"] = request_id
    if outputs is not None:
        body["outputs"] = outputs
    return json.dumps(body).encode()


def binary_infer_body(images, binary_output=True):
    header = {"inputs": [{"name": FASHION_INPUT, "shape": list(images.shape), "datatype": "FP32",
                          "parameters": {"binary_data_size": images.nbytes}}],
              "outputs": [{"name": FASHION_OUTPUT, "parameters": {"binary_data": binary_output}}]}
    h = json.dumps(header).encode()
    return h, h + images.tobytes()


def split_binary_response(body: bytes, headers: dict):
    n = int(headers["inference-header-content-length"])
    return json.loads(body[:n]), body[n:]


def assert_error_body(status, body, expected_statuses, *words):
    assert status in expected_statuses, (status, body)
    doc = json.loads(body)
    assert isinstance(doc.get("error"), str) and doc["error"], doc
    for w in words:
        assert w.lower() in doc["error"].lower(), (w, doc)
    return doc["error"]


def assert_still_serves(server):
    """A correct binary-tensor inference still works (binary, so that this check does not depend on JSON tensors,
    which have tests of their own)."""
    images, reference = fashion_data()
    h, body = binary_infer_body(images[:1])
    status, rbody, rheaders = post(server, "/v2/models/fashion/infer", body,
                                   {"Content-Type": "application/octet-stream",
                                    "Inference-Header-Content-Length": str(len(h))})
    assert status == 200, rbody
    _, data = split_binary_response(rbody, rheaders)
    np.testing.assert_allclose(np.frombuffer(data, np.float32).reshape(1, 10), reference[:1], atol=FASHION_TOLERANCE)
