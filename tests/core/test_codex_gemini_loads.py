"""Load profiles of the codex and gemini-cli seats: what each puts in front of the model, Codex's
AGENTS.md budget beside it, and the @words Gemini would take as imports."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from curator import codex_docs
from curator.gemini_imports import imports_outside_code
from curator.index_model import parse_index
from curator.load_sim import gemini_context_bytes, simulate
from generators import template
from generators.hook_format import codex_hook_output

RAW = b"# idx\n- one\n"
IDENTITY = b"# Identity\nI am `@neo-x`.\n"


def test_codex_counts_exactly_the_additional_context_its_hook_prints() -> None:
    load = simulate(parse_index(RAW), IDENTITY, "codex", memory_dir="/seat/memory")
    printed = codex_hook_output("/seat/memory", {"MEMORY.md": RAW, "identity.md": IDENTITY})
    context = json.loads(printed)["hookSpecificOutput"]["additionalContext"].encode("utf-8")
    assert load.loaded_bytes == len(context)
    assert load.total_bytes == len(RAW) + len(IDENTITY)
    assert load.dropped == () and load.cautions == ()
    assert "project_doc_max_bytes" in load.note and "developer message" in load.note


def _git_repo(path: Path) -> Path:
    path.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(path)], check=True)
    return path


def test_codex_reports_agents_md_files_the_shared_budget_cuts(tmp_path) -> None:
    repo = _git_repo(tmp_path / "repo")
    (repo / "AGENTS.md").write_bytes(b"a" * 30_000)
    sub = repo / "pkg"
    sub.mkdir()
    (sub / "AGENTS.md").write_bytes(b"b" * 5_000)
    (sub / "AGENTS.override.md").write_bytes(b"c" * 4_000)  # the override wins in its folder
    docs = codex_docs.budget(sub)
    assert [(d.path.name, d.size, d.loaded) for d in docs] == [("AGENTS.md", 30_000, 30_000),
                                                                ("AGENTS.override.md", 4_000, 2_768)]
    load = simulate(parse_index(RAW), IDENTITY, "codex", memory_dir="/m", repo=str(sub))
    assert load.cautions == (f"{sub / 'AGENTS.override.md'}: 1,232 of 4,000 B past project_doc_max_bytes never "
                             "reach the model (Codex cuts them silently)",)
    assert "use 32,768 B of it (2 file(s))" in load.note


def test_codex_docs_stop_at_the_git_root(tmp_path) -> None:
    (tmp_path / "AGENTS.md").write_text("outside the checkout")
    repo = _git_repo(tmp_path / "repo")
    (repo / "AGENTS.md").write_text("inside")
    assert codex_docs.discover(repo) == [repo / "AGENTS.md"]


def test_gemini_counts_its_context_lines_and_trims() -> None:
    load = simulate(parse_index(b"\n# idx\n- one\n\n"), IDENTITY, "gemini-cli", memory_dir="/seat/memory")
    expected = ("--- Context from: /seat/memory/MEMORY.md ---\n# idx\n- one\n--- End of Context from: "
                "/seat/memory/MEMORY.md ---\n\n--- Context from: /seat/memory/identity.md ---\n# Identity\n"
                "I am `@neo-x`.\n--- End of Context from: /seat/memory/identity.md ---")
    assert load.loaded_bytes == len(expected.encode()) == gemini_context_bytes(
        "/seat/memory", {"MEMORY.md": b"\n# idx\n- one\n\n", "identity.md": IDENTITY})
    assert load.dropped == () and load.cautions == ()
    assert "no size cap was found" in load.note


def test_gemini_cautions_name_each_at_word_outside_code() -> None:
    identity = b"# Identity\nI am @seat-x, mail me at a@b.c.\n```\n@fenced\n```\nsee `@quoted` and @./notes.md\n"
    load = simulate(parse_index(b"- ask @lead first\n"), identity, "gemini-cli", memory_dir="/m")
    assert load.cautions == (
        "MEMORY.md line 1: `@lead` outside code: Gemini CLI takes it as an import and the line reaches the model "
        "changed (write it in backticks)",
        "identity.md line 2: `@seat-x,` outside code: Gemini CLI takes it as an import and the line reaches the "
        "model changed (write it in backticks)",
        "identity.md line 6: `@./notes.md` outside code: Gemini CLI takes it as an import and the line reaches the "
        "model changed (write it in backticks)")
    assert "3 @word(s) outside code" in load.note


def test_gemini_import_rule_edges() -> None:
    assert imports_outside_code("@a at the start") [0].word == "a"
    assert imports_outside_code("tab\t@b and ``two `@c` ticks``") == imports_outside_code("tab\t@b")
    assert imports_outside_code("@1 @_x @ @é x@y") == []  # Gemini wants . / or an ASCII letter first


def test_no_bearer_file_gemini_loads_holds_an_import() -> None:
    files = template.bearer_files("@neo-gemini-lyra", "gemini-cli")
    for name in template.BOOT_FILES:
        assert imports_outside_code(files[name].decode()) == []
