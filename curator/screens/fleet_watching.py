"""The fleet panel's disk watch: a change to a file the plan reads (the manifest, a seat's planned
files, a MEMORY.md, the saved boot checks) re-plans the residents that read it, and only them.
Where the watch cannot start (inotify limits, an unsupported file system) the panel re-plans on a
timer instead, and says so once."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable

from textual import work
from textual.worker import get_current_worker
from textual.screen import Screen
from textual.timer import Timer
from textual.worker import Worker, WorkerState

from curator.fleet_watch import EVERYONE, Until, WatchSet, plan_reads, watch_changes
from generators.composer import ResidentPlan
from generators.manifest import Fleet


def reads_of(plans: list[ResidentPlan]) -> list[tuple[str, str]]:
    """(path, agent id) for everything the plans read on disk."""
    return [read for p in plans for read in plan_reads(
        p.agent_id, p.memory_dir, [(a.path, a.emitted.root if a.emitted is not None else None) for a in p.artifacts])]


class WatchesFleetFiles(Screen[None]):
    """Mixed into the fleet screen, which gives ``plan_worker``, ``fleet``, ``canary_ids``,
    ``last_plan`` and ``set_status``."""

    # The fallback's quiet re-plan, when no watch can start: every 3 s while the panel is in front
    # (a plan reads a few small files per seat), spaced out to REPLAN_SHARE times the last plan's
    # duration so a big fleet's re-plan never takes more than a tenth of a core.
    REPLAN_S = 3.0
    REPLAN_SHARE = 10

    plan_worker: Callable[..., object]
    canary_ids: list[str]
    last_plan: tuple[float, float]
    fleet: Fleet | None
    set_status: Callable[..., None]

    def init_watching(self) -> None:
        self.watched = WatchSet()  # what the running watch reports changes of
        self.watch_stop: threading.Event | None = None
        self.pending: set[str] = set()  # residents (or EVERYONE) to re-plan once nothing is in flight
        self.polling: Timer | None = None  # the fallback's timer, once the watch could not start

    # -- the watch ---------------------------------------------------------------------------------
    def keep_watching(self, watched: WatchSet) -> None:
        """After each plan: follow what it read. The watch restarts only when its directories change
        (a seat's missing directory was created); the paths it reports are swapped in at once."""
        if self.polling is not None or self.app.screen is not self:  # covered: shown again, it plans anew
            return
        before = self.watched
        self.watched = watched
        if watched.dirs == before.dirs and self.watch_stop is not None:
            return
        added = watched.dirs - before.dirs if self.watch_stop is not None else None
        self.stop_watching()
        self.watch_stop = threading.Event()
        self.watch_worker(self.watch_stop, added)

    def stop_watching(self) -> None:
        if self.watch_stop is not None:
            self.watch_stop.set()
            self.watch_stop = None

    def on_unmount(self) -> None:
        self.stop_watching()  # the watch thread ends within its 100 ms step

    def on_screen_suspend(self) -> None:
        """Covered (a seat, the preview, a dialog): nothing to show a change on, and the plan made when
        the panel is shown again reads it; that plan starts a new watch."""
        self.stop_watching()
        self.pending.clear()

    @work(thread=True, group="fleet-watch", exit_on_error=False)
    def watch_worker(self, stop: threading.Event, added: frozenset[str] | None) -> None:
        """``added``: the directories new to this watch (None: the first watch, every directory)."""

        def started() -> None:
            self.app.call_from_thread(self.watch_started, added)

        worker = get_current_worker()
        until = Until(lambda: stop.is_set() or worker.is_cancelled)  # the screen went, or the app is closing
        try:
            for changed in watch_changes(lambda: self.watched, until, started):
                self.app.call_from_thread(self.files_changed, changed)
        except (OSError, RuntimeError) as err:
            if not stop.is_set():
                self.app.call_from_thread(self.watch_failed, err)

    def watch_started(self, added: frozenset[str] | None) -> None:
        """A change made between the last plan's reads and this moment went unseen: re-plan (quietly)
        the residents that read something in the directories this watch added."""
        if added is None:
            self.files_changed({EVERYONE})
            return
        self.files_changed({path for path in self.watched.readers if os.path.dirname(path) in added})

    def files_changed(self, changed: set[str]) -> None:
        concerned = set(self.watched.concerned(changed)) | (changed & {EVERYONE})
        if concerned:
            self.pending |= concerned
            self.replan_pending()

    def replan_pending(self) -> None:
        """Re-plan what changed, quietly, once nothing is in flight: no plan running, no boot check
        (it re-plans when it ends), the panel in front (it re-plans when shown again)."""
        if not self.pending or self.app.screen is not self or self.canary_ids or self.planning():
            return
        only = None if EVERYONE in self.pending else frozenset(self.pending)
        self.pending = set()
        self.plan_worker(quiet=True, only=only)

    def planning(self) -> bool:
        return any(w.group == "fleet-plan" and w.node is self and not w.is_finished for w in self.app.workers)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.worker.group == "fleet-plan" and event.state in (WorkerState.SUCCESS, WorkerState.ERROR,
                                                                  WorkerState.CANCELLED):
            self.replan_pending()  # what changed while it planned

    # -- the fallback: re-plan on a timer --------------------------------------------------------
    def watch_failed(self, err: BaseException) -> None:
        if self.polling is not None:
            return
        self.stop_watching()
        self.polling = self.set_interval(self.REPLAN_S, self.replan_tick)
        self.set_status(f"Cannot watch the fleet's files ({err}): re-planning every {self.REPLAN_S:g} s instead",
                        "$warning")

    def replan_tick(self) -> None:
        """Re-plan quietly while this panel is in front and nothing is in flight (a plan, a boot check,
        a dialog or seat on top); the grid is re-shown only if something changed, cursor kept."""
        if self.app.screen is not self or self.fleet is None or self.canary_ids or self.planning():
            return
        ended, took = self.last_plan
        if time.monotonic() - ended < took * self.REPLAN_SHARE:
            return
        self.plan_worker(quiet=True)
