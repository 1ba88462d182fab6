"""fleet.toml: what loads, where relative paths resolve, and errors that name the key and the line."""

from __future__ import annotations

import pytest

from generators import composer
from generators.errors import PreparationError, UnsupportedError
from generators.manifest import ManifestError, example_manifest, load_manifest, locate
from tests.support.fleets import BASE_MANIFEST, KIMI, OPENCODE, RESIDENTS, make_fleet, tree_bytes


def line_of(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), start=1) if needle in line)


def test_fixture_manifest_loads_with_paths_resolved_from_its_directory(tmp_path):
    fleet = make_fleet(tmp_path / "ops")
    assert fleet.path == tmp_path / "ops" / "fleet.toml"
    assert fleet.instance_root == tmp_path / "ops" / "instances"
    assert fleet.mcp_prefix == "neo-mjs-" and fleet.default_model == "kimi-k2"
    assert [r.agent_id for r in fleet.residents] == [KIMI, OPENCODE]
    assert fleet.resident(KIMI).repo == tmp_path / "ops" / "repos" / "iris"
    assert list(fleet.catalog) == ["neo-mjs-memory-core", "neo-mjs-switched-off"]
    assert fleet.catalog["neo-mjs-memory-core"].args == ("server.js", "--stdio")
    assert [s.name for s in fleet.enabled_servers(fleet.resident(KIMI))] == ["neo-mjs-memory-core",
                                                                             "neo-mjs-seat-curator"]
    assert fleet.harness_cli == {} and fleet.hooks == () and fleet.hook_python is None


def test_optional_tables_overrides_and_parent_relative_paths(tmp_path):
    extra = ('hook_python = "/usr/bin/python3"\n\n[harness_cli]\nkimi-code = "/opt/kimi/bin/kimi"\n'
             'opencode = "bin/opencode"\n\n[[hooks]]\nevent = "Stop"\ncommand = "notify"\ntimeout = 9\n')
    residents = RESIDENTS.replace('repo = "repos/iris"', 'repo = "../shared/iris"\nmodel = "kimi-k2-turbo"\n'
                                  'allowed_paths = ["../data"]\nmcp = { neo-mjs-switched-off = true, neo-mjs-memory-core = 1 }')
    base = BASE_MANIFEST.replace("\n[mcp.", "\n" + extra + "\n[mcp.", 1)
    fleet = make_fleet(tmp_path / "ops", residents=residents, base=base)
    iris = fleet.resident(KIMI)
    assert iris.repo == tmp_path / "shared" / "iris" and iris.allowed_paths == (tmp_path / "data",)
    assert iris.model == "kimi-k2-turbo"
    assert iris.mcp_overrides == {"neo-mjs-switched-off": True, "neo-mjs-memory-core": False}  # only `true` is on
    assert [s.name for s in fleet.enabled_servers(iris)] == ["neo-mjs-switched-off", "neo-mjs-seat-curator"]
    assert fleet.harness_cli == {"kimi-code": "/opt/kimi/bin/kimi", "opencode": str(tmp_path / "ops/bin/opencode")}
    assert fleet.hook_python == "/usr/bin/python3"
    assert [(h.event, h.command, h.timeout) for h in fleet.hooks] == [("Stop", "notify", 9)]


BAD = [
    # (replace old, with new, error class, message fragment, text on the reported line)
    ('default_permission_mode = "manual"', 'default_permission_mode = "always"', ManifestError,
     "default_permission_mode (line 4): 'always' is not one of manual, yolo, auto", 'default_permission_mode = "always"'),
    ('harness = "opencode"', 'harness = "gemini-cli"', UnsupportedError,
     "residents[1].harness (line {line}): unknown harness 'gemini-cli'", 'harness = "gemini-cli"'),
    ('args = ["server.js", "--stdio"]', 'args = ["server.js", 2]', ManifestError,
     "mcp.neo-mjs-memory-core.args (line {line}): item 1 must be a string", "args = "),
    ('[mcp.neo-mjs-switched-off]', '[mcp.switched-off]', UnsupportedError,
     "mcp.switched-off (line {line}): must start with the mcp_prefix 'neo-mjs-'", "[mcp.switched-off]"),
    ('enabled = false', 'enabled = false\ncommand = "x"', UnsupportedError,
     "needs exactly one of 'command' (local) or 'url' (remote)", "[mcp.neo-mjs-switched-off]"),
    ('repo = "repos/juno"', 'repo = "repos/juno"\nrepository = "typo"', ManifestError,
     "residents[1].repository (line {line}): unknown key", 'repository = "typo"'),
    ('repo = "repos/juno"', 'repo = 7', ManifestError,
     "residents[1].repo (line {line}): expected a string, got an integer (7)", "repo = 7"),
    (f'agent_id = "{OPENCODE}"', f'agent_id = "{KIMI}"', ManifestError,
     f"residents[1].agent_id (line {{line}}): duplicate agent_id '{KIMI}'", (f'agent_id = "{KIMI}"', -1)),
    ('repo = "repos/iris"', 'repo = "repos/iris"\nharness = "opencode"', ManifestError,
     "invalid TOML at line {line}", ('harness = "opencode"', 0)),
    ('default_model = "kimi-k2"\n', '', ManifestError, "missing required key 'default_model'", None),
]


@pytest.mark.parametrize("old,new,error,fragment,on_line", BAD, ids=[b[3][:40] for b in BAD])
def test_bad_manifests_name_key_and_line_and_write_nothing(tmp_path, old, new, error, fragment, on_line):
    text = (BASE_MANIFEST + RESIDENTS)
    assert old in text
    text = text.replace(old, new, 1)
    path = tmp_path / "fleet.toml"
    path.write_text(text)
    before = tree_bytes(tmp_path)
    with pytest.raises(error) as caught:
        load_manifest(path)
    message = str(caught.value)
    if on_line is not None:
        needle, occurrence = on_line if isinstance(on_line, tuple) else (on_line, 0)
        lines = [i for i, l in enumerate(text.splitlines(), 1) if l.startswith(needle)]
        fragment = fragment.format(line=lines[occurrence])
    assert fragment in message, message
    assert str(path) in message
    assert caught.value.code in ("FLEET_WORKSPACE_PREPARATION_FAILED", "FLEET_WORKSPACE_UNSUPPORTED")
    assert tree_bytes(tmp_path) == before


def test_hook_errors_point_into_the_array_of_tables(tmp_path):
    text = BASE_MANIFEST + '\n[[hooks]]\nevent = "Stop"\ncommand = "a"\n\n[[hooks]]\nevent = "Stop"\ncommand = "b"\ntimeout = 0\n' + RESIDENTS
    (tmp_path / "fleet.toml").write_text(text)
    with pytest.raises(ManifestError, match=rf"hooks\[1\]\.timeout \(line {line_of(text, 'timeout = 0')}\): 0 is outside 1-600"):
        load_manifest(tmp_path / "fleet.toml")
    text = text.replace('event = "Stop"\ncommand = "b"', 'event = "OnPrompt"\ncommand = "b"')
    (tmp_path / "fleet.toml").write_text(text)
    with pytest.raises(ManifestError, match=rf"hooks\[1\]\.event \(line {line_of(text, 'OnPrompt')}\)"):
        load_manifest(tmp_path / "fleet.toml")


def test_unreadable_inputs_are_named(tmp_path):
    with pytest.raises(ManifestError, match="no such file") as caught:
        load_manifest(tmp_path / "absent.toml")
    assert caught.value.code == "FLEET_WORKSPACE_PREPARATION_FAILED"
    (tmp_path / "latin1.toml").write_bytes(b'instance_root = "caf\xe9"\n')
    with pytest.raises(ManifestError, match="not UTF-8"):
        load_manifest(tmp_path / "latin1.toml")


def test_locate_counts_array_entries_and_quoted_headers():
    text = '[[residents]]\nagent_id = "a"\n\n[[residents]]\nagent_id = "b"\n[residents.mcp]\nx = 1\n[mcp."neo-mjs-q"]\nurl = "u"\n'
    assert locate(text, ("residents", 1, "agent_id")) == 5
    assert locate(text, ("residents", 1, "mcp", "x")) == 7
    assert locate(text, ("mcp", "neo-mjs-q", "url")) == 9
    assert locate(text, ("residents", 0)) == 1


def test_example_manifest_is_a_working_fleet(tmp_path):
    path = tmp_path / "fleet.toml"
    path.write_text(example_manifest(tmp_path))
    fleet = load_manifest(path)
    assert [(r.agent_id, r.harness) for r in fleet.residents] == [("@neo-kimi-iris", "kimi-code"),
                                                                    ("@neo-opencode-juno", "opencode"),
                                                                    ("@neo-claude-vega", "claude-code")]
    assert fleet.instance_root == tmp_path / "instances"
    plans = composer.apply_fleet(fleet)
    assert [len(p.artifacts) for p in plans] == [8, 6, 8]  # kimi-code and claude-code seats get the cap guard
    assert composer.plan_exit_code(composer.plan_fleet(fleet)) == 0
    with pytest.raises(PreparationError, match="no resident '@nobody'"):
        fleet.resident("@nobody")
