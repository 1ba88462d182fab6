"""The Entries panel says what a linked detail file declares of itself (front matter type, description)."""

from __future__ import annotations

from textual.widgets import Static

from curator.app import CuratorApp
from tests.support.app import settle, highlight_entry


def _seat(memory_dir):
    memory_dir.mkdir(parents=True)
    (memory_dir / "MEMORY.md").write_text(
        "# Memory index\n\n## Feedback\n"
        "- [Never defer](feedback_never_defer.md) — run commands yourself\n"
        "- Link related memories: [[deploy-lane]]\n"
        "- [Plain note](plain.md) — no front matter here\n",
        encoding="utf-8",
    )
    (memory_dir / "feedback_never_defer.md").write_text(
        "---\nname: never-defer\ndescription: Never hand the user a command the agent can run\n"
        "metadata:\n  type: feedback\n---\n\nRun it.\n", encoding="utf-8")
    (memory_dir / "deploy_lane.md").write_text(
        "---\nname: deploy-lane\ndescription: How the release lane is wired\ntype: reference\n---\n\nBuckets.\n",
        encoding="utf-8")
    (memory_dir / "plain.md").write_text("# Plain\n\nNothing declared.\n", encoding="utf-8")
    return memory_dir


def _detail_text(app) -> str:
    return str(app.screen.query_one("#detail", Static).render())


async def test_the_detail_line_shows_the_linked_files_type_and_description(tmp_path):
    app = CuratorApp(_seat(tmp_path / "memory"))
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        highlight_entry(app, "Never defer")
        await pilot.pause()
        await settle(app, pilot)
        shown = _detail_text(app)
        assert "→ feedback_never_defer.md · feedback · Never hand the user a command the agent can run" in shown
        # A wikilink resolves by the file's front-matter name.
        highlight_entry(app, "[[deploy-lane]]")
        await pilot.pause()
        await settle(app, pilot)
        assert "→ deploy_lane.md · reference · How the release lane is wired" in _detail_text(app)
        # A file that declares nothing adds no line.
        highlight_entry(app, "Plain note")
        await pilot.pause()
        await settle(app, pilot)
        assert "→" not in _detail_text(app)
