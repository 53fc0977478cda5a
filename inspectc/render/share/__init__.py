"""render/share: share bundles (markdown, HTML, redacted copies)."""
