"""The frame screen and its tabs."""
