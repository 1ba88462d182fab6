"""What the identity-anchor hook injects, counted without running it.

The wrapper text lives only in the hook script; this module imports the script's own ``render`` so
the byte count can never drift from what the hook prints.
"""

from __future__ import annotations

from generators.scripts.identity_anchor_hook import NOTE_IDENTITY, TRIGGER_BOOT, TRIGGER_RELOAD, codex_output, render

__all__ = ["TRIGGER_BOOT", "TRIGGER_RELOAD", "injected", "injected_bytes", "injected_at_session_start",
           "codex_hook_output"]


def injected(memory_dir: str, files: dict[str, bytes], trigger: str = TRIGGER_BOOT, wake_route: bool = False) -> bytes:
    """The exact stdout of the hook at a boundary. ``files``: boot file name → content, in boot order,
    only the files that exist."""
    return render(str(memory_dir), list(files.items()), trigger, wake_route)


def injected_bytes(memory_dir: str, files: dict[str, bytes], trigger: str = TRIGGER_BOOT, wake_route: bool = False) -> int:
    return len(injected(memory_dir, files, trigger, wake_route))


def injected_at_session_start(memory_dir: str, files: dict[str, bytes], source: str = "startup") -> bytes:
    """The exact stdout of a Claude Code seat's hook on SessionStart (``source``: startup, resume,
    clear or compact). ``files``: the hook's boot files (identity.md) that exist."""
    trigger = TRIGGER_RELOAD if source == "compact" else TRIGGER_BOOT
    return render(str(memory_dir), list(files.items()), trigger, False, NOTE_IDENTITY)


def codex_hook_output(memory_dir: str, files: dict[str, bytes], source: str = "startup") -> bytes:
    """The exact stdout of a Codex seat's hook on SessionStart: JSON whose
    ``hookSpecificOutput.additionalContext`` is the block (MEMORY.md and identity.md) the model gets."""
    trigger = TRIGGER_RELOAD if source == "compact" else TRIGGER_BOOT
    return codex_output(render(str(memory_dir), list(files.items()), trigger, False))
