"""The seat's file names, named once: the curator, the levers, the canary and the generators agree on them."""

from __future__ import annotations

INDEX_NAME = "MEMORY.md"  # the hot index every harness loads
ARCHIVE_NAME = "ARCHIVE.md"  # where archived entries go, searchable and restorable
IDENTITY_NAME = "identity.md"  # the bearer's own story, loaded at every boot beside the index
SEAT_POINTERS_NAME = "seat-pointers.md"
ABOUT_NAME = "about-this-layer.md"

BOOT_FILES = (INDEX_NAME, IDENTITY_NAME)  # what every harness must put in front of the model
BEARER_FILES = (INDEX_NAME, IDENTITY_NAME, SEAT_POINTERS_NAME, ABOUT_NAME)  # written once, then the bearer's

TARGET_BYTES = 17_000  # MEMORY.md's size goal (KB = 1000 B)
READ_LIMIT_BYTES = 24_600  # past this a harness stops reading MEMORY.md
