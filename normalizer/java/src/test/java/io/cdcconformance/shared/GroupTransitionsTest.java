package io.cdcconformance.shared;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.apache.spark.sql.Row;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The JVM's group state machine holds the table its Python twin holds (tests/unit/test_group_transitions.py). */
class GroupTransitionsTest {
    private static final JsonNode TABLE = table();

    private static JsonNode table() {
        try (InputStream in = GroupTransitionsTest.class.getResourceAsStream("/group-transitions.json")) {
            return new ObjectMapper().readTree(in);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    static Stream<JsonNode> cases() {
        List<JsonNode> cases = new ArrayList<>();
        TABLE.get("cases").forEach(cases::add);
        return cases.stream();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void stepsAsTheTableSays(JsonNode kase) throws ReflectiveOperationException {
        JsonNode spec = TABLE.get("machines").get(kase.get("machine").asText());
        GroupAssembly.ReleaseRule rule = Class.forName("io.cdcconformance." + spec.get("rule").asText())
                .asSubclass(GroupAssembly.ReleaseRule.class).getDeclaredConstructor().newInstance();
        String[][] fingerprints = new String[spec.get("fingerprints").size()][];
        for (int i = 0; i < fingerprints.length; i++) {
            List<String> fields = new ArrayList<>();
            spec.get("fingerprints").get(i).forEach(field -> fields.add(field.asText()));
            fingerprints[i] = fields.toArray(String[]::new);
        }
        GroupMachine machine = new GroupMachine(rule, fingerprints, "COPY", "CONFLICT", spec.get("timeout_ms").asLong(),
                spec.get("window_ms").asLong());
        GroupMachine.Stored state = null;
        int number = 0;
        for (JsonNode step : kase.get("steps")) {
            String where = kase.get("why").asText() + ", step " + ++number;
            GroupMachine.Step result;
            if (step.path("time_out").asBoolean()) {
                result = machine.timeOut(state);
            } else {
                List<GroupMachine.Arrival> arrivals = new ArrayList<>();
                step.get("arrive").forEach(a -> arrivals.add(new GroupMachine.Arrival(ReleaseRulesTest.row(a.get("member")), a.get("at").asLong())));
                result = machine.arrive(state, arrivals, step.path("rejected").asBoolean());
            }
            assertEquals(step.get("released").toString(), released(result.released()), where);
            state = result.next();
            assertEquals(step.get("state").toString(), described(state, machine), where);
        }
    }

    private static String released(List<GroupMachine.Release> releases) {
        ObjectMapper json = new ObjectMapper();
        List<Object> out = new ArrayList<>();
        for (GroupMachine.Release release : releases) {
            out.add(java.util.Arrays.asList(labels(release.members()), release.late()));
        }
        return json.valueToTree(out).toString();
    }

    private static List<String> labels(List<Row> members) {
        List<String> labels = new ArrayList<>();
        members.forEach(member -> labels.add(member.getAs("label")));
        return labels;
    }

    private static String described(GroupMachine.Stored state, GroupMachine machine) {
        ObjectMapper json = new ObjectMapper();
        if (state == null) {
            return "null";
        }
        java.util.Map<String, Object> out = new java.util.LinkedHashMap<>();
        if (state.members() != null) {
            out.put("open", labels(state.members()));
        } else {
            out.put("released", true);
        }
        out.put("timer", machine.timer(state));
        return json.valueToTree(out).toString();
    }
}
