"""A memory dir whose MEMORY.md has a chosen size, written the ways real indexes are: sections, one
entry per line with a link to a detail file (some with #anchors), wikilinks, bare file names in
backticks, record ids. Used by bench_scale.py; nothing here is timed."""

from __future__ import annotations

import random
from pathlib import Path

WORDS = ("merge rebase fixture timeout ticket session hook index archive pointer lane deploy review "
         "cache schema config parser anchor budget compaction identity canary 配置 記憶 세션").split()
DETAIL_FILES = 300
ENTRIES_PER_SECTION = 40


def build(root: Path, size: int, *, seed: int = 11) -> Path:
    """Write ``root/memory`` with a MEMORY.md of at most ``size`` bytes (within one line of it)."""
    rng = random.Random(seed)
    memory = root / "memory"
    memory.mkdir(parents=True)
    names = [f"feedback_{n:03d}_{rng.choice(WORDS[:20])}.md" for n in range(DETAIL_FILES)]
    for name in names:
        body = (f"---\nname: {name[:-3]}\ndescription: {' '.join(rng.choices(WORDS, k=8))}\ntype: feedback\n---\n"
                f"# {name[:-3]}\n\n## Usage\n\n{' '.join(rng.choices(WORDS, k=30))}\n")
        (memory / name).write_text(body, encoding="utf-8")
    (memory / "identity.md").write_text("# Identity\n\nThe bearer's own story.\n", encoding="utf-8")
    parts = ["# Seat memory index\n> hot index: target <17KB\n"]
    total, n = len(parts[0]), 0
    while total < size:
        heading = f"\n## Section {n // ENTRIES_PER_SECTION} {rng.choice(WORDS)}\n\n" if n % ENTRIES_PER_SECTION == 0 else ""
        target = names[rng.randrange(DETAIL_FILES)]
        text = " ".join(rng.choices(WORDS, k=rng.randint(8, 30)))
        shape = n % 5
        if shape == 0:
            line = f"- [{text[:16]}]({target}#usage) — {text} #{1000 + n}\n"
        elif shape == 1:
            line = f"- [[{target[:-3]}]] {text}; see `{names[rng.randrange(DETAIL_FILES)]}`\n"
        elif shape == 2:
            line = f"- **{text[:20]}**: {text} (session ses_{rng.getrandbits(40):010x})\n"
        elif shape == 3:
            line = f"- [[missing-{n}-{rng.choice(WORDS[:20])}]] {text}\n"
        else:
            line = f"- [{text[:12]}](nowhere-{n}.md) {text}\n"
        line = heading + line
        if total + len(line.encode("utf-8")) > size:
            break
        parts.append(line)
        total += len(line.encode("utf-8"))
        n += 1
    (memory / "MEMORY.md").write_text("".join(parts), encoding="utf-8")
    return memory
