"""Provisioning 100 residents over a three-host Ansible inventory, against the same 100 through the
CLI on one host, side by side in one run.

- measured: ``ansible-playbook`` running the collection's example playbook (``--skip-tags info``:
  root, manifest copy, one ``seat`` call per host with that host's ``residents``) over three hosts on this machine (local
  connection, a separate root each, the residents dealt round-robin), every seat born from nothing.
- baseline: ``seat-curator provision --fleet F`` on one fresh root holding all 100 residents.

Both are whole processes timed from the outside (start-up included: that is what an operator
waits for). Goal: ratio <= 3. (With one ``seat`` call per resident instead, the module's start-up
per resident made it 11.8x on this machine: the example playbook passes each host's list.) One round each by default (the playbook takes many seconds on a
shared machine); ``BENCH_FLEET_ROUNDS`` sets more, and the best round of each is kept.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
COLLECTIONS = REPO / "ansible"
PLAYBOOK = COLLECTIONS / "ansible_collections" / "seat_curator" / "fleet" / "examples" / "playbook.yml"
BIN = Path(sys.executable).parent
RESIDENTS = 100
HOSTS = ("h1", "h2", "h3")
HARNESSES = ("kimi-code", "opencode", "claude-code")
ROUNDS = int(os.environ.get("BENCH_FLEET_ROUNDS", "1"))

CATALOG = """\
instance_root = "instances"
default_model = "kimi-k2"

[mcp.neo-mjs-memory-core]
command = "node"
args = ["server.js"]
"""


def manifest_text(residents: int) -> str:
    return CATALOG + "".join(
        f'\n[[residents]]\nagent_id = "@seat-{i}"\nharness = "{HARNESSES[i % 3]}"\nrepo = "repos/r{i}"\n'
        for i in range(residents))


def write_inventory(work: Path, manifest: Path, residents: int) -> Path:
    lines = ["seat_hosts:", "  vars:", "    ansible_connection: local", "    seat_curator_install: false",
             f"    seat_curator_manifest: {json.dumps(str(manifest))}",
             f"    seat_curator_python: {json.dumps(sys.executable)}",
             f"    ansible_python_interpreter: {json.dumps(sys.executable)}", "  hosts:"]
    for n, host in enumerate(HOSTS):
        ids = [f"@seat-{i}" for i in range(residents) if i % len(HOSTS) == n]
        lines += [f"    {host}:", f"      seat_curator_root: {json.dumps(str(work / 'hosts' / host))}",
                  f"      seat_curator_residents: {json.dumps(ids)}"]
    (work / "ansible.cfg").write_text("[defaults]\n")
    path = work / "inventory.yml"
    path.write_text("\n".join(lines) + "\n")
    return path


def ansible_env(work: Path) -> dict[str, str]:
    home = work / "ansible-home"
    return {**os.environ, "ANSIBLE_COLLECTIONS_PATH": str(COLLECTIONS), "ANSIBLE_HOME": str(home),
            "ANSIBLE_LOCAL_TEMP": str(home / "tmp"), "ANSIBLE_REMOTE_TEMP": str(home / "remote"),
            "ANSIBLE_CONFIG": str(work / "ansible.cfg"), "ANSIBLE_NOCOLOR": "1"}


def timed(command: list[str], **kwargs) -> float:
    started = time.perf_counter()
    proc = subprocess.run(command, capture_output=True, text=True, timeout=1800, **kwargs)
    took = time.perf_counter() - started
    if proc.returncode != 0:
        raise RuntimeError(f"{command[0]} exited {proc.returncode}: {(proc.stdout + proc.stderr)[-2000:]}")
    return took


def one_round(work: Path) -> tuple[float, float]:
    shutil.rmtree(work / "hosts", ignore_errors=True)
    shutil.rmtree(work / "one-host", ignore_errors=True)
    manifest = work / "fleet.toml"
    inventory = write_inventory(work, manifest, RESIDENTS)
    measured = timed([str(BIN / "ansible-playbook"), "-i", str(inventory), str(PLAYBOOK), "--skip-tags", "info"],
                     env=ansible_env(work), cwd=work)
    single = work / "one-host"
    single.mkdir()
    shutil.copy(manifest, single / "fleet.toml")
    baseline = timed([str(BIN / "seat-curator"), "provision", "--fleet", str(single / "fleet.toml")], cwd=single)
    return measured, baseline


def bench_provision_100_over_three_hosts() -> dict:
    with tempfile.TemporaryDirectory(prefix="bench-fleet-hosts-") as tmp:
        work = Path(tmp)
        (work / "fleet.toml").write_text(manifest_text(RESIDENTS), encoding="utf-8")
        rounds = [one_round(work) for _ in range(ROUNDS)]
    measured, baseline = min(r[0] for r in rounds), min(r[1] for r in rounds)
    return {"name": f"provision {RESIDENTS} residents: ansible over 3 hosts vs CLI on one",
            "measured_s": measured, "baseline_s": baseline, "ratio": measured / baseline, "goal": "<= 3x",
            "note": f"best of {ROUNDS}; ansible-playbook (one seat call per host) vs seat-curator provision"}


ROWS = [bench_provision_100_over_three_hosts]
