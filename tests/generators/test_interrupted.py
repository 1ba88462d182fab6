"""A provision killed with SIGKILL in the middle of a write, then run again: the temp files the kill
left are removed by the next run, and every file ends byte for byte as a clean run leaves it.

The child is stopped at a named point of the write (fsio.STOP_ENV and a FIFO, no sleeps): it says
where it is through the FIFO, then waits on it until it is killed."""

from __future__ import annotations

import os
import select
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from curator import fsio
from tests.support.fleets import USER_JSONC, USER_MCP_JSON, tree_bytes, write_fleet
from tests.support.paths import REPO

pytestmark = pytest.mark.crash
ROOT = REPO


def _temps(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.name.endswith(".tmp"))


def _user_files(tmp_path: Path) -> Path:
    """A fleet whose two repos hold their user's own configs: provision --adopt adds the fleet's keys
    to both and creates the two seats."""
    manifest = write_fleet(tmp_path / "fleet")
    repos = tmp_path / "fleet" / "repos"
    (repos / "juno").mkdir(parents=True)
    (repos / "juno" / "opencode.jsonc").write_text(USER_JSONC)
    (repos / "iris" / ".kimi-code").mkdir(parents=True)
    (repos / "iris" / ".kimi-code" / "mcp.json").write_text(USER_MCP_JSON)
    return manifest


def _provision(manifest: Path, env: dict | None = None, **popen) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "curator", "provision", "--fleet", str(manifest), "--adopt"],
                            cwd=ROOT, env={**os.environ, **(env or {})}, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, **popen)


def _run_killed_at(manifest: Path, point: str, fifo: Path) -> None:
    # Opened without blocking, so a child that dies before the point fails the test, never hangs it.
    signal_pipe = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    child = _provision(manifest, {fsio.STOP_ENV: f"{point}:{fifo}"})
    try:
        while not select.select([signal_pipe], [], [], 1.0)[0]:  # readable once the child has written
            assert child.poll() is None, f"exited {child.returncode} before {point}: {child.stderr.read()}"
        assert os.read(signal_pipe, 200) == (point + "\n").encode()
        child.send_signal(signal.SIGKILL)
        assert child.wait(timeout=60) == -signal.SIGKILL
    finally:
        os.close(signal_pipe)
        if child.poll() is None:
            child.kill()
            child.wait()
        child.stdout.close()
        child.stderr.close()


def _restore(root: Path, snapshot: dict[str, tuple[bytes, int]]) -> None:
    shutil.rmtree(root)
    for rel, (data, mode) in snapshot.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        path.chmod(mode & 0o7777)


@pytest.mark.parametrize("point", ["temp-written", "adopt-before-swap", "adopt-swapped"])
def test_a_provision_killed_mid_write_leaves_nothing_once_run_again(tmp_path, point):
    manifest = _user_files(tmp_path)
    root = manifest.parent
    before = tree_bytes(root)
    fifo = tmp_path / "stop.fifo"
    os.mkfifo(fifo)

    _run_killed_at(manifest, point, fifo)
    left = _temps(root)
    assert len(left) == 1 and fsio.TEMP_NAME.fullmatch(Path(left[0]).name), left  # the kill left one
    if point == "adopt-swapped":  # the exchange gave the temp name the user's own file
        assert (root / left[0]).read_bytes() in {USER_JSONC.encode(), USER_MCP_JSON.encode()}

    again = _provision(manifest)
    out, err = again.communicate(timeout=120)
    assert again.returncode == 0, (out, err)
    assert _temps(root) == []
    after = tree_bytes(root)

    _restore(root, before)
    clean = _provision(manifest)
    out, err = clean.communicate(timeout=120)
    assert clean.returncode == 0, (out, err)
    assert after == tree_bytes(root)  # byte for byte, mode for mode, as a run that was never killed


def test_a_killed_init_fleets_temp_file_goes_when_init_fleet_runs_again(tmp_path, capsys):
    from curator.cli import main
    from curator.commands.fleet import DEFAULT_MANIFEST, example_manifest

    root = tmp_path / "new fleet"
    root.mkdir()
    with fsio.write_temp(root / DEFAULT_MANIFEST, example_manifest(root).encode(), 0o644) as temp:
        killed = Path(temp).name  # released: as a kill between the write and the link leaves it
    with fsio.write_temp(root / DEFAULT_MANIFEST, b"# something else\n", 0o644) as temp:
        other = Path(temp).name  # not the bytes init-fleet writes: not known to be its own
    assert main(["init-fleet", str(root)]) == 0
    capsys.readouterr()
    assert sorted(p.name for p in root.iterdir()) == sorted([DEFAULT_MANIFEST, other])
    assert killed != other


def test_a_file_saved_twice_during_an_adoption_is_kept_under_a_name_no_cleaner_takes(tmp_path, monkeypatch):
    from generators import composer
    from generators.composer import apply as composer_apply
    from generators.errors import DivergentError
    from generators.manifest import load_manifest

    manifest = _user_files(tmp_path)
    jsonc = manifest.parent / "repos" / "juno" / "opencode.jsonc"
    real_swap, calls = composer_apply.swap, []

    def user_saves_around_the_exchange(tmp, path):
        exchanged = real_swap(tmp, path)
        if Path(path) == jsonc and not calls:
            calls.append(tmp)
            with open(tmp, "a") as replaced:  # into the user's file, just moved to the temp name
                replaced.write("// saved late\n")
            with open(path, "a") as ours:  # and into the adopted one, a moment later
                ours.write("// saved again\n")
        return exchanged

    monkeypatch.setattr(composer_apply, "swap", user_saves_around_the_exchange)
    with pytest.raises(DivergentError, match="twice") as caught:
        composer.apply_fleet(load_manifest(manifest), adopt=True)
    assert jsonc.read_text() == USER_JSONC + "// saved late\n"
    [kept] = [p for p in jsonc.parent.iterdir() if p.name.startswith("opencode.jsonc.divergent-")]
    assert kept.read_text().endswith("// saved again\n") and str(kept) in str(caught.value)
    assert _temps(manifest.parent) == []
    assert fsio.remove_dead_temps(jsonc.parent, {"opencode.jsonc": None}) == []
    assert kept.exists()
