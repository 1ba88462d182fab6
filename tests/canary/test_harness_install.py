"""`seat-curator install-harnesses` and the one lookup order, against a stand-in npm on PATH (the
real install runs in CI through .ci/install-harnesses; tests/canary/test_real_clis.py uses what it installed)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from curator.canary import pins
from curator.canary.clis import find_cli
from curator.cli import main

# A stand-in for npm: writes each `name@version` spec's package.json under ./node_modules and, for
# the three harness packages, the entry file the pins name. FAIL_SPEC makes one spec fail.
FAKE_NPM = r"""#!/usr/bin/env python3
import json, os, sys
specs = [a for a in sys.argv[2:] if not a.startswith("-")]
log = os.environ.get("FAKE_NPM_LOG")
if log:
    with open(log, "a") as f:
        f.write(os.getcwd() + " " + " ".join(specs) + "\n")
for spec in specs:
    if spec == os.environ.get("FAIL_SPEC"):
        print("npm error 404 Not Found - " + spec)
        sys.exit(1)
    name, _, version = spec.rpartition("@")
    if version.isdigit():
        version += ".3.1"
    folder = os.path.join("node_modules", name)
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "package.json"), "w") as f:
        json.dump({"name": name, "version": version}, f)
entries = {"@moonshot-ai/kimi-code": "dist/main.mjs", "opencode-ai": None, "@anthropic-ai/claude-code": "bin/claude.exe"}
for spec in specs:
    name = spec.rpartition("@")[0]
    if name == "opencode-ai":
        path = "node_modules/opencode-linux-x64/bin/opencode"
    elif entries.get(name):
        path = os.path.join("node_modules", name, entries[name])
    else:
        continue
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write("#!/bin/sh\necho 1\n" + "x" * 2_000_000)
    os.chmod(path, 0o755)
"""


@pytest.fixture
def fake_npm(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    npm = bin_dir / "npm"
    npm.write_text(FAKE_NPM)
    npm.chmod(0o755)
    log = tmp_path / "npm.log"
    monkeypatch.setenv("PATH", f"{bin_dir}:/usr/bin:/bin")
    monkeypatch.setenv("FAKE_NPM_LOG", str(log))
    monkeypatch.setenv(pins.CACHE_ENV, str(tmp_path / "user-cache"))
    monkeypatch.setattr(pins, "CHECKOUT_CACHE", tmp_path / "no-checkout-cache")
    return log


def test_installs_every_pin_into_the_user_cache_then_leaves_it_alone(fake_npm, tmp_path, capsys):
    cache = tmp_path / "user-cache"
    assert main(["install-harnesses"]) == 0
    out = capsys.readouterr().out.splitlines()
    for pin in pins.PINS.values():
        assert f"{pin.harness} {pin.version}: installing {' '.join(pin.specs)} into {cache / pin.harness} …" in out
        assert any(line.startswith(f"{pin.harness} {pin.version}: ready, 2 MB in ") for line in out), out
        assert pins.is_installed(pin, cache)
    assert out[-1] == f"harness CLIs ready under {cache}"
    installs = fake_npm.read_text().splitlines()
    assert sorted(installs) == sorted(f"{cache / p.harness} {' '.join(p.specs)}" for p in pins.PINS.values())

    # The lookup finds what the command installed, for every harness, with nothing on PATH.
    for harness in pins.HARNESSES:
        found = find_cli(harness)
        assert found.source == f"cache {cache}" and found.argv[-1] == str(pins.PINS[harness].entry_in(cache))

    assert main(["install-harnesses"]) == 0  # a second run installs nothing
    assert fake_npm.read_text().splitlines() == installs
    assert "opencode 1.18.33: already installed in" in capsys.readouterr().out


def test_a_stale_version_is_reinstalled_and_one_harness_can_be_named(fake_npm, tmp_path, capsys):
    cache = tmp_path / "user-cache"
    manifest = cache / "opencode" / "node_modules" / "opencode-ai" / "package.json"
    manifest.parent.mkdir(parents=True)
    manifest.write_text(json.dumps({"version": "1.0.0"}))
    assert not pins.is_installed(pins.PINS["opencode"], cache)
    assert main(["install-harnesses", "opencode"]) == 0
    assert fake_npm.read_text().splitlines() == [f"{cache / 'opencode'} opencode-ai@1.18.33"]
    assert pins.is_installed(pins.PINS["opencode"], cache)


def test_a_failed_install_is_one_line_naming_the_harness(fake_npm, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("FAIL_SPEC", "opencode-ai@1.18.33")
    assert main(["install-harnesses", "--dir", str(tmp_path / "elsewhere")]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "HARNESS_INSTALL_FAILED" in err
    assert "opencode: npm error 404 Not Found - opencode-ai@1.18.33" in err and "kimi-code" not in err


def test_unknown_harness_and_missing_npm_are_one_line_errors(tmp_path, capsys, monkeypatch):
    assert main(["install-harnesses", "codex"]) == 1
    assert "unknown harness 'codex'" in capsys.readouterr().err
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    assert main(["install-harnesses", "--dir", str(tmp_path / "c")]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "npm not found" in err


def test_lookup_order_flag_manifest_path_user_cache_checkout_cache(tmp_path, monkeypatch):
    def runnable(path: Path) -> Path:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("#!/bin/sh\n")
        path.chmod(0o755)
        return path

    pin = pins.PINS["claude-code"]
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    monkeypatch.setenv(pins.CACHE_ENV, str(tmp_path / "user"))
    monkeypatch.setattr(pins, "CHECKOUT_CACHE", tmp_path / "checkout")
    checkout = runnable(pin.entry_in(tmp_path / "checkout"))
    assert find_cli("claude-code").argv == (str(checkout),)
    user = runnable(pin.entry_in(tmp_path / "user"))
    assert find_cli("claude-code").argv == (str(user),)
    on_path = runnable(tmp_path / "bin" / "claude")
    assert find_cli("claude-code").argv == (str(on_path),)
    listed = runnable(tmp_path / "m" / "claude")
    assert find_cli("claude-code", manifest={"claude-code": str(listed)}).argv == (str(listed),)
    flagged = runnable(tmp_path / "f" / "claude")
    assert find_cli("claude-code", flag=str(flagged), manifest={"claude-code": str(listed)}).argv == (str(flagged),)
