"""Fit: tightens, then true-duplicate merges, then folds, as one undoable change losing nothing; what
needs judgment (entries that look finished, splits) is a question with its evidence, never a step."""

from __future__ import annotations

import json
import shutil
from datetime import date
from pathlib import Path

import pytest

from curator.cli import main
from curator.index_model import parse_index
from curator.levers.fit import plan_fit
from curator.levers.fit_checks import unkept_clauses
from curator.store import SeatStore
from tests.support.paths import CORPUS

DAY = date(2026, 12, 1)
LONG_DETAIL = ("the staging deploy needs the VPN up, the token from the vault, and the `make ship` target run "
               "from a clean tree; a dirty tree ships the wrong assets, and the canary then fails ten minutes "
               "later with a checksum error that points nowhere near the cause")
INDEX = (
    "# Seat memory index\n"
    "\n"
    "> Hot index: keep it under the target.\n"
    "\n"
    "## Identity & seat\n"
    "- [Identity](identity.md) — who I am, 2020-01-01 is when the seat was born.\n"
    "\n"
    "## Craft hooks\n"
    f"- [Deploy](deploy.md) — deploy only from a clean tree in order to ship what was tested; {LONG_DETAIL}.\n"
    "- Run the linter before pushing; it catches the import cycles.\n"
    "- Run the linter before pushing\n"
    "\n"
    "## Lane anchors (highest drift — re-verify live)\n"
    "- 2026-03-02: migrated the queue to the new broker, ticket #4410.\n"
    "- 2026-01-15: rotated the signing keys after the leak drill, ticket #4001 — done.\n"
    "- 2026-05-20: the nightly job moved to 02:00 UTC.\n"
    "- An undated note about the cache warmer that nobody dates.\n"
    "\n"
    "Archived entries: [ARCHIVE.md](ARCHIVE.md).\n"
)


def _seat(tmp_path: Path, index: str = INDEX) -> tuple[Path, SeatStore]:
    memory = tmp_path / "memory"
    memory.mkdir()
    (memory / "MEMORY.md").write_text(index, encoding="utf-8")
    (memory / "identity.md").write_text("# Identity — unwritten\n", encoding="utf-8")
    (memory / "deploy.md").write_text("# Deploy\n\nHow we ship.\n", encoding="utf-8")
    return memory, SeatStore.open(memory, state_dir=tmp_path / "state")


def _files(memory: Path) -> dict[str, bytes]:
    return {str(p.relative_to(memory)): p.read_bytes() for p in sorted(memory.rglob("*")) if p.is_file()}


def test_fit_tightens_and_merges_and_asks_about_the_finished_entry_and_the_split(tmp_path: Path) -> None:
    memory, store = _seat(tmp_path)
    index = parse_index(store.read("MEMORY.md"))
    size = len(index.raw)
    plan = plan_fit(memory, index, target=size - 30, today=DAY)
    assert [s.kind for s in plan.steps] == ["trim", "merge"]  # never an archive, never a split
    assert [s.number for s in plan.steps] == [1, 2]
    trim_step, merge_step = plan.steps
    assert trim_step.files == () and "every fact of the entry stays" in trim_step.reason
    assert merge_step.lines == (10, 11)  # the longer wording stays, the repeat goes
    assert plan.reached and plan.after <= plan.target and plan.left == ""
    assert plan.change is not None and plan.change.kind == "fit"
    assert set(plan.change.files) == {"MEMORY.md"}  # nothing moved to deploy.md, nothing to ARCHIVE.md
    new_index = plan.change.files["MEMORY.md"].decode()
    assert "deploy only from a clean tree to ship what was tested" in new_index  # "in order to" tightened
    assert "ticket #4001 — done." in new_index  # the finished-looking entry stays: it is asked about
    # Only the entry the bearer marked done is asked about, not the older-dated or undated ones beside it,
    # with the word, where it stands and the line; the split of the long entry is asked, with what moves.
    archive_q, split_q = plan.questions
    assert (archive_q.kind, archive_q.lines, archive_q.evidence) == ("archive", (15,), ("done",))
    assert archive_q.where == ("a clause opens with it",) and "ticket #4001" in archive_q.texts[0]
    assert split_q.kind == "split" and split_q.lines == (9,)
    assert "into deploy.md" in split_q.evidence[0] and "keeps «[Deploy](deploy.md)" in split_q.evidence[0]
    assert split_q.said()[0].startswith("line 9: keeps «")
    assert "- [Identity](identity.md) — who I am, 2020-01-01" in new_index  # identity lines never move
    assert "> Hot index: keep it under the target." in new_index
    assert plan.problems_after <= plan.problems_before
    assert unkept_clauses(index.raw, dict(plan.change.files)) == []


def test_fit_applies_as_one_change_and_one_undo_gives_every_byte_back(tmp_path: Path) -> None:
    memory, store = _seat(tmp_path)
    before = _files(memory)
    index = parse_index(store.read("MEMORY.md"))
    plan = plan_fit(memory, index, target=len(index.raw) - 300, today=DAY)
    assert plan.change is not None
    store.apply(plan.change)
    assert _files(memory) != before
    assert len(store.history()) == 1
    store.undo()
    assert _files(memory) == before


def test_skipping_a_step_plans_the_rest_again(tmp_path: Path) -> None:
    memory, store = _seat(tmp_path)
    index = parse_index(store.read("MEMORY.md"))
    full = plan_fit(memory, index, target=len(index.raw) - 300, today=DAY)
    without_trim = plan_fit(memory, index, target=len(index.raw) - 300, skip={1}, today=DAY)
    assert without_trim.steps[0].kind == "trim" and not without_trim.steps[0].selected
    written = b"".join(data or b"" for data in without_trim.change.files.values())
    assert b"in order to ship" in written and b"clean tree to ship" not in written  # the skipped tighten is not written
    assert b"clean tree to ship" in b"".join(data or b"" for data in full.change.files.values())
    assert [s.kind for s in without_trim.steps] == [s.kind for s in full.steps]  # the rest planned again


def test_fit_says_plainly_when_the_bearer_must_judge(tmp_path: Path) -> None:
    # Nothing but weak spots: no lever touches them, so the plan says what stands in the way.
    index = "# Seat memory index\n\n## Weak-spots\n" + "".join(
        f"- Weak spot number {n}: {'kept the cache cold and the keys loose ' * 3}→ counter: warm it.\n" for n in range(30))
    memory, store = _seat(tmp_path, index)
    plan = plan_fit(memory, parse_index(store.read("MEMORY.md")), target=1_000, today=DAY)
    assert not plan.reached and not plan.steps
    assert f"{plan.after - 1_000:,} B over the target" in plan.left
    assert "weak spots" in plan.left and "shorten them by hand" in plan.left
    assert "after every step that loses nothing" not in plan.left


def test_fit_command_previews_applies_and_undoes(tmp_path: Path, capsys) -> None:
    memory, _store = _seat(tmp_path)
    before = _files(memory)
    target = len(INDEX.encode()) - 300
    state = ["--state-dir", str(tmp_path / "state")]
    assert main(["fit", str(memory), "--target", str(target), *state]) == 0
    out = capsys.readouterr().out
    assert "[x]  1  trim" in out and "target reached" in out
    assert _files(memory) == before  # a preview writes nothing
    assert main(["fit", str(memory), "--target", str(target), "--skip", "2", "--apply", "--json", *state]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [s["selected"] for s in data["steps"]][:2] == [True, False] and data["applied"]["kind"] == "fit"
    assert main(["undo", str(memory), *state]) == 0
    capsys.readouterr()
    assert _files(memory) == before


OVER_TARGET = [
    "jasonwilk__baseball-crawl/.claude/agent-memory/product-manager/MEMORY.md",
    "AdielMag__ClashUp/.claude/memory/MEMORY.md",
    "0xsyncroot__moonx-farm/memory-bank/activeContext.md",
    "0xsyncroot__moonx-farm/memory-bank/progress.md",
]


@pytest.mark.slow
@pytest.mark.skipif(not CORPUS.is_dir(), reason="corpus not available")
@pytest.mark.parametrize("relative", OVER_TARGET)
def test_fit_on_the_corpus_over_target_indexes(relative: str, tmp_path: Path) -> None:
    source = CORPUS / relative
    memory = tmp_path / "memory"
    shutil.copytree(source.parent, memory)
    for path in memory.rglob("*"):
        path.chmod(0o700 if path.is_dir() else 0o600)
    (memory / "MEMORY.md").write_bytes(source.read_bytes())
    before = _files(memory)
    store = SeatStore.open(memory, state_dir=tmp_path / "state")
    raw = store.read("MEMORY.md")
    plan = plan_fit(memory, parse_index(raw), today=DAY)
    assert plan.before == len(raw) > plan.target
    assert plan.steps and plan.change is not None  # every one of them has something lossless to do
    assert plan.problems_after <= plan.problems_before
    assert plan.reached or plan.left
    store.apply(plan.change)
    after = {name: (memory / name).read_bytes() if (memory / name).exists() else None
             for name in set(before) | set(plan.change.files)}
    assert len(after["MEMORY.md"]) == plan.after
    assert unkept_clauses(raw, after) == []
    store.undo()
    assert _files(memory) == before


def test_dates_alone_never_archive_an_entry(tmp_path: Path) -> None:
    # What the old rule archived first, oldest date first: standing rules dated when they were learned,
    # open plans, open questions, a freeze still to come. None of them says it is finished.
    filler = "x" * 150
    kept = ["- Present UI design before coding, every time — 2024-05-19",
            "- Billing plan approved 2024-06-01, code not started",
            "- Open question (2024-02-02): which region? waiting; do not implement until answered",
            "- Freeze from 2026-12-15 until the audit ends",
            "- Auth model (2024-01-03): JWT in cookies, refresh via /token"]
    text = ("# Active context\n\n### Sprint (16/01/2025)\n" + "".join(f"{line} {filler}\n" for line in kept)
            + "### Decisions\n" + "".join(f"- decision {n} {filler}\n" for n in range(30)))
    memory = tmp_path / "memory"
    memory.mkdir()
    (memory / "MEMORY.md").write_text(text, encoding="utf-8")
    index = parse_index(text.encode())
    plan = plan_fit(memory, index, target=len(text.encode()) - 3000, today=date(2026, 12, 1))
    assert not [s for s in plan.steps if s.kind == "archive"] and not plan.questions
    assert plan.reached and [s.kind for s in plan.steps] == ["fold"]
    assert "ARCHIVE.md" not in plan.change.files
    assert unkept_clauses(index.raw, dict(plan.change.files)) == []


def test_weak_spots_never_move_even_when_dated_or_marked(tmp_path: Path) -> None:
    text = ("# Index\n\n## Weak-spots\n" + "".join(f"- 2024-01-{n + 1:02} slipped {'y' * 200} — done\n" for n in range(20))
            + "\n## Hard rules\n- keep the lane green\n")
    memory = tmp_path / "memory"
    memory.mkdir()
    (memory / "MEMORY.md").write_text(text, encoding="utf-8")
    plan = plan_fit(memory, parse_index(text.encode()), target=len(text.encode()) - 4000, today=date(2026, 12, 1))
    assert plan.change is None and not plan.reached
    assert not plan.questions  # not even asked: the weak spots are the bearer's, not the tool's


def test_line_ranges_say_runs_in_the_order_given() -> None:
    from curator.levers.fit import line_ranges

    assert line_ranges([146, 147, 148, 150, 3, 72, 73]) == "146-148,150,3,72-73"
    assert line_ranges([5]) == "5"
