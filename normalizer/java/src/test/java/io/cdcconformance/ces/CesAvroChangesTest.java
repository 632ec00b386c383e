package io.cdcconformance.ces;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.cdcconformance.shared.Json;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.util.Utf8;
import org.junit.jupiter.api.Test;

/** A CES Avro datum's tree, read from its bytes by the guard ({@code AvroGuard.tree}), its record maps made from the
 * schema's shared names ({@code SmallMap.of}), is the tree of maps built name by name from Avro's datum it replaced; and
 * a change to one record's map changes no other's. */
class CesAvroChangesTest {
    private final Random random = new Random(61);

    @Test
    void theTreeIsTheOneBuiltNameByName() throws IOException {
        for (int i = 0; i < 2_000; i++) {
            GenericRecord datum = (GenericRecord) drawn(CesAvroChanges.DATA_SCHEMA);
            Map<String, Object> tree = tree(datum);
            assertEquals(byName(datum), tree);
            assertEquals(Json.text(byName(datum)), Json.text(tree));  // the members' order too
        }
    }

    private static Map<String, Object> tree(GenericRecord datum) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(out, null);
        new GenericDatumWriter<>(CesAvroChanges.DATA_SCHEMA).write(datum, encoder);
        encoder.flush();
        return new CesAvroChanges().data(out.toByteArray()).document;
    }

    @Test
    @SuppressWarnings("unchecked")
    void aChangeToOneRecordsMapLeavesAnotherAlone() throws IOException {
        GenericRecord datum = (GenericRecord) drawn(CesAvroChanges.DATA_SCHEMA);
        Map<String, Object> changed = tree(datum);
        Map<String, Object> other = tree(datum);
        changed.put("added", "x");
        changed.remove("eventsource");
        ((Map<String, Object>) other.get("eventrow")).put("more", "y");
        Map<String, Object> whole = (Map<String, Object>) byName(datum);
        assertEquals(whole.keySet(), other.keySet());
        assertEquals(whole.get("eventsource"), other.get("eventsource"));
        assertEquals(((Map<String, Object>) whole.get("eventrow")).size() + 1, ((Map<String, Object>) other.get("eventrow")).size());
        assertEquals(whole.get("eventrow"), tree(datum).get("eventrow"));
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

    private static final int[] INTS = {Integer.MIN_VALUE, -1, 0, 1, Integer.MAX_VALUE};
    // ASCII, Latin-1, other BMP text, a non-BMP character, JSON's own characters, an empty text before the digits
    private static final String[] TEXTS = {"v", "", "\u00e9t\u00e9", "\u4e2d\u6587", "\ud83d\ude00", "{\"a\":\"1\"}", "\\\"\n"};

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
                return random.nextInt(4) == 0 ? INTS[random.nextInt(INTS.length)] : random.nextInt();
            case STRING:
                return new Utf8(TEXTS[random.nextInt(TEXTS.length)] + random.nextInt(1000));
            default:
                throw new IllegalArgumentException("CES's data schema has no " + schema.getType() + " yet: draw it here");
        }
    }
}
