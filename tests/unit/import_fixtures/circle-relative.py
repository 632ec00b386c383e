# as: cdc_conformance/peers/changes.py breaks: circle
from . import naive_spark
