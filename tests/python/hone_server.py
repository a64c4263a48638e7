"""Starts and stops a real `hone serve` process for a test.

    server = HoneServer(binary, repo_path, log_dir, extra_args=["--model-control-mode", "explicit"])
    server.start()                  # waits for /v2/health/ready (or wait="live", or wait=None)
    server.http_url, server.grpc_url, server.metrics_url   # "127.0.0.1:PORT"
    server.stop()                   # SIGTERM, returns the exit code (SIGKILL after a timeout)

The server's stderr goes to a file in log_dir; server.log() returns it, and conftest attaches it to the report of a
failed test. Ports are picked free on 127.0.0.1 just before the start; a start that loses a port race is retried.
"""

from __future__ import annotations

import http.client
import os
import pathlib
import signal
import socket
import subprocess
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]
START_TIMEOUT_S = float(os.environ.get("HONE_TEST_START_TIMEOUT", "60"))


def hone_binary() -> pathlib.Path:
    return pathlib.Path(os.environ.get("HONE_BINARY", ROOT / "build" / "hone"))


_handed_out: set[int] = set()


def free_ports(count: int) -> list[int]:
    """`count` distinct ports that were free on 127.0.0.1 a moment ago and that no earlier call in this process
    returned. The kernel hands a port it gave to bind(0) and saw closed out again, so two callers picking ports
    before either starts (two replicas and their balancer) could otherwise be given the same one."""
    socks, ports = [], []
    try:
        while len(ports) < count:
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.bind(("127.0.0.1", 0))
            socks.append(s)  # held until the end, so the kernel gives this call a new port each time
            port = s.getsockname()[1]
            if port not in _handed_out:
                ports.append(port)
            if len(socks) > 1000:
                raise OSError(f"no {count} ports on 127.0.0.1 that this process has not handed out already")
        _handed_out.update(ports)
        return ports
    finally:
        for s in socks:
            s.close()


def http_get(host_port: str, path: str, timeout: float = 5.0, method: str = "GET", body: bytes | None = None,
             headers: dict | None = None) -> tuple[int, bytes, dict]:
    """One plain HTTP request; (status, body, headers). Raises OSError when nothing answers."""
    host, port = host_port.rsplit(":", 1)
    conn = http.client.HTTPConnection(host, int(port), timeout=timeout)
    try:
        conn.request(method, path, body=body, headers=headers or {})
        resp = conn.getresponse()
        return resp.status, resp.read(), {k.lower(): v for k, v in resp.getheaders()}
    finally:
        conn.close()


def port_open(port: int, host: str = "127.0.0.1") -> bool:
    try:
        socket.create_connection((host, port), timeout=2.0).close()
        return True
    except OSError:
        return False


class ServerFailed(AssertionError):
    pass


class HoneServer:
    registry: list["HoneServer"] = []  # every server started in this pytest session (conftest reads it)
    _count = 0

    def __init__(self, binary, repository, log_dir, extra_args=(), host: str = "127.0.0.1"):
        HoneServer._count += 1
        self.binary = pathlib.Path(binary)
        self.repository = pathlib.Path(repository)
        self.extra_args = [str(a) for a in extra_args]
        self.host = host
        self.log_path = pathlib.Path(log_dir) / f"hone-serve-{HoneServer._count}.log"
        self.proc: subprocess.Popen | None = None
        self.stopped_by_test = False
        self.started_ok = False  # start() returned: the server was up as asked
        self.crash_reported = False  # a test already failed for its crash (SharedServer)
        self.crash_shown = False  # its log is already in a failed test's report (conftest)
        self.http_port = self.grpc_port = self.metrics_port = 0
        self.started_in: str | None = None  # node id of the test that started it (conftest sets it)

    # --- addresses ---
    @property
    def http_url(self) -> str:
        return f"127.0.0.1:{self.http_port}"

    @property
    def grpc_url(self) -> str:
        return f"127.0.0.1:{self.grpc_port}"

    @property
    def metrics_url(self) -> str:
        return f"127.0.0.1:{self.metrics_port}"

    @property
    def args(self) -> list[str]:
        # SIGTERM keeps serving until no request has come for --drain-quiet-ms (1 s by default): the tests stop
        # hundreds of idle servers, so theirs is 100 ms unless a test sets the drain itself (test_drain.py does).
        drain = [] if any(a.startswith("--drain-") for a in self.extra_args) else ["--drain-quiet-ms", "100"]
        return [str(self.binary), "serve", "--model-repository", str(self.repository),
                "--http-port", str(self.http_port), "--grpc-port", str(self.grpc_port),
                "--metrics-port", str(self.metrics_port), *drain, *self.extra_args]

    # --- life cycle ---
    def start(self, wait: str | None = "ready", timeout: float = START_TIMEOUT_S) -> "HoneServer":
        """Starts the process; wait "ready": until /v2/health/ready is 200; "live": until /v2/health/live is 200;
        None: returns at once. Raises ServerFailed (with the log) when the server exits or the wait times out."""
        for attempt in range(3):
            self.http_port, self.grpc_port, self.metrics_port = free_ports(3)
            self.log_path.parent.mkdir(parents=True, exist_ok=True)
            log = open(self.log_path, "ab")
            log.write(f"$ {' '.join(self.args)}\n".encode())
            log.flush()
            self.proc = subprocess.Popen(self.args, stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                                         cwd=self.log_path.parent)
            log.close()
            HoneServer.registry.append(self)
            if wait is None:
                self.started_ok = True
                return self
            try:
                self.wait_for(wait, timeout)
                self.started_ok = True
                return self
            except ServerFailed:
                if self.proc.poll() is not None and "in use" in self.log() and attempt < 2:
                    continue  # lost a port race: try other ports
                raise
        raise AssertionError("unreachable")

    def wait_for(self, what: str = "ready", timeout: float = START_TIMEOUT_S) -> None:
        deadline = time.monotonic() + timeout
        path = f"/v2/health/{what}"
        while True:
            code = self.proc.poll()
            if code is not None:
                raise ServerFailed(f"hone serve exited with {code} before it was {what}:\n{self.log()}")
            try:
                status, _, _ = http_get(self.http_url, path, timeout=2.0)
                # And the gRPC and metrics ports accept connections (they may start after HTTP answers).
                if status == 200 and all(port_open(p) for p in (self.grpc_port, self.metrics_port)):
                    return
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise ServerFailed(f"hone serve not {what} after {timeout:.0f} s:\n{self.log()}")
            time.sleep(0.05)

    def wait_for_log(self, text: str, timeout: float = START_TIMEOUT_S) -> None:
        """Until `text` is in the server's log (the ports listen before the models load, so "live" comes before
        the start-up loads are done; "server live, not ready" is logged once they are)."""
        deadline = time.monotonic() + timeout
        while text not in self.log():
            if self.proc.poll() is not None:
                raise ServerFailed(f"hone serve exited with {self.proc.returncode} before logging {text!r}:\n{self.log()}")
            if time.monotonic() > deadline:
                raise ServerFailed(f"hone serve did not log {text!r} in {timeout:.0f} s:\n{self.log()}")
            time.sleep(0.05)

    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def signal(self, sig: int = signal.SIGTERM) -> None:
        self.stopped_by_test = True
        self.proc.send_signal(sig)

    def wait_exit(self, timeout: float = 30.0) -> int:
        """The exit code, after waiting up to `timeout` seconds; kills the process (and fails) past that."""
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise ServerFailed(f"hone serve still running {timeout:.0f} s after the signal:\n{self.log()}")

    def stop(self, timeout: float = 30.0) -> int:
        """SIGTERM, then the exit code (SIGKILL and ServerFailed after `timeout`)."""
        if self.proc is None:
            return 0
        if self.proc.poll() is None:
            self.signal(signal.SIGTERM)
        return self.wait_exit(timeout)

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.stopped_by_test = True
            self.proc.kill()
            self.proc.wait()

    def crashed(self) -> bool:
        """The process ended, after it had started, without the test asking it to."""
        return self.started_ok and self.proc is not None and self.proc.poll() is not None and not self.stopped_by_test

    def log(self, tail_lines: int | None = None) -> str:
        try:
            text = self.log_path.read_text(errors="replace")
        except OSError:
            return ""
        if tail_lines is not None:
            text = "\n".join(text.splitlines()[-tail_lines:])
        return text


class SharedServer:
    """A server shared by a module's tests that comes back if a test crashed it: the test during which it died gets
    an error at teardown (with the server's stderr), and the next test gets a new server on the same repository.

        @pytest.fixture(scope="module")
        def shared(module_serve, tmp_path_factory):
            repo = ModelRepo(tmp_path_factory.mktemp("repo")); repo.add_fashion("fashion")
            return SharedServer(module_serve, repo.path)

        @pytest.fixture
        def server(shared):
            yield from shared.for_test()
    """

    def __init__(self, factory, repository, *args):
        self.factory, self.repository, self.args = factory, repository, args
        self.server: HoneServer | None = None

    def for_test(self):
        if self.server is None or not self.server.running():
            self.server = self.factory(self.repository, *self.args)
        server = self.server
        yield server
        if server.crashed():
            import pytest

            server.crash_reported = True
            pytest.fail(f"hone serve died during this test (exit code {server.proc.returncode}):\n"
                        f"{server.log(200)}", pytrace=False)
