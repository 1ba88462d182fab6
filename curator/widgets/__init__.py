"""Textual widgets of the curator. Only this package, curator/screens and curator/app.py import textual."""
