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
import org.junit.jupiter.params.provider.Arguments;

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

    /** (name, key, value, code) of every hostile record of {@code formatId} that has a value and no headers. */
    public static Stream<Arguments> of(String formatId) throws IOException {
        try (InputStream table = HostileRecords.class.getResourceAsStream("hostile/" + formatId + ".json")) {
            if (table == null) {
                throw new IOException("no table for " + formatId + ": run scripts/fuzz_seeds.py (make test-java does)");
            }
            List<Arguments> rows = new ArrayList<>();
            for (JsonNode row : new ObjectMapper().readTree(table)) {
                rows.add(Arguments.of(row.get("name").asText(), bytes(row.get("key")), bytes(row.get("value")),
                        row.get("code").isNull() ? null : row.get("code").asText()));
            }
            assertTrue(!rows.isEmpty(), formatId + " has hostile records");
            return rows.stream();
        }
    }

    private static byte[] bytes(JsonNode text) {
        return text == null || text.isNull() ? null : Base64.getDecoder().decode(text.asText());
    }

    /** A reader that decides a record alone: its code is the record's, or none and its events. */
    public static void decides(Reader reader, String topic, String name, byte[] key, byte[] value, String code) {
        assertEquals(code, reader.call(key, value, null, topic, 0, 0L).getString(0), name);
    }

    /** A record stage of a format that assembles events from records: the code it gives, when it gives one, is the
     * record's; with none, a later stage may still decide (a segment's or a pair's rules). A valid record gets none. */
    public static void decidesIfAlone(Reader reader, String topic, String name, byte[] key, byte[] value, String code) {
        String given = reader.call(key, value, null, topic, 0, 0L).getString(0);
        if (given != null || code == null) {
            assertEquals(code, given, name);
        }
    }
}
