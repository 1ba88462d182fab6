"""Lever benchmarks: the merge-candidate search against a plain pairwise Python loop, side by side.

The seat: real entries from the shared corpus of agent memory files (every top-level list item of
every markdown file there, ~1,500), topped up to 2,000 with perturbed copies (a word dropped, two
words swapped, a clause added) so there are true near-duplicates to find; the 250-entry seat is the
first 250 of those. Without the corpus the rows are skipped with a note.

- measured: ``find_candidates`` end to end (the entries' weighted words, the inverted-index pair
  search over the rarer words, the score bound, the scores, and costing every candidate's default
  merge);
- baseline, as the goal words it ("a plain pairwise Python loop with the same scorer"): the same
  weighted words, then a Python loop over every pair i < j calling the same scorer
  (``Weights.score``) with the same acceptance (enough shared words, dice from ``LOOSE_SAID``), and
  the same costing of each pair it accepts;
- a stricter row: the pair search alone (``Weights.pairs`` and the bound) against that loop alone.
The rows check that the search finds every pair the loop accepts that shares a rare word (a pair
sharing only words too common to pair is left out by design; the note counts them).
Every timing is the fastest of the same number of rounds (9 at 250 entries, 1 at 2,000); each round
runs the measured and the baseline work in turn, so load on the shared machine hits both alike.
Goal: at least 10x faster than the loop.
"""

from __future__ import annotations

import random
import time
from functools import cache
from pathlib import Path

from curator import caches
from curator.index_model import parse_index
from curator.levers import merge
from curator.levers.similarity import Weights, entry_words

CORPUS = Path("/work/shared/corpus")
BIG, SMALL = 2_000, 250


def corpus_entries() -> list[str]:
    bodies: list[str] = []
    for path in sorted(CORPUS.rglob("*.md")) if CORPUS.is_dir() else []:
        try:
            index = parse_index(path.read_bytes())
        except OSError:
            continue
        bodies += [" ".join(e.body.split()) for e in index.entries if e.body.strip()]
    return bodies


def perturb(text: str, rng: random.Random) -> str:
    words = text.split()
    if len(words) > 4:
        choice = rng.randrange(3)
        if choice == 0:
            del words[rng.randrange(len(words))]
        elif choice == 1:
            i = rng.randrange(len(words) - 1)
            words[i], words[i + 1] = words[i + 1], words[i]
        else:
            words.append("; " + " ".join(rng.sample(words, 2)))
    return " ".join(words)


def build_index(count: int):
    rng = random.Random(11)
    bodies = corpus_entries()
    if not bodies:
        return None
    while len(bodies) < BIG:
        bodies.append(perturb(rng.choice(bodies), rng))
    chosen = bodies[:count]
    sections, lines = 8, ["# Seat memory index", ""]
    for n, body in enumerate(chosen):
        if n % (count // sections) == 0:
            lines += ["", f"## Section {n // (count // sections) + 1}"]
        lines.append("- " + body)
    return parse_index(("\n".join(lines) + "\n").encode("utf-8"))


def pairwise_loop(words: Weights) -> set[tuple[int, int]]:
    """The goal's baseline: the lever's scorer on every pair, with the lever's acceptance."""
    found = set()
    count = len(words.words)
    for i in range(count):
        for j in range(i + 1, count):
            score = words.score(i, j)
            if score.words >= merge.MIN_SHARED and score.dice >= merge.LOOSE_SAID:
                found.add((i, j))
    return found


def indexed_search(words: Weights) -> set[tuple[int, int]]:
    """What ``candidate_pairs`` does for wording: rare-word pairs, the bound, then the scorer."""
    found = set()
    for (i, j), rare in words.pairs().items():
        if words.may_reach(i, j, rare, merge.LOOSE_SAID):
            score = words.score(i, j)
            if score.words >= merge.MIN_SHARED and score.dice >= merge.LOOSE_SAID:
                found.add((i, j))
    return found


def interleaved(rounds: int, *works):
    """(results, fastest wall time of each work): every round runs each work once, in turn, so a
    change in machine load hits measured and baseline alike. The same rule for both sides."""
    results, times = [None] * len(works), [[] for _ in works]
    for _ in range(rounds):
        for n, work in enumerate(works):
            caches.clear_all()
            start = time.perf_counter()
            results[n] = work()
            times[n].append(time.perf_counter() - start)
    return results, [min(t) for t in times]


@cache  # both rows of a size share one run
def measure(count: int, rounds: int) -> dict | None:
    index = build_index(count)
    if index is None:
        return None
    entries = [e for e in index.entries if e.section != merge.IDENTITY_SECTION]
    words = Weights([entry_words(entry) for entry in entries])
    plain = merge.plain_text(index)

    def loop_and_cost():
        pairs = pairwise_loop(Weights([entry_words(entry) for entry in entries]))
        return [merge._candidate(index, merge.lead_first([entries[i], entries[j]]), 0.0, "", plain) for i, j in pairs]

    results, times = interleaved(
        rounds,
        lambda: merge.find_candidates(index, limit=50),
        loop_and_cost,
        lambda: indexed_search(words),
        lambda: pairwise_loop(words),
    )
    found, _costed, fast_pairs, loop_pairs = results
    find_s, plain_s, search_s, loop_s = times
    common_only = {(i, j) for (i, j) in loop_pairs
                   if not any(words.df[w] <= words.common for w in words.words[i] & words.words[j])}
    missed = loop_pairs - fast_pairs - common_only
    same = not missed and fast_pairs <= loop_pairs
    note = (f"pairs {'identical' if same else 'DIFFER'} ({len(fast_pairs)}; {len(common_only)} share only "
            f"words too common to pair)")
    return {"find_s": find_s, "plain_s": plain_s, "search_s": search_s, "loop_s": loop_s,
            "found": len(found), "pairs": note}


def candidate_row(count: int, rounds: int, *, strict: bool) -> dict:
    name = f"merge candidates, {count:,} entries vs {'pair search vs loop alone' if strict else 'plain pairwise loop'}"
    goal = "info" if strict else ">=10x"
    m = measure(count, rounds)
    if m is None:
        return {"name": name, "measured_s": 0.0, "baseline_s": 0.0, "ratio": 0.0, "goal": goal,
                "note": "skipped: corpus not found"}
    if strict:
        return {"name": name, "measured_s": m["search_s"], "baseline_s": m["loop_s"],
                "ratio": m["loop_s"] / m["search_s"], "goal": goal,
                "note": f"the words built once for both; {m['pairs']}"}
    return {"name": name, "measured_s": m["find_s"], "baseline_s": m["plain_s"], "ratio": m["plain_s"] / m["find_s"],
            "goal": goal, "note": f"{m['found']} candidates costed and shown; {m['pairs']}"}


def candidates_250() -> dict:
    return candidate_row(SMALL, 9, strict=False)


def candidates_250_keys_once() -> dict:
    return candidate_row(SMALL, 9, strict=True)


def candidates_2000() -> dict:
    return candidate_row(BIG, 1, strict=False)


def candidates_2000_keys_once() -> dict:
    return candidate_row(BIG, 1, strict=True)


ROWS = [candidates_250, candidates_250_keys_once, candidates_2000, candidates_2000_keys_once]
