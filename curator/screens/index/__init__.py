"""The bearer's index screen, one module per flow: the screen itself (``screen``), the disk watch
(``disk``), the save flow (``saving``), the journal's undo / redo (``journal``), navigation
(``navigation``), the lever flows (``levers``, imported on first use), the title words (``titles``)
and what the mixed-in flows use of the screen and the app (``host``, Protocols)."""

from curator.screens.index.screen import IndexScreen
from curator.screens.index.titles import INDEX_NAME, claude_project, is_claude_memory, status_text, title_words

__all__ = ["INDEX_NAME", "IndexScreen", "claude_project", "is_claude_memory", "status_text", "title_words"]
