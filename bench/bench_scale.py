"""Bounded cost: every command on an index of 1, 4, 16 and 64 MiB, against one markdown-it parse of the
same text, measured in the same run.

A command either answers or refuses at once (``curator.bounds``: 4 MiB for the analysis, 1 MiB for
candidates, 128 KiB for fit, so every fit row of this ladder is a refusal). Each row's measured time is the whole command as a user runs it (a fresh
``python -m curator`` process, output read and dropped); the note gives its CPU seconds (the wall
time on a shared machine depends on the load) and whether it answered or refused. The app's row is
what ``seat-curator tui`` does before its first frame: the size check, then ``analyze``. The 64 MiB
baseline is the 16 MiB parse times four (a parse is linear; one 64 MiB parse needs gigabytes), and
says so. ``python -m bench scale`` runs these rows; ``python -m bench scale_1_`` only the 1 MiB ones.
"""

from __future__ import annotations

import resource
import subprocess
import sys
import tempfile
import time
from functools import cache
from pathlib import Path

from markdown_it import MarkdownIt

from bench.scale_seat import build
from curator import bounds

SIZES_MIB = (1, 4, 16, 64)
REPO = Path(__file__).resolve().parents[1]
_ROOT = tempfile.TemporaryDirectory(prefix="seat-curator-scale-")  # removed when the run ends


@cache
def seat(mib: int) -> Path:
    return build(Path(_ROOT.name) / f"{mib}", mib * bounds.MIB)


@cache
def parse_seconds(mib: int) -> tuple[float, str]:
    """One plain markdown-it parse of the same MEMORY.md (64 MiB: the 16 MiB parse times four)."""
    if mib > 16:
        return parse_seconds(16)[0] * mib / 16, f"baseline = 16 MiB parse x {mib // 16}"
    text = (seat(mib) / "MEMORY.md").read_text(encoding="utf-8")
    md = MarkdownIt("commonmark")
    start = time.perf_counter()
    md.parse(text)
    return time.perf_counter() - start, "baseline = one markdown-it parse"


def _command(args: list[str]) -> tuple[float, float, int, str]:
    """(wall s, CPU s, exit code, first stderr line) of one CLI run in a fresh process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "curator", *args], cwd=REPO, capture_output=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    first = done.stderr.decode("utf-8", "replace").strip().splitlines()[:1]
    return wall, cpu, done.returncode, first[0] if first else ""


def _app_startup(memory: Path) -> str:
    return ("from pathlib import Path; from curator.commands.app import check_memory_dir; "
            f"from curator.analysis import analyze; analyze(check_memory_dir(Path({str(memory)!r})))")


def _row(name: str, mib: int, args: list[str] | None, *, script: str | None = None) -> dict:
    memory = seat(mib)
    if script is not None:
        wall, cpu, code, first = _python(script)
    else:
        wall, cpu, code, first = _command([a if a != "DIR" else str(memory) for a in args or []])
    baseline, how = parse_seconds(mib)
    verdict = "refused: " + first.split(" is ", 1)[-1][:64] if "TOO_LARGE" in first else f"answered (exit {code})"
    return {"name": f"scale: {name}, {mib} MiB", "measured_s": wall, "baseline_s": baseline,
            "ratio": wall / baseline, "goal": "<10s|refuse", "note": f"{verdict}; CPU {cpu:.1f} s; {how}"}


def _python(script: str) -> tuple[float, float, int, str]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", script], cwd=REPO, capture_output=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    last = done.stderr.decode("utf-8", "replace").strip().splitlines()[-1:]  # the InputError's own line
    return wall, cpu, done.returncode, ("TOO_LARGE: " + last[0]) if last and "split it first" in last[0] else ""


def _archive_search(mib: int) -> dict:
    """archive-search with an ARCHIVE.md as large as the index (removed again after the row)."""
    memory = seat(mib)
    archive = memory / "ARCHIVE.md"
    archive.write_bytes((memory / "MEMORY.md").read_bytes())
    try:
        return _row("archive-search", mib, ["archive-search", "DIR", "merge", "--json"])
    finally:
        archive.unlink()


def _rows_for(mib: int) -> list:
    return [
        lambda: _row("check --json", mib, ["check", "DIR", "--json"]),
        lambda: _row("tui start-up analysis", mib, None, script=_app_startup(seat(mib))),
        lambda: _row("candidates --json", mib, ["candidates", "DIR", "--json"]),
        lambda: _row("fit (plan) --json", mib, ["fit", "DIR", "--json"]),
        lambda: _archive_search(mib),
    ]


def _named(mib: int, index: int, func):
    func.__name__ = f"scale_{mib}_{['check', 'tui', 'candidates', 'fit', 'archive_search'][index]}"
    return func


ROWS = [_named(mib, n, row) for mib in SIZES_MIB for n, row in enumerate(_rows_for(mib))]
