"""The pointer graph of a memory directory: what links where, what is broken, what nothing reaches.

Links come from MEMORY.md, identity.md, ARCHIVE.md and every other markdown file in the memory
directory (dot-files and dot-directories are skipped), read with markdown-it via ``curator.markdown``.
Reported problems:

- dangling: a file link (images and ``file://`` links included) whose file does not exist, or whose
  ``#anchor`` names no heading there (GitHub slug rules), with a did-you-mean suggestion only when
  it is clearly the file or heading meant (the same name but for case, ``-``/``_``, a missing
  ``.md``; or a near spelling with the same numbers: never another day's log for a dated name; for
  an anchor, also the one heading it is the first words of: ``#profiling`` for "Profiling first");
- unwritten: a ``[[wikilink]]`` that names no memory yet (information, not a problem: in the harness's
  own convention it marks something worth writing later);
- probable: a ``[[wikilink]]`` that names no memory as written but probably means exactly one (its
  ``name:`` or stem but for case, ``-``/``_`` and spaces; or but for a memory-type word ``feedback_``
  left out or added; or but for punctuation and full-width forms): a question for the bearer with
  its evidence and the spelling that resolves, not a problem; the link still reaches that file;
- escapes: a pointer that leaves the memory directory (``..``, an absolute path, a symlink) and does
  not land on an existing file of the same git repository;
- orphans: a memory file nothing reachable from MEMORY.md / identity.md / ARCHIVE.md / USER.md
  (Hermes) links to or names (an orphaned pointer is a deleted memory). A file counts as reached
  when a reachable file links it or names it bare: ``project_plan.md``, ``feedback_x`` (with or
  without backticks or ``.md``). Files that are not memories (README, CLAUDE, AGENTS, LICENSE, …)
  are never orphans;
- unlinked archive: an ARCHIVE.md that nothing reachable from MEMORY.md links or names (its entries
  are on disk but out of the agent's reach);
- unreadable: a markdown file that could not be read, or that is too large to analyse.

Information, never a problem: ``outside`` (a relative link that leaves the memory dir to a file or
directory that exists in the same git repository, such as ``../../CLAUDE.md``), ``named_only`` (files
reached only by a bare name, not a link), ``unwritten`` and ``probable`` (a question).

Wikilinks resolve as Claude Code's memory convention has them (its prompt: "``[[name]]``, where
``name`` is the other memory's ``name:`` slug"; the harness resolves nothing itself, the model looks
the file up): by front-matter ``name:`` first, then by file stem or path, as written but for case;
anything looser is only probable (above). A bare name is a whole name (``sre-ops-checks.md`` does not
name ``ops-checks.md``), and a folder written before it must lead into the memory dir; a link to a
directory reaches every file under it; a symlinked directory inside the memory dir is followed (one
that leads outside is an escape). Targets in the report are decoded, as people wrote them.
URLs and record ids are listed, never fetched or checked. ``overrides`` lets a caller check a
change before it is written. Parsed files are cached by (path, size, mtime_ns), so re-checking
after a keystroke in MEMORY.md re-parses nothing else. Every lookup is by dict (no pass over all
files or names per link), so a check costs about one markdown parse of the text it reads.

The rooms: ``reports`` (the report and its entries), ``documents`` (one file parsed, cached),
``targets`` (the directory tree and where a file link lands), ``matching`` (did-you-mean for names),
``wikilinks`` (wikilink names, resolution and probable meanings), ``anchors`` (headings and their did-you-mean), ``orphans``
(boot files, bare names, reachability) and ``check`` (``check_pointers``).
"""

from curator.pointers.anchors import Anchors
from curator.pointers.check import check_pointers
from curator.pointers.documents import (HTML_ID, Document, clear_cache, decode, document_from_index,
                                        parse_document)
from curator.pointers.matching import DIGITS, SUGGESTION_CUTOFF, SUGGESTION_MARGIN, Choices, heading_prefix
from curator.pointers.orphans import (BOOT_NAMES, MAX_NAME, NOT_MEMORY_PREFIXES, NOT_MEMORY_STEMS, ROOT_NAMES,
                                      BareNames, bare_names, is_memory)
from curator.pointers.reports import Dangling, Escape, Outside, PointerReport, Probable, Unreadable, Unwritten
from curator.pointers.targets import MARKDOWN_SUFFIXES, Tree, in_repo, is_markdown, repo_root, resolve, scan
from curator.pointers.wikilinks import MEMORY_TYPES, Meant, WikiNames, resolve_wikilink, wiki_index, wiki_spelling

__all__ = ["BOOT_NAMES", "DIGITS", "HTML_ID", "MARKDOWN_SUFFIXES", "MAX_NAME", "MEMORY_TYPES", "NOT_MEMORY_PREFIXES",
           "NOT_MEMORY_STEMS", "ROOT_NAMES", "SUGGESTION_CUTOFF", "SUGGESTION_MARGIN", "Anchors", "BareNames",
           "Choices", "Dangling", "Document", "Escape", "Meant", "Outside", "PointerReport", "Probable", "Tree", "Unreadable",
           "Unwritten", "WikiNames", "bare_names", "check_pointers", "clear_cache", "decode", "document_from_index",
           "heading_prefix", "in_repo", "is_markdown", "is_memory", "parse_document", "repo_root", "resolve",
           "resolve_wikilink", "scan", "wiki_index", "wiki_spelling"]
