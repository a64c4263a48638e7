"""Ctrl-C in the middle of a `hone bench` sweep: the points that finished are still reported (JSON and CSV written),
the run says it was interrupted, and it exits 130 as a shell expects of a program stopped by SIGINT."""

from __future__ import annotations

import csv
import json
import signal
import subprocess

from model_repo import FASHION_DIR


def find_points(report):
    """The report's list of points, wherever the report's envelope puts its body."""
    if isinstance(report, dict):
        if isinstance(report.get("points"), list):
            return report["points"]
        for value in report.values():
            found = find_points(value)
            if found is not None:
                return found
    return None


def test_sigint_mid_sweep_writes_the_finished_points(hone_bin, tmp_path):
    report, table = tmp_path / "r.json", tmp_path / "r.csv"
    # Four points of about half a second each; piped, progress writes one line per finished point.
    cmd = [str(hone_bin), "bench", str(FASHION_DIR / "model.onnx"), "--concurrency", "1,2,3,4", "--warmup-s", "0.1",
           "--warmup-requests", "5", "--window-ms", "200", "--stability-windows", "2", "--max-windows", "2",
           "--min-duration-s", "0.4", "--min-requests", "1", "--stability-percent", "100", "--json", str(report),
           "--csv", str(table)]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        first = proc.stderr.readline()
        assert first.startswith("point 1 of 4: concurrency 1, batch 1"), first
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    err = first + err
    assert proc.returncode == 130, f"exit {proc.returncode}\n{out}\n{err}"
    assert "hone bench: interrupted:" in err, err
    assert "INTERRUPTED (Ctrl-C)" in out, out
    points = find_points(json.loads(report.read_text()))
    assert 1 <= len(points) < 4, points
    with table.open(newline="") as f:
        assert len(list(csv.DictReader(f))) == len(points)
