package io.cdcconformance.shared;

import java.util.AbstractList;
import java.util.List;
import java.util.Map;
import java.util.RandomAccess;
import org.apache.spark.sql.Row;

/**
 * An event's {@code columns}, shared, read only, by the events of many records: built once for a writer schema
 * (debezium-avro), or handed on from one record to the next while a table's records describe their columns alike
 * ({@link #repeated}: the readers whose columns come with each record). The exit check ({@link ModelExit}) checks such
 * a list once, not per event (it was a third of that check for the Avro reader, issue 61), and {@link InternalRows}
 * writes it once and copies its bytes after. A list of any other class is checked and written per event, as before.
 */
public final class SharedColumns extends AbstractList<Row> implements RandomAccess {
    private final Row[] columns;
    private volatile Checked checked;

    /** The check's verdict on these columns: the detail of their first violation, or none and each name's logical type. */
    record Checked(String[] violation, Map<String, String> logical) {
    }

    // the list each task thread gave out last (repeated): a table's records, one after another, describe its columns alike
    private static final ThreadLocal<SharedColumns[]> LAST = ThreadLocal.withInitial(() -> new SharedColumns[1]);

    /** {@code columns}, or the list this thread gave out last when it holds equal columns: a reader whose columns come
     * with each record (not once per writer schema) shares them so between the records of one table in a row. */
    public static SharedColumns repeated(List<Row> columns) {
        if (columns == null) {
            return null;
        }
        SharedColumns[] last = LAST.get();
        if (last[0] != null && last[0].equalTo(columns)) {
            return last[0];
        }
        last[0] = new SharedColumns(columns);
        return last[0];
    }

    private boolean equalTo(List<Row> other) {
        if (other.size() != columns.length) {
            return false;
        }
        for (int i = 0; i < columns.length; i++) {
            if (!columns[i].equals(other.get(i))) {
                return false;
            }
        }
        return true;
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
