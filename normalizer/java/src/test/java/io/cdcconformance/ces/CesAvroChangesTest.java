package io.cdcconformance.ces;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.cdcconformance.shared.Json;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.util.Utf8;
import org.junit.jupiter.api.Test;

/** A CES Avro datum's tree, its record maps made from the schema's shared names ({@code SmallMap.of}), is the tree of
 * maps built name by name it replaced; and a change to one record's map changes no other's. */
class CesAvroChangesTest {
    private final Random random = new Random(61);

    @Test
    void theTreeIsTheOneBuiltNameByName() {
        for (int i = 0; i < 2_000; i++) {
            GenericRecord datum = (GenericRecord) drawn(CesAvroChanges.DATA_SCHEMA);
            assertEquals(byName(datum), CesAvroChanges.tree(datum));
        }
    }

    @Test
    @SuppressWarnings("unchecked")
    void aChangeToOneRecordsMapLeavesAnotherAlone() {
        GenericRecord datum = (GenericRecord) drawn(CesAvroChanges.DATA_SCHEMA);
        Map<String, Object> changed = CesAvroChanges.tree(datum);
        Map<String, Object> other = CesAvroChanges.tree(datum);
        changed.put("added", "x");
        changed.remove("eventsource");
        ((Map<String, Object>) other.get("eventrow")).put("more", "y");
        Map<String, Object> whole = (Map<String, Object>) byName(datum);
        assertEquals(whole.keySet(), other.keySet());
        assertEquals(whole.get("eventsource"), other.get("eventsource"));
        assertEquals(((Map<String, Object>) whole.get("eventrow")).size() + 1, ((Map<String, Object>) other.get("eventrow")).size());
        assertEquals(whole.get("eventrow"), CesAvroChanges.tree(datum).get("eventrow"));
    }

    /** What {@code CesAvroChanges.tree} built before: a map filled field by field, records within records alike. */
    private static Object byName(Object avro) {
        if (avro instanceof GenericRecord) {
            GenericRecord record = (GenericRecord) avro;
            Map<String, Object> members = new LinkedHashMap<>();
            for (Schema.Field field : record.getSchema().getFields()) {
                members.put(field.name(), byName(record.get(field.name())));
            }
            return members;
        }
        if (avro instanceof List) {
            List<Object> items = new ArrayList<>();
            for (Object item : (List<?>) avro) {
                items.add(byName(item));
            }
            return items;
        }
        return avro == null ? Json.NULL : avro.toString();
    }

    /** A datum of the schema (records, arrays of 0-4 items, strings and ints: every type CES's data schema has). */
    private Object drawn(Schema schema) {
        switch (schema.getType()) {
            case RECORD:
                GenericData.Record record = new GenericData.Record(schema);
                for (Schema.Field field : schema.getFields()) {
                    record.put(field.pos(), drawn(field.schema()));
                }
                return record;
            case ARRAY:
                List<Object> items = new ArrayList<>();
                for (int i = random.nextInt(5); i > 0; i--) {
                    items.add(drawn(schema.getElementType()));
                }
                return items;
            case INT:
                return random.nextInt();
            case STRING:
                return new Utf8("v" + random.nextInt(1000));
            default:
                throw new IllegalArgumentException("CES's data schema has no " + schema.getType() + " yet: draw it here");
        }
    }
}
