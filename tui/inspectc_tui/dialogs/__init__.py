"""Modal dialogs: help, search, source."""
