"""tritonclient (HTTP and gRPC), unchanged, against hone serve: health, metadata, config, inference with binary and
JSON tensors, requested outputs, concurrency, statistics, the repository index and errors.

One server for the module (model control mode none), with:
  fashion       config.pbtxt: max_batch_size 8, dynamic_batching { max_queue_delay_microseconds: 1000 }
  fashion_auto  no config.pbtxt: everything completed from the model
Tests that count (statistics) start their own server.
"""

from __future__ import annotations

import queue
import threading

import numpy as np
import pytest

import clients as c
from clients import InferenceServerException
from hone_server import SharedServer
from model_repo import FASHION_INPUT, FASHION_OUTPUT, FASHION_TOLERANCE, ModelRepo, fashion_data

pytestmark = pytest.mark.parametrize("protocol", c.PROTOCOLS)


@pytest.fixture(scope="module")
def shared(module_serve, tmp_path_factory):
    repo = ModelRepo(tmp_path_factory.mktemp("repo"))
    repo.add_fashion("fashion")
    repo.add_fashion("fashion_auto", config=None)
    return SharedServer(module_serve, repo.path)


@pytest.fixture
def server(shared):
    yield from shared.for_test()


@pytest.fixture
def client(server, protocol):
    cl = c.make_client(protocol, server)
    yield cl
    cl.close()


def assert_logits(actual, rows):
    images, reference = fashion_data()
    expected = reference[rows]
    assert actual.dtype == np.float32
    assert actual.shape == expected.shape
    np.testing.assert_allclose(actual, expected, rtol=0, atol=FASHION_TOLERANCE)


# --- health and metadata ----------------------------------------------------------------------------------------

def test_server_live_and_ready(client, protocol):
    assert client.is_server_live()
    assert client.is_server_ready()


def test_server_metadata(client, protocol):
    md = client.get_server_metadata() if protocol == "http" else client.get_server_metadata(as_json=True)
    assert md.get("name"), md
    assert md.get("version"), md
    assert isinstance(md.get("extensions", []), list)


def test_model_ready(client, protocol):
    assert client.is_model_ready("fashion")
    assert client.is_model_ready("fashion", "1")
    assert client.is_model_ready("fashion_auto")


def _not_ready(call, *words):
    """Triton answers "not ready" for an unknown model or version (HTTP 400, gRPC ready=false); an error that
    names what is unknown is tolerated."""
    try:
        assert call() is False
    except InferenceServerException as e:
        for w in words:
            assert w in str(e), e


def test_model_ready_unknown_model_or_version_is_not_ready(client, protocol):
    _not_ready(lambda: client.is_model_ready("no_such_model"), "no_such_model")
    _not_ready(lambda: client.is_model_ready("fashion", "7"), "7")


def test_model_metadata(client, protocol):
    md = c.model_metadata(client, protocol, "fashion")
    assert md["name"] == "fashion"
    assert md["versions"] == ["1"]
    assert md.get("platform") == "onnxruntime_onnx"
    assert [(t["name"], t["datatype"], t["shape"]) for t in md["inputs"]] == [(FASHION_INPUT, "FP32", [-1, 1, 28, 28])]
    assert [(t["name"], t["datatype"], t["shape"]) for t in md["outputs"]] == [(FASHION_OUTPUT, "FP32", [-1, 10])]


def test_model_config_as_written(client, protocol):
    cfg = c.model_config(client, protocol, "fashion")
    assert cfg["name"] == "fashion"
    assert cfg["max_batch_size"] == 8
    assert [(t["name"], t["data_type"], t["dims"]) for t in cfg["input"]] == [(FASHION_INPUT, "TYPE_FP32", [1, 28, 28])]
    assert [(t["name"], t["data_type"], t["dims"]) for t in cfg["output"]] == [(FASHION_OUTPUT, "TYPE_FP32", [10])]
    assert cfg["dynamic_batching"]["max_queue_delay_microseconds"] == 1000
    groups = cfg.get("instance_group", [])
    assert groups and all(g.get("kind") == "KIND_CPU" for g in groups), groups


def test_model_config_completed_from_model(client, protocol):
    cfg = c.model_config(client, protocol, "fashion_auto")
    assert cfg["name"] == "fashion_auto"
    assert cfg.get("platform") == "onnxruntime_onnx" or cfg.get("backend") == "onnxruntime"
    assert cfg["max_batch_size"] == 4  # Triton's default-max-batch-size for a model that can batch
    assert [(t["name"], t["data_type"], t["dims"]) for t in cfg["input"]] == [(FASHION_INPUT, "TYPE_FP32", [1, 28, 28])]
    assert [(t["name"], t["data_type"], t["dims"]) for t in cfg["output"]] == [(FASHION_OUTPUT, "TYPE_FP32", [10])]
    assert "dynamic_batching" in cfg


def test_repository_index(client, protocol):
    idx = {e["name"]: e for e in c.repository_index(client, protocol)}
    assert set(idx) == {"fashion", "fashion_auto"}
    assert idx["fashion"]["state"] == "READY"
    assert idx["fashion"]["version"] == "1"


# --- inference --------------------------------------------------------------------------------------------------

def test_infer_one_row_binary(client, protocol):
    images, _ = fashion_data()
    result = c.infer(client, protocol, "fashion", {FASHION_INPUT: images[:1]}, request_id="req-1")
    assert_logits(result.as_numpy(FASHION_OUTPUT), slice(0, 1))
    response = result.get_response() if protocol == "http" else result.get_response(as_json=True)
    assert response.get("id") == "req-1"
    assert response.get("model_name") == "fashion"
    assert str(response.get("model_version")) == "1"


def test_infer_batch_of_rows(client, protocol):
    images, _ = fashion_data()
    result = c.infer(client, protocol, "fashion", {FASHION_INPUT: images[10:18]})
    assert_logits(result.as_numpy(FASHION_OUTPUT), slice(10, 18))


def test_infer_model_without_config(client, protocol):
    images, _ = fashion_data()
    result = c.infer(client, protocol, "fashion_auto", {FASHION_INPUT: images[100:104]})
    assert_logits(result.as_numpy(FASHION_OUTPUT), slice(100, 104))


def test_infer_named_version(client, protocol):
    images, _ = fashion_data()
    result = c.infer(client, protocol, "fashion", {FASHION_INPUT: images[5:6]}, version="1")
    assert_logits(result.as_numpy(FASHION_OUTPUT), slice(5, 6))


def test_infer_requested_output(client, protocol):
    images, _ = fashion_data()
    result = c.infer(client, protocol, "fashion", {FASHION_INPUT: images[20:23]}, outputs=[FASHION_OUTPUT])
    assert_logits(result.as_numpy(FASHION_OUTPUT), slice(20, 23))


def test_infer_unknown_requested_output_is_an_error(client, protocol):
    images, _ = fashion_data()
    with pytest.raises(InferenceServerException) as e:
        c.infer(client, protocol, "fashion", {FASHION_INPUT: images[:1]}, outputs=["no_such_output"])
    assert "no_such_output" in str(e.value)


def test_many_concurrent_requests_each_get_their_own_result(client, protocol, server):
    """64 requests of 1 to 3 rows in flight together; each response carries its own request's logits."""
    images, _ = fashion_data()
    n = 64
    rows = [slice(7 * i, 7 * i + 1 + i % 3) for i in range(n)]
    results: queue.Queue = queue.Queue()
    if protocol == "http":
        cl = c.make_client("http", server, concurrency=16)
        try:
            pending = [cl.async_infer("fashion", [c.make_input("http", FASHION_INPUT, images[r])], request_id=str(i))
                       for i, r in enumerate(rows)]
            for i, p in enumerate(pending):
                results.put((i, p.get_result(), None))
        finally:
            cl.close()
    else:
        def done(i):
            return lambda result, error: results.put((i, result, error))
        for i, r in enumerate(rows):
            client.async_infer("fashion", [c.make_input("grpc", FASHION_INPUT, images[r])], done(i), request_id=str(i))
    seen = set()
    for _ in range(n):
        i, result, error = results.get(timeout=60)
        assert error is None, f"request {i}: {error}"
        assert i not in seen, f"request {i} answered twice"
        seen.add(i)
        assert_logits(result.as_numpy(FASHION_OUTPUT), rows[i])
        response = result.get_response() if protocol == "http" else result.get_response(as_json=True)
        assert response.get("id") == str(i)
    assert seen == set(range(n))
    assert results.empty()


def test_concurrent_clients_on_threads(client, protocol, server):
    """8 threads, each with its own client, 10 requests each: every result is the thread's own."""
    images, _ = fashion_data()
    errors: list[str] = []

    def worker(t):
        cl = c.make_client(protocol, server)
        try:
            for k in range(10):
                start = (t * 10 + k) * 3
                r = c.infer(cl, protocol, "fashion", {FASHION_INPUT: images[start:start + 2]})
                out = r.as_numpy(FASHION_OUTPUT)
                ref = fashion_data()[1][start:start + 2]
                if out.shape != ref.shape or not np.allclose(out, ref, rtol=0, atol=FASHION_TOLERANCE):
                    errors.append(f"thread {t} request {k}: wrong logits")
        except Exception as e:  # noqa: BLE001 — collected and reported below
            errors.append(f"thread {t}: {e!r}")
        finally:
            cl.close()

    threads = [threading.Thread(target=worker, args=(t,)) for t in range(8)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(120)
    assert not errors, errors


# --- statistics -------------------------------------------------------------------------------------------------

def test_statistics_add_up(serve, repo, protocol):
    repo.add_fashion("fashion", config=None)
    repo.add_fashion("other", config=None)
    server = serve(repo.path)
    cl = c.make_client(protocol, server)
    try:
        before = c.statistics(cl, protocol, "fashion")
        assert len(before) == 1 and before[0]["name"] == "fashion" and before[0]["version"] == "1", before
        assert before[0]["inference_stats"]["success"]["count"] == 0  # warm-up is not counted
        images, _ = fashion_data()
        n_ok, rows_each = 6, 2
        for i in range(n_ok):
            c.infer(cl, protocol, "fashion", {FASHION_INPUT: images[i * 2:i * 2 + rows_each]})
        with pytest.raises(InferenceServerException):  # a wrong shape: fails validation
            c.infer(cl, protocol, "fashion", {FASHION_INPUT: np.zeros((1, 1, 28, 27), np.float32)})
        (s,) = c.statistics(cl, protocol, "fashion")
        st = s["inference_stats"]
        assert st["success"]["count"] == n_ok
        assert s["inference_count"] == n_ok * rows_each
        assert s["execution_count"] == n_ok  # one request at a time: nothing to batch; warm-up not counted
        for phase in ("queue", "compute_input", "compute_infer", "compute_output"):
            assert st[phase]["count"] == n_ok, (phase, st)
            # A lone request that finds the instance idle runs on the front end's thread and never queues: its
            # queue time is 0, and still counted.
            if phase != "queue":
                assert st[phase]["ns"] > 0, (phase, st)
        assert st["queue"]["ns"] < st["success"]["ns"], st
        assert st["success"]["ns"] >= st["compute_infer"]["ns"] > 0
        assert sum(b["compute_infer"]["count"] for b in s["batch_stats"]) == s["execution_count"]
        assert sum(b["batch_size"] * b["compute_infer"]["count"] for b in s["batch_stats"]) == n_ok * rows_each
        # The failed request counts as one failure (Triton counts requests that fail after reaching the model; the
        # scheduler records a rejected one once).
        assert st["fail"]["count"] == 1, st
        # Statistics of every model: both listed, the other one untouched.
        every = {m["name"]: m for m in c.statistics(cl, protocol)}
        assert set(every) == {"fashion", "other"}
        assert every["other"]["inference_count"] == 0
    finally:
        cl.close()


def test_statistics_unknown_model(client, protocol):
    with pytest.raises(InferenceServerException) as e:
        c.statistics(client, protocol, "no_such_model")
    assert "no_such_model" in str(e.value)


# --- errors: each names what is wrong, and the server keeps serving ---------------------------------------------

def _expect_error(client, protocol, model, inputs, *words, version=""):
    with pytest.raises(InferenceServerException) as e:
        c.infer(client, protocol, model, inputs, version=version)
    message = str(e.value)
    for w in words:
        assert w.lower() in message.lower(), f"error {message!r} does not mention {w!r}"
    return e.value


def _still_serves(client, protocol):
    assert client.is_server_live() and client.is_server_ready()
    images, _ = fashion_data()
    assert_logits(c.infer(client, protocol, "fashion", {FASHION_INPUT: images[:2]}).as_numpy(FASHION_OUTPUT),
                  slice(0, 2))


def test_error_unknown_model(client, protocol):
    images, _ = fashion_data()
    err = _expect_error(client, protocol, "no_such_model", {FASHION_INPUT: images[:1]}, "no_such_model")
    assert c.error_status(err) in ("404", "400", "StatusCode.NOT_FOUND", "StatusCode.INVALID_ARGUMENT"), err
    _still_serves(client, protocol)


def test_error_unknown_version(client, protocol):
    images, _ = fashion_data()
    _expect_error(client, protocol, "fashion", {FASHION_INPUT: images[:1]}, "fashion", version="9")
    _still_serves(client, protocol)


def test_error_wrong_datatype(client, protocol):
    err = _expect_error(client, protocol, "fashion", {FASHION_INPUT: np.zeros((1, 1, 28, 28), np.int64)},
                        FASHION_INPUT, "FP32", "INT64")
    assert c.error_status(err) in ("400", "StatusCode.INVALID_ARGUMENT"), err
    _still_serves(client, protocol)


def test_error_wrong_shape(client, protocol):
    err = _expect_error(client, protocol, "fashion", {FASHION_INPUT: np.zeros((1, 1, 28, 27), np.float32)},
                        FASHION_INPUT, "28")
    assert c.error_status(err) in ("400", "StatusCode.INVALID_ARGUMENT"), err
    _still_serves(client, protocol)


def test_error_batch_over_max_batch_size(client, protocol):
    err = _expect_error(client, protocol, "fashion", {FASHION_INPUT: np.zeros((9, 1, 28, 28), np.float32)},
                        "8")
    assert c.error_status(err) in ("400", "StatusCode.INVALID_ARGUMENT"), err
    _still_serves(client, protocol)


def test_error_missing_input(client, protocol):
    err = _expect_error(client, protocol, "fashion", {}, FASHION_INPUT)
    assert c.error_status(err) in ("400", "StatusCode.INVALID_ARGUMENT"), err
    _still_serves(client, protocol)


def test_error_unknown_input(client, protocol):
    err = _expect_error(client, protocol, "fashion", {"not_image": np.zeros((1, 1, 28, 28), np.float32)},
                        "not_image")
    assert c.error_status(err) in ("400", "StatusCode.INVALID_ARGUMENT"), err
    _still_serves(client, protocol)


def test_error_data_size_does_not_match_shape(client, protocol):
    """The shape says 2 rows, the data holds 1."""
    images, _ = fashion_data()
    inp = c.make_input(protocol, FASHION_INPUT, images[:1])
    inp.set_shape([2, 1, 28, 28])
    with pytest.raises(InferenceServerException) as e:
        client.infer("fashion", [inp])
    assert FASHION_INPUT in str(e.value), e.value
    assert c.error_status(e.value) in ("400", "StatusCode.INVALID_ARGUMENT"), e.value
    _still_serves(client, protocol)
