# as: normalizer/example.py breaks: normalizer-imports-the-harness
from cdc_conformance.harness import jvm
