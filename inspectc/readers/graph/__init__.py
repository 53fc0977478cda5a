"""readers/graph."""
