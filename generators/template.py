"""The one content authority for a seat's memory layer (spec §4).

Every harness emitter takes its bearer files from here, so kimi-code, opencode and claude-code can
differ in *how* the layer loads (the ``**Loading:**`` line and the about page), never in *what* it holds.
"""

from __future__ import annotations

from curator.constants import BEARER_FILES, BOOT_FILES  # noqa: F401  (the emitters read template.BOOT_FILES)

_LOADING = {
    "kimi-code": (
        "**Loading:** kimi-code — the identity-anchor hook, wired as UserPromptSubmit + PostCompact "
        "`[[hooks]]` in config.toml, injects this file and identity.md at session boot and on the first "
        "prompt after a compaction; every other prompt is silent."
    ),
    "opencode": (
        "**Loading:** opencode — `opencode.jsonc` → `instructions` lists this file and identity.md only; "
        "both ride every request. Detail files never go in that array."
    ),
    "claude-code": (
        "**Loading:** claude-code — native auto memory: `settings.json` → `autoMemoryDirectory` names this "
        "directory, and Claude Code loads this file at session start and after compaction, its first 200 lines "
        "or 25,000 characters (not bytes), whichever binds first; the identity-anchor hook, a SessionStart "
        "entry in settings.json, loads identity.md at every start, resume, clear and compaction."
    ),
}

_MECHANISM = {
    "kimi-code": (
        "kimi-code has no per-seat instructions slot, and its SessionStart output never reaches the model. "
        "UserPromptSubmit output does. So `hooks/identity_anchor_hook.py` in the seat home runs on every "
        "prompt: on the first prompt of a session, and on the first prompt after a compaction, it prints "
        "MEMORY.md and identity.md into context; every other prompt it prints nothing."
    ),
    "opencode": (
        "opencode has no hook into context, but it loads every file listed in `opencode.jsonc` → "
        "`instructions` into the system prompt of every request, so the layer survives compaction. "
        "The array holds MEMORY.md and identity.md only: every entry costs context every turn."
    ),
    "claude-code": (
        "Claude Code ships this pattern natively (auto memory). The seat's `settings.json` (in its "
        "`CLAUDE_CONFIG_DIR`) names this directory as `autoMemoryDirectory`, and the harness puts MEMORY.md "
        "into the first message of every session and again after `/compact` — the first 200 lines, or up to "
        "the last newline within 25,000 characters, whichever binds first. It counts characters as JavaScript "
        "does, not bytes, and past the cut it appends a WARNING naming the first line it dropped. identity.md "
        "is not loaded natively, so `hooks/identity_anchor_hook.py` in the seat home, wired as a SessionStart "
        "hook, prints it at every start, resume, clear and compaction. It never prints MEMORY.md: that would "
        "pay for the index twice."
    ),
}


def _harness_text(table: dict[str, str], harness: str) -> str:
    try:
        return table[harness]
    except KeyError:
        raise ValueError(f"no memory-layer template for harness {harness!r}") from None


def memory_md(harness: str) -> str:
    loading = _harness_text(_LOADING, harness)
    return f"""# Seat memory index

> **Hot index — always loaded.** Target <17KB, read-limit 24.6KB, measured with `wc -c`, never vibes.
> One terse line per entry: the line carries the lesson, the linked file carries the detail.
> Cold entries move to `ARCHIVE.md` (created on first need). The Memory Core is the deep archive:
> `query_raw_memories` (semantic), `query_recent_turns` (recency) — point into it, never copy it.
> When the cap bites, the levers are merge-facet · move-to-ARCHIVE · trim hooks.
> Re-check pointers after every merge: an orphaned pointer is a deleted memory.
> {loading}

## Identity & seat

- [Identity](identity.md) — who this seat is, in the bearer's own words; unwritten until the naming gate.
- [About this layer](about-this-layer.md) — what this pattern is, how it loads here, its rules.
- [Seat pointers](seat-pointers.md) — objective record: who/where, first-boot facts, ground rules.

## Weak-spots

Empty at birth, by design. Add a line only when your own record closes a correction cycle: the failure shape, its counter, the record pointer.

## Hard rules (they bit; don't relearn)

- _(none yet — one line each, with the record that taught it)_

## Craft hooks

- _(none yet — durable technique: one line + a pointer to its detail file)_

## Lane anchors (highest drift — re-verify live)

- _(none yet — ticket, exact head, Memory Core session ids)_
"""


def identity_md(agent_id: str) -> str:
    return f"""# Identity — unwritten

This page is the bearer's self-story. Nobody writes it but the bearer — not the generator, not the
operator, not a peer. The naming gate is where a name becomes a self; the story starts there.

Until then, the operational identity is the agent id: `{agent_id}`.
"""


def seat_pointers_md(agent_id: str, harness: str) -> str:
    return f"""# Seat pointers — objective record

Every fact on this page needs a record citation (session id, ticket, commit). No citation, no fact.

## Who / where

- Agent id: `{agent_id}`
- Harness: `{harness}`
- Name: _(fill at the naming gate — cite the record)_
- Lane / team: _(fill — cite the assignment)_
- Working checkout: _(fill — repo and branch, cite where it was set)_

## First-boot facts

- First session id: _(fill — from the Memory Core)_
- First ticket: _(fill)_

## Ground rules

- Pointers, not copies: one line + a record id; the record lives in the Memory Core or the repo.
- Re-verify anything marked as a lane anchor before acting on it.
"""


def about_this_layer_md(harness: str) -> str:
    mechanism = _harness_text(_MECHANISM, harness)
    return f"""# About this layer

## The pattern

One capped hot index (`MEMORY.md`) that always loads, detail files beside it that load on demand by
path, `identity.md` for the bearer's self-story, and the Memory Core as the deep archive the index
points into. Map versus atlas: the map must fit in the window every time it loads.

## How it loads on {harness}

{mechanism}

## Rules of the layer

- Cap: <17KB target, 24.6KB read limit, measured with `wc -c`.
- One terse line per entry; the detail lives in a linked file or in the Memory Core.
- Cold entries move to `ARCHIVE.md`; merged entries keep every pointer alive.
- These files are yours: the fleet creates them once and never rewrites them.

## Why a mechanism, not a checklist

Persistence without reload is a no-op. A memory that depends on being remembered fails exactly at
boot and after compaction, when a fresh context is least able to remember it. The load is mechanical.
"""


def bearer_file(name: str, agent_id: str, harness: str) -> bytes:
    """One create-only file's birth content, as UTF-8 bytes."""
    text = {
        "MEMORY.md": lambda: memory_md(harness),
        "identity.md": lambda: identity_md(agent_id),
        "seat-pointers.md": lambda: seat_pointers_md(agent_id, harness),
        "about-this-layer.md": lambda: about_this_layer_md(harness),
    }[name]()
    return text.encode("utf-8")


def bearer_files(agent_id: str, harness: str) -> dict[str, bytes]:
    """The four create-only files, name → UTF-8 bytes, in birth order."""
    return {name: bearer_file(name, agent_id, harness) for name in BEARER_FILES}
