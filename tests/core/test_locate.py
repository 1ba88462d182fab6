"""A command without a memory dir: ./memory, else this project's Claude Code memory, else where it looked."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from curator.cli import main
from curator.errors import InputError
from curator.locate import locate_memory_dir, project_keys

INDEX = b"# Memory\n- [Build](build.md) \xe2\x80\x94 how the build runs\n"


def memory_at(folder: Path) -> Path:
    folder.mkdir(parents=True)
    (folder / "MEMORY.md").write_bytes(INDEX)
    return folder


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    project = tmp_path / "work" / "my.repo"
    project.mkdir(parents=True)
    monkeypatch.chdir(project)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    return project


def test_local_memory_wins(project: Path, tmp_path: Path) -> None:
    memory_at(tmp_path / "home" / ".claude" / "projects" / str(project).replace("/", "-") / "memory")
    local = memory_at(project / "memory")
    assert locate_memory_dir().memory_dir == local


def test_claude_default_project_dir_under_home_and_under_config_dir(project, tmp_path, monkeypatch):
    assert project_keys(project)[0] == str(project).replace("/", "-")
    home_memory = memory_at(tmp_path / "home" / ".claude" / "projects" / project_keys(project)[0] / "memory")
    found = locate_memory_dir()
    assert found.memory_dir == home_memory and "Claude Code memory of this project" in found.how

    config = tmp_path / "cfg"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(config))
    with pytest.raises(InputError):
        locate_memory_dir()  # the config dir replaces ~/.claude entirely
    # Claude Code also spells the dot of "my.repo" as "-": the second key finds it.
    dotted = memory_at(config / "projects" / project_keys(project)[1] / "memory")
    assert "." not in project_keys(project)[1]
    assert locate_memory_dir().memory_dir == dotted


def test_auto_memory_directory_setting_wins_over_the_projects_dir(project, tmp_path):
    claude = tmp_path / "home" / ".claude"
    memory_at(claude / "projects" / project_keys(project)[0] / "memory")
    custom = memory_at(tmp_path / "custom-memory")
    (claude / "settings.json").write_text(json.dumps({"autoMemoryDirectory": str(custom), "model": "x"}))
    found = locate_memory_dir()
    assert found.memory_dir == custom and "autoMemoryDirectory" in found.how


def test_nothing_found_names_every_place_looked(project, tmp_path, capsys):
    settings = tmp_path / "home" / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_text(json.dumps({"autoMemoryDirectory": "~/notes"}))
    assert main([]) == 1
    err = capsys.readouterr().err
    assert f"{project}/memory/MEMORY.md" in err
    assert f"{tmp_path}/home/notes/MEMORY.md (autoMemoryDirectory in {settings})" in err
    assert f"{tmp_path}/home/.claude/projects/{project_keys(project)[0]}/memory/MEMORY.md" in err
    assert "seat-curator demo" in err  # how to start
    assert main(["check"]) == 1
    assert "NO_MEMORY_FOUND" in capsys.readouterr().err


def test_garbage_settings_is_one_line_naming_the_file(project, tmp_path, capsys):
    settings = tmp_path / "home" / ".claude" / "settings.json"
    settings.parent.mkdir(parents=True)
    settings.write_bytes(b"{not json\xff")
    assert main(["check"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and str(settings) in err and "not valid JSON" in err


def test_check_without_a_dir_checks_the_claude_memory_and_says_so(project, tmp_path, capsys):
    memory = memory_at(tmp_path / "home" / ".claude" / "projects" / project_keys(project)[0] / "memory")
    (memory / "build.md").write_text("# Build\n")
    assert main(["check", "--json"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["memory_dir"] == str(memory)
    assert f"Claude Code memory of this project ({memory})" in captured.err


def test_any_subdirectory_of_a_git_repo_finds_the_memory_claude_code_keys_by_its_root(project, tmp_path,
                                                                                       monkeypatch):
    (project / ".git").mkdir()
    deep = project / "src" / "pkg"
    deep.mkdir(parents=True)
    monkeypatch.chdir(deep)
    root_memory = memory_at(tmp_path / "home" / ".claude" / "projects" / project_keys(project)[0] / "memory")
    found = locate_memory_dir()
    assert found.memory_dir == root_memory and "Claude Code memory of this project" in found.how
    (project / ".git").rmdir()
    (project / ".git").write_text("gitdir: /elsewhere/.git/worktrees/x\n")  # a worktree's .git is a file
    assert locate_memory_dir().memory_dir == root_memory
