"""Recognising a seat script an earlier seat-curator wrote (pre-commit's ``PRIOR_HASHES`` model).

A script the fleet emits whole (generators/script_source.py) changes its code when seat-curator is
upgraded; every seat still holds the earlier generation's bytes. Those bytes were never the
resident's, so ``provision`` may write this version over them, but only when they are provably an
earlier seat-curator's and not a hand edit:

- the script's code is one seat-curator has committed: its sha256 *with the literal lines' values
  blanked* (``NAME = <value>  # seat-curator:literal`` -> ``NAME =  # seat-curator:literal``, so
  per-seat values do not count) is in ``scripts/prior_generations.json``;
- and every literal it holds has the value this version writes for the seat (a hand-edited path or
  limit is a hand edit, whatever the code around it).

Anything else stays DIVERGENT. The record lists every version of each script in this repository's
history (each blob ``git log --full-history`` reaches) and the one in the tree, so it already holds
the current version and a later change needs it to be regenerated (a test checks it is). After
changing a script, a maintainer runs, from the repository root::

    python -m generators.prior_generations

which rewrites ``generators/scripts/prior_generations.json`` from ``git log`` (the tree's version
included, so it can be run before the commit that changes the script).
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

from generators.script_source import CAP_GUARD_SCRIPT, HOOK_SCRIPT, MARKER, SCRIPTS_DIR, WAKE_SCRIPT

RECORD = SCRIPTS_DIR / "prior_generations.json"
SCRIPTS = (HOOK_SCRIPT, CAP_GUARD_SCRIPT, WAKE_SCRIPT)  # every script the fleet emits whole
_MARK = MARKER.encode("utf-8")


def literal_lines(script: bytes) -> dict[bytes, bytes]:
    """Each literal line's name -> its value text, as written (``b"MEMORY_DIR" -> b"'/x/memory'"``)."""
    out = {}
    for line in script.split(b"\n"):
        if line.endswith(_MARK) and b" = " in line:
            name, value = line[:-len(_MARK)].split(b" = ", 1)
            out[name] = value
    return out


def normalised(script: bytes) -> bytes:
    """The script with each literal line's value blanked: what is the same for every seat."""
    return b"\n".join(line.split(b" = ", 1)[0] + b" =" + _MARK if line.endswith(_MARK) and b" = " in line else line
                      for line in script.split(b"\n"))


def digest(script: bytes) -> str:
    return hashlib.sha256(normalised(script)).hexdigest()


def prior_digests() -> dict[str, frozenset[str]]:
    """Script name -> the digests of every generation of it seat-curator has committed."""
    try:
        record = json.loads(RECORD.read_bytes())
    except (OSError, ValueError):  # no record: nothing is recognised, every other script stays DIVERGENT
        return {}
    return {name: frozenset(digests) for name, digests in record.items()}


def is_earlier_generation(name: str, found: bytes, current: bytes) -> bool:
    """Whether ``found`` is the script ``name`` as an earlier seat-curator wrote it for this seat:
    committed code, and this version's values in every literal it holds. ``current`` is what this
    version writes for the seat."""
    if found == current or digest(found) not in prior_digests().get(name, ()):
        return False
    values = literal_lines(current)
    return all(values.get(key) == value for key, value in literal_lines(found).items())


# ------------------------------------------------------------------------- regenerating the record


def _git(repo: Path, *args: str, stdin: bytes | None = None) -> bytes:
    return subprocess.run(["git", "-C", str(repo), *args], input=stdin, capture_output=True, check=True).stdout


def committed_versions(repo: Path, path: str) -> list[bytes]:
    """Every version of ``path`` (relative to ``repo``) that ``git log --full-history`` reaches,
    merge results included (-m), read in one ``git cat-file --batch``."""
    log = _git(repo, "log", "--full-history", "-m", "--no-abbrev", "--format=", "--raw", "--", path)
    blobs = list(dict.fromkeys(fields[3] for line in log.decode().splitlines()
                               if line.startswith(":") and (fields := line.split())[3].strip("0")))
    out = _git(repo, "cat-file", "--batch", stdin="".join(f"{blob}\n" for blob in blobs).encode())
    versions, at = [], 0
    while at < len(out):
        header_end = out.index(b"\n", at)
        size = int(out[at:header_end].split()[2])
        versions.append(out[header_end + 1:header_end + 1 + size])
        at = header_end + 1 + size + 1  # the content, then a newline
    return versions


def collect(repo: Path) -> dict[str, list[str]]:
    """The record for ``repo``: per script, the sorted digests of its committed versions and of the
    version in the tree."""
    record = {}
    for name in SCRIPTS:
        path = (SCRIPTS_DIR / name).resolve().relative_to(repo.resolve()).as_posix()
        versions = committed_versions(repo, path) + [(SCRIPTS_DIR / name).read_bytes()]
        record[name] = sorted({digest(version) for version in versions})
    return record


def main() -> int:
    repo = Path(_git(SCRIPTS_DIR, "rev-parse", "--show-toplevel").decode().strip())
    RECORD.write_text(json.dumps(collect(repo), indent=2) + "\n", encoding="utf-8")
    print(f"wrote {RECORD}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
