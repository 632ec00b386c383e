package io.cdcconformance.debezium;

import io.cdcconformance.shared.AvroGuard;
import io.cdcconformance.shared.SmallMap;
import io.cdcconformance.shared.Json;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericEnumSymbol;
import org.apache.avro.generic.GenericFixed;
import org.apache.avro.generic.GenericRecord;

/**
 * An Avro writer schema and datum, as Kafka Connect's Avro converter wrote them from a Connect record, read back as the
 * document Kafka Connect's JsonConverter writes for the same record ({@code {"schema","payload"}}, schemas enabled):
 * the Connect schema the Avro schema carries (the converter's {@code AvroData}: {@code connect.name},
 * {@code connect.parameters}, {@code connect.version}, {@code connect.type} for int8 and int16, optional as a union
 * with null), and each value as JsonConverter renders it (bytes and decimals as base64, numbers as their tokens). What
 * follows is debezium-json's reader, unchanged: the same change gives the same events whichever converter wrote it.
 */
public final class AvroConnect {
    private AvroConnect() {
    }

    /** The guard's tree of a datum ({@link AvroGuard#tree}) as {@link #value} renders it: read from the bytes in one
     * walk, where the generic datum walked again was a fifth of the debezium-avro reader (issue 61). */
    public static final AvroGuard.Tree TREE = new AvroGuard.Tree() {
        @Override
        public SmallMap.Names names(Schema record) {
            return fieldNames(record);
        }

        @Override
        public Object integer(long value) {
            return Json.number(Long.toString(value));
        }

        @Override
        public Object generic(Schema schema, Object datum) {
            return value(schema, datum);
        }
    };

    // each writer schema's Connect schema, built once per task thread: the registry client hands out one Schema per id,
    // and a schema never changes (read only, shared by every record of it). Found by identity: Avro's Schema.equals
    // walks the whole schema, and that took a tenth of the reader's time (a profile of bench, issue 61)
    private static final ThreadLocal<Map<Schema, Map<String, Object>>> CONNECT_SCHEMAS =
            ThreadLocal.withInitial(java.util.IdentityHashMap::new);

    // each record schema's field names, made once per task thread (by identity, as CONNECT_SCHEMAS): a record's map is
    // its values alone, no name put, hashed or indexed per record (6% of the reader alone, issue 61)
    private static final ThreadLocal<Map<Schema, SmallMap.Names>> FIELD_NAMES =
            ThreadLocal.withInitial(java.util.IdentityHashMap::new);

    private static SmallMap.Names fieldNames(Schema record) {
        return madeOnce(FIELD_NAMES, record, AvroGuard::fieldNames);
    }

    /** What {@code make} derives from a writer schema, made on the thread's first record of it and kept (at most the
     * registry client's capacity of schemas, then it starts again). */
    private static <T> T madeOnce(ThreadLocal<Map<Schema, T>> kept, Schema schema, java.util.function.Function<Schema, T> make) {
        Map<Schema, T> made = kept.get();
        T found = made.get(schema);
        if (found == null) {
            if (made.size() >= SchemaRegistryClient.CAPACITY) {
                made.clear();
            }
            found = make.apply(schema);
            made.put(schema, found);
        }
        return found;
    }

    /** The JsonConverter document of a datum written with {@code schema}, its value already rendered
     * ({@link #TREE}). */
    static Map<String, Object> document(Schema schema, Object payload) {
        Map<String, Object> document = new SmallMap<>(2);
        document.put("schema", connectSchema(schema));
        document.put("payload", payload);
        return document;
    }

    /** The Connect schema of a writer schema, built on its first record (at most the registry client's capacity kept). */
    static Map<String, Object> connectSchema(Schema writer) {
        return madeOnce(CONNECT_SCHEMAS, writer, avro -> connectSchema(avro, null));
    }

    /** The Connect schema as JsonConverter writes it ({@code JsonConverter.asJsonSchema}); {@code field}: the name of
     * the struct field it is the schema of. */
    static Map<String, Object> connectSchema(Schema avro, String field) {
        boolean optional = false;
        Schema schema = avro;
        if (avro.getType() == Schema.Type.UNION) {
            Schema kept = nonNull(avro);
            optional = kept != avro;
            schema = kept;
        }
        Map<String, Object> out = new SmallMap<>();
        out.put("type", connectType(schema));
        switch (schema.getType()) {
            case RECORD -> {
                List<Object> fields = new io.cdcconformance.shared.SharedList();  // read once, not per record
                for (Schema.Field member : schema.getFields()) {
                    fields.add(connectSchema(member.schema(), member.name()));
                }
                out.put("fields", fields);
            }
            case ARRAY -> out.put("items", connectSchema(schema.getElementType(), null));
            case MAP -> {
                out.put("keys", Map.of("type", "string", "optional", Boolean.FALSE));
                out.put("values", connectSchema(schema.getValueType(), null));
            }
            default -> { }
        }
        out.put("optional", optional);
        String name = connectName(schema);
        if (name != null) {
            out.put("name", name);
        }
        Object version = schema.getObjectProp("connect.version");
        if (version instanceof Number) {
            out.put("version", Json.number(version.toString()));
        }
        Object parameters = schema.getObjectProp("connect.parameters");
        if (parameters instanceof Map) {
            Map<String, Object> texts = new SmallMap<>();
            for (Map.Entry<?, ?> entry : ((Map<?, ?>) parameters).entrySet()) {
                texts.put(String.valueOf(entry.getKey()), String.valueOf(entry.getValue()));
            }
            out.put("parameters", texts);
        }
        if (field != null) {
            out.put("field", field);
        }
        return out;
    }

    /** A union of null and one other branch is that branch, optional; any other union is kept whole (no Connect
     * schema Debezium writes is one: its values are no Connect value, and the reader's type check refuses them). */
    private static Schema nonNull(Schema union) {
        List<Schema> branches = union.getTypes();
        if (branches.size() == 2) {
            if (branches.get(0).getType() == Schema.Type.NULL) {
                return branches.get(1);
            }
            if (branches.get(1).getType() == Schema.Type.NULL) {
                return branches.get(0);
            }
        }
        return union;
    }

    private static String connectName(Schema schema) {
        String name = schema.getProp("connect.name");
        if (name != null) {
            return name;
        }
        return schema.getType() == Schema.Type.RECORD ? schema.getFullName() : null;
    }

    /** Connect's type name, as JsonConverter writes it: AvroData writes int8 and int16 as Avro ints marked with
     * {@code connect.type}, float32 as float, float64 as double, a Connect struct as a record. */
    private static String connectType(Schema schema) {
        return switch (schema.getType()) {
            case INT -> {
                String declared = schema.getProp("connect.type");
                yield "int8".equals(declared) || "int16".equals(declared) ? declared : "int32";
            }
            case LONG -> "int64";
            case FLOAT -> "float";
            case DOUBLE -> "double";
            case BOOLEAN -> "boolean";
            case STRING, ENUM -> "string";
            case BYTES, FIXED -> "bytes";
            case RECORD -> "struct";
            case ARRAY -> "array";
            case MAP -> "map";
            default -> schema.getType().getName();  // null, or a union of several: no Connect type
        };
    }

    /** A value as JsonConverter writes it: structs as objects in field order, bytes as base64, numbers as their
     * Java text (what Jackson writes for the same int, long, float or double), null as JSON null. */
    public static Object value(Schema schema, Object datum) {
        if (datum == null) {
            return Json.NULL;
        }
        if (schema.getType() == Schema.Type.UNION) {
            return value(branchOf(schema, datum), datum);
        }
        return switch (schema.getType()) {
            case RECORD -> {
                GenericRecord record = (GenericRecord) datum;
                List<Schema.Field> fields = schema.getFields();  // in position order
                Object[] members = new Object[fields.size()];
                for (int i = 0; i < members.length; i++) {
                    members[i] = value(fields.get(i).schema(), record.get(i));
                }
                yield SmallMap.of(fieldNames(schema), members);
            }
            case ARRAY -> {
                List<Object> items = new ArrayList<>();
                for (Object item : (List<?>) datum) {
                    items.add(value(schema.getElementType(), item));
                }
                yield items;
            }
            case MAP -> {
                Map<String, Object> members = new SmallMap<>(((Map<?, ?>) datum).size());
                for (Map.Entry<?, ?> entry : ((Map<?, ?>) datum).entrySet()) {
                    members.put(entry.getKey().toString(), value(schema.getValueType(), entry.getValue()));
                }
                yield members;
            }
            case BYTES -> base64(((ByteBuffer) datum).duplicate());
            case FIXED -> Base64.getEncoder().encodeToString(((GenericFixed) datum).bytes());
            case INT, LONG -> Json.number(datum.toString());
            // Jackson, as JsonConverter runs it, quotes NaN and the infinities (QUOTE_NON_NUMERIC_NUMBERS)
            case FLOAT, DOUBLE -> Double.isFinite(((Number) datum).doubleValue()) ? Json.number(datum.toString()) : datum.toString();
            case BOOLEAN -> datum;
            case ENUM -> ((GenericEnumSymbol<?>) datum).toString();
            default -> datum.toString();  // string (Avro's Utf8)
        };
    }

    /** The branch a non-null datum was written with: an optional's other branch (every union Connect writes), without
     * GenericData's search of the branches by the datum's class (3% of the reader, issue 61). */
    private static Schema branchOf(Schema union, Object datum) {
        Schema optional = nonNull(union);
        return optional != union ? optional : union.getTypes().get(org.apache.avro.generic.GenericData.get().resolveUnion(union, datum));
    }

    private static String base64(ByteBuffer buffer) {
        byte[] bytes = new byte[buffer.remaining()];
        buffer.get(bytes);
        return Base64.getEncoder().encodeToString(bytes);
    }
}
