"""What the commands share: how to name this very program in the hints they print."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path


def command_name() -> str:
    """How to run this very seat-curator again from a shell: the bare name when PATH finds this one,
    else the full path of the venv's script (the README's set-up does not put it on PATH), else
    ``python -m curator``. Used in the hints the commands print."""
    beside = Path(sys.executable).parent / "seat-curator"
    found = shutil.which("seat-curator")
    if found and (not beside.exists() or os.path.samefile(found, beside)):
        return "seat-curator"
    if beside.exists():
        return str(beside)
    return f"{sys.executable} -m curator"
