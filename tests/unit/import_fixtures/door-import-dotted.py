# as: generators/example.py breaks: around-the-door
import cdc_conformance.normalizer.assembly
