"""The index screen's lever flows: plan with the core on the saved index → preview → confirm → apply
through the seat store. Nothing here writes a file itself; the screen hears ``ChangeApplied``."""

from __future__ import annotations

import difflib
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from textual.content import Content

from curator.change import Change
from curator.constants import INDEX_NAME
from curator.errors import ConflictError, CuratorError
from curator.fsio import read_bytes
from curator.meter import Meter
from curator.screens.change_words import reworded, with_emptied_warning
from curator.screens.dialogs import ConfirmDialog
from curator.screens.index.host import ScreenParts
from curator.widgets.archive_panel import ArchiveTable
from curator.widgets.byte_meter import ZONE_WORDS
from curator.widgets.entries_table import EntriesTable
from curator.widgets.merge_panel import MergeTable
from curator.widgets.panel_table import PanelTable
from curator.widgets.messages import ChangeApplied
from curator.widgets.trim_panel import TrimTable
from curator.widgets.verbatim import diff_content, verbatim

if TYPE_CHECKING:
    from curator.index_model import HotIndex
    from curator.levers.trim_selection import SelectionTrim


class LeverHost(ScreenParts, Protocol):
    """What the lever flows use of the index screen beyond every flow's parts, so they need not import it."""

    def show_disk_text(self, text: str, *, keep_place: bool = False) -> None: ...
    def action_tab(self, tab: str) -> None: ...
    def reading_of(self, raw: bytes) -> Meter: ...


class LeverFlows:
    def __init__(self, screen: LeverHost) -> None:
        self.screen = screen

    @property
    def app(self) -> Any:
        return self.screen.app

    def disk_index(self) -> HotIndex | None:
        """MEMORY.md as on disk, parsed; None (with a message) when the editor has unsaved edits or the
        file cannot be read."""
        from curator.index_model import parse_index

        screen = self.screen
        if screen.store is None:
            return None
        if screen.dirty:
            self.app.notify("Save your edits first (ctrl+s): levers work on the file as saved.",
                            severity="warning", markup=False)
            return None
        try:
            raw = screen.store.read(INDEX_NAME)
        except CuratorError as err:
            self.app.notify(str(err), title="Cannot read MEMORY.md", severity="error", markup=False)
            return None
        if self._shown_if_changed(raw):
            self.app.notify("MEMORY.md changed on disk; the editor now shows it. Try again.",
                            severity="warning", markup=False)
            return None
        return parse_index(raw)

    def _shown_if_changed(self, raw: bytes) -> bool:
        """When disk holds other text than the editor last saved, the editor (with nothing unsaved)
        shows it, so the next plan starts from it."""
        text = raw.decode("utf-8", "surrogateescape")
        if text == self.screen.editor.saved_text:
            return False
        self.screen.show_disk_text(text)
        return True

    def pick(self, table_type: type[PanelTable], tab: str, item: object, hint: str) -> bool:
        """True when ``item`` (the highlighted row of the panel ``tab``) may be acted on; else switch
        to that panel and say how."""
        if item is None or self.screen.panels.active != tab:
            self.screen.action_tab(tab)
            self.app.notify(hint, markup=False)
            return False
        return True

    # -- the levers ----------------------------------------------------------------------------
    def merge(self) -> None:
        """Preview a merge with the merged line editable (``MergeDialog``); apply what it shows."""
        from curator.levers.merge import MergeRefused, merged_entry_text, plan_merge
        from curator.levers.text import entries_by_id
        from curator.screens.merge_preview import MergeDialog, editable_line

        screen = self.screen
        if screen.panels.active == "merge":
            candidate = screen.query_one(MergeTable).candidate()
            ids = list(candidate.entry_ids) if candidate else []
        else:
            ids = screen.query_one(EntriesTable).selected_ids()
        if len(ids) < 2:
            self.app.notify("Mark two or more entries (space in the Entries panel), or pick a row in the Merge panel.",
                            severity="warning", markup=False)
            return
        index = self.disk_index()
        if index is None:
            return

        def plan(text: str | None) -> tuple[Change, list[str]]:
            try:
                change, lost = plan_merge(screen.memory_dir, index, ids, text=text), []
            except MergeRefused as err:
                change, lost = err.change, err.lost
            return with_emptied_warning(reworded(change, index), index), lost

        try:
            first = plan(None)
            default_line = editable_line(merged_entry_text(index, entries_by_id(index, ids)))
        except CuratorError as err:
            self.app.notify(str(err), title="Cannot merge", severity="error", markup=False)
            return
        dialog = MergeDialog("Merge: preview", default_line, plan,
                             lambda change, refused: self.preview(change, index, refused), first)

        def decided(yes: bool | None) -> None:
            if yes and dialog.change is not None:
                self.apply(dialog.change)
            else:
                screen.set_status("Cancelled: nothing was written.")

        self.app.push_screen(dialog, decided)

    def archive(self) -> None:
        from datetime import date

        from curator.levers.archive import plan_archive

        ids = self.screen.query_one(EntriesTable).selected_ids()
        if not ids:
            self.app.notify("Select entries in the Entries panel (space marks several).", severity="warning")
            return
        memory_dir, today = self.screen.memory_dir, date.today()
        index = self.disk_index()
        if index is None:
            return

        def plan(drop: bool) -> Change:
            return reworded(plan_archive(memory_dir, index, ids, today=today, drop_empty_sections=drop), index)

        try:
            first = plan(False)
        except CuratorError as err:
            self.app.notify(str(err), title="Cannot archive", severity="error", markup=False)
            return
        if not first.emptied_sections:
            self.confirm(first, index)
            return
        # A section left empty: the preview says so and offers removing its heading in the same change.
        from curator.screens.archive_preview import ArchiveDialog

        dialog = ArchiveDialog("Archive: preview", plan, lambda change: self.preview(change, index, []), first)

        def decided(yes: bool | None) -> None:
            if yes:
                self.apply(dialog.change, dialog.outcome())
            else:
                self.screen.set_status("Cancelled: nothing was written.")

        self.app.push_screen(dialog, decided)

    def fold(self) -> None:
        """The Entries selection folded, verbatim, into one new detail file; a selection that is one
        whole section folds that section (its heading and sub-sections with it)."""
        from curator.levers.fold import plan_fold
        from curator.screens.change_words import whole_sections

        ids = self.screen.query_one(EntriesTable).selected_ids()
        if len(ids) < 2:
            self.app.notify("Select two or more entries to fold (S marks a whole section, / filters).",
                            severity="warning", markup=False)
            return
        memory_dir = self.screen.memory_dir

        def plan(index: HotIndex) -> Change:
            entries = [index.entry(i) for i in ids if index.has_entry(i)]
            sections = whole_sections(index, entries)
            if len(sections) == 1 and {e.section for e in entries} == set(sections):
                whole = plan_fold(memory_dir, index, section=sections[0])
                if set(whole.entry_ids) == set(ids):  # not when sub-sections hold entries left out
                    return whole
            return plan_fold(memory_dir, index, ids=ids)

        self.run("fold", plan)

    def trim(self) -> None:
        from curator.levers.trim import plan_trim

        suggestion = self.screen.query_one(TrimTable).suggestion()
        if self.pick(TrimTable, "trim", suggestion, "Pick a suggestion in the Trim panel, then press t.") and suggestion is not None:
            memory_dir = self.screen.memory_dir
            self.run("trim", lambda index: plan_trim(memory_dir, index, suggestion.entry_id, kind=suggestion.kind))

    def trim_selection(self) -> None:
        """The Entries selection's safe trims (a split or a tighten each, every fact kept) in one preview
        and one change; the entries with no safe trim are named there with the reason. With nothing
        selected (no entries), the Trim panel's suggestion, as ``t`` there."""
        from curator.levers.trim_selection import plan_selection_trim
        from curator.screens.dialogs import TextDialog

        ids = self.screen.query_one(EntriesTable).selected_ids()
        if not ids:
            self.trim()
            return
        index = self.disk_index()
        if index is None:
            return
        try:
            plan = plan_selection_trim(self.screen.memory_dir, index, ids)
        except CuratorError as err:
            self.app.notify(str(err), title="Cannot trim", severity="error", markup=False)
            return
        listing = trim_listing(plan, index)
        if plan.change is None:
            count = len(plan.untrimmed)
            self.app.push_screen(TextDialog(
                f"Trim: no safe trim for the {'entry' if count == 1 else f'{count} entries'} selected",
                Content("\n").join(listing)))
            return
        self.confirm(with_emptied_warning(reworded(plan.change, index), index), index, listing=listing)

    def restore(self) -> None:
        from curator.levers.archive import plan_restore

        table = self.screen.query_one(ArchiveTable)
        if not table.hits and not table.searching:
            self.app.notify("Nothing to restore: ARCHIVE.md is empty or not created yet.", markup=False)
            return
        hit = table.hit()
        if self.pick(ArchiveTable, "archive", hit, "Pick an archived entry in the Archive panel, then press r.") and hit is not None:
            memory_dir = self.screen.memory_dir
            self.run("restore", lambda index: plan_restore(memory_dir, index, hit[0]))

    # -- plan → preview → confirm → apply ----------------------------------------------------------
    def run(self, what: str, plan: Callable[[HotIndex], Change]) -> None:
        """Plan with the core on the saved index (``plan(index) -> Change``), then preview and confirm.
        A merge the core refuses is still previewed, with what it would lose, and needs 'Apply anyway'."""
        from curator.levers.merge import MergeRefused

        index = self.disk_index()
        if index is None:
            return
        refused: list[str] = []
        try:
            change = plan(index)
        except MergeRefused as err:
            change, refused = err.change, err.lost
        except CuratorError as err:
            self.app.notify(str(err), title=f"Cannot {what}", severity="error", markup=False)
            return
        self.confirm(with_emptied_warning(reworded(change, index, self.archive_index()), index), index, refused)

    def archive_index(self) -> HotIndex | None:
        """ARCHIVE.md parsed (a restore's entry is named from there), or None."""
        from curator.index_model import parse_index
        from curator.levers.text import read_optional

        try:
            raw = read_optional(self.screen.memory_dir, "ARCHIVE.md")
        except CuratorError:
            return None
        return parse_index(raw) if raw is not None else None

    def confirm(self, change: Change, index: HotIndex, refused: Sequence[str] = (),
                listing: Sequence[Content] = ()) -> None:
        """The preview of ``change`` in a ConfirmDialog (``listing``: lines between its summary and its
        diff); applied on yes."""
        refused = list(refused)
        body = self.preview(change, index, refused, listing)
        title = f"{change.kind.capitalize() or 'Change'}: preview"

        def decided(yes: bool | None) -> None:
            if yes:
                self.apply(change)
            else:
                self.screen.set_status("Cancelled: nothing was written.")

        label = "Apply anyway" if refused else "Apply"
        self.app.push_screen(ConfirmDialog(title, body, label, danger=bool(refused)), decided)

    def preview(self, change: Change, index: HotIndex, refused: list[str], listing: Sequence[Content] = ()) -> Content:
        """Bytes saved, the meter after, warnings, and the whole diff of every file the change writes."""
        screen, store = self.screen, self.screen.store
        assert store is not None  # a plan is made only with the seat open (disk_index)
        after = screen.reading_of((change.files[INDEX_NAME] if INDEX_NAME in change.files else index.raw) or b"")
        before = screen.reading_of(index.raw)
        lines = [
            verbatim(change.description, "bold"),
            verbatim(f"saves {change.bytes_saved:,} B · meter {before.bytes:,} → {after.bytes:,} B"
                     + (f" loaded by {after.loaded_by}" if after.loaded_by else "") + ", "
                     f"{ZONE_WORDS.get(after.zone, after.zone)} · " + (
                         f"{after.headroom_target:,} B headroom to the target" if after.headroom_target >= 0
                         else f"{-after.headroom_target:,} B over the target")),
        ]
        if refused:
            lines.append(verbatim("REFUSED by default — it would lose: " + "; ".join(refused), "bold $error"))
            lines.append(verbatim("Apply anyway only if that is what you want; the pointers panel will flag it.",
                                  "$error"))
        lines.extend(listing)
        for warning in change.warnings:
            lines.append(verbatim(f"warning: {warning}", "$warning"))
        for name in change.names:
            new = change.files[name]
            old = index.raw if name == INDEX_NAME else (read_bytes(store.path_of(name))
                                                         if store.exists(name) else b"")
            diff = "".join(difflib.unified_diff(
                old.decode("utf-8", "replace").splitlines(True),
                (new or b"").decode("utf-8", "replace").splitlines(True),
                fromfile=f"{name} (now)", tofile=f"{name} (after)", n=1))
            lines.append(diff_content(diff))
        return Content("\n").join(lines)

    def _show_disk_index(self) -> str:
        """After a refused change: the editor shows MEMORY.md as the writer left it."""
        store = self.screen.store
        if store is None or self.screen.dirty:
            return ""
        try:
            raw = store.read(INDEX_NAME)
        except CuratorError:
            return ""
        return "The editor now shows MEMORY.md as it is; try again." if self._shown_if_changed(raw) else ""

    def apply(self, change: Change, note: str = "") -> None:
        store = self.screen.store
        assert store is not None  # a plan is made only with the seat open (disk_index)
        try:
            store.apply(change)
        except ConflictError as err:
            self.app.notify(f"{err} {self._show_disk_index()}", title="Not applied: changed on disk",
                            severity="error", markup=False, timeout=10)
            return
        except CuratorError as err:
            self.app.notify(str(err), title="Not applied", severity="error", markup=False)
            return
        self.screen.change_applied(ChangeApplied(
            f"Applied: {change.description} (saved {change.bytes_saved:,} B).{note} "
            f"{self.screen.key('index.undo_change')} undoes it.", change.kind))


def trim_listing(plan: SelectionTrim, index: HotIndex) -> list[Content]:
    """Each selected entry by line and title: its trim and what it saves, or why it has none."""
    from curator.screens.change_words import title_of

    def named(entry_id: str) -> str:
        entry = index.entry(entry_id)
        return f"line {entry.line} '{title_of(entry)}'"

    lines = [verbatim(f"{named(t.entry_id)} — " + (f"split → {t.detail_file}" if t.kind == "split" else "tighten")
                      + f", saves {t.bytes_saved:,} B") for t in plan.trimmed]
    if plan.untrimmed:
        lines.append(verbatim(f"no safe trim ({len(plan.untrimmed)}), left as they are:", "bold $warning"))
        lines += [verbatim(f"{named(u.entry_id)} — {u.reason}", "$warning") for u in plan.untrimmed]
    return lines
