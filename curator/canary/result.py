"""What a canary run concludes: per resident and step, PASS / FAIL / INFO with evidence, as values
that round-trip through JSON (the CLI's --json, the saved last result the app shows)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from enum import StrEnum
from typing import Any


class Status(StrEnum):
    """A step's or a resident's verdict; as a str it is its own name, in JSON too."""

    PASS = "PASS"
    FAIL = "FAIL"
    INFO = "INFO"  # evidence only: never fails a resident
    ERROR = "ERROR"  # the run itself could not happen (CLI missing, harness crashed, timed out)


PASS, FAIL, INFO, ERROR = Status.PASS, Status.FAIL, Status.INFO, Status.ERROR


@dataclass
class StepResult:
    step: str
    status: Status
    summary: str
    evidence: list[str] = field(default_factory=list)


@dataclass
class ResidentResult:
    resident: str
    harness: str
    steps: list[StepResult] = field(default_factory=list)
    error: str | None = None
    finished_at: float = 0.0  # unix time
    seconds: float = 0.0
    step_seconds: dict[str, float] = field(default_factory=dict)  # wall time per harness turn
    cli: str = ""

    @property
    def status(self) -> Status:
        if self.error is not None:
            return ERROR
        if not self.steps or any(step.status == FAIL for step in self.steps):
            return FAIL
        return PASS

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["status"] = self.status
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ResidentResult:
        steps = [StepResult(**{k: s[k] for k in ("step", "status", "summary", "evidence") if k in s})
                 for s in data.get("steps", [])]
        return cls(
            resident=str(data["resident"]), harness=str(data["harness"]), steps=steps,
            error=data.get("error"), finished_at=float(data.get("finished_at", 0.0)),
            seconds=float(data.get("seconds", 0.0)), step_seconds=dict(data.get("step_seconds", {})),
            cli=str(data.get("cli", "")),
        )


@dataclass
class CanaryResult:
    fleet: str
    residents: list[ResidentResult] = field(default_factory=list)

    @property
    def status(self) -> Status:
        statuses = {r.status for r in self.residents}
        if ERROR in statuses:
            return ERROR
        if FAIL in statuses or not self.residents:
            return FAIL
        return PASS

    @property
    def exit_code(self) -> int:
        """0 all pass, 4 a check failed, 1 a run could not happen."""
        return {PASS: 0, FAIL: 4}.get(self.status, 1)

    def to_json(self) -> dict[str, Any]:
        return {"fleet": self.fleet, "status": self.status, "residents": [r.to_json() for r in self.residents]}


def render_text(result: CanaryResult) -> str:
    """The human report: one line per resident, one per step, evidence indented beneath."""
    lines = []
    for res in result.residents:
        lines.append(f"{res.status:5} {res.resident} ({res.harness}) {res.seconds:.1f}s")
        if res.error:
            lines.append(f"      error: {res.error}")
        for step in res.steps:
            lines.append(f"  {step.status:5} {step.step}: {step.summary}")
            lines.extend(f"        {line}" for line in step.evidence)
    lines.append(f"canary: {result.status}")
    return "\n".join(lines)
