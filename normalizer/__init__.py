"""The PySpark CDC normalizer: every supported format in, one canonical change-event model out.

The normalizer is the system under test. It must not import the harness or the generators; the harness
drives it through `cdc_conformance.normalizer.pipeline:normalize` (or any function with the same contract).
"""
__version__ = "0.1.0"
