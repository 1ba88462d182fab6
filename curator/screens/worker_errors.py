"""A screen's background workers report a failure as a notification instead of ending the app."""

from __future__ import annotations

from textual.worker import Worker, WorkerState


class ReportsWorkerErrors:
    """Mixed into a screen whose workers run with ``exit_on_error=False``: the one place an unexpected
    error in a worker becomes something the person sees (Textual calls the handler of every class in
    the screen's MRO, so a screen's own ``on_worker_state_changed`` still runs beside it)."""

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.state != WorkerState.ERROR:
            return
        error = event.worker.error
        what = event.worker.group or event.worker.name or "background work"
        self.notify(f"{what} failed: {type(error).__name__}: {error}; nothing was written",  # type: ignore[attr-defined]
                    severity="error", timeout=30)
