"""The container image that scripts/build-image makes, run for real with Debian's podman (runtime runc): a
repository mounted read-only and served through published ports to tritonclient over HTTP and gRPC with the same
outputs as the binary outside the image; live before ready while models load; SIGTERM (podman stop) lets in-flight
requests finish and the container exit 0; hone tune on a mounted model writing to a writable mount; a model that
fails to load leaves a clear log line and a live, non-ready server that keeps running.

The image: $HONE_IMAGE (scripts/test builds it and sets it). Skipped, saying why, when it is not set or when podman
cannot start a container here (no podman, or a sandbox without the cgroups or namespaces it needs). Each
container runs as the image's user (uid 1000) with every capability dropped. When $HONE_IMAGE_FIGURES names a file,
the image's size, the time from `podman run` to ready and the idle server's RSS are appended to it.
"""

from __future__ import annotations

import json
import os
import pathlib
import shutil
import subprocess
import threading
import time
import uuid

import numpy as np
import pytest

import clients as c
from hone_server import free_ports, http_get
from model_repo import (FASHION_DIR, FASHION_INPUT, FASHION_OUTPUT, SLOW_INPUT, SLOW_OUTPUT, SLOW_WIDTH, ModelRepo,
                        fashion_data, slow_config)
from podman_cli import LIMITS, podman

IMAGE = os.environ.get("HONE_IMAGE", "")
START_TIMEOUT_S = 90


def record_figure(line: str) -> None:
    print(line)
    path = os.environ.get("HONE_IMAGE_FIGURES")
    if path:
        with open(path, "a") as f:
            f.write(line + "\n")


@pytest.fixture(scope="module")
def image():
    if not IMAGE:
        pytest.skip("HONE_IMAGE is not set: scripts/test builds the image with scripts/build-image and sets it")
    if shutil.which("podman") is None:
        pytest.skip("podman is not installed (scripts/setup installs Debian's podman and runc)")
    r = podman("run", "--rm", *LIMITS, "--cap-drop=all", IMAGE, "--version", check=False)
    if r.returncode != 0:
        pytest.skip(f"podman cannot start a container here: {(r.stderr or r.stdout).strip()[-600:]}")
    return IMAGE


class Container:
    """One `podman run -d` of the image with a repository mounted read-only at /models and the three ports
    published on 127.0.0.1; removed at teardown."""

    def __init__(self, image: str, repository: pathlib.Path | None, *command, mounts=()):
        self.name = f"hone-test-{uuid.uuid4().hex[:10]}"
        self.http, self.grpc, self.metrics = free_ports(3)
        args = ["run", "-d", "--name", self.name, *LIMITS, "--cap-drop=all", "--security-opt", "no-new-privileges",
                "-p", f"127.0.0.1:{self.http}:8000", "-p", f"127.0.0.1:{self.grpc}:8001",
                "-p", f"127.0.0.1:{self.metrics}:8002"]
        if repository is not None:
            args += ["-v", f"{repository}:/models:ro"]
        for m in mounts:
            args += ["-v", m]
        self.started = time.monotonic()
        podman(*args, image, *command)

    @property
    def http_url(self) -> str:
        return f"127.0.0.1:{self.http}"

    @property
    def grpc_url(self) -> str:
        return f"127.0.0.1:{self.grpc}"

    def status(self, path: str) -> int:
        try:
            return http_get(self.http_url, path, timeout=2)[0]
        except OSError:
            return 0

    def wait_ready(self, timeout: float = START_TIMEOUT_S) -> float:
        """Seconds from `podman run` to the first 200 from /v2/health/ready."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.status("/v2/health/ready") == 200:
                return time.monotonic() - self.started
            assert self.running(), f"the container exited:\n{self.logs()}"
            time.sleep(0.05)
        raise AssertionError(f"not ready after {timeout} s:\n{self.logs()}")

    def running(self) -> bool:
        r = podman("inspect", "--format", "{{.State.Running}}", self.name, check=False)
        return r.stdout.strip() == "true"

    def exit_code(self) -> int:
        return int(podman("inspect", "--format", "{{.State.ExitCode}}", self.name).stdout.strip())

    def logs(self) -> str:
        r = podman("logs", self.name, check=False)
        return r.stdout + r.stderr

    def rss_kib(self) -> int:
        pid = podman("inspect", "--format", "{{.State.Pid}}", self.name).stdout.strip()
        for line in pathlib.Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
        raise AssertionError(f"no VmRSS for pid {pid}")

    def remove(self) -> None:
        podman("rm", "-f", "-t", "0", self.name, check=False)


@pytest.fixture
def containers(image):
    started: list[Container] = []

    def start(repository, *command, mounts=()) -> Container:
        started.append(Container(image, repository, *command, mounts=mounts))
        return started[-1]

    yield start
    for ctr in started:
        ctr.remove()


def readable_repo(path: pathlib.Path) -> ModelRepo:
    """A repository the container's uid 1000 can read (pytest's tmp_path is private to root)."""
    repo = ModelRepo(path)
    for p in [path, *path.parents]:
        if p == pathlib.Path("/"):
            break
        p.chmod(p.stat().st_mode | 0o055)
    return repo


def open_tree(path: pathlib.Path) -> None:
    for p in [path, *path.rglob("*")]:
        p.chmod(p.stat().st_mode | (0o055 if p.is_dir() else 0o044))


def infer(protocol: str, server, name: str, images: np.ndarray) -> np.ndarray:
    """`server`: a Container or a HoneServer (both have http_url and grpc_url)."""
    client = c.make_client(protocol, server)
    result = client.infer(name, [c.make_input(protocol, FASHION_INPUT, images)],
                          outputs=[c.make_output(protocol, FASHION_OUTPUT)])
    return result.as_numpy(FASHION_OUTPUT)


# --- the image itself -------------------------------------------------------------------------------------------

def test_image_runs_as_uid_1000_with_hone_as_entrypoint_and_agrees_on_the_version(image, hone_bin):
    info = json.loads(podman("image", "inspect", image).stdout)[0]
    config = info["Config"]
    assert config["User"] == "1000:1000"
    assert config["Entrypoint"] == ["/usr/local/bin/hone"]
    assert config["Cmd"][:3] == ["serve", "--model-repository", "/models"]
    labels = config["Labels"]
    outside = subprocess.run([str(hone_bin), "--version"], capture_output=True, text=True).stdout.splitlines()[0]
    inside = podman("run", "--rm", *LIMITS, "--cap-drop=all", image, "--version").stdout.splitlines()[0]
    assert inside == outside == f"hone {labels['org.opencontainers.image.version']}"
    assert labels["org.opencontainers.image.licenses"] == "Apache-2.0"
    assert len(labels["org.opencontainers.image.revision"]) >= 40
    size = info["Size"]
    record_figure(f"image {image}: {size / 1e6:.1f} MB ({size} bytes)")
    assert size <= 150e6, f"the image is {size / 1e6:.1f} MB; the goal is at most 150 MB"


# --- serving ----------------------------------------------------------------------------------------------------

def test_read_only_repository_served_to_tritonclient_like_the_binary_outside(containers, serve, tmp_path):
    repo = readable_repo(tmp_path / "repo")
    repo.add_fashion("fashion")
    open_tree(repo.path)
    ctr = containers(repo.path)
    to_ready = ctr.wait_ready()
    time.sleep(1.0)  # idle after the start
    record_figure(f"podman run to ready: {to_ready:.2f} s; idle server RSS in the container: "
                  f"{ctr.rss_kib() / 1024:.1f} MiB (Fashion-MNIST repository)")
    outside = serve(repo.path)
    images = fashion_data()[0][:8]
    for protocol in c.PROTOCOLS:
        inside = infer(protocol, ctr, "fashion", images)
        reference = infer(protocol, outside, "fashion", images)
        assert inside.shape == (8, 10)
        np.testing.assert_array_equal(inside, reference, err_msg=protocol)
    # Read-only for real: the server cannot write into /models.
    r = podman("exec", ctr.name, "/usr/local/bin/hone", "info", "/models/fashion/1/model.onnx", "--json",
               "/models/fashion/info.json", check=False)
    assert r.returncode != 0 and not (repo.path / "fashion" / "info.json").exists()


WARMUP = """
model_warmup [ {{
  name: "zeros" batch_size: 1 count: {count}
  inputs {{ key: "x" value: {{ data_type: TYPE_FP32 dims: [ 4 ] zero_data: true }} }}
}} ]
"""


def test_live_before_ready_until_every_model_has_loaded(containers, tmp_path):
    repo = readable_repo(tmp_path / "repo")
    repo.add_fashion("fashion")
    # Warm-up of about 2 s before 'slow' may be ready (8 runs of ~0.25 s).
    repo.add_slow("slow", iterations=20000, config=slow_config("slow", extra=WARMUP.format(count=8)))
    open_tree(repo.path)
    ctr = containers(repo.path)
    seen = []  # (live, ready, slow ready) in order
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        state = (ctr.status("/v2/health/live"), ctr.status("/v2/health/ready"), ctr.status("/v2/models/slow/ready"))
        seen.append(state)
        if state[1] == 200:
            break
        time.sleep(0.02)
    assert seen[-1][1] == 200, f"never ready:\n{ctr.logs()}"
    assert any(live == 200 and ready != 200 for live, ready, _ in seen), \
        f"live was never seen before ready: {seen[:5]} ... {seen[-5:]}"
    # Ready means every model has loaded: whenever the server said ready, 'slow' said ready too.
    assert all(s[2] == 200 for s in seen if s[1] == 200)
    assert ctr.status("/v2/models/fashion/ready") == 200


def test_podman_stop_lets_in_flight_requests_finish_and_exits_0(containers, tmp_path):
    repo = readable_repo(tmp_path / "repo")
    # One request at a time, ~0.1 s each: requests queue, and SIGTERM arrives with many in the server.
    repo.add_slow("slow", iterations=8000, config=slow_config("slow", max_batch_size=1, dynamic_batching=None))
    open_tree(repo.path)
    ctr = containers(repo.path)
    ctr.wait_ready()
    results: dict[int, object] = {}
    xs = np.arange(SLOW_WIDTH, dtype=np.float32).reshape(1, SLOW_WIDTH)

    def send(i: int) -> None:
        client = c.httpclient.InferenceServerClient(ctr.http_url, network_timeout=60, connection_timeout=60)
        try:
            result = client.infer("slow", [c.make_input("http", SLOW_INPUT, xs + i)],
                                  outputs=[c.make_output("http", SLOW_OUTPUT)])
            results[i] = result.as_numpy(SLOW_OUTPUT)
        except Exception as e:  # noqa: BLE001: recorded and asserted on below
            results[i] = e

    threads = [threading.Thread(target=send, args=(i,)) for i in range(12)]
    for t in threads:
        t.start()
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:  # wait until the server holds at least 6 of them
        _, body, _ = http_get(ctr.http_url, "/v2/models/slow/stats")
        stats = json.loads(body)["model_stats"][0]["inference_stats"]
        if 12 - int(stats["success"]["count"]) >= 6 or all(not t.is_alive() for t in threads):
            break
        time.sleep(0.01)
    stop = podman("stop", "-t", "60", ctr.name, timeout=90)
    for t in threads:
        t.join(timeout=60)
    assert stop.returncode == 0
    assert ctr.exit_code() == 0, ctr.logs()
    failures = {i: r for i, r in results.items() if isinstance(r, Exception)}
    assert not failures, f"requests lost in the drain: {failures}\n{ctr.logs()}"
    assert len(results) == 12
    for i, r in results.items():
        np.testing.assert_array_equal(r, xs + i)


def test_a_model_that_fails_to_load_is_a_clear_line_and_a_live_not_ready_server(containers, tmp_path):
    repo = readable_repo(tmp_path / "repo")
    repo.add_fashion("fashion")
    repo.add_broken("broken")
    open_tree(repo.path)
    ctr = containers(repo.path)
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline and "failed to load model 'broken'" not in ctr.logs():
        assert ctr.running(), f"the container exited:\n{ctr.logs()}"
        time.sleep(0.1)
    logs = ctr.logs()
    assert "failed to load model 'broken'" in logs and "not an ONNX model" in logs, logs
    time.sleep(2.0)  # still there a while later: no crash loop
    assert ctr.running(), ctr.logs()
    assert ctr.status("/v2/health/live") == 200
    assert ctr.status("/v2/health/ready") != 200
    assert ctr.status("/v2/models/fashion/ready") == 200


# --- tune -------------------------------------------------------------------------------------------------------

def test_tune_runs_in_the_image_on_a_mounted_model_writing_to_a_writable_mount(image, tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    shutil.copy(FASHION_DIR / "model.onnx", data / "model.onnx")
    shutil.copy(FASHION_DIR / "test.npz", data / "test.npz")
    out = tmp_path / "out"
    out.mkdir()
    readable_repo(data)
    open_tree(data)
    os.chown(out, 1000, 1000)
    r = podman("run", "--rm", *LIMITS, "--cap-drop=all", "-v", f"{data}:/data:ro", "-v", f"{out}:/out", image,
               "tune", "/data/model.onnx", "--data", "/data/test.npz", "--slo", "p99<=50ms@concurrency=2",
               "--budget", "40s", "-o", "/out/tune", check=False, timeout=300)
    assert r.returncode in (0, 1), f"hone tune in the image: exit {r.returncode}\n{r.stdout}{r.stderr}"
    report = json.loads((out / "tune" / "report.json").read_text())
    version = podman("image", "inspect", "--format", "{{index .Config.Labels \"org.opencontainers.image.version\"}}",
                     image).stdout.strip()
    assert json.dumps(report).count(f'"hone_version": "{version}"') >= 1
    assert (out / "tune" / "repository").is_dir() and any((out / "tune" / "repository").rglob("model.onnx"))
    assert (out / "tune" / "report.html").is_file()
