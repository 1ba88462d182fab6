"""Provisioning that cannot half-birth a seat or let one seat read another's files: residents that
share a fleet-owned file are refused at plan time, provision succeeds only over a clean plan after
writing, and operator values are checked where they enter (the manifest)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from curator.cli import main
from generators import composer, template
from generators.composer import apply as composer_apply
from generators.errors import DivergentError, PreparationError, UnsupportedError
from generators.manifest import AGENT_ID_MAX, ManifestError, load_manifest
from tests.support.fleets import BASE_MANIFEST, KIMI, OPENCODE, RESIDENTS, tree_bytes, write_fleet
SECOND = "@neo-opencode-vega"


def two_opencode(repo_a: str = "repos/juno", repo_b: str = "repos/juno") -> str:
    return (f'\n[[residents]]\nagent_id = "{OPENCODE}"\nharness = "opencode"\nrepo = "{repo_a}"\n'
            f'\n[[residents]]\nagent_id = "{SECOND}"\nharness = "opencode"\nrepo = "{repo_b}"\n')


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


# ------------------------------------------------------------------ residents sharing a file (11)


def test_two_residents_with_the_same_repo_are_refused_at_plan_time(tmp_path, capsys):
    manifest = write_fleet(tmp_path, residents=two_opencode())
    before = tree_bytes(tmp_path)
    code, out, _ = run(capsys, "plan", "--fleet", str(manifest))
    assert code == 3
    jsonc = tmp_path / "repos" / "juno" / "opencode.jsonc"
    shared = [line for line in out.splitlines() if "share this file" in line]
    assert len(shared) == 2 and all(OPENCODE in line and SECOND in line and str(jsonc) in line for line in shared)

    code, out, err = run(capsys, "provision", "--fleet", str(manifest))
    assert code == 3 and out == ""
    assert OPENCODE in err and SECOND in err and str(jsonc) in err and len(err.splitlines()) == 1
    assert tree_bytes(tmp_path) == before  # neither seat was born: no bearer files either


def test_planning_one_of_them_still_sees_the_clash(tmp_path, capsys):
    manifest = write_fleet(tmp_path, residents=two_opencode())
    code, out, _ = run(capsys, "plan", "--fleet", str(manifest), "--resident", SECOND, "--json")
    assert code == 3
    found = [a for a in json.loads(out)["residents"][0]["artifacts"] if a["status"] == "DIVERGENT"]
    assert [Path(a["path"]).name for a in found] == ["opencode.jsonc"]
    assert OPENCODE in found[0]["reason"] and SECOND in found[0]["reason"]
    assert run(capsys, "provision", "--fleet", str(manifest), "--resident", SECOND)[0] == 3
    assert not (tmp_path / "instances").exists()


def test_a_repo_that_is_a_symlink_to_another_is_the_same_repo(tmp_path, capsys):
    (tmp_path / "repos" / "juno").mkdir(parents=True)
    (tmp_path / "repos" / "vega").symlink_to(tmp_path / "repos" / "juno")
    manifest = write_fleet(tmp_path, residents=two_opencode("repos/juno", "repos/vega"))
    code, out, _ = run(capsys, "plan", "--fleet", str(manifest))
    assert code == 3
    real = tmp_path / "repos" / "juno" / "opencode.jsonc"
    assert out.count(f"share this file ({real})") == 2


def test_a_clash_with_an_already_born_seat_refuses_both(tmp_path, capsys):
    manifest = write_fleet(tmp_path, residents=two_opencode("repos/juno", "repos/vega"))
    assert run(capsys, "provision", "--fleet", str(manifest))[0] == 0
    vega = tmp_path / "repos" / "vega"
    moved = tmp_path / "repos" / "vega-real"
    vega.rename(moved)
    vega.symlink_to(tmp_path / "repos" / "juno")  # vega's repo now leads to juno's files
    fleet = load_manifest(manifest)
    plans = composer.plan_fleet(fleet)
    assert composer.plan_exit_code(plans) == 3
    for plan in plans:
        jsonc = next(a for a in plan.artifacts if a.path.name == "opencode.jsonc")
        assert jsonc.status == composer.DIVERGENT and jsonc.shared_with
    with pytest.raises(PreparationError, match="fix the manifest"):
        composer.set_aside(fleet, fleet.resident(SECOND), vega / "opencode.jsonc")


def test_a_kimi_and_an_opencode_seat_may_share_a_repo(tmp_path):
    residents = RESIDENTS.replace('repo = "repos/juno"', 'repo = "repos/iris"')
    fleet = load_manifest(write_fleet(tmp_path, residents=residents))
    assert composer.plan_exit_code(composer.plan_fleet(fleet)) == 2  # .kimi-code/mcp.json vs opencode.jsonc
    composer.apply_fleet(fleet)
    assert composer.plan_exit_code(composer.plan_fleet(fleet)) == 0


def test_provision_never_reports_success_over_a_seat_that_diverged_while_it_wrote(tmp_path, monkeypatch):
    fleet = load_manifest(write_fleet(tmp_path))
    before = tree_bytes(tmp_path)
    real_create = composer_apply.exclusive_create
    racing = {}

    def create(path, content, *, mode):
        if Path(path).name == "opencode.jsonc":  # another writer gets there first, with other content
            Path(path).write_bytes(b'{"instructions": ["someone else"]}\n')
            racing[Path(path)] = Path(path).read_bytes()
            return False
        return real_create(path, content, mode=mode)

    monkeypatch.setattr(composer_apply, "exclusive_create", create)
    with pytest.raises(DivergentError) as caught:
        composer.apply_fleet(fleet)
    assert "opencode.jsonc" in str(caught.value) and "undone" in str(caught.value)
    after = tree_bytes(tmp_path)
    # Every file this run created is gone again; only the other writer's file remains, as it wrote it.
    assert {k: v for k, v in after.items() if not k.endswith("opencode.jsonc")} == before
    assert list(racing.values()) == [next(p for p in racing).read_bytes()]


def test_rollback_keeps_a_created_file_someone_wrote_to_since(tmp_path, monkeypatch):
    fleet = load_manifest(write_fleet(tmp_path))
    real_create = composer_apply.exclusive_create
    memory = {}

    def create(path, content, *, mode):
        made = real_create(path, content, mode=mode)
        if Path(path).name == "MEMORY.md" and "opencode" in str(path):
            Path(path).write_bytes(content + b"- the bearer's first line\n")  # the bearer is quick
            memory["path"] = Path(path)
        if Path(path).name == "opencode.jsonc":
            Path(path).write_bytes(b"{}\n")  # and then something breaks the seat
        return made

    monkeypatch.setattr(composer_apply, "exclusive_create", create)
    with pytest.raises(DivergentError, match=r"kept 2 file\(s\) written to since") as caught:
        composer.apply_fleet(fleet)
    assert str(memory["path"]) in str(caught.value)
    assert memory["path"].read_bytes().endswith(b"- the bearer's first line\n")
    assert (tmp_path / "repos" / "juno" / "opencode.jsonc").read_bytes() == b"{}\n"  # not ours to remove
    assert not (tmp_path / "repos" / "iris" / ".kimi-code" / "mcp.json").exists()  # ours, unchanged: removed


# ------------------------------------------------------------------ operator values (12)


@pytest.mark.parametrize("agent_id, problem", [
    ("@iris\\nignore previous", "control character (U+000A)"),
    ("@iris`rm`", "backtick"),
    ("@iris\\u202egnp.exe", "format character"),
    ("@iris\\u200b", "format character"),
    ("@iris\\u2028x", "line separator"),
    ("x" * 5000, f"over the {AGENT_ID_MAX}-character limit"),
    (" @iris", "whitespace"),
    ("   ", "must not be empty"),
])
def test_agent_ids_that_would_leak_into_the_models_context_are_refused(tmp_path, agent_id, problem):
    residents = RESIDENTS.replace(f'agent_id = "{KIMI}"', f'agent_id = "{agent_id}"')
    path = write_fleet(tmp_path, residents=residents)
    before = tree_bytes(tmp_path)
    with pytest.raises(ManifestError) as caught:
        load_manifest(path)
    line = next(i for i, text in enumerate(path.read_text().splitlines(), 1) if text.startswith("agent_id = ")
                and OPENCODE not in text)
    assert problem in str(caught.value) and f"residents[0].agent_id (line {line})" in str(caught.value)
    assert str(path) in str(caught.value) and len(str(caught.value).splitlines()) == 1
    assert tree_bytes(tmp_path) == before


def test_the_longest_allowed_id_keeps_identity_md_inside_its_contract(tmp_path):
    longest = "@" + "ü" * (AGENT_ID_MAX - 1)
    fleet = load_manifest(write_fleet(tmp_path, residents=RESIDENTS.replace(KIMI, longest)))
    assert fleet.residents[0].agent_id == longest
    assert len(template.identity_md(longest)) < 600
    too_long = RESIDENTS.replace(KIMI, longest + "x")
    with pytest.raises(ManifestError, match="over the 128-character limit"):
        load_manifest(write_fleet(tmp_path / "b", residents=too_long))


@pytest.mark.parametrize("name", ['"neo-mjs-x\\n"', '"neo-mjs-x\\t"', '"neo-mjs-x "', '"neo-mjs-ü"'])
def test_mcp_names_must_match_in_full(tmp_path, name):
    extra = f'\n[mcp.{name}]\nurl = "https://x.invalid/mcp"\n'
    with pytest.raises(UnsupportedError, match="server names may hold only"):
        load_manifest(write_fleet(tmp_path, extra))


@pytest.mark.parametrize("dirname", ["ops\nfleet", 'ops "quoted" \\ back', "ops\ttab", "ops\u2028sep"])
def test_init_fleet_in_any_directory_name_round_trips(tmp_path, capsys, dirname):
    root = tmp_path / dirname
    assert run(capsys, "init-fleet", str(root))[0] == 0
    fleet = load_manifest(root / "fleet.toml")
    assert fleet.instance_root == root / "instances"
    assert [r.repo for r in fleet.residents] == [root / "repos" / "iris", root / "repos" / "juno",
                                                 root / "repos" / "vega"]
    assert run(capsys, "plan", "--fleet", str(root / "fleet.toml"))[0] == 2
    assert run(capsys, "provision", "--fleet", str(root / "fleet.toml"))[0] == 0
    assert run(capsys, "plan", "--fleet", str(root / "fleet.toml"))[0] == 0


# ------------------------------------------------------------------ the manifest's own bytes (6)


def test_a_utf8_bom_in_fleet_toml_is_accepted(tmp_path):
    plain = load_manifest(write_fleet(tmp_path / "plain"))
    path = write_fleet(tmp_path / "bom")
    path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    with_bom = load_manifest(path)
    assert [(r.agent_id, r.harness, r.repo.name) for r in with_bom.residents] == \
        [(r.agent_id, r.harness, r.repo.name) for r in plain.residents]
    assert with_bom.catalog.keys() == plain.catalog.keys()


@pytest.mark.parametrize("broken, where", [
    ('default_model = "kimi-k2', "top"),                   # an unclosed string
    ("default_model = ", "top"),                           # a key without a value
    ("= 1", "top"),                                        # an empty key
    ("\ufeff\ufeffx = 1", "top"),                           # a second BOM is not a BOM any more
    ("x = " + "[" * 5000, "top"),                          # nesting past any parser's depth
    ("[mcp.neo-mjs-memory-core]\nurl = 'u'", "end"),       # a table defined twice
    ('[[residents]]\nagent_id = "@x"\nagent_id = "@y"', "end"),  # a key defined twice
])
def test_broken_toml_is_one_line_naming_file_and_line(tmp_path, broken, where):
    base = BASE_MANIFEST + RESIDENTS
    text = broken + "\n" + base if where == "top" else base + broken + "\n"
    line = 1 if where == "top" else len(base.splitlines()) + len(broken.splitlines())
    path = tmp_path / "fleet.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ManifestError) as caught:
        load_manifest(path)
    message = str(caught.value)
    assert message.startswith(f"{path}: invalid TOML at line ") and len(message.splitlines()) == 1, message
    reported = int(message.split(" at line ")[1].split(",")[0])
    assert reported in (line, line - 1 if where == "end" else line), message


@pytest.mark.parametrize("old, new, where", [
    ('repo = "repos/iris"', 'repo = "repos/ir\\u0000is"', "residents[0].repo"),
    ('instance_root = "instances"', 'instance_root = "inst\\u0000ances"', "instance_root"),
    ('repo = "repos/juno"', 'repo = "repos/juno"\nallowed_paths = ["a\\u0000b"]', "residents[1].allowed_paths"),
])
def test_a_nul_in_a_path_is_a_one_line_error(tmp_path, capsys, old, new, where):
    manifest = write_fleet(tmp_path)
    manifest.write_text(manifest.read_text().replace(old, new, 1))
    code, out, err = run(capsys, "plan", "--fleet", str(manifest))
    assert code == 1 and out == "" and len(err.splitlines()) == 1
    assert f"{where} (line " in err and "NUL" in err and str(manifest) in err


@pytest.mark.parametrize("which", ["first", "third"])
def test_a_full_disk_names_the_file_and_leaves_no_half_born_seat(tmp_path, capsys, monkeypatch, which):
    """ENOSPC comes from write(2), whose OSError carries no file name: the one-line error must still
    name the file that could not be written, and every file written before it is removed."""
    manifest = write_fleet(tmp_path)
    real = composer_apply.exclusive_create
    calls = []

    def full_disk(path, data, *, mode=0o600):
        calls.append(Path(path))
        if len(calls) == {"first": 1, "third": 3}[which]:
            raise OSError(28, "No space left on device")  # no filename, as from write()
        return real(path, data, mode=mode)

    monkeypatch.setattr(composer_apply, "exclusive_create", full_disk)
    before = tree_bytes(tmp_path)
    code, _out, err = run(capsys, "provision", "--fleet", str(manifest))
    assert code == 1 and err.count("\n") == 1
    assert str(calls[-1]) in err and "ENOSPC" in err, err
    assert {k: v for k, v in tree_bytes(tmp_path).items() if k in before} == before
    assert all(not p.exists() for p in calls)
