# as: cdc_conformance/keys.py breaks: model-imports-the-suite
from .peers import changes
