"""The HTTP/REST protocol on the wire: JSON and binary tensors as tritonclient and curl-like clients send them, and
bad requests answered with the right status and a KServe error body while the server keeps serving."""

from __future__ import annotations

import json
import socket

import numpy as np
import pytest
import tritonclient.http as httpclient

from hone_server import SharedServer, http_get
from http_raw import (assert_error_body, assert_still_serves, binary_infer_body, json_infer_body, post,
                      split_binary_response)
from model_repo import FASHION_INPUT, FASHION_OUTPUT, FASHION_TOLERANCE, ModelRepo, fashion_data


@pytest.fixture(scope="module")
def shared(module_serve, tmp_path_factory):
    repo = ModelRepo(tmp_path_factory.mktemp("repo"))
    repo.add_fashion("fashion")
    return SharedServer(module_serve, repo.path)


@pytest.fixture
def server(shared):
    yield from shared.for_test()


# --- JSON and binary tensors ------------------------------------------------------------------------------------

def test_tritonclient_json_tensors(server):
    """binary_data=False for the input and the output: all data travels as JSON numbers."""
    images, reference = fashion_data()
    cl = httpclient.InferenceServerClient(server.http_url)
    try:
        inp = httpclient.InferInput(FASHION_INPUT, list(images[30:33].shape), "FP32")
        inp.set_data_from_numpy(images[30:33], binary_data=False)
        out = httpclient.InferRequestedOutput(FASHION_OUTPUT, binary_data=False)
        result = cl.infer("fashion", [inp], outputs=[out])
        response = result.get_response()
        assert "data" in response["outputs"][0], response  # JSON data, not binary
        np.testing.assert_allclose(result.as_numpy(FASHION_OUTPUT), reference[30:33], rtol=0, atol=FASHION_TOLERANCE)
    finally:
        cl.close()


def test_tritonclient_json_input_binary_output(server):
    images, reference = fashion_data()
    cl = httpclient.InferenceServerClient(server.http_url)
    try:
        inp = httpclient.InferInput(FASHION_INPUT, [2, 1, 28, 28], "FP32")
        inp.set_data_from_numpy(images[40:42], binary_data=False)
        result = cl.infer("fashion", [inp], outputs=[httpclient.InferRequestedOutput(FASHION_OUTPUT, binary_data=True)])
        np.testing.assert_allclose(result.as_numpy(FASHION_OUTPUT), reference[40:42], rtol=0, atol=FASHION_TOLERANCE)
    finally:
        cl.close()


def test_raw_json_infer(server):
    images, reference = fashion_data()
    status, body, headers = post(server, "/v2/models/fashion/infer", json_infer_body(images[:2], request_id="abc"))
    assert status == 200, body
    assert headers.get("content-type", "").startswith("application/json"), headers
    doc = json.loads(body)
    assert doc["model_name"] == "fashion" and str(doc["model_version"]) == "1" and doc["id"] == "abc", doc
    (out,) = doc["outputs"]
    assert (out["name"], out["datatype"], out["shape"]) == (FASHION_OUTPUT, "FP32", [2, 10])
    np.testing.assert_allclose(np.array(out["data"], np.float32).reshape(2, 10), reference[:2], atol=FASHION_TOLERANCE)


def test_raw_binary_infer(server):
    images, reference = fashion_data()
    h, body = binary_infer_body(images[3:5])
    status, rbody, rheaders = post(server, "/v2/models/fashion/versions/1/infer", body,
                                   {"Content-Type": "application/octet-stream",
                                    "Inference-Header-Content-Length": str(len(h))})
    assert status == 200, rbody
    header, data = split_binary_response(rbody, rheaders)
    (out,) = header["outputs"]
    assert out["parameters"]["binary_data_size"] == 2 * 10 * 4 == len(data), header
    np.testing.assert_allclose(np.frombuffer(data, np.float32).reshape(2, 10), reference[3:5], atol=FASHION_TOLERANCE)


def test_keep_alive_serves_several_requests_on_one_connection(server):
    import http.client
    images, _ = fashion_data()
    host, port = server.http_url.split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=30)
    try:
        for i in range(3):
            conn.request("POST", "/v2/models/fashion/infer", body=json_infer_body(images[i:i + 1]),
                         headers={"Content-Type": "application/json"})
            resp = conn.getresponse()
            resp.read()
            assert resp.status == 200
            assert resp.getheader("Connection", "").lower() != "close"
        conn.request("GET", "/v2/health/ready")
        assert conn.getresponse().status == 200
    finally:
        conn.close()


def test_server_and_model_metadata_json(server):
    status, body, _ = http_get(server.http_url, "/v2")
    assert status == 200
    doc = json.loads(body)
    assert doc["name"] and doc["version"] and isinstance(doc["extensions"], list), doc
    status, body, _ = http_get(server.http_url, "/v2/models/fashion")
    assert status == 200
    doc = json.loads(body)
    assert doc["name"] == "fashion" and doc["inputs"][0]["shape"] == [-1, 1, 28, 28], doc
    status, body, _ = http_get(server.http_url, "/v2/models/fashion/versions/1/config")
    assert status == 200 and json.loads(body)["max_batch_size"] == 8


# --- bad requests -----------------------------------------------------------------------------------------------

def test_malformed_json(server):
    status, body, _ = post(server, "/v2/models/fashion/infer", b'{"inputs": [ {"name": "image", ')
    assert_error_body(status, body, (400,))
    assert_still_serves(server)


def test_json_data_length_does_not_match_shape(server):
    images, _ = fashion_data()
    doc = json.loads(json_infer_body(images[:1]))
    doc["inputs"][0]["data"] = doc["inputs"][0]["data"][:-5]
    status, body, _ = post(server, "/v2/models/fashion/infer", json.dumps(doc).encode())
    assert_error_body(status, body, (400,), FASHION_INPUT)
    assert_still_serves(server)


def test_binary_data_without_inference_header_content_length(server):
    images, _ = fashion_data()
    h, body = binary_infer_body(images[:1])
    status, rbody, _ = post(server, "/v2/models/fashion/infer", body, {"Content-Type": "application/octet-stream"})
    assert_error_body(status, rbody, (400,))
    assert_still_serves(server)


def test_binary_sizes_do_not_add_up(server):
    images, _ = fashion_data()
    h, body = binary_infer_body(images[:1])
    status, rbody, _ = post(server, "/v2/models/fashion/infer", body[:-100],
                            {"Content-Type": "application/octet-stream", "Inference-Header-Content-Length": str(len(h))})
    assert_error_body(status, rbody, (400,), FASHION_INPUT)
    status, rbody, _ = post(server, "/v2/models/fashion/infer", body + b"\0" * 64,
                            {"Content-Type": "application/octet-stream", "Inference-Header-Content-Length": str(len(h))})
    assert_error_body(status, rbody, (400,))
    status, rbody, _ = post(server, "/v2/models/fashion/infer", body,
                            {"Content-Type": "application/octet-stream",
                             "Inference-Header-Content-Length": str(len(body) + 10)})
    assert_error_body(status, rbody, (400,))
    assert_still_serves(server)


def test_truncated_body_gets_no_success_and_no_hang(server):
    """Content-Length promises more than is sent, then the client stops sending: the server answers 400 or closes
    the connection; it never answers 200 and it keeps serving others."""
    images, _ = fashion_data()
    body = json_infer_body(images[:1])
    host, port = server.http_url.split(":")
    with socket.create_connection((host, int(port)), timeout=30) as s:
        s.sendall(b"POST /v2/models/fashion/infer HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                  + f"Content-Length: {len(body)}\r\n\r\n".encode() + body[: len(body) // 2])
        s.shutdown(socket.SHUT_WR)
        reply = b""
        try:
            while chunk := s.recv(65536):
                reply += chunk
        except (ConnectionResetError, socket.timeout):
            pass
    assert not reply.startswith(b"HTTP/1.1 200"), reply[:200]
    assert_still_serves(server)


def test_unknown_model_and_route(server):
    status, body, _ = http_get(server.http_url, "/v2/models/no_such_model")
    assert_error_body(status, body, (400, 404), "no_such_model")
    status, body, _ = post(server, "/v2/models/no_such_model/infer", json_infer_body(fashion_data()[0][:1]))
    assert_error_body(status, body, (400, 404), "no_such_model")
    status, _, _ = http_get(server.http_url, "/v2/no/such/route")
    assert status in (400, 404)
    assert_still_serves(server)


def test_wrong_datatype_json(server):
    doc = {"inputs": [{"name": FASHION_INPUT, "shape": [1, 1, 28, 28], "datatype": "INT32", "data": [0] * 784}]}
    status, body, _ = post(server, "/v2/models/fashion/infer", json.dumps(doc).encode())
    assert_error_body(status, body, (400,), FASHION_INPUT, "FP32", "INT32")
    assert_still_serves(server)
