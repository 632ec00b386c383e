# as: harness/example.py breaks: around-the-door
import importlib

importlib.import_module("cdc_conformance.normalizer.ces")
