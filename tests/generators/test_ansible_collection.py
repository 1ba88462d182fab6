"""The Ansible collection (ansible/ansible_collections/seat_curator/fleet) over three hosts on this
machine (local connection, separate roots), driven by its own example playbook and manifest:
check mode writes nothing and reports changes, a real run provisions, a second run changes nothing,
a hand edit fails the task naming the file, and `repair: true` rewrites only the owned values."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import sysconfig
import tarfile
from pathlib import Path

import pytest

from tests.support.byte_checks import outside_unchanged
from tests.support.fleets import tree_bytes

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parent.parent.parent
COLLECTIONS = REPO / "ansible"
COLLECTION = COLLECTIONS / "ansible_collections" / "seat_curator" / "fleet"
PLAYBOOK = COLLECTION / "examples" / "playbook.yml"
MANIFEST = COLLECTION / "examples" / "fleet.toml"
BIN = Path(sys.executable).parent
HOSTS = {"h1": "@neo-kimi-iris", "h2": "@neo-opencode-juno", "h3": "@neo-claude-vega"}
H3_HOOK_PYTHON = "/opt/h3-python/bin/python3"  # a per-host interpreter setting (need not exist here)


def host_python(directory: Path) -> Path:
    """A second interpreter, a copy (not a link) of this one, that imports seat-curator: a target
    host's own Python, at a path the controller's is not."""
    subprocess.run([sys.executable, "-m", "venv", "--copies", "--without-pip", str(directory)], check=True, timeout=120)
    python = directory / "bin" / "python"
    purelib = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             capture_output=True, text=True, check=True).stdout.strip()
    ours = sysconfig.get_paths()["purelib"]
    Path(purelib, "seat_curator_tests.pth").write_text(f"import site; site.addsitedir({ours!r})\n")
    return python


def write_inventory(tmp_path: Path, h1_python: Path | None = None) -> Path:
    lines = ["seat_hosts:", "  vars:", "    ansible_connection: local", "    seat_curator_install: false",
             f"    seat_curator_manifest: {json.dumps(str(MANIFEST))}",
             f"    seat_curator_python: {json.dumps(sys.executable)}",  # seat-curator is installed there
             f"    ansible_python_interpreter: {json.dumps(sys.executable)}", "  hosts:"]
    for host, resident in HOSTS.items():
        carried = [resident] + (["@neo-opencode-juno"] if host == "h1" else [])  # h1 carries two seats
        lines += [f"    {host}:", f"      seat_curator_root: {json.dumps(str(tmp_path / 'hosts' / host))}",
                  f"      seat_curator_residents: {json.dumps(carried)}"]
        if host == "h1" and h1_python is not None:  # the modules run there with h1's own interpreter
            lines += [f"      seat_curator_python: {json.dumps(str(h1_python))}",
                      f"      ansible_python_interpreter: {json.dumps(str(h1_python))}"]
    lines.append(f"      seat_curator_hook_python: {H3_HOOK_PYTHON}")
    (tmp_path / "ansible.cfg").write_text("[defaults]\n")
    path = tmp_path / "inventory.yml"
    path.write_text("\n".join(lines) + "\n")
    return path


def env(tmp_path: Path) -> dict[str, str]:
    home = tmp_path / "ansible-home"
    return {**os.environ, "ANSIBLE_COLLECTIONS_PATH": str(COLLECTIONS), "ANSIBLE_HOME": str(home),
            "ANSIBLE_LOCAL_TEMP": str(home / "tmp"), "ANSIBLE_REMOTE_TEMP": str(home / "remote"),
            "ANSIBLE_NOCOLOR": "1", "ANSIBLE_FORCE_COLOR": "0", "ANSIBLE_RETRY_FILES_ENABLED": "0",
            "ANSIBLE_CONFIG": str(tmp_path / "ansible.cfg")}  # written empty: no user or system config


def playbook(tmp_path: Path, *args: str) -> tuple[int, str, dict[str, dict[str, int]]]:
    proc = subprocess.run([str(BIN / "ansible-playbook"), "-i", str(tmp_path / "inventory.yml"), str(PLAYBOOK), *args],
                          capture_output=True, text=True, env=env(tmp_path), cwd=tmp_path, timeout=300)
    recap = {m.group(1): {k: int(v) for k, v in re.findall(r"(\w+)=(\d+)", m.group(2))}
             for m in re.finditer(r"^(h\d)\s+:\s+(.*)$", proc.stdout, flags=re.MULTILINE)}
    return proc.returncode, proc.stdout + proc.stderr, recap


def seat_info(tmp_path: Path, host: str) -> dict:
    root = tmp_path / "hosts" / host
    proc = subprocess.run([str(BIN / "ansible"), "-i", str(tmp_path / "inventory.yml"), host, "-o",
                           "-m", "seat_curator.fleet.seat_info",
                           "-a", json.dumps({"fleet": str(root / "fleet.toml"), "resident": HOSTS[host]})],
                          capture_output=True, text=True, env=env(tmp_path), cwd=tmp_path, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return json.loads(proc.stdout.split("=> ", 1)[1])


def test_check_run_rerun_hand_edit_and_repair_over_three_hosts(tmp_path):
    h1_python = host_python(tmp_path / "h1-python")
    write_inventory(tmp_path, h1_python)
    hosts = tmp_path / "hosts"

    # Check mode: changes reported per host, per file diffs with `<path> (content)` headers, nothing written.
    code, out, recap = playbook(tmp_path, "--check", "--diff")
    assert code == 0, out
    assert all(recap[h]["changed"] >= 1 and recap[h]["failed"] == 0 for h in HOSTS), recap
    assert not hosts.exists()
    config = next(Path(p) for p in re.findall(r"^\+\+\+ after: (\S+config\.toml) \(content\)$", out, re.MULTILINE))
    assert str(config).startswith(str(hosts / "h1"))
    assert f"'{H3_HOOK_PYTHON}' -I -S" in out  # h3's hook commands name h3's interpreter
    (tmp_path / "check-diff.txt").write_text(out)

    # A real run provisions each host's resident under that host's root.
    code, out, recap = playbook(tmp_path)
    assert code == 0, out
    assert all(recap[h]["changed"] >= 1 for h in HOSTS), recap
    # h1's hook commands name h1's interpreter, never the controller's.
    assert f"'{h1_python}' -I -S" in config.read_text()
    assert os.path.realpath(sys.executable) not in config.read_text()
    settings = next((hosts / "h3").rglob("settings.json"))
    assert f"'{H3_HOOK_PYTHON}' -I -S" in settings.read_text()
    assert config.is_file() and (hosts / "h2" / "repos" / "juno" / "opencode.jsonc").is_file()
    assert (hosts / "h1" / "repos" / "juno" / "opencode.jsonc").is_file()  # h1's second resident, in one call
    assert not list((hosts / "h2").rglob("config.toml")) and not list((hosts / "h3").rglob("opencode.jsonc"))

    # Again: nothing changes, not a byte.
    before = tree_bytes(hosts)
    code, out, recap = playbook(tmp_path)
    assert code == 0 and all(recap[h]["changed"] == 0 for h in HOSTS), out
    assert tree_bytes(hosts) == before

    # seat_info: the seat's meter, load simulation and pointer problems.
    info = seat_info(tmp_path, "h1")
    assert info["born"] and info["status"] == "MATCH" and info["meter"]["zone"] == "ok" and info["meter"]["bytes"] > 0
    assert info["load"] and all("loaded_bytes" in load for load in info["load"].values())
    assert set(info["pointers"]) >= {"dangling", "escapes", "orphans"}

    # A hand edit of an owned value (and a key and comment of the resident's own) fails the task.
    jsonc = hosts / "h2" / "repos" / "juno" / "opencode.jsonc"
    edited = jsonc.read_text().replace('"instructions": [', '"model": "anthropic/claude-sonnet", // mine\n'
                                       '  "instructions": [\n    "/elsewhere/NOTES.md",', 1)
    jsonc.write_text(edited)
    before = tree_bytes(hosts)
    code, out, recap = playbook(tmp_path)
    assert code != 0 and recap["h2"]["failed"] == 1 and recap["h1"]["failed"] == recap["h3"]["failed"] == 0
    assert f"{jsonc} is DIVERGENT [owned keys: instructions, mcp.neo-mjs-memory-core, mcp.neo-mjs-seat-curator]" in out
    assert "the way out: repair: true" in out
    assert tree_bytes(hosts) == before

    # With repair: only the owned value changes; the resident's key and comment stay byte for byte.
    code, out, recap = playbook(tmp_path, "--diff", "-e", "seat_curator_repair=true")
    assert code == 0 and recap["h2"]["changed"] >= 1 and recap["h1"]["changed"] == 0, out
    assert f"+++ after: {jsonc} (content)" in out
    assert outside_unchanged(edited, jsonc.read_text(), ['    "/elsewhere/NOTES.md",\n'])
    assert '"model": "anthropic/claude-sonnet", // mine' in jsonc.read_text()
    code, out, recap = playbook(tmp_path)
    assert code == 0 and all(recap[h]["changed"] == 0 for h in HOSTS), out


def test_the_collection_builds_with_ansible_galaxy(tmp_path):
    (tmp_path / "ansible.cfg").write_text("[defaults]\n")
    proc = subprocess.run([str(BIN / "ansible-galaxy"), "collection", "build", str(COLLECTION),
                           "--output-path", str(tmp_path)], capture_output=True, text=True, env=env(tmp_path),
                          timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    with tarfile.open(tmp_path / "seat_curator-fleet-0.1.0.tar.gz") as archive:
        names = set(archive.getnames())
    assert {"plugins/modules/seat.py", "plugins/modules/seat_info.py", "plugins/module_utils/seat_plan.py",
            "examples/playbook.yml", "examples/inventory.yml", "examples/fleet.toml", "meta/runtime.yml"} <= names


def test_an_empty_residents_list_provisions_nothing(tmp_path):
    """A host with no residents gets none: an empty list never means "the whole fleet"."""
    write_inventory(tmp_path)
    root = tmp_path / "hosts" / "h1"
    args = {"fleet": str(root / "fleet.toml"), "content": MANIFEST.read_text(), "residents": []}
    proc = subprocess.run([str(BIN / "ansible"), "-i", str(tmp_path / "inventory.yml"), "h1", "-o",
                           "-m", "seat_curator.fleet.seat", "-a", json.dumps(args)],
                          capture_output=True, text=True, env=env(tmp_path), cwd=tmp_path, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    result = json.loads(proc.stdout.split("=> ", 1)[1])
    assert result["changed"] is False and result["files"] == [] and not root.exists()


def test_the_seat_module_writes_this_version_over_an_earlier_seat_curators_hook(tmp_path):
    """An OUTDATED script is no reason to fail the task: check mode reports it, a run writes it
    (no `repair`) and reports it UPDATED."""
    from tests.support.prior_scripts import make_outdated

    write_inventory(tmp_path)
    root = tmp_path / "hosts" / "h1"
    args = json.dumps({"fleet": str(root / "fleet.toml"), "content": MANIFEST.read_text(), "resident": HOSTS["h1"]})

    def seat(*flags: str) -> dict:
        proc = subprocess.run([str(BIN / "ansible"), "-i", str(tmp_path / "inventory.yml"), "h1", "-o",
                               "-m", "seat_curator.fleet.seat", "-a", args, *flags],
                              capture_output=True, text=True, env=env(tmp_path), cwd=tmp_path, timeout=120)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        return json.loads(proc.stdout.split("=> ", 1)[1])

    hook = Path(next(f["path"] for f in seat()["files"] if f["path"].endswith("identity_anchor_hook.py")))
    current = hook.read_bytes()
    old = make_outdated(hook)
    checked = seat("--check")
    assert checked["changed"] is True and checked["status"] == "OUTDATED" and hook.read_bytes() == old
    done = seat()
    assert done["changed"] is True and hook.read_bytes() == current
    assert next(f for f in done["files"] if f["path"] == str(hook))["status"] == "UPDATED"
