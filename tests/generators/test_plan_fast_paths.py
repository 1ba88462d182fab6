"""The plan's fast paths give exactly what the plain paths give: the config.toml template against a
direct render when the agent's segment shows up elsewhere, the JSONC fast parse against json5, the
shared directory walk against a fresh safety check, and the raw file read against the bytes on disk."""

from __future__ import annotations

import json
import os
from pathlib import Path

import json5
import pytest

from generators import composer, kimi, layout
from generators.composer import plan as composer_plan
from generators.composer import trusted_paths
from generators.composer import emit_resident
from generators.manifest import parse_manifest
from generators.projection import loads_jsonc, render

PYTHON = "/usr/bin/python3"
AGENT = "@neo-kimi-iris"
SEG = layout.seg(AGENT)
OTHER = "@neo-kimi-juno"  # shares the fleet's template with AGENT, so a wrongly marked template shows


def manifest(root: str, *, model: str = "kimi-k2", hook: str = "") -> str:
    return (f'instance_root = "{root}"\ndefault_model = {json.dumps(model)}\n\n'
            '[mcp.neo-mjs-memory-core]\ncommand = "node"\nargs = ["server.js"]\n'
            f'{hook}\n[[residents]]\nagent_id = "{AGENT}"\nharness = "kimi-code"\nrepo = "r"\n'
            f'\n[[residents]]\nagent_id = "{OTHER}"\nharness = "kimi-code"\nrepo = "r2"\n')


@pytest.mark.parametrize("root, model, hook, interpreter", [
    ("/srv/fleet", "kimi-k2", "", PYTHON),
    ("/srv/fleet", SEG, "", PYTHON),  # the segment as the model name
    (f"/srv/{SEG}", "kimi-k2", "", PYTHON),  # ... as a directory above the seat
    (f"/srv/x{SEG}y", "kimi-k2", "", PYTHON),  # ... inside a longer directory name
    ("/srv/fleet", "kimi-k2", f'\n[[hooks]]\nevent = "Stop"\ncommand = "echo {SEG}"\n', PYTHON),
    ("/srv/fleet", "kimi-k2", "", f"/opt/{SEG}/bin/python3"),  # ... in the interpreter's path
    ("/srv/fleet", "SEATCURATORSEGMENTMARK", "", PYTHON),  # the template's own mark as real text
    ("/srv/fleet", "SEATCURATORAGENTIDMARK", "", PYTHON),
    ("/srv/fleet", "kimi-k2", '\n[[hooks]]\nevent = "Stop"\nmatcher = "m"\ncommand = "SEATCURATORSEGMENTMARK"\ntimeout = 9\n',
     PYTHON),
    ("/srv/fleet", "kimi-k2", "", "/opt/SEATCURATORSEGMENTMARK/python3"),  # a mark in the hook command itself
    ("/srv/SEATCURATORAGENTIDMARK", "kimi-k2", "", PYTHON),
])
def test_config_template_equals_a_direct_render_when_the_segment_repeats(root, model, hook, interpreter):
    fleet = parse_manifest(manifest(root, model=model, hook=hook), Path(root) / "fleet.toml")
    for agent in (AGENT, OTHER, AGENT):
        resident = fleet.resident(agent)
        config = next(f for f in emit_resident(fleet, resident, interpreter=interpreter)
                      if f.path.name == "config.toml")
        direct = kimi.config_toml(agent, kimi.config_data(fleet, resident, config.path.parent / kimi.HOOK_RELPATH,
                                                          interpreter))
        assert config.content == direct, agent


@pytest.mark.parametrize("text", [
    '// header\n// more\n{"a": 1}\n',
    '\ufeff// header\n\n   // indented\n{"a": [1, 2]}',
    '// header\r\n{"a": 1}\r\n',
    '{"a": 1, // inline\n"b": 2,}\n',
    '// only comments\n// here',
    '',
    '\n\n{"a": {"b": "// not a comment"}}\n',
    '// header\n{a: 1}\n',
])
def test_jsonc_fast_parse_agrees_with_json5(text):
    try:
        expected = json5.loads(text)
    except ValueError:
        with pytest.raises(ValueError):
            loads_jsonc(text)
        return
    assert loads_jsonc(text) == expected


def test_shared_walk_finds_what_a_fresh_check_finds(tmp_path):
    root = tmp_path / "root"
    seat = root / "a" / "b"
    seat.mkdir(parents=True)
    (seat / "regular").write_bytes(b"x")
    (seat / "linked").symlink_to(seat / "regular")
    (seat / "dir").mkdir()
    os.mkfifo(seat / "fifo")
    (root / "a" / "file").write_bytes(b"x")
    (root / "a" / "dirlink").symlink_to(seat)
    names = [seat / "regular", seat / "linked", seat / "dir", seat / "fifo", seat / "absent",
             seat / "missing" / "x", root / "a" / "file" / "x", root / "a" / "dirlink" / "regular",
             root / "top", root / ".." / "escape"]
    walk = trusted_paths.Walk()
    for path in names + names:  # twice: the second pass answers from the shared walk
        assert trusted_paths.inspect(root, path, walk) == trusted_paths.inspect(root, path), path
    assert composer.path_problem(root, seat / "regular") == (None, None)
    assert composer.path_problem(root, seat / "linked")[0] == f"symlinked path segment: {seat / 'linked'}"
    assert composer.path_problem(root, seat / "fifo")[0] == f"not a regular file: {seat / 'fifo'}"
    assert composer.path_problem(root, root / "a" / "dirlink" / "regular")[1] == root / "a" / "dirlink"


def test_raw_read_returns_the_exact_bytes_and_refuses_links_and_huge_files(tmp_path, monkeypatch):
    data = bytes(range(256)) * 300
    (tmp_path / "f").write_bytes(data)
    (tmp_path / "empty").write_bytes(b"")
    (tmp_path / "link").symlink_to(tmp_path / "f")
    assert composer_plan.read_regular(tmp_path / "f") == data
    assert composer_plan.read_regular(str(tmp_path / "empty")) == b""
    with pytest.raises(OSError):
        composer_plan.read_regular(tmp_path / "link")
    monkeypatch.setattr(composer_plan, "MAX_READ_BYTES", 1000)
    with pytest.raises(OSError, match="safety limit"):
        composer_plan.read_regular(tmp_path / "f")


def test_raw_read_with_the_checked_size_reads_to_the_end_whatever_the_file_did_since(tmp_path, monkeypatch):
    data = b"0123456789" * 1000
    (tmp_path / "f").write_bytes(data)
    assert composer_plan.read_regular(tmp_path / "f", len(data)) == data
    assert composer_plan.read_regular(tmp_path / "f", 10) == data  # grew after the check
    assert composer_plan.read_regular(tmp_path / "f", len(data) * 2) == data  # shrank after the check
    assert composer_plan.read_regular(tmp_path / "f", 0) == data
    monkeypatch.setattr(composer_plan, "MAX_READ_BYTES", 1000)
    with pytest.raises(OSError, match="safety limit"):
        composer_plan.read_regular(tmp_path / "f", 2000)  # refused on the checked size, before opening
    with pytest.raises(OSError, match="safety limit"):
        composer_plan.read_regular(tmp_path / "f", 10)  # grew past the limit after the check


def test_plan_artifacts_equal_a_fresh_check_of_each_path(tmp_path):
    """The seat-wide walk (verified parents shared by a seat's files) reports what a fresh,
    unshared check of each file reports, on a seat with a symlinked, a missing and a file-for-dir
    segment."""
    root = tmp_path / "fleet"
    fleet = parse_manifest(manifest(str(root)), root / "fleet.toml")
    resident = fleet.resident(AGENT)
    home = layout.instance_home(fleet.instance_root, AGENT, "kimi-code")
    (home / "memory").mkdir(parents=True)
    (home / "hooks").write_bytes(b"not a directory")
    (home / "config.toml").symlink_to(home / "hooks")
    (home / "memory" / "MEMORY.md").write_bytes(b"# mine\n")
    plan = composer.plan_resident(fleet, resident, interpreter=PYTHON)
    for art in plan.artifacts:
        problem, at, exists = trusted_paths.inspect(art.emitted.root, art.path)
        assert art.unsafe_at == at, art.path
        if problem:
            assert (art.status, art.reason) == (composer.DIVERGENT, problem), art.path
        else:
            assert art.status == (composer.MATCH if exists else composer.PENDING), art.path
    statuses = {art.path.name: art.status for art in plan.artifacts}
    assert statuses["MEMORY.md"] == composer.MATCH and statuses["identity.md"] == composer.PENDING
    assert statuses["config.toml"] == statuses[kimi.HOOK_SCRIPT] == composer.DIVERGENT


OC = "@neo-oc-juno"


def oc_manifest(root: str, *, repo: str = "r", model: str = "", allowed: str = "", prefix: str = "neo-mjs-",
                server: str = "neo-mjs-memory-core") -> str:
    return (f'instance_root = {json.dumps(root)}\ndefault_model = "kimi-k2"\nmcp_prefix = {json.dumps(prefix)}\n\n'
            f'[mcp.{server}]\ncommand = "node"\nargs = ["server.js"]\n'
            f'\n[[residents]]\nagent_id = {json.dumps(OC)}\nharness = "opencode"\nrepo = {json.dumps(repo)}\n'
            + (f"model = {json.dumps(model)}\n" if model else "")
            + (f"allowed_paths = [{json.dumps(allowed)}]\n" if allowed else "")
            + '\n[[residents]]\nagent_id = "@neo-oc-iris"\nharness = "opencode"\nrepo = "r2"\n')


OC_HOME = str(layout.instance_home("/srv/fleet", OC, "opencode"))


@pytest.mark.parametrize("root, kwargs", [
    ("/srv/fleet", {}),
    ("/srv/fleet", {"model": "kimi-k2", "allowed": "/data/shared"}),
    ('/srv/q"uote\\back slash/ünï', {}),  # escaped by the JSON encoder inside the seat's paths
    ("/srv/tab\there", {}),
    ("/srv/fleet", {"repo": OC_HOME}),  # repo == home: one external_directory key in a direct render
    ("/srv/fleet", {"allowed": OC_HOME}),  # an allowed path equal to the home
    ("/srv/fleet", {"allowed": "/srv/fleet/r"}),  # ... or to the repo
    ("/srv/fleet", {"model": "SEATCURATORHOMEMARK"}),  # the template's own marks as real text
    ("/srv/fleet", {"allowed": "/x/SEATCURATORREPOMARK"}),
    ("/srv/fleet", {"prefix": "SEATCURATORAGENTIDMARK", "server": "SEATCURATORAGENTIDMARK-x"}),
    ("/srv/SEATCURATORHOMEMARK", {}),
])
def test_opencode_template_equals_a_direct_render(root, kwargs):
    from generators import opencode

    fleet = parse_manifest(oc_manifest(root, **kwargs), Path(root) / "fleet.toml")
    for agent in (OC, "@neo-oc-iris", OC):
        resident = fleet.resident(agent)
        item = next(f for f in emit_resident(fleet, resident) if f.path.name == "opencode.jsonc")
        assert item.content == opencode.opencode_jsonc(fleet, resident), agent
        assert item.owned == composer.project(item.convergence, item.content, fleet.mcp_prefix)
        assert list(item.owned) == list(item.owned_keys)


def test_kimi_mcp_json_through_the_cache_equals_a_direct_render():
    hook = '\n[mcp.neo-mjs-remote]\nurl = "https://r.invalid/ü"\nheaders = { Authorization = "Bearer \\"x\\"" }\n'
    fleet = parse_manifest(manifest("/srv/fleet", hook=hook), Path("/srv/fleet/fleet.toml"))
    for agent in (AGENT, OTHER):
        resident = fleet.resident(agent)
        files = {f.path.name: f for f in emit_resident(fleet, resident, interpreter=PYTHON)}
        for name, direct in (("mcp.json", kimi.mcp_json(kimi.mcp_data(fleet, resident))),
                             ("config.toml", None)):
            item = files[name]
            if direct is not None:
                assert item.content == direct
            assert item.owned == composer.project(item.convergence, item.content, fleet.mcp_prefix)
            assert list(item.owned) == list(item.owned_keys)


@pytest.mark.parametrize("name, edit, status", [
    # Other bytes, same owned values: the byte comparison misses, the projection still says MATCH.
    ("mcp.json", lambda t: json.dumps(json.loads(t)), composer.MATCH),
    ("mcp.json", lambda t: json.dumps(json.loads(t), indent=4, sort_keys=True), composer.MATCH),
    ("opencode.jsonc",
     lambda t: "// mine\n" + t.replace('\n  "instructions"', '\n  // x\n  "instructions"'), composer.MATCH),
    ("config.toml", lambda t: t.replace("default_model =", "# mine\ndefault_model  ="), composer.MATCH),
    # Other owned values: DIVERGENT, with the reason and diff the projection gives.
    ("mcp.json", lambda t: t.replace('"server.js"', '"other.js"'), composer.DIVERGENT),
    ("opencode.jsonc", lambda t: t.replace("/memory/identity.md", "/memory/other.md"), composer.DIVERGENT),
    ("config.toml", lambda t: t.replace('"manual"', '"yolo"'), composer.DIVERGENT),
])
def test_byte_comparison_only_short_cuts_a_match(tmp_path, name, edit, status):
    root = tmp_path / "fleet"
    text = (manifest(str(root)) + '\n[[residents]]\nagent_id = "@oc"\nharness = "opencode"\nrepo = "r3"\n')
    fleet = parse_manifest(text, root / "fleet.toml")
    composer.apply_fleet(fleet, interpreter=PYTHON)
    resident = fleet.resident("@oc" if name == "opencode.jsonc" else AGENT)
    item = next(f for f in emit_resident(fleet, resident, interpreter=PYTHON) if f.path.name == name)
    item.path.write_text(edit(item.path.read_text()))
    found = next(a for a in composer.plan_resident(fleet, resident, interpreter=PYTHON).artifacts
                 if a.path == item.path)
    assert found.status == status
    actual = composer.project(item.convergence, item.path.read_bytes(), fleet.mcp_prefix)
    changed = [k for k in item.owned if item.owned[k] != actual.get(k, "<absent>")]
    if status == composer.MATCH:
        assert (found.reason, found.diff, changed) == (composer.OWNED_MATCH, "", [])
    else:
        assert found.reason.partition("; `provision --repair`")[0] == "owned keys differ: " + ", ".join(changed)
        assert found.diff == composer_plan.text_diff(item.path, render(item.owned), render(actual))


def test_emitted_file_renders_and_projects_once_each_on_first_use():
    calls = []

    def render(*args):
        calls.append(("render", args))
        return b"bytes"

    def project(*args):
        calls.append(("project", args))
        return {"k": 1}

    item = composer.EmittedFile(Path("/x"), "fleet", "kimi-mcp", 0o600, Path("/"), render, project, ("k",), (1, 2))
    assert calls == []
    assert item.content == b"bytes" and item.content == b"bytes"
    assert item.owned == {"k": 1} and item.owned == {"k": 1}
    assert calls == [("render", (1, 2)), ("project", (1, 2))]


def test_servers_key_gives_back_equal_servers_and_tells_every_field_apart():
    from generators.manifest import McpServer, servers_key, servers_of

    servers = [McpServer("neo-mjs-a", True, "node", ("s.js", "--x"), {"A": "1", "B": "2"}, "/w"),
               McpServer("neo-mjs-r", False, url="https://r.invalid", headers={"H": "v"})]
    assert servers_of(servers_key(servers)) == servers
    variants = [McpServer("neo-mjs-a", True, "node", ("s.js", "--x"), {"B": "2", "A": "1"}, "/w"),  # env order
                McpServer("neo-mjs-a", True, "node", ("s.js",), {"A": "1", "B": "2"}, "/w"),
                McpServer("neo-mjs-a", True, "deno", ("s.js", "--x"), {"A": "1", "B": "2"}, "/w"),
                McpServer("neo-mjs-a", True, "node", ("s.js", "--x"), {"A": "1", "B": "2"}, None)]
    keys = {servers_key([v]) for v in variants} | {servers_key(servers[:1])}
    assert len(keys) == len(variants) + 1


def test_a_changed_catalog_is_never_answered_from_an_earlier_render(tmp_path):
    root = tmp_path / "fleet"
    for args in ('["server.js"]', '["server.js", "--stdio"]', '["server.js"]'):
        text = manifest(str(root)).replace('args = ["server.js"]', f"args = {args}")
        text += '\n[[residents]]\nagent_id = "@oc"\nharness = "opencode"\nrepo = "r3"\n'
        fleet = parse_manifest(text, root / "fleet.toml")
        files = {f.path.name: f for r in fleet.residents for f in emit_resident(fleet, r, interpreter=PYTHON)}
        assert json.loads(files["mcp.json"].content)["mcpServers"]["neo-mjs-memory-core"]["args"] == json.loads(args)
        command = json5.loads(files["opencode.jsonc"].content.decode())["mcp"]["neo-mjs-memory-core"]["command"]
        assert command == ["node", *json.loads(args)]


@pytest.mark.parametrize("change", [
    lambda t: t.replace('default_model = "kimi-k2"', 'default_model = "kimi-k3"'),
    lambda t: t.replace('default_model = "kimi-k2"\n', 'default_model = "kimi-k2"\ndefault_permission_mode = "auto"\n'),
    lambda t: t.replace('default_model = "kimi-k2"\n', 'default_model = "kimi-k2"\nmcp_prefix = "neo-"\n'),
    lambda t: t + '\n[[hooks]]\nevent = "Stop"\ncommand = "echo stop"\n',
    lambda t: t.replace('args = ["server.js"]', 'args = ["server.js"]\nenv = { K = "v" }'),
    lambda t: t.replace('repo = "r"\n', 'repo = "elsewhere"\nmodel = "m2"\nallowed_paths = ["/data"]\n'),
])
def test_cached_fleet_files_follow_every_value_they_are_rendered_from(tmp_path, change):
    """The seat's fleet files are cached on the values they render from; a fleet that differs in any
    of them gets its own bytes and projection, and the first fleet still gets its own back."""
    from generators import opencode

    root = tmp_path / "fleet"
    base = manifest(str(root)) + '\n[[residents]]\nagent_id = "@oc"\nharness = "opencode"\nrepo = "r"\n'
    for text, interpreter in ((base, PYTHON), (change(base), PYTHON), (base, PYTHON), (base, "/opt/py3")):
        fleet = parse_manifest(text, root / "fleet.toml")
        for resident in fleet.residents:
            files = {f.path.name: f for f in emit_resident(fleet, resident, interpreter=interpreter)}
            if resident.harness == "opencode":
                direct = {"opencode.jsonc": opencode.opencode_jsonc(fleet, resident)}
            else:
                hook = files[kimi.HOOK_SCRIPT].path
                direct = {"config.toml": kimi.config_toml(resident.agent_id,
                                                          kimi.config_data(fleet, resident, hook, interpreter)),
                          "mcp.json": kimi.mcp_json(kimi.mcp_data(fleet, resident))}
            for name, data in direct.items():
                item = files[name]
                if name == "opencode.jsonc":
                    assert item.path.parent == resident.repo, name
                elif name == "mcp.json":  # the seat's own: kimi-code skips a project-level one in an untrusted folder
                    assert item.path.parent == hook.parent.parent, name
                assert item.content == data, (name, resident.agent_id)
                assert item.owned == composer.project(item.convergence, data, fleet.mcp_prefix)
                assert list(item.owned_keys) == list(item.owned)
