"""Real producers in the loop (issue 22): databases and capture tools that run on this machine write the
records, and the suite compares them with what its own generators write for the same history
(docs/producers.md)."""
