"""Fixtures every test gets: a private HOME, state, config and cache dir, so no test reads or writes
the user's own (journals, keys.toml, saved canary results), and a terminal rendered the default way."""

from __future__ import annotations

import os

import pytest

from curator.canary import CliNotFound, find_cli
from curator.canary.pins import CACHE_ENV, user_cache

# The pinned harness CLIs live in the real user's cache; found there before HOME moves.
HARNESS_CACHE = str(user_cache())


@pytest.fixture(autouse=True)
def private_home(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> None:
    """HOME and every XDG base dir in a fresh directory outside the test's tmp_path (a test that
    fingerprints tmp_path sees only its own files)."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    for name, sub in (("XDG_STATE_HOME", ".local/state"), ("XDG_CONFIG_HOME", ".config"),
                      ("XDG_CACHE_HOME", ".cache"), ("XDG_DATA_HOME", ".local/share")):
        monkeypatch.setenv(name, str(home / sub))
    for name in ("SEAT_CURATOR_STATE_DIR", "CLAUDE_CONFIG_DIR", "NO_COLOR", "TEXTUAL_THEME"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv(CACHE_ENV, os.environ.get(CACHE_ENV) or HARNESS_CACHE)


@pytest.fixture(scope="module")
def harness_clis() -> dict:
    """The real kimi-code and opencode CLIs; skipped with the reason when absent, failed under CI."""
    try:
        return {h: find_cli(h) for h in ("kimi-code", "opencode")}
    except CliNotFound as err:
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI=true but a harness CLI is missing — .ci/run must install them: {err}")
        pytest.skip(f"harness CLIs not installed (run `seat-curator install-harnesses`): {err}")
