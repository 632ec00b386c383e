package io.cdcconformance.shared;

import java.util.AbstractList;
import java.util.List;
import java.util.Map;
import java.util.RandomAccess;
import org.apache.spark.sql.Row;

/**
 * An event's {@code columns}, built once for a writer schema and shared, read only, by the events of every record of
 * it. The exit check ({@link ModelExit}) checks such a list once, not per event: it was a third of that check for the
 * Avro reader (issue 61). A list of any other class is checked per event, as before.
 */
public final class SharedColumns extends AbstractList<Row> implements RandomAccess {
    private final Row[] columns;
    private volatile Checked checked;

    /** The check's verdict on these columns: the detail of their first violation, or none and each name's logical type. */
    record Checked(String[] violation, Map<String, String> logical) {
    }

    public SharedColumns(List<Row> columns) {
        this.columns = columns.toArray(new Row[0]);
    }

    @Override
    public Row get(int index) {
        return columns[index];
    }

    @Override
    public int size() {
        return columns.length;
    }

    Checked checked(java.util.function.Function<List<Row>, Checked> check) {
        Checked known = checked;
        if (known == null) {
            known = check.apply(this);
            checked = known;
        }
        return known;
    }
}
