# as: normalizer/example.py breaks: normalizer-imports-the-harness
from importlib import import_module

import_module("cdc_conformance.generators.dataworks")
