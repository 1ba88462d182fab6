"""Standalone, stdlib-only scripts the generators emit into a seat (see generators/script_source.py)."""
