package io.cdcconformance.bench;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** Outputs kept for one reader and topic at a time (a bench of every format holds one format's), keyed by record. */
final class KeptOutputs<V> {
    private final Map<String, V> outputs = new ConcurrentHashMap<>();
    private volatile String owner = "";

    /** The output kept for {@code record} of {@code readerTopic}; null when there is none (another's are dropped). */
    V get(String readerTopic, String record) {
        if (!owner.equals(readerTopic)) {
            keepOnly(readerTopic);
        }
        return outputs.get(record);
    }

    void put(String record, V output) {
        outputs.put(record, output);
    }

    /** The output kept for {@code record} when {@code readerTopic} is the one kept, without dropping any. */
    V peek(String readerTopic, String record) {
        return owner.equals(readerTopic) ? outputs.get(record) : null;
    }

    private synchronized void keepOnly(String readerTopic) {
        if (!owner.equals(readerTopic)) {
            outputs.clear();
            owner = readerTopic;
        }
    }
}
