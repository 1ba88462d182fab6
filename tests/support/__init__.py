"""Helpers the tests share: seats, fleets, indexes, the hook and app drivers (no tests here)."""
