"""The one registry of the caches the project keeps across calls: each is listed in ``KEPT`` with the
benchmark row that justifies it (the numbers and the rule are in bench/caches.md, next to the
benchmark that re-measures them), and only ``kept`` makes one. A stdlib-only leaf: the generators
import it too."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar, overload

T = TypeVar("T")
Cache = functools._lru_cache_wrapper  # what functools.lru_cache returns

# The fleet plan's caches pay as sets (each alone hides behind the others): bench/caches.md "Sets".
_SEAT_FILES = "fleet plan, per-seat files: with the paths, the 19 absent, a re-plan 7.2x (bench/caches.md)"
_SEAT_PATHS = "fleet plan, seat paths: the 4 absent together, a re-plan 1.6x (bench/caches.md)"
_SHARED_PARTS = "fleet plan, shared templates and scripts: the 4 absent, a first plan 1.4x (bench/caches.md)"

# Every cache the project keeps, by qualified name: the benchmark row (bench/bench_caches.py) that shows it pays.
KEPT: dict[str, str] = {
    "curator.analysis.parse_cached": "mcp str_replace 1.6x, index edit 1.2x (bench/caches.md)",
    "curator.levers.archive_search._parse_archive": "archive search 10.7x a keystroke (bench/caches.md)",
    "curator.levers.similarity.words_of": "candidates again 1.9x, near-duplicates 1.4x (bench/caches.md)",
    "curator.levers.candidates._written": "candidates again, with opening_subjects: 1.3x (bench/caches.md)",
    "curator.levers.entry_facts.opening_subjects": "candidates again, with _written: 1.3x (bench/caches.md)",
    "curator.markdown.parser": "fit plan 2.1x (bench/caches.md)",
    "curator.pointers.documents._from_content": "fit plan re-planned 1.4x (bench/caches.md)",
    "generators.claude._hook_file": _SEAT_FILES,
    "generators.claude._mcp_file": _SEAT_FILES,
    "generators.claude._settings_file": _SEAT_FILES,
    "generators.codex._config_file": _SEAT_FILES,
    "generators.codex._hooks_file": _SEAT_FILES,
    "generators.composer.trusted_paths._lexical": _SEAT_PATHS,
    "generators.emission._bearer_files": _SEAT_FILES,
    "generators.emission.identity_hook_file": _SEAT_FILES,
    "generators.gemini._settings_file": _SEAT_FILES,
    "generators.gemini._trust_file": _SEAT_FILES,
    "generators.kimi._config_file": _SEAT_FILES,
    "generators.kimi._config_template": _SHARED_PARTS,
    "generators.kimi._hook_file": _SEAT_FILES,
    "generators.kimi._mcp_json_file": _SEAT_FILES,
    "generators.kimi.guard_file": _SEAT_FILES,
    "generators.layout.instance_home": _SEAT_PATHS,
    "generators.layout.repo_path": _SEAT_PATHS,
    "generators.layout.seat_path": _SEAT_PATHS,
    "generators.opencode._jsonc_file": _SEAT_FILES,
    "generators.opencode._jsonc_template": _SHARED_PARTS,
    "generators.opencode._wake_file": _SEAT_FILES,
    "generators.script_source._script_without_literals": _SHARED_PARTS,
    "generators.script_source._split_at_literals": _SHARED_PARTS,
}

_registered: dict[str, Cache[Any]] = {}


class UnlistedCache(Exception):
    """A cache made by ``kept`` for a function ``KEPT`` does not list (no benchmark says it pays)."""


def _name(function: Callable[..., Any]) -> str:
    return f"{function.__module__}.{function.__qualname__}"


@overload
def kept(function: Callable[..., T], /) -> Cache[T]: ...


@overload
def kept(*, maxsize: int | None = None, name: str | None = None) -> Callable[[Callable[..., T]], Cache[T]]: ...


def kept(function: Callable[..., T] | None = None, /, *, maxsize: int | None = None,
         name: str | None = None) -> Cache[T] | Callable[[Callable[..., T]], Cache[T]]:
    """``functools.lru_cache(maxsize)`` for a function ``KEPT`` lists (unbounded when no maxsize);
    ``name`` when the cached function is another module's (``parsed = kept(name=...)(parse)``)."""

    def wrap(function: Callable[..., T]) -> Cache[T]:
        key = name or _name(function)
        if key not in KEPT:
            raise UnlistedCache(f"{key} is not in curator.caches.KEPT: measure it (bench/bench_caches.py) first")
        cache = functools.lru_cache(maxsize=maxsize)(function)
        _registered[key] = cache
        return cache

    return wrap if function is None else wrap(function)


def registered() -> dict[str, Cache[Any]]:
    """Every cache made so far by a loaded module, by its name in ``KEPT``."""
    return dict(_registered)


def clear_all() -> None:
    """Empty every kept cache (a benchmark's cold round; a test that must not see another's answers)."""
    for cache in _registered.values():
        cache.cache_clear()
