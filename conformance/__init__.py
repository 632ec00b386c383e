"""The suite as data: case files, the format registry, known failures, and the test modules that run them."""
