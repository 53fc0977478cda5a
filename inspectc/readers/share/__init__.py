"""readers/share."""
