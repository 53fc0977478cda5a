"""The overview screen and its tables."""
