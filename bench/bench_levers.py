"""Lever benchmarks: merge-candidate search against a plain pairwise Python loop, side by side.

The seat: real entries from the shared corpus of agent memory files (every top-level list item of
every markdown file there, ~1,500), topped up to 2,000 with perturbed copies (a word dropped, two
words swapped, a clause added) so there are true near-duplicates to find; the 250-entry seat is the
first 250 of those. Without the corpus the rows are skipped with a note.

- measured: ``find_candidates`` end to end (link-free keys, the banded C++ pair search, ranking,
  and costing the default merge of the 50 candidates it returns);
- baseline, as the goal words it ("a plain pairwise Python loop with the same scorer"): every entry's
  link-free text, then a Python loop over every pair i < j calling the lever's two scorers as
  rapidfuzz ships them, ``token_sort_ratio(a, b, processor=default_process, score_cutoff=60)`` then
  ``token_set_ratio(..., score_cutoff=70)``: each call lower-cases and sorts both texts again;
- a stricter baseline, in rows of its own: the loop is handed the sorted keys ``find_candidates``
  builds (built once, timed and added), so its scorer calls skip that work. Only the pair search
  itself then differs.
All three keep the same pairs (checked; shared-link pairs aside).
Every timing is the fastest of the same number of rounds (25 at 250 entries, 1 at 2,000); each round
runs the measured and the baseline work in turn, so load on the shared machine hits both alike.
Goal: at least 10x faster than the loop.
"""

from __future__ import annotations

import random
import time
from functools import lru_cache
from pathlib import Path

from rapidfuzz import fuzz
from rapidfuzz.utils import default_process

from curator.index_model import parse_index
from curator.levers import merge
from curator.levers.text import without_links

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


def plain_loop(texts: list[str], cutoff: float, judge: float) -> dict[tuple[int, int], float]:
    """The goal's baseline: the lever's two scorers called on every pair of link-free texts."""
    found = {}
    for i in range(len(texts)):
        for j in range(i + 1, len(texts)):
            if fuzz.token_sort_ratio(texts[i], texts[j], processor=default_process, score_cutoff=cutoff):
                score = fuzz.token_set_ratio(texts[i], texts[j], processor=default_process, score_cutoff=judge)
                if score:
                    found[(i, j)] = score
    return found


def pairwise_loop(keys: list[str], cutoff: float, judge: float) -> dict[tuple[int, int], float]:
    """The stricter baseline: the same two stages on the sorted keys, so no call sorts again."""
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


def link_free_text(entry) -> str:
    """What ``similarity_key`` sorts: the entry without its list marker and its links."""
    return without_links(entry.body, entry.pointers) if entry.pointers else entry.body


@lru_cache(maxsize=None)  # both rows of a size share one run
def measure(count: int, rounds: int) -> dict | None:
    index = build_index(count)
    if index is None:
        return None
    cutoff, judge = merge.SEARCH_CUTOFF, merge.DEFAULT_CUTOFF
    keys = merge.similarity_keys(index.entries)
    texts = [link_free_text(entry) for entry in index.entries]
    results, times = interleaved(
        rounds,
        lambda: merge.find_candidates(index, limit=50),
        lambda: merge.similarity_keys(index.entries),
        lambda: merge.similar_pairs(keys, cutoff),
        lambda: pairwise_loop(keys, cutoff, judge),
        lambda: [link_free_text(entry) for entry in index.entries],
        lambda: plain_loop(texts, cutoff, judge),
    )
    found, _, fast_pairs, strict_pairs, _, plain_pairs = results
    find_s, key_s, pairs_s, strict_s, text_s, plain_s = times
    judged = {pair for pair in fast_pairs if fuzz.token_set_ratio(keys[pair[0]], keys[pair[1]], score_cutoff=judge)}
    same = judged == strict_pairs.keys() == plain_pairs.keys()
    return {"find_s": find_s, "plain_s": text_s + plain_s, "strict_s": key_s + strict_s, "found": len(found),
            "pairs": f"pairs {'identical' if same else 'DIFFER'} ({len(judged)})", "pairs_s": pairs_s,
            "loop_s": strict_s, "key_s": key_s}


def candidate_row(count: int, rounds: int, *, strict: bool) -> dict:
    name = f"merge candidates, {count:,} entries vs {'keys-once' if strict else 'plain pairwise'} loop"
    goal = "info" if strict else ">=10x"
    m = measure(count, rounds)
    if m is None:
        return {"name": name, "measured_s": 0.0, "baseline_s": 0.0, "ratio": 0.0, "goal": goal,
                "note": "skipped: corpus not found"}
    baseline = m["strict_s"] if strict else m["plain_s"]
    if strict:
        note = (f"stricter: the loop gets the sorted keys, built once ({m['key_s'] * 1000:.1f} ms, added); "
                f"pair search alone {m['pairs_s'] * 1000:.1f} ms vs loop {m['loop_s'] * 1000:.0f} ms "
                f"({m['loop_s'] / m['pairs_s']:.0f}x)")
    else:
        note = f"{m['found']} candidates; {m['pairs']}; the scorer processes each pair's texts, as shipped"
    return {"name": name, "measured_s": m["find_s"], "baseline_s": baseline, "ratio": baseline / m["find_s"],
            "goal": goal, "note": note}


def candidates_250() -> dict:
    return candidate_row(SMALL, 25, strict=False)


def candidates_250_keys_once() -> dict:
    return candidate_row(SMALL, 25, strict=True)


def candidates_2000() -> dict:
    return candidate_row(BIG, 1, strict=False)


def candidates_2000_keys_once() -> dict:
    return candidate_row(BIG, 1, strict=True)


ROWS = [candidates_250, candidates_250_keys_once, candidates_2000, candidates_2000_keys_once]
