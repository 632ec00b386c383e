# as: harness/example.py breaks: around-the-door
from cdc_conformance.normalizer.pipeline import normalize
