"""Trusted paths: whether writing a file under its trusted root is safe (no symlinked segment, no
escape from the root, no file where a directory should be), checked segment by segment."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from curator import caches


def exists(path: Path) -> bool:
    try:
        os.lstat(path)
    except FileNotFoundError:
        return False
    return True


def path_problem(root: Path | None, path: Path) -> tuple[str | None, Path | None]:
    """Why writing ``path`` under ``root`` would be unsafe, and the segment at fault; (None, None) if safe.

    Checks lexically that ``path`` stays inside ``root``, then every existing segment below ``root``:
    none may be a symlink, every parent must be a directory, and the target must not be a directory.
    ``root`` itself may be a symlink (the operator chose it).
    """
    problem, at, _ = inspect(root, path)
    return problem, at


def _normalized(path: Path | str) -> str:
    text = os.fspath(path)
    return os.path.normpath(text) if "/." in text or "//" in text or text.endswith("/") else text


def _root_prefix(root: Path | str) -> tuple[str, str]:
    """(the root normalised, the prefix every path inside it starts with)."""
    root_s = _normalized(root)
    return root_s, root_s.rstrip(os.sep) + os.sep


# Names only, never anything read from disk (like layout's paths): a fleet plan checks the same few
# thousand paths each time, and working out their segments cost more than the lstat calls on them.
@caches.kept(maxsize=65536)
def _lexical(root: Path | str | None, path: Path | str) -> tuple[str, tuple[str, ...] | None, tuple[str, Path] | None]:
    """(the path as text, the directories below ``root`` down to its parent, outermost first, or
    None without a root, and the (problem, path) the names alone show, or None)."""
    path_s = _normalized(path)
    if root is None:
        return path_s, None, None
    root_s, inside = _root_prefix(root)
    if not root_s.startswith(os.sep) or not path_s.startswith(os.sep):
        return path_s, (), (f"not an absolute path: {path}", Path(path))
    if not path_s.startswith(inside):
        return path_s, (), (f"escapes its trusted root {root_s}", Path(path))
    parent = path_s.rpartition(os.sep)[0]
    chain, current = [], inside[:-1]
    for part in parent[len(inside):].split(os.sep) if len(parent) >= len(inside) else ():
        current = current + os.sep + part
        chain.append(current)
    return path_s, tuple(chain), None


class Walk:
    """Directory checks made while planning one seat, so its artifacts do not lstat their shared
    parents again. Lives for one plan call only: the disk may change between plans."""

    __slots__ = ("modes", "verified")

    def __init__(self) -> None:
        self.modes: dict[str, int] = {}  # directory → lstat mode
        self.verified: set[str] = set()  # directories whose every segment below the root is a real directory


def inspect(root: Path | None, path: Path, walk: Walk | None = None) -> tuple[str | None, Path | None, bool]:
    """``path_problem`` plus whether the file exists. ``walk`` shares directory checks across calls."""
    problem, at, found = inspect_stat(root, path, walk)
    return problem, at, found is not None


# What ``inspect_stat`` found: the file's lstat result, ``_EXISTS`` (a problem on a segment that
# exists), or None (absent).
Found = os.stat_result | bool | None


def inspect_stat(root: Path | None, path: Path, walk: Walk | None = None) -> tuple[str | None, Path | None, Found]:
    """(problem, segment at fault, the file's lstat result or None when it is absent).
    On a problem the third item is a truthy marker when the faulty segment exists."""
    path_s, chain, named = _lexical(root, path)
    if named:
        return named[0], named[1], None  # nothing was looked at on disk
    if chain and (walk is None or chain[-1] not in walk.verified):
        problem, at, complete = _walk_parents(chain, walk)
        if problem:
            return problem, at, _EXISTS if complete else None
        if not complete:
            return None, None, None
    try:
        found = os.lstat(path_s)
    except FileNotFoundError:
        return None, None, None
    except OSError as err:
        if chain is None:
            raise
        return f"cannot inspect {path_s}: {err.strerror}", Path(path_s), None
    if chain is None or stat.S_ISREG(found.st_mode):
        return None, None, found
    wrong = _wrong_kind(path_s, found.st_mode, directory=False)  # not a regular file: always a problem
    return (wrong[0], wrong[1], _EXISTS) if wrong else (None, None, found)


_EXISTS = True  # stands in for a stat result where only existence matters


def _walk_parents(chain: tuple[str, ...], walk: Walk | None) -> tuple[str | None, Path | None, bool]:
    """Check every segment from below the root down to the parent: each must be a directory, none a
    symlink. Returns (problem, segment at fault, whether the whole chain exists)."""
    modes = walk.modes if walk is not None else None
    verified: set[str] | tuple[()] = walk.verified if walk is not None else ()
    for current in chain:
        if current in verified:  # a real directory, and so is everything above it (this call)
            continue
        mode = modes.get(current) if modes is not None else None
        if mode is None:
            try:
                mode = os.lstat(current).st_mode
            except FileNotFoundError:
                return None, None, False
            except OSError as err:
                return f"cannot inspect {current}: {err.strerror}", Path(current), False
            if modes is not None:
                modes[current] = mode
        if not stat.S_ISDIR(mode):  # the common case (a real directory) needs no further look
            problem = _wrong_kind(current, mode, directory=True)
            if problem:
                return problem
    if walk is not None:
        walk.verified.update(chain)  # each of them has a verified chain of its own
    return None, None, True


def _wrong_kind(segment: str, mode: int, *, directory: bool) -> tuple[str, Path, bool] | None:
    if stat.S_ISLNK(mode):
        return f"symlinked path segment: {segment}", Path(segment), True
    if directory and not stat.S_ISDIR(mode):
        return f"a file where a directory is expected: {segment}", Path(segment), True
    if not directory and not stat.S_ISREG(mode):
        return f"not a regular file: {segment}", Path(segment), True
    return None


