"""The gemini-cli emitter: the seat's own settings.json and trustedFolders.json for fixed inputs (a
digest pins every byte), the context wiring that loads MEMORY.md and identity.md and nothing else,
and plan / provision / adopt on a born seat and on the resident's own files."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from generators import composer, layout, template
from generators.composer import CREATED, DIVERGENT, MATCH, emit_resident
from generators.errors import DivergentError
from generators.manifest import load_manifest, parse_manifest
from generators.projection import project
from tests.support.fleets import (BASE_MANIFEST, FIXED_MANIFEST, FIXED_PYTHON, GEMINI, GEMINI_RESIDENT,
                                  REMOTE_SERVER, tree_bytes, write_fleet)

HOME = layout.instance_home("/srv/fleet/instances", GEMINI, "gemini-cli")

# sha256 over "path\0content\0" of every file the gemini-cli resident is born with, for the fixed
# inputs above. It changes only when the template or this emitter changes: update it deliberately.
PINNED_DIGEST = "895139658edb01e8688853c95bd175c580112fa20404aaf3e2efe7108ca85699"


def fixed_fleet(extra: str = REMOTE_SERVER):
    return parse_manifest(f'curator_python = "{FIXED_PYTHON}"\n' + BASE_MANIFEST + extra + GEMINI_RESIDENT, FIXED_MANIFEST)


def emitted(fleet) -> dict[Path, object]:
    return {f.path: f for f in emit_resident(fleet, fleet.resident(GEMINI), interpreter=FIXED_PYTHON)}


def test_digest_pins_every_emitted_byte():
    files = emitted(fixed_fleet())
    assert [p.relative_to(HOME).as_posix() for p in files] == [
        "memory/MEMORY.md", "memory/identity.md", "memory/seat-pointers.md", "memory/about-this-layer.md",
        ".gemini/settings.json", ".gemini/trustedFolders.json"]
    assert all(f.mode == 0o600 for f in files.values())
    digest = hashlib.sha256()
    for path, item in sorted(files.items()):
        digest.update(str(path).encode() + b"\0" + item.content + b"\0")
    assert digest.hexdigest() == PINNED_DIGEST


def test_settings_wire_exactly_the_two_boot_files_and_the_projection_agrees():
    item = emitted(fixed_fleet())[HOME / ".gemini" / "settings.json"]
    doc = json.loads(item.content)
    assert doc["context"] == {"fileName": ["MEMORY.md", "identity.md"], "includeDirectories": [f"{HOME}/memory"],
                              "loadMemoryFromIncludeDirectories": True}
    assert doc["security"] == {"auth": {"selectedType": "gemini-api-key"}}
    assert doc["mcpServers"] == {
        "neo-mjs-memory-core": {"command": "node", "args": ["server.js", "--stdio"], "env": {"TOKEN": "t0k"}},
        "neo-mjs-remote": {"httpUrl": "https://mcp.example.invalid/r", "headers": {"Authorization": "Bearer x"}},
        "neo-mjs-seat-curator": {"command": FIXED_PYTHON, "args": ["-m", "curator", "mcp", f"{HOME}/memory"],
                                 "env": {}}}
    assert b"switched-off" not in item.content
    assert item.owned == project(item.convergence, item.content, "neo-mjs-")
    assert tuple(item.owned) == item.owned_keys == (
        "security.auth.selectedType", "context.fileName", "context.includeDirectories",
        "context.loadMemoryFromIncludeDirectories", "mcpServers.neo-mjs-memory-core", "mcpServers.neo-mjs-remote",
        "mcpServers.neo-mjs-seat-curator")


def test_the_repo_is_trusted_by_its_canonical_path(tmp_path):
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    fleet = parse_manifest(BASE_MANIFEST + GEMINI_RESIDENT.replace('"repos/lyra"', f'"{tmp_path}/link"'),
                           tmp_path / "fleet.toml")
    item = next(f for f in emit_resident(fleet, fleet.resident(GEMINI), interpreter=FIXED_PYTHON)
                if f.path.name == "trustedFolders.json")
    assert json.loads(item.content) == {str(tmp_path / "real"): "TRUST_FOLDER"}
    assert item.owned == project(item.convergence, item.content, "neo-mjs-")


def test_one_content_authority_with_its_own_loading_line():
    text = template.memory_md("gemini-cli")
    loading = [line for line in text.splitlines() if "**Loading:**" in line]
    assert len(loading) == 1 and "context.fileName" in loading[0]
    def strip(t: str) -> list[str]:
        return [line for line in t.splitlines() if "**Loading:**" not in line]

    assert strip(text) == strip(template.memory_md("kimi-code"))
    about = template.about_this_layer_md("gemini-cli")
    assert "## How it loads on gemini-cli" in about and "Not `GEMINI.md` imports" in about


# ------------------------------------------------------------------------------ plan and provision


@pytest.fixture
def born(tmp_path):
    fleet = load_manifest(write_fleet(tmp_path / "fleet", residents=GEMINI_RESIDENT))
    plans = composer.apply_fleet(fleet)
    assert [a.status for a in plans[0].artifacts] == [CREATED] * 6
    return fleet


def gemini_dir(fleet) -> Path:
    return layout.instance_home(fleet.instance_root, GEMINI, "gemini-cli") / ".gemini"


def statuses(fleet) -> dict[str, str]:
    return {a.path.name: a.status for a in composer.plan_fleet(fleet)[0].artifacts}


def test_born_seat_matches_and_the_residents_own_settings_stay_theirs(born):
    path = gemini_dir(born) / "settings.json"
    doc = json.loads(path.read_text())
    doc["ui"] = {"theme": "GitHub"}
    doc["privacy"]["usageStatisticsEnabled"] = True
    doc["mcpServers"]["my-own"] = {"command": "mine"}
    doc["context"]["memoryBoundaryMarkers"] = [".git"]
    path.write_text(json.dumps(doc, indent=4))
    assert set(statuses(born).values()) == {MATCH}


@pytest.mark.parametrize(("mutate", "key"), [
    (lambda d: d["context"].update(fileName=["GEMINI.md", "MEMORY.md", "identity.md"]), "context.fileName"),
    (lambda d: d["context"]["includeDirectories"].append("/elsewhere"), "context.includeDirectories"),
    (lambda d: d["context"].pop("loadMemoryFromIncludeDirectories"), "context.loadMemoryFromIncludeDirectories"),
    (lambda d: d.pop("context"), "context.fileName"),
    (lambda d: d["security"]["auth"].update(selectedType="oauth-personal"), "security.auth.selectedType"),
    (lambda d: d["mcpServers"].pop("neo-mjs-memory-core"), "mcpServers.neo-mjs-memory-core"),
])
def test_removing_or_changing_the_context_wiring_is_divergent_naming_the_key(born, tmp_path, mutate, key):
    path = gemini_dir(born) / "settings.json"
    doc = json.loads(path.read_text())
    mutate(doc)
    path.write_text(json.dumps(doc))
    found = next(a for a in composer.plan_fleet(born)[0].artifacts if a.path.name == "settings.json")
    assert found.status == DIVERGENT and key in found.reason
    before = tree_bytes(tmp_path)
    with pytest.raises(DivergentError, match="nothing was written"):
        composer.apply_fleet(born)
    assert tree_bytes(tmp_path) == before


def test_a_folder_trusted_by_hand_is_divergent_and_not_adoptable(born):
    path = gemini_dir(born) / "trustedFolders.json"
    doc = json.loads(path.read_text())
    doc["/home/someone"] = "TRUST_PARENT"
    path.write_text(json.dumps(doc))
    found = next(a for a in composer.plan_fleet(born)[0].artifacts if a.path.name == "trustedFolders.json")
    assert found.status == DIVERGENT and "/home/someone" in found.reason and found.adoption is None


def test_the_residents_own_settings_and_trust_files_are_adopted_keeping_every_byte(tmp_path):
    fleet = load_manifest(write_fleet(tmp_path / "fleet", residents=GEMINI_RESIDENT))
    folder = gemini_dir(fleet)
    folder.mkdir(parents=True)
    mine = '{\n  "ui": {\n    "theme": "GitHub"\n  },\n  "security": {\n    "folderTrust": {"enabled": true}\n  }\n}\n'
    (folder / "settings.json").write_text(mine)
    (folder / "trustedFolders.json").write_text("{}\n")
    plan = composer.plan_fleet(fleet)[0]
    adoptable = {a.path.name for a in plan.artifacts if a.adoption is not None}
    assert adoptable == {"settings.json", "trustedFolders.json"}
    composer.apply_fleet(fleet, adopt=True)
    assert set(statuses(fleet).values()) == {MATCH}
    doc = json.loads((folder / "settings.json").read_text())
    assert doc["ui"] == {"theme": "GitHub"} and doc["security"]["folderTrust"] == {"enabled": True}
    assert doc["security"]["auth"] == {"selectedType": "gemini-api-key"}


@pytest.mark.parametrize("garbage", [b"{not json", b"[]", b"\xff\xfe"])
def test_unreadable_settings_are_divergent(born, garbage):
    (gemini_dir(born) / "settings.json").write_bytes(garbage)
    found = next(a for a in composer.plan_fleet(born)[0].artifacts if a.path.name == "settings.json")
    assert found.status == DIVERGENT and found.reason.startswith("invalid JSON")
