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


def test_perf_analyzer_json_tensors_with_its_random_data(serve, repo, perf_analyzer):
    """perf_analyzer's default data is random bits: in FP32 about one element in 256 is NaN (or an infinity), which
    it writes as Triton does, `NaN` / `Infinity` / `-Infinity`. hone serve must take them as Triton does, or every
    request with JSON tensors fails ("malformed JSON"), as it did before."""
    repo.add_fashion("fashion", config=fashion_config("fashion", max_batch_size=8))
    server = serve(repo.path)
    cmd = [str(perf_analyzer), "-m", "fashion", "-u", server.http_url, "-i", "http",
           "--input-tensor-format", "json", "--output-tensor-format", "json", "--concurrency-range", "1",
           "--measurement-interval", "500", "--stability-percentage", "50", "--max-trials", "10"]
    run = subprocess.run(cmd, capture_output=True, text=True, timeout=150)
    output = f"$ {' '.join(cmd)}\nexit {run.returncode}\n{run.stdout}\n{run.stderr}"
    assert run.returncode == 0, output
    points = SUMMARY.findall(run.stdout)
    assert len(points) == 1 and float(points[0][1]) > 0, output


# perf_analyzer's CSV header (2.41, `-f FILE --verbose-csv`) after its load column. hone's `bench --url --csv`
# writes exactly these first, so tools that read perf_analyzer's CSV (Model Analyzer, scripts) read hone's.
PERF_ANALYZER_COLUMNS = [
    "Inferences/Second", "Client Send", "Network+Server Send/Recv", "Server Queue", "Server Compute Input",
    "Server Compute Infer", "Server Compute Output", "Client Recv", "p50 latency", "p90 latency", "p95 latency",
    "p99 latency", "Avg latency", "request/response", "response wait",
]


def csv_header(path: pathlib.Path) -> list[str]:
    with path.open(newline="") as f:
        return next(csv.reader(f))


def test_hone_bench_csv_starts_with_perf_analyzers_header(serve, repo, perf_analyzer, hone_bin, tmp_path):
    repo.add_fashion("fashion", config=fashion_config("fashion", max_batch_size=8))
    server = serve(repo.path)
    pa_csv = tmp_path / "perf_analyzer.csv"
    cmd = [str(perf_analyzer), "-m", "fashion", "-u", server.http_url, "-i", "http", "--concurrency-range", "1",
           "--measurement-interval", "300", "--stability-percentage", "100", "--max-trials", "5", "--verbose-csv",
           "-f", str(pa_csv)]
    run = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, f"$ {' '.join(cmd)}\n{run.stdout}\n{run.stderr}"
    pa_header = csv_header(pa_csv)
    assert pa_header == ["Concurrency"] + PERF_ANALYZER_COLUMNS, pa_header

    hone_csv = tmp_path / "hone.csv"
    cmd = [str(hone_bin), "bench", "fashion", "--url", server.http_url, "--concurrency", "1", "--warmup-s", "0.1",
           "--window-ms", "200", "--min-duration-s", "0.2", "--min-requests", "10", "--stability-percent", "100",
           "--quiet", "--csv", str(hone_csv)]
    run = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert run.returncode in (0, 1), f"$ {' '.join(cmd)}\n{run.stdout}\n{run.stderr}"  # 1: unstable on a busy CI
    hone_header = csv_header(hone_csv)
    assert hone_header[:len(pa_header)] == pa_header, hone_header
    assert len(hone_header) > len(pa_header)  # hone's own columns follow perf_analyzer's

    # The row reads as perf_analyzer's does: what hone measures is filled in, in microseconds.
    with hone_csv.open(newline="") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 1, rows
    row = rows[0]
    assert row["Concurrency"] == "1"
    assert float(row["Inferences/Second"]) > 0
    for column in ["Server Queue", "Server Compute Infer", "Network+Server Send/Recv", "p50 latency", "p99 latency",
                   "Avg latency", "response wait"]:
        assert row[column] != "" and float(row[column]) >= 0, (column, row)
    assert int(row["p50 latency"]) <= int(row["p99 latency"]), row
