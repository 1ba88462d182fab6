"""Hostile files where a provision reads: every file a seat's config is made of (config.toml,
mcp.json, opencode.jsonc, Claude's settings.json and .mcp.json) and the manifest itself. Each bad
shape is one coded line naming the file, exit 3 (DIVERGENT) or 1 (the manifest), and no byte of
the workspace changes, with or without --adopt."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from curator.cli import main
from generators import composer
from generators.manifest import load_manifest
from tests.support.fleets import BASE_MANIFEST, RESIDENTS, tree_bytes, write_fleet
CLAUDE_RESIDENT = """
[[residents]]
agent_id = "@neo-claude-vega"
harness = "claude-code"
repo = "repos/vega"
"""
CONFIG_FILES = ["config.toml", "mcp.json", "opencode.jsonc", "settings.json", ".mcp.json"]


def _symlinked(path: Path) -> None:
    real = path.with_name(path.name + ".real")
    path.rename(real)
    path.symlink_to(real)


def _replaced(path: Path, make) -> None:
    path.unlink()
    make(path)


SHAPES = {
    "utf8-bom": lambda p: p.write_bytes(b"\xef\xbb\xbf" + p.read_bytes()),
    "utf16": lambda p: p.write_bytes(b"\xff\xfe" + p.read_text().encode("utf-16-le")),
    "not-utf8": lambda p: p.write_bytes(p.read_bytes().replace(b"neo-mjs-", b"neo-\xff\xfe-", 1)),
    "garbage": lambda p: p.write_bytes(b"{{{ not [[ = valid \x00"),
    "nul-at-end": lambda p: p.write_bytes(p.read_bytes() + b"\x00"),
    "nested-200000-deep": lambda p: p.write_bytes((b"a = " if p.suffix == ".toml" else b"") + b"[" * 200_000),
    "symlink": _symlinked,
    "dangling-symlink": lambda p: _replaced(p, lambda q: q.symlink_to("/nonexistent/seat-curator")),
    "fifo": lambda p: _replaced(p, os.mkfifo),
    "directory": lambda p: _replaced(p, Path.mkdir),
}
REFUSED = {"utf8-bom": "starts with a UTF-8 byte-order mark", "utf16": "starts with a UTF-16 byte-order mark",
           "not-utf8": "not UTF-8", "symlink": "symlinked path segment", "dangling-symlink": "symlinked path segment",
           "fifo": "not a regular file", "directory": "not a regular file"}


def _workspace(tmp_path: Path) -> tuple[Path, dict[str, Path]]:
    """A provisioned three-harness workspace and its config files by name."""
    manifest = write_fleet(tmp_path, residents=RESIDENTS + CLAUDE_RESIDENT)
    plans = composer.apply_fleet(load_manifest(manifest))
    files = {a.path.name: a.path for p in plans for a in p.artifacts if a.path.name in CONFIG_FILES}
    assert sorted(files) == sorted(CONFIG_FILES)
    return manifest, files


def _cli(capsys, *argv: str) -> tuple[int, str]:
    code = main(list(argv))
    _out, err = capsys.readouterr()
    return code, err


def _one_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


# (A UTF-8 BOM in opencode.jsonc is not hostile: see the test after this one.)
@pytest.mark.parametrize("name, shape", [(n, s) for n in CONFIG_FILES for s in SHAPES
                                         if (n, s) != ("opencode.jsonc", "utf8-bom")])
def test_a_hostile_config_file_is_one_line_and_nothing_changes(tmp_path, capsys, name, shape):
    manifest, files = _workspace(tmp_path)
    target = files[name]
    SHAPES[shape](target)
    before = tree_bytes(tmp_path)
    code, err = _cli(capsys, "plan", "--fleet", str(manifest))
    assert code == 3
    for adopt in ([], ["--adopt"]):
        code, err = _cli(capsys, "provision", "--fleet", str(manifest), *adopt)
        line = _one_line(err)
        assert code == 3 and line.startswith(f"seat-curator: FLEET_WORKSPACE_DIVERGENT: {target}"), line
        assert REFUSED.get(shape, "invalid") in line
        assert line.endswith("nothing was written")
    assert tree_bytes(tmp_path) == before


def test_a_config_file_over_the_read_limit_is_refused_unread(tmp_path, capsys):
    manifest, files = _workspace(tmp_path)
    with open(files["opencode.jsonc"], "ab") as handle:
        handle.truncate(65 * 1024 * 1024)  # sparse: over the 64 MiB limit without writing it
    before = tree_bytes(tmp_path)
    code, err = _cli(capsys, "provision", "--fleet", str(manifest), "--adopt")
    assert code == 3 and "over the 67,108,864-byte safety limit" in _one_line(err)
    assert tree_bytes(tmp_path) == before


def test_a_utf8_bom_in_opencode_jsonc_is_what_jsonc_readers_skip(tmp_path, capsys):
    """A UTF-8 BOM in opencode.jsonc is read past (loads_jsonc skips it, as JSONC readers do), and an
    adoption keeps the mark where it was."""
    manifest, files = _workspace(tmp_path)
    jsonc = files["opencode.jsonc"]
    jsonc.write_bytes(b"\xef\xbb\xbf" + jsonc.read_bytes().replace(b'"instructions"', b'"my-instructions"'))
    assert _cli(capsys, "plan", "--fleet", str(manifest))[0] == 3  # adoptable: instructions absent
    before = jsonc.read_bytes()
    assert _cli(capsys, "provision", "--fleet", str(manifest), "--adopt")[0] == 0
    after = jsonc.read_bytes()
    assert after.startswith(b"\xef\xbb\xbf") and b'"my-instructions"' in after and len(after) > len(before)
    assert _cli(capsys, "plan", "--fleet", str(manifest))[0] == 0


@pytest.mark.parametrize("make, why", [
    (lambda p: p.write_bytes(p.read_bytes().replace(b"kimi-k2", b"kimi-\xff")), "not UTF-8 (byte"),
    (lambda p: p.write_bytes(b"\xff\xfe" + p.read_text().encode("utf-16-le")), "not UTF-8 (byte 0)"),
    (lambda p: p.write_bytes(b"a = " + b"[" * 100_000), "nested more than 100 levels deep"),
    (lambda p: p.write_bytes(b""), "missing required key 'instance_root'"),
    (_symlinked, "is a symlink; refusing to follow it"),
    (lambda p: _replaced(p, os.mkfifo), "is not a regular file (a FIFO)"),
    (lambda p: _replaced(p, Path.mkdir), "is a directory"),
], ids=["not-utf8", "utf16", "nested", "empty", "symlink", "fifo", "directory"])
def test_a_hostile_manifest_is_one_line_and_nothing_is_written(tmp_path, capsys, make, why):
    manifest = tmp_path / "fleet.toml"
    manifest.write_text(BASE_MANIFEST + RESIDENTS)
    make(manifest)
    before = tree_bytes(tmp_path)
    for command in ("plan", "provision"):
        code, err = _cli(capsys, command, "--fleet", str(manifest))
        line = _one_line(err)
        assert code == 1 and line.startswith("seat-curator: FLEET_WORKSPACE_PREPARATION_FAILED: ") and why in line
        assert str(manifest) in line
    assert tree_bytes(tmp_path) == before
