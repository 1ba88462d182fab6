"""What setting a file aside costs the resident: the keys of theirs the re-created file will lack.

Set-aside stays a whole-file move (the file as it is goes to ``<name>.divergent-<stamp>``; the next
provision writes the fleet's fresh version). It does not carry the resident's own keys over: that
is what ``provision --repair`` does, in place, keeping every other byte — so the set-aside prompt
names what would be left behind and points to repair when the file is repairable.
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from generators.emission import WHOLE_FILE
from generators.projection import loads_jsonc

if TYPE_CHECKING:
    from generators.composer import Artifact


def dropped_keys(artifact: Artifact, found: bytes) -> list[str]:
    """Dotted names of the keys in ``found`` (the file on disk) that the fleet's fresh version of
    ``artifact`` lacks, outermost first; [] for a script or a file that does not parse."""
    item = artifact.emitted
    if item is None or item.convergence == WHOLE_FILE:
        return []
    loads: Callable[[str], object] = tomllib.loads if artifact.path.suffix == ".toml" else loads_jsonc
    try:
        theirs, fleets = loads(found.decode("utf-8")), loads(item.content.decode("utf-8"))
    except (ValueError, UnicodeDecodeError, RecursionError):
        return []
    return list(_missing(theirs, fleets, ()))


def _missing(theirs: object, fleets: object, where: tuple[str, ...]) -> Iterator[str]:
    if not isinstance(theirs, dict):
        return
    for key, value in theirs.items():
        if not isinstance(fleets, dict) or key not in fleets:
            yield ".".join(where + (key,))
        else:
            yield from _missing(value, fleets[key], where + (key,))


def describe(artifact: Artifact, found: bytes | None) -> str:
    """One sentence for the set-aside prompt (and the CLI): what the re-created file will lack."""
    if artifact.emitted is not None and artifact.emitted.convergence == WHOLE_FILE:
        return "The re-created script is the generated one: the hand edit stays only in the renamed copy."
    keys = dropped_keys(artifact, found) if found is not None else []
    repair = " `provision --repair` rewrites only the owned values and keeps them." \
        if getattr(artifact, "repair", None) is not None else ""
    if not keys:
        return "The re-created file is the fleet's version; the renamed copy keeps this one as it is."
    return (f"The re-created file will lack the resident's own {', '.join(keys)}: they stay only in the "
            f"renamed copy.{repair}")
