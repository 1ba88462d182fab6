"""Boot canary: run a seat's real harness offline against a stub model and check, from what reached
the model, that the seat's memory index loads at boot and after compaction. See docs/canary.md."""

from curator.canary.clis import CliNotFound, HarnessCli, find_cli
from curator.canary.last_result import describe, load_result, save_results
from curator.canary.result import CanaryResult, ResidentResult, StepResult
from curator.canary.run import canary_seat, run_canary
from curator.canary.seat import Seat, fingerprint, seats_from_fleet

__all__ = [
    "CanaryResult", "CliNotFound", "HarnessCli", "ResidentResult", "Seat", "StepResult", "canary_seat",
    "describe", "find_cli", "fingerprint", "load_result", "run_canary", "save_results", "seats_from_fleet",
]
