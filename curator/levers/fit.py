"""Fit: one plan of lever steps that brings MEMORY.md under the target, losing nothing.

The order is the layer's own: first **trims** (the lesson line stays, the detail moves verbatim into
the file the entry already links to), then **merges of true duplicates** (every clause and sub-line
of the entry merged away is already in the kept entry, word for word, and no pointer is lost), then
**archiving** (entries that carry a date, or sit under a dated heading, oldest first, until the target
is met; never the template's identity lines; 16/01/2025 is read as the file writes its dates). Anything else (rewording, archiving undated entries, deciding which paraphrase
stays) needs the bearer's judgment: the plan then says it cannot reach the target alone and what is
left.

Every step is planned on the index as the steps before it leave it, by the levers themselves
(``trim.plan_trim``, ``merge.plan_merge``, ``archive.plan_archive``), so each keeps its own checks
(a step that would leave a new dangling pointer or an orphan is left out, with its reason). The
selected steps become ONE ``Change`` (kind ``fit``): the store applies it atomically and one undo
gives every file back. Steps are numbered; ``skip`` leaves some out and the rest is planned again
in the same order, so what is shown is what will be written.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date
from functools import lru_cache
from pathlib import Path

from curator.change import Change, digest
from curator.constants import INDEX_NAME
from curator.errors import CuratorError
from curator.index_model import BOM, Entry, HotIndex, parse_index
from curator.levers import archive, merge, trim
from curator.levers.placement import removal_cuts
from curator.levers.similarity import words_of
from curator.levers.text import clauses, read_optional
from curator.pointers import check_pointers

DATE = re.compile(r"(?<!\d)(20\d\d)-(0[1-9]|1[0-2])-([0-2]\d|3[01])(?!\d)")
_YEAR_MONTH = re.compile(r"20\d\d-[01]\d-")
TRIM_THRESHOLD = 200  # bytes: shorter entries are left as they are
MAX_MERGES = 500  # merge candidates weighed per plan


@dataclass(frozen=True)
class FitStep:
    number: int  # 1-based, what --skip takes
    kind: str  # trim | merge | archive
    entry_ids: tuple[str, ...]
    lines: tuple[int, ...]  # where the entries start in the index the step was planned on
    bytes_saved: int  # MEMORY.md bytes this step saves
    reason: str
    files: tuple[str, ...] = ()  # files the step writes besides MEMORY.md
    selected: bool = True


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

    @property
    def reached(self) -> bool:
        return self.after <= self.target

    @property
    def counts(self) -> dict[str, int]:
        found = {"trim": 0, "merge": 0, "archive": 0}
        for step in self.steps:
            if step.selected:
                found[step.kind] += 1
        return found

    @property
    def left(self) -> str:
        """What stands between the plan and the target, said plainly ('' when it is reached)."""
        if self.reached:
            return ""
        longest = ", ".join(f"line {line} ({size:,} B)" for line, size in self.largest_left)
        return (f"{self.after - self.target:,} B over the target after every step that loses nothing; the rest "
                "needs the bearer's judgment: reword or tighten long entries, merge paraphrases by hand, or "
                "archive entries that carry no date (`seat-curator candidates`, `trim`, `archive`)"
                + (f"; the longest entries left: {longest}" if longest else "") + ".")


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


SLASH_DATE = re.compile(r"(?<![\d/])([0-3]?\d)/([0-3]?\d)/(20\d\d)(?![\d/])")


def slash_order(index: HotIndex) -> str:
    """How the file writes dates with slashes: "dmy" (16/01/2025), "mdy" (01/16/2025), or '' when it
    writes none, or both ways, or only dates either way could read (03/04/2025): those are no date."""
    if b"/20" not in index.raw:
        return ""
    text = index.raw.decode("utf-8", "replace")
    firsts, seconds = set(), set()
    for day_or_month, month_or_day, _year in SLASH_DATE.findall(text):
        firsts.add(int(day_or_month))
        seconds.add(int(month_or_day))
    dmy, mdy = max(firsts, default=0) > 12, max(seconds, default=0) > 12
    return "dmy" if dmy and not mdy else "mdy" if mdy and not dmy else ""


def dates_in(text: str, order: str = "") -> list[str]:
    """The dates ``text`` carries, as YYYY-MM-DD: ISO ones, and slashed ones read in ``order``."""
    found = [m.group(0) for m in DATE.finditer(text)] if _YEAR_MONTH.search(text) else []
    if order and "/20" in text:
        for first, second, year in SLASH_DATE.findall(text):
            day, month = (int(first), int(second)) if order == "dmy" else (int(second), int(first))
            if 1 <= month <= 12 and 1 <= day <= 31:
                found.append(f"{year}-{month:02}-{day:02}")
    return found


def section_dates(index: HotIndex, order: str = "") -> dict[int, str]:
    """heading line -> the date of that heading, or of the nearest enclosing heading that carries one
    (``### Sprint (15/01/2025)`` dates its ``####`` subsections); sections without one are left out."""
    dated: dict[int, str] = {}
    enclosing: list[tuple[int, str]] = []  # (level, date) of the headings the current one sits in
    for section in index.sections:
        while enclosing and enclosing[-1][0] >= section.level:
            enclosing.pop()
        found = dates_in(section.heading, order) if section.level else []
        day = min(found) if found else (enclosing[-1][1] if enclosing else "")
        if section.level:
            enclosing.append((section.level, day))
        if day:
            dated[section.line] = day
    return dated


def heading_dates(index: HotIndex, order: str = "") -> dict[str, str]:
    """entry id -> the date of the dated heading it sits under (``section_dates``)."""
    dated = section_dates(index, order)
    return {entry_id: dated[section.line] for section in index.sections if section.line in dated
            for entry_id in section.entry_ids}


def entry_date(entry: Entry, order: str = "", headings: dict[str, str] | None = None) -> str:
    """The oldest date the entry carries (YYYY-MM-DD), else its heading's (``heading_dates``: a dated
    session or sprint heading dates what is under it); '' if neither carries one."""
    found = dates_in(entry.text, order)
    return min(found) if found else (headings or {}).get(entry.id, "")


def line_ranges(lines) -> str:
    """1,2,3,5 -> '1-3,5' in the order given (an archive of 200 entries is a few runs, not 200 numbers)."""
    runs: list[list[int]] = []
    for line in lines:
        if runs and line == runs[-1][1] + 1:
            runs[-1][1] = line
        else:
            runs.append([line, line])
    return ",".join(str(a) if a == b else f"{a}-{b}" for a, b in runs)


def _lines(original: HotIndex, current: HotIndex, ids) -> tuple[int, ...]:
    """Where the entries sit in the index as it is now on disk (an entry a step made: where it is)."""
    return tuple((original if original.has_entry(i) else current).entry(i).line for i in ids)


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


def plan_fit(memory_dir: str | Path, index: HotIndex, *, target: int = 17_000, skip=(),
             today: date | None = None) -> FitPlan:
    """The fit plan for the seat at ``memory_dir`` whose MEMORY.md is ``index``.

    Steps of one kind are planned on the same index and written with one splice, checked against the
    pointer graph once (a batch that would break a pointer is planned again one step at a time, each
    step checked by its lever). A skipped step still counts as taken when the next steps are chosen,
    so the numbers stay those of the full plan; the plan then says if the target is missed."""
    memory_dir = Path(memory_dir)
    today = today or date.today()
    skip = set(skip)
    state = _State(memory_dir, index)
    steps: list[FitStep] = []
    left_out: list[str] = []
    projected = len(index.raw)  # MEMORY.md's size once every step so far (skipped ones too) is taken

    def step(kind: str, ids, lines, saved: int, reason: str, files=()) -> bool:
        nonlocal projected
        number = len(steps) + 1
        steps.append(FitStep(number, kind, tuple(ids), tuple(lines), saved, reason, tuple(files), number not in skip))
        projected -= saved
        return number not in skip

    before_report = check_pointers(memory_dir, parsed_index=index)

    def breaks_pointers(files: dict[str, bytes | None], parsed: HotIndex | None = None) -> list[str]:
        after = check_pointers(memory_dir, overrides=files, parsed_index=parsed)
        orphans, dangling = merge.new_problems(before_report, after)
        return orphans + dangling

    # 1. Trims: the longest entries first, each into the detail file it already links to (once per file).
    edits, details, bases = [], {}, {}
    for entry in sorted((e for e in index.entries if e.nbytes >= TRIM_THRESHOLD and e.section != merge.IDENTITY_SECTION),
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
        reason = f"{saved:,} B of detail move verbatim into {detail}; the lesson line stays"
        if step("trim", [entry.id], [entry.line], saved, reason, [detail]):
            edits.append(edit)
            details[detail] = files[detail]
        bases[detail] = digest(read_optional(memory_dir, detail))
    if edits:
        files = {INDEX_NAME: index.splice(edits), **details}
        broken = breaks_pointers(files)
        if broken:  # one of them moved a pointer it should not have: let the lever judge each alone
            left_out.append("trims checked one at a time: together they would break " + ", ".join(broken))
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
        groups, taken = [], set()
        for candidate in merge.find_candidates(current, limit=MAX_MERGES):
            if projected <= target:
                break
            if taken & set(candidate.entry_ids):
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

    # 3. Archive: dated entries, oldest first, as few as reach the target; one step.
    if projected > target:
        current = state.index
        order = slash_order(current)
        headings = heading_dates(current, order)
        days = ((entry_date(e, order, headings), e.line, e) for e in current.entries
                if e.section != merge.IDENTITY_SECTION)
        dated = sorted((t for t in days if t[0]), key=lambda t: (t[0], t[1]))
        chosen, going = [], 0
        # What archiving each takes from the index: its lines, and a paragraph's blank line with it.
        sizes = {cut.entry.id: cut.end - cut.start for cut in removal_cuts(current, [t[2] for t in dated])}
        for _day, _line, entry in dated:
            if projected - going <= target:
                break
            chosen.append(entry)
            going += sizes[entry.id]
        if chosen:
            ids = [e.id for e in chosen]
            try:
                # A dated heading (a sprint, a session) left empty goes with its entries; restore
                # brings it back. An undated one is the index's own skeleton: it stays.
                dated = section_dates(current, order)
                logs = {s.heading for s in archive.emptied_sections(current, ids) if s.line in dated}
                change = archive.plan_archive(memory_dir, current, ids, today=today, drop_empty_sections=logs)
            except CuratorError as err:
                left_out.append(f"archive: {err.message}")
            else:
                if change.warnings:
                    left_out.append("archive: " + "; ".join(change.warnings))
                else:
                    span = f"{entry_date(chosen[0], order, headings)} to {entry_date(chosen[-1], order, headings)}"
                    reason = f"{len(chosen)} dated entr{'y' if len(chosen) == 1 else 'ies'}, oldest first ({span})"
                    if step("archive", ids, _lines(index, current, ids), change.bytes_saved, reason, ["ARCHIVE.md"]):
                        state.take(change)

    change = None
    if state.files:
        counts = {k: sum(1 for s in steps if s.selected and s.kind == k) for k in ("trim", "merge", "archive")}
        what = ", ".join(f"{k} x{n}" for k, n in counts.items() if n)
        entry_ids = tuple(i for s in steps if s.selected for i in s.entry_ids)
        change = Change(description=f"fit under {target:,} B ({what})", files=dict(state.files),
                        bytes_saved=len(index.raw) - len(state.index.raw), entry_ids=entry_ids, kind="fit",
                        base={**state.base, INDEX_NAME: digest(index.raw)})
    after = (check_pointers(memory_dir, overrides=dict(change.files), parsed_index=state.index).problem_count
             if change else None)
    largest = sorted(state.index.entries, key=lambda e: (-e.nbytes, e.line))[:3]
    return FitPlan(target, len(index.raw), len(state.index.raw), tuple(steps), change, tuple(left_out),
                   before_report.problem_count, before_report.problem_count if after is None else after,
                   tuple((e.line, e.nbytes) for e in largest))


# -- verification (for tests and the command's own report) ---------------------------------------------

_DESTINATION = re.compile(r"\]\([^)]*\)")


def _plain(text: str) -> str:
    """Whitespace-normalised text with link destinations cut (a moved link may be rebased)."""
    return " ".join(_DESTINATION.sub("]()", text).split())


def unkept_clauses(before: bytes, files_after: dict[str, bytes | None]) -> list[str]:
    """Clauses of MEMORY.md's removed or changed lines that no live memory file holds verbatim
    (link destinations aside: moving text rebases them). Empty: nothing was lost."""
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
            if _plain(clause) not in live:
                missing.append(clause)
    return missing
