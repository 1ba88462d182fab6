"""The seat's files as the store sees them: where the memory dir and its state dir are, safe paths
inside the memory dir, reading a file with its fingerprint, and the order a change writes them in."""

from __future__ import annotations

import hashlib
from collections import Counter
import os
from pathlib import Path

from curator import fsio
from curator.change import check_name, digest
from curator.errors import InputError, from_os_error
from curator.store.records import ABSENT, Fingerprint

NEW_FILE_MODE = 0o600  # bearer files are private; a new file copies MEMORY.md's mode when there is one


def default_state_dir(memory_dir: Path) -> Path:
    base = os.environ.get("XDG_STATE_HOME", "")
    if not os.path.isabs(base):  # XDG: a relative path is invalid (it would follow the cwd): ignore it
        base = str(Path.home() / ".local" / "state")
    key = hashlib.sha256(str(memory_dir).encode("utf-8", "surrogateescape")).hexdigest()[:16]
    return Path(base) / "seat-curator" / key

def write_order(moves: list[tuple[str, bytes | None, bytes | None]]) -> list[tuple[str, bytes | None, bytes | None]]:
    """(name, old, new) moves in the order to write them: the files that only receive lines first,
    the files that only give lines up (or go) last, the rest between, each group the files that
    grow first. A change that moves text moves it out of a giving file into a receiving one, so a
    crash between two renames leaves the text in both, never in neither: trim writes the detail
    file before MEMORY.md, archive ARCHIVE.md before MEMORY.md (even when MEMORY.md grows by the
    line that links ARCHIVE.md), restore and the undo of an archive or a trim MEMORY.md first."""
    size = lambda data: 0 if data is None else len(data)  # noqa: E731

    def rank(old: bytes | None, new: bytes | None) -> int:
        giving, receiving = gives(old, new), receives(old, new)
        return 0 if receiving and not giving else 2 if giving and not receiving else 1

    return sorted(moves, key=lambda move: (rank(move[1], move[2]), size(move[1]) - size(move[2]), move[0]))


def _lines(data: bytes | None) -> Counter[bytes]:
    return Counter((data or b"").splitlines(keepends=True))


def gives(old: bytes | None, new: bytes | None) -> bool:
    """Whether a file going from ``old`` to ``new`` gives text up: a line of it goes (a file that
    shrinks may still receive a line, and one that grows may still lose one)."""
    return bool(_lines(old) - _lines(new))


def receives(old: bytes | None, new: bytes | None) -> bool:
    """Whether a file going from ``old`` to ``new`` receives text: a line comes into it."""
    return bool(_lines(new) - _lines(old))


def locate(memory_dir: str | Path, state_dir: str | Path | None) -> tuple[Path, Path]:
    path = Path(memory_dir).expanduser()
    try:
        resolved = path.resolve(strict=True)
    except FileNotFoundError:
        raise InputError("no such memory directory", path=path) from None
    except RuntimeError:  # Python 3.11 reports a symlink loop so
        raise InputError("cannot open the memory directory: a symlink loop (ELOOP)", path=path) from None
    except OSError as err:
        raise from_os_error(err, "cannot open the memory directory", path=path) from None
    state = Path(state_dir).expanduser() if state_dir is not None else default_state_dir(resolved)
    return resolved, state

def absent(path: Path) -> bool:
    """True only if ``path`` does not exist. os.path.lexists says False for any error, so a file
    behind a directory without search permission would pass for a missing (or empty) journal."""
    try:
        os.lstat(path)
    except FileNotFoundError:
        return True
    except OSError as err:
        raise from_os_error(err, "cannot look up", path=path) from None
    return False


def read_current(memory_dir: Path, name: str) -> tuple[bytes | None, Fingerprint]:
    """A memory file's bytes and fingerprint (None, ABSENT when it does not exist); only regular
    files, never through a symlink, at most MAX_READ_BYTES."""
    path = safe_path(memory_dir, name)
    handle = fsio.open_regular(path)
    if handle is None:
        return None, ABSENT
    with handle:
        mtime = os.fstat(handle.fileno()).st_mtime_ns
        data = fsio.read_open(handle, path)
    # The handle keeps the inode it opened, so size, mtime and bytes all describe one version.
    return data, Fingerprint(len(data), mtime, digest(data))


def safe_path(memory_dir: Path, name: str) -> Path:
    """The file's path, refusing names that leave the memory dir or pass through a symlink."""
    check_name(name)
    walk = memory_dir
    for part in Path(name).parts:
        walk = walk / part
        try:
            linked = walk.is_symlink()
        except OSError as err:  # e.g. a directory without search permission
            raise from_os_error(err, "cannot look up", path=walk) from None
        if linked:
            raise InputError("is a symlink; the curator never writes through one", path=walk)
    return memory_dir / name


def describe(fingerprint: Fingerprint) -> str:
    if fingerprint.sha256 is None:
        return "absent"
    return f"{fingerprint.size:,} bytes, sha256 {fingerprint.sha256[:12]}"
