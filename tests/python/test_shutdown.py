"""SIGTERM: stop taking work, finish what is in flight, answer every request, exit 0."""

from __future__ import annotations

import signal

import numpy as np
import pytest

import clients as c
from model_repo import SLOW_INPUT, SLOW_OUTPUT, SLOW_WIDTH, slow_config

PROTOCOLS = pytest.mark.parametrize("protocol", c.PROTOCOLS)


def test_sigterm_when_idle_exits_0(serve, repo):
    repo.add_slow("slow", iterations=10)
    server = serve(repo.path)
    assert server.stop(timeout=30) == 0, server.log()


@PROTOCOLS
def test_sigterm_with_requests_in_flight_answers_all_and_exits_0(serve, repo, protocol):
    # 6 requests of 40 ms (a fast AVX-512 machine) to 0.5 s each, one at a time: most in flight (running or queued)
    # when SIGTERM comes, sent the moment the last has reached the server.
    repo.add_slow("slow", iterations=40000, config=slow_config("slow", max_batch_size=1, dynamic_batching=None))
    server = serve(repo.path, "--exit-timeout-secs", "60")
    xs = [np.full((1, SLOW_WIDTH), i + 1, np.float32) for i in range(6)]
    batch = c.Inflight(server, protocol, "slow", xs, SLOW_INPUT)
    c.wait_arrived(server, "slow", 6)
    server.signal(signal.SIGTERM)
    answers = batch.collect()
    code = server.wait_exit(timeout=60)
    for i, r, e in answers:
        assert e is None, f"request {i} was in flight at SIGTERM and failed: {e}"
        np.testing.assert_array_equal(r.as_numpy(SLOW_OUTPUT), xs[i])
    assert code == 0, server.log()


@PROTOCOLS
def test_sigterm_past_the_exit_timeout_still_answers_every_request(serve, repo, protocol):
    # 20 requests of 0.4 s (on a fast AVX-512 machine) to several seconds each, and a 1 s exit timeout: what is not
    # done by then is answered with an error. (40,000 iterations, 40 ms a request there, all finished within 1 s.)
    repo.add_slow("slow", iterations=400000, config=slow_config("slow", max_batch_size=1, dynamic_batching=None))
    server = serve(repo.path, "--exit-timeout-secs", "1")
    xs = [np.full((1, SLOW_WIDTH), i + 1, np.float32) for i in range(20)]
    batch = c.Inflight(server, protocol, "slow", xs, SLOW_INPUT)
    c.wait_arrived(server, "slow", 20)
    server.signal(signal.SIGTERM)
    answers = batch.collect()
    code = server.wait_exit(timeout=60)
    failed = [i for i, r, e in answers if e is not None]
    for i, r, e in answers:
        # An answer from the server (503 / UNAVAILABLE for work it could not finish), not a dropped connection.
        assert e is None or (isinstance(e, c.InferenceServerException) and c.error_status(e)), \
            f"request {i}: {type(e).__name__}: {e}"
    for i, r, e in answers:
        if e is None:
            np.testing.assert_array_equal(r.as_numpy(SLOW_OUTPUT), xs[i])
    assert failed, "every request finished: the exit timeout was not needed (the model ran faster than expected)"
    assert code == 0, server.log()
