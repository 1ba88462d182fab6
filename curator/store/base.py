"""What every part of the seat store shares: its dirs, what it has seen, the journal's two lists,
and the operations one part calls in another. ``SeatStore`` is built from these parts (journal,
blobs, writing, carrying out, history), each a class of its own over this base."""

from __future__ import annotations

from contextlib import AbstractContextManager
from pathlib import Path

from curator.store.records import AppliedChange, Fingerprint

Move = tuple[str, bytes | None, bytes | None]  # (name, old bytes, new bytes); None: absent
Written = dict[str, tuple[bytes | None, bytes | None]]  # name -> (replaced, written), as on disk
JournalLists = tuple[list[AppliedChange], list[AppliedChange]]  # (done, undone), as kept to restore them


class StoreBase:
    memory_dir: Path
    state_dir: Path
    _seen: dict[str, Fingerprint]
    _done: list[AppliedChange]  # oldest first; the last is what undo reverts
    _undone: list[AppliedChange]  # the last is what redo re-applies

    # Each is defined by one part (named in brackets) and called by others.
    def path_of(self, name: str) -> Path:  # [SeatStore]
        raise NotImplementedError

    def _current(self, name: str) -> tuple[bytes | None, Fingerprint]:  # [SeatStore]
        raise NotImplementedError

    def _locked(self) -> AbstractContextManager[float]:  # [SeatStore]
        raise NotImplementedError

    def _fingerprint(self, name: str, data: bytes | None) -> Fingerprint:  # [SeatStore]
        raise NotImplementedError

    def _save_error(self, err: BaseException, name: str | None) -> BaseException:  # [SeatStore]
        raise NotImplementedError

    def _load_journal(self) -> None:  # [JournalKeeping]
        raise NotImplementedError

    def _save_journal(self, *, written: bool = False) -> None:  # [JournalKeeping]
        raise NotImplementedError

    def _put_blob(self, data: bytes | None) -> None:  # [BlobKeeping]
        raise NotImplementedError

    def _get_blob(self, sha: str | None) -> bytes | None:  # [BlobKeeping]
        raise NotImplementedError

    def _collect_blobs(self) -> None:  # [BlobKeeping]
        raise NotImplementedError

    def _settle(self, name: str, expect: bytes | None, want: bytes | None, mode: int,
                *, carry_appends: bool = False) -> tuple[bytes | None, bytes | None]:  # [FileWriting]
        raise NotImplementedError

    def _carry_out(self, entry: AppliedChange, moves: list[Move], history: JournalLists,
                   *, carry_appends: bool = False) -> Written:  # [CarryingOut]
        raise NotImplementedError
