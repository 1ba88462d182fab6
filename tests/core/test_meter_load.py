"""Byte meter zones and headroom; the load simulation of every harness profile."""

from __future__ import annotations

import pytest

import hashlib
import json

from curator import claude_loader
from curator.cli import main
from curator.index_model import parse_index
from curator.load_sim import CLAUDE_CHAR_CAP, PROFILES, kimi_injected_bytes, simulate
from curator.meter import Limits, claude_code_budget, count_lines, measure
from generators.scripts.identity_anchor_hook import render
from tests.support.claude_indexes import ascii_index_cut_at_127, korean_index, loader_cases
from tests.support.paths import DATA

RECORDED_LOADS = DATA / "claude-code-memory-loads.json"

# -- meter ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("size", "zone"),
    [(0, "ok"), (17_000, "ok"), (17_001, "over-target"), (24_600, "over-target"), (24_601, "over-limit")],
)
def test_zones_at_the_boundaries(size: int, zone: str) -> None:
    meter = measure(b"x" * size)
    assert meter.zone == zone
    assert meter.bytes == size
    assert meter.headroom_target == 17_000 - size
    assert meter.headroom_read_limit == 24_600 - size


def test_bytes_are_utf8_bytes_and_lines_match_the_model() -> None:
    raw = "# ü\r\n- 🌈\nlast without newline".encode("utf-8")
    from_bytes, from_index = measure(raw), measure(parse_index(raw))
    assert from_bytes == from_index
    assert from_bytes.bytes == len(raw) == 33
    assert from_bytes.lines == 3 == count_lines(raw)


def test_custom_limits_and_bad_limits() -> None:
    meter = measure(b"x" * 150, Limits(target=100, read_limit=200))
    assert (meter.zone, meter.headroom_target, meter.headroom_read_limit) == ("over-target", -50, 50)
    with pytest.raises(ValueError):
        Limits(target=300, read_limit=200)
    with pytest.raises(ValueError):
        Limits(target=0)


# -- load simulation --------------------------------------------------------------------------------


def numbered_index(count: int, width: int = 10, section_every: int = 50) -> bytes:
    lines = []
    for n in range(1, count + 1):
        if n % section_every == 1:
            lines.append(f"## S{n}")
        else:
            lines.append(f"- e{n:04d} " + "x" * width)
    return ("\n".join(lines) + "\n").encode()


def test_claude_code_line_cap_binds_first() -> None:
    raw = numbered_index(260)
    index = parse_index(raw)
    load = simulate(index, None, "claude-code")
    cut = sum(len(line.raw) for line in index.lines[:200])
    assert (load.cut_line, load.cut_offset, load.loaded_bytes, load.line_cap) == (200, cut, cut, 200)
    assert load.total_bytes == len(raw)
    assert [e.line for e in load.dropped] == [n for n in range(201, 261) if n % 50 != 1]
    assert load.dropped[0].section == "S201" and load.dropped[0].text.startswith("- e0202")
    assert load.partial is None
    assert "200-line cap" in load.note
    assert load.warning == ("> WARNING: MEMORY.md is 260 lines (limit: 200). Only part of it was loaded: "
                            '60 of 260 lines were cut off, starting at line 201 ("## S201"). Keep index entries '
                            "to one line under ~200 chars; move detail into topic files.")


def test_claude_code_character_cap_binds_first_and_cuts_at_the_last_newline() -> None:
    raw = numbered_index(150, width=300)  # 150 ASCII lines, ~46 KB: characters and bytes agree
    index = parse_index(raw)
    load = simulate(index, None, "claude-code")
    # lastIndexOf("\n", 25000): a newline at index 25,000 itself still counts.
    expected = raw.rfind(b"\n", 0, CLAUDE_CHAR_CAP + 1) + 1
    assert load.loaded_bytes == expected == load.cut_offset
    assert raw[load.cut_offset - 1 : load.cut_offset] == b"\n"
    assert load.cut_line == raw[:expected].count(b"\n")
    assert all(e.offset >= expected for e in load.dropped)
    assert len(load.dropped) == sum(1 for e in index.entries if e.offset >= expected)
    assert "25,000-character cap" in load.note
    assert f"starting at line {load.cut_line + 1} " in load.warning


def test_claude_code_counts_characters_not_bytes_a_korean_index_loads_whole() -> None:
    """122 lines, 37,687 B of Hangul (3 bytes, 1 character each): the real CLI loads all of it."""
    raw = korean_index()
    assert (len(raw), raw.count(b"\n")) == (37_687, 122)
    load = simulate(parse_index(raw), None, "claude-code")
    assert (load.cut_line, load.cut_offset, load.dropped, load.partial, load.warning) == (None, None, (), None, None)
    assert load.loaded_bytes == len(raw)
    assert "all 122 lines" in load.note and "14,438 characters" in load.note


def test_claude_code_ascii_index_is_cut_after_line_127_as_the_harness_says() -> None:
    raw = ascii_index_cut_at_127()  # 152 lines, 29,857 B
    index = parse_index(raw)
    load = simulate(index, None, "claude-code")
    assert (load.cut_line, load.cut_offset, load.loaded_bytes) == (127, 24_881, 24_881)
    assert [e.line for e in load.dropped] == list(range(128, 153))
    assert load.partial is None
    assert load.warning.startswith('> WARNING: MEMORY.md is 29.2KB (limit: 24.4KB) \u2014 index entries are too '
                                   'long. Only part of it was loaded: 25 of 152 lines were cut off, starting at '
                                   'line 128 ("- later 128 zzz')


@pytest.mark.parametrize("name", sorted(loader_cases()))
def test_claude_code_rule_gives_what_the_real_cli_sent(name: str) -> None:
    """Every case recorded from @anthropic-ai/claude-code@2.1.328: the text that reached the model
    (as a digest) and its WARNING line. tests/canary/test_real_clis.py re-records them against the CLI."""
    recorded = json.loads(RECORDED_LOADS.read_text(encoding="utf-8"))["cases"][name]
    load = claude_loader.load_bytes(loader_cases()[name])
    wire = claude_loader.on_the_wire(load.content)
    assert load.warning == recorded["warning"]
    assert claude_loader.units(wire) == recorded["characters"]
    assert hashlib.sha256(wire.encode("utf-8", "surrogatepass")).hexdigest() == recorded["sha256"]


def test_claude_code_cut_offsets_are_in_the_file_even_past_frontmatter_comments_and_blank_lines() -> None:
    head = "---\nname: index\n---\n\n\n<!-- fleet note\nspanning lines -->\n"
    body = "".join(f"- e{n:03d} " + "ü" * 20 + "\n" for n in range(1, 231))
    raw = (head + body).encode()
    index = parse_index(raw)
    load = simulate(index, None, "claude-code")
    # The harness counts 200 lines of the body; the file cut sits right after its 200th entry line.
    cut = len((head + "".join(body.splitlines(True)[:200])).encode())
    assert load.cut_offset == cut
    # What loads is counted without the frontmatter and the comment block the harness strips first.
    hidden = len(b"---\nname: index\n---\n") + len(b"<!-- fleet note\nspanning lines -->\n")
    assert load.loaded_bytes == cut - hidden
    assert raw[cut:].startswith(b"- e201 ")
    assert load.dropped[0].text.startswith("- e201 ") and len(load.dropped) == 30
    assert "starting at line 201 (\"- e201 " in load.warning


def test_claude_code_cut_inside_the_first_line() -> None:
    raw = ("é" * 30_000 + "\n- second\n").encode()
    load = simulate(parse_index(raw), None, "claude-code")
    assert load.cut_offset == len(("é" * 25_000).encode()) and load.cut_line == 0
    assert "everything after the first 25000 characters of line 1 was cut off" in load.warning
    assert "only the first 25,000 characters of line 1 load" in load.note


def test_claude_code_size_format_and_excerpt_follow_the_harness() -> None:
    assert [claude_loader.format_size(n) for n in (1023, 1024, 25_000, 29_856, 1536, 2 * 1024 * 1024)] == [
        "1023 bytes", "1KB", "24.4KB", "29.2KB", "1.5KB", "2MB"]
    words = "word " * 30
    assert claude_loader.excerpt(words) == ("word " * 15).rstrip() + "\u2026"
    assert claude_loader.excerpt("x" * 100) == "x" * 79 + "\u2026"
    assert claude_loader.excerpt("short") == "short"
    assert claude_loader.units("a\U0001F308é") == 4


def test_claude_code_budget_counts_lines_and_characters_as_the_harness() -> None:
    budget = claude_code_budget(korean_index())
    assert (budget.lines, budget.line_cap, budget.chars, budget.char_cap, budget.over) == (122, 200, 14_438, 25_000, False)
    assert budget.describe() == "claude-code 122/200 lines · 14,438/25,000 chars"
    emoji = claude_code_budget("\n- 🌈🌈\n\n".encode())  # trimmed: one line of 6 units
    assert (emoji.lines, emoji.chars, emoji.lines_left, emoji.chars_left) == (1, 6, 199, 24_994)
    over = claude_code_budget(ascii_index_cut_at_127())
    assert over.over and over.chars == 29_856 and over.describe().endswith("· CUT")
    assert claude_code_budget(numbered_index(201)).over
    assert claude_code_budget(b"---\nname: x\n---\n- one\n").lines == 1  # frontmatter is never counted
    assert claude_code_budget(b"").lines == 0


def test_check_profile_claude_code_agrees_with_the_harness(tmp_path, capsys) -> None:
    for name, raw, cut_line in (("korean", korean_index(), None), ("ascii", ascii_index_cut_at_127(), 127)):
        memory = tmp_path / name
        memory.mkdir()
        (memory / "MEMORY.md").write_bytes(raw)
        main(["check", str(memory), "--profile", "claude-code", "--json"])
        report = json.loads(capsys.readouterr().out)
        load = report["profiles"]["claude-code"]
        assert load["cut_line"] == cut_line
        assert len(load.get("dropped", [])) == (0 if cut_line is None else 25)


def test_claude_code_partial_entry_when_the_cut_splits_continuation_lines() -> None:
    body = [f"- e{n}" for n in range(1, 199)] + ["- long entry", "  continuation 1", "  continuation 2", "- after"]
    index = parse_index(("\n".join(body) + "\n").encode())
    load = simulate(index, None, "claude-code")
    assert load.cut_line == 200
    assert load.partial is not None and load.partial.text.startswith("- long entry")
    assert [e.text for e in load.dropped] == ["- after"]
    assert load.lost_entries[-1] == load.partial


def test_claude_code_exactly_200_lines_loads_everything() -> None:
    index = parse_index(numbered_index(200))
    load = simulate(index, None, "claude-code")
    assert (load.cut_line, load.dropped, load.loaded_bytes) == (None, (), index.nbytes)


def test_kimi_code_counts_the_hook_output_exactly() -> None:
    raw, identity = b"# idx\n- one\n", b"# Identity\nno final newline"
    index = parse_index(raw)
    load = simulate(index, identity, "kimi-code", memory_dir="/seat/memory")
    printed = render("/seat/memory", [("MEMORY.md", raw), ("identity.md", identity)], "session-boot", False)
    assert load.loaded_bytes == len(printed) == kimi_injected_bytes("/seat/memory", raw, identity)
    assert load.total_bytes == len(raw) + len(identity)
    assert load.dropped == () and load.partial is None
    # identity.md missing: only MEMORY.md is injected.
    alone = simulate(index, None, "kimi-code", memory_dir="/seat/memory")
    assert alone.loaded_bytes == len(render("/seat/memory", [("MEMORY.md", raw)], "session-boot", False))
    assert "identity.md is missing" in alone.note


def test_opencode_costs_both_files_every_turn() -> None:
    index = parse_index(b"x" * 30_000)
    load = simulate(index, 500, "opencode")
    assert (load.loaded_bytes, load.total_bytes, load.dropped) == (30_500, 30_500, ())
    assert "every turn" in load.note


def test_read_limit_names_entries_past_it_and_the_split_one() -> None:
    raw = numbered_index(100, width=40)  # 100 lines of ~48 B: ~4.7 KB
    index = parse_index(raw)
    limits = Limits(target=1_000, read_limit=2_000)
    load = simulate(index, None, "read-limit", limits)
    assert load.loaded_bytes == 2_000 == load.cut_offset
    split = [e for e in index.entries if e.offset < 2_000 < e.end_offset]
    assert load.partial == (split[0] if split else None)
    assert load.dropped == tuple(e for e in index.entries if e.offset >= 2_000)
    assert len(load.dropped) > 50
    within = simulate(index, None, "read-limit", Limits())
    assert within.dropped == () and within.cut_offset is None


def test_unknown_profile_is_an_error() -> None:
    with pytest.raises(ValueError, match="unknown profile"):
        simulate(parse_index(b""), None, "vim")
    assert set(PROFILES) == {"claude-code", "kimi-code", "opencode", "codex", "gemini-cli", "read-limit"}


def test_claude_code_loaded_bytes_leave_out_what_the_harness_strips() -> None:
    head = "---\nname: index\ndescription: the hot index\n---\n"
    note = "<!-- curated by the fleet; see about-this-layer.md -->\n"
    body = "# Memory\n\n- [Build](build.md) — how the build runs\n"
    raw = (head + note + body).encode()
    load = simulate(parse_index(raw), None, "claude-code")
    assert (load.cut_line, load.total_bytes) == (None, len(raw))
    assert load.loaded_bytes == len(body.encode())
    assert f"{len(body.encode()):,} B) load" in load.note and "stripped first" in load.note


def test_a_claude_code_seat_is_measured_by_what_claude_code_loads() -> None:
    """Frontmatter and block-level HTML comments never load: the meter's bytes and zone leave them out,
    agree with the claude-code profile's loaded bytes, and keep the bytes on disk beside them."""
    from curator.meter import claude_code_measure

    front = "---\nname: seat memory\ndescription: the hot index\n---\n"
    comment = "<!--\n" + "a note for whoever edits this file, never loaded\n" * 40 + "-->\n\n"
    body = "# Seat memory index\n\n" + "".join(f"- entry {n}: {'word ' * 20}\n" for n in range(120))
    raw = (front + comment + body).encode("utf-8")
    limits = Limits(target=len(body.encode()) + 10, read_limit=len(raw) - 10)
    reading = claude_code_measure(raw, limits)
    assert reading.bytes == len(body.encode()) == simulate(parse_index(raw), None, "claude-code").loaded_bytes
    assert reading.on_disk == len(raw) and reading.loaded_by == "Claude Code"
    assert reading.zone == "ok" and measure(raw, limits).zone == "over-limit"
    plain = claude_code_measure(body.encode(), limits)  # nothing hidden: both figures are the file's
    assert plain.bytes == plain.on_disk == len(body.encode()) and plain.lines == count_lines(body.encode())
