"""Lever benchmarks: merge-candidate search against a plain pairwise Python loop, side by side.

The seat: real entries from the shared corpus of agent memory files (every top-level list item of
every markdown file there, ~1,500), topped up to 2,000 with perturbed copies (a word dropped, two
words swapped, a clause added) so there are true near-duplicates to find; the 250-entry seat is the
first 250 of those. Without the corpus the rows are skipped with a note.

- measured: ``find_candidates`` end to end (link-free keys, the banded C++ pair search, ranking,
  and costing the default merge of the 50 candidates it returns);
- baseline: the same keys, then a Python loop over every pair i < j calling the same scorer,
  ``token_sort_ratio(a, b, score_cutoff=60)`` then ``token_set_ratio(a, b, score_cutoff=70)``, the
  same two stages as the lever. Both keep the same pairs (checked; shared-link pairs aside).
Every timing is the fastest of the same number of rounds (25 at 250 entries, 1 at 2,000); each round
runs the measured and the baseline work in turn, so load on the shared machine hits both alike.
Goal: at least 10x faster than the loop.
"""

from __future__ import annotations

import random
import time
from pathlib import Path

from rapidfuzz import fuzz

from curator.index_model import parse_index
from curator.levers import merge

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


def pairwise_loop(keys: list[str], cutoff: float, judge: float) -> dict[tuple[int, int], float]:
    """The same two stages as find_candidates, as a plain loop: token-sort search, token-set judge."""
    found = {}
    for i in range(len(keys)):
        for j in range(i + 1, len(keys)):
            if keys[i] and keys[j]:
                if fuzz.token_sort_ratio(keys[i], keys[j], score_cutoff=cutoff):
                    score = fuzz.token_set_ratio(keys[i], keys[j], score_cutoff=judge)
                    if score:
                        found[(i, j)] = score
    return found


def interleaved(rounds: int, *works):
    """(results, fastest wall time of each work): every round runs each work once, in turn, so a
    change in machine load hits measured and baseline alike. The same rule for both sides."""
    results, times = [None] * len(works), [[] for _ in works]
    for _ in range(rounds):
        for n, work in enumerate(works):
            start = time.perf_counter()
            results[n] = work()
            times[n].append(time.perf_counter() - start)
    return results, [min(t) for t in times]


def candidate_row(count: int, rounds: int) -> dict:
    name = f"merge candidates, {count:,} entries vs pairwise loop"
    index = build_index(count)
    if index is None:
        return {"name": name, "measured_s": 0.0, "baseline_s": 0.0, "ratio": 0.0, "goal": ">=10x",
                "note": "skipped: corpus not found"}
    cutoff, judge = merge.SEARCH_CUTOFF, merge.DEFAULT_CUTOFF
    keys = merge.similarity_keys(index.entries)
    (found, _, fast_pairs, slow_pairs), (measured_s, key_s, pairs_s, loop_s) = interleaved(
        rounds,
        lambda: merge.find_candidates(index, limit=50),
        lambda: merge.similarity_keys(index.entries),
        lambda: merge.similar_pairs(keys, cutoff),
        lambda: pairwise_loop(keys, cutoff, judge),
    )
    judged = {pair for pair in fast_pairs if fuzz.token_set_ratio(keys[pair[0]], keys[pair[1]], score_cutoff=judge)}
    same = judged == slow_pairs.keys()
    baseline = key_s + loop_s
    best = measured_s
    return {
        "name": name,
        "measured_s": best,
        "baseline_s": baseline,
        "ratio": baseline / best,
        "goal": ">=10x",
        "note": (f"{len(found)} candidates; pairs {'identical' if same else 'DIFFER'} ({len(judged)}); "
                 f"pair search alone {pairs_s * 1000:.0f} ms vs loop {loop_s * 1000:.0f} ms "
                 f"({loop_s / pairs_s:.0f}x); keys {key_s * 1000:.0f} ms in both"),
    }


def candidates_250() -> dict:
    return candidate_row(SMALL, rounds=25)


def candidates_2000() -> dict:
    return candidate_row(BIG, rounds=1)


ROWS = [candidates_250, candidates_2000]
