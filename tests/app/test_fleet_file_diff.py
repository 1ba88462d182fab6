"""The fleet screens' diff of a divergent file in its own lines (generators.file_diff): TOML shown as
TOML, and hostile files (not UTF-8, a FIFO, a symlink, gone since the plan) never block, follow a
link or raise: the plan's own diff is shown instead."""

from __future__ import annotations

import os

from generators.composer import DIVERGENT, plan_fleet
from generators.file_diff import file_diff
from generators.manifest import load_manifest
from tests.support.app import artifact_path, write_example_fleet


def planned(manifest, name):
    return next(a for p in plan_fleet(load_manifest(manifest)) for a in p.artifacts if a.path.name == name)


def test_a_hand_edit_of_config_toml_is_shown_in_toml_lines(tmp_path):
    manifest = write_example_fleet(tmp_path / "fleet")
    path = artifact_path(manifest, "config.toml")
    path.write_text(path.read_text(encoding="utf-8").replace('"manual"', '"yolo"'), encoding="utf-8")
    artifact = planned(manifest, "config.toml")
    assert artifact.status == DIVERGENT and '"default_permission_mode": "yolo"' in artifact.diff  # the projection
    diff = file_diff(artifact)
    assert '-default_permission_mode = "manual"' in diff and '+default_permission_mode = "yolo"' in diff
    assert diff.startswith("--- config.toml (the fleet writes)\n+++ config.toml (on disk)\n")


def test_a_file_without_a_final_newline_keeps_its_diff_lines_apart(tmp_path):
    manifest = write_example_fleet(tmp_path / "fleet")
    path = artifact_path(manifest, "identity_anchor_hook.py")
    path.write_bytes(b"print('mine')")  # no newline at the end
    diff = file_diff(planned(manifest, "identity_anchor_hook.py"))
    assert "+print('mine')\n" in diff


def test_hostile_files_fall_back_to_the_plans_diff(tmp_path):
    manifest = write_example_fleet(tmp_path / "fleet")
    path = artifact_path(manifest, "config.toml")
    path.write_bytes(b"default_model = \"\xff\xfe\"\n")  # not UTF-8
    artifact = planned(manifest, "config.toml")
    assert artifact.status == DIVERGENT and file_diff(artifact) == artifact.diff

    path.unlink()
    os.mkfifo(path)  # reading would block: never opened
    artifact = planned(manifest, "config.toml")
    assert artifact.status == DIVERGENT and file_diff(artifact) == artifact.diff

    path.unlink()
    secret = tmp_path / "elsewhere.toml"
    secret.write_text('default_model = "not-the-fleets"\n', encoding="utf-8")
    path.symlink_to(secret)
    artifact = planned(manifest, "config.toml")
    assert artifact.status == DIVERGENT and "not-the-fleets" not in file_diff(artifact)


def test_a_file_gone_since_the_plan_shows_the_plans_diff(tmp_path):
    manifest = write_example_fleet(tmp_path / "fleet")
    path = artifact_path(manifest, "config.toml")
    path.write_text(path.read_text(encoding="utf-8").replace('"manual"', '"yolo"'), encoding="utf-8")
    artifact = planned(manifest, "config.toml")
    path.unlink()
    assert file_diff(artifact) == artifact.diff
