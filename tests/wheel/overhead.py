"""hone.Session.run beside onnxruntime.InferenceSession.run in one process, on the bundled Fashion-MNIST CNN, and
the import time of hone. Run by `scripts/build-wheel --bench` in the wheel's venv (not by the tests: a timing,
printed, never asserted).

Both sessions load the same file with the same threads (2) and graph optimization (all); ROUNDS rounds alternate
A and B, each timing CALLS calls of one batch; per-call medians per round, then the median and range over rounds,
and the ratio per round (hone / onnxruntime: below 1.0 is less time per call).
"""

from __future__ import annotations

import os
import pathlib
import platform
import statistics
import subprocess
import sys
import time

import numpy as np
import onnxruntime

import hone

ROOT = pathlib.Path(os.environ.get("HONE_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2]))
MODEL = ROOT / "models" / "fashion_mnist" / "model.onnx"
ROUNDS = int(os.environ.get("ROUNDS", "7"))
CALLS = int(os.environ.get("CALLS", "2000"))


def cpu() -> str:
    model = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
    flags = next((l.split(":", 1)[1].split() for l in open("/proc/cpuinfo") if l.startswith("flags")), [])
    isa = [f for f in ("avx2", "avx512f", "avx512_vnni", "avx512_bf16", "amx_tile") if f in flags]
    return f"{model}, {os.cpu_count()} cores, {' '.join(isa)}"


def import_ms() -> float:
    """Median over 7 fresh interpreters of (python -c 'import hone') minus (python -c 'pass')."""
    def run(code):
        t = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], check=True)
        return time.perf_counter() - t
    rounds = [(run("import hone") - run("pass")) * 1000 for _ in range(7)]
    return statistics.median(rounds)


def per_call_us(fn, calls):
    times = []
    for _ in range(calls):
        t = time.perf_counter_ns()
        fn()
        times.append(time.perf_counter_ns() - t)
    return statistics.median(times) / 1000


def main():
    print(f"machine: {cpu()}; Python {platform.python_version()}; hone {hone.__version__} "
          f"(ONNX Runtime {hone.onnxruntime_version()} bundled); onnxruntime {onnxruntime.__version__} from PyPI")
    print(f"import hone: {import_ms():.1f} ms (median of 7 fresh interpreters, minus an empty one)")
    opts = onnxruntime.SessionOptions()
    opts.intra_op_num_threads = 2
    opts.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_ALL
    ort = onnxruntime.InferenceSession(str(MODEL), opts, providers=["CPUExecutionProvider"])
    ours = hone.Session(MODEL, threads=2, optimization="all")
    for batch in (1, 32):
        x = np.random.default_rng(0).standard_normal((batch, 1, 28, 28), dtype=np.float32)
        feeds = {"image": x}
        run_hone = lambda: ours.run(feeds)  # noqa: E731
        run_ort = lambda: ort.run(None, feeds)  # noqa: E731
        for fn in (run_hone, run_ort):
            per_call_us(fn, 200)  # warm-up
        a, b, ratio = [], [], []
        for _ in range(ROUNDS):
            ta = per_call_us(run_hone, CALLS)
            tb = per_call_us(run_ort, CALLS)
            a.append(ta), b.append(tb), ratio.append(ta / tb)
        print(f"batch {batch:>2}: hone.Session.run {statistics.median(a):.1f} us ({min(a):.1f}-{max(a):.1f}), "
              f"onnxruntime.InferenceSession.run {statistics.median(b):.1f} us ({min(b):.1f}-{max(b):.1f}); "
              f"hone / onnxruntime {statistics.median(ratio):.3f}x ({min(ratio):.3f}-{max(ratio):.3f}), "
              f"{ROUNDS} rounds of {CALLS} calls, alternating")


if __name__ == "__main__":
    main()
