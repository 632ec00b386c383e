package io.cdcconformance.shared;

import java.util.ArrayList;
import java.util.function.Function;

/**
 * A list of a document that every record of one writer schema shares: a Connect schema's fields, built once per Avro
 * schema ({@code debezium.AvroConnect}) and read only after that. What a reader derives from it (its fields read, the
 * shape it was found to fit) is derived on the first record, not on each: a profile of the Avro reader found the
 * schema's walk per record a tenth of its time (docs/performance.md). A JSON record's lists are its own and are never
 * this class.
 */
public final class SharedList extends ArrayList<Object> {
    private static final long serialVersionUID = 1L;
    private transient volatile Object derived;
    private transient volatile Shape fitted;

    /** What {@code derive} gives for this list, computed once (a race computes equal values: {@code derive} must be a
     * function of the list alone, its result read only). */
    @SuppressWarnings("unchecked")
    public <T> T derived(Function<SharedList, T> derive) {
        Object known = derived;
        if (known == null) {
            known = derive.apply(this);
            derived = known;
        }
        return (T) known;
    }

    boolean knownToFit(Shape shape) {
        return fitted == shape;
    }

    void fits(Shape shape) {
        fitted = shape;
    }
}
