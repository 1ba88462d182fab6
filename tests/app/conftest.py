"""The app's tests render like a default terminal, with their own state and config dirs."""

from __future__ import annotations

import asyncio
import os

import pytest


async def no_idle_wait(min_sleep: float = 0, max_sleep: float = 1) -> None:
    """Pilot's idle check as a loaded machine can meet it: over before the app has run (one turn of
    the event loop). Its ``press`` then sends the next key before the last is handled."""
    await asyncio.sleep(0)


@pytest.fixture(autouse=True)
def app_env(monkeypatch, tmp_path):
    """Render like a default terminal; keep the store's journal inside tmp_path. With
    SEAT_CURATOR_TEST_NO_IDLE=1, Pilot never waits for an idle process (``no_idle_wait``): the
    timing of a loaded CI machine at its worst, every time."""
    if os.environ.get("SEAT_CURATOR_TEST_NO_IDLE") == "1":
        import textual.app
        import textual.pilot

        monkeypatch.setattr(textual.app, "wait_for_idle", no_idle_wait)
        monkeypatch.setattr(textual.pilot, "wait_for_idle", no_idle_wait)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))  # no user keys.toml
