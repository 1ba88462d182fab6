"""`seat-curator archive DIR ID` refuses the template's identity lines, as fit never archives them:
one line naming the entry, a non-zero exit, every file as it was. The template's header has no id."""

from __future__ import annotations

from pathlib import Path

import pytest

from curator.cli import main
from curator.index_model import parse_index
from curator.levers.archive import heading_id
from curator.levers.merge import IDENTITY_SECTION
from generators import template
from tests.support.seats import seat
DETAILS = {"identity.md": "# Identity — unwritten\n", "about-this-layer.md": "# About\n",
           "seat-pointers.md": "# Seat pointers\n"}


@pytest.fixture
def born(tmp_path: Path) -> tuple[Path, list[str]]:
    raw = template.memory_md("kimi-code").encode()
    raw = raw.replace(b"- _(none yet \xe2\x80\x94 durable technique", b"- Warm the cache first.\n- _(none yet \xe2\x80\x94 durable technique")
    return seat(tmp_path / "memory", raw, **DETAILS), ["--state-dir", str(tmp_path / "state")]


def _files(memory: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(memory.iterdir())}


def test_every_identity_line_is_refused_by_id_naming_it(born, capsys) -> None:
    memory, state = born
    index = parse_index((memory / "MEMORY.md").read_bytes())
    identity = [e for e in index.entries if e.section == IDENTITY_SECTION]
    assert len(identity) == 3
    before = _files(memory)
    for entry in identity:
        assert main(["archive", str(memory), entry.id, *state]) == 1
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and entry.id in err and "identity lines" in err and "MEMORY.md" in err
        assert _files(memory) == before


def test_an_identity_line_among_other_ids_refuses_the_whole_archive(born, capsys) -> None:
    memory, state = born
    index = parse_index((memory / "MEMORY.md").read_bytes())
    craft = next(e for e in index.entries if "Warm the cache" in e.text)
    identity = next(e for e in index.entries if e.section == IDENTITY_SECTION)
    before = _files(memory)
    assert main(["archive", str(memory), craft.id, identity.id, *state]) == 1
    assert identity.id in capsys.readouterr().err
    assert _files(memory) == before
    assert main(["archive", str(memory), craft.id, *state]) == 0  # any other entry still goes
    assert b"Warm the cache" not in (memory / "MEMORY.md").read_bytes()


def test_the_template_header_has_no_id_to_give(born, capsys) -> None:
    memory, state = born
    index = parse_index((memory / "MEMORY.md").read_bytes())
    header_lines = range(1, index.sections[1].start + 1)  # the title and its blockquote
    assert not [e for e in index.entries if e.line in header_lines]
    before = _files(memory)
    assert main(["archive", str(memory), heading_id("Seat memory index"), *state]) == 1
    assert "no entry with id" in capsys.readouterr().err
    assert _files(memory) == before
