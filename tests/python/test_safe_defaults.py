"""Safe defaults: listening on 127.0.0.1 only, a request body limit, model names that cannot leave the repository,
a repository API that can be switched off."""

from __future__ import annotations

import json
import socket

import pytest
import tritonclient.http as httpclient
from tritonclient.utils import InferenceServerException

from hone_server import SharedServer, http_get
from http_raw import assert_still_serves, json_infer_body, post
from model_repo import ModelRepo, fashion_data


def _listeners(port: int) -> list[str]:
    """Local addresses (hex, as /proc/net/tcp{,6} writes them) of LISTEN sockets on `port`."""
    found = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = open(table).read().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            local, state = fields[1], fields[3]
            addr, p = local.rsplit(":", 1)
            if state == "0A" and int(p, 16) == port:
                found.append(addr)
    return found


def test_listens_on_loopback_only(serve, repo):
    repo.add_fashion("fashion")
    server = serve(repo.path)  # no --host: the default
    for port in (server.http_port, server.grpc_port, server.metrics_port):
        addrs = _listeners(port)
        assert addrs, f"nothing listens on port {port}"
        # 127.0.0.1 in /proc/net/tcp is 0100007F (in tcp6, IPv4-mapped, ...FFFF00000100007F); ::1 is
        # 00000000000000000000000001000000. 0.0.0.0 (00000000) or :: would be every interface.
        assert all(a.upper().endswith("0100007F") or a == "0" * 24 + "01000000" for a in addrs), (port, addrs)
        # Another loopback address on the same port is refused (it would be answered on 0.0.0.0).
        with pytest.raises(OSError):
            socket.create_connection(("127.0.0.2", port), timeout=5).close()


def test_body_over_the_limit_is_413(serve, repo):
    repo.add_fashion("fashion")
    server = serve(repo.path, "--http-max-body-bytes", "65536")
    status, body, _ = post(server, "/v2/models/fashion/infer", b"{" + b" " * 100_000 + b"}")
    assert status == 413, body
    assert_still_serves(server)  # a request under the limit still works


def test_default_limit_rejects_a_huge_content_length_without_reading_it(serve, repo):
    """A client announces 8 GiB and sends nothing more: 413 at once (the server does not wait for the body)."""
    repo.add_fashion("fashion")
    server = serve(repo.path)
    host, port = server.http_url.split(":")
    with socket.create_connection((host, int(port)), timeout=20) as s:
        s.sendall(b"POST /v2/models/fashion/infer HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                  b"Content-Length: 8589934592\r\n\r\n{")
        reply = s.recv(4096)
    assert reply.startswith(b"HTTP/1.1 413"), reply[:200]
    assert_still_serves(server)


def test_chunked_body_over_the_limit_is_refused(serve, repo):
    repo.add_fashion("fashion")
    server = serve(repo.path, "--http-max-body-bytes", "65536")
    host, port = server.http_url.split(":")
    chunk = b"[" + b"0," * 8000 + b"0]"
    with socket.create_connection((host, int(port)), timeout=20) as s:
        s.sendall(b"POST /v2/models/fashion/infer HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                  b"Transfer-Encoding: chunked\r\n\r\n")
        reply = b""
        try:
            for _ in range(10):  # 160 KB in all
                s.sendall(f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n")
            s.sendall(b"0\r\n\r\n")
        except (BrokenPipeError, ConnectionResetError):
            pass  # the server stopped reading: fine, as long as it said 413 or closed
        try:
            reply = s.recv(4096)
        except ConnectionResetError:
            reply = b""
    assert reply == b"" or reply.startswith(b"HTTP/1.1 413"), reply[:200]
    assert_still_serves(server)


BAD_NAMES = ["..", ".hidden", "%2E%2E", "..%2Foutside", "%2E%2E%2Foutside", "a%5Cb", "x%00y", "x%0Ay"]


@pytest.fixture(scope="module")
def tricks_shared(module_serve, tmp_path_factory):
    """Explicit mode, repository <tmp>/repo with "fashion"; beside it <tmp>/outside/1/model.onnx, a servable model
    that must never be reachable through a model name."""
    tmp = tmp_path_factory.mktemp("tricks")
    ModelRepo(tmp / "repo").add_fashion("fashion")
    ModelRepo(tmp).add_fashion("outside", config=None)
    return SharedServer(module_serve, tmp / "repo", "--model-control-mode", "explicit", "--load-model", "fashion")


@pytest.fixture
def tricks_server(tricks_shared):
    yield from tricks_shared.for_test()


@pytest.mark.parametrize("name", BAD_NAMES)
def test_model_name_path_tricks_are_400(tricks_server, name):
    server = tricks_server
    for method, path in [("GET", f"/v2/models/{name}"), ("GET", f"/v2/models/{name}/ready"),
                         ("GET", f"/v2/models/{name}/config"), ("GET", f"/v2/models/{name}/stats"),
                         ("POST", f"/v2/models/{name}/infer"), ("POST", f"/v2/repository/models/{name}/load"),
                         ("POST", f"/v2/repository/models/{name}/unload")]:
        body = json_infer_body(fashion_data()[0][:1]) if path.endswith("/infer") else b"{}"
        status, rbody, _ = http_get(server.http_url, path, method=method,
                                    body=body if method == "POST" else None,
                                    headers={"Content-Type": "application/json"} if method == "POST" else None)
        # 400: the name is refused as such; a name that the router cannot even take as one segment may get 404.
        assert status in ((400, 404) if "%2F" in name.upper() else (400,)), (method, path, status, rbody)
        if rbody:
            assert "error" in json.loads(rbody), rbody
    status, body, _ = post(server, "/v2/repository/index", b"{}")
    assert status == 200
    assert [m["name"] for m in json.loads(body)] == ["fashion"], body
    assert_still_serves(server)


def test_repository_api_can_be_switched_off(serve, repo):
    repo.add_fashion("fashion")
    repo.add_fashion("other")
    server = serve(repo.path, "--model-control-mode", "explicit", "--load-model", "fashion",
                   "--allow-repository-api", "false")
    cl = httpclient.InferenceServerClient(server.http_url)
    try:
        with pytest.raises(InferenceServerException):
            cl.load_model("other")
        with pytest.raises(InferenceServerException):
            cl.unload_model("fashion")
        assert not cl.is_model_ready("other")
        assert cl.is_model_ready("fashion")
    finally:
        cl.close()
    assert_still_serves(server)
