"""Rendering: results as text, markdown, HTML, dot, JSON, Perfetto traces, share bundles."""
