"""Hypothesis strategies for database histories, one encoder module per format, and the oracle."""
