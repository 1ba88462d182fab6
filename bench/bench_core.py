"""Hot-index core benchmarks, each measured side by side with its baseline in the same run.

The seat: a generated, realistic 24 KB MEMORY.md with 250 one-line entries in six sections, each
pointing at one of 150 detail files (some with #anchors), identity.md, and detail files that link to
each other.

- Full analysis (parse + meter + load simulation for every profile + pointer graph), detail files
  already in the pointer cache as they are for a running app or a second check, against one plain
  markdown-it-py parse of the same text. Goal: <= 2x.
- First analysis with every cache empty (index and 150 detail files parsed), same baseline:
  reported, no goal; it is paid once per seat opened.
- Re-analysis after a one-character edit in MEMORY.md (what every keystroke costs) against the first
  full analysis. Goal: well under 1x. And, for honesty, the same keystroke against a warm full
  analysis: about 1x, since the index is re-parsed whole.
"""

from __future__ import annotations

import random
import statistics
import tempfile
import time
from pathlib import Path

from markdown_it import MarkdownIt

from curator import analysis as analysis_module
from curator import pointers, reparse
from curator.analysis import analyze

ENTRIES = 250
DETAIL_FILES = 150
ROUNDS = 15
SECTIONS = ["Identity & seat", "Weak-spots", "Hard rules (they bit; don't relearn)", "Craft hooks",
            "Lane anchors (highest drift — re-verify live)", "Field notes"]
WORDS = ("merge rebase fixture timeout ticket session hook index archive pointer lane deploy review "
         "cache schema config parser anchor budget compaction identity canary").split()


def build_seat(root: Path) -> tuple[Path, bytes]:
    rng = random.Random(7)
    memory = root / "memory"
    memory.mkdir()
    names = [f"topic-{n:03d}-{rng.choice(WORDS)}.md" for n in range(DETAIL_FILES)]
    for n, name in enumerate(names):
        other = names[(n * 7 + 3) % DETAIL_FILES]
        body = [f"# {name[:-3].replace('-', ' ').title()}", "", " ".join(rng.choices(WORDS, k=40)), "",
                "## Usage", "", " ".join(rng.choices(WORDS, k=30)), "", "## Notes", "",
                f"- see [related]({other}#usage) and session ses_{rng.getrandbits(40):010x}",
                "- " + " ".join(rng.choices(WORDS, k=12)), ""]
        (memory / name).write_text("\n".join(body), encoding="utf-8")
    (memory / "identity.md").write_text("# Identity — unwritten\n\nThe bearer's own story.\n", encoding="utf-8")
    lines = ["# Seat memory index", "> hot index: target <17KB, read-limit 24.6KB; measured with wc -c", ""]
    per_section = ENTRIES // len(SECTIONS) + 1
    for n in range(ENTRIES):
        if n % per_section == 0:
            lines += ["", f"## {SECTIONS[n // per_section]}"]
        target = names[n % DETAIL_FILES] + ("#usage" if n % 3 == 0 else "")
        text = " ".join(rng.choices(WORDS, k=6))
        lines.append(f"- [{text[:14]}]({target}) — {text} #{1000 + n}")
    raw = ("\n".join(lines) + "\n").encode("utf-8")
    (memory / "MEMORY.md").write_bytes(raw)
    return memory, raw


def _time(func) -> float:
    start = time.perf_counter()
    func()
    return time.perf_counter() - start


def _side_by_side(measured, baseline, rounds: int = ROUNDS) -> tuple[float, float]:
    """Medians of interleaved runs, so both sides see the same machine load."""
    ms, bs = [], []
    for _ in range(rounds):
        ms.append(_time(measured))
        bs.append(_time(baseline))
    return statistics.median(ms), statistics.median(bs)


def _row(name: str, measured: float, baseline: float, goal: str, note: str) -> dict:
    return {"name": name, "measured_s": measured, "baseline_s": baseline, "ratio": measured / baseline,
            "goal": goal, "note": note}


def _plain_parse(raw: bytes):
    md = MarkdownIt("commonmark")
    text = raw.decode("utf-8")
    return lambda: md.parse(text)


def _clear_all() -> None:
    pointers.clear_cache()
    analysis_module.parse_cached.cache_clear()
    reparse.forget()
    analysis_module._identity_cache.clear()


def bench_full_analysis() -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        memory, raw = build_seat(Path(tmp))
        analyze(memory)  # detail files into the pointer cache

        def full() -> None:
            analysis_module.parse_cached.cache_clear()  # the index itself is parsed every time
            reparse.forget()
            result = analyze(memory)
            assert len(result.index.entries) == ENTRIES

        measured, baseline = _side_by_side(full, _plain_parse(raw))
    return _row("core: full analysis, 24 KB / 250 entries / 150 files", measured, baseline, "<= 2x",
                f"{len(raw):,} B index; baseline: one plain markdown-it parse of the same text")


def bench_first_analysis_cold() -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        memory, raw = build_seat(Path(tmp))

        def cold() -> None:
            _clear_all()
            analyze(memory)

        measured, baseline = _side_by_side(cold, _plain_parse(raw), rounds=5)
    return _row("core: first analysis, all caches empty", measured, baseline, "info",
                "parses the index and all 150 detail files; paid once per seat opened")


def bench_reanalysis_after_edit() -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        memory, raw = build_seat(Path(tmp))
        rng = random.Random(3)
        # Distinct edits, so no parse is served from the cache: what typing one character costs.
        edits = []
        for _ in range(ROUNDS * 2):
            at = rng.randrange(200, len(raw) - 1)
            edits.append(raw[:at] + b"z" + raw[at:])
        edits_iter = iter(edits)

        def keystroke() -> None:
            analyze(memory, index_bytes=next(edits_iter))

        def first_full() -> None:
            _clear_all()
            analyze(memory)

        # The baseline refills every cache, so each keystroke starts from the app's steady state.
        analyze(memory)
        measured, baseline = _side_by_side(keystroke, first_full)
    return _row("core: re-analysis after a one-character edit", measured, baseline, "well < 1x",
                "baseline: the first full analysis of the same seat (all caches empty)")


def bench_reanalysis_vs_warm_full() -> dict:
    """The same keystroke against a full analysis whose detail files are cached. A keystroke inside
    one entry's line derives the index's parse from the last one (curator/reparse.py); the baseline
    parses it whole."""
    with tempfile.TemporaryDirectory() as tmp:
        memory, raw = build_seat(Path(tmp))
        edits = iter(raw[:at] + b"z" + raw[at:] for at in range(300, 300 + ROUNDS * 40, 40))
        analyze(memory)

        def full() -> None:
            analysis_module.parse_cached.cache_clear()
            reparse.forget()
            analyze(memory)

        def keystroke() -> None:
            analyze(memory, index_bytes=next(edits))

        measured, baseline = _side_by_side(keystroke, full)
    return _row("core: re-analysis after an edit vs warm full analysis", measured, baseline, "info",
                "a keystroke's parse is derived from the last one; detail files come from the cache")


ROWS = [bench_full_analysis, bench_first_analysis_cold, bench_reanalysis_after_edit, bench_reanalysis_vs_warm_full]
