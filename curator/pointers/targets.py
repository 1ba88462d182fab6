"""Where a file link lands: the memory dir's files and directories, and each link resolved or escaping."""

from __future__ import annotations

import os
import posixpath
from dataclasses import dataclass, field
from pathlib import Path

from curator.markdown import Link

MARKDOWN_SUFFIXES = (".md", ".markdown")


@dataclass
class Tree:
    """Files and directories under the memory dir, by '/'-separated relative name."""

    files: dict[str, os.stat_result] = field(default_factory=dict)
    dirs: set[str] = field(default_factory=set)
    outside: set[str] = field(default_factory=set)  # symlinks (files or dirs) that leave the dir
    aliases: dict[str, str] = field(default_factory=dict)  # symlinked dir -> the walked dir it is


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def scan(memory_dir: Path, real_root: str) -> Tree:
    """Walk the memory dir's real directories, then its symlinked ones: a symlinked directory that
    leads to a directory already walked is an alias of it (``link/x.md`` is that directory's
    ``x.md``); one that leads elsewhere inside is walked under its own name; one that leads outside
    is only recorded, never followed."""
    tree = Tree()
    walked = {real_root: ""}
    links: list[tuple[str, str]] = []
    pending = [("", str(memory_dir))]
    while pending or links:
        if not pending:  # real directories first, so an alias knows what it stands for
            name, path = links.pop(0)
            real = os.path.realpath(path)
            if real in walked:
                tree.aliases[name] = walked[real]
                continue
            walked[real] = name
            pending.append((name + "/", path))
        prefix, directory = pending.pop()
        try:
            entries = list(os.scandir(directory))
        except OSError:
            continue
        for entry in entries:
            if entry.name.startswith("."):
                continue
            name = prefix + entry.name
            try:
                if entry.is_symlink():
                    if not _inside(os.path.realpath(entry.path), real_root):
                        tree.outside.add(name)
                        continue
                    if entry.is_dir():
                        tree.dirs.add(name)
                        links.append((name, entry.path))
                        continue
                if entry.is_dir():
                    tree.dirs.add(name)
                    walked[os.path.realpath(entry.path)] = name
                    pending.append((name + "/", entry.path))
                elif entry.is_file():
                    tree.files[name] = entry.stat()
            except OSError:
                continue
    return tree


def is_markdown(name: str) -> bool:
    return name.lower().endswith(MARKDOWN_SUFFIXES)


def repo_root(real_root: str) -> str | None:
    """The git work tree the memory dir sits in (the nearest directory above it holding ``.git``)."""
    current = real_root
    while True:
        if os.path.lexists(os.path.join(current, ".git")):
            return current
        parent = os.path.dirname(current)
        if parent == current:
            return None
        current = parent


def resolve(source: str, link: Link, memory_dir: Path, real_root: str, tree: Tree) -> tuple[str | None, str | None]:
    """(target name inside the memory dir, escape reason). Exactly one is set."""
    path = link.path
    if not path:
        return source, None  # "?x" or "#x" forms of a file link point at the file itself
    if path.startswith("~"):
        return None, "home-relative path leaves the memory dir"
    if path.startswith("/"):
        absolute = os.path.normpath(path)
        for root in (str(memory_dir.absolute()), real_root):
            if _inside(absolute, root):
                rel = os.path.relpath(absolute, root).replace(os.sep, "/")
                return ("" if rel == "." else rel), None
        return None, "absolute path outside the memory dir"
    joined = posixpath.normpath(posixpath.join(posixpath.dirname(source), path))
    if joined == ".." or joined.startswith("../"):
        back = os.path.normpath(os.path.join(real_root, joined))
        if _inside(back, real_root):  # ../memory/x.md from inside "memory": back in the dir
            rel = os.path.relpath(back, real_root).replace(os.sep, "/")
            return ("" if rel == "." else rel), None
        return None, "'..' leaves the memory dir"
    if joined == ".":
        return "", None
    parts = joined.split("/")
    for depth in range(1, len(parts) + 1):
        head = "/".join(parts[:depth])
        if head in tree.outside:
            return None, "symlink leads outside the memory dir"
        if head in tree.aliases:  # through a symlinked directory to the one it stands for
            real = tree.aliases[head]
            return (real + "/" if real else "") + "/".join(parts[depth:]) if depth < len(parts) else real, None
    return joined, None


def in_repo(source: str, link: Link, real_root: str, repo: str | None) -> str | None:
    """Where a relative ``..`` link that left the memory dir lands in the git repository around it,
    repo-relative, if something exists there; None if it leaves the repository or lands nowhere."""
    if repo is None or link.path.startswith(("/", "~")):
        return None
    landed = os.path.realpath(os.path.join(real_root, posixpath.dirname(source), link.path))
    if not _inside(landed, repo) or not os.path.exists(landed):
        return None
    return os.path.relpath(landed, repo).replace(os.sep, "/")
