"""Every cache the project keeps across calls goes through curator/caches.py and is listed there with
the benchmark that justifies it (bench/caches.md); the table lists no cache that is gone."""

from __future__ import annotations

import ast
import re

import pytest

from curator import caches
from tests.support.paths import REPO

# The emitted scripts run alone in a seat under its own python3: they cannot import curator.caches.
APART = ("generators/scripts/",)
FUNCTOOLS_CACHE = re.compile(r"\blru_cache\b|\bfunctools\s*\.\s*cache\b|from\s+functools\s+import\s[^\n]*\bcache\b")


def sources() -> list[tuple[str, str]]:
    found = []
    for package in ("curator", "generators"):
        for path in sorted((REPO / package).rglob("*.py")):
            relative = path.relative_to(REPO).as_posix()
            if not relative.startswith(APART):
                found.append((relative, path.read_text(encoding="utf-8")))
    return found


def _is_kept(node: ast.expr) -> bool:
    """``caches.kept`` or ``caches.kept(...)``."""
    target = node.func if isinstance(node, ast.Call) else node
    return isinstance(target, ast.Attribute) and target.attr == "kept" \
        and isinstance(target.value, ast.Name) and target.value.id == "caches"


def kept_names(relative: str, text: str) -> list[str]:
    """The ``KEPT`` names a module's ``caches.kept`` uses give: decorated defs by qualified name, and
    ``x = caches.kept(name=...)(f)`` by the name given."""
    module = relative[: -len(".py")].replace("/", ".").removesuffix(".__init__")
    names: list[str] = []

    def visit(body: list[ast.stmt], prefix: str) -> None:
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                if any(_is_kept(d) for d in node.decorator_list):
                    names.append(f"{module}.{prefix}{node.name}")
                visit(node.body, f"{prefix}{node.name}.<locals>.")
            elif isinstance(node, ast.ClassDef):
                visit(node.body, f"{prefix}{node.name}.")
            elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) \
                    and isinstance(call := node.value.func, ast.Call) and _is_kept(call):
                names.extend(k.value.value for k in call.keywords
                             if k.arg == "name" and isinstance(k.value, ast.Constant))

    visit(ast.parse(text).body, "")
    return names


def test_no_cache_is_made_outside_curator_caches() -> None:
    made_elsewhere = [relative for relative, text in sources()
                      if relative != "curator/caches.py" and FUNCTOOLS_CACHE.search(text)]
    assert made_elsewhere == []


def test_every_kept_name_is_a_cache_in_the_tree_and_every_cache_is_kept() -> None:
    decorated = [name for relative, text in sources() for name in kept_names(relative, text)]
    assert sorted(decorated) == sorted(set(decorated)), "two caches under one name"
    assert set(caches.KEPT) - set(decorated) == set(), "listed in KEPT but no longer cached (stale entry)"
    assert set(decorated) - set(caches.KEPT) == set(), "cached but not listed in KEPT"


def test_every_kept_cache_names_its_benchmark() -> None:
    assert [name for name, reason in caches.KEPT.items() if "bench" not in reason] == []


def test_an_unlisted_function_is_refused() -> None:
    def unmeasured(x: int) -> int:
        return x

    with pytest.raises(caches.UnlistedCache, match="unmeasured"):
        caches.kept(unmeasured)


def test_clear_all_empties_the_kept_caches() -> None:
    from generators import layout  # a module with a kept cache: importing it registers the cache

    layout.instance_home("/instances", "@seat", "kimi-code")
    cache = caches.registered()["generators.layout.instance_home"]
    assert cache is layout.instance_home and cache.cache_info().currsize >= 1
    caches.clear_all()
    assert cache.cache_info().currsize == 0
