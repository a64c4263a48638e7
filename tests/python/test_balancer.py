"""A rolling restart behind a real load balancer loses nothing: two hone serve replicas behind HAProxy (checks of
/v2/health/ready every 200 ms, retries, redispatch), hone bench through it at concurrency 8 over HTTP and gRPC,
each replica in turn sent SIGTERM, waited for and started again on its ports, as Kubernetes' rolling update does.
Before the drain (harness/drain.h) the same run failed 78 requests with "the server is shutting down".

The replicas are processes, and again the container image under podman (hone serve as the container's process 1,
read-only root, every capability dropped, as a pod runs it), where $HONE_IMAGE names the image: scripts/test's
image stage sets it after scripts/build-image."""

from __future__ import annotations

import os
import shutil
import subprocess
import time

import pytest

from balancer import Balancer, ContainerReplica, Replica, bench_outcome
from model_repo import FASHION_DIR


def bench_through(hone_bin, balancer, protocol, seconds, json_path):
    port = balancer.http_port if protocol == "http" else balancer.grpc_port
    args = [str(hone_bin), "bench", "fashion", "--url", f"127.0.0.1:{port}", "--protocol", protocol,
            "--data", str(FASHION_DIR / "test.npz"), "--concurrency", "8", "--warmup-s", "0.5",
            "--window-ms", "1000", "--stability-windows", str(seconds), "--max-windows", str(seconds),
            "--stability-percent", "100", "--min-duration-s", str(seconds), "--json", str(json_path), "--quiet"]
    return subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def make_replicas(kind, hone_bin, repository, tmp_path):
    if kind == "process":
        return [Replica(hone_bin, repository, tmp_path, name) for name in ("a", "b")]
    image = os.environ.get("HONE_IMAGE", "")
    if not image:
        pytest.skip("HONE_IMAGE is not set: scripts/test builds the image with scripts/build-image and sets it")
    if shutil.which("podman") is None:
        pytest.skip("podman is not installed (scripts/setup installs Debian's podman and runc)")
    return [ContainerReplica(image, repository, tmp_path, name) for name in ("a", "b")]


@pytest.mark.parametrize("kind", ["process", "container"])
@pytest.mark.parametrize("protocol", ["http", "grpc"])
def test_rolling_restart_behind_haproxy_fails_no_request(hone_bin, repo, tmp_path, protocol, kind):
    repo.add_fashion("fashion")
    replicas = make_replicas(kind, hone_bin, repo.path, tmp_path)
    balancer = Balancer(replicas, tmp_path)
    try:
        for r in replicas:
            r.start()
        balancer.start()
        bench = bench_through(hone_bin, balancer, protocol, 12, tmp_path / "bench.json")
        time.sleep(2.0)
        restarts = []
        for r in replicas:  # one at a time: SIGTERM, drain, exit, start, ready, back in the balancer
            began = time.monotonic()
            assert r.stop() == 0, r.log()
            r.start()
            balancer.wait_state(r, up=True)
            restarts.append(time.monotonic() - began)
        assert bench.poll() is None, "hone bench ended before the restarts did: they were not measured"
        out, _ = bench.communicate(timeout=120)
        assert (tmp_path / "bench.json").exists(), out
        outcome = bench_outcome(tmp_path / "bench.json")
        requests, errors, first = outcome["requests"], outcome["errors"], outcome["first_error"]
        assert requests > 0, out
        assert errors == 0, f"{errors} of {requests} requests failed through the balancer during the restarts " \
                            f"({first}):\n{balancer.log()}"
        # What this proves is that no request failed. Two restarts inside a 12-window run put their tail into some
        # windows, so on a loaded machine bench may call the point UNSTABLE (exit 1, p99 spread over the 100%
        # tolerance): that is the restarts seen, not a failure. Any other exit is.
        unstable_only = bench.returncode == 1 and "some points were unstable" in out
        assert bench.returncode == 0 or unstable_only, out
        assert max(restarts) < 30, restarts
        for r in replicas:
            assert "drained after" in r.log(), r.log()
    finally:
        balancer.stop()
        for r in replicas:
            r.stop()
