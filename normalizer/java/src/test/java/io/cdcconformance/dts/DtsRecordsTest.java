package io.cdcconformance.dts;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.cdcconformance.HostileRecords;
import java.io.IOException;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/** The package's readers over their formats' hostile records, each with the code it must get (HostileRecords). */
class DtsRecordsTest {
    @TestFactory
    Stream<DynamicTest> dtsAvroGetsItsCodes() throws IOException {
        return HostileRecords.decided("dts-avro", new DtsRecords()::call, "dts.shop");
    }

    /** tags.pk_uk_info is parsed once per text (issue 61): the names read from the cache are the parse's, every time,
     * for every kind of text, and no record can change what the next one reads. */
    @Test
    void keyNamesReadFromTheCacheAreTheParsedOnes() {
        String wide = "{\"PRIMARY\":[\"" + "k".repeat(5000) + "\"]}";  // past the cached length: parsed every time
        Object[][] cases = {
            {"{\"PRIMARY\":[\"id\",\"region\"]}", List.of("id", "region")},
            {"{\"PRIMARY\":[\"id\"],\"UNIQUE_1\":[\"mail\"]}", List.of("id")},
            {" { \"PRIMARY\" : [ \"\\u0069d\" ] } ", List.of("id")},
            {"{\"PRIMARY\":[null]}", Arrays.asList((String) null)},
            {"{\"PRIMARY\":[]}", List.of()},
            {"{\"UNIQUE_1\":[\"mail\"]}", null},
            {"{\"PRIMARY\":\"id\"}", null},
            {"{\"PRIMARY\":[\"id\"],\"UNIQUE_1\":7}", null},
            {"{\"PRIMARY\":[\"id\"]", null},
            {"[]", null},
            {null, null},
            {wide, List.of("k".repeat(5000))},
        };
        for (int round = 0; round < 3; round++) {
            for (Object[] c : cases) {
                assertEquals(c[1], DtsRecords.keyNames((String) c[0]), String.valueOf(c[0]));
            }
        }
        String text = "{\"PRIMARY\":[\"id\"]}";
        List<String> names = DtsRecords.keyNames(text);
        assertSame(names, DtsRecords.keyNames(new String(text.toCharArray())), "an equal text is read from the cache");
        assertThrows(UnsupportedOperationException.class, () -> names.add("x"), "a cached list is shared: read-only");
        for (int i = 0; i < 10_000; i++) {  // more tables than the cache holds: it starts again, never wrong
            assertEquals(List.of("c" + i), DtsRecords.keyNames("{\"PRIMARY\":[\"c" + i + "\"]}"));
        }
        assertNull(DtsRecords.keyNames("{\"PRIMARY\":{}}"));
    }
}
