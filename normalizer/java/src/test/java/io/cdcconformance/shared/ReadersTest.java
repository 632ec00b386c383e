package io.cdcconformance.shared;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.cdcconformance.debezium.DebeziumRecords;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The guard every entry point runs through, and the exit validator behind it. */
class ReadersTest {
    private static final String VALID = "{\"schema\":{\"type\":\"struct\",\"fields\":[{\"field\":\"after\",\"fields\":"
            + "[{\"type\":\"int32\",\"field\":\"id\"}]}]},\"payload\":{\"op\":\"c\",\"source\":{\"connector\":\"postgresql\","
            + "\"lsn\":200},\"after\":{\"id\":1}}}";

    @AfterEach
    void noFault() {
        System.clearProperty(Readers.FAIL_RECORD);
    }

    private static Row read(String value, long offset) {
        return new DebeziumRecords().call(null, value.getBytes(StandardCharsets.UTF_8), null, "t", 0, offset);
    }

    @Test
    void aRecordThatMakesTheReaderThrowIsItsOwnQuarantine() {
        System.setProperty(Readers.FAIL_RECORD, "t/0/7");
        Row failed = read(VALID, 7);
        assertEquals(Readers.READER_FAILURE, failed.getString(0));
        assertTrue(failed.getString(1).startsWith("DebeziumRecords threw java.lang.IllegalStateException"), failed.getString(1));
        assertEquals(List.of(), failed.get(2));
        Row next = read(VALID, 8);  // the reader goes on
        assertNull(next.get(0));
        assertEquals(1, ((List<?>) next.get(2)).size());
    }

    @Test
    void aStackOverflowAndAnyRuntimeExceptionAreCaughtAlike() {
        Row deep = Readers.events("Deep", () -> {
            throw new StackOverflowError();
        });
        assertEquals(Readers.READER_FAILURE, deep.getString(0));
        Row stage = Readers.stage("Stage", 4, "t", 0, 1L, () -> {
            throw new ArithmeticException("overflow");
        });
        assertEquals(4, stage.size());
        assertEquals(Readers.READER_FAILURE, stage.getString(0));
        assertEquals("Stage threw java.lang.ArithmeticException: overflow", stage.getString(1));
    }

    private static Row event(Map<String, String> after, String table, List<Row> key) {
        return new Events.Event().set("event_id", "t/0/0#0").set("format", "f").set("kind", "ROW")
                .set("source", Events.source("postgresql", null, "db", "public", table))
                .set("columns", List.of(Events.column("id", 1, "int4", "INT32", false, 1),
                        Events.column("at", 2, "timestamptz", "TIMESTAMP_TZ", true, null)))
                .set("key", key).set("after", after).row();
    }

    private static Row exit(Row event) {
        return ModelExit.checked(Events.output(null, null, List.of(event)));
    }

    @Test
    void anEventOutsideTheModelBecomesItsRecordsQuarantineWithThePath() {
        Map<String, String> after = new LinkedHashMap<>(Map.of("id", "1", "at", "+10000-01-01T00:30:00.000000Z"));
        Row late = exit(event(after, "t", List.of(Events.keyEntry("id", "1"))));
        assertEquals("UNDECODABLE_VALUE", late.getString(0));
        assertTrue(late.getString(1).contains("after.at: not TIMESTAMP_TZ text"), late.getString(1));

        Row surrogate = exit(event(Map.of("id", "1"), "t\ud800", List.of(Events.keyEntry("id", "1"))));
        assertEquals("UNDECODABLE_VALUE", surrogate.getString(0));
        assertTrue(surrogate.getString(1).contains("source.table"), surrogate.getString(1));

        Row unnamed = exit(event(Map.of("id", "1"), "t", List.of(Events.keyEntry(null, "1"))));
        assertEquals("SCHEMA_MISMATCH", unnamed.getString(0));

        Row fine = exit(event(Map.of("id", "-2147483648", "at", "0001-01-01T00:00:00.000000Z"), "t",
                List.of(Events.keyEntry("id", "-2147483648"))));
        assertNull(fine.get(0));
    }
}
