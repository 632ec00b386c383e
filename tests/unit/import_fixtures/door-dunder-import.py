# as: generators/example.py breaks: around-the-door
__import__("cdc_conformance.normalizer")
