"""Textual screens of the curator: the bearer's index screen, the fleet panel, the re-provision preview."""
