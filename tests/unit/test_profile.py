"""bench --profile's summary: each task sample lands in the part of the pass its stack shows (harness.profile)."""
from __future__ import annotations

from cdc_conformance.harness import profile

TASK = "java/lang/Thread.run;org/apache/spark/executor/Executor$TaskRunner.run_[j]"
STAGE = TASK + ";org/apache/spark/sql/catalyst/expressions/GeneratedClass$GeneratedIteratorForCodegenStage1.processNext_[j]"
COLLAPSED = "\n".join([
    f"{STAGE};io/cdcconformance/shared/Readers.record_[j];io/cdcconformance/shared/Json.read_[j];java/util/HashMap.getNode_[j] 50",
    f"{STAGE};io/cdcconformance/shared/Readers.record_[j];io/cdcconformance/dts/DtsRecords$$Lambda.0x7f.get_[j] 10",
    f"{STAGE};org/apache/spark/sql/catalyst/CatalystTypeConverters$StructConverter.toCatalystImpl_[j] 20",
    f"{STAGE};io/cdcconformance/shared/InternalReaders.read_[j];io/cdcconformance/shared/InternalRows$$Lambda.0x1.toInternal_[j];"
    "org/apache/spark/unsafe/types/UTF8String.fromString_[j] 7",  # the normalizer's own conversion, after a reader's call
    f"{TASK};org/apache/spark/sql/kafka010/KafkaSourceRDD$$anon$1.getNext_[j] 15",
    f"{STAGE};org/apache/spark/sql/catalyst/expressions/codegen/UnsafeWriter.write_[j] 5",
    f"{TASK};org/apache/spark/shuffle/ShuffleWriteProcessor.write_[j];{STAGE.split(';', 2)[2]};"
    "org/apache/spark/sql/kafka010/KafkaSourceRDD$$anon$1.getNext_[j] 4",  # innermost: the Kafka source below a shuffle
    f"{TASK};org/apache/spark/shuffle/ShuffleWriteProcessor.write_[j];java/io/FileOutputStream.write 6",
    "java/lang/Thread.run;kafka-producer-network-thread;org/apache/kafka/clients/NetworkClient.poll 1000",  # no task's
    "",
])


def test_each_task_sample_is_counted_once_in_the_part_its_stack_shows(tmp_path):
    path = tmp_path / "f-normalizer.collapsed"
    path.write_text(COLLAPSED)
    result = profile.breakdown(path)
    assert result.samples == 117
    assert result.parts == {"readers (io.cdcconformance)": 60,
                            "conversion of the readers' Row to Spark's rows (CatalystTypeConverters, InternalRows)": 27,
                            "Spark's Kafka source": 19, "generated code: projections and output rows": 5,
                            "Spark's shuffle and grouping (exchange, collect_list, state store)": 6}
    assert result.own_frames["java.util.HashMap.getNode"] == 50
    # inclusive: a frame counts each sample it is on the stack of; a lambda's generated frame is no reader frame
    assert result.reader_frames["io.cdcconformance.shared.Readers.record"] == 60
    assert result.reader_frames["io.cdcconformance.shared.InternalReaders.read"] == 7
    assert result.reader_frames["io.cdcconformance.shared.Json.read"] == 50
    assert not [frame for frame in result.reader_frames if "Lambda" in frame]


def test_the_summary_sets_the_two_sides_side_by_side(tmp_path):
    (tmp_path / "n.collapsed").write_text(COLLAPSED)
    (tmp_path / "p.collapsed").write_text(f"{TASK};org/apache/spark/sql/avro/AvroDataToCatalyst.nullSafeEval_[j] 3\n"
                                          f"{TASK};org/apache/spark/sql/kafka010/KafkaSourceRDD$$anon$1.getNext_[j] 1\n")
    text = profile.summary("dts-avro", profile.breakdown(tmp_path / "p.collapsed"), profile.breakdown(tmp_path / "n.collapsed"),
                           1000.0, 500.0)
    assert "| Spark's Avro (from_avro) | 75% | 0% |" in text
    assert "| Spark's Kafka source | 25% | 16% |" in text
    assert "| readers (io.cdcconformance) | 0% | 51% |" in text
    assert "plain 1,000 msg/s, normalizer 500 msg/s (4 and 117 task samples)" in text
