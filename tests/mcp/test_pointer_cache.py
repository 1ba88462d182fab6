"""The pointer report before a write, reused from the previous write only while the memory dir is
as that report saw it: a write reports exactly the pointer problems it created, never ones that
someone else's edit made in between."""

from __future__ import annotations

import os

from curator.mcp import memory_tool, report
from curator.mcp.pointer_cache import dir_state
from curator.mcp.seat import Seat
from tests.support.mcp import seat


def problems(text: str) -> list[str]:
    return [line for line in text.split("\n") if line.startswith("pointer problem: ")]


def edit(memory_seat: Seat, old: str, new: str) -> str:
    return memory_tool.str_replace(memory_seat, "/memories/MEMORY.md", old, new)


def test_the_report_before_a_write_is_the_last_writes_report_while_nothing_else_moved(tmp_path, monkeypatch):
    memory, state = seat(tmp_path)
    memory_seat = Seat(memory, state_dir=state)
    made = []
    check = report.pointer_report
    monkeypatch.setattr(report, "pointer_report", lambda *args: made.append(args) or check(*args))
    edit(memory_seat, "beta lesson", "beta lesson, first edit")
    assert len(made) == 2  # before and after: nothing to reuse yet
    edit(memory_seat, "first edit", "second edit")
    assert len(made) == 3  # after only: the dir is as the first write's "after" saw it


def test_an_edit_made_between_two_writes_is_not_blamed_on_the_second(tmp_path):
    memory, state = seat(tmp_path)
    memory_seat = Seat(memory, state_dir=state)
    assert problems(edit(memory_seat, "beta lesson", "beta lesson, edited")) == []
    (memory / "loose.md").write_text("# Not linked\n")  # an orphan the bearer made, not the write
    (memory / "alpha.md").unlink()  # the index's link to it dangles now, also not the write's doing
    assert problems(edit(memory_seat, "edited", "edited again")) == []
    # What a write does create is still said.
    assert problems(edit(memory_seat, "- beta lesson", "- [Gamma](gamma.md) beta lesson")) == [
        "pointer problem: a link to gamma.md now points nowhere"]


def test_dir_state_moves_with_what_the_pointer_check_reads(tmp_path):
    memory, _state = seat(tmp_path, **{"topics/a.md": "a\n"})
    first = dir_state(memory)
    (memory / "MEMORY.md").write_text("# Rewritten\n")  # given to the check as bytes, never read by it
    (memory / ".hidden.md").write_text("x\n")  # skipped by the check
    assert dir_state(memory) == first
    changes = [lambda: (memory / "topics" / "a.md").write_text("a longer text\n"),
               lambda: (memory / "topics" / "b.md").write_text("b\n"),
               lambda: (memory / "linked").symlink_to(memory / "topics"),
               lambda: (os.unlink(memory / "linked"), (memory / "linked").symlink_to(tmp_path)),
               lambda: (memory / "topics" / "deeper").mkdir()]
    seen = [first]
    for change in changes:
        change()
        now = dir_state(memory)
        assert now not in seen
        seen.append(now)
