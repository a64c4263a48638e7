"""The same questions asked through tritonclient.http and tritonclient.grpc, with answers in one shape.

tritonclient.http returns the server's JSON; tritonclient.grpc returns protobuf messages, or with as_json=True the
proto3 JSON mapping, in which 64-bit integers are strings. These helpers turn both into plain dicts with ints, so
a test can be written once and run over both protocols.
"""

from __future__ import annotations

import numpy as np
import tritonclient.grpc as grpcclient
import tritonclient.http as httpclient
from tritonclient.utils import InferenceServerException  # noqa: F401  (re-exported for tests)

PROTOCOLS = ("http", "grpc")


def make_client(protocol: str, server, **kwargs):
    if protocol == "http":
        return httpclient.InferenceServerClient(server.http_url, **kwargs)
    return grpcclient.InferenceServerClient(server.grpc_url, **kwargs)


def module(protocol: str):
    return httpclient if protocol == "http" else grpcclient


def make_input(protocol: str, name: str, array: np.ndarray, datatype: str | None = None, binary: bool = True):
    from tritonclient.utils import np_to_triton_dtype

    dt = datatype or np_to_triton_dtype(array.dtype)
    inp = module(protocol).InferInput(name, list(array.shape), dt)
    if protocol == "http":
        inp.set_data_from_numpy(array, binary_data=binary)
    else:
        inp.set_data_from_numpy(array)
    return inp


def make_output(protocol: str, name: str, binary: bool = True):
    if protocol == "http":
        return httpclient.InferRequestedOutput(name, binary_data=binary)
    return grpcclient.InferRequestedOutput(name)


def _ints(d, keys):
    for k in keys:
        if k in d:
            d[k] = int(d[k])
    return d


def model_config(client, protocol: str, name: str, version: str = "") -> dict:
    """The model config as a dict in Triton's JSON field names, integers as ints."""
    if protocol == "http":
        cfg = client.get_model_config(name, version)
    else:
        cfg = client.get_model_config(name, version, as_json=True)["config"]
    cfg.setdefault("max_batch_size", 0)
    cfg["max_batch_size"] = int(cfg["max_batch_size"])
    for t in cfg.get("input", []) + cfg.get("output", []):
        t["dims"] = [int(x) for x in t.get("dims", [])]
    db = cfg.get("dynamic_batching")
    if db is not None:
        _ints(db, ["max_queue_delay_microseconds", "priority_levels", "default_priority_level"])
        db["preferred_batch_size"] = [int(x) for x in db.get("preferred_batch_size", [])]
        qp = db.get("default_queue_policy")
        if qp:
            _ints(qp, ["default_timeout_microseconds", "max_queue_size"])
    return cfg


def model_metadata(client, protocol: str, name: str, version: str = "") -> dict:
    if protocol == "http":
        md = client.get_model_metadata(name, version)
    else:
        md = client.get_model_metadata(name, version, as_json=True)
    for t in md.get("inputs", []) + md.get("outputs", []):
        t["shape"] = [int(x) for x in t.get("shape", [])]
    md["versions"] = [str(v) for v in md.get("versions", [])]
    return md


def _duration(d: dict | None) -> dict:
    d = d or {}
    return {"count": int(d.get("count", 0)), "ns": int(d.get("ns", 0))}


def statistics(client, protocol: str, name: str = "", version: str = "") -> list[dict]:
    """model_stats entries: name, version, inference_count, execution_count, inference_stats (success, fail, queue,
    compute_input, compute_infer, compute_output as {count, ns}), batch_stats [{batch_size, compute_infer, ...}]."""
    if protocol == "http":
        raw = client.get_inference_statistics(name, version)
    else:
        raw = client.get_inference_statistics(name, version, as_json=True)
    out = []
    for m in raw.get("model_stats", []):
        s = m.get("inference_stats", {})
        out.append({
            "name": m.get("name", ""),
            "version": str(m.get("version", "")),
            "inference_count": int(m.get("inference_count", 0)),
            "execution_count": int(m.get("execution_count", 0)),
            "inference_stats": {k: _duration(s.get(k)) for k in
                                ("success", "fail", "queue", "compute_input", "compute_infer", "compute_output")},
            "batch_stats": [
                {"batch_size": int(b.get("batch_size", 0)),
                 **{k: _duration(b.get(k)) for k in ("compute_input", "compute_infer", "compute_output")}}
                for b in m.get("batch_stats", [])
            ],
        })
    return out


def repository_index(client, protocol: str) -> list[dict]:
    if protocol == "http":
        idx = client.get_model_repository_index()
    else:
        idx = client.get_model_repository_index(as_json=True).get("models", [])
    return [{"name": e.get("name", ""), "version": str(e.get("version", "")), "state": e.get("state", ""),
             "reason": e.get("reason", "")} for e in idx]


def error_status(e: Exception) -> str:
    """"400", "503", ... for HTTP; "StatusCode.UNAVAILABLE", ... for gRPC."""
    return str(e.status()) if hasattr(e, "status") and e.status() is not None else ""


def is_unavailable(e: Exception) -> bool:
    return error_status(e) in ("503", "StatusCode.UNAVAILABLE")


def infer(client, protocol: str, model: str, inputs: dict[str, np.ndarray], outputs: list[str] | None = None,
          version: str = "", binary: bool = True, request_id: str = "", **kwargs):
    """One inference; returns the InferResult."""
    ins = [make_input(protocol, n, a, binary=binary) for n, a in inputs.items()]
    outs = None if outputs is None else [make_output(protocol, n, binary) for n in outputs]
    return client.infer(model, ins, model_version=version, outputs=outs, request_id=request_id, **kwargs)


class Inflight:
    """Requests sent together and answered in the background: HTTP from a thread each (tritonclient.http is
    gevent-based: one client per thread), gRPC through async_infer callbacks.

        batch = Inflight(server, "grpc", "slow", [x0, x1, ...], "x")   # all sent now
        ...                                                              # do something while they are in flight
        answers = batch.collect()   # [(i, InferResult or None, exception or None)], each answered exactly once
    """

    def __init__(self, server, protocol: str, model: str, arrays: list[np.ndarray], input_name: str,
                 version: str = ""):
        import queue
        import threading

        self.n = len(arrays)
        self.answers: "queue.Queue" = queue.Queue()
        self._threads = []
        self._client = None
        if protocol == "http":
            def one(i, a):
                cl = make_client("http", server, network_timeout=300.0)
                try:
                    r = cl.infer(model, [make_input("http", input_name, a)], model_version=version,
                                 request_id=str(i))
                    self.answers.put((i, r, None))
                except Exception as e:  # noqa: BLE001 — the answer to check
                    self.answers.put((i, None, e))
                finally:
                    cl.close()

            for i, a in enumerate(arrays):
                t = threading.Thread(target=one, args=(i, a), daemon=True)
                t.start()
                self._threads.append(t)
        else:
            self._client = make_client("grpc", server)
            for i, a in enumerate(arrays):
                self._client.async_infer(model, [make_input("grpc", input_name, a)],
                                         lambda result, error, i=i: self.answers.put((i, result, error)),
                                         model_version=version, request_id=str(i))

    def collect(self, timeout: float = 180.0) -> list[tuple]:
        import queue
        import time

        deadline = time.monotonic() + timeout
        got = {}
        try:
            while len(got) < self.n:
                try:
                    i, r, e = self.answers.get(timeout=max(0.0, deadline - time.monotonic()))
                except queue.Empty:
                    missing = sorted(set(range(self.n)) - set(got))
                    raise AssertionError(f"no answer after {timeout:.0f} s to requests {missing}") from None
                assert i not in got, f"request {i} answered twice"
                got[i] = (i, r, e)
            time.sleep(0.05)
            assert self.answers.empty(), "more answers than requests"
        finally:
            if self._client is not None:
                self._client.close()
        return [got[i] for i in range(self.n)]


def pending(server, model):
    """The server's pending-request gauge for `model` (None when it has none)."""
    from hone_server import http_get
    from prometheus_text import parse, value

    status, body, _ = http_get(server.metrics_url, "/metrics")
    return value(parse(body.decode()), "nv_inference_pending_request_count", model=model) if status == 200 else None


def wait_arrived(server, model, n, timeout=30.0):
    """Waits until n requests for `model` have reached the server: pending (queued or running) plus answered,
    from its Prometheus series. Not the pending gauge alone: a client that needs longer to send its last request
    than the model needs to answer its first never sees all n pending at once (CI saw it on a loaded machine).
    Returns how many are still pending, for a test that needs some to be."""
    import time

    from hone_server import http_get
    from prometheus_text import parse, value

    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        status, body, _ = http_get(server.metrics_url, "/metrics")
        if status == 200:
            samples = parse(body.decode())
            counts = [value(samples, name, model=model) for name in
                      ("nv_inference_pending_request_count", "nv_inference_request_success",
                       "nv_inference_request_failure")]
            if None not in counts:
                last = counts
                if sum(counts) >= n:
                    return int(counts[0])
        time.sleep(0.01)
    raise AssertionError(f"{model}: pending, succeeded, failed requests {last}, waited for {n} in all")
