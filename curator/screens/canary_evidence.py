"""The boot check's evidence: per resident and step, PASS / FAIL / INFO and what reached the model.

Shows ``curator.canary`` results as they are (the run's own words, verbatim); it judges nothing.
"""

from __future__ import annotations

from textual.content import Content

from curator.screens.dialogs import TextDialog
from curator.widgets.verbatim import verbatim

STEP_STYLES = {"PASS": "bold $success", "FAIL": "bold $error", "ERROR": "bold $error", "INFO": "bold $accent"}
STEP_WORDS = {"PASS": "✓ PASS", "FAIL": "✗ FAIL", "ERROR": "✗ ERROR", "INFO": "i INFO"}


def status_word(status: str) -> Content:
    return verbatim(STEP_WORDS.get(status, status), STEP_STYLES.get(status, ""))


def evidence_content(results: list, ages: dict | None = None) -> Content:
    """Every resident's verdict, then each step's status, summary and evidence lines beneath it."""
    blocks = []
    for res in results:
        age = (ages or {}).get(res.resident, "")
        started = bool(res.steps or res.seconds or res.cli)  # a run that never started took no time
        when = ([f"{res.seconds:.1f}s"] if started else []) + ([age] if age else [])
        lines = [Content.assemble(status_word(res.status), "  ",
                                  verbatim(f"{res.resident} ({res.harness})", "bold"),
                                  verbatim("".join(f" · {w}" for w in when), "dim"))]
        if res.cli:
            lines.append(verbatim(f"harness: {res.cli}", "dim"))
        if res.error:
            lines.append(verbatim(f"error: {res.error}", "$error"))
        for step in res.steps:
            lines.append(Content.assemble("  ", status_word(step.status), "  ", verbatim(f"{step.step}: ", "bold"),
                                          verbatim(step.summary)))
            lines.extend(verbatim(f"        {line}") for line in step.evidence)
        if not res.steps and not res.error:
            lines.append(verbatim("  no steps ran"))
        blocks.append(Content("\n").join(lines))
    return Content("\n\n").join(blocks) if blocks else verbatim("No boot check has run for this resident yet.")


class CanaryEvidence(TextDialog):
    """Read-only panel of one boot check's results (``results``: curator.canary ResidentResults)."""

    def __init__(self, results: list, ages: dict | None = None):
        names = ", ".join(r.resident for r in results) or "—"
        super().__init__(f"Boot check · {names}", evidence_content(results, ages), body_id="canary-evidence-text")
        self.results = results
