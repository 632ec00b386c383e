"""A driver on a Spark cluster (CDC_SPARK_MASTER): every conformance case in batch, then streaming = batch for the
formats that hold state across records. Run by tests/user/test_cluster.py as a process of its own, whose executors'
Python lacks this project; prints one line per check and exits 1 on any problem."""
import sys
import tempfile
from pathlib import Path


def main() -> int:
    from cdc_conformance.harness.broker import EmbeddedKafka
    from cdc_conformance.harness.cases import load_cases
    from cdc_conformance.harness.generic import check_streaming
    from cdc_conformance.harness.known_failures import load_known_failures
    from cdc_conformance.harness.registry import Registry
    from cdc_conformance.harness.roundtrip import RoundTrip
    from cdc_conformance.harness.runner import PASS, Runner
    from cdc_conformance.harness.schema_registry import LazySchemaRegistry
    from cdc_conformance.harness.spark import spark_session

    spark, registry, problems = spark_session(), Registry.load(), []
    (executor_python,) = spark.sparkContext.parallelize([0], 1).map(lambda _: sys.executable).collect()
    print(f"master {spark.sparkContext.master}, executors' Python {executor_python}")
    with EmbeddedKafka() as broker, LazySchemaRegistry() as schema_registry:  # debezium-avro's cases name schemas
        result = Runner(RoundTrip(spark, broker, schema_registry=schema_registry), registry, load_known_failures()).run(load_cases())
        failing = [r for r in result.results if r.status != PASS]
        print(f"cases: {len(result.results) - len(failing)} of {len(result.results)} pass")
        problems += [f"{r.case.id}: {r.status} {r.problems[:2]}" for r in failing] + result.suite_problems
        for format_id in ("ces-json", "dataworks-json"):
            with tempfile.TemporaryDirectory() as workdir:
                found = check_streaming(spark, broker, registry.generator(format_id), Path(workdir), 20, seed=1)
            print(f"streaming = batch, {format_id}: {'; '.join(found) or 'yes'}")
            problems += found
    for problem in problems:
        print(f"PROBLEM {problem}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
