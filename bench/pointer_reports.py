"""Print every pointer report `check --json` makes on the held-out memory dirs (bench/heldout_pointers)
and on the shared corpus, one line each, to be read one by one (bench/heldout_pointers/READ.md holds
the last reading). ``python -m bench.pointer_reports [DIR ...]``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
HELDOUT = HERE / "heldout_pointers"
CORPUS = Path("/work/shared/corpus")
KINDS = ("dangling", "escapes", "orphans", "unreadable", "unlinked_archive", "unwritten", "probable", "outside", "named_only")


def memory_dirs() -> list[Path]:
    found = sorted(path.parent for path in HELDOUT.rglob("MEMORY.md"))
    if CORPUS.is_dir():
        found += sorted(path.parent for path in CORPUS.rglob("MEMORY.md"))
    return found


def report_lines(memory: Path) -> list[str]:
    done = subprocess.run([sys.executable, "-m", "curator", "check", str(memory), "--json"], capture_output=True)
    if not done.stdout:
        return [f"error: {done.stderr.decode().strip()}"]
    pointers = json.loads(done.stdout)["pointers"]
    lines = []
    for kind in KINDS:
        value = pointers.get(kind)
        for item in value if isinstance(value, list) else [value] if value else []:
            if isinstance(item, dict):
                where = f"{item['file']}:{item['line']}" if "line" in item else item["file"]
                rest = " | ".join(str(item[k]) for k in ("target", "reason", "suggestion", "meant", "spelling", "why", "path", "message") if item.get(k))
                lines.append(f"{kind} {where} {rest}")
            else:
                lines.append(f"{kind} {item}")
    return lines


def main(argv: list[str]) -> int:
    for memory in [Path(arg) for arg in argv] or memory_dirs():
        lines = report_lines(memory)
        print(f"== {memory} ({len(lines)})")
        for line in lines:
            print(f"  {line}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
