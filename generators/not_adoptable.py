"""Why a resident's own config file cannot be adopted (raised by the adoption and its JSONC scanner)."""

from __future__ import annotations


class NotAdoptable(ValueError):
    """Why a file cannot be adopted. ``held``: its owned keys hold other values (plain drift), as
    against a file that lacks them but cannot be edited safely."""

    def __init__(self, reason: str, *, held: bool = False):
        super().__init__(reason)
        self.held = held
