# as: harness/jvm.py breaks: circle
from cdc_conformance.peers import flink
