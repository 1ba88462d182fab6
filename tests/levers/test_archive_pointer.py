"""ARCHIVE.md stays within reach: the change that first uses it adds one line to MEMORY.md linking it
(in the template's pointer section when there is one, else at the end), and the last restore takes it
back out, byte for byte."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from curator.errors import InputError
from curator.index_model import parse_index
from curator.levers.archive import ARCHIVE_POINTER, links_archive, plan_archive, plan_restore
from curator.store import SeatStore

DAY = date(2026, 12, 1)
PLAIN = "# Notes\n\n## Lane anchors\n\n- queue migrated — done\n- keep the lane green\n\n## Rules\n\nParagraph rule.\n"
TEMPLATE = ("# Seat memory index\n\n> header\n\n## Identity & seat\n\n- [Identity](identity.md) — who.\n\n"
            "## Lane anchors\n\n- queue migrated — done\n- keep the lane green\n")


def _seat(tmp_path: Path, text: str, newline: str = "\n") -> tuple[Path, SeatStore, bytes]:
    memory = tmp_path / "memory"
    memory.mkdir()
    raw = text.replace("\n", newline).encode()
    (memory / "MEMORY.md").write_bytes(raw)
    (memory / "identity.md").write_text("# Identity\n")
    return memory, SeatStore.open(memory, state_dir=tmp_path / "state"), raw


def _archive(memory: Path, store: SeatStore, text: str) -> bytes:
    index = parse_index(store.read("MEMORY.md"))
    (entry,) = [e for e in index.entries if e.text.endswith(text)]
    store.apply(plan_archive(memory, index, [entry.id], today=DAY))
    return store.read("MEMORY.md")


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_the_first_archive_links_archive_md_at_the_end(tmp_path, newline):
    memory, store, raw = _seat(tmp_path, PLAIN, newline)
    after = _archive(memory, store, "queue migrated — done")
    nl = newline.encode()
    assert after.endswith(b"Paragraph rule." + nl + b"- " + ARCHIVE_POINTER.encode() + nl)
    assert links_archive(parse_index(after))
    again = _archive(memory, store, "keep the lane green")  # a second archive adds no second line
    assert again.count(ARCHIVE_POINTER.encode()) == 1


def test_in_the_template_the_line_joins_the_pointer_lines(tmp_path):
    memory, store, raw = _seat(tmp_path, TEMPLATE)
    after = _archive(memory, store, "queue migrated — done").decode()
    assert f"- [Identity](identity.md) — who.\n- {ARCHIVE_POINTER}\n\n## Lane anchors" in after


def test_an_index_that_links_archive_md_already_gets_no_line(tmp_path):
    memory, store, raw = _seat(tmp_path, PLAIN + "\nOld entries: [archive](ARCHIVE.md).\n")
    after = _archive(memory, store, "queue migrated — done")
    assert ARCHIVE_POINTER.encode() not in after


@pytest.mark.parametrize("text", [PLAIN, TEMPLATE, PLAIN.rstrip("\n")])
def test_restoring_the_last_entry_gives_back_every_byte(tmp_path, text):
    memory, store, raw = _seat(tmp_path, text)
    archived = _archive(memory, store, "queue migrated — done")
    (entry,) = parse_index((memory / "ARCHIVE.md").read_bytes()).entries
    store.apply(plan_restore(memory, parse_index(archived), entry.id))
    assert store.read("MEMORY.md") == raw


def test_the_line_itself_is_never_archived(tmp_path):
    memory, store, raw = _seat(tmp_path, PLAIN)
    after = parse_index(_archive(memory, store, "queue migrated — done"))
    (line,) = [e for e in after.entries if ARCHIVE_POINTER in e.text]
    with pytest.raises(InputError, match="leads to ARCHIVE.md"):
        plan_archive(memory, after, [line.id], today=DAY)


def test_fit_only_asks_and_the_archive_it_asks_about_adds_the_line_in_the_same_change(tmp_path):
    from curator.levers.fit import plan_fit

    done = "".join(f"- queue {n} migrated to the new broker after the long drill — done\n" for n in range(6))
    memory, store, raw = _seat(tmp_path, PLAIN.replace("- queue migrated — done\n", done))
    needed = plan_fit(memory, parse_index(raw), target=len(raw) - 200, today=DAY)
    assert "archive" not in [s.kind for s in needed.steps]  # fit never archives on its own
    assert needed.change is None or ARCHIVE_POINTER.encode() not in needed.change.files["MEMORY.md"]
    plan = plan_fit(memory, parse_index(raw), target=len(raw), today=DAY)  # under the target: only asked
    (question,) = [q for q in plan.questions if q.kind == "archive"]
    assert len(question.entry_ids) == 6
    # The bearer's answer is the archive lever on those ids: it writes the line to ARCHIVE.md with them.
    change = plan_archive(memory, parse_index(raw), list(question.entry_ids), today=DAY)
    assert ARCHIVE_POINTER.encode() in change.files["MEMORY.md"]
