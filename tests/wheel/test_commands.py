"""hone's commands and server from Python, in process (hone.bench, compare, quantize, evaluate, info, serve): typed
reports from the same C++ code as the command line, its messages and exit meanings, a server with real clients."""

from __future__ import annotations

import json
import os
import pathlib
import urllib.request

import numpy as np
import pytest

import hone

ROOT = pathlib.Path(os.environ.get("HONE_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2]))
MODEL = ROOT / "models" / "fashion_mnist" / "model.onnx"
DATA = ROOT / "models" / "fashion_mnist" / "test.npz"
QUICK = dict(window_ms=200, min_duration_s=0.2, min_requests=20, warmup_s=0.1, quiet=True)


def test_bench_returns_its_points():
    r = hone.bench(MODEL, concurrency=[1, 2], **QUICK)
    assert isinstance(r, hone.BenchReport) and r.kind == "bench"
    assert [p.concurrency for p in r.points] == [1, 2]
    assert all(p.p99_us >= p.p50_us > 0 and p.requests_per_s > 0 for p in r.points)
    assert r.system["onnxruntime_version"] == "1.30.0"
    assert "p99" in r.text, "the text report the command prints"


def test_usage_errors_raise_with_the_command_lines_message():
    with pytest.raises(hone.InvalidArgumentError) as e:
        hone.bench(MODEL, concurency=[1])
    assert "unknown flag '--concurency' (did you mean '--concurrency'?)" in str(e.value)
    assert e.value.exit_status == 2
    with pytest.raises(hone.InvalidArgumentError, match="no command 'benchmark'"):
        hone.run("benchmark", MODEL)
    assert hone.info(MODEL).body["parameter_count"] == 105868, "and the next command runs"


def test_compare_evaluate_and_a_variant(tmp_path):
    same = hone.compare(MODEL, MODEL, data=DATA)
    assert isinstance(same, hone.CompareReport) and same.passed
    ev = hone.evaluate(MODEL, data=DATA)
    assert ev.metrics["accuracy"]["value"] == pytest.approx(0.9025), "PyTorch's accuracy on these 2,000 (models/fashion_mnist)"
    variant = hone.convert(MODEL, tmp_path / "fp16.onnx", to="fp16", data=DATA, allow_slower=True)
    assert variant.verdict in ("passed", "failed") and (tmp_path / "fp16.onnx").exists()
    assert variant.body["verification"], "verified against its source"
    kept = tmp_path / "report.json"
    hone.info(MODEL, json=kept)
    assert json.loads(kept.read_text())["report"] == "info"


def test_serve_answers_a_kserve_client_and_stops():
    images = np.load(DATA)["image"][:2]
    with hone.serve(ROOT / "examples" / "image-classification") as server:
        with urllib.request.urlopen(f"{server.http_url}/v2/health/ready") as r:
            assert r.status == 200
        body = json.dumps({"inputs": [{"name": "image", "datatype": "FP32", "shape": list(images.shape),
                                       "data": images.ravel().tolist()}]}).encode()
        request = urllib.request.Request(f"{server.http_url}/v2/models/fashion_model/infer", data=body,
                                         headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request) as r:
            reply = json.loads(r.read())
        logits = np.array(reply["outputs"][0]["data"], np.float32).reshape(2, 10)
        np.testing.assert_allclose(logits, hone.Session(MODEL).run({"image": images})["logits"], rtol=1e-5, atol=1e-5)
        port = server.http_port
    with pytest.raises(OSError):
        urllib.request.urlopen(f"http://127.0.0.1:{port}/v2/health/live", timeout=2)
    with pytest.raises(hone.NotFoundError, match="no such directory"):
        hone.serve("/nonexistent/repository")
    with pytest.raises(hone.InvalidArgumentError, match=r"http_port must be in \[0, 65535\]"):
        hone.serve(ROOT / "examples" / "image-classification", http_port=70000)
    with pytest.raises(hone.InvalidArgumentError, match="use hone.serve"):
        hone.run("serve", model_repository=ROOT / "examples" / "image-classification")


def test_progress_and_log_lines_go_where_the_user_says(caplog):
    import logging
    lines = []
    hone.set_progress(lines.append)
    try:
        hone.bench(MODEL, concurrency=[1, 2], window_ms=200, min_duration_s=0.2, min_requests=20, warmup_s=0.1)
    finally:
        hone.set_progress(None)
    assert any(l.startswith("point 2 of 2: concurrency 2") for l in lines), lines
    logger = logging.getLogger("hone.test")
    hone.set_log(logger)
    try:
        with caplog.at_level(logging.INFO, logger="hone.test"):
            with hone.serve(ROOT / "examples" / "image-classification"):
                pass
    finally:
        hone.set_log(None)
    assert any("fashion_model" in r.getMessage() and r.levelno == logging.INFO for r in caplog.records), \
        [r.getMessage() for r in caplog.records]


def test_ctrl_c_stops_the_command_and_raises_with_what_finished(tmp_path):
    import signal
    import subprocess
    import sys
    import time
    script = tmp_path / "interrupt.py"
    script.write_text(
        "import hone, sys\n"
        "try:\n"
        f"    hone.bench({str(MODEL)!r}, concurrency=[1, 2, 4, 8, 16, 32], quiet=True)\n"
        "except hone.Interrupted as e:\n"
        "    print('interrupted', e.report.exit_status, e.report.body['interrupted'], isinstance(e, KeyboardInterrupt))\n")
    p = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True)
    time.sleep(3)
    p.send_signal(signal.SIGINT)
    out, _ = p.communicate(timeout=60)
    assert out.strip() == "interrupted 130 True True", out
