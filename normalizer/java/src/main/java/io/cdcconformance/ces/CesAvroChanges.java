package io.cdcconformance.ces;

import io.cdcconformance.shared.*;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericRecord;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.api.java.UDF1;

/**
 * {@code ces-avro}, one assembled logical event: {@code data} (the concatenated segments' bytes) is an Avro
 * {@code Data} datum ({@code ces-data.avsc} beside this file) whose {@code eventrow.old/current} are JSON texts, as in
 * JSON mode. The datum becomes the same tree as JSON mode's (numbers as text), and {@link CesChanges} does the rest.
 */
public class CesAvroChanges extends CesChanges implements UDF1<Row, Row> {
    private static final long serialVersionUID = 1L;  // Spark sends it to executors serialized
    public static final Schema DATA_SCHEMA = CesAvroRecords.schema("ces-data");

    @Override
    protected String formatId() {
        return "ces-avro";
    }

    @Override
    public DataLevel data(byte[] bytes) {
        DataLevel level = new DataLevel();
        String[] found = new String[1];
        GenericRecord datum = CesAvroRecords.read(bytes, DATA_SCHEMA, found);
        level.notUtf8 = AvroGuard.NOT_UTF8.equals(found[0]);
        level.document = datum == null ? null : tree(datum);
        return level;
    }

    /** A datum as the JSON reader's tree: records as maps, arrays as lists, everything else as its text. */
    @SuppressWarnings("unchecked")
    public static Object treeOf(Object avro) {
        if (avro instanceof GenericRecord) {
            return tree((GenericRecord) avro);
        }
        if (avro instanceof List) {
            List<Object> items = new ArrayList<>();
            for (Object item : (List<Object>) avro) {
                items.add(treeOf(item));
            }
            return items;
        }
        return avro == null ? Json.NULL : avro.toString();
    }

    public static Map<String, Object> tree(GenericRecord record) {
        Object[] values = new Object[record.getSchema().getFields().size()];
        for (int i = 0; i < values.length; i++) {
            values[i] = treeOf(record.get(i));  // by position: a lookup by name hashes it
        }
        return SmallMap.of(NAMES.computeIfAbsent(record.getSchema(), AvroGuard::fieldNames), values);
    }

    /** The field names of each record schema of {@link #DATA_SCHEMA}, made on its first datum: a record's map is then
     * its values alone, no name put or hashed per record (the puts were a tenth of a ces-avro pass, issue 61). Every
     * datum is read with that one schema, so its few record schemas are all this ever holds. */
    private static final Map<Schema, SmallMap.Names> NAMES = new ConcurrentHashMap<>();
}
