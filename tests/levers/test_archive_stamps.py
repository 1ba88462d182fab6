"""ARCHIVE.md stamps: the short form written now (date for people, place for restore in an HTML
comment), and the long form written before, which still reads the same and restores the same bytes."""

from __future__ import annotations

import re
from datetime import date

from curator.index_model import parse_index
from curator.levers.archive import STAMP, plan_archive, plan_restore

DAY = date(2026, 11, 29)
INDEX = ("# Seat memory index\n\n## Craft hooks\n\n- first lesson\n- second lesson\n\n"
         "A paragraph lesson that runs\nover two lines.\n\n- third lesson\n\n## Lane anchors\n\n- only anchor\n")


def long_form(line: str) -> str:
    """The same stamp as the old writer put it: `` · after X · before Y · cut G:H:AB · heading dropped``."""
    found = STAMP.search(line)
    parts = [f" · archived {found.group('day')}"]
    parts += [f" · after {found.group('after')}"] if found.group("after") else []
    parts += [f" · before {found.group('before')}"] if found.group("before") else []
    if found.group("sep_above") is not None:
        parts.append(f" · cut {found.group('gap_after')}:{found.group('gap_before')}:"
                     f"{found.group('sep_above')}{found.group('sep_below')}")
    if found.group("dropped"):
        parts.append(" · heading dropped" + (f" before {found.group('next_heading')}" if found.group("next_heading") else ""))
    return STAMP.sub("".join(parts), line, count=1)


def test_new_stamps_are_short_and_keep_the_place_in_a_comment(tmp_path):
    index = parse_index(INDEX.encode())
    paragraph = next(e for e in index.entries if e.kind == "paragraph")
    change = plan_archive(tmp_path, index, [paragraph.id], today=DAY)
    archived = change.files["ARCHIVE.md"].decode()
    stamp = re.search(r" · archived 2026-11-29 <!-- [^>]* -->", archived)
    assert stamp is not None and "· after" not in archived and "· cut" not in archived
    found = STAMP.search(archived.splitlines()[-2] if archived.endswith("\n") else archived)
    assert found is None or found.group("day") == "2026-11-29"


def test_old_stamps_still_parse_and_restore_the_same_bytes(tmp_path):
    index = parse_index(INDEX.encode())
    for entry in index.entries:
        drop = entry.section == "Lane anchors"
        change = plan_archive(tmp_path, index, [entry.id], today=DAY, drop_empty_sections=drop)
        (tmp_path / "ARCHIVE.md").write_bytes(change.files["ARCHIVE.md"])
        after = parse_index(change.files["MEMORY.md"])
        archive = parse_index(change.files["ARCHIVE.md"])
        moved = archive.entries[-1]
        short = plan_restore(tmp_path, after, moved.id).files["MEMORY.md"]
        first = moved.text.split("\n", 1)[0]
        found = STAMP.search(first)
        assert found is not None and found.group("day") == "2026-11-29"
        old = change.files["ARCHIVE.md"].decode().replace(first, long_form(first))
        assert "<!--" not in old
        (tmp_path / "ARCHIVE.md").write_text(old)
        old_id = parse_index(old.encode()).entries[-1].id
        assert plan_restore(tmp_path, after, old_id).files["MEMORY.md"] == short
        if not drop:  # (a dropped last heading comes back without its blank line: the same either form)
            assert short == INDEX.encode()
        (tmp_path / "ARCHIVE.md").unlink()
