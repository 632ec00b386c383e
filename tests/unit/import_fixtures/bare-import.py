# as: harness/example.py breaks: bare-folder
import normalizer
