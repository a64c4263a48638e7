"""Replicas of hone serve behind a real load balancer (Debian's HAProxy), as a cluster runs them: the balancer
checks each replica's /v2/health/ready and sends each request to one that passed. For tests/python/test_balancer.py
and scripts/prove-cluster."""

from __future__ import annotations

import json
import pathlib
import shutil
import signal
import subprocess
import time

from hone_server import free_ports, http_get, port_open
from podman_cli import LIMITS, podman

CHECK_INTERVAL_MS = 200  # HAProxy's `inter`: how often it asks each replica /v2/health/ready


def haproxy_binary() -> str | None:
    return shutil.which("haproxy") or (shutil.which("haproxy", path="/usr/sbin:/sbin"))


class Replica:
    """One `hone serve` on fixed ports (the balancer's config names them), started and stopped as a rolling
    restart does: SIGTERM, wait for the exit, start again on the same ports."""

    def __init__(self, binary, repository, log_dir, name: str, extra_args=()):
        self.binary, self.repository, self.name = str(binary), str(repository), name
        self.http_port, self.grpc_port, self.metrics_port = free_ports(3)
        self.extra_args = [str(a) for a in extra_args]
        self.log_path = pathlib.Path(log_dir) / f"replica-{name}.log"
        self.proc: subprocess.Popen | None = None

    def start(self, timeout: float = 60) -> None:
        """Starts the replica and waits for /v2/health/ready. Its ports were free when chosen, not reserved: a first
        start that loses one to another process is tried again on new ports (the balancer's config is written when
        the balancer starts, after its replicas). A restart keeps its ports, as a rolling restart does."""
        first = self.proc is None
        for attempt in range(3):
            try:
                return self._start_once(timeout)
            except AssertionError as failed:
                if not (first and "address already in use" in str(failed) and attempt < 2):
                    raise
                self.http_port, self.grpc_port, self.metrics_port = free_ports(3)

    def _start_once(self, timeout: float) -> None:
        with open(self.log_path, "ab") as log:
            args = [self.binary, "serve", "--model-repository", self.repository, "--http-port", str(self.http_port),
                    "--grpc-port", str(self.grpc_port), "--metrics-port", str(self.metrics_port), *self.extra_args]
            log.write(f"$ {' '.join(args)}\n".encode())
            log.flush()
            self.proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=log, stderr=log)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise AssertionError(f"replica {self.name} exited with {self.proc.returncode}:\n{self.log()}")
            try:
                if http_get(f"127.0.0.1:{self.http_port}", "/v2/health/ready", timeout=2)[0] == 200:
                    return
            except OSError:
                pass
            time.sleep(0.05)
        raise AssertionError(f"replica {self.name} not ready after {timeout} s:\n{self.log()}")

    def stop(self, sig=signal.SIGTERM, timeout: float = 60) -> int:
        if self.proc is None or self.proc.poll() is not None:
            return 0 if self.proc is None else self.proc.returncode
        self.proc.send_signal(sig)
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise AssertionError(f"replica {self.name} still running {timeout} s after {sig!r}:\n{self.log()}")

    def log(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")[-6000:]
        except OSError:
            return ""


class ContainerReplica(Replica):
    """One replica as a pod runs it: the image under podman, hone serve its process 1, uid 1000, every capability
    dropped, a read-only root, the repository mounted read-only at /models and the image's ports 8000, 8001, 8002
    published on 127.0.0.1. A restart is a new container of the same name (as Kubernetes makes a new pod); SIGTERM
    and SIGKILL reach hone serve through `podman kill`."""

    def __init__(self, image, repository, log_dir, name: str, extra_args=()):
        # An absolute path: podman reads a relative one as the name of a volume of its own.
        super().__init__(image, pathlib.Path(repository).resolve(), log_dir, name, extra_args)
        self.image = str(image)
        self.container = f"hone-replica-{name}-{self.http_port}"
        self.running = False

    def start(self, timeout: float = 90) -> None:
        podman("rm", "-f", self.container, check=False)
        args = ["run", "-d", "--name", self.container, *LIMITS, "--cap-drop=all", "--security-opt",
                "no-new-privileges", "--read-only", "--tmpfs", "/tmp",
                "-p", f"127.0.0.1:{self.http_port}:8000", "-p", f"127.0.0.1:{self.grpc_port}:8001",
                "-p", f"127.0.0.1:{self.metrics_port}:8002", "-v", f"{self.repository}:/models:ro", self.image,
                "serve", "--model-repository", "/models", "--host", "0.0.0.0", *self.extra_args]
        with open(self.log_path, "a") as log:
            log.write(f"$ podman {' '.join(args)}\n")
        podman(*args)
        self.running = True
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                if http_get(f"127.0.0.1:{self.http_port}", "/v2/health/ready", timeout=2)[0] == 200:
                    return
            except OSError:
                pass
            state = podman("inspect", "--format", "{{.State.Status}}", self.container, check=False).stdout
            if state.strip() == "exited":
                self._keep_logs()
                raise AssertionError(f"replica {self.name} exited:\n{self.log()}")
            time.sleep(0.1)
        raise AssertionError(f"replica {self.name} not ready after {timeout} s:\n{self.log()}")

    def stop(self, sig=signal.SIGTERM, timeout: float = 60) -> int:
        """Sends sig to hone serve in the container and returns its exit code (137 after SIGKILL)."""
        if not self.running:
            return 0
        podman("kill", "--signal", signal.Signals(sig).name, self.container, check=False)
        try:
            code = int(podman("wait", self.container, timeout=timeout).stdout.strip().splitlines()[-1])
        except subprocess.TimeoutExpired:
            podman("kill", "--signal", "KILL", self.container, check=False)
            raise AssertionError(f"replica {self.name} still running {timeout} s after {sig!r}:\n{self.log()}")
        finally:
            self.running = False
            self._keep_logs()
        return code

    def _keep_logs(self) -> None:
        r = podman("logs", self.container, check=False)
        with open(self.log_path, "a") as log:
            log.write(r.stdout + r.stderr)
        podman("rm", "-f", self.container, check=False)


class Balancer:
    """HAProxy in HTTP mode in front of the replicas: one frontend for HTTP/1.1 (KServe v2 REST) and one for gRPC
    (HTTP/2 in clear text to the replicas' gRPC ports), each request balanced on its own (round robin). Every
    replica is checked with GET /v2/health/ready on its HTTP port every CHECK_INTERVAL_MS: two failures take it out,
    two passes put it back. A request whose connection to a replica fails is retried on another (`retries`,
    `option redispatch`), as a balancer in front of model servers is set up."""

    def __init__(self, replicas: list[Replica], work_dir):
        self.replicas = replicas
        self.http_port, self.grpc_port, self.stats_port = free_ports(3)
        self.work_dir = pathlib.Path(work_dir)
        self.config_path = self.work_dir / "haproxy.cfg"
        self.log_path = self.work_dir / "haproxy.log"
        self.proc: subprocess.Popen | None = None

    def config(self) -> str:
        check = f"check inter {CHECK_INTERVAL_MS} fall 2 rise 2"
        http_servers = "\n".join(f"    server {r.name} 127.0.0.1:{r.http_port} {check}" for r in self.replicas)
        grpc_servers = "\n".join(f"    server {r.name} 127.0.0.1:{r.grpc_port} proto h2 {check} port {r.http_port}"
                                 " check-proto h1" for r in self.replicas)
        return f"""\
global
    log stderr format short local0 info
    maxconn 4096

defaults
    mode http
    log global
    option httplog
    option dontlog-normal
    timeout connect 2s
    timeout client 60s
    timeout server 60s
    retries 3
    option redispatch
    option httpchk GET /v2/health/ready
    http-check expect status 200

frontend kserve_http
    bind 127.0.0.1:{self.http_port}
    default_backend replicas_http

frontend kserve_grpc
    bind 127.0.0.1:{self.grpc_port} proto h2
    default_backend replicas_grpc

backend replicas_http
    balance roundrobin
{http_servers}

backend replicas_grpc
    balance roundrobin
{grpc_servers}

frontend stats
    bind 127.0.0.1:{self.stats_port}
    stats enable
    stats uri /stats
"""

    def start(self, timeout: float = 20, attempts: int = 3) -> None:
        """Starts HAProxy and waits until it sees every replica up. Its ports were free when chosen, not reserved:
        another process (a replica's container, a parallel test) can take one before HAProxy binds it, so a start
        that fails on "Address already in use" is tried again on new ports, at most `attempts` times."""
        binary = haproxy_binary()
        if binary is None:
            raise AssertionError("haproxy is not installed: scripts/setup installs it (Debian's haproxy)")
        for attempt in range(attempts):
            self.config_path.write_text(self.config())
            subprocess.run([binary, "-c", "-f", str(self.config_path)], check=True, capture_output=True, text=True)
            log = open(self.log_path, "ab")
            self.proc = subprocess.Popen([binary, "-db", "-f", str(self.config_path)], stdin=subprocess.DEVNULL,
                                         stdout=log, stderr=log)
            log.close()
            deadline = time.monotonic() + timeout
            while time.monotonic() < deadline:
                if self.proc.poll() is not None:
                    if "Address already in use" in self.log() and attempt + 1 < attempts:
                        self.http_port, self.grpc_port, self.stats_port = free_ports(3)
                        break
                    raise AssertionError(f"haproxy exited with {self.proc.returncode}:\n{self.log()}")
                if port_open(self.http_port) and self.up_count() == len(self.replicas):
                    return
                time.sleep(0.05)
            else:
                raise AssertionError(f"haproxy did not see every replica up in {timeout} s:\n{self.log()}")

    def server_states(self) -> dict[tuple[str, str], str]:
        """(backend, server) -> HAProxy's status ("UP", "DOWN", "UP 1/2", ...) from its CSV statistics."""
        status, body, _ = http_get(f"127.0.0.1:{self.stats_port}", "/stats;csv", timeout=2)
        out = {}
        if status != 200:
            return out
        lines = body.decode().splitlines()
        header = lines[0].lstrip("# ").split(",")
        for line in lines[1:]:
            row = dict(zip(header, line.split(",")))
            if row.get("svname") not in ("FRONTEND", "BACKEND", None):
                out[(row["pxname"], row["svname"])] = row.get("status", "")
        return out

    def up_count(self, backend: str = "replicas_http") -> int:
        try:
            return sum(1 for (b, _), s in self.server_states().items() if b == backend and s == "UP")
        except OSError:
            return 0

    def wait_state(self, replica: Replica, up: bool, timeout: float = 20, backend: str = "replicas_http") -> float:
        """Seconds until HAProxy shows `replica` UP (or not UP) in `backend`."""
        start = time.monotonic()
        while time.monotonic() - start < timeout:
            state = self.server_states().get((backend, replica.name), "")
            if (state == "UP") == up:
                return time.monotonic() - start
            time.sleep(0.02)
        raise AssertionError(f"haproxy: {replica.name} not {'UP' if up else 'DOWN'} in {backend} after {timeout} s")

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def log(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")[-6000:]
        except OSError:
            return ""


def bench_outcome(json_path) -> dict:
    """What one `hone bench --json` run through the balancer came to, over every window it measured, reported or
    not: requests, failed requests, the first error and samples/s."""
    report = json.loads(pathlib.Path(json_path).read_text())
    points = report[report["report"]]["points"]
    out = {"requests": 0, "errors": 0, "first_error": None, "samples_per_s": 0.0}
    for p in points:
        windows = p.get("windows") or []
        out["requests"] += max(p.get("requests") or 0, sum(w.get("requests") or 0 for w in windows))
        out["errors"] += max(p.get("errors") or 0, sum(w.get("errors") or 0 for w in windows))
        out["first_error"] = out["first_error"] or p.get("first_error") or None
        out["samples_per_s"] += (p.get("throughput") or {}).get("samples_per_s") or 0
    return out
