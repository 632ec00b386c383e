# as: harness/cli/example.py breaks: around-the-door
from ... import normalizer
