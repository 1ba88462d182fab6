"""What a change adds to the pointer report, judged by where the links point, not by which file holds them.

Moving a line that already held a dangling link (into ARCHIVE.md, a fold file, a detail file) moves
the problem; it does not make one. So dangling links are compared by the file and anchor they aim
at, resolved from the file that holds them, and a change is refused only for what is new.
"""

from __future__ import annotations

import posixpath
from collections import Counter
from pathlib import Path

from curator.index_model import HotIndex
from curator.pointers import PointerReport, check_pointers


def aim(file: str, target: str) -> str:
    """The memory-dir path (and anchor) a link written in ``file`` aims at; a wikilink or URL as written."""
    if target.startswith(("[[", "/", "~")) or "://" in target:
        return target
    path, hashed, anchor = target.partition("#")
    where = posixpath.normpath(posixpath.join(posixpath.dirname(file), path)) if path else file
    return where + hashed + anchor


def added_problems(before: PointerReport, after: PointerReport) -> list[str]:
    """Orphans, dangling links, escapes and respelled wikilinks ``after`` has that ``before`` did
    not (dangling links and escapes by what they aim at; a wikilink means the same from any file)."""
    orphans = sorted(set(after.orphans) - set(before.orphans))
    old = Counter(aim(d.file, d.target) for d in before.dangling)
    new = Counter(aim(d.file, d.target) for d in after.dangling)
    old_escapes = Counter(aim(e.file, e.target) for e in before.escapes)
    new_escapes = Counter(aim(e.file, e.target) for e in after.escapes)
    return ([f"orphaned {name}" for name in orphans] + [f"dangling {aim}" for aim in sorted((new - old).elements())]
            + [f"escaping {aim}" for aim in sorted((new_escapes - old_escapes).elements())]
            + _added_probable(before, after))


def _added_probable(before: PointerReport, after: PointerReport) -> list[str]:
    """Wikilinks that only probably name their file after the change and did not before (a link that
    resolved, or named nothing, now rests on a respelling): the change would make a question."""
    old = Counter((p.target, p.meant) for p in before.probable)
    new = Counter((p.target, p.meant) for p in after.probable)
    return [f"respelled {target} (only probably {meant})" for target, meant in sorted((new - old).elements())]


def pointer_warnings(memory_dir: str | Path, index: HotIndex, files: dict[str, bytes]) -> list[str]:
    """Archive and restore keep every link verbatim; say so if the graph disagrees anyway."""
    before = check_pointers(Path(memory_dir), parsed_index=index)
    after = check_pointers(Path(memory_dir), overrides=files)
    orphans = sorted(set(after.orphans) - set(before.orphans))
    # A line that already held a dangling link moves its problem with it: compare where links aim.
    old = Counter(aim(d.file, d.target) for d in before.dangling)
    dangling: set[str] = set()
    for d in after.dangling:
        if old[aim(d.file, d.target)] > 0:
            old[aim(d.file, d.target)] -= 1
        else:
            dangling.add(f"{d.file}: {d.target}")
    return ([f"orphaned detail file {name}" for name in orphans] + [f"dangling pointer {d}" for d in sorted(dangling)]
            + _added_probable(before, after))
