"""Fit: one plan of lever steps that brings MEMORY.md under the target, losing nothing.

Fit does on its own only what provably keeps the meaning; every judgment is a question to the
bearer, with its evidence (``FitPlan.questions``), never a step. The steps, in order: **tightens**
(``trim``'s mechanical rewrites, each kept only where every fact of the entry is kept and the line
keeps its shape), **merges of true duplicates** (every clause and sub-line of the entry merged away
is already in the kept entry, word for word, and no pointer is lost), then **folds**
(``curator.levers.fold``: a section or a run of entries moves verbatim into one detail file, one
line links it): each round the facet whose size is nearest to what must still go, until the target
is met and no further. An entry that states a standing rule (``curator.levers.standing``: NEVER,
금지, 必须, …) never folds under fit: its facet folds without it, and it stays where it stands.
Never the template's identity lines, the weak spots, or the template's header.

The questions: entries whose words look finished (``curator.levers.finished``: the word, and where
it stands) are asked about, never archived, for a status word may describe a topic, a ticket or a
technical state; and splits (which part of an entry is its lesson is the bearer's call) are asked
about for the longest entries, as many as would have reached the target, with what would stay and
what would move.

Every step is planned on the index as the steps before it leave it, by the levers themselves
(``trim``, ``merge``, ``fold.plan_fold``), so each keeps its own checks (a step that would add a
dangling pointer or an orphan is left out, with its reason; problems already there never stop a
step). The selected steps become ONE ``Change`` (kind ``fit``): the store applies it atomically and
one undo gives every file back. Steps are numbered; ``skip`` leaves some out and the rest is planned
again in the same order, so what is shown is what will be written.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

from curator.change import Change, digest
from curator.constants import INDEX_NAME
from curator.errors import CuratorError
from curator.index_model import LIST_MARKER, Entry, HotIndex, parse_index
from curator.levers import fold, merge, trim
from curator.levers.finished import finished_evidence
from curator.levers.fit_checks import well_formed
from curator.levers.fit_folds import FoldOption, fold_option, fold_order
from curator.levers.pointer_delta import added_problems
from curator.levers.similarity import words_of
from curator.levers.text import clauses, read_optional
from curator.pointers import check_pointers

TRIM_THRESHOLD = 200  # bytes: shorter entries are left as they are
MAX_MERGES = 500  # merge candidates weighed per plan
MAX_FOLDS = 200  # folds per plan (each saves bytes, so this only bounds a pathological index)
KINDS = ("trim", "merge", "fold")
TEXT_CHARS = 160  # an entry's line as a question quotes it, at most


@dataclass(frozen=True)
class FitStep:
    number: int  # 1-based, what --skip takes
    kind: str  # trim (tighten) | merge | fold
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
    evidence: tuple[str, ...]  # per entry: the words that mark it finished, or what a split keeps and moves
    where: tuple[str, ...] = ()  # per entry: where those words stand ('in brackets', 'a clause opens with it', …)
    texts: tuple[str, ...] = ()  # per entry: its first line as written (cut at TEXT_CHARS)
    kind: str = "archive"  # archive | split

    def said(self) -> list[str]:
        """One line of evidence per entry: where it is, the words, where they stand, the line itself."""
        out = []
        for n, (line, mark) in enumerate(zip(self.lines, self.evidence)):
            where = self.where[n] if n < len(self.where) else ""
            text = self.texts[n] if n < len(self.texts) else ""
            out.append(f"line {line}: {mark}" + (f" ({where})" if where else "") + (f" in «{text}»" if text else ""))
        return out


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


def finished_entries(index: HotIndex) -> list[tuple[Entry, str, str]]:
    """(entry, the words that look finished, where they stand) for every entry outside the identity
    lines and the weak spots, in file order: what fit asks the bearer about."""
    out: list[tuple[Entry, str, str]] = []
    for entry in index.entries:
        if fold.is_protected(entry.section):
            continue
        mark, where = finished_evidence(entry.text, entry.section)
        if mark:
            out.append((entry, mark, where))
    return out


def _quoted(entry: Entry) -> str:
    """The entry's first line as the bearer wrote it, cut at TEXT_CHARS."""
    line = entry.text.partition("\n")[0].strip()
    return line if len(line) <= TEXT_CHARS else line[: TEXT_CHARS - 1].rstrip() + "…"


def _split_evidence(entry: Entry, kept: str, detail: str) -> str:
    """What a split would keep and move, in the bearer's words (each cut at TEXT_CHARS)."""
    first = entry.text.partition("\n")[0]
    marker = LIST_MARKER.match(first)
    parts = trim.lesson_split(first[marker.end() if marker else 0:].rstrip())
    moved = parts[1] if parts else "its further lines"
    cut = TEXT_CHARS // 2

    def short(text: str) -> str:
        text = " ".join(text.split())
        return text if len(text) <= cut else text[: cut - 1].rstrip() + "…"

    lead = LIST_MARKER.match(kept)
    return f"keeps «{short(kept[lead.end() if lead else 0:])}», moves «{short(moved)}» into {detail}"


def plan_fit(memory_dir: str | Path, index: HotIndex, *, target: int = 17_000, skip: Iterable[int] = (),
             today: date | None = None) -> FitPlan:
    """The fit plan for the seat at ``memory_dir`` whose MEMORY.md is ``index``.

    Tightens and merges are each planned on the same index and written with one splice, checked
    against the pointer graph once (a batch that would add a pointer problem is planned again one
    step at a time, each step checked by its lever). A skipped step still counts as taken when the
    next steps are chosen, so the numbers stay those of the full plan; the plan then says if the
    target is missed. ``today`` is accepted for callers of old; fit never archives, so nothing is dated."""
    del today  # fit archives nothing: the bearer does, with the archive lever, on what the questions name
    memory_dir = Path(memory_dir)
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

    # 1. Tightens (every fact kept, the line's shape kept), the longest entries first; splits, which
    # need judgment, are asked about for as many of them as would have reached the target.
    edits = []
    tightened: dict[str, str] = {}  # entry id -> its tightened text (its id changes with it)
    splits: list[tuple[Entry, str]] = []
    split_would_save = 0
    details: set[str] = set()
    for entry in sorted((e for e in index.entries if e.nbytes >= TRIM_THRESHOLD and not fold.is_protected(e.section)),
                        key=lambda e: (-e.nbytes, e.line)):
        if projected <= target:
            break
        try:
            suggestion: trim.TrimSuggestion | None = trim.suggest(memory_dir, index, entry, "tighten")
        except CuratorError:
            suggestion = None  # nothing to tighten, or a fact would go
        saved_by_tighten = 0
        tightened_text = suggestion.new_line if suggestion is not None else ""
        if tightened_text and well_formed(entry.text, tightened_text):
            edit = trim.entry_edit(index, entry, tightened_text)
            saved_by_tighten = (edit[1] - edit[0]) - len(edit[2])
            if saved_by_tighten > 0:
                reason = f"{saved_by_tighten:,} B of filler and spacing go; every fact of the entry stays"
                if step("trim", [entry.id], [entry.line], saved_by_tighten, reason):
                    edits.append(edit)
                    tightened[entry.id] = tightened_text
        detail = trim._detail_target(memory_dir, entry)
        if projected - split_would_save <= target or detail is None or detail in details:
            continue
        try:
            kept, name, _files = trim.split_entry(memory_dir, index, entry)
        except CuratorError:
            continue
        would_save = len(entry.text.encode("utf-8")) - len(kept.encode("utf-8")) - saved_by_tighten
        if name == detail and would_save > 0:
            details.add(detail)
            splits.append((entry, _split_evidence(entry, kept, detail)))
            split_would_save += would_save
    if edits:
        files = {INDEX_NAME: index.splice(edits)}
        broken = breaks_pointers(files)
        if broken:  # a tighten never touches a link, but the pointer graph has the last word
            left_out.append("tightens left out: they would add " + ", ".join(broken))
        else:
            state.take(Change("fit tightens", files, base={INDEX_NAME: digest(index.raw)}))

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
            kept_targets = {link.target for link in merged.links}
            lost = sorted({link.target for g, _text in groups for e in g for link in e.pointers} - kept_targets)
            broken = lost or breaks_pointers({**state.files, **files}, merged)
            if broken:
                left_out.append("merges left out: they would lose " + ", ".join(broken))
            else:
                state.take(Change("fit merges", files, base={INDEX_NAME: digest(index.raw)}), merged)

    # 3. Folds: as little moved as reaches the target (``fold_order``): never a whole history for a little.
    stepped: set[tuple[str, str]] = set()
    for _round in range(MAX_FOLDS):
        if projected <= target:
            break
        current = state.index
        need = projected - target
        options = []
        for facet in fold.facets(current):
            if (facet.kind, facet.name) in stepped:
                continue
            option = fold_option(current, facet)
            if option is None:
                stepped.add((facet.kind, facet.name))
                left_out.append(f"fold {facet.name}: it holds standing rules, and without them too little is left")
                continue
            options.append(option)
        chosen_fold: tuple[FoldOption, Change] | None = None
        saving = {o.facet: o.saving(memory_dir, current, state.files) for o in options}
        for option in fold_order(options, saving, need):
            facet = option.facet
            stepped.add((facet.kind, facet.name))
            try:
                change = option.plan(memory_dir, current, state.files)
            except CuratorError as err:
                left_out.append(f"fold {facet.name}: {err.message}")
                continue
            if change.bytes_saved > 0:
                chosen_fold = option, change
                break
        if chosen_fold is None:
            break
        option, change = chosen_fold
        facet = option.facet
        (name,) = [n for n in change.names if n != INDEX_NAME]
        what = f"section '{facet.name}'" if facet.kind == "section" else f"the entries sharing {facet.name}"
        reason = f"{what}: {len(option.ids)} entries move verbatim into {name}; one line links it"
        if option.rules:
            stay = _lines(index, current, [e.id for e, _w in option.rules])
            reason += ("; standing rules stay in the index (" +
                       "; ".join(f"line {line}: {w}" for line, (_e, w) in zip(stay, option.rules)) + ")")
        lines = _lines(index, current, option.ids)
        if step("fold", option.ids, lines, change.bytes_saved, reason, [name]):
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
    present = {_flat(e.text) for e in state.index.entries}

    def still_hot(entry: Entry) -> bool:  # not folded or merged away by a step (a tightened one is)
        return _flat(tightened.get(entry.id, entry.text)) in present

    asked = [(e, m, w) for e, m, w in finished_entries(index) if still_hot(e)]
    if asked:
        n = len(asked)
        questions.append(FitQuestion(
            f"archive {'this entry' if n == 1 else f'these {n} entries'} that look{'s' if n == 1 else ''} finished? "
            "(a status word may describe a topic, a ticket or a state: yours to judge; "
            "`seat-curator archive` takes the ids)",
            tuple(e.id for e, _m, _w in asked), tuple(e.line for e, _m, _w in asked),
            tuple(m for _e, m, _w in asked), tuple(w for _e, _m, w in asked), tuple(_quoted(e) for e, _m, _w in asked)))
    split_asked = sorted(((e, said) for e, said in splits if still_hot(e)), key=lambda t: t[0].line)
    if split_asked:
        n = len(split_asked)
        questions.append(FitQuestion(
            f"split {'this entry' if n == 1 else f'these {n} entries'}, keeping the lesson in the index and moving "
            "the story into the file it links? (which part is the lesson is yours to judge; "
            "`seat-curator trim` splits one)",
            tuple(e.id for e, _s in split_asked), tuple(e.line for e, _s in split_asked),
            tuple(said for _e, said in split_asked), (), tuple(_quoted(e) for e, _s in split_asked), kind="split"))
    largest = sorted(state.index.entries, key=lambda e: (-e.nbytes, e.line))[:3]
    return FitPlan(target, len(index.raw), len(state.index.raw), tuple(steps), whole, tuple(left_out),
                   before_report.problem_count, before_report.problem_count if after is None else after,
                   tuple((e.line, e.nbytes) for e in largest), tuple(questions), protected_bytes(index))
