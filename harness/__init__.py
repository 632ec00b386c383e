"""The test harness: JVM artifacts, broker backends, Spark session, runner, diff, reports and CLI."""
