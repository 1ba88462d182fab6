"""Merge candidates: how right they are, on the shared labels and on held-out labels, and what the
worst inputs cost.

Quality rows, side by side: ``find_candidates`` (no limit) on every index of
``/work/shared/corpus/merge-labels.json`` (the development set: heuristics were shaped on it, so its
figures predict little) and of ``bench/heldout/merge-labels.json`` (five public indexes this project
never saw, labelled by hand before any run and never tuned on; see ``bench/heldout/README.md``). Both
label files say which pairs and groups a careful owner would merge (their ``definition``). A candidate
is right when all its entries sit in one labelled group; a labelled group is found when a right
candidate lies inside it. precision = right / shown, recall = groups found / groups labelled. A
labelled group with fewer than two entry first lines (text the index model does not count as an
entry) cannot be found: the row says how many labels that leaves out. ``ratio`` carries precision
(these rows time nothing worth a goal; measured is the time of the whole run, baseline 0). The
held-out row lists every wrong candidate (index, lines, evidence kind). The ceiling row says how far
the weighted word overlap alone gets on the shared labels at precision >= 0.8 (ratio = that recall).
Run: ``.venv/bin/python -m bench bench_candidates`` (``-m bench candidates_quality`` for the quality
rows alone).

Cost rows: adversarial indexes up to the 24.6 KB read limit (two long repetitive entries; two
entries of 300 near-identical clauses; ~1,700 two-word near-duplicates; ~1,300 identical lines).
measured: ``find_candidates`` on the parsed index, its caches cleared first (so a round pays
for every word); baseline: one markdown-it parse of the same text, timed in the same rounds. Goal:
at most 10x the parse. The same inputs again for ``plan_fit`` (target 17,000 B; the seat is a
temporary directory holding only that MEMORY.md, so the pointer graph is the file's own).
"""

from __future__ import annotations

import json
import random
import tempfile
import time
from datetime import date
from pathlib import Path

from curator import caches, markdown
from curator.index_model import parse_index
from curator.levers import candidates, merge, similarity
from curator.levers.fit import plan_fit

CORPUS = Path("/work/shared/corpus")
LABELS = CORPUS / "merge-labels.json"
HELDOUT = Path(__file__).resolve().parent / "heldout"
HELDOUT_LABELS = HELDOUT / "merge-labels.json"
FRESH = Path(__file__).resolve().parent / "heldout_fresh"
FRESH_LABELS = FRESH / "merge-labels.json"
READ_LIMIT = 24_600


def _cut(raw: bytes, limit: int = READ_LIMIT) -> bytes:
    return raw if len(raw) <= limit else raw[: raw.rfind(b"\n", 0, limit) + 1]


def long_repetitive() -> bytes:
    unit = "the cache key must include the lockfile hash; "
    half = (READ_LIMIT - 100) // 2
    first = "- " + unit * (half // len(unit))
    second = "- " + ("also " + unit) * ((half - 10) // (len(unit) + 5))
    return ("# Index\n" + first.rstrip() + "\n" + second.rstrip() + "\n").encode()


def many_clauses() -> bytes:
    rng = random.Random(3)
    parts = [f"step {rng.randrange(50)} keeps the {rng.choice(['key', 'hash', 'lock'])} stable" for _ in range(600)]
    return _cut(("# Index\n- " + "; ".join(parts[:300]) + "\n- " + "; ".join(parts[300:]) + "\n").encode())


def near_duplicates() -> bytes:
    rng = random.Random(7)
    words = ["fix", "cache", "key", "lock", "hash", "run", "lane"]
    lines = [f"- {' '.join(rng.sample(words, 2))} {n % 97}" for n in range(2000)]
    return _cut(("# Index\n" + "\n".join(lines) + "\n").encode())


def identical() -> bytes:
    return _cut(("# Index\n" + "- same lesson here\n" * 2000).encode())


ADVERSARIAL = {"long repetitive entries": long_repetitive, "300 near-identical clauses x2": many_clauses,
               "2,000 near-duplicates": near_duplicates, "2,000 identical lines": identical}


def _fresh(work):
    def run():
        caches.clear_all()
        return work()
    return run


def timed(rounds: int, *works) -> list[float]:
    """Fastest wall time of each work; every round runs each in turn (load hits both alike)."""
    times = [[] for _ in works]
    for _ in range(rounds):
        for n, work in enumerate(works):
            start = time.perf_counter()
            work()
            times[n].append(time.perf_counter() - start)
    return [min(t) for t in times]


def cost_row(name: str, make, work=lambda index: merge.find_candidates(index)) -> dict:
    """``work(parsed index)`` on an adversarial index vs one markdown-it parse of its text."""
    raw = make()
    text, index = raw.decode(), parse_index(raw)
    measured, baseline = timed(7, _fresh(lambda: work(index)), lambda: markdown.parse(text))
    return {"name": name, "measured_s": measured, "baseline_s": baseline, "ratio": measured / baseline,
            "goal": "<=10x", "note": f"{len(raw):,} B, {len(index.entries):,} entries; vs one markdown-it parse"}


def _cost_rows():
    def row(label, make):
        def run() -> dict:
            return cost_row(f"merge candidates, adversarial: {label}", make)
        run.__name__ = "candidates_cost_" + "".join(c if c.isalnum() else "_" for c in label)
        return run
    return [row(label, make) for label, make in ADVERSARIAL.items()]


# -- quality -------------------------------------------------------------------------------------

def evaluate(labels: Path = LABELS, root: Path = CORPUS) -> tuple[list[dict], float]:
    data = json.loads(labels.read_text("utf-8"))
    start = time.perf_counter()
    rows = []
    for item in data["indexes"]:
        index = parse_index((root / item["path"]).read_bytes())
        groups = [frozenset(c["lines"]) for c in item["candidates"]]
        lines = {entry.line for entry in index.entries}
        unreachable = sum(1 for g in groups if len(g & lines) < 2)
        right = shown = 0
        found: set[frozenset] = set()
        wrong: list = []
        for candidate in merge.find_candidates(index, limit=10_000):
            shown += 1
            members = frozenset(index.entry(i).line for i in candidate.entry_ids)
            inside = [g for g in groups if members <= g]
            right += bool(inside)
            found.update(inside)
            if not inside:
                wrong.append((item["path"], sorted(members), candidate.kind))
        rows.append({"path": item["path"], "shown": shown, "right": right, "found": len(found),
                     "labelled": len(groups), "unreachable": unreachable, "wrong": wrong, "missed":
                     [sorted(g) for g in groups if g not in found]})
    return rows, time.perf_counter() - start


def _pr(right: int, shown: int, found: int, labelled: int) -> tuple[float, float]:
    return (right / shown if shown else 1.0), (found / labelled if labelled else 1.0)


def quality_row(name: str, labels: Path, root: Path, list_wrong: bool) -> dict:
    if not labels.is_file():
        return {"name": name, "measured_s": 0.0, "baseline_s": 0.0,
                "ratio": 0.0, "goal": "p>=.8", "note": "skipped: labels not found"}
    rows, elapsed = evaluate(labels, root)
    right, shown = sum(r["right"] for r in rows), sum(r["shown"] for r in rows)
    found, labelled = sum(r["found"] for r in rows), sum(r["labelled"] for r in rows)
    unreachable = sum(r["unreachable"] for r in rows)
    precision, recall = _pr(right, shown, found, labelled)
    per = "; ".join(f"{r['path'].split('/')[0].split('__')[1]}/{r['path'].rsplit('/', 2)[-2]} "
                    f"p {r['right']}/{r['shown']} r {r['found']}/{r['labelled']}" for r in rows if r["labelled"] or r["shown"])
    note = (f"precision {precision:.2f} ({right}/{shown}), recall {recall:.2f} ({found}/{labelled}; {unreachable} "
            f"labelled groups hold lines that are not entries) | {per}")
    if list_wrong:
        wrong = [f"{path.split('__')[1].split('/')[0]} lines {'+'.join(map(str, lines))} ({kind})"
                 for r in rows for path, lines, kind in r["wrong"]]
        note += " | wrong: " + ("; ".join(wrong) or "none")
    return {"name": name, "measured_s": elapsed, "baseline_s": 0.0, "ratio": precision, "goal": "p>=.8", "note": note}


def candidates_quality_overall() -> dict:
    return quality_row("merge candidates vs shared labels (dev set; ratio = precision)", LABELS, CORPUS, False)


def candidates_quality_heldout() -> dict:
    return quality_row("merge candidates vs held-out labels (ratio = precision)", HELDOUT_LABELS, HELDOUT, True)


def candidates_quality_fresh() -> dict:
    return quality_row("merge candidates vs fresh held-out labels, no rule shaped on them (ratio = precision)",
                       FRESH_LABELS, FRESH, True)


def wording_ceiling() -> dict:
    """How far the wording alone can go: every pair of entries of every labelled index ranked by the
    weighted word overlap (``Weights.score``, max of dice and overlap); the best recall any threshold
    reaches while precision stays >= 0.8 (same definitions as the overall row). Not a goal: it says
    what a word-overlap signal can give on these labels, whatever the merge costing on top."""
    name = "merge candidates: wording-only ceiling at precision >= .8"
    if not LABELS.is_file():
        return {"name": name, "measured_s": 0.0, "baseline_s": 0.0, "ratio": 0.0, "goal": "info",
                "note": "skipped: labels not found"}
    start = time.perf_counter()
    data = json.loads(LABELS.read_text("utf-8"))
    scored, labelled = [], 0
    for n, item in enumerate(data["indexes"]):
        index = parse_index((CORPUS / item["path"]).read_bytes())
        entries = [e for e in index.entries if e.section != merge.IDENTITY_SECTION]
        groups = [frozenset(c["lines"]) for c in item["candidates"]]
        labelled += len(groups)
        words = similarity.Weights([candidates.prose_words(e) for e in entries])
        for (i, j) in words.pairs():
            score = words.score(i, j)
            pair = {entries[i].line, entries[j].line}
            inside = [(n, g) for g in groups if pair <= g]
            scored.append((max(score.dice, score.overlap), inside))
    scored.sort(key=lambda s: -s[0])
    best, right, found, at = (0, 0, 0.0), 0, set(), 0.0
    for shown, (value, inside) in enumerate(scored, 1):
        right += bool(inside)
        found.update(inside)
        if right / shown >= 0.8 and len(found) > best[0]:
            best, at = (len(found), shown, right), value
    note = (f"best recall {best[0] / labelled:.2f} ({best[0]}/{labelled}) at a threshold of {at:.2f}, "
            f"precision {best[2]}/{best[1]}; {len(scored):,} pairs sharing a rare word")
    return {"name": name, "measured_s": time.perf_counter() - start, "baseline_s": 0.0,
            "ratio": best[0] / labelled if labelled else 0.0, "goal": "info", "note": note}


def _fit_rows():
    def row(label, make):
        def run() -> dict:
            with tempfile.TemporaryDirectory() as tmp:
                (Path(tmp) / "MEMORY.md").write_bytes(make())
                result = cost_row(f"fit, adversarial: {label}", make,
                                  lambda index: plan_fit(tmp, index, today=date(2026, 12, 1)))
                plan = plan_fit(tmp, parse_index(make()), today=date(2026, 12, 1))
                result["note"] += f"; {len(plan.steps)} steps, {plan.before:,} -> {plan.after:,} B"
                return result
        run.__name__ = "fit_cost_" + "".join(c if c.isalnum() else "_" for c in label)
        return run
    return [row(label, make) for label, make in ADVERSARIAL.items()]


ROWS = [candidates_quality_overall, candidates_quality_heldout, candidates_quality_fresh, wording_ceiling, *_cost_rows(), *_fit_rows()]
