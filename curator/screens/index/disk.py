"""The index screen's disk watch: MEMORY.md opened through the seat store, read into the editor, and
watched (inode, size, mtime) for a change, a vanishing or an unreadable file made outside the app."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from textual import on

from curator.errors import CuratorError
from curator.constants import INDEX_NAME
from curator.screens.index.host import ScreenParts
from curator.widgets.messages import DiskState, FileChangedOnDisk

if TYPE_CHECKING:
    from textual.message import Message

    from curator.store import SeatStore

WATCH_INTERVAL = 1.0  # seconds between looks at MEMORY.md's inode, size and mtime

# What the watcher compares: (inode, size, mtime_ns) of MEMORY.md, "gone", or "unreadable: why".
DiskSignature = tuple[int, int, int] | str


class DiskHost(ScreenParts, Protocol):
    """What the disk watch uses of the screen: its own steps, the meter and title, the journal, the
    save flow's question about unsaved edits."""

    _disk_seen: DiskSignature | None  # MEMORY.md as last loaded / saved (None: not yet looked at)

    def read_index(self) -> str | None: ...
    def show_disk_text(self, text: str, *, keep_place: bool = False) -> None: ...
    def disk_signature(self) -> DiskSignature: ...
    def reload(self) -> None: ...
    def update_meter(self) -> None: ...
    def update_title(self) -> None: ...
    def read_history(self) -> None: ...
    def after_typed_keys(self, then: Callable[[], object]) -> None: ...
    def confirm_leaving(self, leaving: str, then: Callable[[], object]) -> None: ...
    def post_message(self, message: Message) -> bool: ...


class DiskWatch:
    """Mixed into ``IndexScreen``: the seat on disk, as the editor last loaded or saved it."""

    # Set here, declared by the screen too (annotations only: the screen's __init__ gives the values).
    store: SeatStore | None
    _disk_seen: DiskSignature | None

    # == the seat on disk ==========================================================================
    def open_store(self: DiskHost) -> None:
        """Open the store and put MEMORY.md in the editor. A missing or unreadable index is said, and
        the editor starts empty; a save creates it."""
        from curator.store import SeatStore

        try:
            self.store = SeatStore.open(self.memory_dir, state_dir=self.app.state_dir)
        except CuratorError as err:
            self.app.notify(str(err), title="Cannot open the seat", severity="error", markup=False, timeout=10)
            self.store = None
        text = self.read_index() if self.store is not None else None
        self.show_disk_text(text or "")
        self.update_meter()
        self.read_history()

    def read_index(self: DiskHost) -> str | None:
        """MEMORY.md's text from disk (the store's baseline for the next save), or None with the reason
        on the status line: gone, unreadable, a symlink."""
        assert self.store is not None  # read once the seat is open (open_store, reload, after a write)
        try:
            text = self.store.read(INDEX_NAME).decode("utf-8", "surrogateescape")
        except CuratorError as err:
            self.set_status(f"{err} — the editor keeps its text; {self.key('index.save')} writes it.", "$warning")
            self._disk_seen = self.disk_signature()
            return None
        self._disk_seen = self.disk_signature()
        return text

    def show_disk_text(self: DiskHost, text: str, *, keep_place: bool = False) -> None:
        """``text`` is what disk holds now: the editor shows it with a fresh undo history (one history:
        ctrl+z never crosses a write the journal knows about)."""
        self.editor.load_from_disk(text, keep_place=keep_place)
        self.update_meter()
        self.update_title()

    def disk_signature(self: DiskHost) -> DiskSignature:
        """(inode, size, mtime) of MEMORY.md, "gone", or "unreadable: why": what the watcher compares."""
        try:
            info = os.lstat(self.memory_dir / INDEX_NAME)
        except FileNotFoundError:
            return DiskState.GONE
        except OSError as err:
            return f"unreadable: {err.strerror}"
        if not os.path.isfile(self.memory_dir / INDEX_NAME) or os.path.islink(self.memory_dir / INDEX_NAME):
            return "unreadable: not a regular file"
        if not os.access(self.memory_dir / INDEX_NAME, os.R_OK):
            return "unreadable: permission denied"
        return (info.st_ino, info.st_size, info.st_mtime_ns)

    def watch_disk(self: DiskHost) -> None:
        """The watcher (a timer, as cheap as one lstat): MEMORY.md changed, vanished or became
        unreadable since this app last read or wrote it."""
        if self.store is None:
            return
        now = self.disk_signature()
        if now == self._disk_seen:
            return
        self._disk_seen = now
        if now == DiskState.GONE:
            self.post_message(FileChangedOnDisk(DiskState.GONE))
        elif isinstance(now, str):
            self.post_message(FileChangedOnDisk(DiskState.UNREADABLE, now.removeprefix("unreadable: ")))
        else:
            self.post_message(FileChangedOnDisk(DiskState.CHANGED))

    @on(FileChangedOnDisk)
    def file_changed_on_disk(self: DiskHost, event: FileChangedOnDisk) -> None:
        path = self.memory_dir / INDEX_NAME
        save, reload = self.key("index.save"), self.key("index.reload")
        if event.state == DiskState.GONE:
            message = f"{path} is gone from disk (moved or deleted). Your text is still here; {save} writes it back."
        elif event.state == DiskState.UNREADABLE:
            message = f"{path} cannot be read now ({event.detail}). Your text is still here."
        else:
            message = (f"{path} changed on disk (not through this app). {reload} reloads it"
                       + (" — you will be asked about your unsaved edits." if self.dirty else "."))
        self.set_status(message, "$warning", lasting=True)
        self.refresh_bindings()  # Save shows when the file is gone

    def action_reload(self: DiskHost) -> None:
        if self.store is not None:
            self.after_typed_keys(lambda: self.confirm_leaving("reload MEMORY.md from disk", self.reload))

    def reload(self: DiskHost) -> None:
        assert self.store is not None  # offered by action_reload only with the seat open
        self.store.reload()  # the disk version is the new baseline
        text = self.read_index()
        if text is None:
            return  # said on the status line; the editor keeps its text
        self.show_disk_text(text)
        self.read_history()
        self.set_status("Reloaded from disk.")
