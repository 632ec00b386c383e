# as: harness/reports.py breaks: around-the-door
from cdc_conformance import normalizer
