"""The workspace composer on real files: birth, re-entry MATCH, bearer sovereignty, free edits,
fail-closed divergence (nothing written), path safety, set-aside."""

from __future__ import annotations

import dataclasses
import stat
from datetime import datetime, UTC
from pathlib import Path

import pytest

from generators import composer
from generators.composer import CREATED, DIVERGENT, MATCH, PENDING
from generators.errors import DivergentError, PreparationError, UnsupportedError
from generators.layout import instance_home
from generators.manifest import load_manifest
from tests.support.fleets import KIMI, OPENCODE, RESIDENTS, make_fleet, tree_bytes, write_fleet


def statuses(plan):
    return [a.status for a in plan.artifacts]


def art(plan, suffix):
    return next(a for a in plan.artifacts if str(a.path).endswith(suffix))


@pytest.fixture
def fleet(tmp_path):
    return make_fleet(tmp_path)


@pytest.fixture
def born(fleet):
    composer.apply_fleet(fleet)
    return fleet


def test_birth_kimi_eight_opencode_six_then_all_match(fleet, tmp_path):
    before = tree_bytes(tmp_path)
    kimi, oc = composer.plan_fleet(fleet)
    assert statuses(kimi) == [PENDING] * 8
    assert statuses(oc) == [PENDING] * 6
    assert tree_bytes(tmp_path) == before  # planning writes nothing

    applied = composer.apply_fleet(fleet)
    assert [statuses(p) for p in applied] == [[CREATED] * 8, [CREATED] * 6]  # born this run
    home = instance_home(fleet.instance_root, KIMI, "kimi-code")
    for name in ("MEMORY.md", "identity.md", "seat-pointers.md", "about-this-layer.md"):
        assert stat.S_IMODE((home / "memory" / name).stat().st_mode) == 0o600
    assert (home / "mcp.json").is_file() and not (tmp_path / "repos/iris/.kimi-code").exists()
    assert (tmp_path / "repos/juno/opencode.jsonc").is_file()
    assert not (home / "memory" / "ARCHIVE.md").exists()  # created by the archive lever on first need

    again = composer.plan_fleet(fleet)
    assert [statuses(p) for p in again] == [[MATCH] * 8, [MATCH] * 6]
    assert composer.plan_exit_code(again) == 0


def test_bearer_edits_stay_match_and_bytes_survive(born, tmp_path):
    home = instance_home(born.instance_root, KIMI, "kimi-code")
    mine = "# My index\n\n- 🌈 the signature, always\n".encode()
    story = b"# Identity\n\nI am Iris.\n"
    (home / "memory/MEMORY.md").write_bytes(mine)
    (home / "memory/identity.md").write_bytes(story)
    (home / "memory/seat-pointers.md").unlink()  # a deleted bearer file is simply re-created
    plan = composer.plan_fleet(born, KIMI)[0]
    assert art(plan, "MEMORY.md").status == MATCH
    assert art(plan, "identity.md").status == MATCH
    assert art(plan, "seat-pointers.md").status == PENDING
    composer.apply_fleet(born, KIMI)
    assert (home / "memory/MEMORY.md").read_bytes() == mine
    assert (home / "memory/identity.md").read_bytes() == story


def test_free_edits_stay_match(born, tmp_path):
    home = instance_home(born.instance_root, KIMI, "kimi-code")
    config = home / "config.toml"
    config.write_text("# my own note on top\n" + config.read_text()
                      + '\n[providers.moonshot]\ntype = "kimi"\nbase_url = "https://api.invalid"  # mine\n')
    mcp = home / "mcp.json"
    mcp.write_text(mcp.read_text().replace('"mcpServers": {', '"mcpServers": {\n    "my-own": {"command": "x"},', 1))
    oc = tmp_path / "repos/juno/opencode.jsonc"
    text = oc.read_text().replace("https://opencode.ai/config.json", "https://example.invalid/schema.json")
    text = text.replace('"*": "ask"', '"*": "deny"').replace('"mcp": {', '"mcp": {\n    // mine\n    "local-tool": {"type": "local", "command": ["t"]},', 1)
    oc.write_text(text)
    before = tree_bytes(tmp_path)
    plans = composer.plan_fleet(born)
    assert [statuses(p) for p in plans] == [[MATCH] * 8, [MATCH] * 6]
    composer.apply_fleet(born)
    assert tree_bytes(tmp_path) == before


def _swap_hooks(text: str) -> str:
    return (text.replace('event = "UserPromptSubmit"', "@@").replace('event = "PostCompact"', 'event = "UserPromptSubmit"')
            .replace("@@", 'event = "PostCompact"'))


def _one_byte(data: bytes) -> bytes:
    index = data.index(b"TRIGGER_BOOT = ")
    return data[:index] + b"t" + data[index + 1:]


DRIFTS = [
    # (resident, file suffix, mutate bytes, expected reason fragment, expected owned key in the error)
    (KIMI, "config.toml", lambda b: b.replace(b'default_permission_mode = "manual"', b'default_permission_mode = "yolo"'),
     "owned keys differ: default_permission_mode", "default_permission_mode"),
    (KIMI, "config.toml", lambda b: _swap_hooks(b.decode()).encode(), "owned keys differ: hooks", "hooks"),
    (KIMI, "config.toml", lambda b: b.replace(b'scope = "user"', b'scope = "project"'), "permission.rules", "permission.rules"),
    (KIMI, "identity_anchor_hook.py", _one_byte, "differs from the generated script", "(whole file)"),
    (KIMI, "config.toml", lambda b: b + b"\n[[hooks]\nbroken", "invalid TOML", "hooks"),
    (KIMI, "mcp.json", lambda b: b[:-3], "invalid JSON", "mcpServers.neo-mjs-memory-core"),
    (KIMI, "mcp.json", lambda b: b.replace(b'"--stdio"', b'"--http"'), "mcpServers.neo-mjs-memory-core", "mcpServers"),
    (OPENCODE, "opencode.jsonc", lambda b: b.replace(b"{", b"{{", 1), "invalid JSON", "instructions"),
    (OPENCODE, "opencode.jsonc", lambda b: b.replace(b'identity.md"', b'identity.md", "/x/seat-pointers.md"'),
     "owned keys differ: instructions", "instructions"),
    (OPENCODE, "write_wake_envelope.py", lambda b: b + b"# mine\n", "differs from the generated script", "(whole file)"),
]


@pytest.mark.parametrize("resident,suffix,mutate,reason,key", DRIFTS,
                         ids=[f"{d[1]}:{d[3][:30]}" for d in DRIFTS])
def test_drift_fails_closed_and_touches_nothing(born, tmp_path, resident, suffix, mutate, reason, key):
    target = art(composer.plan_fleet(born, resident)[0], suffix).path
    target.write_bytes(mutate(target.read_bytes()))
    # A second, unborn resident proves the whole fleet plan is refused, not just one seat.
    extra = '\n[[residents]]\nagent_id = "@late"\nharness = "opencode"\nrepo = "repos/late"\n'
    fleet = load_manifest(write_fleet(tmp_path, residents=RESIDENTS + extra))
    before = tree_bytes(tmp_path)

    plan = composer.plan_fleet(fleet, resident)[0]
    found = art(plan, suffix)
    assert found.status == DIVERGENT
    assert reason in found.reason
    assert key in " ".join(found.owned_keys)
    assert [a.status for a in plan.artifacts].count(DIVERGENT) == 1
    assert composer.plan_exit_code(composer.plan_fleet(fleet)) == 3
    with pytest.raises(DivergentError) as caught:
        composer.apply_fleet(fleet)
    assert str(target) in str(caught.value) and key in str(caught.value)
    assert caught.value.code == "FLEET_WORKSPACE_DIVERGENT" and caught.value.exit_code == 3
    assert tree_bytes(tmp_path) == before
    assert not (tmp_path / "repos/late").exists()


def test_divergent_plan_carries_a_diff_of_the_owned_projection(born):
    config = art(composer.plan_fleet(born, KIMI)[0], "config.toml").path
    config.write_text(config.read_text().replace('"manual"', '"yolo"'))
    found = art(composer.plan_fleet(born, KIMI)[0], "config.toml")
    assert '-  "default_permission_mode": "manual",' in found.diff
    assert '+  "default_permission_mode": "yolo",' in found.diff
    assert "(fleet expects)" in found.diff and "(on disk)" in found.diff


def test_manifest_change_is_a_stale_generation(born, tmp_path):
    fleet = make_fleet(tmp_path, residents=RESIDENTS.replace(
        'repo = "repos/iris"', 'repo = "repos/iris"\nmodel = "kimi-k2-turbo"'))
    found = art(composer.plan_fleet(fleet, KIMI)[0], "config.toml")
    assert found.status == DIVERGENT and "default_model" in found.reason


def test_disabled_server_appears_nowhere_and_overrides_are_sparse(tmp_path):
    residents = RESIDENTS.replace(
        'repo = "repos/juno"', 'repo = "repos/juno"\nmcp = { neo-mjs-switched-off = "yes", unknown-server = true }')
    fleet = make_fleet(tmp_path, residents=residents)
    composer.apply_fleet(fleet)
    for rel, (data, _mode) in tree_bytes(tmp_path).items():
        if rel != "fleet.toml":
            assert b"switched-off" not in data, rel
    on = residents.replace('repo = "repos/iris"', 'repo = "repos/iris"\nmcp = { neo-mjs-switched-off = true }')
    fleet = make_fleet(tmp_path / "on", residents=on)
    composer.apply_fleet(fleet, KIMI)
    home = instance_home(fleet.instance_root, KIMI, "kimi-code")
    assert b'pattern = "mcp__neo-mjs-switched-off__*"' in (home / "config.toml").read_bytes()
    assert b'"neo-mjs-switched-off"' in (home / "mcp.json").read_bytes()


def test_symlinked_memory_dir_is_refused(fleet, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    home = instance_home(fleet.instance_root, KIMI, "kimi-code")
    home.mkdir(parents=True)
    (home / "memory").symlink_to(elsewhere)
    before = tree_bytes(tmp_path)
    plan = composer.plan_fleet(fleet, KIMI)[0]
    memory = [a for a in plan.artifacts if a.path.parent == home / "memory"]
    assert len(memory) == 4 and all(a.status == DIVERGENT for a in memory)
    assert all("symlinked path segment" in a.reason for a in memory)
    with pytest.raises(DivergentError):
        composer.apply_fleet(fleet)
    assert tree_bytes(tmp_path) == before and list(elsewhere.iterdir()) == []


def test_symlinked_seat_dir_leading_outside_is_refused(fleet, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    home = instance_home(fleet.instance_root, KIMI, "kimi-code")
    home.mkdir(parents=True)
    (home / "hooks").symlink_to(outside)
    found = art(composer.plan_fleet(fleet, KIMI)[0], "cap_guard_hook.py")
    assert found.status == DIVERGENT and "symlinked path segment" in found.reason
    with pytest.raises(DivergentError):
        composer.apply_fleet(fleet, KIMI)
    assert list(outside.iterdir()) == []


def test_file_where_a_directory_is_expected(fleet, tmp_path):
    home = instance_home(fleet.instance_root, OPENCODE, "opencode")
    home.mkdir(parents=True)
    (home / "memory").write_bytes(b"not a dir")
    plan = composer.plan_fleet(fleet, OPENCODE)[0]
    assert "a file where a directory is expected" in art(plan, "MEMORY.md").reason
    with pytest.raises(DivergentError):
        composer.apply_fleet(fleet, OPENCODE)
    assert (home / "memory").read_bytes() == b"not a dir"


def test_path_escaping_its_root_is_refused(tmp_path):
    root = tmp_path / "root"
    problem, _ = composer.path_problem(root, root / ".." / "evil.md")
    assert problem and "escapes its trusted root" in problem
    assert composer.path_problem(root, root)[0]
    assert composer.path_problem(root, root / "a" / "b.md") == (None, None)


def test_set_aside_renames_and_next_provision_recreates(born, tmp_path):
    hook = art(composer.plan_fleet(born, KIMI)[0], "identity_anchor_hook.py").path
    edited = hook.read_bytes() + b"# hand edit\n"
    hook.write_bytes(edited)
    resident = born.resident(KIMI)
    when = datetime(2026, 11, 29, 23, 5, 9, tzinfo=UTC)
    moved = composer.set_aside(born, resident, hook, now=when)
    assert moved == hook.with_name("identity_anchor_hook.py.divergent-20261129T230509Z")
    assert moved.read_bytes() == edited and not hook.exists()
    assert art(composer.plan_fleet(born, KIMI)[0], "identity_anchor_hook.py").status == PENDING
    composer.apply_fleet(born, KIMI)
    assert statuses(composer.plan_fleet(born, KIMI)[0]) == [MATCH] * 8
    assert moved.read_bytes() == edited  # nothing lost


def test_set_aside_refuses_what_is_not_a_divergent_artifact(born, tmp_path):
    resident = born.resident(KIMI)
    config = art(composer.plan_fleet(born, KIMI)[0], "config.toml").path
    with pytest.raises(PreparationError, match="is MATCH"):
        composer.set_aside(born, resident, config)
    with pytest.raises(PreparationError, match="not one of"):
        composer.set_aside(born, resident, config.parent / ".." / ".." / "fleet.toml")
    with pytest.raises(PreparationError, match="not one of"):
        composer.set_aside(born, resident, tmp_path / "fleet.toml")
    assert config.exists()


def test_apply_plan_replans_and_never_overwrites_a_racing_bearer_file(fleet):
    plan = composer.plan_fleet(fleet, KIMI)[0]
    assert art(plan, "MEMORY.md").status == PENDING
    art(plan, "MEMORY.md").path.parent.mkdir(parents=True)
    art(plan, "MEMORY.md").path.write_bytes(b"written first by the bearer\n")
    fresh = composer.apply_plan(plan)
    assert art(fresh, "MEMORY.md").status == MATCH
    assert art(fresh, "MEMORY.md").path.read_bytes() == b"written first by the bearer\n"
    assert art(fresh, "config.toml").status == CREATED


def test_unsupported_and_preparation_errors(fleet):
    odd = dataclasses.replace(fleet.resident(KIMI), harness="gemini-cli")
    with pytest.raises(UnsupportedError, match="unknown harness"):
        composer.plan_resident(fleet, odd)
    off = dataclasses.replace(fleet.resident(KIMI), mcp_overrides={"neo-mjs-memory-core": False,
                                                                   "neo-mjs-seat-curator": False})
    with pytest.raises(UnsupportedError, match="no enabled MCP servers"):
        composer.plan_resident(fleet, off)
    relative = dataclasses.replace(fleet, instance_root=Path("relative/root"))
    with pytest.raises(PreparationError, match="must be absolute"):
        composer.plan_resident(relative, fleet.resident(KIMI))
    with pytest.raises(PreparationError, match="no resident"):
        composer.plan_fleet(fleet, "@nobody")


def test_set_aside_will_not_rename_through_a_symlinked_parent(fleet, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "MEMORY.md").write_bytes(b"not ours")
    home = instance_home(fleet.instance_root, KIMI, "kimi-code")
    home.mkdir(parents=True)
    (home / "memory").symlink_to(elsewhere)
    with pytest.raises(PreparationError, match="symlinked path segment"):
        composer.set_aside(fleet, fleet.resident(KIMI), home / "memory" / "MEMORY.md")
    assert [p.name for p in elsewhere.iterdir()] == ["MEMORY.md"]
