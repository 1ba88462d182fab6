"""Fit: one plan of lever steps that brings MEMORY.md under the target, losing nothing.

The order: first **trims** (the lesson stays in the index, the story moves verbatim into the file
the entry already links to), then **merges of true duplicates** (every clause and sub-line of the
entry merged away is already in the kept entry, word for word, and no pointer is lost), then
**archiving of finished entries** (only those the bearer's own words mark finished:
``curator.levers.finished``; a date alone never does), then **folds** of the largest facets
(``curator.levers.fold``: a section or a run of entries moves verbatim into one detail file, one
line links it) until the target is met. Never the template's identity lines, the weak spots, or the
template's header. Finished entries the plan did not need to archive are a question to the bearer
(``FitPlan.questions``), not a step.

Every step is planned on the index as the steps before it leave it, by the levers themselves
(``trim.split_entry``, ``merge``, ``archive.plan_archive``, ``fold.plan_fold``), so each keeps its
own checks (a step that would add a dangling pointer or an orphan is left out, with its reason;
problems already there never stop a step). The selected steps become ONE ``Change`` (kind ``fit``):
the store applies it atomically and one undo gives every file back. Steps are numbered; ``skip``
leaves some out and the rest is planned again in the same order, so what is shown is what will be
written.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import date
from functools import lru_cache
from pathlib import Path

from curator.change import Change, digest
from curator.constants import INDEX_NAME
from curator.errors import CuratorError
from curator.index_model import BOM, Entry, HotIndex, parse_index
from curator.levers import archive, fold, merge, trim
from curator.levers.finished import finished_mark
from curator.levers.pointer_delta import added_problems
from curator.levers.similarity import words_of
from curator.levers.text import clauses, read_optional
from curator.pointers import check_pointers

TRIM_THRESHOLD = 200  # bytes: shorter entries are left as they are
MAX_MERGES = 500  # merge candidates weighed per plan
MAX_FOLDS = 200  # folds per plan (each saves bytes, so this only bounds a pathological index)
KINDS = ("trim", "merge", "archive", "fold")


@dataclass(frozen=True)
class FitStep:
    number: int  # 1-based, what --skip takes
    kind: str  # trim | merge | archive | fold
    entry_ids: tuple[str, ...]
    lines: tuple[int, ...]  # where the entries start in the index the step was planned on
    bytes_saved: int  # MEMORY.md bytes this step saves
    reason: str
    files: tuple[str, ...] = ()  # files the step writes besides MEMORY.md
    selected: bool = True


@dataclass(frozen=True)
class FitQuestion:
    """Judgment the plan leaves to the bearer, with its evidence (never a step)."""

    question: str
    entry_ids: tuple[str, ...]
    lines: tuple[int, ...]
    evidence: tuple[str, ...]  # per entry: the words that mark it


@dataclass(frozen=True)
class FitPlan:
    target: int
    before: int  # MEMORY.md bytes now
    after: int  # MEMORY.md bytes once the selected steps are applied
    steps: tuple[FitStep, ...]
    change: Change | None  # the selected steps as one change (None: nothing to do)
    left_out: tuple[str, ...] = ()  # steps the levers refused, with why
    problems_before: int = 0
    problems_after: int = 0
    largest_left: tuple[tuple[int, int], ...] = ()  # (line, bytes) of the longest entries left
    questions: tuple[FitQuestion, ...] = ()
    protected_bytes: int = 0  # what the identity lines, the weak spots and the header take

    @property
    def reached(self) -> bool:
        return self.after <= self.target

    @property
    def counts(self) -> dict[str, int]:
        found = dict.fromkeys(KINDS, 0)
        for step in self.steps:
            if step.selected:
                found[step.kind] += 1
        return found

    @property
    def left(self) -> str:
        """What stands between the plan and the target, said plainly ('' when it is reached)."""
        if self.reached:
            return ""
        over = f"{self.after - self.target:,} B over the target after these steps"
        if any(not s.selected for s in self.steps):
            return over + "; steps left unticked would save more."
        if self.protected_bytes > self.target:
            return (over + f"; the identity lines, the weak spots and the header alone take {self.protected_bytes:,} B, "
                    "and no lever touches them: shorten them by hand.")
        longest = ", ".join(f"line {line} ({size:,} B)" for line, size in self.largest_left)
        asked = "; answer the questions below" if self.questions else ""
        return (over + "; no facet left folds and saves bytes" + asked + ": the rest needs the bearer "
                "(`seat-curator trim`, `fold`, `archive`)" + (f"; the longest entries left: {longest}" if longest else "")
                + ".")


@dataclass
class _State:
    """The files as the steps so far leave them (MEMORY.md parsed), and what they were on disk."""

    memory_dir: Path
    index: HotIndex
    files: dict[str, bytes | None] = field(default_factory=dict)
    base: dict[str, str | None] = field(default_factory=dict)

    def take(self, change: Change, parsed: HotIndex | None = None) -> None:
        """Add ``change`` (``parsed``: its MEMORY.md already parsed)."""
        for name, data in change.files.items():
            if name not in self.base:
                self.base[name] = change.base.get(name, digest(read_optional(self.memory_dir, name)))
            self.files[name] = data
        if INDEX_NAME in change.files:
            self.index = parsed or parse_index(change.files[INDEX_NAME] or b"")


def line_ranges(lines: Iterable[int]) -> str:
    """1,2,3,5 -> '1-3,5' in the order given (an archive of 200 entries is a few runs, not 200 numbers)."""
    runs: list[list[int]] = []
    for line in lines:
        if runs and line == runs[-1][1] + 1:
            runs[-1][1] = line
        else:
            runs.append([line, line])
    return ",".join(str(a) if a == b else f"{a}-{b}" for a, b in runs)


def _lines(original: HotIndex, current: HotIndex, ids: Iterable[str]) -> tuple[int, ...]:
    """Where the entries sit in the index as it is now on disk (an entry a step made: where it is)."""
    return tuple((original if original.has_entry(i) else current).entry(i).line for i in ids
                 if original.has_entry(i) or current.has_entry(i))


@lru_cache(maxsize=1024)  # the same entries are weighed by several candidates and both tests below
def _flat(text: str) -> str:
    """The text with every run of whitespace made one space."""
    return " ".join(text.split())


def _may_repeat(index: HotIndex, candidate: merge.Candidate) -> bool:
    """A merge of true duplicates adds nothing to the kept entry: its default text is that entry's."""
    return _flat(candidate.merged) == _flat(index.entry(candidate.entry_ids[0]).text)


def _true_duplicate(index: HotIndex, candidate: merge.Candidate) -> bool:
    """Every clause and sub-line of the entries merged away is already in the kept entry, verbatim."""
    group = [index.entry(i) for i in candidate.entry_ids]
    flat = _flat(group[0].text)
    for entry in group[1:]:
        if _flat(entry.body) in flat:  # said whole, as written
            continue
        said = {clause for part in set(entry.text.split("\n"))  # each distinct line and clause once
                for clause in clauses(merge.LIST_MARKER.sub("", part.strip(), count=1))}
        if not all(" ".join(clause.split()) in flat for clause in said):
            return False
    return True


def protected_bytes(index: HotIndex) -> int:
    """Bytes no lever may take: the sections of the identity lines and the weak spots, and the header
    (what sits above the first section that holds an entry)."""
    total = 0
    for section in index.sections:
        if fold.is_protected(section.heading):
            first, end = section.start, fold.section_span(index, section)[1]
            total += sum(len(line.raw) for line in index.lines[first:end])
    first_entry = min((e.line for e in index.entries), default=len(index.lines) + 1)
    total += sum(len(line.raw) for line in index.lines[: first_entry - 1])
    return min(total, len(index.raw))


def finished_entries(index: HotIndex) -> list[tuple[Entry, str]]:
    """(entry, the words that mark it finished) for every entry a lever may archive, in file order."""
    out: list[tuple[Entry, str]] = []
    for entry in index.entries:
        if fold.is_protected(entry.section):
            continue
        mark = finished_mark(entry.text, entry.section)
        if mark:
            out.append((entry, mark))
    return out


def plan_fit(memory_dir: str | Path, index: HotIndex, *, target: int = 17_000, skip: Iterable[int] = (),
             today: date | None = None) -> FitPlan:
    """The fit plan for the seat at ``memory_dir`` whose MEMORY.md is ``index``.

    Trims and merges are each planned on the same index and written with one splice, checked
    against the pointer graph once (a batch that would add a pointer problem is planned again one
    step at a time, each step checked by its lever). A skipped step still counts as taken when the
    next steps are chosen, so the numbers stay those of the full plan; the plan then says if the
    target is missed."""
    memory_dir = Path(memory_dir)
    today = today or date.today()
    skip = set(skip)
    state = _State(memory_dir, index)
    steps: list[FitStep] = []
    left_out: list[str] = []
    projected = len(index.raw)  # MEMORY.md's size once every step so far (skipped ones too) is taken

    def step(kind: str, ids: Iterable[str], lines: Iterable[int], saved: int, reason: str,
             files: Iterable[str] = ()) -> bool:
        nonlocal projected
        number = len(steps) + 1
        steps.append(FitStep(number, kind, tuple(ids), tuple(lines), saved, reason, tuple(files), number not in skip))
        projected -= saved
        return number not in skip

    before_report = check_pointers(memory_dir, parsed_index=index)

    def breaks_pointers(files: Mapping[str, bytes | None], parsed: HotIndex | None = None) -> list[str]:
        return added_problems(before_report, check_pointers(memory_dir, overrides=files, parsed_index=parsed))

    # 1. Trims: the longest entries first, each into the detail file it already links to (once per file).
    edits, details, bases = [], {}, {}
    for entry in sorted((e for e in index.entries if e.nbytes >= TRIM_THRESHOLD and not fold.is_protected(e.section)),
                        key=lambda e: (-e.nbytes, e.line)):
        if projected <= target:
            break
        detail = trim._detail_target(memory_dir, entry)
        if detail is None or detail in details or detail in bases:
            continue
        try:
            new_text, name, files = trim.split_entry(memory_dir, index, entry)
        except CuratorError as err:
            left_out.append(f"trim line {entry.line}: {err.message}")
            continue
        edit = trim.entry_edit(index, entry, new_text)
        saved = (edit[1] - edit[0]) - len(edit[2])
        if name != detail or saved <= 0:
            continue
        reason = f"{saved:,} B of story move verbatim into {detail}; the lesson stays in the index"
        if step("trim", [entry.id], [entry.line], saved, reason, [detail]):
            edits.append(edit)
            details[detail] = files[detail]
        bases[detail] = digest(read_optional(memory_dir, detail))
    if edits:
        files = {INDEX_NAME: index.splice(edits), **details}
        broken = breaks_pointers(files)
        if broken:  # one of them moved a pointer it should not have: let the lever judge each alone
            left_out.append("trims checked one at a time: together they would add " + ", ".join(broken))
            for trim_step in [s for s in steps if s.kind == "trim" and s.selected]:
                try:
                    state.take(trim.plan_trim(memory_dir, state.index, trim_step.entry_ids[0], kind="split"))
                except CuratorError as err:
                    left_out.append(f"trim line {trim_step.lines[0]}: {err.message}")
        else:
            state.take(Change("fit trims", files, base={INDEX_NAME: digest(index.raw), **bases}))

    # 2. Merges of true duplicates, the ones that save most first, on entries no other merge takes.
    if projected > target:
        current = state.index
        groups: list[tuple[list[Entry], str]] = []
        taken: set[str] = set()
        for candidate in merge.find_candidates(current, limit=MAX_MERGES):
            if projected <= target:
                break
            if taken & set(candidate.entry_ids) or any(fold.is_protected(current.entry(i).section)
                                                        for i in candidate.entry_ids):
                continue
            repeats = _may_repeat(current, candidate) and _true_duplicate(current, candidate)
            if not repeats and len(candidate.entry_ids) == 2:
                # The other way round, the longer entry may hold the shorter one word for word.
                first, second = (current.entry(i) for i in candidate.entry_ids)
                if words_of(first.text) <= words_of(second.text):
                    flipped = merge._candidate(current, [second, first], candidate.score, candidate.shared_target,
                                               merge.plain_text(current))
                    if flipped is not None and _may_repeat(current, flipped) and _true_duplicate(current, flipped):
                        candidate, repeats = flipped, True
            if not repeats or candidate.bytes_saved < merge.MIN_SAVING:
                continue
            taken.update(candidate.entry_ids)
            lines = _lines(index, current, candidate.entry_ids)
            many = len(lines) > 2
            reason = (f"line{'s' if many else ''} {', '.join(map(str, lines[1:]))} repeat{'' if many else 's'} "
                      f"line {lines[0]} word for word")
            if step("merge", candidate.entry_ids, lines, candidate.bytes_saved, reason):
                groups.append(([current.entry(i) for i in candidate.entry_ids], candidate.merged))
        if groups:
            edits = [edit for group, text in groups for edit in merge.group_edits(current, group, text)]
            files = {INDEX_NAME: current.splice(edits)}
            merged = parse_index(files[INDEX_NAME])
            kept = {link.target for link in merged.links}
            lost = sorted({link.target for g, _text in groups for e in g for link in e.pointers} - kept)
            broken = lost or breaks_pointers({**state.files, **files}, merged)
            if broken:
                left_out.append("merges left out: they would lose " + ", ".join(broken))
            else:
                state.take(Change("fit merges", files, base={INDEX_NAME: digest(index.raw)}), merged)

    # 3. Archive: only entries the bearer's own words mark finished, the largest first, as few as
    # reach the target; the others that look finished become a question.
    asked: list[tuple[Entry, str]] = []
    if projected > target:
        current = state.index
        marked = finished_entries(current)
        # The line that leads to ARCHIVE.md, when the index has none yet, costs bytes too.
        chosen, going = [], 0 if archive.links_archive(current) else -len(archive.ARCHIVE_POINTER.encode()) - 3
        for entry, mark in sorted(marked, key=lambda t: (-t[0].nbytes, t[0].line)):
            if projected - going <= target:
                asked.append((entry, mark))
                continue
            chosen.append((entry, mark))
            going += entry.nbytes
        chosen.sort(key=lambda t: t[0].line)
        if going <= 0:  # archiving them would not even pay for the line to ARCHIVE.md: ask instead
            asked, chosen = marked, []
        if chosen:
            ids = [e.id for e, _mark in chosen]
            try:
                # A heading that itself marks its entries finished ("## Done") goes with them; restore
                # brings it back. Any other heading is the index's own skeleton: it stays.
                logs = {s.heading for s in archive.emptied_sections(current, ids) if finished_mark("", s.heading)}
                change = archive.plan_archive(memory_dir, current, ids, today=today, drop_empty_sections=logs)
            except CuratorError as err:
                left_out.append(f"archive: {err.message}")
                asked = marked
            else:
                broken = breaks_pointers({**state.files, **change.files})
                if change.bytes_saved <= 0:
                    asked = marked
                elif broken:
                    left_out.append("archive: it would add " + ", ".join(broken))
                    asked = marked
                else:
                    on_disk = _lines(index, current, ids)
                    marks = "; ".join(f"line {line}: {mark}" for line, (_e, mark) in zip(on_disk, chosen[:6]))
                    reason = (f"{len(chosen)} entr{'y' if len(chosen) == 1 else 'ies'} marked finished in the "
                              f"bearer's own words ({marks}{'; …' if len(chosen) > 6 else ''})")
                    if step("archive", ids, on_disk, change.bytes_saved, reason, ["ARCHIVE.md"]):
                        state.take(change)
    else:
        asked = finished_entries(state.index)

    # 4. Folds: the smallest facet that alone reaches the target, else the largest, until it is met.
    stepped: set[tuple[str, str]] = set()
    for _round in range(MAX_FOLDS):
        if projected <= target:
            break
        current = state.index
        need = projected - target
        open_facets = [f for f in fold.facets(current) if (f.kind, f.name) not in stepped]
        reaching = sorted((f for f in open_facets if f.nbytes >= need), key=lambda f: (f.nbytes, f.name))
        planned: dict[tuple[str, str], tuple[fold.Facet, Change]] = {}
        for facet in reaching + open_facets[:1]:  # the smallest that may reach the target, then the largest
            if (facet.kind, facet.name) in stepped or (facet.kind, facet.name) in planned:
                continue
            try:
                change = facet.plan(memory_dir, current, overrides=state.files)
            except CuratorError as err:
                left_out.append(f"fold {facet.name}: {err.message}")
                stepped.add((facet.kind, facet.name))
                continue
            if change.bytes_saved > 0:
                planned[(facet.kind, facet.name)] = (facet, change)
            if change.bytes_saved >= need:
                break
        enough = [p for p in planned.values() if p[1].bytes_saved >= need]
        chosen_fold = (min(enough, key=lambda p: p[1].bytes_saved) if enough
                       else max(planned.values(), key=lambda p: p[1].bytes_saved, default=None))
        if chosen_fold is None and open_facets[1:]:
            stepped.update((f.kind, f.name) for f in open_facets[:1])  # it cannot fold: try the next one
            continue
        if chosen_fold is None:
            break
        facet, change = chosen_fold
        stepped.add((facet.kind, facet.name))
        (name,) = [n for n in change.names if n != INDEX_NAME]
        what = f"section '{facet.name}'" if facet.kind == "section" else f"the entries sharing {facet.name}"
        reason = f"{what}: {len(facet.entry_ids)} entries move verbatim into {name}; one line links it"
        lines = _lines(index, current, facet.entry_ids)
        if step("fold", facet.entry_ids, lines, change.bytes_saved, reason, [name]):
            state.take(change)
    left_out = [note for note in left_out if not note.startswith("fold ") or projected > target]

    whole: Change | None = None  # every selected step as one change
    if state.files:
        counts = {k: sum(1 for s in steps if s.selected and s.kind == k) for k in KINDS}
        what = ", ".join(f"{k} x{n}" for k, n in counts.items() if n)
        entry_ids = tuple(i for s in steps if s.selected for i in s.entry_ids)
        whole = Change(description=f"fit under {target:,} B ({what})", files=dict(state.files),
                       bytes_saved=len(index.raw) - len(state.index.raw), entry_ids=entry_ids, kind="fit",
                       base={**state.base, INDEX_NAME: digest(index.raw)})
    after = (check_pointers(memory_dir, overrides=dict(whole.files), parsed_index=state.index).problem_count
             if whole else None)
    questions: list[FitQuestion] = []
    asked = [(e, m) for e, m in asked if state.index.has_entry(e.id)]
    if asked:
        n = len(asked)
        questions.append(FitQuestion(
            f"archive {'this entry' if n == 1 else f'these {n} entries'} that look{'s' if n == 1 else ''} finished?",
            tuple(e.id for e, _m in asked), _lines(index, state.index, [e.id for e, _m in asked]),
            tuple(m for _e, m in asked)))
    largest = sorted(state.index.entries, key=lambda e: (-e.nbytes, e.line))[:3]
    return FitPlan(target, len(index.raw), len(state.index.raw), tuple(steps), whole, tuple(left_out),
                   before_report.problem_count, before_report.problem_count if after is None else after,
                   tuple((e.line, e.nbytes) for e in largest), tuple(questions), protected_bytes(index))


# -- verification (for tests and the command's own report) ---------------------------------------------

_DESTINATION = re.compile(r"\]\([^)]*\)")


def _plain(text: str) -> str:
    """Whitespace-normalised text with link destinations cut (a moved link may be rebased)."""
    return " ".join(_DESTINATION.sub("]()", text).split())


def unkept_clauses(before: bytes, files_after: dict[str, bytes | None]) -> list[str]:
    """Clauses of MEMORY.md's removed or changed lines that no live memory file holds verbatim
    (link destinations aside: moving text rebases them; a lesson mark such as `` → `` parts two
    clauses, as a split does). Empty: nothing was lost."""
    old_lines = before.removeprefix(BOM).decode("utf-8", "replace").splitlines()
    new_index = (files_after.get(INDEX_NAME) or b"").removeprefix(BOM).decode("utf-8", "replace")
    kept = set(new_index.splitlines())
    live = "\n".join(_plain((data or b"").decode("utf-8", "replace")) for data in files_after.values())
    missing = []
    for line in old_lines:
        if line in kept or not line.strip():
            continue
        body = merge.LIST_MARKER.sub("", line.strip(), count=1)
        for clause in clauses(body):
            # A split keeps the lesson from its mark on ("story → fix"): each side is a clause of its own.
            for part in trim.LESSON_MARK.split(clause):
                if part.strip() and _plain(part.strip()) not in live:
                    missing.append(part.strip())
    return missing
