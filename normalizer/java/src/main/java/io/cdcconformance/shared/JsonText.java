package io.cdcconformance.shared;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashSet;
import java.util.Set;

/**
 * Whether a JSON text names one member twice in any of its objects, at any depth.
 *
 * <p>Spark's {@code from_json} keeps the last of two struct fields of one name and both entries of a map,
 * and JSON parsers disagree on which one wins; a certifying normalizer must not pick one silently. SQL can
 * see duplicates only one object at a time ({@code json_object_keys}, one parse per level), so one
 * streaming pass here looks at every level at once. The normalizer calls {@link #repeatsAMember} through
 * {@code java_method}; a text that is not JSON answers false (whether it parses is another rule's question).
 */
public final class JsonText {
    private static final JsonFactory FACTORY = JsonFactory.builder().build();

    private JsonText() {
    }

    public static boolean repeatsAMember(String text) {
        if (text == null) {
            return false;
        }
        Deque<Set<String>> open = new ArrayDeque<>();  // the names seen so far in each open object
        try (JsonParser parser = FACTORY.createParser(text)) {
            for (JsonToken token = parser.nextToken(); token != null; token = parser.nextToken()) {
                if (token == JsonToken.START_OBJECT) {
                    open.push(new HashSet<>());
                } else if (token == JsonToken.END_OBJECT) {
                    open.pop();
                } else if (token == JsonToken.FIELD_NAME && !open.peek().add(parser.currentName())) {
                    return true;
                }
            }
            return false;
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }
}
