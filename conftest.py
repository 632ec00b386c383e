"""Make the repository importable for pytest without installing it."""
