# as: normalizer/example.py breaks: normalizer-imports-the-harness
from ..generators import ces
