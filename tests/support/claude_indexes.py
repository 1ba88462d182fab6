"""MEMORY.md files shaped like the ones measured against the real Claude Code CLI (no tests here):
the load profile's unit tests and the real-CLI tests share them, so both speak of the same bytes."""

from __future__ import annotations

HANGUL = "기억색인항목설명한국어문장데이터세션규칙작업"


def korean_index(lines: int = 122, target_bytes: int = 37_687) -> bytes:
    """``lines`` lines of Korean index entries, ``target_bytes`` bytes in all (3 bytes, 1 character
    per syllable): far past 25,000 bytes, far under 25,000 characters."""
    body = ["# 기억 색인"] + [f"- [항목 {n}](topic-{n}.md) — " for n in range(1, lines)]
    size = sum(len(line.encode()) + 1 for line in body)
    per_line, extra = divmod(target_bytes - size, 3 * (lines - 1))
    out = [body[0]]
    for n, line in enumerate(body[1:]):
        count = per_line + (1 if n < extra // 3 else 0)
        out.append(line + (HANGUL * (count // len(HANGUL) + 1))[:count])
    short = target_bytes - len(("\n".join(out) + "\n").encode())
    out[-1] += "x" * short  # the last few bytes in ASCII, so the size is exact
    return ("\n".join(out) + "\n").encode()


def ascii_index_cut_at_127() -> bytes:
    """152 ASCII lines, 29,857 B; lines 1-127 are 24,881 B, so the harness keeps lines 1-127."""
    lines = [f"- entry {n:03d} " + "x" * (195 - 12) for n in range(1, 127)]  # 126 lines of 195 + newline
    lines.append("- entry 127 " + "y" * (184 - 12))  # line 127: brings lines 1-127 to 24,881 B
    lines += [f"- later {n:03d} " + "z" * (198 - 12) for n in range(128, 152)]  # 24 lines of 198 + newline
    lines.append("- later 152 " + "z" * (199 - 12))
    raw = ("\n".join(lines) + "\n").encode()
    assert len(raw) == 29_857 and len(raw.split(b"\n")) == 153, len(raw)
    return raw


def loader_cases() -> dict[str, bytes]:
    """Edge cases of the harness's rule, each recorded against the real CLI in
    tests/data/claude-code-memory-loads.json (what arrived on the wire, as a digest)."""
    return {
        "ascii127": ascii_index_cut_at_127(),
        "korean": korean_index(),
        "262lines": "".join(f"- line {n} " + "w" * 90 + "\n" for n in range(1, 263)).encode(),
        "singleline": b"# a\n- b\n" + b"q" * 30000 + b"\n- after\n",
        "emoji": "".join(f"- {n} " + "\U0001F308" * 120 + "\n" for n in range(1, 150)).encode(),
        "lead-blank": b"\n\n  \n" + "".join(f"- e{n} " + "k" * 300 + "\n" for n in range(1, 120)).encode(),
        "nl-at-25000": b"a" * 24999 + b"\n" + b"b" * 10 + b"\n",
        "nl-at-25000b": b"a" * 25000 + b"\n" + b"b" * 10 + b"\n",
        "crlf": "".join(f"- e{n} " + "r" * 250 + "\r\n" for n in range(1, 120)).encode(),
        "both": "".join(f"- e{n} " + "t" * 150 + "\n" for n in range(1, 260)).encode(),
        "bom": b"\xef\xbb\xbf# idx\n- one\n",
        "lone-cr": "".join(f"- e{n} " + "r" * 250 + "\r" for n in range(1, 120)).encode(),
        "u2028": "".join(f"- e{n} " + "r" * 250 + "\u2028x\n" for n in range(1, 120)).encode(),
        "invalid": b"# idx\n- \xff\xfe bad\n" + b"- e " * 7000 + b"\n- tail\n",
        "frontmatter": b"---\nname: x\n---\n# idx\n- one\n",
        "comment": b"# idx\n<!-- a comment -->\n- one\n",
        "comment2": b"# idx\n<!-- a\nmulti -->\n\n\n- one\n- two <!-- inline --> x\npara\n<!-- interrupt -->\n"
                    b"  <!-- c --> tail\n",
        "fm2": b"---\n---\n# idx\n",
        "fm3": b"---\nname: x\n# no close\n",
        "commentcut": b"<!-- " + b"c" * 30000 + b" -->\n" + b"- e\n" * 10,
        "longword": b"- x\n" + b"a" * 26000 + b"\n" + b"- " + b"verylongword" * 10 + b" tail\n",
    }
