"""Installing the pinned harness CLIs from the npm registry into one cache dir.

Each harness goes into its own folder (``npm install --prefix``-style, by running npm in it), side by
side, with one progress line when a harness starts and one when it is ready (version, size, time).
A folder that already holds the pinned versions is left alone, so running it again costs nothing.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path

from curator.canary.pins import PINS, Pin, is_installed
from curator.errors import CuratorError

Progress = Callable[[str], None]


class InstallFailed(CuratorError):
    code = "HARNESS_INSTALL_FAILED"


def folder_size(folder: Path) -> int:
    """Bytes of the regular files under ``folder``, counting hard links once (npm's postinstall
    hard-links claude-code's binary, which would otherwise count twice)."""
    seen: set[tuple[int, int]] = set()
    total = 0
    for root, _dirs, files in os.walk(folder):
        for name in files:
            try:
                info = os.lstat(os.path.join(root, name))
            except OSError:
                continue
            if (info.st_dev, info.st_ino) not in seen:
                seen.add((info.st_dev, info.st_ino))
                total += info.st_size
    return total


def _megabytes(nbytes: int) -> str:
    return f"{nbytes / 1_000_000:,.0f} MB"


def _npm_command(pin: Pin) -> list[str]:
    npm = shutil.which("npm")
    if npm is None:
        raise InstallFailed("npm not found on PATH; install Node.js and npm first (e.g. apt-get install -y npm)")
    return [npm, "install", "--no-audit", "--no-fund", "--save-exact", "--loglevel=error", *pin.specs]


def _run_npm(pin: Pin, command: list[str], folder: Path, progress: Progress) -> tuple[int, str, float]:
    folder.mkdir(parents=True, exist_ok=True)
    progress(f"{pin.harness} {pin.version}: installing {' '.join(pin.specs)} into {folder} …")
    started = time.monotonic()
    result = subprocess.run(command, cwd=folder, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    return result.returncode, result.stdout, time.monotonic() - started


def install(cache: Path, harnesses: Iterable[str] = tuple(PINS), *, progress: Progress = print) -> list[Path]:
    """Install each harness's pinned CLI under ``cache`` (all at once) and return their entry files.
    Raises ``InstallFailed`` naming every harness whose install failed, with npm's last words."""
    pins = [PINS[name] for name in harnesses]
    pending: list[tuple[Pin, list[str]]] = []
    for pin in pins:
        folder = cache / pin.harness
        if is_installed(pin, cache):
            progress(f"{pin.harness} {pin.version}: already installed in {folder} ({_megabytes(folder_size(folder))})")
        else:
            pending.append((pin, _npm_command(pin)))  # npm missing fails here, before anything runs
    failures = []
    with ThreadPoolExecutor(max_workers=max(1, len(pending))) as pool:
        runs = {pool.submit(_run_npm, pin, command, cache / pin.harness, progress): pin for pin, command in pending}
        for done in as_completed(runs):  # reported as each one ends, with its own time
            pin, (returncode, output, seconds) = runs[done], done.result()
            if returncode != 0 or not is_installed(pin, cache):
                last = " | ".join(output.strip().splitlines()[-3:]) or f"exit {returncode}"
                failures.append(f"{pin.harness}: {last}")
                continue
            progress(f"{pin.harness} {pin.version}: ready, {_megabytes(folder_size(cache / pin.harness))} "
                     f"in {seconds:.0f} s")
    if failures:
        raise InstallFailed("npm install failed for " + "; ".join(failures), path=cache)
    return [pin.entry_in(cache) for pin in pins]
