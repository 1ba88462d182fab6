"""The pointer check: every link of every file resolved and judged, then what the boot files reach."""

from __future__ import annotations

import os
import posixpath
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path

from curator.bounds import refuse_past
from curator.constants import ARCHIVE_NAME, INDEX_NAME
from curator.errors import CuratorError
from curator.frontmatter import NONE
from curator.index_model import HotIndex
from curator.markdown import Link
from curator.pointers.anchors import Anchors, _anchors, _check_anchor
from curator.pointers.documents import Document, _from_content, _from_disk, document_from_index
from curator.pointers.matching import Choices
from curator.pointers.orphans import BOOT_NAMES, ROOT_NAMES, BareNames, _reach, is_memory
from curator.pointers.reports import Dangling, Escape, Outside, PointerReport, Probable, Unreadable, Unwritten
from curator.pointers.targets import in_repo, is_markdown, repo_root, resolve, scan
from curator.pointers.wikilinks import WikiNames, wiki_index, wiki_spelling

def _relative_to(source: str, target: str) -> str:
    base = posixpath.dirname(source) or "."
    return posixpath.relpath(target, base)


def check_pointers(
    memory_dir: Path,
    *,
    overrides: Mapping[str, bytes | None] | None = None,
    parsed_index: HotIndex | None = None,
) -> PointerReport:
    """The pointer report of ``memory_dir`` as it would be with ``overrides`` applied.

    ``overrides`` maps a file name relative to the memory dir to proposed bytes (``None``: the file
    is removed). ``parsed_index`` is MEMORY.md already parsed (its bytes win over disk and
    overrides), so an editor's keystroke costs one parse, not two.
    """
    memory_dir = Path(memory_dir)
    overrides = dict(overrides or {})
    real_root = os.path.realpath(memory_dir)
    tree = scan(memory_dir, real_root)
    report = PointerReport(memory_dir)

    names = {name for name in tree.files if is_markdown(name)}
    names.update(name for name, data in overrides.items() if data is not None and is_markdown(name))
    names.difference_update(name for name, data in overrides.items() if data is None)
    if parsed_index is not None:
        names.add(INDEX_NAME)

    docs: dict[str, Document] = {}
    for name in sorted(names):
        try:
            if name == INDEX_NAME and parsed_index is not None:
                docs[name] = document_from_index(parsed_index)
            elif name in overrides:
                docs[name] = _from_content(name, overrides[name] or b"")
            else:
                info = tree.files[name]
                refuse_past(info.st_size, name, "the pointer check")
                docs[name] = _from_disk(name, memory_dir / name, info.st_size, info.st_mtime_ns)
        except CuratorError as err:
            report.unreadable.append(Unreadable(name, err.message))

    existing_files = (set(tree.files) | set(docs)) - {n for n, d in overrides.items() if d is None}
    existing_files |= {n for n, d in overrides.items() if d is not None}
    file_choices = Choices(sorted(existing_files))
    wiki_names = report.wiki_names = wiki_index(docs, existing_files)
    wiki = report.wiki = WikiNames(wiki_names, wiki_spelling(docs, wiki_names),
                                   {name: doc.front_matter.name for name, doc in docs.items() if doc.front_matter.name},
                                   {name: doc.front_matter.type for name, doc in docs.items() if doc.front_matter.type})
    under: dict[str, list[str]] = {}  # a linked directory -> the files under it, found once
    anchors: dict[str, Anchors] = {}  # per target file, built on its first anchor
    repo: list[str | None] = []  # found on the first link that leaves the dir

    edges: dict[str, set[str]] = {name: set() for name in docs}
    state = (str(memory_dir), real_root, frozenset(tree.outside), tuple(sorted(tree.aliases.items())))
    for name, doc in docs.items():
        report.links_by_file[name] = doc.links
        if doc.front_matter is not NONE:
            report.front_matter[name] = doc.front_matter
        resolutions = doc.resolved.get(state)
        if resolutions is None:
            resolutions = [resolve(name, link, memory_dir, real_root, tree) if link.kind == "file" else None
                           for link in doc.links]
            doc.resolved.clear()  # one directory state per document is all a session needs
            doc.resolved[state] = resolutions
        for link, resolution in zip(doc.links, resolutions):
            if link.kind == "anchor":
                _check_anchor(report, name, link, name, docs, link.shown, anchors)
                continue
            if link.kind == "wiki":
                if not _leaves_dir(name, link.wiki_name):
                    _check_wikilink(report, name, link, wiki, docs, edges, anchors)
                    continue
                # [[../../docs/x.md]] is a path out of the dir, not a memory's name: checked as a file link.
                path = link.wiki_name if posixpath.splitext(link.wiki_name)[1] else link.wiki_name + ".md"
                link = replace(link, target=path, kind="file")
                resolution = resolve(name, link, memory_dir, real_root, tree)
            if resolution is None:
                continue
            target, escape = resolution
            if escape is not None:
                if not repo:
                    repo.append(repo_root(real_root))
                landed = in_repo(name, link, real_root, repo[0]) if escape.startswith("'..'") else None
                if landed is not None:
                    report.outside.append(Outside(name, link.line, link.shown, landed))
                else:
                    report.escapes.append(Escape(name, link.line, link.shown, escape))
                continue
            assert target is not None
            if target == "":
                continue  # the memory dir itself: exists, nothing to follow
            if target in tree.dirs:  # a directory: it reaches every file under it
                if target not in under:
                    under[target] = [doc_name for doc_name in docs if doc_name.startswith(target + "/")]
                edges[name].update(under[target])
                continue
            if target not in existing_files:
                guess = file_choices.suggest(target, source=name)
                report.dangling.append(
                    Dangling(name, link.line, link.shown, "no such file",
                             _relative_to(name, guess) if guess else None)
                )
                continue
            if target in docs:
                edges[name].add(target)
                _check_anchor(report, name, link, target, docs, link.shown.split("#", 1)[0], anchors)

    bare = BareNames(docs, Path(real_root).parts)
    named: dict[str, set[str]] = {}
    for name, doc in docs.items():
        targets = {bare.target(name, word) for word in doc.bare} - {None, name}
        if targets:
            named[name] = targets  # type: ignore[assignment]

    linked = _reach([root for root in ROOT_NAMES if root in docs], edges)
    reached = _reach([root for root in ROOT_NAMES if root in docs], edges, named)
    report.orphans = sorted(name for name in docs
                            if name not in reached and name not in ROOT_NAMES and is_memory(name))
    report.named_only = sorted(name for name in reached - linked if is_memory(name))
    if ARCHIVE_NAME in docs and ARCHIVE_NAME not in _reach([r for r in BOOT_NAMES if r in docs], edges, named):
        report.unlinked_archive = ARCHIVE_NAME
    report.files = tuple(sorted(docs))
    return report


def _leaves_dir(source: str, name: str) -> bool:
    """A wikilink written as a path that leaves the memory dir (``..``, ``/``, ``~``)."""
    if name.startswith(("/", "~")):
        return True
    joined = posixpath.normpath(posixpath.join(posixpath.dirname(source), name))
    return joined == ".." or joined.startswith("../")


def _check_wikilink(report: PointerReport, source: str, link: Link, wiki: WikiNames,
                    docs: dict[str, Document], edges: dict[str, set[str]], anchors: dict[str, Anchors]) -> None:
    wanted = link.wiki_name
    target = wiki.resolve(wanted) if wanted else source  # [[#Heading]]: this file
    if target is None:
        meant = wiki.probable(wanted)
        if meant is None:
            report.unwritten.append(Unwritten(source, link.line, link.target))
            return
        # Probably that file: it is reached (no orphan), and the bearer is asked, not told it is broken.
        if meant.file in docs:
            edges[source].add(meant.file)
        heading, why = link.anchor, meant.why
        if heading and meant.file in docs and not _anchors(anchors, docs, meant.file).has_heading(heading):
            # The respelling alone would still not resolve: say so, with the heading it probably means.
            guess = _anchors(anchors, docs, meant.file).suggest_heading(heading)
            why += f"; it has no heading '{heading}'" + (f", probably '{guess}'" if guess else "")
            heading = guess or heading
        spelling = f"[[{meant.spelling}#{heading}]]" if heading else f"[[{meant.spelling}]]"
        report.probable.append(Probable(source, link.line, f"[[{link.target}]]", meant.file, spelling, why))
        return
    if target in docs:
        edges[source].add(target)
        heading = link.anchor
        known = _anchors(anchors, docs, target)
        if heading and not known.has_heading(heading):
            guess = known.suggest_heading(heading)
            report.dangling.append(Dangling(source, link.line, f"[[{link.target}]]", "no such heading",
                                            f"[[{wanted}#{guess}]]" if guess else None))
