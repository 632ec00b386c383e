# as: cdc_conformance/model.py breaks: model-imports-the-suite
from cdc_conformance.harness import spark
