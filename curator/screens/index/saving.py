"""The index screen's save flow: the editor's text written through the seat store, a file changed
under us resolved (reload / keep mine / diff), and leaving with unsaved edits asked about first."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from curator.change import Change
from curator.constants import ARCHIVE_NAME, INDEX_NAME
from curator.errors import ConflictError, CuratorError, NothingToChangeError
from curator.screens.index.disk import DiskSignature
from curator.screens.index.host import ScreenParts
from curator.widgets.messages import ChangeApplied, DiskState

if TYPE_CHECKING:
    from curator.meter import Meter

Then = Callable[[], object]  # what a save was for (quit, back to the fleet…): runs once the text is on disk


class SaveHost(ScreenParts, Protocol):
    """What the save flow uses of the screen: its own steps, and the disk watch's."""

    _disk_seen: DiskSignature | None

    def save_now(self) -> None: ...
    def save(self, *, overwrite: bool = False, then: Then | None = None) -> bool: ...
    def warn_readded_archive_entries(self, before: str) -> None: ...
    def resolve_conflict(self, choice: str | None, then: Then | None = None) -> None: ...
    def show_conflict_diff(self, then: Then | None = None) -> None: ...
    def after_typed_keys(self, then: Then) -> None: ...
    def disk_signature(self) -> DiskSignature: ...
    def show_disk_text(self, text: str, *, keep_place: bool = False) -> None: ...
    def reload(self) -> None: ...
    def reading_of(self, raw: bytes) -> Meter: ...


class SaveFlow:
    """Mixed into ``IndexScreen``: saving, conflicts and unsaved edits."""

    _disk_seen: DiskSignature | None  # set after a save; an annotation only (the screen's __init__ gives it)

    # == saving and conflicts =====================================================================
    def action_save(self: SaveHost) -> None:
        self.after_typed_keys(self.save_now)

    def save_now(self: SaveHost) -> None:
        if self.store is None:
            self.app.notify("No seat is open; nothing to save.", severity="error")
        elif not self.dirty and self.disk_signature() != DiskState.GONE:
            self.set_status("Nothing to save: the editor matches the file on disk.")
        else:
            self.save()

    def save(self: SaveHost, *, overwrite: bool = False, then: Then | None = None) -> bool:
        """Write the editor's text through the store; True when it is on disk. A file that vanished is
        recreated; one changed under us asks reload / keep mine / diff. ``then`` (what the save was
        for: quit, back to the fleet…) runs once the text is on disk, also when that is after the
        conflict dialog's keep mine."""
        if self.store is None:  # the seat never opened (its error was shown): keep the text, write nothing
            self.app.notify("The seat could not be opened, so nothing was written; your text is still in the "
                            "editor.", title="Not saved", severity="error", markup=False, timeout=10)
            return False
        new = self.editor_bytes()
        old = self.editor.saved_text.encode("utf-8", "surrogateescape")
        change = Change(f"edit {INDEX_NAME}", {INDEX_NAME: new}, bytes_saved=len(old) - len(new), kind="edit")
        try:
            if overwrite or self.disk_signature() == DiskState.GONE:
                self.store.reload()  # the disk version (or its absence) becomes the baseline; the journal keeps it
            self.store.apply(change)
        except ConflictError as err:
            from curator.screens.dialogs import ConflictDialog

            self.app.push_screen(ConflictDialog(str(self.memory_dir / INDEX_NAME), str(err)),
                                 lambda choice: self.resolve_conflict(choice, then))
            return False
        except NothingToChangeError:  # disk already holds this text
            self.editor.mark_saved()
            if then is not None:
                then()
            return True
        except CuratorError as err:
            self.app.notify(f"{err.code} {err}", title="Not saved", severity="error", markup=False)
            return False
        self.editor.mark_saved()
        self._disk_seen = self.disk_signature()
        self.change_applied(ChangeApplied(
            f"Saved {INDEX_NAME} ({len(new):,} B). {self.key('index.undo_change')} undoes the save.", "edit"))
        reading = self.reading_of(new)  # a Claude Code seat: what it loads
        if reading.zone == "over-limit":  # saved, but the harness stops reading before its end
            self.set_status(f"Saved {INDEX_NAME}, {-reading.headroom_read_limit:,} B over the read limit "
                            f"({reading.read_limit:,} B): a harness never reads past it. "
                            f"{self.key('index.fit')} fits it under the target; "
                            f"{self.key('index.undo_change')} undoes the save.", "bold $error")
        self.warn_readded_archive_entries(old.decode("utf-8", "surrogateescape"))
        if then is not None:
            then()
        return True

    def warn_readded_archive_entries(self: SaveHost, before: str) -> None:
        """Saving text that brings back an entry also kept in ARCHIVE.md: say so (a restore would add
        a second copy)."""
        from curator.index_model import parse_index
        from curator.levers.archive import STAMP
        from curator.levers.text import read_optional

        try:
            raw = read_optional(self.memory_dir, ARCHIVE_NAME)
        except CuratorError:
            return
        if raw is None:
            return
        # An archived entry carries "· archived YYYY-MM-DD" at the end of its first line.
        archived = {"\n".join([STAMP.sub("", e.text.split("\n")[0])] + e.text.split("\n")[1:]).strip()
                    for e in parse_index(raw).entries}
        had = {e.text.strip() for e in parse_index(before.encode("utf-8", "surrogateescape")).entries}
        back = [e for e in parse_index(self.editor_bytes()).entries if e.text.strip() in archived - had]
        if back:
            lines = ", ".join(str(e.line) for e in back)
            self.app.notify(f"Line {lines} of MEMORY.md is also in ARCHIVE.md: the entry now lives in both. "
                            "Archive it again or remove it from ARCHIVE.md; restoring it would add another copy.",
                            title="Entry in both files", severity="warning", markup=False, timeout=12)

    def resolve_conflict(self: SaveHost, choice: str | None, then: Then | None = None) -> None:
        """``then``: what the save was for; it goes ahead only when keep mine has written the text
        (reload and cancel stay here, the user sees what is now in the editor)."""
        if choice == "reload":
            self.reload()
        elif choice == "keep":
            self.save(overwrite=True, then=then)
        elif choice == "diff":
            self.show_conflict_diff(then)
        else:
            self.set_status(f"Not saved: the file on disk changed. {self.key('index.save')} to decide again.",
                            "$warning")

    def show_conflict_diff(self: SaveHost, then: Then | None = None) -> None:
        import difflib

        from curator.fsio import read_bytes
        from curator.screens.dialogs import ConflictDialog, DiffDialog

        assert self.store is not None  # shown after a conflict the store reported
        try:  # a display read: never the store's, which would make the disk version the baseline
            disk = read_bytes(self.store.path_of(INDEX_NAME)).decode("utf-8", "surrogateescape")
        except CuratorError as err:
            disk = ""
            self.set_status(f"{err}: the diff shows the editor against nothing", "$warning")
        diff = "".join(difflib.unified_diff(
            disk.splitlines(keepends=True), self.editor.text.splitlines(keepends=True),
            fromfile="on disk", tofile="in the editor"))

        def back(_: None) -> None:
            self.app.push_screen(ConflictDialog(str(self.memory_dir / INDEX_NAME)),
                                 lambda choice: self.resolve_conflict(choice, then))

        self.app.push_screen(DiffDialog(f"{INDEX_NAME}: on disk → in the editor", diff), back)

    # == leaving with unsaved edits ===============================================================
    def confirm_leaving(self: SaveHost, leaving: str, then: Then) -> None:
        """Run ``then`` now if nothing is unsaved; else ask save / discard / cancel first."""
        if not self.dirty:
            then()
            return

        def decided(choice: str | None) -> None:
            if choice == "save":
                self.save(then=then)  # after a conflict too: once keep-mine has written it
            elif choice == "discard":
                self.show_disk_text(self.editor.saved_text)
                then()
            elif choice is None:
                self.set_status("Still here: your edits are as they were.")

        from curator.screens.dialogs import UnsavedDialog

        self.app.push_screen(UnsavedDialog(str(self.memory_dir / INDEX_NAME), leaving), decided)
