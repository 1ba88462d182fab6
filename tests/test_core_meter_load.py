"""Byte meter zones and headroom; the load simulation of every harness profile."""

from __future__ import annotations

import pytest

from curator.index_model import parse_index
from curator.load_sim import CLAUDE_BYTE_CAP, PROFILES, kimi_injected_bytes, simulate
from curator.meter import Limits, count_lines, measure
from generators.scripts.identity_anchor_hook import render

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


def test_claude_code_byte_cap_binds_first_and_cuts_at_the_last_newline() -> None:
    raw = numbered_index(150, width=300)  # 150 lines, ~46 KB
    index = parse_index(raw)
    load = simulate(index, None, "claude-code")
    expected = raw.rfind(b"\n", 0, CLAUDE_BYTE_CAP) + 1
    assert load.loaded_bytes == expected == load.cut_offset
    assert raw[load.cut_offset - 1 : load.cut_offset] == b"\n"
    assert load.cut_line == raw[:expected].count(b"\n")
    assert all(e.offset >= expected for e in load.dropped)
    assert len(load.dropped) == sum(1 for e in index.entries if e.offset >= expected)
    assert "25,000-byte cap" in load.note


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
    assert set(PROFILES) == {"claude-code", "kimi-code", "opencode", "read-limit"}
