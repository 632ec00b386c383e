package io.cdcconformance.shared;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Every fixture of model-grammar.json, judged by the readers' validator as the file says (the harness's Python
 * check is tested against the same fixtures: tests/unit/test_model_grammar.py). */
class ModelGrammarTest {
    static Stream<Arguments> fixtures() {
        List<Arguments> cases = new ArrayList<>();
        for (Object entry : Json.array(ModelGrammar.document().get("fixtures"))) {
            Map<String, Object> fixture = Json.object(entry);
            String type = Json.text(fixture.get("type"));
            for (String verdict : new String[] {"valid", "invalid"}) {
                for (Object text : Json.array(fixture.get(verdict))) {
                    cases.add(Arguments.of(type, Json.text(text), verdict.equals("valid")));
                }
            }
        }
        return cases.stream();
    }

    static Stream<Arguments> positionFixtures() {
        List<Arguments> cases = new ArrayList<>();
        for (Object entry : Json.array(Json.object(ModelGrammar.document().get("position")).get("fixtures"))) {
            Map<String, Object> fixture = Json.object(entry);
            for (String verdict : new String[] {"valid", "invalid"}) {
                for (Object text : Json.array(fixture.get(verdict))) {
                    cases.add(Arguments.of(Json.text(fixture.get("part")), Json.text(text), verdict.equals("valid")));
                }
            }
        }
        return cases.stream();
    }

    @ParameterizedTest(name = "{0} {1} valid={2}")
    @MethodSource("positionFixtures")
    void eachPositionFixtureIsJudgedAsTheFileSays(String part, String text, boolean valid) {
        assertEquals(valid, ModelGrammar.positionProblem(part, text) == null);
    }

    /** A position part the hand-written check accepts is one the file's pattern accepts: random edits of valid parts
     * (fixed seed), judged both ways. */
    @ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(strings = {"commit", "event", "seq"})
    void theFastPositionCheckJudgesAsThePattern(String part) {
        List<String> valid = List.of("00000000000000000150", "0000002C000003600019", "mysql-bin.0001000000:00000000000000000004",
                "0000000000", "x:00000000000000000000", "\uD83D\uDE00:12345678901234567890");
        String alphabet = "0123456789ABCDEFa:.-x\uD800";
        java.util.Random random = new java.util.Random(61);
        for (int n = 0; n < 40_000; n++) {
            String candidate = RandomEdits.edited(valid.get(random.nextInt(valid.size())), random, alphabet, 3);
            assertEquals(ModelGrammar.positionProblem(part, candidate, false) == null,
                    ModelGrammar.positionProblem(part, candidate, true) == null, () -> part + " " + candidate);
        }
        String longPrefix = "é".repeat(512) + ":" + "0".repeat(20);
        assertEquals(ModelGrammar.positionProblem("commit", longPrefix, false), ModelGrammar.positionProblem("commit", longPrefix, true));
    }

    /** The hand-written matchers (GrammarFastPaths) judge as the file's patterns do: each type's valid texts, edited at
     * random (fixed seed) a few characters at a time, both ways. */
    @ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(strings = {"INT8", "INT64", "DECIMAL(5,2)", "DECIMAL(3,0)", "DECIMAL",
        "FLOAT64", "BOOLEAN", "BYTES", "DATE", "TIME(3)", "TIME(9)", "TIMESTAMP(6)", "TIMESTAMP(9)", "TIMESTAMP_TZ"})
    void theFastMatchersJudgeAsThePatterns(String type) {
        List<String> valid = new ArrayList<>(List.of("0", "-1", "12.30", "1.0E10", "true", "3q2+7w==", "AAEC", "2024-02-29",
                "23:59:59.999999", "23:59:59.999999999", "2018-06-20T15:13:16.945104", "2018-06-20T15:13:16.945104123",
                "2025-03-14T16:45:01.000000Z", "2025-03-14T16:45:01.123456789Z", "-infinity", "NaN", "-Infinity", "999.99"));
        String alphabet = "0123456789-.:TZE+/=AaInfity ";
        java.util.Random random = new java.util.Random(39);
        for (int n = 0; n < 40_000; n++) {
            String candidate = RandomEdits.edited(valid.get(random.nextInt(valid.size())), random, alphabet, 4);
            assertEquals(ModelGrammar.problem(type, candidate, false) == null, ModelGrammar.problem(type, candidate, true) == null,
                    () -> type + " " + candidate);
        }
    }

    @ParameterizedTest(name = "{0} {1} valid={2}")
    @MethodSource("fixtures")
    void eachFixtureIsJudgedAsTheFileSays(String type, String text, boolean valid) {
        assertEquals(valid, ModelGrammar.problem(type, text) == null, () -> ModelGrammar.problem(type, text));
    }

    /** The closed lists (issue 49): what the model names passes, a word a producer made up does not. */
    @ParameterizedTest
    @org.junit.jupiter.params.provider.CsvSource(delimiter = '|', value = {
        "kind|ROW|true", "kind|row|false", "op|DELETE|true", "op|MERGE|false", "pk_change.role|NEW|true",
        "ddl.change|TRUNCATE|true", "ddl.change|EXPLODE|false", "ddl.change|''|false"})
    void enumerations(String field, String text, boolean valid) {
        assertEquals(valid, ModelGrammar.enumerationProblem(field, text) == null);
    }
}
