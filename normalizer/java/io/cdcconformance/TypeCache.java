package io.cdcconformance;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * Type texts worked out once per JVM: a table's type texts repeat in every message of it, and typing one parses it
 * with regular expressions. Bounded, since hostile records could name types without end; a text it no longer takes
 * is typed again, not refused.
 */
final class TypeCache {
    private static final int LIMIT = 100_000;
    private static final String NONE = "\u0000";  // a cached "no logical type" (the map holds no nulls)

    private final Map<String, String> typed = new ConcurrentHashMap<>();
    private final Function<String, String> type;

    TypeCache(Function<String, String> type) {
        this.type = type;
    }

    String get(String text) {
        if (text == null) {
            return null;
        }
        String cached = typed.get(text);
        if (cached == null) {
            String computed = type.apply(text);
            cached = computed == null ? NONE : computed;
            if (typed.size() < LIMIT) {
                typed.put(text, cached);
            }
        }
        return cached.equals(NONE) ? null : cached;
    }
}
