"""Where the tests find the repository, their recorded data and the shared corpus."""

from __future__ import annotations

from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
REPO = TESTS.parent
DATA = TESTS / "data"
# The corpus of real seats: beside the checkout's parent in a workplace, else absent (tests skip).
CORPUS = Path("/work/shared/corpus")
if not CORPUS.is_dir():
    CORPUS = REPO.parent / "shared" / "corpus"
