# as: tests/example.py breaks: bare-folder
from generators.ces import encode
