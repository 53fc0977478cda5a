"""trace/payloads."""
