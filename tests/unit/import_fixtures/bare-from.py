# as: generators/example.py breaks: bare-folder
from harness import spark
