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

# Every cache the project keeps, by qualified name: the benchmark row (bench/bench_caches.py) that shows it pays.
KEPT: dict[str, str] = {
    "curator.analysis.parse_cached": "measuring",
    "curator.levers.archive_search._parse_archive": "measuring",
    "curator.levers.candidates._written": "measuring",
    "curator.levers.entry_facts.opening_subjects": "measuring",
    "curator.levers.fit._flat": "measuring",
    "curator.levers.merge_text.superseded": "measuring",
    "curator.levers.similarity._cjk_pairs": "measuring",
    "curator.levers.similarity.stem": "measuring",
    "curator.levers.similarity.words_of": "measuring",
    "curator.markdown.parser": "measuring",
    "curator.pointers.documents._from_content": "measuring",
    "generators.claude._hook_file": "measuring",
    "generators.claude._mcp_file": "measuring",
    "generators.claude._mcp_json_of": "measuring",
    "generators.claude._settings_file": "measuring",
    "generators.codex._config_file": "measuring",
    "generators.codex._hooks_file": "measuring",
    "generators.composer.trusted_paths._lexical": "measuring",
    "generators.composer.trusted_paths._root_prefix": "measuring",
    "generators.emission._bearer_files": "measuring",
    "generators.emission.identity_hook_file": "measuring",
    "generators.gemini._settings_file": "measuring",
    "generators.gemini._trust_file": "measuring",
    "generators.kimi._config_file": "measuring",
    "generators.kimi._config_template": "measuring",
    "generators.kimi._hook_file": "measuring",
    "generators.kimi._mcp_json_file": "measuring",
    "generators.kimi._mcp_json_of": "measuring",
    "generators.kimi.guard_file": "measuring",
    "generators.layout.instance_home": "measuring",
    "generators.layout.repo_path": "measuring",
    "generators.layout.seat_path": "measuring",
    "generators.layout.seg": "measuring",
    "generators.opencode._jsonc_file": "measuring",
    "generators.opencode._jsonc_template": "measuring",
    "generators.opencode._wake_file": "measuring",
    "generators.script_source._script_without_literals": "measuring",
    "generators.script_source._split_at_literals": "measuring",
    "generators.script_source.script_source": "measuring",
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
