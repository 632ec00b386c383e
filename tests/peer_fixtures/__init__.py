"""Peer modules the `peers` command must refuse, each for one reason (tests/unit/test_cli.py)."""
