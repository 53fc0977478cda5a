"""Reusable widgets (source view)."""
