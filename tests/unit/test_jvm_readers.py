"""The JVM record readers (normalizer/java) against the model and the Python side they mirror, read from their
sources: the unit tier has no JVM, and a mismatch here would otherwise surface as a failed Spark job."""
import re
from pathlib import Path

from cdc_conformance.model import CODE_PHASE, EVENT_SCHEMA, Code
from cdc_conformance.normalizer import jvm_functions, plugin

JAVA = Path(__file__).resolve().parents[2] / "normalizer" / "java" / "src" / "main" / "java" / "io" / "cdcconformance"


def _source(name: str) -> str:
    """A class's source: `debezium.DebeziumRecords` or `Events` (found in whichever package holds it)."""
    return next(JAVA.rglob(f"{name.rpartition('.')[2]}.java")).read_text()


def test_events_are_built_in_the_model_field_order():
    listed = re.search(r"FIELDS = List\.of\((.*?)\);", _source("Events"), re.S).group(1)
    assert re.findall(r'"(\w+)"', listed) == EVENT_SCHEMA.fieldNames()


def test_every_code_a_reader_names_is_a_model_code_with_a_phase():
    named = {code for path in JAVA.rglob("*.java") for code in re.findall(r'rule\("(\w+)"', path.read_text())}
    assert named, "no rule found: the pattern no longer matches the readers"
    assert named <= {c.value for c in Code} and all(Code(c) in CODE_PHASE for c in named)


def test_every_reader_a_decoder_registers_exists_and_is_a_udf_of_its_own():
    """Spark looks for the UDF interface on the class itself, not on its superclass (NO_UDF_INTERFACE). A record reader
    takes the record's six columns and then each of its format's options (debezium-avro's registry and flattening: a
    UDF8); a PLAIN_READER none (the reader a format without its optional options takes)."""
    decoders = [(__import__(d.decode.__module__, fromlist=["READER"]), d) for d in plugin.decoders().values()]
    readers = {(getattr(m, name), udf) for m, d in decoders
               for name, udf in (("READER", f"UDF{6 + len(d.options) + len(d.optional)}"), ("PLAIN_READER", "UDF6"),
                                 ("GROUP_READER", "UDF1")) if hasattr(m, name)}
    assert {udf for _, udf in readers} == {"UDF6", "UDF7", "UDF8", "UDF1"}
    for reader, udf in readers:
        assert re.search(rf"class {reader.rpartition('.')[2]}\b[^{{]*implements {udf}<", _source(reader)), reader
        assert jvm_functions.function_name(reader).startswith("cdc_conformance_")



def test_every_entry_point_a_spark_task_calls_is_guarded():
    """Whatever a record makes a reader throw is that record's quarantine (Readers), never a failed task: every
    `call` of a UDF hands its work to Readers, and READER_FAILURE is a model code."""
    entries = {path.stem: re.findall(r"public Row call\(.*?\n    }", path.read_text(), re.S) for path in JAVA.rglob("*.java")}
    entries = {name: bodies for name, bodies in entries.items() if bodies}
    assert len(entries) >= 7, entries.keys()
    for name, bodies in entries.items():
        assert all("Readers." in body for body in bodies), name
    assert Code.READER_FAILURE in CODE_PHASE


def test_every_decoded_format_has_its_fuzz_target():
    """scripts/fuzz_seeds.py seeds a target per decoded format, named after its id; the target must exist (Jazzer
    would run nothing for a missing one)."""
    import importlib.util

    root = Path(__file__).resolve().parents[2]
    spec = importlib.util.spec_from_file_location("fuzz_seeds", root / "scripts" / "fuzz_seeds.py")
    fuzz_seeds = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(fuzz_seeds)
    fuzz_test = (root / "normalizer/java/src/test/java/io/cdcconformance/ReadersFuzzTest.java").read_text()
    targets = set(re.findall(r"@FuzzTest[^\n]*\n\s+void (\w+)\(", fuzz_test))
    assert {fuzz_seeds.target(f) for f in plugin.decoders()} == targets
