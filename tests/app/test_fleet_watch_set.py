"""What the fleet panel watches, from what its plan reads (pure: curator/fleet_watch.py)."""

from __future__ import annotations

from pathlib import Path

from curator.fleet_watch import EVERYONE, plan_reads, watch_set


def test_a_missing_directory_is_watched_through_the_nearest_one_and_its_creation_concerns_the_seat(tmp_path: Path):
    home = tmp_path / "seats" / "ada"
    home.mkdir(parents=True)
    hook = home / "hooks" / "deep" / "hook.py"  # neither hooks/ nor deep/ exists yet
    watched = watch_set([tmp_path / "fleet.toml"], plan_reads("@ada", home / "memory", [(hook, tmp_path)]))
    assert str(home) in watched.dirs and str(home / "hooks") not in watched.dirs
    assert watched.concerned({str(home / "hooks")}) == {"@ada"}  # the creation that is seen first
    assert watched.concerned({str(tmp_path / "fleet.toml")}) == {EVERYONE}
    assert watched.concerned({str(home / "unrelated.txt")}) == frozenset()


def test_each_seat_is_concerned_only_by_its_own_files(tmp_path: Path):
    reads = [*plan_reads("@a", tmp_path / "a" / "memory", [(tmp_path / "a" / "config.toml", tmp_path)]),
             *plan_reads("@b", tmp_path / "b" / "memory", [(tmp_path / "b" / "config.toml", tmp_path)])]
    watched = watch_set([], reads)
    assert watched.concerned({str(tmp_path / "a" / "config.toml")}) == {"@a"}
    assert watched.concerned({str(tmp_path / "b" / "memory" / "MEMORY.md")}) == {"@b"}
