"""Layering: every module under generators/ and every pure module under curator/ imports without textual.

Modules are discovered by walking the tree, so a new module is covered the moment it exists. The
imports run in a fresh interpreter whose import system refuses ``textual`` (and its submodules).
"""

from __future__ import annotations

import json
import subprocess
import sys
from tests.support.paths import REPO

# The only places allowed to import textual.
UI_PATHS = ("curator/app.py", "curator/screens/", "curator/widgets/", "curator/commands/app.py")


def module_names(package: str) -> list[str]:
    names = []
    for path in sorted((REPO / package).rglob("*.py")):
        relative = path.relative_to(REPO).as_posix()
        if any(relative == ui or relative.startswith(ui) for ui in UI_PATHS):
            continue
        if any(part.startswith(".") or part == "__pycache__" for part in path.relative_to(REPO).parts):
            continue
        if path.name == "__main__.py":  # importing it runs the program; its imports are covered by cli
            continue
        dotted = relative[: -len(".py")].replace("/", ".")
        names.append(dotted.removesuffix(".__init__"))
    return names


PROBE = r"""
import importlib, importlib.abc, json, sys

class NoTextual(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name == "textual" or name.startswith("textual."):
            raise ImportError(f"textual is not importable here ({name})")
        return None

sys.meta_path.insert(0, NoTextual())
failures = {}
for name in json.loads(sys.argv[1]):
    try:
        importlib.import_module(name)
    except Exception as err:  # report every failure, not just the first
        failures[name] = f"{type(err).__name__}: {err}"
leaked = sorted(m for m in sys.modules if m == "textual" or m.startswith("textual."))
print(json.dumps({"failures": failures, "leaked": leaked}))
"""


def test_pure_modules_import_without_textual() -> None:
    names = module_names("curator") + module_names("generators")
    # The discovery really found the core and the generators (guards against an empty walk).
    assert {"curator.index_model", "curator.analysis", "curator.commands.check", "generators"} <= set(names)
    assert not any(name.startswith(("curator.screens", "curator.widgets")) or name == "curator.app" for name in names)
    result = subprocess.run([sys.executable, "-c", PROBE, json.dumps(names)], capture_output=True, text=True,
                            cwd=REPO, timeout=120)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert report == {"failures": {}, "leaked": []}


def test_the_probe_really_blocks_textual() -> None:
    result = subprocess.run([sys.executable, "-c", PROBE, json.dumps(["curator.app"])], capture_output=True,
                            text=True, cwd=REPO, timeout=120)
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert "curator.app" in report["failures"] and "textual" in report["failures"]["curator.app"]


ROOM_LINES = 450  # issue 19: a file past this holds more than one concept; split it by concept


def test_no_module_in_the_curator_or_the_generators_is_over_450_lines() -> None:
    sizes = {path.relative_to(REPO).as_posix(): len(path.read_bytes().splitlines())
             for package in ("curator", "generators") for path in (REPO / package).rglob("*.py")}
    assert "curator/store/seat_store.py" in sizes and len(sizes) > 100  # the walk found the tree
    assert {name: lines for name, lines in sizes.items() if lines > ROOM_LINES} == {}
