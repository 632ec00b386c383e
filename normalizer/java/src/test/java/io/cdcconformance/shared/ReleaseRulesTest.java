package io.cdcconformance.shared;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.catalyst.expressions.GenericRow;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The JVM's release rules hold the table the Python twins hold (tests/unit/test_release_rules.py). */
class ReleaseRulesTest {
    private static final Set<String> INTEGERS = Set.of("seg_index", "total", "partition");

    static Stream<JsonNode> cases() throws IOException {
        try (InputStream table = ReleaseRulesTest.class.getResourceAsStream("/release-rules.json")) {
            List<JsonNode> cases = new ArrayList<>();
            new ObjectMapper().readTree(table).get("cases").forEach(cases::add);
            return cases.stream();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void releasesAsTheTableSays(JsonNode kase) throws ReflectiveOperationException {
        GroupAssembly.ReleaseRule rule = Class.forName("io.cdcconformance." + kase.get("rule").asText())
                .asSubclass(GroupAssembly.ReleaseRule.class).getDeclaredConstructor().newInstance();
        List<Row> members = new ArrayList<>();
        kase.get("members").forEach(member -> members.add(row(member)));
        assertEquals(kase.get("ready").asBoolean(), rule.ready(members), kase.get("why").asText());
    }

    /** A member as the state function gets it, fields read by name (a schema would load Spark's type system, which
     * this module's test class path leaves out). */
    static Row row(JsonNode member) {
        List<String> names = new ArrayList<>();
        List<Object> values = new ArrayList<>();
        member.fields().forEachRemaining(field -> {
            names.add(field.getKey());
            values.add(value(field.getKey(), field.getValue()));
        });
        return new GenericRow(values.toArray()) {
            @Override
            public int fieldIndex(String name) {
                return names.indexOf(name);
            }
        };
    }

    private static Object value(String name, JsonNode node) {
        if (node.isNull()) {
            return null;
        } else if (INTEGERS.contains(name)) {
            return node.asInt();
        } else if (name.equals("offset")) {
            return node.asLong();
        } else if (node.isBoolean()) {
            return node.asBoolean();
        } else if (name.equals("data")) {
            return node.asText().getBytes(StandardCharsets.UTF_8);
        }
        return node.asText();
    }
}
