"""Errors as values users can read: a code, a message naming the file, and files left as found."""

from __future__ import annotations

import errno
from pathlib import Path


class CuratorError(Exception):
    """A failure the user can act on. ``code`` is stable for scripts; ``path`` names the file."""

    code = "CURATOR_ERROR"
    exit_code = 1

    def __init__(self, message: str, *, path: str | Path | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.path = str(path) if path is not None else None

    def __str__(self) -> str:  # one line, naming the file when there is one
        # Prefixed unless the message already starts with it: a short name such as "loop" may well
        # occur inside the message without naming the file.
        if self.path and not self.message.startswith(self.path):
            return f"{shown_path(self.path)}: {self.message}"
        if self.path:
            return shown_path(self.path) + self.message[len(self.path):]
        return self.message


_CONTROL = {code: f"\\x{code:02x}" for code in (*range(0x20), 0x7f)} | {0x0a: "\\n", 0x0d: "\\r", 0x09: "\\t"}


def shown_path(path: str | Path) -> str:
    """A path as one line of text: control characters (a newline in a file name) as backslash
    escapes, as ``ls -b`` shows them."""
    return str(path).translate(_CONTROL)


class InputError(CuratorError):
    """Bad input: missing, unreadable, not UTF-8, too large, a symlink where a file is expected."""

    code = "INPUT_ERROR"


class ConflictError(CuratorError):
    """A file changed on disk since it was loaded; nothing was written."""

    code = "FILE_CHANGED_ON_DISK"


# Each code a caller may need to tell apart is a class: callers catch it by type, never by its string.


class ArgumentError(CuratorError):
    """A command-line argument out of range or not text; nothing was read or written."""

    code = "BAD_ARGUMENTS"


class NoMemoryFoundError(InputError):
    """No memory directory given and none found where one is looked for."""

    code = "NO_MEMORY_FOUND"


class SaveError(CuratorError):
    """A write failed part-way (disk full, read-only, permissions): the journal says what to do next."""

    code = "SAVE_FAILED"


class StoreBusyError(CuratorError):
    """Another curator holds the seat's lock."""

    code = "STORE_BUSY"


class NothingToChangeError(CuratorError):
    """The change would leave every file as it is."""

    code = "NOTHING_TO_CHANGE"


class NothingToSettleError(CuratorError):
    """``settle`` was asked for with no interrupted change."""

    code = "NOTHING_TO_SETTLE"


class ChangeInterruptedError(CuratorError):
    """An earlier change stopped half-way; it must be undone, redone or settled first."""

    code = "CHANGE_INTERRUPTED"


class NothingToUndoError(CuratorError):
    """``undo`` was asked for with no applied change in the journal."""

    code = "NOTHING_TO_UNDO"


class NothingToRedoError(CuratorError):
    """``redo`` was asked for with no undone (nor interrupted) change in the journal."""

    code = "NOTHING_TO_REDO"


class SeatBusyError(CuratorError):
    """Claude Code's background consolidation holds the memory dir's lock; nothing was written."""

    code = "SEAT_BUSY"


class TooLargeError(InputError):
    """A file past the size a command works on (curator.bounds); nothing was read into it."""

    code = "TOO_LARGE"


def from_os_error(err: OSError, doing: str, *, path: str | Path | None = None,
                  cls: type[CuratorError] = InputError) -> CuratorError:
    """An OSError as a one-line coded error naming the file: "<path>: cannot read: Permission
    denied (EACCES)". Reads are an InputError, writes pass ``cls=SaveError``."""
    name = errno.errorcode.get(err.errno or 0, "")
    reason = err.strerror or str(err)
    where = path if path is not None else err.filename
    return cls(f"{doing}: {reason}" + (f" ({name})" if name else ""), path=where)
