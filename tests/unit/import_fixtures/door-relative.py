# as: harness/example.py breaks: around-the-door
from ..normalizer import pipeline
