"""What the fleet panel watches: every file a fleet plan reads (the manifest, each seat's planned
files and the directories down to them, each MEMORY.md, the saved boot checks), the existing
directories that hold them (watched one level deep, so a busy repo costs nothing), and which
residents a change concerns. The watching itself is ``watchfiles`` (inotify, FSEvents, …)."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from curator.constants import INDEX_NAME

EVERYONE = "*"  # a path every resident's plan reads (the manifest, the saved boot checks)


@dataclass(frozen=True)
class WatchSet:
    """``dirs``: the existing directories to watch; ``readers``: path -> the residents whose plan
    reads it (or ``EVERYONE``), for the files themselves and every directory down to them."""

    dirs: frozenset[str] = frozenset()
    readers: Mapping[str, frozenset[str]] = field(default_factory=dict)

    def concerned(self, changed: Iterable[str]) -> frozenset[str]:
        """The residents whose plans read one of the ``changed`` paths (``EVERYONE`` among them when
        the whole fleet must be planned again); empty when the plan reads none of them."""
        found: set[str] = set()
        for path in changed:
            found |= self.readers.get(path, frozenset())
        return frozenset(found)

    def wants(self, path: str) -> bool:
        return path in self.readers


def plan_reads(agent_id: str, memory_dir: Path, files: Iterable[tuple[Path, Path | None]]) -> Iterator[tuple[str, str]]:
    """(path, agent id) for what one resident's plan reads: each planned file and the directories
    between its trusted root and it (a segment turned into a symlink is a finding), and MEMORY.md."""
    for path, root in files:
        yield str(path), agent_id
        if root is not None and path.is_relative_to(root):
            for parent in path.parents:
                if parent == root:
                    break
                yield str(parent), agent_id
    yield str(memory_dir / INDEX_NAME), agent_id
    yield str(memory_dir), agent_id


def nearest_directory(path: str) -> str:
    """The closest existing directory that holds ``path`` (its parent, or further up when the parent
    is not there yet: the creation of the missing one is then the change seen)."""
    parent = os.path.dirname(path)
    while parent and not os.path.isdir(parent):
        up = os.path.dirname(parent)
        if up == parent:
            break
        parent = up
    return parent or os.sep


def watch_set(shared: Iterable[Path], reads: Iterable[tuple[str, str]]) -> WatchSet:
    """``shared``: files every plan reads (the manifest, by its name and where a symlink leads);
    ``reads``: (path, agent id) pairs. Directories between a watched one and a missing path read
    by the plan are readers too, so creating them is seen."""
    readers: dict[str, set[str]] = {}
    pairs = [(str(Path(p).absolute()), EVERYONE) for path in shared for p in {Path(path), Path(os.path.realpath(path))}]
    for path, reader in pairs + list(reads):
        readers.setdefault(path, set()).add(reader)
    dirs: set[str] = set()
    for path in list(readers):
        watched = nearest_directory(path)
        dirs.add(watched)
        missing = os.path.dirname(path)
        while len(missing) > len(watched):  # the directories not there yet, up to the watched one
            readers.setdefault(missing, set()).update(readers[path])
            missing = os.path.dirname(missing)
    return WatchSet(frozenset(dirs), {path: frozenset(ids) for path, ids in readers.items()})


@dataclass(frozen=True)
class Until:
    """What the watcher asks every step: ``is_set()`` true ends the watch (an Event, or a test of
    one's own such as a cancelled worker)."""

    is_set: Callable[[], bool]


def watch_changes(watched: Callable[[], WatchSet], stop: Until, started: Callable[[], None]) -> Iterator[set[str]]:
    """The paths the current plan reads (``watched()``, asked per batch) that changed, a batch at a
    time, until ``stop.is_set()``; ``started()`` is called once the watch is up. A burst of events (an
    editor's write-then-rename) is one batch: the batch closes after 100 ms of quiet, at most 1.6 s.
    Raises OSError or RuntimeError when the watcher cannot start (inotify limits, a file system it
    does not support): the caller then falls back to re-planning on a timer."""
    # watchfiles' own watch() is this loop, but gives no sign of when the watch is up, and a change
    # made before then would go unseen: the plan that follows ``started()`` reads it instead.
    from watchfiles._rust_notify import RustNotify

    dirs = sorted(watched().dirs)
    with RustNotify(dirs, False, False, 300, False, False) as notify:
        started()
        while True:
            raw = notify.watch(1600, 100, 5000, stop)
            if raw == "stop":
                return
            if isinstance(raw, set):
                wanted = watched()
                changed = {path for _change, path in raw if wanted.wants(path)}
                if changed:
                    yield changed
