"""The dynamic batcher as a client sees it: concurrent requests share executions (statistics show batches larger
than 1) and each gets its own rows back; a full queue rejects at once (HTTP 503, gRPC UNAVAILABLE) and no request
is lost."""

from __future__ import annotations

import numpy as np
import pytest

import clients as c
from model_repo import (FASHION_INPUT, FASHION_OUTPUT, FASHION_TOLERANCE, SLOW_INPUT, SLOW_OUTPUT, SLOW_WIDTH,
                        fashion_config, fashion_data, slow_config)

PROTOCOLS = pytest.mark.parametrize("protocol", c.PROTOCOLS)


def send_all(server, protocol, model, arrays: list[np.ndarray], input_name: str):
    """Sends every request at once; [(index, result or None, error or None)], each answered exactly once."""
    return c.Inflight(server, protocol, model, arrays, input_name).collect()


def assert_batched(server, protocol, model, n: int, max_batch_size: int) -> None:
    """The statistics show n one-row requests run in fewer than n executions, some of more than one row."""
    cl = c.make_client(protocol, server)
    try:
        (s,) = c.statistics(cl, protocol, model)
    finally:
        cl.close()
    assert s["inference_stats"]["success"]["count"] == n
    assert s["inference_count"] == n
    sizes = {b["batch_size"]: b["compute_infer"]["count"] for b in s["batch_stats"]}
    assert sum(size * count for size, count in sizes.items()) == n, sizes
    assert max(sizes) > 1, f"no batch larger than 1: {sizes}"
    assert max(sizes) <= max_batch_size, sizes
    assert s["execution_count"] < n


TRITON_TIMING = 'parameters { key: "hone.batch_timing" value: { string_value: "triton" } }'


@PROTOCOLS
def test_dynamic_batching_forms_batches(serve, repo, protocol):
    # Triton's timing: the first request waits the whole 20 ms for others, so requests sent together share a batch
    # however fast the model is. (hone's default timing never waits while the instance is free; see below.)
    repo.add_fashion("fashion", config=fashion_config("fashion", max_batch_size=8,
                                                       dynamic_batching="max_queue_delay_microseconds: 20000",
                                                       extra=TRITON_TIMING))
    server = serve(repo.path)
    images, reference = fashion_data()
    n = 24
    answers = send_all(server, protocol, "fashion", [images[i:i + 1] for i in range(n)], FASHION_INPUT)
    for i, r, e in answers:
        assert e is None, f"request {i}: {e}"
        np.testing.assert_allclose(r.as_numpy(FASHION_OUTPUT), reference[i:i + 1], rtol=0, atol=FASHION_TOLERANCE)
    assert_batched(server, protocol, "fashion", n, max_batch_size=8)


@PROTOCOLS
def test_work_conserving_batcher_batches_what_arrives_while_the_instance_is_busy(serve, repo, protocol):
    # hone's default timing: the first request runs at once; the others arrive while its execution (tens of ms)
    # holds the only instance, and they form the next batches instead of running one by one.
    repo.add_slow("slow", iterations=4000, config=slow_config(
        "slow", max_batch_size=8, dynamic_batching="max_queue_delay_microseconds: 20000"))
    server = serve(repo.path)
    n = 12
    xs = [np.full((1, SLOW_WIDTH), i, np.float32) for i in range(n)]
    for i, r, e in send_all(server, protocol, "slow", xs, SLOW_INPUT):
        assert e is None, f"request {i}: {e}"
        np.testing.assert_array_equal(r.as_numpy(SLOW_OUTPUT), xs[i])
    assert_batched(server, protocol, "slow", n, max_batch_size=8)


@PROTOCOLS
def test_full_queue_rejects_and_loses_nothing(serve, repo, protocol):
    # Each execution takes tens of milliseconds; one batch of up to 2 runs, 1 request may wait: of 16 sent at once,
    # most find the queue full.
    repo.add_slow("slow", iterations=4000, config=slow_config(
        "slow", max_batch_size=2, dynamic_batching="default_queue_policy { max_queue_size: 1 }"))
    server = serve(repo.path)
    n = 16
    xs = [np.full((1, SLOW_WIDTH), i, np.float32) for i in range(n)]
    answers = send_all(server, protocol, "slow", xs, SLOW_INPUT)
    ok = [i for i, r, e in answers if e is None]
    rejected = [(i, e) for i, r, e in answers if e is not None]
    for i, r, e in answers:
        if e is None:
            np.testing.assert_array_equal(r.as_numpy(SLOW_OUTPUT), xs[i])
    assert rejected, "no request was rejected with max_queue_size 1"
    assert ok, f"every request was rejected: {[(i, str(e)) for i, e in rejected]}"
    for i, e in rejected:
        assert c.is_unavailable(e), f"request {i}: expected 503 / UNAVAILABLE, got {c.error_status(e)}: {e}"
        assert "queue" in str(e).lower(), e
    cl = c.make_client(protocol, server)
    try:
        (s,) = c.statistics(cl, protocol, "slow")
        assert s["inference_stats"]["success"]["count"] == len(ok)
        assert cl.is_server_ready()
    finally:
        cl.close()
