"""NVIDIA's perf_analyzer (the binary from the tritonclient 2.41.0 wheel, installed by scripts/setup-python) runs a
short concurrency sweep against hone serve over HTTP and gRPC, exits 0 and reports throughput."""

from __future__ import annotations

import csv
import os
import pathlib
import re
import shutil
import subprocess
import sys

import pytest

from model_repo import fashion_config

pytestmark = pytest.mark.perf_analyzer


def perf_analyzer_path() -> pathlib.Path | None:
    """$PERF_ANALYZER, else perf_analyzer beside this interpreter (the venv's bin), else on PATH."""
    if os.environ.get("PERF_ANALYZER"):
        return pathlib.Path(os.environ["PERF_ANALYZER"])
    beside = pathlib.Path(sys.executable).parent / "perf_analyzer"
    if beside.exists():
        return beside
    found = shutil.which("perf_analyzer")
    return pathlib.Path(found) if found else None


@pytest.fixture(scope="module")
def perf_analyzer():
    path = perf_analyzer_path()
    if path is None:
        if os.uname().machine != "x86_64":
            pytest.skip("perf_analyzer is installed on x86_64 only")
        pytest.fail("perf_analyzer not found: run scripts/setup-python (or set PERF_ANALYZER)", pytrace=False)
    return path


SUMMARY = re.compile(r"^Concurrency: (\d+), throughput: ([0-9.]+) infer/sec, latency (\d+) usec$", re.M)


@pytest.mark.parametrize("protocol", ["http", "grpc"])
def test_perf_analyzer_concurrency_sweep(serve, repo, perf_analyzer, tmp_path, protocol):
    repo.add_fashion("fashion", config=fashion_config("fashion", max_batch_size=8))
    server = serve(repo.path)
    url = server.http_url if protocol == "http" else server.grpc_url
    csv_path = tmp_path / f"perf-{protocol}.csv"
    cmd = [str(perf_analyzer), "-m", "fashion", "-u", url, "-i", protocol, "--concurrency-range", "1:2",
           "--measurement-interval", "1000",
           # a loaded 2-core CI machine is noisy: accept windows within 50% of each other (default 10%)
           "--stability-percentage", "50", "--max-trials", "10", "-f", str(csv_path)]
    run = subprocess.run(cmd, capture_output=True, text=True, timeout=150)
    output = f"$ {' '.join(cmd)}\nexit {run.returncode}\n{run.stdout}\n{run.stderr}"
    assert run.returncode == 0, output
    points = {int(n): (float(tput), int(lat)) for n, tput, lat in SUMMARY.findall(run.stdout)}
    assert sorted(points) == [1, 2], output
    for n, (tput, lat) in points.items():
        assert tput > 0 and lat > 0, output
    # perf_analyzer read the server-side breakdown from the statistics endpoint.
    assert "Server:" in run.stdout and "Inference count:" in run.stdout, output
    rows = list(csv.DictReader(csv_path.open()))
    assert sorted(int(r["Concurrency"]) for r in rows) == [1, 2], rows  # rows come sorted by throughput
    assert all(float(r["Inferences/Second"]) > 0 for r in rows), rows
