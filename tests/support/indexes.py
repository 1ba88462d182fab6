"""Random small indexes for the archive round-trip tests."""

from __future__ import annotations

import random

from curator.index_model import BOM

WORDS = ("alpha beta", "cache warm", "deploy ship", "wal flush", "ticket four", "see [notes](notes.md)",
         "ask `make ship`", "per [hooks](#section-0-x)")


def random_index(rng: random.Random) -> bytes:
    """A seeded random small index: sections, items, paragraphs, tables, quotes, code, Hermes files;
    CRLF, a BOM, odd blank lines (tests/levers/test_archive_fuzz.py lists the shapes)."""
    said = iter(range(1, 10_000))
    lines: list[str] = []

    def words() -> str:
        return f"note {next(said)} {rng.choice(WORDS)}"

    def blanks(low: int = 0, high: int = 2) -> None:
        lines.extend(rng.choice(("", "", "", "", " ", "  \t")) for _ in range(rng.randint(low, high)))

    def block(kind: str) -> None:
        if kind == "items":
            marker, loose = rng.choice(("- ", "- ", "* ", "1. ")), rng.random() < 0.25
            for i in range(rng.randint(1, 4)):
                if i and loose:
                    blanks(1, 2)
                lines.append(marker + words())
                roll = rng.random()
                if roll < 0.15:
                    lines.append(f"  continued {words()}")
                elif roll < 0.25:
                    lines.append(f"  - sub {words()}")  # under "1. " not nested: an item of its own
        elif kind == "para":
            lines.extend(f"Para {words()}" for _ in range(rng.randint(1, 3)))
        elif kind == "table":
            lines.extend(["| A | B |", "|---|---|"] + [f"| {words()} | x |" for _ in range(rng.randint(1, 3))])
        elif kind == "quote":
            lines.append(f"> quoted {words()}")
        elif kind == "code":
            lines.extend(["```", f"code {words()}", "```"])
        else:  # hermes
            for i in range(rng.randint(1, 4)):
                lines.extend(["§"] if i else [])
                lines.append(f"[ENV] {words()}")

    shape = rng.random()
    if shape < 0.1:  # a Hermes file, with its banner or not
        if rng.random() < 0.5:
            lines.append("══════ MEMORY ══════")
        block("hermes")
        if rng.random() < 0.3:
            blanks(1, 1)
            lines.append("## More")
            blanks(0, 1)
            block("hermes")
    elif shape < 0.2:  # no heading at all
        for _ in range(rng.randint(1, 4)):
            block(rng.choice(("items", "items", "para")))
            blanks(1, 2)
    else:
        if rng.random() < 0.7:
            lines.append("# Seat memory index")
            blanks()
            if rng.random() < 0.3:
                lines.append("> header quote")
                blanks(1, 1)
        if rng.random() < 0.2:  # entries above the first section heading
            block(rng.choice(("items", "para")))
            blanks(1, 2)
        kinds = ("items",) * 6 + ("para",) * 3 + ("table", "quote", "code")
        for s in range(rng.randint(1, 4)):
            lines.append("#" * rng.choice((2, 2, 2, 3)) + f" Section {s} {rng.choice('xy')}")
            blanks()
            for _ in range(rng.randint(0, 4)):
                block(rng.choice(kinds))
                blanks(0 if rng.random() < 0.3 else 1, 2)
            if lines[-1].strip() and rng.random() < 0.8:
                lines.append("")
    if rng.random() < 0.5:
        while lines and not lines[-1].strip():
            lines.pop()
    newline = rng.choice(("\n", "\r\n"))
    text = newline.join(lines) + (newline if rng.random() < 0.7 else "")
    return (BOM if rng.random() < 0.25 else b"") + text.encode()
