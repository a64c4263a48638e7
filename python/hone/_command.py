"""The `hone` console entry: runs the hone binary shipped in this package, with the same arguments, exit status and
signals (the process is replaced, not wrapped)."""

from __future__ import annotations

import os
import sys


def binary() -> str:
    """The path of the bundled hone binary."""
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "bin", "hone")


def main() -> None:
    path = binary()
    os.execv(path, [path, *sys.argv[1:]])
