package io.cdcconformance;

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

    @ParameterizedTest(name = "{0} {1} valid={2}")
    @MethodSource("fixtures")
    void eachFixtureIsJudgedAsTheFileSays(String type, String text, boolean valid) {
        assertEquals(valid, ModelGrammar.problem(type, text) == null, () -> ModelGrammar.problem(type, text));
    }
}
