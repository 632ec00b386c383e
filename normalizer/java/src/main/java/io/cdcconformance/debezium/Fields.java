package io.cdcconformance.debezium;

import io.cdcconformance.shared.ConnectTypes;
import io.cdcconformance.shared.SharedColumns;

import java.util.AbstractList;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.RandomAccess;
import java.util.Set;
import java.util.function.Function;
import org.apache.spark.sql.Row;

/**
 * A Connect schema's fields as read (a row's, a key's), with what the rules ask of them all: their names, whether one
 * repeats or has none, the first type that is none of Connect's. A writer schema's fields are read once and shared by
 * every record of it ({@link io.cdcconformance.shared.SharedList}), and so is all of this: per record it cost a set of
 * names, a walk of the types and the event's column list each time (a profile of the Avro reader, issue 61). Read only.
 */
final class Fields extends AbstractList<DebeziumRecords.Field> implements RandomAccess {
    private final List<DebeziumRecords.Field> fields;
    final List<String> names;        // each field's name, in order (null for one without)
    final Set<String> declared;      // the names, as a set
    final boolean repeats;           // a name given twice
    final String unknownType;        // the first type that is none of Connect's, or null
    private volatile Columns columns;

    /** The event's columns for one list of key names (the key schema's: shared as these are), kept for the next. */
    private record Columns(List<String> keyNames, SharedColumns rows) {
    }

    Fields(List<DebeziumRecords.Field> fields) {
        this.fields = Collections.unmodifiableList(fields);
        List<String> named = new ArrayList<>(fields.size());
        for (DebeziumRecords.Field field : fields) {
            named.add(field.field);
        }
        names = Collections.unmodifiableList(named);
        declared = Collections.unmodifiableSet(new HashSet<>(named));
        repeats = declared.size() < named.size();
        unknownType = firstUnknownType(fields);
    }

    @Override
    public DebeziumRecords.Field get(int index) {
        return fields.get(index);
    }

    @Override
    public int size() {
        return fields.size();
    }

    boolean unnamed() {
        return declared.contains(null);
    }

    /** The event's columns, as {@code make} builds them for {@code keyNames}: built again only when the key names are
     * another list than the last record's (the same key schema shares its list). */
    SharedColumns columns(List<String> keyNames, Function<List<String>, List<Row>> make) {
        Columns known = columns;
        if (known == null || known.keyNames != keyNames) {
            known = new Columns(keyNames, SharedColumns.repeated(make.apply(keyNames)));  // a JSON record's: its own Fields
            columns = known;
        }
        return known.rows;
    }

    /** The first field type that is none of Kafka Connect's (Schema.Type: the eight primitives, bytes, struct, array,
     * map): JsonConverter writes no other, and taken as a type of its own its upper-cased name could spell one of the
     * model's (a {@code bytes(} was BYTES with its value unchecked: found by fuzzing). Null when every type is Connect's. */
    private static String firstUnknownType(List<DebeziumRecords.Field> fields) {
        for (DebeziumRecords.Field f : fields) {
            if (f.type != null && !ConnectTypes.isConnectType(f.type)) {
                return f.type;
            }
            if (!ConnectTypes.writtenAs(f.name, f.type)) {
                return f.name + " on " + f.type;
            }
        }
        return null;
    }
}
