package io.cdcconformance.shared;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

/**
 * Type texts worked out once per JVM: a table's type texts repeat in every message of it, and typing one reads its
 * arguments. Bounded by the characters it holds, not by entries, since hostile records could name types without end
 * (2,500 distinct 100 KB texts filled a 256 MB executor under an entry bound); a text it no longer takes is typed
 * again, not refused.
 */
public final class TypeCache {
    /** 4 M characters (8 MB) of type texts: far beyond any schema's, small beside an executor's heap. */
    private static final long LIMIT_CHARS = 4L << 20;
    private static final String NONE = "\u0000";  // a cached "no logical type" (the map holds no nulls)

    private final Map<String, String> typed = new ConcurrentHashMap<>();
    private final AtomicLong chars = new AtomicLong();
    private final Function<String, String> type;

    public TypeCache(Function<String, String> type) {
        this.type = type;
    }

    public String get(String text) {
        if (text == null) {
            return null;
        }
        String cached = typed.get(text);
        if (cached == null) {
            String computed = type.apply(text);
            cached = computed == null ? NONE : computed;
            if (chars.addAndGet(text.length()) <= LIMIT_CHARS) {
                typed.put(text, cached);
            } else {
                chars.addAndGet(-text.length());
            }
        }
        return cached.equals(NONE) ? null : cached;
    }
}
