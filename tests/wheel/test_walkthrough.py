"""docs/python.md's walk-through, run exactly as written (the python block after `<!-- walkthrough -->`): a PyTorch
module exported with verification, tuned, served and asked once. Needs torch (Debian's python3-torch)."""

from __future__ import annotations

import os
import pathlib
import re
import subprocess
import sys

import pytest

pytest.importorskip("torch", reason="the walk-through exports from PyTorch (Debian's python3-torch)")

ROOT = pathlib.Path(os.environ.get("HONE_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2]))


def test_the_walkthrough_runs_as_written(tmp_path):
    doc = (ROOT / "docs" / "python.md").read_text()
    script = re.search(r"<!-- walkthrough -->\n```python\n(.*?)```", doc, re.S).group(1)
    (tmp_path / "models").symlink_to(ROOT / "models")
    (tmp_path / "out").mkdir()
    (tmp_path / "walkthrough.py").write_text(script)
    run = subprocess.run([sys.executable, "walkthrough.py"], cwd=tmp_path, capture_output=True, text=True,
                         timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    assert re.search(r"^SLO met: True \| chosen: \S+ \| repository: out/walkthrough/repository$", run.stdout, re.M), \
        run.stdout
    assert re.search(r"^classes: \[\d \d\]$", run.stdout, re.M), run.stdout
    assert (tmp_path / "out" / "walkthrough" / "repository").is_dir()
    assert (tmp_path / "out" / "walkthrough.onnx").is_file()
