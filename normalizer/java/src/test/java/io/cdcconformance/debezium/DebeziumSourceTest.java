package io.cdcconformance.debezium;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import io.cdcconformance.shared.Json;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The source block's texts read without a parse per record give what the parse gave: PostgreSQL's sequence, the
 * connector's release line. */
class DebeziumSourceTest {
    /** The JSON parse's first element of a sequence, as the reader took it before (null: no array of one or more). */
    private static String parsedFirst(String text) {
        List<Object> sequence = Json.array(Json.read(text).root);
        if (sequence == null || sequence.isEmpty()) {
            return null;
        }
        return sequence.get(0) == Json.NULL ? "0" : Json.text(sequence.get(0));
    }

    /** Each spelling the compact reading takes gives the parse's element; Debezium's own spellings (Jackson's, compact)
     * are all taken; any other falls to the parse. */
    @Test
    void theSequenceAsThePostgresConnectorWritesIt() {
        List<String> written = List.of("[\"24023128\",\"24023184\"]", "[null,\"24023184\"]", "[\"0\",\"0\"]",
                "[\"18446744073709551615\",\"1\"]", "[\"1\",null]", "[null,null]");
        for (String text : written) {
            assertNotNull(DebeziumSource.firstOfCompactSequence(text), text);
        }
        List<String> spellings = new ArrayList<>(written);
        spellings.addAll(List.of("[ \"1\",\"2\"]", "[\"1\" ,\"2\"]", "[\"1\",\"2\",\"3\"]", "[\"1\"]", "[]", "[\"\\u0031\",\"2\"]",
                "[1,2]", "[\"-1\",\"2\"]", "[\"1\",\"2\"", "\"1\",\"2\"]", "[nul,\"2\"]", "[nullx,\"2\"]", "[\"\",\"2\"]", "[,]", "[\"1\",]"));
        Random random = new Random(61);
        for (int n = 0; n < 3000; n++) {
            StringBuilder text = new StringBuilder(written.get(random.nextInt(written.size())));
            for (int edits = 1 + random.nextInt(2); edits > 0 && text.length() > 0; edits--) {
                int at = random.nextInt(text.length());
                char c = "[]\",0123456789nul \\".charAt(random.nextInt(19));
                switch (random.nextInt(3)) {
                    case 0 -> text.insert(at, c);
                    case 1 -> text.deleteCharAt(at);
                    default -> text.setCharAt(at, c);
                }
            }
            spellings.add(text.toString());
        }
        for (String text : spellings) {
            String compact = DebeziumSource.firstOfCompactSequence(text);
            if (compact != null) {
                assertEquals(parsedFirst(text), compact, text);
            }
            assertEquals(parsedFirst(text), new DebeziumSource(Map.of("sequence", text)).sequenceCommit(), text);
        }
    }

    private static final Pattern RELEASE_LINE = Pattern.compile("^([0-9]+[.][0-9]+)");

    @Test
    void theReleaseLineAsTheRegularExpressionFoundIt() {
        List<String> versions = new ArrayList<>(List.of("3.2.0.Final", "1.9.7.Final", "2.7", "10.15.3", "3.", "3", ".2", "",
                "v3.2", "3.2x", "3..2", "٣.٢", "3.2.0-SNAPSHOT", "12345678901234567890.1"));
        Random random = new Random(61);
        for (int n = 0; n < 2000; n++) {
            StringBuilder text = new StringBuilder();
            for (int length = random.nextInt(8); length > 0; length--) {
                text.append("0123456789.aF-".charAt(random.nextInt(14)));
            }
            versions.add(text.toString());
        }
        for (String version : versions) {
            Matcher line = RELEASE_LINE.matcher(version);
            assertEquals(line.find() ? line.group(1) : null, new DebeziumSource(Map.of("version", version)).formatVersion(), version);
        }
    }
}
