"""Errors as values users can read: a code, a message naming the file, and files left as found."""

from __future__ import annotations

import errno
from pathlib import Path


class CuratorError(Exception):
    """A failure the user can act on. ``code`` is stable for scripts; ``path`` names the file."""

    code = "CURATOR_ERROR"
    exit_code = 1

    def __init__(self, message: str, *, path: str | Path | None = None, code: str | None = None):
        super().__init__(message)
        self.message = message
        self.path = str(path) if path is not None else None
        if code is not None:
            self.code = code

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


def from_os_error(err: OSError, doing: str, *, path: str | Path | None = None, code: str | None = None,
                  cls: type[CuratorError] | None = None) -> CuratorError:
    """An OSError as a one-line coded error naming the file: "<path>: cannot read: Permission
    denied (EACCES)". Reads become InputError, writes pass ``code="SAVE_FAILED"``."""
    name = errno.errorcode.get(err.errno or 0, "")
    reason = err.strerror or str(err)
    where = path if path is not None else err.filename
    kind = cls or (CuratorError if code else InputError)
    return kind(f"{doing}: {reason}" + (f" ({name})" if name else ""), path=where, code=code)
