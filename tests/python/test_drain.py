"""hone serve where a cluster runs it: SIGTERM while traffic still arrives (a balancer or Kubernetes keeps sending
until its check or endpoint update catches up), KServe's Triton command line as it is written, and a read-only
repository reached through symlinks, as KServe's storage initializer and oci:// models leave it."""

from __future__ import annotations

import http.client
import os
import pathlib
import signal
import subprocess
import threading
import time

import pytest

from hone_server import HoneServer, http_get
from http_raw import json_infer_body
from model_repo import fashion_data

INFER_PATH = "/v2/models/fashion/infer"


class Sender(threading.Thread):
    """Sends one-image inference requests back to back over a keep-alive connection, opening a new one whenever the
    server says `Connection: close`; records (time, status, Connection header or the error) for each."""

    def __init__(self, server):
        super().__init__(daemon=True)
        self.host, self.port = server.http_url.rsplit(":", 1)
        self.body = json_infer_body(fashion_data()[0][:1])
        self.results: list[tuple[float, int | None, str]] = []
        self.halt = threading.Event()

    def run(self):
        conn = None
        while not self.halt.is_set():
            if conn is None:
                conn = http.client.HTTPConnection(self.host, int(self.port), timeout=10)
            try:
                conn.request("POST", INFER_PATH, body=self.body, headers={"Content-Type": "application/json"})
                resp = conn.getresponse()
                resp.read()
                self.results.append((time.monotonic(), resp.status, resp.getheader("Connection") or ""))
                if resp.will_close:
                    conn.close()
                    conn = None
            except OSError as e:
                self.results.append((time.monotonic(), None, f"{type(e).__name__}: {e}"))
                conn.close()
                conn = None
                time.sleep(0.01)
        if conn is not None:
            conn.close()


def test_sigterm_fails_readiness_at_once_and_serves_what_still_arrives(serve, repo):
    repo.add_fashion("fashion")
    server = serve(repo.path, "--drain-grace-secs", "20", "--drain-quiet-ms", "1000")
    sender = Sender(server)
    sender.start()
    time.sleep(0.3)
    signalled = time.monotonic()
    server.signal(signal.SIGTERM)

    # Readiness fails at once, with 503 (a balancer reads 400 as a broken check); liveness holds.
    statuses = []
    while time.monotonic() - signalled < 2.0:
        status, _, _ = http_get(server.http_url, "/v2/health/ready")
        statuses.append(status)
        if status != 200:
            break
        time.sleep(0.02)
    assert statuses[-1] == 503, f"ready answered {statuses} in the 2 s after SIGTERM"
    assert http_get(server.http_url, "/v2/health/live")[0] == 200

    # Requests keep coming for 1.5 s after the signal, longer than the quiet period: the server is still serving.
    time.sleep(1.5 - (time.monotonic() - signalled))
    assert server.running(), f"hone serve exited while requests were still arriving:\n{server.log(40)}"
    stopped_sending = time.monotonic()
    sender.halt.set()
    sender.join(10)
    code = server.wait_exit(timeout=15)
    exited = time.monotonic()

    failed = [r for r in sender.results if r[1] != 200]
    assert not failed, f"{len(failed)} of {len(sender.results)} requests failed, the first: {failed[:3]}"
    after = [r for r in sender.results if r[0] > signalled + 0.05]
    assert len(after) >= 20, f"only {len(after)} requests after the signal: the test did not load the drain"
    assert all(r[2].lower() == "close" for r in after), \
        f"replies after SIGTERM without 'Connection: close': {[r for r in after if r[2].lower() != 'close'][:3]}"
    assert code == 0, server.log(40)
    assert exited - stopped_sending >= 0.9, "the drain ended before a quiet second"
    log = server.log()
    assert "no request for the quiet period" in log and "request(s) arrived and were served" in log, log[-2000:]


def test_sigterm_without_grace_stops_at_once(serve, repo):
    repo.add_fashion("fashion")
    server = serve(repo.path, "--drain-grace-secs", "0")
    started = time.monotonic()
    assert server.stop(timeout=15) == 0
    assert time.monotonic() - started < 5
    assert "drained" not in server.log()


class TritonCommandLine(HoneServer):
    """hone serve started with the exact arguments of KServe's kserve-tritonserver runtime, plus what an
    InferenceService appends."""

    def __init__(self, binary, repository, log_dir, appended):
        super().__init__(binary, repository, log_dir)
        self.appended = appended

    @property
    def args(self) -> list[str]:
        return [str(self.binary), "serve", f"--model-store={self.repository}", f"--grpc-port={self.grpc_port}",
                f"--http-port={self.http_port}", "--allow-grpc=true", "--allow-http=true",
                f"--metrics-port={self.metrics_port}", "--drain-quiet-ms=100",
                "--drain-grace-secs=10",  # as deploy/kserve/cluster-serving-runtime.yaml gives it
                *self.appended]


def test_kserve_tritonserver_command_line_runs_unchanged(hone_bin, repo, tmp_path):
    repo.add_fashion("fashion")
    appended = ["--backend-config=onnxruntime,enable-global-threadpool=0", "--allow-gpu-metrics=false",
                "--allow-sagemaker=false", "--strict-readiness=true", "--log-verbose=0",
                # A flag the runtime already gave (below): the last one wins, as in Triton (KServe appends after it).
                "--drain-grace-secs=3"]
    server = TritonCommandLine(hone_bin, repo.path, tmp_path, appended)
    try:
        server.start()
        status, body, _ = http_get(server.http_url, INFER_PATH, method="POST",
                                   body=json_infer_body(fashion_data()[0][:2]),
                                   headers={"Content-Type": "application/json"})
        assert status == 200, body
        log = server.log()
        assert "Triton's flags accepted without effect: --backend-config=onnxruntime,enable-global-threadpool=0" in log
        assert "--allow-gpu-metrics=false" in log
        assert "--allow-sagemaker" not in log.split("accepted without effect", 1)[1].split("\n", 1)[0]
    finally:
        assert server.stop(timeout=20) == 0, server.log()
    assert "serving the requests that still arrive for up to 3 s" in server.log(), server.log()


@pytest.mark.parametrize("flag, why", [
    ("--grpc-use-ssl=true", "Triton's TLS is not available in hone serve"),
    ("--allow-vertex-ai=true", "hone serves no Vertex AI endpoints"),
    ("--log-file=/tmp/triton.log", "hone logs to standard error"),
])
def test_triton_flags_hone_cannot_honour_are_refused_by_name(hone_bin, repo, flag, why):
    repo.add_fashion("fashion")
    done = subprocess.run([str(hone_bin), "serve", f"--model-store={repo.path}", "--http-port=0", "--grpc-port=0",
                           "--metrics-port=0", flag], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2, done.stderr
    assert flag in done.stderr and why in done.stderr, done.stderr


def snapshot(root: pathlib.Path) -> dict[str, tuple[int, int]]:
    """Every path under root (symlinks followed) with its size and modification time."""
    out = {}
    for dirpath, dirnames, filenames in os.walk(root, followlinks=True):
        for name in dirnames + filenames:
            p = pathlib.Path(dirpath) / name
            st = p.stat()
            out[str(p.relative_to(root))] = (st.st_size, st.st_mtime_ns)
    return out


def test_a_read_only_repository_behind_symlinks_loads_and_stays_untouched(serve, repo, tmp_path):
    # KServe mounts the model read-only at /mnt/models; with oci:// models that is a symlink into a sidecar, and
    # Kubernetes' volumes hold their files behind a '..data' symlink to a timestamped folder.
    repo.add_fashion("fashion")
    real = tmp_path / "volume"
    (real / "..2026_12_06").mkdir(parents=True)
    os.rename(repo.path / "fashion", real / "..2026_12_06" / "fashion")
    (real / "..data").symlink_to("..2026_12_06")
    (real / "fashion").symlink_to("..data/fashion")
    mnt = tmp_path / "mnt-models"
    mnt.symlink_to(real)
    for dirpath, dirnames, filenames in os.walk(real / "..2026_12_06"):
        for name in filenames:
            os.chmod(pathlib.Path(dirpath) / name, 0o444)
        os.chmod(dirpath, 0o555)
    before = snapshot(mnt)
    try:
        server = serve(mnt)
        status, body, _ = http_get(server.http_url, INFER_PATH, method="POST",
                                   body=json_infer_body(fashion_data()[0][:1]),
                                   headers={"Content-Type": "application/json"})
        assert status == 200, body
        assert server.stop(timeout=20) == 0
        assert snapshot(mnt) == before, "hone serve wrote into the repository"
    finally:
        for dirpath, dirnames, filenames in os.walk(real / "..2026_12_06"):
            os.chmod(dirpath, 0o755)
