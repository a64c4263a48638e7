"""Fixtures of the real-client tests: each test (or module) builds its own model repository in a temporary
directory and starts its own `hone serve` on free ports; servers are always stopped at the end, and the stderr
of every server a failed test used is attached to its report.

The binary: $HONE_BINARY, default <repo root>/build/hone. It must have the `serve` subcommand; set
HONE_ALLOW_MISSING_SERVE=1 to skip (instead of fail) when it does not.
"""

from __future__ import annotations

import os
import subprocess

import pytest

from hone_server import HoneServer, hone_binary
from model_repo import ModelRepo

_current_test: list[str] = [""]


@pytest.fixture(scope="session")
def hone_bin():
    binary = hone_binary()
    problem = None
    if not binary.exists():
        problem = f"{binary} does not exist (build it: scripts/build, or set HONE_BINARY)"
    else:
        r = subprocess.run([str(binary), "serve", "--help"], capture_output=True, text=True, timeout=30)
        if r.returncode != 0 or "--model-repository" not in r.stdout + r.stderr:
            problem = f"{binary} has no working `serve` subcommand: {r.stdout}{r.stderr}"
    if problem:
        if os.environ.get("HONE_ALLOW_MISSING_SERVE") == "1":
            pytest.skip(problem)
        pytest.fail(problem, pytrace=False)
    return binary


class ServerFactory:
    """start(repo, *args, wait="ready") -> a running HoneServer; every server it started is stopped at teardown."""

    def __init__(self, binary, log_dir):
        self.binary = binary
        self.log_dir = log_dir
        self.servers: list[HoneServer] = []

    def __call__(self, repo, *args, wait: str | None = "ready", timeout: float | None = None) -> HoneServer:
        server = HoneServer(self.binary, repo, self.log_dir, extra_args=args)
        server.started_in = _current_test[0]
        self.servers.append(server)
        if timeout is None:
            return server.start(wait=wait)
        return server.start(wait=wait, timeout=timeout)

    def close(self) -> list[str]:
        """Stops every server; returns the problems to report (a server that died by itself)."""
        problems = []
        for s in self.servers:
            if s.crashed() and not s.crash_reported:
                problems.append(f"hone serve died during the test (exit code {s.proc.returncode}):\n{s.log(200)}")
            try:
                s.stop(timeout=20)
            except AssertionError as e:  # did not stop on SIGTERM: killed
                problems.append(str(e)[:4000])
            finally:
                s.kill()
            # Built with AddressSanitizer (scripts/test), a server reports its leaks as it exits: they are this test's.
            if "ERROR: LeakSanitizer" in s.log():
                problems.append(f"hone serve leaked memory:\n{s.log(200)}")
        return problems


@pytest.fixture
def serve(hone_bin, tmp_path):
    """A factory of servers for one test."""
    factory = ServerFactory(hone_bin, tmp_path)
    yield factory
    problems = factory.close()
    if problems:
        pytest.fail("\n\n".join(problems), pytrace=False)


@pytest.fixture(scope="module")
def module_serve(hone_bin, tmp_path_factory):
    """A factory of servers shared by a module's tests (for tests that only read)."""
    factory = ServerFactory(hone_bin, tmp_path_factory.mktemp("servers"))
    yield factory
    problems = factory.close()
    if problems:
        pytest.fail("\n\n".join(problems), pytrace=False)


@pytest.fixture
def repo(tmp_path):
    return ModelRepo(tmp_path / "repo")


def pytest_runtest_setup(item):
    _current_test[0] = item.nodeid


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if not report.failed:
        return
    for s in HoneServer.registry:
        newly_crashed = s.crashed() and not s.crash_shown
        if s.running() or s.started_in == item.nodeid or newly_crashed:
            if newly_crashed:
                s.crash_shown = True
            report.sections.append((f"hone serve stderr ({s.log_path.name}, last 150 lines)", s.log(150)))
