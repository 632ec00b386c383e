package io.cdcconformance;

import io.cdcconformance.canal.CanalRecords;
import io.cdcconformance.ces.CesAvroRecords;
import io.cdcconformance.ces.CesRecords;
import io.cdcconformance.cloudcanal.CloudCanalDebeziumRecords;
import io.cdcconformance.cloudcanal.CloudCanalRecords;
import io.cdcconformance.dataworks.DataWorksRecords;
import io.cdcconformance.debezium.DebeziumAvroRecords;
import io.cdcconformance.debezium.DebeziumRecords;
import io.cdcconformance.debezium.FlattenedDebeziumRecords;
import io.cdcconformance.debezium.SchemaRegistryClient;
import io.cdcconformance.dts.DtsRecords;
import io.cdcconformance.shared.InternalRowsTest;
import io.cdcconformance.shared.Json;
import io.cdcconformance.shared.Readers;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.types.StructType;

/**
 * Coverage-guided fuzzing of every record reader (Jazzer), one target per format, named after the format's id
 * ({@code debezium-json}: {@code debeziumJson}; tests/unit/test_jvm_readers.py holds every decoded format to one). In `make test` each target runs its seeds only (Jazzer's
 * regression mode: the conformance cases' records, written to ReadersFuzzTestInputs by scripts/fuzz_seeds.py);
 * `make fuzz` runs each for a given time (JAZZER_FUZZ=1). Oracle: nothing escapes a reader (no READER_FAILURE),
 * no event a reader builds is stopped at the exit (ModelExit fired: a reader let a wrong value reach it), the output
 * written as Spark's row (InternalRows: a reader called by a Catalyst expression) reads back as the output, and a
 * JSON record spelled again (compact, escapes canonical, every number token kept) gives the same output.
 */
public class ReadersFuzzTest {
    private static final String EXIT = "the event leaves the model";

    private static Function<byte[], Row> reader(UdfLike udf, String topic) {
        return value -> udf.call(null, value, null, topic, 0, 0L);
    }

    /** DataWorks' record stage keys a record's group by its bytes (an exact copy is a redelivery): compared without it. */
    private static Function<byte[], Row> withoutGroupKey(Function<byte[], Row> stage) {
        return value -> {
            Row out = stage.apply(value);
            InternalRowsTest.assertWrittenAsRead(InternalRowsTest.DATAWORKS_STAGE, out, "written as Spark's row");
            return org.apache.spark.sql.RowFactory.create(out.get(0), out.get(1), out.get(2));
        };
    }

    interface UdfLike {
        Row call(byte[] key, byte[] value, scala.collection.Seq<Row> headers, String topic, Integer partition, Long offset);
    }

    /** Executions so far, and the worst cost per KB after the JIT's warm-up (an input under 1 KB counts as 1 KB): a
     * candidate is timed three times more and its fastest counts, so that a garbage collection or a compilation that
     * happened to fall on it is not taken for the input's cost. */
    private static long executions;
    private static double worstMillisPerKb;
    private static int worstLength;
    private static final int WARM_UP = 2_000;

    @AfterAll
    static void report() {
        System.out.printf("fuzz: %d executions, worst cost %.3f ms per KB (an input of %d bytes)%n", executions,
                worstMillisPerKb, worstLength);
    }

    private static double millisPerKb(long nanos, byte[] value) {
        return nanos / 1e6 / Math.max(1.0, value.length / 1024.0);
    }

    static void check(Function<byte[], Row> reader, byte[] value, boolean json) {
        check(reader, value, json, InternalRowsTest.RECORD_OUTPUT);
    }

    /** {@code type}: the output's, whose writing as Spark's row (a reader called by a Catalyst expression) is held to
     * the output; null where the caller checked it. */
    static void check(Function<byte[], Row> reader, byte[] value, boolean json, StructType type) {
        long start = System.nanoTime();
        Row out = reader.apply(value);
        double millisPerKb = millisPerKb(System.nanoTime() - start, value);
        if (++executions > WARM_UP && millisPerKb > worstMillisPerKb) {
            for (int again = 0; again < 3; again++) {
                long retry = System.nanoTime();
                reader.apply(value);
                millisPerKb = Math.min(millisPerKb, millisPerKb(System.nanoTime() - retry, value));
            }
            if (millisPerKb > worstMillisPerKb) {
                worstMillisPerKb = millisPerKb;
                worstLength = value.length;
            }
        }
        if (type != null) {
            InternalRowsTest.assertWrittenAsRead(type, out, "written as Spark's row");
        }
        // read after the input before it, then after itself: what a reader keeps from one record for the next (a
        // table's columns, a writer schema's fields) is the next one's only where it describes it alike
        assertEquals(render(out), render(reader.apply(value)), "the output changed with the record read before it");
        String code = out.getString(0);
        String detail = String.valueOf(out.get(1));
        assertFalse(Readers.READER_FAILURE.equals(code), detail);
        assertFalse(detail.startsWith(EXIT), detail);
        if (json && Json.isUtf8(value)) {
            Json.Document document = Json.read(value);
            if (document.root != null && document.root != Json.NULL && !document.repeatsAMember && !document.loneSurrogate) {
                // through a list: Json.text gives a string's own text, and a record that is one JSON string ("{}") must
                // stay one (make fuzz's first cesJson finding was this oracle's, not the reader's)
                String listed = Json.text(java.util.List.of(document.root));
                byte[] respelled = listed.substring(1, listed.length() - 1).getBytes(StandardCharsets.UTF_8);
                assertEquals(render(out), render(reader.apply(respelled)), "a respelling changed the output");
            }
        }
    }

    /** A target's inputs (its seeds, ReadersFuzzTestInputs/<target>), in their files' order: what the other tests
     * read the readers over too. */
    public static List<byte[]> seeds(String target) {
        Path folder = Path.of("src/test/resources/io/cdcconformance/ReadersFuzzTestInputs", target);
        try (Stream<Path> files = Files.list(folder)) {
            List<byte[]> seeds = new ArrayList<>();
            for (Path file : files.sorted().toList()) {
                seeds.add(Files.readAllBytes(file));
            }
            assertTrue(seeds.size() > 10, target + " has seeds");
            return seeds;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** An output by content (a Row's toString shows a byte array's identity). */
    public static String render(Object value) {
        if (value instanceof Row) {
            Row row = (Row) value;
            StringBuilder out = new StringBuilder("[");
            for (int i = 0; i < row.size(); i++) {
                out.append(i > 0 ? "," : "").append(render(row.get(i)));
            }
            return out.append("]").toString();
        }
        if (value instanceof byte[]) {
            return java.util.Base64.getEncoder().encodeToString((byte[]) value);
        }
        if (value instanceof java.util.List) {
            StringBuilder out = new StringBuilder("(");
            for (Object item : (java.util.List<?>) value) {
                out.append(render(item)).append(";");
            }
            return out.append(")").toString();
        }
        if (value instanceof java.util.Map) {
            StringBuilder out = new StringBuilder("{");
            for (java.util.Map.Entry<?, ?> entry : ((java.util.Map<?, ?>) value).entrySet()) {
                out.append(entry.getKey()).append("=").append(render(entry.getValue())).append(";");
            }
            return out.append("}").toString();
        }
        return String.valueOf(value);
    }

    @FuzzTest(maxDuration = "10m")
    void debeziumJson(byte[] value) {
        check(reader(new DebeziumRecords()::call, "pg.public.t"), value, true);
        // the same bytes as the flattening SMT's output, in a mode that reads every shape (rows, rewritten deletes, nulls)
        FlattenedDebeziumRecords flat = new FlattenedDebeziumRecords();
        check(v -> flat.call(null, v, null, "pg.public.t", 0, 0L, FLATTENED), value, true);
    }

    private static final String FLATTENED = "delete.tombstone.handling.mode=rewrite;add.fields=op,table,source.ts_ms,ts_ms";

    /** The registry this target plays: the seeds' placeholder id 0 is the valid neighbour's value schema (written by
     * scripts/fuzz_seeds.py), any other id one it does not hold. */
    private static final String REGISTRY = "http://fuzz.invalid/apis/ccompat/v6";

    @FuzzTest(maxDuration = "10m")
    void debeziumAvro(byte[] value) throws java.io.IOException {
        if (!registryPlayed) {
            java.nio.file.Path schema = java.nio.file.Paths.get("src/test/resources/io/cdcconformance/hostile/debezium-avro-value-schema.json");
            SchemaRegistryClient.remember(REGISTRY, 0, new org.apache.avro.Schema.Parser().parse(java.nio.file.Files.readString(schema)));
            registryPlayed = true;
        }
        if (value.length >= 5 && value[0] == 0) {
            int id = java.nio.ByteBuffer.wrap(value, 1, 4).getInt();
            if (id != 0) {
                SchemaRegistryClient.remember(REGISTRY, id, null);
            }
        }
        DebeziumAvroRecords avro = new DebeziumAvroRecords();
        check(v -> avro.call(null, v, null, "pg.public.t", 0, 0L, REGISTRY, ""), value, false);
    }

    private static boolean registryPlayed;

    @FuzzTest(maxDuration = "10m")
    void cloudcanalDebezium(byte[] value) {
        check(reader(new CloudCanalDebeziumRecords()::call, "cc.shop"), value, true);
    }

    @FuzzTest(maxDuration = "10m")
    void canalJson(byte[] value) {
        check(reader(new CanalRecords()::call, "canal.shop"), value, true);
    }

    @FuzzTest(maxDuration = "10m")
    void cloudcanalJson(byte[] value) {
        check(reader(new CloudCanalRecords()::call, "cc.shop"), value, true);
    }

    @FuzzTest(maxDuration = "10m")
    void dataworksJson(byte[] value) {
        check(withoutGroupKey(reader(new DataWorksRecords()::call, "dw.shop")), value, true, null);
    }

    @FuzzTest(maxDuration = "10m")
    void cesJson(byte[] value) {
        check(reader(new CesRecords()::call, "ces.db1.dbo.t"), value, true, InternalRowsTest.CES_STAGE);
    }

    @FuzzTest(maxDuration = "10m")
    void cesAvro(byte[] value) {
        check(reader(new CesAvroRecords()::call, "ces.db1.dbo.t"), value, false, InternalRowsTest.CES_STAGE);
    }

    @FuzzTest(maxDuration = "10m")
    void dtsAvro(byte[] value) {
        check(reader(new DtsRecords()::call, "dts.shop"), value, false);
    }
}
