package io.cdcconformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.stream.Stream;
import org.apache.spark.sql.Row;
import java.util.function.Consumer;
import org.junit.jupiter.api.DynamicTest;

/**
 * The tables of each format package's JUnit class: the format's hand-made hostile records with the code each must get
 * (null: its events), written from the generators by scripts/fuzz_seeds.py (make test-java runs it first).
 */
public final class HostileRecords {
    private HostileRecords() {
    }

    /** A reader's record call, as Spark makes it. */
    public interface Reader {
        Row call(byte[] key, byte[] value, scala.collection.Seq<Row> headers, String topic, Integer partition, Long offset);
    }

    /** One test per hostile record of {@code formatId} (with a value and no headers): a reader that decides a record
     * alone gives it exactly its code, or none and its events. */
    public static Stream<DynamicTest> decided(String formatId, Reader reader, String topic) throws IOException {
        return tests(formatId, row -> assertEquals(row.code, row.codeFrom(reader, topic), row.name));
    }

    /** The same for a record stage of a format that assembles events from records: the code it gives, when it gives
     * one, is the record's; with none, a later stage may still decide (a segment's or a pair's rules). A valid record
     * gets none. */
    public static Stream<DynamicTest> decidedIfAlone(String formatId, Reader reader, String topic) throws IOException {
        return tests(formatId, row -> {
            String given = row.codeFrom(reader, topic);
            if (given != null || row.code == null) {
                assertEquals(row.code, given, row.name);
            }
        });
    }

    private static Stream<DynamicTest> tests(String formatId, Consumer<Hostile> check) throws IOException {
        try (InputStream table = HostileRecords.class.getResourceAsStream("hostile/" + formatId + ".json")) {
            if (table == null) {
                throw new IOException("no table for " + formatId + ": run scripts/fuzz_seeds.py (make test-java does)");
            }
            List<DynamicTest> tests = new ArrayList<>();
            for (JsonNode row : new ObjectMapper().readTree(table)) {
                Hostile hostile = new Hostile(row.get("name").asText(), bytes(row.get("key")), bytes(row.get("value")),
                        row.get("code").isNull() ? null : row.get("code").asText());
                tests.add(DynamicTest.dynamicTest(hostile.name, () -> check.accept(hostile)));
            }
            assertTrue(!tests.isEmpty(), formatId + " has hostile records");
            return tests.stream();
        }
    }

    private static byte[] bytes(JsonNode text) {
        return text == null || text.isNull() ? null : Base64.getDecoder().decode(text.asText());
    }

    /** A row of a table: the record and the code it must get (null: its events). */
    private record Hostile(String name, byte[] key, byte[] value, String code) {
        String codeFrom(Reader reader, String topic) {
            return reader.call(key, value, null, topic, 0, 0L).getString(0);
        }
    }
}
