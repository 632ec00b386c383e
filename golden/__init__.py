"""The approved complete output of every curated case (golden/<format>/<case-id>.json): package data, read by
harness.golden; a package only so that the wheel carries it (harness/suite_files.py)."""
