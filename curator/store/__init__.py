"""The seat store: the only writer of a seat's memory files.

It applies a ``Change`` atomically per file (curator.fsio), keeps file modes, refuses to overwrite a
file that changed on disk since it last read or wrote it (the agent may be writing its own memory at
the same moment), and keeps a journal of applied changes outside the memory dir, so undo and redo
restore byte-identical files, also after a restart.

Journal layout (in the state dir, one per memory dir): ``journal.json`` (entries with the sha256 of
every file before and after) and ``blobs/<sha256>`` (the bytes). Every journal write is atomic.
An entry is journalled as ``pending`` (``undoing``, ``redoing``) before any file is touched and
marked ``applied`` (``undone``) after the last one. A crash in between leaves a record the next
``open`` settles when no file or every file was reached; a change left half-way is *interrupted*:
``interrupted_change()`` describes it (``seat-curator check`` reports it), ``undo`` rolls it back,
``redo`` finishes it, and no new change is applied until one of them has run.

Every file is written so that nothing anyone else writes to it meanwhile is dropped (``_settle``):
the file is re-checked right before the rename, and what the rename replaced is compared with what
the change was based on afterwards; if it differs, the replaced file is put back and the change is
refused (FILE_CHANGED_ON_DISK). Files that receive text are written before files that give it up
(``write_order``), so a crash between two files leaves moved text in two places, never in none.

The rooms: ``records`` (what is journalled), ``seat_files`` (paths and reads), ``journal``,
``blobs`` (undo copies), ``lock``, ``inspection`` (read-only views), ``writing`` (one guarded file
write), ``history`` (undo/redo) and ``seat_store`` (``SeatStore``).
"""

from curator.store.inspection import (InterruptedChange, SeatState, interrupted_change, seat_state,
                                      state_leftovers)
from curator.store.journal import JOURNAL_VERSION, MAX_HISTORY
from curator.store.lock import LOCK_TIMEOUT_S
from curator.store.records import ABSENT, IN_TRANSITION, AppliedChange, FileStep, Fingerprint, JournalState, Side
from curator.constants import INDEX_NAME
from curator.store.seat_files import NEW_FILE_MODE, default_state_dir, write_order
from curator.store.seat_store import SeatStore

__all__ = ["ABSENT", "IN_TRANSITION", "INDEX_NAME", "JOURNAL_VERSION", "LOCK_TIMEOUT_S", "MAX_HISTORY",
           "NEW_FILE_MODE", "AppliedChange", "FileStep", "Fingerprint", "InterruptedChange", "JournalState",
           "SeatState", "SeatStore", "Side", "default_state_dir", "interrupted_change", "seat_state", "state_leftovers", "write_order"]
