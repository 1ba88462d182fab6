"""Claude Code's own rule for loading MEMORY.md, as the 2.1.328 CLI implements it (read from its
bundled source and measured against the real CLI; see docs/load-simulation.md).

The harness decodes the file as UTF-8, trims it (JavaScript ``trim``), and counts in JavaScript
string length — UTF-16 code units, not bytes: a Hangul syllable is 3 bytes but 1 unit, an emoji 4
bytes but 2. It keeps the first 200 lines, then, if what is left is longer than 25,000 units, cuts
at the last newline within them (at 25,000 units exactly when there is none), and appends a
``> WARNING:`` line naming how much was cut and where.

Stdlib only and no parsing: the meter calls ``budget`` on every keystroke.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from curator.constants import INDEX_NAME

LINE_CAP = 200
CHAR_CAP = 25_000
WARNING_PREFIX = "> WARNING: "
EXCERPT_UNITS = 80  # the cut line's text is quoted up to this length

# What JavaScript's String.prototype.trim strips: WhiteSpace (Zs included) and LineTerminator.
JS_WHITESPACE = ("\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009"
                 "\u200a\u2028\u2029\u202f\u205f\u3000\ufeff")


def decode(raw: bytes) -> str:
    """The file as the harness reads it (``readFileSync(path, "utf-8")``: bad bytes become U+FFFD)."""
    return raw.decode("utf-8", errors="replace")


def on_the_wire(text: str) -> str:
    """The loaded text as the request carries it: the harness counts CR, CRLF and U+2028/U+2029 as
    they are (a lone CR does not end a line), then sends each as LF (measured)."""
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text.replace("\u2028", "\n").replace("\u2029", "\n")


_FRONTMATTER = re.compile(r"\A---[ \t]*\n(?:.*?\n)?---[ \t]*(?:\n|\Z)", re.S)
# A block-level HTML comment as the harness's markdown lexer sees one: a line opening with "<!--"
# (up to three spaces in), through the line that closes it, and the blank lines after it.
_COMMENT_BLOCK = re.compile(r"^ {0,3}<!--(?:-->|.*?(?:-->|\Z))[^\n]*(?:\n+|\Z)", re.S | re.M)
_COMMENT = re.compile(r"<!--.*?-->", re.S)


def hidden_spans(text: str) -> list[tuple[int, int]]:
    """What the harness removes before it counts, as (start, end) spans of ``text`` in order: YAML
    frontmatter, and HTML comment blocks (a block left with only whitespace goes whole; text beside
    a comment stays)."""
    spans: list[tuple[int, int]] = []
    front = _FRONTMATTER.match(text)
    start = front.end() if front else 0
    if front:
        spans.append((0, start))
    if "<!--" not in text[start:]:
        return spans
    for block in _COMMENT_BLOCK.finditer(text, start):
        inner = [(m.start(), m.end()) for m in _COMMENT.finditer(text, block.start(), block.end())]
        kept, at = [], block.start()
        for s, e in inner:
            kept.append(text[at:s])
            at = e
        kept.append(text[at:block.end()])
        spans.extend(inner if "".join(kept).strip() else [(block.start(), block.end())])
    return spans


def strip_hidden(text: str, spans: list[tuple[int, int]] | None = None) -> str:
    spans = hidden_spans(text) if spans is None else spans
    if not spans:
        return text
    parts, at = [], 0
    for s, e in spans:
        parts.append(text[at:s])
        at = e
    parts.append(text[at:])
    return "".join(parts)


def loaded_bytes(raw: bytes) -> int:
    """MEMORY.md's bytes once the harness has stripped frontmatter and comment blocks: what it loads
    (before any cut), counted as the file counts them."""
    if not raw.startswith(b"---") and b"<!--" not in raw:  # the keystroke path: nothing to strip
        return len(raw)
    text = raw.decode("utf-8", "surrogateescape")  # byte-exact back, unlike the harness's own decode
    return len(raw) - sum(len(text[s:e].encode("utf-8", "surrogateescape")) for s, e in hidden_spans(text))


def original_index(index: int, spans: list[tuple[int, int]]) -> int:
    """Where ``index`` of the stripped text sits in the text the spans were found in."""
    for s, e in spans:
        if s <= index:
            index += e - s
        else:
            break
    return index


def units(text: str) -> int:
    """JavaScript's ``text.length``: UTF-16 code units (characters outside the BMP count two)."""
    if text.isascii():
        return len(text)
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def _index_at_units(text: str, count: int) -> int:
    """The Python index where ``count`` UTF-16 units of ``text`` end (never inside a character)."""
    if text.isascii():
        return min(count, len(text))
    seen = 0
    for index, char in enumerate(text):
        seen += 2 if ord(char) > 0xFFFF else 1
        if seen > count:
            return index
    return len(text)


def format_size(count: int) -> str:
    """The harness's formatFileSize: 1 KB = 1024 (here: characters), one decimal, ``.0`` dropped."""
    kb = count / 1024
    if kb < 1:
        return f"{count} bytes"
    for value, unit in ((kb, "KB"), (kb / 1024, "MB")):
        if value < 1024:
            return f"{_js_fixed1(value).removesuffix('.0')}{unit}"
    return f"{_js_fixed1(kb / 1024 / 1024).removesuffix('.0')}GB"


def _js_fixed1(value: float) -> str:
    """``Number.prototype.toFixed(1)``: rounds the exact binary value half up (Python's format rounds
    it half to even, which differs only on exact ties such as 0.25)."""
    from decimal import ROUND_HALF_UP, Decimal

    return str(Decimal(value).quantize(Decimal("0.1"), rounding=ROUND_HALF_UP))


def excerpt(text: str, limit: int = EXCERPT_UNITS) -> str:
    """The harness's quote of the first cut line: at most ``limit`` units, cut at a word if that
    keeps more than half, then an ellipsis."""
    if units(text) <= limit:
        return text
    head = text[:_index_at_units(text, limit - 1)]
    space = max(head.rfind(c) for c in " \t\n\r\f\v")  # /\s\S*$/: the last whitespace, then no more
    words = head[:space].rstrip() if space >= 0 else ""
    return (words if units(words) > limit / 2 else head.rstrip()) + "\u2026"


@dataclass(frozen=True)
class ClaudeLoad:
    """What Claude Code puts in the model's context for one MEMORY.md."""

    lead_chars: int  # characters trim removed from the front (they shift the harness's line numbers)
    line_count: int  # lines of the trimmed text, as the harness counts them
    char_count: int  # UTF-16 units of the trimmed text
    loaded: str  # the part that loads, without the WARNING
    whole_lines: int  # lines loaded whole (the harness's count; 0 when it cut inside line 1)
    line_limited: bool  # more than 200 lines
    char_limited: bool  # more than 25,000 units
    warning: str | None  # the line the harness appends past the cut, exactly as it prints it

    @property
    def truncated(self) -> bool:
        return self.line_limited or self.char_limited

    @property
    def content(self) -> str:
        """The text the harness keeps, WARNING included (``on_the_wire`` gives it as sent)."""
        return self.loaded if self.warning is None else f"{self.loaded}\n\n{self.warning}"

    @property
    def binding(self) -> str | None:
        """Which cap made the cut (None when nothing is cut)."""
        if not self.truncated:
            return None
        if units(self.loaded) < self.char_count and self.whole_lines < LINE_CAP:
            return f"{CHAR_CAP:,}-character cap"
        return f"{LINE_CAP}-line cap"


def load(text: str) -> ClaudeLoad:
    """Apply the harness's rule to MEMORY.md's decoded text (frontmatter and comment blocks already
    stripped: see ``strip_hidden``)."""
    trimmed = text.strip(JS_WHITESPACE)
    lead = len(text) - len(text.lstrip(JS_WHITESPACE)) if trimmed else len(text)
    line_count = trimmed.count("\n") + 1
    char_count = units(trimmed)
    line_limited, char_limited = line_count > LINE_CAP, char_count > CHAR_CAP
    if not line_limited and not char_limited:
        return ClaudeLoad(lead, line_count, char_count, trimmed, line_count, False, False, None)
    kept = "\n".join(trimmed.split("\n")[:LINE_CAP]) if line_limited else trimmed
    if units(kept) > CHAR_CAP:
        within = _index_at_units(kept, CHAR_CAP)
        newline = kept.rfind("\n", 0, within + 1)  # lastIndexOf("\n", 25000): a newline at 25,000 counts
        kept = kept[:newline if newline > 0 else within]
    whole = kept.count("\n") + 1 if trimmed[len(kept):len(kept) + 1] == "\n" else 0
    next_start = len(kept) + 1
    next_end = trimmed.find("\n", next_start)
    next_line = trimmed[next_start:next_end if next_end >= 0 else None].strip(JS_WHITESPACE)
    if whole == 0:
        where = f"everything after the first {units(kept)} characters of line 1 was cut off"
    else:
        quoted = f' ("{excerpt(next_line)}")' if next_line else ""
        where = f"{line_count - whole} of {line_count} lines were cut off, starting at line {whole + 1}{quoted}"
    if char_limited and not line_limited:
        size = f"{format_size(char_count)} (limit: {format_size(CHAR_CAP)}) \u2014 index entries are too long"
    elif line_limited and not char_limited:
        size = f"{line_count} lines (limit: {LINE_CAP})"
    else:
        size = f"{line_count} lines and {format_size(char_count)}"
    warning = (f"{WARNING_PREFIX}{INDEX_NAME} is {size}. Only part of it was loaded: {where}. "
               "Keep index entries to one line under ~200 chars; move detail into topic files.")
    return ClaudeLoad(lead, line_count, char_count, kept, whole, line_limited, char_limited, warning)


def load_bytes(raw: bytes) -> ClaudeLoad:
    """The rule applied to a file's bytes, as the harness reads them (hidden parts stripped)."""
    return load(strip_hidden(decode(raw)))
