"""The three levers that shrink a hot index: merge-facet, move-to-archive, trim hooks.

Each lever is a pure function from the parsed index (plus the files beside it) to a
``curator.change.Change``; only ``curator.store.SeatStore`` writes.
"""
