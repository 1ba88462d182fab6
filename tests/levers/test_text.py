"""The clause cutter: cuts only at depth zero, whatever markup surrounds a separator."""

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from curator.levers.text import CLAUSE_SEPARATOR, CLOSERS, OPENERS, clauses, depth_map


def reference_depths(text: str) -> list[int]:
    """The depth rule spelled out one character at a time, to check the mark-skipping version."""
    depths, depth, in_code, in_bold = [], 0, False, False
    for at, char in enumerate(text):
        depths.append(depth + in_code + in_bold)
        if char == "`":
            in_code = not in_code
        elif in_code:
            continue
        elif char == "*" and text.startswith("**", at) and not text.startswith("**", at - 1 if at else at + 2):
            in_bold = not in_bold
        elif char in OPENERS:
            depth += 1
        elif char in CLOSERS and depth:
            depth -= 1
    return depths


markup = st.text(alphabet="ab *`[]()-—;.!?X\n", max_size=80)


@settings(max_examples=400, deadline=None)
@given(markup)
def test_depth_map_matches_the_per_character_rule(text):
    assert depth_map(text) == reference_depths(text)


# The separator rule in its first, plainest spelling: one alternative per kind of separator.
PLAIN_SEPARATOR = re.compile(r" [—–] | - |; |(?<=[.!?]) (?=[^a-z])")


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet="ab .!?;-—–Xz\n", max_size=40))
def test_separator_matches_its_plain_spelling(text):
    assert [m.span() for m in CLAUSE_SEPARATOR.finditer(text)] == [m.span() for m in PLAIN_SEPARATOR.finditer(text)]


def test_no_cut_inside_links_code_or_bold():
    text = "keep [a - b](x.md) and `c; d` and **e. F** — then; the rest. Next one"
    assert clauses(text) == [
        "keep [a - b](x.md) and `c; d` and **e. F**",
        "then",
        "the rest.",
        "Next one",
    ]
