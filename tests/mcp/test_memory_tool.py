"""The memory tool's six commands over stdio, through the SDK's own client: the memory tool's exact
success and error texts, refusals of traversal, symlinks and hidden files, the read-limit refusal,
the agent's own writes journalled (undo) and safe against its concurrent appends."""

from __future__ import annotations

import re
import threading

import pytest

from tests.support.mcp import seat, serve

METER = re.compile(r"^meter: MEMORY\.md [\d,]+ B, \d+ lines, .*; claude-code (loads all|drops .*); "
                   r"kimi-code .*; opencode .*$")


def after_meter(text: str) -> list[str]:
    """The lines after the result's one meter line: only pointer problems the write created."""
    lines = text.split("\n")
    meters = [n for n, line in enumerate(lines) if METER.match(line)]
    assert len(meters) == 1, text
    rest = lines[meters[0] + 1:]
    assert all(line.startswith("pointer problem: ") for line in rest), text
    return rest


async def test_view_lists_two_levels_without_hidden_items_and_numbers_file_lines(tmp_path):
    memory, state = seat(tmp_path, **{"topics/a.md": "a\n", "topics/deep/b.md": "b\n", "topics/deep/more/c.md": "c\n",
                                      ".consolidate-lock": "123", "node_modules/x.js": "x"})
    async with serve(memory, state) as call:
        error, text = await call("view", path="/memories")
        assert not error
        lines = text.split("\n")
        assert lines[0] == ("Here're the files and directories up to 2 levels deep in /memories, "
                            "excluding hidden items and node_modules:")
        listed = [row.split("\t")[1] for row in lines[1:]]
        assert listed == ["/memories", "/memories/MEMORY.md", "/memories/alpha.md", "/memories/topics/",
                          "/memories/topics/a.md", "/memories/topics/deep/"]
        assert "66B\t/memories/MEMORY.md" in lines

        error, text = await call("view", path="/memories/MEMORY.md")
        assert (error, text) == (False, "Here's the content of /memories/MEMORY.md with line numbers:\n"
                                        "     1\t# Memory\n     2\t\n     3\t- [Alpha](alpha.md) — first lesson\n"
                                        "     4\t- beta lesson here")
        error, text = await call("view", path="/memories/MEMORY.md", view_range=[3, -1])
        assert text.split("\n")[1:] == ["     3\t- [Alpha](alpha.md) — first lesson", "     4\t- beta lesson here"]
        assert await call("view", path="/memories/nope.md") == (
            True, "The path /memories/nope.md does not exist. Please provide a valid path.")


async def test_create_never_overwrites_and_ends_with_the_meter(tmp_path):
    memory, state = seat(tmp_path)
    async with serve(memory, state) as call:
        error, text = await call("create", path="/memories/topics/new.md", file_text="# New\n")
        assert not error
        assert text.split("\n")[0] == "File created successfully at: /memories/topics/new.md"
        assert after_meter(text) == ["pointer problem: topics/new.md is not linked from MEMORY.md (an orphan: "
                                     "link it from an index line)"]
        assert (memory / "topics" / "new.md").read_text() == "# New\n"
        assert await call("create", path="/memories/alpha.md", file_text="x") == (
            True, "Error: File /memories/alpha.md already exists")
        assert (memory / "alpha.md").read_text() == "# Alpha\n\ndetail\n"


async def test_str_replace_needs_exactly_one_occurrence(tmp_path):
    memory, state = seat(tmp_path, index="# M\n\n- one lesson\n- two lesson\n- three\n")
    async with serve(memory, state) as call:
        assert await call("str_replace", path="/memories/MEMORY.md", old_str="zzz", new_str="y") == (
            True, "No replacement was performed, old_str `zzz` did not appear verbatim in /memories/MEMORY.md.")
        assert await call("str_replace", path="/memories/MEMORY.md", old_str="lesson", new_str="y") == (
            True, "No replacement was performed. Multiple occurrences of old_str `lesson` in lines: 3, 4. "
                  "Please ensure it is unique")
        assert await call("str_replace", path="/memories/gone.md", old_str="a", new_str="b") == (
            True, "Error: The path /memories/gone.md does not exist. Please provide a valid path.")
        error, text = await call("str_replace", path="/memories/MEMORY.md", old_str="three", new_str="THREE")
        assert not error
        assert text.split("\n")[:6] == [
            "The memory file has been edited. Here is the snippet showing the change (with line numbers):",
            "     1\t# M", "     2\t", "     3\t- one lesson", "     4\t- two lesson", "     5\t- THREE"]
        assert after_meter(text) == []
        assert (memory / "MEMORY.md").read_text() == "# M\n\n- one lesson\n- two lesson\n- THREE\n"


async def test_insert_at_a_line_keeps_every_other_byte(tmp_path):
    memory, state = seat(tmp_path, index="# M\r\n\r\n- one\r\n- two")  # CRLF, no final newline
    async with serve(memory, state) as call:
        assert await call("insert", path="/memories/MEMORY.md", insert_line=5, insert_text="x") == (
            True, "Error: Invalid `insert_line` parameter: 5. It should be within the range of lines of the file: "
                  "[0, 4]")
        error, text = await call("insert", path="/memories/MEMORY.md", insert_line=3, insert_text="- new")
        assert text.split("\n")[0] == "The file /memories/MEMORY.md has been edited."
        error, text = await call("insert", path="/memories/MEMORY.md", insert_line=5, insert_text="- last")
        assert not error
        assert (memory / "MEMORY.md").read_bytes() == b"# M\r\n\r\n- one\r\n- new\r\n- two\r\n- last\r\n"
        assert await call("insert", path="/memories/none.md", insert_line=0, insert_text="x") == (
            True, "Error: The path /memories/none.md does not exist")


async def test_delete_and_rename_texts(tmp_path):
    memory, state = seat(tmp_path, **{"topics/a.md": "a\n"})
    async with serve(memory, state) as call:
        error, text = await call("rename", old_path="/memories/topics/a.md", new_path="/memories/b.md")
        assert text.split("\n")[0] == "Successfully renamed /memories/topics/a.md to /memories/b.md"
        assert (memory / "b.md").read_text() == "a\n" and not (memory / "topics").exists()
        assert await call("rename", old_path="/memories/b.md", new_path="/memories/alpha.md") == (
            True, "Error: The destination /memories/alpha.md already exists")
        assert await call("rename", old_path="/memories/zz.md", new_path="/memories/y.md") == (
            True, "Error: The path /memories/zz.md does not exist")
        error, text = await call("delete", path="/memories/b.md")
        assert text.split("\n")[0] == "Successfully deleted /memories/b.md" and not (memory / "b.md").exists()
        assert await call("delete", path="/memories/b.md") == (True, "Error: The path /memories/b.md does not exist")
        assert await call("delete", path="/memories") == (True, "Error: Cannot delete the /memories directory itself")


async def test_a_delete_that_breaks_a_pointer_says_so(tmp_path):
    memory, state = seat(tmp_path)
    async with serve(memory, state) as call:
        error, text = await call("delete", path="/memories/alpha.md")
        assert not error
        assert after_meter(text) == ["pointer problem: a link to alpha.md now points nowhere"]


async def test_traversal_symlinks_and_hidden_files_are_refused(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("secret\n")
    memory, state = seat(tmp_path, **{".consolidate-lock": "4242"})
    (memory / "linked").symlink_to(outside)
    (memory / "link.md").symlink_to(outside / "secret.md")
    async with serve(memory, state) as call:
        for path in ("/memories/../outside/secret.md", "/memories/%2e%2e/outside/secret.md",
                     "/memories/topics/../../outside/secret.md"):
            assert await call("view", path=path) == (True, f"Error: The path {path} would escape the /memories directory")
        assert await call("view", path="/etc/passwd") == (
            True, "Error: The path /etc/passwd is not inside /memories; every memory path starts with /memories/")
        for path in ("/memories/linked/secret.md", "/memories/link.md"):
            error, text = await call("view", path=path)
            assert error and text.startswith(f"Error: The path {path} passes through a symlink")
            error, text = await call("str_replace", path=path, old_str="secret", new_str="leaked")
            assert error and "symlink" in text
        error, text = await call("create", path="/memories/linked/new.md", file_text="x")
        assert error and "symlink" in text
        error, text = await call("delete", path="/memories/.consolidate-lock")
        assert error and "hidden" in text
        error, text = await call("view", path="/memories")
        assert "secret" not in text and "linked" not in text and ".consolidate-lock" not in text
    assert (outside / "secret.md").read_text() == "secret\n"
    assert sorted(p.name for p in outside.iterdir()) == ["secret.md"]
    assert (memory / ".consolidate-lock").read_text() == "4242"


async def test_a_write_past_the_read_limit_is_refused_and_past_the_target_warned(tmp_path):
    memory, state = seat(tmp_path)
    before = (memory / "MEMORY.md").read_bytes()
    async with serve(memory, state, "--target", "200", "--read-limit", "300") as call:
        error, text = await call("insert", path="/memories/MEMORY.md", insert_line=4, insert_text="- " + "x" * 300)
        assert error
        assert text.startswith("Error: refused: MEMORY.md would be 369 B, past its 300 B read limit (it is 66 B now); "
                               "nothing was written.")
        for lever in ("`fit`", "`trim`", "`merge`", "`archive`"):
            assert lever in text
        assert (memory / "MEMORY.md").read_bytes() == before
        error, text = await call("create", path="/memories/notes.md", file_text="y" * 1000)
        assert not error  # the cap is MEMORY.md's: a topic file may hold the detail

        error, text = await call("insert", path="/memories/MEMORY.md", insert_line=4, insert_text="- " + "x" * 150)
        assert not error
        lines = text.split("\n")
        assert lines[0] == "The file /memories/MEMORY.md has been edited."
        assert lines[1].startswith("warning: MEMORY.md is 19 B over its 200 B target; the write was made")
        assert METER.match(lines[2]) and "OVER TARGET" in lines[2] and after_meter(text) == []


async def test_undo_brings_back_the_agents_write_byte_for_byte(tmp_path):
    memory, state = seat(tmp_path)
    before = (memory / "MEMORY.md").read_bytes()
    async with serve(memory, state) as call:
        await call("str_replace", path="/memories/MEMORY.md", old_str="beta", new_str="gamma")
        after = (memory / "MEMORY.md").read_bytes()
        error, text = await call("undo")
        assert not error and text.split("\n")[0] == "undone: str_replace in /memories/MEMORY.md"
        assert (memory / "MEMORY.md").read_bytes() == before
        await call("redo")
        assert (memory / "MEMORY.md").read_bytes() == after
        await call("delete", path="/memories/alpha.md")
        await call("undo")
        assert (memory / "alpha.md").read_text() == "# Alpha\n\ndetail\n"


@pytest.mark.slow
async def test_concurrent_agent_appends_during_tool_writes_lose_nothing(tmp_path):
    entries = "".join(f"- lesson {n:03d}: keep the fixture small\n" for n in range(300))
    memory, state = seat(tmp_path, index="# M\n\n" + entries)
    index = memory / "MEMORY.md"
    appended: list[str] = []
    stop = threading.Event()

    def agent() -> None:  # the agent's own harness appending, open-append-close, every few milliseconds
        n = 0
        while not stop.wait(0.003) and n < 2000:
            line = f"- appended {n}\n"
            with open(index, "a") as handle:
                handle.write(line)
            appended.append(line)
            n += 1

    writer = threading.Thread(target=agent)
    outcomes = []
    async with serve(memory, state) as call:
        writer.start()
        try:
            for n in range(0, 20, 2):
                outcomes.append((n, *await call("str_replace", path="/memories/MEMORY.md",
                                                old_str=f"- lesson {n:03d}:", new_str=f"- LESSON {n:03d}:")))
        finally:
            stop.set()
            writer.join()
    final = index.read_text()
    assert appended, "the agent appended nothing: the race was not run"
    assert [line for line in appended if line not in final] == []
    for n, error, text in outcomes:  # a made edit is on disk; a refused one says the file changed meanwhile
        if error:
            assert "changed on disk" in text and f"- lesson {n:03d}:" in final
        else:
            assert f"- LESSON {n:03d}:" in final



def test_text_that_is_not_unicode_is_one_error_line_and_nothing_written(tmp_path):
    """A JSON string may carry a lone surrogate (the SDK's own client refuses to send one, so the
    wrapper every tool runs in is called directly)."""
    from curator.mcp import memory_tool
    from curator.mcp.seat import Seat
    from curator.mcp.server import _speaks_plainly

    memory, state = seat(tmp_path)
    result = _speaks_plainly(memory_tool.create)(Seat(memory, state_dir=state), "/memories/bad.md", "ok \ud800")
    assert result.is_error and [block.text for block in result.content] == [
        "Error: the text is not valid Unicode (a lone surrogate at character 3); nothing was written"]
    assert not (memory / "bad.md").exists()
