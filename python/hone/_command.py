"""The `hone` console entry: `hone export` runs here (it needs torch: export_command.py); every other command runs
the hone binary shipped in this package, with the same arguments, exit status and signals (the process is
replaced, not wrapped)."""

from __future__ import annotations

import os
import sys


def binary() -> str:
    """The path of the bundled hone binary."""
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "bin", "hone")


def main() -> None:
    if sys.argv[1:2] == ["export"]:
        from .export_command import main as export_main
        sys.exit(export_main(sys.argv[2:]))
    path = binary()
    os.execv(path, [path, *sys.argv[1:]])
