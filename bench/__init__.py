"""Benchmarks: each row is measured against its baseline side by side in one run (`python -m bench`)."""
