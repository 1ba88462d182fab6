"""Seats and fleets for the app's Pilot and snapshot tests, built in tmp_path (no tests here).

Import what a test module needs: ``from test_app_fixtures import app_env, write_seat, ...`` — the
autouse ``app_env`` fixture then applies to that module too.
"""

from __future__ import annotations

from pathlib import Path

import pytest

HEADER = """# Seat memory index

> Hot index: target <17KB, read limit 24.6KB. One terse line per entry; detail in linked files.

## Identity & seat

- [Identity](identity.md) — the bearer's story, written by the bearer only
- [Seat pointers](seat-pointers.md) — who and where, with record citations

## Hard rules (they bit; don't relearn)

- Never force-push a shared branch [rule] — see [git notes](git.md)
- Run the full test suite before every push, see [ci notes](ci.md)
- Always run the full test suite before each push; details in [ci](ci-details.md)
- Keep `[brackets]` and [red]markup[/red] literal: memory text is not Textual markup

## Craft hooks

"""

LONG_ENTRY = (
    "- The parser's hot path is the tokenizer, see [perf notes](perf.md); in order to go faster we batched the "
    "allocations into slices, which cut the run time by a third, and the remaining cost sits in the regex for "
    "list markers, which could be replaced by a check on the first two bytes of each line\n"
)

VOCABULARY = (
    "cache invalidate shard replica quorum lease token budget hook anchor compaction boundary index archive "
    "ticket session worker queue retry backoff timeout socket schema migration rollback canary deploy "
    "pipeline fixture snapshot golden matrix harness config manifest resident operator bearer pointer "
    "ledger journal digest checksum mutex latch barrier epoch cursor window buffer frame codec parser"
).split()


def craft_line(n: int) -> str:
    """Distinct filler entries (no two alike) so merge candidates come only from the rules above."""
    import random

    rng = random.Random(n)
    words = " ".join(rng.sample(VOCABULARY, 14))
    return f"- craft {n}: {words} (ticket #{1000 + n})\n"


DETAIL_FILES = {
    "identity.md": "# Identity — unwritten\n",
    "seat-pointers.md": "# Seat pointers\n",
    "git.md": "# Git notes\n",
    "ci.md": "# CI notes\n",
    "ci-details.md": "# CI details\n",
    "perf.md": "# Perf notes\n",
}


def write_seat(memory_dir: Path, *, craft: int = 10) -> Path:
    """A seat: MEMORY.md (two near-duplicate rules, a long entry, ``craft`` filler lines) and its
    detail files. ``craft=160`` puts it over the 17,000 B target."""
    memory_dir.mkdir(parents=True, exist_ok=True)
    body = HEADER + LONG_ENTRY + "".join(craft_line(n) for n in range(1, craft + 1))
    (memory_dir / "MEMORY.md").write_text(body, encoding="utf-8")
    for name, text in DETAIL_FILES.items():
        (memory_dir / name).write_text(text, encoding="utf-8")
    return memory_dir


def write_fleet(root: Path, *, provision: bool = True) -> Path:
    """The generators' example fleet (one kimi-code, one opencode resident) under ``root``; provisioned
    with the composer unless ``provision`` is False. Returns the manifest path."""
    from generators.composer import apply_fleet
    from generators.manifest import example_manifest, load_manifest

    root.mkdir(parents=True, exist_ok=True)
    manifest = root / "fleet.toml"
    manifest.write_text(example_manifest(root), encoding="utf-8")
    fleet = load_manifest(manifest)
    for resident in fleet.residents:
        Path(resident.repo).mkdir(parents=True, exist_ok=True)
    if provision:
        apply_fleet(fleet)
    return manifest


def artifact_path(manifest: Path, name: str) -> Path:
    """The path of the first planned artifact called ``name`` (e.g. "opencode.jsonc")."""
    from generators.composer import plan_fleet
    from generators.manifest import load_manifest

    plans = plan_fleet(load_manifest(manifest))
    return next(a.path for p in plans for a in p.artifacts if a.path.name == name)


def make_divergent(manifest: Path) -> Path:
    """Hand-edit the opencode seat's owned `instructions`: a detail file added to the array."""
    path = artifact_path(manifest, "opencode.jsonc")
    text = path.read_text(encoding="utf-8")
    marker = '"instructions": ['
    assert marker in text
    path.write_text(text.replace(marker, marker + '\n    "/tmp/extra-notes.md",', 1), encoding="utf-8")
    return path


def unhandled(app) -> list:
    """Nodes (the app, any screen on the stack or widget in one) with a message not yet handled: a key
    still travelling from the focused widget up to its binding, a callback (``call_later``, a focus
    move), the screen's after-refresh callbacks. A key takes one queue per DOM level on its way, and
    Pilot's own wait (an idle process) can end before it arrives on a loaded machine."""
    nodes = [app, *(node for screen in app.screen_stack for node in screen.walk_children(with_self=True))]
    busy = [node for node in nodes
            if not node._message_queue.empty() or node._pending_message is not None or node._next_callbacks]
    return busy + ([app.screen] if app.screen._callbacks else [])  # a screen below runs them when shown again


async def settle(app, pilot) -> None:
    """Wait until the app says it is idle: every message handled (``unhandled``), workers (analysis,
    plans) and animations finished, and every screen that can tell (``is_settled``: panels mounted, the analysis
    shown is that of the editor's text, no debounce pending) says so. Waits on the app's state, never
    on a fixed time; the deadline only turns a hang into a readable failure."""
    import time

    deadline = time.monotonic() + 60
    while True:
        await pilot.pause()
        await app.workers.wait_for_complete()
        await app.animator.wait_until_complete()  # a scroll the last key started
        await pilot.pause()
        busy = unhandled(app)
        if not busy and all(getattr(screen, "is_settled", lambda: True)() for screen in app.screen_stack):
            return
        if time.monotonic() > deadline:
            raise AssertionError(f"the app never settled: {app.screen_stack}, messages pending in {busy[:5]}")
        await pilot.pause(0.02)  # a debounce timer is pending: let it fire


def key_event(key: str):
    """The Key event Pilot.press sends for ``key`` (a name such as "f2", "slash", or one character)."""
    import unicodedata

    from textual import events
    from textual.keys import REPLACED_KEYS, _character_to_key, _get_unicode_name_from_key

    if len(key) == 1 and not key.isalnum():
        key = _character_to_key(key)
    try:
        char = unicodedata.lookup(_get_unicode_name_from_key(REPLACED_KEYS.get(key, key)))
    except KeyError:
        char = key if len(key) == 1 else None
    return events.Key(key, char)


async def press_in_one_read(app, pilot, *keys: str) -> None:
    """Deliver ``keys`` as a terminal does in one read (tmux send-keys, or keys typed ahead while the
    app is busy): all are queued before the app handles the first. Pilot.press waits for an idle
    process between keys, and on a loaded machine that wait can end early, so this is what its keys
    may meet there, made certain. Then settle."""
    for key in keys:
        app.post_message(key_event(key))
    await settle(app, pilot)


async def no_idle_wait(min_sleep: float = 0, max_sleep: float = 1) -> None:
    """Pilot's idle check as a loaded machine can meet it: over before the app has run (one turn of
    the event loop). Its ``press`` then sends the next key before the last is handled."""
    import asyncio

    await asyncio.sleep(0)


@pytest.fixture(autouse=True)
def app_env(monkeypatch, tmp_path):
    """Render like a default terminal; keep the store's journal inside tmp_path. With
    SEAT_CURATOR_TEST_NO_IDLE=1, Pilot never waits for an idle process (``no_idle_wait``): the
    timing of a loaded CI machine at its worst, every time."""
    import os

    if os.environ.get("SEAT_CURATOR_TEST_NO_IDLE") == "1":
        import textual.app
        import textual.pilot

        monkeypatch.setattr(textual.app, "wait_for_idle", no_idle_wait)
        monkeypatch.setattr(textual.pilot, "wait_for_idle", no_idle_wait)
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.delenv("TEXTUAL_THEME", raising=False)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))  # no user keys.toml
