"""The seat's file names are named once, in curator/constants.py, and imported everywhere else."""

from __future__ import annotations

import ast

from curator import constants
from tests.support.paths import REPO

FILE_NAMES = {constants.INDEX_NAME, constants.ARCHIVE_NAME, constants.IDENTITY_NAME,
              constants.SEAT_POINTERS_NAME, constants.ABOUT_NAME}
# The emitted scripts import nothing from the project (they run in a seat, under any python3).
APART = ("generators/scripts/",)


def named_file_constants(path) -> list[str]:
    """Module-level UPPER_CASE names bound to one of the seat's file names (or a tuple holding one)."""
    found = []
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if not isinstance(node, ast.Assign):
            continue
        values = node.value.elts if isinstance(node.value, ast.Tuple) else [node.value]
        if any(isinstance(v, ast.Constant) and v.value in FILE_NAMES for v in values):
            found += [t.id for t in node.targets if isinstance(t, ast.Name) and t.id.isupper()]
    return found


def test_no_module_but_constants_names_a_seat_file() -> None:
    seen = {}
    for package in ("curator", "generators"):
        for path in sorted((REPO / package).rglob("*.py")):
            relative = path.relative_to(REPO).as_posix()
            if relative == "curator/constants.py" or relative.startswith(APART):
                continue
            if names := named_file_constants(path):
                seen[relative] = names
    assert seen == {}


def test_the_boot_files_are_the_index_and_identity() -> None:
    assert constants.BOOT_FILES == ("MEMORY.md", "identity.md")
    assert set(constants.BOOT_FILES) <= set(constants.BEARER_FILES)
